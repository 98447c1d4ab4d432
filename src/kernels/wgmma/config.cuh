/* The wgmma family's compile-time tile configuration, its shared-memory plan, and the one flat
 * parameter struct every kernel of the family receives (tensor maps + the problem's scalars). */
#ifndef FP8ATTN_WGMMA_CONFIG_CUH
#define FP8ATTN_WGMMA_CONFIG_CUH

#include <cuda.h>
#include <stdint.h>

#include "fp8attn.h"
#include "kernels/fastdiv.h"

/* WGMMA_EPI_TMA 1: every kernel with room in shared memory for its O tile writes O there and
 * lets a TMA store copy it out (epilogue.cuh); 0 (default): only the configurations that ask for
 * it (EPI_TMA below, set per kernel in the instance files where, with the stmatrix epilogue,
 * it measured faster: all but the transposing kernels of hd128_n224 and hd64_m128;
 * docs/PERF.md w21, w39-w42, w59). */
#ifndef WGMMA_EPI_TMA
#define WGMMA_EPI_TMA 0
#endif

/* WGMMA_Q_SHIFT 1 (default): causal problems count their query tiles from the last row up
 * (scheduler.cuh, q_off); 0: from row 0 (A/B builds). */
#ifndef WGMMA_Q_SHIFT
#define WGMMA_Q_SHIFT 1
#endif

/* WGMMA_CROSS 1 (default): two Q buffers where they fit (Q_STAGES below), and with them the
 * consumers' cross-tile overlap (mainloop.cuh); 0: one Q buffer (A/B builds). */
#ifndef WGMMA_CROSS
#define WGMMA_CROSS 1
#endif

/* WGMMA_DYNAMIC 1 (default): causal problems of two waves or more on the _vt kernels (but
 * hd256's) and on the transposing kernels whose instance asks for it (DYN, DYNAMIC_WALK below)
 * take the dynamic walk (scheduler.cuh; their other problems the tiles walk, so these kernels
 * carry no code for pairs or snake); 0: pairs or snake as on the other kernels (A/B builds;
 * docs/PERF.md w50, w117). */
#ifndef WGMMA_DYNAMIC
#define WGMMA_DYNAMIC 1
#endif

/* WGMMA_O_IN_RING 1 (default): a kernel that transposes V and asks for the staging epilogue
 * (EPI_TMA) without room for it beside its rings stages O over a stage of its rings (O_IN_RING
 * below); 0: it stores O from registers (A/B builds). */
#ifndef WGMMA_O_IN_RING
#define WGMMA_O_IN_RING 1
#endif

/* WGMMA_BG_FIRST 1 (default): in the kernels that write V^T in the background (FUSED_VT), the
 * block's first Q waits for the background's first V chunks (config BG_FIRST below). It gates
 * only that wait: the background's next-chunk take after the store (w61's other half) is
 * unconditional, so a build with 0 is not session 22's kernel. */
#ifndef WGMMA_BG_FIRST
#define WGMMA_BG_FIRST 1
#endif

/* WGMMA_SPLIT_TAIL 1 (default): a problem without the causal mask on a _vt kernel whose last
 * round of query tiles leaves blocks idle splits that round's key tiles evenly over the whole
 * grid (split.cuh, sched_plan.cu fp8attn_wgmma_split_plan); 0: every tile is one block's (A/B
 * builds; docs/PERF.md w62). WGMMA_SPLIT_TRANSPOSING 1 (default): hd256's transposing kernel
 * may split too, with a workspace that holds only the split's counts and slots (no V^T to
 * write first: docs/PERF.md w66); 0: only the _vt kernels split (A/B builds). */
#ifndef WGMMA_SPLIT_TAIL
#define WGMMA_SPLIT_TAIL 1
#endif
#ifndef WGMMA_SPLIT_TRANSPOSING
#define WGMMA_SPLIT_TRANSPOSING 1
#endif

/* WGMMA_FUSED_VT 1 (default): the _vt kernels write V^T into the workspace themselves, in the
 * background (FUSED_VT below, vt_background.cuh), instead of after the V^T pass; 0: the pass
 * precedes every _vt kernel (A/B builds; docs/PERF.md w55). */
#ifndef WGMMA_FUSED_VT
#define WGMMA_FUSED_VT 1
#endif

/* Block of 1 + CONSUMERS warpgroups: warpgroup 0 is the producer (the TMA loads and the V
 * transpose, split as LOADER says), the others are consumers of 64 query rows each
 * (BM = 64 x CONSUMERS).
 *   D          head dim (64, 128, 256)
 *   BN         keys per tile (a multiple of 32)
 *   STAGES     depth of the K / V / V^T rings
 *   CONSUMERS  consumer warpgroups (2 or 3)
 *   PREGS      registers per producer thread after setmaxnreg; the consumers get the rest of
 *              the launch allocation (below), in steps of 8
 *   LOADER     1: producer warp 0 only issues the TMA loads, warps 1-3 transpose V; 0: all four
 *              warps transpose and warp 0 issues the loads between tiles (load.cuh produce)
 *   VT_GLOBAL  the configuration of a "_vt" kernel: V^T comes from the workspace by TMA (no V
 *              ring in shared memory, no per-tile transposer; LOADER is ignored); with FUSED_VT
 *              (below) producer warps 2 and 3 write that V^T in the background
 *   EPI_TMA    O goes out through shared memory (written with stmatrix) and a TMA store
 *              (epilogue.cuh write_output_staged; docs/PERF.md w39-w42), if the O tile
 *              fits beside the rest or over a ring stage (O_IN_RING below); else (and by
 *              default) 16-byte stores from registers
 *   CROSS      two Q stages if they fit (Q_STAGES below), so the cross-tile overlap
 *              (mainloop.cuh) may run; false where it spills or measured slower (docs/PERF.md w33)
 *   TBATCH     V transpose units whose ldmatrix issue together (transpose_v.cuh): 1 to 4, as
 *              many as fit the producer's registers without a spill (docs/PERF.md w35); 1 with
 *              TSPEC 0
 *   TSPEC      the transposer's form (transpose_v.cuh): 1, its code specialised per warp
 *              (transpose_warp: the units' offsets are immediates); 0, one loop with the warp
 *              index at run time (transpose_units), where the specialised form spills or
 *              measured slower (docs/PERF.md w35); 2, each warp a band of whole key blocks with
 *              every term of its addresses folded into two bases per tile (transpose_blocks,
 *              w81), where the warps divide the BN / 32 key blocks evenly and each band is a
 *              whole number of V^T's swizzle rows (SW_N / 32 blocks)
 */
/* WGMMA_STSM_CF 1 (default): the transposers' stmatrix in an order without bank conflicts
 * (transpose_v.cuh st_row_of, unit_sel; docs/PERF.md w109; at head_dim 256 since w110); 0: the
 * even rows first (the order before w109) (A/B builds). */
#ifndef WGMMA_STSM_CF
#define WGMMA_STSM_CF 1
#endif

template <int D_, int BN_, int STAGES_, int CONSUMERS_ = 2, int PREGS_ = 40, int LOADER_ = 1,
          bool VT_GLOBAL_ = false, bool EPI_TMA_ = false, bool CROSS_ = true, int TBATCH_ = 1,
          int TSPEC_ = 1, bool DYN_ = false>
struct wg_config {
    static constexpr bool VT_GLOBAL = VT_GLOBAL_;
    static constexpr int D = D_;
    static constexpr int BN = BN_;
    static constexpr int STAGES = STAGES_;
    static constexpr int CONSUMERS = CONSUMERS_;
    static constexpr int BM = 64 * CONSUMERS;
    static constexpr int THREADS = 128 * (CONSUMERS + 1);
    static constexpr bool LOADER_WARP = LOADER_ != 0;
    static constexpr int TRANSPOSERS = LOADER_WARP ? 96 : 128;
    static constexpr int TRANSPOSE_BATCH = TBATCH_;
    static constexpr int TRANSPOSE_SPEC = TSPEC_;
    static_assert(TSPEC_ >= 0 && TSPEC_ <= 2, "TSPEC: 0, 1 or 2");
    static_assert(TBATCH_ >= 1 && TBATCH_ <= 4, "TBATCH: 1 to 4");
    static_assert(TSPEC_ != 0 || TBATCH_ == 1, "TSPEC 0 (transpose_units): one unit at a time");
    /* the transposer's stmatrix order (above WGMMA_STSM_CF) */
    static constexpr bool STSM_CF = WGMMA_STSM_CF;
    static constexpr int PRODUCER_REGS = PREGS_;
    /* __launch_bounds__(THREADS, 1) gives each thread LAUNCH_REGS (65536 / THREADS, rounded down
     * to 8: 168 for 384 threads, 128 for 512), and setmaxnreg only moves registers inside that
     * allocation: a warpgroup whose .inc the pool cannot satisfy waits forever. */
    static constexpr int LAUNCH_REGS = 65536 / THREADS / 8 * 8;
    static constexpr int CONSUMER_REGS_FIT = (LAUNCH_REGS * (CONSUMERS + 1) - PREGS_) / CONSUMERS / 8 * 8;
    static constexpr int CONSUMER_REGS = CONSUMER_REGS_FIT > 256 ? 256 : CONSUMER_REGS_FIT;
    static_assert(PRODUCER_REGS + CONSUMERS * CONSUMER_REGS <= LAUNCH_REGS * (CONSUMERS + 1),
                  "setmaxnreg split larger than the launch allocation");
    static_assert(PRODUCER_REGS % 8 == 0 && PRODUCER_REGS >= 24, "setmaxnreg: 24..256, step 8");

    /* Swizzle widths: rows of Q, K and raw V run along D; rows of V^T run along the keys. A
     * K-major operand is stored as column blocks of SW bytes (SW = 128 where the row is long
     * enough, else 64), each block [rows][SW] with the hardware swizzle of that width. */
    static constexpr int SW_D = D >= 128 ? 128 : 64;
    static constexpr int SW_N = BN % 128 == 0 ? 128 : BN % 64 == 0 ? 64 : 32;

    static constexpr int Q_BYTES = BM * D;
    static constexpr int KV_BYTES = BN * D; /* one K, V or V^T tile */
    static constexpr int RINGS_BYTES = (VT_GLOBAL ? 2 : 3) * STAGES * KV_BYTES; /* K, V, V^T */
    static constexpr int O_BYTES = BM * D * 2; /* O staged for a TMA store (below) */
    static constexpr int SMEM_MAX = 227 * 1024; /* per block */
    /* barriers with q Q stages: q_full(0), then per stage k_full, k_empty, v_full, v_empty,
     * vt_full, vt_empty, then q_empty(0), then with two Q stages q_full(1), q_empty(1) */
    static constexpr int n_bars(int q) { return 2 * q + 6 * STAGES; }
    /* DYNAMIC_WALK: the kernel takes the dynamic walk on causal problems of two waves or more
     * (scheduler.cuh): the _vt kernels but hd256's, whose producer has 24 registers (its
     * consumers need the other 240) and spilled 96 bytes with the walk's reads and a thread-0
     * loader (4 with w113's loader warp; not measured), and the transposing kernels with a
     * loader warp whose instance sets DYN (hd128's and hd64_n160's, docs/PERF.md w117; hd64's
     * spills 20 bytes with it). The _vt kernels count their units in the workspace, the
     * transposing ones in 4 bytes of O (kernel.cuh, scheduler.cuh hand_next). Their unit slot:
     * the barriers u_full, u_empty and the unit, 8 bytes each, after the barriers above */
    static constexpr bool DYNAMIC_WALK =
        WGMMA_DYNAMIC && D != 256 && (VT_GLOBAL || (DYN_ && LOADER_WARP));
    static constexpr int SCHED_SLOTS = DYNAMIC_WALK ? 1 : 0;
    static constexpr int SCHED_BYTES = 3 * 8 * SCHED_SLOTS;
    /* FUSED_VT: producer warps 2 and 3 (BG_WARPS) transpose V into the workspace while the block
     * runs (vt_background.cuh), each through its own pair of chunk buffers (V: [VT_CHUNK keys][D],
     * V^T: [D][VT_CHUNK keys]) and one TMA barrier, after the unit slot. hd256's _vt kernel has
     * no room for them beside its O staging (224 KB); there (BG_IN_O) they lie in the O staging
     * area, and the epilogue stores O from registers until they are done (bg_done). */
    static constexpr bool EPI_TMA = EPI_TMA_ || WGMMA_EPI_TMA; /* asked for; O_SMEM: granted */
    static constexpr bool FUSED_VT = WGMMA_FUSED_VT && VT_GLOBAL && (D != 256 || EPI_TMA);
    static constexpr int VT_CHUNK = 64;
    static constexpr int BG_WARPS = FUSED_VT ? 2 : 0;
    static constexpr bool BG_IN_O = FUSED_VT && D == 256;
    static constexpr int BG_BYTES = BG_IN_O ? 0 : BG_WARPS * 2 * VT_CHUNK * D; /* beside O */
    /* BG_FIRST (WGMMA_BG_FIRST): the loader holds the block's first Q back until the background
     * warps' first chunks have landed (bg_started, the last of the background's barriers):
     * at start-up every block's V chunks then meet less DRAM traffic (docs/PERF.md w61) */
    static constexpr bool BG_FIRST = WGMMA_BG_FIRST && FUSED_VT;
    static constexpr int BG_BAR_BYTES = 8 * (BG_WARPS + (BG_IN_O ? 1 : 0) + (BG_FIRST ? 1 : 0));
    static constexpr int BG_STARTED_BAR = 8 * (BG_WARPS + (BG_IN_O ? 1 : 0)); /* from bg_bar */

    /* Q_STAGES: Q buffers. 2 (WGMMA_CROSS and CROSS, default) where shared memory has room
     * beside the rings and the O staging the configuration asks for: the next query tile's Q
     * then lands while the current tile runs, and the consumers issue its first S = Q.K^T with
     * the current tile's last P.V and run its softmax under it, before the epilogue
     * (mainloop.cuh). 1: the next Q is loaded once the current one is done. */
    static constexpr int Q_STAGES =
        WGMMA_CROSS && CROSS_ && 2 * Q_BYTES + RINGS_BYTES +
                                       (EPI_TMA ? O_BYTES : 0) + BG_BYTES +
                                       8 * n_bars(2) + SCHED_BYTES + BG_BAR_BYTES + 1024 <=
                                   SMEM_MAX ? 2 : 1;

    /* shared memory, every tile 1024-byte aligned (the 128-byte swizzle's period) */
    static constexpr int OFF_Q = 0;
    static constexpr int OFF_K = OFF_Q + Q_STAGES * Q_BYTES;
    static constexpr int OFF_V = OFF_K + STAGES * KV_BYTES;                   /* unused if VT_GLOBAL */
    static constexpr int OFF_VT = OFF_V + (VT_GLOBAL ? 0 : STAGES * KV_BYTES);
    static constexpr int OFF_RINGS_END = OFF_VT + STAGES * KV_BYTES;
    static constexpr int N_BARS = n_bars(Q_STAGES);
    /* O staged for the TMA store, 128-byte swizzle. O_FITS: beside everything else, as
     * [BM / 16 warps][D / 64 column blocks][16 rows][128 bytes]; each warp stores its own rows.
     * O_IN_RING: else, in a kernel that transposes V (hd256's: 224 KB of Q and rings), over the
     * ring stage of the tile's last key tile, consumer 0's rows over its V^T and consumer 1's
     * over its V, each as [D / 64 column blocks][64 rows][128 bytes], stored in boxes of 64 rows
     * (O_BOX_ROWS: 8 TMA stores of 8 KB a tile instead of 32 of 2 KB, which took 5.8k cycles
     * against 3.6k; docs/PERF.md w75). A tile that starts before row 0 (the causal partial
     * tile: a TMA store of a box that starts there faults) stores from registers instead
     * (mainloop.cuh o_ring, load.cuh produce). The consumers write it
     * once both have done the tile's last P.V and tell producer warp 0 (o_full of the stage);
     * warp 0 issues the TMA stores once the next tile's first V^T is under way (that stage is
     * the other one), waits until they have read the stage, and only then loads the next V into
     * it (load.cuh produce). So the consumers do not wait for the stores in their epilogue; the
     * next tile's second P.V waits for them, through its V. WGMMA_O_IN_RING 0: such kernels
     * store O from registers (A/B builds; docs/PERF.md w59). */
    static constexpr bool O_FITS = EPI_TMA && OFF_RINGS_END + O_BYTES + BG_BYTES + 8 * N_BARS +
                                                      SCHED_BYTES + BG_BAR_BYTES + 1024 <=
                                                  SMEM_MAX;
    static constexpr bool O_IN_RING = WGMMA_O_IN_RING && EPI_TMA && !O_FITS && !VT_GLOBAL &&
                                      !LOADER_WARP && STAGES == 2 && CONSUMERS == 2 &&
                                      O_BYTES == 2 * KV_BYTES;
    static constexpr bool O_SMEM = O_FITS || O_IN_RING;
    static constexpr int O_BOX_ROWS = O_IN_RING ? 64 : 16; /* rows of tm_o's box */
    static constexpr int OFF_O = OFF_RINGS_END; /* O_FITS */
    static constexpr int OFF_BG = BG_IN_O ? OFF_O : OFF_RINGS_END + (O_FITS ? O_BYTES : 0); /* FUSED_VT */
    static_assert(!BG_IN_O || (O_FITS && O_BYTES >= BG_WARPS * 2 * VT_CHUNK * D),
                  "the chunk buffers fit the O staging area");
    static constexpr int OFF_BAR = OFF_RINGS_END + (O_FITS ? O_BYTES : 0) + BG_BYTES;
    static constexpr int OFF_SCHED = OFF_BAR + 8 * N_BARS;
    static constexpr int OFF_BG_BAR = OFF_SCHED + SCHED_BYTES;
    static constexpr int OFF_O_FULL = OFF_BG_BAR + BG_BAR_BYTES; /* O_IN_RING's, one per stage */
    static constexpr int SMEM_USED = OFF_O_FULL + (O_IN_RING ? 8 * STAGES : 0);
    static constexpr int SMEM_BYTES = SMEM_USED + 1024; /* slack to align the dynamic base */
    /* SPLIT_TAIL (WGMMA_SPLIT_TAIL): the kernel may run the split tail (split.cuh): a kernel
     * whose consumers take consume_tile's path (one Q stage: the cross-tile overlap hands O
     * from tile to tile in registers, which a split tile's partial O would not fit), a _vt
     * kernel or (WGMMA_SPLIT_TRANSPOSING) hd256's transposing one, the only other that runs
     * one-wave problems with one Q stage (hd64's and hd128's one-wave transposing kernels
     * have two) */
    static constexpr bool SPLIT_TAIL =
        WGMMA_SPLIT_TAIL && Q_STAGES == 1 && (VT_GLOBAL || (WGMMA_SPLIT_TRANSPOSING && D == 256));
    static_assert(SMEM_BYTES <= SMEM_MAX, "shared memory of one block");

    static_assert(D == 64 || D == 128 || D == 256, "head dim");
    static_assert(BN % 32 == 0 && BN <= 256, "BN: a multiple of 32 (one P.V k-step), at most 256");
    static_assert(STAGES >= 2, "at least two stages");
    static_assert(CONSUMERS == 2 || CONSUMERS == 3, "2 or 3 consumer warpgroups");
    static_assert(BM <= 256, "a TMA box has at most 256 rows");
    static_assert(Q_BYTES % 1024 == 0 && KV_BYTES % 1024 == 0, "1024-byte aligned tiles");
};

/* Everything a kernel reads, in one flat struct passed by value as a __grid_constant__ parameter
 * (the tensor maps must live in parameter/constant space for TMA). Built on the host per call by
 * tensor_maps.cu from fp8attn_params_t. */
struct wgmma_params {
    CUtensorMap tm_q; /* [batch][h_q][seqlen_q][D] E4M3, box (SW_D, BM) */
    CUtensorMap tm_k; /* [batch][h_kv][seqlen_k][D], box (SW_D, BN) */
    CUtensorMap tm_v; /* same for V */
    CUtensorMap tm_vt; /* "_vt" kernels: V^T in the workspace, [batch][h_kv][D][SKP], box (SW_N, D) */
    CUtensorMap tm_o;  /* O_SMEM kernels: O, 16-bit elements, box (64, O_BOX_ROWS): one column
                        * block of one warp's rows (O_FITS) or one consumer's (O_IN_RING) */
    int32_t batch, h_q, h_kv, seqlen_q, seqlen_k;
    int32_t heads_per_kv; /* h_q / h_kv */
    int32_t causal, out_bf16;
    int32_t n_q_tiles; /* ceil(seqlen_q / BM) */
    int32_t q_off;     /* query tile qt's rows start at qt * BM - q_off (scheduler.cuh) */
    int32_t n_units;   /* work units (scheduler.cuh); block i takes units i, i + gridDim.x, ... */
    int32_t walk;      /* FP8ATTN_WGMMA_WALK_*: tiles, pairs, snake or dynamic (wgmma_host.h,
                        * scheduler.cuh) */
    int32_t pairs_per_head; /* walk PAIRS: the pairs a head runs as units; else 0 */
    /* unit_tile's divisors as multiply-shifts (kernels/fastdiv.h): n_q_tiles, pairs_per_head
     * (1 where no pairs run), h_q * batch, h_q, heads_per_kv, and the grid (walk SNAKE; else 1) */
    fp8attn_fastdiv_t div_q_tiles, div_pairs, div_heads, div_h_q, div_per_kv, div_grid;
    float scale_log2;  /* softmax_scale * log2(e) */
    void *o;           /* uint16_t elements */
    float *lse;        /* NULL: not written */
    fp8attn_strides_t o_stride;
    fp8attn_descale_t q_descale, k_descale, v_descale;
    /* walk DYNAMIC (the kernels with DYNAMIC_WALK; last, so the other kernels' parameter
     * offsets stay put): the h_q * batch heads run in L2 sections of sec_heads (the last may
     * have fewer), a full section's units sec_units = sec_heads * n_q_tiles; their divisors (1
     * on the other walks); the counter of units taken after the first grid's, in the workspace
     * for the _vt kernels (zeroed by the counters' clear, or in WGMMA_FUSED_VT=0 builds by the
     * V^T pass), in 4 bytes of O for the transposing kernels (zeroed by a memset before the
     * launch: kernel.cuh, scheduler.cuh hand_next) */
    int32_t sec_heads, sec_units;
    fp8attn_fastdiv_t div_sec_units, div_sec_heads, div_last_heads;
    int32_t *tile_counter;
    /* FUSED_VT kernels (vt_background.cuh): V^T is written in chunks of VT_CHUNK keys of one kv
     * head, vt_chunks in all, vt_chunks_per_head per (batch, kv head) pair, taken in order from
     * vt_chunk_counter; vt_ready[b * h_kv + hk] counts the chunks of that pair written. Both in
     * the workspace, zeroed before the launch. tm_v's box is then VT_CHUNK rows (the kernel reads
     * no V tile), and tm_vt_store is V^T in the workspace with a box of VT_CHUNK keys x D rows. */
    int32_t *vt_chunk_counter, *vt_ready;
    int32_t vt_chunks, vt_chunks_per_head;
    fp8attn_fastdiv_t div_vt_chunks, div_h_kv; /* vt_chunks_per_head, h_kv */
    CUtensorMap tm_vt_store;
    /* The split tail (C::SPLIT_TAIL kernels, split.cuh; split_units0 = n_units where none):
     * units from split_units0 on are the tail's segments, two per block (unit split_units0 +
     * s grid + b: block b's s-th); the tail is the plan's last-round query tiles (the tiles
     * walk's units split_units0 on) of split_nk key tiles each, and their split_w key tiles go
     * to the blocks in even ranges (block b's: [b W / grid, (b + 1) W / grid), W = split_w).
     * split_part: each segment's partial O, row maximum and row sums (slot 2 b + s), and
     * split_count: per split tile and consumer warp, the segments done; both in the workspace,
     * the counts zeroed with the other counters (a transposing kernel's split: alone). The plan
     * keeps grid * split_w below 2^31, so the ranges take 32-bit multiply-shift divisions: by
     * the grid (div_grid), split_w and split_nk. */
    int32_t split_units0, split_nk, split_w;
    fp8attn_fastdiv_t div_split_w, div_split_nk;
    /* > 0: the tail is split_heads whole heads, its tiles taken query tile by query tile
     * (scheduler.cuh unit_tile); 0: in the tiles walk's order */
    int32_t split_heads;
    fp8attn_fastdiv_t div_split_heads;
    float *split_part;
    int32_t *split_count;
};

#endif
