/* Shared-memory layout of the K-major operand tiles and the wgmma matrix descriptors that
 * describe them.
 *
 * A tile of R rows x K bytes (K-major: a row's K bytes are the contraction dimension) is stored as
 * K / SW column blocks of SW bytes (SW = 32, 64 or 128); block c holds bytes [c*SW, (c+1)*SW) of
 * every row, rows SW bytes apart, at tile + c*R*SW. Within a block the hardware swizzle of width
 * SW applies: the 16-byte chunk index (address bits 4-6, 4-5 or 4) is XORed with address bits 7-9
 * (7-8, 7), i.e. with row % 8 for SW = 128, (row / 2) % 4 for SW = 64 and (row / 4) % 2 for
 * SW = 32 (V^T of a 224-key tile, whose rows are not a multiple of 64 bytes). TMA writes this
 * layout (CU_TENSOR_MAP_SWIZZLE_128B / 64B with a box SW bytes wide) and wgmma reads it (descriptor
 * swizzle mode 1 / 2); both apply the swizzle to absolute shared-memory addresses, so every tile
 * starts 1024-byte aligned. */
#ifndef FP8ATTN_WGMMA_SMEM_LAYOUT_CUH
#define FP8ATTN_WGMMA_SMEM_LAYOUT_CUH

#include <stdint.h>

#include "../ptx.cuh" /* smem_addr */

/* The block's shared-memory base, 1024-byte aligned (the dynamic allocation has C::SMEM_BYTES
 * with 1024 of slack): every C::OFF_* is relative to it. */
__device__ __forceinline__ uint32_t wg_smem_base()
{
    extern __shared__ __align__(1024) uint8_t smem[];
    return (smem_addr(smem) + 1023u) & ~1023u;
}

/* Swizzle phase of a row of a K-major tile of swizzle width SW: the value its 16-byte chunk
 * index is XORed with (row % 8, (row / 2) % 4 or (row / 4) % 2, as above). */
template <int SW>
__host__ __device__ __forceinline__ uint32_t swizzle_phase(uint32_t row)
{
    return SW == 128 ? (row & 7) : SW == 64 ? ((row >> 1) & 3) : ((row >> 2) & 1);
}

/* Byte address of (row, byte kb) of a [R][K] K-major tile at `tile` with swizzle width SW; kb
 * must be a multiple of 16 (a whole chunk) or the caller adds kb % 16 itself. */
template <int R, int SW>
__host__ __device__ __forceinline__ uint32_t kmajor_addr(uint32_t tile, int row, int kb)
{
    static_assert(SW == 32 || SW == 64 || SW == 128, "swizzle width");
    /* unsigned: row, kb >= 0, so / and % are shifts and masks without int's sign fix-ups (the
     * transposer computes two of these per unit, docs/PERF.md w35) */
    const uint32_t r = (uint32_t)row, k = (uint32_t)kb;
    const uint32_t block = k / SW, chunk = (k % SW) >> 4;
    return tile + block * (R * SW) + r * SW + ((chunk ^ swizzle_phase<SW>(r)) << 4);
}

/* wgmma shared-memory matrix descriptor (PTX ISA: "Matrix Descriptor Format") for the 64- or
 * N-row, 32-byte-deep slice of a K-major tile that starts at row `row0` (a multiple of 8) and
 * byte kb (a multiple of 32) of the tile at `tile`:
 *   bits  0-13  start address >> 4 (the swizzle is applied by the hardware to the absolute
 *               address, so a start inside a swizzle row, at +32/64/96 bytes, is how K advances)
 *   bits 16-29  leading-dimension byte offset >> 4: unused for swizzled K-major layouts (1)
 *   bits 32-45  stride-dimension byte offset >> 4: from one 8-row group to the next, 8 * SW
 *   bits 49-51  base offset: 0 (tiles are 1024-byte aligned)
 *   bits 62-63  swizzle: 1 = 128-byte, 2 = 64-byte, 3 = 32-byte
 * Shared-memory addresses are below 2^18 and tiles 1024-byte aligned, so the start field is
 * (tile >> 4) + (offset >> 4) without a carry out of bit 13: the word tile >> 4 | 1 << 16 is the
 * same for every slice of a tile, and each wgmma of a batch adds its slice's constant to it: one
 * add per operand instead of an add, a mask, a shift and an or (docs/PERF.md w24). */
template <int SW>
__device__ __forceinline__ uint32_t desc_hi()
{
    return (uint32_t)((8 * SW) >> 4) | (uint32_t)(SW == 128 ? 1 : SW == 64 ? 2 : 3) << 30;
}
template <int R, int SW>
__device__ __forceinline__ uint64_t kmajor_desc(uint32_t tile, int row0, int kb)
{
    const uint32_t off = (uint32_t)((kb / SW) * R * SW + row0 * SW + (kb % SW)); /* 16 | off */
    const uint32_t lo = ((tile >> 4) | 1u << 16) + (off >> 4);
    return (uint64_t)lo | (uint64_t)desc_hi<SW>() << 32;
}

#endif
