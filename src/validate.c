/* TODO(helper): validate */
#include "internal.h"
fp8attn_status_t fp8attn_validate(const fp8attn_params_t *p) { (void)p; return FP8ATTN_OK; }
