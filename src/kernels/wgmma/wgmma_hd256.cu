/* Variant "wgmma", head_dim 256: 128 query rows (2 consumer warpgroups) x 64-key tiles, 2 stages. */
#include "kernel.cuh"

typedef wg_config<256, 64, 2> wg_cfg_hd256;
FP8ATTN_WGMMA_INSTANCE(hd256, wg_cfg_hd256, WGMMA_OVERLAP, WGMMA_PINGPONG)
