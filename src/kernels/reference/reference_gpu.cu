/* Variant "reference-gpu": the simplest correct GPU kernel, the GREEN baseline.
 * One warp per query row; each lane owns head_dim/32 consecutive dimensions. Scores are fp32 dot
 * products reduced across the warp, softmax is online in fp32 (natural exp), P is not quantized.
 * No tensor cores, no shared memory, no cp.async. Both E4M3 and E5M2 inputs. */
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>

#include "../../internal.h"
#include "../common.cuh"
#include "../kernels.h"

#define REF_WARPS 4

__device__ __forceinline__ float decode_fp8(uint8_t code, bool e5m2)
{
    __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, e5m2 ? __NV_E5M2 : __NV_E4M3);
    return __half2float(__half(h));
}

__device__ __forceinline__ float warp_sum(float x)
{
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

template <int D>
__device__ __forceinline__ void reference_row(const fp8attn_params_t &p, float scale)
{
    constexpr int DPL = D / 32; /* dimensions per lane */
    const int lane = threadIdx.x % 32;
    const int64_t n_rows = (int64_t)p.seqlen_q;
    const int64_t gw = (int64_t)blockIdx.x * REF_WARPS + threadIdx.x / 32;
    const int64_t row = gw % n_rows;
    const int hq = (int)((gw / n_rows) % p.h_q);
    const int b = (int)(gw / (n_rows * p.h_q));
    if (b >= p.batch) return;
    const int hk = hq / (p.h_q / p.h_kv);
    const bool e5m2 = p.in_format == FP8ATTN_FORMAT_E5M2;

    const float qk_scale = scale * load_descale(p.q_descale, b, hq) * load_descale(p.k_descale, b, hk);
    const float v_descale = load_descale(p.v_descale, b, hk);

    float q[DPL], acc[DPL];
    const uint8_t *qrow = p.q + row_offset(p.q_stride, b, hq, row) + lane * DPL;
    for (int i = 0; i < DPL; i++) {
        q[i] = decode_fp8(qrow[i], e5m2);
        acc[i] = 0.0f;
    }
    /* keys visible to this row: j < seqlen_k, and j <= row + seqlen_k - seqlen_q when causal */
    int64_t n_keys = p.seqlen_k;
    if (p.causal) n_keys = min(n_keys, row + p.seqlen_k - p.seqlen_q + 1);

    float m = -INFINITY, l = 0.0f;
    for (int64_t j = 0; j < n_keys; j++) {
        const uint8_t *krow = p.k + row_offset(p.k_stride, b, hk, j) + lane * DPL;
        const uint8_t *vrow = p.v + row_offset(p.v_stride, b, hk, j) + lane * DPL;
        float dot = 0.0f;
        for (int i = 0; i < DPL; i++) dot += q[i] * decode_fp8(krow[i], e5m2);
        const float s = warp_sum(dot) * qk_scale;
        const float m_new = fmaxf(m, s);
        const float corr = expf(m - m_new); /* 0 on the first key (m = -inf) */
        const float e = expf(s - m_new);
        l = l * corr + e;
        for (int i = 0; i < DPL; i++) acc[i] = acc[i] * corr + e * decode_fp8(vrow[i], e5m2);
        m = m_new;
    }

    /* a row that sees no key: O = 0, LSE = -inf */
    const float inv = l > 0.0f ? v_descale / l : 0.0f;
    const bool bf16 = p.out_type == FP8ATTN_OUT_BF16;
    uint16_t *orow = (uint16_t *)p.o + row_offset(p.o_stride, b, hq, row) + lane * DPL;
    for (int i = 0; i < DPL; i += 2) {
        uint32_t two = pack_out2(acc[i] * inv, acc[i + 1] * inv, bf16);
        orow[i] = (uint16_t)(two & 0xffffu);
        orow[i + 1] = (uint16_t)(two >> 16);
    }
    if (p.lse && lane == 0)
        p.lse[((int64_t)b * p.h_q + hq) * p.seqlen_q + row] = l > 0.0f ? m + logf(l) : -INFINITY;
}

extern "C" __global__ void __launch_bounds__(REF_WARPS * 32)
    fp8attn_reference_gpu_hd64(const fp8attn_params_t p, float scale)
{
    reference_row<64>(p, scale);
}
extern "C" __global__ void __launch_bounds__(REF_WARPS * 32)
    fp8attn_reference_gpu_hd128(const fp8attn_params_t p, float scale)
{
    reference_row<128>(p, scale);
}
extern "C" __global__ void __launch_bounds__(REF_WARPS * 32)
    fp8attn_reference_gpu_hd256(const fp8attn_params_t p, float scale)
{
    reference_row<256>(p, scale);
}

static const fp8attn_kernel_entry_t k_kernels[] = {
    {"reference-gpu", "fp8attn_reference_gpu_hd64", 64, REF_WARPS * 32, 0,
     (const void *)fp8attn_reference_gpu_hd64},
    {"reference-gpu", "fp8attn_reference_gpu_hd128", 128, REF_WARPS * 32, 0,
     (const void *)fp8attn_reference_gpu_hd128},
    {"reference-gpu", "fp8attn_reference_gpu_hd256", 256, REF_WARPS * 32, 0,
     (const void *)fp8attn_reference_gpu_hd256},
};

extern "C" const fp8attn_kernel_entry_t *fp8attn_reference_gpu_kernel(int index)
{
    const int n = (int)(sizeof k_kernels / sizeof k_kernels[0]);
    return (index >= 0 && index < n) ? &k_kernels[index] : NULL;
}

static const fp8attn_kernel_entry_t *kernel_for(int head_dim)
{
    const fp8attn_kernel_entry_t *k;
    for (int i = 0; (k = fp8attn_reference_gpu_kernel(i)) != NULL; i++)
        if (k->head_dim == head_dim) return k;
    return NULL;
}

static int64_t grid_blocks(const fp8attn_params_t *p)
{
    const int64_t rows = (int64_t)p->batch * p->h_q * p->seqlen_q;
    return (rows + REF_WARPS - 1) / REF_WARPS;
}

static fp8attn_status_t supports(const fp8attn_params_t *p, const fp8attn_device_info_t *dev)
{
    const fp8attn_kernel_entry_t *k = kernel_for(p->head_dim);
    if (!k)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "reference-gpu: head_dim = %d not compiled",
                            p->head_dim);
    if (grid_blocks(p) > 0x7fffffff)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "reference-gpu: batch*h_q*seqlen_q = %lld rows exceeds the grid limit",
                            (long long)((int64_t)p->batch * p->h_q * p->seqlen_q));
    return fp8attn_check_arch(dev, "reference-gpu");
}

static fp8attn_status_t launch(const fp8attn_params_t *p, const fp8attn_device_info_t *dev,
                               void *workspace, fp8attn_stream_t stream)
{
    const fp8attn_kernel_entry_t *k = kernel_for(p->head_dim);
    const float scale = fp8attn_effective_scale(p);
    void *args[] = {(void *)p, (void *)&scale};
    (void)dev; /* one kernel per head dim: nothing to choose */
    (void)workspace; /* no scratch */
    cudaError_t e = cudaLaunchKernel(k->func, dim3((unsigned)grid_blocks(p)), dim3(k->threads),
                                     args, 0, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "reference-gpu: launching %s: %s", k->symbol,
                            cudaGetErrorString(e));
    return FP8ATTN_OK;
}

static const fp8attn_kernel_entry_t *kernel_for_problem(const fp8attn_params_t *p,
                                                        const fp8attn_device_info_t *dev,
                                                        fp8attn_status_t *st)
{
    (void)dev;
    *st = FP8ATTN_OK;
    return kernel_for(p->head_dim);
}

extern "C" const fp8attn_variant_t fp8attn_variant_reference_gpu = {
    "reference-gpu",
    "GREEN baseline: one warp per query row, fp32 CUDA-core math, no tensor cores, E4M3/E5M2",
    0, NULL, supports, launch, kernel_for_problem};
