/* Variant "mma", head_dim 256, 64 query rows per block: 4 warps x 1 row tile, 64-key tiles, Q
 * re-read from shared memory each tile, two barriers per tile. The only hd256 instance: two row
 * tiles per warp would need 256 accumulator registers. */
#include "mma_fwd.cuh"

typedef mma_config<256, 4, 1, 64, false, true> mma_cfg_hd256_m64;
FP8ATTN_MMA_INSTANCE(hd256_m64, mma_cfg_hd256_m64)
