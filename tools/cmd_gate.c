/* fp8attn gate BASE CAND: pass/fail gates (correctness, speed, regressions, kernel resources). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "files.h"
#include "json_file.h"
#include "perf_file.h"

/* Default per-block shared memory limit: the H100 (sm_90) opt-in maximum, 227 KiB. */
#define GATE_DEFAULT_MAX_SMEM 232448

typedef struct {
    pair_args_t pair;
    double min_speedup; /* fraction: 0.10 = CAND 10% faster */
    double max_regress; /* fraction: 0.02 = no shape more than 2% slower */
    int geomean;
    long long max_regs, max_smem, max_spills;
    int correctness, resources;
} gate_opts_t;

typedef struct {
    int passed, failed;
} tally_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fp8attn gate BASE CAND [options]\n\n"
            "BASE and CAND are results directories (perf.json; CAND also correctness.json and\n"
            "resources.json), or perf.json files (then the other files are read beside them).\n"
            "Shapes are matched as in `fp8attn compare` (shape, causal, layout, out_type,\n"
            "descale, lse); only shapes in both files are gated.\n\n"
            "  --min-speedup X     every common shape's speed-up (base p50 / cand p50 - 1) must\n"
            "                      be >= X; '10%%' and '0.10' both mean 10%% (default 10%%)\n"
            "  --geomean           apply --min-speedup to the geometric mean over common shapes\n"
            "  --max-regress X     no shape may be slower than BASE by more than X (default 2%%)\n"
            "  --max-regs N        registers per thread of every kernel used (default 255)\n"
            "  --max-smem BYTES    static + dynamic shared memory per block (default %d, the\n"
            "                      H100 per-block opt-in limit)\n"
            "  --spills BYTES      spill_bytes of every kernel used (default 0)\n"
            "  --no-correctness    skip the correctness gate (CAND's correctness.json)\n"
            "  --no-resources      skip the resource gates (CAND's resources.json)\n"
            "  --variant-base V, --variant-cand V\n"
            "                      use only that variant's records of BASE / CAND; required\n"
            "                      when a side has records of several variants for a shape\n"
            "  (every option also takes the form --option=VALUE)\n\n"
            "BASE and CAND must have been measured alike: the same backend, L2 flushing (bench\n"
            "--hot or not), workspace (--no-workspace or not) and --inputs on every record\n"
            "used (files that do not record the workspace or the inputs match only each other).\n"
            "Correctness: CAND's correctness.json must come from CAND's backend, every record\n"
            "must pass, and every gated shape must have a passing record of the variant CAND's\n"
            "perf.json timed for it; a shape without one fails the gate and is listed.\n"
            "The resource gates apply to the kernels CAND's perf.json records ran (their\n"
            "\"kernel\" field); for records without one, to every kernel of the record's\n"
            "variant family (mma-m128 -> the kernels listed under mma).\n"
            "Exit status: 0 every gate passed, 1 a gate failed, 2 bad arguments or unusable\n"
            "inputs (missing perf.json, malformed files, no shape in common, BASE and CAND\n"
            "measured differently, several variants for a shape\n"
            "without --variant-base / --variant-cand).\n",
            GATE_DEFAULT_MAX_SMEM);
}

#if defined(__GNUC__)
static void gate_line(tally_t *t, int pass, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#endif

/* Prints "PASS name  details" or "FAIL ..." and counts it. */
static void gate_line(tally_t *t, int pass, const char *name, const char *fmt, ...)
{
    va_list ap;
    printf("%s %-12s ", pass ? "PASS" : "FAIL", name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (pass) t->passed++;
    else t->failed++;
}

/* ---- options ---- */

static arg_result_t parse_gate_arg(args_t *a, void *ctx)
{
    gate_opts_t *o = ctx;
    const char *v;
    arg_result_t r;
    if (arg_flag(a, "--geomean")) o->geomean = 1;
    else if (arg_flag(a, "--no-correctness")) o->correctness = 0;
    else if (arg_flag(a, "--no-resources")) o->resources = 0;
    else if ((r = arg_value(a, "--min-speedup", &v)) != ARG_UNKNOWN) {
        if (r != ARG_OK || parse_fraction(a->cmd, "--min-speedup", v, &o->min_speedup))
            return ARG_BAD;
        if (o->min_speedup <= -1.0) {
            fprintf(stderr, "fp8attn gate: --min-speedup '%s': must be above -100%%\n", v);
            return ARG_BAD;
        }
    } else if ((r = arg_value(a, "--max-regress", &v)) != ARG_UNKNOWN) {
        if (r != ARG_OK || parse_fraction(a->cmd, "--max-regress", v, &o->max_regress))
            return ARG_BAD;
        if (o->max_regress < 0) {
            fprintf(stderr, "fp8attn gate: --max-regress '%s': must be >= 0\n", v);
            return ARG_BAD;
        }
    } else if ((r = arg_value(a, "--max-regs", &v)) != ARG_UNKNOWN) {
        if (r != ARG_OK || parse_count(a->cmd, "--max-regs", v, &o->max_regs)) return ARG_BAD;
    } else if ((r = arg_value(a, "--max-smem", &v)) != ARG_UNKNOWN) {
        if (r != ARG_OK || parse_count(a->cmd, "--max-smem", v, &o->max_smem)) return ARG_BAD;
    } else if ((r = arg_value(a, "--spills", &v)) != ARG_UNKNOWN) {
        if (r != ARG_OK || parse_count(a->cmd, "--spills", v, &o->max_spills)) return ARG_BAD;
    } else {
        return pair_args_parse(a, &o->pair);
    }
    return ARG_OK;
}

/* ---- can BASE and CAND be gated at all? ---- */

/* -1 after saying why if one side mixes measurement setups or the sides differ. */
static int check_setups(const perf_file_t *base, const perf_file_t *cand, const comparison_t *c)
{
    const perf_file_t *files[2] = {base, cand};
    const perf_setup_t *setups[2] = {&c->base_setup, &c->cand_setup};
    const char *sides[2] = {"BASE", "CAND"};
    char a[128], b[128];
    int i;
    for (i = 0; i < 2; i++) {
        const perf_setup_t *s = setups[i];
        perf_setup_t other;
        if (s->conflict < 0) continue;
        perf_setup_of(files[i], s->conflict, &other);
        perf_setup_format(s, a, sizeof a);
        perf_setup_format(&other, b, sizeof b);
        fprintf(stderr, "fp8attn gate: %s %s: results[%d] (%s) and results[%d] (%s) were measured "
                "differently; a side must use one backend, L2 setting, workspace setting and "
                "input kind\n", sides[i], files[i]->path, s->first, a, s->conflict, b);
        return -1;
    }
    if (comparison_setups_match(c)) return 0;
    perf_setup_format(&c->base_setup, a, sizeof a);
    perf_setup_format(&c->cand_setup, b, sizeof b);
    fprintf(stderr, "fp8attn gate: BASE %s was measured with %s, CAND %s with %s: timings of "
            "different backends, L2 states, workspace settings or inputs are not comparable "
            "(bench both with the same --backend and --inputs, both with or both without --hot, "
            "and both with or both without --no-workspace)\n", base->path, a, cand->path, b);
    return -1;
}

/* -1 after listing them if a gated shape has records of several variants on a side that has no
 * variant filter (the gate would otherwise judge a median across variants). */
static int check_single_variant(const perf_file_t *f, const comparison_t *c, int cand)
{
    const char *side = cand ? "CAND" : "BASE", *flag = cand ? "--variant-cand" : "--variant-base";
    char shape[160], variants[256];
    int i, n = 0;
    for (i = 0; i < c->n; i++) {
        const shape_row_t *r = &c->rows[i];
        if (!r->n_base || !r->n_cand || (cand ? r->n_cand_variants : r->n_base_variants) < 2)
            continue;
        if (n++ == 0)
            fprintf(stderr, "fp8attn gate: %s %s has records of several variants for a gated "
                    "shape; the gate compares one variant per side: choose it with %s NAME\n",
                    side, f->path, flag);
        shape_key_format(&r->key, shape, sizeof shape);
        perf_file_variants(f, NULL, &r->key, variants, sizeof variants);
        fprintf(stderr, "  %s: %s\n", shape, variants);
    }
    return n ? -1 : 0;
}

/* ---- correctness ---- */

typedef struct {
    shape_key_t key;
    const char *variant;
    long long seed;
    int pass;
} corr_record_t;

typedef struct {
    const char *path, *backend;
    corr_record_t *records;
    int n, n_failed, all_pass;
} corr_file_t;

/* Reads the records of a loaded correctness.json; -1 after naming the path and the field if it
 * is unusable. */
static int read_correctness(const char *path, const json_t *root, corr_file_t *cf)
{
    const json_t *results = json_object_get(root, "results");
    const char *bad, *allowed;
    size_t i;
    cf->path = path;
    cf->backend = json_string_value(json_object_get(root, "backend"));
    cf->all_pass = !json_is_false(json_object_get(root, "all_pass"));
    if (!cf->backend || choice_index(cf->backend, k_backend_names) < 0) {
        fprintf(stderr, "fp8attn gate: %s: \"backend\" is missing or not one of cpu, gpu\n", path);
        return -1;
    }
    if (!json_is_array(results)) {
        fprintf(stderr, "fp8attn gate: %s: no \"results\" array\n", path);
        return -1;
    }
    cf->records = calloc(json_array_size(results) + 1, sizeof *cf->records);
    if (!cf->records) {
        fprintf(stderr, "fp8attn gate: out of memory reading %s\n", path);
        return -1;
    }
    for (i = 0; i < json_array_size(results); i++) {
        const json_t *rec = json_array_get(results, i);
        corr_record_t *r = &cf->records[i];
        const json_t *pass = json_object_get(rec, "pass");
        if (shape_key_read(rec, &r->key, &bad, &allowed) != 0) {
            fprintf(stderr, "fp8attn gate: %s: results[%zu].%s is missing or not %s (run "
                    "`fp8attn check` again to record it)\n", path, i, bad, allowed);
            return -1;
        }
        r->variant = json_string_value(json_object_get(rec, "variant"));
        if (!r->variant) {
            fprintf(stderr, "fp8attn gate: %s: results[%zu].variant is missing or not a string\n",
                    path, i);
            return -1;
        }
        if (!json_is_boolean(pass)) {
            fprintf(stderr, "fp8attn gate: %s: results[%zu].pass is missing or not a boolean\n",
                    path, i);
            return -1;
        }
        r->pass = json_is_true(pass);
        if (json_get_int(rec, "seed", &r->seed) != 0) r->seed = -1;
        cf->n_failed += !r->pass;
    }
    cf->n = (int)json_array_size(results);
    return 0;
}

/* 1 if the file holds a passing record of `key` and `variant` (NULL: any variant). */
static int checked(const corr_file_t *cf, const shape_key_t *key, const char *variant)
{
    int i;
    for (i = 0; i < cf->n; i++)
        if (cf->records[i].pass && shape_key_equal(&cf->records[i].key, key) &&
            (!variant || !strcmp(cf->records[i].variant, variant)))
            return 1;
    return 0;
}

/* Index of the first CAND record of key `row` and variant filter whose (key, variant) has no
 * passing correctness record, starting at `from`; -1 if none. Each (key, variant) is reported
 * once: at its first record. */
static int next_unchecked(const perf_file_t *cand, const char *filter, const shape_key_t *key,
                          const corr_file_t *cf, int from)
{
    int i, j;
    for (i = from; i < cand->n; i++) {
        const char *v = cand->records[i].variant;
        if (!perf_record_selected(cand, i, filter, key) || checked(cf, key, v)) continue;
        for (j = 0; j < i; j++)
            if (perf_record_selected(cand, j, filter, key) &&
                (cand->records[j].variant == v ||
                 (v && cand->records[j].variant && !strcmp(cand->records[j].variant, v))))
                break;
        if (j == i) return i;
    }
    return -1;
}

/* Prints every gated (key, variant) without a passing record; returns the number of gated
 * shapes with at least one. */
static int list_unchecked(const perf_file_t *cand, const comparison_t *c, const corr_file_t *cf)
{
    char shape[160];
    int i, n_rows = 0;
    for (i = 0; i < c->n; i++) {
        const shape_row_t *r = &c->rows[i];
        int k = -1, first = 1;
        if (!r->n_base || !r->n_cand) continue;
        while ((k = next_unchecked(cand, c->variant_cand, &r->key, cf, k + 1)) >= 0) {
            const char *v = cand->records[k].variant;
            shape_key_format(&r->key, shape, sizeof shape);
            printf("       not checked: %s variant %s\n", shape, v ? v : "(none)");
            n_rows += first;
            first = 0;
        }
    }
    return n_rows;
}

/* Counts the gated shapes without a passing record, without printing. */
static int count_unchecked(const perf_file_t *cand, const comparison_t *c, const corr_file_t *cf)
{
    int i, n = 0;
    for (i = 0; i < c->n; i++) {
        const shape_row_t *r = &c->rows[i];
        if (r->n_base && r->n_cand && next_unchecked(cand, c->variant_cand, &r->key, cf, 0) >= 0)
            n++;
    }
    return n;
}

static void print_failed_records(const corr_file_t *cf)
{
    char shape[160];
    int i;
    for (i = 0; i < cf->n; i++) {
        const corr_record_t *r = &cf->records[i];
        if (r->pass) continue;
        shape_key_format(&r->key, shape, sizeof shape);
        printf("       failed: %s seed=%lld variant %s\n", shape, r->seed, r->variant);
    }
}

/* Judges a loaded correctness.json against CAND's perf.json. */
static void judge_correctness(const corr_file_t *cf, const perf_file_t *cand,
                              const comparison_t *c, tally_t *t)
{
    const char *cand_backend = c->cand_setup.backend;
    int backend_ok = !strcmp(cf->backend, cand_backend);
    int unchecked = count_unchecked(cand, c, cf);
    int pass = cf->n > 0 && cf->n_failed == 0 && cf->all_pass && backend_ok && unchecked == 0;
    gate_line(t, pass, "correctness",
              "%d of %d (shape, seed) results passed; %d of %d gated shape(s) checked with "
              "CAND's variant on backend %s (%s)%s", cf->n - cf->n_failed, cf->n,
              c->n_common - unchecked, c->n_common, cf->backend, cf->path,
              cf->n == 0 ? ": no results" : "");
    if (!backend_ok)
        printf("       backend: %s is from backend %s, CAND's perf.json from backend %s\n",
               cf->path, cf->backend, cand_backend);
    if (!cf->all_pass) printf("       all_pass is false in %s\n", cf->path);
    list_unchecked(cand, c, cf);
    print_failed_records(cf);
}

/* The correctness gate on CAND's correctness.json; -1 if that file is unusable. */
static int gate_correctness(const perf_file_t *cand, const comparison_t *c, tally_t *t)
{
    char *path = path_join(cand->dir, "correctness.json");
    int missing = 0, rc = -1;
    json_t *root = path ? json_file_load(path, &missing) : NULL;
    corr_file_t cf;
    memset(&cf, 0, sizeof cf);
    if (!path) {
        fprintf(stderr, "fp8attn gate: out of memory\n");
    } else if (missing) {
        gate_line(t, 0, "correctness", "no correctness.json in %s (run `fp8attn check --out %s` "
                  "with the options of CAND's bench, or skip this gate with --no-correctness)",
                  cand->dir, cand->dir);
        rc = 0;
    } else if (root && read_correctness(path, root, &cf) == 0) {
        judge_correctness(&cf, cand, c, t);
        rc = 0;
    }
    free(cf.records);
    json_decref(root);
    free(path);
    return rc;
}

/* ---- speed ---- */

/* The speed and regression gates. The shape of smallest speed-up is also the slowest one. */
static void gate_speed(const comparison_t *c, const gate_opts_t *o, tally_t *t)
{
    char shape[160];
    const shape_row_t *worst = NULL;
    double slowdown;
    int i;
    for (i = 0; i < c->n; i++) {
        const shape_row_t *r = &c->rows[i];
        if (r->n_base && r->n_cand && (!worst || row_speedup(r) < row_speedup(worst))) worst = r;
    }
    shape_key_format(&worst->key, shape, sizeof shape);
    if (o->geomean) {
        double g = comparison_geomean_speedup(c) - 1.0;
        gate_line(t, g >= o->min_speedup, "speed",
                  "geometric-mean speed-up %+.1f%% over %d common shape(s) (required >= %+.1f%%)",
                  g * 100.0, c->n_common, o->min_speedup * 100.0);
    } else {
        gate_line(t, row_speedup(worst) - 1.0 >= o->min_speedup, "speed",
                  "smallest speed-up %+.1f%% at %s (required >= %+.1f%% on each of %d common "
                  "shape(s))", (row_speedup(worst) - 1.0) * 100.0, shape,
                  o->min_speedup * 100.0, c->n_common);
    }
    slowdown = worst->cand_p50 / worst->base_p50 - 1.0;
    gate_line(t, slowdown <= o->max_regress, "regress",
              "largest slowdown vs BASE %+.1f%% at %s (allowed <= %.1f%%)", slowdown * 100.0,
              shape, o->max_regress * 100.0);
}

/* ---- resources ---- */

typedef struct {
    long long value;
    const char *symbol, *arch;
} worst_t;

/* Does CAND (its records of variant `filter`, NULL: all) use this kernel of resources.json? A
 * record that names the kernel it ran ("kernel", written by bench on the GPU) uses exactly that
 * one; an older record without it uses every kernel of its variant's family ("mma-m128" and "mma"
 * both run kernels listed under "mma"). */
static int kernel_used(const perf_file_t *cand, const char *filter, const char *kernel_variant,
                       const char *symbol)
{
    int i;
    const size_t n = strlen(kernel_variant);
    for (i = 0; i < cand->n; i++) {
        const perf_record_t *r = &cand->records[i];
        if (!r->variant || (filter && strcmp(filter, r->variant))) continue;
        if (r->kernel) {
            if (symbol && !strcmp(r->kernel, symbol)) return 1;
        } else if (!strncmp(r->variant, kernel_variant, n) &&
                   (r->variant[n] == '\0' || r->variant[n] == '-')) {
            return 1;
        }
    }
    return 0;
}

static void keep_worst(worst_t *w, long long v, const char *symbol, const char *arch)
{
    if (!w->symbol || v > w->value) {
        w->value = v;
        w->symbol = symbol;
        w->arch = arch;
    }
}

/* Reads one kernel entry of resources.json into the running maxima; -1 if malformed. */
static int scan_kernel(const char *path, size_t i, const json_t *k, worst_t w[3])
{
    const char *symbol = json_string_value(json_object_get(k, "symbol"));
    const char *arch = json_string_value(json_object_get(k, "arch"));
    long long regs, static_smem, dyn_smem, spills;
    if (!symbol || !arch || json_get_int(k, "registers", &regs) ||
        json_get_int(k, "static_smem", &static_smem) ||
        json_get_int(k, "dynamic_smem", &dyn_smem) || json_get_int(k, "spill_bytes", &spills)) {
        fprintf(stderr, "fp8attn gate: %s: kernels[%zu] lacks one of symbol, arch (strings), "
                "registers, static_smem, dynamic_smem, spill_bytes (integers)\n", path, i);
        return -1;
    }
    keep_worst(&w[0], regs, symbol, arch);
    keep_worst(&w[1], static_smem + (dyn_smem > 0 ? dyn_smem : 0), symbol, arch);
    keep_worst(&w[2], spills, symbol, arch);
    return 0;
}

static void report_resources(const worst_t w[3], int n, const gate_opts_t *o, tally_t *t)
{
    gate_line(t, w[0].value <= o->max_regs, "registers",
              "max %lld per thread (%s, %s) over %d kernel build(s) (allowed <= %lld)",
              w[0].value, w[0].symbol, w[0].arch, n, o->max_regs);
    gate_line(t, w[1].value <= o->max_smem, "smem",
              "max %lld bytes static + dynamic per block (%s, %s) (allowed <= %lld)",
              w[1].value, w[1].symbol, w[1].arch, o->max_smem);
    gate_line(t, w[2].value <= o->max_spills, "spills",
              "max %lld spill bytes per thread (%s, %s) (allowed <= %lld)", w[2].value,
              w[2].symbol, w[2].arch, o->max_spills);
}

/* Judges a loaded resources.json over the kernels CAND ran (see kernel_used); -1 if it is
 * unusable. */
static int judge_resources(const char *path, const json_t *root, const perf_file_t *cand,
                           const gate_opts_t *o, tally_t *t)
{
    const json_t *kernels = json_object_get(root, "kernels");
    worst_t w[3];
    size_t i;
    int n = 0;
    if (!json_is_array(kernels)) {
        fprintf(stderr, "fp8attn gate: %s: no \"kernels\" array\n", path);
        return -1;
    }
    memset(w, 0, sizeof w);
    for (i = 0; i < json_array_size(kernels); i++) {
        const json_t *k = json_array_get(kernels, i);
        const char *variant = json_string_value(json_object_get(k, "variant"));
        const char *symbol = json_string_value(json_object_get(k, "symbol"));
        if (!variant || !kernel_used(cand, o->pair.variant_cand, variant, symbol)) continue;
        if (scan_kernel(path, i, k, w) != 0) return -1;
        n++;
    }
    if (n == 0) {
        char used[256];
        perf_file_variants(cand, o->pair.variant_cand, NULL, used, sizeof used);
        gate_line(t, 0, "resources", "%s lists no kernel that CAND's records ran (variants %s); "
                  "skip these gates with --no-resources", path, used);
    }
    else
        report_resources(w, n, o, t);
    return 0;
}

/* The resource gates on CAND's resources.json; -1 if that file is unusable. */
static int gate_resources(const perf_file_t *cand, const gate_opts_t *o, tally_t *t)
{
    char *path = path_join(cand->dir, "resources.json");
    int missing = 0, rc = -1;
    json_t *root = path ? json_file_load(path, &missing) : NULL;
    if (!path) {
        fprintf(stderr, "fp8attn gate: out of memory\n");
    } else if (missing) {
        gate_line(t, 0, "resources", "no resources.json in %s (run `fp8attn resources --json "
                  "%s`, or skip these gates with --no-resources)", cand->dir, path);
        rc = 0;
    } else if (root) {
        rc = judge_resources(path, root, cand, o, t);
    }
    json_decref(root);
    free(path);
    return rc;
}

static void print_header(const perf_file_t *base, const perf_file_t *cand, const comparison_t *c)
{
    char setup[128];
    perf_setup_format(&c->cand_setup, setup, sizeof setup);
    printf("gate: BASE %s\n      CAND %s\n      %d common shape(s), %d only in BASE, %d only "
           "in CAND (not gated); both measured with %s\n", base->path, cand->path, c->n_common,
           c->n_only_base, c->n_only_cand, setup);
    comparison_print_notes(c, stdout);
}

static int run_gates(const gate_opts_t *o, const perf_file_t *base, const perf_file_t *cand,
                     const comparison_t *c)
{
    tally_t t = {0, 0};
    if (check_setups(base, cand, c) != 0) return EXIT_BAD_ARGS;
    if (c->n_common == 0) {
        fprintf(stderr, "fp8attn gate: %s and %s have no shape in common (shape, causal, layout, "
                "out_type, descale and lse must all match): nothing to gate\n", base->path,
                cand->path);
        return EXIT_BAD_ARGS;
    }
    if (check_single_variant(base, c, 0) != 0 || check_single_variant(cand, c, 1) != 0)
        return EXIT_BAD_ARGS;
    print_header(base, cand, c);
    if (o->correctness && gate_correctness(cand, c, &t) != 0) return EXIT_BAD_ARGS;
    if (!o->correctness) printf("SKIP correctness  (--no-correctness)\n");
    gate_speed(c, o, &t);
    if (o->resources && gate_resources(cand, o, &t) != 0) return EXIT_BAD_ARGS;
    if (!o->resources) printf("SKIP resources    (--no-resources)\n");
    if (t.failed) printf("gate: FAIL (%d of %d gates failed)\n", t.failed, t.passed + t.failed);
    else printf("gate: PASS (%d gates)\n", t.passed);
    return t.failed ? EXIT_GATE_FAILED : EXIT_PASS;
}

int cmd_gate(int argc, char **argv)
{
    gate_opts_t o;
    perf_file_t base, cand;
    comparison_t c;
    arg_result_t r;
    int rc;
    memset(&o, 0, sizeof o);
    o.min_speedup = 0.10;
    o.max_regress = 0.02;
    o.max_regs = 255;
    o.max_smem = GATE_DEFAULT_MAX_SMEM;
    o.max_spills = 0;
    o.correctness = o.resources = 1;
    r = args_parse(argc, argv, "gate", parse_gate_arg, &o);
    if (r == ARG_OK && !o.pair.cand) {
        fprintf(stderr, "fp8attn gate: need BASE and CAND\n");
        r = ARG_BAD;
    }
    if (r != ARG_OK) {
        usage(r == ARG_HELP ? stdout : stderr);
        return r == ARG_HELP ? EXIT_PASS : EXIT_BAD_ARGS;
    }
    if (pair_load(&o.pair, &base, &cand, &c) != 0) return EXIT_BAD_ARGS;
    rc = run_gates(&o, &base, &cand, &c);
    comparison_free(&c);
    perf_file_free(&base);
    perf_file_free(&cand);
    return rc;
}
