/* fp8attn_forward_cpu: the CPU reference forward (exact FP8 decode, fp64 math, one rounding). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Working memory for one (batch, kv head): its K and V decoded once, reused by its query heads.
 * Decoded codes are stored without descales: every FP8 value is exact in float. */
typedef struct scratch {
    float *kt;        /* [head_dim][seqlen_k]: K transposed, so scores vectorize over keys */
    float *v;         /* [seqlen_k][head_dim] */
    double *s;        /* [seqlen_k]: scores, then exp(score - max), of one query row */
    double *q;        /* [head_dim]: decoded query row */
    double *acc;      /* [head_dim]: sum_j p_j v_j */
    float table[256]; /* decoded value of every code of the input format */
} scratch_t;

static float descale_at(const fp8attn_descale_t *d, int64_t b, int64_t h)
{
    return d->ptr[b * d->batch_stride + h * d->head_stride];
}

/* The GPU kernels fold softmax_scale * q_descale * k_descale (mma: times log2 e first) into one
 * fp32 multiplier per (b, query head), formed left to right in fp32 with subnormals flushed to
 * zero. Refuses a
 * (b, h) where that product, or its partial product softmax_scale * q_descale, is not a finite,
 * normal fp32 number: the GPU would compute such a problem wrongly (inf, NaN or zero scores). */
static fp8attn_status_t check_score_scales(const fp8attn_params_t *p)
{
    const int64_t group = p->h_q / p->h_kv;
    const float scale = fp8attn_effective_scale(p);
    int64_t b, h;
    for (b = 0; b < p->batch; b++)
        for (h = 0; h < p->h_q; h++) {
            const int64_t hk = h / group;
            const int64_t iq = b * p->q_descale.batch_stride + h * p->q_descale.head_stride;
            const int64_t ik = b * p->k_descale.batch_stride + hk * p->k_descale.head_stride;
            const float qd = p->q_descale.ptr[iq], kd = p->k_descale.ptr[ik];
            volatile float partial = scale * qd; /* volatile: rounded to fp32 here */
            volatile float product = partial * kd;
            /* mma multiplies by log2(e) first: (scale * log2 e) * qd * kd must be normal too */
            volatile float partial2 = scale * 1.4426950408889634f * qd;
            volatile float product2 = partial2 * kd;
            if (!isnormal(partial) || !isnormal(product) || !isnormal(partial2) ||
                !isnormal(product2))
                return fp8attn_fail(FP8ATTN_ERR_INVALID_DESCALE,
                                    "params->softmax_scale * params->q_descale.ptr[%" PRId64
                                    "] * params->k_descale.ptr[%" PRId64 "] (b = %" PRId64
                                    ", h = %" PRId64 ", kv head = %" PRId64 ") = %g * %g * %g = %g "
                                    "in fp32 (partial product %g): must be a finite, normal fp32 "
                                    "number (>= %g and <= %g), as the GPU kernels form this "
                                    "product in fp32",
                                    iq, ik, b, h, hk, (double)scale, (double)qd, (double)kd,
                                    (double)product, (double)partial, (double)FLT_MIN,
                                    (double)FLT_MAX);
        }
    return FP8ATTN_OK;
}

static void free_scratch(scratch_t *w)
{
    free(w->kt);
    free(w->v);
    free(w->s);
    free(w->q);
    free(w->acc);
}

static fp8attn_status_t alloc_scratch(const fp8attn_params_t *p, scratch_t *w)
{
    size_t sk = (size_t)p->seqlen_k, dim = (size_t)p->head_dim;
    memset(w, 0, sizeof *w);
    if (sk > SIZE_MAX / sizeof(double) / dim)
        return fp8attn_fail(FP8ATTN_ERR_OUT_OF_MEMORY,
                            "params->seqlen_k = %d: K/V scratch does not fit in memory",
                            (int)p->seqlen_k);
    w->kt = malloc(sk * dim * sizeof *w->kt);
    w->v = malloc(sk * dim * sizeof *w->v);
    w->s = malloc(sk * sizeof *w->s);
    w->q = malloc(dim * sizeof *w->q);
    w->acc = malloc(dim * sizeof *w->acc);
    if (!w->kt || !w->v || !w->s || !w->q || !w->acc) {
        free_scratch(w);
        return fp8attn_fail(FP8ATTN_ERR_OUT_OF_MEMORY,
                            "cannot allocate %zu bytes of scratch for seqlen_k = %d, head_dim = %d",
                            2 * sk * dim * sizeof(float) + (sk + 2 * dim) * sizeof(double),
                            (int)p->seqlen_k, (int)p->head_dim);
    }
    return FP8ATTN_OK;
}

/* Decodes head hk of batch b of K (transposed) and V into the scratch. */
static void decode_kv_head(const fp8attn_params_t *p, scratch_t *w, int64_t b, int64_t hk)
{
    int64_t sk = p->seqlen_k, dim = p->head_dim, j, d;
    const uint8_t *k = p->k + b * p->k_stride.batch + hk * p->k_stride.head;
    const uint8_t *v = p->v + b * p->v_stride.batch + hk * p->v_stride.head;
    for (j = 0; j < sk; j++) {
        const uint8_t *krow = k + j * p->k_stride.token, *vrow = v + j * p->v_stride.token;
        for (d = 0; d < dim; d++) {
            w->kt[d * sk + j] = w->table[krow[d]];
            w->v[j * dim + d] = w->table[vrow[d]];
        }
    }
}

static uint16_t round_output(fp8attn_out_type_t type, double x)
{
    return type == FP8ATTN_OUT_BF16 ? fp8attn_double_to_bf16(x) : fp8attn_double_to_fp16(x);
}

/* Keys visible to query row i: all of them, or j <= i + seqlen_k - seqlen_q when causal. */
static int64_t visible_keys(const fp8attn_params_t *p, int64_t i)
{
    int64_t n = i + (int64_t)p->seqlen_k - p->seqlen_q + 1;
    if (!p->causal) return p->seqlen_k;
    return n < 0 ? 0 : n;
}

/* s[j] = sum_d q_d k_jd for the first n keys (raw codes; every product is exact in double). */
static void raw_scores(const scratch_t *w, int64_t n, int64_t sk, int64_t dim)
{
    int64_t j, d;
    for (j = 0; j < n; j++) w->s[j] = 0.0;
    for (d = 0; d < dim; d++) {
        const double qd = w->q[d];
        const float *krow = w->kt + d * sk;
        for (j = 0; j < n; j++) w->s[j] += qd * (double)krow[j];
    }
}

/* Softmax of the scaled scores into s (unnormalised) and acc = sum_j p_j v_j; returns
 * the log-sum-exp of the scaled scores. */
static double softmax_times_v(const scratch_t *w, int64_t n, int64_t dim, double score_scale)
{
    double m = -INFINITY, l = 0.0;
    int64_t j, d;
    for (j = 0; j < n; j++) {
        w->s[j] *= score_scale;
        if (w->s[j] > m) m = w->s[j];
    }
    for (d = 0; d < dim; d++) w->acc[d] = 0.0;
    for (j = 0; j < n; j++) {
        const double pj = exp(w->s[j] - m);
        const float *vrow = w->v + j * dim;
        l += pj;
        for (d = 0; d < dim; d++) w->acc[d] += pj * (double)vrow[d];
    }
    for (d = 0; d < dim; d++) w->acc[d] /= l;
    return m + log(l);
}

/* Query row i of query head h in batch b, against the K/V head already in the scratch. */
static void forward_row(const fp8attn_params_t *p, const scratch_t *w, int64_t b, int64_t h,
                        int64_t i, double score_scale, double v_descale)
{
    int64_t dim = p->head_dim, n = visible_keys(p, i), d;
    const uint8_t *qrow = p->q + b * p->q_stride.batch + h * p->q_stride.head + i * p->q_stride.token;
    uint16_t *orow = (uint16_t *)p->o + b * p->o_stride.batch + h * p->o_stride.head +
                     i * p->o_stride.token;
    double lse = -INFINITY;
    if (n == 0) {
        for (d = 0; d < dim; d++) orow[d] = 0; /* +0.0 in FP16 and BF16 */
    } else {
        for (d = 0; d < dim; d++) w->q[d] = w->table[qrow[d]];
        raw_scores(w, n, p->seqlen_k, dim);
        lse = softmax_times_v(w, n, dim, score_scale);
        for (d = 0; d < dim; d++) orow[d] = round_output(p->out_type, w->acc[d] * v_descale);
    }
    if (p->lse) p->lse[(b * p->h_q + h) * p->seqlen_q + i] = (float)lse;
}

static void forward_all(const fp8attn_params_t *p, scratch_t *w)
{
    const int64_t group = p->h_q / p->h_kv;
    const double scale = fp8attn_effective_scale(p);
    int64_t b, hk, h, i;
    for (i = 0; i < 256; i++) w->table[i] = fp8attn_decode(p->in_format, (uint8_t)i);
    for (b = 0; b < p->batch; b++)
        for (hk = 0; hk < p->h_kv; hk++) {
            const double dk = descale_at(&p->k_descale, b, hk);
            const double dv = descale_at(&p->v_descale, b, hk);
            decode_kv_head(p, w, b, hk);
            for (h = hk * group; h < (hk + 1) * group; h++) {
                const double score_scale = scale * (double)descale_at(&p->q_descale, b, h) * dk;
                for (i = 0; i < p->seqlen_q; i++) forward_row(p, w, b, h, i, score_scale, dv);
            }
        }
}

fp8attn_status_t fp8attn_forward_cpu(const fp8attn_params_t *p)
{
    scratch_t w;
    fp8attn_status_t st;
    /* every check and allocation happens before the first write to O or LSE */
    if ((st = fp8attn_validate(p)) != FP8ATTN_OK) return st;
    if ((st = fp8attn_check_descale_values("params->q_descale", &p->q_descale, p->batch, p->h_q)) ||
        (st = fp8attn_check_descale_values("params->k_descale", &p->k_descale, p->batch, p->h_kv)) ||
        (st = fp8attn_check_descale_values("params->v_descale", &p->v_descale, p->batch, p->h_kv)) ||
        (st = check_score_scales(p)))
        return st;
    if ((st = alloc_scratch(p, &w)) != FP8ATTN_OK) return st;
    forward_all(p, &w);
    free_scratch(&w);
    return FP8ATTN_OK;
}
