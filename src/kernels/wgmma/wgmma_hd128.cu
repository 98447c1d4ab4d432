/* Variant "wgmma", head_dim 128: 128 query rows (2 consumer warpgroups) x 128-key tiles, 2 stages. */
#include "kernel.cuh"

typedef wg_config<128, 128, 2> wg_cfg_hd128;
FP8ATTN_WGMMA_INSTANCE(hd128, wg_cfg_hd128, WGMMA_OVERLAP, WGMMA_PINGPONG)
