#include "commands.h"
#include <stdio.h>
int cmd_info(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "fp8attn info: not implemented yet\n"); return 2; }
