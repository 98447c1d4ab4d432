/* Consumer warpgroups: the main loop over key tiles (S = Q.K^T, mask, online softmax, O += P.V)
 * and the hand-off of each stage back to the producer.
 *
 * OVERLAP (intra-warpgroup): tile j's S = Q.K_j^T and tile j-1's O += P_{j-1}.V_{j-1} are issued
 * as two wgmma batches back to back, and O is rescaled only once the P.V batch is done. The source
 * puts tile j's softmax between the two waits; ptxas hoists the second wait up to the mask's end,
 * above the row max (FA3's lands after its row maxima: docs/PERF.md w91), so in practice the gain
 * is the two batches issued together (+7.5 % at hd128, w0). The softmax overlaps the other
 * consumer's GEMMs.
 * CROSS (OVERLAP with two Q stages; not with PINGPONG or SPEC_EXP): consume_cross runs one loop
 * over all the block's key tiles, across its query tiles. At a query tile's last key tile the
 * batch issued with its P.V is the next query tile's S = Q'.K_0^T, whose softmax then runs under
 * that P.V; the epilogue follows. The boundary costs one epilogue instead of an epilogue, a lone
 * S and a softmax that nothing overlaps.
 * PINGPONG (inter-warpgroup, needs OVERLAP; off by default, measured slower): the two consumers
 * take turns issuing their batches, ordered by two named barriers (FA3's scheme). */
#ifndef FP8ATTN_WGMMA_MAINLOOP_CUH
#define FP8ATTN_WGMMA_MAINLOOP_CUH

#include "../common.cuh"
#include "epilogue.cuh"
#include "gemm.cuh"
#include "load.cuh"
#include "mask.cuh"
#include "softmax.cuh"
#include "split.cuh"
#include "trace.cuh"

/* Named barriers 1 and 2 (0 is __syncthreads): consumer c waits on 1 + c before issuing, then
 * lets the other one go. 256 = both consumers' threads (128 sync + 128 arrive). Named barrier
 * 3: C::O_IN_RING's consumers, before they stage O over the ring (consume_tile). */
template <bool PINGPONG>
__device__ __forceinline__ void turn_wait(int c)
{
    if (PINGPONG) named_bar_sync(1 + c, 256);
}
template <bool PINGPONG>
__device__ __forceinline__ void turn_pass(int c)
{
    if (PINGPONG) named_bar_arrive(2 - c, 256);
}

/* One arrive per consumer warp, once the warp's wgmma reads of the stage are complete. */
__device__ __forceinline__ void release(uint32_t bar, int lane)
{
    __syncwarp();
    if (lane == 0) mbar_arrive(bar);
}

/* EARLY_TEST: during tile j's softmax, test (mbarrier.test_wait, never blocking) whether the
 * stages tile j + 1 issues from are full; if so, skip the blocking waits before that issue. The
 * barrier round trip then runs under the softmax: H100 +2-3 % at hd128, +0.5 % at hd256, +0-1 %
 * at hd64 (docs/PERF.md w17). 0: the blocking waits only (A/B builds). */
#ifndef WGMMA_EARLY_TEST
#define WGMMA_EARLY_TEST 1
#endif
static constexpr bool EARLY_TEST = WGMMA_EARLY_TEST;

/* SPEC_EXP (A/B builds, docs/PERF.md w25-w26): tiles after the first take the speculative
 * softmax (softmax.cuh, softmax_pack_spec), whose exponentials do not wait for the tile's row
 * max. */
#ifndef WGMMA_SPEC_EXP
#define WGMMA_SPEC_EXP 0
#endif
#ifndef WGMMA_SPEC_EXP_HD256
#define WGMMA_SPEC_EXP_HD256 WGMMA_SPEC_EXP /* hd256's _vt kernel spills 56 bytes with it */
#endif
template <class C>
__device__ __forceinline__ constexpr bool spec_exp()
{
    return C::D == 256 ? WGMMA_SPEC_EXP_HD256 : WGMMA_SPEC_EXP;
}

/* PV_PACK_FIRST: in overlap_turn, P_j is packed into pa before O is rescaled, so ptxas may
 * interleave the packing (F2FP) with the last exponentials instead of running it as a block after
 * them. H200, time without / with (docs/PERF.md w91, w92): hd256's _vt kernel 1.015-1.045 at
 * 2k-16k keys, causal and not, and hd64's 128-row kernels (hd64_m128: 2 consumers) 1.005-1.040
 * (one-wave (1,8,2048,64) 1.040, causal 256-1024 keys 1.005-1.015): on by default; hd128
 * 0.916-0.976, hd64's _vt 0.983-0.990 and its 192-row kernels without the mask 0.977-0.982: off
 * (hd64_n160 causal 1.010). hd256's transposing kernel, overlapped since w110, takes it too
 * (measured with it only). */
#ifndef WGMMA_PV_PACK_FIRST
#define WGMMA_PV_PACK_FIRST 0
#endif
#ifndef WGMMA_PV_PACK_FIRST_HD256
#define WGMMA_PV_PACK_FIRST_HD256 1
#endif
#ifndef WGMMA_PV_PACK_FIRST_HD64_M128
#define WGMMA_PV_PACK_FIRST_HD64_M128 1
#endif
template <class C>
__device__ __forceinline__ constexpr bool pv_pack_first()
{
    if (C::D == 256) return WGMMA_PV_PACK_FIRST_HD256;
    if (C::D == 64 && C::CONSUMERS == 2) return WGMMA_PV_PACK_FIRST_HD64_M128;
    return WGMMA_PV_PACK_FIRST;
}

/* softmax_scale * q_descale * k_descale * log2(e) for tile t's head. */
__device__ __forceinline__ float tile_scale_log2(const wgmma_params &p, const wg_tile &t)
{
    return p.scale_log2 * load_descale(p.q_descale, t.b, t.hq) * load_descale(p.k_descale, t.b, t.hk);
}

/* The per-lane view of one query tile that the turns below need: this lane's first row (row_g
 * and row_g + 8), the warpgroup's first key tile that needs a mask (mask.cuh), the tile's
 * scale, and its first key tile kt0 (0 but in a segment of the split tail, split.cuh); the
 * turns' j and jm count from kt0. */
struct wg_rows {
    int row_g, jm;
    float sl2;
    int kt0;
};

/* OVERLAP, the first key tile of a query tile (the block's g-th of the ring): S = Q.K_0^T alone,
 * its mask and softmax from fresh m, l; P packed into pa. n is the tile's key-tile count (the
 * last one gives Q's stage qs back). */
template <class C, bool PINGPONG>
__device__ __forceinline__ void overlap_first(const wgmma_params &p, const wg_smem<C> &sm,
                                              uint32_t q, int qs, int c, int lane, int g, int n,
                                              const wg_rows &r, float (&m)[2], float (&l)[2],
                                              uint32_t (&pa)[C::BN / 32][4])
{
    const int st = ring_stage<C>(g);
    float alpha[2];
    mbar_wait(sm.k_full(st), ring_phase<C>(g));
    float s0[C::BN / 2];
    turn_wait<PINGPONG>(c);
    wgmma_fence();
    issue_qk<C>(s0, q, sm.k_tile(st), c);
    wgmma_commit();
    turn_pass<PINGPONG>(c);
    wgmma_wait<0>();
    reg_fence(s0);
    release(sm.k_empty(st), lane);
    if (n == 1) release(sm.q_empty(qs), lane);
    mask_tile<C>(s0, p, 0, r.jm, r.row_g, lane & 3, r.kt0);
    softmax_tile(s0, m, l, r.sl2, alpha);
    pack_p(s0, pa);
}

/* OVERLAP, key tile j >= 1 of a query tile whose key tile 0 is the block's g-th: S_j = Q.K_j^T
 * and O += P_{j-1}.V_{j-1} issued together, then tile j's mask and softmax under the P.V, O
 * rescaled, P_j packed into pa. ready: this turn's two stages were seen full during the last
 * one (EARLY_TEST); on return, the same for the next turn. */
template <class C, bool PINGPONG, bool SKIP_RESCALE>
__device__ __forceinline__ void overlap_turn(const wgmma_params &p, const wg_smem<C> &sm,
                                             uint32_t q, int qs, int c, int wtid, int g, int j,
                                             int n, const wg_rows &r, float (&o)[C::D / 2],
                                             float (&m)[2], float (&l)[2],
                                             uint32_t (&pa)[C::BN / 32][4], uint32_t &ready)
{
    const int lane = wtid & 31;
    const int gj = g + j;
    const int st = ring_stage<C>(gj), sp = ring_stage<C>(gj - 1);
    const uint32_t ph = ring_phase<C>(gj), pp = ring_phase<C>(gj - 1);
    float alpha[2];
    trace_stamp(c, wtid, gj, 0);
    if (!ready) {
        mbar_wait(sm.k_full(st), ph);
        mbar_wait(sm.vt_full(sp), pp);
    }
    float s[C::BN / 2];
    turn_wait<PINGPONG>(c);
    trace_stamp(c, wtid, gj, 1);
    wgmma_fence();
    issue_qk<C>(s, q, sm.k_tile(st), c);
    wgmma_commit();
    issue_pv<C>(o, pa, sm.vt_tile(sp));
    wgmma_commit();
    turn_pass<PINGPONG>(c);
    trace_stamp(c, wtid, gj, 2);
    wgmma_wait<1>(); /* S_j done; P_{j-1}.V_{j-1} may still run */
    reg_fence(s);
    trace_stamp(c, wtid, gj, 3);
    release(sm.k_empty(st), lane);
    if (j == n - 1) release(sm.q_empty(qs), lane);
    /* EARLY_TEST: look at the next turn's stages now, so the barrier round trip runs under the
     * softmax instead of before the next issue (at j = n - 1 those of the tile after, or of
     * CROSS's boundary turn; past the block's last tile the result is never read) */
    if (EARLY_TEST)
        ready = mbar_test(sm.k_full(ring_stage<C>(gj + 1)), ring_phase<C>(gj + 1)) &
                mbar_test(sm.vt_full(st), ph);
    mask_tile<C>(s, p, j, r.jm, r.row_g, lane & 3, r.kt0);
    if (spec_exp<C>()) {
        /* where ptxas hoists the default path's wait to (below): P_{j-1}.V_{j-1} done, so pa is
         * free for the new P */
        wgmma_wait<0>();
        reg_fence(o);
        reg_fence(pa);
        release(sm.vt_empty(sp), lane);
        softmax_pack_spec(s, m, l, r.sl2, alpha, pa);
        rescale_o_if_moved<SKIP_RESCALE>(o, alpha);
        trace_stamp(c, wtid, gj, 4);
        if (WGMMA_TRACE) reg_fence(pa);
        trace_stamp(c, wtid, gj, 5);
        return;
    }
    softmax_tile(s, m, l, r.sl2, alpha);
    reg_fence(s); /* keeps the softmax ahead of the wait: it must run under P.V */
    reg_fence(l);
    trace_stamp(c, wtid, gj, 4);
    wgmma_wait<0>(); /* ptxas hoists this up to the last arrive or block boundary before it, the
                      * mask's end, above the row max (in hd128_n224_vt's SASS; FA3's lands after
                      * its row maxima: PERF w91, branch wip/pv-wait-pin); a conditional wait
                      * would keep it here but makes ptxas serialise every wgmma (C7514), which is
                      * slower. Kept here by a basic-block boundary it is 3-9 % slower (PERF w8,
                      * w24): the hoisted wait keeps the two consumers out of phase */
    reg_fence(o);
    reg_fence(pa);
    release(sm.vt_empty(sp), lane);
    if (pv_pack_first<C>()) {
        pack_p(s, pa);
        rescale_o_if_moved<SKIP_RESCALE>(o, alpha);
    } else {
        rescale_o_if_moved<SKIP_RESCALE>(o, alpha);
        pack_p(s, pa);
    }
    if (WGMMA_TRACE) reg_fence(pa); /* the stamp after the packing */
    trace_stamp(c, wtid, gj, 5);
}

/* One query tile t: its key tiles are the block's g-th, g+1-th, ... of the ring, its Q the
 * qi-th (its stage and phase: q_stage, q_phase). */
template <class C, bool OVERLAP, bool PINGPONG, bool SKIP_RESCALE>
__device__ __forceinline__ void consume_tile(const wgmma_params &p, const wg_smem<C> &sm,
                                             const wg_tile &t, int c, int wtid, int g, int qi,
                                             int u, int k)
{
    static_assert(OVERLAP || !PINGPONG, "ping-pong needs the overlapped schedule");
    static_assert(C::CONSUMERS == 2 || !PINGPONG, "ping-pong is between two consumers");
    const int w = wtid >> 5, lane = wtid & 31, tq = lane & 3;
    const int row_lo = t.q0 + 64 * c;             /* first row of this warpgroup */
    const int row_g = row_lo + 16 * w + (lane >> 2); /* this lane's rows: row_g, row_g + 8 */
    const float sl2 = tile_scale_log2(p, t);
    /* O_IN_RING: v_descale loaded with the tile's other descales and held across the key tiles
     * (one register); loaded in the epilogue, it came after named barrier 3, across which ptxas
     * moves no load (docs/PERF.md w73: time before / after 0.999-1.007, hd256 512-8k keys) */
    constexpr bool vds_early = C::O_IN_RING;
    const float vds_t = vds_early ? load_descale(p.v_descale, t.b, t.hk) : 0.0f;
    /* key tiles t.kt0 + j, j >= jm, need the mask */
    const int jm = first_masked_tile<C>(p, row_lo) - t.kt0;

    float o[C::D / 2];
#pragma unroll
    for (int i = 0; i < C::D / 2; i++) o[i] = 0.0f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];
    uint32_t pa[C::BN / 32][4]; /* P as E4M3 A fragments */
    /* S (float s[BN / 2] below) is declared afresh for each tile: the wgmma that fills it
     * (scale_d 0) then has no input value, so ptxas does not see the previous tile's softmax
     * defining the accumulator of the next wgmma (which made it wait for every batch first). */
    const int n = t.n_kt;
    const int qs = q_stage<C>(qi);
    const uint32_t q = sm.q_tile(qs);

    trace_tile(c, wtid, qi, 0);
    if (n > 0) {
        mbar_wait(sm.q_full(qs), q_phase<C>(qi));
        trace_tile(c, wtid, qi, 1);
        if (!OVERLAP) {
            /* j counts key tiles from 0, not from t.kt0 (a segment's first): the ring's index is
             * gb + j, the mask's first tile jm + kt0 (one register less than g, jm and kt0: the
             * split tail's consumers in hd256's transposing kernel have 224) */
            const int kt0 = t.kt0, gb = g - kt0, jma = jm + kt0, ne = kt0 + n;
            for (int j = kt0; j < ne; j++) {
                const int st = ring_stage<C>(gb + j);
                const uint32_t ph = ring_phase<C>(gb + j);
                trace_stamp(c, wtid, gb + j, 0);
                mbar_wait(sm.k_full(st), ph);
                float s[C::BN / 2];
                trace_stamp(c, wtid, gb + j, 1);
                wgmma_fence();
                issue_qk<C>(s, q, sm.k_tile(st), c);
                wgmma_commit();
                wgmma_wait<0>();
                reg_fence(s);
                trace_stamp(c, wtid, gb + j, 2);
                release(sm.k_empty(st), lane);
                if (j == ne - 1) release(sm.q_empty(qs), lane); /* the producer may reuse Q's stage */
                mask_tile<C>(s, p, j, jma, row_g, tq);
                softmax_tile(s, m, l, sl2, alpha);
                rescale_o(o, alpha);
                pack_p(s, pa);
                if (WGMMA_TRACE) reg_fence(pa);
                trace_stamp(c, wtid, gb + j, 3);
                mbar_wait(sm.vt_full(st), ph);
                trace_stamp(c, wtid, gb + j, 4);
                wgmma_fence();
                issue_pv<C>(o, pa, sm.vt_tile(st));
                wgmma_commit();
                wgmma_wait<0>();
                reg_fence(o);
                reg_fence(pa);
                trace_stamp(c, wtid, gb + j, 5);
                release(sm.vt_empty(st), lane);
            }
        } else {
            if (PINGPONG && c == 1) turn_pass<true>(c); /* consumer 0 goes first */
            const wg_rows r = {row_g, jm, sl2, t.kt0};
            overlap_first<C, PINGPONG>(p, sm, q, qs, c, lane, g, n, r, m, l, pa);
            uint32_t ready = 0; /* this tile's two stages were seen full during the last one */
            for (int j = 1; j < n; j++)
                overlap_turn<C, PINGPONG, SKIP_RESCALE>(p, sm, q, qs, c, wtid, g, j, n, r, o, m, l,
                                                        pa, ready);
            /* the last tile's P.V */
            const int sl = ring_stage<C>(g + n - 1);
            mbar_wait(sm.vt_full(sl), ring_phase<C>(g + n - 1));
            turn_wait<PINGPONG>(c);
            wgmma_fence();
            issue_pv<C>(o, pa, sm.vt_tile(sl));
            wgmma_commit();
            if (c == 0) turn_pass<PINGPONG>(c); /* consumer 1's last pass would be left over */
            wgmma_wait<0>();
            reg_fence(o);
            reg_fence(pa);
            release(sm.vt_empty(sl), lane);
        }
    }
    trace_tile(c, wtid, qi, 2);
    /* C::SPLIT_TAIL without the overlap (hd256's transposing kernel before w110, with 224
     * registers; now A/B builds only): the tile taken again from its unit (opaque: not held
     * across the loop above, which spilled) */
    const wg_tile te =
        C::SPLIT_TAIL && !OVERLAP ? unit_tile<C>(p, (int)opaque_u32((uint32_t)u), k) : t;
    /* a segment of the split tail: its rows' partial O to the workspace; the warp that completes
     * the tile merges the segments and writes the output (split.cuh). A segment without keys
     * (TILE_NONE) writes nothing. */
    if (C::SPLIT_TAIL && te.part != TILE_WHOLE &&
        (te.part == TILE_NONE || !split_merge<C>(p, te, c, w, lane, o, m, l)))
        return;
    /* O_IN_RING (config.cuh): O is staged over the stage of the tile's last key tile, so both
     * consumers' P.V reads of its V^T are done first (named barrier 3), and producer warp 0
     * stores it (load.cuh store_o). A tile without keys stores from registers and owes no
     * o_full arrive (the producer skips it), nor does a tile o_in_ring leaves out (a merged
     * tile of the split tail, a tile that starts before row 0: load.cuh). */
    const bool o_ring = n > 0 && o_in_ring<C>(te.part, te.q0);
    if (o_ring) named_bar_sync(3, 128 * C::CONSUMERS);
    const int so = ring_stage<C>(g + n - 1);
    const float vds = vds_early ? vds_t : load_descale(p.v_descale, te.b, te.hk);
    write_output<C>(p, sm.o_area(so, c, w), o, m, l, te.b, te.hq, vds, te.q0 + 64 * c + 16 * w,
                    row_g, lane, tq, !C::O_IN_RING || o_ring);
    if (o_ring && lane == 0) mbar_arrive(sm.o_full_at(so));
    trace_tile(c, wtid, qi, 3);
}

/* CROSS: the block's next tile with keys into t (false: none left); the tiles with none on the
 * way get O = 0, LSE = -inf. */
template <class C>
__device__ __forceinline__ bool next_with_keys(const wgmma_params &p, uint32_t slot, wg_sched &s,
                                               wg_tile &t, int c, int wtid)
{
    const int w = wtid >> 5, lane = wtid & 31;
    while (s.u < p.n_units) {
        t = unit_tile<C>(p, s.u, s.k);
        sched_next<C>(p, slot, s);
        if (t.n_kt > 0) return true;
        write_zero_rows<C::D>(p, t.b, t.hq, t.q0 + 64 * c + 16 * w + (lane >> 2), lane & 3);
        __syncwarp(); /* see consume_cross */
    }
    return false;
}

/* CROSS (see the top): consumer warpgroup c's loop over the block's query tiles, each a loop over
 * its key tiles that is consume_tile's, then one boundary turn. g0 is the block's index of t's
 * key tile 0 (ring stage and phase), qi t's among the query tiles with keys (Q's stage and
 * phase). */
template <class C, bool SKIP_RESCALE>
__device__ __forceinline__ void consume_cross(const wgmma_params &p, const wg_smem<C> &sm, int c,
                                              int wtid)
{
    static_assert(!C::O_IN_RING || C::Q_STAGES == 1, "consume_tile alone hands O_IN_RING's O over");
    const int w = wtid >> 5, lane = wtid & 31, tq = lane & 3;
    const int row_q = 64 * c + 16 * w + (lane >> 2); /* this lane's first row in a tile */
    const uint32_t o_smem = sm.o_area(0, c, w);
    wg_sched sch = sched_begin<C>(p, sm.sched);
    wg_tile t;
    if (next_with_keys<C>(p, sm.sched, sch, t, c, wtid)) {
        float o[C::D / 2];
#pragma unroll
        for (int i = 0; i < C::D / 2; i++) o[i] = 0.0f;
        float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];
        uint32_t pa[C::BN / 32][4]; /* P as E4M3 A fragments */
        float sl2 = tile_scale_log2(p, t);
        int jm = first_masked_tile<C>(p, t.q0 + 64 * c); /* t's first key tile with the mask */
        int g0 = 0, qi = 0;
        trace_tile(c, wtid, 0, 0);
        mbar_wait(sm.q_full(0), q_phase<C>(0));
        trace_tile(c, wtid, 0, 1);
        overlap_first<C, false>(p, sm, sm.q_tile(0), 0, c, lane, 0, t.n_kt,
                                wg_rows{t.q0 + row_q, jm, sl2, 0}, m, l, pa);
        uint32_t ready = 0; /* the next turn's two stages were seen full during this one */
        for (;;) {
            const int n = t.n_kt, qs = q_stage<C>(qi);
            const uint32_t q = sm.q_tile(qs);
            const int row_lo = t.q0 + 64 * c, row_g = t.q0 + row_q;
            const wg_rows r = {row_g, jm, sl2, 0};
            for (int j = 1; j < n; j++)
                overlap_turn<C, false, SKIP_RESCALE>(p, sm, q, qs, c, wtid, g0, j, n, r, o, m, l,
                                                     pa, ready);
            /* the boundary turn: t's last P.V with key tile 0 of the next tile nt, whose softmax
             * runs under that P.V; then t's epilogue */
            wg_tile nt;
            if (!next_with_keys<C>(p, sm.sched, sch, nt, c, wtid)) break;
            const int gl = g0 + n - 1, gn = g0 + n, qn = qi + 1, qsn = q_stage<C>(qn);
            const int st = ring_stage<C>(gn), sp = ring_stage<C>(gl);
            if (!ready) {
                mbar_wait(sm.k_full(st), ring_phase<C>(gn));
                mbar_wait(sm.vt_full(sp), ring_phase<C>(gl));
            }
            mbar_wait(sm.q_full(qsn), q_phase<C>(qn));
            float s[C::BN / 2];
            wgmma_fence();
            issue_qk<C>(s, sm.q_tile(qsn), sm.k_tile(st), c);
            wgmma_commit();
            issue_pv<C>(o, pa, sm.vt_tile(sp));
            wgmma_commit();
            wgmma_wait<1>();
            reg_fence(s);
            release(sm.k_empty(st), lane);
            if (nt.n_kt == 1) release(sm.q_empty(qsn), lane);
            if (EARLY_TEST)
                ready = mbar_test(sm.k_full(ring_stage<C>(gn + 1)), ring_phase<C>(gn + 1)) &
                        mbar_test(sm.vt_full(st), ring_phase<C>(gn));
            const int jmn = first_masked_tile<C>(p, nt.q0 + 64 * c);
            mask_tile<C>(s, p, 0, jmn, nt.q0 + row_q, tq);
            float mn[2] = {-INFINITY, -INFINITY}, ln[2] = {0.0f, 0.0f};
            const float sl2n = tile_scale_log2(p, nt);
            softmax_tile(s, mn, ln, sl2n, alpha);
            reg_fence(s);
            reg_fence(ln);
            wgmma_wait<0>();
            reg_fence(o);
            reg_fence(pa);
            release(sm.vt_empty(sp), lane);
            pack_p(s, pa);
            trace_tile(c, wtid, qi, 2);
            write_output<C>(p, o_smem, o, m, l, t.b, t.hq, load_descale(p.v_descale, t.b, t.hk),
                            row_lo + 16 * w, row_g, lane, tq);
            __syncwarp(); /* without it ptxas cannot tell that the warp is converged again, and
                           * guards the key-tile loop's shuffles with divergence checks whose
                           * block boundaries keep it from hoisting the loop's P.V wait (the
                           * loop ran 11-23 % slower) */
            trace_tile(c, wtid, qi, 3);
#pragma unroll
            for (int i = 0; i < C::D / 2; i++) o[i] = 0.0f;
#pragma unroll
            for (int r = 0; r < 2; r++) {
                m[r] = mn[r];
                l[r] = ln[r];
            }
            t = nt;
            sl2 = sl2n;
            jm = jmn;
            g0 = gn;
            qi = qn;
        }
        /* the block's last P.V */
        const int gl = g0 + t.n_kt - 1, sl = ring_stage<C>(gl);
        mbar_wait(sm.vt_full(sl), ring_phase<C>(gl));
        wgmma_fence();
        issue_pv<C>(o, pa, sm.vt_tile(sl));
        wgmma_commit();
        wgmma_wait<0>();
        reg_fence(o);
        reg_fence(pa);
        release(sm.vt_empty(sl), lane);
        trace_tile(c, wtid, qi, 2);
        write_output<C>(p, o_smem, o, m, l, t.b, t.hq, load_descale(p.v_descale, t.b, t.hk),
                        t.q0 + 64 * c + 16 * w, t.q0 + row_q, lane, tq);
        trace_tile(c, wtid, qi, 3);
    }
    if (C::O_SMEM && lane == 0) bulk_wait_all(); /* the last tile's O stores are complete */
}

/* The consumer warpgroup c's loop over the block's query tiles (scheduler.cuh), in the order the
 * producer loads them. */
template <class C, bool OVERLAP, bool PINGPONG, bool SKIP_RESCALE>
__device__ __forceinline__ void consume(const wgmma_params &p, const wg_smem<C> &sm, int c, int wtid)
{
    if (OVERLAP && !PINGPONG && C::Q_STAGES == 2 && !spec_exp<C>()) { /* CROSS */
        consume_cross<C, SKIP_RESCALE>(p, sm, c, wtid);
        return;
    }
    int g = 0, qi = 0; /* key tiles and query tiles with keys so far */
    for (wg_sched s = sched_begin<C>(p, sm.sched); s.u < p.n_units;
         sched_next<C>(p, sm.sched, s)) {
        const wg_tile t = unit_tile<C>(p, s.u, s.k);
        consume_tile<C, OVERLAP, PINGPONG, SKIP_RESCALE>(p, sm, t, c, wtid, g, qi, s.u, s.k);
        g += t.n_kt;
        qi += t.n_kt > 0;
    }
    if (C::O_SMEM && (wtid & 31) == 0) bulk_wait_all(); /* the last tile's O stores are complete */
}

#endif
