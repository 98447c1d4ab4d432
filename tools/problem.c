/* Random attention inputs on the host: float N(0,1) draws, FP8 quantization, output buffers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"

/* ---- RNG: splitmix64 (Steele, Lea, Flood 2014) + Box-Muller ---- */

void rng_seed(rng_t *r, uint64_t seed)
{
    r->state = seed;
    r->have_spare = 0;
    r->spare = 0.0;
}

uint64_t rng_next_u64(rng_t *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double rng_normal(rng_t *r)
{
    const double two_pi = 6.283185307179586476925286766559;
    double u1, u2, radius;
    if (r->have_spare) {
        r->have_spare = 0;
        return r->spare;
    }
    u1 = ((double)(rng_next_u64(r) >> 11) + 1.0) * 0x1.0p-53; /* (0, 1]: log(u1) is finite */
    u2 = (double)(rng_next_u64(r) >> 11) * 0x1.0p-53;         /* [0, 1) */
    radius = sqrt(-2.0 * log(u1));
    r->spare = radius * sin(two_pi * u2);
    r->have_spare = 1;
    return radius * cos(two_pi * u2);
}

/* ---- sizes ---- */

/* a*b*c*d into *out; -1 if it does not fit (each tensor must also be addressable in bytes
 * times 8 for the double copies the references make). */
static int tensor_elems(int64_t a, int64_t b, int64_t c, int64_t d, size_t *out)
{
    const double limit = (double)(SIZE_MAX / 8);
    double n = (double)a * (double)b * (double)c * (double)d;
    if (n > limit || n > 9.0e15) return -1;
    *out = (size_t)a * (size_t)b * (size_t)c * (size_t)d;
    return 0;
}

static int shape_sizes(problem_t *pr, const shape_t *s, int lse, char *err)
{
    char desc[128];
    if (tensor_elems(s->batch, s->h_q, s->seqlen_q, s->head_dim, &pr->elems[TQ]) ||
        tensor_elems(s->batch, s->h_kv, s->seqlen_k, s->head_dim, &pr->elems[TK]) ||
        tensor_elems(s->batch, s->h_q, s->seqlen_q, 1, &pr->lse_elems)) {
        shape_format(s, desc, sizeof desc);
        snprintf(err, ERR_LEN, "shape %s: tensors too large for this host", desc);
        return -1;
    }
    pr->elems[TV] = pr->elems[TK];
    pr->o_elems = pr->elems[TQ];
    if (!lse) pr->lse_elems = 0;
    return 0;
}

/* ---- generation ---- */

static fp8attn_strides_t layout_strides(int bshd, int32_t heads, int32_t seqlen, int32_t d)
{
    return bshd ? fp8attn_strides_bshd(heads, seqlen, d) : fp8attn_strides_bhsd(heads, seqlen, d);
}

/* Fills x (strides st) with N(0,1) draws in logical [b, h, s, d] order. */
static void fill_normal(rng_t *r, float *x, fp8attn_strides_t st, int32_t batch, int32_t heads,
                        int32_t seqlen, int32_t head_dim)
{
    int32_t b, h, s, d;
    for (b = 0; b < batch; b++)
        for (h = 0; h < heads; h++)
            for (s = 0; s < seqlen; s++) {
                float *row = x + b * st.batch + h * st.head + s * st.token;
                for (d = 0; d < head_dim; d++) row[d] = (float)rng_normal(r);
            }
}

/* --inputs rising / spike: overwrites element 0 of every Q row with 2 and element 0 of some K
 * rows, which adds a per-key term to every score (common_usage_inputs). */
static void shape_scores(float *q, float *k, const fp8attn_params_t *p, int inputs)
{
    const float root_d = sqrtf((float)p->head_dim);
    int32_t b, h, s;
    for (b = 0; b < p->batch; b++)
        for (h = 0; h < p->h_q; h++)
            for (s = 0; s < p->seqlen_q; s++)
                q[b * p->q_stride.batch + h * p->q_stride.head + s * p->q_stride.token] = 2.0f;
    for (b = 0; b < p->batch; b++)
        for (h = 0; h < p->h_kv; h++)
            for (s = 0; s < p->seqlen_k; s++) {
                float *k0 =
                    &k[b * p->k_stride.batch + h * p->k_stride.head + s * p->k_stride.token];
                if (inputs == INPUTS_RISING)
                    *k0 = 5.0f * root_d * (float)s / (float)p->seqlen_k;
                else if (s == (int32_t)(3 * (int64_t)p->seqlen_k / 4))
                    *k0 = 100.0f * root_d;
            }
}

/* Computes the descales of tensor t and writes its E4M3 codes. */
static int quantize_tensor(problem_t *pr, int t, const run_opts_t *o, char *err)
{
    static const char *const names[3] = {"Q", "K", "V"};
    const fp8attn_params_t *p = &pr->p;
    const fp8attn_strides_t *st[3] = {&p->q_stride, &p->k_stride, &p->v_stride};
    fp8attn_tensor_view_t view;
    fp8attn_status_t status;
    memset(&view, 0, sizeof view);
    view.data = pr->x[t];
    view.type = FP8ATTN_SRC_F32;
    view.batch = p->batch;
    view.heads = t == TQ ? p->h_q : p->h_kv;
    view.seqlen = t == TQ ? p->seqlen_q : p->seqlen_k;
    view.head_dim = p->head_dim;
    view.stride = *st[t];
    status = fp8attn_compute_descales(&view, o->descale, FP8ATTN_FORMAT_E4M3, pr->descale[t]);
    if (status == FP8ATTN_OK)
        status = fp8attn_quantize(&view, fp8attn_descale_layout(o->descale, pr->descale[t],
                                                                view.heads),
                                  FP8ATTN_FORMAT_E4M3, pr->codes[t], *st[t]);
    if (status != FP8ATTN_OK) {
        snprintf(err, ERR_LEN, "quantizing %s: %s", names[t], fp8attn_last_error());
        return -1;
    }
    return 0;
}

/* Allocates every buffer of the problem; -1 with a message if one fails. */
static int alloc_buffers(problem_t *pr, const run_opts_t *o, char *err)
{
    const fp8attn_params_t *p = &pr->p;
    int t, fail = 0;
    for (t = 0; t < 3; t++) {
        int32_t heads = t == TQ ? p->h_q : p->h_kv;
        pr->n_descale[t] = (size_t)fp8attn_descale_count(o->descale, p->batch, heads);
        pr->x[t] = malloc(pr->elems[t] * sizeof(float));
        pr->codes[t] = malloc(pr->elems[t]);
        pr->descale[t] = malloc(pr->n_descale[t] * sizeof(float));
        fail |= !pr->x[t] || !pr->codes[t] || !pr->descale[t];
    }
    pr->o = malloc(pr->o_elems * sizeof *pr->o);
    fail |= !pr->o;
    if (pr->lse_elems) {
        pr->lse = malloc(pr->lse_elems * sizeof *pr->lse);
        fail |= !pr->lse;
    }
    if (fail) {
        snprintf(err, ERR_LEN, "out of host memory for the inputs (%zu + 2 x %zu elements)",
                 pr->elems[TQ], pr->elems[TK]);
        return -1;
    }
    return 0;
}

/* Shape, strides and scale granularity of the params (pointers are set once allocated). */
static void init_params(fp8attn_params_t *p, const shape_t *s, const run_opts_t *o)
{
    fp8attn_params_init(p);
    p->batch = s->batch;
    p->h_q = s->h_q;
    p->h_kv = s->h_kv;
    p->seqlen_q = s->seqlen_q;
    p->seqlen_k = s->seqlen_k;
    p->head_dim = s->head_dim;
    p->causal = s->causal;
    p->in_format = FP8ATTN_FORMAT_E4M3;
    p->out_type = o->out_type;
    p->q_stride = layout_strides(o->bshd, s->h_q, s->seqlen_q, s->head_dim);
    p->k_stride = layout_strides(o->bshd, s->h_kv, s->seqlen_k, s->head_dim);
    p->v_stride = p->k_stride;
    p->o_stride = p->q_stride;
}

static void point_params(problem_t *pr, const run_opts_t *o)
{
    fp8attn_params_t *p = &pr->p;
    p->q = pr->codes[TQ];
    p->k = pr->codes[TK];
    p->v = pr->codes[TV];
    p->o = pr->o;
    p->lse = pr->lse;
    p->q_descale = fp8attn_descale_layout(o->descale, pr->descale[TQ], p->h_q);
    p->k_descale = fp8attn_descale_layout(o->descale, pr->descale[TK], p->h_kv);
    p->v_descale = fp8attn_descale_layout(o->descale, pr->descale[TV], p->h_kv);
}

int problem_create(problem_t *pr, const shape_t *s, uint64_t seed, const run_opts_t *o,
                   int keep_float, char *err)
{
    rng_t rng;
    int t;
    memset(pr, 0, sizeof *pr);
    pr->shape = *s;
    pr->seed = seed;
    init_params(&pr->p, s, o);
    if (shape_sizes(pr, s, o->lse, err) || alloc_buffers(pr, o, err)) goto fail;
    point_params(pr, o);
    if (fp8attn_validate(&pr->p) != FP8ATTN_OK) {
        snprintf(err, ERR_LEN, "%s", fp8attn_last_error());
        goto fail;
    }
    rng_seed(&rng, seed);
    fill_normal(&rng, pr->x[TQ], pr->p.q_stride, s->batch, s->h_q, s->seqlen_q, s->head_dim);
    fill_normal(&rng, pr->x[TK], pr->p.k_stride, s->batch, s->h_kv, s->seqlen_k, s->head_dim);
    fill_normal(&rng, pr->x[TV], pr->p.v_stride, s->batch, s->h_kv, s->seqlen_k, s->head_dim);
    if (o->inputs != INPUTS_NORMAL) shape_scores(pr->x[TQ], pr->x[TK], &pr->p, o->inputs);
    for (t = 0; t < 3; t++)
        if (quantize_tensor(pr, t, o, err)) goto fail;
    if (!keep_float)
        for (t = 0; t < 3; t++) {
            free(pr->x[t]);
            pr->x[t] = NULL;
        }
    return 0;
fail:
    problem_free(pr);
    return -1;
}

void problem_free(problem_t *pr)
{
    int t;
    for (t = 0; t < 3; t++) {
        free(pr->x[t]);
        free(pr->codes[t]);
        free(pr->descale[t]);
    }
    free(pr->o);
    free(pr->lse);
    memset(pr, 0, sizeof *pr);
}

/* ---- extra output buffers ---- */

int outputs_alloc(outputs_t *out, const problem_t *pr, char *err)
{
    out->o = malloc(pr->o_elems * sizeof *out->o);
    out->lse = pr->lse_elems ? malloc(pr->lse_elems * sizeof *out->lse) : NULL;
    if (!out->o || (pr->lse_elems && !out->lse)) {
        outputs_free(out);
        snprintf(err, ERR_LEN, "out of host memory for an output copy (%zu elements)",
                 pr->o_elems);
        return -1;
    }
    return 0;
}

void outputs_free(outputs_t *out)
{
    free(out->o);
    free(out->lse);
    out->o = NULL;
    out->lse = NULL;
}

fp8attn_params_t params_with_outputs(const problem_t *pr, const outputs_t *out)
{
    fp8attn_params_t p = pr->p;
    p.o = out->o;
    p.lse = out->lse;
    return p;
}

double output_value(const uint16_t *o, fp8attn_out_type_t t, size_t i)
{
    return t == FP8ATTN_OUT_BF16 ? fp8attn_bf16_to_float(o[i]) : fp8attn_fp16_to_float(o[i]);
}
