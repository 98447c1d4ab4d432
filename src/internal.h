/* Library-internal helpers shared by the host sources. Not installed. */
#ifndef FP8ATTN_INTERNAL_H
#define FP8ATTN_INTERNAL_H

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

#ifdef __cplusplus
}
#endif
#endif
