/* Variant "mma", head_dim 128: the one tile configuration instantiated for it
 * (8 warps = 128 query rows per block, 64-key tiles, Q kept in registers). */
#include "mma_fwd.cuh"

typedef mma_config<128, 8, 64, true> mma_cfg_hd128;
FP8ATTN_MMA_INSTANCE(128, mma_cfg_hd128)
