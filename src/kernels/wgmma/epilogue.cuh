/* Epilogue of a consumer warpgroup: O = acc * v_descale / l in FP16 or BF16, and the optional
 * LSE. Rows past seqlen_q (or before row 0: scheduler.cuh's q_off) are not written; a row that
 * saw no key gets O = 0 and LSE = -inf.
 *
 * In the accumulator layout lane t of a quad holds output columns 8i + 2t, 8i + 2t + 1 of each
 * 8-column chunk i of its two rows: 4 bytes per chunk. Stored as they are, a warp's 4-byte store
 * touches 8 rows, 16 bytes each (docs/PERF.md w19: 1.22-1.30x slower at hd256 512 keys). Each
 * group of 4 chunks is first transposed across the quad (two rounds of shuffles), so that lane t
 * holds all 8 columns of chunk 4G + t and writes them with one 16-byte store: a quarter of the
 * store instructions, each filling whole 32-byte sectors. O's pointer and strides are 16-byte
 * aligned (fp8attn.h), and so is every 8-column chunk.
 *
 * Those stores still hold the warp until the memory system takes them, and every SM reaches its
 * epilogue at about the same time (docs/PERF.md w20). Where the configuration asks for it and
 * shared memory has room for the O tile (C::O_SMEM: EPI_TMA, set per kernel in the instance
 * files; the host then refuses O strides that TMA cannot take), the rows go to shared memory
 * instead, written with
 * stmatrix (write_output_staged: no quad transpose), and one lane per warp starts a TMA store of
 * its 16 rows that runs on while the warp computes its next tile. Before the warp writes its
 * staging area again it waits until that store has read it; the consumer waits for its last
 * stores before it exits. A kernel whose O tile fits only over its ring (C::O_IN_RING, hd256's
 * transposing kernel) stages it there the same way, and producer warp 0 issues the stores, in
 * boxes of a consumer's 64 rows (load.cuh store_o; a tile that starts before row 0 goes from
 * registers), so that no consumer waits for them in its epilogue. TMA leaves out rows past
 * seqlen_q, and writes nothing outside O's D columns. */
#ifndef FP8ATTN_WGMMA_EPILOGUE_CUH
#define FP8ATTN_WGMMA_EPILOGUE_CUH

#include <math.h>

#include "../common.cuh"
#include "config.cuh"
#include "ptx_sm90.cuh"
#include "smem_layout.cuh"
#include "softmax.cuh"       /* P_LOG2 */
#include "vt_background.cuh" /* bg_done */

/* 4 x 4 transpose of 32-bit words across the 4 lanes of a quad: lane t holds a[j] = word j of
 * its row of the 4 x 4 matrix, and gets back word t of every lane (a[k] = lane k's a[t]). The
 * first round swaps across lanes t ^ 1 the words whose index differs from t in bit 0, the
 * second across t ^ 2 those that differ in bit 1. */
__device__ __forceinline__ void quad_transpose(uint32_t (&a)[4], int t)
{
    const bool b0 = (t & 1) != 0, b1 = (t & 2) != 0;
#pragma unroll
    for (int h = 0; h < 2; h++) { /* words 2h, 2h + 1: keep the one with bit 0 = b0 */
        const uint32_t give = b0 ? a[2 * h] : a[2 * h + 1];
        const uint32_t got = __shfl_xor_sync(0xffffffffu, give, 1);
        if (b0) a[2 * h] = got;
        else a[2 * h + 1] = got;
    }
#pragma unroll
    for (int h = 0; h < 2; h++) { /* words h, h + 2: keep the one with bit 1 = b1 */
        const uint32_t give = b1 ? a[h] : a[h + 2];
        const uint32_t got = __shfl_xor_sync(0xffffffffu, give, 2);
        if (b1) a[h] = got;
        else a[h + 2] = got;
    }
}

/* The global store of one row of this lane's quad: the 8-column chunks scaled by inv (v_descale /
 * row sum) and packed, each group of 4 chunks transposed across the quad so that lane t writes
 * chunk 4G + t with one 16-byte store. in: the row is stored (the same for the whole quad); every
 * lane of the warp takes part in the shuffles all the same. */
template <int N>
__device__ __forceinline__ void store_row_global(uint16_t *orow, const float (&o)[N], int r,
                                                 float inv, bool bf16, bool in, int t)
{
#pragma unroll
    for (int G = 0; G < N / 16; G++) {
        uint32_t a[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int i = 4 * G + j;
            a[j] = pack_out2(o[4 * i + 2 * r] * inv, o[4 * i + 2 * r + 1] * inv, bf16);
        }
        quad_transpose(a, t);
        if (in)
            *reinterpret_cast<uint4 *>(orow + 8 * (4 * G + t)) = make_uint4(a[0], a[1], a[2], a[3]);
    }
}

/* The TMA stores of C::O_BOX_ROWS staged rows (o_smem: [D / 64][O_BOX_ROWS rows][128 bytes]):
 * one warp's 16 (C::O_FITS, below) or one consumer's 64 (C::O_IN_RING, load.cuh store_o), first
 * row row0: D / 64 boxes of 64 columns; the caller commits them. Only for row0 >= 0: a TMA store
 * of a box that starts before row 0 faults (illegal instruction), so the causal partial tile's
 * first warps (scheduler.cuh: q_off is a multiple of 16) store none, and with C::O_IN_RING that
 * tile goes from registers. */
template <class C>
__device__ __forceinline__ void tma_store_rows(const wgmma_params &p, uint32_t o_smem, int row0,
                                               int hq, int b)
{
#pragma unroll
    for (int cb = 0; cb < C::D / 64; cb++)
        tma_store_4d(&p.tm_o, o_smem + cb * C::O_BOX_ROWS * 128, 64 * cb, row0, hq, b);
}

/* The end of a warp's epilogue on the staging path: its 16 rows, written to o_smem, go to the
 * async proxy, and one lane starts their TMA stores; with C::O_IN_RING producer warp 0 does
 * (load.cuh store_o). */
template <class C>
__device__ __forceinline__ void store_staged_rows(const wgmma_params &p, uint32_t o_smem, int row_w,
                                                  int hq, int b, int lane)
{
    fence_proxy_async_smem();
    __syncwarp();
    if (!C::O_IN_RING && lane == 0 && row_w >= 0) {
        tma_store_rows<C>(p, o_smem, row_w, hq, b);
        bulk_commit();
    }
}

/* The staging path's stores to shared memory: this lane's O scaled by inv (v_descale / row sum)
 * and packed to 16 bits (bf16 or fp16: the callers pass a constant, so each loop converts one
 * way; with the choice made per element ptxas issued both conversions, predicated), written to
 * the warp's staging area, laid out as [D / 64][R rows][128 bytes] with the warp's rows from row0
 * (R 16, row0 0: the warp's own area; R 64, row0 16 w: a consumer's area, C::O_IN_RING). The
 * accumulator's quad layout is stmatrix's fragment layout (lane l
 * holds elements 2 (l % 4), 2 (l % 4) + 1 of row l / 4 of an 8 x 8 matrix), so each pair of
 * 8-column chunks i, i + 1 goes as four matrices (chunk i rows 0-7 and 8-15, chunk i + 1 the
 * same) with no shuffles; lane l gives the address of row l % 8 (+ 8 for matrices 1 and 3) of
 * chunk i + l / 16. Rows past the end too: the TMA store leaves them out. */
template <int R, int N>
__device__ __forceinline__ void stage_rows(uint32_t o_smem, const float (&o)[N],
                                           const float (&inv)[2], bool bf16, int lane, int row0)
{
    const int arow = row0 + (lane & 7) + 8 * ((lane >> 3) & 1), achunk = lane >> 4;
#pragma unroll
    for (int i = 0; i < N / 4; i += 2)
        stmatrix_x4(kmajor_addr<R, 128>(o_smem, arow, 16 * (i + achunk)),
                    pack_out2(o[4 * i] * inv[0], o[4 * i + 1] * inv[0], bf16),
                    pack_out2(o[4 * i + 2] * inv[1], o[4 * i + 3] * inv[1], bf16),
                    pack_out2(o[4 * i + 4] * inv[0], o[4 * i + 5] * inv[0], bf16),
                    pack_out2(o[4 * i + 6] * inv[1], o[4 * i + 7] * inv[1], bf16));
}

/* write_output (below) of a configuration with a staging area (C::O_SMEM): the rows written
 * there with stmatrix (stage_rows), which takes the accumulator's layout as it is: no quad
 * transpose (docs/PERF.md w39: +1-2 % in hd128_n224's _vt kernel at 8k-16k causal; w40-w42:
 * +0.3-3 % in hd128's, hd64's, hd64_n160's and hd256's _vt kernels and +7.6 % in hd64_m128's _vt,
 * where w21 had measured the staging area slower when it was written after quad transposes).
 * Only hd256's two kernels may find their staging area taken (C::BG_IN_O before bg_done,
 * C::O_IN_RING: staging_free, false also for a tile that starts before row 0, where a 64-row
 * box would start); they then store each row with store_row_global, after 1/l and
 * the LSE, which measured 1-3 % slower than write_output's order in kernels without a staging
 * area (w39), so those keep write_output's. In the other kernels that path is not compiled: its
 * code, never run there, cost 1-4 % at 512-2k keys (w72). */
template <class C, int N>
__device__ __forceinline__ void write_output_staged(const wgmma_params &p, uint32_t o_smem,
                                                    const float (&o)[N], const float (&m)[2],
                                                    const float (&l)[2], int b, int hq, float vds,
                                                    int row_w, int row_g, int lane, int t,
                                                    bool staging_free)
{
    static_assert(N % 16 == 0, "whole groups of 4 chunks per row");
    const bool bf16 = p.out_bf16 != 0;
    /* hd256's _vt kernel: the V^T chunk buffers lie in the staging area until bg_done; hd256's
     * transposing kernel: its O may not be staged over the ring (staging_free, a constant true
     * in every other kernel) */
    const bool tma = bg_done<C>() && staging_free;
    float inv[2]; /* v_descale / row sum of each of this lane's two rows */
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float lr = l[r];
        lr += __shfl_xor_sync(0xffffffffu, lr, 1);
        lr += __shfl_xor_sync(0xffffffffu, lr, 2);
        inv[r] = lr > 0.0f ? vds / lr : 0.0f;
        const int row = row_g + 8 * r;
        if (p.lse && t == 0 && row >= 0 && row < p.seqlen_q)
            p.lse[((int64_t)b * p.h_q + hq) * p.seqlen_q + row] =
                lr > 0.0f ? FP8ATTN_LN2 * (m[r] + log2f(lr) - P_LOG2) : -INFINITY;
    }
    if (tma) {
        /* first, the store of this warp's previous tile has read the area */
        if (lane == 0) bulk_wait_read_all();
        __syncwarp();
        /* a 64-row area is the consumer's: this warp's rows start at 16 w (w: the warp within
         * its warpgroup; the consumer warpgroups are 128-thread aligned, kernel.cuh) */
        const int row0 = C::O_BOX_ROWS == 64 ? 16 * ((threadIdx.x >> 5) & 3) : 0;
        if (bf16) stage_rows<C::O_BOX_ROWS>(o_smem, o, inv, true, lane, row0);
        else stage_rows<C::O_BOX_ROWS>(o_smem, o, inv, false, lane, row0);
        store_staged_rows<C>(p, o_smem, row_w, hq, b, lane);
        return;
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int row = row_g + 8 * r;
        const bool in = row >= 0 && row < p.seqlen_q;
        store_row_global((uint16_t *)p.o + row_offset(p.o_stride, b, hq, in ? row : 0), o, r,
                         inv[r], bf16, in, t);
    }
}

/* O = 0 and LSE = -inf for this lane's two rows (row_g, row_g + 8; t: its lane in the quad) of a
 * query tile that sees no key (causal, seqlen_q > seqlen_k): 16-byte stores of zeros, lane t
 * the 8-column chunks t, t + 4, ... of each row. Small on purpose: it sits in the consumers'
 * loop over query tiles, where code that runs rarely still costs (docs/PERF.md w72). */
template <int D>
__device__ __forceinline__ void write_zero_rows(const wgmma_params &p, int b, int hq, int row_g,
                                                int t)
{
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int row = row_g + 8 * r;
        if (row < 0 || row >= p.seqlen_q) continue;
        uint16_t *orow = (uint16_t *)p.o + row_offset(p.o_stride, b, hq, row);
#pragma unroll
        for (int G = 0; G < D / 32; G++)
            *reinterpret_cast<uint4 *>(orow + 8 * (4 * G + t)) = make_uint4(0u, 0u, 0u, 0u);
        if (p.lse && t == 0) p.lse[((int64_t)b * p.h_q + hq) * p.seqlen_q + row] = -INFINITY;
    }
}

/* The epilogue of one warp: its 16 rows (row_g and row_g + 8 for this lane) of the consumer's
 * O accumulator. o_smem: the warp's staging area (C::O_SMEM), [D / 64][16 rows][128 bytes] with
 * the 128-byte swizzle, or with C::O_IN_RING its consumer's, [D / 64][64 rows][128 bytes];
 * row_w = the warp's first row. staging_free false: the staging area may
 * not be written (C::O_IN_RING, mainloop.cuh), O goes out from registers. vds: v_descale of
 * (b, the tile's kv head), loaded by the caller (hd256's transposing kernel loads it before the
 * barrier that precedes its staging: ptxas moves no load across a barrier). */
template <class C, int N>
__device__ __forceinline__ void write_output(const wgmma_params &p, uint32_t o_smem,
                                             const float (&o)[N], const float (&m)[2],
                                             const float (&l)[2], int b, int hq, float vds, int row_w,
                                             int row_g, int lane, int t, bool staging_free = true)
{
    static_assert(N % 16 == 0, "whole groups of 4 chunks per row");
    if (C::O_SMEM) {
        write_output_staged<C>(p, o_smem, o, m, l, b, hq, vds, row_w, row_g, lane, t, staging_free);
        return;
    }
    const bool bf16 = p.out_bf16 != 0;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float lr = l[r];
        lr += __shfl_xor_sync(0xffffffffu, lr, 1);
        lr += __shfl_xor_sync(0xffffffffu, lr, 2);
        const int row = row_g + 8 * r;
        const bool in = row >= 0 && row < p.seqlen_q; /* the same for the whole quad */
        const float inv = lr > 0.0f ? vds / lr : 0.0f;
        store_row_global((uint16_t *)p.o + row_offset(p.o_stride, b, hq, in ? row : 0), o, r, inv,
                         bf16, in, t);
        if (in && p.lse && t == 0)
            p.lse[((int64_t)b * p.h_q + hq) * p.seqlen_q + row] =
                lr > 0.0f ? FP8ATTN_LN2 * (m[r] + log2f(lr) - P_LOG2) : -INFINITY;
    }
}

#endif
