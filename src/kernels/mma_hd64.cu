/* Variant "mma", head_dim 64: the one tile configuration instantiated for it
 * (4 warps = 64 query rows per block, 128-key tiles, Q kept in registers, one barrier per tile). */
#include "mma_fwd.cuh"

typedef mma_config<64, 4, 128, true, false> mma_cfg_hd64;
FP8ATTN_MMA_INSTANCE(64, mma_cfg_hd64)
