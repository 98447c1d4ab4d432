/* Device side of check and bench: device detection, problem buffers, runs, the L2 flush. */
#ifndef FP8ATTN_TOOL_GPU_H
#define FP8ATTN_TOOL_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "fp8attn.h"
#include "problem.h"

/* 1 if a CUDA device is usable; else 0 with the reason in why (ERR_LEN bytes). */
int gpu_present(char *why);
/* "NAME (sm_XY)" of the current device. */
void gpu_describe(char *buf, size_t n);
/* Current device index (0 if it cannot be read). */
int gpu_current_device(void);

/* A problem's inputs and outputs in device memory; `p` is the problem's params with the device
 * pointers. */
typedef struct {
    void *in[3];       /* Q, K, V codes */
    void *descale[3];
    void *o, *lse;
    void *ws;        /* workspace for fp8attn_forward_ws (NULL: none) */
    size_t ws_bytes;
    fp8attn_params_t p;
} gpu_problem_t;

/* Copies the problem's codes and descales to the device and allocates O (and the LSE) and, with
 * use_workspace, the largest workspace the default variant or wgmma would use for it.
 * Returns 0, or -1 with the failing CUDA call and error string in err (nothing left allocated). */
int gpu_problem_upload(gpu_problem_t *g, const problem_t *pr, int use_workspace, char *err);
void gpu_problem_free(gpu_problem_t *g);
/* Fills O with 0xFF bytes (NaN in FP16 and BF16), the LSE with NaN and the workspace with 0xFF
 * (NaN codes), on stream s. */
int gpu_poison_outputs(const gpu_problem_t *g, const problem_t *pr, cudaStream_t s, char *err);
/* Synchronous copy of O (and the LSE) into o_host / lse_host. */
int gpu_download_outputs(const gpu_problem_t *g, const problem_t *pr, uint16_t *o_host,
                         float *lse_host, char *err);

/* fp8attn_forward_ws on s with g's workspace (variant NULL = the default); checks the returned
 * status and cudaGetLastError, does not synchronise. */
int gpu_forward(const gpu_problem_t *g, const char *variant, cudaStream_t s, char *err);
/* cudaGetLastError then cudaStreamSynchronize(s). */
int gpu_sync(cudaStream_t s, char *err);

/* A device buffer of at least twice the L2 size; writing it evicts earlier data from L2. */
typedef struct {
    void *buf;
    size_t bytes;
} l2_flush_t;

int l2_flush_init(l2_flush_t *f, char *err);
/* cudaMemsetAsync over the whole buffer (value varies with iter). */
int l2_flush(const l2_flush_t *f, cudaStream_t s, int iter, char *err);
void l2_flush_free(l2_flush_t *f);

/* 0 if e is cudaSuccess; else -1 with "what: error string (error name)" in err. */
int cuda_ok(cudaError_t e, const char *what, char *err);

#endif
