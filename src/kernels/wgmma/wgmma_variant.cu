/* Variant "wgmma": which problems the Hopper kernels run (E4M3 inputs on sm_90 with this build's
 * sm_90a image, strides TMA can encode), which instance runs them (one general instance per head
 * dim, wgmma_hd<D>.cu, and instances for ranges of problems: wgmma_hd64_m128.cu for one-wave and
 * short causal hd64 problems, wgmma_hd64_n160.cu for causal hd64 problems of 1k-4k keys,
 * wgmma_hd128_n224.cu for hd128 problems of 4k keys or more (2k if causal), where its _vt kernel
 * runs (else the general instance: instance_for_call); without the mask,
 * hd128_n224 where its tiles cover fewer keys and hd64_n160 where its cover no more: pad_rule;
 * given a workspace, one-wave hd64 problems may take the general instance's split instead:
 * instance_for_call), and what a workspace buys (workspace_use: V^T through it, use_vt_pass, or
 * hd256's transposing split). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "../../internal.h"
#include "../kernels.h"
#include "wgmma_host.h"

#define WGMMA_DECLARE(NAME)                                                                 \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_##NAME(void);              \
    extern "C" const int fp8attn_wgmma_rows_##NAME;                                         \
    extern "C" const int fp8attn_wgmma_bn_##NAME;                                           \
    extern "C" const int fp8attn_wgmma_split_bn_##NAME;                                     \
    extern "C" const int fp8attn_wgmma_split_bn_tr_##NAME;                                  \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_##NAME##_vt(void);         \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_##NAME##_vtc(void);        \
    FP8ATTN_WGMMA_LAUNCH_DECL(NAME);
WGMMA_DECLARE(hd64)
WGMMA_DECLARE(hd128)
WGMMA_DECLARE(hd256)
WGMMA_DECLARE(hd64_m128)
WGMMA_DECLARE(hd64_n160)
WGMMA_DECLARE(hd128_n224)

#ifndef WGMMA_HD64_ONE_WAVE
#define WGMMA_HD64_ONE_WAVE 1 /* 0: hd64_m128 never picked for being one wave (A/B builds) */
#endif
/* hd64_m128 also runs causal problems of at most CAUSAL_MAX_SK keys, where 192-row tiles compute
 * many masked or empty rows (at 512 keys 1.35x what 128-row tiles do). H100, time ratio against
 * the instance that ran them before (docs/PERF.md w31): 256 keys 1.36, 512 1.39, 1024 1.10
 * (against hd64_n160), 2048 1.00. Without the mask it is slower at 512 and 1024 keys (0.93,
 * 0.92) and faster at 256 (1.20): that gain comes from seqlen_q (256 rows are 2 tiles of 128 or of
 * 192), which these ranges of seqlen_k do not describe, so MAX_SK stays 0 (A/B builds may set
 * it). CAUSAL_MAX_SK 0: never; an A/B build that raises it above 1024 takes keys from hd64_n160
 * (the first instance that fits wins). */
#ifndef WGMMA_HD64_M128_MAX_SK
#define WGMMA_HD64_M128_MAX_SK 0
#endif
#ifndef WGMMA_HD64_M128_CAUSAL_MAX_SK
#define WGMMA_HD64_M128_CAUSAL_MAX_SK 1024
#endif
/* hd64_n160 runs causal problems of MIN_SK to MAX_SK keys (below MIN_SK, hd64_m128), and those
 * without the mask where its tiles cover no more keys (pad_rule). H100, causal, against the 128-key
 * tiles (docs/PERF.md w30, time ratio): 512 keys 0.86 (4 tiles of 160 cover 640 keys), 1k 1.025,
 * 2k 1.058, 4k 1.011, 8k 0.984. MAX_SK 0: never, with the mask or without (A/B builds) */
#ifndef WGMMA_HD64_N160_MIN_SK
#define WGMMA_HD64_N160_MIN_SK 1025
#endif
#ifndef WGMMA_HD64_N160_MAX_SK
#define WGMMA_HD64_N160_MAX_SK 4096
#endif
/* hd128_n224 runs problems of at least MIN_SK keys, CAUSAL_MIN_SK if causal (and, without the
 * mask, shorter ones where its tiles pad less: WGMMA_HD128_PAD_RULE below). H100, time ratio
 * against the 192-key tiles (docs/PERF.md w7, w31): 2k 0.97 (causal 0.96), 4k 1.016 (causal
 * 1.001), 8k 1.019 (causal 1.022), 16k 1.017 (causal 1.021). Causal from 4096 keys since the
 * _vtc kernel (the cross-tile overlap): H200, time with hd128_vt / with hd128_n224_vtc (docs/PERF.md
 * w105, session 38): (4,16,4096,128) 1.013-1.019, (8,16,4096,128) 4 kv heads 1.014-1.015,
 * (2,16,6000,128) 1.015; 8192 before. From 2048 since session 39 (w107, the same ratio):
 * (5,16,3072,128) 1.009-1.011, (4,16,3584,128) 1.006-1.008, (8,16,2048,128) 4 kv heads
 * 1.009-1.011 (MHA at 2k-2.5k causal transposes V: unchanged). A minimum above INT32_MAX - 256:
 * never (A/B builds). */
#ifndef WGMMA_HD128_N224_MIN_SK
#define WGMMA_HD128_N224_MIN_SK 4096
#endif
#ifndef WGMMA_HD128_N224_CAUSAL_MIN_SK
#define WGMMA_HD128_N224_CAUSAL_MIN_SK 2048
#endif
/* WGMMA_HD128_N224_RANGE_VT_ONLY 1 (default): those ranges hold where the call runs
 * hd128_n224's _vt kernel. Where it would transpose V (no workspace, or too few query tiles per V
 * tile to write V^T), hd128's 192-key transposing kernel runs instead, wherever hd128 would
 * transpose V too given a workspace (instance_for_call). Not so: a one-wave problem whose split
 * pays on hd128_vt but not on hd128_n224_vt (e.g. (1,1,1,700,4096,128), whose 114 key tiles of
 * 224 are fewer than 132 SMs), which keeps hd128_n224's transposing kernel and no workspace, as
 * before. hd128's transposer is transpose_blocks, hd128_n224's the older run-time-warp form (w87:
 * the faster one spills there). H200, without a workspace, time with 224-key tiles / with
 * 192-key tiles (docs/PERF.md w102): (4,16,4096,128) 1.029, (2,16,8192,128) 1.020, causal 1.029,
 * (1,16,16384,128) 1.008 and 1.019, causal 1.026. The pad rule then sees the general instance:
 * at its 10 % margin (WGMMA_HD128_PAD_TR_PCT) it cannot take hd128_n224's transposing kernel
 * back from 4096 keys (the two tiles' padding differs by less above ~1910 keys); an A/B build
 * with a margin below ~5 % could. 0: the ranges alone (A/B builds). */
#ifndef WGMMA_HD128_N224_RANGE_VT_ONLY
#define WGMMA_HD128_N224_RANGE_VT_ONLY 1
#endif

/* The pad rule: a problem without the mask, of more than one wave, that instance_for_problem gives
 * its head dim's general instance runs the other instance with the same query rows (hd128:
 * hd128_n224; hd64: hd64_n160) where that one's key tiles cover fewer keys (ceil(seqlen_k / BN)
 * x BN; the instance whose pad_pct is not -1, pad_rule below): on the _vt kernels (the workspace
 * given, V^T written once) wherever they cover fewer, or as many with WGMMA_HD<d>_PAD_VT_TIES; on
 * the transposing kernels where they cover at least WGMMA_HD<d>_PAD_TR_PCT % fewer (0: no more).
 * One-wave problems are timed by the split tail's plan, not the keys covered, and none was
 * measured.
 * WGMMA_HD128_PAD_RULE 1 (default): hd128 below WGMMA_HD128_N224_MIN_SK keys (from there the
 * ranges give n224 where it reads V^T, RANGE_VT_ONLY above, and at 10 % the rule cannot take
 * it elsewhere); transposing: 10 % (hd128_n224's transposer is the older run-time-warp form,
 * not transpose_blocks). H100, 16k tokens of 16 heads, time with 192-key tiles / with 224-key
 * tiles (docs/PERF.md w85), the covered keys' ratio in brackets:
 *   _vt:         1024 keys 1.022 (1.029), 1280 0.999 (1.000), 1536 0.971 (0.980), 1792 1.075
 *                (1.071), 2048 0.947 (0.943), 2560 1.003 (1.000), 3072 0.970 (0.980), 3584 1.013
 *                (1.018); at 4096 and more w31's 1.016-1.019 stand (1.01 from the tile itself)
 *   transposing: 640 keys 1.052 (1.143), 768 0.819 (0.857)
 *   causal (not taken): 1024 0.960 (transposing), 3584-7168 0.984-0.999 (_vt)
 * WGMMA_HD64_PAD_RULE 1 (default): hd64 (192 x 128 tiles against hd64_n160's 192 x 160) at every
 * seqlen_k, where the 160-key tiles cover no more keys, ties included (transposing: 0 %, the same
 * transposer in both; _vt: WGMMA_HD64_PAD_VT_TIES 1): fewer tiles for the same keys pay. H100, 16k
 * tokens of 32 heads, time with 128-key tiles / with 160-key tiles (docs/PERF.md w86), covered
 * keys' ratio in brackets:
 *   transposing: 300 keys 1.128 (1.200), 480 1.162 (1.067), 640 1.052 (1.000), 800 1.196 (1.120),
 *                1024 0.934 (0.914), 1440 1.176 (1.067)
 *   _vt:         2048 0.967 (0.985), 2400 1.064 (1.013), 4000 1.084 (1.024), 8192 0.986 (0.985)
 * and at the ties (H200, w93; covered keys' ratio 1.000 at each): with the workspace 640 keys
 * 1.053 (transposing), 1280 1.075 (transposing), 1920 1.029, 2560 1.035, 3200 1.031 (_vt);
 * without it 640 1.057, 1280 1.070, 1920 1.085, 2560 1.091. hd128's ties on _vt (w85: 1280 0.999,
 * 2560 1.003) stay with 192-key tiles (WGMMA_HD128_PAD_VT_TIES 0).
 * 0 (or, for hd128, an N224_MIN_SK of "never"; for hd64, an N160_MAX_SK of 0): the seqlen_k ranges
 * alone (A/B builds). */
#ifndef WGMMA_HD128_PAD_RULE
#define WGMMA_HD128_PAD_RULE 1
#endif
#ifndef WGMMA_HD128_PAD_TR_PCT
#define WGMMA_HD128_PAD_TR_PCT 10
#endif
#ifndef WGMMA_HD64_PAD_RULE
#define WGMMA_HD64_PAD_RULE 1
#endif
#ifndef WGMMA_HD64_PAD_TR_PCT
#define WGMMA_HD64_PAD_TR_PCT 0
#endif
#ifndef WGMMA_HD128_PAD_VT_TIES
#define WGMMA_HD128_PAD_VT_TIES 0
#endif
#ifndef WGMMA_HD64_PAD_VT_TIES
#define WGMMA_HD64_PAD_VT_TIES 1
#endif
/* Instance table's pad_pct: the rule's margin on the transposing kernels, or -1 where it is off */
#define WGMMA_HD128_N224_PAD_PCT                                                                  \
    (WGMMA_HD128_PAD_RULE && WGMMA_HD128_N224_MIN_SK <= INT32_MAX - 256 ? WGMMA_HD128_PAD_TR_PCT : -1)
#define WGMMA_HD64_N160_PAD_PCT                                                                   \
    (WGMMA_HD64_PAD_RULE && WGMMA_HD64_N160_MAX_SK > 0 ? WGMMA_HD64_PAD_TR_PCT : -1)

/* A range of seqlen_k that an instance runs; max_sk 0: none. */
typedef struct {
    int min_sk, max_sk;
} sk_range_t;

typedef struct {
    const fp8attn_kernel_entry_t *(*entry)(void);    /* V transposed in shared memory */
    const fp8attn_kernel_entry_t *(*entry_vt)(void); /* V^T from the workspace */
    /* V^T from the workspace, causal problems; returns NULL where the _vt kernel runs them too
     * (kernel.cuh FP8ATTN_WGMMA_INSTANCE_VTC) */
    const fp8attn_kernel_entry_t *(*entry_vtc)(void);
    const int *rows; /* query rows per block */
    const int *bn;   /* keys per key tile (every kernel of the instance) */
    const int *split_bn; /* its _vt kernel's key tile if that kernel may split the tail, else 0 */
    const int *split_bn_tr; /* the same for its transposing kernel */
    fp8attn_status_t (*launch)(const fp8attn_params_t *p, void *vt,
                               const fp8attn_wgmma_split_t *split, int sm_count,
                               fp8attn_stream_t s);
    int one_wave;      /* 1: runs problems whose grid of this instance fits in one wave */
    int pad_pct;       /* >= 0: the pad rule's instance for its head dim (pad_rule), taken on the
                        * transposing kernels where it covers at least pad_pct % fewer keys; -1:
                        * not one */
    int pad_vt_ties;   /* 1: on the _vt kernels the pad rule takes it where it covers as many */
    sk_range_t plain;  /* runs problems without the causal mask whose seqlen_k is in the range */
    sk_range_t causal; /* the same for causal problems */
    int range_vt_only; /* 1: the ranges hold only where the call runs its _vt kernel; elsewhere
                        * the general instance runs (instance_for_call) */
} wgmma_instance_t;

/* instance_for_problem takes the first that fits: the ranges must not overlap per head dim */
static const wgmma_instance_t k_instances[] = {
    {fp8attn_wgmma_entry_hd64, fp8attn_wgmma_entry_hd64_vt, fp8attn_wgmma_entry_hd64_vtc,
     &fp8attn_wgmma_rows_hd64,
     &fp8attn_wgmma_bn_hd64, &fp8attn_wgmma_split_bn_hd64, &fp8attn_wgmma_split_bn_tr_hd64,
     fp8attn_wgmma_launch_hd64, 0, -1, 0, {0, 0}, {0, 0}, 0},
    {fp8attn_wgmma_entry_hd128, fp8attn_wgmma_entry_hd128_vt, fp8attn_wgmma_entry_hd128_vtc,
     &fp8attn_wgmma_rows_hd128,
     &fp8attn_wgmma_bn_hd128, &fp8attn_wgmma_split_bn_hd128, &fp8attn_wgmma_split_bn_tr_hd128,
     fp8attn_wgmma_launch_hd128, 0, -1, 0, {0, 0}, {0, 0}, 0},
    {fp8attn_wgmma_entry_hd256, fp8attn_wgmma_entry_hd256_vt, fp8attn_wgmma_entry_hd256_vtc,
     &fp8attn_wgmma_rows_hd256,
     &fp8attn_wgmma_bn_hd256, &fp8attn_wgmma_split_bn_hd256, &fp8attn_wgmma_split_bn_tr_hd256,
     fp8attn_wgmma_launch_hd256, 0, -1, 0, {0, 0}, {0, 0}, 0},
    {fp8attn_wgmma_entry_hd64_m128, fp8attn_wgmma_entry_hd64_m128_vt,
     fp8attn_wgmma_entry_hd64_m128_vtc,
     &fp8attn_wgmma_rows_hd64_m128, &fp8attn_wgmma_bn_hd64_m128, &fp8attn_wgmma_split_bn_hd64_m128,
     &fp8attn_wgmma_split_bn_tr_hd64_m128, fp8attn_wgmma_launch_hd64_m128, WGMMA_HD64_ONE_WAVE,
     -1, 0, {0, WGMMA_HD64_M128_MAX_SK}, {0, WGMMA_HD64_M128_CAUSAL_MAX_SK}, 0},
    {fp8attn_wgmma_entry_hd64_n160, fp8attn_wgmma_entry_hd64_n160_vt,
     fp8attn_wgmma_entry_hd64_n160_vtc,
     &fp8attn_wgmma_rows_hd64_n160, &fp8attn_wgmma_bn_hd64_n160, &fp8attn_wgmma_split_bn_hd64_n160,
     &fp8attn_wgmma_split_bn_tr_hd64_n160, fp8attn_wgmma_launch_hd64_n160, 0, WGMMA_HD64_N160_PAD_PCT,
     WGMMA_HD64_PAD_VT_TIES, {0, 0}, {WGMMA_HD64_N160_MIN_SK, WGMMA_HD64_N160_MAX_SK}, 0},
    {fp8attn_wgmma_entry_hd128_n224, fp8attn_wgmma_entry_hd128_n224_vt,
     fp8attn_wgmma_entry_hd128_n224_vtc,
     &fp8attn_wgmma_rows_hd128_n224, &fp8attn_wgmma_bn_hd128_n224,
     &fp8attn_wgmma_split_bn_hd128_n224, &fp8attn_wgmma_split_bn_tr_hd128_n224,
     fp8attn_wgmma_launch_hd128_n224, 0, WGMMA_HD128_N224_PAD_PCT, WGMMA_HD128_PAD_VT_TIES,
     {WGMMA_HD128_N224_MIN_SK, INT32_MAX},
     {WGMMA_HD128_N224_CAUSAL_MIN_SK, INT32_MAX}, WGMMA_HD128_N224_RANGE_VT_ONLY},
};
#define N_INSTANCES ((int)(sizeof k_instances / sizeof k_instances[0]))

extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_vt_prepass(void);
extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_vt_clear(void);

/* The family's kernels: each instance's two (or three, with a causal _vt kernel), then the V^T
 * pass and the counters' clear. */
extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_kernel(int index)
{
    if (index < 0) return NULL;
    for (int i = 0; i < N_INSTANCES; i++) {
        const fp8attn_kernel_entry_t *k[3] = {k_instances[i].entry(), k_instances[i].entry_vt(),
                                              k_instances[i].entry_vtc()};
        for (int j = 0; j < 3; j++)
            if (k[j] && index-- == 0) return k[j];
    }
    if (index == 0) return fp8attn_wgmma_entry_vt_prepass();
    return index == 1 ? fp8attn_wgmma_entry_vt_clear() : NULL;
}

static bool in_range(sk_range_t r, int seqlen_k)
{
    return r.max_sk > 0 && seqlen_k >= r.min_sk && seqlen_k <= r.max_sk;
}

/* The general instance compiled for head_dim d (the one for problems of any size), or NULL. */
static const wgmma_instance_t *instance_for(int d)
{
    for (int i = 0; i < N_INSTANCES; i++)
        if (!k_instances[i].one_wave && !k_instances[i].plain.max_sk &&
            !k_instances[i].causal.max_sk && k_instances[i].entry()->head_dim == d)
            return &k_instances[i];
    return NULL;
}

/* Query tiles of `in` per head: ceil(seqlen_q / rows). */
static int64_t q_tiles_of(const wgmma_instance_t *in, const fp8attn_params_t *p)
{
    return ((int64_t)p->seqlen_q + *in->rows - 1) / *in->rows;
}

/* Query tiles of `in` for p: batch x h_q x q_tiles_of. */
static int64_t grid_of(const wgmma_instance_t *in, const fp8attn_params_t *p)
{
    return q_tiles_of(in, p) * p->h_q * p->batch;
}

/* The instance that runs p on a device of sm_count SMs: a one-wave instance of p's head dim where
 * its tiles fit in one wave, else one whose range for p's mask holds seqlen_k, else the general
 * one. A one-wave problem finishes when its slowest block does, so smaller blocks over more SMs
 * win there, and lose once every SM runs several (hd64: docs/PERF.md w12). */
static const wgmma_instance_t *instance_for_problem(const fp8attn_params_t *p, int sm_count)
{
    for (int i = 0; i < N_INSTANCES; i++)
        if (k_instances[i].one_wave && k_instances[i].entry()->head_dim == p->head_dim &&
            grid_of(&k_instances[i], p) <= sm_count)
            return &k_instances[i];
    for (int i = 0; i < N_INSTANCES; i++)
        if (k_instances[i].entry()->head_dim == p->head_dim &&
            in_range(p->causal ? k_instances[i].causal : k_instances[i].plain, p->seqlen_k))
            return &k_instances[i];
    return instance_for(p->head_dim);
}

static const wgmma_instance_t *instance_for_call(const fp8attn_params_t *p, int sm_count,
                                                 int with_ws);

/* The instance for the problem (with_ws: given a workspace, see instance_for_call), or NULL with
 * *st saying why none can run it here. */
static const wgmma_instance_t *pick(const fp8attn_params_t *p, const fp8attn_device_info_t *dev,
                                    fp8attn_status_t *st, int with_ws)
{
    *st = FP8ATTN_OK;
    if (p->in_format != FP8ATTN_FORMAT_E4M3) {
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "wgmma: in_format = %d: only E4M3 inputs (use reference-gpu for E5M2)",
                           (int)p->in_format);
        return NULL;
    }
    if (dev->cc_major != 9 || dev->cc_minor != 0) {
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "wgmma: needs an sm_90 (Hopper) GPU, device is sm_%d%d (use mma)",
                           dev->cc_major, dev->cc_minor);
        return NULL;
    }
    if ((*st = fp8attn_check_arch(dev, "wgmma")) != FP8ATTN_OK) return NULL;
    /* tiles are indexed in int32: a tile start plus its size must not wrap */
    if (p->seqlen_q > INT32_MAX - 256 || p->seqlen_k > INT32_MAX - 256) {
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "wgmma: params->seqlen_q = %d, params->seqlen_k = %d: each must be <= "
                           "%d for this kernel (use reference-gpu)",
                           p->seqlen_q, p->seqlen_k, INT32_MAX - 256);
        return NULL;
    }
    if ((*st = fp8attn_wgmma_check_strides(p)) != FP8ATTN_OK) return NULL;
    const wgmma_instance_t *in = instance_for_call(p, dev->sm_count, with_ws);
    if (!in) {
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "wgmma: head_dim = %d not compiled",
                           p->head_dim);
        return NULL;
    }
    const fp8attn_kernel_entry_t *k = in->entry();
    if ((size_t)in->entry_vt()->dynamic_smem > (size_t)k->dynamic_smem) k = in->entry_vt();
    if (in->entry_vtc() && (size_t)in->entry_vtc()->dynamic_smem > (size_t)k->dynamic_smem)
        k = in->entry_vtc();
    if ((size_t)k->dynamic_smem > dev->smem_optin) {
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "wgmma: %s needs %lld bytes of shared memory per block, the device "
                           "allows %zu",
                           k->symbol, (long long)k->dynamic_smem, dev->smem_optin);
        return NULL;
    }
    const int64_t grid = grid_of(in, p);
    if (grid > 0x7fffffff) {
        *st = fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                           "wgmma: %lld blocks (batch x h_q x query tiles) exceed the grid limit",
                           (long long)grid);
        return NULL;
    }
    return in;
}

static fp8attn_status_t supports(const fp8attn_params_t *p, const fp8attn_device_info_t *dev)
{
    fp8attn_status_t st;
    return pick(p, dev, &st, 0) ? FP8ATTN_OK : st;
}

/* Whether the _vt kernel runs, with V^T in the workspace (written by the V^T pass before w55,
 * by the kernel's own background warps since: vt_background.cuh), or the kernel whose blocks
 * transpose their V tiles in shared memory. The in-kernel transpose of a V tile is repeated by
 * every block that reads it: query tiles x query heads per kv head times. V^T in the workspace
 * costs a read and a write of V once (and, since w55, a wait for the first kv heads' V^T), which
 * a causal problem (half the work per V tile) feels twice as much. Measured on the
 * H100 (bench with builds that always / never took the pass, time with / time without;
 * docs/PERF.md w8 and w16, the second with hd256's _vt kernel overlapped):
 *   non-causal: 128 repeats 0.87-0.89 (hd128, hd256), 86 (hd64) 0.93; 16 repeats 0.93 (hd256),
 *               1.00 (hd128); 11 (hd64) 0.94; 4 (512 keys) 1.18-1.22
 *   causal:     16 repeats 1.05 (hd256), 1.08 (hd128); 11 (hd64) 1.01; 4: 1.23-1.28
 * and the one-wave (1,8,2048,64) with 192-row blocks, 11 repeats: 1.06 (w8). After w35's faster
 * transposer, default builds against a line of 17 (time at 10 / time at 17, the workspace given):
 *   hd128 16 repeats (8,16,2048) 1.033, 12 (4,16,1536) 1.100; hd256 16 (8,8,2048) 1.024, 10
 *   (16,16,1280) 1.086; hd64 11 (8,32,2048) 0.99, 10 (4,32,1920) 1.016
 * After w40's stmatrix epilogue in hd128's _vt kernel (docs/PERF.md w42, a line of 16 against
 * 17, time 17 / time 16): hd128 16 repeats (8,16,2048) 1.019; hd256 16 (8,8,2048; w42's staging
 * epilogue in its _vt kernel too) 0.989. After w43's pass without bank conflicts (hd256's pass
 * 42 -> 26 us; w44, time without / time with the pass):
 *   non-causal: hd256 16 (8,8,2048) 1.063, 14 (6,8,1792) 1.063, 12 (4,8,1536) 1.052; hd128 16
 *               (8,16,2048) 1.012, 14 (8,16,1792) 1.011, 12 (4,16,1536) 0.962
 *   causal:     hd256 24 (4,8,3072) 1.037, 16 (8,8,2048) 0.995; hd128 24 (4,16,3072) 0.987,
 *               16 (8,16,2048) 0.948
 * After w55 (the _vt kernels write V^T themselves, no pass; docs/PERF.md w55, call 9 of
 * session 21; time with the workspace / time without, eager and in CUDA graphs):
 *   non-causal: hd128 8 (16,16,1024) 0.984 / 0.979, 12 (4,16,1536) 0.995 / 0.982; hd256 4
 *               (32,8,512) 1.012 / 0.988
 *   causal:     hd256 16 (8,8,2048) 0.971 / 0.961, 24 (4,8,3072) 0.950 / 0.920; hd128 24
 *               (4,16,3072) 0.977 / 0.957, 16 (8,16,2048) 1.031 / 0.995; hd64 11 (8,32,2048)
 *               1.028 / 1.022; one wave: (2,8,1024,256) 1.084 / 1.107
 * hd256 without the mask below its line of 12, session 27 (docs/PERF.md w69; eager, L2 flushed,
 * time without the workspace / time with it): 10 repeats (12,8,1280) 1.08, 8 (16,8,1024) 1.04,
 * 4 (32,8,512) 0.95 (graphs 0.94).
 * Rule, on problems of more than one wave: without the mask the workspace from 8 repeats at hd256
 * and hd128 (hd64 10), with it from 16 at hd256, 24 at hd128 and 32 at hd64; one-wave problems
 * from 32 (and only where h_kv and batch fit in 65535, the pass's grid, which a WGMMA_FUSED_VT=0
 * build still launches). Not measured: 5-7 repeats; hd128 at 9-11 and 13; causal hd256 17-23,
 * hd128 17-23 and 25-31; small problems that reach the line through a large GQA ratio. The
 * macros may be set by A/B builds (WGMMA_VT_MIN_REPEATS_HD256 was WGMMA_VT_MIN_REPEATS before
 * w44; 12 from w44 to w69). */
#ifndef WGMMA_VT_MIN_REPEATS_HD64
#define WGMMA_VT_MIN_REPEATS_HD64 10 /* non-causal, more than one wave */
#endif
#ifndef WGMMA_VT_MIN_REPEATS_HD128
#define WGMMA_VT_MIN_REPEATS_HD128 8
#endif
#ifndef WGMMA_VT_MIN_REPEATS_HD256
#define WGMMA_VT_MIN_REPEATS_HD256 8
#endif
#ifndef WGMMA_VT_MIN_REPEATS_CAUSAL_HD256
#define WGMMA_VT_MIN_REPEATS_CAUSAL_HD256 16 /* causal, more than one wave */
#endif
#ifndef WGMMA_VT_MIN_REPEATS_CAUSAL_HD128
#define WGMMA_VT_MIN_REPEATS_CAUSAL_HD128 24
#endif
#ifndef WGMMA_VT_MIN_REPEATS_OTHER
#define WGMMA_VT_MIN_REPEATS_OTHER 32 /* causal at hd64, or one wave */
#endif
/* WGMMA_SPLIT_COST_TR: the split's cost, in key tiles of the busiest block, in hd256's
 * transposing kernel, where the plan counts WGMMA_SPLIT_COST (fitted to the _vt kernels): each
 * of a block's two segments starts without overlap (Q, the first K and V, the first transpose)
 * and ends writing 135 KB of partial O, and the counts' clear runs as a kernel before it: the
 * cost its plan counts (split_plan_of).
 * Fitted to 13 one-wave shapes (docs/PERF.md w66; split / unsplit time, H100): the split lost at
 * (1,8,8,1024,1024,256) 1.35, (1,16,16,512,1536,256) 1.18, (1,8,8,1024,2048,256) 1.06, where
 * a cost above 3.8, 5.8 and 7.7 key tiles says so, and gained at (1,32,32,128,2048,256) 0.95 and
 * (1,16,16,256,2048,256) 0.89, where it must stay at most 11.7: 10. */
#ifndef WGMMA_SPLIT_COST_TR
#define WGMMA_SPLIT_COST_TR 10
#endif

/* The split tail's plan for p on `in`'s _vt kernel (vt 1) or its transposing kernel (vt 0, at
 * its own cost, WGMMA_SPLIT_COST_TR) (split.cuh; none where that kernel's launch cannot split):
 * the one plan behind the workspace's size, the rules below and the launch. */
static void split_plan_of(const fp8attn_params_t *p, const wgmma_instance_t *in, int sm_count,
                          int vt, fp8attn_wgmma_split_t *split)
{
    const int bn = vt ? *in->split_bn : *in->split_bn_tr;
    fp8attn_wgmma_split_plan(grid_of(in, p), bn ? ((int64_t)p->seqlen_k + bn - 1) / bn : 0,
                             sm_count, *in->rows, p->head_dim, p->causal || !bn,
                             vt ? WGMMA_SPLIT_COST : WGMMA_SPLIT_COST_TR, split);
    split->tr = !vt;
}

/* The key tiles of the busiest block in split s's round, its cost included: ceil(W / grid) +
 * cost (sched_plan.cu's model). */
static int64_t split_round_kt(const fp8attn_wgmma_split_t *s, int cost)
{
    return (s->w + s->grid - 1) / s->grid + cost;
}

/* The rounds in which the _vt kernels' background warps (two per SM) write p's V^T in 64-key
 * chunks (vt_background.cuh). */
static int64_t vt_rounds(const fp8attn_params_t *p, int sm_count)
{
    const int64_t chunks = (int64_t)p->batch * p->h_kv * (((int64_t)p->seqlen_k + 63) / 64);
    return (chunks + 2 * (int64_t)sm_count - 1) / (2 * (int64_t)sm_count);
}

/* WGMMA_SPLIT_ONE_WAVE_GAIN_PCT: a problem without the mask whose query tiles fit in one wave takes
 * the workspace below the repeats' line where the split tail (which needs it) would spread its
 * tiles' keys over the idle SMs, and cut the busiest block's time by at least this much: by
 * sched_plan.cu's model in key tiles, plus the background's V^T, whose 64-key chunks the
 * blocks' 2 x SMs background warps write in rounds that cost as much as
 * VT_ROUND_TENTHS / 10 key tiles of VT_ROUND_BN keys each, i.e. 1.3 x 224 / BN key tiles of the
 * kernel's BN (fitted to one point, (2,16,16,256,4096,128): 50.1 against 58.2 us, which the model
 * puts at 19 against 12 + 11 key tiles; docs/PERF.md w63). hd256's rounds cost
 * VT_ROUND_TENTHS_HD256 tenths instead (3.15 of its 128-key tiles: fitted to 13 shapes, 2.8-3.5
 * where there are 4 rounds or more; w65). The lines, H100, split / unsplit time against the
 * model's gain (w65): hd128 5 % 0.95, 14 % 0.95, 16 % 0.86-0.91, 20 % 0.83-0.84, 21 % 0.85,
 * 26-32 % 0.73-0.91, so 10 % (hd64's one-wave instance cannot split); hd256 -12 % 1.18, -8 % 1.08
 * (twice), -5 % 0.98, 3 % 0.96, 6 % 0.88-0.89, 9 % 0.87, 11 % 1.00, 19 % 1.01, 22-61 %
 * 0.49-0.84, so 5 %. 0: never (A/B builds). */
#ifndef WGMMA_SPLIT_ONE_WAVE_GAIN_PCT
#define WGMMA_SPLIT_ONE_WAVE_GAIN_PCT 10
#endif
#ifndef WGMMA_SPLIT_ONE_WAVE_GAIN_PCT_HD256
#define WGMMA_SPLIT_ONE_WAVE_GAIN_PCT_HD256 5
#endif
#define WGMMA_VT_ROUND_TENTHS 13
#define WGMMA_VT_ROUND_TENTHS_HD256 18
#define WGMMA_VT_ROUND_BN 224

/* A one-wave problem on the _vt kernel's split (every tile is the tail's): the busiest block's
 * key tiles by the model above, V^T rounds included, and (*nk) a tile's key tiles; -1 where the
 * _vt kernel's plan does not split. */
static int64_t vt_split_kt(const fp8attn_params_t *p, const wgmma_instance_t *in, int sm_count,
                           int64_t *nk)
{
    fp8attn_wgmma_split_t split;
    split_plan_of(p, in, sm_count, 1, &split);
    *nk = split.nk; /* 0 where the _vt kernel cannot split */
    if (split.tiles == 0) return -1;
    const int64_t bn = *in->split_bn; /* > 0: the plan splits */
    const int64_t tenths =
        p->head_dim == 256 ? WGMMA_VT_ROUND_TENTHS_HD256 : WGMMA_VT_ROUND_TENTHS;
    const int64_t vt_kt =
        (vt_rounds(p, sm_count) * tenths * WGMMA_VT_ROUND_BN + 10 * bn - 1) / (10 * bn);
    return split_round_kt(&split, WGMMA_SPLIT_COST) + vt_kt;
}

static bool use_vt_pass(const fp8attn_params_t *p, const wgmma_instance_t *in, int sm_count)
{
    if (!in || p->h_kv > 65535 || p->batch > 65535) return false;
    const int64_t repeats = q_tiles_of(in, p) * (p->h_q / p->h_kv);
    /* problems of more than one wave, [causal][head_dim 64, 128, 256] */
    static const int lines[2][3] = {
        {WGMMA_VT_MIN_REPEATS_HD64, WGMMA_VT_MIN_REPEATS_HD128, WGMMA_VT_MIN_REPEATS_HD256},
        {WGMMA_VT_MIN_REPEATS_OTHER, WGMMA_VT_MIN_REPEATS_CAUSAL_HD128,
         WGMMA_VT_MIN_REPEATS_CAUSAL_HD256}};
    const int d = p->head_dim == 64 ? 0 : p->head_dim == 128 ? 1 : 2;
    const bool one_wave = grid_of(in, p) <= sm_count;
    const int line = !one_wave ? lines[p->causal ? 1 : 0][d] : WGMMA_VT_MIN_REPEATS_OTHER;
    if (repeats >= line) return true;
    const int gain_pct =
        p->head_dim == 256 ? WGMMA_SPLIT_ONE_WAVE_GAIN_PCT_HD256 : WGMMA_SPLIT_ONE_WAVE_GAIN_PCT;
    if (!one_wave || !gain_pct) return false;
    int64_t nk;
    const int64_t split_kt = vt_split_kt(p, in, sm_count, &nk);
    return split_kt >= 0 && split_kt * 100 <= nk * (100 - gain_pct);
}

/* WGMMA_SPLIT_TR_TENTHS: a key tile of hd256's transposing kernel, the one transposing kernel
 * that splits (config.cuh SPLIT_TAIL), costs as much as this many tenths of one of its _vt
 * kernel's, which has the intra-warpgroup overlap (8-11 % faster at 8k-16k keys: docs/PERF.md
 * w16). 0: the transposing kernel's split is never taken where the _vt kernel runs (A/B). */
#ifndef WGMMA_SPLIT_TR_TENTHS
#define WGMMA_SPLIT_TR_TENTHS 11
#endif

/* What a workspace buys p on `in`, and the split plan (*split, no tiles if none) that goes with
 * it: WS_NONE, nothing (no workspace); WS_VT, the _vt kernel (use_vt_pass), with its own plan;
 * WS_SPLIT, the transposing kernel's split tail (its workspace holds only the split's counts and
 * slots: no V^T to write first). The transposing kernel splits wherever its plan splits (at
 * its cost, WGMMA_SPLIT_COST_TR) and the _vt kernel would not run; where it would and the problem fits in one
 * wave, whichever the model puts first: the transposing split's busiest block (key tiles +
 * WGMMA_SPLIT_COST_TR, in tenths of WGMMA_SPLIT_TR_TENTHS) against the _vt kernel's (its split
 * with the V^T rounds above, or all of a tile's key tiles where that does not split), both in
 * key tiles of the same size (A/B builds whose two kernels' tiles differ, or whose _vt kernel
 * cannot split, keep the _vt kernel). Where the _vt kernel runs a problem of more than one wave
 * (repeats over the line), it keeps it: V^T once per call pays there. docs/PERF.md w66. */
typedef enum { WS_NONE, WS_VT, WS_SPLIT } ws_use_t;

static ws_use_t workspace_use(const fp8attn_params_t *p, const wgmma_instance_t *in, int sm_count,
                              fp8attn_wgmma_split_t *split)
{
    memset(split, 0, sizeof *split);
    if (!in) return WS_NONE;
    const bool vt = use_vt_pass(p, in, sm_count);
    fp8attn_wgmma_split_t tr;
    split_plan_of(p, in, sm_count, 0, &tr);
    if (tr.tiles > 0) {
        bool take = !vt;
        if (vt && grid_of(in, p) <= sm_count && WGMMA_SPLIT_TR_TENTHS > 0 &&
            *in->split_bn == *in->split_bn_tr) {
            int64_t nk;
            int64_t vt_kt = vt_split_kt(p, in, sm_count, &nk);
            if (vt_kt < 0) vt_kt = nk;
            const int64_t tr_kt = split_round_kt(&tr, WGMMA_SPLIT_COST_TR);
            take = tr_kt * WGMMA_SPLIT_TR_TENTHS <= vt_kt * 10;
        }
        if (take) {
            *split = tr;
            return WS_SPLIT;
        }
    }
    if (!vt) return WS_NONE;
    split_plan_of(p, in, sm_count, 1, split);
    return WS_VT;
}

/* WGMMA_HD64_SPLIT_*: a one-wave hd64 problem runs hd64_m128 (128-row blocks, whose kernels
 * cannot split: two Q stages), unsplit, in about 0.97 us a key tile plus 6 (H100). Given a
 * workspace it runs the general hd64 instance's _vt kernel instead (192-row blocks, the split
 * tail over every SM) where that instance would split (workspace_use: WS_VT with a plan) and
 * its time by this model, in hd64_m128's key tiles, is at least WGMMA_HD64_SPLIT_GAIN_PCT % less:
 * TILE_PCT % of one a 192-row key tile of the split's busiest block (ceil(W / SMs) + 2), ROUND_PCT
 * % of one a round of the background's V^T, FIXED_PCT % of one for the counts' clear and the
 * merge (both instances' key tiles are 128 keys). Fitted (docs/PERF.md w67; CUDA-graph time,
 * H100) to six shapes: split / hd64_m128
 * (1,16,16,512,32768,64) 0.72, (1,8,8,1024,8192,64) 0.69, (1,16,16,512,8192,64) 0.81,
 * (1,32,32,128,16384,64) 0.85, (1,16,16,512,2048,64) 1.18, (1,32,8,512,16384,64) 1.04 (hd64_m128's
 * 128 tiles fill the machine). 0 (GAIN_PCT): never (A/B builds). */
#ifndef WGMMA_HD64_SPLIT_GAIN_PCT
#define WGMMA_HD64_SPLIT_GAIN_PCT 10
#endif
#define WGMMA_HD64_SPLIT_TILE_PCT 125
#define WGMMA_HD64_SPLIT_ROUND_PCT 206
#define WGMMA_HD64_SPLIT_FIXED_PCT 300

/* Keys that in's key tiles cover for seqlen_k keys. */
static int64_t padded_keys(const wgmma_instance_t *in, int seqlen_k)
{
    return ((int64_t)seqlen_k + *in->bn - 1) / *in->bn * *in->bn;
}

/* Whether a call on `in` given a workspace runs its _vt kernel. */
static bool runs_vt(const fp8attn_params_t *p, const wgmma_instance_t *in, int sm_count)
{
    fp8attn_wgmma_split_t split;
    return workspace_use(p, in, sm_count, &split) == WS_VT;
}

/* The pad rule's choice for p, which instance_for_problem gives `in` (or instance_for_call, in
 * place of a range_vt_only instance that would transpose V). */
static const wgmma_instance_t *pad_rule(const fp8attn_params_t *p, int sm_count, int with_ws,
                                        const wgmma_instance_t *in)
{
    if (p->causal || in != instance_for(p->head_dim) || grid_of(in, p) <= sm_count) return in;
    const wgmma_instance_t *w = NULL; /* the pad rule's instance of p's head dim, with in's rows */
    for (int i = 0; i < N_INSTANCES && !w; i++)
        if (k_instances[i].pad_pct >= 0 && k_instances[i].entry()->head_dim == p->head_dim &&
            *k_instances[i].rows == *in->rows)
            w = &k_instances[i];
    if (!w) return in;
    const int64_t pad_in = padded_keys(in, p->seqlen_k), pad_w = padded_keys(w, p->seqlen_k);
    if (with_ws && runs_vt(p, in, sm_count) && runs_vt(p, w, sm_count))
        return pad_w < pad_in || (w->pad_vt_ties && pad_w == pad_in) ? w : in;
    return pad_w * 100 <= pad_in * (100 - w->pad_pct) ? w : in;
}

/* The instance for p: instance_for_problem's (but the general one in place of a range_vt_only
 * instance where both would transpose V), or pad_rule's, but, with a workspace (with_ws), the
 * general instance in place of a one-wave one where its split pays by the model above. */
static const wgmma_instance_t *instance_for_call(const fp8attn_params_t *p, int sm_count,
                                                 int with_ws)
{
    const wgmma_instance_t *in = instance_for_problem(p, sm_count);
    if (in && in->range_vt_only) {
        /* where `in` would transpose V, the general instance instead, which then transposes V
         * too; but where given a workspace `in` would still transpose V and the general one write
         * V^T (a one-wave split), `in` stays, with a workspace or without, so that a problem that
         * asks for no workspace runs the same kernel either way */
        const bool in_vt = runs_vt(p, in, sm_count);
        const wgmma_instance_t *g = instance_for(p->head_dim);
        if (g && !(with_ws && in_vt) && (in_vt || !runs_vt(p, g, sm_count))) in = g;
    }
    if (in) in = pad_rule(p, sm_count, with_ws, in);
    if (!with_ws || !in || !in->one_wave || p->causal || !WGMMA_HD64_SPLIT_GAIN_PCT) return in;
    const wgmma_instance_t *g = instance_for(p->head_dim);
    fp8attn_wgmma_split_t split;
    if (!g || g == in || workspace_use(p, g, sm_count, &split) != WS_VT || split.tiles == 0)
        return in;
    /* key tiles of 128 keys in both instances (their defaults), split.nk of them a tile */
    const int64_t cost = split_round_kt(&split, WGMMA_SPLIT_COST) * WGMMA_HD64_SPLIT_TILE_PCT +
                         vt_rounds(p, sm_count) * WGMMA_HD64_SPLIT_ROUND_PCT +
                         WGMMA_HD64_SPLIT_FIXED_PCT;
    return cost <= (int64_t)split.nk * (100 - WGMMA_HD64_SPLIT_GAIN_PCT) ? g : in;
}

/* With a workspace: V^T, the counters and, where the split plan has tiles, the tail's slots; or
 * the transposing kernel's split's counts and slots alone: the plan that launch() below passes
 * to kernel.cuh's wgmma_launch. */
static size_t workspace_size(const fp8attn_params_t *p, const fp8attn_device_info_t *dev)
{
    fp8attn_wgmma_split_t split;
    if (workspace_use(p, instance_for_call(p, dev->sm_count, 1), dev->sm_count, &split) == WS_NONE)
        return 0;
    return fp8attn_wgmma_ws_bytes(p, &split);
}

static fp8attn_status_t launch(const fp8attn_params_t *p, const fp8attn_device_info_t *dev,
                               void *workspace, fp8attn_stream_t stream)
{
    fp8attn_status_t st;
    const wgmma_instance_t *in = pick(p, dev, &st, workspace != NULL);
    if (!in) return st;
    /* a workspace comes only where workspace_size() asked for one, i.e. where workspace_use
     * finds a use for it, and then with room for this plan */
    fp8attn_wgmma_split_t split;
    memset(&split, 0, sizeof split);
    if (workspace) workspace_use(p, in, dev->sm_count, &split);
    return in->launch(p, workspace, &split, dev->sm_count, stream);
}

static const fp8attn_kernel_entry_t *kernel_for(const fp8attn_params_t *p,
                                                const fp8attn_device_info_t *dev,
                                                fp8attn_status_t *st)
{
    const wgmma_instance_t *in = pick(p, dev, st, 0);
    return in ? in->entry() : NULL;
}

static const fp8attn_kernel_entry_t *kernel_for_ws(const fp8attn_params_t *p,
                                                   const fp8attn_device_info_t *dev,
                                                   fp8attn_status_t *st)
{
    const wgmma_instance_t *in = pick(p, dev, st, 1);
    if (!in) return NULL;
    if (!runs_vt(p, in, dev->sm_count)) return in->entry();
    /* the causal _vt kernel where the instance has one and its launcher takes it */
    return in->entry_vtc() && FP8ATTN_WGMMA_TAKES_VTC(p) ? in->entry_vtc() : in->entry_vt();
}

/* The default's choice between wgmma and mma (priority 10) per problem. wgmma's blocks are 128 or
 * 192 query rows and start with a longer prologue (barriers, TMA descriptors, the first V
 * transpose), so on a problem that fills less than one wave and whose rows see few keys, mma's
 * 64-row blocks finish first. Measured on the H100/H200 (bench --vs, docs/PERF.md, w3), wgmma time
 * over mma time: (1,8,512,64) 1.32, (2,8,256,64) 1.30, (1,1,32,64) 1.17, (1,8,1024,64) 1.29,
 * (1,8,512,128) 1.07, (4,8,512,64) 1.01, (1,32,512,64) 1.00, but (1,8,512,256) 0.96,
 * (1,8,2048,64) 0.81, (2,8,1024,128) 0.68, (16,16,512,128) 0.85, (32,32,512,64) 0.86. Rule:
 * below mma when the grid is under one wave and seqlen_k * head_dim <= 64K (hd64: 1024 keys,
 * hd128: 512, hd256: 256). */
static int rank(const fp8attn_params_t *p, const fp8attn_device_info_t *dev)
{
    /* only the size matters here: whether wgmma can run p at all is supports()'s answer */
    const wgmma_instance_t *in = instance_for(p->head_dim);
    if (!in) return 20;
    const bool small =
        grid_of(in, p) < dev->sm_count && (int64_t)p->seqlen_k * p->head_dim <= 65536;
    return small ? 5 : 20;
}

extern "C" const fp8attn_variant_t fp8attn_variant_wgmma = {
    "wgmma",
    "Hopper (sm_90a): TMA loads into an mbarrier ring, warp-specialised (a producer warpgroup "
    "loads and transposes V, or with a workspace loads V^T written once per call, two or three "
    "consumer warpgroups of 64 rows), wgmma E4M3 for S = Q.K^T and O += P.V with P in "
    "registers, intra-warpgroup overlap; the default except on small one-wave problems",
    20, rank, supports, launch, kernel_for, workspace_size, kernel_for_ws};
