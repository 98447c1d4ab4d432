/* The GPU quantizer's arithmetic (src/kernels/quant/quant_math.cuh), run on the CPU: the same
 * source the kernels compile, with plain IEEE float operations where the device uses PTX ones.
 * Checked against the host library (no GPU needed):
 *  - the correctly rounded quotient x / d of a shared divisor gives the host codec's E4M3 code of
 *    x / d (and is x / d exactly wherever that code depends on it), over every FP16 and BF16
 *    value, the codec's boundary values scaled by d, random bit patterns and random values, for
 *    descales of every kind (typical amax / 448, powers of two, the fast-path limits and beyond,
 *    FLT_MIN, subnormal);
 *  - the descale of an amax equals fp8attn_compute_descales' (FLT_MIN floor, amax 0 -> 1).
 * (The quantizer's index division, kernels/fastdiv.h, is checked by test_fastdiv.c.)
 * `test_quant_math --exhaustive D...` runs every float x for the given descales (minutes). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8attn.h"
#include "quant_math.cuh"
#include "test_util.h"

static long g_checked;

static uint8_t code_of(float q) { return fp8attn_float_to_e4m3(q); }

/* One x against descale d (divisor v): E4M3 codes equal; the quotient exact where it matters. */
static void check_one(float x, float d, qm_divisor_t v)
{
    const float want_q = x / d, got_q = qm_quotient(x, v);
    const uint8_t want = code_of(want_q), got = code_of(got_q);
    g_checked++;
    CHECK(got == want, "x = %a, d = %a: code 0x%02x, want 0x%02x (q %a, want %a)", (double)x,
          (double)d, got, want, (double)got_q, (double)want_q);
    /* where the code depends on the exact quotient, it is the exact quotient */
    if (fabsf(want_q) >= 0x1p-11f && fabsf(want_q) <= 512.0f)
        CHECK(qm_bits(got_q) == qm_bits(want_q), "x = %a, d = %a: quotient %a, want %a", (double)x,
              (double)d, (double)got_q, (double)want_q);
}

static float f16_value(uint16_t h) { return fp8attn_fp16_to_float(h); }
static float bf16_value(uint16_t h) { return fp8attn_bf16_to_float(h); }

static void check_descale(float d, uint64_t *rng)
{
    const qm_divisor_t v = qm_divisor_make(d);
    long i;
    unsigned u, c;
    for (u = 0; u < 65536; u++) {
        check_one(f16_value((uint16_t)u), d, v);
        check_one(bf16_value((uint16_t)u), d, v);
    }
    /* every E4M3 value and midpoint, times d, and the floats beside them */
    for (c = 0; c <= 0x7E; c++) {
        const float lo = fp8attn_e4m3_to_float((uint8_t)c);
        const float hi = c < 0x7E ? fp8attn_e4m3_to_float((uint8_t)(c + 1)) : 480.0f;
        const float probes[2] = {lo, (lo + hi) / 2};
        int k;
        for (k = 0; k < 2; k++) {
            const float x = probes[k] * d;
            check_one(x, d, v);
            check_one(-x, d, v);
            check_one(nextafterf(x, 0.0f), d, v);
            check_one(nextafterf(x, INFINITY), d, v);
            check_one(-nextafterf(x, INFINITY), d, v);
        }
    }
    for (i = 0; i < 200000; i++) {
        const uint64_t r = splitmix64(rng);
        const float in_range = ldexpf(1.0f + (float)(r & 0xFFFFFF) / 16777216.0f,
                                      -14 + (int)((r >> 24) % 26u)) * d;
        check_one(qm_float((uint32_t)(r >> 32)), d, v);
        check_one((r >> 63) ? -in_range : in_range, d, v);
    }
}

static void test_quotients(void)
{
    uint64_t rng = 11;
    const float fixed[] = {1.0f,
                           2.0f,
                           0.5f,
                           3.0f,
                           1.0f / 448.0f,
                           0.0123f,
                           448.0f,
                           FLT_MIN,                   /* the dynamic floor: IEEE path */
                           0x1p-64f,                  /* fast-path limits and beside them */
                           nextafterf(0x1p-64f, 0.0f),
                           nextafterf(0x1p-64f, 1.0f),
                           0x1p64f,
                           nextafterf(0x1p64f, 0.0f),
                           nextafterf(0x1p64f, INFINITY),
                           qm_float(0x3FFFFFFFu),     /* all-ones significands */
                           qm_float(0x3F7FFFFFu),
                           qm_float(0x00400000u),     /* subnormal (a caller's descale) */
                           1e30f,
                           1e-30f};
    const long before = g_failures;
    size_t i;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_descale(fixed[i], &rng);
    for (i = 0; i < 40; i++) { /* typical dynamic descales: amax / 448 of random amax */
        const float amax = ldexpf(1.0f + (float)(splitmix64(&rng) & 0xFFFFFF) / 16777216.0f,
                                  -20 + (int)(splitmix64(&rng) % 40u));
        check_descale(amax / 448.0f, &rng);
    }
    printf("quotients: %ld checks, %s\n", g_checked, g_failures == before ? "ok" : "FAILED");
}

/* The device's descale of an amax against the host library's, through a one-element view. */
static void check_descale_of(float amax)
{
    fp8attn_tensor_view_t view = {&amax, FP8ATTN_SRC_F32, 1, 1, 1, 1, {1, 1, 1}};
    float want = -1.0f, got = qm_descale_of(qm_bits(amax), 448.0f);
    fp8attn_status_t st = fp8attn_compute_descales(&view, FP8ATTN_SCALE_PER_TENSOR,
                                                   FP8ATTN_FORMAT_E4M3, &want);
    CHECK(st == FP8ATTN_OK, "fp8attn_compute_descales(%a): %s", (double)amax, fp8attn_last_error());
    CHECK(qm_bits(got) == qm_bits(want), "descale of amax %a: %a, want %a", (double)amax,
          (double)got, (double)want);
}

static void test_descales(void)
{
    uint64_t rng = 12;
    const long before = g_failures;
    int i;
    check_descale_of(0.0f);
    check_descale_of(qm_float(1u));
    check_descale_of(qm_float(0x007FFFFFu));
    check_descale_of(FLT_MIN);
    check_descale_of(448.0f * FLT_MIN);
    check_descale_of(nextafterf(448.0f * FLT_MIN, 0.0f));
    check_descale_of(nextafterf(448.0f * FLT_MIN, 1.0f));
    check_descale_of(1.0f);
    check_descale_of(448.0f);
    check_descale_of(FLT_MAX);
    for (i = 0; i < 100000; i++) {
        const uint32_t u = (uint32_t)splitmix64(&rng) & 0x7FFFFFFFu;
        if (u < QM_INF_BITS) check_descale_of(qm_float(u));
    }
    /* non-finite amax: NaN (the host refuses such inputs instead) */
    CHECK(isnan(qm_descale_of(QM_INF_BITS, 448.0f)), "amax inf: descale not NaN");
    CHECK(isnan(qm_descale_of(QM_NAN_BITS, 448.0f)), "amax NaN: descale not NaN");
    printf("descales: %s\n", g_failures == before ? "ok" : "FAILED");
}

/* Every float x for each descale given on the command line. */
static int exhaustive(int argc, char **argv)
{
    int i;
    for (i = 2; i < argc; i++) {
        const float d = strtof(argv[i], NULL);
        const qm_divisor_t v = qm_divisor_make(d);
        const long before = g_failures;
        uint64_t u;
        for (u = 0; u <= 0xFFFFFFFFull; u++) check_one(qm_float((uint32_t)u), d, v);
        printf("exhaustive d = %a: %s\n", (double)d, g_failures == before ? "ok" : "FAILED");
    }
    printf("%ld checks, %ld failures\n", g_checked, g_failures);
    return g_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--exhaustive")) return exhaustive(argc, argv);
    test_descales();
    test_quotients();
    if (g_failures) {
        printf("FAIL: %ld failures\n", g_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
