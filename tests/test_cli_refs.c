/* Unit tests of the tool's shared code: RNG, the threaded CPU backend, the fp64 reference,
 * error statistics, the causal pair count behind TFLOPS, and preset parsing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "errstats.h"
#include "problem.h"
#include "refs.h"
#include "test_util.h"

static shape_t shape(int32_t b, int32_t hq, int32_t hkv, int32_t sq, int32_t sk, int32_t d,
                     int causal)
{
    return make_shape("custom", b, hq, hkv, sq, sk, d, causal);
}

/* The options problem_create reads. */
static run_opts_t options(int bshd, fp8attn_granularity_t g, int lse)
{
    run_opts_t o;
    memset(&o, 0, sizeof o);
    o.out_type = FP8ATTN_OUT_FP16;
    o.bshd = bshd;
    o.descale = g;
    o.lse = lse;
    return o;
}

/* Normal draws: mean 0 and variance 1 within 5 standard errors (a false alarm has odds of
 * ~1e-6); never exactly 0; same seed -> same stream, other seed -> another stream. */
static void test_rng(uint64_t seed)
{
    enum { N = 200000 };
    rng_t a, b, c;
    double sum = 0.0, sum_sq = 0.0, mean, var;
    int i, zeros = 0, same = 1, differs = 0;
    rng_seed(&a, seed);
    rng_seed(&b, seed);
    rng_seed(&c, seed + 1);
    for (i = 0; i < N; i++) {
        double x = rng_normal(&a);
        sum += x;
        sum_sq += x * x;
        zeros += x == 0.0;
        same &= x == rng_normal(&b);
        differs |= x != rng_normal(&c);
    }
    mean = sum / N;
    var = sum_sq / N - mean * mean;
    CHECK(fabs(mean) < 5.0 / sqrt(N), "seed %llu: mean %g", (unsigned long long)seed, mean);
    CHECK(fabs(var - 1.0) < 5.0 * sqrt(2.0 / N), "seed %llu: variance %g",
          (unsigned long long)seed, var);
    CHECK(zeros == 0 && same && differs, "seed %llu: zeros %d same %d differs %d",
          (unsigned long long)seed, zeros, same, differs);
}

/* The threaded split must write exactly what one fp8attn_forward_cpu call writes (O and LSE
 * bit for bit), whatever the layout, grouping and descale granularity. */
static void test_parallel_matches_single(const shape_t *s, const run_opts_t *o, uint64_t seed)
{
    problem_t pr;
    outputs_t single;
    fp8attn_params_t p1;
    char err[ERR_LEN];
    if (problem_create(&pr, s, seed, o, 0, err) || outputs_alloc(&single, &pr, err)) {
        CHECK(0, "setup: %s", err);
        return;
    }
    memset(pr.o, 0xFF, pr.o_elems * sizeof *pr.o); /* NaN until written */
    CHECK(cpu_forward_parallel(&pr.p, err) == FP8ATTN_OK, "parallel: %s", err);
    p1 = params_with_outputs(&pr, &single);
    CHECK(fp8attn_forward_cpu(&p1) == FP8ATTN_OK, "single: %s", fp8attn_last_error());
    CHECK(!memcmp(pr.o, single.o, pr.o_elems * sizeof *pr.o), "seed %llu: O differs",
          (unsigned long long)seed);
    CHECK(!pr.lse || !memcmp(pr.lse, single.lse, pr.lse_elems * sizeof *pr.lse),
          "seed %llu: LSE differs", (unsigned long long)seed);
    outputs_free(&single);
    problem_free(&pr);
}

/* Replaces the float inputs by their exact FP8 values (code x descale), so that the fp64
 * reference and the CPU backend compute the same mathematical function. */
static void make_inputs_fp8_exact(problem_t *pr)
{
    const fp8attn_descale_t *ds[3] = {&pr->p.q_descale, &pr->p.k_descale, &pr->p.v_descale};
    const fp8attn_strides_t *st[3] = {&pr->p.q_stride, &pr->p.k_stride, &pr->p.v_stride};
    int t;
    for (t = 0; t < 3; t++) {
        int32_t heads = t == TQ ? pr->p.h_q : pr->p.h_kv, seq = t == TQ ? pr->p.seqlen_q
                                                                          : pr->p.seqlen_k;
        int32_t b, h, i, d;
        for (b = 0; b < pr->p.batch; b++)
            for (h = 0; h < heads; h++)
                for (i = 0; i < seq; i++)
                    for (d = 0; d < pr->p.head_dim; d++) {
                        int64_t at = b * st[t]->batch + h * st[t]->head + i * st[t]->token + d;
                        float scale = ds[t]->ptr[b * ds[t]->batch_stride + h * ds[t]->head_stride];
                        pr->x[t][at] = fp8attn_e4m3_to_float(pr->codes[t][at]) * scale;
                    }
    }
}

/* On FP8-exact inputs the fp64 reference equals the CPU backend up to the backend's single
 * rounding to FP16: half an ulp, <= 2^-11 |ref| for normal values and 2^-25 below 2^-14,
 * plus 1e-9 of slack for the two double accumulations (orders of magnitude above their
 * ~1e-15 rounding). This pins the fp64 reference's mask, GQA mapping and strides. */
static void test_fp64_matches_cpu(const shape_t *s, const run_opts_t *o, uint64_t seed)
{
    problem_t pr;
    double *ref;
    char err[ERR_LEN];
    size_t i, bad = 0;
    if (problem_create(&pr, s, seed, o, 1, err)) {
        CHECK(0, "setup: %s", err);
        return;
    }
    ref = malloc(pr.o_elems * sizeof *ref);
    make_inputs_fp8_exact(&pr);
    CHECK(ref && fp64_attention_parallel(&pr.p, pr.x[TQ], pr.x[TK], pr.x[TV], ref, err) == 0,
          "fp64: %s", err);
    CHECK(cpu_forward_parallel(&pr.p, err) == FP8ATTN_OK, "cpu: %s", err);
    for (i = 0; ref && i < pr.o_elems; i++) {
        double got = output_value(pr.o, pr.p.out_type, i);
        double tol = ldexp(fabs(ref[i]), -11) + ldexp(1.0, -25) + 1e-9;
        if (!(fabs(got - ref[i]) <= tol)) bad++;
    }
    CHECK(bad == 0, "seed %llu: %zu of %zu elements differ beyond half an FP16 ulp",
          (unsigned long long)seed, bad, pr.o_elems);
    free(ref);
    problem_free(&pr);
}

/* Error statistics against values computed here from the perturbation applied. */
static void test_err_stats(uint64_t seed)
{
    enum { N = 4096 };
    static uint16_t got[N];
    static double ref[N];
    const double bump = 0.25, atol = 0.1;
    err_stats_t s;
    rng_t r;
    size_t i, k;
    double ss_ref = 0.0, rounding_sq = 0.0;
    rng_seed(&r, seed);
    for (i = 0; i < N; i++) {
        ref[i] = rng_normal(&r);
        got[i] = fp8attn_float_to_fp16((float)ref[i]);
    }
    k = (size_t)(rng_next_u64(&r) % N);
    got[k] = fp8attn_float_to_fp16((float)(ref[k] + bump));
    for (i = 0; i < N; i++) {
        double e = fp8attn_fp16_to_float(got[i]) - ref[i];
        ss_ref += ref[i] * ref[i];
        rounding_sq += e * e;
    }
    err_stats_compute(got, FP8ATTN_OUT_FP16, ref, N, atol, &s);
    /* The bumped element's error is bump up to FP16 rounding (2^-11 relative to <= ~6). */
    CHECK(fabs(s.max_abs - bump) < 0.01, "max_abs %g, expected ~%g", s.max_abs, bump);
    CHECK(s.pct_bad == 100.0 / N, "pct_bad %g, expected %g", s.pct_bad, 100.0 / N);
    CHECK(fabs(s.rel_rmse - sqrt(rounding_sq / ss_ref)) <= 1e-12, "rel_rmse %g", s.rel_rmse);
    CHECK(s.n_nonfinite == 0 && s.mean_abs > 0 && s.mean_abs < bump, "mean_abs %g", s.mean_abs);
    /* NaN never passes: one NaN makes every figure NaN (every gate fails) and counts as bad. */
    got[(k + 1) % N] = 0x7E00;
    err_stats_compute(got, FP8ATTN_OUT_FP16, ref, N, atol, &s);
    CHECK(s.n_nonfinite == 1 && isnan(s.rel_rmse) && isnan(s.max_abs) && isnan(s.mean_abs) &&
              s.pct_bad == 200.0 / N,
          "NaN: nonfinite %zu rel_rmse %g pct_bad %g", s.n_nonfinite, s.rel_rmse, s.pct_bad);
}

/* Presets: --causal applies to seed presets and custom shapes given before or after it; fa3
 * keeps its own flag and covers every (S, D) of 16k tokens and hidden 2048, causal and not. */
static void test_presets(void)
{
    static const uint64_t seed0[] = {0};
    char *argv[] = {"check", "--shape", "1,4,2,33,77,128", "--shapes", "small,fa3", "--causal",
                    "--seeds=5,7"};
    run_opts_t o;
    int i, n_causal = 0, combos[7][3] = {{0}};
    common_opts_init(&o, "check", seed0, 1, "check");
    CHECK(common_parse_args(7, argv, &o, NULL, NULL) == ARG_OK, "presets refused");
    CHECK(o.n_shapes == 38 && o.n_seeds == 2 && o.seeds[1] == 7, "%d shapes, %d seeds",
          o.n_shapes, o.n_seeds);
    CHECK(o.n_shapes > 1 && o.shapes[0].causal && o.shapes[0].h_kv == 2 && o.shapes[1].causal &&
              !strcmp(o.shapes[1].name, "small"),
          "custom/small shapes lost their order or --causal");
    for (i = 2; i < o.n_shapes; i++) {
        const shape_t *s = &o.shapes[i];
        int si = 0, di = s->head_dim == 64 ? 0 : s->head_dim == 128 ? 1 : 2;
        while (si < 6 && (512 << si) != s->seqlen_q) si++;
        CHECK(!strcmp(s->name, "fa3") && s->batch * s->seqlen_q == 16384 &&
                  s->h_q * s->head_dim == 2048 && s->h_q == s->h_kv && s->seqlen_k == s->seqlen_q,
              "fa3 shape %d is wrong", i);
        if (si < 6) combos[si][di] |= 1 << s->causal;
        n_causal += s->causal;
    }
    for (i = 0; i < 18; i++)
        CHECK(combos[i / 3][i % 3] == 3, "fa3 misses S=%d D=%d (causal or not)", 512 << (i / 3),
              64 << (i % 3));
    CHECK(n_causal == 18, "fa3 has %d causal shapes, expected 18", n_causal);
    common_opts_free(&o);
}

/* Gates: NaN never passes, whatever the limit. */
static void test_gate_nan(void)
{
    CHECK(gate_passes(0.01, 0.02) && gate_passes(0.02, 0.02) && !gate_passes(0.03, 0.02),
          "gate_passes orders numbers wrongly");
    CHECK(!gate_passes(NAN, 0.02) && !gate_passes(NAN, INFINITY), "NaN passed a gate");
}

/* LSE: matching -inf rows are fine, a NaN or a one-sided -inf is not. */
static void test_lse_err(void)
{
    float ref[3] = {1.5f, -INFINITY, 2.0f}, got[3] = {1.5f, -INFINITY, 2.25f};
    CHECK(lse_max_abs_err(got, ref, 3) == 0.25, "lse err %g", lse_max_abs_err(got, ref, 3));
    got[1] = 0.0f;
    CHECK(isnan(lse_max_abs_err(got, ref, 3)), "one-sided -inf accepted");
    got[1] = -INFINITY;
    got[0] = NAN;
    CHECK(isnan(lse_max_abs_err(got, ref, 3)), "NaN accepted");
}

/* The causal pair count used for TFLOPS against a brute-force count of j <= i + Sk - Sq. */
static void test_visible_pairs(uint64_t seed)
{
    rng_t r;
    int n;
    rng_seed(&r, seed);
    for (n = 0; n < 20; n++) {
        shape_t s = shape(1, 1, 1, 1 + (int32_t)(rng_next_u64(&r) % 300),
                          1 + (int32_t)(rng_next_u64(&r) % 300), 64, 1);
        int64_t brute = 0, i, j;
        for (i = 0; i < s.seqlen_q; i++)
            for (j = 0; j < s.seqlen_k; j++) brute += j <= i + s.seqlen_k - s.seqlen_q;
        CHECK(shape_visible_pairs(&s) == brute, "Sq %d Sk %d: %lld != %lld", (int)s.seqlen_q,
              (int)s.seqlen_k, (long long)shape_visible_pairs(&s), (long long)brute);
        s.causal = 0;
        CHECK(shape_visible_pairs(&s) == (int64_t)s.seqlen_q * s.seqlen_k, "non-causal count");
    }
}

/* The shared parsers of gate's values: fractions ("10%" = "0.10"; "10" is ambiguous) and whole
 * numbers (no signs, no spaces, no trailing text). Refusals print to stderr. */
static void test_value_parsers(void)
{
    double f = -9;
    long long n = -9;
    CHECK(parse_fraction("t", "--x", "10%", &f) == 0 && fabs(f - 0.10) < 1e-15, "10%% -> %g", f);
    CHECK(parse_fraction("t", "--x", "0.25", &f) == 0 && f == 0.25, "0.25 -> %g", f);
    CHECK(parse_fraction("t", "--x", "-50%", &f) == 0 && f == -0.5, "-50%% -> %g", f);
    CHECK(parse_fraction("t", "--x", "0%", &f) == 0 && f == 0.0, "0%% -> %g", f);
    CHECK(parse_fraction("t", "--x", "10", &f) != 0, "a bare 10 was taken as a fraction");
    CHECK(parse_fraction("t", "--x", "1.0", &f) != 0, "a bare 1.0 was taken as a fraction");
    CHECK(parse_fraction("t", "--x", "5%%", &f) != 0, "5%%%% accepted");
    CHECK(parse_fraction("t", "--x", "", &f) != 0 && parse_fraction("t", "--x", "nan", &f) != 0,
          "empty or NaN accepted");
    CHECK(parse_count("t", "--n", "0", &n) == 0 && n == 0, "0 -> %lld", n);
    CHECK(parse_count("t", "--n", "232448", &n) == 0 && n == 232448, "232448 -> %lld", n);
    CHECK(parse_count("t", "--n", "9223372036854775807", &n) == 0 && n == 9223372036854775807LL,
          "LLONG_MAX -> %lld", n);
    CHECK(parse_count("t", "--n", "9223372036854775808", &n) != 0, "LLONG_MAX + 1 accepted");
    CHECK(parse_count("t", "--n", "-1", &n) != 0 && parse_count("t", "--n", "+1", &n) != 0 &&
              parse_count("t", "--n", " 1", &n) != 0 && parse_count("t", "--n", "1k", &n) != 0 &&
              parse_count("t", "--n", "", &n) != 0,
          "a signed, padded, suffixed or empty count accepted");
}

/* args_parse: --flag VALUE and --flag=VALUE alike, --help anywhere, unknown options refused,
 * a value that is missing at the end refused. */
typedef struct {
    const char *json, *pos;
    int flag;
} toy_opts_t;

static arg_result_t toy_arg(args_t *a, void *ctx)
{
    toy_opts_t *t = ctx;
    arg_result_t r;
    if (arg_flag(a, "--flag")) {
        t->flag = 1;
        return ARG_OK;
    }
    if ((r = arg_value(a, "--json", &t->json)) != ARG_UNKNOWN) return r;
    if (a->argv[a->i][0] != '-') {
        t->pos = a->argv[a->i];
        return ARG_OK;
    }
    return ARG_UNKNOWN;
}

static void test_args_parse(void)
{
    char *sep[] = {"cmd", "--json", "a.json", "pos", "--flag"};
    char *eq[] = {"cmd", "--json=b.json", "pos2"};
    char *empty[] = {"cmd", "--json="};
    char *help[] = {"cmd", "--bogus", "-h"};
    char *help_first[] = {"cmd", "--help", "--bogus"};
    char *bad[] = {"cmd", "--jsonx=1"};
    char *missing[] = {"cmd", "--json"};
    char *prefix[] = {"cmd", "--flagx"};
    toy_opts_t t;
    memset(&t, 0, sizeof t);
    CHECK(args_parse(5, sep, "toy", toy_arg, &t) == ARG_OK && t.json && !strcmp(t.json, "a.json") &&
              t.pos && !strcmp(t.pos, "pos") && t.flag,
          "--json VALUE / positional / --flag not parsed");
    memset(&t, 0, sizeof t);
    CHECK(args_parse(3, eq, "toy", toy_arg, &t) == ARG_OK && t.json && !strcmp(t.json, "b.json") &&
              !strcmp(t.pos, "pos2") && !t.flag,
          "--json=VALUE not parsed");
    CHECK(args_parse(2, empty, "toy", toy_arg, &t) == ARG_OK && t.json && !t.json[0],
          "--json= must give an empty value (the command refuses it)");
    CHECK(args_parse(3, help, "toy", toy_arg, &t) == ARG_BAD, "an unknown option before -h");
    CHECK(args_parse(2, help + 1, "toy", toy_arg, &t) == ARG_HELP, "-h not seen");
    CHECK(args_parse(3, help_first, "toy", toy_arg, &t) == ARG_HELP, "--help not seen first");
    CHECK(args_parse(2, bad, "toy", toy_arg, &t) == ARG_BAD, "--jsonx=1 taken for --json");
    CHECK(args_parse(2, missing, "toy", toy_arg, &t) == ARG_BAD, "--json without a value");
    CHECK(args_parse(2, prefix, "toy", toy_arg, &t) == ARG_BAD, "--flagx taken for --flag");
}

/* The run options recorded with every perf.json / correctness.json record (gate's key). */
static void test_run_opts_json(void)
{
    run_opts_t o = options(1, FP8ATTN_SCALE_PER_BATCH_HEAD, 1);
    json_t *j = json_object();
    o.out_type = FP8ATTN_OUT_BF16;
    run_opts_to_json(&o, j);
    CHECK(!strcmp(json_string_value(json_object_get(j, "layout")), "bshd") &&
              !strcmp(json_string_value(json_object_get(j, "out_type")), "bf16") &&
              json_is_true(json_object_get(j, "lse")) &&
              !strcmp(json_string_value(json_object_get(j, "descale")), "batch-head"),
          "run_opts_to_json wrote the wrong options");
    json_decref(j);
}

int main(void)
{
    /* Sq > Sk with causal leaves rows that see no key (O = 0, LSE = -inf). */
    const shape_t gqa_causal = shape(2, 6, 2, 45, 29, 64, 1);
    const shape_t gqa_long_k = shape(1, 4, 1, 17, 70, 128, 0);
    const run_opts_t bshd_bh = options(1, FP8ATTN_SCALE_PER_BATCH_HEAD, 1);
    const run_opts_t bhsd_head = options(0, FP8ATTN_SCALE_PER_HEAD, 1);
    const run_opts_t bhsd_tensor = options(0, FP8ATTN_SCALE_PER_TENSOR, 0);
    uint64_t seed;
    for (seed = 0; seed < 3; seed++) {
        test_rng(seed);
        test_parallel_matches_single(&gqa_causal, &bshd_bh, seed);
        test_parallel_matches_single(&gqa_long_k, &bhsd_head, seed);
        test_fp64_matches_cpu(&gqa_causal, &bshd_bh, seed);
        test_fp64_matches_cpu(&gqa_long_k, &bhsd_tensor, seed);
        test_err_stats(seed);
        test_visible_pairs(seed);
    }
    test_lse_err();
    test_gate_nan();
    test_presets();
    test_value_parsers();
    test_args_parse();
    test_run_opts_json();
    if (g_failures) printf("%ld check(s) failed\n", g_failures);
    else printf("all passed\n");
    return g_failures ? 1 : 0;
}
