/* Results directories on disk and build metadata (owned by the pipeline: tools/results.c).
 * A run with --out DIR (default results/<UTC timestamp>-<label>/) writes build_meta.json there,
 * then correctness.json (check) and/or perf.json (bench). */
#ifndef FP8ATTN_TOOL_RESULTS_H
#define FP8ATTN_TOOL_RESULTS_H

#include <jansson.h>

/* Build and device metadata: timestamp, fp8attn version, git sha/branch/dirty, compilers and
 * flags, CUDA architectures compiled, the variants used, device name / compute capability /
 * SM count / clocks / driver and runtime versions ("devices": [] without a GPU). New reference. */
json_t *results_build_meta(const char *const *variants, int n_variants);

/* Creates the results directory: `dir` if not NULL, else results/<UTC YYYYmmdd-HHMMSS>-<label>
 * (parents created), and writes build_meta.json into it. Returns a malloc'd path, or NULL after
 * printing to stderr what failed. */
char *results_open_dir(const char *dir, const char *label, const char *const *variants,
                       int n_variants);

/* Writes `root` as pretty JSON to DIR/NAME. Returns 0, or -1 after printing what failed. */
int results_write_json(const char *dir, const char *name, json_t *root);

#endif
