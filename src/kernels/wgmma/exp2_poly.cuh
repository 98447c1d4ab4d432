/* 2^x on the FMA and integer units instead of the MUFU (the idea FlashAttention-4 uses on
 * Blackwell): the softmax may send part of its exponentials here, so that the two consumers'
 * softmaxes, which contend for the MUFU's 16 results per clock per SM (docs/PERF.md w8), share
 * the work with the FMA pipe. Off by default (WGMMA_EXP2_POLY in softmax.cuh); host and device,
 * so tests/test_exp2_poly.cu checks it on the CPU.
 *
 * For y = x - 0.5: j = round(y) by the 1.5 * 2^23 trick (j lands in the low mantissa bits of t),
 * g = y - j in [-0.5, 0.5], and 2^x = 2^j * q(g) with q(g) ~ 2^(g + 0.5) in [1, 2] a cubic; 2^j
 * is added to q's exponent field as an integer (t's bits << 23 are j << 23 modulo 2^32, since
 * t's other bits shift out). Valid for -126 <= y < 127 (the softmax's x is at most 8). Below -126
 * (x < -125.5), at -inf and at NaN the result is exactly 0, as the MUFU's ex2.approx.ftz gives 0
 * below -126: masked scores add nothing to the row sum, so a row that sees no key keeps l = 0.
 * (The MUFU passes NaN on, so a NaN score, from a NaN code in Q or K, shows in O only through
 * the elements the MUFU computes.)
 * Relative error <= 7.5e-5 for x >= -125.5 (the test measures it), against the E4M3 cast's 2^-4
 * step that P takes next. Cost: three FADD, three FFMA, one shift-add and a compare-select, no
 * MUFU.
 * Coefficients: a minimax fit of 2^(g + 0.5) on [-0.5, 0.5] in relative error (Lawson's
 * iteration on 20001 points, then rounded to float). */
#ifndef FP8ATTN_WGMMA_EXP2_POLY_CUH
#define FP8ATTN_WGMMA_EXP2_POLY_CUH

#include <stdint.h>
#include <string.h>

/* 2^(y + 0.5) for -126 <= y < 127, else 0 below (the caller folds the -0.5 into the multiply-add
 * that makes y) */
__host__ __device__ __forceinline__ float exp2_poly_shifted(float y)
{
    const float magic = 12582912.0f; /* 1.5 * 2^23 */
    const float t = y + magic;       /* round(y) in the low bits (round to nearest even) */
    const float j = t - magic;
    const float g = y - j; /* [-0.5, 0.5] */
    const float q = fmaf(fmaf(fmaf(0.07802443206310272f, g, 0.34310394525527954f), g,
                              0.9804190993309021f),
                         g, 1.414111852645874f);
    uint32_t tb, qb;
    memcpy(&tb, &t, 4);
    memcpy(&qb, &q, 4);
    qb += tb << 23;
    float r;
    memcpy(&r, &qb, 4);
    return y >= -126.0f ? r : 0.0f; /* false for NaN too */
}

#endif
