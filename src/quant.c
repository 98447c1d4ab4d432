/* Host quantization helpers: per-tensor/head/(batch, head) descales and float -> FP8 encoding. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"

static const char *const k_view_dim[3] = {"batch", "head", "token"};

static int valid_granularity(fp8attn_granularity_t g)
{
    return g == FP8ATTN_SCALE_PER_TENSOR || g == FP8ATTN_SCALE_PER_HEAD ||
           g == FP8ATTN_SCALE_PER_BATCH_HEAD;
}

static fp8attn_status_t fail_granularity(fp8attn_granularity_t g)
{
    return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                        "granularity = %d: supported values are FP8ATTN_SCALE_PER_TENSOR (0), "
                        "FP8ATTN_SCALE_PER_HEAD (1), FP8ATTN_SCALE_PER_BATCH_HEAD (2)",
                        (int)g);
}

int64_t fp8attn_descale_count(fp8attn_granularity_t g, int32_t batch, int32_t heads)
{
    if (batch < 1 || heads < 1) {
        fp8attn_fail(FP8ATTN_ERR_INVALID_SIZE, "batch = %d, heads = %d: both must be >= 1",
                     (int)batch, (int)heads);
        return 0;
    }
    switch (g) {
    case FP8ATTN_SCALE_PER_TENSOR: return 1;
    case FP8ATTN_SCALE_PER_HEAD: return heads;
    case FP8ATTN_SCALE_PER_BATCH_HEAD: return (int64_t)batch * heads;
    }
    fail_granularity(g);
    return 0;
}

fp8attn_descale_t fp8attn_descale_layout(fp8attn_granularity_t g, const float *ptr, int32_t heads)
{
    fp8attn_descale_t d;
    d.ptr = ptr;
    d.batch_stride = g == FP8ATTN_SCALE_PER_BATCH_HEAD ? heads : 0;
    d.head_stride = g == FP8ATTN_SCALE_PER_TENSOR ? 0 : 1;
    if (!valid_granularity(g)) { /* a NULL ptr makes the layout unusable downstream */
        fail_granularity(g);
        d.ptr = NULL;
        d.head_stride = 0;
    }
    return d;
}

static fp8attn_status_t check_format(fp8attn_format_t format)
{
    if (format != FP8ATTN_FORMAT_E4M3 && format != FP8ATTN_FORMAT_E5M2)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_FORMAT,
                            "format = %d: supported values are FP8ATTN_FORMAT_E4M3 (0) and "
                            "FP8ATTN_FORMAT_E5M2 (1)",
                            (int)format);
    return FP8ATTN_OK;
}

/* Strides >= 0 and the largest element offset representable; `name` prefixes the fields. */
static fp8attn_status_t check_strides(const char *name, fp8attn_strides_t s,
                                      const fp8attn_tensor_view_t *x)
{
    int64_t stride[3], extent[3], last = x->head_dim - 1;
    int i;
    stride[0] = s.batch;
    stride[1] = s.head;
    stride[2] = s.token;
    extent[0] = x->batch;
    extent[1] = x->heads;
    extent[2] = x->seqlen;
    for (i = 0; i < 3; i++) {
        if (stride[i] < 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                "%s.%s = %" PRId64 ": strides must be >= 0", name, k_view_dim[i],
                                stride[i]);
        if ((last = fp8attn_add_mul(last, stride[i], extent[i] - 1)) < 0)
            return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                                "%s.%s = %" PRId64 ": the largest element offset does not fit in "
                                "64 bits",
                                name, k_view_dim[i], stride[i]);
    }
    return FP8ATTN_OK;
}

static fp8attn_status_t check_view(const fp8attn_tensor_view_t *x)
{
    const char *names[4] = {"batch", "heads", "seqlen", "head_dim"};
    int32_t sizes[4];
    int i;
    if (!x) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "x = NULL: a tensor view is required");
    if (!x->data) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "x->data = NULL: required");
    if (x->type != FP8ATTN_SRC_F32 && x->type != FP8ATTN_SRC_F16 && x->type != FP8ATTN_SRC_BF16)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_FORMAT,
                            "x->type = %d: supported values are FP8ATTN_SRC_F32 (0), "
                            "FP8ATTN_SRC_F16 (1), FP8ATTN_SRC_BF16 (2)",
                            (int)x->type);
    sizes[0] = x->batch;
    sizes[1] = x->heads;
    sizes[2] = x->seqlen;
    sizes[3] = x->head_dim;
    for (i = 0; i < 4; i++)
        if (sizes[i] < 1)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_SIZE, "x->%s = %d: must be >= 1", names[i],
                                (int)sizes[i]);
    return check_strides("x->stride", x->stride, x);
}

/* Element (b, h, s, d) of the view, as a float. */
static float view_at(const fp8attn_tensor_view_t *x, int64_t b, int64_t h, int64_t s, int64_t d)
{
    int64_t off = b * x->stride.batch + h * x->stride.head + s * x->stride.token + d;
    switch (x->type) {
    case FP8ATTN_SRC_F16: return fp8attn_fp16_to_float(((const uint16_t *)x->data)[off]);
    case FP8ATTN_SRC_BF16: return fp8attn_bf16_to_float(((const uint16_t *)x->data)[off]);
    case FP8ATTN_SRC_F32: break;
    }
    return ((const float *)x->data)[off];
}

/* amax[group] over the view; refuses non-finite elements, naming the first one found. */
static fp8attn_status_t group_amax(const fp8attn_tensor_view_t *x, fp8attn_descale_t layout,
                                   float *amax)
{
    int64_t b, h, s, d;
    for (b = 0; b < x->batch; b++)
        for (h = 0; h < x->heads; h++) {
            float *m = &amax[b * layout.batch_stride + h * layout.head_stride];
            for (s = 0; s < x->seqlen; s++)
                for (d = 0; d < x->head_dim; d++) {
                    float v = fabsf(view_at(x, b, h, s, d));
                    if (!isfinite(v))
                        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                                            "x(b = %" PRId64 ", h = %" PRId64 ", s = %" PRId64
                                            ", d = %" PRId64 ") = %g: input values must be finite",
                                            b, h, s, d, (double)view_at(x, b, h, s, d));
                    if (v > *m) *m = v;
                }
        }
    return FP8ATTN_OK;
}

/* amax / format max, at least FLT_MIN (the smallest normal float); amax 0 gives 1.
 * The floor keeps every descale normal: a subnormal one is flushed to zero by the GPU kernels
 * (built with --use_fast_math) and, being imprecise, could let amax / descale exceed the format
 * max (E5M2 would encode inf). With d = FLT_MIN, amax < format_max * FLT_MIN, so
 * amax / d = amax * 2^126 < format_max exactly; otherwise amax / d rounds to within an fp32 ulp
 * of format_max, which encodes to format_max in both formats. */
static float descale_of(float amax, float format_max)
{
    float d;
    if (amax == 0.0f) return 1.0f;
    d = amax / format_max;
    return d < FLT_MIN ? FLT_MIN : d;
}

fp8attn_status_t fp8attn_compute_descales(const fp8attn_tensor_view_t *x, fp8attn_granularity_t g,
                                          fp8attn_format_t format, float *descale_out)
{
    fp8attn_status_t st;
    fp8attn_descale_t layout;
    float *amax;
    int64_t n, i;
    if ((st = check_view(x)) != FP8ATTN_OK) return st;
    if (!valid_granularity(g)) return fail_granularity(g);
    if ((st = check_format(format)) != FP8ATTN_OK) return st;
    if (!descale_out)
        return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "descale_out = NULL: required");
    n = fp8attn_descale_count(g, x->batch, x->heads);
    layout = fp8attn_descale_layout(g, NULL, x->heads);
    /* amax goes to scratch first so that nothing is written when an input is refused */
    if (!(amax = calloc((size_t)n, sizeof *amax)))
        return fp8attn_fail(FP8ATTN_ERR_OUT_OF_MEMORY, "cannot allocate %" PRId64 " floats", n);
    if ((st = group_amax(x, layout, amax)) == FP8ATTN_OK)
        for (i = 0; i < n; i++) descale_out[i] = descale_of(amax[i], fp8attn_format_max(format));
    free(amax);
    return st;
}

/* Every descale the view's (b, h) will use: finite and > 0. */
static fp8attn_status_t check_descales(fp8attn_descale_t ds, int64_t batch, int64_t heads)
{
    int64_t last;
    if (!ds.ptr) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "descale.ptr = NULL: required");
    if (ds.batch_stride < 0)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                            "descale.batch_stride = %" PRId64 ": must be >= 0 (0 broadcasts)",
                            ds.batch_stride);
    if (ds.head_stride < 0)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                            "descale.head_stride = %" PRId64 ": must be >= 0 (0 broadcasts)",
                            ds.head_stride);
    last = fp8attn_add_mul(0, ds.batch_stride, batch - 1);
    if (last >= 0) last = fp8attn_add_mul(last, ds.head_stride, heads - 1);
    if (last < 0)
        return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                            "descale.batch_stride = %" PRId64 ", descale.head_stride = %" PRId64
                            ": the largest index does not fit in 64 bits",
                            ds.batch_stride, ds.head_stride);
    return fp8attn_check_descale_values("descale", &ds, batch, heads);
}

fp8attn_status_t fp8attn_quantize(const fp8attn_tensor_view_t *x, fp8attn_descale_t descale,
                                  fp8attn_format_t format, uint8_t *out,
                                  fp8attn_strides_t out_stride)
{
    fp8attn_status_t st;
    int64_t b, h, s, d;
    if ((st = check_view(x)) != FP8ATTN_OK) return st;
    if ((st = check_format(format)) != FP8ATTN_OK) return st;
    if (!out) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "out = NULL: required");
    if ((st = check_strides("out_stride", out_stride, x)) != FP8ATTN_OK) return st;
    if ((st = check_descales(descale, x->batch, x->heads)) != FP8ATTN_OK) return st;
    for (b = 0; b < x->batch; b++)
        for (h = 0; h < x->heads; h++) {
            float ds = descale.ptr[b * descale.batch_stride + h * descale.head_stride];
            for (s = 0; s < x->seqlen; s++) {
                uint8_t *row = out + b * out_stride.batch + h * out_stride.head + s * out_stride.token;
                for (d = 0; d < x->head_dim; d++) row[d] = fp8attn_encode(format, view_at(x, b, h, s, d) / ds);
            }
        }
    return FP8ATTN_OK;
}
