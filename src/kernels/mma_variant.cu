/* Variant "mma": picks the instance for the head dim (mma_hd64/128/256.cu) and says which problems
 * it runs: E4M3 inputs on devices with an sm_89 or sm_90a image of the kernel. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "../internal.h"
#include "kernels.h"

#define MMA_DECLARE(D)                                                                      \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_mma_entry_hd##D(void);                 \
    extern "C" int64_t fp8attn_mma_grid_hd##D(const fp8attn_params_t *p);                   \
    extern "C" fp8attn_status_t fp8attn_mma_launch_hd##D(const fp8attn_params_t *p,         \
                                                          fp8attn_stream_t s);
MMA_DECLARE(64)
MMA_DECLARE(128)
MMA_DECLARE(256)

typedef struct {
    const fp8attn_kernel_entry_t *(*entry)(void);
    int64_t (*grid)(const fp8attn_params_t *p);
    fp8attn_status_t (*launch)(const fp8attn_params_t *p, fp8attn_stream_t s);
} mma_instance_t;

static const mma_instance_t k_instances[] = {
    {fp8attn_mma_entry_hd64, fp8attn_mma_grid_hd64, fp8attn_mma_launch_hd64},
    {fp8attn_mma_entry_hd128, fp8attn_mma_grid_hd128, fp8attn_mma_launch_hd128},
    {fp8attn_mma_entry_hd256, fp8attn_mma_grid_hd256, fp8attn_mma_launch_hd256},
};
#define N_INSTANCES ((int)(sizeof k_instances / sizeof k_instances[0]))

extern "C" const fp8attn_kernel_entry_t *fp8attn_mma_kernel(int index)
{
    return (index >= 0 && index < N_INSTANCES) ? k_instances[index].entry() : NULL;
}

static const mma_instance_t *instance_for(int head_dim)
{
    for (int i = 0; i < N_INSTANCES; i++)
        if (k_instances[i].entry()->head_dim == head_dim) return &k_instances[i];
    return NULL;
}

static fp8attn_status_t supports(const fp8attn_params_t *p, const fp8attn_device_info_t *dev)
{
    const mma_instance_t *in = instance_for(p->head_dim);
    const fp8attn_kernel_entry_t *k;
    if (!in)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "mma: head_dim = %d not compiled",
                            p->head_dim);
    k = in->entry();
    if (p->in_format != FP8ATTN_FORMAT_E4M3)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "mma: in_format = %d: only E4M3 inputs (use reference-gpu for E5M2)",
                            (int)p->in_format);
    if (dev->cc_major * 10 + dev->cc_minor < 89)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "mma: needs FP8 tensor cores (sm_89 or newer), device is sm_%d%d",
                            dev->cc_major, dev->cc_minor);
    if ((size_t)k->dynamic_smem > dev->smem_optin)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "mma: %s needs %lld bytes of shared memory, device allows %zu",
                            k->symbol, (long long)k->dynamic_smem, dev->smem_optin);
    /* the kernel indexes keys and query rows in int32 (tile starts + tile size must not wrap) */
    if (p->seqlen_q > INT32_MAX - 256 || p->seqlen_k > INT32_MAX - 256)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "mma: params->seqlen_q = %d, params->seqlen_k = %d: each must be <= "
                            "%d for this kernel (use reference-gpu)",
                            p->seqlen_q, p->seqlen_k, INT32_MAX - 256);
    if (in->grid(p) > 0x7fffffff)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "mma: %lld blocks exceed the grid limit",
                            (long long)in->grid(p));
    return fp8attn_check_arch(dev, "mma");
}

static fp8attn_status_t launch(const fp8attn_params_t *p, fp8attn_stream_t stream)
{
    return instance_for(p->head_dim)->launch(p, stream);
}

extern "C" const fp8attn_variant_t fp8attn_variant_mma = {
    "mma",
    "FlashAttention-2 structure on mma.sync m16n8k32 E4M3 tensor cores (native sm_89, emulated "
    "sm_90), cp.async double buffering, P re-quantized to E4M3",
    10, supports, launch};
