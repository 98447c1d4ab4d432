/* Tile scheduler: which (query tile, query head, batch) a block computes, and how many key tiles
 * it visits. One block per tile (no persistence); blocks are numbered so that the query tiles
 * with the most keys to visit (the last ones, under a causal mask) start first, which keeps the
 * tail of a causal launch short. */
#ifndef FP8ATTN_WGMMA_SCHEDULER_CUH
#define FP8ATTN_WGMMA_SCHEDULER_CUH

#include "config.cuh"

struct wg_tile {
    int qt, hq, hk, b; /* query tile, query head, key/value head, batch */
    int q0;            /* first query row of the tile */
    int diag;          /* seqlen_k - seqlen_q: query i sees keys j <= i + diag (causal) */
    int n_kt;          /* key tiles to visit: those holding a key some row of the tile sees */
};

template <class C>
__device__ __forceinline__ wg_tile schedule_tile(const wgmma_params &p)
{
    wg_tile t;
    const int64_t bid = blockIdx.x;
    t.qt = p.n_q_tiles - 1 - (int)(bid % p.n_q_tiles);
    t.hq = (int)((bid / p.n_q_tiles) % p.h_q);
    t.b = (int)(bid / ((int64_t)p.n_q_tiles * p.h_q));
    t.hk = t.hq / p.heads_per_kv;
    t.q0 = t.qt * C::BM;
    t.diag = p.seqlen_k - p.seqlen_q;
    int kv_end = p.seqlen_k;
    if (p.causal) kv_end = min(kv_end, t.q0 + C::BM + t.diag); /* last row's keys, + 1 */
    t.n_kt = kv_end > 0 ? (kv_end + C::BN - 1) / C::BN : 0;
    return t;
}

#endif
