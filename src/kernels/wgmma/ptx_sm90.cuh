/* Hopper (sm_90a) instructions the wgmma family uses that have no CUDA C intrinsic, each in a small
 * named function: what it does, and where the PTX ISA (8.x, sm_90) documents it. The generated
 * wgmma.mma_async wrappers are in wgmma_ops.cuh. */
#ifndef FP8ATTN_WGMMA_PTX_SM90_CUH
#define FP8ATTN_WGMMA_PTX_SM90_CUH

#include <cuda.h> /* CUtensorMap (a type only: nothing links libcuda) */
#include <stdint.h>

#include "../ptx.cuh"

/* ---- mbarrier: 64-bit shared-memory barriers that count arrivals and (TMA) transaction bytes;
 * a phase completes when both pending counts reach zero. PTX ISA: "Parallel Synchronization and
 * Communication Instructions: mbarrier". */

/* mbarrier.init.shared::cta.b64 [bar], count: expected arrivals per phase. */
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* fence.mbarrier_init.release.cluster: makes the initialised barriers visible to the other
 * threads and to the async proxy (TMA) before they are used. PTX ISA: "membar/fence". */
__device__ __forceinline__ void fence_mbarrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* mbarrier.arrive.shared::cta.b64 _, [bar]: one arrival (release semantics, CTA scope). */
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes: one arrival, and `bytes` more
 * transaction bytes that the phase must see (the TMA copies signal them). */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* elect.sync _|p, 0xffffffff: true in one lane of the warp (all 32 lanes must execute it), false
 * in the others; the choice is warp-uniform knowledge for the compiler. PTX ISA: "elect.sync". */
__device__ __forceinline__ bool elect_one()
{
    uint32_t e;
    asm volatile("{\n.reg .pred P;\nelect.sync _|P, 0xffffffff;\nselp.u32 %0, 1, 0, P;\n}\n"
                 : "=r"(e));
    return e != 0;
}

/* mbarrier.try_wait.parity.shared::cta.b64: waits until the phase with parity `parity` has
 * completed (acquire semantics). A fresh barrier counts as having completed the phase before
 * phase 0, so waiting on parity 1 returns at once (how producers start on empty buffers). */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

/* mbarrier.test_wait.parity: 1 if the phase of the given parity has completed, else 0; never
 * blocks (PTX ISA: "mbarrier.test_wait/mbarrier.try_wait"). Like try_wait, a completed test
 * acquires: the memory the phase released is visible to this thread's later reads. */
__device__ __forceinline__ uint32_t mbar_test(uint32_t bar, uint32_t parity)
{
    uint32_t r;
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "mbarrier.test_wait.parity.shared::cta.b64 done, [%1], %2;\n"
        "selp.u32 %0, 1, 0, done;\n"
        "}\n"
        : "=r"(r)
        : "r"(bar), "r"(parity)
        : "memory");
    return r;
}

/* ---- Programmatic dependent launch (PTX ISA: "griddepcontrol"; CUDA: "Programmatic Dependent
 * Launch"). A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may start
 * while the kernel before it in the stream still runs. */

/* griddepcontrol.wait: waits until the grids this one depends on have completed and their
 * memory operations are visible (returns at once in a grid launched without the attribute). */
__device__ __forceinline__ void griddep_wait()
{
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

/* griddepcontrol.launch_dependents: this block no longer holds back the launch of the grid that
 * depends on this one (it still waits for this grid's completion with griddep_wait). */
__device__ __forceinline__ void griddep_launch_dependents()
{
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

/* st.shared.u32 / ld.shared.u32 (volatile: ordered by the mbarriers around them, never cached
 * in a register): the dynamic walk's unit slots (scheduler.cuh). PTX ISA: "st", "ld". */
__device__ __forceinline__ void st_shared_u32(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_shared_u32(uint32_t addr)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

/* ---- TMA (the bulk tensor copy engine). PTX ISA: "Data Movement and Conversion Instructions:
 * cp.async.bulk.tensor". */

/* cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: copies the box
 * of `map` whose first element is at coordinates (c0, c1, c2, c3) (innermost first) into shared
 * memory at dst, in the map's swizzled layout; elements outside the tensor are written as zeros
 * and nothing outside it is read. Completion is signalled on `bar` as transaction bytes (the
 * whole box, zero-filled part included). */
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                            int c0, int c1, int c2, int c3)
{
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
        "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
        : "memory");
}

/* prefetch.tensormap [map]: brings a tensor map (a __grid_constant__ kernel parameter) into the
 * descriptor cache ahead of the first copy that uses it. PTX ISA: "prefetch". */
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

/* cp.async.bulk.tensor.4d.global.shared::cta.bulk_group: TMA store of one box from shared
 * memory (laid out as the map's swizzle says) to the tensor at coordinates (c0..c3); elements
 * out of the tensor's bounds are not written. Completion is tracked per issuing thread by bulk
 * groups (commit / wait below). PTX ISA: "cp.async.bulk.tensor". */
__device__ __forceinline__ void tma_store_4d(const CUtensorMap *map, uint32_t src, int c0, int c1,
                                             int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group"
                 " [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"((uint64_t)map),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

/* cp.async.bulk.commit_group: closes this thread's bulk group of the stores issued so far.
 * PTX ISA: "cp.async.bulk.commit_group". */
__device__ __forceinline__ void bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* cp.async.bulk.wait_group.read 0: this thread's bulk stores have all read their shared-memory
 * source (it may be overwritten); the global writes may still be in flight.
 * PTX ISA: "cp.async.bulk.wait_group". */
__device__ __forceinline__ void bulk_wait_read_all()
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/* cp.async.bulk.wait_group 0: this thread's bulk stores are complete, global writes included.
 * PTX ISA: "cp.async.bulk.wait_group". */
__device__ __forceinline__ void bulk_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/* st.shared.v4.b32: 16 bytes to shared memory. */
__device__ __forceinline__ void st_shared_v4(uint32_t addr, uint32_t a, uint32_t b, uint32_t c,
                                             uint32_t d)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c),
                 "r"(d)
                 : "memory");
}

/* fence.proxy.async.shared::cta: orders this thread's ordinary (generic proxy) shared-memory
 * writes before later accesses through the async proxy (wgmma operand reads, TMA). Needed after
 * writing a wgmma operand with st.shared/stmatrix, before the barrier that hands it over.
 * PTX ISA: "membar/fence" (proxy fences). */
__device__ __forceinline__ void fence_proxy_async_smem()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* fence.proxy.async.global: the same between the generic and the async proxy for global memory.
 * Orders a TMA store's completed global writes (bulk_wait_all) before this thread's release of a
 * flag, and an acquired flag before this thread's later TMA loads of what it guards
 * (vt_background.cuh). PTX ISA: "membar/fence" (proxy fences). */
__device__ __forceinline__ void fence_proxy_async_global()
{
    asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

/* ---- flags between blocks. PTX ISA: "red", "ld" (memory consistency model: release and
 * acquire at gpu scope). */

/* red.release.gpu.global.add.s32 [addr], v: adds v; this thread's earlier writes are visible to
 * any thread that acquires the sum. */
__device__ __forceinline__ void red_release_add(int32_t *addr, int32_t v)
{
    asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(addr), "r"(v) : "memory");
}

/* ld.acquire.gpu.global.s32: reads a flag; what its writers released before it is visible to this
 * thread's later reads. */
__device__ __forceinline__ int32_t ld_acquire(const int32_t *addr)
{
    int32_t v;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

/* ---- warpgroup register reallocation. PTX ISA: "setmaxnreg" (sm_90a). Every warp of the
 * warpgroup executes it; the kernel needs a register cap at entry (__launch_bounds__(T, 1)). */

/* setmaxnreg.dec.sync.aligned.u32 N: releases registers down to N per thread. */
template <int N>
__device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* setmaxnreg.inc.sync.aligned.u32 N: requests registers up to N per thread (blocks until the
 * pool has them). */
template <int N>
__device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* ---- named barriers. PTX ISA: "bar.sync / bar.arrive" (barrier.cta). */

/* bar.sync id, count: waits until `count` threads (a multiple of 32) have arrived at barrier id. */
__device__ __forceinline__ void named_bar_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

/* bar.arrive id, count: arrives at barrier id without waiting. */
__device__ __forceinline__ void named_bar_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

/* ---- stmatrix.sync.aligned.m8n8.x4.shared.b16 [addr], {r0..r3}: the warp stores four 8x8
 * matrices of 16-bit elements (8 rows of 16 bytes each); lane i gives the address of row i%8 of
 * matrix i/8, and r[m] of lane (g = lane/4, t = lane%4) holds elements (row g, columns 2t, 2t+1)
 * of matrix m, i.e. bytes 4t..4t+3 of that 16-byte row. The inverse of ldmatrix without .trans.
 * PTX ISA: "stmatrix" (sm_90). */
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

/* ---- wgmma bookkeeping. PTX ISA: "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
 * Instructions" (wgmma.fence, wgmma.commit_group, wgmma.wait_group). */

/* wgmma.fence.sync.aligned: orders the warpgroup's earlier register and shared-memory accesses
 * before the following wgmma.mma_async reads them (needed before the first wgmma of a batch
 * whose accumulator or A registers other instructions wrote). */
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

/* wgmma.commit_group.sync.aligned: closes the batch of wgmma.mma_async issued so far. */
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

/* wgmma.wait_group.sync.aligned N: waits until at most N committed batches are in flight. */
template <int N>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* An empty asm that claims to read and write each register of an accumulator (or A fragment):
 * the compiler may then neither move its reads/writes across this point nor reuse its registers
 * while a wgmma that uses them is in flight. Used right after wgmma_wait and before wgmma_fence. */
template <int N>
__device__ __forceinline__ void reg_fence(float (&r)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N, int M>
__device__ __forceinline__ void reg_fence(uint32_t (&r)[N][M])
{
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int j = 0; j < M; j++) asm volatile("" : "+r"(r[i][j])::"memory");
}

#endif
