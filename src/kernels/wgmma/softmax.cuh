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

/* The speculative softmax of one S tile after the first (SPEC_EXP): P is computed against the
 * running max m of the earlier tiles, which is known before the tile's own max, so the
 * exponentials, the row sums and the E4M3 packing do not wait for a row-max chain. If no P of
 * the warp exceeds 448 (E4M3's largest finite value: the tile's max is at most log2(1.75) above
 * m), m stays, alpha = 1, O needs no rescale, and the result is the online softmax with a
 * reference point a little below the row max, which the 2^P_LOG2 offset and 1/l absorb; returns
 * true. Otherwise (a larger max, or a row's first keys: m = -inf) returns false with m, l, alpha
 * and pa unchanged and s overwritten: the caller recomputes S and takes softmax_tile. The
 * recompute is a wgmma, which all four warps of the warpgroup must issue together, so the
 * decision is the warpgroup's: an OR over its 128 threads on named barrier bar_id. P goes
 * straight to the A fragments pa (the previous tile's P.V must be complete). */
#ifndef WGMMA_SPEC_NOREDO /* A/B timing builds only: 1 never redoes (wrong where a redo is due) */
#define WGMMA_SPEC_NOREDO 0
#endif
template <int N>
__device__ __forceinline__ bool softmax_pack_spec(float (&s)[N], float (&m)[2], float (&l)[2],
                                                  float sl2, float (&alpha)[2],
                                                  uint32_t (&pa)[N / 16][4], int bar_id)
{
    float off[2], pmax[2] = {0.0f, 0.0f}, sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int r = 0; r < 2; r++) off[r] = P_LOG2 - (m[r] == -INFINITY ? 0.0f : m[r]);
#pragma unroll
    for (int i = 0; i < N / 4; i++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float *x = &s[4 * i + 2 * r];
            x[0] = exp2f(fmaf(x[0], sl2, off[r]));
            x[1] = exp2f(fmaf(x[1], sl2, off[r]));
            pmax[r] = fmaxf(pmax[r], fmaxf(x[0], x[1]));
            sum[r] += x[0];
            sum[r] += x[1];
        }
    bool redo = false;
#pragma unroll
    for (int r = 0; r < 2; r++) redo |= pmax[r] > 448.0f || (m[r] == -INFINITY && pmax[r] > 0.0f);
    if (!WGMMA_SPEC_NOREDO && named_bar_or(bar_id, 128, redo)) return false;
    pack_p(s, pa);
#pragma unroll
    for (int r = 0; r < 2; r++) {
        alpha[r] = 1.0f;
        l[r] += sum[r];
    }
    return true;
}

#endif
