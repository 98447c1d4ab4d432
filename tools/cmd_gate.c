/* fp8attn gate BASE CAND: pass/fail gates (correctness, speed, regressions, kernel resources). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
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
            "resources.json), or perf.json files (then the other files are read beside them).\n\n"
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
            "                      use only that variant's records of BASE / CAND (default: the\n"
            "                      median over a shape's records)\n\n"
            "The resource gates apply to the kernels of the variants CAND's perf.json used.\n"
            "Exit status: 0 every gate passed, 1 a gate failed, 2 bad arguments or unusable\n"
            "inputs (missing perf.json, malformed files, no shape in common).\n",
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

/* "10%" -> 0.10, "0.10" -> 0.10; a bare number must be a fraction below 1 in magnitude. */
static int parse_fraction(const char *flag, const char *s, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || (*end && strcmp(end, "%") != 0)) {
        fprintf(stderr, "fp8attn gate: %s %s: expected a percentage like 10%% or a fraction "
                "like 0.10\n", flag, s);
        return -1;
    }
    if (*end == '%') v /= 100.0;
    else if (fabs(v) >= 1.0) {
        fprintf(stderr, "fp8attn gate: %s %s: ambiguous; write %g%% for %g percent or a "
                "fraction below 1 (0.10 = 10%%)\n", flag, s, v, v);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_count(const char *flag, const char *s, long long *out)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 0) {
        fprintf(stderr, "fp8attn gate: %s %s: expected a whole number >= 0\n", flag, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Options taking a value; 1 consumed, 0 not one of these, -1 bad value. */
static int take_value_option(int argc, char **argv, int *i, gate_opts_t *o)
{
    const char *flag = argv[*i], *val;
    int rc;
    if (strcmp(flag, "--min-speedup") && strcmp(flag, "--max-regress") &&
        strcmp(flag, "--max-regs") && strcmp(flag, "--max-smem") && strcmp(flag, "--spills"))
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "fp8attn gate: %s needs a value\n", flag);
        return -1;
    }
    val = argv[*i + 1];
    *i += 2;
    if (!strcmp(flag, "--min-speedup")) rc = parse_fraction(flag, val, &o->min_speedup);
    else if (!strcmp(flag, "--max-regress")) rc = parse_fraction(flag, val, &o->max_regress);
    else if (!strcmp(flag, "--max-regs")) rc = parse_count(flag, val, &o->max_regs);
    else if (!strcmp(flag, "--max-smem")) rc = parse_count(flag, val, &o->max_smem);
    else rc = parse_count(flag, val, &o->max_spills);
    if (rc == 0 && o->max_regress < 0) {
        fprintf(stderr, "fp8attn gate: --max-regress %s: must be >= 0\n", val);
        rc = -1;
    }
    if (rc == 0 && o->min_speedup <= -1.0) {
        fprintf(stderr, "fp8attn gate: --min-speedup %s: must be above -100%%\n", val);
        rc = -1;
    }
    return rc == 0 ? 1 : -1;
}

/* Options without a value; 1 if `a` is one. */
static int take_switch(const char *a, gate_opts_t *o)
{
    if (!strcmp(a, "--geomean")) o->geomean = 1;
    else if (!strcmp(a, "--no-correctness")) o->correctness = 0;
    else if (!strcmp(a, "--no-resources")) o->resources = 0;
    else return 0;
    return 1;
}

/* 0 parsed, 1 --help shown, -1 bad arguments (message printed). */
static int parse_args(int argc, char **argv, gate_opts_t *o)
{
    int i = 1, rc;
    while (i < argc) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (take_switch(a, o)) {
            i++;
            continue;
        }
        rc = take_value_option(argc, argv, &i, o);
        if (rc == 0) rc = pair_args_take(argc, argv, &i, &o->pair, "gate");
        if (rc == 0) fprintf(stderr, "fp8attn gate: unknown option '%s'\n", a);
        if (rc <= 0) return -1;
    }
    if (!o->pair.cand) {
        fprintf(stderr, "fp8attn gate: need BASE and CAND\n");
        return -1;
    }
    return 0;
}

/* ---- correctness ---- */

/* Prints one failing record: its shape and seed. */
static void print_failed_record(const json_t *rec)
{
    shape_key_t key;
    const char *bad;
    long long seed = -1;
    char shape[128] = "(shape fields missing)";
    if (shape_key_read(rec, &key, &bad) == 0) shape_key_format(&key, shape, sizeof shape);
    json_get_int(rec, "seed", &seed);
    printf("       failed: %s seed=%lld\n", shape, seed);
}

/* Counts results whose "pass" is false; -1 if one has no boolean "pass". */
static int count_failed(const char *path, const json_t *results)
{
    size_t i;
    int failed = 0;
    for (i = 0; i < json_array_size(results); i++) {
        const json_t *pass = json_object_get(json_array_get(results, i), "pass");
        if (!json_is_boolean(pass)) {
            fprintf(stderr, "fp8attn gate: %s: results[%zu].pass is missing or not a boolean\n",
                    path, i);
            return -1;
        }
        failed += json_is_false(pass);
    }
    return failed;
}

/* Judges a loaded correctness.json; -1 if it is unusable. */
static int judge_correctness(const char *path, const json_t *root, tally_t *t)
{
    const json_t *results = json_object_get(root, "results");
    int all_pass = !json_is_false(json_object_get(root, "all_pass")), failed;
    size_t i, n = json_array_size(results);
    if (!json_is_array(results)) {
        fprintf(stderr, "fp8attn gate: %s: no \"results\" array\n", path);
        return -1;
    }
    if ((failed = count_failed(path, results)) < 0) return -1;
    gate_line(t, n > 0 && failed == 0 && all_pass, "correctness",
              "%zu of %zu (shape, seed) results passed (%s)%s%s", n - (size_t)failed, n, path,
              n == 0 ? ": no results" : "", all_pass ? "" : "; all_pass is false");
    for (i = 0; i < n; i++)
        if (json_is_false(json_object_get(json_array_get(results, i), "pass")))
            print_failed_record(json_array_get(results, i));
    return 0;
}

/* The correctness gate on DIR/correctness.json; -1 if that file is unusable. */
static int gate_correctness(const char *dir, tally_t *t)
{
    char *path = path_join(dir, "correctness.json");
    int missing = 0, rc = -1;
    json_t *root = path ? json_file_load(path, &missing) : NULL;
    if (missing) {
        gate_line(t, 0, "correctness", "no correctness.json in %s (run `fp8attn check` into "
                  "it, or skip this gate with --no-correctness)", dir);
        rc = 0;
    } else if (root) {
        rc = judge_correctness(path, root, t);
    }
    json_decref(root);
    free(path);
    return rc;
}

/* ---- speed ---- */

/* The speed and regression gates. The shape of smallest speed-up is also the slowest one. */
static void gate_speed(const comparison_t *c, const gate_opts_t *o, tally_t *t)
{
    char shape[128];
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

static int variant_used(const perf_file_t *cand, const char *filter, const char *variant)
{
    int i;
    for (i = 0; i < cand->n; i++)
        if (cand->records[i].variant && !strcmp(cand->records[i].variant, variant) &&
            (!filter || !strcmp(filter, variant)))
            return 1;
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

/* Judges a loaded resources.json over the kernels of the variants CAND used; -1 if it is
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
        if (!variant || !variant_used(cand, o->pair.variant_cand, variant)) continue;
        if (scan_kernel(path, i, k, w) != 0) return -1;
        n++;
    }
    if (n == 0) {
        char used[256];
        perf_file_variants(cand, o->pair.variant_cand, used, sizeof used);
        gate_line(t, 0, "resources", "%s lists no kernel of the variants CAND's records use "
                  "(%s); skip these gates with --no-resources", path, used);
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
    if (missing) {
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
    printf("gate: BASE %s\n      CAND %s\n      %d common shape(s), %d only in BASE, %d only "
           "in CAND (not gated)\n", base->path, cand->path, c->n_common, c->n_only_base,
           c->n_only_cand);
    comparison_print_notes(c, stdout);
}

static int run_gates(const gate_opts_t *o, const perf_file_t *base, const perf_file_t *cand,
                     const comparison_t *c)
{
    tally_t t = {0, 0};
    if (c->n_common == 0) {
        fprintf(stderr, "fp8attn gate: %s and %s have no shape in common: nothing to gate\n",
                base->path, cand->path);
        return 2;
    }
    print_header(base, cand, c);
    if (o->correctness && gate_correctness(cand->dir, &t) != 0) return 2;
    if (!o->correctness) printf("SKIP correctness  (--no-correctness)\n");
    gate_speed(c, o, &t);
    if (o->resources && gate_resources(cand, o, &t) != 0) return 2;
    if (!o->resources) printf("SKIP resources    (--no-resources)\n");
    if (t.failed) printf("gate: FAIL (%d of %d gates failed)\n", t.failed, t.passed + t.failed);
    else printf("gate: PASS (%d gates)\n", t.passed);
    return t.failed ? 1 : 0;
}

int cmd_gate(int argc, char **argv)
{
    gate_opts_t o;
    perf_file_t base, cand;
    comparison_t c;
    int rc;
    memset(&o, 0, sizeof o);
    o.min_speedup = 0.10;
    o.max_regress = 0.02;
    o.max_regs = 255;
    o.max_smem = GATE_DEFAULT_MAX_SMEM;
    o.max_spills = 0;
    o.correctness = o.resources = 1;
    rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? 0 : 2;
    }
    if (pair_load(&o.pair, &base, &cand, &c) != 0) return 2;
    rc = run_gates(&o, &base, &cand, &c);
    comparison_free(&c);
    perf_file_free(&base);
    perf_file_free(&cand);
    return rc;
}
