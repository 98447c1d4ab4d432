/* GPU quantization: F32/F16/BF16 [batch, heads, seqlen, head_dim] views to FP8 E4M3 codes, with
 * given descales or dynamic ones (the amax of each group reduced on the GPU first).
 *
 * Work is cut into chunks of V elements of one row (V = 16 on the vector path: 16-byte loads and
 * one 16-byte store of codes per chunk; V = 1 otherwise). Each thread takes QUANT_UNROLL chunks
 * per round, grid-stride.
 * Chunk c is (row, k) = (c / chunks_per_row, c % chunks_per_row) and row is (b, h, s) in
 * row-major order; the divisions use multiply-shift constants made at launch.
 *
 * Dynamic descales take three stream-ordered steps: the workspace (one uint32 per group) is
 * zeroed, fp8attn_quant_amax_* reduces max |x| of each group into it (the bits of a non-negative
 * float order like the float; inf and NaN become a NaN pattern above every finite value), and
 * fp8attn_quant_dyn_* turns each group's amax into its descale (quant_math.cuh), writes it once
 * (by the thread of the group's first chunk) and encodes. Codes: x / descale correctly rounded in
 * fp32 (quant_math.cuh), then cvt.rn.satfinite.e4m3x2.f32 (round to nearest even, +-inf and
 * finite overflow to +-448); a NaN input gets 0x7F | its sign, as the host codec gives. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "internal.h"
#include "kernels/fastdiv.h"
#include "kernels/kernels.h"
#include "kernels/quant/quant.h"
#include "quant_math.cuh"

#define QUANT_THREADS 256
#define QUANT_BLOCKS_PER_SM 8
#define QUANT_VEC 16
#ifndef QUANT_UNROLL
#define QUANT_UNROLL 2 /* chunks per thread per round (quant_body; 1 and 4 measured slower, docs/PERF.md) */
#endif
#define E4M3_MAX 448.0f

/* Kernel arguments; strides in elements. */
struct quant_args {
    const void *x;
    uint8_t *out;
    int64_t xs_b, xs_h, xs_s;
    int64_t os_b, os_h, os_s;
    const float *descale; /* given */
    int64_t ds_b, ds_h;
    uint32_t *amax;       /* dynamic: workspace, one per group */
    float *descale_out;   /* dynamic */
    int gran;
    uint32_t n_chunks, heads, seqlen, cpr;
    fp8attn_fastdiv_t div_cpr, div_s, div_h;
};

struct chunk_pos {
    uint32_t b, h, s, k, bh;
};

__device__ __forceinline__ chunk_pos locate(const quant_args &a, uint32_t c)
{
    chunk_pos p;
    uint32_t row = fp8attn_fastdiv(c, a.div_cpr);
    p.k = c - row * a.cpr;
    p.bh = fp8attn_fastdiv(row, a.div_s);
    p.s = row - p.bh * a.seqlen;
    p.b = fp8attn_fastdiv(p.bh, a.div_h);
    p.h = p.bh - p.b * a.heads;
    return p;
}

__device__ __forceinline__ uint32_t group_of(const quant_args &a, const chunk_pos &p)
{
    return a.gran == FP8ATTN_SCALE_PER_TENSOR ? 0u : a.gran == FP8ATTN_SCALE_PER_HEAD ? p.h : p.bh;
}

/* The raw words of V elements: 16-byte loads on the vector path (4 words per 4 F32 or 8 16-bit
 * elements), one element in the low bits of r[0] on the scalar path. */
template <int TYPE, int V>
struct raw_chunk {
    static constexpr int WORDS = V == 1 ? 1 : V * (TYPE == FP8ATTN_SRC_F32 ? 4 : 2) / 4;
    uint32_t r[WORDS];
};

/* V elements of row (b, h, s) from element k*V on, as they are in memory. */
template <int TYPE, int V>
__device__ __forceinline__ void load_raw(const quant_args &a, const chunk_pos &p, raw_chunk<TYPE, V> &x)
{
    const int64_t off = (int64_t)p.b * a.xs_b + (int64_t)p.h * a.xs_h + (int64_t)p.s * a.xs_s +
                        (int64_t)p.k * V;
    const int es = TYPE == FP8ATTN_SRC_F32 ? 4 : 2;
    const uint8_t *src = (const uint8_t *)a.x + off * es;
    if constexpr (V == QUANT_VEC) {
#pragma unroll
        for (int i = 0; i < raw_chunk<TYPE, V>::WORDS / 4; i++) {
            const uint4 w = __ldg((const uint4 *)src + i);
            x.r[4 * i] = w.x;
            x.r[4 * i + 1] = w.y;
            x.r[4 * i + 2] = w.z;
            x.r[4 * i + 3] = w.w;
        }
    } else if constexpr (TYPE == FP8ATTN_SRC_F32) {
        x.r[0] = __ldg((const uint32_t *)src);
    } else {
        x.r[0] = __ldg((const unsigned short *)src);
    }
}

/* 16-bit element i of a raw chunk */
template <int TYPE, int V>
__device__ __forceinline__ uint32_t raw_half(const raw_chunk<TYPE, V> &x, int i)
{
    return V == 1 ? x.r[0] & 0xFFFFu : (x.r[i / 2] >> (16 * (i % 2))) & 0xFFFFu;
}

/* The raw words as fp32 bits, one per element. Numbers convert exactly (FP16 subnormals are
 * normal in fp32); an FP16 NaN stays a NaN but may lose its sign, which encode_chunk takes from
 * the raw bits instead. */
template <int TYPE, int V>
__device__ __forceinline__ void unpack_raw(const raw_chunk<TYPE, V> &x, uint32_t (&f)[V])
{
#pragma unroll
    for (int i = 0; i < V; i++) {
        if constexpr (TYPE == FP8ATTN_SRC_F32) f[i] = x.r[i];
        else if constexpr (TYPE == FP8ATTN_SRC_BF16) f[i] = raw_half(x, i) << 16;
        else f[i] = __float_as_uint(__half2float(__ushort_as_half((unsigned short)raw_half(x, i))));
    }
}

/* Sign bit (0x80) of element i's E4M3 code when it is NaN: the input's own sign. */
template <int TYPE, int V>
__device__ __forceinline__ uint32_t nan_sign(const raw_chunk<TYPE, V> &x, const uint32_t (&f)[V], int i)
{
    if constexpr (TYPE == FP8ATTN_SRC_F16) return (raw_half(x, i) >> 8) & 0x80u;
    else return (f[i] >> 24) & 0x80u;
}

template <int TYPE, int V>
__device__ __forceinline__ void load_chunk(const quant_args &a, const chunk_pos &p, uint32_t (&f)[V])
{
    raw_chunk<TYPE, V> x;
    load_raw<TYPE, V>(a, p, x);
    unpack_raw<TYPE, V>(x, f);
}

/* cvt.rn.satfinite.e4m3x2.f32: hi to the upper byte, lo to the lower (PTX ISA, "cvt"; sm_89+). */
__device__ __forceinline__ uint32_t cvt_e4m3x2(float hi, float lo)
{
    unsigned short r;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
    return r;
}

/* Divisor and NaN code of one descale. */
struct descale_state {
    float ds;
    qm_divisor_t dv;
    uint32_t nan_code; /* code for every non-NaN x when the descale is NaN (0x7F | its sign) */
    bool ds_nan;
};

__device__ __forceinline__ descale_state make_state(float ds)
{
    descale_state st;
    uint32_t u = __float_as_uint(ds);
    st.ds = ds;
    st.dv = qm_divisor_make(ds);
    st.ds_nan = (u & 0x7FFFFFFFu) > QM_INF_BITS;
    st.nan_code = 0x7Fu | ((u >> 24) & 0x80u);
    return st;
}

/* Codes of element pairs into w, with the same quotient for all: FAST takes the reciprocal path
 * (qm_quotient_fast), otherwise the IEEE division. One test of the divisor per chunk keeps the
 * per-element code free of branches. */
template <bool FAST, int V>
__device__ __forceinline__ void encode_pairs(const uint32_t (&f)[V], const qm_divisor_t &dv,
                                             uint32_t (&w)[(V + 3) / 4])
{
#pragma unroll
    for (int i = 0; i < (V + 3) / 4; i++) w[i] = 0;
#pragma unroll
    for (int i = 0; i < V; i += 2) {
        const float x0 = __uint_as_float(f[i]);
        const float q0 = FAST ? qm_quotient_fast(x0, dv) : qm_div(x0, dv.d);
        float q1 = 0.0f;
        if (i + 1 < V) {
            const float x1 = __uint_as_float(f[i + 1]);
            q1 = FAST ? qm_quotient_fast(x1, dv) : qm_div(x1, dv.d);
        }
        w[i / 4] |= (cvt_e4m3x2(q1, q0) & (i + 1 < V ? 0xFFFFu : 0xFFu)) << (8 * (i % 4));
    }
}

/* Codes of V elements into V / 4 words (V = 16) or the low byte of w[0] (V = 1). */
template <int TYPE, int V>
__device__ __forceinline__ void encode_chunk(const raw_chunk<TYPE, V> &x, const uint32_t (&f)[V],
                                             const descale_state &st, uint32_t (&w)[(V + 3) / 4])
{
    uint32_t mx = 0;
    if (st.dv.fast) encode_pairs<true, V>(f, st.dv, w);
    else encode_pairs<false, V>(f, st.dv, w);
#pragma unroll
    for (int i = 0; i < V; i++) mx = max(mx, f[i] & 0x7FFFFFFFu);
    if (mx > QM_INF_BITS || st.ds_nan) { /* rare: NaN codes as the host codec makes them */
#pragma unroll
        for (int i = 0; i < V; i++) {
            uint32_t code = (w[i / 4] >> (8 * (i % 4))) & 0xFFu;
            if ((f[i] & 0x7FFFFFFFu) > QM_INF_BITS) code = 0x7Fu | nan_sign(x, f, i);
            else if (st.ds_nan) code = st.nan_code;
            w[i / 4] = (w[i / 4] & ~(0xFFu << (8 * (i % 4)))) | (code << (8 * (i % 4)));
        }
    }
}

template <int V>
__device__ __forceinline__ void store_chunk(const quant_args &a, const chunk_pos &p,
                                            const uint32_t (&w)[(V + 3) / 4])
{
    uint8_t *o = a.out + (int64_t)p.b * a.os_b + (int64_t)p.h * a.os_h + (int64_t)p.s * a.os_s +
                 (int64_t)p.k * V;
    if constexpr (V == QUANT_VEC) *(uint4 *)o = make_uint4(w[0], w[1], w[2], w[3]);
    else *o = (uint8_t)w[0];
}

/* Descale state of the group of chunk p, refreshed only when the group changes (given: the
 * descale's bits are the key; dynamic: the group index, and the group's first chunk writes the
 * descale once). */
template <bool DYN>
__device__ __forceinline__ void state_for(const quant_args &a, const chunk_pos &p, descale_state &st,
                                          uint32_t &key, bool &have)
{
    if (DYN) {
        const uint32_t g = group_of(a, p);
        if (!have || g != key) {
            st = make_state(qm_descale_of(a.amax[g], E4M3_MAX));
            key = g;
            have = true;
        }
        if (p.k == 0 && p.s == 0 && (a.gran == FP8ATTN_SCALE_PER_BATCH_HEAD || p.b == 0) &&
            (a.gran != FP8ATTN_SCALE_PER_TENSOR || p.h == 0))
            a.descale_out[g] = st.ds;
    } else {
        const float ds = __ldg(a.descale + (int64_t)p.b * a.ds_b + (int64_t)p.h * a.ds_h);
        if (!have || __float_as_uint(ds) != key) {
            st = make_state(ds);
            key = __float_as_uint(ds);
            have = true;
        }
    }
}

/* Each thread takes QUANT_UNROLL chunks per round, T apart (T = threads in the grid, so a warp's
 * accesses stay contiguous), and issues all their loads before encoding any of them: the loads
 * cannot pass a store to memory that might alias, so one chunk per round left a thread with one
 * chunk's bytes in flight. */
template <int TYPE, int V, bool DYN>
__device__ __forceinline__ void quant_body(const quant_args &a)
{
    const uint64_t T = (uint64_t)gridDim.x * blockDim.x;
    descale_state st;
    uint32_t key = 0;
    bool have = false;
    for (uint64_t c0 = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; c0 < a.n_chunks;
         c0 += T * QUANT_UNROLL) {
        chunk_pos p[QUANT_UNROLL];
        raw_chunk<TYPE, V> x[QUANT_UNROLL];
#pragma unroll
        for (int u = 0; u < QUANT_UNROLL; u++) {
            /* past the end: load the last chunk again (no branch around the load), store nothing */
            const uint64_t c = c0 + u * T;
            p[u] = locate(a, (uint32_t)(c < a.n_chunks ? c : a.n_chunks - 1));
            load_raw<TYPE, V>(a, p[u], x[u]);
        }
#pragma unroll
        for (int u = 0; u < QUANT_UNROLL; u++) {
            if (c0 + u * T < a.n_chunks) {
                uint32_t f[V], w[(V + 3) / 4];
                unpack_raw<TYPE, V>(x[u], f);
                state_for<DYN>(a, p[u], st, key, have);
                encode_chunk<TYPE, V>(x[u], f, st, w);
                store_chunk<V>(a, p[u], w);
            }
        }
    }
}

/* max |x| over a group, as bits, into a.amax[group]: see the file comment. Tiles of blockDim
 * consecutive chunks; a tile inside one group (always, per tensor; otherwise when it lies in one
 * (b, h) slab) is reduced by the block into one atomic per block and group, others per chunk. */
__device__ __forceinline__ void block_flush(uint32_t v, uint32_t *target, uint32_t *smem)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = __reduce_max_sync(0xFFFFFFFFu, v);
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? smem[lane] : 0u;
        v = __reduce_max_sync(0xFFFFFFFFu, v);
        if (lane == 0 && v != 0) atomicMax(target, v);
    }
    __syncthreads();
}

template <int TYPE, int V>
__device__ __forceinline__ void amax_body(const quant_args &a)
{
    __shared__ uint32_t smem[32];
    const uint64_t tile_stride = (uint64_t)gridDim.x * blockDim.x;
    uint32_t acc = 0, acc_group = 0;
    bool have = false; /* block-uniform */
    for (uint64_t t0 = (uint64_t)blockIdx.x * blockDim.x; t0 < a.n_chunks; t0 += tile_stride) {
        const uint64_t c = t0 + threadIdx.x;
        const uint64_t end = t0 + blockDim.x, last = (end < a.n_chunks ? end : a.n_chunks) - 1;
        const chunk_pos first_p = locate(a, (uint32_t)t0), last_p = locate(a, (uint32_t)last);
        const bool uniform = a.gran == FP8ATTN_SCALE_PER_TENSOR || first_p.bh == last_p.bh;
        uint32_t m = 0, g = 0;
        if (c < a.n_chunks) {
            const chunk_pos p = locate(a, (uint32_t)c);
            uint32_t f[V];
            load_chunk<TYPE, V>(a, p, f);
#pragma unroll
            for (int i = 0; i < V; i++) m = max(m, f[i] & 0x7FFFFFFFu);
            if (m > QM_INF_BITS - 1u) m = QM_NAN_BITS; /* inf or NaN: above every finite value */
            g = group_of(a, p);
        }
        if (uniform) {
            const uint32_t tg = group_of(a, first_p);
            if (have && tg != acc_group) {
                block_flush(acc, &a.amax[acc_group], smem);
                acc = 0;
            }
            acc_group = tg;
            have = true;
            acc = max(acc, m);
        } else if (m != 0) {
            atomicMax(&a.amax[g], m);
        }
    }
    if (have) block_flush(acc, &a.amax[acc_group], smem);
}

/* ---- the kernels: plain extern "C" names (cuobjdump, fp8attn resources) ---- */
#define QUANT_KERNELS(NAME, TYPE)                                                                  \
    extern "C" __global__ void __launch_bounds__(QUANT_THREADS)                                    \
        fp8attn_quant_##NAME##_v16(quant_args a) { quant_body<TYPE, QUANT_VEC, false>(a); }        \
    extern "C" __global__ void __launch_bounds__(QUANT_THREADS)                                    \
        fp8attn_quant_##NAME##_v1(quant_args a) { quant_body<TYPE, 1, false>(a); }                 \
    extern "C" __global__ void __launch_bounds__(QUANT_THREADS)                                    \
        fp8attn_quant_dyn_##NAME##_v16(quant_args a) { quant_body<TYPE, QUANT_VEC, true>(a); }     \
    extern "C" __global__ void __launch_bounds__(QUANT_THREADS)                                    \
        fp8attn_quant_dyn_##NAME##_v1(quant_args a) { quant_body<TYPE, 1, true>(a); }              \
    extern "C" __global__ void __launch_bounds__(QUANT_THREADS)                                    \
        fp8attn_quant_amax_##NAME##_v16(quant_args a) { amax_body<TYPE, QUANT_VEC>(a); }           \
    extern "C" __global__ void __launch_bounds__(QUANT_THREADS)                                    \
        fp8attn_quant_amax_##NAME##_v1(quant_args a) { amax_body<TYPE, 1>(a); }

QUANT_KERNELS(f32, FP8ATTN_SRC_F32)
QUANT_KERNELS(f16, FP8ATTN_SRC_F16)
QUANT_KERNELS(bf16, FP8ATTN_SRC_BF16)

typedef void (*quant_kernel_t)(quant_args);

/* [type][vector][kind: 0 given, 1 dynamic, 2 amax] */
static const quant_kernel_t k_kernels[3][2][3] = {
    {{fp8attn_quant_f32_v1, fp8attn_quant_dyn_f32_v1, fp8attn_quant_amax_f32_v1},
     {fp8attn_quant_f32_v16, fp8attn_quant_dyn_f32_v16, fp8attn_quant_amax_f32_v16}},
    {{fp8attn_quant_f16_v1, fp8attn_quant_dyn_f16_v1, fp8attn_quant_amax_f16_v1},
     {fp8attn_quant_f16_v16, fp8attn_quant_dyn_f16_v16, fp8attn_quant_amax_f16_v16}},
    {{fp8attn_quant_bf16_v1, fp8attn_quant_dyn_bf16_v1, fp8attn_quant_amax_bf16_v1},
     {fp8attn_quant_bf16_v16, fp8attn_quant_dyn_bf16_v16, fp8attn_quant_amax_bf16_v16}},
};

/* ---- launch ---- */

/* The vector path needs 16-byte aligned loads and stores for every chunk. */
static int vector_ok(const fp8attn_quant_params_t *p, int64_t elem_bytes)
{
    const fp8attn_tensor_view_t *x = &p->x;
    const int64_t xs[3] = {x->stride.batch, x->stride.head, x->stride.token};
    const int64_t os[3] = {p->out_stride.batch, p->out_stride.head, p->out_stride.token};
    const int64_t ext[3] = {x->batch, x->heads, x->seqlen};
    int i;
    if (x->head_dim % QUANT_VEC != 0 || (uintptr_t)x->data % 16 != 0 || (uintptr_t)p->out % 16 != 0)
        return 0;
    for (i = 0; i < 3; i++)
        if (ext[i] > 1 && ((xs[i] * elem_bytes) % 16 != 0 || os[i] % 16 != 0)) return 0;
    return 1;
}

static fp8attn_status_t launch(quant_kernel_t k, const quant_args &a, int sm_count, cudaStream_t s,
                               const char *what)
{
    uint64_t blocks = ((uint64_t)a.n_chunks + QUANT_THREADS - 1) / QUANT_THREADS;
    const uint64_t cap = (uint64_t)sm_count * QUANT_BLOCKS_PER_SM;
    void *args[] = {(void *)&a};
    cudaError_t e;
    if (blocks > cap) blocks = cap;
    e = cudaLaunchKernel((const void *)k, dim3((unsigned)blocks), dim3(QUANT_THREADS), args, 0, s);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "fp8attn_quantize_gpu: launching the %s kernel: %s",
                            what, cudaGetErrorString(e));
    return FP8ATTN_OK;
}

extern "C" fp8attn_status_t fp8attn_quant_launch(const fp8attn_quant_params_t *p,
                                                 fp8attn_stream_t stream)
{
    const fp8attn_tensor_view_t *x = &p->x;
    const int64_t elem_bytes = x->type == FP8ATTN_SRC_F32 ? 4 : 2;
    const cudaStream_t s = (cudaStream_t)stream;
    const int dynamic = p->descale_out != NULL;
    fp8attn_device_info_t info;
    fp8attn_status_t st;
    quant_args a;
    uint64_t rows, n_chunks;
    int vec, cpr;

    if ((st = fp8attn_current_device("fp8attn_quantize_gpu: ", &info)) != FP8ATTN_OK) return st;
    if ((st = fp8attn_check_arch(&info, "fp8attn_quantize_gpu")) != FP8ATTN_OK) return st;
    if (info.cc_major * 10 + info.cc_minor < 89)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "fp8attn_quantize_gpu: sm_%d%d has no FP8 conversion instruction "
                            "(sm_89 or later needed)",
                            info.cc_major, info.cc_minor);
    vec = vector_ok(p, elem_bytes);
    cpr = vec ? x->head_dim / QUANT_VEC : x->head_dim;
    rows = (uint64_t)x->batch * (uint64_t)x->heads * (uint64_t)x->seqlen;
    n_chunks = rows * (uint64_t)cpr;
    if (n_chunks > 0xFFFFFFFFull)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "fp8attn_quantize_gpu: %llu %s: at most 2^32 - 1 per call (the %s path "
                            "counts in 32 bits); split the tensor",
                            (unsigned long long)n_chunks,
                            vec ? "16-element chunks" : "elements", vec ? "vector" : "scalar");

    a.x = x->data;
    a.out = p->out;
    a.xs_b = x->stride.batch;
    a.xs_h = x->stride.head;
    a.xs_s = x->stride.token;
    a.os_b = p->out_stride.batch;
    a.os_h = p->out_stride.head;
    a.os_s = p->out_stride.token;
    a.descale = p->descale.ptr;
    a.ds_b = p->descale.batch_stride;
    a.ds_h = p->descale.head_stride;
    a.amax = (uint32_t *)p->workspace;
    a.descale_out = p->descale_out;
    a.gran = (int)p->granularity;
    a.n_chunks = (uint32_t)n_chunks;
    a.heads = (uint32_t)x->heads;
    a.seqlen = (uint32_t)x->seqlen;
    a.cpr = (uint32_t)cpr;
    a.div_cpr = fp8attn_fastdiv_make((uint32_t)cpr);
    a.div_s = fp8attn_fastdiv_make((uint32_t)x->seqlen);
    a.div_h = fp8attn_fastdiv_make((uint32_t)x->heads);

    const quant_kernel_t *k = k_kernels[x->type][vec];
    if (!dynamic) return launch(k[0], a, info.sm_count, s, "quantize");
    {
        const int64_t groups = fp8attn_descale_count(p->granularity, x->batch, x->heads);
        cudaError_t e = cudaMemsetAsync(p->workspace, 0, (size_t)groups * sizeof(uint32_t), s);
        if (e != cudaSuccess)
            return fp8attn_fail(FP8ATTN_ERR_CUDA,
                                "fp8attn_quantize_gpu: cudaMemsetAsync(workspace, %lld bytes): %s",
                                (long long)(groups * 4), cudaGetErrorString(e));
    }
    if ((st = launch(k[2], a, info.sm_count, s, "amax")) != FP8ATTN_OK) return st;
    return launch(k[1], a, info.sm_count, s, "quantize");
}
