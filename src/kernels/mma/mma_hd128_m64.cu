/* Variant "mma", head_dim 128, 64 query rows per block: 4 warps x 1 row tile, 128-key tiles, Q kept
 * in registers, two barriers per tile. The instance for small grids (see mma_variant.cu). */
#include "mma_fwd.cuh"

typedef mma_config<128, 4, 1, 128, true, true> mma_cfg_hd128_m64;
FP8ATTN_MMA_INSTANCE(hd128_m64, mma_cfg_hd128_m64)
