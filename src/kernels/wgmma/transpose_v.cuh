/* Producer warpgroup: V -> V^T for the P.V wgmma (three or four warps; load.cuh runs the loop).
 *
 * FP8 wgmma reads both operands K-major, and for O = P.V the contraction runs over the keys, so
 * the B operand is V^T: D rows (output dims) of BN key bytes. TMA brings V token-major (rows =
 * keys); these warps rewrite each tile as V^T (a [D][BN] K-major tile, swizzle width SW_N) and
 * hand it to the consumers on vt_full.
 *
 * The key order inside V^T is chosen so that P needs no shuffles. The consumers' S accumulator
 * gives lane (g, t) of a quad the keys {8i + 2t, 8i + 2t + 1} of each 8-key chunk i, and the A
 * operand of the RS wgmma wants logical k = 4t..4t+3 (and 16 + 4t..) of each 32-key step in one
 * register. Packing chunks (4kk, 4kk+1) and (4kk+2, 4kk+3) of S as they are makes logical k
 * 16h + 4t + e of step kk the key 32kk + 16h + 8(e/2) + 2t + e%2. V^T stores its keys in that
 * same order, so the product is unchanged and P goes from the accumulator to the A operand by
 * register renaming.
 *
 * One unit of work is 32 keys x 16 dims: ldmatrix.x4.trans reads 4 8x8 matrices of 16-bit pairs
 * (keys 32kv + 8m.., dims 16c..16c+15), which gives lane (g, t) keys {2t, 2t+1} x dims {2g, 2g+1}
 * of each; two byte permutes per output register make "dim 2g (or 2g+1), keys 2t, 2t+1, 8+2t,
 * 9+2t" = logical bytes 4t..4t+3 of V^T rows 16c + 2g (+1); stmatrix.x4 writes them (rows 16c + 2r
 * and 16c + 2r + 1, logical bytes 32kv and 32kv + 16). */
#ifndef FP8ATTN_WGMMA_TRANSPOSE_V_CUH
#define FP8ATTN_WGMMA_TRANSPOSE_V_CUH

#include "config.cuh"
#include "ptx_sm90.cuh"
#include "smem_layout.cuh"

/* WGMMA_TW_ROLLED 1: transpose_warp's batch loop is not unrolled (A/B builds, code size: PERF
 * w35 measured it 2-4 % slower) */
#ifndef WGMMA_TW_ROLLED
#define WGMMA_TW_ROLLED 0
#endif

/* A unit's four output registers: the four registers ldmatrix.trans gave, byte-permuted into
 * V^T's key order (above) by prmt with selector sel for the first two and sel ^ 0x1111 for the
 * last two (unit_sel; 0x6420: the even rows first). Host and device, so that
 * tests/test_wgmma_transpose.cu runs the same code. */
__host__ __device__ __forceinline__ uint32_t unit_prmt(uint32_t a, uint32_t b, uint32_t sel)
{
#ifdef __CUDA_ARCH__
    return byte_perm(a, b, sel);
#else
    /* prmt.b32's default mode; the selectors' nibbles are below 8, so no sign replication */
    const uint64_t x = (uint64_t)a | ((uint64_t)b << 32);
    uint32_t d = 0;
    for (int k = 0; k < 4; k++)
        d |= (uint32_t)((x >> (8 * ((sel >> (4 * k)) & 7))) & 0xff) << (8 * k);
    return d;
#endif
}
/* the four, in stmatrix's operand order (one text for the kernels' calls and unit_out; as the
 * operands of the call itself, which gives ptxas the order the kernels were measured with) */
#define FP8ATTN_UNIT_OUT(r, sel)                                                                   \
    unit_prmt((r)[0], (r)[1], (sel)), unit_prmt((r)[2], (r)[3], (sel)),                            \
        unit_prmt((r)[0], (r)[1], (sel) ^ 0x1111u), unit_prmt((r)[2], (r)[3], (sel) ^ 0x1111u)
__host__ __device__ __forceinline__ void unit_out(const uint32_t r[4], uint32_t sel,
                                                  uint32_t out[4])
{
    const uint32_t o[4] = {FP8ATTN_UNIT_OUT(r, sel)};
    for (int i = 0; i < 4; i++) out[i] = o[i];
}

/* The row order of a unit's stmatrix. stmatrix.x4 writes four 8x8 matrices of 16-bit pairs; lane
 * (g, t) (lane = 4 g + t) gives row g of each, lane L the address of matrix L / 8's row L % 8.
 * Lane (g, t) holds V^T rows 2g and 2g + 1 (dims). CF false (the order before w109): matrices 0-1
 * take the even rows 16c + 2g, 2-3 the odd ones, and the eight rows of a matrix fall on four
 * 16-byte bank groups under V^T's 32-, 64- and 128-byte swizzles: a 2-way conflict on every
 * stmatrix (docs/PERF.md w108: 34 M excess wavefronts at (1,16,16384,128)). CF true: lanes 16-31
 * (g >= 4) exchange their two rows (unit_sel: the selectors swapped) and the row addresses follow
 * (st_row_of), so a matrix's rows are 16c + 2g + (g >= 4) (or 16c + 2g + (g < 4)): eight bank
 * groups under each swizzle (at 64 bytes rows 2g and 2g + 1 share a phase and lie in the two
 * halves of a 128-byte line; at 128 bytes the phases 2g + (g >= 4) mod 8 are all distinct; at 32
 * bytes the parity moves the row by 32 bytes within its line). Both write the same bytes
 * (docs/PERF.md w109; tests/test_wgmma_transpose.cu checks both for every transposing tile).
 * The order is C::STSM_CF (config.cuh). */
template <bool CF>
__host__ __device__ __forceinline__ uint32_t st_row_of(uint32_t lane)
{
    return CF ? 2 * (lane & 7) + (((lane >> 4) ^ (lane >> 2)) & 1) : 2 * (lane & 7) + (lane >> 4);
}
template <bool CF>
__host__ __device__ __forceinline__ uint32_t unit_sel(uint32_t lane)
{
    return CF ? 0x6420u ^ (0x1111u & (0u - ((lane >> 4) & 1))) : 0x6420u;
}
/* The second half of a unit: its output registers (unit_out with the lane's selector sel,
 * unit_sel) stored by stmatrix at `addr`. */
__device__ __forceinline__ void store_unit_sel(uint32_t addr, const uint32_t r[4], uint32_t sel)
{
    stmatrix_x4(addr, FP8ATTN_UNIT_OUT(r, sel));
}

/* The units of transposer warp W: u = W + WARPS k (kv = u / CH, c = u % CH), W a compile-time
 * constant so that every unit's offsets are immediates and only the lane's swizzle terms are
 * computed (about one add per address; the loop with a run-time warp index spent 25-45 integer
 * instructions per unit on them, docs/PERF.md w35). A unit of 32 keys x 16 dims:
 *   ldmatrix reads V rows 32 kv + lane, bytes 16 c..16 c + 15:
 *     v + (c / CS) BN SW_D + (32 kv + lane) SW_D + ((c % CS) ^ phase(lane)) 16
 *   stmatrix writes V^T rows 16 c + st_row, bytes 32 kv + 16 sb (sb = st_kb / 16):
 *     vt + (kv / KN) D SW_N + (16 c + st_row) SW_N + ((2 (kv % KN) + sb) ^ phase(st_row)) 16
 * (CS = SW_D / 16 chunks and KN = SW_N / 32 key blocks per swizzle row; 32 kv and 16 c are
 * multiples of 8, so the rows' phases are the lane's.) Units go in batches of BATCH whose
 * ldmatrix all issue before the first stmatrix: the asm statements are volatile (and stmatrix
 * clobbers memory), so the compiler keeps their order as written, and a load-permute-store loop
 * runs one unit at a time whatever its unroll count (as it did until w35). */
template <class C, int W, int BATCH>
__device__ __forceinline__ void transpose_warp(uint32_t v, uint32_t vt, int lane_)
{
    constexpr int CH = C::D / 16, UNITS = (C::BN / 32) * CH, WARPS = C::TRANSPOSERS / 32;
    constexpr int NU = (UNITS - W + WARPS - 1) / WARPS; /* this warp's units */
    constexpr int CS = C::SW_D / 16, KN = C::SW_N / 32;
    /* opaque: the lane's terms are recomputed per tile instead of held in registers across the
     * producer's loop */
    const uint32_t lane = opaque_u32((uint32_t)lane_);
    const uint32_t xs = swizzle_phase<C::SW_D>(lane);
    const uint32_t st_row = st_row_of<C::STSM_CF>(lane), sb = (lane >> 3) & 1,
                   sel = unit_sel<C::STSM_CF>(lane);
    const uint32_t xd = swizzle_phase<C::SW_N>(st_row);
    const uint32_t src = v + lane * C::SW_D, dst = vt + st_row * C::SW_N;
#if WGMMA_TW_ROLLED
#pragma unroll 1
#else
#pragma unroll
#endif
    for (int k0 = 0; k0 < NU; k0 += BATCH) {
        uint32_t r[BATCH][4];
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
            const uint32_t u = W + WARPS * (k0 + i), kv = u / CH, c = u % CH;
            if (k0 + i < NU)
                ldmatrix_x4_trans(r[i], src + (uint32_t)((c / CS) * C::BN * C::SW_D + 32 * kv * C::SW_D) +
                                            (((uint32_t)(c % CS) ^ xs) << 4));
        }
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
            const uint32_t u = W + WARPS * (k0 + i), kv = u / CH, c = u % CH;
            if (k0 + i < NU)
                store_unit_sel(dst + (uint32_t)((kv / KN) * C::D * C::SW_N + 16 * c * C::SW_N) +
                                   ((((uint32_t)(2 * (kv % KN)) + sb) ^ xd) << 4),
                               r[i], sel);
        }
    }
}

/* The units of warp `warp` with its index known only at run time (C::TRANSPOSE_SPEC 0), one at a
 * time: u = warp + WARPS k, the addresses from kmajor_addr (about 20 integer instructions per
 * unit at hd128, docs/PERF.md w80). hd128_n224 keeps it: every batched or specialised form spills
 * there, mostly in that kernel's consumers (232 registers, tight). (Its batched form, which hd128
 * took until w81, went with that: w35, w81.) UNROLL: units per trip of the loop (2 in the _vt
 * kernels' background writer, vt_background.cuh transpose_chunk_lean). */
template <class C, int UNROLL = 4>
__device__ __forceinline__ void transpose_units(uint32_t v, uint32_t vt, int warp, int lane)
{
    constexpr int CH = C::D / 16, UNITS = (C::BN / 32) * CH, WARPS = C::TRANSPOSERS / 32;
    constexpr int PER = (UNITS + WARPS - 1) / WARPS; /* units per warp (the last may have fewer) */
    const int st_row = (int)st_row_of<C::STSM_CF>((uint32_t)lane), st_kb = 16 * ((lane >> 3) & 1);
    const uint32_t sel = unit_sel<C::STSM_CF>((uint32_t)lane);
#pragma unroll UNROLL
    for (int k = 0; k < PER; k++) {
        const uint32_t u = (uint32_t)(warp + WARPS * k), kv = u / CH, c = u % CH;
        if (UNITS % WARPS != 0 && u >= UNITS) break;
        uint32_t r[4];
        ldmatrix_x4_trans(r, kmajor_addr<C::BN, C::SW_D>(v, 32 * kv + lane, 16 * c));
        store_unit_sel(kmajor_addr<C::D, C::SW_N>(vt, 16 * c + st_row, 32 * kv + st_kb), r, sel);
    }
}

/* The units of transposer warp `warp` as a band of whole key blocks (C::TRANSPOSE_SPEC 2): warp
 * w takes key blocks kv = w KPW + j (j < KPW = BN / 32 / WARPS) and every chunk c < CH of each,
 * so that j and c, and with them every term of a unit's two addresses but the warp's and the
 * lane's, are compile-time constants; the warp's and lane's terms fold into two bases per tile:
 *   ldmatrix: (S ^ ((c % CS) << 4)) + (c / CS) BN SW_D + 32 j SW_D,
 *     S = (v + (32 w KPW + lane) SW_D) | (phase(lane) << 4);
 *   stmatrix: (T ^ ((2 (j % KN)) << 4)) + (j / KN) D SW_N + 16 c SW_N,
 *     T = (vt + (w KPW / KN) D SW_N + st_row SW_N) | ((sb ^ phase(st_row)) << 4)
 * (transpose_warp's formulas with kv = w KPW + j, KPW a multiple of KN). The OR and the XOR are
 * exact because v + (32 w KPW + lane) SW_D and vt + ... + st_row SW_N have bits 4 .. log2(SW) - 1
 * clear (the tiles lie on 1024-byte boundaries: smem_layout.cuh's base, config.cuh's offsets;
 * the rows are multiples of SW) and 2 (j % KN) + sb = 2 (j % KN) ^ sb. A unit then costs its
 * ldmatrix, four permutes, its stmatrix and at most two LOP3 (the XORs), and the warps share one
 * copy of the code, where transpose_warp has one unrolled copy per warp (docs/PERF.md w81). */
template <class C, int BATCH>
__device__ __forceinline__ void transpose_blocks(uint32_t v, uint32_t vt, int warp, int lane_)
{
    constexpr int CH = C::D / 16, WARPS = C::TRANSPOSERS / 32, KPW = C::BN / 32 / WARPS;
    constexpr int CS = C::SW_D / 16, KN = C::SW_N / 32, NU = KPW * CH;
    static_assert(C::TRANSPOSE_SPEC != 2 || (C::BN % (32 * WARPS) == 0 && KPW % KN == 0),
                  "transpose_blocks: the warps take equal bands of whole swizzle rows of V^T");
    /* opaque: the lane's terms are recomputed per tile instead of held across the producer's
     * loop */
    const uint32_t lane = opaque_u32((uint32_t)lane_);
    const uint32_t w = (uint32_t)warp;
    const uint32_t st_row = st_row_of<C::STSM_CF>(lane), sb = (lane >> 3) & 1,
                   sel = unit_sel<C::STSM_CF>(lane);
    const uint32_t S = (v + (32 * KPW * w + lane) * C::SW_D) | (swizzle_phase<C::SW_D>(lane) << 4);
    const uint32_t T = (vt + (KPW / KN) * w * (C::D * C::SW_N) + st_row * C::SW_N) |
                       ((sb ^ swizzle_phase<C::SW_N>(st_row)) << 4);
#pragma unroll
    for (int n0 = 0; n0 < NU; n0 += BATCH) {
        uint32_t r[BATCH][4];
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
            const int j = (n0 + i) / CH, c = (n0 + i) % CH;
            if (n0 + i < NU)
                ldmatrix_x4_trans(r[i], (S ^ ((uint32_t)(c % CS) << 4)) +
                                            (uint32_t)((c / CS) * C::BN * C::SW_D + 32 * j * C::SW_D));
        }
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
            const int j = (n0 + i) / CH, c = (n0 + i) % CH;
            if (n0 + i < NU)
                store_unit_sel((T ^ ((uint32_t)(2 * (j % KN)) << 4)) +
                                   (uint32_t)((j / KN) * C::D * C::SW_N + 16 * c * C::SW_N),
                               r[i], sel);
        }
    }
}

/* V tile at v -> V^T tile at vt, by transposer warp `warp` (0 .. TRANSPOSERS / 32 - 1), in batches
 * of C::TRANSPOSE_BATCH units: C::TRANSPOSE_SPEC 1 transpose_warp, 2 transpose_blocks, 0
 * transpose_units (one unit at a time). */
template <class C>
__device__ __forceinline__ void transpose_tile(uint32_t v, uint32_t vt, int warp, int lane)
{
    constexpr int B = C::TRANSPOSE_BATCH;
    static_assert(C::TRANSPOSERS / 32 <= 4, "at most four transposer warps");
    if (C::TRANSPOSE_SPEC == 0) {
        transpose_units<C>(v, vt, warp, lane);
    } else if (C::TRANSPOSE_SPEC == 2) {
        transpose_blocks<C, B>(v, vt, warp, lane);
    } else {
        switch (warp) {
        case 0: transpose_warp<C, 0, B>(v, vt, lane); break;
        case 1: transpose_warp<C, 1, B>(v, vt, lane); break;
        case 2: transpose_warp<C, 2, B>(v, vt, lane); break;
        default:
            if (C::TRANSPOSERS / 32 > 3) transpose_warp<C, 3, B>(v, vt, lane);
            break;
        }
    }
}

#endif
