/* Variant "wgmma", head_dim 128: 2 consumer warpgroups (128 query rows) x 192-key tiles, 2 stages.
 * The WGMMA_HD128_* macros may be set by a build for A/B measurements (CMake:
 * -DFP8ATTN_WGMMA_FLAGS="-DWGMMA_HD128_BN=..."); nvcc splits -D values at commas, hence one each. */
#include "kernel.cuh"

#ifndef WGMMA_HD128_BN
#define WGMMA_HD128_BN 192 /* keys per tile */
#endif
#ifndef WGMMA_HD128_STAGES
#define WGMMA_HD128_STAGES 2
#endif
#ifndef WGMMA_HD128_CONSUMERS
#define WGMMA_HD128_CONSUMERS 2 /* consumer warpgroups of 64 query rows */
#endif
#ifndef WGMMA_HD128_PREGS
#define WGMMA_HD128_PREGS 40 /* producer registers after setmaxnreg (24 spills); consumers get 232 */
#endif
#ifndef WGMMA_HD128_LOADER
#define WGMMA_HD128_LOADER 1 /* 1: a warp only for the TMA loads, 3 transpose (H200: 793 vs 779 TFLOPS at 16k) */
#endif
#ifndef WGMMA_HD128_TSPEC
/* each transposer warp a band of key blocks (config.cuh TSPEC, transpose_blocks): +2.4-4.1 % at
 * 1-2k causal, +3.8 % at 512 keys, -0.8 % at 512 causal against the run-time-warp loop (PERF w81).
 * transpose_blocks needs three transposer warps and a multiple of 96 keys; other A/B tiles or
 * LOADER 0 fall back to the run-time-warp loop (0). */
#define WGMMA_HD128_TSPEC ((WGMMA_HD128_LOADER) && (WGMMA_HD128_BN) % 96 == 0 ? 2 : 0)
#endif
#ifndef WGMMA_HD128_TBATCH
/* V transpose units per batch (config.cuh TBATCH): 1 (with transpose_blocks 2 spills 16 bytes,
 * PERF w81; the run-time-warp loop takes one unit at a time) */
#define WGMMA_HD128_TBATCH 1
#endif
#ifndef WGMMA_HD128_EPI_TMA
#define WGMMA_HD128_EPI_TMA 1 /* O through shared memory (stmatrix) and a TMA store (config.cuh
                               * EPI_TMA): +3.3 / +1.9 % at (32,16,512,128) causal / not,
                               * +0.3-0.5 % at 2k (docs/PERF.md w40; w21 had the staging path
                               * without stmatrix slower) */
#endif
#ifndef WGMMA_HD128_DYNAMIC
#define WGMMA_HD128_DYNAMIC 1 /* the dynamic walk on causal problems of two waves or more, its
                               * counter in O (config.cuh DYNAMIC_WALK): H200 +0.5 % at 16k,
                               * +1-2.5 % at 2k-8k (docs/PERF.md w117) */
#endif
typedef wg_config<128, WGMMA_HD128_BN, WGMMA_HD128_STAGES, WGMMA_HD128_CONSUMERS, WGMMA_HD128_PREGS,
                  WGMMA_HD128_LOADER, false, WGMMA_HD128_EPI_TMA, true, WGMMA_HD128_TBATCH,
                  WGMMA_HD128_TSPEC, WGMMA_HD128_DYNAMIC>
    wg_cfg_hd128;
/* the _vt kernel (V^T from the workspace): no transposer, so its own tile and ring may differ */
#ifndef WGMMA_HD128_VT_BN
#define WGMMA_HD128_VT_BN WGMMA_HD128_BN
#endif
#ifndef WGMMA_HD128_VT_STAGES
#define WGMMA_HD128_VT_STAGES WGMMA_HD128_STAGES
#endif
#ifndef WGMMA_HD128_VT_PREGS
#define WGMMA_HD128_VT_PREGS 40 /* consumers get 232 (24 measured on hd128_n224_vt only: slower,
                                 * docs/PERF.md w113) */
#endif
#ifndef WGMMA_HD128_VT_EPI_TMA
#define WGMMA_HD128_VT_EPI_TMA 1 /* O through shared memory and a TMA store: H100 +3 % at
                                  * (8,16,2048,128) in w21, when the other kernels measured 1-8 %
                                  * slower with it; with stmatrix most of them gain (w40, w41;
                                  * here +2.5 % at (4,16,4096,128) causal) */
#endif
#ifndef WGMMA_HD128_VT_CROSS
#define WGMMA_HD128_VT_CROSS 0 /* the cross-tile overlap: 0.2-0.6 % slower side by side at
                                * (8,16,2048,128), the only problem measured (docs/PERF.md w33) */
#endif
typedef wg_config<128, WGMMA_HD128_VT_BN, WGMMA_HD128_VT_STAGES, WGMMA_HD128_CONSUMERS,
                  WGMMA_HD128_VT_PREGS, 1, true, WGMMA_HD128_VT_EPI_TMA, WGMMA_HD128_VT_CROSS>
    wg_cfg_hd128_vt;
#ifndef WGMMA_HD128_OVERLAP
#define WGMMA_HD128_OVERLAP 1 /* next tile's S = Q.K^T issued with this tile's P.V */
#endif
#ifndef WGMMA_HD128_VT_OVERLAP
#define WGMMA_HD128_VT_OVERLAP WGMMA_HD128_OVERLAP
#endif
FP8ATTN_WGMMA_INSTANCE(hd128, wg_cfg_hd128, wg_cfg_hd128_vt, WGMMA_HD128_OVERLAP,
                       WGMMA_HD128_VT_OVERLAP, WGMMA_PINGPONG, WGMMA_VT_PINGPONG)
