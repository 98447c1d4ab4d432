/* The workspace of the wgmma family's "_vt" kernels (fp8attn_forward_ws), and of a transposing
 * kernel's split tail (only its counts and slots: split_only below), and two kernels that
 * prepare it.
 *
 * Layout: V^T, [batch][h_kv][D][SKP] bytes, SKP = seqlen_k rounded up to 32, keys past seqlen_k
 * zero; then, 16-byte aligned, the counters: the dynamic walk's unit counter (scheduler.cuh), the
 * background transpose's chunk counter, 8 bytes of padding, and one ready count per (batch, kv
 * head) pair (vt_background.cuh). Inside each group of 32 keys the V^T bytes are in the permuted
 * order the consumers' P registers expect (transpose_v.cuh): byte 16h + 4t + e of group g holds
 * key 32g + 16h + 8(e / 2) + 2t + e % 2. A V^T tile of BN keys is then BN / SW_N TMA boxes of SW_N
 * key bytes x D rows, loaded like the K tiles.
 *
 * fp8attn_wgmma_vt_clear zeroes the counters before a _vt kernel that writes V^T itself
 * (C::FUSED_VT, the default since session 21: docs/PERF.md w55), and the split's counts before a
 * transposing kernel that splits (hd256's), whose workspace holds those counts and the split's
 * slots alone (no V^T: wgmma_host.h fp8attn_wgmma_ws_bytes).
 *
 * fp8attn_wgmma_vt_prepass (the V^T pass) writes V^T before a _vt kernel that does not
 * (-DWGMMA_FUSED_VT=0 builds), and zeroes the unit counter. One block per (64 keys, kv head,
 * batch): 16-byte loads of the V rows (all of a thread's loads issued before its first store)
 * into a shared [D][64] byte tile, then 16-byte stores of the permuted V^T rows. A warp's byte
 * stores go to rows 16c + j for its lanes' chunks c: rows 16 apart, which a plain [D][64 + 4]
 * layout puts in two banks (8-way conflicts at hd256). Each row is therefore rotated by 4 (d / 16)
 * bytes (tile_col), which gives the chunks of a warp distinct banks (docs/PERF.md w43); rows stay
 * padded to 68 bytes for the reads. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "../../internal.h"
#include "../kernels.h"
#include "ptx_sm90.cuh"
#include "wgmma_host.h"

#define VTP_KEYS 64
#define VTP_ROW (VTP_KEYS + 4)
#define VTP_THREADS 256
#define VTP_MAX_LOADS (VTP_KEYS * 256 / 16 / VTP_THREADS) /* 16-byte loads per thread at D = 256 */

/* The byte of key column x (0..63) of row d in the tile: rotated by 4 (d / 16) bytes. */
__device__ __forceinline__ int tile_col(int d, int x)
{
    return d * VTP_ROW + ((x + 4 * (d >> 4)) & (VTP_KEYS - 1));
}

struct vt_prepass_args {
    const uint8_t *v;
    uint8_t *vt;
    int64_t vs_b, vs_h, vs_s; /* V strides, bytes */
    int32_t seqlen_k, skp, h_kv, d;
    int32_t *tile_counter; /* the dynamic walk's (wgmma_host.h): zeroed by block 0 */
};

extern "C" __global__ void __launch_bounds__(VTP_THREADS) fp8attn_wgmma_vt_prepass(vt_prepass_args a)
{
    __shared__ __align__(16) uint8_t tile[256 * VTP_ROW]; /* [d][key], d < 256 */
    const int key0 = blockIdx.x * VTP_KEYS, h = blockIdx.y, b = blockIdx.z;
    if ((blockIdx.x | blockIdx.y | blockIdx.z | threadIdx.x) == 0) *a.tile_counter = 0;
    griddep_launch_dependents(); /* the _vt kernel may start (it waits for this grid to finish) */
    const int cpr = a.d / 16; /* 16-byte chunks per V row */
    const int n = VTP_KEYS * cpr / VTP_THREADS; /* this thread's loads: 1, 2 or 4 */
    const uint8_t *v = a.v + (int64_t)b * a.vs_b + (int64_t)h * a.vs_h;
    uint4 w[VTP_MAX_LOADS];
#pragma unroll
    for (int u = 0; u < VTP_MAX_LOADS; u++) {
        const int i = threadIdx.x + u * VTP_THREADS, k = i / cpr, c = i % cpr, key = key0 + k;
        w[u] = make_uint4(0, 0, 0, 0);
        if (u < n && key < a.seqlen_k) w[u] = __ldg((const uint4 *)(v + (int64_t)key * a.vs_s) + c);
    }
#pragma unroll
    for (int u = 0; u < VTP_MAX_LOADS; u++) {
        if (u >= n) break;
        const int i = threadIdx.x + u * VTP_THREADS, k = i / cpr, c = i % cpr;
        const uint32_t ws[4] = {w[u].x, w[u].y, w[u].z, w[u].w};
#pragma unroll
        for (int j = 0; j < 16; j++) tile[tile_col(16 * c + j, k)] = (uint8_t)(ws[j / 4] >> (8 * (j % 4)));
    }
    __syncthreads();
    /* output: D rows x 64 key bytes = 4 chunks of 16 bytes per row; chunk q covers group q / 2,
     * half h = q % 2; its word t holds keys 16h + 2t, +1, +8, +9 of the group */
    uint8_t *vt = a.vt + (((int64_t)b * a.h_kv + h) * a.d) * a.skp;
    for (int i = threadIdx.x; i < a.d * 4; i += VTP_THREADS) {
        const int d = i / 4, q = i % 4;
        if (key0 + 16 * q >= a.skp) continue;
        const int x = 32 * (q / 2) + 16 * (q % 2); /* the chunk's first key column */
        uint32_t o[4];
#pragma unroll
        for (int t = 0; t < 4; t++) { /* 2-byte reads: the rotation is even, so none wraps */
            const uint32_t lo = *(const uint16_t *)(tile + tile_col(d, x + 2 * t)),
                           hi = *(const uint16_t *)(tile + tile_col(d, x + 8 + 2 * t));
            o[t] = lo | (hi << 16);
        }
        *(uint4 *)(vt + (int64_t)d * a.skp + key0 + 16 * q) = make_uint4(o[0], o[1], o[2], o[3]);
    }
}

extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_vt_prepass(void)
{
    static const fp8attn_kernel_entry_t e = {"wgmma", "fp8attn_wgmma_vt_prepass", 0, VTP_THREADS, 0,
                                             (const void *)fp8attn_wgmma_vt_prepass};
    return &e;
}

int64_t fp8attn_wgmma_vt_skp(const fp8attn_params_t *p)
{
    return ((int64_t)p->seqlen_k + 31) / 32 * 32;
}

size_t fp8attn_wgmma_vt_bytes(const fp8attn_params_t *p)
{
    return (size_t)p->batch * (size_t)p->h_kv * (size_t)p->head_dim * (size_t)fp8attn_wgmma_vt_skp(p);
}

/* The tile counter's offset in the workspace: V^T's bytes rounded up to 16. */
static size_t counter_offset(const fp8attn_params_t *p)
{
    return (fp8attn_wgmma_vt_bytes(p) + 15) / 16 * 16;
}

/* The split tail's counts: one per split tile and consumer warp (none without a split). */
static size_t split_counts(const fp8attn_wgmma_split_t *s)
{
    return s && s->tiles > 0 ? (size_t)s->tiles * (size_t)s->warps : 0;
}

/* The counters after it: unit counter, chunk counter, padding, then the ready counts and the
 * split tail's counts. */
static size_t counters_bytes(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s)
{
    return 16 + (((size_t)p->batch * (size_t)p->h_kv + split_counts(s)) * 4 + 15) / 16 * 16;
}

/* Whether s is a split of the transposing kernel, whose workspace holds only its counts (at 0)
 * and slots. */
static bool split_only(const fp8attn_wgmma_split_t *s)
{
    return s && s->tiles > 0 && s->tr;
}

/* The split tail's slots: after the counters, 256-byte aligned. */
static size_t split_part_offset(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s)
{
    if (split_only(s)) return (split_counts(s) * 4 + 255) / 256 * 256;
    return (counter_offset(p) + counters_bytes(p, s) + 255) / 256 * 256;
}

static size_t split_part_bytes(const fp8attn_wgmma_split_t *s)
{
    if (!s || s->tiles <= 0) return 0;
    return 2 * (size_t)s->grid * (size_t)s->warps * (size_t)FP8ATTN_WGMMA_SPLIT_WARP_BYTES(s->d);
}

size_t fp8attn_wgmma_ws_bytes(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s)
{
    if (split_part_bytes(s)) return split_part_offset(p, s) + split_part_bytes(s);
    return counter_offset(p) + counters_bytes(p, s);
}

int32_t *fp8attn_wgmma_tile_counter(const fp8attn_params_t *p, void *ws)
{
    return (int32_t *)((uint8_t *)ws + counter_offset(p));
}

int32_t *fp8attn_wgmma_vt_chunk_counter(const fp8attn_params_t *p, void *ws)
{
    return fp8attn_wgmma_tile_counter(p, ws) + 1;
}

int32_t *fp8attn_wgmma_vt_ready(const fp8attn_params_t *p, void *ws)
{
    return fp8attn_wgmma_tile_counter(p, ws) + 4;
}

int32_t *fp8attn_wgmma_split_count(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s,
                                   void *ws)
{
    if (split_only(s)) return (int32_t *)ws;
    return fp8attn_wgmma_vt_ready(p, ws) + (size_t)p->batch * (size_t)p->h_kv;
}

float *fp8attn_wgmma_split_part(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s, void *ws)
{
    return (float *)((uint8_t *)ws + split_part_offset(p, s));
}

/* Zeroes the workspace's counters (n words) for the FUSED_VT kernel that follows it, which is
 * launched as its programmatic dependent: that kernel's blocks start and set up their barriers
 * while this one runs, and wait for it (griddepcontrol.wait) before they touch the counters. Or
 * a transposing kernel's split counts, for that kernel, which follows in stream order. One
 * block. */
extern "C" __global__ void __launch_bounds__(128) fp8attn_wgmma_vt_clear(int32_t *counters, int n)
{
    griddep_launch_dependents();
    for (int i = threadIdx.x; i < n; i += blockDim.x) counters[i] = 0;
}

extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_vt_clear(void)
{
    static const fp8attn_kernel_entry_t e = {"wgmma", "fp8attn_wgmma_vt_clear", 0, 128, 0,
                                             (const void *)fp8attn_wgmma_vt_clear};
    return &e;
}

fp8attn_status_t fp8attn_wgmma_vt_counters_clear(const fp8attn_params_t *p,
                                                 const fp8attn_wgmma_split_t *s, void *ws,
                                                 fp8attn_stream_t stream)
{
    /* a split alone: its counts, where fp8attn_wgmma_split_count puts them */
    int32_t *counters =
        split_only(s) ? fp8attn_wgmma_split_count(p, s, ws) : fp8attn_wgmma_tile_counter(p, ws);
    /* < 2^31: batch * h_kv <= V's bytes / 64, and the caller gave a workspace that holds V^T
     * (a split alone: no V^T, its counts only); the split counts are fewer than the grid's
     * blocks x 12 */
    int n = (int)(split_only(s) ? split_counts(s) : counters_bytes(p, s) / 4);
    void *args[] = {(void *)&counters, (void *)&n};
    const cudaError_t e = cudaLaunchKernel((const void *)fp8attn_wgmma_vt_clear, dim3(1), dim3(128),
                                           args, 0, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "wgmma: launching fp8attn_wgmma_vt_clear: %s",
                            cudaGetErrorString(e));
    return FP8ATTN_OK;
}

fp8attn_status_t fp8attn_wgmma_vt_prepass_launch(const fp8attn_params_t *p, void *workspace,
                                                 fp8attn_stream_t stream)
{
    vt_prepass_args a;
    a.v = p->v;
    a.vt = (uint8_t *)workspace;
    a.vs_b = p->v_stride.batch;
    a.vs_h = p->v_stride.head;
    a.vs_s = p->v_stride.token;
    a.seqlen_k = p->seqlen_k;
    a.skp = (int32_t)fp8attn_wgmma_vt_skp(p);
    a.h_kv = p->h_kv;
    a.d = p->head_dim;
    a.tile_counter = fp8attn_wgmma_tile_counter(p, workspace);
    const dim3 grid((unsigned)((p->seqlen_k + VTP_KEYS - 1) / VTP_KEYS), (unsigned)p->h_kv,
                    (unsigned)p->batch);
    void *args[] = {(void *)&a};
    cudaError_t e = cudaLaunchKernel((const void *)fp8attn_wgmma_vt_prepass, grid, dim3(VTP_THREADS),
                                     args, 0, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "wgmma: launching fp8attn_wgmma_vt_prepass: %s",
                            cudaGetErrorString(e));
    return FP8ATTN_OK;
}
