/* Device side of check and bench: device detection, problem buffers, runs, the L2 flush. */
#include <stdio.h>
#include <string.h>

#include "gpu.h"

int cuda_ok(cudaError_t e, const char *what, char *err)
{
    if (e == cudaSuccess) return 0;
    snprintf(err, ERR_LEN, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
}

int gpu_present(char *why)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, ERR_LEN, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return 0;
    }
    if (count < 1) {
        snprintf(why, ERR_LEN, "cudaGetDeviceCount reports %d devices", count);
        return 0;
    }
    return 1;
}

int gpu_current_device(void)
{
    int device = 0;
    return cudaGetDevice(&device) == cudaSuccess ? device : 0;
}

void gpu_describe(char *buf, size_t n)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, gpu_current_device()) != cudaSuccess) {
        snprintf(buf, n, "unknown device");
        return;
    }
    snprintf(buf, n, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
}

/* ---- problem buffers ---- */

static size_t in_bytes(const problem_t *pr, int t) { return pr->elems[t]; }
static size_t o_bytes(const problem_t *pr) { return pr->o_elems * sizeof(uint16_t); }
static size_t lse_bytes(const problem_t *pr) { return pr->lse_elems * sizeof(float); }

static int upload(void **dst, const void *src, size_t bytes, const char *what, char *err)
{
    char call[64];
    snprintf(call, sizeof call, "cudaMalloc(%s, %zu bytes)", what, bytes);
    if (cuda_ok(cudaMalloc(dst, bytes), call, err)) {
        *dst = NULL;
        return -1;
    }
    snprintf(call, sizeof call, "cudaMemcpy(%s)", what);
    return cuda_ok(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), call, err);
}

static void point_device_params(gpu_problem_t *g, const problem_t *pr)
{
    fp8attn_params_t *p = &g->p;
    *p = pr->p;
    p->q = g->in[TQ];
    p->k = g->in[TK];
    p->v = g->in[TV];
    p->q_descale.ptr = g->descale[TQ];
    p->k_descale.ptr = g->descale[TK];
    p->v_descale.ptr = g->descale[TV];
    p->o = g->o;
    p->lse = g->lse;
}

/* The largest workspace fp8attn_forward_ws would use for p with the default or any variant (a
 * variant that cannot run p asks for none). */
static size_t workspace_bytes(const fp8attn_params_t *p)
{
    size_t most = 0, n;
    int i;
    for (i = -1; i < fp8attn_variant_count(); i++)
        if (fp8attn_forward_workspace_size(p, i < 0 ? NULL : fp8attn_variant_name(i), &n) ==
                FP8ATTN_OK &&
            n > most)
            most = n;
    return most;
}

int gpu_problem_upload(gpu_problem_t *g, const problem_t *pr, int use_workspace, char *err)
{
    static const char *const names[3] = {"Q", "K", "V"};
    static const char *const ds_names[3] = {"Q descale", "K descale", "V descale"};
    int t;
    memset(g, 0, sizeof *g);
    for (t = 0; t < 3; t++)
        if (upload(&g->in[t], pr->codes[t], in_bytes(pr, t), names[t], err) ||
            upload(&g->descale[t], pr->descale[t], pr->n_descale[t] * sizeof(float), ds_names[t],
                   err))
            goto fail;
    if (cuda_ok(cudaMalloc(&g->o, o_bytes(pr)), "cudaMalloc(O)", err)) goto fail;
    if (pr->lse_elems && cuda_ok(cudaMalloc(&g->lse, lse_bytes(pr)), "cudaMalloc(LSE)", err))
        goto fail;
    /* A pageable cudaMemcpy may return before its DMA lands, and the runs use non-blocking
     * streams that do not wait for the legacy stream. */
    if (cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize(after uploads)", err)) goto fail;
    point_device_params(g, pr);
    if (use_workspace && (g->ws_bytes = workspace_bytes(&g->p)) > 0 &&
        cuda_ok(cudaMalloc(&g->ws, g->ws_bytes), "cudaMalloc(workspace)", err))
        goto fail;
    return 0;
fail:
    gpu_problem_free(g);
    return -1;
}

void gpu_problem_free(gpu_problem_t *g)
{
    int t;
    /* cudaFree(NULL) is a no-op; errors here cannot be acted upon (a sticky error from an
     * earlier kernel is reported where it happened). */
    for (t = 0; t < 3; t++) {
        cudaFree(g->in[t]);
        cudaFree(g->descale[t]);
    }
    cudaFree(g->o);
    cudaFree(g->lse);
    cudaFree(g->ws);
    memset(g, 0, sizeof *g);
}

int gpu_poison_outputs(const gpu_problem_t *g, const problem_t *pr, cudaStream_t s, char *err)
{
    if (cuda_ok(cudaMemsetAsync(g->o, 0xFF, o_bytes(pr), s), "cudaMemsetAsync(O poison)", err))
        return -1;
    if (g->lse && cuda_ok(cudaMemsetAsync(g->lse, 0xFF, lse_bytes(pr), s),
                          "cudaMemsetAsync(LSE poison)", err)) /* 0xFFFFFFFF is a NaN */
        return -1;
    if (g->ws && cuda_ok(cudaMemsetAsync(g->ws, 0xFF, g->ws_bytes, s),
                         "cudaMemsetAsync(workspace poison)", err)) /* 0xFF is an E4M3 NaN */
        return -1;
    return 0;
}

int gpu_download_outputs(const gpu_problem_t *g, const problem_t *pr, uint16_t *o_host,
                         float *lse_host, char *err)
{
    if (cuda_ok(cudaMemcpy(o_host, g->o, o_bytes(pr), cudaMemcpyDeviceToHost), "cudaMemcpy(O)",
                err))
        return -1;
    if (g->lse && cuda_ok(cudaMemcpy(lse_host, g->lse, lse_bytes(pr), cudaMemcpyDeviceToHost),
                          "cudaMemcpy(LSE)", err))
        return -1;
    return 0;
}

/* ---- runs ---- */

int gpu_forward(const gpu_problem_t *g, const char *variant, cudaStream_t s, char *err)
{
    fp8attn_status_t st = fp8attn_forward_ws(&g->p, variant, g->ws, g->ws_bytes, s);
    if (st != FP8ATTN_OK) {
        snprintf(err, ERR_LEN, "fp8attn_forward_ws(%s): %s", variant ? variant : "default",
                 fp8attn_last_error());
        return -1;
    }
    return cuda_ok(cudaGetLastError(), "after fp8attn_forward_ws: cudaGetLastError", err);
}

int gpu_sync(cudaStream_t s, char *err)
{
    if (cuda_ok(cudaGetLastError(), "cudaGetLastError", err)) return -1;
    return cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize", err);
}

/* ---- L2 flush ---- */

int l2_flush_init(l2_flush_t *f, char *err)
{
    int l2 = 0;
    memset(f, 0, sizeof *f);
    if (cuda_ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, gpu_current_device()),
                "cudaDeviceGetAttribute(L2 size)", err))
        return -1;
    f->bytes = 2 * (size_t)(l2 > 0 ? l2 : 1 << 20);
    if (cuda_ok(cudaMalloc(&f->buf, f->bytes), "cudaMalloc(L2 flush buffer)", err)) {
        f->buf = NULL;
        return -1;
    }
    return 0;
}

int l2_flush(const l2_flush_t *f, cudaStream_t s, int iter, char *err)
{
    return cuda_ok(cudaMemsetAsync(f->buf, iter & 0xFF, f->bytes, s), "cudaMemsetAsync(L2 flush)",
                   err);
}

void l2_flush_free(l2_flush_t *f)
{
    cudaFree(f->buf);
    memset(f, 0, sizeof *f);
}
