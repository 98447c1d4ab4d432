/* fp8attn_validate: every check of a problem description that needs no access to the data. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

#include "internal.h"

/* The GPU kernels move Q, K, V and O with 16-byte vector loads and stores. */
#define VECTOR_BYTES 16

/* One [batch, heads, tokens, head_dim] tensor: Q, K, V (1-byte codes) or O (2-byte elements). */
typedef struct operand {
    const char *name; /* "q", "k", "v", "o": also the prefix of its stride field */
    const void *ptr;
    int64_t stride[3];           /* batch, head, token */
    int64_t extent[3];           /* batch, heads, tokens */
    const char *extent_name[3];  /* params field holding each extent */
    int64_t elem_bytes;
} operand_t;

static const char *const k_dim_name[3] = {"batch", "head", "token"};

/* Byte range [begin, end) that a tensor may touch, for the overlap checks. */
typedef struct byte_range {
    const char *name; /* params field of the pointer */
    uintptr_t begin, end;
} byte_range_t;

static void set_operand(operand_t *op, const char *name, const void *ptr, fp8attn_strides_t s,
                        const fp8attn_params_t *p, int is_query_side, int64_t elem_bytes)
{
    op->name = name;
    op->ptr = ptr;
    op->stride[0] = s.batch;
    op->stride[1] = s.head;
    op->stride[2] = s.token;
    op->extent[0] = p->batch;
    op->extent[1] = is_query_side ? p->h_q : p->h_kv;
    op->extent[2] = is_query_side ? p->seqlen_q : p->seqlen_k;
    op->extent_name[0] = "batch";
    op->extent_name[1] = is_query_side ? "h_q" : "h_kv";
    op->extent_name[2] = is_query_side ? "seqlen_q" : "seqlen_k";
    op->elem_bytes = elem_bytes;
}

/* q, k, v, o in that order. */
static void describe_operands(const fp8attn_params_t *p, operand_t op[4])
{
    set_operand(&op[0], "q", p->q, p->q_stride, p, 1, 1);
    set_operand(&op[1], "k", p->k, p->k_stride, p, 0, 1);
    set_operand(&op[2], "v", p->v, p->v_stride, p, 0, 1);
    set_operand(&op[3], "o", p->o, p->o_stride, p, 1, 2);
}

static fp8attn_status_t check_enums(const fp8attn_params_t *p)
{
    if (p->in_format != FP8ATTN_FORMAT_E4M3 && p->in_format != FP8ATTN_FORMAT_E5M2)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_FORMAT,
                            "params->in_format = %d: supported values are FP8ATTN_FORMAT_E4M3 (0) "
                            "and FP8ATTN_FORMAT_E5M2 (1)",
                            (int)p->in_format);
    if (p->out_type != FP8ATTN_OUT_FP16 && p->out_type != FP8ATTN_OUT_BF16)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_FORMAT,
                            "params->out_type = %d: supported values are FP8ATTN_OUT_FP16 (0) and "
                            "FP8ATTN_OUT_BF16 (1)",
                            (int)p->out_type);
    if (p->causal != 0 && p->causal != 1)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                            "params->causal = %d: must be 0 (no mask) or 1 (causal)", (int)p->causal);
    return FP8ATTN_OK;
}

static fp8attn_status_t check_sizes(const fp8attn_params_t *p)
{
    const char *names[5] = {"batch", "h_q", "h_kv", "seqlen_q", "seqlen_k"};
    int32_t values[5];
    int i;
    values[0] = p->batch;
    values[1] = p->h_q;
    values[2] = p->h_kv;
    values[3] = p->seqlen_q;
    values[4] = p->seqlen_k;
    for (i = 0; i < 5; i++)
        if (values[i] < 1)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_SIZE, "params->%s = %d: must be >= 1",
                                names[i], (int)values[i]);
    if (p->head_dim != 64 && p->head_dim != 128 && p->head_dim != 256)
        return fp8attn_fail(FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM,
                            "params->head_dim = %d: supported values are 64, 128, 256",
                            (int)p->head_dim);
    if (p->h_q % p->h_kv != 0)
        return fp8attn_fail(FP8ATTN_ERR_HEAD_RATIO,
                            "params->h_q = %d is not a multiple of params->h_kv = %d: every "
                            "key/value head must serve the same number of query heads",
                            (int)p->h_q, (int)p->h_kv);
    return FP8ATTN_OK;
}

static fp8attn_status_t check_pointers(const fp8attn_params_t *p)
{
    const char *names[7] = {"q", "k", "v", "o", "q_descale.ptr", "k_descale.ptr", "v_descale.ptr"};
    const void *ptrs[7];
    int i;
    ptrs[0] = p->q;
    ptrs[1] = p->k;
    ptrs[2] = p->v;
    ptrs[3] = p->o;
    ptrs[4] = p->q_descale.ptr;
    ptrs[5] = p->k_descale.ptr;
    ptrs[6] = p->v_descale.ptr;
    for (i = 0; i < 7; i++)
        if (!ptrs[i])
            return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER,
                                "params->%s = NULL: required (only lse may be NULL)", names[i]);
    return FP8ATTN_OK;
}

static fp8attn_status_t check_scale(const fp8attn_params_t *p)
{
    if (!isfinite(p->softmax_scale) || p->softmax_scale < 0.0f)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_SCALE,
                            "params->softmax_scale = %g: must be finite and >= 0 (0 selects "
                            "1/sqrt(head_dim))",
                            (double)p->softmax_scale);
    return FP8ATTN_OK;
}

static fp8attn_status_t check_non_negative(const operand_t *op)
{
    int i;
    for (i = 0; i < 3; i++)
        if (op->stride[i] < 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                "params->%s_stride.%s = %" PRId64 ": strides must be >= 0",
                                op->name, k_dim_name[i], op->stride[i]);
    return FP8ATTN_OK;
}

static fp8attn_status_t check_pointer_alignment(const char *name, const void *ptr, int align,
                                                const char *why)
{
    if ((uintptr_t)ptr % (uintptr_t)align != 0)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE, "params->%s = %p: must be %d-byte aligned (%s)",
                            name, ptr, align, why);
    return FP8ATTN_OK;
}

/* Strides of dimensions with extent > 1 must keep 16-byte vector accesses aligned. */
static fp8attn_status_t check_stride_alignment(const operand_t *op)
{
    int64_t multiple = VECTOR_BYTES / op->elem_bytes;
    int i;
    for (i = 0; i < 3; i++)
        if (op->extent[i] > 1 && op->stride[i] % multiple != 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                "params->%s_stride.%s = %" PRId64 ": must be a multiple of %" PRId64
                                " elements (16-byte vector access) since params->%s = %" PRId64
                                " > 1",
                                op->name, k_dim_name[i], op->stride[i], multiple,
                                op->extent_name[i], op->extent[i]);
    return FP8ATTN_OK;
}

/* x * y for non-negative operands, saturating at INT64_MAX. */
static int64_t saturating_mul(int64_t x, int64_t y)
{
    if (x != 0 && y > INT64_MAX / x) return INT64_MAX;
    return x * y;
}

/* O rows must be disjoint: with the dimensions of extent > 1 sorted by stride, the smallest
 * stride is >= head_dim and every next one >= the previous stride * previous extent. */
static fp8attn_status_t check_rows_disjoint(const operand_t *o, int64_t head_dim)
{
    int dims[3], n = 0, i, j, prev = -1;
    int64_t need = head_dim;
    for (i = 0; i < 3; i++)
        if (o->extent[i] > 1) dims[n++] = i;
    for (i = 1; i < n; i++) /* insertion sort by stride */
        for (j = i; j > 0 && o->stride[dims[j]] < o->stride[dims[j - 1]]; j--) {
            int t = dims[j];
            dims[j] = dims[j - 1];
            dims[j - 1] = t;
        }
    for (i = 0; i < n; i++) {
        int d = dims[i];
        if (o->stride[d] < need) {
            if (prev < 0)
                return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                    "params->o_stride.%s = %" PRId64 ": rows of O overlap; must be "
                                    ">= head_dim = %" PRId64 " since params->%s = %" PRId64 " > 1",
                                    k_dim_name[d], o->stride[d], head_dim, o->extent_name[d],
                                    o->extent[d]);
            return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                                "params->o_stride.%s = %" PRId64 ": rows of O overlap; must be >= "
                                "o_stride.%s * %s = %" PRId64 " * %" PRId64 " since params->%s = %" PRId64
                                " > 1",
                                k_dim_name[d], o->stride[d], k_dim_name[prev], o->extent_name[prev],
                                o->stride[prev], o->extent[prev], o->extent_name[d], o->extent[d]);
        }
        need = saturating_mul(o->stride[d], o->extent[d]);
        prev = d;
    }
    return FP8ATTN_OK;
}

static fp8attn_status_t check_strides(const fp8attn_params_t *p, const operand_t op[4])
{
    fp8attn_status_t st;
    int i;
    for (i = 0; i < 4; i++)
        if ((st = check_non_negative(&op[i])) != FP8ATTN_OK) return st;
    for (i = 0; i < 4; i++)
        if ((st = check_pointer_alignment(op[i].name, op[i].ptr, VECTOR_BYTES,
                                          "16-byte vector access")) != FP8ATTN_OK)
            return st;
    if (p->lse && (st = check_pointer_alignment("lse", p->lse, 4, "fp32")) != FP8ATTN_OK) return st;
    /* the kernels load descales as fp32: a misaligned one would fault on the GPU */
    if ((st = check_pointer_alignment("q_descale.ptr", p->q_descale.ptr, 4, "fp32")) ||
        (st = check_pointer_alignment("k_descale.ptr", p->k_descale.ptr, 4, "fp32")) ||
        (st = check_pointer_alignment("v_descale.ptr", p->v_descale.ptr, 4, "fp32")))
        return st;
    for (i = 0; i < 4; i++)
        if ((st = check_stride_alignment(&op[i])) != FP8ATTN_OK) return st;
    return check_rows_disjoint(&op[3], p->head_dim);
}

static fp8attn_status_t check_descale_strides(const fp8attn_params_t *p)
{
    const char *names[3] = {"q_descale", "k_descale", "v_descale"};
    const fp8attn_descale_t *d[3];
    int i;
    d[0] = &p->q_descale;
    d[1] = &p->k_descale;
    d[2] = &p->v_descale;
    for (i = 0; i < 3; i++) {
        if (d[i]->batch_stride < 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                                "params->%s.batch_stride = %" PRId64 ": must be >= 0 (0 broadcasts)",
                                names[i], d[i]->batch_stride);
        if (d[i]->head_stride < 0)
            return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                                "params->%s.head_stride = %" PRId64 ": must be >= 0 (0 broadcasts)",
                                names[i], d[i]->head_stride);
    }
    return FP8ATTN_OK;
}

/* [ptr, ptr + bytes) unless it runs past the end of the address space. */
static fp8attn_status_t address_range(const char *name, const void *ptr, int64_t bytes,
                                      byte_range_t *r)
{
    uintptr_t begin = (uintptr_t)ptr;
    if ((uint64_t)bytes > (uint64_t)(UINTPTR_MAX - begin))
        return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                            "params->%s = %p: its %" PRId64
                            " bytes would run past the end of the address space",
                            name, ptr, bytes);
    r->name = name;
    r->begin = begin;
    r->end = begin + (uintptr_t)bytes;
    return FP8ATTN_OK;
}

static fp8attn_status_t operand_range(const operand_t *op, int64_t head_dim, byte_range_t *r)
{
    int64_t last = head_dim - 1, bytes; /* largest element offset */
    int i;
    for (i = 0; i < 3; i++) {
        last = fp8attn_add_mul(last, op->stride[i], op->extent[i] - 1);
        if (last < 0)
            return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                                "params->%s_stride.%s = %" PRId64 ": the largest element offset of "
                                "%s (sum of stride * (extent - 1), + head_dim - 1) does not fit in "
                                "64 bits (params->%s = %" PRId64 ")",
                                op->name, k_dim_name[i], op->stride[i], op->name,
                                op->extent_name[i], op->extent[i]);
    }
    if ((bytes = fp8attn_add_mul(op->elem_bytes, last, op->elem_bytes)) < 0)
        return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                            "params->%s_stride = {batch %" PRId64 ", head %" PRId64 ", token %" PRId64
                            "}: the size of %s in bytes ((largest offset %" PRId64 " + 1) * %" PRId64
                            ") does not fit in 64 bits",
                            op->name, op->stride[0], op->stride[1], op->stride[2], op->name, last,
                            op->elem_bytes);
    return address_range(op->name, op->ptr, bytes, r);
}

/* `name` is the descale ("q_descale"), `ptr_name` its pointer field ("q_descale.ptr"),
 * `heads_name` the params field of its head count ("h_q" or "h_kv"). */
static fp8attn_status_t descale_range(const char *name, const char *ptr_name,
                                      const fp8attn_descale_t *d, int64_t batch, int64_t heads,
                                      const char *heads_name, byte_range_t *r)
{
    int64_t last = fp8attn_add_mul(0, d->batch_stride, batch - 1), bytes = -1;
    if (last >= 0) last = fp8attn_add_mul(last, d->head_stride, heads - 1);
    if (last >= 0) bytes = fp8attn_add_mul(4, last, 4);
    if (bytes < 0)
        return fp8attn_fail(FP8ATTN_ERR_TOO_LARGE,
                            "params->%s.batch_stride = %" PRId64 ", params->%s.head_stride = %" PRId64
                            ": the byte offset of the last descale (batch_stride * (params->batch - "
                            "1) + head_stride * (params->%s - 1)) * 4 = (%" PRId64 " * %" PRId64
                            " + %" PRId64 " * %" PRId64 ") * 4 does not fit in 64 bits",
                            name, d->batch_stride, name, d->head_stride, heads_name, d->batch_stride,
                            batch - 1, d->head_stride, heads - 1);
    return address_range(ptr_name, d->ptr, bytes, r);
}

/* LSE is [batch, h_q, seqlen_q] fp32; O (checked before) is larger, so this cannot overflow. */
static fp8attn_status_t lse_range(const fp8attn_params_t *p, byte_range_t *r)
{
    return address_range("lse", p->lse, (int64_t)p->batch * p->h_q * p->seqlen_q * 4, r);
}

/* Ranges of q, k, v, o, q/k/v descales and (if present) lse; *n_ranges set to 7 or 8. */
static fp8attn_status_t compute_ranges(const fp8attn_params_t *p, const operand_t op[4],
                                       byte_range_t r[8], int *n_ranges)
{
    fp8attn_status_t st;
    int i;
    for (i = 0; i < 4; i++)
        if ((st = operand_range(&op[i], p->head_dim, &r[i])) != FP8ATTN_OK) return st;
    if ((st = descale_range("q_descale", "q_descale.ptr", &p->q_descale, p->batch, p->h_q, "h_q",
                            &r[4])) ||
        (st = descale_range("k_descale", "k_descale.ptr", &p->k_descale, p->batch, p->h_kv, "h_kv",
                            &r[5])) ||
        (st = descale_range("v_descale", "v_descale.ptr", &p->v_descale, p->batch, p->h_kv, "h_kv",
                            &r[6])))
        return st;
    *n_ranges = 7;
    if (p->lse) {
        if ((st = lse_range(p, &r[7])) != FP8ATTN_OK) return st;
        *n_ranges = 8;
    }
    return FP8ATTN_OK;
}

static fp8attn_status_t check_disjoint(const byte_range_t *out, const byte_range_t *other)
{
    if (out->begin < other->end && other->begin < out->end)
        return fp8attn_fail(FP8ATTN_ERR_OVERLAP,
                            "params->%s [0x%" PRIxPTR ", 0x%" PRIxPTR ") overlaps params->%s [0x%" PRIxPTR
                            ", 0x%" PRIxPTR "): an output must not share memory with another tensor",
                            out->name, out->begin, out->end, other->name, other->begin, other->end);
    return FP8ATTN_OK;
}

/* O against every other range, LSE against the inputs and descales (indices: see above). */
static fp8attn_status_t check_overlaps(const byte_range_t r[8], int n_ranges)
{
    fp8attn_status_t st;
    int i;
    for (i = 0; i < n_ranges; i++)
        if (i != 3 && (st = check_disjoint(&r[3], &r[i])) != FP8ATTN_OK) return st;
    if (n_ranges == 8)
        for (i = 0; i < 7; i++)
            if (i != 3 && (st = check_disjoint(&r[7], &r[i])) != FP8ATTN_OK) return st;
    return FP8ATTN_OK;
}

fp8attn_status_t fp8attn_validate(const fp8attn_params_t *p)
{
    operand_t op[4];
    byte_range_t ranges[8];
    int n_ranges = 0;
    fp8attn_status_t st;
    if (!p) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "params = NULL: a problem is required");
    if ((st = check_enums(p)) || (st = check_sizes(p)) || (st = check_pointers(p)) ||
        (st = check_scale(p)))
        return st;
    describe_operands(p, op);
    if ((st = check_strides(p, op)) || (st = check_descale_strides(p)) ||
        (st = compute_ranges(p, op, ranges, &n_ranges)))
        return st;
    return check_overlaps(ranges, n_ranges);
}

fp8attn_status_t fp8attn_check_workspace(const fp8attn_params_t *p, const void *workspace,
                                         size_t bytes)
{
    operand_t op[4];
    byte_range_t ranges[8], ws;
    int n_ranges = 0, i;
    fp8attn_status_t st;
    describe_operands(p, op);
    if ((st = compute_ranges(p, op, ranges, &n_ranges)) != FP8ATTN_OK) return st;
    ws.begin = (uintptr_t)workspace;
    if (bytes > UINTPTR_MAX - ws.begin)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                            "workspace = %p with %zu bytes: the range wraps the address space",
                            workspace, bytes);
    ws.end = ws.begin + bytes;
    for (i = 0; i < n_ranges; i++)
        if (ws.begin < ranges[i].end && ranges[i].begin < ws.end)
            return fp8attn_fail(FP8ATTN_ERR_OVERLAP,
                                "workspace [0x%" PRIxPTR ", 0x%" PRIxPTR ") overlaps params->%s [0x%" PRIxPTR
                                ", 0x%" PRIxPTR "): the scratch must not share memory with a tensor",
                                ws.begin, ws.end, ranges[i].name, ranges[i].begin, ranges[i].end);
    return FP8ATTN_OK;
}

fp8attn_status_t fp8attn_check_descale_values(const char *name, const fp8attn_descale_t *d,
                                              int64_t batch, int64_t heads)
{
    int64_t b, h;
    for (b = 0; b < batch; b++)
        for (h = 0; h < heads; h++) {
            int64_t i = b * d->batch_stride + h * d->head_stride;
            float x = d->ptr[i];
            if (!isfinite(x) || x <= 0.0f)
                return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                                    "%s.ptr[%" PRId64 "] (b = %" PRId64 ", h = %" PRId64
                                    ") = %g: descales must be finite and > 0",
                                    name, i, b, h, (double)x);
        }
    return FP8ATTN_OK;
}
