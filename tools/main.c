/* fp8attn: check, benchmark and compare FP8 attention kernels. Dispatches to tools/cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "fp8attn.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command_t;

static const command_t k_commands[] = {
    {"info", cmd_info, "version, build flags, compiled CUDA architectures, devices"},
    {"check", cmd_check, "correctness of a backend/variant over shapes x seeds, with gates"},
    {"bench", cmd_bench, "time variants over shapes (CUDA events, L2 flushed, p50/p90, TFLOPS)"},
    {"compare", cmd_compare, "compare two result directories (p50 per shape, speed-up)"},
    {"gate", cmd_gate, "pass/fail gates of a candidate against a baseline"},
    {"resources", cmd_resources, "registers, shared memory, stack and spills of every kernel"},
};

static void usage(FILE *f)
{
    size_t i;
    fprintf(f, "fp8attn %s -- FP8 attention: check, benchmark, compare\n\n", fp8attn_version());
    fprintf(f, "usage: fp8attn COMMAND [options]   (fp8attn COMMAND --help for its options)\n\n");
    for (i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        fprintf(f, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
}

int main(int argc, char **argv)
{
    size_t i;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("fp8attn %s\n", fp8attn_version());
        return 0;
    }
    for (i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (!strcmp(argv[1], k_commands[i].name)) return k_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fp8attn: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
