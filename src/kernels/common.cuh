/* Device helpers shared by the kernel families: descale lookup, output conversion, row offsets. */
#ifndef FP8ATTN_KERNELS_COMMON_CUH
#define FP8ATTN_KERNELS_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "fp8attn.h"

/* log2(e): softmax runs in base 2 with the scale and descales folded into one multiplier. */
#define FP8ATTN_LOG2E 1.4426950408889634f
#define FP8ATTN_LN2 0.6931471805599453f

__device__ __forceinline__ float load_descale(const fp8attn_descale_t &d, int b, int h)
{
    return d.ptr[(int64_t)b * d.batch_stride + (int64_t)h * d.head_stride];
}

__host__ __device__ __forceinline__ int64_t row_offset(const fp8attn_strides_t &s, int b, int h,
                                                      int64_t t)
{
    return (int64_t)b * s.batch + (int64_t)h * s.head + t * s.token;
}

/* Two floats to two output elements (FP16 or BF16 bits), round to nearest even. */
__device__ __forceinline__ uint32_t pack_out2(float x0, float x1, bool bf16)
{
    if (bf16) {
        __nv_bfloat162 v = __floats2bfloat162_rn(x0, x1);
        return *reinterpret_cast<uint32_t *>(&v);
    }
    __half2 v = __floats2half2_rn(x0, x1);
    return *reinterpret_cast<uint32_t *>(&v);
}

#endif
