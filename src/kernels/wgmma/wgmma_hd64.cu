/* Variant "wgmma", head_dim 64: 128 query rows (2 consumer warpgroups) x 128-key tiles, 2 stages. */
#include "kernel.cuh"

typedef wg_config<64, 128, 2> wg_cfg_hd64;
FP8ATTN_WGMMA_INSTANCE(hd64, wg_cfg_hd64, WGMMA_OVERLAP, WGMMA_PINGPONG)
