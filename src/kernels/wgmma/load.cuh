/* Producer warpgroup: the TMA loads (one thread), their mbarrier ring, and the loop that hands
 * each tile's V to the transpose (transpose_v.cuh). With C::LOADER_WARP the loads run in warp 0
 * on their own and warps 1-3 transpose; otherwise all four warps transpose and thread 0 issues
 * the loads between tiles (hd256: 64 transpose units per tile).
 *   Q        once, [BM][D], signalled on q_full
 *   K_j, V_j tile j of BN keys into stage j % STAGES, signalled on k_full / v_full; a stage is
 *            reused once k_empty (the consumers' S = Q.K^T of the tile that held it is done) and
 *            v_empty (the transposer has read its V) say so.
 * Rows past seqlen_q / seqlen_k are zero-filled by TMA and never read from global memory. Each
 * tile is D / SW_D boxes of SW_D bytes x rows (the swizzle limits a box row to SW_D bytes). */
#ifndef FP8ATTN_WGMMA_LOAD_CUH
#define FP8ATTN_WGMMA_LOAD_CUH

#include "config.cuh"
#include "ptx_sm90.cuh"
#include "scheduler.cuh"
#include "transpose_v.cuh"

/* Shared-memory addresses of one block's tiles and barriers. */
template <class C>
struct wg_smem {
    uint32_t q, k, v, vt, bar;
    __device__ __forceinline__ uint32_t k_tile(int s) const { return k + s * C::KV_BYTES; }
    __device__ __forceinline__ uint32_t v_tile(int s) const { return v + s * C::KV_BYTES; }
    __device__ __forceinline__ uint32_t vt_tile(int s) const { return vt + s * C::KV_BYTES; }
    __device__ __forceinline__ uint32_t q_full() const { return bar; }
    __device__ __forceinline__ uint32_t k_full(int s) const { return bar + 8 * (1 + 6 * s); }
    __device__ __forceinline__ uint32_t k_empty(int s) const { return bar + 8 * (2 + 6 * s); }
    __device__ __forceinline__ uint32_t v_full(int s) const { return bar + 8 * (3 + 6 * s); }
    __device__ __forceinline__ uint32_t v_empty(int s) const { return bar + 8 * (4 + 6 * s); }
    __device__ __forceinline__ uint32_t vt_full(int s) const { return bar + 8 * (5 + 6 * s); }
    __device__ __forceinline__ uint32_t vt_empty(int s) const { return bar + 8 * (6 + 6 * s); }
};

/* Arrival counts: TMA barriers get one arrive (with the byte count) per phase; the consumers
 * release a stage with one arrive per consumer warp; the transposer with one per thread.
 * PRE_VT (V^T loaded by TMA from the workspace): vt_full is a TMA barrier; v_full and v_empty
 * are not used. */
template <class C, bool PRE_VT>
__device__ __forceinline__ void init_barriers(const wg_smem<C> &sm)
{
    mbar_init(sm.q_full(), 1);
    for (int s = 0; s < C::STAGES; s++) {
        mbar_init(sm.k_full(s), 1);
        mbar_init(sm.k_empty(s), 4 * C::CONSUMERS);
        mbar_init(sm.v_full(s), 1);
        mbar_init(sm.v_empty(s), C::TRANSPOSERS);
        mbar_init(sm.vt_full(s), PRE_VT ? 1 : C::TRANSPOSERS);
        mbar_init(sm.vt_empty(s), 4 * C::CONSUMERS);
    }
    fence_mbarrier_init();
}

/* One [rows][D] tile: D / SW_D boxes, box c to tile + c * rows * SW_D. */
template <class C, int ROWS>
__device__ __forceinline__ void tma_tile(uint32_t dst, const CUtensorMap *map, uint32_t bar, int row0,
                                         int head, int batch)
{
#pragma unroll
    for (int c = 0; c < C::D / C::SW_D; c++)
        tma_load_4d(dst + c * ROWS * C::SW_D, map, bar, c * C::SW_D, row0, head, batch);
}

/* Phase parity of the use of ring stage j % STAGES by tile j: mbarrier waits on a "full" barrier
 * use it, waits on an "empty" barrier for that use its complement (a fresh barrier counts its
 * phase before 0 as complete, so the first STAGES waits return at once). */
template <class C>
__device__ __forceinline__ uint32_t ring_phase(int j)
{
    return (uint32_t)(j / C::STAGES) & 1;
}

/* Q (thread 0). */
template <class C>
__device__ __forceinline__ void load_q(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t)
{
    mbar_arrive_expect_tx(sm.q_full(), C::Q_BYTES);
    tma_tile<C, C::BM>(sm.q, &p.tm_q, sm.q_full(), t.q0, t.hq, t.b);
}

/* Loads of key tile j into stage j % STAGES (thread 0). */
template <class C>
__device__ __forceinline__ void load_k(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                       int j)
{
    const int s = j % C::STAGES;
    mbar_arrive_expect_tx(sm.k_full(s), C::KV_BYTES);
    tma_tile<C, C::BN>(sm.k_tile(s), &p.tm_k, sm.k_full(s), j * C::BN, t.hk, t.b);
}

template <class C>
__device__ __forceinline__ void load_kv(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                        int j)
{
    const int s = j % C::STAGES;
    load_k<C>(p, sm, t, j);
    mbar_arrive_expect_tx(sm.v_full(s), C::KV_BYTES);
    tma_tile<C, C::BN>(sm.v_tile(s), &p.tm_v, sm.v_full(s), j * C::BN, t.hk, t.b);
}

/* PRE_VT: V^T tile j from the workspace, BN / SW_N boxes of SW_N key bytes x D rows (box c to
 * column block c of the tile's K-major layout). */
template <class C>
__device__ __forceinline__ void load_vt(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                        int j)
{
    const int s = j % C::STAGES;
    mbar_arrive_expect_tx(sm.vt_full(s), C::KV_BYTES);
#pragma unroll
    for (int c = 0; c < C::BN / C::SW_N; c++)
        tma_load_4d(sm.vt_tile(s) + c * C::D * C::SW_N, &p.tm_vt, sm.vt_full(s),
                    j * C::BN + c * C::SW_N, 0, t.hk, t.b);
}

/* V_j -> V^T_j by the transposer warps (tw = index among them), once V_j has landed and the
 * consumers have released that V^T stage; then V^T_j is handed over and V_j's stage released. */
template <class C>
__device__ __forceinline__ void transpose_stage(const wg_smem<C> &sm, int j, int tw, int lane)
{
    const int s = j % C::STAGES;
    mbar_wait(sm.v_full(s), ring_phase<C>(j));
    mbar_wait(sm.vt_empty(s), ring_phase<C>(j) ^ 1);
    transpose_tile<C>(sm.v_tile(s), sm.vt_tile(s), tw, lane);
    fence_proxy_async_smem(); /* V^T, written by stmatrix, is read next by wgmma */
    mbar_arrive(sm.vt_full(s));
    mbar_arrive(sm.v_empty(s));
}

/* The producer warpgroup's loop.
 * C::LOADER_WARP: warp 0's thread 0 issues Q and then every key tile as soon as its stage is free
 * (k_empty: the consumers are done with the K it held; v_empty: the transposers with its V);
 * warps 1-3 transpose.
 * Otherwise: thread 0 issues Q and the first STAGES key tiles; all four warps transpose, and
 * after tile j thread 0 refills its stage with tile j + STAGES. */
template <class C, bool PRE_VT>
__device__ __forceinline__ void produce(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                        int tid)
{
    if (t.n_kt == 0) return; /* nothing to compute: no copy may outlive the block */
    const int warp = tid >> 5, lane = tid & 31;
    if (PRE_VT) { /* loads only (thread 0): K_j once S = Q.K^T of the stage's last tile is done,
                   * V^T_j once its P.V is; K_{j+1} goes out before V^T_j's wait */
        if (tid == 0) {
            load_q<C>(p, sm, t);
            mbar_wait(sm.k_empty(0), 1);
            load_k<C>(p, sm, t, 0);
            for (int j = 0; j < t.n_kt; j++) {
                if (j + 1 < t.n_kt) {
                    mbar_wait(sm.k_empty((j + 1) % C::STAGES), ring_phase<C>(j + 1) ^ 1);
                    load_k<C>(p, sm, t, j + 1);
                }
                mbar_wait(sm.vt_empty(j % C::STAGES), ring_phase<C>(j) ^ 1);
                load_vt<C>(p, sm, t, j);
            }
        }
        return;
    }
    if (C::LOADER_WARP) {
        if (warp == 0) {
            if (lane == 0) {
                load_q<C>(p, sm, t);
                for (int j = 0; j < t.n_kt; j++) {
                    mbar_wait(sm.k_empty(j % C::STAGES), ring_phase<C>(j) ^ 1);
                    mbar_wait(sm.v_empty(j % C::STAGES), ring_phase<C>(j) ^ 1);
                    load_kv<C>(p, sm, t, j);
                }
            }
            return;
        }
        for (int j = 0; j < t.n_kt; j++) transpose_stage<C>(sm, j, warp - 1, lane);
        return;
    }
    if (tid == 0) {
        load_q<C>(p, sm, t);
        for (int j = 0; j < t.n_kt && j < C::STAGES; j++) load_kv<C>(p, sm, t, j);
    }
    for (int j = 0; j < t.n_kt; j++) {
        transpose_stage<C>(sm, j, warp, lane);
        if (tid == 0 && j + C::STAGES < t.n_kt) {
            mbar_wait(sm.k_empty(j % C::STAGES), ring_phase<C>(j));
            mbar_wait(sm.v_empty(j % C::STAGES), ring_phase<C>(j));
            load_kv<C>(p, sm, t, j + C::STAGES);
        }
    }
}

#endif
