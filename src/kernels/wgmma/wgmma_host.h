/* Host-side pieces of the wgmma family shared by its files: the per-call kernel parameters
 * (tensor maps built from fp8attn_params_t) and the checks TMA needs. */
#ifndef FP8ATTN_WGMMA_HOST_H
#define FP8ATTN_WGMMA_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "fp8attn.h"

struct wgmma_params;

/* FP8ATTN_OK if every Q/K/V stride TMA will see is one it can encode (checked without the
 * driver: nonzero where the extent is > 1 and below 2^40 bytes); else NOT_SUPPORTED naming it. */
fp8attn_status_t fp8attn_wgmma_check_strides(const fp8attn_params_t *p);

/* Fills *out for a kernel with BM query rows and BN keys per tile whose Q/K/V boxes are sw_d
 * bytes wide: the Q, K, V and O tensor maps (cuTensorMapEncodeTiled through the runtime's driver
 * entry point, so nothing links libcuda; O's only for a kernel that stores with TMA, o_map != 0,
 * and where TMA can take O's strides: o_tma) and the scalars. No allocation, no
 * synchronisation. */
fp8attn_status_t fp8attn_wgmma_make_params(const fp8attn_params_t *p, int bm, int bn, int sw_d,
                                           int o_map, struct wgmma_params *out);

/* Causal problems whose query tiles run in pairs (scheduler.cuh): how many pairs each of the
 * heads runs as a two-tile unit (at most n_q_tiles / 2); the other tiles run singly after all
 * the pairs, longest first. Picked, among up to 12 middle pairs split, for the least load on the
 * busiest of grid blocks (a tile's cost: its key tiles + half a key tile; docs/PERF.md w34), if
 * that is at least 2 % less than with none split.
 * C linkage: tests/test_wgmma_sched.c calls it. */
#ifdef __cplusplus
extern "C"
#endif
int fp8attn_wgmma_pairs_per_head(int n_q_tiles, int bm, int bn, int q_off, int seqlen_q,
                                 int seqlen_k, int64_t heads, int grid);

/* The V^T of p in the workspace (vt_prepass.cu): SKP = seqlen_k rounded up to 32, the bytes it
 * takes, its tensor map (box: sw_n key bytes x head_dim rows) and the launch that writes it. */
int64_t fp8attn_wgmma_vt_skp(const fp8attn_params_t *p);
size_t fp8attn_wgmma_vt_bytes(const fp8attn_params_t *p);
fp8attn_status_t fp8attn_wgmma_make_vt_map(const fp8attn_params_t *p, const void *vt, int sw_n,
                                           struct wgmma_params *out);
fp8attn_status_t fp8attn_wgmma_vt_prepass_launch(const fp8attn_params_t *p, void *workspace,
                                                 fp8attn_stream_t stream);

#endif
