/* Arithmetic of the GPU quantizer that must match the host codec bit for bit, written once for
 * host and device so tests/test_quant_math.cu can check it on the CPU (no GPU needed).
 *
 * The library's CUDA files are built with --use_fast_math, which flushes fp32 subnormals to zero
 * and turns '/' into an approximate division. The host computes x / descale as an IEEE division
 * (subnormals kept), so the device side uses explicit PTX instructions without .ftz (mul.rn,
 * fma.rn, div.rn, rcp.rn), whose results do not depend on those flags, and compares floats
 * through their bits. On the host the same functions are plain C float arithmetic. */
#ifndef FP8ATTN_QUANT_MATH_CUH
#define FP8ATTN_QUANT_MATH_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#define QM_HD __host__ __device__ __forceinline__

/* ---- floats as bits ---- */
QM_HD uint32_t qm_bits(float x)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

QM_HD float qm_float(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* ---- IEEE fp32 operations, round to nearest even, subnormals kept ---- */
QM_HD float qm_mul(float a, float b)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return a * b;
#endif
}

QM_HD float qm_fma(float a, float b, float c)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    return r;
#else
    return fmaf(a, b, c);
#endif
}

/* RN(c - a*b) in one rounding (the negation is exact: neg.f32 without .ftz keeps subnormals) */
QM_HD float qm_fnma(float a, float b, float c)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("{ .reg .f32 t; neg.f32 t, %1; fma.rn.f32 %0, t, %2, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    return r;
#else
    return fmaf(-a, b, c);
#endif
}

QM_HD float qm_div(float a, float b)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("div.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return a / b;
#endif
}

QM_HD float qm_rcp(float b)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("rcp.rn.f32 %0, %1;" : "=f"(r) : "f"(b));
    return r;
#else
    return 1.0f / b;
#endif
}

/* ---- x / d, correctly rounded, for a d shared by many x ----
 * With r = RN(1/d), q0 = RN(x*r) is within one ulp of x/d, the remainder x - q0*d is exact in
 * one FMA, and q1 = RN(q0 + rem*r) is RN(x/d) (Markstein's theorem), provided nothing underflows
 * or overflows. That holds for d in [2^-64, 2^64] and q0 in [2^-12, 2^10]. Outside that range of
 * quotients the exact value is not needed for an FP8 E4M3 code: |x/d| < 2^-11 encodes to a zero
 * of x's sign and |x/d| > 1023 saturates, and q0 (which keeps x's sign, zeros, infinities and
 * NaN) gets the same code. A d outside [2^-64, 2^64] (or not a positive normal number) takes
 * the IEEE division for every x. */
#define QM_FAST_D_MIN 0x1F800000u /* 2^-64 */
#define QM_FAST_D_MAX 0x5F800000u /* 2^64 */
#define QM_Q0_MIN 0x39800000u     /* 2^-12 */
#define QM_Q0_MAX 0x44800000u     /* 2^10 */

typedef struct qm_divisor {
    float d, r;
    int fast;
} qm_divisor_t;

QM_HD qm_divisor_t qm_divisor_make(float d)
{
    qm_divisor_t v;
    uint32_t u = qm_bits(d);
    v.d = d;
    v.fast = u >= QM_FAST_D_MIN && u <= QM_FAST_D_MAX; /* also false for d <= 0 and NaN */
    v.r = v.fast ? qm_rcp(d) : 0.0f;
    return v;
}

/* qm_quotient for a divisor with v.fast set (no branch: callers that encode many x with one
 * divisor test v.fast once). */
QM_HD float qm_quotient_fast(float x, qm_divisor_t v)
{
    const float q0 = qm_mul(x, v.r);
    const float rem = qm_fnma(q0, v.d, x);
    const float q1 = qm_fma(rem, v.r, q0);
    return (qm_bits(q0) & 0x7FFFFFFFu) - QM_Q0_MIN <= QM_Q0_MAX - QM_Q0_MIN ? q1 : q0;
}

/* RN(x / d) where the E4M3 code depends on it; a value with the same E4M3 code elsewhere. */
QM_HD float qm_quotient(float x, qm_divisor_t v)
{
    return v.fast ? qm_quotient_fast(x, v) : qm_div(x, v.d);
}

/* ---- the descale of a group from its amax (bits of |x|, max over the group) ----
 * As fp8attn_compute_descales: amax 0 gives 1, otherwise max(RN(amax / format_max), FLT_MIN).
 * A non-finite amax (the GPU reduction maps inf and NaN above every finite value) gives NaN. */
#define QM_FLT_MIN_BITS 0x00800000u
#define QM_INF_BITS 0x7F800000u
#define QM_NAN_BITS 0x7FC00000u

QM_HD float qm_descale_of(uint32_t amax_bits, float format_max)
{
    float d;
    if (amax_bits == 0) return 1.0f;
    if (amax_bits >= QM_INF_BITS) return qm_float(QM_NAN_BITS);
    d = qm_div(qm_float(amax_bits), format_max);
    return qm_bits(d) < QM_FLT_MIN_BITS ? qm_float(QM_FLT_MIN_BITS) : d;
}

#endif
