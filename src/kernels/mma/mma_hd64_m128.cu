/* Variant "mma", head_dim 64, 128 query rows per block: 4 warps x 2 row tiles, 64-key tiles, Q kept
 * in registers, one barrier per tile. The instance for large grids (see mma_variant.cu). */
#include "mma_fwd.cuh"

typedef mma_config<64, 4, 2, 64, true, false> mma_cfg_hd64_m128;
FP8ATTN_MMA_INSTANCE(hd64_m128, mma_cfg_hd64_m128)
