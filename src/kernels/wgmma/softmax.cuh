/* Online softmax of one S tile in registers, base 2, and the conversion of P to the E4M3 A
 * operand of the P.V wgmma.
 *
 * x = s * sl2 with sl2 = softmax_scale * q_descale * k_descale * log2(e) (one multiplier). Per row:
 * m = running max of x, l = this lane's share of sum 2^(x - m + 8). P = 2^(x - m + 8) lies in
 * [0, 256], so the E4M3 cast keeps small probabilities out of the subnormals; the 2^8 cancels in
 * O / l. A row of S lives in one quad (4 lanes): each lane holds BN/4 of its values. */
#ifndef FP8ATTN_WGMMA_SOFTMAX_CUH
#define FP8ATTN_WGMMA_SOFTMAX_CUH

#include <math.h>

#include "../ptx.cuh"
#include "ptx_sm90.cuh"

/* P = 2^(x - m + P_LOG2): the offset that keeps P's small values out of E4M3's subnormals; it
 * cancels in O / l, and the epilogue takes it out of the LSE. */
#ifndef WGMMA_P_LOG2
#define WGMMA_P_LOG2 8
#endif
static constexpr float P_LOG2 = WGMMA_P_LOG2;
static constexpr float P_TOP = (float)(1 << WGMMA_P_LOG2); /* P of a row's largest score */
/* The speculative softmax (softmax_pack_spec) keeps a P above 2^64 apart: the row's max moved up
 * by more than 56 in log2 units, and the row sum of up to 64 such P per lane could overflow fp32 */
static constexpr float SPEC_P_BIG = 18446744073709551616.0f; /* 2^64 */
/* 1: exponentials and sums only, never scaled or recovered (timing only: wrong output wherever a
 * row's max moves up; docs/PERF.md w26) */
#ifndef WGMMA_SPEC_LEAN
#define WGMMA_SPEC_LEAN 0
#endif

/* Updates m, l; turns s into P (fp32, scaled by 2^8); alpha = factor for the old O rows. */
template <int N>
__device__ __forceinline__ void softmax_tile(float (&s)[N], float (&m)[2], float (&l)[2], float sl2,
                                             float (&alpha)[2])
{
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float mx = -INFINITY;
#pragma unroll
        for (int i = 0; i < N / 4; i++) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * r], s[4 * i + 2 * r + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = fmaxf(m[r], mx * sl2);
        const float m_use = m_new == -INFINITY ? 0.0f : m_new; /* no key seen yet: P = 0 */
        alpha[r] = exp2f(m[r] - m_use);
        m[r] = m_new;
        const float off = P_LOG2 - m_use;
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < N / 4; i++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const float p = exp2f(fmaf(s[4 * i + 2 * r + e], sl2, off));
                s[4 * i + 2 * r + e] = p;
                sum += p;
            }
        l[r] = l[r] * alpha[r] + sum;
    }
}

/* O rows *= alpha (accumulator layout: o[4i + 2r + e] is row r of this lane). */
template <int N>
__device__ __forceinline__ void rescale_o(float (&o)[N], const float (&alpha)[2])
{
#pragma unroll
    for (int i = 0; i < N / 4; i++) {
        o[4 * i] *= alpha[0];
        o[4 * i + 1] *= alpha[0];
        o[4 * i + 2] *= alpha[1];
        o[4 * i + 3] *= alpha[1];
    }
}

/* rescale_o where a row's alpha differs from 1 in this warp; SKIP = false: always. Once the row
 * maxima settle, most tiles move none of them (alpha == 1 exactly), and the warp skips the D/2
 * multiplies per lane. */
template <bool SKIP, int N>
__device__ __forceinline__ void rescale_o_if_moved(float (&o)[N], const float (&alpha)[2])
{
    if (!SKIP || __any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) rescale_o(o, alpha);
}

/* P (BN keys, accumulator layout) -> BN/32 E4M3 A fragments: step kk packs 8-key chunks
 * (4kk, 4kk+1) into registers 0 (row g) and 1 (row g+8), chunks (4kk+2, 4kk+3) into 2 and 3; the
 * key order this makes is the one V^T is stored in (transpose_v.cuh). */
template <int N>
__device__ __forceinline__ void pack_p(const float (&s)[N], uint32_t (&pa)[N / 16][4])
{
#pragma unroll
    for (int kk = 0; kk < N / 16; kk++) {
        const float *c0 = &s[16 * kk], *c1 = c0 + 4, *c2 = c0 + 8, *c3 = c0 + 12;
        pa[kk][0] = pack_e4m3x4(c0[0], c0[1], c1[0], c1[1]);
        pa[kk][1] = pack_e4m3x4(c0[2], c0[3], c1[2], c1[3]);
        pa[kk][2] = pack_e4m3x4(c2[0], c2[1], c3[0], c3[1]);
        pa[kk][3] = pack_e4m3x4(c2[2], c2[3], c3[2], c3[3]);
    }
}

/* The speculative softmax of one S tile after the first (SPEC_EXP). P is computed against the
 * running max m of the earlier tiles, which is known before the tile's own max, so the
 * exponentials and row sums do not wait for a row-max chain (they run in place in s: the tile's
 * max is taken over P instead). Then, per row:
 *   - no P above 2^P_LOG2 (the tile's max is not above m): nothing changes, alpha = 1. This is
 *     what softmax_tile does too.
 *   - a larger P (the max moved up): m rises by t = log2(largest P) - P_LOG2, to the row's max,
 *     and the row's P, its sum and (through alpha = 2^-t) O and l are scaled by 2^-t, which makes
 *     the row's largest P 2^P_LOG2, exact in E4M3, as in softmax_tile. A warp with such a row
 *     spends BN/2 FMUL per lane on it, instead of a second softmax. (Letting P reach 448 first
 *     loses that exact largest P: up to 18 % more error in docs/models/spec_softmax.py, 3-6 %
 *     on the H100, docs/PERF.md w26.)
 *   - a P above 2^64 (SPEC_P_BIG: the max moved up by more than 56; the P may be infinite): such
 *     an element keeps its exponent, negated (-x*sl2 - off < -64, where every P is >= 0), and the
 *     warp takes spec_recover, which gets every exponent back (log2 of P, or the negated value)
 *     and does the usual softmax on them. No S is computed again, so Q and K_j are released as
 *     on the usual path and no warp waits for another.
 * A row with no key yet (m = -inf) takes 0 as its reference. At tiles after the first that is a
 * row that sees no key at all (every row that sees a key sees key 0, in the first tile), so its
 * P are all 0. P goes to the A fragments pa (the previous tile's P.V must be complete). */
template <int N>
__device__ __forceinline__ void spec_recover(float (&s)[N], float (&m)[2], float (&l)[2],
                                          const float (&off)[2], float (&alpha)[2])
{
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float amax = -INFINITY; /* exponents relative to the old reference: x * sl2 + off */
#pragma unroll
        for (int i = 0; i < N / 4; i++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                float &v = s[4 * i + 2 * r + e];
                v = v < 0.0f ? -v : __log2f(v); /* P = 0 gives -inf */
                amax = fmaxf(amax, v);
            }
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 1));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));
        const float t = amax == -INFINITY ? 0.0f : fmaxf(amax - P_LOG2, 0.0f);
        alpha[r] = exp2f(-t);
        if (amax > -INFINITY) m[r] = P_LOG2 - off[r] + t;
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < N / 4; i++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                float &v = s[4 * i + 2 * r + e];
                v = exp2f(v - t);
                sum += v;
            }
        l[r] = l[r] * alpha[r] + sum;
    }
}

template <int N>
__device__ __forceinline__ void softmax_pack_spec(float (&s)[N], float (&m)[2], float (&l)[2],
                                                  float sl2, float (&alpha)[2],
                                                  uint32_t (&pa)[N / 16][4])
{
    float off[2], pmax[2] = {0.0f, 0.0f}, l0[2] = {l[0], l[1]};
#pragma unroll
    for (int r = 0; r < 2; r++) off[r] = P_LOG2 - (m[r] == -INFINITY ? 0.0f : m[r]);
#pragma unroll
    for (int i = 0; i < N / 4; i++)
#pragma unroll
        for (int r = 0; r < 2; r++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                float &x = s[4 * i + 2 * r + e];
                const float a = fmaf(x, sl2, off[r]), p = exp2f(a);
                x = (WGMMA_SPEC_LEAN || p <= SPEC_P_BIG) ? p : -a;
                if (!WGMMA_SPEC_LEAN) pmax[r] = fmaxf(pmax[r], p);
                l[r] += p;
            }
    if (WGMMA_SPEC_LEAN) {
        alpha[0] = alpha[1] = 1.0f;
        pack_p(s, pa);
        return;
    }
    if (__any_sync(0xffffffffu, pmax[0] > SPEC_P_BIG || pmax[1] > SPEC_P_BIG)) {
        l[0] = l0[0]; /* the sums above are redone from the recovered exponents */
        l[1] = l0[1];
        spec_recover(s, m, l, off, alpha);
        pack_p(s, pa);
        return;
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        pmax[r] = fmaxf(pmax[r], __shfl_xor_sync(0xffffffffu, pmax[r], 1)); /* the row's max */
        pmax[r] = fmaxf(pmax[r], __shfl_xor_sync(0xffffffffu, pmax[r], 2));
        const float t = pmax[r] > P_TOP ? fmaxf(__log2f(pmax[r]) - P_LOG2, 0.0f) : 0.0f;
        alpha[r] = t > 0.0f ? exp2f(-t) : 1.0f;
        if (pmax[r] > 0.0f) m[r] = P_LOG2 - off[r] + t; /* a row with no key stays -inf */
        l[r] *= alpha[r];
    }
    /* pack_p in each branch: one call after the branch made ptxas spill 20-36 bytes at hd128 */
    if (__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) {
        rescale_o(s, alpha); /* P rows, in the same accumulator layout as O's */
        pack_p(s, pa);
    } else {
        pack_p(s, pa);
    }
}

#endif
