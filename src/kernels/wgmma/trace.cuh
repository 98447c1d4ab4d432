/* Diagnostics, compiled only into builds with -DWGMMA_TRACE=1 (CMake:
 * -DFP8ATTN_WGMMA_FLAGS=-DWGMMA_TRACE=1): SM clock stamps at the phases of the consumers' key-tile
 * loop (mainloop.cuh), for thread 0 of each consumer warpgroup of the first TRACE_BLOCKS blocks,
 * printed by a one-thread kernel launched after each traced call. Run one call (bench --iters 1
 * --warmup 1) and read the phases as differences of stamps; the dump's printf makes timed runs of
 * a traced build meaningless. The stamps' stores keep ptxas from hoisting wgmma.wait_group 0, so
 * a traced kernel runs that wait after the softmax (docs/PERF.md w16). In the kernels that write
 * V^T in the background (FUSED_VT) it also stamps the background warps' first chunks (BGTRACE:
 * take, load landed, transposed, released) and the loader's start-up (LDTRACE: before and after
 * griddep_wait, before and after its first wait_vt_ready; docs/PERF.md w60). Off by default:
 * nothing here reaches the kernels. */
#ifndef FP8ATTN_WGMMA_TRACE_CUH
#define FP8ATTN_WGMMA_TRACE_CUH

#include <stdint.h>
#include <stdio.h>

#ifndef WGMMA_TRACE
#define WGMMA_TRACE 0
#endif

#define TRACE_BLOCKS 2
#define TRACE_TILES 40
#define TRACE_POINTS 6

#define TRACE_QTILES 10
#define TRACE_QPOINTS 4

#define TRACE_CHUNKS 8

#if WGMMA_TRACE
static __device__ uint64_t g_wg_trace[TRACE_BLOCKS][3][TRACE_TILES][TRACE_POINTS];
static __device__ uint64_t g_wg_trace_q[TRACE_BLOCKS][3][TRACE_QTILES][TRACE_QPOINTS];
/* FUSED_VT's background warps: per chunk taken, lane 0's clock at take, load landed, transposed,
 * released; and the chunk's index */
static __device__ uint64_t g_wg_trace_bg[TRACE_BLOCKS][2][TRACE_CHUNKS][5];
/* the loader (thread 0; from point 2 the loading warp's issuing lane): before and after
 * griddep_wait, before and after its first wait_vt_ready */
static __device__ uint64_t g_wg_trace_ld[TRACE_BLOCKS][4];
#endif

#if WGMMA_TRACE
/* The SM clock into *slot, for thread 0 of a warpgroup (wtid) of the first TRACE_BLOCKS blocks. */
__device__ __forceinline__ void trace_store(int wtid, bool in_range, uint64_t *slot)
{
    if (wtid == 0 && blockIdx.x < TRACE_BLOCKS && in_range) {
        uint64_t t;
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
        *slot = t;
    }
}
#endif

/* Stamp `point` of key tile `tile` (the block's count, across its query tiles). */
__device__ __forceinline__ void trace_stamp(int c, int wtid, int tile, int point)
{
#if WGMMA_TRACE
    trace_store(wtid, tile < TRACE_TILES,
                &g_wg_trace[blockIdx.x % TRACE_BLOCKS][c][tile % TRACE_TILES][point]);
#else
    (void)c, (void)wtid, (void)tile, (void)point;
#endif
}

/* FUSED_VT background warp w (lane 0), its n-th chunk: `point` (4: the chunk's index c). A take
 * that found no chunk left is stamped too: its row shows c >= vt_chunks and no later points. */
__device__ __forceinline__ void trace_bg(int w, int lane, int n, int point, int c)
{
#if WGMMA_TRACE
    const bool in_range = n < TRACE_CHUNKS && w < 2;
    uint64_t *row = g_wg_trace_bg[blockIdx.x % TRACE_BLOCKS][w & 1][n % TRACE_CHUNKS];
    trace_store(lane, in_range, &row[point]);
    if (lane == 0 && blockIdx.x < TRACE_BLOCKS && in_range) row[4] = (uint64_t)c;
#else
    (void)w, (void)lane, (void)n, (void)point, (void)c;
#endif
}

/* The loader's stamps (tid 0 only: pass 0 from the one thread or lane that stamps) */
__device__ __forceinline__ void trace_ld(int tid, int point)
{
#if WGMMA_TRACE
    trace_store(tid, true, &g_wg_trace_ld[blockIdx.x % TRACE_BLOCKS][point]);
#else
    (void)tid, (void)point;
#endif
}

/* Stamp `point` of the block's query tile `qtile` (0: start, 1: Q landed, 2: epilogue start,
 * 3: epilogue end). */
__device__ __forceinline__ void trace_tile(int c, int wtid, int qtile, int point)
{
#if WGMMA_TRACE
    trace_store(wtid, qtile < TRACE_QTILES,
                &g_wg_trace_q[blockIdx.x % TRACE_BLOCKS][c][qtile % TRACE_QTILES][point]);
#else
    (void)c, (void)wtid, (void)qtile, (void)point;
#endif
}

/* One line per traced tile: block, consumer, tile, then each point's clock relative to point 0
 * of the first traced tile (1) of consumer 0. A kernel of its own, launched after the traced one by the
 * host launcher (kernel.cuh): a printf inside the traced kernel would make ptxas serialise its
 * wgmmas (C7510). */
#if WGMMA_TRACE
static __global__ void wgmma_trace_dump(int consumers)
{
    for (int b = 0; b < TRACE_BLOCKS; b++)
        for (int c = 0; c < 3; c++) /* c = 2 of a two-consumer kernel: its first transposer */
            for (int j = 1; j < TRACE_TILES; j++) {
                const uint64_t t0 = g_wg_trace[b][0][1][0], *s = g_wg_trace[b][c][j];
                if (s[0] == 0) continue;
                printf("TRACE b%d c%d j%d %lld %lld %lld %lld %lld %lld\n", b, c, j,
                       (long long)(s[0] - t0), (long long)(s[1] - t0), (long long)(s[2] - t0),
                       (long long)(s[3] - t0), (long long)(s[4] - t0), (long long)(s[5] - t0));
            }
    for (int b = 0; b < TRACE_BLOCKS; b++)
        for (int c = 0; c < consumers; c++)
            for (int q = 0; q < TRACE_QTILES; q++) {
                const uint64_t t0 = g_wg_trace[b][0][1][0], *s = g_wg_trace_q[b][c][q];
                if (s[0] == 0) continue;
                printf("QTRACE b%d c%d q%d %lld %lld %lld %lld\n", b, c, q, (long long)(s[0] - t0),
                       (long long)(s[1] - t0), (long long)(s[2] - t0), (long long)(s[3] - t0));
            }
    for (int b = 0; b < TRACE_BLOCKS; b++) {
        const uint64_t t0 = g_wg_trace[b][0][1][0], *l = g_wg_trace_ld[b];
        if (l[0] != 0)
            printf("LDTRACE b%d %lld %lld %lld %lld\n", b, (long long)(l[0] - t0), (long long)(l[1] - t0),
                   (long long)(l[2] - t0), (long long)(l[3] - t0));
        for (int w = 0; w < 2; w++)
            for (int n = 0; n < TRACE_CHUNKS; n++) {
                const uint64_t *s = g_wg_trace_bg[b][w][n];
                if (s[0] == 0) continue;
                printf("BGTRACE b%d w%d n%d c%lld %lld %lld %lld %lld\n", b, w, n, (long long)s[4],
                       (long long)(s[0] - t0), (long long)(s[1] - t0), (long long)(s[2] - t0),
                       (long long)(s[3] - t0));
            }
    }
}
#endif

#endif
