/* Tests fp8attn_forward_cpu against a differently written naive fp64 attention in this file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8attn.h"
#include "test_util.h"

#define N_SEEDS 3

typedef enum layout { BHSD, BSHD, SLICED } layout_t;

typedef struct config {
    int batch, h_q, h_kv, seqlen_q, seqlen_k, head_dim, causal;
    layout_t layout;
    fp8attn_out_type_t out_type;
    fp8attn_format_t format;
    fp8attn_granularity_t granularity;
    int with_lse;
    float softmax_scale; /* 0 = default */
    float amplitude;     /* of the N(0,1) inputs; large with a large scale gives large scores */
} config_t;

static const config_t k_configs[] = {
    /* B hq hkv sq  sk    d  causal layout  out              format               granularity                  lse scale amp */
    {1, 1, 1, 1, 1, 64, 0, BHSD, FP8ATTN_OUT_FP16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_TENSOR, 1, 0.0f, 1.0f},
    {1, 2, 2, 1, 1, 128, 1, BSHD, FP8ATTN_OUT_BF16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_HEAD, 1, 0.0f, 1.0f},
    {2, 2, 2, 33, 77, 64, 0, BHSD, FP8ATTN_OUT_FP16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_HEAD, 1, 0.0f, 1.0f},
    {2, 2, 2, 33, 77, 128, 1, BHSD, FP8ATTN_OUT_BF16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_BATCH_HEAD, 1, 0.0f, 1.0f},
    {1, 2, 2, 77, 33, 64, 1, BSHD, FP8ATTN_OUT_FP16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_HEAD, 1, 0.0f, 1.0f},
    {2, 4, 2, 17, 29, 128, 1, BSHD, FP8ATTN_OUT_BF16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_BATCH_HEAD, 1, 0.0f, 1.0f},
    {1, 4, 1, 9, 40, 256, 0, BHSD, FP8ATTN_OUT_FP16, FP8ATTN_FORMAT_E5M2, FP8ATTN_SCALE_PER_HEAD, 1, 0.3f, 1.0f},
    {2, 4, 2, 20, 31, 64, 0, SLICED, FP8ATTN_OUT_FP16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_TENSOR, 0, 0.0f, 1.0f},
    {2, 4, 1, 25, 19, 128, 1, SLICED, FP8ATTN_OUT_BF16, FP8ATTN_FORMAT_E5M2, FP8ATTN_SCALE_PER_BATCH_HEAD, 1, 0.0f, 1.0f},
    {1, 2, 1, 16, 50, 64, 1, BSHD, FP8ATTN_OUT_BF16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_HEAD, 1, 4.0f, 3.0f},
    {1, 2, 2, 40, 40, 128, 1, BHSD, FP8ATTN_OUT_BF16, FP8ATTN_FORMAT_E5M2, FP8ATTN_SCALE_PER_TENSOR, 0, 0.0f, 1.0f},
    {1, 1, 1, 3, 16384, 256, 0, BHSD, FP8ATTN_OUT_FP16, FP8ATTN_FORMAT_E4M3, FP8ATTN_SCALE_PER_HEAD, 1, 0.0f, 1.0f},
};
#define N_CONFIGS ((int)(sizeof k_configs / sizeof k_configs[0]))

/* ---- one FP8 tensor in its layout, with its descales ---- */

typedef struct fp8_tensor {
    uint8_t *buf, *data; /* data = buf + start offset of the view */
    fp8attn_strides_t stride;
    float *descale;
    fp8attn_descale_t ds;
    int heads, seqlen;
} fp8_tensor_t;

/* Element strides of layout L; SLICED is a view into a padded [B, S + 3, H + 1, D + 32]
 * buffer that starts one token in. All strides stay multiples of 16. */
static fp8attn_strides_t layout_strides(layout_t L, int heads, int seqlen, int dim, int64_t *start)
{
    fp8attn_strides_t s;
    *start = 0;
    if (L == BHSD) return fp8attn_strides_bhsd(heads, seqlen, dim);
    if (L == BSHD) return fp8attn_strides_bshd(heads, seqlen, dim);
    s.head = dim + 32;
    s.token = (int64_t)(heads + 1) * s.head;
    s.batch = (int64_t)(seqlen + 3) * s.token;
    *start = s.token;
    return s;
}

static int64_t span(fp8attn_strides_t s, int batch, int heads, int seqlen, int dim)
{
    return (batch - 1) * s.batch + (int64_t)(heads - 1) * s.head + (int64_t)(seqlen - 1) * s.token + dim;
}

/* Draws amplitude * N(0,1) values, each (b, h) scaled by its own power of two (so per-head
 * descales differ), and quantizes them with the library into layout L. */
static fp8_tensor_t make_input(const config_t *c, int heads, int seqlen, uint64_t *rng)
{
    fp8_tensor_t t;
    fp8attn_tensor_view_t x;
    int64_t n = (int64_t)c->batch * heads * seqlen * c->head_dim, start, i, per_bh;
    float *dense = malloc((size_t)n * sizeof *dense);
    memset(&t, 0, sizeof t);
    t.heads = heads;
    t.seqlen = seqlen;
    t.stride = layout_strides(c->layout, heads, seqlen, c->head_dim, &start);
    t.buf = malloc((size_t)(start + span(t.stride, c->batch, heads, seqlen, c->head_dim)));
    /* padding holds the NaN code 0x7F: reading it would turn the results into NaN */
    memset(t.buf, 0x7F, (size_t)(start + span(t.stride, c->batch, heads, seqlen, c->head_dim)));
    t.data = t.buf + start;
    per_bh = (int64_t)seqlen * c->head_dim;
    for (i = 0; i < n; i += per_bh) {
        float group_scale = ldexpf(c->amplitude, (int)(splitmix64(rng) % 5) - 2);
        int64_t e;
        for (e = i; e < i + per_bh; e++) dense[e] = group_scale * normal(rng);
    }
    x.data = dense;
    x.type = FP8ATTN_SRC_F32;
    x.batch = c->batch;
    x.heads = heads;
    x.seqlen = seqlen;
    x.head_dim = c->head_dim;
    x.stride = fp8attn_strides_bhsd(heads, seqlen, c->head_dim);
    t.descale = malloc((size_t)fp8attn_descale_count(c->granularity, c->batch, heads) * sizeof(float));
    t.ds = fp8attn_descale_layout(c->granularity, t.descale, heads);
    if (fp8attn_compute_descales(&x, c->granularity, c->format, t.descale) != FP8ATTN_OK ||
        fp8attn_quantize(&x, t.ds, c->format, t.data, t.stride) != FP8ATTN_OK) {
        printf("cannot build inputs: %s\n", fp8attn_last_error());
        exit(1);
    }
    free(dense);
    return t;
}

static void free_input(fp8_tensor_t *t)
{
    free(t->buf);
    free(t->descale);
}

/* ---- the naive reference: decode by the field formula, full matrices, explicit mask ---- */

static double oracle_decode(fp8attn_format_t f, uint8_t code)
{
    int man = f == FP8ATTN_FORMAT_E5M2 ? 2 : 3, bias = f == FP8ATTN_FORMAT_E5M2 ? 15 : 7;
    int e = (code & 0x7F) >> man, m = code & ((1 << man) - 1);
    double v = e ? ldexp(1.0 + ldexp(m, -man), e - bias) : ldexp(m, 1 - bias - man);
    return (code & 0x80) ? -v : v;
}

/* Real value matrix [seqlen][head_dim] of head h of batch b: code value times descale. */
static void real_head(const config_t *c, const fp8_tensor_t *t, int b, int h, double *out)
{
    double ds = t->ds.ptr[b * t->ds.batch_stride + h * t->ds.head_stride];
    int s, d;
    for (s = 0; s < t->seqlen; s++)
        for (d = 0; d < c->head_dim; d++)
            out[(int64_t)s * c->head_dim + d] =
                oracle_decode(c->format, t->data[b * t->stride.batch + h * t->stride.head +
                                                 s * t->stride.token + d]) * ds;
}

typedef struct naive_work {
    double *q, *k, *v, *score, *prob;
    unsigned char *mask;
} naive_work_t;

/* O (double, [B][HQ][SQ][D]) and LSE ([B][HQ][SQ]) for one (b, h): scores matrix, mask matrix,
 * probabilities normalised first, then O = sum_j P_ij V_j. */
static void naive_head(const config_t *c, const fp8_tensor_t *q, const fp8_tensor_t *k,
                       const fp8_tensor_t *v, int b, int h, naive_work_t *w, double *o, double *lse)
{
    const int SQ = c->seqlen_q, SK = c->seqlen_k, D = c->head_dim, hk = h / (c->h_q / c->h_kv);
    const double scale = c->softmax_scale != 0.0f ? c->softmax_scale : (float)(1.0 / sqrt((double)D));
    int i, j, d;
    real_head(c, q, b, h, w->q);
    real_head(c, k, b, hk, w->k);
    real_head(c, v, b, hk, w->v);
    for (i = 0; i < SQ; i++)
        for (j = 0; j < SK; j++) {
            double dot = 0.0;
            for (d = 0; d < D; d++) dot += w->q[(int64_t)i * D + d] * w->k[(int64_t)j * D + d];
            w->score[(int64_t)i * SK + j] = scale * dot;
            w->mask[(int64_t)i * SK + j] = !c->causal || j <= i + SK - SQ;
        }
    for (i = 0; i < SQ; i++) {
        double mx = -INFINITY, sum = 0.0;
        double *orow = o + (((int64_t)b * c->h_q + h) * SQ + i) * D;
        for (j = 0; j < SK; j++)
            if (w->mask[(int64_t)i * SK + j]) mx = fmax(mx, w->score[(int64_t)i * SK + j]);
        for (j = 0; j < SK; j++) {
            double p = w->mask[(int64_t)i * SK + j] ? exp(w->score[(int64_t)i * SK + j] - mx) : 0.0;
            w->prob[j] = p;
            sum += p;
        }
        for (d = 0; d < D; d++) orow[d] = 0.0;
        lse[((int64_t)b * c->h_q + h) * SQ + i] = sum > 0.0 ? mx + log(sum) : -INFINITY;
        if (sum == 0.0) continue; /* no visible key: O = 0, LSE = -inf */
        for (j = 0; j < SK; j++) {
            double pj = w->prob[j] / sum;
            for (d = 0; d < D; d++) orow[d] += pj * w->v[(int64_t)j * D + d];
        }
    }
}

/* ---- rounding the naive result once: GCC's double -> _Float16, and a bf16 nearest search ---- */

static uint16_t fp16_bits_of(double x)
{
    volatile _Float16 h = (_Float16)x; /* converts from double directly: one rounding */
    _Float16 copy = h;
    uint16_t u;
    memcpy(&u, &copy, 2);
    return u;
}

static double bf16_value(uint16_t u)
{
    uint32_t bits = (uint32_t)u << 16;
    float f;
    memcpy(&f, &bits, 4);
    return (u & 0x7FFFu) == 0x7F80u ? copysign(ldexp(1.0, 128), f) : f; /* inf as 2^128 */
}

/* Nearest bf16 to x among the neighbours of its float rounding; ties to the even code. */
static uint16_t bf16_bits_of(double x)
{
    float f = (float)x;
    uint32_t fb;
    uint16_t best, cand[3];
    int i;
    memcpy(&fb, &f, 4);
    cand[1] = (uint16_t)(fb >> 16);
    cand[0] = (uint16_t)(cand[1] - ((cand[1] & 0x7FFFu) ? 1 : 0));
    cand[2] = (uint16_t)(cand[1] + 1);
    best = cand[0];
    for (i = 1; i < 3; i++) {
        double db = fabs(x - bf16_value(best)), dc = fabs(x - bf16_value(cand[i]));
        if (dc < db || (dc == db && (cand[i] & 1u) == 0)) best = cand[i];
    }
    return best;
}

static uint16_t round_out(fp8attn_out_type_t t, double x)
{
    return t == FP8ATTN_OUT_BF16 ? bf16_bits_of(x) : fp16_bits_of(x);
}

/* Position of a 16-bit float on a monotone integer line, so |a - b| counts ulps. */
static int32_t ordinal(uint16_t u) { return (u & 0x8000u) ? -(int32_t)(u & 0x7FFFu) : (int32_t)u; }

static int is_nan_16(uint16_t u, fp8attn_out_type_t t)
{
    return t == FP8ATTN_OUT_BF16 ? (u & 0x7F80u) == 0x7F80u && (u & 0x7Fu)
                                 : (u & 0x7C00u) == 0x7C00u && (u & 0x3FFu);
}

/* ---- running one configuration ---- */

static void run_config(int ci, const config_t *c, uint64_t seed)
{
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + (uint64_t)ci;
    fp8_tensor_t q = make_input(c, c->h_q, c->seqlen_q, &rng);
    fp8_tensor_t k = make_input(c, c->h_kv, c->seqlen_k, &rng);
    fp8_tensor_t v = make_input(c, c->h_kv, c->seqlen_k, &rng);
    const int64_t rows = (int64_t)c->batch * c->h_q * c->seqlen_q, D = c->head_dim;
    int64_t o_start, o_span, r, d, masked_rows = 0, worst_ulp = 0;
    fp8attn_strides_t os = layout_strides(c->layout, c->h_q, c->seqlen_q, c->head_dim, &o_start);
    uint16_t *o_buf;
    float *lse = NULL;
    double *o_ref = malloc((size_t)(rows * D) * sizeof *o_ref), *lse_ref = malloc((size_t)rows * sizeof *lse_ref);
    naive_work_t w;
    fp8attn_params_t p;
    fp8attn_status_t st;
    int b, h;

    o_span = o_start + span(os, c->batch, c->h_q, c->seqlen_q, c->head_dim);
    o_buf = malloc((size_t)o_span * 2);
    memset(o_buf, 0xFF, (size_t)o_span * 2); /* NaN sentinel: an unwritten element fails */
    if (c->with_lse) {
        lse = malloc((size_t)rows * sizeof *lse);
        for (r = 0; r < rows; r++) lse[r] = NAN;
    }
    fp8attn_params_init(&p);
    p.batch = c->batch;
    p.h_q = c->h_q;
    p.h_kv = c->h_kv;
    p.seqlen_q = c->seqlen_q;
    p.seqlen_k = c->seqlen_k;
    p.head_dim = c->head_dim;
    p.in_format = c->format;
    p.out_type = c->out_type;
    p.q = q.data;
    p.k = k.data;
    p.v = v.data;
    p.o = o_buf + o_start;
    p.lse = lse;
    p.q_stride = q.stride;
    p.k_stride = k.stride;
    p.v_stride = v.stride;
    p.o_stride = os;
    p.q_descale = q.ds;
    p.k_descale = k.ds;
    p.v_descale = v.ds;
    p.softmax_scale = c->softmax_scale;
    p.causal = c->causal;
    st = fp8attn_forward_cpu(&p);
    CHECK(st == FP8ATTN_OK, "config %d: status %d: %s", ci, (int)st, fp8attn_last_error());

    w.q = malloc((size_t)c->seqlen_q * D * sizeof(double));
    w.k = malloc((size_t)c->seqlen_k * D * sizeof(double));
    w.v = malloc((size_t)c->seqlen_k * D * sizeof(double));
    w.score = malloc((size_t)c->seqlen_q * c->seqlen_k * sizeof(double));
    w.prob = malloc((size_t)c->seqlen_k * sizeof(double));
    w.mask = malloc((size_t)c->seqlen_q * c->seqlen_k);
    for (b = 0; b < c->batch; b++)
        for (h = 0; h < c->h_q; h++) naive_head(c, &q, &k, &v, b, h, &w, o_ref, lse_ref);

    for (r = 0; r < rows; r++) {
        int64_t bb = r / ((int64_t)c->h_q * c->seqlen_q), hh = r / c->seqlen_q % c->h_q, i = r % c->seqlen_q;
        const uint16_t *orow = (const uint16_t *)p.o + bb * os.batch + hh * os.head + i * os.token;
        int fully_masked = isinf(lse_ref[r]) && lse_ref[r] < 0;
        masked_rows += fully_masked;
        for (d = 0; d < D; d++) {
            double x = o_ref[r * D + d];
            uint16_t want = round_out(c->out_type, x), got = orow[d];
            int64_t ulps = labs((long)(ordinal(got) - ordinal(want)));
            /* Both sides compute in double and round once, but in different orders (descales
             * applied before vs after the dot products, probabilities normalised before vs
             * after summing), so their doubles agree only to ~1e-15 relative. Where x is that
             * close to a rounding boundary of the output type they may round to neighbours:
             * accept the rounding of x moved by 1e-12 relative (at most 1 ulp away, and only
             * near a boundary). Exact match everywhere else, so truncation or double rounding
             * through float is caught. */
            int ok = got == want || got == round_out(c->out_type, x * (1.0 - 1e-12)) ||
                     got == round_out(c->out_type, x * (1.0 + 1e-12));
            CHECK(!is_nan_16(got, c->out_type) && ok && (!fully_masked || got == 0),
                  "config %d seed %d: O[row %lld][%lld] = 0x%04x, want 0x%04x (%.17g)", ci,
                  (int)seed, (long long)r, (long long)d, got, want, x);
            if (ulps > worst_ulp) worst_ulp = ulps;
        }
        if (lse) {
            /* the output is fp32: allow its rounding (half an ulp, at most 2^-24 relative),
             * plus 1e-9 relative for the different fp64 evaluation order (whose actual
             * error is ~1e-15); the +1 covers an LSE near 0 left by cancellation */
            double tol = ldexp(fabs(lse_ref[r]), -24) + 1e-9 * (fabs(lse_ref[r]) + 1.0);
            CHECK(fully_masked ? isinf(lse[r]) && lse[r] < 0 : fabs((double)lse[r] - lse_ref[r]) <= tol,
                  "config %d seed %d: lse[%lld] = %.9g, want %.17g", ci, (int)seed, (long long)r,
                  (double)lse[r], lse_ref[r]);
        }
    }
    if (c->causal && c->seqlen_q > c->seqlen_k)
        CHECK(masked_rows == (int64_t)c->batch * c->h_q * (c->seqlen_q - c->seqlen_k),
              "config %d: %lld fully masked rows, want %lld", ci, (long long)masked_rows,
              (long long)c->batch * c->h_q * (c->seqlen_q - c->seqlen_k));
    printf("config %2d seed %d: B=%d h_q=%d h_kv=%d sq=%d sk=%d d=%d causal=%d: max %lld ulp\n", ci,
           (int)seed, c->batch, c->h_q, c->h_kv, c->seqlen_q, c->seqlen_k, c->head_dim, c->causal,
           (long long)worst_ulp);

    free(w.q);
    free(w.k);
    free(w.v);
    free(w.score);
    free(w.prob);
    free(w.mask);
    free(o_ref);
    free(lse_ref);
    free(o_buf);
    free(lse);
    free_input(&q);
    free_input(&k);
    free_input(&v);
}

static void *alloc16(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 16, bytes) != 0) abort();
    return p;
}

/* With a single key, O = v * v_descale exactly on both sides (p = 1, sum = 1). V codes that are
 * powers of two and v_descale = 1 + half an output ulp put every O element exactly on a
 * rounding tie, so ties-to-even is checked with no tolerance at all. */
static void test_rounding_ties(fp8attn_out_type_t out_type, uint64_t seed)
{
    enum { SQ = 4, D = 64 };
    uint64_t rng = seed;
    uint8_t *q = alloc16(SQ * D), *k = alloc16(D), *v = alloc16(D);
    uint16_t *o = alloc16(SQ * D * 2);
    float qd = 0.5f, kd = 0.25f, vd = 1.0f + ldexpf(1.0f, out_type == FP8ATTN_OUT_BF16 ? -8 : -11);
    fp8attn_params_t p;
    fp8attn_status_t st;
    int i;
    for (i = 0; i < SQ * D; i++) q[i] = (uint8_t)(1 + splitmix64(&rng) % 0x7E);
    for (i = 0; i < D; i++) {
        uint64_t r = splitmix64(&rng);
        k[i] = (uint8_t)(1 + r % 0x7E);
        v[i] = (uint8_t)(((1 + (r >> 8) % 15) << 3) | ((r >> 16) & 0x80)); /* +-2^(E-7) */
    }
    fp8attn_params_init(&p);
    p.batch = p.h_q = p.h_kv = p.seqlen_k = 1;
    p.seqlen_q = SQ;
    p.head_dim = D;
    p.out_type = out_type;
    p.q = q;
    p.k = k;
    p.v = v;
    p.o = o;
    p.q_stride = p.o_stride = fp8attn_strides_bhsd(1, SQ, D);
    p.k_stride = p.v_stride = fp8attn_strides_bhsd(1, 1, D);
    p.q_descale.ptr = &qd;
    p.k_descale.ptr = &kd;
    p.v_descale.ptr = &vd;
    st = fp8attn_forward_cpu(&p);
    CHECK(st == FP8ATTN_OK, "ties: status %d: %s", (int)st, fp8attn_last_error());
    for (i = 0; i < SQ * D; i++) {
        double x = oracle_decode(FP8ATTN_FORMAT_E4M3, v[i % D]) * (double)vd;
        CHECK(o[i] == round_out(out_type, x), "ties (out_type %d): O[%d] = 0x%04x, want 0x%04x (%.17g)",
              (int)out_type, i, o[i], round_out(out_type, x), x);
    }
    free(q);
    free(k);
    free(v);
    free(o);
}

int main(void)
{
    int ci;
    uint64_t seed;
    for (ci = 0; ci < N_CONFIGS; ci++)
        for (seed = 1; seed <= N_SEEDS; seed++) run_config(ci, &k_configs[ci], seed);
    for (seed = 1; seed <= N_SEEDS; seed++) {
        test_rounding_ties(FP8ATTN_OUT_FP16, seed);
        test_rounding_ties(FP8ATTN_OUT_BF16, seed);
    }
    if (g_failures) {
        printf("%ld failure(s)\n", g_failures);
        return 1;
    }
    printf("all reference checks passed\n");
    return 0;
}
