/* Tests the host FP8/FP16/BF16 codec against oracles written independently of src/codec.c,
 * including the library-internal fp8attn_encode and double -> FP16/BF16 conversions. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fp8attn.h"
#include "internal.h" /* fp8attn_encode, fp8attn_double_to_fp16, fp8attn_double_to_bf16 */
#include "test_util.h"

#define RANDOM_PER_KIND 1500000 /* per format: random bit patterns, and as many in-range values */

static void fail_at(const char *what, float x, unsigned got, unsigned want)
{
    if (g_failures++ < 20)
        printf("FAIL %s: x = %a (%.9g): got 0x%04x, want 0x%04x\n", what, (double)x, (double)x, got,
               want);
}

/* ---- FP8 oracle: value from the fields; encode by nearest search over that table ---- */

typedef struct fp8_format {
    const char *name;
    int exp_bits, man_bits, bias;
    int has_inf;          /* E5M2: exponent all ones is inf/NaN; E4M3: only S.1111.111 is NaN */
    unsigned max_code;    /* largest finite magnitude code */
    uint8_t (*encode)(float);
    float (*decode)(uint8_t);
    fp8attn_format_t format; /* for fp8attn_encode / fp8attn_decode */
} fp8_format_t;

static const fp8_format_t k_e4m3 = {"E4M3", 4, 3, 7, 0, 0x7E, fp8attn_float_to_e4m3,
                                    fp8attn_e4m3_to_float, FP8ATTN_FORMAT_E4M3};
static const fp8_format_t k_e5m2 = {"E5M2", 5, 2, 15, 1, 0x7B, fp8attn_float_to_e5m2,
                                    fp8attn_e5m2_to_float, FP8ATTN_FORMAT_E5M2};

/* Value the fields of a magnitude code stand for, ignoring inf/NaN encodings. */
static double field_value(const fp8_format_t *f, unsigned mag)
{
    unsigned e = mag >> f->man_bits, m = mag & ((1u << f->man_bits) - 1u);
    if (e == 0) return ldexp((double)m, 1 - f->bias - f->man_bits);
    return ldexp(1.0 + ldexp((double)m, -f->man_bits), (int)e - f->bias);
}

static double oracle_decode(const fp8_format_t *f, unsigned code)
{
    unsigned mag = code & 0x7Fu, e_all_ones = (1u << f->exp_bits) - 1u;
    unsigned e = mag >> f->man_bits, m = mag & ((1u << f->man_bits) - 1u);
    double v;
    if (f->has_inf && e == e_all_ones) v = m ? NAN : INFINITY;
    else if (!f->has_inf && mag == 0x7Fu) v = NAN;
    else v = field_value(f, mag);
    return (code & 0x80u) ? copysign(v, -1.0) : copysign(v, 1.0);
}

/* Nearest among the finite codes and the first value past the largest one (the overflow
 * point), ties to the even code; a result past the largest finite code saturates (E4M3) or
 * is inf (E5M2). */
static uint8_t oracle_encode(const fp8_format_t *f, float x)
{
    unsigned sign = signbit(x) ? 0x80u : 0u, c, best = 0;
    double a = fabs((double)x), best_dist = INFINITY;
    if (isnan(x)) return (uint8_t)(sign | 0x7Fu);
    if (isinf(x)) best = f->max_code + 1;
    else
        for (c = 0; c <= f->max_code + 1; c++) {
            double dist = fabs(a - field_value(f, c));
            if (dist < best_dist || (dist == best_dist && (c & 1u) == 0)) {
                best = c;
                best_dist = dist;
            }
        }
    if (best > f->max_code) best = f->has_inf ? f->max_code + 1 : f->max_code;
    return (uint8_t)(sign | best);
}

static void check_fp8_encode(const fp8_format_t *f, float x)
{
    char what[64];
    uint8_t got = f->encode(x), want = oracle_encode(f, x), got_internal;
    if (got != want) {
        snprintf(what, sizeof what, "%s encode", f->name);
        fail_at(what, x, got, want);
    }
    got_internal = fp8attn_encode(f->format, x); /* the internal dispatcher quant.c uses */
    if (got_internal != want) {
        snprintf(what, sizeof what, "%s fp8attn_encode", f->name);
        fail_at(what, x, got_internal, want);
    }
}

static void check_fp8_encode_both_signs(const fp8_format_t *f, float x)
{
    check_fp8_encode(f, x);
    check_fp8_encode(f, -x);
}

static void test_fp8_decode_all(const fp8_format_t *f)
{
    unsigned c;
    for (c = 0; c < 256; c++) {
        float got = f->decode((uint8_t)c), got_internal = fp8attn_decode(f->format, (uint8_t)c);
        double want = oracle_decode(f, c);
        int ok = isnan(want) ? isnan(got) && !signbit(got) == !signbit(want)
                             : (double)got == want && !signbit(got) == !signbit(want);
        ok = ok && memcmp(&got, &got_internal, sizeof got) == 0;
        if (!ok) {
            g_failures++;
            printf("FAIL %s decode 0x%02x: got %a, want %a\n", f->name, c, (double)got, want);
        }
    }
}

/* Every code's own value, midpoints between neighbours (and the overflow point), and the
 * floats just beside each midpoint, with both signs. */
static void test_fp8_boundaries(const fp8_format_t *f)
{
    unsigned c;
    for (c = 0; c <= f->max_code + 1; c++) {
        float v = (float)field_value(f, c); /* FP8 values are exact in float */
        check_fp8_encode_both_signs(f, v);
        if (c <= f->max_code) {
            float mid = (float)((field_value(f, c) + field_value(f, c + 1)) / 2); /* exact */
            check_fp8_encode_both_signs(f, mid);
            check_fp8_encode_both_signs(f, nextafterf(mid, 0.0f));
            check_fp8_encode_both_signs(f, nextafterf(mid, INFINITY));
        }
    }
}

/* Zeros, float subnormals, huge values, infinities and NaNs of either sign and payload. */
static void test_fp8_specials(const fp8_format_t *f)
{
    const uint32_t nan_bits[4] = {0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA5A5A5u};
    int i;
    check_fp8_encode_both_signs(f, 0.0f);
    check_fp8_encode_both_signs(f, float_of_bits(1u));         /* smallest float subnormal */
    check_fp8_encode_both_signs(f, float_of_bits(0x007FFFFFu)); /* largest float subnormal */
    check_fp8_encode_both_signs(f, 3.4028235e38f);
    check_fp8_encode_both_signs(f, INFINITY);
    for (i = 0; i < 4; i++) {
        check_fp8_encode(f, float_of_bits(nan_bits[i]));
        check_fp8_encode(f, float_of_bits(nan_bits[i] | 0x80000000u));
    }
    /* rules from the spec, stated directly as well as through the oracle */
    if (f->encode(0.0f) != 0x00 || f->encode(-0.0f) != 0x80 || f->encode(NAN) != 0x7F ||
        f->encode(-NAN) != 0xFF) {
        g_failures++;
        printf("FAIL %s: zero sign or NaN code\n", f->name);
    }
    if (f->has_inf ? f->encode(61440.0f) != 0x7C || f->encode(nextafterf(61440.0f, 0.0f)) != 0x7B ||
                         f->encode(-INFINITY) != 0xFC
                   : f->encode(INFINITY) != 0x7E || f->encode(-1e30f) != 0xFE) {
        g_failures++;
        printf("FAIL %s: overflow rule\n", f->name);
    }
}

/* Random bit patterns (every exponent) and random values spread over the format's range. */
static void test_fp8_random(const fp8_format_t *f, uint64_t seed)
{
    uint64_t rng = seed;
    int emax = (1 << f->exp_bits) - 1 - f->bias, emin = 1 - f->bias - f->man_bits;
    long i;
    for (i = 0; i < RANDOM_PER_KIND; i++) {
        uint64_t r = splitmix64(&rng);
        float in_range = ldexpf(1.0f + (float)(r & 0xFFFFFF) / 16777216.0f,
                                emin - 3 + (int)((r >> 24) % (unsigned)(emax - emin + 6)));
        check_fp8_encode(f, float_of_bits((uint32_t)(r >> 32)));
        check_fp8_encode(f, (r >> 63) ? -in_range : in_range);
    }
}

static void test_fp8(const fp8_format_t *f, uint64_t seed)
{
    long before = g_failures;
    test_fp8_decode_all(f);
    test_fp8_boundaries(f);
    test_fp8_specials(f);
    test_fp8_random(f, seed);
    printf("%s: %s\n", f->name, g_failures == before ? "ok" : "FAILED");
}

/* ---- FP16: GCC's _Float16 conversions are the oracle ---- */

static uint16_t oracle_fp16(float x)
{
    volatile _Float16 h = (_Float16)x; /* volatile: a run-time conversion, not constant folding */
    uint16_t u;
    _Float16 copy = h;
    memcpy(&u, &copy, sizeof u);
    return u;
}

static float oracle_fp16_to_float(uint16_t u)
{
    _Float16 h;
    memcpy(&h, &u, sizeof h);
    return (float)h;
}

static int is_fp16_nan(uint16_t u) { return (u & 0x7C00u) == 0x7C00u && (u & 0x3FFu); }
static int is_bf16_nan(uint16_t u) { return (u & 0x7F80u) == 0x7F80u && (u & 0x7Fu); }

static void check_fp16_encode(float x)
{
    uint16_t got = fp8attn_float_to_fp16(x);
    if (isnan(x)) {
        if (!is_fp16_nan(got) || (got >> 15) != (bits_of_float(x) >> 31))
            fail_at("FP16 encode NaN", x, got, 0x7E00u | ((bits_of_float(x) >> 16) & 0x8000u));
        return;
    }
    if (got != oracle_fp16(x)) fail_at("FP16 encode", x, got, oracle_fp16(x));
}

/* ---- BF16 oracle: nearest of the two bf16 neighbours, compared in double ---- */

static double bf16_field_value(uint16_t u)
{
    unsigned e = (u >> 7) & 0xFFu, m = u & 0x7Fu;
    double v;
    if (e == 0xFF) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -133);
    else v = ldexp(1.0 + m / 128.0, (int)e - 127);
    return (u & 0x8000u) ? -v : v;
}

static uint16_t oracle_bf16(float x)
{
    uint32_t u = bits_of_float(x);
    uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1); /* same sign, toward zero/away */
    double a = fabs((double)x), d_lo, d_hi;
    if (isinf(x)) return lo;
    d_lo = a - fabs(bf16_field_value(lo));
    /* past the largest finite bf16 the next value would be 2^128 (rounds to inf) */
    d_hi = ((hi & 0x7FFFu) == 0x7F80u ? ldexp(1.0, 128) : fabs(bf16_field_value(hi))) - a;
    if (d_lo < d_hi || (d_lo == d_hi && (lo & 1u) == 0)) return lo;
    return hi;
}

static void check_bf16_encode(float x)
{
    uint16_t got = fp8attn_float_to_bf16(x);
    if (isnan(x)) {
        if (!is_bf16_nan(got) || (got >> 15) != (bits_of_float(x) >> 31))
            fail_at("BF16 encode NaN", x, got, 0x7FC0u | ((bits_of_float(x) >> 16) & 0x8000u));
        return;
    }
    if (got != oracle_bf16(x)) fail_at("BF16 encode", x, got, oracle_bf16(x));
}

static void test_decode_16(void)
{
    uint32_t u;
    for (u = 0; u < 65536; u++) {
        float h = fp8attn_fp16_to_float((uint16_t)u), want_h = oracle_fp16_to_float((uint16_t)u);
        float b = fp8attn_bf16_to_float((uint16_t)u);
        double want_b = bf16_field_value((uint16_t)u);
        int ok_h = is_fp16_nan((uint16_t)u) ? isnan(h) && !signbit(h) == !(u >> 15)
                                             : bits_of_float(h) == bits_of_float(want_h);
        int ok_b = is_bf16_nan((uint16_t)u) ? isnan(b) && !signbit(b) == !(u >> 15)
                                             : (double)b == want_b && !signbit(b) == !(u >> 15);
        if (!ok_h) fail_at("FP16 decode", h, u, bits_of_float(want_h));
        if (!ok_b) fail_at("BF16 decode", b, u, 0);
    }
}

/* Each 16-bit value, midpoints between neighbours and the floats beside them. */
static void test_boundaries_16(void)
{
    uint32_t u;
    for (u = 0; u < 0x7C00u; u++) { /* FP16 finite magnitudes; u + 1 may be inf */
        float v = oracle_fp16_to_float((uint16_t)u);
        float next = u + 1 == 0x7C00u ? 65536.0f : oracle_fp16_to_float((uint16_t)(u + 1));
        float mid = (v + next) / 2; /* exact: 12 significant bits */
        float probes[4];
        int i;
        probes[0] = v;
        probes[1] = mid;
        probes[2] = nextafterf(mid, 0.0f);
        probes[3] = nextafterf(mid, INFINITY);
        for (i = 0; i < 4; i++) {
            check_fp16_encode(probes[i]);
            check_fp16_encode(-probes[i]);
        }
    }
    for (u = 0; u < 0x7F80u; u++) { /* BF16 finite magnitudes */
        float v = (float)bf16_field_value((uint16_t)u);
        double next = u + 1 == 0x7F80u ? ldexp(1.0, 128) : bf16_field_value((uint16_t)(u + 1));
        double mid = (v + next) / 2;
        float probes[4];
        int i;
        probes[0] = v;
        probes[1] = (float)mid; /* exact below the top; the top midpoint is past FLT_MAX */
        probes[2] = nextafterf(probes[1], 0.0f);
        probes[3] = nextafterf(probes[1], INFINITY);
        for (i = 0; i < 4; i++) {
            check_bf16_encode(probes[i]);
            check_bf16_encode(-probes[i]);
        }
    }
}

static void test_specials_16(void)
{
    const uint32_t specials[6] = {0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7F7FFFFFu,
                                  0x00000001u};
    int i;
    for (i = 0; i < 6; i++) {
        check_fp16_encode(float_of_bits(specials[i]));
        check_fp16_encode(float_of_bits(specials[i] | 0x80000000u));
        check_bf16_encode(float_of_bits(specials[i]));
        check_bf16_encode(float_of_bits(specials[i] | 0x80000000u));
    }
    /* a NaN whose low payload would round up into inf must stay NaN */
    check_bf16_encode(float_of_bits(0x7F80FFFFu));
    check_bf16_encode(float_of_bits(0xFF808000u));
}

static void test_random_16(uint64_t seed)
{
    uint64_t rng = seed;
    long i;
    for (i = 0; i < RANDOM_PER_KIND; i++) {
        uint64_t r = splitmix64(&rng);
        float in_range = ldexpf(1.0f + (float)(r & 0xFFFFFF) / 16777216.0f,
                                -27 + (int)((r >> 24) % 46u)); /* FP16 range and a bit beyond */
        check_fp16_encode(float_of_bits((uint32_t)(r >> 32)));
        check_fp16_encode((r >> 63) ? -in_range : in_range);
        check_bf16_encode(float_of_bits((uint32_t)(r >> 32)));
        check_bf16_encode(float_of_bits((uint32_t)r));
    }
}

/* ---- double -> FP16 / BF16 (one rounding from double): nearest-value oracles ----
 * A 16-bit format's non-negative finite codes 0 .. inf_code - 1 have increasing values; the
 * field formula at inf_code gives the first value past the largest finite one (2^16 for FP16,
 * 2^128 for BF16), the overflow point: a value rounding there becomes inf. */

typedef struct fmt16 {
    const char *name;
    int man_bits, bias;
    uint32_t inf_code;
    uint16_t (*from_double)(double);
} fmt16_t;

static const fmt16_t k_fp16 = {"FP16", 10, 15, 0x7C00u, fp8attn_double_to_fp16};
static const fmt16_t k_bf16 = {"BF16", 7, 127, 0x7F80u, fp8attn_double_to_bf16};

/* Value of magnitude code `mag` (0 .. inf_code) by the field formula. */
static double value16(const fmt16_t *f, uint32_t mag)
{
    uint32_t e = mag >> f->man_bits, m = mag & ((1u << f->man_bits) - 1u);
    if (e == 0) return ldexp((double)m, 1 - f->bias - f->man_bits);
    return ldexp(1.0 + ldexp((double)m, -f->man_bits), (int)e - f->bias);
}

/* Brute force: the nearest of every magnitude 0 .. inf_code to |x|, ties to the even code. */
static uint16_t brute_nearest16(const fmt16_t *f, double x)
{
    uint32_t sign = signbit(x) ? 0x8000u : 0u, mag, best = 0;
    double a = fabs(x), best_dist = INFINITY;
    if (isinf(x)) return (uint16_t)(sign | f->inf_code);
    for (mag = 0; mag <= f->inf_code; mag++) {
        double dist = fabs(a - value16(f, mag));
        if (dist < best_dist || (dist == best_dist && (mag & 1u) == 0)) {
            best = mag;
            best_dist = dist;
        }
    }
    return (uint16_t)(sign | best);
}

/* The same by bisection: the two codes around |x|, nearer one, ties to the even code. */
static uint16_t bracket_nearest16(const fmt16_t *f, double x)
{
    uint32_t sign = signbit(x) ? 0x8000u : 0u, lo = 0, hi = f->inf_code;
    double a = fabs(x), d_lo, d_hi;
    if (isinf(x) || a >= value16(f, f->inf_code)) return (uint16_t)(sign | f->inf_code);
    while (hi - lo > 1) { /* invariant: value(lo) <= a < value(hi) */
        uint32_t mid = lo + (hi - lo) / 2;
        if (value16(f, mid) <= a) lo = mid;
        else hi = mid;
    }
    d_lo = a - value16(f, lo);
    d_hi = value16(f, hi) - a;
    if (d_lo < d_hi || (d_lo == d_hi && (lo & 1u) == 0)) return (uint16_t)(sign | lo);
    return (uint16_t)(sign | hi);
}

static void fail_at_double(const char *fmt_name, const char *what, double x, unsigned got,
                           unsigned want)
{
    if (g_failures++ < 20)
        printf("FAIL %s %s: x = %a (%.17g): got 0x%04x, want 0x%04x\n", fmt_name, what, x, x, got,
               want);
}

/* A NaN must stay a NaN of the same sign; anything else must match the oracle's code. */
static void check_from_double(const fmt16_t *f, double x, int brute)
{
    uint16_t got = f->from_double(x), want;
    if (isnan(x)) {
        int is_nan = (got & 0x7FFFu) > f->inf_code;
        if (!is_nan || (got >> 15) != (signbit(x) ? 1u : 0u))
            fail_at_double(f->name, "from double NaN", x, got, f->inf_code | 1u);
        return;
    }
    want = brute ? brute_nearest16(f, x) : bracket_nearest16(f, x);
    if (got != want) fail_at_double(f->name, brute ? "from double (brute)" : "from double", x, got, want);
}

static void check_from_double_both_signs(const fmt16_t *f, double x, int brute)
{
    check_from_double(f, x, brute);
    check_from_double(f, -x, brute);
}

/* Every code's value, the midpoint to the next (the top one is the overflow threshold), and the
 * doubles one double-ulp either side of it: those round to the two neighbours, which a
 * conversion through float (a second rounding, onto the midpoint) would get wrong. Every 97th
 * code is also checked by brute force over all codes. */
static void test_from_double_boundaries(const fmt16_t *f)
{
    uint32_t mag;
    for (mag = 0; mag < f->inf_code; mag++) {
        double v = value16(f, mag), mid = (v + value16(f, mag + 1)) / 2; /* exact in double */
        double probes[4];
        int i, brute = mag % 97 == 0 || mag + 1 == f->inf_code || mag < 3;
        probes[0] = v;
        probes[1] = mid;
        probes[2] = nextafter(mid, 0.0);
        probes[3] = nextafter(mid, INFINITY);
        for (i = 0; i < 4; i++) {
            check_from_double_both_signs(f, probes[i], 0);
            if (brute) check_from_double_both_signs(f, probes[i], 1);
        }
    }
}

/* Zeros, double subnormals, values far outside the format, the largest double, infinities and
 * NaNs of either sign and several payloads; brute force for all of them. */
static void test_from_double_specials(const fmt16_t *f)
{
    const uint64_t nan_bits[4] = {0x7FF8000000000000ull, 0x7FF0000000000001ull,
                                  0x7FFFFFFFFFFFFFFFull, 0x7FF4A5A5A5A5A5A5ull};
    const double finite[10] = {0.0, 4.9406564584124654e-324, 2.2250738585072009e-308, 1e-300,
                               1e-30, 1e30, 1e300, DBL_MAX, (double)FLT_MAX, 3.0e38};
    int i;
    for (i = 0; i < 10; i++) check_from_double_both_signs(f, finite[i], 1);
    check_from_double_both_signs(f, INFINITY, 1);
    for (i = 0; i < 4; i++) {
        double x;
        uint64_t u = nan_bits[i];
        memcpy(&x, &u, sizeof x);
        check_from_double(f, x, 0);
        u |= 0x8000000000000000ull;
        memcpy(&x, &u, sizeof x);
        check_from_double(f, x, 0);
    }
    /* rules stated directly as well */
    if (f->from_double(0.0) != 0x0000u || f->from_double(-0.0) != 0x8000u ||
        f->from_double(INFINITY) != f->inf_code || f->from_double(-INFINITY) != (0x8000u | f->inf_code) ||
        f->from_double(1.0) != (uint16_t)((uint32_t)f->bias << f->man_bits)) {
        g_failures++;
        printf("FAIL %s from double: zero, inf or 1.0\n", f->name);
    }
}

/* Random doubles: full 53-bit significands over the format's exponent range and beyond (these
 * are almost never representable as float, so a float detour would round twice), and random
 * bit patterns; a slice also by brute force. */
static void test_from_double_random(const fmt16_t *f, uint64_t seed)
{
    uint64_t rng = seed;
    int emin = 1 - f->bias - f->man_bits - 3, span = f->bias * 2 + f->man_bits + 8;
    long i;
    for (i = 0; i < RANDOM_PER_KIND / 4; i++) {
        uint64_t r = splitmix64(&rng), bits = splitmix64(&rng);
        double in_range = ldexp(1.0 + (double)(r >> 12) / 4503599627370496.0,
                                emin + (int)(r % (unsigned)span));
        double any;
        memcpy(&any, &bits, sizeof any);
        if (bits >> 63) in_range = -in_range;
        check_from_double(f, in_range, i < 400);
        check_from_double(f, any, 0);
    }
}

static void test_from_double(const fmt16_t *f, uint64_t seed)
{
    long before = g_failures;
    test_from_double_boundaries(f);
    test_from_double_specials(f);
    test_from_double_random(f, seed);
    printf("%s from double: %s\n", f->name, g_failures == before ? "ok" : "FAILED");
}

int main(void)
{
    long before;
    test_fp8(&k_e4m3, 0x1234ull);
    test_fp8(&k_e5m2, 0x5678ull);
    before = g_failures;
    test_decode_16();
    test_boundaries_16();
    test_specials_16();
    test_random_16(0x9ABCull);
    printf("FP16/BF16: %s\n", g_failures == before ? "ok" : "FAILED");
    test_from_double(&k_fp16, 0xDEF0ull);
    test_from_double(&k_bf16, 0x1357ull);
    if (g_failures) {
        printf("%ld failure(s)\n", g_failures);
        return 1;
    }
    printf("all codec checks passed\n");
    return 0;
}
