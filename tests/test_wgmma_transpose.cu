/* The wgmma producer's V transpose (src/kernels/wgmma/transpose_v.cuh), run on the CPU: the same
 * helpers the kernels compile (kmajor_addr, st_row_of, unit_sel, unit_out: the addresses, the
 * selectors and the byte permutes) drive a model of the two instructions around them, as the PTX
 * ISA defines them:
 *   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: lanes 8i..8i+7 give the row addresses of
 *     8x8 matrix i (rows of eight 16-bit elements); lane 4g + t receives, in register i, the
 *     elements (row 2t, column g) and (row 2t + 1, column g) of matrix i;
 *   stmatrix.sync.aligned.m8n8.x4.shared.b16: lane 4g + t's register i is row g, elements 2t and
 *     2t + 1 of matrix i, written at the address lane 8i + g gives.
 * For every tile of keys x head_dim that a transposing kernel uses (config.cuh's swizzles), every
 * unit of 32 keys x 16 dims as transpose_units addresses it:
 *  - V^T holds V transposed, in the key order that lets P go from the accumulator to the A
 *    operand by register renaming: byte p = 32 kk + 16 h + 4 t + e of row d is V's byte d of key
 *    32 kk + 16 h + 8 (e / 2) + 2 t + e % 2 (transpose_v.cuh);
 *  - the rows of each stmatrix matrix fall on eight distinct 16-byte bank groups (one wavefront),
 *    and so do those of each ldmatrix matrix;
 * and the order before docs/PERF.md w109 (the even rows, then the odd ones) writes the
 * same bytes with two wavefronts per matrix, which the check above must see (else it tests
 * nothing).
 * The folded address forms (transpose_warp, transpose_blocks) are not modelled here: the GPU runs
 * compare their outputs (docs/PERF.md w109). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wgmma/transpose_v.cuh"
#include "test_util.h"

/* Eight row addresses on eight 16-byte bank groups of a 128-byte line: one wavefront. */
static int one_wavefront(const uint32_t a[8])
{
    unsigned seen = 0;
    for (int r = 0; r < 8; r++) seen |= 1u << ((a[r] % 128) / 16);
    return seen == 0xffu;
}

/* One tile of BN keys x D dims: V (K-major rows of D bytes, swizzle SW_D) -> V^T (rows of BN key
 * bytes, swizzle SW_N), unit by unit, in stmatrix order CF (st_row_of<CF>, unit_sel<CF>). Returns
 * the stmatrix matrices that needed more than one wavefront. */
template <int D, int BN, int SW_D, int SW_N, bool CF>
static long transpose_model(const char *name)
{
    const uint32_t V = 0, VT = 1u << 20; /* both 1024-byte aligned, as the kernels' tiles */
    static uint8_t mem[(1u << 20) + 65536];
    memset(mem, 0, sizeof mem);
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(D * 1000 + BN);
    for (int k = 0; k < BN; k++)
        for (int d = 0; d < D; d++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            mem[V + kmajor_addr<BN, SW_D>(0, k, d & ~15) + (d & 15)] = (uint8_t)(rng >> 56);
        }
    long multi = 0;
    constexpr int CH = D / 16;
    for (int u = 0; u < (BN / 32) * CH; u++) {
        const int kv = u / CH, c = u % CH;
        uint32_t ld[32], st[32], reg[32][4];
        for (int L = 0; L < 32; L++) ld[L] = V + kmajor_addr<BN, SW_D>(0, 32 * kv + L, 16 * c);
        for (int i = 0; i < 4; i++)
            CHECK(one_wavefront(ld + 8 * i),
                  "%s unit %d: ldmatrix matrix %d in more than one wavefront",
                  name, u, i);
        for (int T = 0; T < 32; T++) {
            const int g = T >> 2, t = T & 3;
            for (int i = 0; i < 4; i++) {
                const uint8_t *r0 = mem + ld[8 * i + 2 * t], *r1 = mem + ld[8 * i + 2 * t + 1];
                reg[T][i] = (uint32_t)r0[2 * g] | (uint32_t)r0[2 * g + 1] << 8 |
                            (uint32_t)r1[2 * g] << 16 | (uint32_t)r1[2 * g + 1] << 24;
            }
        }
        for (int L = 0; L < 32; L++) {
            const uint32_t row = st_row_of<CF>((uint32_t)L);
            st[L] = VT + kmajor_addr<D, SW_N>(0, 16 * c + (int)row, 32 * kv + 16 * ((L >> 3) & 1));
        }
        for (int i = 0; i < 4; i++) multi += !one_wavefront(st + 8 * i);
        for (int T = 0; T < 32; T++) {
            uint32_t out[4];
            unit_out(reg[T], unit_sel<CF>((uint32_t)T), out);
            for (int i = 0; i < 4; i++)
                memcpy(mem + st[8 * i + (T >> 2)] + 4 * (T & 3), &out[i], 4);
        }
    }
    long bad = 0;
    for (int d = 0; d < D; d++)
        for (int p = 0; p < BN; p++) {
            const int kk = p / 32, q = p % 32, h = q / 16, t = (q % 16) / 4, e = q % 4;
            const int key = 32 * kk + 16 * h + 8 * (e >> 1) + 2 * t + (e & 1);
            const uint8_t want = mem[V + kmajor_addr<BN, SW_D>(0, key, d & ~15) + (d & 15)];
            const uint8_t got = mem[VT + kmajor_addr<D, SW_N>(0, d, p & ~15) + (p & 15)];
            bad += got != want;
        }
    CHECK(bad == 0, "%s (%s order): %ld of %d V^T bytes wrong", name,
          CF ? "conflict-free" : "even-rows-first",
          bad, D * BN);
    return multi;
}

/* A transposer's tile: the swizzles config.cuh gives it (the _vt kernels' background writer's
 * 64-key chunks, vt_background.cuh, take SW_N 64, as config.cuh gives 64 x D). */
template <int D, int BN>
static void tile(const char *name)
{
    typedef wg_config<D, BN, 2> C;
    const long cf = transpose_model<D, BN, C::SW_D, C::SW_N, true>(name);
    const long old = transpose_model<D, BN, C::SW_D, C::SW_N, false>(name);
    CHECK(cf == 0, "%s: %ld stmatrix matrices need two wavefronts in the conflict-free order", name,
          cf);
    CHECK(old == 4L * (BN / 32) * (D / 16),
          "%s: the even-rows-first order: %ld matrices of %d in two wavefronts "
          "(the model no longer sees the conflict it was written for)",
          name, old, 4 * (BN / 32) * (D / 16));
    printf("%-28s SW_D %3d SW_N %3d: stmatrix matrices in two wavefronts, even rows first %ld, "
           "the conflict-free one %ld\n", name, C::SW_D, C::SW_N, old, cf);
}

int main(void)
{
    tile<64, 128>("hd64, hd64_m128 (64 x 128)");
    tile<64, 160>("hd64_n160 (64 x 160)");
    tile<128, 192>("hd128 (128 x 192)");
    tile<128, 224>("hd128_n224 (128 x 224)");
    tile<256, 128>("hd256 (256 x 128)");
    tile<128, 128>("(128 x 128)");
    tile<64, 192>("(64 x 192)");
    tile<64, 64>("background chunk (64 x 64)");
    tile<128, 64>("background chunk (128 x 64)");
    if (g_failures) {
        printf("test_wgmma_transpose: %ld failures\n", g_failures);
        return 1;
    }
    printf("test_wgmma_transpose: ok\n");
    return 0;
}
