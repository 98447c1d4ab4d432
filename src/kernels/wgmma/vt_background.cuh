/* V^T written into the workspace by the _vt kernel itself, in the background (C::FUSED_VT),
 * instead of by the V^T pass before it (vt_prepass.cu).
 *
 * The pass costs its own time: ~26 us for 33.5 MB of V, 7-10 % of a 2k-key call, during which
 * no tensor core runs. Here producer warps 2 and 3 of every block, idle in a _vt kernel (warp 0
 * loads, warp 1 takes the dynamic walk's units), transpose V chunk by chunk while the consumers
 * compute:
 *   take   lane 0 takes the next chunk c from a counter in the workspace (atomicAdd); chunk c is
 *          keys [64 kc, 64 kc + 64) of kv head hk of batch b, c = (b h_kv + hk) chunks_per_head
 *          + kc, so the chunks go out kv head by kv head, in the order the walks reach the heads
 *   load   TMA brings the chunk's V ([64 keys][D], swizzle SW_D; keys past seqlen_k zero-filled)
 *   flip   the warp rewrites it as V^T ([D][64 keys], 64-byte swizzle) with transpose_warp (or,
 *          in 24 registers, transpose_chunk_lean), in the key order the pass writes
 *          (transpose_v.cuh)
 *   store  TMA stores it to the workspace (keys past SKP are not written); the warp takes the
 *          next chunk and lane 0 issues its load, waits until the store's writes are complete,
 *          then adds 1 to the pair's ready count (release)
 * A loader that is about to load a pair's first V^T tile waits until the ready count equals
 * chunks_per_head (acquire; wait_vt_ready), so it never reads a chunk before it is written.
 *
 * Progress: a warp never waits for anything but its own copies, and it takes chunks until none
 * is left, so every chunk that is taken is written by a block that is running; a loader waiting
 * on a pair waits only for chunks that running blocks hold, and its wait on bg_started (C::
 * BG_FIRST) only for its own block's background warps' first copies. The counters are zeroed before by
 * fp8attn_wgmma_vt_clear (vt_prepass.cu), whose programmatic dependent the kernel is: it waits
 * for it (griddep_wait) before anything reads them. The buffers: C::OFF_BG, or with C::BG_IN_O
 * (hd256) the O staging area, which the epilogue uses only once bg_done says they are free. */
#ifndef FP8ATTN_WGMMA_VT_BACKGROUND_CUH
#define FP8ATTN_WGMMA_VT_BACKGROUND_CUH

#include "config.cuh"
#include "ptx_sm90.cuh"
#include "smem_layout.cuh" /* wg_smem_base */
#include "trace.cuh"
#include "transpose_v.cuh"

/* The chunk as a tile for transpose_warp and tma_tile: VT_CHUNK keys x D, one transposer warp. */
template <class C>
struct vt_chunk_config {
    static constexpr int D = C::D;
    static constexpr int BN = C::VT_CHUNK;
    static constexpr int SW_D = C::SW_D;
    static constexpr int SW_N = 64; /* tm_vt_store's box row: VT_CHUNK key bytes */
    static constexpr int TRANSPOSERS = 32;
    static constexpr bool STSM_CF = C::STSM_CF; /* transpose_warp's stmatrix order */
    static constexpr int BYTES = BN * D;
    static_assert(BN == 64, "the store map's box is 64 key bytes");
};

/* One chunk by one warp in few registers (hd256's producer has 24): transpose_units with one
 * warp (TRANSPOSERS 32), two units per trip instead of four. */
template <class CC>
__device__ __forceinline__ void transpose_chunk_lean(uint32_t v, uint32_t vt, int lane)
{
    transpose_units<CC, 2>(v, vt, 0, lane);
}

/* Lane 0 takes the warp's next chunk; every lane gets it. */
__device__ __forceinline__ int take_chunk(const wgmma_params &p, int lane)
{
    int c = 0;
    if (lane == 0) c = atomicAdd(p.vt_chunk_counter, 1);
    return __shfl_sync(0xffffffffu, c, 0);
}

/* Chunk c's (batch, kv head) pair, first key, kv head and batch. */
struct vt_chunk {
    int pair, key0, hk, b;
};
template <class CC>
__device__ __forceinline__ vt_chunk chunk_at(const wgmma_params &p, int c)
{
    vt_chunk k;
    k.pair = (int)fp8attn_fastdiv31((uint32_t)c, p.div_vt_chunks);
    k.key0 = (c - k.pair * p.vt_chunks_per_head) * CC::BN;
    k.b = (int)fp8attn_fastdiv31((uint32_t)k.pair, p.div_h_kv);
    k.hk = k.pair - k.b * p.h_kv;
    return k;
}

/* Lane 0: TMA load of chunk c's V into v, completion on bar. */
template <class CC>
__device__ __forceinline__ void load_chunk(const wgmma_params &p, uint32_t v, uint32_t bar, int c)
{
    const vt_chunk k = chunk_at<CC>(p, c);
    mbar_arrive_expect_tx(bar, CC::BYTES);
#pragma unroll
    for (int i = 0; i < CC::D / CC::SW_D; i++)
        tma_load_4d(v + i * CC::BN * CC::SW_D, &p.tm_v, bar, i * CC::SW_D, k.key0, k.hk, k.b);
}

/* Background warp w (0 .. BG_WARPS - 1) of the producer warpgroup: its chunks until none is left.
 * Its buffers: V at bg + 2 w BYTES, V^T right after; its TMA barrier at bg_bar + 8 w. Once V's
 * buffer is transposed, lane 0 issues the chunk's store, the warp takes the next chunk (the
 * atomic's round trip under the store) and lane 0 issues its load, which runs while lane 0 waits
 * for the store. With C::BG_FIRST lane 0 arrives on bg_started once the warp's first chunk has
 * landed (or at once if it got none): the loader holds the block's first Q back until then.
 * With C::BG_IN_O every thread then arrives on bg_done (bg_bar + 8 BG_WARPS): the buffers, in
 * the O staging area, are free for the epilogue. */
template <class C>
__device__ __forceinline__ void transpose_to_workspace(const wgmma_params &p, uint32_t bg,
                                                       uint32_t bg_bar, int w, int lane)
{
    typedef vt_chunk_config<C> CC;
    int c = take_chunk(p, lane);
    trace_bg(w, lane, 0, 0, c);
    if (c < p.vt_chunks && lane == 0) load_chunk<CC>(p, bg + 2 * w * CC::BYTES, bg_bar + 8 * w, c);
    /* C::BG_FIRST: the loader's first Q waits for this warp's first chunk (or for none) */
    if (C::BG_FIRST && c >= p.vt_chunks && lane == 0) mbar_arrive(bg_bar + C::BG_STARTED_BAR);
#pragma unroll 1
    for (uint32_t n = 0; c < p.vt_chunks; n++) {
        /* opaque: the addresses are recomputed per chunk, not held across the loop (hd256's
         * producer has 24 registers) */
        const uint32_t v = opaque_u32(bg) + 2 * w * CC::BYTES, vt = v + CC::BYTES;
        const uint32_t bar = opaque_u32(bg_bar) + 8 * w;
        mbar_wait(bar, n & 1);
        trace_bg(w, lane, (int)n, 1, c);
        if (C::BG_FIRST && n == 0 && lane == 0) mbar_arrive(opaque_u32(bg_bar) + C::BG_STARTED_BAR);
        if (C::PRODUCER_REGS >= 32) transpose_warp<CC, 0, 1>(v, vt, lane);
        else transpose_chunk_lean<CC>(v, vt, lane); /* 24 registers: transpose_warp spills */
        fence_proxy_async_smem(); /* V^T, written by stmatrix, is read next by the TMA store;
                                   * V, read by ldmatrix, is written next by a TMA load */
        __syncwarp();
        trace_bg(w, lane, (int)n, 2, c);
        int pair = 0;
        if (lane == 0) {
            const vt_chunk k = chunk_at<CC>(p, c);
            tma_store_4d(&p.tm_vt_store, vt, k.key0, 0, k.hk, k.b);
            bulk_commit();
            pair = k.pair;
        }
        const int next = take_chunk(p, lane); /* its round trip runs under the store */
        trace_bg(w, lane, (int)n + 1, 0, next);
        if (lane == 0) {
            if (next < p.vt_chunks) load_chunk<CC>(p, v, bar, next);
            bulk_wait_all();            /* written to global memory (and V^T's buffer read) */
            fence_proxy_async_global(); /* ... before the release below, by the generic proxy */
            red_release_add(p.vt_ready + pair, 1);
            trace_bg(w, lane, (int)n, 3, c);
        }
        __syncwarp(); /* V^T's buffer is free again */
        c = next;
    }
    if (C::BG_IN_O) mbar_arrive(bg_bar + 8 * C::BG_WARPS);
}

/* C::BG_IN_O: whether the background warps are done with the O staging area, the same answer
 * for every lane of the calling warp (true in every other configuration). The epilogue stages O
 * there only once they are (each lane's completed test acquires what they released); before,
 * it stores O from registers. */
template <class C>
__device__ __forceinline__ bool bg_done()
{
    if (!C::BG_IN_O) return true;
    const uint32_t bar = wg_smem_base() + C::OFF_BG_BAR + 8 * C::BG_WARPS;
    return __all_sync(0xffffffffu, mbar_test(bar, 0) != 0);
}

/* The loader, before its first V^T tile of kv head hk of batch b: waits until every chunk of
 * that pair is in the workspace. */
template <class C>
__device__ __forceinline__ void wait_vt_ready(const wgmma_params &p, int b, int hk)
{
    const int32_t *ready = p.vt_ready + (b * p.h_kv + hk);
    while (ld_acquire(ready) < p.vt_chunks_per_head) __nanosleep(100);
    fence_proxy_async_global(); /* the acquired writes, before the TMA loads that read them */
}

#endif
