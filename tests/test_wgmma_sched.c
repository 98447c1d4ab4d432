/* Tests the wgmma tile scheduler's host planner (src/kernels/wgmma/sched_plan.cu): how many
 * query-tile pairs each head of a causal problem keeps, against the independent model in
 * docs/models/sched_balance.py (its "kp" column, 132 SMs), and its bounds on random problems.
 * And the scheduler's divisions by multiply-shift (src/kernels/wgmma/fastdiv.h) against C's
 * division, over every divisor up to 4096, powers of two and their neighbours up to 2^31 - 1, and
 * random ones, each at its edge numerators (0, multiples +- 1, 2^31 - 1) and random ones. */
#include <stdint.h>
#include <stdio.h>

#include "kernels/wgmma/fastdiv.h"
#include "kernels/wgmma/wgmma_host.h"
#include "test_util.h"

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

/* every quotient fastdiv gives for divisor d at its edge numerators and n_rand random ones */
static void check_divisor(int32_t d, uint64_t *rng, int n_rand)
{
    const fp8attn_fastdiv_t f = fp8attn_fastdiv_make(d);
    const int64_t top = INT32_MAX;
    int64_t ns[12] = {0, 1, d - 1, d, (int64_t)d + 1, 2 * (int64_t)d - 1, 2 * (int64_t)d, top,
                      top - 1, top / d * d, top / d * d - 1, top - d};
    for (int i = 0; i < 12 + n_rand; i++) {
        const int64_t n = i < 12 ? ns[i] : (int64_t)(splitmix64(rng) % ((uint64_t)top + 1));
        if (n < 0 || n > top) continue;
        const int32_t q = fp8attn_fastdiv_host((int32_t)n, f);
        CHECK(q == (int32_t)(n / d), "fastdiv %lld / %d = %d, expected %lld", (long long)n, d, q,
              (long long)(n / d));
    }
}

static void check_fastdiv(void)
{
    uint64_t rng = 0x5eed0f00d;
    for (int32_t d = 1; d <= 4096; d++) check_divisor(d, &rng, 64);
    for (int l = 12; l <= 30; l++)
        for (int32_t e = -1; e <= 1; e++) check_divisor((int32_t)((1 << l) + e), &rng, 256);
    check_divisor(INT32_MAX, &rng, 256);
    for (int i = 0; i < 4096; i++)
        check_divisor((int32_t)(splitmix64(&rng) % INT32_MAX) + 1, &rng, 64);
    /* d = 1 is the identity; a power of two a plain shift */
    CHECK(fp8attn_fastdiv_make(1).mul == 0, "divisor 1: mul %u", fp8attn_fastdiv_make(1).mul);
    CHECK(fp8attn_fastdiv_make(64).mul == 0x80000000u && fp8attn_fastdiv_make(64).shr == 5,
          "divisor 64: mul %#x shr %u", fp8attn_fastdiv_make(64).mul, fp8attn_fastdiv_make(64).shr);
}

int main(void)
{
    check_fastdiv();
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
    }
    printf("%s: %ld failure(s)\n", g_failures ? "FAIL" : "ok", g_failures);
    return g_failures ? 1 : 0;
}
