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
#include "wgmma_host.h" /* FP8ATTN_WGMMA_WALK_* */

struct wg_tile {
    int qt, hq, hk, b; /* query tile, query head, key/value head, batch */
    int q0;            /* first query row of the tile (negative: the causal partial tile) */
    int n_kt;          /* key tiles to visit: those holding a key some row of the tile sees */
};

/* With walk PAIRS: the units [0, pair_units) are pairs, head by head; after them single tiles
 * (0 on the other walks: pairs_per_head is 0). */
__device__ __forceinline__ int pair_units(const wgmma_params &p)
{
    return p.pairs_per_head * p.h_q * p.batch; /* <= n_units < 2^31 */
}

/* Query tiles in unit u: 1, or 2 for a pair. */
__device__ __forceinline__ int unit_tiles(const wgmma_params &p, int u)
{
    return u < pair_units(p) ? 2 : 1;
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

/* Tile k (0 or 1) of unit u. The divisions are multiply-shifts (kernels/fastdiv.h): every block's
 * producer and consumers compute this at the start of each query tile. */
template <class C>
__device__ __forceinline__ wg_tile unit_tile(const wgmma_params &p, int u, int k)
{
    wg_tile t;
    int hb; /* head + h_q * batch */
    if (p.walk == FP8ATTN_WGMMA_WALK_SNAKE) u = snake_unit(p, u);
    if (p.walk != FP8ATTN_WGMMA_WALK_TILES) { /* pairs (none on the snake walk), then singles */
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
    return t;
}

/* A block's walk over its tiles; the producer and the consumers walk the same sequence and
 * skip nothing (a tile with no key to visit, n_kt == 0, is passed to both):
 *   for (wg_sched s = sched_begin(p); s.u < p.n_units; sched_next(p, s)) { unit_tile(p, s.u, s.k) } */
struct wg_sched {
    int u, k; /* unit, tile within it (the unit's tile count is recomputed, unit_tiles: one
               * register less across the producer's and consumers' loops, docs/PERF.md w36) */
};

__device__ __forceinline__ wg_sched sched_begin(const wgmma_params &p)
{
    wg_sched s;
    s.u = blockIdx.x;
    s.k = 0;
    return s;
}

__device__ __forceinline__ void sched_next(const wgmma_params &p, wg_sched &s)
{
    if (++s.k < unit_tiles(p, s.u)) return; /* s.u < n_units: the walk's condition */
    const int64_t next = (int64_t)s.u + gridDim.x; /* gridDim.x may be n_units, up to 2^31 - 1 */
    s.u = next < p.n_units ? (int)next : p.n_units;
    s.k = 0;
}

#endif
