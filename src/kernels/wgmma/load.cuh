/* Producer warpgroup: the TMA loads (one elected lane issues them), their mbarrier ring, and
 * the loop that hands each tile's V to the transpose (transpose_v.cuh). With C::LOADER_WARP the
 * loads run in warp 0 on their own and warps 1-3 transpose; otherwise all four warps transpose
 * and warp 0 issues the loads between tiles (hd256: 64 transpose units per tile), in both cases
 * warp-uniformly (produce). In a _vt kernel warp 0 loads V^T tiles from the workspace instead
 * (warp-uniformly too), warp 1 takes the dynamic walk's units (scheduler.cuh), and with
 * C::FUSED_VT warps 2 and 3 write that V^T (vt_background.cuh).
 * The block walks its query tiles in the scheduler's order (scheduler.cuh); the ring runs on
 * across them, indexed by g, the key tiles loaded so far in this block:
 *   Q        per query tile, [BM][D], into stage qi % Q_STAGES (qi: query tiles with keys so
 *            far), signalled on q_full; a stage is reused once q_empty says the consumers' last
 *            S = Q.K^T of the tile that held it is done
 *   K_j, V_j key tile j of the query tile into stage g % STAGES, signalled on k_full / v_full; a
 *            stage is reused once k_empty (the consumers' S = Q.K^T of the tile that held it is
 *            done) and v_empty (the transposer has read its V) say so; with C::O_IN_RING, V
 *            of the stage a tile's O is staged over only once that O is stored (store_o).
 * Rows past seqlen_q / seqlen_k (and Q rows before row 0, scheduler.cuh) are zero-filled by TMA
 * and never read from global memory. Each tile is D / SW_D boxes of SW_D bytes x rows (the
 * swizzle limits a box row to SW_D bytes). */
#ifndef FP8ATTN_WGMMA_LOAD_CUH
#define FP8ATTN_WGMMA_LOAD_CUH

#include "config.cuh"
#include "epilogue.cuh" /* tma_store_rows */
#include "ptx_sm90.cuh"
#include "scheduler.cuh"
#include "trace.cuh"
#include "transpose_v.cuh"
#include "vt_background.cuh"

/* Shared-memory addresses of one block's tiles and barriers. */
template <class C>
struct wg_smem {
    uint32_t q, k, v, vt, o, bar; /* o: the epilogue's staging (C::O_SMEM) */
    uint32_t sched;               /* the dynamic walk's unit slots (scheduler.cuh) */
    uint32_t bg, bg_bar;          /* C::FUSED_VT's chunk buffers and barriers (vt_background.cuh) */
    uint32_t o_full;              /* C::O_IN_RING: a tile's O is staged over the stage (config.cuh) */
    __device__ __forceinline__ uint32_t k_tile(int s) const { return k + s * C::KV_BYTES; }
    __device__ __forceinline__ uint32_t v_tile(int s) const { return v + s * C::KV_BYTES; }
    __device__ __forceinline__ uint32_t vt_tile(int s) const { return vt + s * C::KV_BYTES; }
    __device__ __forceinline__ uint32_t q_tile(int i) const { return q + i * C::Q_BYTES; }
    __device__ __forceinline__ uint32_t q_full(int i) const { return bar + 8 * (i * (2 + 6 * C::STAGES)); }
    __device__ __forceinline__ uint32_t k_full(int s) const { return bar + 8 * (1 + 6 * s); }
    __device__ __forceinline__ uint32_t k_empty(int s) const { return bar + 8 * (2 + 6 * s); }
    __device__ __forceinline__ uint32_t v_full(int s) const { return bar + 8 * (3 + 6 * s); }
    __device__ __forceinline__ uint32_t v_empty(int s) const { return bar + 8 * (4 + 6 * s); }
    __device__ __forceinline__ uint32_t vt_full(int s) const { return bar + 8 * (5 + 6 * s); }
    __device__ __forceinline__ uint32_t vt_empty(int s) const { return bar + 8 * (6 + 6 * s); }
    __device__ __forceinline__ uint32_t q_empty(int i) const { return bar + 8 * (1 + 6 * C::STAGES + 2 * i); }
    __device__ __forceinline__ uint32_t o_full_at(int s) const { return o_full + 8 * s; }
    /* the epilogue's staging area of consumer c's warp w (C::O_SMEM): beside the rings, or with
     * C::O_IN_RING over ring stage s, that of the tile's last key tile (config.cuh): consumer
     * 0's rows over its V^T, consumer 1's over its V, the consumer's whole area (its warps'
     * rows interleave in the 64-row layout: epilogue.cuh stage_rows) */
    __device__ __forceinline__ uint32_t o_area(int s, int c, int w) const
    {
        return C::O_IN_RING ? (c == 0 ? vt_tile(s) : v_tile(s))
                            : o + (uint32_t)((4 * c + w) * 16 * C::D * 2);
    }
};

/* Arrival counts: TMA barriers get one arrive (with the byte count) per phase; the consumers
 * release a stage with one arrive per consumer warp; the transposer with one per thread.
 * PRE_VT (V^T loaded by TMA from the workspace): vt_full is a TMA barrier; v_full and v_empty
 * are not used. */
template <class C, bool PRE_VT>
__device__ __forceinline__ void init_barriers(const wg_smem<C> &sm)
{
    for (int i = 0; i < C::Q_STAGES; i++) {
        mbar_init(sm.q_full(i), 1);
        mbar_init(sm.q_empty(i), 4 * C::CONSUMERS);
    }
    for (int s = 0; s < C::STAGES; s++) {
        mbar_init(sm.k_full(s), 1);
        mbar_init(sm.k_empty(s), 4 * C::CONSUMERS);
        mbar_init(sm.v_full(s), 1);
        mbar_init(sm.v_empty(s), C::TRANSPOSERS);
        mbar_init(sm.vt_full(s), PRE_VT ? 1 : C::TRANSPOSERS);
        mbar_init(sm.vt_empty(s), 4 * C::CONSUMERS);
    }
    init_sched_slot<C>(sm.sched);
    for (int w = 0; w < C::BG_WARPS; w++) mbar_init(sm.bg_bar + 8 * w, 1);
    if (C::BG_IN_O) mbar_init(sm.bg_bar + 8 * C::BG_WARPS, 32 * C::BG_WARPS); /* bg_done */
    if (C::BG_FIRST) mbar_init(sm.bg_bar + C::BG_STARTED_BAR, C::BG_WARPS); /* bg_started */
    for (int s = 0; s < (C::O_IN_RING ? C::STAGES : 0); s++) mbar_init(sm.o_full_at(s), 4 * C::CONSUMERS);
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

/* Phase parity of the use of ring stage g % STAGES by the block's g-th key tile: mbarrier waits
 * on a "full" barrier use it, waits on an "empty" barrier for that use its complement (a fresh
 * barrier counts its phase before 0 as complete, so the first STAGES waits return at once). Q's
 * barriers work the same way with Q_STAGES stages, indexed by qi, the query tiles so far
 * (q_stage, q_phase). */
template <class C>
__device__ __forceinline__ uint32_t ring_phase(int g)
{
    return (uint32_t)g / C::STAGES & 1;
}

/* The ring stage the block's g-th key tile uses (g >= 0: unsigned, so a 3-stage ring's modulo is
 * a multiply-shift and a 2-stage ring's a mask, without the sign fix-up of int's %). */
template <class C>
__device__ __forceinline__ int ring_stage(int g)
{
    return (int)((uint32_t)g % C::STAGES);
}

template <class C>
__device__ __forceinline__ int q_stage(int qi)
{
    return (int)((uint32_t)qi % C::Q_STAGES);
}
template <class C>
__device__ __forceinline__ uint32_t q_phase(int qi)
{
    return (uint32_t)qi / C::Q_STAGES & 1;
}

/* Q of the block's qi-th query tile with keys (the lane of the loading warp that `issue` names:
 * produce's warp-uniform loops; the others only keep the books). */
template <class C>
__device__ __forceinline__ void load_q(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                       int qi, bool issue)
{
    const int i = q_stage<C>(qi);
    if (!issue) return;
    mbar_arrive_expect_tx(sm.q_full(i), C::Q_BYTES);
    tma_tile<C, C::BM>(sm.q_tile(i), &p.tm_q, sm.q_full(i), t.q0, t.hq, t.b);
}

/* Loads of key tile j of query tile t, the block's g-th, into stage g % STAGES (the lane
 * `issue` names, as load_q). */
template <class C>
__device__ __forceinline__ void load_k(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                       int j, int g, bool issue)
{
    const int s = ring_stage<C>(g);
    if (!issue) return;
    mbar_arrive_expect_tx(sm.k_full(s), C::KV_BYTES);
    tma_tile<C, C::BN>(sm.k_tile(s), &p.tm_k, sm.k_full(s), j * C::BN, t.hk, t.b);
}

template <class C>
__device__ __forceinline__ void load_v(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                       int j, int g, bool issue)
{
    const int s = ring_stage<C>(g);
    if (!issue) return;
    mbar_arrive_expect_tx(sm.v_full(s), C::KV_BYTES);
    tma_tile<C, C::BN>(sm.v_tile(s), &p.tm_v, sm.v_full(s), j * C::BN, t.hk, t.b);
}

template <class C>
__device__ __forceinline__ void load_kv(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                        int j, int g, bool issue)
{
    load_k<C>(p, sm, t, j, g, issue);
    load_v<C>(p, sm, t, j, g, issue);
}

/* C::O_IN_RING: whether a tile with keys (its part, its first row q0) has its O staged over the
 * ring and stored by store_o. The producer (produce) and the consumers (mainloop.cuh
 * consume_tile) take this one test, so every o_full arrival has its wait. Not a segment of the
 * split tail (its consumers write their partial O to the workspace, and the warp that merges a
 * tile stores its rows from registers), nor a tile that starts before row 0 (the causal partial
 * tile: store_o's 64-row boxes would start there, where a TMA store faults; its consumers store
 * from registers). */
template <class C>
__device__ __forceinline__ bool o_in_ring(int part, int q0)
{
    return C::O_IN_RING && part == TILE_WHOLE && q0 >= 0;
}

/* C::O_IN_RING, warp 0: once the consumers have staged tile t's O over stage s (o_full_at(s);
 * bit s of o_phases: the parity of its phase, flipped here), its TMA stores: one box of 64 rows
 * per consumer and column block (its tile starts at row 0 or later: o_in_ring); returns once they
 * have read the stage. One
 * barrier per stage: the consumers may stage the next tile's O (over the other stage) before
 * this runs, but not the one after, whose last V is loaded after it. Called by the whole loading
 * warp (produce): every lane waits and keeps o_phases, the lane `issue` names stores. */
template <class C>
__device__ __forceinline__ void store_o(const wgmma_params &p, const wg_smem<C> &sm,
                                        const wg_tile &t, int s, uint32_t &o_phases, bool issue)
{
    mbar_wait(sm.o_full_at(s), (o_phases >> s) & 1);
    o_phases ^= 1u << s;
    if (issue) {
#pragma unroll 1
        for (int c = 0; c < C::CONSUMERS; c++)
            tma_store_rows<C>(p, sm.o_area(s, c, 0), t.q0 + 64 * c, t.hq, t.b);
        bulk_commit();
        bulk_wait_read_all();
    }
    __syncwarp();
}

/* What the producer loads per key tile into the ring: K alone (PRE_VT: V^T is loaded after the
 * next K, see produce()), or K and V. */
template <class C, bool PRE_VT>
__device__ __forceinline__ void load_key_tile(const wgmma_params &p, const wg_smem<C> &sm,
                                              const wg_tile &t, int j, int g, bool issue)
{
    if (PRE_VT) load_k<C>(p, sm, t, j, g, issue);
    else load_kv<C>(p, sm, t, j, g, issue);
}

/* PRE_VT: V^T tile j from the workspace, BN / SW_N boxes of SW_N key bytes x D rows (box c to
 * column block c of the tile's K-major layout). */
template <class C>
__device__ __forceinline__ void load_vt(const wgmma_params &p, const wg_smem<C> &sm, const wg_tile &t,
                                        int j, int g, bool issue)
{
    const int s = ring_stage<C>(g);
    if (!issue) return;
    mbar_arrive_expect_tx(sm.vt_full(s), C::KV_BYTES);
#pragma unroll
    for (int c = 0; c < C::BN / C::SW_N; c++)
        tma_load_4d(sm.vt_tile(s) + c * C::D * C::SW_N, &p.tm_vt, sm.vt_full(s),
                    j * C::BN + c * C::SW_N, 0, t.hk, t.b);
}

/* V -> V^T of the block's g-th key tile by the transposer warps (tw = index among them), once V
 * has landed and the consumers have released that V^T stage; then V^T is handed over and V's
 * stage released. */
template <class C>
__device__ __forceinline__ void transpose_stage(const wg_smem<C> &sm, int g, int tw, int lane)
{
    const int s = ring_stage<C>(g);
    const int ttid = 32 * tw + lane; /* traced: the first transposer thread */
    trace_stamp(2, ttid, g, 0);
    mbar_wait(sm.v_full(s), ring_phase<C>(g));
    trace_stamp(2, ttid, g, 1);
    mbar_wait(sm.vt_empty(s), ring_phase<C>(g) ^ 1);
    trace_stamp(2, ttid, g, 2);
    transpose_tile<C>(sm.v_tile(s), sm.vt_tile(s), tw, lane);
    fence_proxy_async_smem(); /* V^T, written by stmatrix, is read next by wgmma */
    mbar_arrive(sm.vt_full(s));
    mbar_arrive(sm.v_empty(s));
    trace_stamp(2, ttid, g, 3);
}

/* Stage g's K (and V) may be overwritten: the use g - STAGES is released. */
template <class C, bool PRE_VT>
__device__ __forceinline__ void wait_stage_free(const wg_smem<C> &sm, int g)
{
    mbar_wait(sm.k_empty(ring_stage<C>(g)), ring_phase<C>(g) ^ 1);
    if (!PRE_VT) mbar_wait(sm.v_empty(ring_stage<C>(g)), ring_phase<C>(g) ^ 1);
}

/* Q of the block's qi-th query tile with keys, once the consumers are done with the one that
 * held its stage (query tile qi - Q_STAGES). */
template <class C>
__device__ __forceinline__ void load_q_next(const wgmma_params &p, const wg_smem<C> &sm,
                                            const wg_tile &t, int qi, bool issue)
{
    if (qi >= C::Q_STAGES) mbar_wait(sm.q_empty(q_stage<C>(qi)), q_phase<C>(qi) ^ 1);
    load_q<C>(p, sm, t, qi, issue);
}

/* The loads after key tile j's K of a query tile with n key tiles, the block's g-th first
 * (warp 0, its lane `issue` issuing): K_{j+1}, then with PRE_VT V^T_j. j counts from the tile's
 * first key tile t.kt0 (a segment of the split tail starts past 0). */
template <class C, bool PRE_VT>
__device__ __forceinline__ void load_key_turn(const wgmma_params &p, const wg_smem<C> &sm,
                                              const wg_tile &t, int j, int n, int g, bool issue)
{
    if (j + 1 < n) {
        wait_stage_free<C, PRE_VT>(sm, g + j + 1);
        load_key_tile<C, PRE_VT>(p, sm, t, t.kt0 + j + 1, g + j + 1, issue);
    }
    if (PRE_VT) {
        if (C::FUSED_VT && j == 0) {
            if (g == 0) trace_ld(issue ? 0 : 1, 2);
            wait_vt_ready<C>(p, t.b, t.hk); /* the pair's V^T is written */
            if (g == 0) trace_ld(issue ? 0 : 1, 3);
        }
        mbar_wait(sm.vt_empty(ring_stage<C>(g + j)), ring_phase<C>(g + j) ^ 1);
        load_vt<C>(p, sm, t, t.kt0 + j, g + j, issue);
    }
}

/* The producer warpgroup's loop over the block's query tiles (g: key tiles so far, qi: query
 * tiles with keys so far; a tile with none loads nothing).
 * PRE_VT: warp 0 loads all: K_0 and Q (Q first with two Q stages), then K_{j+1} before V^T_j
 * (K_j once S = Q.K^T of the stage's last tile is done, V^T_j once its P.V is; with C::FUSED_VT
 * V^T_0 once the kv head's V^T is written: wait_vt_ready). With C::FUSED_VT warps 2 and 3
 * write V^T (transpose_to_workspace) and return when no chunk is left; with C::BG_FIRST the
 * block's first Q goes after its K_0, once their first V chunks have landed (bg_started).
 * C::LOADER_WARP: warp 0 issues K_0 and V_0 and Q (in the same order), then every key tile as
 * soon as its stage is free (k_empty: the consumers are done with the K it held; v_empty: the
 * transposers with its V), warp-uniformly as below; warps 1-3 transpose.
 * Otherwise: warp 0 issues Q and the first STAGES key tiles of each query tile; all four warps
 * transpose, and after key tile j warp 0 refills its stage with key tile j + STAGES. With
 * C::O_IN_RING the last staged tile's O lies over the stage of its last key tile (config.cuh): warp 0
 * loads the next tile's first K and V into the other stage and its second K, transposes its
 * first V with the others, then stores that O (store_o) and loads the second V (with one key
 * tile, the next tile's first V is the next load into that stage). Warp 0's loads are
 * warp-uniform: all its lanes wait on the barriers and keep the books (the warp index comes
 * through a shuffle, so the compiler knows it is the same in every lane), and one elected lane
 * issues each copy (so does C::LOADER_WARP's warp 0). ptxas then keeps the loop's state (tile,
 * key tile, stage, phases) in uniform registers instead of the 24 per thread that hd256's
 * producer has beside 240-register consumers: with thread 0 alone doing it (a branch on the
 * thread index), the same code spilled about 150 bytes there (docs/PERF.md w110). */
template <class C, bool PRE_VT>
__device__ __forceinline__ void produce(const wgmma_params &p, const wg_smem<C> &sm, int tid)
{
    /* the dynamic walk's slot counts as its readers the consumers' threads and, in the _vt
     * kernels, the loading warp's 32 lanes (warp 1's first thread takes the units), in the
     * transposing kernels the transposer warps' 96 (the loading warp takes them: scheduler.cuh
     * hand_next), so those need a loader warp (init_sched_slot) */
    static_assert(PRE_VT || C::LOADER_WARP || !C::DYNAMIC_WALK, "the taker: a loader warp");
    const int warp = tid >> 5, lane = tid & 31;
    if (C::FUSED_VT && warp >= 2) { /* V^T into the workspace (vt_background.cuh) */
        transpose_to_workspace<C>(p, sm.bg, sm.bg_bar, warp - 2, lane);
        return;
    }
    if (C::DYNAMIC_WALK && C::VT_GLOBAL && warp > 0) { /* warp 1's first thread: the taker */
        if (dynamic_walk<C>(p) && tid == 32) take_units(p, sm.sched);
        return;
    }
    /* warp-uniform from here: the warp index through a shuffle, so the compiler knows it is the
     * same in every lane; warp 0 keeps the books, its elected lane issues (docs/PERF.md w110:
     * +0.2-3 % with a loader warp; w113 in the _vt kernels) */
    const int warp_u = __shfl_sync(0xffffffffu, warp, 0);
    const bool elected = elect_one();
    if (PRE_VT || C::LOADER_WARP) {
        if (warp_u == 0) {
            int g = 0, qi = 0;
            wg_taking tk;
            for (wg_sched s = sched_begin_taking<C>(p, sm.sched, elected, tk); s.u < p.n_units;
                 sched_next_taking<C>(p, sm.sched, s, tk)) {
                const wg_tile t = unit_tile<C>(p, s.u, s.k);
                const int n = t.n_kt;
                if (n == 0) {
                    hand_next<C>(p, sm.sched, s, elected, tk);
                    continue;
                }
                /* with two Q stages Q's stage is free long before K_0's: Q first; C::BG_FIRST:
                 * the first Q once the background's first V chunks have landed (bg_started) */
                const bool q_late = C::BG_FIRST && qi == 0;
                if (C::Q_STAGES > 1 && !q_late) load_q_next<C>(p, sm, t, qi, elected);
                wait_stage_free<C, PRE_VT>(sm, g);
                load_key_tile<C, PRE_VT>(p, sm, t, t.kt0, g, elected);
                if (q_late) mbar_wait(sm.bg_bar + C::BG_STARTED_BAR, 0);
                if (C::Q_STAGES == 1 || q_late) load_q_next<C>(p, sm, t, qi, elected);
                qi++;
                /* the next unit to the slot after this one's first loads (the transposing
                 * kernels' dynamic walk: scheduler.cuh hand_next) */
                hand_next<C>(p, sm.sched, s, elected, tk);
                for (int j = 0; j < n; j++) load_key_turn<C, PRE_VT>(p, sm, t, j, n, g, elected);
                g += n;
            }
        }
        if (PRE_VT || warp_u == 0) return;
        int g = 0;
        for (wg_sched s = sched_begin<C>(p, sm.sched); s.u < p.n_units;
             sched_next<C>(p, sm.sched, s)) {
            const int n = unit_tile<C>(p, s.u, s.k).n_kt;
            for (int j = 0; j < n; j++) transpose_stage<C>(sm, g + j, warp_u - 1, lane);
            g += n;
        }
        return;
    }
    const bool lead = warp_u == 0, one = elected && lead;
    int g = 0, qi = 0;
    int last_u = 0, last_k = 0; /* O_IN_RING: the unit and tile of the last tile whose O is
                                 * staged (whole, with keys, from row 0 on: below); taken again
                                 * for its store: fewer registers than the tile */
    bool o_pending = false; /* ... whose O is still to be stored (the same in every thread) */
    uint32_t o_phases = 0;  /* warp 0: store_o's phase parity per stage */
    for (wg_sched s = sched_begin<C>(p, sm.sched); s.u < p.n_units;
         sched_next<C>(p, sm.sched, s)) {
        const wg_tile t = unit_tile<C>(p, s.u, s.k);
        const int n = t.n_kt;
        if (n == 0) continue;
        const int k0 = t.kt0; /* 0 but in a segment of the split tail (C::SPLIT_TAIL) */
        if (lead) {
            for (int j = 0; j < n && j < C::STAGES; j++) {
                wait_stage_free<C, false>(sm, g + j);
                /* O_IN_RING: key tile 1 is in the stage the last tile's O lies over; its V
                 * waits for store_o below */
                if (C::O_IN_RING && o_pending && j == 1) load_k<C>(p, sm, t, k0 + j, g + j, one);
                else load_kv<C>(p, sm, t, k0 + j, g + j, one);
                if (j == 0) load_q_next<C>(p, sm, t, qi, one);
            }
        }
        qi++;
        for (int j = 0; j < n; j++) {
            transpose_stage<C>(sm, g + j, warp_u, lane);
            if (C::O_IN_RING && j == 0 && o_pending) {
                if (lead) {
                    store_o<C>(p, sm, unit_tile<C>(p, last_u, last_k), ring_stage<C>(g - 1),
                               o_phases, one);
                    if (n > 1) load_v<C>(p, sm, t, k0 + 1, g + 1, one);
                }
                o_pending = false;
            }
            if (lead && j + C::STAGES < n) {
                wait_stage_free<C, false>(sm, g + j + C::STAGES);
                load_kv<C>(p, sm, t, k0 + j + C::STAGES, g + j + C::STAGES, one);
            }
        }
        if (o_in_ring<C>(t.part, t.q0)) {
            last_u = s.u;
            last_k = s.k;
            o_pending = true;
        }
        g += n;
    }
    if (C::O_IN_RING && o_pending && lead) {
        store_o<C>(p, sm, unit_tile<C>(p, last_u, last_k), ring_stage<C>(g - 1), o_phases, one);
        if (one) bulk_wait_all(); /* complete before the block exits */
    }
}

#endif
