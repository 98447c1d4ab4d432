/* The consumers' two GEMMs on one key tile, as wgmma batches (issued, not waited for: the caller
 * commits and waits, so the softmax can run while the tensor cores work).
 *   S  = Q_c . K_j^T   SS: A = this warpgroup's 64 rows of Q, B = the K tile; m64n{BN}k32 steps
 *   O += P . V_j       RS: A = P from registers (E4M3), B = the V^T tile; m64n{D}k32 steps */
#ifndef FP8ATTN_WGMMA_GEMM_CUH
#define FP8ATTN_WGMMA_GEMM_CUH

#include "config.cuh"
#include "smem_layout.cuh"
#include "wgmma_ops.cuh"

/* S(64 x BN) = Q rows [64c, 64c + 64) x K^T, accumulator overwritten (scale_d 0 on step 0). */
template <class C>
__device__ __forceinline__ void issue_qk(float (&s)[C::BN / 2], uint32_t q, uint32_t k, int c)
{
#pragma unroll
    for (int kk = 0; kk < C::D / 32; kk++)
        wgmma_ss(s, kmajor_desc<C::BM, C::SW_D>(q, 64 * c, 32 * kk),
                 kmajor_desc<C::BN, C::SW_D>(k, 0, 32 * kk), kk > 0);
}

/* O(64 x D) += P(64 x BN) x V^T(D x BN)^T, P as BN/32 A fragments of 4 registers. */
template <class C>
__device__ __forceinline__ void issue_pv(float (&o)[C::D / 2], const uint32_t (&pa)[C::BN / 32][4],
                                         uint32_t vt)
{
#pragma unroll
    for (int kk = 0; kk < C::BN / 32; kk++)
        wgmma_rs(o, pa[kk], kmajor_desc<C::D, C::SW_N>(vt, 0, 32 * kk), 1);
}

#endif
