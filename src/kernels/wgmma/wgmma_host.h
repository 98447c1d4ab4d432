/* Host-side pieces of the wgmma family shared by its files: the per-call kernel parameters
 * (tensor maps built from fp8attn_params_t) and the checks TMA needs. */
#ifndef FP8ATTN_WGMMA_HOST_H
#define FP8ATTN_WGMMA_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "fp8attn.h"

struct wgmma_params;

/* WGMMA_PDL 1 (default): a _vt kernel is launched as a programmatic dependent of the kernel
 * before it, the counters' clear (fp8attn_wgmma_vt_clear) or in WGMMA_FUSED_VT=0 builds the V^T
 * pass (cudaLaunchAttributeProgrammaticStreamSerialization): its blocks start, set up their
 * barriers and wait (griddepcontrol.wait) while that kernel runs, which it allows from each
 * block's start (griddepcontrol.launch_dependents). 0: a plain launch (A/B builds;
 * docs/PERF.md w53, w55). */
#ifndef WGMMA_PDL
#define WGMMA_PDL 1
#endif

/* FP8ATTN_OK if every Q/K/V stride TMA will see is one it can encode (checked without the
 * driver: nonzero where the extent is > 1 and below 2^40 bytes); else NOT_SUPPORTED naming it. */
fp8attn_status_t fp8attn_wgmma_check_strides(const fp8attn_params_t *p);

/* Fills *out for a kernel with BM query rows and BN keys per tile whose Q/K/V boxes are sw_d
 * bytes wide, V's v_rows rows (BN; a FUSED_VT kernel's background reads V in chunks of
 * C::VT_CHUNK keys): the Q, K, V and O tensor maps (cuTensorMapEncodeTiled through the
 * runtime's driver entry point, so nothing links libcuda; O's only for a kernel that stores
 * with TMA, o_map != 0: the rows of its box) and the scalars. No allocation, no synchronisation. */
fp8attn_status_t fp8attn_wgmma_make_params(const fp8attn_params_t *p, int bm, int bn, int v_rows,
                                           int sw_d, int o_map, struct wgmma_params *out);

/* How a causal problem's units walk its query tiles (scheduler.cuh): the kernel's wgmma_params
 * walk field. TILES: one tile per unit, head by head (non-causal problems, and causal ones of
 * fewer than two waves); PAIRS: two tiles of one head per unit, (n_q_tiles - 1 - i, i), then the
 * tiles of the pairs the planner split singly; SNAKE: one tile per unit, longest first across all
 * heads, every odd full round of the grid walked backwards. */
enum {
    FP8ATTN_WGMMA_WALK_TILES = 0,
    FP8ATTN_WGMMA_WALK_PAIRS = 1,
    FP8ATTN_WGMMA_WALK_SNAKE = 2,
    FP8ATTN_WGMMA_WALK_DYNAMIC = 3 /* causal problems of two waves or more on the kernels with
                                    * the walk (config.cuh DYNAMIC_WALK): one tile per unit, in
                                    * L2 sections of heads, each longest first across its heads;
                                    * blocks take units from a counter */
};

/* The dynamic walk's heads per L2 section: as many kv heads as keep their K and V^T
 * (kv_head_bytes each) within WGMMA_L2_SECTION_MB (at least one), times heads_per_kv, at most
 * heads. C linkage: tests/test_wgmma_sched.c calls it. */
#ifdef __cplusplus
extern "C"
#endif
int fp8attn_wgmma_section_heads(int64_t heads, int heads_per_kv, int64_t kv_head_bytes);

/* With PAIRS: how many pairs each of the heads runs as a two-tile unit (at most n_q_tiles / 2);
 * the other tiles run singly after all the pairs, longest first. Picked, among up to 12 middle
 * pairs split, for the least load on the busiest of grid blocks (a tile's cost: its key tiles +
 * half a key tile; docs/PERF.md w34), if that is at least 2 % less than with none split.
 * C linkage: tests/test_wgmma_sched.c calls it. */
#ifdef __cplusplus
extern "C"
#endif
int fp8attn_wgmma_pairs_per_head(int n_q_tiles, int bm, int bn, int q_off, int seqlen_q,
                                 int seqlen_k, int64_t heads, int grid);

/* The walk of a causal problem of at least two waves (heads x n_q_tiles >= 2 grid): SNAKE where
 * its busiest block carries at least 2 % less than PAIRS' (with the split above) and every head
 * has at least two blocks in a round (2 heads <= grid; with fewer, the blocks of a round read
 * different heads' keys and values and miss in L2: docs/PERF.md w38), within 32 rounds of units
 * and on at most 1024 blocks; else PAIRS. *pairs_per_head: PAIRS' count, 0 for SNAKE. */
#ifdef __cplusplus
extern "C"
#endif
int fp8attn_wgmma_causal_walk(int n_q_tiles, int bm, int bn, int q_off, int seqlen_q,
                              int seqlen_k, int64_t heads, int grid, int *pairs_per_head);

/* The split tail of a problem without the causal mask (split.cuh): its last round's `tiles` query
 * tiles (0: no split) of nk key tiles each, w = tiles * nk key tiles in all, spread over `grid`
 * blocks of `warps` consumer warps (BM / 16) at head dim d; run by the instance's _vt kernel
 * (tr 0: the workspace holds V^T, then the counters and slots) or by its transposing kernel
 * (tr 1: the workspace holds the split's counts and slots alone; hd256's, config.cuh
 * SPLIT_TAIL). A plan zeroed but for its sizes is the _vt kernel's. */
typedef struct {
    int32_t tiles, nk, grid, warps, d, tr;
    int64_t w;
} fp8attn_wgmma_split_t;

/* A split segment's slot (split.cuh writes and reads it, vt_prepass.cu sizes it): per consumer
 * warp, 32 lanes x FP8ATTN_WGMMA_SPLIT_LANE_F4(d) float4 (a lane's d / 2 accumulator values of O,
 * then its rows' m and l). */
#define FP8ATTN_WGMMA_SPLIT_LANE_F4(d) ((d) / 8 + 1)
#define FP8ATTN_WGMMA_SPLIT_WARP_BYTES(d) (32 * FP8ATTN_WGMMA_SPLIT_LANE_F4(d) * 16)

/* The split plan's cost of splitting, in key tiles of the busiest block: the segments' second
 * tile boundary and the merge (sched_plan.cu). */
#ifndef WGMMA_SPLIT_COST
#define WGMMA_SPLIT_COST 2
#endif

/* The plan for `units` query tiles of nk key tiles each on `grid` blocks (BM rows, head dim d;
 * tr 0, the _vt kernel's: the dispatcher sets tr for the transposing kernel's): split where the
 * last round leaves blocks idle and the split round, which costs `cost` key tiles more
 * (WGMMA_SPLIT_COST for the _vt kernels), saves at least 2 % of the call by the model in
 * sched_plan.cu; never under the causal mask (causal != 0, which the dispatcher also passes
 * where the kernel cannot split: split_bn or split_bn_tr 0, e.g. in WGMMA_SPLIT_TAIL=0 builds).
 * C linkage: tests/test_wgmma_sched.c calls it. */
#ifdef __cplusplus
extern "C"
#endif
void fp8attn_wgmma_split_plan(int64_t units, int64_t nk, int grid, int bm, int d, int causal,
                              int cost, fp8attn_wgmma_split_t *out);

/* The launcher of instance NAME (kernel.cuh FP8ATTN_WGMMA_INSTANCE): runs its "_vt" kernel with
 * the workspace vt, else its transposing kernel (with the workspace vt where `split` is its own,
 * split->tr 1), and the split plan `split` (NULL or no tiles: none), which it refuses unless it
 * is the plan fp8attn_wgmma_split_plan makes for that kernel.
 * C linkage: wgmma_variant.cu's table and tests/test_gpu_dispatch.c call it. */
#ifdef __cplusplus
#define FP8ATTN_WGMMA_EXTERN_C extern "C"
#else
#define FP8ATTN_WGMMA_EXTERN_C
#endif
#define FP8ATTN_WGMMA_LAUNCH_DECL(NAME)                                                          \
    FP8ATTN_WGMMA_EXTERN_C fp8attn_status_t fp8attn_wgmma_launch_##NAME(                         \
        const fp8attn_params_t *p, void *vt, const fp8attn_wgmma_split_t *split, int sm_count,   \
        fp8attn_stream_t s)

/* Whether an instance with a causal _vt kernel (kernel.cuh FP8ATTN_WGMMA_INSTANCE_VTC) runs it for
 * p, given V^T in the workspace: every causal problem (causal problems never split the tail, which
 * that kernel lacks). Those with more queries than keys, whose first rows see no key and whose
 * dynamic walk hands out query tiles without keys, stayed on the _vt kernel until they had run on
 * a GPU (session 39: docs/PERF.md w106). The launcher and kernel_for_ws (wgmma_variant.cu) both
 * ask this. */
#define FP8ATTN_WGMMA_TAKES_VTC(p) ((p)->causal)

/* The V^T of p in the workspace (vt_prepass.cu): SKP = seqlen_k rounded up to 32, the bytes it
 * takes, and the launch of the pass that writes it. */
int64_t fp8attn_wgmma_vt_skp(const fp8attn_params_t *p);
size_t fp8attn_wgmma_vt_bytes(const fp8attn_params_t *p);
/* The whole workspace of a split of the transposing kernel (s->tiles > 0, s->tr 1): one count
 * per split tile and consumer warp, then (256-byte aligned) the slots as below. Else that of a
 * _vt kernel: V^T, then (16-byte aligned) the counters: the dynamic
 * walk's unit counter (zeroed by the pass, or with the others before a FUSED_VT kernel), the
 * FUSED_VT kernels' chunk counter, 8 bytes of padding, one ready count per (batch, kv head)
 * pair (vt_background.cuh), and with a split tail (s->tiles > 0; s may be NULL: none) one count
 * per split tile and consumer warp; then (256-byte aligned) the split tail's slots, two per
 * block: per consumer warp, FP8ATTN_WGMMA_SPLIT_WARP_BYTES(D). The unit counter's address in
 * workspace ws, and the others'. */
size_t fp8attn_wgmma_ws_bytes(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s);
int32_t *fp8attn_wgmma_tile_counter(const fp8attn_params_t *p, void *ws);
int32_t *fp8attn_wgmma_vt_chunk_counter(const fp8attn_params_t *p, void *ws);
int32_t *fp8attn_wgmma_vt_ready(const fp8attn_params_t *p, void *ws);
int32_t *fp8attn_wgmma_split_count(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s,
                                   void *ws);
float *fp8attn_wgmma_split_part(const fp8attn_params_t *p, const fp8attn_wgmma_split_t *s,
                                void *ws);
/* The V^T tensor maps of a _vt kernel whose V^T tiles are sw_n key bytes wide: tm_vt; with
 * chunk > 0 (a FUSED_VT kernel writing V^T in chunks of `chunk` keys: 64, the store box's row,
 * with the 64-byte swizzle) also tm_vt_store, and the chunk counts and counters (make_params
 * gave tm_v its `chunk`-row box); else those are zero. */
fp8attn_status_t fp8attn_wgmma_make_vt_maps(const fp8attn_params_t *p, void *vt, int sw_n,
                                            int chunk, struct wgmma_params *out);
/* Zeroes the counters of workspace ws (all of them, the split tail's of s too: the one-block
 * fp8attn_wgmma_vt_clear on `stream`, whose programmatic dependent the _vt kernel is); for a
 * split of the transposing kernel (s->tr), the split's counts alone, and that kernel follows in
 * plain stream order. */
fp8attn_status_t fp8attn_wgmma_vt_counters_clear(const fp8attn_params_t *p,
                                                 const fp8attn_wgmma_split_t *s, void *ws,
                                                 fp8attn_stream_t stream);
fp8attn_status_t fp8attn_wgmma_vt_prepass_launch(const fp8attn_params_t *p, void *workspace,
                                                 fp8attn_stream_t stream);

#endif
