/* Division of unsigned 32-bit integers by a divisor fixed for a whole launch, as a multiply-high,
 * an add and a shift: the round-up method of Granlund and Montgomery ("Division by invariant
 * integers using multiplication", PLDI 1994), as in CUTLASS's FastDivmod. sm_90 has no integer
 * divide: a `/` by a run-time value compiles to about 20 dependent instructions (I2F, MUFU.RCP,
 * F2I, IMADs, fix-ups). The host computes the multiplier once per call and passes it in the
 * kernel's parameters; the kernels divide with it. Used by the wgmma scheduler (unit_tile, on the
 * consumers' path to their first wgmma, docs/PERF.md w36) and the quantizer (locate).
 *
 * For a divisor 1 <= d <= 2^32 - 1, with l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1
 * (< 2^32), for every n < 2^32
 *   n / d = (umulhi(n, m) + n) >> l,
 * the sum taken in 64 bits. If also n < 2^31 and d <= 2^31 (l <= 31), umulhi(n, m) < n makes the
 * sum less than 2^32: fp8attn_fastdiv31 takes it in 32 bits, one instruction fewer. d = 1 gives
 * l = 0, m = 1: the quotient is n itself, with no branch.
 * Plain C for the host and the tests (tests/test_fastdiv.c checks both forms against C's `/`);
 * under nvcc the two divisions are also device functions. */
#ifndef FP8ATTN_KERNELS_FASTDIV_H
#define FP8ATTN_KERNELS_FASTDIV_H

#include <stdint.h>

#ifdef __CUDACC__
#define FP8ATTN_FD_HD __host__ __device__ __forceinline__
#else
#define FP8ATTN_FD_HD static inline
#endif

typedef struct {
    uint32_t m, l; /* multiplier, shift */
} fp8attn_fastdiv_t;

/* The multiplier and shift for divisor d >= 1 (host; d = 0 is the caller's error and gives the
 * divisor 1's). */
static inline fp8attn_fastdiv_t fp8attn_fastdiv_make(uint32_t d)
{
    fp8attn_fastdiv_t f;
    uint32_t l = 0;
    if (d == 0) d = 1;
    while (l < 32 && ((uint64_t)1 << l) < d) l++;
    f.l = l;
    f.m = (uint32_t)(((((uint64_t)1 << l) - d) << 32) / d + 1);
    return f;
}

/* the high 32 bits of the 64-bit product a * b */
FP8ATTN_FD_HD uint32_t fp8attn_umulhi(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __umulhi(a, b);
#else
    return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

/* n / d for every n < 2^32 */
FP8ATTN_FD_HD uint32_t fp8attn_fastdiv(uint32_t n, fp8attn_fastdiv_t f)
{
    return (uint32_t)(((uint64_t)fp8attn_umulhi(n, f.m) + n) >> f.l);
}

/* n / d for n < 2^31 and d <= 2^31: the sum in 32 bits */
FP8ATTN_FD_HD uint32_t fp8attn_fastdiv31(uint32_t n, fp8attn_fastdiv_t f)
{
    return (fp8attn_umulhi(n, f.m) + n) >> f.l;
}

#endif
