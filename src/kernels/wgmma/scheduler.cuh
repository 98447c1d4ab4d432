/* Tile scheduler: which (query tile, query head, batch) tiles a block computes, in which order,
 * and how many key tiles each visits.
 *
 * The grid is persistent: at most one block per SM (the launch picks min(units, SMs)), and block
 * i takes work units i, i + gridDim.x, i + 2 gridDim.x, ... A block's producer loads the next
 * tile's Q and first K tile while its consumers finish the current tile, so the prologue and
 * epilogue of a tile (barrier set-up, the first loads' latency, the last P.V, the stores) overlap
 * other work instead of leaving the SM idle between blocks.
 *
 * A unit is one query tile, or with pair_tiles (causal problems of two waves or more) the pair
 * (n_q_tiles - 1 - i, i) of one head: under a causal mask the key tiles a query tile visits grow
 * linearly with its index, so every pair costs about the same and the static round-robin stays
 * balanced. Units run through the query tiles of one head before the next head (the key and value
 * tiles that run together are shared in L2); unpaired, the query tiles with the most keys come
 * first. */
#ifndef FP8ATTN_WGMMA_SCHEDULER_CUH
#define FP8ATTN_WGMMA_SCHEDULER_CUH

#include "config.cuh"

struct wg_tile {
    int qt, hq, hk, b; /* query tile, query head, key/value head, batch */
    int q0;            /* first query row of the tile */
    int diag;          /* seqlen_k - seqlen_q: query i sees keys j <= i + diag (causal) */
    int n_kt;          /* key tiles to visit: those holding a key some row of the tile sees */
};

/* Query tiles in unit u: 1, or 2 for a pair (the middle tile of an odd count is alone). */
__device__ __forceinline__ int unit_tiles(const wgmma_params &p, int u)
{
    if (!p.pair_tiles) return 1;
    const int np = (p.n_q_tiles + 1) / 2;
    return (p.n_q_tiles & 1) && u % np == np - 1 ? 1 : 2;
}

/* Tile k (0 or 1) of unit u. */
template <class C>
__device__ __forceinline__ wg_tile unit_tile(const wgmma_params &p, int u, int k)
{
    wg_tile t;
    int hb; /* head + h_q * batch */
    if (p.pair_tiles) {
        const int np = (p.n_q_tiles + 1) / 2, pi = u % np;
        t.qt = k == 0 ? p.n_q_tiles - 1 - pi : pi;
        hb = u / np;
    } else {
        t.qt = p.n_q_tiles - 1 - u % p.n_q_tiles;
        hb = u / p.n_q_tiles;
    }
    t.hq = hb % p.h_q;
    t.b = hb / p.h_q;
    t.hk = t.hq / p.heads_per_kv;
    t.q0 = t.qt * C::BM;
    t.diag = p.seqlen_k - p.seqlen_q;
    int kv_end = p.seqlen_k;
    if (p.causal) kv_end = min(kv_end, t.q0 + C::BM + t.diag); /* last row's keys, + 1 */
    t.n_kt = kv_end > 0 ? (kv_end + C::BN - 1) / C::BN : 0;
    return t;
}

/* A block's walk over its tiles; the producer and the consumers walk the same sequence and
 * skip nothing (a tile with no key to visit, n_kt == 0, is passed to both):
 *   for (wg_sched s = sched_begin(p); s.u < p.n_units; sched_next(p, s)) { unit_tile(p, s.u, s.k) } */
struct wg_sched {
    int u, k, nt; /* unit, tile within it, tiles in it */
};

__device__ __forceinline__ wg_sched sched_begin(const wgmma_params &p)
{
    wg_sched s;
    s.u = blockIdx.x;
    s.k = 0;
    s.nt = s.u < p.n_units ? unit_tiles(p, s.u) : 0;
    return s;
}

__device__ __forceinline__ void sched_next(const wgmma_params &p, wg_sched &s)
{
    if (++s.k < s.nt) return;
    const int64_t next = (int64_t)s.u + gridDim.x; /* gridDim.x may be n_units, up to 2^31 - 1 */
    s.u = next < p.n_units ? (int)next : p.n_units;
    s.k = 0;
    s.nt = s.u < p.n_units ? unit_tiles(p, s.u) : 0;
}

#endif
