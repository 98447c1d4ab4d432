/* Variant "mma", head_dim 128, 128 query rows per block: 4 warps x 2 row tiles, 64-key tiles, Q
 * re-read from shared memory each tile, two barriers per tile. The instance for large grids (see
 * mma_variant.cu). */
#include "mma_fwd.cuh"

typedef mma_config<128, 4, 2, 64, false, true> mma_cfg_hd128_m128;
FP8ATTN_MMA_INSTANCE(hd128_m128, mma_cfg_hd128_m128)
