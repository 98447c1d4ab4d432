/* The wgmma kernel: persistent blocks of 1 + CONSUMERS warpgroups, each walking its share of the
 * (query tile of BM rows, query head, batch) tiles (scheduler.cuh; see wgmma_launch for the one
 * kernel that still gets a block per tile).
 *   warpgroup 0             load.cuh         TMA loads of Q, K, V into the stage ring (warp 0;
 *                                            an elected lane issues them)
 *                           transpose_v.cuh  V -> V^T in shared memory, per stage (3 or 4 warps)
 *   warpgroups 1..          mainloop.cuh     S = Q.K^T, mask, softmax, O += P.V (wgmma)
 *                           epilogue.cuh     O, LSE to global memory
 * Registers move from the producer to the consumers with setmaxnreg. Included by one small file
 * per instance (wgmma_hd<D>.cu), which also defines the host-side launch. */
#ifndef FP8ATTN_WGMMA_KERNEL_CUH
#define FP8ATTN_WGMMA_KERNEL_CUH

#include <cuda_runtime.h>
#include <string.h>

#include "../../internal.h"
#include "../kernels.h"
#include "mainloop.cuh"
#include "wgmma_host.h"

/* Scheduling switches (see mainloop.cuh); a build may set them for A/B measurements (CMake:
 * -DFP8ATTN_WGMMA_FLAGS="-DWGMMA_PINGPONG=1"). Ping-pong is off: on the H100 it measured 1.5 %
 * slower than letting the two consumers interleave freely (docs/PERF.md, w2). The overlap switch
 * is per instance (wgmma_hd<D>.cu). */
#ifndef WGMMA_PINGPONG
#define WGMMA_PINGPONG 0
#endif
#ifndef WGMMA_VT_PINGPONG
#define WGMMA_VT_PINGPONG WGMMA_PINGPONG /* the same for the _vt kernels */
#endif
#ifndef WGMMA_SKIP_RESCALE
#define WGMMA_SKIP_RESCALE 1
#endif
#ifndef WGMMA_PERSISTENT
#define WGMMA_PERSISTENT 1 /* 0: one block per unit (for A/B measurements) */
#endif
#ifndef WGMMA_PAIR_TILES
#define WGMMA_PAIR_TILES 1 /* 0: causal tiles walk head by head, neither paired nor snake (A/B) */
#endif

template <class C, bool OVERLAP, bool PINGPONG, bool PRE_VT>
__device__ __forceinline__ void wgmma_fwd(const wgmma_params &p)
{
    static_assert(PRE_VT == C::VT_GLOBAL, "a _vt kernel takes a VT_GLOBAL configuration");
    const uint32_t base = wg_smem_base();
    const wg_smem<C> sm = {base + C::OFF_Q,  base + C::OFF_K,   base + C::OFF_V,
                           base + C::OFF_VT, base + C::OFF_O,   base + C::OFF_BAR,
                           base + C::OFF_SCHED, base + C::OFF_BG, base + C::OFF_BG_BAR,
                           base + C::OFF_O_FULL};
    /* the transposing kernels take the warpgroup index through a shuffle from lane 0: the same
     * value, but ptxas then knows that each warp runs one role, and their producer's and
     * consumers' code came out 1-5 % faster (the producer's loads need it to stay out of local
     * memory: load.cuh produce); the _vt kernels keep the plain index (with the shuffle three
     * of the four measured 0.5-2.5 % slower, one 0.8 % faster: docs/PERF.md w110) */
    const int tid = threadIdx.x, wg = PRE_VT ? tid >> 7 : __shfl_sync(0xffffffffu, tid >> 7, 0);
    if (tid == 0) {
        prefetch_tensormap(&p.tm_q);
        prefetch_tensormap(&p.tm_k);
        prefetch_tensormap(PRE_VT ? &p.tm_vt : &p.tm_v);
        if (C::O_SMEM) prefetch_tensormap(&p.tm_o);
        if (C::FUSED_VT) {
            prefetch_tensormap(&p.tm_v);
            prefetch_tensormap(&p.tm_vt_store);
        }
        init_barriers<C, PRE_VT>(sm);
    }
    __syncthreads();
    /* a _vt kernel may start before the V^T pass (or, FUSED_VT, the counters' clear) has
     * finished (WGMMA_PDL): nothing above reads or writes global memory (but a trace build's
     * stamp below, into its own buffer); from here on the pass's V^T and the counters are
     * complete */
    trace_ld(tid, 0);
    if (PRE_VT && WGMMA_PDL) griddep_wait();
    trace_ld(tid, 1);
    if (wg == 0) {
        setmaxnreg_dec<C::PRODUCER_REGS>();
        produce<C, PRE_VT>(p, sm, tid);
    } else {
        setmaxnreg_inc<C::CONSUMER_REGS>();
        consume<C, OVERLAP, PINGPONG && OVERLAP && C::CONSUMERS == 2, WGMMA_SKIP_RESCALE>(p, sm, wg - 1,
                                                                                      tid & 127);
    }
}

/* Host side of one instance: work units, grid, shared memory, launch. k is the "_vt" kernel (C
 * VT_GLOBAL) or the kernel that transposes in shared memory. vt: the workspace (NULL: none; at
 * least fp8attn_wgmma_ws_bytes(p, plan) bytes, checked by the caller). The _vt kernel reads V^T
 * there: its background warps write it (FUSED_VT, after the counters' clear), or the V^T pass
 * first. The transposing kernel uses a workspace only for a split plan of its own (plan->tr 1):
 * the split's counts and slots. plan: the dispatcher's plan for the split tail
 * (wgmma_variant.cu split_plan_of, the plan the workspace's size made room for; NULL or no
 * tiles: none), refused unless it is the plan fp8attn_wgmma_split_plan makes for this kernel on
 * sm_count blocks.
 * Causal problems of at least two waves take their tiles from a counter (the dynamic walk) on the
 * _vt kernels but hd256's, in the workspace, and on the transposing kernels that have the walk
 * (config.cuh DYNAMIC_WALK), in 4 bytes of O; else pair their query tiles or walk them in snake
 * order (scheduler.cuh, sched_plan.cu); the grid is one block per SM, or one per unit where
 * there are fewer. */
template <class C>
static fp8attn_status_t wgmma_launch(const fp8attn_kernel_entry_t *k, const fp8attn_params_t *p,
                                     void *vt, const fp8attn_wgmma_split_t *plan, int sm_count,
                                     fp8attn_stream_t stream)
{
    /* query tiles (wp.n_q_tiles per head, make_params below), < 2^31: pick() */
    const int64_t tiles = ((int64_t)p->seqlen_q + C::BM - 1) / C::BM * p->h_q * p->batch;
    const int64_t slots = sm_count;
    const bool persist = WGMMA_PERSISTENT;
    /* the split tail (split.cuh), where this kernel can run it: a split-capable kernel, a
     * FUSED_VT one (the counters' clear zeroes its counts) for a plan of the _vt kernel
     * (plan->tr 0), a transposing one for its own (tr 1: a workspace of the split alone),
     * persistent, with a workspace, no mask; the plan's tail of query tiles of
     * ceil(seqlen_k / BN) key tiles each on one block per SM */
    fp8attn_wgmma_split_t split;
    memset(&split, 0, sizeof split);
    if (plan && plan->tiles > 0) {
        const bool can_split = C::SPLIT_TAIL && persist && vt && !p->causal &&
                               (C::VT_GLOBAL ? C::FUSED_VT && !plan->tr : plan->tr);
        /* the last round's tiles of nk key tiles each, w >= the grid (no block's range is
         * empty, split.cuh's merge counts on it), grid * w < 2^31 (scheduler.cuh's 32-bit
         * ranges) */
        if (!can_split || plan->nk != ((int64_t)p->seqlen_k + C::BN - 1) / C::BN ||
            plan->grid != sm_count || plan->warps != C::BM / 16 || plan->d != C::D ||
            plan->tiles != tiles % sm_count || plan->w != (int64_t)plan->tiles * plan->nk ||
            plan->w < sm_count || plan->w * sm_count >= INT32_MAX)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                                "wgmma: %s cannot run the split plan of %d query tiles x %d key "
                                "tiles on %d blocks",
                                k->symbol, plan->tiles, plan->nk, plan->grid);
        split = *plan;
    }
    /* the plan checked first: nothing is encoded or launched for one refused */
    wgmma_params wp;
    /* FUSED_VT: the kernel's background reads V in chunks (vt_background.cuh) */
    const int chunk = C::FUSED_VT ? C::VT_CHUNK : 0;
    fp8attn_status_t st = fp8attn_wgmma_make_params(p, C::BM, C::BN, chunk ? chunk : C::BN, C::SW_D,
                                                    C::O_SMEM ? C::O_BOX_ROWS : 0, &wp);
    if (st != FP8ATTN_OK) return st;
    if (C::VT_GLOBAL && vt) { /* the counters cleared for the kernel that writes V^T itself, or
                               * the pass */
        if ((st = fp8attn_wgmma_make_vt_maps(p, vt, C::SW_N, chunk, &wp)) != FP8ATTN_OK ||
            (st = chunk ? fp8attn_wgmma_vt_counters_clear(p, &split, vt, stream)
                        : fp8attn_wgmma_vt_prepass_launch(p, vt, stream)) != FP8ATTN_OK)
            return st;
    } else {
        memset(&wp.tm_vt, 0, sizeof wp.tm_vt);
        /* a transposing kernel's split: its counts cleared first (in stream order: this kernel
         * is no programmatic dependent) */
        if (split.tiles > 0 &&
            (st = fp8attn_wgmma_vt_counters_clear(p, &split, vt, stream)) != FP8ATTN_OK)
            return st;
    }
    const int64_t heads = (int64_t)p->h_q * p->batch;
    wp.walk = FP8ATTN_WGMMA_WALK_TILES;
    wp.pairs_per_head = 0;
    const bool spread = persist && p->causal && wp.n_q_tiles > 1 && tiles >= 2 * slots;
    bool counter_in_o = false; /* the transposing kernels' counter (below) */
    if (spread && C::DYNAMIC_WALK) {
        wp.walk = FP8ATTN_WGMMA_WALK_DYNAMIC;
        wp.sec_heads = fp8attn_wgmma_section_heads(heads, wp.heads_per_kv,
                                                   2 * p->head_dim * fp8attn_wgmma_vt_skp(p));
        wp.sec_units = wp.sec_heads * wp.n_q_tiles; /* <= tiles < 2^31 */
        wp.div_sec_units = fp8attn_fastdiv_make((uint32_t)wp.sec_units);
        wp.div_sec_heads = fp8attn_fastdiv_make((uint32_t)wp.sec_heads);
        const int64_t last = heads - (heads - 1) / wp.sec_heads * wp.sec_heads;
        wp.div_last_heads = fp8attn_fastdiv_make((uint32_t)last);
        if (C::VT_GLOBAL) {
            wp.tile_counter = fp8attn_wgmma_tile_counter(p, vt); /* a _vt kernel: vt != NULL */
        } else {
            /* 4 bytes of O, the first two elements of the last row of the walk's last position
             * (the first query tile of query head h_q - 1 in batch - 1): row C::BM - 1 - q_off,
             * in [0, seqlen_q) with two query tiles or more (scheduler.cuh hand_next); 4-byte
             * aligned, as fp8attn_validate makes O's rows 16-byte aligned */
            counter_in_o = true;
            wp.tile_counter = (int32_t *)((uint16_t *)p->o + row_offset(p->o_stride, p->batch - 1,
                                                                        p->h_q - 1,
                                                                        C::BM - 1 - wp.q_off));
        }
    } else if (spread && WGMMA_PAIR_TILES) {
        wp.walk = fp8attn_wgmma_causal_walk(wp.n_q_tiles, C::BM, C::BN, wp.q_off, p->seqlen_q,
                                            p->seqlen_k, heads, (int)slots, &wp.pairs_per_head);
    }
    if (wp.pairs_per_head > 0) wp.div_pairs = fp8attn_fastdiv_make((uint32_t)wp.pairs_per_head);
    /* a head's units: its pairs, then its other tiles one by one (all of them one by one on the
     * tiles, snake and dynamic walks) */
    wp.n_units = (int32_t)((wp.n_q_tiles - wp.pairs_per_head) * heads);
    wp.split_units0 = wp.n_units;
    if (split.tiles > 0) { /* the tiles walk (no mask); the tail's units two per block */
        wp.split_units0 = (int32_t)(tiles - split.tiles);
        wp.split_nk = split.nk;
        wp.split_w = (int32_t)split.w; /* grid * w < 2^31: the plan */
        wp.div_split_w = fp8attn_fastdiv_make((uint32_t)split.w);
        wp.div_split_nk = fp8attn_fastdiv_make((uint32_t)split.nk);
        wp.div_grid = fp8attn_fastdiv_make((uint32_t)slots); /* the grid below */
        /* a tail of whole heads of more than one query tile: query tile by query tile */
        if (wp.n_q_tiles > 1 && wp.split_units0 % wp.n_q_tiles == 0 &&
            split.tiles % wp.n_q_tiles == 0) {
            wp.split_heads = split.tiles / wp.n_q_tiles;
            wp.div_split_heads = fp8attn_fastdiv_make((uint32_t)wp.split_heads);
        }
        wp.split_part = fp8attn_wgmma_split_part(p, &split, vt);
        wp.split_count = fp8attn_wgmma_split_count(p, &split, vt);
        /* tiles + 2 slots: below 2^31 for any Q that fits in memory (2^31 tiles of 64 rows) */
        wp.n_units = (int32_t)(wp.split_units0 + 2 * slots);
    }
    const int64_t grid = persist && wp.n_units > slots ? slots : wp.n_units;
    if (wp.walk == FP8ATTN_WGMMA_WALK_SNAKE) wp.div_grid = fp8attn_fastdiv_make((uint32_t)grid);
    void *args[] = {(void *)&wp};
    cudaError_t e = cudaFuncSetAttribute(k->func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         C::SMEM_BYTES);
    if (e == cudaSuccess) {
        /* after the V^T pass or the counters' clear: a programmatic dependent of it
         * (WGMMA_PDL, wgmma_host.h) */
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        cfg.gridDim = dim3((unsigned)grid);
        cfg.blockDim = dim3(C::THREADS);
        cfg.dynamicSmemBytes = C::SMEM_BYTES;
        cfg.stream = (cudaStream_t)stream;
        if (C::VT_GLOBAL && vt && WGMMA_PDL) {
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        /* the counter in O starts at 0: a 4-byte memset in stream order before the kernel, the
         * call's last step before the launch (include/fp8attn.h: a launch that fails after it
         * leaves those 4 bytes of O zeroed). Not a cooperative launch: one captured in a CUDA
         * graph on a green-context partition of 8 SMs never finished its replay, where this
         * launch does (docs/PERF.md w119) */
        if (counter_in_o && (e = cudaMemsetAsync(wp.tile_counter, 0, 4,
                                                 (cudaStream_t)stream)) != cudaSuccess)
            return fp8attn_fail(FP8ATTN_ERR_CUDA, "wgmma: zeroing %s's tile counter in O: %s",
                                k->symbol, cudaGetErrorString(e));
        e = cudaLaunchKernelExC(&cfg, k->func, args);
    }
#if WGMMA_TRACE
    if (e == cudaSuccess) {
        wgmma_trace_dump<<<1, 1, 0, (cudaStream_t)stream>>>(C::CONSUMERS);
        e = cudaGetLastError();
    }
#endif
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "wgmma: launching %s: %s", k->symbol,
                            cudaGetErrorString(e));
    return FP8ATTN_OK;
}

/* An instance's launcher (FP8ATTN_WGMMA_INSTANCE[_VTC] below): the transposing kernel k (CFG)
 * without a workspace or for its own split plan (split->tr 1), else the causal _vt kernel k_vtc
 * (CFG_VTC; NULL: none) where FP8ATTN_WGMMA_TAKES_VTC (wgmma_host.h), else the _vt kernel k_vt
 * (CFG_VT). */
template <class CFG, class CFG_VT, class CFG_VTC>
static fp8attn_status_t wgmma_launch_instance(const fp8attn_kernel_entry_t *k,
                                              const fp8attn_kernel_entry_t *k_vt,
                                              const fp8attn_kernel_entry_t *k_vtc,
                                              const fp8attn_params_t *p, void *vt,
                                              const fp8attn_wgmma_split_t *split, int sm_count,
                                              fp8attn_stream_t s)
{
    if (!vt || (split && split->tiles > 0 && split->tr))
        return wgmma_launch<CFG>(k, p, vt, split, sm_count, s);
    if (k_vtc && FP8ATTN_WGMMA_TAKES_VTC(p))
        return wgmma_launch<CFG_VTC>(k_vtc, p, vt, split, sm_count, s);
    return wgmma_launch<CFG_VT>(k_vt, p, vt, split, sm_count, s);
}

/* One kernel of instance NAME, fp8attn_wgmma_<NAME><SUFFIX> (configuration CFG; PRE_VT: V^T from
 * the workspace), its body only in the sm_90a image, and its table entry
 * fp8attn_wgmma_entry_<NAME><SUFFIX>() (SUFFIX empty, _vt or _vtc). */
#define FP8ATTN_WGMMA_KERNEL_(NAME, SUFFIX, CFG, OVERLAP, PINGPONG, PRE_VT)                       \
    extern "C" __global__ void __launch_bounds__(CFG::THREADS, 1)                                 \
        fp8attn_wgmma_##NAME##SUFFIX(const __grid_constant__ wgmma_params p)                      \
    {                                                                                             \
        WGMMA_KERNEL_BODY((wgmma_fwd<CFG, OVERLAP, PINGPONG, PRE_VT>(p)))                          \
    }                                                                                             \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_##NAME##SUFFIX(void)             \
    {                                                                                             \
        static const fp8attn_kernel_entry_t e = {"wgmma", "fp8attn_wgmma_" #NAME #SUFFIX, CFG::D,  \
                                                 CFG::THREADS, CFG::SMEM_BYTES,                   \
                                                 (const void *)fp8attn_wgmma_##NAME##SUFFIX};     \
        return &e;                                                                                \
    }

/* Whether two configurations have the same tile: head dim, query rows, keys per tile and
 * consumer warpgroups. The kernels of one instance then sum P.V over the same key tiles in the
 * same order, so their outputs are bit-identical unless one splits the tail (split.cuh). */
#define FP8ATTN_WGMMA_SAME_TILE_(CFG_A, CFG_B)                                                    \
    (CFG_A::D == CFG_B::D && CFG_A::BM == CFG_B::BM && CFG_A::BN == CFG_B::BN &&                  \
     CFG_A::CONSUMERS == CFG_B::CONSUMERS)

/* The two kernels every instance has and its constants (FP8ATTN_WGMMA_INSTANCE below). */
#define FP8ATTN_WGMMA_PAIR_(NAME, CFG, CFG_VT, OVERLAP, OVERLAP_VT, PINGPONG, PINGPONG_VT)        \
    static_assert(FP8ATTN_WGMMA_SAME_TILE_(CFG, CFG_VT) && CFG_VT::VT_GLOBAL && !CFG::VT_GLOBAL,  \
                  "the kernels of an instance share their tile (with the workspace and "          \
                  "without, the same output unless the tail splits: split.cuh)");                 \
    FP8ATTN_WGMMA_KERNEL_(NAME, , CFG, OVERLAP, PINGPONG, false)                                  \
    FP8ATTN_WGMMA_KERNEL_(NAME, _vt, CFG_VT, OVERLAP_VT, PINGPONG_VT, true)                        \
    extern "C" const int fp8attn_wgmma_rows_##NAME = CFG::BM;                                     \
    extern "C" const int fp8attn_wgmma_bn_##NAME = CFG::BN;                                       \
    extern "C" const int fp8attn_wgmma_split_bn_##NAME =                                          \
        CFG_VT::SPLIT_TAIL && CFG_VT::FUSED_VT && WGMMA_PERSISTENT ? CFG_VT::BN : 0;              \
    extern "C" const int fp8attn_wgmma_split_bn_tr_##NAME =                                       \
        CFG::SPLIT_TAIL && WGMMA_PERSISTENT ? CFG::BN : 0;

/* Defines kernel fp8attn_wgmma_<NAME> (configuration CFG: V transposed in shared memory) and
 * fp8attn_wgmma_<NAME>_vt (CFG_VT, a VT_GLOBAL configuration with the same tile: V^T from the
 * workspace; the ring depth, register split and overlap switch may differ), their bodies only in
 * the sm_90a image; their table entries fp8attn_wgmma_entry_<NAME>[_vt]() (and
 * fp8attn_wgmma_entry_<NAME>_vtc(), NULL: no causal kernel, FP8ATTN_WGMMA_INSTANCE_VTC) and the
 * launcher fp8attn_wgmma_launch_<NAME>(p, vt, split, sm_count, stream), which runs the second
 * when vt != NULL, but for a split plan of the transposing kernel (split->tr 1), which runs the
 * first with the workspace vt; fp8attn_wgmma_rows_<NAME> (BM), fp8attn_wgmma_bn_<NAME> (BN,
 * every kernel's key tile), fp8attn_wgmma_split_bn_<NAME> (the _vt kernel's BN if its launch may
 * split the tail, else 0) and fp8attn_wgmma_split_bn_tr_<NAME> (the same for the transposing
 * kernel): the dispatcher's instance choice and split plans, wgmma_variant.cu. */
#define FP8ATTN_WGMMA_INSTANCE(NAME, CFG, CFG_VT, OVERLAP, OVERLAP_VT, PINGPONG, PINGPONG_VT)     \
    FP8ATTN_WGMMA_PAIR_(NAME, CFG, CFG_VT, OVERLAP, OVERLAP_VT, PINGPONG, PINGPONG_VT)            \
    extern "C" const fp8attn_kernel_entry_t *fp8attn_wgmma_entry_##NAME##_vtc(void)               \
    {                                                                                             \
        return NULL;                                                                              \
    }                                                                                             \
    FP8ATTN_WGMMA_LAUNCH_DECL(NAME)                                                               \
    {                                                                                             \
        return wgmma_launch_instance<CFG, CFG_VT, CFG_VT>(fp8attn_wgmma_entry_##NAME(),           \
                                                          fp8attn_wgmma_entry_##NAME##_vt(),      \
                                                          NULL, p, vt, split, sm_count, s);       \
    }

/* FP8ATTN_WGMMA_INSTANCE with a third kernel, fp8attn_wgmma_<NAME>_vtc (CFG_VTC: VT_GLOBAL, the
 * _vt kernel's tile, V^T chunks and walk, and a switch the split tail excludes, e.g. the
 * cross-tile overlap), which the launcher runs in place of the _vt kernel where
 * FP8ATTN_WGMMA_TAKES_VTC (wgmma_host.h: causal problems, which never split). Same tile, same
 * sums: its output should be the _vt kernel's bit for bit; compared only in timing runs, at 8k-16k
 * causal keys with seqlen_q = seqlen_k (docs/PERF.md w103), not by a test: the API cannot run the
 * _vt kernel there. */
#define FP8ATTN_WGMMA_INSTANCE_VTC(NAME, CFG, CFG_VT, CFG_VTC, OVERLAP, OVERLAP_VT, PINGPONG,     \
                                   PINGPONG_VT)                                                   \
    FP8ATTN_WGMMA_PAIR_(NAME, CFG, CFG_VT, OVERLAP, OVERLAP_VT, PINGPONG, PINGPONG_VT)            \
    static_assert(FP8ATTN_WGMMA_SAME_TILE_(CFG_VT, CFG_VTC) && CFG_VTC::VT_GLOBAL &&              \
                      CFG_VTC::FUSED_VT == CFG_VT::FUSED_VT &&                                    \
                      CFG_VTC::VT_CHUNK == CFG_VT::VT_CHUNK && CFG_VTC::SW_N == CFG_VT::SW_N &&    \
                      CFG_VTC::DYNAMIC_WALK == CFG_VT::DYNAMIC_WALK,                              \
                  "the causal _vt kernel reads the _vt kernel's V^T and counters in its tile");   \
    FP8ATTN_WGMMA_KERNEL_(NAME, _vtc, CFG_VTC, OVERLAP_VT, PINGPONG_VT, true)                      \
    FP8ATTN_WGMMA_LAUNCH_DECL(NAME)                                                               \
    {                                                                                             \
        return wgmma_launch_instance<CFG, CFG_VT, CFG_VTC>(                                       \
            fp8attn_wgmma_entry_##NAME(), fp8attn_wgmma_entry_##NAME##_vt(),                      \
            fp8attn_wgmma_entry_##NAME##_vtc(), p, vt, split, sm_count, s);                       \
    }

/* The kernel body is compiled only where wgmma and setmaxnreg exist (the sm_90a pass). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))
#define WGMMA_KERNEL_BODY(x) __trap();
#else
#define WGMMA_KERNEL_BODY(x) x;
#endif

#endif
