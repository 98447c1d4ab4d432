/* Variant "wgmma", head_dim 64, one-wave problems and causal problems of at most 1024 keys: 2
 * consumer warpgroups (128 query rows) x 128-key tiles, 2 stages. wgmma_hd64.cu's 192-row blocks
 * are faster once a problem fills the GPU several times over; where the 128-row grid still fits
 * in one wave, more and shorter blocks finish first (docs/PERF.md w12), and on short causal
 * problems 192-row tiles compute many masked rows (w31; wgmma_variant.cu, instance_for_problem).
 * The WGMMA_HD64_M128_* macros may be set by a build for A/B measurements, as in wgmma_hd64.cu. */
#include "kernel.cuh"

#ifndef WGMMA_HD64_M128_BN
#define WGMMA_HD64_M128_BN 128 /* keys per tile */
#endif
#ifndef WGMMA_HD64_M128_STAGES
#define WGMMA_HD64_M128_STAGES 2
#endif
#ifndef WGMMA_HD64_M128_PREGS
#define WGMMA_HD64_M128_PREGS 40 /* producer registers after setmaxnreg; consumers get 232 */
#endif
#ifndef WGMMA_HD64_M128_TBATCH
#define WGMMA_HD64_M128_TBATCH 2 /* V transpose units per batch (config.cuh TBATCH; PERF w35) */
#endif
/* O through shared memory (stmatrix) and a TMA store (config.cuh EPI_TMA), per kernel:
 * the _vt kernel +7.6 % at (1,4,4096,64); the transposing one +3.1 % at (4,32,1024,64) causal but
 * 1.2 % slower at (32,32,512,64) causal, FA3's grid point (docs/PERF.md w41); with O's map off
 * at 512 keys still 2.3-4.4 % slower there (w42), and on at every length 1.1 % slower on the
 * one-wave (1,8,2048,64) (w47), so it stays off */
#ifndef WGMMA_HD64_M128_EPI_TMA
#define WGMMA_HD64_M128_EPI_TMA 0
#endif
#ifndef WGMMA_HD64_M128_VT_EPI_TMA
#define WGMMA_HD64_M128_VT_EPI_TMA 1
#endif
typedef wg_config<64, WGMMA_HD64_M128_BN, WGMMA_HD64_M128_STAGES, 2, WGMMA_HD64_M128_PREGS, 1, false,
                  WGMMA_HD64_M128_EPI_TMA, true, WGMMA_HD64_M128_TBATCH>
    wg_cfg_hd64_m128;
typedef wg_config<64, WGMMA_HD64_M128_BN, WGMMA_HD64_M128_STAGES, 2, WGMMA_HD64_M128_PREGS, 1, true,
                  WGMMA_HD64_M128_VT_EPI_TMA>
    wg_cfg_hd64_m128_vt;
FP8ATTN_WGMMA_INSTANCE(hd64_m128, wg_cfg_hd64_m128, wg_cfg_hd64_m128_vt, 1, 1, WGMMA_PINGPONG,
                       WGMMA_VT_PINGPONG)
