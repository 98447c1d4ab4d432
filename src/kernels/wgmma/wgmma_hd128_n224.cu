/* Variant "wgmma", head_dim 128, problems of at least 4096 keys, 2048 if causal (wgmma_variant.cu,
 * WGMMA_HD128_N224_*MIN_SK): 2 consumer warpgroups (128 query rows) x 224-key tiles (FA3's e4m3
 * tile), 2 stages. A row of V^T is 224 bytes, so V^T takes the 32-byte swizzle. S (112) + P (28)
 * + O (64) registers fit the consumers' 232 with no spill. Against wgmma_hd128.cu's 192-key tiles
 * on the H100 (docs/PERF.md w7, w31): the per-tile waits and row-max shuffles spread over more
 * keys, +1.5-2 % at 4k-16k (causal: 8k-16k); at 2k the last tile is mostly empty (2048 = 9.1 x
 * 224), 3-4 % slower. Causal problems run the _vtc kernel (the cross-tile overlap), which on the
 * H200 is 1.3-1.9 % faster than the 192-key _vt kernel at 4k-6k and 0.6-1.1 % at 2k-3.5k (w105,
 * w107): hence the causal range from 2048. Same register split and loader warp as
 * wgmma_hd128.cu; its epilogue stores O from registers: the O tile would not fit beside its two Q
 * buffers and rings (config.cuh). */
#include "kernel.cuh"

#ifndef WGMMA_HD128_N224_PREGS
#define WGMMA_HD128_N224_PREGS 40 /* producer registers after setmaxnreg; consumers get 232 */
#endif
#ifndef WGMMA_HD128_N224_TBATCH
#define WGMMA_HD128_N224_TBATCH 1 /* the one-unit loop with the warp index at run time (config.cuh
                                   * TBATCH, TSPEC): every batched or specialised form spills,
                                   * mostly in the consumers (PERF w35) */
#endif
typedef wg_config<128, 224, 2, 2, WGMMA_HD128_N224_PREGS, 1, false, false, true, WGMMA_HD128_N224_TBATCH,
                  0>
    wg_cfg_hd128_n224;
/* The _vt kernel: its producer loads (warp 0) and transposes nothing; at 40 registers the
 * consumers get 232. Its epilogue writes O through shared memory with stmatrix and a TMA store
 * (EPI_TMA; stmatrix instead of quad transposes there: +2.2 % at (2,16,8192,128) causal, +1.2 %
 * at 16k causal, docs/PERF.md w39). At 24 producer registers (consumers 240) it was 0.5-2.6 %
 * slower (w37, w96; with the warp-uniform loads 0.8-2.9 %, w113). */
#ifndef WGMMA_HD128_N224_VT_PREGS
#define WGMMA_HD128_N224_VT_PREGS WGMMA_HD128_N224_PREGS
#endif
#ifndef WGMMA_HD128_N224_VT_CROSS
#define WGMMA_HD128_N224_VT_CROSS false /* the cross-tile overlap excludes the split tail */
#endif
typedef wg_config<128, 224, 2, 2, WGMMA_HD128_N224_VT_PREGS, 1, true, 1, WGMMA_HD128_N224_VT_CROSS>
    wg_cfg_hd128_n224_vt;
/* The causal _vt kernel (_vtc): the _vt kernel with the cross-tile overlap (CROSS: two Q buffers;
 * the next query tile's first S and softmax run under this one's last P.V and epilogue). Causal
 * query tiles have half the key tiles on average, so that boundary weighs twice as much there;
 * causal problems never split the tail, which CROSS excludes. With CUDA 13.0 it compiles at 40
 * producer registers with no spill and unserialised (33 QGMMA; session 17's build spilled 16
 * bytes). H200, time _vt / _vtc, alternating rounds (docs/PERF.md w103): (2,16,8192,128) causal
 * 1.010-1.012, (4,16,8192,128) causal 1.010-1.013, (1,16,16384,128) causal 1.003, (1,32,16384,128)
 * causal with 8 kv heads 0.996-0.999 (within its spread); outputs bit-identical.
 * WGMMA_HD128_N224_VTC 0: no _vtc kernel, causal problems on the _vt kernel (A/B builds). */
#ifndef WGMMA_HD128_N224_VTC
#define WGMMA_HD128_N224_VTC 1
#endif
#if WGMMA_HD128_N224_VTC
typedef wg_config<128, 224, 2, 2, WGMMA_HD128_N224_VT_PREGS, 1, true, 1, true>
    wg_cfg_hd128_n224_vtc;
FP8ATTN_WGMMA_INSTANCE_VTC(hd128_n224, wg_cfg_hd128_n224, wg_cfg_hd128_n224_vt,
                           wg_cfg_hd128_n224_vtc, 1, 1, WGMMA_PINGPONG, WGMMA_VT_PINGPONG)
#else
FP8ATTN_WGMMA_INSTANCE(hd128_n224, wg_cfg_hd128_n224, wg_cfg_hd128_n224_vt, 1, 1, WGMMA_PINGPONG,
                       WGMMA_VT_PINGPONG)
#endif
