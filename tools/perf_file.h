/* perf.json files and the shape-by-shape matching of two of them, shared by `compare` and
 * `gate`. A record's key is the problem it timed: (B, h_q, h_kv, seqlen_q, seqlen_k, head_dim,
 * causal) and the options that change what is computed (layout, out_type, lse, descale); the
 * same key matches correctness.json records to perf.json records in `gate`. */
#ifndef FP8ATTN_TOOL_PERF_FILE_H
#define FP8ATTN_TOOL_PERF_FILE_H

#include <stdio.h>

#include <jansson.h>

#include "common.h"

typedef struct {
    long long b, h_q, h_kv, seqlen_q, seqlen_k, head_dim, causal, lse;
    char layout[8], out_type[8], descale[16];
} shape_key_t;

/* Reads the key fields of one JSON record. 0, or -1 with *bad_field naming the field that is
 * missing or invalid and *allowed saying what it must be ("an integer", "a boolean",
 * "one of bhsd, bshd", ...; static text). */
int shape_key_read(const json_t *rec, shape_key_t *key, const char **bad_field,
                   const char **allowed);
int shape_key_equal(const shape_key_t *a, const shape_key_t *b);
/* "B=1 hq=16 hkv=16 sq=4096 sk=4096 d=128 causal=1 bhsd fp16 descale=head lse=0" */
void shape_key_format(const shape_key_t *k, char *buf, size_t len);

typedef struct {
    shape_key_t key;
    const char *variant; /* NULL if the record names none; owned by perf_file_t.root */
    const char *kernel;  /* kernel symbol the GPU ran; NULL if not recorded (CPU, older files) */
    const char *backend; /* "cpu" or "gpu"; owned by perf_file_t.root */
    int l2_flush;
    int workspace;      /* 1 or 0; -1 if not recorded (files older than the workspace API) */
    const char *inputs; /* "normal", "rising", "spike"; NULL if not recorded */
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
/* 1 if f->records[i] is of variant `filter` and key `key` (either NULL: any). */
int perf_record_selected(const perf_file_t *f, int i, const char *filter, const shape_key_t *key);
/* "a, b": the distinct variants named by f's records of variant `filter` and key `key` (either
 * NULL: any), "(none)" for records without one; "no variant" when there is none. */
void perf_file_variants(const perf_file_t *f, const char *filter, const shape_key_t *key,
                        char *buf, size_t len);

/* How one side's records were measured: the backend, L2 flushing, workspace and input kind of its
 * first record (of the variant filter) and, in `conflict`, the index of the first record that
 * differs from it in any of them (-1 if none does). The inputs change the timing too: the
 * softmax skips rescales that rising scores force. */
typedef struct {
    const char *backend;
    int l2_flush;
    int workspace;      /* as in perf_record_t */
    const char *inputs; /* as in perf_record_t */
    int first, conflict;
} perf_setup_t;

/* One shape of either side. A side's values are the median over its records of that shape
 * (several variants or seeds) after the optional variant filter; n_* = 0: absent there. */
typedef struct {
    shape_key_t key;
    int n_base, n_cand;
    int n_base_variants, n_cand_variants; /* distinct variants among those records */
    double base_p50, base_p90, cand_p50, cand_p90;
} shape_row_t;

typedef struct {
    shape_row_t *rows; /* BASE's shapes in file order, then those only in CAND */
    int n, n_common;
    int n_only_base, n_only_cand;
    int base_aggregated, cand_aggregated;       /* shapes whose value is a median of records */
    int base_multi_variant, cand_multi_variant; /* ... of records of several variants */
    const char *variant_base, *variant_cand;
    perf_setup_t base_setup, cand_setup;
} comparison_t;

/* BASE, CAND and the variant filters of the command line. */
typedef struct {
    const char *base, *cand;
    const char *variant_base, *variant_cand;
} pair_args_t;

/* Command-line parser for compare and gate (an extra_parser_t with ctx = pair_args_t): BASE,
 * CAND, --variant-base V and --variant-cand V (or --flag=V). ARG_UNKNOWN for other options. */
arg_result_t pair_args_parse(args_t *a, void *pair_args);
/* Loads both perf files and matches their shapes. 0, or -1 after printing what is wrong (on
 * failure nothing needs freeing). */
int pair_load(const pair_args_t *a, perf_file_t *base, perf_file_t *cand, comparison_t *c);
void comparison_free(comparison_t *c);
/* "backend gpu, l2_flush true", then ", workspace false" and ", inputs rising" where recorded */
void perf_setup_format(const perf_setup_t *s, char *buf, size_t len);
/* The setup record i of f was measured with (first = i, conflict = -1). */
void perf_setup_of(const perf_file_t *f, int i, perf_setup_t *s);
/* 1 if BASE and CAND were measured alike (same backend, L2 flushing, workspace and inputs, each
 * side uniform). */
int comparison_setups_match(const comparison_t *c);
/* Prints, one line each, how many shapes were medians of several records and why, and a warning
 * when the two sides were not measured alike. */
void comparison_print_notes(const comparison_t *c, FILE *f);

/* base p50 / cand p50 (> 1: CAND is faster). */
double row_speedup(const shape_row_t *r);
/* Geometric mean of row_speedup over the common shapes (NAN if there are none). */
double comparison_geomean_speedup(const comparison_t *c);
/* The larger relative spread (p90 - p50) / p50 of the two sides (never negative). */
double row_noise(const shape_row_t *r);

#endif
