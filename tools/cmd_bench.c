/* `fp8attn bench`: time kernel variants (or the CPU backend) over shapes; perf.json. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "gpu.h"
#include "ncu_profile.h"
#include "problem.h"
#include "refs.h"
#include "resources.h"
#include "results.h"
#include "stats.h"

#define DEFAULT_GPU_ITERS 500
#define DEFAULT_GPU_WARMUP 100
/* The CPU backend takes seconds per call on the larger presets. */
#define DEFAULT_CPU_ITERS 3
#define DEFAULT_CPU_WARMUP 1
#define MAX_ITERS 10000000L
#define NAME_LEN 64

typedef struct {
    int iters, warmup, iters_set, warmup_set;
    int hot, profile;
    const char *vs;
} bench_opts_t;

/* Timing of one (shape, seed, variant). */
typedef struct {
    shape_t shape;
    uint64_t seed;
    char variant[NAME_LEN];
    char kernel[NAME_LEN]; /* the kernel symbol the GPU ran ("" on the CPU backend) */
    stats_t st;
    double tflops, gbps;
} row_t;

/* --vs: A and B timed alternately on the same inputs; ratios are B / A per iteration. */
typedef struct {
    shape_t shape;
    uint64_t seed;
    char a[NAME_LEN], b[NAME_LEN];
    double p50_a, p50_b, ratio_p50, ratio_p10, ratio_p90;
} pair_t;

typedef struct {
    const run_opts_t *o;
    const bench_opts_t *b;
    row_t *rows;
    pair_t *pairs;
    int n_rows, n_pairs, n_skipped;
    /* GPU only */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    l2_flush_t flush;
    /* progress */
    double t0;
} bench_t;

/* ---- options ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fp8attn bench [options]\n\n"
            "Times the forward pass for every shape x seed: warm-up runs, then --iters runs, each\n"
            "between two CUDA events around only the forward call, with L2 flushed before each\n"
            "(a cudaMemsetAsync over 2x the L2 size). Prints p50/p90/mean/std/min/max in us,\n"
            "TFLOPS and GB/s (both from p50), and writes build_meta.json, perf.json and\n"
            "resources.json to the results directory.\n\n"
            "TFLOPS = 4 * B * Hq * D * (visible (query, key) pairs) / p50: Sq * Sk without a\n"
            "mask; with --causal only the pairs the bottom-right aligned mask lets through count.\n"
            "GB/s = (Q + K + V read once, O written once, plus the LSE with --lse) / p50.\n\n");
    common_usage_options(f);
    fprintf(f,
            "  --seeds default 0. --out default results/<UTC timestamp>-<label>, label 'bench'.\n"
            "  On --backend cpu the timed call is the CPU backend, timed with\n"
            "  clock_gettime(CLOCK_MONOTONIC); no L2 flush.\n\n"
            "bench options:\n"
            "  --iters N              timed runs (default %d on the GPU, %d on the CPU: the CPU\n"
            "                         reference is slow)\n"
            "  --warmup N             untimed runs first (default %d on the GPU, %d on the CPU)\n"
            "  --hot                  do not flush L2 before each timed run\n"
            "  --vs B                 also time variant B, interleaved A B A B ... on the same\n"
            "                         inputs (A = --variant or the default); prints p50 of each,\n"
            "                         the ratio p50(B)/p50(A) and the p10-p90 spread of the\n"
            "                         per-pair ratios ('within noise' when it includes 1.0)\n"
            "  --profile              run the first shape once under Nsight Compute (ncu) and\n"
            "                         print its headline metrics; the report is stored as\n"
            "                         profile.ncu-rep in the results directory\n"
            "  (every option that takes a value also takes the form --option=VALUE)\n\n"
            "Each perf.json record (and each --vs pair) carries the shape, layout, out_type, lse\n"
            "and descale: `compare` and `gate` match records on all of them.\n\n"
            "Exit status: 0 every shape x seed was timed (or skipped with a note saying why,\n"
            "e.g. a variant that does not support it) and the results were written; 2 bad\n"
            "arguments, no usable device for --backend gpu, a run that failed (a CUDA error, a\n"
            "failure of the CPU backend, ncu failing under --profile), nothing could be timed,\n"
            "or the results could not be written. bench has no gates, so it never exits 1.\n",
            DEFAULT_GPU_ITERS, DEFAULT_CPU_ITERS, DEFAULT_GPU_WARMUP, DEFAULT_CPU_WARMUP);
    common_usage_inputs(f);
}

static arg_result_t parse_bench_arg(args_t *a, void *ctx)
{
    bench_opts_t *b = ctx;
    const char *v;
    arg_result_t r;
    if (arg_flag(a, "--hot") || arg_flag(a, "--profile")) {
        *(arg_flag(a, "--hot") ? &b->hot : &b->profile) = 1;
        return ARG_OK;
    }
    if ((r = arg_value(a, "--vs", &v)) != ARG_UNKNOWN) {
        b->vs = v;
        return r;
    }
    if ((r = arg_value(a, "--iters", &v)) != ARG_UNKNOWN) {
        b->iters_set = 1;
        if (r == ARG_OK && parse_int_range(a->cmd, "--iters", v, 1, MAX_ITERS, &b->iters))
            return ARG_BAD;
        return r;
    }
    if ((r = arg_value(a, "--warmup", &v)) != ARG_UNKNOWN) {
        b->warmup_set = 1;
        if (r == ARG_OK && parse_int_range(a->cmd, "--warmup", v, 0, MAX_ITERS, &b->warmup))
            return ARG_BAD;
        return r;
    }
    return ARG_UNKNOWN;
}

/* Backend-dependent defaults and checks; -1 after printing what is wrong. */
static int finish_bench_opts(const run_opts_t *o, bench_opts_t *b)
{
    int gpu = o->backend == BACKEND_GPU;
    if (!b->iters_set) b->iters = gpu ? DEFAULT_GPU_ITERS : DEFAULT_CPU_ITERS;
    if (!b->warmup_set) b->warmup = gpu ? DEFAULT_GPU_WARMUP : DEFAULT_CPU_WARMUP;
    if (!gpu && (b->vs || b->profile)) {
        fprintf(stderr, "fp8attn bench: %s needs the GPU backend\n", b->vs ? "--vs" : "--profile");
        return -1;
    }
    if (b->vs && !variant_known(o->cmd, "--vs", b->vs)) return -1;
    return 0;
}

/* ---- figures ---- */

static double tflops_of(const shape_t *s, double us)
{
    double flops = 4.0 * s->batch * s->h_q * s->head_dim * (double)shape_visible_pairs(s);
    return flops / (us * 1e-6) / 1e12;
}

static double gbps_of(const problem_t *pr, double us)
{
    double bytes = (double)(pr->elems[TQ] + pr->elems[TK] + pr->elems[TV]) +
                   2.0 * (double)pr->o_elems + 4.0 * (double)pr->lse_elems;
    return bytes / (us * 1e-6) / 1e9;
}

/* Adds the row of times_us[0..iters) to the results. */
static int add_row(bench_t *bn, const problem_t *pr, const char *variant, const char *kernel,
                   const double *times_us)
{
    row_t *r = &bn->rows[bn->n_rows];
    if (stats_compute(times_us, bn->b->iters, &r->st)) return -1;
    r->shape = pr->shape;
    r->seed = pr->seed;
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel ? kernel : "");
    r->tflops = tflops_of(&pr->shape, r->st.p50);
    r->gbps = gbps_of(pr, r->st.p50);
    bn->n_rows++;
    return 0;
}

/* Adds the pair of A and B timed alternately; the per-pair ratios are b_us[i] / a_us[i]. */
static int add_pair(bench_t *bn, const problem_t *pr, const char *const names[2],
                    const double *a_us, const double *b_us)
{
    const int n = bn->b->iters;
    pair_t *q = &bn->pairs[bn->n_pairs];
    double *ratios = malloc((size_t)n * sizeof *ratios);
    stats_t sa, sb;
    int i;
    if (!ratios || stats_compute(a_us, n, &sa) || stats_compute(b_us, n, &sb)) {
        free(ratios);
        return -1;
    }
    for (i = 0; i < n; i++) ratios[i] = b_us[i] / a_us[i];
    stats_sort(ratios, n);
    q->shape = pr->shape;
    q->seed = pr->seed;
    snprintf(q->a, sizeof q->a, "%s", names[0]);
    snprintf(q->b, sizeof q->b, "%s", names[1]);
    q->p50_a = sa.p50;
    q->p50_b = sb.p50;
    q->ratio_p50 = sb.p50 / sa.p50;
    q->ratio_p10 = stats_percentile(ratios, n, 10.0);
    q->ratio_p90 = stats_percentile(ratios, n, 90.0);
    free(ratios);
    bn->n_pairs++;
    return 0;
}

/* ---- progress on a terminal ---- */

static void progress(const bench_t *bn, int done, int total, const shape_t *s, uint64_t seed)
{
    char desc[128];
    if (!isatty(STDERR_FILENO)) return;
    shape_format(s, desc, sizeof desc);
    fprintf(stderr, "\r[%d/%d] %s %s seed %llu elapsed %.1fs\033[K", done + 1, total, s->name,
            desc, (unsigned long long)seed, now_seconds() - bn->t0);
}

static void progress_clear(void)
{
    if (isatty(STDERR_FILENO)) fprintf(stderr, "\r\033[K");
}

/* ---- GPU ---- */

static int gpu_init(bench_t *bn, char *err)
{
    if (cuda_ok(cudaStreamCreateWithFlags(&bn->stream, cudaStreamNonBlocking),
                "cudaStreamCreate", err) ||
        cuda_ok(cudaEventCreate(&bn->start), "cudaEventCreate", err) ||
        cuda_ok(cudaEventCreate(&bn->stop), "cudaEventCreate", err))
        return -1;
    return bn->b->hot ? 0 : l2_flush_init(&bn->flush, err);
}

static void gpu_release(bench_t *bn)
{
    l2_flush_free(&bn->flush);
    if (bn->start) cudaEventDestroy(bn->start);
    if (bn->stop) cudaEventDestroy(bn->stop);
    if (bn->stream) cudaStreamDestroy(bn->stream);
}

/* One timed forward call of `variant`, L2 flushed first unless --hot. */
static int time_one(bench_t *bn, const gpu_problem_t *g, const char *variant, int iter,
                    double *us, char *err)
{
    float ms = 0.0f;
    if (!bn->b->hot && l2_flush(&bn->flush, bn->stream, iter, err)) return -1;
    if (cuda_ok(cudaEventRecord(bn->start, bn->stream), "cudaEventRecord(start)", err) ||
        gpu_forward(g, variant, bn->stream, err) ||
        cuda_ok(cudaEventRecord(bn->stop, bn->stream), "cudaEventRecord(stop)", err) ||
        cuda_ok(cudaEventSynchronize(bn->stop), "cudaEventSynchronize(stop)", err) ||
        cuda_ok(cudaEventElapsedTime(&ms, bn->start, bn->stop), "cudaEventElapsedTime", err))
        return -1;
    *us = 1000.0 * (double)ms;
    return 0;
}

static void skip_note(bench_t *bn, const shape_t *s, const char *variant, const char *why)
{
    char desc[128];
    shape_format(s, desc, sizeof desc);
    progress_clear();
    fprintf(stderr, "fp8attn bench: skipping %s %s (variant %s): %s\n", s->name, desc,
            variant ? variant : "-", why);
    bn->n_skipped++;
}

/* The variant(s) to time: A = --variant or the default, B = --vs. Returns how many (1 or 2),
 * or 0 if the shape is to be skipped (why printed). */
static int pick_variants(bench_t *bn, const shape_t *s, const gpu_problem_t *g,
                         const char *names[2])
{
    int device = gpu_current_device(), n = bn->b->vs ? 2 : 1, i;
    names[0] = bn->o->variant ? bn->o->variant : fp8attn_variant_default(&g->p, device);
    names[1] = bn->b->vs;
    for (i = 0; i < n; i++) {
        const char *why = NULL;
        if (!names[i]) why = "no kernel variant supports it on this device";
        else if (fp8attn_variant_supports(names[i], &g->p, device) != FP8ATTN_OK)
            why = fp8attn_last_error();
        if (why) {
            skip_note(bn, s, names[i], why);
            return 0;
        }
    }
    return n;
}

/* Warm-up, then iters timed runs of each variant, interleaved. times[v][i] in us. */
static int time_variants(bench_t *bn, const gpu_problem_t *g, const char *const names[2], int nv,
                         double *times[2], char *err)
{
    int i, v;
    for (i = 0; i < bn->b->warmup; i++)
        for (v = 0; v < nv; v++)
            if (gpu_forward(g, names[v], bn->stream, err)) return -1;
    if (gpu_sync(bn->stream, err)) return -1;
    for (i = 0; i < bn->b->iters; i++)
        for (v = 0; v < nv; v++)
            if (time_one(bn, g, names[v], i, &times[v][i], err)) return -1;
    return gpu_sync(bn->stream, err);
}

/* Times the inputs of one (shape, seed) on the GPU. Returns an exit code: 0 (measured or
 * skipped), EXIT_RUN_FAILED (2) if a run or its setup failed. */
static int bench_gpu_case(bench_t *bn, problem_t *pr, char *err)
{
    gpu_problem_t g;
    const char *names[2];
    double *times[2] = {NULL, NULL};
    int nv, v, rc = EXIT_PASS;
    if (gpu_problem_upload(&g, pr, !bn->o->no_workspace, err)) return EXIT_BAD_ARGS;
    nv = pick_variants(bn, &pr->shape, &g, names);
    for (v = 0; v < nv; v++)
        if (!(times[v] = malloc((size_t)bn->b->iters * sizeof *times[v]))) {
            snprintf(err, ERR_LEN, "out of host memory for %d timings", bn->b->iters);
            rc = EXIT_BAD_ARGS;
        }
    if (nv && rc == EXIT_PASS && time_variants(bn, &g, names, nv, times, err))
        rc = EXIT_RUN_FAILED;
    for (v = 0; v < nv && rc == EXIT_PASS; v++)
        if (add_row(bn, pr, names[v], fp8attn_forward_ws_kernel(&g.p, names[v], g.ws != NULL),
                    times[v]))
            rc = EXIT_BAD_ARGS;
    if (nv == 2 && rc == EXIT_PASS && add_pair(bn, pr, names, times[0], times[1]))
        rc = EXIT_BAD_ARGS;
    if (rc == EXIT_BAD_ARGS && !err[0]) snprintf(err, ERR_LEN, "out of host memory");
    free(times[0]);
    free(times[1]);
    gpu_problem_free(&g);
    return rc;
}

/* ---- CPU ---- */

/* The CPU backend (threaded fp8attn_forward_cpu), timed with CLOCK_MONOTONIC. */
static int bench_cpu_case(bench_t *bn, problem_t *pr, char *err)
{
    double *times = malloc((size_t)bn->b->iters * sizeof *times);
    int i, rc = EXIT_PASS;
    if (!times) {
        snprintf(err, ERR_LEN, "out of host memory for %d timings", bn->b->iters);
        return EXIT_BAD_ARGS;
    }
    for (i = 0; i < bn->b->warmup + bn->b->iters && rc == EXIT_PASS; i++) {
        double t = now_seconds();
        if (cpu_forward_parallel(&pr->p, err) != FP8ATTN_OK) rc = EXIT_RUN_FAILED;
        if (i >= bn->b->warmup) times[i - bn->b->warmup] = 1e6 * (now_seconds() - t);
    }
    if (rc == EXIT_PASS && add_row(bn, pr, "cpu", NULL, times)) {
        snprintf(err, ERR_LEN, "out of host memory");
        rc = EXIT_BAD_ARGS;
    }
    free(times);
    return rc;
}

/* ---- output ---- */

static void print_table(const bench_t *bn)
{
    int i;
    printf("%-8s %3s %4s %4s %6s %6s %4s %6s %4s %-14s %10s %10s %10s %9s %10s %10s %8s %8s\n",
           "shape", "B", "Hq", "Hkv", "Sq", "Sk", "D", "causal", "seed", "variant", "p50_us",
           "p90_us", "mean_us", "std_us", "min_us", "max_us", "TFLOPS", "GB/s");
    for (i = 0; i < bn->n_rows; i++) {
        const row_t *r = &bn->rows[i];
        const shape_t *s = &r->shape;
        printf("%-8s %3d %4d %4d %6d %6d %4d %6d %4llu %-14s %10.2f %10.2f %10.2f %9.2f %10.2f "
               "%10.2f %8.2f %8.1f\n",
               s->name, (int)s->batch, (int)s->h_q, (int)s->h_kv, (int)s->seqlen_q,
               (int)s->seqlen_k, (int)s->head_dim, s->causal, (unsigned long long)r->seed,
               r->variant, r->st.p50, r->st.p90, r->st.mean, r->st.std, r->st.min, r->st.max,
               r->tflops, r->gbps);
    }
}

static void print_pairs(const bench_t *bn)
{
    int i;
    if (!bn->n_pairs) return;
    printf("\n--vs: ratio = p50(B) / p50(A) (> 1: A is faster); spread = p10..p90 of the "
           "per-pair ratios\n");
    for (i = 0; i < bn->n_pairs; i++) {
        const pair_t *q = &bn->pairs[i];
        char desc[128];
        shape_format(&q->shape, desc, sizeof desc);
        printf("%-8s %s seed=%llu  A=%s p50 %.2f us  B=%s p50 %.2f us  ratio %.3f  spread "
               "%.3f..%.3f%s\n",
               q->shape.name, desc, (unsigned long long)q->seed, q->a, q->p50_a, q->b, q->p50_b,
               q->ratio_p50, q->ratio_p10, q->ratio_p90,
               q->ratio_p10 <= 1.0 && 1.0 <= q->ratio_p90 ? "  within noise" : "");
    }
}

static json_t *row_json(const bench_t *bn, const row_t *r)
{
    json_t *j = json_object();
    shape_to_json(&r->shape, j);
    run_opts_to_json(bn->o, j);
    json_object_set_new(j, "variant", json_string(r->variant));
    json_object_set_new(j, "kernel", r->kernel[0] ? json_string(r->kernel) : json_null());
    json_object_set_new(j, "backend", json_string(bn->o->backend == BACKEND_GPU ? "gpu" : "cpu"));
    json_object_set_new(j, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(j, "iters", json_integer(bn->b->iters));
    json_object_set_new(j, "warmup", json_integer(bn->b->warmup));
    json_object_set_new(j, "l2_flush", json_boolean(bn->o->backend == BACKEND_GPU && !bn->b->hot));
    json_object_set_new(j, "p50_us", json_number_or_null(r->st.p50));
    json_object_set_new(j, "p90_us", json_number_or_null(r->st.p90));
    json_object_set_new(j, "mean_us", json_number_or_null(r->st.mean));
    json_object_set_new(j, "std_us", json_number_or_null(r->st.std));
    json_object_set_new(j, "min_us", json_number_or_null(r->st.min));
    json_object_set_new(j, "max_us", json_number_or_null(r->st.max));
    json_object_set_new(j, "tflops", json_number_or_null(r->tflops));
    json_object_set_new(j, "gbps", json_number_or_null(r->gbps));
    return j;
}

static json_t *pair_json(const bench_t *bn, const pair_t *q)
{
    json_t *j = json_object();
    shape_to_json(&q->shape, j);
    run_opts_to_json(bn->o, j);
    json_object_set_new(j, "seed", json_integer((json_int_t)q->seed));
    json_object_set_new(j, "a", json_string(q->a));
    json_object_set_new(j, "b", json_string(q->b));
    json_object_set_new(j, "p50_a_us", json_number_or_null(q->p50_a));
    json_object_set_new(j, "p50_b_us", json_number_or_null(q->p50_b));
    json_object_set_new(j, "ratio_p50", json_number_or_null(q->ratio_p50));
    json_object_set_new(j, "ratio_p10", json_number_or_null(q->ratio_p10));
    json_object_set_new(j, "ratio_p90", json_number_or_null(q->ratio_p90));
    return j;
}

static json_t *perf_json(const bench_t *bn)
{
    json_t *root = json_object(), *rows = json_array(), *pairs;
    int i;
    for (i = 0; i < bn->n_rows; i++) json_array_append_new(rows, row_json(bn, &bn->rows[i]));
    json_object_set_new(root, "results", rows);
    if (bn->b->vs) {
        pairs = json_array();
        for (i = 0; i < bn->n_pairs; i++)
            json_array_append_new(pairs, pair_json(bn, &bn->pairs[i]));
        json_object_set_new(root, "pairs", pairs);
    }
    return root;
}

/* build_meta.json, perf.json and resources.json. Returns 0, or -1 after printing why. */
static int write_results(const bench_t *bn)
{
    const char **names = malloc((size_t)bn->n_rows * sizeof *names);
    char err[ERR_LEN], *dir;
    json_t *perf, *res;
    int i, n = 0, rc;
    if (!names) {
        fprintf(stderr, "fp8attn bench: out of host memory\n");
        return -1;
    }
    for (i = 0; i < bn->n_rows; i++) n = add_distinct(names, n, bn->rows[i].variant);
    dir = results_open_dir(bn->o->out_dir, bn->o->label, names, n);
    free(names);
    if (!dir) return -1;
    perf = perf_json(bn);
    rc = results_write_json(dir, "perf.json", perf);
    json_decref(perf);
    res = resources_collect(err, sizeof err);
    if (!res)
        fprintf(stderr, "fp8attn bench: warning: no resources.json: %s\n", err);
    else if (results_write_json(dir, "resources.json", res))
        rc = -1;
    json_decref(res);
    printf("results: %s\n", dir);
    free(dir);
    return rc;
}

/* ---- the run ---- */

/* Every shape x seed; returns the exit code. */
static int run_cases(bench_t *bn)
{
    const run_opts_t *o = bn->o;
    int total = o->n_shapes * o->n_seeds, i, rc = EXIT_PASS;
    char err[ERR_LEN];
    bn->t0 = now_seconds();
    for (i = 0; i < total && rc == EXIT_PASS; i++) {
        const shape_t *s = &o->shapes[i / o->n_seeds];
        uint64_t seed = o->seeds[i % o->n_seeds];
        problem_t pr;
        progress(bn, i, total, s, seed);
        err[0] = '\0';
        if (problem_create(&pr, s, seed, o, 0, err)) {
            rc = EXIT_BAD_ARGS;
        } else {
            rc = o->backend == BACKEND_GPU ? bench_gpu_case(bn, &pr, err)
                                           : bench_cpu_case(bn, &pr, err);
            problem_free(&pr);
        }
        if (rc != EXIT_PASS) {
            char desc[128];
            shape_format(s, desc, sizeof desc);
            progress_clear();
            fprintf(stderr, "fp8attn bench: %s %s seed %llu: %s\n", s->name, desc,
                    (unsigned long long)seed, err);
        }
    }
    progress_clear();
    return rc;
}

static int run_bench(const run_opts_t *o, const bench_opts_t *b)
{
    bench_t bn;
    char err[ERR_LEN];
    int cases = o->n_shapes * o->n_seeds, rc;
    memset(&bn, 0, sizeof bn);
    bn.o = o;
    bn.b = b;
    bn.rows = calloc((size_t)cases * 2, sizeof *bn.rows);
    bn.pairs = calloc((size_t)cases, sizeof *bn.pairs);
    if (!bn.rows || !bn.pairs) {
        fprintf(stderr, "fp8attn bench: out of host memory\n");
        rc = EXIT_BAD_ARGS;
    } else if (o->backend == BACKEND_GPU && gpu_init(&bn, err)) {
        fprintf(stderr, "fp8attn bench: %s\n", err);
        rc = EXIT_BAD_ARGS;
    } else {
        rc = run_cases(&bn);
    }
    if (rc == EXIT_PASS && bn.n_rows == 0) {
        fprintf(stderr, "fp8attn bench: nothing could be timed (%d shape(s) skipped)\n",
                bn.n_skipped);
        rc = EXIT_BAD_ARGS;
    }
    if (rc == EXIT_PASS) {
        print_table(&bn);
        print_pairs(&bn);
        if (write_results(&bn)) rc = EXIT_BAD_ARGS;
    }
    if (o->backend == BACKEND_GPU) gpu_release(&bn);
    free(bn.rows);
    free(bn.pairs);
    return rc;
}

/* Checks that need the resolved backend, then the run or the profile. */
static int check_and_run(run_opts_t *o, bench_opts_t *b)
{
    if (resolve_backend(o) || finish_bench_opts(o, b)) return EXIT_BAD_ARGS;
    return b->profile ? ncu_profile_run(o) : run_bench(o, b);
}

int cmd_bench(int argc, char **argv)
{
    static const uint64_t default_seeds[] = {0};
    run_opts_t o;
    bench_opts_t b;
    arg_result_t r;
    int rc;
    common_opts_init(&o, "bench", default_seeds, 1, "bench");
    memset(&b, 0, sizeof b);
    r = common_parse_args(argc, argv, &o, parse_bench_arg, &b);
    if (r == ARG_OK) {
        rc = check_and_run(&o, &b);
    } else {
        usage(r == ARG_HELP ? stdout : stderr);
        rc = r == ARG_HELP ? EXIT_PASS : EXIT_BAD_ARGS;
    }
    common_opts_free(&o);
    return rc;
}
