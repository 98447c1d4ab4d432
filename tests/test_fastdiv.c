/* Tests the division by a launch-constant divisor (src/kernels/fastdiv.h) that the wgmma scheduler
 * and the quantizer run on the GPU, against C's `/`, on the host (the same arithmetic: the device
 * side differs only in calling __umulhi).
 * - fp8attn_fastdiv (n < 2^32): every divisor up to 4100 at its edge numerators (0, 1, d - 1, d,
 *   d + 1, 2^31, 2^32 - 1 and 2^32 - 1 - d) and 64 random ones; 2 million random divisors spread
 *   over every bit length at d - 1, d, 2^32 - 1 - (0..6) and one random numerator;
 * - fp8attn_fastdiv31 (n < 2^31, d <= 2^31, the scheduler's form): every divisor up to 4096,
 *   powers of two and their neighbours up to 2^31, and random ones, each at its edge numerators
 *   (0, multiples +- 1, 2^31 - 1) and random ones;
 * - the parameters themselves at d = 1 (the identity) and a power of two (a plain shift). */
#include <stdint.h>
#include <stdio.h>

#include "kernels/fastdiv.h"
#include "test_util.h"

static void check32(uint32_t n, uint32_t d, fp8attn_fastdiv_t f)
{
    const uint32_t got = fp8attn_fastdiv(n, f);
    CHECK(got == n / d, "fastdiv %u / %u: %u, want %u", n, d, got, n / d);
}

static void test_full_range(void)
{
    uint64_t rng = 13;
    for (uint32_t d = 1; d <= 4100; d++) {
        const fp8attn_fastdiv_t f = fp8attn_fastdiv_make(d);
        const uint32_t edges[8] = {0u,          1u,          d - 1u,          d,
                                   d + 1u,      0x80000000u, 0xFFFFFFFFu,     0xFFFFFFFFu - d};
        for (int k = 0; k < 8; k++) check32(edges[k], d, f);
        for (int k = 0; k < 64; k++) check32((uint32_t)splitmix64(&rng), d, f);
    }
    for (long i = 0; i < 2000000; i++) {
        const uint64_t r = splitmix64(&rng);
        uint32_t d = (uint32_t)(r >> 32) >> (r % 32u); /* every bit length */
        if (d == 0) d = 1;
        const fp8attn_fastdiv_t f = fp8attn_fastdiv_make(d);
        check32((uint32_t)r, d, f);
        check32(0xFFFFFFFFu - (uint32_t)(r % 7u), d, f);
        check32(d - 1u, d, f);
        check32(d, d, f);
    }
}

/* fastdiv31 for divisor d at its edge numerators and n_rand random ones below 2^31 */
static void check31(uint32_t d, uint64_t *rng, int n_rand)
{
    const fp8attn_fastdiv_t f = fp8attn_fastdiv_make(d);
    const int64_t top = INT32_MAX;
    const int64_t ns[12] = {0,   1,       (int64_t)d - 1, d,
                            (int64_t)d + 1,   2 * (int64_t)d - 1, 2 * (int64_t)d,
                            top, top - 1, top / d * d, top / d * d - 1, top - d};
    for (int i = 0; i < 12 + n_rand; i++) {
        const int64_t n = i < 12 ? ns[i] : (int64_t)(splitmix64(rng) % ((uint64_t)top + 1));
        if (n < 0 || n > top) continue;
        const uint32_t q = fp8attn_fastdiv31((uint32_t)n, f);
        CHECK(q == (uint32_t)(n / d), "fastdiv31 %lld / %u = %u, expected %lld", (long long)n, d, q,
              (long long)(n / d));
    }
}

static void test_31(void)
{
    uint64_t rng = 0x5eed0f00d;
    for (uint32_t d = 1; d <= 4096; d++) check31(d, &rng, 64);
    for (int l = 12; l <= 31; l++)
        for (int e = -1; e <= 1; e++)
            if (l < 31 || e <= 0) check31((uint32_t)((1u << l) + (uint32_t)e), &rng, 256);
    check31(0x80000000u, &rng, 256);
    for (int i = 0; i < 4096; i++)
        check31((uint32_t)(splitmix64(&rng) % 0x80000000u) + 1u, &rng, 64);
}

int main(void)
{
    test_full_range();
    test_31();
    /* d = 1 is the identity (m 1, shift 0); a power of two 2^l has m 1 and shift l */
    const fp8attn_fastdiv_t one = fp8attn_fastdiv_make(1), p64 = fp8attn_fastdiv_make(64);
    CHECK(one.m == 1 && one.l == 0, "divisor 1: m %u l %u", one.m, one.l);
    CHECK(p64.m == 1 && p64.l == 6, "divisor 64: m %u l %u", p64.m, p64.l);
    printf("%s: %ld failure(s)\n", g_failures ? "FAIL" : "ok", g_failures);
    return g_failures ? 1 : 0;
}
