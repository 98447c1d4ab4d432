/* fp8attn_quantize_gpu / fp8attn_quantize_cpu: one quantization described by
 * fp8attn_quant_params_t, every field checked here (messages name params->FIELD) before either
 * backend touches memory. The GPU kernels are in src/kernels/quant/; the CPU backend is the host
 * codec and quantization helpers of quant.c. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "kernels/quant/quant.h"

static const char *const k_dims[3] = {"batch", "head", "token"};

typedef struct range {
    const char *name;
    uintptr_t begin, end;
} range_t;

void fp8attn_quant_params_init(fp8attn_quant_params_t *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->x.type = FP8ATTN_SRC_F32;
    p->format = FP8ATTN_FORMAT_E4M3;
    p->granularity = FP8ATTN_SCALE_PER_TENSOR;
}

static int64_t elem_bytes(fp8attn_src_type_t t) { return t == FP8ATTN_SRC_F32 ? 4 : 2; }

static fp8attn_status_t check_granularity(fp8attn_granularity_t g)
{
    if (g != FP8ATTN_SCALE_PER_TENSOR && g != FP8ATTN_SCALE_PER_HEAD &&
        g != FP8ATTN_SCALE_PER_BATCH_HEAD)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                            "params->granularity = %d: supported values are "
                            "FP8ATTN_SCALE_PER_TENSOR (0), FP8ATTN_SCALE_PER_HEAD (1), "
                            "FP8ATTN_SCALE_PER_BATCH_HEAD (2)",
                            (int)g);
    return FP8ATTN_OK;
}

/* The fields the workspace size depends on: x's batch and heads, the mode, the granularity. */
static fp8attn_status_t check_mode_and_sizes(const fp8attn_quant_params_t *p)
{
    const char *names[4] = {"batch", "heads", "seqlen", "head_dim"};
    int32_t sizes[4];
    int i;
    if (!p) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "params = NULL: a quantization is required");
    sizes[0] = p->x.batch;
    sizes[1] = p->x.heads;
    sizes[2] = p->x.seqlen;
    sizes[3] = p->x.head_dim;
    for (i = 0; i < 4; i++)
        if (sizes[i] < 1)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_SIZE, "params->x.%s = %d: must be >= 1",
                                names[i], (int)sizes[i]);
    if (p->descale.ptr && p->descale_out)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                            "params->descale.ptr and params->descale_out are both set: give exactly "
                            "one (descale.ptr: given descales; descale_out: dynamic ones, written)");
    if (!p->descale.ptr && !p->descale_out)
        return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER,
                            "params->descale.ptr and params->descale_out are both NULL: give exactly "
                            "one (descale.ptr: given descales; descale_out: dynamic ones, written)");
    return p->descale_out ? check_granularity(p->granularity) : FP8ATTN_OK;
}

fp8attn_status_t fp8attn_quantize_workspace_size(const fp8attn_quant_params_t *p, size_t *bytes)
{
    fp8attn_status_t st;
    if (!bytes) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "bytes = NULL: required");
    if ((st = check_mode_and_sizes(p)) != FP8ATTN_OK) return st;
    *bytes = p->descale_out ? (size_t)fp8attn_descale_count(p->granularity, p->x.batch, p->x.heads) *
                                  sizeof(uint32_t)
                            : 0;
    return FP8ATTN_OK;
}

/* Strides >= 0, and the byte range [ptr, ptr + (largest offset + 1) * esize) of a view. */
static fp8attn_status_t view_range(const char *name, const char *stride_name, const void *ptr,
                                   fp8attn_strides_t s, const fp8attn_tensor_view_t *x,
                                   int64_t esize, range_t *r)
{
    const int64_t stride[3] = {s.batch, s.head, s.token};
    const int64_t extent[3] = {x->batch, x->heads, x->seqlen};
    int64_t last = x->head_dim - 1, bytes;
    int i;
    for (i = 0; i < 3; i++) {
        if (stride[i] < 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                "params->%s.%s = %" PRId64 ": strides must be >= 0", stride_name,
                                k_dims[i], stride[i]);
        if ((last = fp8attn_add_mul(last, stride[i], extent[i] - 1)) < 0)
            return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                                "params->%s.%s = %" PRId64 ": the largest element offset does not "
                                "fit in 64 bits",
                                stride_name, k_dims[i], stride[i]);
    }
    if ((bytes = fp8attn_add_mul(esize, last, esize)) < 0 ||
        (uint64_t)bytes > (uint64_t)(UINTPTR_MAX - (uintptr_t)ptr))
        return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                            "params->%s = %p: its %" PRId64 " + 1 elements of %" PRId64
                            " bytes run past the end of the address space",
                            name, ptr, last, esize);
    r->name = name;
    r->begin = (uintptr_t)ptr;
    r->end = (uintptr_t)ptr + (uintptr_t)bytes;
    return FP8ATTN_OK;
}

/* Rows of out disjoint: dimensions of extent > 1 sorted by stride, each stride >= the span of
 * the ones below it (head_dim for the smallest). */
static fp8attn_status_t check_out_rows(const fp8attn_quant_params_t *p)
{
    const int64_t stride[3] = {p->out_stride.batch, p->out_stride.head, p->out_stride.token};
    const int64_t extent[3] = {p->x.batch, p->x.heads, p->x.seqlen};
    const char *extent_name[3] = {"x.batch", "x.heads", "x.seqlen"};
    int dims[3], n = 0, i, j;
    int64_t need = p->x.head_dim;
    for (i = 0; i < 3; i++)
        if (extent[i] > 1) dims[n++] = i;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && stride[dims[j]] < stride[dims[j - 1]]; j--) {
            int t = dims[j];
            dims[j] = dims[j - 1];
            dims[j - 1] = t;
        }
    for (i = 0; i < n; i++) {
        int d = dims[i];
        if (stride[d] < need)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                "params->out_stride.%s = %" PRId64 ": rows of out overlap; must be "
                                ">= %" PRId64 " (the span of the smaller dimensions) since "
                                "params->%s = %" PRId64 " > 1",
                                k_dims[d], stride[d], need, extent_name[d], extent[d]);
        need = fp8attn_add_mul(0, stride[d], extent[d]);
        if (need < 0) need = INT64_MAX;
    }
    return FP8ATTN_OK;
}

static fp8attn_status_t check_aligned(const char *name, const void *ptr, int align, const char *why)
{
    if ((uintptr_t)ptr % (uintptr_t)align != 0)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE, "params->%s = %p: must be %d-byte aligned (%s)",
                            name, ptr, align, why);
    return FP8ATTN_OK;
}

static fp8attn_status_t check_disjoint(const range_t *a, const range_t *b)
{
    if (a->begin < b->end && b->begin < a->end)
        return fp8attn_fail(FP8ATTN_ERR_OVERLAP,
                            "params->%s [0x%" PRIxPTR ", 0x%" PRIxPTR ") overlaps params->%s [0x%" PRIxPTR
                            ", 0x%" PRIxPTR "): an output must not share memory with another tensor",
                            a->name, a->begin, a->end, b->name, b->begin, b->end);
    return FP8ATTN_OK;
}

static void set_range(range_t *r, const char *name, const void *ptr, uint64_t bytes)
{
    r->name = name;
    r->begin = (uintptr_t)ptr;
    r->end = (uintptr_t)ptr + (uintptr_t)bytes;
}

/* Every check of both backends; `gpu` adds the workspace and E4M3-only. */
static fp8attn_status_t validate(const fp8attn_quant_params_t *p, int gpu)
{
    const fp8attn_tensor_view_t *x;
    range_t r_x, r_out, r_ds, r_ws;
    int64_t groups;
    size_t need = 0;
    fp8attn_status_t st;
    if ((st = check_mode_and_sizes(p)) != FP8ATTN_OK) return st;
    x = &p->x;
    if (!x->data) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "params->x.data = NULL: required");
    if (x->type != FP8ATTN_SRC_F32 && x->type != FP8ATTN_SRC_F16 && x->type != FP8ATTN_SRC_BF16)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_FORMAT,
                            "params->x.type = %d: supported values are FP8ATTN_SRC_F32 (0), "
                            "FP8ATTN_SRC_F16 (1), FP8ATTN_SRC_BF16 (2)",
                            (int)x->type);
    if (p->format != FP8ATTN_FORMAT_E4M3 && p->format != FP8ATTN_FORMAT_E5M2)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_FORMAT,
                            "params->format = %d: supported values are FP8ATTN_FORMAT_E4M3 (0) and "
                            "FP8ATTN_FORMAT_E5M2 (1)",
                            (int)p->format);
    if (!p->out) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "params->out = NULL: required");
    if ((st = check_aligned("x.data", x->data, (int)elem_bytes(x->type), "its element size")) ||
        (st = view_range("x.data", "x.stride", x->data, x->stride, x, elem_bytes(x->type), &r_x)) ||
        (st = view_range("out", "out_stride", p->out, p->out_stride, x, 1, &r_out)) ||
        (st = check_out_rows(p)) || (st = check_disjoint(&r_out, &r_x)))
        return st;
    if (p->descale.ptr) { /* given */
        const fp8attn_descale_t *d = &p->descale;
        int64_t last;
        if (d->batch_stride < 0 || d->head_stride < 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                                "params->descale.%s = %" PRId64 ": must be >= 0 (0 broadcasts)",
                                d->batch_stride < 0 ? "batch_stride" : "head_stride",
                                d->batch_stride < 0 ? d->batch_stride : d->head_stride);
        last = fp8attn_add_mul(0, d->batch_stride, x->batch - 1);
        if (last >= 0) last = fp8attn_add_mul(last, d->head_stride, x->heads - 1);
        if (last < 0 || last > INT64_MAX / 4 - 1)
            return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                                "params->descale.batch_stride = %" PRId64 ", params->descale.head_stride"
                                " = %" PRId64 ": the offset of the last descale does not fit in 64 bits",
                                d->batch_stride, d->head_stride);
        if ((st = check_aligned("descale.ptr", d->ptr, 4, "fp32"))) return st;
        set_range(&r_ds, "descale.ptr", d->ptr, (uint64_t)(last + 1) * 4u);
        return check_disjoint(&r_out, &r_ds);
    }
    /* dynamic */
    groups = fp8attn_descale_count(p->granularity, x->batch, x->heads);
    if ((st = check_aligned("descale_out", p->descale_out, 4, "fp32"))) return st;
    set_range(&r_ds, "descale_out", p->descale_out, (uint64_t)groups * 4u);
    if ((st = check_disjoint(&r_ds, &r_x)) || (st = check_disjoint(&r_out, &r_ds))) return st;
    if (!gpu) return FP8ATTN_OK;
    need = (size_t)groups * sizeof(uint32_t);
    if (!p->workspace)
        return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER,
                            "params->workspace = NULL: dynamic descales on the GPU need %zu bytes "
                            "(fp8attn_quantize_workspace_size)",
                            need);
    if (p->workspace_bytes < need)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                            "params->workspace_bytes = %zu: this call needs %zu "
                            "(fp8attn_quantize_workspace_size)",
                            p->workspace_bytes, need);
    if ((st = check_aligned("workspace", p->workspace, 4, "uint32 amax per group"))) return st;
    set_range(&r_ws, "workspace", p->workspace, need);
    if ((st = check_disjoint(&r_ws, &r_x)) || (st = check_disjoint(&r_ws, &r_out)) ||
        (st = check_disjoint(&r_ws, &r_ds)))
        return st;
    return FP8ATTN_OK;
}

fp8attn_status_t fp8attn_quantize_cpu(const fp8attn_quant_params_t *p)
{
    fp8attn_status_t st;
    if ((st = validate(p, 0)) != FP8ATTN_OK) return st;
    if (p->descale.ptr) {
        if ((st = fp8attn_check_descale_values("params->descale", &p->descale, p->x.batch,
                                               p->x.heads)) != FP8ATTN_OK)
            return st;
        return fp8attn_quantize(&p->x, p->descale, p->format, p->out, p->out_stride);
    }
    /* descales first: it refuses non-finite inputs before anything is written */
    if ((st = fp8attn_compute_descales(&p->x, p->granularity, p->format, p->descale_out)) != FP8ATTN_OK)
        return st;
    return fp8attn_quantize(&p->x, fp8attn_descale_layout(p->granularity, p->descale_out, p->x.heads),
                            p->format, p->out, p->out_stride);
}

fp8attn_status_t fp8attn_quantize_gpu(const fp8attn_quant_params_t *p, fp8attn_stream_t stream)
{
    fp8attn_status_t st;
    if ((st = validate(p, 1)) != FP8ATTN_OK) return st;
    if (p->format != FP8ATTN_FORMAT_E4M3)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "params->format = FP8ATTN_FORMAT_E5M2: the GPU quantizer writes E4M3 "
                            "only (fp8attn_quantize_cpu writes both)");
    return fp8attn_quant_launch(p, stream);
}
