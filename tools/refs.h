/* The two host references, run in parallel: the library's CPU backend on the FP8 inputs, and
 * full-precision (double) attention on the unquantized float inputs. */
#ifndef FP8ATTN_TOOL_REFS_H
#define FP8ATTN_TOOL_REFS_H

#include "common.h"
#include "fp8attn.h"

/* Threads the references use for `n_items` sub-problems: min(nproc, 16, n_items), >= 1. */
int refs_thread_count(int n_items);

/* fp8attn_forward_cpu on p (host memory), split into one sub-problem per (batch, kv head) --
 * a strided view with the h_q / h_kv query heads that share that kv head -- run over
 * refs_thread_count threads. Writes exactly what one fp8attn_forward_cpu(p) call would.
 * Returns the first failure's status with its message in err. */
fp8attn_status_t cpu_forward_parallel(const fp8attn_params_t *p, char *err);

/* Attention computed in double on real-valued float inputs q, k, v laid out with p's strides,
 * with p's shape, mask and softmax scale (p's codes and descales are not used). out holds
 * double elements laid out with p->o_stride; rows that see no key get 0. Split and threaded
 * like cpu_forward_parallel. Returns 0, or -1 with a message in err. */
int fp64_attention_parallel(const fp8attn_params_t *p, const float *q, const float *k,
                            const float *v, double *out, char *err);

#endif
