/* Library-internal helpers shared by the host sources. Not installed. */
#ifndef FP8ATTN_INTERNAL_H
#define FP8ATTN_INTERNAL_H

#include <stdint.h>

#include "fp8attn.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FP8ATTN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FP8ATTN_PRINTF(a, b)
#endif

/* Records `fmt` as the calling thread's last error and returns `status` (for `return fail(...)`). */
fp8attn_status_t fp8attn_fail(fp8attn_status_t status, const char *fmt, ...) FP8ATTN_PRINTF(2, 3);

/* Largest finite value of an FP8 format (448 or 57344). */
float fp8attn_format_max(fp8attn_format_t format);
/* Decode one code of `format`. */
float fp8attn_decode(fp8attn_format_t format, uint8_t code);
/* Encode x in `format` (fp8attn_float_to_e4m3 or fp8attn_float_to_e5m2). */
uint8_t fp8attn_encode(fp8attn_format_t format, float x);
/* A double to FP16 / BF16 bits, correctly rounded once (nearest, ties to even) straight from the
 * double; overflow and +-inf give +-inf; NaN gives a quiet NaN of the same sign. Same rounding
 * routine as the float conversions of codec.c. */
uint16_t fp8attn_double_to_fp16(double x);
uint16_t fp8attn_double_to_bf16(double x);

/* FP8ATTN_OK if [workspace, workspace + bytes) touches none of the tensors of p (validated). */
fp8attn_status_t fp8attn_check_workspace(const fp8attn_params_t *p, const void *workspace,
                                         size_t bytes);
/* Every descale that (b, h) in [0, batch) x [0, heads) reads must be finite and > 0. `name`
 * names the descale in messages, e.g. "params->q_descale" gives "params->q_descale.ptr[7]".
 * The caller has checked ptr != NULL, strides >= 0 and that the largest index fits in int64. */
fp8attn_status_t fp8attn_check_descale_values(const char *name, const fp8attn_descale_t *d,
                                              int64_t batch, int64_t heads);

/* a + b * c for non-negative operands, or -1 when it does not fit in int64. */
static inline int64_t fp8attn_add_mul(int64_t a, int64_t b, int64_t c)
{
    if (b != 0 && c > (INT64_MAX - a) / b) return -1;
    return a + b * c;
}

#ifdef __cplusplus
}
#endif
#endif
