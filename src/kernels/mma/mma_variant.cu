/* Variant "mma": says which problems it runs (E4M3 inputs on devices with an sm_89 or sm_90a image
 * of the kernel) and picks, per problem, one of the instances compiled for the head dim
 * (mma_hd<D>_m<rows>.cu). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "../../internal.h"
#include "../kernels.h"

#define MMA_DECLARE(NAME)                                                                   \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_mma_entry_##NAME(void);                \
    extern "C" const int fp8attn_mma_rows_##NAME;                                           \
    extern "C" int64_t fp8attn_mma_grid_##NAME(const fp8attn_params_t *p);                  \
    extern "C" fp8attn_status_t fp8attn_mma_launch_##NAME(const fp8attn_params_t *p,        \
                                                          fp8attn_stream_t s);
MMA_DECLARE(hd64_m64)
MMA_DECLARE(hd64_m128)
MMA_DECLARE(hd128_m64)
MMA_DECLARE(hd128_m128)
MMA_DECLARE(hd256_m64)

typedef struct {
    const fp8attn_kernel_entry_t *(*entry)(void);
    const int *rows; /* query rows per block */
    int64_t (*grid)(const fp8attn_params_t *p);
    fp8attn_status_t (*launch)(const fp8attn_params_t *p, fp8attn_stream_t s);
    /* query rows per unit time of a fully loaded SM, relative to the 64-row instance of the same
     * head dim: the whole-kernel time ratio of the two on a many-wave problem, measured on the
     * H100 (docs/PERF.md, v10: 7420/7090 us at (1,32,16384,64), 3409/3142 us at
     * (2,16,8192,128)). It already includes each one's occupancy (hd64: 3 blocks per SM of 64 rows,
     * 2 of 128 rows). */
    double speed;
} mma_instance_t;

#define MMA_INSTANCE(NAME, SPEED)                                                           \
    {fp8attn_mma_entry_##NAME, &fp8attn_mma_rows_##NAME, fp8attn_mma_grid_##NAME,           \
     fp8attn_mma_launch_##NAME, SPEED}
static const mma_instance_t k_instances[] = {
    MMA_INSTANCE(hd64_m64, 1.0),   MMA_INSTANCE(hd64_m128, 1.05), MMA_INSTANCE(hd128_m64, 1.0),
    MMA_INSTANCE(hd128_m128, 1.08), MMA_INSTANCE(hd256_m64, 1.0),
};
#define N_INSTANCES ((int)(sizeof k_instances / sizeof k_instances[0]))

extern "C" const fp8attn_kernel_entry_t *fp8attn_mma_kernel(int index)
{
    return (index >= 0 && index < N_INSTANCES) ? k_instances[index].entry() : NULL;
}

/* Blocks of instance `in` resident per SM on this device (0 if it cannot run there). The answer
 * depends only on the device and the kernel, and asking the runtime costs about 1 us per forward
 * call (measured on the H100 with bench --hot), so it is remembered per (device, instance), like
 * dispatch.c's device properties: written with atomics and idempotent (a race recomputes the
 * same value). Devices numbered past FP8ATTN_CACHED_DEVICES are asked every time. */
/* 0: not asked yet, else blocks + 1 */
static int g_blocks_per_sm[FP8ATTN_CACHED_DEVICES][N_INSTANCES];

static fp8attn_status_t blocks_per_sm(const mma_instance_t *in, const fp8attn_device_info_t *dev,
                                      const char *who, int *blocks)
{
    const fp8attn_kernel_entry_t *k = in->entry();
    const int slot = (int)(in - k_instances);
    const bool cached = dev->ordinal >= 0 && dev->ordinal < FP8ATTN_CACHED_DEVICES;
    cudaError_t e = cudaSuccess;
    if (cached) {
        const int v = __atomic_load_n(&g_blocks_per_sm[dev->ordinal][slot], __ATOMIC_RELAXED);
        if (v > 0) {
            *blocks = v - 1;
            return FP8ATTN_OK;
        }
    }
    *blocks = 0;
    if (k->dynamic_smem > 48 * 1024)
        e = cudaFuncSetAttribute(k->func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)k->dynamic_smem);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, k->func, k->threads,
                                                          (size_t)k->dynamic_smem);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "%s: occupancy of %s: %s", who, k->symbol,
                            cudaGetErrorString(e));
    if (cached)
        __atomic_store_n(&g_blocks_per_sm[dev->ordinal][slot], *blocks + 1, __ATOMIC_RELAXED);
    return FP8ATTN_OK;
}

/* The instance for this problem: among those compiled for the head dim with `rows` query rows per
 * block (0: any) that fit the device's shared memory and the grid limit, the one with the smallest
 * predicted time, waves x wave time, where waves = ceil(blocks / (blocks per SM x SMs)) and a
 * wave, blocks per SM x rows query rows on each SM, takes (blocks per SM x rows) / speed. Larger
 * blocks are faster per row but make fewer, coarser waves: on the H100, (1,8,512,128) runs in
 * 14 us with 64-row blocks and 21 us with 128-row blocks, (2,16,8192,128) in 3.41 ms and 3.14 ms.
 * With choose = false (supports(), which may be asked about a device other than the current one)
 * the first eligible instance, without asking the runtime. NULL with *st set (fp8attn_fail's
 * message) when no instance is eligible or a CUDA call failed. */
static const mma_instance_t *pick_instance(const fp8attn_params_t *p, int rows,
                                           const fp8attn_device_info_t *dev, const char *who,
                                           bool choose, fp8attn_status_t *st)
{
    const mma_instance_t *best = NULL;
    double best_time = 0.0;
    int compiled = 0, fit = 0, in_grid = 0;
    int64_t min_grid = 0;
    *st = FP8ATTN_OK;
    for (int i = 0; i < N_INSTANCES; i++) {
        const mma_instance_t *in = &k_instances[i];
        const fp8attn_kernel_entry_t *k = in->entry();
        int per_sm = 0;
        if (k->head_dim != p->head_dim || (rows && *in->rows != rows)) continue;
        compiled++;
        if ((size_t)k->dynamic_smem > dev->smem_optin) continue;
        const int64_t grid = in->grid(p);
        if (!fit++ || grid < min_grid) min_grid = grid;
        if (grid > 0x7fffffff) continue;
        in_grid++;
        if (!choose) return in;
        if ((*st = blocks_per_sm(in, dev, who, &per_sm)) != FP8ATTN_OK) return NULL;
        if (per_sm == 0) continue;
        const double slots = (double)per_sm * dev->sm_count;
        const double waves = ceil((double)grid / slots);
        const double time = waves * per_sm * (double)*in->rows / in->speed;
        if (!best || time < best_time) best = in, best_time = time;
    }
    if (best) return best;
    if (!compiled)
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "%s: head_dim = %d not compiled", who,
                           p->head_dim);
    else if (!fit)
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "%s: no head_dim = %d kernel fits this device's %zu bytes of shared "
                           "memory per block",
                           who, p->head_dim, dev->smem_optin);
    else if (!in_grid)
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "%s: %lld blocks (batch x h_q x query tiles) exceed the grid limit",
                           who, (long long)min_grid);
    else
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "%s: no head_dim = %d kernel can be resident on this device "
                           "(occupancy 0)",
                           who, p->head_dim);
    return NULL;
}

static fp8attn_status_t supports_rows(const fp8attn_params_t *p, const fp8attn_device_info_t *dev,
                                      int rows, const char *who)
{
    fp8attn_status_t st;
    if (p->in_format != FP8ATTN_FORMAT_E4M3)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "%s: in_format = %d: only E4M3 inputs (use reference-gpu for E5M2)",
                            who, (int)p->in_format);
    if (dev->cc_major * 10 + dev->cc_minor < 89)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "%s: needs FP8 tensor cores (sm_89 or newer), device is sm_%d%d", who,
                            dev->cc_major, dev->cc_minor);
    if ((st = fp8attn_check_arch(dev, who)) != FP8ATTN_OK) return st;
    /* the kernel indexes keys and query rows in int32 (tile starts + tile size must not wrap) */
    if (p->seqlen_q > INT32_MAX - 256 || p->seqlen_k > INT32_MAX - 256)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "%s: params->seqlen_q = %d, params->seqlen_k = %d: each must be <= "
                            "%d for this kernel (use reference-gpu)",
                            who, p->seqlen_q, p->seqlen_k, INT32_MAX - 256);
    return pick_instance(p, rows, dev, who, false, &st) ? FP8ATTN_OK : st;
}

static fp8attn_status_t launch_rows(const fp8attn_params_t *p, const fp8attn_device_info_t *dev,
                                    int rows, const char *who, fp8attn_stream_t stream)
{
    fp8attn_status_t st;
    const mma_instance_t *in = pick_instance(p, rows, dev, who, true, &st);
    return in ? in->launch(p, stream) : st;
}

/* "mma" picks the tile per problem; "mma-m64" and "mma-m128" force one (for tests and A/B runs:
 * every compiled kernel must be reachable by name, whatever the problem size). */
#define MMA_VARIANT(ID, NAME, ROWS, PRIORITY, DESCRIPTION)                                    \
    static fp8attn_status_t supports_##ID(const fp8attn_params_t *p,                          \
                                          const fp8attn_device_info_t *dev)                   \
    {                                                                                         \
        return supports_rows(p, dev, ROWS, NAME);                                             \
    }                                                                                         \
    static fp8attn_status_t launch_##ID(const fp8attn_params_t *p,                            \
                                        const fp8attn_device_info_t *dev, void *ws,           \
                                        fp8attn_stream_t s)                                   \
    {                                                                                         \
        (void)ws; /* no scratch */                                                            \
        return launch_rows(p, dev, ROWS, NAME, s);                                            \
    }                                                                                         \
    static const fp8attn_kernel_entry_t *kernel_##ID(const fp8attn_params_t *p,               \
                                                     const fp8attn_device_info_t *dev,        \
                                                     fp8attn_status_t *st)                    \
    {                                                                                         \
        const mma_instance_t *in = pick_instance(p, ROWS, dev, NAME, true, st);               \
        return in ? in->entry() : NULL;                                                       \
    }                                                                                         \
    extern "C" const fp8attn_variant_t fp8attn_variant_##ID = {                               \
        NAME, DESCRIPTION, PRIORITY, NULL, supports_##ID, launch_##ID, kernel_##ID};

MMA_VARIANT(mma, "mma", 0, 10,
            "FlashAttention-2 structure on mma.sync m16n8k32 E4M3 tensor cores (native sm_89, "
            "emulated sm_90), cp.async double buffering, P re-quantized to E4M3; 64- or 128-row "
            "tiles picked per problem")
MMA_VARIANT(mma_m64, "mma-m64", 64, 5, "mma with 64 query rows per block (1 row tile per warp)")
MMA_VARIANT(mma_m128, "mma-m128", 128, 5,
            "mma with 128 query rows per block (2 row tiles per warp; hd64 and hd128)")
