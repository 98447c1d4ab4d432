/* Variant "wgmma", head_dim 256: 2 consumer warpgroups (128 query rows) x 128-key tiles, 2 stages.
 * Both kernels have the intra-warpgroup overlap, whose consumers need 240 registers: the producer
 * keeps 24, which the transposing kernel's fits since its loads run warp-uniformly (load.cuh
 * produce; docs/PERF.md w110; before, it had no overlap and 56). Only the _vt kernel, with no V
 * ring, has room for the O tile of the staging epilogue beside its rings; the transposing kernel
 * stages O over the ring stage of a tile's last key tile (config.cuh O_IN_RING).
 * The WGMMA_HD256_* macros may be set by a build for A/B measurements (CMake:
 * -DFP8ATTN_WGMMA_FLAGS="-DWGMMA_HD256_BN=..."); nvcc splits -D values at commas, hence one each. */
#include "kernel.cuh"

#ifndef WGMMA_HD256_BN
#define WGMMA_HD256_BN 128 /* keys per tile */
#endif
#ifndef WGMMA_HD256_STAGES
#define WGMMA_HD256_STAGES 2
#endif
#ifndef WGMMA_HD256_CONSUMERS
#define WGMMA_HD256_CONSUMERS 2 /* consumer warpgroups of 64 query rows */
#endif
#ifndef WGMMA_HD256_PREGS
#define WGMMA_HD256_PREGS 24 /* producer registers after setmaxnreg: the consumers get 240,
                             * which the overlap (below) needs; the transposer fits in batches
                             * of one unit (TBATCH below; 2 spills 22 B) */
#endif
#ifndef WGMMA_HD256_LOADER
#define WGMMA_HD256_LOADER 0 /* 0: all four producer warps transpose (64 units per tile; H200
                             * 975 vs 855 TFLOPS at 16k with a loader warp + 3 transposers) */
#endif
#ifndef WGMMA_HD256_TBATCH
#define WGMMA_HD256_TBATCH 1 /* V transpose units per batch (config.cuh TBATCH; PERF w35, w110) */
#endif
#ifndef WGMMA_HD256_EPI_TMA
#define WGMMA_HD256_EPI_TMA 1 /* O through shared memory and a TMA store: with no room beside
                               * the rings, over the stage of a tile's last key tile (config.cuh
                               * O_IN_RING; docs/PERF.md w59) */
#endif
typedef wg_config<256, WGMMA_HD256_BN, WGMMA_HD256_STAGES, WGMMA_HD256_CONSUMERS, WGMMA_HD256_PREGS,
                  WGMMA_HD256_LOADER, false, WGMMA_HD256_EPI_TMA, true, WGMMA_HD256_TBATCH>
    wg_cfg_hd256;
/* the _vt kernel (V^T from the workspace): no transposer, so its own tile and ring may differ */
#ifndef WGMMA_HD256_VT_BN
#define WGMMA_HD256_VT_BN WGMMA_HD256_BN
#endif
#ifndef WGMMA_HD256_VT_STAGES
#define WGMMA_HD256_VT_STAGES WGMMA_HD256_STAGES
#endif
#ifndef WGMMA_HD256_VT_PREGS
#define WGMMA_HD256_VT_PREGS 24 /* its producer loads and transposes nothing: 24 registers leave the
                                 * consumers 240, which the overlap needs (40: spills) */
#endif
#ifndef WGMMA_HD256_VT_CROSS
#define WGMMA_HD256_VT_CROSS 0 /* the cross-tile overlap: the consumers spill 8 bytes with it */
#endif
#ifndef WGMMA_HD256_VT_EPI_TMA
#define WGMMA_HD256_VT_EPI_TMA 1 /* O through shared memory (stmatrix) and a TMA store (config.cuh
                                  * EPI_TMA): the O tile fits at 2 stages (224 KB); H100 +0.4-1.9 %
                                  * at 4k-16k (docs/PERF.md w42) */
#endif
typedef wg_config<256, WGMMA_HD256_VT_BN, WGMMA_HD256_VT_STAGES, WGMMA_HD256_CONSUMERS,
                  WGMMA_HD256_VT_PREGS, 1, true, WGMMA_HD256_VT_EPI_TMA, WGMMA_HD256_VT_CROSS>
    wg_cfg_hd256_vt;
#ifndef WGMMA_HD256_OVERLAP
#define WGMMA_HD256_OVERLAP 1 /* S, P and O together need 240 registers: H200 +10-15 % at 2k-16k
                              * keys, +4 % at 512, with the conflict-free stmatrix (PERF w110) */
#endif
#ifndef WGMMA_HD256_VT_OVERLAP
#define WGMMA_HD256_VT_OVERLAP 1 /* fits in 240 registers: H100 +8-11 % at 8k-16k (PERF w16) */
#endif
FP8ATTN_WGMMA_INSTANCE(hd256, wg_cfg_hd256, wg_cfg_hd256_vt, WGMMA_HD256_OVERLAP,
                       WGMMA_HD256_VT_OVERLAP, WGMMA_PINGPONG, WGMMA_VT_PINGPONG)
