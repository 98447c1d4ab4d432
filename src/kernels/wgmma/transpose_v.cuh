/* Producer warpgroup: V -> V^T for the P.V wgmma (three or four warps; load.cuh runs the loop).
 *
 * FP8 wgmma reads both operands K-major, and for O = P.V the contraction runs over the keys, so
 * the B operand is V^T: D rows (output dims) of BN key bytes. TMA brings V token-major (rows =
 * keys); these warps rewrite each tile as V^T (a [D][BN] K-major tile, swizzle width SW_N) and
 * hand it to the consumers on vt_full.
 *
 * The key order inside V^T is chosen so that P needs no shuffles. The consumers' S accumulator
 * gives lane (g, t) of a quad the keys {8i + 2t, 8i + 2t + 1} of each 8-key chunk i, and the A
 * operand of the RS wgmma wants logical k = 4t..4t+3 (and 16 + 4t..) of each 32-key step in one
 * register. Packing chunks (4kk, 4kk+1) and (4kk+2, 4kk+3) of S as they are makes logical k
 * 16h + 4t + e of step kk the key 32kk + 16h + 8(e/2) + 2t + e%2. V^T stores its keys in that
 * same order, so the product is unchanged and P goes from the accumulator to the A operand by
 * register renaming.
 *
 * One unit of work is 32 keys x 16 dims: ldmatrix.x4.trans reads 4 8x8 matrices of 16-bit pairs
 * (keys 32kv + 8m.., dims 16c..16c+15), which gives lane (g, t) keys {2t, 2t+1} x dims {2g, 2g+1}
 * of each; two byte permutes per output register make "dim 2g (or 2g+1), keys 2t, 2t+1, 8+2t,
 * 9+2t" = logical bytes 4t..4t+3 of V^T rows 16c + 2g (+1); stmatrix.x4 writes them (rows 16c + 2r
 * and 16c + 2r + 1, logical bytes 32kv and 32kv + 16). */
#ifndef FP8ATTN_WGMMA_TRANSPOSE_V_CUH
#define FP8ATTN_WGMMA_TRANSPOSE_V_CUH

#include "config.cuh"
#include "ptx_sm90.cuh"
#include "smem_layout.cuh"

template <class C>
__device__ __forceinline__ void transpose_tile(uint32_t v, uint32_t vt, int warp, int lane)
{
    constexpr int CH = C::D / 16; /* 16-dim chunks */
    constexpr int UNITS = (C::BN / 32) * CH;
    constexpr int WARPS = C::TRANSPOSERS / 32;
    /* stmatrix: lane gives row lane % 8 of matrix lane / 8 = (dim parity, 16-key group) */
    const int st_row = 2 * (lane & 7) + (lane >> 4), st_kb = 16 * ((lane >> 3) & 1);
    /* unrolled: the units are independent, so several ldmatrix -> prmt -> stmatrix chains are in
     * flight at once (one at a time made this loop the kernel's bottleneck: the consumers waited
     * on vt_full, docs/PERF.md w4); 4 chains fit the producer's 40 registers, 2 its 32 */
#ifdef WGMMA_TRANSPOSE_UNROLL /* A/B builds only (PERF w20) */
    constexpr int UNROLL = WGMMA_TRANSPOSE_UNROLL;
#else
    constexpr int UNROLL = C::PRODUCER_REGS >= 40 ? 4 : 2;
#endif
    constexpr int PER = (UNITS + WARPS - 1) / WARPS;
#pragma unroll UNROLL
    for (int k = 0; k < PER; k++) {
        const int u = warp + WARPS * k;
        if (UNITS % WARPS != 0 && u >= UNITS) break;
        const int kv = u / CH, c = u % CH;
        uint32_t r[4];
        ldmatrix_x4_trans(r, kmajor_addr<C::BN, C::SW_D>(v, 32 * kv + lane, 16 * c));
        const uint32_t e0 = byte_perm(r[0], r[1], 0x6420), e1 = byte_perm(r[2], r[3], 0x6420);
        const uint32_t o0 = byte_perm(r[0], r[1], 0x7531), o1 = byte_perm(r[2], r[3], 0x7531);
        stmatrix_x4(kmajor_addr<C::D, C::SW_N>(vt, 16 * c + st_row, 32 * kv + st_kb), e0, e1, o0, o1);
    }
}

#endif
