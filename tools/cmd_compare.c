#include "commands.h"
#include <stdio.h>
int cmd_compare(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "fp8attn compare: not implemented yet\n"); return 2; }
