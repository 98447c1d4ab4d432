#include "commands.h"
#include <stdio.h>
int cmd_check(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "fp8attn check: not implemented yet\n"); return 2; }
