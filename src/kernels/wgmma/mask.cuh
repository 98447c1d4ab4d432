/* Masking of one S tile in the accumulator layout: keys past seqlen_k, and under the causal mask
 * (bottom-right aligned) keys past each row's diagonal, become -inf. Only tiles that need it are
 * touched (mask_tile); the others run unmasked. */
#ifndef FP8ATTN_WGMMA_MASK_CUH
#define FP8ATTN_WGMMA_MASK_CUH

#include <math.h>

/* Does the key tile [k0, k0 + BN) hold a key that one of rows [row_lo, row_lo + 64) must not see? */
template <class C>
__device__ __forceinline__ bool tile_needs_mask(int k0, int row_lo, int seqlen_k, int causal, int diag)
{
    return k0 + C::BN > seqlen_k || (causal && k0 + C::BN - 1 > row_lo + diag);
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

/* The mask of key tile [k0, k0 + BN) for this warpgroup's rows (row_lo: its first row), if the
 * tile needs one. */
template <class C>
__device__ __forceinline__ void mask_tile(float (&s)[C::BN / 2], int k0, int row_lo, int row_g,
                                          int t, int seqlen_k, int causal, int diag)
{
    if (tile_needs_mask<C>(k0, row_lo, seqlen_k, causal, diag))
        apply_mask<C>(s, k0, row_g, t, seqlen_k, causal, diag);
}

#endif
