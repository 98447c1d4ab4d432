/* Variant "mma": FlashAttention-2-style forward on FP8 tensor cores through
 * mma.sync.m16n8k32.e4m3 (native on sm_89, emulated on sm_90). Included by one .cu file per
 * instance (mma_hd128_m128.cu, ...), each instantiating exactly one tile configuration;
 * mma_variant.cu picks the instance per problem.
 *
 * Block: WARPS warps, MT tiles of 16 query rows per warp (BM = 16*MT*WARPS rows), one (query tile,
 * head, batch). With MT = 2 every K and V fragment a warp loads and unpacks feeds two MMAs instead
 * of one, which halves that work per MMA (on sm_90 the E4M3->f16 unpacking is the busiest
 * non-tensor pipe), at the price of twice the accumulator registers.
 * Q tile -> shared -> registers (or re-read from shared each step when Q_IN_REGS is false).
 * K and V tiles of BN keys stream through shared memory with cp.async, two stages each, in one of
 * two schemes (SPLIT_KV, per instance, chosen by measurement):
 *  - split (two barriers per tile): K and V in separate commit groups, so S = Q.K^T of tile j
 *    overlaps the arrival of V_j, and P.V_j the arrival of K_{j+1};
 *  - joined (one barrier per tile): K_{j+1} and V_{j+1} are requested together right after the
 *    barrier of iteration j and have the whole iteration to arrive.
 * Softmax is online in registers, base 2: x = s * (softmax_scale * q_descale * k_descale * log2 e).
 * P = 2^(x - m + 8) is cast to E4M3: the 2^8 keeps small probabilities out of E4M3's subnormals
 * and cancels in O = acc / l (l sums the same scaled P in fp32).
 *
 * V needs to be K-major for the second MMA (B operand: 4 consecutive keys per byte-lane). V stays
 * token-major in shared memory (plain cp.async); the transpose happens in the fragment load:
 * ldmatrix.trans on 16-bit pairs gives each lane 2 keys x 2 dims, and two byte permutes turn two
 * such registers into 4 keys of one dim. The key order that produces, {2t, 2t+1, 8+2t, 9+2t} for
 * lane t of a quad, is exactly the order in which the S accumulator holds P's columns, so P goes
 * from the first MMA's accumulator to the second MMA's A operand with no shuffle. Even and odd
 * output dims come from separate MMAs; each lane ends up owning 4 consecutive output dims.
 *
 * Shared-memory tiles are row-major [rows][D] bytes with 16-byte chunks XOR-swizzled per row, so
 * every ldmatrix phase (8 rows, one chunk column) touches 8 distinct 16-byte bank groups. */
#ifndef FP8ATTN_MMA_FWD_CUH
#define FP8ATTN_MMA_FWD_CUH

#include <cuda_runtime.h>
#include <math.h>

#include "../../internal.h"
#include "../common.cuh"
#include "../kernels.h"
#include "../ptx.cuh"

template <int D_, int WARPS_, int MT_, int BN_, bool Q_IN_REGS_, bool SPLIT_KV_>
struct mma_config {
    static constexpr int D = D_;
    static constexpr int WARPS = WARPS_;
    static constexpr int MT = MT_; /* 16-row tiles per warp; they share every K and V fragment */
    static constexpr int BN = BN_;
    static constexpr bool Q_IN_REGS = Q_IN_REGS_; /* else re-read from shared memory each tile */
    static constexpr bool SPLIT_KV = SPLIT_KV_; /* two barriers per tile (see above) */
    static constexpr int BM = 16 * MT * WARPS;
    static constexpr int THREADS = 32 * WARPS;
    static constexpr int CHUNKS = D / 16;      /* 16-byte chunks per row */
    static constexpr int QK_STEPS = D / 32;    /* k-steps of S = Q.K^T */
    static constexpr int S_TILES = BN / 8;     /* n8 tiles of S */
    static constexpr int PV_STEPS = BN / 32;   /* k-steps of O += P.V */
    static constexpr int O_CHUNKS = D / 16;    /* 16 output dims = 2 MMAs (even, odd dims) */
    static constexpr int Q_BYTES = BM * D;
    static constexpr int KV_BYTES = BN * D;
    static constexpr int SMEM_BYTES = Q_BYTES + 4 * KV_BYTES; /* Q + 2 stages of K and of V */
    static_assert(D == 64 || D == 128 || D == 256, "head dim");
    static_assert(BN % 32 == 0, "BN must be a multiple of 32 (one P.V k-step)");
    static_assert(THREADS % CHUNKS == 0 && BN % (THREADS / CHUNKS) == 0 &&
                      BM % (THREADS / CHUNKS) == 0,
                  "tile loads: whole rows per pass, whole passes per tile");
};

/* Byte offset of 16-byte chunk `chunk` of row `row` in a swizzled [rows][D] tile. */
template <int D>
__device__ __forceinline__ uint32_t swz(int row, int chunk)
{
    if (D == 64) /* two rows per 128-byte line: vary the chunk with row/2 */
        return (uint32_t)(row * 64 + ((chunk ^ ((row >> 1) & 3)) << 4));
    return (uint32_t)(row * D + ((chunk ^ (row & 7)) << 4));
}

/* cp.async a [ROWS][D] tile whose first row is global row `row0`; rows >= n_rows are zero-filled
 * without being read. */
template <class C, int ROWS>
__device__ __forceinline__ void load_tile(uint32_t dst, const uint8_t *src, int64_t row_stride,
                                          int row0, int n_rows, int tid)
{
    constexpr int STEP = C::THREADS / C::CHUNKS; /* rows between a thread's successive chunks */
    const int r = tid / C::CHUNKS, c = tid % C::CHUNKS;
    /* one running pointer (not one per chunk) keeps the register count down */
    const uint8_t *g = src + (int64_t)(row0 + r) * row_stride + c * 16;
    const int64_t step = (int64_t)STEP * row_stride;
#pragma unroll
    for (int it = 0; it < ROWS / STEP; it++) {
        const bool valid = row0 + r + it * STEP < n_rows;
        cp_async_16(dst + swz<C::D>(r + it * STEP, c), valid ? g : src, valid);
        g += step;
    }
}

/* A fragment (16 rows from tile row r0, 32 bytes, k-step kk) from the shared Q tile. */
template <class C>
__device__ __forceinline__ void load_q_frag(uint32_t a[4], uint32_t sQ, int r0, int lane, int kk)
{
    const int row = (lane & 7) + ((lane >> 3) & 1) * 8;
    ldmatrix_x4(a, sQ + swz<C::D>(row + r0, 2 * kk + (lane >> 4)));
}

template <class C>
__device__ __forceinline__ void mma_fwd(const fp8attn_params_t &p, float scale_log2)
{
    extern __shared__ __align__(128) uint8_t smem[];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int g = lane >> 2, t = lane & 3;

    /* block -> (query tile, head, batch); the longest causal tiles are scheduled first */
    const int n_qt = (p.seqlen_q + C::BM - 1) / C::BM;
    const int64_t bid = blockIdx.x;
    const int qt = n_qt - 1 - (int)(bid % n_qt);
    const int hq = (int)((bid / n_qt) % p.h_q);
    const int b = (int)(bid / ((int64_t)n_qt * p.h_q));
    const int hk = hq / (p.h_q / p.h_kv);
    const int q0 = qt * C::BM;
    const int diag = p.seqlen_k - p.seqlen_q; /* query i sees keys j <= i + diag (causal) */

    int kv_end = p.seqlen_k;
    if (p.causal) kv_end = min(kv_end, q0 + C::BM + diag);
    const int n_kt = kv_end > 0 ? (kv_end + C::BN - 1) / C::BN : 0;

    const uint8_t *qg = p.q + row_offset(p.q_stride, b, hq, 0);
    const uint8_t *kg = p.k + row_offset(p.k_stride, b, hk, 0);
    const uint8_t *vg = p.v + row_offset(p.v_stride, b, hk, 0);
    const uint32_t sQ = smem_addr(smem);
    const uint32_t sK = sQ + C::Q_BYTES;
    const uint32_t sV = sK + 2 * C::KV_BYTES;

    const float sl2 = scale_log2 * load_descale(p.q_descale, b, hq) * load_descale(p.k_descale, b, hk);

    /* this warp's rows: MT tiles of 16, tile mt holding rows wrow + 16*mt + {g, g + 8} */
    const int wrow = warp * 16 * C::MT;

    float o[C::MT][C::O_CHUNKS][2][4];
#pragma unroll
    for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
        for (int c = 0; c < C::O_CHUNKS; c++)
#pragma unroll
            for (int e = 0; e < 2; e++)
#pragma unroll
                for (int i = 0; i < 4; i++) o[mt][c][e][i] = 0.0f;
    float m[C::MT][2], l[C::MT][2]; /* running max of x and this lane's share of sum 2^8 * P */
#pragma unroll
    for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            m[mt][r] = -INFINITY;
            l[mt][r] = 0.0f;
        }

    if (n_kt > 0) {
        load_tile<C, C::BM>(sQ, qg, p.q_stride.token, q0, p.seqlen_q, tid);
        load_tile<C, C::BN>(sK, kg, p.k_stride.token, 0, p.seqlen_k, tid);
        if (C::SPLIT_KV) cp_async_commit();
        load_tile<C, C::BN>(sV, vg, p.v_stride.token, 0, p.seqlen_k, tid);
        cp_async_commit();
    }

    uint32_t qf[C::Q_IN_REGS ? C::MT : 1][C::Q_IN_REGS ? C::QK_STEPS : 1][4];
    const int row_a = q0 + wrow + g; /* first query row of this lane (tile 0, r = 0) */

    for (int kt = 0; kt < n_kt; kt++) {
        /* tid passed through an opaque move each tile: the compiler then recomputes the prefetch
         * addresses from it instead of keeping them in registers all loop long (that alone was
         * 26 registers and +10% on hd128, see docs/PERF.md v9) */
        const int tid_l = (int)opaque_u32((uint32_t)tid);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        const int lane_l = tid_l & 31; /* sm_89: the fragment addresses too (else hd128_m128 spills) */
#else
        const int lane_l = lane; /* sm_90: only the prefetch (re-deriving these spills there) */
#endif
        const int k0 = kt * C::BN;
        const uint32_t sKt = sK + (kt & 1) * C::KV_BYTES;
        const uint32_t sVt = sV + (kt & 1) * C::KV_BYTES;

        const bool prefetch = kt + 1 < n_kt; /* tile kt+1 goes to the other stage */
        const uint32_t nxt = ((kt + 1) & 1) * C::KV_BYTES;
        if (C::SPLIT_KV)
            cp_async_wait<1>(); /* K_kt (and Q) landed; V_kt may be in flight */
        else
            cp_async_wait<0>(); /* K_kt, V_kt (and Q) landed */
        __syncthreads();        /* ... for every thread; and everyone is done with tile kt-1 */
        if (C::Q_IN_REGS && kt == 0)
#pragma unroll
            for (int mt = 0; mt < (C::Q_IN_REGS ? C::MT : 1); mt++)
#pragma unroll
                for (int kk = 0; kk < C::QK_STEPS; kk++)
                    load_q_frag<C>(qf[mt][kk], sQ, wrow + 16 * mt, lane, kk);
        if (prefetch) load_tile<C, C::BN>(sK + nxt, kg, p.k_stride.token, k0 + C::BN, p.seqlen_k, tid_l);
        if (prefetch && !C::SPLIT_KV)
            load_tile<C, C::BN>(sV + nxt, vg, p.v_stride.token, k0 + C::BN, p.seqlen_k, tid_l);
        cp_async_commit();

        /* S = Q.K^T for this warp's 16*MT rows x BN keys; each K fragment serves all MT tiles */
        float s[C::MT][C::S_TILES][4];
#pragma unroll
        for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
            for (int j = 0; j < C::S_TILES; j++)
#pragma unroll
                for (int i = 0; i < 4; i++) s[mt][j][i] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < C::QK_STEPS; kk++) {
            uint32_t qa_tmp[C::MT][4];
            const uint32_t *qa[C::MT];
#pragma unroll
            for (int mt = 0; mt < C::MT; mt++) {
                if (C::Q_IN_REGS) {
                    qa[mt] = qf[C::Q_IN_REGS ? mt : 0][C::Q_IN_REGS ? kk : 0];
                } else {
                    load_q_frag<C>(qa_tmp[mt], sQ, wrow + 16 * mt, lane_l, kk);
                    qa[mt] = qa_tmp[mt];
                }
            }
#pragma unroll
            for (int j2 = 0; j2 < C::S_TILES / 2; j2++) {
                uint32_t kb[4]; /* b0,b1 of keys 16*j2..+7, then of keys 16*j2+8..+15 */
                const int key = 16 * j2 + (lane_l & 7) + (lane_l >> 4) * 8;
                ldmatrix_x4(kb, sKt + swz<C::D>(key, 2 * kk + ((lane_l >> 3) & 1)));
#pragma unroll
                for (int mt = 0; mt < C::MT; mt++) {
                    mma_e4m3_16832(s[mt][2 * j2], qa[mt], kb[0], kb[1]);
                    mma_e4m3_16832(s[mt][2 * j2 + 1], qa[mt], kb[2], kb[3]);
                }
            }
        }

        /* mask: keys past seqlen_k, and (causal) keys past each row's diagonal */
        if (k0 + C::BN > p.seqlen_k || (p.causal && k0 + C::BN - 1 > q0 + diag)) {
#pragma unroll
            for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    int lim = p.seqlen_k - 1;
                    if (p.causal) lim = min(lim, row_a + 16 * mt + 8 * r + diag);
#pragma unroll
                    for (int j = 0; j < C::S_TILES; j++)
#pragma unroll
                        for (int e = 0; e < 2; e++)
                            if (k0 + 8 * j + 2 * t + e > lim) s[mt][j][2 * r + e] = -INFINITY;
                }
        }

        /* online softmax, per tile rows g (r = 0) and g + 8 (r = 1); a row is spread over a quad */
#pragma unroll
        for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
            for (int r = 0; r < 2; r++) {
                float mx = -INFINITY;
#pragma unroll
                for (int j = 0; j < C::S_TILES; j++)
                    mx = fmaxf(mx, fmaxf(s[mt][j][2 * r], s[mt][j][2 * r + 1]));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float m_new = fmaxf(m[mt][r], mx * sl2);
                const float m_use = m_new == -INFINITY ? 0.0f : m_new; /* no key seen yet */
                const float alpha = exp2f(m[mt][r] - m_use);
                m[mt][r] = m_new;
                l[mt][r] *= alpha;
#pragma unroll
                for (int c = 0; c < C::O_CHUNKS; c++) {
                    o[mt][c][0][2 * r] *= alpha;
                    o[mt][c][0][2 * r + 1] *= alpha;
                    o[mt][c][1][2 * r] *= alpha;
                    o[mt][c][1][2 * r + 1] *= alpha;
                }
                const float off = 8.0f - m_use; /* 2^8 * 2^(x - m) */
#pragma unroll
                for (int j = 0; j < C::S_TILES; j++)
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        const float pv = exp2f(fmaf(s[mt][j][2 * r + e], sl2, off));
                        s[mt][j][2 * r + e] = pv;
                        l[mt][r] += pv;
                    }
            }

        /* P (scaled by 2^8) -> E4M3 A fragments, straight from the accumulator layout */
        uint32_t pa[C::MT][C::PV_STEPS][4];
#pragma unroll
        for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
            for (int kv = 0; kv < C::PV_STEPS; kv++) {
                const float *s0 = s[mt][4 * kv], *s1 = s[mt][4 * kv + 1];
                const float *s2 = s[mt][4 * kv + 2], *s3 = s[mt][4 * kv + 3];
                pa[mt][kv][0] = pack_e4m3x4(s0[0], s0[1], s1[0], s1[1]);
                pa[mt][kv][1] = pack_e4m3x4(s0[2], s0[3], s1[2], s1[3]);
                pa[mt][kv][2] = pack_e4m3x4(s2[0], s2[1], s3[0], s3[1]);
                pa[mt][kv][3] = pack_e4m3x4(s2[2], s2[3], s3[2], s3[3]);
            }

        if (C::SPLIT_KV) {
            cp_async_wait<1>(); /* V_kt landed; K_{kt+1} may be in flight */
            __syncthreads();
            if (prefetch)
                load_tile<C, C::BN>(sV + nxt, vg, p.v_stride.token, k0 + C::BN, p.seqlen_k, tid_l);
            cp_async_commit();
        }

        /* O += P.V: keys 32*kv..+31, output dims 16*c..+15 (even dims, then odd dims); each V
         * fragment serves all MT tiles */
#pragma unroll
        for (int kv = 0; kv < C::PV_STEPS; kv++)
#pragma unroll
            for (int c = 0; c < C::O_CHUNKS; c++) {
                uint32_t vr[4]; /* keys 0-7, 8-15, 16-23, 24-31 of this k-step; 2 keys x 2 dims */
                ldmatrix_x4_trans(vr, sVt + swz<C::D>(32 * kv + lane_l, c));
                const uint32_t ve0 = byte_perm(vr[0], vr[1], 0x6420);
                const uint32_t ve1 = byte_perm(vr[2], vr[3], 0x6420);
                const uint32_t vo0 = byte_perm(vr[0], vr[1], 0x7531);
                const uint32_t vo1 = byte_perm(vr[2], vr[3], 0x7531);
#pragma unroll
                for (int mt = 0; mt < C::MT; mt++) {
                    mma_e4m3_16832(o[mt][c][0], pa[mt][kv], ve0, ve1);
                    mma_e4m3_16832(o[mt][c][1], pa[mt][kv], vo0, vo1);
                }
            }
    }
    cp_async_wait<0>();

    /* epilogue: O = acc * v_descale / l, LSE = ln 2 * (m + log2 l - 8) */
    const float vds = load_descale(p.v_descale, b, hk);
    const bool bf16 = p.out_type == FP8ATTN_OUT_BF16;
#pragma unroll
    for (int mt = 0; mt < C::MT; mt++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float lr = l[mt][r];
            lr += __shfl_xor_sync(0xffffffffu, lr, 1);
            lr += __shfl_xor_sync(0xffffffffu, lr, 2);
            const int row = row_a + 16 * mt + 8 * r;
            if (row >= p.seqlen_q) continue;
            const float inv = lr > 0.0f ? vds / lr : 0.0f; /* a row that sees no key: O = 0 */
            uint16_t *orow = (uint16_t *)p.o + row_offset(p.o_stride, b, hq, row) + 4 * t;
#pragma unroll
            for (int c = 0; c < C::O_CHUNKS; c++) {
                uint2 w;
                w.x = pack_out2(o[mt][c][0][2 * r] * inv, o[mt][c][1][2 * r] * inv, bf16);
                w.y = pack_out2(o[mt][c][0][2 * r + 1] * inv, o[mt][c][1][2 * r + 1] * inv, bf16);
                *reinterpret_cast<uint2 *>(orow + 16 * c) = w;
            }
            if (p.lse && t == 0)
                p.lse[((int64_t)b * p.h_q + hq) * p.seqlen_q + row] =
                    lr > 0.0f ? FP8ATTN_LN2 * (m[mt][r] + log2f(lr) - 8.0f) : -INFINITY;
        }
}

/* Host side: grid size and launch of one instantiated kernel. */
template <class C>
static int64_t mma_grid(const fp8attn_params_t *p)
{
    return (((int64_t)p->seqlen_q + C::BM - 1) / C::BM) * p->h_q * p->batch;
}

template <class C>
static fp8attn_status_t mma_launch(const fp8attn_kernel_entry_t *k, const fp8attn_params_t *p,
                                   fp8attn_stream_t stream)
{
    const float scale_log2 = fp8attn_effective_scale(p) * FP8ATTN_LOG2E;
    void *args[] = {(void *)p, (void *)&scale_log2};
    cudaError_t e = cudaSuccess;
    if (C::SMEM_BYTES > 48 * 1024)
        e = cudaFuncSetAttribute(k->func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 C::SMEM_BYTES);
    if (e == cudaSuccess)
        e = cudaLaunchKernel(k->func, dim3((unsigned)mma_grid<C>(p)), dim3(C::THREADS), args,
                             C::SMEM_BYTES, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "mma: launching %s: %s", k->symbol,
                            cudaGetErrorString(e));
    return FP8ATTN_OK;
}

/* Defines kernel fp8attn_mma_<NAME> for configuration CFG, its table entry, query rows per block,
 * grid size and launcher (fp8attn_mma_entry_<NAME>, ..._rows_<NAME>, ..._grid_<NAME>,
 * ..._launch_<NAME>). */
#define FP8ATTN_MMA_INSTANCE(NAME, CFG)                                                         \
    extern "C" __global__ void __launch_bounds__(CFG::THREADS)                                  \
        fp8attn_mma_##NAME(const fp8attn_params_t p, float scale_log2)                          \
    {                                                                                           \
        mma_fwd<CFG>(p, scale_log2);                                                            \
    }                                                                                           \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_mma_entry_##NAME(void)                     \
    {                                                                                           \
        static const fp8attn_kernel_entry_t e = {"mma", "fp8attn_mma_" #NAME, CFG::D,           \
                                                 CFG::THREADS, CFG::SMEM_BYTES,                 \
                                                 (const void *)fp8attn_mma_##NAME};             \
        return &e;                                                                              \
    }                                                                                           \
    extern "C" const int fp8attn_mma_rows_##NAME = CFG::BM;                                     \
    extern "C" int64_t fp8attn_mma_grid_##NAME(const fp8attn_params_t *p)                       \
    {                                                                                           \
        return mma_grid<CFG>(p);                                                                \
    }                                                                                           \
    extern "C" fp8attn_status_t fp8attn_mma_launch_##NAME(const fp8attn_params_t *p,           \
                                                           fp8attn_stream_t s)                  \
    {                                                                                           \
        return mma_launch<CFG>(fp8attn_mma_entry_##NAME(), p, s);                               \
    }

#endif
