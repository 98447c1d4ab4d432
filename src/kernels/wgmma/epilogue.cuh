/* Epilogue of a consumer warpgroup: O = acc * v_descale / l in FP16 or BF16, straight from the
 * accumulator registers (each lane writes 2 consecutive elements per 8-column chunk; the quad
 * covers 16 contiguous bytes of a row), and the optional LSE. Rows past seqlen_q are not written;
 * a row that saw no key gets O = 0 and LSE = -inf. */
#ifndef FP8ATTN_WGMMA_EPILOGUE_CUH
#define FP8ATTN_WGMMA_EPILOGUE_CUH

#include <math.h>

#include "../common.cuh"
#include "config.cuh"

template <int N>
__device__ __forceinline__ void write_output(const wgmma_params &p, const float (&o)[N],
                                             const float (&m)[2], const float (&l)[2], int b,
                                             int hq, int hk, int row_g, int t)
{
    const float vds = load_descale(p.v_descale, b, hk);
    const bool bf16 = p.out_bf16 != 0;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float lr = l[r];
        lr += __shfl_xor_sync(0xffffffffu, lr, 1);
        lr += __shfl_xor_sync(0xffffffffu, lr, 2);
        const int row = row_g + 8 * r;
        if (row >= p.seqlen_q) continue;
        const float inv = lr > 0.0f ? vds / lr : 0.0f;
        uint16_t *orow = (uint16_t *)p.o + row_offset(p.o_stride, b, hq, row) + 2 * t;
#pragma unroll
        for (int i = 0; i < N / 4; i++)
            *reinterpret_cast<uint32_t *>(orow + 8 * i) =
                pack_out2(o[4 * i + 2 * r] * inv, o[4 * i + 2 * r + 1] * inv, bf16);
        if (p.lse && t == 0)
            p.lse[((int64_t)b * p.h_q + hq) * p.seqlen_q + row] =
                lr > 0.0f ? FP8ATTN_LN2 * (m[r] + log2f(lr) - 8.0f) : -INFINITY;
    }
}

#endif
