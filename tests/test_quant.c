/* Tests descale computation and FP8 quantization (sources, layouts, round trip, errors). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8attn.h"
#include "test_util.h"

/* ---- the test's own view of the formats (independent of src/codec.c) ---- */

typedef struct fmt_info {
    int man_bits, bias, max_e_field, max_m; /* largest finite: fields (max_e_field, max_m) */
} fmt_info_t;

static fmt_info_t fmt_info(fp8attn_format_t f)
{
    fmt_info_t e4m3 = {3, 7, 15, 6}, e5m2 = {2, 15, 30, 3};
    return f == FP8ATTN_FORMAT_E5M2 ? e5m2 : e4m3;
}

static double fmt_max(fp8attn_format_t f)
{
    fmt_info_t i = fmt_info(f);
    return ldexp(1.0 + ldexp(i.max_m, -i.man_bits), i.max_e_field - i.bias);
}

static double oracle_decode(fp8attn_format_t f, uint8_t code)
{
    fmt_info_t i = fmt_info(f);
    int e = (code & 0x7F) >> i.man_bits, m = code & ((1 << i.man_bits) - 1);
    double v = e ? ldexp(1.0 + ldexp(m, -i.man_bits), e - i.bias) : ldexp(m, 1 - i.bias - i.man_bits);
    if ((code & 0x7F) > (f == FP8ATTN_FORMAT_E5M2 ? 0x7B : 0x7E)) v = NAN; /* inf or NaN code */
    return (code & 0x80) ? -v : v;
}

/* Half the spacing of the format's values at magnitude |y| (subnormal spacing below). */
static double half_ulp(fp8attn_format_t f, double y)
{
    fmt_info_t i = fmt_info(f);
    int e = y != 0.0 ? (int)floor(log2(fabs(y))) : 0;
    if (e < 1 - i.bias) e = 1 - i.bias;
    return ldexp(1.0, e - i.man_bits - 1);
}

/* ---- host tensors in any source type and layout, with the exact value of each element ---- */

typedef struct test_tensor {
    fp8attn_tensor_view_t view;
    void *buf;
    double *value; /* dense [b][h][s][d]: exact value of each element as stored */
} test_tensor_t;

static int64_t offset_of(fp8attn_strides_t st, int64_t b, int64_t h, int64_t s, int64_t d)
{
    return b * st.batch + h * st.head + s * st.token + d;
}

static int64_t span_of(const fp8attn_tensor_view_t *v, fp8attn_strides_t st)
{
    return offset_of(st, v->batch - 1, v->heads - 1, v->seqlen - 1, v->head_dim);
}

/* Stores x in the view's type: bf16 by truncation and fp16 by GCC's conversion, so the stored
 * value is known independently of the library. */
static void store(test_tensor_t *t, int64_t off, float x)
{
    uint32_t u;
    _Float16 h;
    switch (t->view.type) {
    case FP8ATTN_SRC_F16:
        h = (_Float16)x;
        memcpy((uint16_t *)t->buf + off, &h, 2);
        return;
    case FP8ATTN_SRC_BF16:
        memcpy(&u, &x, 4);
        ((uint16_t *)t->buf)[off] = (uint16_t)(u >> 16);
        return;
    case FP8ATTN_SRC_F32: break;
    }
    ((float *)t->buf)[off] = x;
}

/* Exact value of the stored element at `off`. */
static double load(const test_tensor_t *t, int64_t off)
{
    uint32_t u;
    float f;
    _Float16 h;
    switch (t->view.type) {
    case FP8ATTN_SRC_F16:
        memcpy(&h, (const uint16_t *)t->buf + off, 2);
        return (double)h;
    case FP8ATTN_SRC_BF16:
        u = (uint32_t)((const uint16_t *)t->buf)[off] << 16;
        memcpy(&f, &u, 4);
        return f;
    case FP8ATTN_SRC_F32: break;
    }
    return ((const float *)t->buf)[off];
}

/* value[] from the buffer through the view (stride 0 makes several (b, h) share storage). */
static void read_values(test_tensor_t *t)
{
    const fp8attn_tensor_view_t *v = &t->view;
    int64_t b, h, s, d, i = 0;
    for (b = 0; b < v->batch; b++)
        for (h = 0; h < v->heads; h++)
            for (s = 0; s < v->seqlen; s++)
                for (d = 0; d < v->head_dim; d++) t->value[i++] = load(t, offset_of(v->stride, b, h, s, d));
}

/* A [batch, heads, seqlen, head_dim] tensor of normals scaled by a random power of two per
 * (b, h), so every group has its own amax; element (b, h, s, d) at `st`. The padding is NaN,
 * so a read outside the view makes compute_descales refuse the input. */
static test_tensor_t make_tensor(fp8attn_src_type_t type, int batch, int heads, int seqlen, int dim,
                                 fp8attn_strides_t st, uint64_t *rng)
{
    test_tensor_t t;
    int64_t n, b, h, s, d;
    size_t elem = type == FP8ATTN_SRC_F32 ? 4 : 2;
    memset(&t, 0, sizeof t);
    t.view.type = type;
    t.view.batch = batch;
    t.view.heads = heads;
    t.view.seqlen = seqlen;
    t.view.head_dim = dim;
    t.view.stride = st;
    n = span_of(&t.view, st);
    t.buf = malloc((size_t)n * elem);
    t.value = malloc((size_t)batch * heads * seqlen * dim * sizeof(double));
    for (b = 0; b < n; b++) store(&t, b, NAN);
    for (b = 0; b < batch; b++)
        for (h = 0; h < heads; h++) {
            float scale = ldexpf(1.0f, (int)(splitmix64(rng) % 17) - 8);
            for (s = 0; s < seqlen; s++)
                for (d = 0; d < dim; d++) store(&t, offset_of(st, b, h, s, d), scale * normal(rng));
        }
    t.view.data = t.buf;
    read_values(&t);
    return t;
}

static void free_tensor(test_tensor_t *t)
{
    free(t->buf);
    free(t->value);
}

static int64_t group_of(fp8attn_granularity_t g, int64_t b, int64_t h, int64_t heads)
{
    return g == FP8ATTN_SCALE_PER_TENSOR ? 0 : g == FP8ATTN_SCALE_PER_HEAD ? h : b * heads + h;
}

/* Expected descales by a direct pass over the dense values. */
static void expected_descales(const test_tensor_t *t, fp8attn_granularity_t g, fp8attn_format_t f,
                              float *want, int64_t n_groups)
{
    const fp8attn_tensor_view_t *v = &t->view;
    int64_t per_bh = (int64_t)v->seqlen * v->head_dim, i, k;
    float *amax = calloc((size_t)n_groups, sizeof *amax);
    for (i = 0; i < (int64_t)v->batch * v->heads; i++) {
        int64_t grp = group_of(g, i / v->heads, i % v->heads, v->heads);
        for (k = 0; k < per_bh; k++) {
            float a = (float)fabs(t->value[i * per_bh + k]);
            if (a > amax[grp]) amax[grp] = a;
        }
    }
    for (i = 0; i < n_groups; i++) { /* amax / max, floored at the smallest normal float */
        float d = amax[i] / (float)fmt_max(f);
        want[i] = amax[i] == 0.0f ? 1.0f : d < FLT_MIN ? FLT_MIN : d;
    }
    free(amax);
}

/* Quantizes with the given descales into `out_st` and checks every element: the decoded code
 * is within half an ulp of x / descale (the rounding error bound of round-to-nearest), with
 * the same sign, and nothing outside the view is written. */
static void check_round_trip(const test_tensor_t *t, fp8attn_descale_t ds, fp8attn_format_t f,
                             fp8attn_strides_t out_st, const char *what)
{
    const fp8attn_tensor_view_t *v = &t->view;
    int64_t n = span_of(v, out_st), b, h, s, d, i = 0;
    uint8_t *out = malloc((size_t)n), *in_view = calloc((size_t)n, 1);
    fp8attn_status_t st;
    memset(out, 0xA5, (size_t)n);
    st = fp8attn_quantize(v, ds, f, out, out_st);
    CHECK(st == FP8ATTN_OK, "%s: quantize status %d: %s", what, (int)st, fp8attn_last_error());
    for (b = 0; b < v->batch; b++)
        for (h = 0; h < v->heads; h++) {
            float dsc = ds.ptr[b * ds.batch_stride + h * ds.head_stride];
            for (s = 0; s < v->seqlen; s++)
                for (d = 0; d < v->head_dim; d++) {
                    double y = (float)t->value[i++] / dsc; /* the float division of the spec */
                    int64_t off = offset_of(out_st, b, h, s, d);
                    double dec = oracle_decode(f, out[off]);
                    in_view[off] = 1;
                    CHECK(fabs(dec - y) <= half_ulp(f, fmin(fabs(y), fmt_max(f))) &&
                              (dec == 0.0 || (dec < 0) == (y < 0)),
                          "%s: (%d,%d,%d,%d) y = %.9g decodes to %.9g", what, (int)b, (int)h, (int)s,
                          (int)d, y, dec);
                }
        }
    for (i = 0; i < n; i++)
        if (!in_view[i]) CHECK(out[i] == 0xA5, "%s: byte %lld outside the view written", what, (long long)i);
    free(out);
    free(in_view);
}

static fp8attn_strides_t strides(int64_t batch, int64_t head, int64_t token)
{
    fp8attn_strides_t s;
    s.batch = batch;
    s.head = head;
    s.token = token;
    return s;
}

static void test_counts_and_layouts(uint64_t *rng)
{
    int i;
    for (i = 0; i < 20; i++) {
        int32_t b = 1 + (int32_t)(splitmix64(rng) % 9), h = 1 + (int32_t)(splitmix64(rng) % 17);
        float dummy;
        fp8attn_descale_t lt = fp8attn_descale_layout(FP8ATTN_SCALE_PER_TENSOR, &dummy, h);
        fp8attn_descale_t lh = fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, &dummy, h);
        fp8attn_descale_t lbh = fp8attn_descale_layout(FP8ATTN_SCALE_PER_BATCH_HEAD, &dummy, h);
        CHECK(fp8attn_descale_count(FP8ATTN_SCALE_PER_TENSOR, b, h) == 1, "count per tensor");
        CHECK(fp8attn_descale_count(FP8ATTN_SCALE_PER_HEAD, b, h) == h, "count per head");
        CHECK(fp8attn_descale_count(FP8ATTN_SCALE_PER_BATCH_HEAD, b, h) == (int64_t)b * h,
              "count per batch-head");
        CHECK(lt.ptr == &dummy && lt.batch_stride == 0 && lt.head_stride == 0, "layout per tensor");
        CHECK(lh.ptr == &dummy && lh.batch_stride == 0 && lh.head_stride == 1, "layout per head");
        CHECK(lbh.ptr == &dummy && lbh.batch_stride == h && lbh.head_stride == 1,
              "layout per batch-head");
    }
    CHECK(fp8attn_descale_count((fp8attn_granularity_t)3, 2, 2) == 0 &&
              strstr(fp8attn_last_error(), "granularity = 3"),
          "count with unknown granularity: %s", fp8attn_last_error());
    CHECK(fp8attn_descale_count(FP8ATTN_SCALE_PER_HEAD, 0, 2) == 0 &&
              strstr(fp8attn_last_error(), "batch = 0"),
          "count with batch 0: %s", fp8attn_last_error());
    CHECK(fp8attn_descale_layout((fp8attn_granularity_t)-1, (const float *)rng, 4).ptr == NULL,
          "layout with unknown granularity must be unusable");
}

/* Descales (all granularities, types, formats, layouts) and the quantize round trip. */
static void test_descales_and_round_trip(uint64_t *rng)
{
    const int B = 2, H = 3, S = 5, D = 7;
    fp8attn_strides_t layouts[4];
    fp8attn_strides_t out_st = strides((int64_t)H * S * (D + 3), (int64_t)S * (D + 3), D + 3);
    int li, t, g, f;
    layouts[0] = strides((int64_t)H * S * D, (int64_t)S * D, D);                 /* BHSD dense */
    layouts[1] = strides((int64_t)S * (H * D + 5) + 11, D, H * D + 5);         /* BSHD padded */
    layouts[2] = strides(0, (int64_t)S * D, D);                                   /* batch broadcast */
    layouts[3] = strides((int64_t)H * S * D * 2, (int64_t)S * D * 2 + 1, D * 2); /* sliced */
    for (li = 0; li < 4; li++)
        for (t = 0; t < 3; t++)
            for (f = 0; f < 2; f++)
                for (g = 0; g < 3; g++) {
                    char what[96];
                    test_tensor_t x = make_tensor((fp8attn_src_type_t)t, B, H, S, D, layouts[li], rng);
                    int64_t n = fp8attn_descale_count((fp8attn_granularity_t)g, B, H), i;
                    float got[6], want[6];
                    fp8attn_status_t st;
                    snprintf(what, sizeof what, "layout %d type %d format %d granularity %d", li, t,
                             f, g);
                    st = fp8attn_compute_descales(&x.view, (fp8attn_granularity_t)g,
                                                  (fp8attn_format_t)f, got);
                    CHECK(st == FP8ATTN_OK, "%s: status %d: %s", what, (int)st, fp8attn_last_error());
                    expected_descales(&x, (fp8attn_granularity_t)g, (fp8attn_format_t)f, want, n);
                    for (i = 0; i < n; i++)
                        CHECK(got[i] == want[i], "%s: descale[%d] = %.9g, want %.9g", what, (int)i,
                              (double)got[i], (double)want[i]);
                    check_round_trip(&x, fp8attn_descale_layout((fp8attn_granularity_t)g, got, H),
                                     (fp8attn_format_t)f, out_st, what);
                    free_tensor(&x);
                }
}

/* amax 0 gives descale 1; an amax so small that amax / max underflows gives FLT_MIN (a normal
 * descale) that quantizes within the round-trip bound. */
static void test_zero_and_tiny_groups(uint64_t *rng)
{
    fp8attn_strides_t st = strides(2 * 16, 16, 16);
    test_tensor_t x = make_tensor(FP8ATTN_SRC_F32, 1, 2, 1, 16, st, rng);
    float ds[2];
    int d;
    for (d = 0; d < 16; d++) {
        ((float *)x.buf)[d] = 0.0f;                          /* head 0: all zero */
        ((float *)x.buf)[16 + d] = d % 2 ? 1e-44f : -3e-45f; /* head 1: tiny subnormals */
    }
    read_values(&x);
    CHECK(fp8attn_compute_descales(&x.view, FP8ATTN_SCALE_PER_HEAD, FP8ATTN_FORMAT_E4M3, ds) ==
              FP8ATTN_OK,
          "zero/tiny groups: %s", fp8attn_last_error());
    CHECK(ds[0] == 1.0f, "all-zero head: descale %g, want 1", (double)ds[0]);
    CHECK(ds[1] == FLT_MIN, "tiny head: descale %g, want FLT_MIN", (double)ds[1]);
    check_round_trip(&x, fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, ds, 2), FP8ATTN_FORMAT_E4M3,
                     st, "zero/tiny groups");
    free_tensor(&x);
}

/* Groups whose amax / format max is below FLT_MIN (subnormal amax, and normal amax below
 * max * FLT_MIN): the descale is FLT_MIN, normal, and x / descale never exceeds the format max,
 * so E5M2 gets no inf code and E4M3 no saturation; a group just above gets amax / max exactly
 * (float division) and also quantizes amax to the format max. */
static void test_underflowing_descales(uint64_t *rng)
{
    const float amaxes[6] = {1e-40f, 1.4e-45f, 3e-39f, 1e-36f, 5e-36f, 1e-33f};
    fp8attn_strides_t st = strides(6 * 8, 8, 8);
    int f, g, d;
    for (f = 0; f < 2; f++) {
        const fp8attn_format_t format = (fp8attn_format_t)f;
        const float fmax = (float)fmt_max(format);
        test_tensor_t x = make_tensor(FP8ATTN_SRC_F32, 1, 6, 1, 8, st, rng);
        float ds[6];
        uint8_t out[6 * 8];
        memset(out, 0xA5, sizeof out);
        for (g = 0; g < 6; g++)
            for (d = 0; d < 8; d++) /* amax at d = 3, with either sign; the rest smaller */
                ((float *)x.buf)[g * 8 + d] = d == 3 ? (g % 2 ? -amaxes[g] : amaxes[g])
                                                     : amaxes[g] * (float)(d + 1) / 16.0f;
        read_values(&x);
        CHECK(fp8attn_compute_descales(&x.view, FP8ATTN_SCALE_PER_HEAD, format, ds) == FP8ATTN_OK,
              "underflowing descales: %s", fp8attn_last_error());
        CHECK(fp8attn_quantize(&x.view, fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, ds, 6), format,
                               out, st) == FP8ATTN_OK,
              "underflowing descales: quantize: %s", fp8attn_last_error());
        for (g = 0; g < 6; g++) {
            double want = (double)amaxes[g] / fmax < (double)FLT_MIN ? (double)FLT_MIN
                                                                     : (double)(amaxes[g] / fmax);
            CHECK(isnormal(ds[g]) && (double)ds[g] == want,
                  "format %d amax %g: descale %g, want %g (normal)", f, (double)amaxes[g],
                  (double)ds[g], want);
            for (d = 0; d < 8; d++) {
                double dec = oracle_decode(format, out[g * 8 + d]);
                CHECK(!isnan(dec) && fabs(dec) <= fmt_max(format),
                      "format %d amax %g d %d: code 0x%02x (inf, NaN or past the max)", f,
                      (double)amaxes[g], d, out[g * 8 + d]);
            }
        }
        /* the last group's amax / descale is the format max itself */
        CHECK(fabs(oracle_decode(format, out[5 * 8 + 3])) == fmt_max(format),
              "format %d: amax 1e-33 quantizes to %g, want the max", f,
              oracle_decode(format, out[5 * 8 + 3]));
        check_round_trip(&x, fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, ds, 6), format, st,
                         "underflowing descales");
        free_tensor(&x);
    }
}

static int expect(fp8attn_status_t got, fp8attn_status_t want, const char *needle, const char *what)
{
    int ok = got == want && strstr(fp8attn_last_error(), needle) != NULL;
    CHECK(ok, "%s: status %d (want %d), message \"%s\" should name \"%s\"", what, (int)got,
          (int)want, fp8attn_last_error(), needle);
    return ok;
}

static int all_bytes(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = p;
    size_t i;
    for (i = 0; i < n; i++)
        if (c[i] != v) return 0;
    return 1;
}

static void test_descale_errors(uint64_t *rng)
{
    fp8attn_strides_t st = strides(2 * 3 * 16, 3 * 16, 16);
    test_tensor_t x = make_tensor(FP8ATTN_SRC_F32, 2, 3, 3, 16, st, rng);
    fp8attn_tensor_view_t v = x.view;
    float out[6];
    memset(out, 0x5A, sizeof out);
#define DESCALES(view) fp8attn_compute_descales(view, FP8ATTN_SCALE_PER_BATCH_HEAD, FP8ATTN_FORMAT_E4M3, out)
    expect(DESCALES(NULL), FP8ATTN_ERR_NULL_POINTER, "x = NULL", "x NULL");
    v.data = NULL;
    expect(DESCALES(&v), FP8ATTN_ERR_NULL_POINTER, "x->data", "data NULL");
    v = x.view;
    v.type = (fp8attn_src_type_t)3;
    expect(DESCALES(&v), FP8ATTN_ERR_INVALID_FORMAT, "x->type = 3", "unknown type");
    v = x.view;
    v.seqlen = 0;
    expect(DESCALES(&v), FP8ATTN_ERR_INVALID_SIZE, "x->seqlen = 0", "seqlen 0");
    v = x.view;
    v.head_dim = -4;
    expect(DESCALES(&v), FP8ATTN_ERR_INVALID_SIZE, "x->head_dim = -4", "head_dim < 0");
    v = x.view;
    v.stride.token = -16;
    expect(DESCALES(&v), FP8ATTN_ERR_INVALID_STRIDE, "x->stride.token = -16", "negative stride");
    v = x.view;
    v.stride.batch = INT64_MAX / 2 + 1; /* (batch - 1) * stride + ... exceeds int64 */
    v.batch = 3;
    expect(DESCALES(&v), FP8ATTN_ERR_TOO_LARGE, "x->stride.batch", "offset overflow");
    expect(fp8attn_compute_descales(&x.view, (fp8attn_granularity_t)7, FP8ATTN_FORMAT_E4M3, out),
           FP8ATTN_ERR_INVALID_ARGUMENT, "granularity = 7", "unknown granularity");
    expect(fp8attn_compute_descales(&x.view, FP8ATTN_SCALE_PER_HEAD, (fp8attn_format_t)2, out),
           FP8ATTN_ERR_INVALID_FORMAT, "format = 2", "unknown format");
    expect(fp8attn_compute_descales(&x.view, FP8ATTN_SCALE_PER_HEAD, FP8ATTN_FORMAT_E4M3, NULL),
           FP8ATTN_ERR_NULL_POINTER, "descale_out", "out NULL");
    ((float *)x.buf)[offset_of(st, 1, 2, 1, 5)] = NAN;
    expect(DESCALES(&x.view), FP8ATTN_ERR_INVALID_ARGUMENT, "b = 1, h = 2, s = 1, d = 5", "NaN input");
    ((float *)x.buf)[offset_of(st, 1, 2, 1, 5)] = 1.0f;
    ((float *)x.buf)[offset_of(st, 0, 1, 2, 0)] = -INFINITY;
    expect(DESCALES(&x.view), FP8ATTN_ERR_INVALID_ARGUMENT, "b = 0, h = 1, s = 2, d = 0", "-inf input");
    CHECK(all_bytes(out, sizeof out, 0x5A), "descale_out written although the call failed");
#undef DESCALES
    free_tensor(&x);
}

static void test_quantize_errors(uint64_t *rng)
{
    fp8attn_strides_t st = strides(2 * 3 * 16, 3 * 16, 16);
    test_tensor_t x = make_tensor(FP8ATTN_SRC_F32, 2, 3, 3, 16, st, rng);
    float ds_values[6] = {0.5f, 1.0f, 2.0f, 0.25f, 4.0f, 1.5f};
    fp8attn_descale_t ds = fp8attn_descale_layout(FP8ATTN_SCALE_PER_BATCH_HEAD, ds_values, 3), bad;
    uint8_t out[2 * 3 * 3 * 16];
    fp8attn_strides_t ost = st;
    memset(out, 0x5A, sizeof out);
#define QUANT(d, o) fp8attn_quantize(&x.view, d, FP8ATTN_FORMAT_E5M2, out, o)
    expect(fp8attn_quantize(NULL, ds, FP8ATTN_FORMAT_E4M3, out, st), FP8ATTN_ERR_NULL_POINTER,
           "x = NULL", "x NULL");
    expect(fp8attn_quantize(&x.view, ds, FP8ATTN_FORMAT_E4M3, NULL, st), FP8ATTN_ERR_NULL_POINTER,
           "out = NULL", "out NULL");
    expect(fp8attn_quantize(&x.view, ds, (fp8attn_format_t)9, out, st), FP8ATTN_ERR_INVALID_FORMAT,
           "format = 9", "unknown format");
    ost.head = -1;
    expect(QUANT(ds, ost), FP8ATTN_ERR_INVALID_STRIDE, "out_stride.head = -1", "negative out stride");
    bad = ds;
    bad.ptr = NULL;
    expect(QUANT(bad, st), FP8ATTN_ERR_NULL_POINTER, "descale.ptr", "descale NULL");
    bad = ds;
    bad.batch_stride = -3;
    expect(QUANT(bad, st), FP8ATTN_ERR_INVALID_DESCALE, "descale.batch_stride = -3",
           "negative descale stride");
    ds_values[4] = 0.0f;
    expect(QUANT(ds, st), FP8ATTN_ERR_INVALID_DESCALE, "descale.ptr[4]", "zero descale");
    ds_values[4] = -1.0f;
    expect(QUANT(ds, st), FP8ATTN_ERR_INVALID_DESCALE, "descale.ptr[4]", "negative descale");
    ds_values[4] = INFINITY;
    expect(QUANT(ds, st), FP8ATTN_ERR_INVALID_DESCALE, "descale.ptr[4]", "inf descale");
    ds_values[4] = 4.0f;
    ds_values[2] = NAN;
    expect(QUANT(ds, st), FP8ATTN_ERR_INVALID_DESCALE, "descale.ptr[2]", "NaN descale");
    CHECK(all_bytes(out, sizeof out, 0x5A), "out written although the call failed");
#undef QUANT
    free_tensor(&x);
}

int main(void)
{
    uint64_t seed;
    for (seed = 1; seed <= 3; seed++) {
        uint64_t rng = seed * 0x2545F4914F6CDD1Dull;
        test_counts_and_layouts(&rng);
        test_descales_and_round_trip(&rng);
        test_zero_and_tiny_groups(&rng);
        test_underflowing_descales(&rng);
        test_descale_errors(&rng);
        test_quantize_errors(&rng);
    }
    if (g_failures) {
        printf("%ld failure(s)\n", g_failures);
        return 1;
    }
    printf("all quantization checks passed\n");
    return 0;
}
