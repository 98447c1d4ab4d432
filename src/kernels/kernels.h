/* The GPU side of the library: kernel variants and the registry that picks among them.
 * C-callable; implemented in src/kernels/*.cu. */
#ifndef FP8ATTN_KERNELS_H
#define FP8ATTN_KERNELS_H

#include "fp8attn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a variant needs to know about the device to decide whether it can run. */
typedef struct fp8attn_device_info {
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    size_t smem_optin;      /* max dynamic shared memory per block after opt-in */
} fp8attn_device_info_t;

typedef struct fp8attn_variant {
    const char *name;
    const char *description;
    int priority; /* the default picks the supporting variant with the highest priority */
    /* FP8ATTN_OK or a status with fp8attn_fail()'s message saying why not. */
    fp8attn_status_t (*supports)(const fp8attn_params_t *p, const fp8attn_device_info_t *dev);
    /* Launch on stream; p already validated and supported. Checks the launch. */
    fp8attn_status_t (*launch)(const fp8attn_params_t *p, fp8attn_stream_t stream);
} fp8attn_variant_t;

extern const fp8attn_variant_t fp8attn_variant_reference_gpu;
extern const fp8attn_variant_t fp8attn_variant_mma;

#ifdef __cplusplus
}
#endif
#endif
