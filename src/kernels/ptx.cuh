/* Thin named wrappers over the PTX instructions the kernels use that have no CUDA C intrinsic.
 * Each says what the instruction does and where the PTX ISA documents it
 * (PTX ISA 8.x, "Parallel Synchronization and Communication Instructions" / "Warp Level Matrix
 * Multiply-Accumulate Instructions" / "Data Movement and Conversion Instructions"). */
#ifndef FP8ATTN_PTX_CUH
#define FP8ATTN_PTX_CUH

#include <stdint.h>

/* Shared-memory address of a generic pointer, for the instructions that take .shared addresses. */
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* cp.async.cg.shared.global [dst], [src], 16, src_bytes: asynchronous 16-byte global->shared copy
 * that bypasses L1; when src_bytes is 0 the destination is zero-filled and nothing is read
 * (used for rows past the end of a sequence). PTX ISA: "cp.async". sm_80+. */
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src, bool valid)
{
    int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}

/* cp.async.commit_group: closes the group of cp.async issued by this thread so far. */
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

/* cp.async.wait_group N: waits until at most N of this thread's groups are still in flight. */
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* ldmatrix.sync.aligned.m8n8.x4.shared.b16: the warp loads four 8x8 matrices of 16-bit elements
 * (8 rows of 16 bytes each); lane i gives the row address of row i%8 of matrix i/8, and receives in
 * r[m] the elements (row lane/4, columns 2*(lane%4), 2*(lane%4)+1) of matrix m. With 8-bit data a
 * "16-bit element" is two adjacent bytes, so lane gets bytes 4*(lane%4)..+3 of row lane/4 — exactly
 * the m16n8k32 e4m3 A/B fragment layout. PTX ISA: "ldmatrix". sm_75+. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* Same with .trans: lane receives (rows 2*(lane%4), 2*(lane%4)+1; column lane/4) of each 8x8
 * 16-bit matrix, i.e. the transpose. For 8-bit data: bytes {row 2t, row 2t+1} x {byte 2g, 2g+1}
 * (t = lane%4, g = lane/4), low half = row 2t. PTX ISA: "ldmatrix". */
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* mov.b32 in a volatile asm: returns x, but the compiler can neither see through it nor move it, so
 * whatever is computed from the result is recomputed where it is used (after the call) rather than
 * hoisted out of a loop and kept in a register. A register-pressure tool, not an instruction the
 * kernel needs; PTX ISA: "mov". */
__device__ __forceinline__ uint32_t opaque_u32(uint32_t x)
{
    uint32_t y;
    asm volatile("mov.b32 %0, %1;\n" : "=r"(y) : "r"(x));
    return y;
}

/* prmt.b32 d, a, b, sel: byte permute; byte i of d is byte (sel >> 4i) & 7 of the 8-byte {b, a}
 * (a = bytes 0-3, b = bytes 4-7). PTX ISA: "prmt". CUDA's __byte_perm is the same instruction. */
__device__ __forceinline__ uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t sel)
{
    return __byte_perm(a, b, sel);
}

/* mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32: D(16x8, fp32) = A(16x32, E4M3, row-major)
 * x B(32x8, E4M3, column-major) + C. Fragments per lane (g = lane/4, t = lane%4):
 *   a[0]: row g,   k 4t..4t+3      a[1]: row g+8, k 4t..4t+3
 *   a[2]: row g,   k 16+4t..+3     a[3]: row g+8, k 16+4t..+3
 *   b[0]: k 4t..4t+3, column g     b[1]: k 16+4t..+3, column g
 *   c[0], c[1]: row g, columns 2t, 2t+1     c[2], c[3]: row g+8, columns 2t, 2t+1
 * Native on sm_89 (SASS QMMA.16832.F32.E4M3.E4M3). PTX ISA: "Matrix multiply-accumulate operation
 * using mma instruction", shape .m16n8k32. */
__device__ __forceinline__ void mma_e4m3_16832_native(float c[4], const uint32_t a[4], uint32_t b0,
                                                      uint32_t b1)
{
    asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: D(16x8, fp32) = A(16x16, f16) x B(16x8, f16)
 * + C, fragments of f16 pairs: a[0] row g k 2t,2t+1; a[1] row g+8; a[2] row g k 8+2t,+1; a[3] row
 * g+8 k 8+2t,+1; b[0] k 2t,2t+1 column g; b[1] k 8+2t,+1. PTX ISA: mma, shape .m16n8k16. sm_80+. */
__device__ __forceinline__ void mma_f16_16816(float c[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                              uint32_t a3, uint32_t b0, uint32_t b1)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* cvt.rn.f16x2.e4m3x2 d, a: two E4M3 codes (a 16-bit pair) to two f16, exactly (every E4M3 value
 * is an f16 value). PTX ISA: "cvt" (FP8 conversions). sm_89+. Low and high halves of a 32-bit
 * register, so ptxas can select the half in the instruction (no shift). */
__device__ __forceinline__ uint32_t e4m3x2_lo_to_f16x2(uint32_t four)
{
    uint32_t d;
    asm("{.reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.rn.f16x2.e4m3x2 %0, lo;}\n"
        : "=r"(d)
        : "r"(four));
    return d;
}
__device__ __forceinline__ uint32_t e4m3x2_hi_to_f16x2(uint32_t four)
{
    uint32_t d;
    asm("{.reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.rn.f16x2.e4m3x2 %0, hi;}\n"
        : "=r"(d)
        : "r"(four));
    return d;
}

/* The FP8 MMA the kernels use: D = A(16x32 E4M3) x B(32x8 E4M3) + C with the fragment layout of
 * mma_e4m3_16832_native. On sm_89 it is that instruction. On sm_90 that PTX exists only as an
 * emulation (ptxas unpacks to f16, runs two HMMA.16816 into a zero accumulator, then adds the result
 * into C with 4 FADDs); we do the same unpacking but accumulate in the tensor core, which saves the
 * FADDs and the temporaries. Products of E4M3 values are exact in f16 x f16 -> f32, so the result
 * differs only in fp32 accumulation order. The k order inside each 16-wide half is permuted the
 * same way for A and B (bytes 0,1 of a 4-byte group -> f16 k 2t,2t+1; bytes 2,3 -> k 8+2t,8+2t+1),
 * which leaves the dot product unchanged. */
__device__ __forceinline__ void mma_e4m3_16832(float c[4], const uint32_t a[4], uint32_t b0,
                                               uint32_t b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    mma_f16_16816(c, e4m3x2_lo_to_f16x2(a[0]), e4m3x2_lo_to_f16x2(a[1]), e4m3x2_hi_to_f16x2(a[0]),
                  e4m3x2_hi_to_f16x2(a[1]), e4m3x2_lo_to_f16x2(b0), e4m3x2_hi_to_f16x2(b0));
    mma_f16_16816(c, e4m3x2_lo_to_f16x2(a[2]), e4m3x2_lo_to_f16x2(a[3]), e4m3x2_hi_to_f16x2(a[2]),
                  e4m3x2_hi_to_f16x2(a[3]), e4m3x2_lo_to_f16x2(b1), e4m3x2_hi_to_f16x2(b1));
#else
    mma_e4m3_16832_native(c, a, b0, b1);
#endif
}

/* cvt.rn.satfinite.e4m3x2.f32 d, hi, lo: two floats to two E4M3 codes (round to nearest even,
 * saturating to +-448); `lo` lands in the low byte. PTX ISA: "cvt" (FP8 conversions). sm_89+. */
__device__ __forceinline__ uint16_t cvt_e4m3x2(float lo, float hi)
{
    uint16_t d;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(d) : "f"(hi), "f"(lo));
    return d;
}

/* Four floats to four E4M3 codes packed little-endian (x0 in the low byte). */
__device__ __forceinline__ uint32_t pack_e4m3x4(float x0, float x1, float x2, float x3)
{
    return (uint32_t)cvt_e4m3x2(x0, x1) | ((uint32_t)cvt_e4m3x2(x2, x3) << 16);
}

#endif
