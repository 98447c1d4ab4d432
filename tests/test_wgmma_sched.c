/* Tests the wgmma tile scheduler's host planner (src/kernels/wgmma/sched_plan.cu): how many
 * query-tile pairs each head of a causal problem keeps and which walk it takes (pairs or snake:
 * the transposing kernels and hd256's _vt kernel), against the independent model in
 * docs/models/sched_balance.py (its "kp" and "walk" columns, 132 SMs), and its bounds on random
 * problems; the dynamic walk's L2 sections (the other _vt kernels); and the split tail's plan
 * (split.cuh) with the properties of its block ranges that the kernel counts on.
 * (The scheduler's divisions, kernels/fastdiv.h, have their own test: test_fastdiv.c.) */
#include <stdint.h>
#include <stdio.h>

#include "kernels/wgmma/wgmma_host.h"
#include "test_util.h"

/* the walk (FP8ATTN_WGMMA_WALK_*) and pairs per head for B x H heads of S queries and keys */
static int walk_of(int b, int h, int s, int bm, int bn, int grid, int *kp)
{
    const int n = (s + bm - 1) / bm;
    return fp8attn_wgmma_causal_walk(n, bm, bn, (n * bm - s) & ~15, s, s, (int64_t)b * h, grid, kp);
}

/* the scheduler's inputs for B x H heads of SQ queries and SK keys on BM x BN tiles, causal */
static int plan_qk(int b, int h, int sq, int sk, int bm, int bn, int grid)
{
    const int n = (sq + bm - 1) / bm;
    return fp8attn_wgmma_pairs_per_head(n, bm, bn, (n * bm - sq) & ~15, sq, sk, (int64_t)b * h, grid);
}
static int plan(int b, int h, int s, int bm, int bn, int grid)
{
    return plan_qk(b, h, s, s, bm, bn, grid);
}

int main(void)
{
    static const struct {
        int b, h, s, sk, bm, bn, kp; /* sk 0: sk = s */
    } model[] = {
        {8, 32, 2048, 0, 192, 160, 5}, /* n 11: one split would leave 768 single tiles, more than
                                        * two rounds: none is tried */
        {2, 32, 8192, 0, 192, 128, 21},  /* any split would need more than two rounds of singles */
        {1, 32, 16384, 0, 192, 128, 41}, /* two pairs split: 0.948 -> 0.991 */
        {1, 32, 8192, 0, 192, 128, 19},  /* 0.866 -> 0.943 */
        {1, 16, 16384, 0, 128, 224, 64}, /* one split: 0.2 %, under the 2 % bar */
        {4, 32, 3000, 0, 192, 160, 7},
        {3, 7, 5000, 0, 128, 192, 16},
        {2, 32, 16384, 0, 192, 128, 43}, /* more than 16 rounds of units: none split (a split
                                          * would cost more there anyway) */
        {1, 5, 9727, 0, 128, 128, 26},   /* 12 pairs split: the most the planner may */
        {1, 6, 11033, 8533, 192, 160, 22}, /* Sq > Sk: 7 split */
        {1, 8, 7048, 3524, 192, 128, 16},  /* Sq > Sk: 2 split (12, leaving 6 pairs, if the
                                            * diagonal's offset seqlen_k - seqlen_q were left out) */
    };
    for (size_t i = 0; i < sizeof model / sizeof model[0]; i++) {
        const int sk = model[i].sk ? model[i].sk : model[i].s;
        const int kp = plan_qk(model[i].b, model[i].h, model[i].s, sk, model[i].bm, model[i].bn, 132);
        CHECK(kp == model[i].kp, "(%d,%d,%d,%d) on %dx%d tiles: %d pairs per head, the model %d",
              model[i].b, model[i].h, model[i].s, sk, model[i].bm, model[i].bn, kp, model[i].kp);
    }
    enum { P = FP8ATTN_WGMMA_WALK_PAIRS, S = FP8ATTN_WGMMA_WALK_SNAKE };
    static const struct {
        int b, h, s, bm, bn, walk;
    } walks[] = {
        {2, 32, 8192, 192, 128, S},  /* 0.944 -> 0.995, 64 heads: two blocks each */
        {2, 16, 8192, 128, 224, S},  /* 0.970 -> 0.992 */
        {1, 16, 16384, 128, 224, S}, /* 0.967 -> 0.990 */
        {1, 32, 8192, 192, 128, S},  /* split 0.943 -> 0.992 */
        {3, 7, 5000, 128, 192, S},   /* split 0.898 -> 0.965 */
        {8, 32, 2048, 192, 160, P},  /* 256 heads: fewer than two blocks each (L2) */
        {1, 32, 16384, 192, 128, P}, /* split 0.991, snake 0.998 */
        {8, 16, 2048, 128, 192, P},  /* 128 heads on 132 blocks: one block a head (L2) */
        {16, 16, 1024, 128, 192, P}, /* pairs 0.939, snake 0.970, but 256 heads (L2; w77) */
        {2, 8, 8192, 128, 128, P},   /* no gain */
        {4, 16, 4096, 128, 192, S},  /* 2.2 % (the dispatch's 192-key tiles at 4k causal) */
        {1, 48, 8192, 192, 128, P},  /* 1.9 %: under the 2 % bar */
    };
    for (size_t i = 0; i < sizeof walks / sizeof walks[0]; i++) {
        int kp = -1;
        const int w = walk_of(walks[i].b, walks[i].h, walks[i].s, walks[i].bm, walks[i].bn, 132, &kp);
        CHECK(w == walks[i].walk, "(%d,%d,%d) on %dx%d tiles: walk %d, the model %d", walks[i].b,
              walks[i].h, walks[i].s, walks[i].bm, walks[i].bn, w, walks[i].walk);
        CHECK(w != S || kp == 0, "(%d,%d,%d): snake with %d pairs per head", walks[i].b,
              walks[i].h, walks[i].s, kp);
    }
    /* a grid beyond the planner's table: no split */
    CHECK(plan(1, 32, 16384, 192, 128, 2000) == 43, "grid 2000: no split");
    /* bounds: n / 2 - 12 <= kp <= n / 2, and at most two rounds of single tiles when split */
    uint64_t st = 7;
    for (int it = 0; it < 2000; it++) {
        const int bm = (splitmix64(&st) & 1) ? 192 : 128;
        const int bn = 128 + 32 * (int)(splitmix64(&st) % 4);
        const int s = 1 + (int)(splitmix64(&st) % 20000), b = 1 + (int)(splitmix64(&st) % 4);
        const int h = 1 + (int)(splitmix64(&st) % 40), grid = 1 + (int)(splitmix64(&st) % 200);
        const int n = (s + bm - 1) / bm, kp = plan(b, h, s, bm, bn, grid);
        const int lo = n / 2 > 12 ? n / 2 - 12 : 0;
        CHECK(kp >= lo && kp <= n / 2, "(%d,%d,%d) %dx%d grid %d: kp %d outside [%d, %d]", b, h, s,
              bm, bn, grid, kp, lo, n / 2);
        CHECK(kp == n / 2 || (int64_t)b * h * (n - 2 * kp) <= 2 * grid,
              "(%d,%d,%d) %dx%d grid %d: kp %d leaves more than two rounds of single tiles", b, h,
              s, bm, bn, grid, kp);
        /* the walk: pairs with the planner's count, or snake with none, two blocks per head and
         * at most 32 rounds */
        int wkp = -1;
        const int w = walk_of(b, h, s, bm, bn, grid, &wkp);
        CHECK((w == P && wkp == kp) ||
                  (w == S && wkp == 0 && 2 * b * h <= grid && (int64_t)b * h * n <= 32 * grid),
              "(%d,%d,%d) %dx%d grid %d: walk %d with %d pairs per head (planner: %d)", b, h, s,
              bm, bn, grid, w, wkp, kp);
    }
    /* the dynamic walk's L2 sections (the _vt kernels' causal problems of two waves or more;
     * default WGMMA_L2_SECTION_MB 32): kv heads whose K and V^T fit 32 MB, times the GQA ratio,
     * at most all heads, at least one kv head */
    const int64_t mb = 1 << 20;
    static const struct {
        int64_t heads;
        int per_kv;
        int64_t kv_bytes;
        int want;
    } secs[] = {
        {16, 1, 4 * mb, 8},       /* (1,16,16384,128): 2 x 16384 x 128 bytes a head */
        {32, 1, 2 * mb, 16},      /* (2,16,8192,128) */
        {32, 4, 4 * mb, 32},      /* GQA 4:1: 8 kv heads, all 32 query heads */
        {64, 4, 4 * mb, 32},      /* two sections of 8 kv heads */
        {6, 1, mb, 6},            /* fewer heads than fit */
        {40, 5, 40 * mb, 5},      /* one kv head over the budget: one kv head's queries */
        {3, 1, 64 * mb + 1, 1},   /* ... without GQA: one head */
        {100, 1, 1, 100},         /* tiny heads: all */
        {7, 7, 0, 7},             /* no bytes (not a real problem): one kv head */
    };
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
        const int got = fp8attn_wgmma_section_heads(secs[i].heads, secs[i].per_kv, secs[i].kv_bytes);
        CHECK(got == secs[i].want, "section_heads(%lld, %d, %lld) = %d, want %d",
              (long long)secs[i].heads, secs[i].per_kv, (long long)secs[i].kv_bytes, got,
              secs[i].want);
    }
    /* the split tail's plan (split.cuh): the named shape, and where it must not split */
    static const struct {
        int64_t units, nk;
        int grid, causal, tiles;
    } splits[] = {
        {2048, 74, 132, 0, 68},  /* (1,16,16384,128) on 128 x 224: 16 x 74 against 1151 */
        {2048, 74, 132, 1, 0},   /* causal: never */
        {1056, 74, 132, 0, 0},   /* 8 full rounds: no tail */
        {263, 74, 132, 0, 0},    /* a last round of 131 of 132: 150 against 148, no gain */
        {140, 8, 132, 0, 0},     /* a tail of 8 x 8 key tiles for 132 blocks: some would get none */
        {180, 21, 132, 0, 48},   /* (1,20,1100,4700) hd128: 42 against 31 */
        {64, 37, 132, 0, 64},    /* one round of 64 tiles: 37 against 20 */
        {1024, 128, 132, 0, 100}, /* (1,8,16384,256) on 128 x 128: 1024 against 995 */
        {1024, 16, 132, 0, 0},    /* (8,8,2048,256): 127 against 128, under 2 % */
    };
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        fp8attn_wgmma_split_t sp;
        fp8attn_wgmma_split_plan(splits[i].units, splits[i].nk, splits[i].grid, 128, 128,
                                 splits[i].causal, WGMMA_SPLIT_COST, &sp);
        CHECK(sp.tiles == splits[i].tiles, "split_plan(%lld, %lld, %d, causal %d): %d tiles, want %d",
              (long long)splits[i].units, (long long)splits[i].nk, splits[i].grid, splits[i].causal,
              sp.tiles, splits[i].tiles);
    }
    /* what split.cuh counts on, over a sweep of plans that split: every block's range of the
     * tail's key tiles [b W / G, (b + 1) W / G) holds at least one and at most nk, so it meets
     * one or two query tiles, and every tile's key tiles are covered once */
    long splits_seen = 0;
    for (int grid = 1; grid <= 264; grid += 7)
        for (int64_t nk = 1; nk <= 80; nk += 3)
            for (int64_t units = 1; units <= 5 * grid; units += 1 + units / 9) {
                fp8attn_wgmma_split_t sp;
                fp8attn_wgmma_split_plan(units, nk, grid, 192, 64, 0, WGMMA_SPLIT_COST, &sp);
                if (sp.tiles == 0) continue;
                splits_seen++;
                CHECK(sp.tiles == units % grid && sp.w == sp.tiles * nk && sp.w >= grid &&
                          sp.warps == 12 && sp.nk == nk,
                      "split_plan(%lld, %lld, %d): tiles %d, w %lld", (long long)units,
                      (long long)nk, grid, sp.tiles, (long long)sp.w);
                int64_t covered = 0;
                for (int b = 0; b < grid; b++) {
                    const int64_t lo = b * sp.w / grid, hi = (b + 1) * sp.w / grid;
                    CHECK(hi - lo >= 1 && hi - lo <= nk && (hi - 1) / nk - lo / nk <= 1,
                          "split_plan(%lld, %lld, %d): block %d's range [%lld, %lld)",
                          (long long)units, (long long)nk, grid, b, (long long)lo, (long long)hi);
                    covered += hi - lo;
                }
                CHECK(covered == sp.w, "split ranges cover %lld of %lld", (long long)covered,
                      (long long)sp.w);
                /* the merge's count (split.cuh): the blocks whose ranges meet tile ti are
                 * exactly b_lo..b_hi of split_block_of's formula, ((i + 1) G - 1) / W, and each
                 * meets it in its segment s = ti - (its first key tile) / nk, 0 or 1 */
                for (int64_t ti = 0; ti < sp.tiles; ti++) {
                    const int64_t first = ti * nk, last = first + nk - 1;
                    const int64_t b_lo = ((first + 1) * grid - 1) / sp.w;
                    const int64_t b_hi = ((last + 1) * grid - 1) / sp.w;
                    int meets = 0, first_meet = -1, last_meet = -1, bad_seg = 0;
                    for (int b = 0; b < grid; b++) {
                        const int64_t lo = b * sp.w / grid, hi = (b + 1) * sp.w / grid;
                        if (hi <= first || lo > last) continue;
                        meets++;
                        if (first_meet < 0) first_meet = b;
                        last_meet = b;
                        const int64_t s = ti - lo / nk;
                        bad_seg |= s != 0 && s != 1;
                    }
                    CHECK(first_meet == b_lo && last_meet == b_hi && meets == b_hi - b_lo + 1 &&
                              !bad_seg,
                          "split_plan(%lld, %lld, %d): tile %lld met by blocks %d..%d (%d), the "
                          "formula says %lld..%lld", (long long)units, (long long)nk, grid,
                          (long long)ti, first_meet, last_meet, meets, (long long)b_lo,
                          (long long)b_hi);
                }
            }
    CHECK(splits_seen > 100, "the sweep met only %ld plans that split", splits_seen);
    printf("%s: %ld failure(s)\n", g_failures ? "FAIL" : "ok", g_failures);
    return g_failures ? 1 : 0;
}
