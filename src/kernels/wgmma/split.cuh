/* The split tail (C::SPLIT_TAIL kernels; the plan: sched_plan.cu fp8attn_wgmma_split_plan).
 *
 * Without the causal mask every query tile costs the same, so a problem of T tiles on G blocks
 * takes ceil(T / G) rounds, and the last one, T mod G tiles, leaves the other blocks idle: at
 * (1,16,16384,128), 2048 tiles on 132 SMs, 68 tiles run a sixteenth round while 64 SMs wait,
 * 4.6 % of the call's SM time (docs/PERF.md w62). The plan keeps the full rounds as they are
 * (units below p.split_units0) and spreads the last round's key tiles evenly over all G blocks:
 * block b takes the tail's key tiles [b W / G, (b + 1) W / G), W = tail tiles x key tiles per
 * tile, in at most two segments (its range is no longer than a tile, so it meets two at most;
 * scheduler.cuh unit_tile). A segment runs like a tile of its own (its own m, l and O from its
 * first key tile on) and ends here instead of in the epilogue:
 *   - each consumer warp writes its 16 rows' partial O (fp32, the accumulator as it is), row
 *     maxima and row-sum shares to the segment's slot in the workspace; after __syncwarp its
 *     lane 0 fences and counts the warp on the tile's counter for that warp (one atomic);
 *   - the warp that counts last (the tile's segments are known: the blocks whose ranges meet
 *     it) reads every segment's slot, in segment order, and merges them: m = the largest m,
 *     O = sum of 2^(m_s - m) O_s, l likewise; then the usual epilogue writes O and the LSE.
 * The merge reads its own slot back like the others', so the sum's order, and the output, do
 * not depend on which warp came last: the same inputs give the same bits on every call. (Not the
 * bits of the same problem without a workspace, whose tiles are not split: the sum of P.V is
 * grouped differently; docs/PERF.md w62 has the error of both against fp64.) Nothing waits for
 * another block, so no block's progress depends on another's being resident.
 * The tail's tiles are taken head by head, or, where the tail is whole heads, query tile by query
 * tile (scheduler.cuh unit_tile): then the blocks on one head's query tiles start at the same key
 * offsets and read each K and V tile from L2 together (docs/PERF.md w66: DRAM 959 -> 283 MB at
 * (1,16,16,512,32768,256)). The _vt kernels run the split, and hd256's transposing kernel, whose
 * workspace then holds only the counts and slots (config.cuh SPLIT_TAIL). */
#ifndef FP8ATTN_WGMMA_SPLIT_CUH
#define FP8ATTN_WGMMA_SPLIT_CUH

#include <math.h>

#include "config.cuh"
#include "scheduler.cuh"
#include "wgmma_host.h" /* FP8ATTN_WGMMA_SPLIT_LANE_F4 */

/* float4 per lane in a slot: O's D / 2 accumulator values, then (m0, m1, l0, l1); the host sizes
 * the slots with the same macro (wgmma_host.h, vt_prepass.cu) */
template <class C>
__device__ __forceinline__ constexpr int split_lane_f4()
{
    return FP8ATTN_WGMMA_SPLIT_LANE_F4(C::D);
}

/* Consumer warp wi's region of slot `slot` (FP8ATTN_WGMMA_SPLIT_WARP_BYTES(D) bytes): [lane float4 i]
 * at [i][32 lanes], so each float4 a warp stores or loads is 512 contiguous bytes. */
template <class C>
__device__ __forceinline__ float4 *split_slot(const wgmma_params &p, int slot, int wi, int lane)
{
    return reinterpret_cast<float4 *>(p.split_part) +
           ((int64_t)slot * (4 * C::CONSUMERS) + wi) * (split_lane_f4<C>() * 32) + lane;
}

/* The slot of block b's segment in split tile ti. */
__device__ __forceinline__ int split_slot_index(const wgmma_params &p, int b, int ti)
{
    return 2 * b + (split_tile_of(p, split_range_start(p, b)) == ti ? 0 : 1);
}

/* Consumer c's warp w at the end of segment t (t.part: its slot) with its rows' o, m, l: writes
 * them and counts the segment; true if this warp came last, with o, m, l then the whole tile's
 * (the caller writes the output), false otherwise (nothing else to do for these rows). */
template <class C>
__device__ __forceinline__ bool split_merge(const wgmma_params &p, const wg_tile &t, int c, int w,
                                            int lane, float (&o)[C::D / 2], float (&m)[2],
                                            float (&l)[2])
{
    constexpr int F4 = split_lane_f4<C>();
    const int wi = 4 * c + w;
    float4 *mine = split_slot<C>(p, t.part, wi, lane);
#pragma unroll
    for (int i = 0; i < C::D / 8; i++)
        mine[32 * i] = make_float4(o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]);
    mine[32 * (F4 - 1)] = make_float4(m[0], m[1], l[0], l[1]);
    __syncwarp(); /* every lane's stores happen before lane 0's fence, which releases them ... */
    const int first = t.sti * p.split_nk;
    const int b_lo = split_block_of(p, first), b_hi = split_block_of(p, first + p.split_nk - 1);
    int last = 0;
    int32_t *count = p.split_count + t.sti * (4 * C::CONSUMERS) + wi;
    if (lane == 0) {
        __threadfence(); /* ... to the device before the count */
        last = atomicAdd(count, 1) == b_hi - b_lo;
        __threadfence(); /* the other segments' stores, seen through the count, before ... */
    }
    __syncwarp(); /* ... every lane's loads (the warp barrier orders memory among its lanes) */
    last = __shfl_sync(0xffffffffu, last, 0);
    if (!last) return false;
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll 1
    for (int b = b_lo; b <= b_hi; b++) {
        const float4 *s = split_slot<C>(p, split_slot_index(p, b, t.sti), wi, lane);
        const float4 ml = __ldcg(s + 32 * (F4 - 1));
        mx[0] = fmaxf(mx[0], ml.x);
        mx[1] = fmaxf(mx[1], ml.y);
    }
#pragma unroll
    for (int i = 0; i < C::D / 2; i++) o[i] = 0.0f;
    l[0] = l[1] = 0.0f;
#pragma unroll 1
    for (int b = b_lo; b <= b_hi; b++) {
        const float4 *s = split_slot<C>(p, split_slot_index(p, b, t.sti), wi, lane);
        const float4 ml = __ldcg(s + 32 * (F4 - 1));
        /* a segment whose rows saw no key (m = -inf) adds nothing */
        const float a0 = ml.x == -INFINITY ? 0.0f : exp2f(ml.x - mx[0]);
        const float a1 = ml.y == -INFINITY ? 0.0f : exp2f(ml.y - mx[1]);
        l[0] += a0 * ml.z;
        l[1] += a1 * ml.w;
#pragma unroll
        for (int i = 0; i < C::D / 8; i++) {
            const float4 v = __ldcg(s + 32 * i);
            o[4 * i] += a0 * v.x;
            o[4 * i + 1] += a0 * v.y;
            o[4 * i + 2] += a1 * v.z;
            o[4 * i + 3] += a1 * v.w;
        }
    }
    m[0] = mx[0];
    m[1] = mx[1];
    return true;
}

#endif
