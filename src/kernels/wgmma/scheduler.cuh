/* Tile scheduler: which (query tile, query head, batch) tiles a block computes, in which order,
 * and how many key tiles each visits.
 *
 * The grid is persistent: at most one block per SM (the launch picks min(units, SMs)), and block
 * i takes work units i, i + gridDim.x, i + 2 gridDim.x, ... A block's producer loads the next
 * tile's Q and first K tile while its consumers finish the current tile, so the prologue and
 * epilogue of a tile (barrier set-up, the first loads' latency, the last P.V, the stores) overlap
 * other work instead of leaving the SM idle between blocks.
 *
 * The walk (wgmma_params.walk, chosen on the host: kernel.cuh, sched_plan.cu): a unit is one
 * query tile (TILES, SNAKE), or on the PAIRS walk (causal problems of two waves or more) the pair
 * (n_q_tiles - 1 - i, i) of one head: under a causal mask the key tiles a query tile visits grow
 * linearly with its index, so every pair costs about the same and the static round-robin stays
 * balanced. SNAKE balances the same problems by order instead (snake_unit below), where the
 * pairs' granularity leaves the last round uneven. On the TILES walk and for the pairs, units run
 * through the query tiles of one head before the next head (the key and value tiles that run
 * together are shared in L2), the query tiles with the most keys first; single tiles (SNAKE, and
 * the singles after the pairs) go longest first across heads.
 *
 * Pairs and single tiles: each head runs its outer pairs (n_q_tiles - 1 - i, i), i <
 * pairs_per_head, as units, head by head; after all of them come its middle tiles (the odd
 * n_q_tiles' middle one, and the pairs the host chose to split: sched_plan.cu) as single-tile
 * units, longest first across all heads, which even out the last round. Before w34 each head's
 * lone middle tile (half a pair's cost) followed its pairs, and fell on the same blocks whenever
 * the grid is a multiple of the units per head (132 SMs, 6 units per head at (8,32,2048,64) on
 * 192-row tiles: those blocks idled half the time; docs/PERF.md w34, docs/models/sched_balance.py).
 *
 * Under a causal mask, when seqlen_q is not a multiple of BM, the tiles are counted from the last
 * row up (q_off = n_q_tiles * BM - seqlen_q, rounded down to 16 rows): the partial tile is then
 * the first, which sees the fewest keys, instead of the last, which sees them all. At
 * (8,32,2048,64) causal on 192-row tiles that takes 12 of 249 warpgroup-key-tiles of rows past
 * the end (docs/PERF.md w34). */
#ifndef FP8ATTN_WGMMA_SCHEDULER_CUH
#define FP8ATTN_WGMMA_SCHEDULER_CUH

#include "config.cuh"
#include "ptx_sm90.cuh"
#include "wgmma_host.h" /* FP8ATTN_WGMMA_WALK_* */

struct wg_tile {
    int qt, hq, hk, b; /* query tile, query head, key/value head, batch */
    int q0;            /* first query row of the tile (negative: the causal partial tile) */
    int n_kt;          /* key tiles to visit: those holding a key some row of the tile sees */
    int kt0;           /* the first of them (0 but in the split tail's segments) */
    int part;          /* TILE_WHOLE, or a segment of the split tail (split.cuh): its slot, or
                        * TILE_NONE for a segment with no key tile (neither side touches it) */
    int sti;           /* a segment's split tile (the tail's index of its query tile) */
};
enum { TILE_WHOLE = -1, TILE_NONE = -2 };

/* Walk DYNAMIC, a run-time choice of the kernels that have it (config.cuh DYNAMIC_WALK; the
 * others take the static walks only). */
template <class C>
__device__ __forceinline__ bool dynamic_walk(const wgmma_params &p)
{
    return C::DYNAMIC_WALK && p.walk == FP8ATTN_WGMMA_WALK_DYNAMIC;
}

/* With walk PAIRS: the units [0, pair_units) are pairs, head by head; after them single tiles
 * (0 on the other walks: pairs_per_head is 0). */
__device__ __forceinline__ int pair_units(const wgmma_params &p)
{
    return p.pairs_per_head * p.h_q * p.batch; /* <= n_units < 2^31 */
}

/* Query tiles in unit u: 1, or 2 for a pair. */
template <class C>
__device__ __forceinline__ int unit_tiles(const wgmma_params &p, int u)
{
    return !C::DYNAMIC_WALK && u < pair_units(p) ? 2 : 1;
}

/* WGMMA_FASTDIV 1 (default): unit_tile divides by multiply-shifts (kernels/fastdiv.h); 0: by the
 * hardware-less 32-bit division (A/B builds; docs/PERF.md w36). */
#ifndef WGMMA_FASTDIV
#define WGMMA_FASTDIV 1
#endif

/* n / d for 0 <= n < 2^31 and 1 <= d < 2^31, d's multiplier and shift in f (kernels/fastdiv.h,
 * its 32-bit form); d itself for the WGMMA_FASTDIV 0 builds. */
__device__ __forceinline__ int fast_div(int n, fp8attn_fastdiv_t f, int d)
{
    if (!WGMMA_FASTDIV) return n / d;
    return (int)fp8attn_fastdiv31((uint32_t)n, f);
}

/* Walk SNAKE (host rule: sched_plan.cu): every query tile is its own unit, longest first across
 * heads (the pairs' order of single tiles, with no pairs), and the block walk reverses every odd
 * full round, so a block that took one of a round's longer tiles takes one of the next round's
 * shorter ones; the last rounds hold the shortest tiles, which even out the end. The unit at
 * position u: round r = u / G runs positions r G .. r G + G - 1; an odd round that is full runs
 * them in reverse (a partial last round forward, so every unit below n_units runs once). */
__device__ __forceinline__ int snake_unit(const wgmma_params &p, int u)
{
    const int g = gridDim.x, r = fast_div(u, p.div_grid, g), base = r * g;
    return (r & 1) && base <= p.n_units - g ? base + (base + g - 1 - u) : u; /* no overflow */
}

/* The split tail's key-tile ranges (p.split_w key tiles over the grid's blocks; the host's
 * plan makes split_w >= gridDim.x, so no block's range is empty, and gridDim.x * split_w
 * < 2^31): block b's first key tile, b <= gridDim.x. */
__device__ __forceinline__ int split_range_start(const wgmma_params &p, int b)
{
    return fast_div(b * p.split_w, p.div_grid, gridDim.x);
}

/* The tail's query tile that holds key tile i < split_w (split_w = the plan's tiles x split_nk). */
__device__ __forceinline__ int split_tile_of(const wgmma_params &p, int i)
{
    return fast_div(i, p.div_split_nk, p.split_nk);
}

/* The block whose range holds the tail's key tile i < split_w: the largest b with
 * split_range_start(b) <= i. */
__device__ __forceinline__ int split_block_of(const wgmma_params &p, int i)
{
    return fast_div((i + 1) * (int)gridDim.x - 1, p.div_split_w, p.split_w);
}

/* Tile k (0 or 1) of unit u. The divisions are multiply-shifts (kernels/fastdiv.h): every block's
 * producer and consumers compute this at the start of each query tile. */
template <class C>
__device__ __forceinline__ wg_tile unit_tile(const wgmma_params &p, int u, int k)
{
    wg_tile t;
    t.kt0 = 0;
    t.part = TILE_WHOLE;
    t.sti = 0;
    int seg_n = -1; /* a segment's key tiles */
    if (C::SPLIT_TAIL && u >= p.split_units0) {
        /* segment s of block b: the part of block b's range in its first (s = 0) or second
         * (s = 1) query tile of the tail (a range is no longer than a tile: it meets two at
         * most) */
        const int v = u - p.split_units0, s = v >= (int)gridDim.x, b = v - s * (int)gridDim.x;
        const int lo = split_range_start(p, b), hi = split_range_start(p, b + 1);
        int ti = split_tile_of(p, lo) + s;
        const int t_lo = ti * p.split_nk; /* <= split_w */
        const int k_lo = max(lo, t_lo), k_hi = min(hi, t_lo + p.split_nk);
        /* block b's range lies in one tile; ti <= the plan's tiles T (lo < split_w = T x
         * split_nk, which wgmma_launch checks), and ti = T lands here: t_lo = split_w >= hi */
        if (k_hi <= k_lo) {
            t.part = TILE_NONE;
            seg_n = 0;
            ti = 0; /* any tile: nothing reads it */
        } else if (k_hi - k_lo < p.split_nk) {
            t.part = 2 * b + s;
            t.sti = ti;
            t.kt0 = k_lo - t_lo;
            seg_n = k_hi - k_lo;
        } /* else the range holds the whole tile: it runs as one */
        /* the tiles walk's unit of that query tile: the tail's tiles in their order, or, where
         * the tail is whole heads (split_heads of them), query tile by query tile: tail tile ti
         * is the (ti / split_heads)-th tile in the walk of head ti mod split_heads (the walk
         * takes a head's query tiles last first). A head's query tiles are
         * then split_heads tiles apart in the ranges, so the blocks on them start at the same
         * key offset, or near it, and read each K and V tile at about the same time: from L2,
         * once from DRAM (head by head they did at different offsets; docs/PERF.md w66). */
        int tu = ti;
        if (p.split_heads > 0) {
            const int i = fast_div(ti, p.div_split_heads, p.split_heads);
            tu = (ti - i * p.split_heads) * p.n_q_tiles + i;
        }
        u = p.split_units0 + tu;
    }
    int hb; /* head + h_q * batch */
    /* the kernels with the dynamic walk have no other causal walk, and it hands out tiles-walk
     * units (dynamic_unit below) */
    if (!C::DYNAMIC_WALK && p.walk == FP8ATTN_WGMMA_WALK_SNAKE) u = snake_unit(p, u);
    if (!C::DYNAMIC_WALK && p.walk != FP8ATTN_WGMMA_WALK_TILES) {
        /* pairs (none on the snake walk), then singles */
        const int kp = p.pairs_per_head, pu = pair_units(p);
        if (u < pu) {
            hb = fast_div(u, p.div_pairs, kp);
            const int pi = u - hb * kp;
            t.qt = k == 0 ? p.n_q_tiles - 1 - pi : pi;
        } else { /* the middle tiles kp .. n_q_tiles - 1 - kp, the longest (highest) first */
            const int s = u - pu, heads = p.h_q * p.batch, r = fast_div(s, p.div_heads, heads);
            t.qt = p.n_q_tiles - 1 - kp - r;
            hb = s - r * heads;
        }
    } else {
        hb = fast_div(u, p.div_q_tiles, p.n_q_tiles);
        t.qt = p.n_q_tiles - 1 - (u - hb * p.n_q_tiles);
    }
    t.b = fast_div(hb, p.div_h_q, p.h_q);
    t.hq = hb - t.b * p.h_q;
    t.hk = fast_div(t.hq, p.div_per_kv, p.heads_per_kv);
    t.q0 = t.qt * C::BM - p.q_off; /* may be negative: rows < 0 are TMA's zero fill, never stored */
    int kv_end = p.seqlen_k; /* causal: query i sees keys j <= i + seqlen_k - seqlen_q */
    if (p.causal) kv_end = min(kv_end, t.q0 + C::BM + (p.seqlen_k - p.seqlen_q)); /* last row's, + 1 */
    t.n_kt = kv_end > 0 ? (kv_end + C::BN - 1) / C::BN : 0;
    if (C::SPLIT_TAIL && seg_n >= 0) t.n_kt = seg_n;
    return t;
}

/* A block's walk over its tiles; the producer and the consumers walk the same sequence and
 * skip nothing (a tile with no key to visit, n_kt == 0, is passed to both):
 *   for (wg_sched s = sched_begin<C>(p, slot); s.u < p.n_units; sched_next<C>(p, slot, s)) {
 *       unit_tile<C>(p, s.u, s.k) ... }
 * (the loading warp: sched_begin_taking, hand_next and sched_next_taking, below)
 * slot is the shared-memory address of the dynamic walk's unit slot (C::OFF_SCHED; unused on
 * the static walks).
 *
 * The static walks: block i takes units i, i + gridDim.x, ... The dynamic walk (FA3's dynamic
 * persistent scheduler, in our words): block i takes position i of the walk's order first, then
 * the next position of a counter in global memory (atomicAdd, plus gridDim.x). One thread of the
 * producer warpgroup, the taker, does the taking and hands each unit, as the tiles walk's index
 * of its tile (dynamic_unit), through a one-unit slot in shared memory to its readers: u_full
 * says the slot is written (the taker's one arrive, whose release orders the store), u_empty
 * that every reader has read it (one arrive per reader thread). In the _vt kernels the taker is
 * warp 1's first thread (take_units), the readers the loading warp's 32 lanes and the consumer
 * threads, and the counter lies in the workspace; it takes the block's unit n + 1 once the
 * consumers have read unit n, i.e. when they start it: the block holds one unit ahead, which its
 * loader starts loading while the consumers run unit n. In the transposing kernels that have the
 * walk the loading warp is the taker and the counter lies in O (hand_next below). The last unit
 * handed over is n_units: the walk's end.
 * Under a causal mask a tile's cost varies with its index, and blocks that took a long tile take
 * the next ones later, so the end evens out without a plan; the order, L2 sections of heads
 * (dynamic_unit), keeps the K and V^T the running blocks read together within L2
 * (docs/PERF.md w50). */
struct wg_sched {
    int u, k; /* unit, tile within it (the unit's tile count is recomputed, unit_tiles: one
               * register less across the producer's and consumers' loops, docs/PERF.md w36) */
    int n;    /* dynamic walk: units the block has read before u (the slot's phase) */
};

/* The unit or position gridDim.x past v (a static step, or a take: the counter's old value),
 * n_units where that is past the walk's end (gridDim.x may be n_units, up to 2^31 - 1). */
__device__ __forceinline__ int step_past_grid(const wgmma_params &p, int v)
{
    const int64_t next = (int64_t)v + gridDim.x;
    return next < p.n_units ? (int)next : p.n_units;
}

/* The dynamic walk's slot: u_full, u_empty, the unit, 8 bytes apart. */
__device__ __forceinline__ uint32_t slot_full(uint32_t slot) { return slot; }
__device__ __forceinline__ uint32_t slot_empty(uint32_t slot) { return slot + 8; }
__device__ __forceinline__ uint32_t slot_unit(uint32_t slot) { return slot + 16; }

/* One arrival on u_full per phase (the taker's); on u_empty one per reader thread (every consumer
 * thread, and the _vt kernels' loading warp's 32 lanes or the transposing kernels' 96 transposer
 * threads, each after its own read: its arrive's release orders that read before the taker's
 * next store, which a warp's one arrive after __syncwarp does not do for racecheck). */
template <class C>
__device__ __forceinline__ void init_sched_slot(uint32_t slot)
{
    if (C::SCHED_SLOTS) {
        mbar_init(slot_full(slot), 1);
        mbar_init(slot_empty(slot), (C::VT_GLOBAL ? 32 : C::TRANSPOSERS) + 128 * C::CONSUMERS);
    }
}

/* Position u < n_units of the dynamic walk's order, section by section (sec_heads heads each,
 * the last maybe fewer), each section longest first across its heads, as the tiles walk's unit
 * of that tile: hb n_q_tiles + i for query tile n_q_tiles - 1 - i of head hb. */
__device__ __forceinline__ int dynamic_unit(const wgmma_params &p, int u)
{
    const int sec = fast_div(u, p.div_sec_units, p.sec_units), r = u - sec * p.sec_units;
    const int h0 = sec * p.sec_heads, hs = min(p.sec_heads, p.h_q * p.batch - h0);
    const int i = fast_div(r, hs == p.sec_heads ? p.div_sec_heads : p.div_last_heads, hs);
    return (h0 + (r - i * hs)) * p.n_q_tiles + i; /* < n_units */
}

/* The taker (one thread): hands the block's units to the slot until it hands n_units. */
__device__ __forceinline__ void take_units(const wgmma_params &p, uint32_t slot)
{
    int u = blockIdx.x; /* < n_units: the grid is at most n_units */
    for (uint32_t n = 0;; n++) {
        mbar_wait(slot_empty(slot), (n & 1) ^ 1); /* unit n - 1 read by all */
        if (n > 0) { /* the next position, now that the consumers have started unit n - 1
                      * (step_past_grid written out: through it the _vt kernels' SASS changes) */
            const int64_t next = (int64_t)atomicAdd(p.tile_counter, 1) + gridDim.x;
            u = next < p.n_units ? (int)next : p.n_units;
        }
        st_shared_u32(slot_unit(slot), (uint32_t)(u < p.n_units ? dynamic_unit(p, u) : u));
        mbar_arrive(slot_full(slot)); /* release: the store above is visible to the readers */
        if (u >= p.n_units) return;
    }
}

/* A reader thread's n-th unit; the thread then frees the slot for it. */
__device__ __forceinline__ int read_unit(uint32_t slot, int n)
{
    mbar_wait(slot_full(slot), (uint32_t)n & 1);
    const int u = (int)ld_shared_u32(slot_unit(slot));
    mbar_arrive(slot_empty(slot));
    return u;
}

template <class C>
__device__ __forceinline__ wg_sched sched_begin(const wgmma_params &p, uint32_t slot)
{
    wg_sched s;
    s.k = 0;
    s.n = 0;
    s.u = dynamic_walk<C>(p) ? read_unit(slot, 0) : (int)blockIdx.x;
    return s;
}

template <class C>
__device__ __forceinline__ void sched_next(const wgmma_params &p, uint32_t slot, wg_sched &s)
{
    if (++s.k < unit_tiles<C>(p, s.u)) return; /* s.u < n_units: the walk's condition */
    s.k = 0;
    if (dynamic_walk<C>(p)) {
        s.u = read_unit(slot, ++s.n);
        return;
    }
    s.u = step_past_grid(p, s.u);
}

/* The transposing kernels' dynamic walk (C::DYNAMIC_WALK without VT_GLOBAL): their producer
 * warps 1-3 transpose, so the loading warp is the taker. hand_unit: position pos handed to the
 * slot as the block's n-th unit once every reader (the transposers' 96 threads and the
 * consumers') has read the one before; the issuing lane writes it. The CROSS consumers read unit
 * n + 1 when they start unit n (mainloop.cuh next_with_keys), before unit n's later stages are
 * free, so the loader hands unit n + 1 over once it has issued unit n's first loads (hand_next;
 * after all of them it would wait on those consumers forever), and takes the position after it
 * at once: one atomicAdd by the issuing lane, read at the next hand-off. It moves on to the unit
 * handed over at the end of unit n (sched_next_taking). Each block makes one take per unit it
 * hands over (the first, blockIdx.x, is its own) and a last whose position (old value plus
 * gridDim.x) is n_units or more, so the counter ends at n_units exactly. It lies in O, in the
 * last row of the walk's last position (kernel.cuh), so the block that takes that position makes
 * its own last take at once, waits until the counter reads n_units (every block has made its
 * last: nothing reads or adds to those bytes again) and only then hands the unit over, whose
 * output overwrites the counter. Other blocks make their last take when they hand over their own
 * last unit, which does not wait on this one. The wait stalls the block's current unit (its
 * later loads, and the CROSS consumers, who read the next unit when they start it); it ends once
 * every block of the grid has run far enough to take, so it needs a second SM for the blocks
 * not yet resident (docs/PERF.md w117). */
__device__ __forceinline__ int hand_unit(const wgmma_params &p, uint32_t slot, int n, int pos,
                                         bool issue)
{
    const int u = pos < p.n_units ? dynamic_unit(p, pos) : p.n_units;
    mbar_wait(slot_empty(slot), ((uint32_t)n & 1) ^ 1);
    if (issue) {
        st_shared_u32(slot_unit(slot), (uint32_t)u);
        mbar_arrive(slot_full(slot));
    }
    return u;
}

/* The loading warp's state as the taker. */
struct wg_taking {
    int ticket; /* the issuing lane's last take (atomicAdd's old value) */
    int next;   /* the unit handed over after s.u */
    int issuer; /* the issuing lane, whose ticket is the warp's */
};

/* Whether the loading warp takes the units: a transposing kernel on the dynamic walk. */
template <class C>
__device__ __forceinline__ bool loader_takes(const wgmma_params &p)
{
    return !C::VT_GLOBAL && dynamic_walk<C>(p);
}

/* The loading warp's sched_begin: as a taker, it hands its first unit (position blockIdx.x) to
 * the slot and takes the next position. */
template <class C>
__device__ __forceinline__ wg_sched sched_begin_taking(const wgmma_params &p, uint32_t slot,
                                                       bool issue, wg_taking &tk)
{
    if (!loader_takes<C>(p)) return sched_begin<C>(p, slot);
    wg_sched s;
    s.k = 0;
    s.n = 0;
    s.u = hand_unit(p, slot, 0, (int)blockIdx.x, issue);
    tk.ticket = issue ? atomicAdd(p.tile_counter, 1) : 0; /* the position after it, taken now */
    tk.next = p.n_units;
    tk.issuer = __ffs(__ballot_sync(0xffffffffu, issue)) - 1;
    return s;
}

/* The unit after s.u handed over (once per unit s.u < n_units). */
template <class C>
__device__ __forceinline__ void hand_next(const wgmma_params &p, uint32_t slot,
                                          const wg_sched &s, bool issue, wg_taking &tk)
{
    if (!loader_takes<C>(p)) return;
    const int pos = step_past_grid(p, __shfl_sync(0xffffffffu, tk.ticket, tk.issuer));
    if (pos == p.n_units - 1) { /* the unit whose rows hold the counter (above) */
        tk.ticket = issue ? atomicAdd(p.tile_counter, 1) : 0; /* this block's last take */
        while (__shfl_sync(0xffffffffu, ld_acquire(p.tile_counter), 0) < p.n_units)
            __nanosleep(256);
        fence_proxy_async_global(); /* the takes (generic proxy) before the unit's TMA stores */
    }
    tk.next = hand_unit(p, slot, s.n + 1, pos, issue);
    if (pos < p.n_units - 1) tk.ticket = issue ? atomicAdd(p.tile_counter, 1) : 0;
}

/* The loading warp's sched_next: as a taker, on to the unit hand_next handed over. */
template <class C>
__device__ __forceinline__ void sched_next_taking(const wgmma_params &p, uint32_t slot,
                                                  wg_sched &s, const wg_taking &tk)
{
    if (!loader_takes<C>(p)) {
        sched_next<C>(p, slot, s);
        return;
    }
    s.n++;
    s.u = tk.next;
}

#endif
