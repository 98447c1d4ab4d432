/* Masking of one S tile in the accumulator layout: keys past seqlen_k, and under the causal mask
 * (bottom-right aligned) keys past each row's diagonal, become -inf. Only tiles that need it are
 * touched (mask_tile); the others run unmasked. */
#ifndef FP8ATTN_WGMMA_MASK_CUH
#define FP8ATTN_WGMMA_MASK_CUH

#include <math.h>

#include "config.cuh"

/* The first key tile [j BN, j BN + BN) that holds a key one of rows [row_lo, row_lo + 64) must
 * not see: past seqlen_k ((j + 1) BN > seqlen_k), or under the causal mask past the first row's
 * diagonal (j BN + BN - 1 > row_lo + seqlen_k - seqlen_q). Once a tile meets either condition,
 * every later one does, so tiles j >= this need the mask and the others none. Computed once per
 * query tile, the key loop's test is one compare against one register instead of a sum over the
 * rows' terms (hd256's `_vt` consumers spilled in the masked path with those, docs/PERF.md w36).
 * row_lo < seqlen_q + BM, so row_lo + (seqlen_k - seqlen_q) + 1 <= seqlen_k + BM, which the
 * dispatch's seqlen limit (2^31 - 257) keeps in int. */
template <class C>
__device__ __forceinline__ int first_masked_tile(const wgmma_params &p, int row_lo)
{
    int j = p.seqlen_k / C::BN;
    if (p.causal) j = min(j, max(row_lo + (p.seqlen_k - p.seqlen_q) + 1, 0) / C::BN);
    return j;
}

/* row_g: this lane's first row (its second is row_g + 8); t = lane % 4. */
template <class C>
__device__ __forceinline__ void apply_mask(float (&s)[C::BN / 2], int k0, int row_g, int t,
                                           int seqlen_k, int causal, int diag)
{
#pragma unroll
    for (int r = 0; r < 2; r++) {
        int lim = seqlen_k - 1;
        if (causal) lim = min(lim, row_g + 8 * r + diag);
        lim -= k0 + 2 * t; /* key 8i + e of this lane is masked when 8i + e > lim */
#pragma unroll
        for (int i = 0; i < C::BN / 8; i++)
#pragma unroll
            for (int e = 0; e < 2; e++)
                if (8 * i + e > lim) s[4 * i + 2 * r + e] = -INFINITY;
    }
}

/* The mask of key tile kt0 + j for this lane's rows, if the tile needs one (j >= jm: jm is the
 * warpgroup's first_masked_tile - kt0; kt0 is 0 but in a segment of the split tail, whose key
 * tiles start at kt0, split.cuh). */
template <class C>
__device__ __forceinline__ void mask_tile(float (&s)[C::BN / 2], const wgmma_params &p, int j, int jm,
                                          int row_g, int t, int kt0 = 0)
{
    if (j >= jm)
        apply_mask<C>(s, (kt0 + j) * C::BN, row_g, t, p.seqlen_k, p.causal,
                      p.seqlen_k - p.seqlen_q);
}

#endif
