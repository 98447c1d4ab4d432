/* Division by a divisor fixed for a whole launch, as a multiply-high and a shift (Granlund and
 * Montgomery, "Division by invariant integers using multiplication", PLDI 1994; the same
 * round-up method as CUTLASS's FastDivmod). The scheduler (scheduler.cuh) divides work-unit
 * indices by tile and head counts at the start of every query tile; sm_90 has no integer divide,
 * and each of those divisions compiled to about 20 dependent instructions (I2F, MUFU.RCP, F2I,
 * IMADs and fix-ups) on the consumers' path to their first wgmma (docs/PERF.md w36).
 *
 * For a divisor d >= 2 with l = ceil(log2 d): mul = ceil(2^(31 + l) / d) (< 2^32 because
 * d > 2^(l-1)) and shr = l - 1, and for 0 <= n < 2^31
 *   n / d = umulhi(n, mul) >> shr:
 * n / d + n e / (d 2^(31+l)) with e = mul d - 2^(31+l) < d adds less than 2^-l <= 1/d to n / d,
 * too little to reach the next integer. d = 1: mul = 0, and the quotient is n itself.
 * Plain C: the host fills the kernel parameters with it and tests/test_wgmma_sched.c checks it.
 * The quantizer's qm_fastdiv_t (quant/quant_math.cuh; n < 2^32, one add more) is the same idea
 * written earlier. The two should become one header under src/kernels/; that changes these
 * kernels' SASS, so it waits for a device run. */
#ifndef FP8ATTN_WGMMA_FASTDIV_H
#define FP8ATTN_WGMMA_FASTDIV_H

#include <stdint.h>

typedef struct {
    uint32_t mul, shr; /* mul 0: divisor 1 */
} fp8attn_fastdiv_t;

/* The multiplier and shift for divisor d (1 <= d < 2^31). */
static inline fp8attn_fastdiv_t fp8attn_fastdiv_make(int32_t d)
{
    fp8attn_fastdiv_t f = {0, 0};
    if (d <= 1) return f;
    uint32_t l = 0;
    while (((uint64_t)1 << l) < (uint64_t)d) l++;
    f.mul = (uint32_t)((((uint64_t)1 << (31 + l)) + (uint64_t)d - 1) / (uint64_t)d);
    f.shr = l - 1;
    return f;
}

/* n / d for 0 <= n < 2^31, the arithmetic the kernels do (scheduler.cuh fast_div), in C. */
static inline int32_t fp8attn_fastdiv_host(int32_t n, fp8attn_fastdiv_t f)
{
    if (f.mul == 0) return n;
    return (int32_t)((uint32_t)(((uint64_t)(uint32_t)n * f.mul) >> 32) >> f.shr);
}

#endif
