/* Status strings, the thread-local last-error message, version and params defaults. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define FP8ATTN_STR2(x) #x
#define FP8ATTN_STR(x) FP8ATTN_STR2(x)

/* One message per thread: no global mutable state shared between threads. */
static __thread char g_last_error[512];

const char *fp8attn_version(void)
{
    return FP8ATTN_STR(FP8ATTN_VERSION_MAJOR) "." FP8ATTN_STR(FP8ATTN_VERSION_MINOR) "." FP8ATTN_STR(
        FP8ATTN_VERSION_PATCH);
}

const char *fp8attn_status_string(fp8attn_status_t status)
{
    switch (status) {
    case FP8ATTN_OK: return "FP8ATTN_OK: success";
    case FP8ATTN_ERR_NULL_POINTER: return "FP8ATTN_ERR_NULL_POINTER: a required pointer is NULL";
    case FP8ATTN_ERR_INVALID_SIZE: return "FP8ATTN_ERR_INVALID_SIZE: a size is out of range";
    case FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM:
        return "FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM: head_dim must be 64, 128 or 256";
    case FP8ATTN_ERR_HEAD_RATIO: return "FP8ATTN_ERR_HEAD_RATIO: h_q must be a multiple of h_kv";
    case FP8ATTN_ERR_INVALID_STRIDE: return "FP8ATTN_ERR_INVALID_STRIDE: unusable strides or misaligned pointers";
    case FP8ATTN_ERR_OVERLAP: return "FP8ATTN_ERR_OVERLAP: an output overlaps another tensor";
    case FP8ATTN_ERR_INVALID_DESCALE: return "FP8ATTN_ERR_INVALID_DESCALE: unusable descale";
    case FP8ATTN_ERR_INVALID_SCALE: return "FP8ATTN_ERR_INVALID_SCALE: unusable softmax_scale";
    case FP8ATTN_ERR_INVALID_FORMAT: return "FP8ATTN_ERR_INVALID_FORMAT: unknown format or type";
    case FP8ATTN_ERR_TOO_LARGE: return "FP8ATTN_ERR_TOO_LARGE: offsets do not fit in 64 bits";
    case FP8ATTN_ERR_NOT_SUPPORTED: return "FP8ATTN_ERR_NOT_SUPPORTED: not supported here";
    case FP8ATTN_ERR_CUDA: return "FP8ATTN_ERR_CUDA: a CUDA call failed";
    case FP8ATTN_ERR_OUT_OF_MEMORY: return "FP8ATTN_ERR_OUT_OF_MEMORY: host allocation failed";
    case FP8ATTN_ERR_INVALID_ARGUMENT: return "FP8ATTN_ERR_INVALID_ARGUMENT: invalid argument";
    }
    return "unknown fp8attn status";
}

const char *fp8attn_last_error(void) { return g_last_error; }

fp8attn_status_t fp8attn_fail(fp8attn_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_last_error, sizeof g_last_error, fmt, ap);
    va_end(ap);
    return status;
}

void fp8attn_params_init(fp8attn_params_t *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->in_format = FP8ATTN_FORMAT_E4M3;
    p->out_type = FP8ATTN_OUT_FP16;
    p->softmax_scale = 0.0f;
    p->causal = 0;
}

fp8attn_strides_t fp8attn_strides_bhsd(int32_t heads, int32_t seqlen, int32_t head_dim)
{
    fp8attn_strides_t s;
    s.token = head_dim;
    s.head = (int64_t)seqlen * head_dim;
    s.batch = (int64_t)heads * seqlen * head_dim;
    return s;
}

fp8attn_strides_t fp8attn_strides_bshd(int32_t heads, int32_t seqlen, int32_t head_dim)
{
    fp8attn_strides_t s;
    s.head = head_dim;
    s.token = (int64_t)heads * head_dim;
    s.batch = (int64_t)seqlen * heads * head_dim;
    return s;
}

float fp8attn_effective_scale(const fp8attn_params_t *p)
{
    if (!p) return 0.0f;
    if (p->softmax_scale != 0.0f) return p->softmax_scale;
    return p->head_dim > 0 ? (float)(1.0 / sqrt((double)p->head_dim)) : 0.0f;
}
