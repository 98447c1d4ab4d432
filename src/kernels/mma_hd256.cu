/* Variant "mma", head_dim 256: the one tile configuration instantiated for it
 * (4 warps = 64 query rows per block, 32-key tiles, Q re-read from shared memory each tile,
 * two barriers per tile). */
#include "mma_fwd.cuh"

typedef mma_config<256, 4, 32, false, true> mma_cfg_hd256;
FP8ATTN_MMA_INSTANCE(256, mma_cfg_hd256)
