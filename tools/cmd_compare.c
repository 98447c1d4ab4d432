/* fp8attn compare BASE CAND: p50 per shape of two perf.json files, printed and as COMPARE.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "files.h"
#include "perf_file.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fp8attn compare BASE CAND [--variant-base NAME] [--variant-cand NAME]\n\n"
            "BASE and CAND are results directories holding perf.json, or perf.json files.\n"
            "Shapes are matched by (B, h_q, h_kv, seqlen_q, seqlen_k, head_dim, causal) and the\n"
            "options layout, out_type, descale and lse. Where a file has several records of a\n"
            "shape (variants, seeds), the median of their p50s is used (a note says so) unless\n"
            "--variant-base / --variant-cand picks one variant. A warning says when the two\n"
            "sides were measured differently (backend, L2 flushing, workspace, inputs): `gate`\n"
            "refuses those.\n"
            "A shape is 'within noise' when |delta| is below the larger relative spread\n"
            "(p90 - p50) / p50 of its two records. The table is also written as Markdown to\n"
            "COMPARE.md in CAND's directory.\n"
            "Exit status: 0 compared, 2 bad arguments or unusable inputs.\n");
}

static const char *row_status(const shape_row_t *r)
{
    double delta;
    if (r->n_cand == 0) return "only in BASE";
    if (r->n_base == 0) return "only in CAND";
    delta = r->cand_p50 / r->base_p50 - 1.0;
    if (fabs(delta) < row_noise(r)) return "within noise";
    return delta < 0 ? "faster" : "slower";
}

/* p50 of one side, or "-" where the shape is absent. */
static void format_p50(char *buf, size_t len, int n, double p50)
{
    if (n) snprintf(buf, len, "%.2f", p50);
    else snprintf(buf, len, "-");
}

static void format_row(const shape_row_t *r, char cells[5][32])
{
    int both = r->n_base && r->n_cand;
    format_p50(cells[0], 32, r->n_base, r->base_p50);
    format_p50(cells[1], 32, r->n_cand, r->cand_p50);
    if (both) {
        snprintf(cells[2], 32, "%+.1f%%", (r->cand_p50 / r->base_p50 - 1.0) * 100.0);
        snprintf(cells[3], 32, "%.3fx", row_speedup(r));
    } else {
        snprintf(cells[2], 32, "-");
        snprintf(cells[3], 32, "-");
    }
    snprintf(cells[4], 32, "%s", row_status(r));
}

static void print_table(FILE *f, const comparison_t *c, int markdown)
{
    char shape[128], cells[5][32];
    int i;
    if (markdown)
        fprintf(f, "| shape | p50 base (us) | p50 cand (us) | Δ%% | speed-up | status |\n"
                   "|---|---:|---:|---:|---:|---|\n");
    else
        fprintf(f, "%-78s %13s %13s %8s %9s  %s\n", "shape", "p50 base (us)", "p50 cand (us)",
                "delta", "speed-up", "status");
    for (i = 0; i < c->n; i++) {
        shape_key_format(&c->rows[i].key, shape, sizeof shape);
        format_row(&c->rows[i], cells);
        if (markdown)
            fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", shape, cells[0], cells[1], cells[2],
                    cells[3], cells[4]);
        else
            fprintf(f, "%-78s %13s %13s %8s %9s  %s\n", shape, cells[0], cells[1], cells[2],
                    cells[3], cells[4]);
    }
}

static void print_summary(FILE *f, const comparison_t *c)
{
    if (c->n_common)
        fprintf(f, "%d common shape(s): geometric-mean speed-up %.3fx (base p50 / cand p50)",
                c->n_common, comparison_geomean_speedup(c));
    else
        fprintf(f, "no shape in common");
    fprintf(f, "; %d only in BASE, %d only in CAND\n", c->n_only_base, c->n_only_cand);
}

static int write_markdown(const perf_file_t *base, const perf_file_t *cand,
                          const comparison_t *c)
{
    char *path = path_join(cand->dir, "COMPARE.md");
    FILE *f = path ? fopen(path, "w") : NULL;
    int bad;
    if (!f) {
        fprintf(stderr, "fp8attn compare: cannot write %s: %s\n",
                path ? path : "COMPARE.md", path ? strerror(errno) : "out of memory");
        free(path);
        return -1;
    }
    fprintf(f, "# fp8attn compare\n\n- BASE: `%s`\n- CAND: `%s`\n\n", base->path, cand->path);
    print_table(f, c, 1);
    fprintf(f, "\n");
    print_summary(f, c);
    comparison_print_notes(c, f);
    bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "fp8attn compare: error writing %s\n", path);
        free(path);
        return -1;
    }
    printf("wrote %s\n", path);
    free(path);
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    pair_args_t args = {NULL, NULL, NULL, NULL};
    perf_file_t base, cand;
    comparison_t c;
    arg_result_t r = args_parse(argc, argv, "compare", pair_args_parse, &args);
    int rc;
    if (r == ARG_OK && !args.cand) {
        fprintf(stderr, "fp8attn compare: need BASE and CAND\n");
        r = ARG_BAD;
    }
    if (r != ARG_OK) {
        usage(r == ARG_HELP ? stdout : stderr);
        return r == ARG_HELP ? EXIT_PASS : EXIT_BAD_ARGS;
    }
    if (pair_load(&args, &base, &cand, &c) != 0) return EXIT_BAD_ARGS;
    printf("BASE: %s\nCAND: %s\n\n", base.path, cand.path);
    print_table(stdout, &c, 0);
    printf("\n");
    print_summary(stdout, &c);
    comparison_print_notes(&c, stdout);
    rc = write_markdown(&base, &cand, &c) == 0 ? EXIT_PASS : EXIT_BAD_ARGS;
    comparison_free(&c);
    perf_file_free(&base);
    perf_file_free(&cand);
    return rc;
}
