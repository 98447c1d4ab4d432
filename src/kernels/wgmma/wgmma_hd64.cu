/* Variant "wgmma", head_dim 64: 3 consumer warpgroups (192 query rows) x 128-key tiles, 3 stages
 * (the _vt kernel 2).
 * The WGMMA_HD64_* macros may be set by a build for A/B measurements (CMake:
 * -DFP8ATTN_WGMMA_FLAGS="-DWGMMA_HD64_BN=..."); nvcc splits -D values at commas, hence one each. */
#include "kernel.cuh"

#ifndef WGMMA_HD64_BN
#define WGMMA_HD64_BN 128 /* keys per tile */
#endif
#ifndef WGMMA_HD64_STAGES
#define WGMMA_HD64_STAGES 3 /* the transposing kernel's ring: H200 +1.2-1.4 % at 8k-16k causal
                            * against 2, even without the mask (docs/PERF.md w114) */
#endif
#ifndef WGMMA_HD64_CONSUMERS
#define WGMMA_HD64_CONSUMERS 3 /* consumer warpgroups of 64 query rows */
#endif
#ifndef WGMMA_HD64_PREGS
#define WGMMA_HD64_PREGS 32 /* producer registers after setmaxnreg; consumers get 160 (FA3's split).
                            * 56 (consumers 152) before its loads were warp-uniform; at 32 H200
                            * +0.8-1.4 % at 512-16k keys without a workspace (docs/PERF.md w112);
                            * 24 spills 28 B */
#endif
#ifndef WGMMA_HD64_LOADER
#define WGMMA_HD64_LOADER 1 /* 1: a warp only for the TMA loads, 3 transpose (same speed either way) */
#endif
#ifndef WGMMA_HD64_CROSS
#define WGMMA_HD64_CROSS 0 /* the cross-tile overlap: 2.6-4.6 % slower side by side at 2k-16k keys,
                            * both kernels (docs/PERF.md w33) */
#endif
#ifndef WGMMA_HD64_TBATCH
#define WGMMA_HD64_TBATCH 4 /* V transpose units per batch (config.cuh TBATCH; PERF w35) */
#endif
#ifndef WGMMA_HD64_EPI_TMA
#define WGMMA_HD64_EPI_TMA 1 /* O through shared memory (stmatrix) and a TMA store (config.cuh
                              * EPI_TMA), both kernels:
                              * +2.2 % at (32,32,512,64), +0.9-2.2 % in the _vt kernel at 2k-16k
                              * (docs/PERF.md w40) */
#endif
typedef wg_config<64, WGMMA_HD64_BN, WGMMA_HD64_STAGES, WGMMA_HD64_CONSUMERS, WGMMA_HD64_PREGS,
                  WGMMA_HD64_LOADER, false, WGMMA_HD64_EPI_TMA, WGMMA_HD64_CROSS, WGMMA_HD64_TBATCH>
    wg_cfg_hd64;
/* the _vt kernel (V^T from the workspace): no transposer, so its own tile and ring may differ */
#ifndef WGMMA_HD64_VT_BN
#define WGMMA_HD64_VT_BN WGMMA_HD64_BN
#endif
#ifndef WGMMA_HD64_VT_STAGES
#define WGMMA_HD64_VT_STAGES 2 /* 3: even, -0.6 to +0.4 % at 512-16k (w114) */
#endif
#ifndef WGMMA_HD64_VT_PREGS
#define WGMMA_HD64_VT_PREGS 32 /* consumers 160: +0.9-1.7 % over 56 since its loads are warp-uniform
                                * (docs/PERF.md w113) */
#endif
typedef wg_config<64, WGMMA_HD64_VT_BN, WGMMA_HD64_VT_STAGES, WGMMA_HD64_CONSUMERS,
                  WGMMA_HD64_VT_PREGS, 1, true, WGMMA_HD64_EPI_TMA, WGMMA_HD64_CROSS>
    wg_cfg_hd64_vt;
#ifndef WGMMA_HD64_OVERLAP
#define WGMMA_HD64_OVERLAP 1 /* next tile's S = Q.K^T issued with this tile's P.V */
#endif
#ifndef WGMMA_HD64_VT_OVERLAP
#define WGMMA_HD64_VT_OVERLAP WGMMA_HD64_OVERLAP
#endif
FP8ATTN_WGMMA_INSTANCE(hd64, wg_cfg_hd64, wg_cfg_hd64_vt, WGMMA_HD64_OVERLAP,
                       WGMMA_HD64_VT_OVERLAP, WGMMA_PINGPONG, WGMMA_VT_PINGPONG)
