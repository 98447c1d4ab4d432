#include "commands.h"
#include <stdio.h>
int cmd_gate(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "fp8attn gate: not implemented yet\n"); return 2; }
