/* TODO(helper): reference */
#include "internal.h"
fp8attn_status_t fp8attn_forward_cpu(const fp8attn_params_t *p) { (void)p; return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "stub"); }
