/* Host side of the tile scheduler (scheduler.cuh): which walk a causal problem's units take
 * (pairs or snake), and with pairs how many of its query-tile pairs run as two-tile units; the
 * tiles of the others run after all the pairs as single tiles, longest first, and even out the
 * last round. Host code only, no allocation. */
#include <stdint.h>

#include "wgmma_host.h"

#ifndef WGMMA_SPLIT_SEARCH
#define WGMMA_SPLIT_SEARCH 1 /* 0: split no pair (A/B builds) */
#endif

/* WGMMA_SNAKE -1 (default): the rule of fp8attn_wgmma_causal_walk; 0: pairs always; 1: snake
 * always (A/B builds; docs/PERF.md w37, w38) */
#ifndef WGMMA_SNAKE
#define WGMMA_SNAKE -1
#endif

enum {
    MAX_SPLIT = 12,  /* middle pairs a head may split */
    MAX_ROUNDS = 16, /* beyond, the last round is a small share of the time: split none */
    MAX_SINGLE_ROUNDS = 2, /* single tiles (all heads' at once, so the K and V tiles that run
                            * together are no longer one head's, shared in L2) fill at most two
                            * rounds */
    MAX_BLOCKS = 1024,
    MAX_SNAKE_ROUNDS = 32, /* beyond, the last rounds are too small a share to gain 2 % */
    MIN_GAIN_PCT = 2 /* split only for at least 2 % less on the busiest block: at (1,16,16384,128)
                      * causal the model's 0.2 % came out as 1.2 % slower (docs/PERF.md w34) */
};

/* Key tiles of query tile k, as unit_tile() counts them; the cost of a tile is twice that plus
 * one (half a key tile for its boundary), in half key tiles. */
static int64_t tile_cost(int k, int bm, int bn, int q_off, int seqlen_q, int seqlen_k)
{
    int64_t kv_end = (int64_t)k * bm - q_off + bm + (seqlen_k - seqlen_q);
    if (kv_end > seqlen_k) kv_end = seqlen_k;
    const int64_t n_kt = kv_end > 0 ? (kv_end + bn - 1) / bn : 0;
    return 2 * n_kt + 1;
}

/* The busiest block's load when each head runs kp pairs and then its middle tiles singly, and
 * block i takes units i, i + grid, ... (scheduler.cuh's order): unit h kp + i, pair i of head h,
 * goes to block (h kp + i) % grid. Pair i costs the same in every head, so each cost is computed
 * once and the blocks are stepped through without a division (the planner runs on every launch
 * of a causal problem of two waves or more). */
static int64_t busiest(int kp, int n, int bm, int bn, int q_off, int seqlen_q, int seqlen_k,
                       int64_t heads, int grid)
{
    int64_t load[MAX_BLOCKS] = {0}, top = 0;
    const int step = kp % grid; /* kp >= 1 where the loop runs */
    for (int i = 0; i < kp; i++) {
        const int64_t c = tile_cost(n - 1 - i, bm, bn, q_off, seqlen_q, seqlen_k) +
                          tile_cost(i, bm, bn, q_off, seqlen_q, seqlen_k);
        int blk = i % grid;
        for (int64_t h = 0; h < heads; h++) {
            load[blk] += c;
            blk += step;
            if (blk >= grid) blk -= grid;
        }
    }
    int blk = (int)(heads * kp % grid);
    for (int qt = n - 1 - kp; qt >= kp; qt--) {
        const int64_t c = tile_cost(qt, bm, bn, q_off, seqlen_q, seqlen_k);
        for (int64_t h = 0; h < heads; h++) {
            load[blk] += c;
            if (++blk == grid) blk = 0;
        }
    }
    for (int b = 0; b < grid; b++)
        if (load[b] > top) top = load[b];
    return top;
}

/* fp8attn_wgmma_pairs_per_head, and in *load the busiest block's load with that many pairs, or
 * -1 where it was not computed (no search: beyond MAX_ROUNDS, or a grid outside the table). */
static int plan_pairs(int n_q_tiles, int bm, int bn, int q_off, int seqlen_q, int seqlen_k,
                      int64_t heads, int grid, int64_t *load)
{
    const int np = n_q_tiles / 2;
    const int64_t units = heads * (n_q_tiles - np);
    *load = -1;
    if (!WGMMA_SPLIT_SEARCH || grid <= 0 || grid > MAX_BLOCKS || units > (int64_t)MAX_ROUNDS * grid)
        return np;
    int best = np;
    const int64_t none = busiest(np, n_q_tiles, bm, bn, q_off, seqlen_q, seqlen_k, heads, grid);
    int64_t best_load = none;
    for (int m = 1; m <= MAX_SPLIT && m <= np; m++) {
        if (heads * (n_q_tiles - 2 * (np - m)) > (int64_t)MAX_SINGLE_ROUNDS * grid) break;
        const int64_t l =
            busiest(np - m, n_q_tiles, bm, bn, q_off, seqlen_q, seqlen_k, heads, grid);
        if (l < best_load) { /* ties keep more pairs */
            best_load = l;
            best = np - m;
        }
    }
    const int split = best_load * 100 <= none * (100 - MIN_GAIN_PCT);
    *load = split ? best_load : none;
    return split ? best : np;
}

int fp8attn_wgmma_pairs_per_head(int n_q_tiles, int bm, int bn, int q_off, int seqlen_q,
                                 int seqlen_k, int64_t heads, int grid)
{
    int64_t load;
    return plan_pairs(n_q_tiles, bm, bn, q_off, seqlen_q, seqlen_k, heads, grid, &load);
}

/* The busiest block's load on the snake walk: tiles longest first across all heads, block i
 * taking the i-th unit of even rounds and the (grid - 1 - i)-th of odd full ones (scheduler.cuh
 * snake_unit). */
static int64_t busiest_snake(int n, int bm, int bn, int q_off, int seqlen_q, int seqlen_k,
                             int64_t heads, int grid)
{
    int64_t load[MAX_BLOCKS] = {0}, top = 0, r = 0; /* unit r grid + col */
    const int64_t units = heads * n;
    int col = 0;
    for (int qt = n - 1; qt >= 0; qt--) {
        const int64_t c = tile_cost(qt, bm, bn, q_off, seqlen_q, seqlen_k);
        for (int64_t h = 0; h < heads; h++) {
            load[(r & 1) && (r + 1) * grid <= units ? grid - 1 - col : col] += c;
            if (++col == grid) {
                col = 0;
                r++;
            }
        }
    }
    for (int b = 0; b < grid; b++)
        if (load[b] > top) top = load[b];
    return top;
}

int fp8attn_wgmma_causal_walk(int n_q_tiles, int bm, int bn, int q_off, int seqlen_q,
                              int seqlen_k, int64_t heads, int grid, int *pairs_per_head)
{
    int64_t p; /* the pairs' busiest block, if plan_pairs computed it */
    const int kp = plan_pairs(n_q_tiles, bm, bn, q_off, seqlen_q, seqlen_k, heads, grid, &p);
    int snake = WGMMA_SNAKE == 1;
    if (WGMMA_SNAKE < 0 && grid > 0 && grid <= MAX_BLOCKS && 2 * heads <= grid &&
        heads * n_q_tiles <= (int64_t)MAX_SNAKE_ROUNDS * grid) {
        if (p < 0) p = busiest(kp, n_q_tiles, bm, bn, q_off, seqlen_q, seqlen_k, heads, grid);
        const int64_t s =
            busiest_snake(n_q_tiles, bm, bn, q_off, seqlen_q, seqlen_k, heads, grid);
        snake = s * 100 <= p * (100 - MIN_GAIN_PCT);
    }
    *pairs_per_head = snake ? 0 : kp;
    return snake ? FP8ATTN_WGMMA_WALK_SNAKE : FP8ATTN_WGMMA_WALK_PAIRS;
}

/* WGMMA_L2_SECTION_MB: the K and V^T bytes a section of the dynamic walk may read (A/B builds;
 * docs/PERF.md w50). */
#ifndef WGMMA_L2_SECTION_MB
#define WGMMA_L2_SECTION_MB 32
#endif

int fp8attn_wgmma_section_heads(int64_t heads, int heads_per_kv, int64_t kv_head_bytes)
{
    const int64_t budget = (int64_t)WGMMA_L2_SECTION_MB << 20;
    int64_t kv = kv_head_bytes > 0 ? budget / kv_head_bytes : 1;
    if (kv < 1) kv = 1;
    const int64_t h = kv * heads_per_kv;
    return (int)(h < heads ? h : heads);
}

/* The split tail's model (split.cuh), in key tiles of one block: today's call takes
 * ceil(units / grid) rounds of nk; split, the full rounds and then ceil(W / grid) of the tail's
 * W key tiles, plus `cost` for the segments' second tile boundary and the merge (partial O
 * out and back, one more epilogue; WGMMA_SPLIT_COST for the _vt kernels). Split where that is at least SPLIT_MIN_GAIN_PCT % less, and
 * the tail gives every block at least one key tile (split.cuh counts on no block's range being
 * empty) and grid * W stays below 2^31 (the kernel's 32-bit range arithmetic). On the H100 at
 * (1,16,16384,128), 68 tiles of 74 key tiles in the last of 16 rounds: 16 x 74 = 1184 against
 * 15 x 74 + 39 + 2 = 1151, 2.8 % less (docs/PERF.md w62). */
#ifndef WGMMA_SPLIT_MIN_GAIN_PCT
#define WGMMA_SPLIT_MIN_GAIN_PCT 2
#endif

void fp8attn_wgmma_split_plan(int64_t units, int64_t nk, int grid, int bm, int d, int causal,
                              int cost, fp8attn_wgmma_split_t *out)
{
    out->tiles = 0;
    out->nk = (int32_t)(nk > 0 && nk < INT32_MAX ? nk : 0);
    out->grid = grid;
    out->warps = bm / 16;
    out->d = d;
    out->tr = 0; /* the _vt kernel's; the dispatcher sets 1 for a transposing kernel's plan */
    out->w = 0;
    if (causal || grid <= 0 || units <= 0 || nk <= 0 || nk >= INT32_MAX)
        return;
    const int64_t full = units / grid, tail = units - full * grid;
    if (tail == 0) return;
    const int64_t w = tail * nk, now = (full + 1) * nk;
    const int64_t split = full * nk + (w + grid - 1) / grid + cost;
    if (w < grid || w * grid >= INT32_MAX || split * 100 > now * (100 - WGMMA_SPLIT_MIN_GAIN_PCT))
        return; /* the kernel's range arithmetic is 32-bit (scheduler.cuh) */
    out->tiles = (int32_t)tail; /* < grid */
    out->w = w;
}
