#include "commands.h"
#include <stdio.h>
int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "fp8attn bench: not implemented yet\n"); return 2; }
