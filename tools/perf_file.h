/* perf.json files and the shape-by-shape matching of two of them, shared by `compare` and
 * `gate`. A shape is identified by (B, h_q, h_kv, seqlen_q, seqlen_k, head_dim, causal). */
#ifndef FP8ATTN_TOOL_PERF_FILE_H
#define FP8ATTN_TOOL_PERF_FILE_H

#include <stdio.h>

#include <jansson.h>

typedef struct {
    long long b, h_q, h_kv, seqlen_q, seqlen_k, head_dim, causal;
} shape_key_t;

/* Reads the key fields of one JSON record. 0, or -1 with *bad_field naming the field that is
 * missing or not an integer (causal may be a boolean). */
int shape_key_read(const json_t *rec, shape_key_t *key, const char **bad_field);
int shape_key_equal(const shape_key_t *a, const shape_key_t *b);
/* "B=1 hq=16 hkv=16 sq=4096 sk=4096 d=128 causal=1" */
void shape_key_format(const shape_key_t *k, char *buf, size_t len);

typedef struct {
    shape_key_t key;
    const char *variant; /* NULL if the record names none; owned by perf_file_t.root */
    double p50_us, p90_us;
} perf_record_t;

typedef struct {
    char *path; /* the perf.json read */
    char *dir;  /* its directory: where correctness.json, resources.json, COMPARE.md live */
    json_t *root;
    perf_record_t *records;
    int n;
} perf_file_t;

/* `arg` is a results directory holding perf.json, or a perf.json file. 0, or -1 after printing
 * the path and what is wrong. */
int perf_file_load(const char *arg, perf_file_t *out);
void perf_file_free(perf_file_t *f);
/* "a, b": the distinct variants f's records name ("(none)" for records without one), only
 * `filter` if it is not NULL; "no variant" when there is none. */
void perf_file_variants(const perf_file_t *f, const char *filter, char *buf, size_t len);
/* malloc'd "dir/name" (NULL if out of memory). */
char *path_join(const char *dir, const char *name);

/* One shape of either side. A side's values are the median over its records of that shape
 * (several variants or seeds) after the optional variant filter; n_* = 0: absent there. */
typedef struct {
    shape_key_t key;
    int n_base, n_cand;
    double base_p50, base_p90, cand_p50, cand_p90;
} shape_row_t;

typedef struct {
    shape_row_t *rows; /* BASE's shapes in file order, then those only in CAND */
    int n, n_common;
    int n_only_base, n_only_cand;
    int base_aggregated, cand_aggregated; /* shapes whose value is a median of several records */
    const char *variant_base, *variant_cand;
} comparison_t;

/* BASE, CAND and the variant filters of the command line. */
typedef struct {
    const char *base, *cand;
    const char *variant_base, *variant_cand;
} pair_args_t;

/* If argv[*i] is BASE, CAND, --variant-base V or --variant-cand V, stores it, advances *i past
 * it and returns 1; returns 0 for any other argument, -1 after printing what is wrong. */
int pair_args_take(int argc, char **argv, int *i, pair_args_t *a, const char *cmd);
/* Loads both perf files and matches their shapes. 0, or -1 after printing what is wrong (on
 * failure nothing needs freeing). */
int pair_load(const pair_args_t *a, perf_file_t *base, perf_file_t *cand, comparison_t *c);
void comparison_free(comparison_t *c);
/* Prints, one line each, how many shapes were medians of several records and why. */
void comparison_print_notes(const comparison_t *c, FILE *f);

/* base p50 / cand p50 (> 1: CAND is faster). */
double row_speedup(const shape_row_t *r);
/* Geometric mean of row_speedup over the common shapes (NAN if there are none). */
double comparison_geomean_speedup(const comparison_t *c);
/* The larger relative spread (p90 - p50) / p50 of the two sides (never negative). */
double row_noise(const shape_row_t *r);

#endif
