#include "kernels.h"
#include "../internal.h"
static fp8attn_status_t sup(const fp8attn_params_t *p, const fp8attn_device_info_t *d) { return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "stub"); }
static fp8attn_status_t launch(const fp8attn_params_t *p, fp8attn_stream_t s) { return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "stub"); }
extern "C" const fp8attn_variant_t fp8attn_variant_reference_gpu = {"reference-gpu", "stub", 0, sup, launch};
extern "C" const fp8attn_variant_t fp8attn_variant_mma = {"mma", "stub", 1, sup, launch};
