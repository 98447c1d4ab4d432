#include "commands.h"
#include <stdio.h>
int cmd_resources(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "fp8attn resources: not implemented yet\n"); return 2; }
