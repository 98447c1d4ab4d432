/* Variant "mma", head_dim 128: the one tile configuration instantiated for it
 * (4 warps = 64 query rows per block, 128-key tiles, Q kept in registers, two barriers per tile). */
#include "mma_fwd.cuh"

typedef mma_config<128, 4, 128, true, true> mma_cfg_hd128;
FP8ATTN_MMA_INSTANCE(128, mma_cfg_hd128)
