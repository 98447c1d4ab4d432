/* Per-kernel resource usage (owned by the pipeline: tools/cmd_resources.c). */
#ifndef FP8ATTN_TOOL_RESOURCES_H
#define FP8ATTN_TOOL_RESOURCES_H

#include <stddef.h>
#include <jansson.h>

/* {"kernels": [{"variant", "symbol", "arch", "head_dim", "threads", "registers", "static_smem",
 *   "dynamic_smem", "stack", "local", "spill_bytes", "max_blocks_per_sm"}, ...]} for every compiled
 * kernel and architecture, read from this executable with cuobjdump (no GPU needed) plus, with a
 * GPU, the occupancy the runtime reports (-1 without). NULL with a message in err on failure. */
json_t *resources_collect(char *err, size_t errlen);

#endif
