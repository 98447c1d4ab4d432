/* The host references, split per (batch, kv head) and run on a small pthread pool. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "refs.h"

#define MAX_REF_THREADS 16

/* ---- a minimal pool: items are handed out one at a time under a lock ---- */

/* Does one item; FP8ATTN_OK or a failure status with its message in err. */
typedef fp8attn_status_t (*work_fn_t)(void *ctx, int item, char *err);

typedef struct {
    int n_items, next;
    fp8attn_status_t failed; /* first failure, FP8ATTN_OK while none */
    pthread_mutex_t lock;
    work_fn_t work;
    void *ctx;
    char err[ERR_LEN];
} pool_t;

/* Next item to do, or -1 when all are taken or one has failed. */
static int pool_take(pool_t *pool)
{
    int item;
    pthread_mutex_lock(&pool->lock);
    item = (pool->failed || pool->next >= pool->n_items) ? -1 : pool->next++;
    pthread_mutex_unlock(&pool->lock);
    return item;
}

static void pool_record_failure(pool_t *pool, fp8attn_status_t st, const char *err)
{
    pthread_mutex_lock(&pool->lock);
    if (pool->failed == FP8ATTN_OK) {
        pool->failed = st;
        snprintf(pool->err, sizeof pool->err, "%s", err);
    }
    pthread_mutex_unlock(&pool->lock);
}

static void *pool_worker(void *arg)
{
    pool_t *pool = arg;
    char err[ERR_LEN];
    int item;
    while ((item = pool_take(pool)) >= 0) {
        fp8attn_status_t st = pool->work(pool->ctx, item, err);
        if (st != FP8ATTN_OK) pool_record_failure(pool, st, err);
    }
    return NULL;
}

int refs_thread_count(int n_items)
{
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    long n = nproc < 1 ? 1 : nproc;
    if (n > MAX_REF_THREADS) n = MAX_REF_THREADS;
    if (n > n_items) n = n_items;
    return n < 1 ? 1 : (int)n;
}

/* Runs work(ctx, i, err) for i in [0, n_items); the calling thread works too, so a failed
 * pthread_create only means fewer helpers. Returns the first failure (message in err). */
static fp8attn_status_t run_parallel(int n_items, work_fn_t work, void *ctx, char *err)
{
    pthread_t helpers[MAX_REF_THREADS];
    int n_helpers = 0, i, want = refs_thread_count(n_items) - 1;
    pool_t pool;
    memset(&pool, 0, sizeof pool);
    pool.n_items = n_items;
    pool.work = work;
    pool.ctx = ctx;
    pthread_mutex_init(&pool.lock, NULL);
    for (i = 0; i < want; i++)
        if (pthread_create(&helpers[n_helpers], NULL, pool_worker, &pool) == 0) n_helpers++;
    pool_worker(&pool);
    for (i = 0; i < n_helpers; i++) pthread_join(helpers[i], NULL);
    pthread_mutex_destroy(&pool.lock);
    if (pool.failed != FP8ATTN_OK) snprintf(err, ERR_LEN, "%s", pool.err);
    return pool.failed;
}

/* ---- sub-problems: one per (batch, kv head) ---- */

/* Element offsets of sub-problem `item` into each tensor and descale array. */
typedef struct {
    int64_t q, k, v, o, lse, q_ds, k_ds, v_ds;
} sub_offsets_t;

static int n_sub_problems(const fp8attn_params_t *p) { return p->batch * p->h_kv; }

static sub_offsets_t sub_offsets(const fp8attn_params_t *p, int item)
{
    sub_offsets_t off;
    int64_t b = item / p->h_kv, g = item % p->h_kv;
    int64_t h0 = g * (p->h_q / p->h_kv); /* first query head of the group */
    off.q = b * p->q_stride.batch + h0 * p->q_stride.head;
    off.k = b * p->k_stride.batch + g * p->k_stride.head;
    off.v = b * p->v_stride.batch + g * p->v_stride.head;
    off.o = b * p->o_stride.batch + h0 * p->o_stride.head;
    off.lse = (b * p->h_q + h0) * p->seqlen_q; /* LSE is contiguous [batch, h_q, seqlen_q] */
    off.q_ds = b * p->q_descale.batch_stride + h0 * p->q_descale.head_stride;
    off.k_ds = b * p->k_descale.batch_stride + g * p->k_descale.head_stride;
    off.v_ds = b * p->v_descale.batch_stride + g * p->v_descale.head_stride;
    return off;
}

/* The geometry of a sub-problem (one batch, one kv head and its query heads), pointers offset. */
static fp8attn_params_t sub_params(const fp8attn_params_t *p, int item)
{
    sub_offsets_t off = sub_offsets(p, item);
    fp8attn_params_t s = *p;
    s.batch = 1;
    s.h_q = p->h_q / p->h_kv;
    s.h_kv = 1;
    s.q = p->q ? p->q + off.q : NULL;
    s.k = p->k ? p->k + off.k : NULL;
    s.v = p->v ? p->v + off.v : NULL;
    s.o = p->o ? (void *)((uint16_t *)p->o + off.o) : NULL;
    s.lse = p->lse ? p->lse + off.lse : NULL;
    s.q_descale.ptr = p->q_descale.ptr ? p->q_descale.ptr + off.q_ds : NULL;
    s.k_descale.ptr = p->k_descale.ptr ? p->k_descale.ptr + off.k_ds : NULL;
    s.v_descale.ptr = p->v_descale.ptr ? p->v_descale.ptr + off.v_ds : NULL;
    return s;
}

/* ---- the library's CPU backend ---- */

static fp8attn_status_t cpu_forward_item(void *ctx, int item, char *err)
{
    const fp8attn_params_t *p = ctx;
    fp8attn_params_t s = sub_params(p, item);
    fp8attn_status_t st = fp8attn_forward_cpu(&s);
    /* fp8attn_last_error is per thread: read it in the thread that failed. */
    if (st != FP8ATTN_OK)
        snprintf(err, ERR_LEN, "fp8attn_forward_cpu: %s", fp8attn_last_error());
    return st;
}

fp8attn_status_t cpu_forward_parallel(const fp8attn_params_t *p, char *err)
{
    fp8attn_status_t st = fp8attn_validate(p);
    if (st != FP8ATTN_OK) {
        snprintf(err, ERR_LEN, "%s", fp8attn_last_error());
        return st;
    }
    return run_parallel(n_sub_problems(p), cpu_forward_item, (void *)p, err);
}

/* ---- full-precision attention ---- */

typedef struct {
    const fp8attn_params_t *p;
    const float *q, *k, *v;
    double *out;
} fp64_job_t;

static double dot_f32(const float *a, const float *b, int n)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++) s += (double)a[i] * (double)b[i];
    return s;
}

/* Last key index query row i sees (may be < 0: no key). */
static int64_t last_visible_key(const fp8attn_params_t *p, int64_t i)
{
    int64_t last = p->causal ? i + p->seqlen_k - p->seqlen_q : p->seqlen_k - 1;
    return last < p->seqlen_k - 1 ? last : p->seqlen_k - 1;
}

/* One output row: softmax(scale * q.K^T) V over keys [0, last], in double. */
static void fp64_row(const fp8attn_params_t *p, const float *qrow, const float *k,
                     const float *v, int64_t last, double scale, double *scores, double *orow)
{
    const int d_n = p->head_dim;
    double max = -INFINITY, sum = 0.0;
    int64_t j;
    int d;
    for (d = 0; d < d_n; d++) orow[d] = 0.0;
    if (last < 0) return;
    for (j = 0; j <= last; j++) {
        scores[j] = scale * dot_f32(qrow, k + j * p->k_stride.token, d_n);
        if (scores[j] > max) max = scores[j];
    }
    for (j = 0; j <= last; j++) {
        const float *vrow = v + j * p->v_stride.token;
        double w = exp(scores[j] - max);
        sum += w;
        for (d = 0; d < d_n; d++) orow[d] += w * (double)vrow[d];
    }
    for (d = 0; d < d_n; d++) orow[d] /= sum;
}

/* One sub-problem (batch 1, one kv head and its h_q query heads) in the calling thread. */
static fp8attn_status_t fp64_group(const fp8attn_params_t *s, const float *q, const float *k,
                                   const float *v, double *out, char *err)
{
    const double scale = fp8attn_effective_scale(s);
    double *scores = malloc((size_t)s->seqlen_k * sizeof *scores);
    int32_t h, i;
    if (!scores) {
        snprintf(err, ERR_LEN, "out of host memory for %d fp64 scores", (int)s->seqlen_k);
        return FP8ATTN_ERR_OUT_OF_MEMORY;
    }
    for (h = 0; h < s->h_q; h++)
        for (i = 0; i < s->seqlen_q; i++)
            fp64_row(s, q + h * s->q_stride.head + i * s->q_stride.token, k, v,
                     last_visible_key(s, i), scale, scores,
                     out + h * s->o_stride.head + i * s->o_stride.token);
    free(scores);
    return FP8ATTN_OK;
}

static fp8attn_status_t fp64_item(void *ctx, int item, char *err)
{
    const fp64_job_t *job = ctx;
    sub_offsets_t off = sub_offsets(job->p, item);
    fp8attn_params_t s = sub_params(job->p, item);
    return fp64_group(&s, job->q + off.q, job->k + off.k, job->v + off.v, job->out + off.o, err);
}

int fp64_attention_parallel(const fp8attn_params_t *p, const float *q, const float *k,
                            const float *v, double *out, char *err)
{
    fp64_job_t job;
    job.p = p;
    job.q = q;
    job.k = k;
    job.v = v;
    job.out = out;
    return run_parallel(n_sub_problems(p), fp64_item, &job, err) == FP8ATTN_OK ? 0 : -1;
}
