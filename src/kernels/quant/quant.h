/* The GPU quantizer's launcher (quant_gpu.cu), called by fp8attn_quantize_gpu (src/quantize.c)
 * once every field has been checked. Library-internal. */
#ifndef FP8ATTN_QUANT_H
#define FP8ATTN_QUANT_H

#include "fp8attn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launches the quantization *p describes (validated: sizes, strides, pointers, mode, workspace)
 * on `stream` on the current device: for dynamic descales a workspace memset, the amax kernel
 * and the quantize kernel; for given descales the quantize kernel alone. */
fp8attn_status_t fp8attn_quant_launch(const fp8attn_quant_params_t *p, fp8attn_stream_t stream);

#ifdef __cplusplus
}
#endif
#endif
