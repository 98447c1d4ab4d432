/* Variant "wgmma", head_dim 64, causal problems of WGMMA_HD64_N160_MIN_SK to _MAX_SK keys
 * (1024 to 4096, wgmma_variant.cu): 3 consumer warpgroups (192 query rows) x 160-key tiles (FA3's
 * e4m3 tile), 2 stages. At 160 keys the consumers need 160 registers (at 152 they spill 96
 * bytes), so the producer keeps 32 and its transposer runs two chains instead of four. Against
 * wgmma_hd64.cu's 128-key tiles on the H100 (docs/PERF.md w29, w30), causal: 14 % slower at 512
 * keys, 2.5 % faster at 1k, 6 % at 2k, 1 % at 4k, 1.5 % slower at 8k; non-causal 2-3 % slower
 * at 2k-16k. With the speculative softmax (WGMMA_SPEC_EXP, off) its kernels spill 76 bytes.
 * The WGMMA_HD64_N160_* macros may be set by a build for A/B measurements, as in wgmma_hd64.cu. */
#include "kernel.cuh"

#ifndef WGMMA_HD64_N160_PREGS
#define WGMMA_HD64_N160_PREGS 32 /* producer registers after setmaxnreg; consumers get 160 */
#endif
/* without the cross-tile overlap: with it (8,32,2048,64) causal measured 0.4 % slower from the
 * workspace and 1.8-2.5 % slower transposing V in the peers' BSHD layout (docs/PERF.md w33) */
#ifndef WGMMA_HD64_N160_TBATCH
#define WGMMA_HD64_N160_TBATCH 1 /* V transpose units per batch (config.cuh TBATCH; 2 spills 48 B
                                  * at the producer's 32 registers; PERF w35) */
#endif
#ifndef WGMMA_HD64_N160_EPI_TMA
#define WGMMA_HD64_N160_EPI_TMA 1 /* O through shared memory (stmatrix) and a TMA store, both
                                   * kernels (config.cuh EPI_TMA): +0.9 % at
                                   * (8,32,2048,64) causal, +0.4 % at (4,32,3000,64) causal
                                   * (docs/PERF.md w41) */
#endif
#ifndef WGMMA_HD64_N160_DYNAMIC
#define WGMMA_HD64_N160_DYNAMIC 1 /* the dynamic walk, its counter in O (config.cuh DYNAMIC_WALK):
                                   * H200 +3.5 % at (8,32,2048,64) causal (docs/PERF.md w117) */
#endif
typedef wg_config<64, 160, 2, 3, WGMMA_HD64_N160_PREGS, 1, false, WGMMA_HD64_N160_EPI_TMA, false,
                  WGMMA_HD64_N160_TBATCH, 1, WGMMA_HD64_N160_DYNAMIC>
    wg_cfg_hd64_n160;
typedef wg_config<64, 160, 2, 3, WGMMA_HD64_N160_PREGS, 1, true, WGMMA_HD64_N160_EPI_TMA, false>
    wg_cfg_hd64_n160_vt;
FP8ATTN_WGMMA_INSTANCE(hd64_n160, wg_cfg_hd64_n160, wg_cfg_hd64_n160_vt, 1, 1, WGMMA_PINGPONG,
                       WGMMA_VT_PINGPONG)
