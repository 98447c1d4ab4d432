/* Tests fp8attn_validate and the refusals of fp8attn_forward_cpu: one valid baseline problem
 * mutated one field at a time; status, message, and that nothing is written on failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8attn.h"
#include "test_util.h"

/* Baseline: B=2, h_q=4, h_kv=2, seqlen_q=3, seqlen_k=5, head_dim=64, BHSD, all in one arena so
 * that "nothing was written" is one comparison against a snapshot. Each region is reserved
 * larger than its tensor, for mutations that widen strides or move pointers. */
enum { B = 2, HQ = 4, HKV = 2, SQ = 3, SK = 5, D = 64 };
enum {
    Q_OFF = 0, K_OFF = 8192, V_OFF = 12288, O_OFF = 16384, LSE_OFF = 28672, QD_OFF = 29696,
    KD_OFF = 29952, VD_OFF = 30208, ARENA_BYTES = 30720
};

typedef struct fixture {
    uint8_t *arena, *snapshot;
    fp8attn_params_t base;
} fixture_t;

static float *arena_floats(const fixture_t *fx, int off) { return (float *)(void *)(fx->arena + off); }

/* Random FP8 codes (never zero, never NaN), sentinel-filled O and LSE, positive descales. */
static void fixture_init(fixture_t *fx, uint64_t seed)
{
    fp8attn_params_t *p = &fx->base;
    uint64_t rng = seed;
    int i;
    void *mem = NULL;
    if (posix_memalign(&mem, 64, ARENA_BYTES) != 0) abort();
    fx->arena = mem;
    fx->snapshot = malloc(ARENA_BYTES);
    memset(fx->arena, 0xA5, ARENA_BYTES); /* sentinel everywhere, including O and LSE */
    for (i = 0; i < O_OFF; i++) {
        uint64_t r = splitmix64(&rng);
        fx->arena[i] = (uint8_t)((1 + r % 0x7E) | ((r >> 32) & 0x80));
    }
    for (i = 0; i < 8; i++) arena_floats(fx, QD_OFF)[i] = 0.25f + (float)(splitmix64(&rng) % 64) / 32;
    for (i = 0; i < 2; i++) arena_floats(fx, KD_OFF)[i] = 0.5f + (float)(splitmix64(&rng) % 64) / 32;
    arena_floats(fx, KD_OFF)[2] = NAN; /* past the last head: never read */
    arena_floats(fx, VD_OFF)[0] = 1.5f;
    memcpy(fx->snapshot, fx->arena, ARENA_BYTES);

    fp8attn_params_init(p);
    p->batch = B;
    p->h_q = HQ;
    p->h_kv = HKV;
    p->seqlen_q = SQ;
    p->seqlen_k = SK;
    p->head_dim = D;
    p->q = fx->arena + Q_OFF;
    p->k = fx->arena + K_OFF;
    p->v = fx->arena + V_OFF;
    p->o = fx->arena + O_OFF;
    p->lse = arena_floats(fx, LSE_OFF);
    p->q_stride = fp8attn_strides_bhsd(HQ, SQ, D);
    p->k_stride = fp8attn_strides_bhsd(HKV, SK, D);
    p->v_stride = fp8attn_strides_bshd(HKV, SK, D);
    p->o_stride = fp8attn_strides_bhsd(HQ, SQ, D);
    p->q_descale.ptr = arena_floats(fx, QD_OFF); /* per (batch, head) */
    p->q_descale.batch_stride = HQ;
    p->q_descale.head_stride = 1;
    p->k_descale.ptr = arena_floats(fx, KD_OFF); /* per head */
    p->k_descale.head_stride = 1;
    p->v_descale.ptr = arena_floats(fx, VD_OFF); /* per tensor */
    p->causal = 1;
}

static void fixture_free(fixture_t *fx)
{
    free(fx->arena);
    free(fx->snapshot);
}

static int message_names(const char *needle)
{
    return !needle || strstr(fp8attn_last_error(), needle) != NULL;
}

/* validate(p) must return `want` with a message naming n1 and n2. If p refers only to the arena
 * (real), or validate refused it (so nothing is dereferenced), forward_cpu must return the
 * same status and, when refusing, leave every byte of the arena as it was. */
static void expect_case(fixture_t *fx, const char *name, const fp8attn_params_t *p,
                        fp8attn_status_t want, const char *n1, const char *n2, int real)
{
    fp8attn_status_t st = fp8attn_validate(p);
    CHECK(st == want, "%s: validate returned %d, want %d (%s)", name, (int)st, (int)want,
          fp8attn_last_error());
    if (want != FP8ATTN_OK)
        CHECK(message_names(n1) && message_names(n2), "%s: message \"%s\" should name \"%s\"%s%s",
              name, fp8attn_last_error(), n1, n2 ? " and " : "", n2 ? n2 : "");
    if (!real && st == FP8ATTN_OK) return;
    st = fp8attn_forward_cpu(p);
    CHECK(st == want, "%s: forward_cpu returned %d, want %d (%s)", name, (int)st, (int)want,
          fp8attn_last_error());
    if (want != FP8ATTN_OK)
        CHECK(memcmp(fx->arena, fx->snapshot, ARENA_BYTES) == 0,
              "%s: forward_cpu wrote although it failed", name);
    memcpy(fx->arena, fx->snapshot, ARENA_BYTES);
}

/* A descale value only forward_cpu can see: validate accepts, forward_cpu refuses, naming the
 * descale and its index, and writes nothing. */
static void expect_bad_descale(fixture_t *fx, float *slot, float value, const char *n1,
                               const char *n2)
{
    float saved = *slot;
    fp8attn_status_t st;
    *slot = value;
    memcpy(fx->snapshot, fx->arena, ARENA_BYTES);
    CHECK(fp8attn_validate(&fx->base) == FP8ATTN_OK, "%s: validate cannot read descale values", n1);
    st = fp8attn_forward_cpu(&fx->base);
    CHECK(st == FP8ATTN_ERR_INVALID_DESCALE && message_names(n1) && message_names(n2),
          "descale %g: forward_cpu returned %d, message \"%s\" should name \"%s\"", (double)value,
          (int)st, fp8attn_last_error(), n1);
    CHECK(memcmp(fx->arena, fx->snapshot, ARENA_BYTES) == 0,
          "descale %g: forward_cpu wrote although it failed", (double)value);
    *slot = saved;
    memcpy(fx->snapshot, fx->arena, ARENA_BYTES);
}

#define CASE(mutation, want, n1, n2)                                                               \
    do {                                                                                           \
        fp8attn_params_t p = fx->base;                                                             \
        mutation;                                                                                  \
        expect_case(fx, #mutation, &p, want, n1, n2, 1);                                           \
    } while (0)

static void test_enums_and_sizes(fixture_t *fx)
{
    CHECK(fp8attn_validate(NULL) == FP8ATTN_ERR_NULL_POINTER && message_names("params"),
          "NULL params: %s", fp8attn_last_error());
    CHECK(fp8attn_forward_cpu(NULL) == FP8ATTN_ERR_NULL_POINTER, "forward_cpu(NULL)");
    CASE(p.in_format = (fp8attn_format_t)2, FP8ATTN_ERR_INVALID_FORMAT, "params->in_format = 2", NULL);
    CASE(p.in_format = (fp8attn_format_t)-1, FP8ATTN_ERR_INVALID_FORMAT, "params->in_format = -1", NULL);
    CASE(p.out_type = (fp8attn_out_type_t)2, FP8ATTN_ERR_INVALID_FORMAT, "params->out_type = 2", NULL);
    CASE(p.causal = 2, FP8ATTN_ERR_INVALID_ARGUMENT, "params->causal = 2", NULL);
    CASE(p.causal = -1, FP8ATTN_ERR_INVALID_ARGUMENT, "params->causal = -1", NULL);
    CASE(p.batch = 0, FP8ATTN_ERR_INVALID_SIZE, "params->batch = 0", NULL);
    CASE(p.h_q = 0, FP8ATTN_ERR_INVALID_SIZE, "params->h_q = 0", NULL);
    CASE(p.h_kv = 0, FP8ATTN_ERR_INVALID_SIZE, "params->h_kv = 0", NULL);
    CASE(p.seqlen_q = -2, FP8ATTN_ERR_INVALID_SIZE, "params->seqlen_q = -2", NULL);
    CASE(p.seqlen_k = 0, FP8ATTN_ERR_INVALID_SIZE, "params->seqlen_k = 0", NULL);
    CASE(p.head_dim = 96, FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM, "params->head_dim = 96", "64, 128, 256");
    CASE(p.head_dim = 0, FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM, "params->head_dim = 0", NULL);
    CASE(p.head_dim = 32, FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM, "params->head_dim = 32", NULL);
    CASE(p.head_dim = 512, FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM, "params->head_dim = 512", NULL);
    CASE(p.h_q = 6; p.h_kv = 4, FP8ATTN_ERR_HEAD_RATIO, "h_q = 6", "h_kv = 4");
    CASE(p.h_q = 2; p.h_kv = 4, FP8ATTN_ERR_HEAD_RATIO, "h_q = 2", "h_kv = 4");
    /* valid variations of the same fields */
    CASE(p.in_format = FP8ATTN_FORMAT_E5M2; p.out_type = FP8ATTN_OUT_BF16; p.causal = 0,
         FP8ATTN_OK, NULL, NULL);
    CASE(p.h_q = 2; p.h_kv = 2, FP8ATTN_OK, NULL, NULL);
}

static void test_pointers_and_scale(fixture_t *fx)
{
    CASE(p.q = NULL, FP8ATTN_ERR_NULL_POINTER, "params->q = NULL", NULL);
    CASE(p.k = NULL, FP8ATTN_ERR_NULL_POINTER, "params->k = NULL", NULL);
    CASE(p.v = NULL, FP8ATTN_ERR_NULL_POINTER, "params->v = NULL", NULL);
    CASE(p.o = NULL, FP8ATTN_ERR_NULL_POINTER, "params->o = NULL", NULL);
    CASE(p.q_descale.ptr = NULL, FP8ATTN_ERR_NULL_POINTER, "params->q_descale.ptr = NULL", NULL);
    CASE(p.k_descale.ptr = NULL, FP8ATTN_ERR_NULL_POINTER, "params->k_descale.ptr = NULL", NULL);
    CASE(p.v_descale.ptr = NULL, FP8ATTN_ERR_NULL_POINTER, "params->v_descale.ptr = NULL", NULL);
    CASE(p.lse = NULL, FP8ATTN_OK, NULL, NULL);
    CASE(p.softmax_scale = -1.0f, FP8ATTN_ERR_INVALID_SCALE, "params->softmax_scale = -1", NULL);
    CASE(p.softmax_scale = NAN, FP8ATTN_ERR_INVALID_SCALE, "params->softmax_scale = nan", NULL);
    CASE(p.softmax_scale = INFINITY, FP8ATTN_ERR_INVALID_SCALE, "params->softmax_scale = inf", NULL);
    CASE(p.softmax_scale = -INFINITY, FP8ATTN_ERR_INVALID_SCALE, "params->softmax_scale = -inf", NULL);
    CASE(p.softmax_scale = 0.3f, FP8ATTN_OK, NULL, NULL);
}

static void test_negative_strides(fixture_t *fx)
{
    CASE(p.q_stride.batch = -768, FP8ATTN_ERR_INVALID_STRIDE, "params->q_stride.batch = -768", NULL);
    CASE(p.q_stride.head = -1, FP8ATTN_ERR_INVALID_STRIDE, "params->q_stride.head = -1", NULL);
    CASE(p.q_stride.token = -64, FP8ATTN_ERR_INVALID_STRIDE, "params->q_stride.token = -64", NULL);
    CASE(p.k_stride.batch = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->k_stride.batch = -16", NULL);
    CASE(p.k_stride.head = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->k_stride.head = -16", NULL);
    CASE(p.k_stride.token = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->k_stride.token = -16", NULL);
    CASE(p.v_stride.batch = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->v_stride.batch = -16", NULL);
    CASE(p.v_stride.head = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->v_stride.head = -16", NULL);
    CASE(p.v_stride.token = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->v_stride.token = -16", NULL);
    CASE(p.o_stride.batch = -8, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.batch = -8", NULL);
    CASE(p.o_stride.head = -8, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.head = -8", NULL);
    CASE(p.o_stride.token = -8, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.token = -8", NULL);
    /* an extent-1 dimension's stride still may not be negative */
    CASE(p.batch = 1; p.q_stride.batch = -16, FP8ATTN_ERR_INVALID_STRIDE, "params->q_stride.batch", NULL);
}

static void test_alignment(fixture_t *fx)
{
    CASE(p.q = fx->arena + Q_OFF + 1, FP8ATTN_ERR_INVALID_STRIDE, "params->q = ", "16-byte");
    CASE(p.k = fx->arena + K_OFF + 8, FP8ATTN_ERR_INVALID_STRIDE, "params->k = ", "16-byte");
    CASE(p.v = fx->arena + V_OFF + 4, FP8ATTN_ERR_INVALID_STRIDE, "params->v = ", "16-byte");
    CASE(p.o = fx->arena + O_OFF + 8, FP8ATTN_ERR_INVALID_STRIDE, "params->o = ", "16-byte");
    CASE(p.lse = (float *)(void *)(fx->arena + LSE_OFF + 2), FP8ATTN_ERR_INVALID_STRIDE,
         "params->lse = ", "4-byte");
    CASE(p.lse = arena_floats(fx, LSE_OFF) + 1, FP8ATTN_OK, NULL, NULL);
    /* descales are fp32 loads on the GPU: 4-byte aligned, refused before anything is read */
    CASE(p.q_descale.ptr = (const float *)(const void *)(fx->arena + QD_OFF + 2),
         FP8ATTN_ERR_INVALID_STRIDE, "params->q_descale.ptr = ", "4-byte");
    CASE(p.k_descale.ptr = (const float *)(const void *)(fx->arena + KD_OFF + 1),
         FP8ATTN_ERR_INVALID_STRIDE, "params->k_descale.ptr = ", "4-byte");
    CASE(p.v_descale.ptr = (const float *)(const void *)(fx->arena + VD_OFF + 3),
         FP8ATTN_ERR_INVALID_STRIDE, "params->v_descale.ptr = ", "4-byte");
    /* also when the stride makes it read a single descale */
    CASE(p.v_descale.ptr = (const float *)(const void *)(fx->arena + VD_OFF + 1); p.batch = 1,
         FP8ATTN_ERR_INVALID_STRIDE, "params->v_descale.ptr = ", "4-byte");
    /* 4-byte aligned is enough (indices 1..4 of the q descales, all positive) */
    CASE(p.q_descale.ptr = arena_floats(fx, QD_OFF) + 1; p.q_descale.batch_stride = 0, FP8ATTN_OK,
         NULL, NULL);
    CASE(p.o = fx->arena + O_OFF + 16, FP8ATTN_OK, NULL, NULL);
    /* strides: FP8 inputs in multiples of 16 elements, O in multiples of 8 */
    CASE(p.q_stride.token = 72, FP8ATTN_ERR_INVALID_STRIDE, "params->q_stride.token = 72", "16");
    CASE(p.k_stride.head = SK * D + 8, FP8ATTN_ERR_INVALID_STRIDE, "params->k_stride.head = 328", NULL);
    CASE(p.v_stride.batch = 648, FP8ATTN_ERR_INVALID_STRIDE, "params->v_stride.batch = 648", NULL);
    CASE(p.o_stride.token = 68, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.token = 68", "8");
    CASE(p.o_stride.batch = 1540, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.batch = 1540", NULL);
    CASE(p.o_stride.token = 72; p.o_stride.head = SQ * 72; p.o_stride.batch = HQ * SQ * 72,
         FP8ATTN_OK, NULL, NULL);
    /* strides of extent-1 dimensions are never used: not checked for alignment */
    CASE(p.seqlen_q = 1; p.q_stride.token = 7; p.o_stride.token = 3, FP8ATTN_OK, NULL, NULL);
    CASE(p.batch = 1; p.k_stride.batch = 5; p.o_stride.batch = 1, FP8ATTN_OK, NULL, NULL);
    CASE(p.h_q = 2; p.h_kv = 1; p.k_stride.head = 9; p.v_stride.head = 3, FP8ATTN_OK, NULL, NULL);
}

static void test_output_rows(fixture_t *fx)
{
    CASE(p.o_stride.token = 0, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.token = 0", "head_dim");
    CASE(p.o_stride.token = 32, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.token = 32", "overlap");
    CASE(p.o_stride.head = 2 * D, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.head = 128", "overlap");
    CASE(p.o_stride.batch = HQ * SQ * D - 8, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.batch = 760",
         "overlap");
    CASE(p.o_stride.batch = 0, FP8ATTN_ERR_INVALID_STRIDE, "params->o_stride.batch = 0", "overlap");
    CASE(p.o_stride.head = 2 * D; p.o_stride.token = 2 * D, FP8ATTN_ERR_INVALID_STRIDE,
         "params->o_stride.", "overlap"); /* a tie between two dims of extent > 1 */
    /* disjoint orderings and extent-1 dims are fine; inputs may broadcast */
    CASE(p.o_stride = fp8attn_strides_bshd(HQ, SQ, D), FP8ATTN_OK, NULL, NULL);
    CASE(p.o_stride.head = D; p.o_stride.token = HQ * D; p.o_stride.batch = HQ * SQ * D + 64,
         FP8ATTN_OK, NULL, NULL);
    CASE(p.batch = 1; p.o_stride.batch = 0, FP8ATTN_OK, NULL, NULL);
    CASE(p.seqlen_q = 1; p.o_stride.token = 0; p.o_stride.head = D; p.o_stride.batch = HQ * D,
         FP8ATTN_OK, NULL, NULL);
    CASE(p.k_stride.head = 0; p.v_stride.batch = 0; p.q_stride.token = 0, FP8ATTN_OK, NULL, NULL);
}

static void test_descale_strides_and_values(fixture_t *fx)
{
    CASE(p.q_descale.batch_stride = -1, FP8ATTN_ERR_INVALID_DESCALE, "params->q_descale.batch_stride = -1", NULL);
    CASE(p.q_descale.head_stride = -4, FP8ATTN_ERR_INVALID_DESCALE, "params->q_descale.head_stride = -4", NULL);
    CASE(p.k_descale.batch_stride = -2, FP8ATTN_ERR_INVALID_DESCALE, "params->k_descale.batch_stride = -2", NULL);
    CASE(p.k_descale.head_stride = -1, FP8ATTN_ERR_INVALID_DESCALE, "params->k_descale.head_stride = -1", NULL);
    CASE(p.v_descale.batch_stride = -1, FP8ATTN_ERR_INVALID_DESCALE, "params->v_descale.batch_stride = -1", NULL);
    CASE(p.v_descale.head_stride = -7, FP8ATTN_ERR_INVALID_DESCALE, "params->v_descale.head_stride = -7", NULL);
    /* values: q descale of (b=1, h=3) is index 7; k per head; v per tensor */
    expect_bad_descale(fx, arena_floats(fx, QD_OFF) + 7, NAN, "params->q_descale.ptr[7]", "b = 1, h = 3");
    expect_bad_descale(fx, arena_floats(fx, QD_OFF) + 0, 0.0f, "params->q_descale.ptr[0]", "b = 0, h = 0");
    expect_bad_descale(fx, arena_floats(fx, KD_OFF) + 1, -1.0f, "params->k_descale.ptr[1]", "h = 1");
    expect_bad_descale(fx, arena_floats(fx, VD_OFF), INFINITY, "params->v_descale.ptr[0]", "inf");
    expect_bad_descale(fx, arena_floats(fx, VD_OFF), -0.0f, "params->v_descale.ptr[0]", NULL);
}

/* fp8attn_forward_cpu with softmax_scale = scale and descale slots s1 = v1, s2 = v2 (s2 may be
 * NULL): validate accepts (it reads no values); forward_cpu must return `want`, and when it
 * refuses, name n1, n2 and n3 and write nothing. */
static void expect_product_case(fixture_t *fx, const char *what, float scale, float *s1, float v1,
                                float *s2, float v2, fp8attn_status_t want, const char *n1,
                                const char *n2, const char *n3)
{
    float saved1 = *s1, saved2 = s2 ? *s2 : 0.0f;
    fp8attn_params_t p = fx->base;
    fp8attn_status_t st;
    *s1 = v1;
    if (s2) *s2 = v2;
    p.softmax_scale = scale;
    memcpy(fx->snapshot, fx->arena, ARENA_BYTES);
    CHECK(fp8attn_validate(&p) == FP8ATTN_OK, "%s: validate cannot read descale values (%s)", what,
          fp8attn_last_error());
    st = fp8attn_forward_cpu(&p);
    CHECK(st == want, "%s: forward_cpu returned %d, want %d (%s)", what, (int)st, (int)want,
          fp8attn_last_error());
    if (want != FP8ATTN_OK) {
        CHECK(message_names(n1) && message_names(n2) && message_names(n3),
              "%s: message \"%s\" should name \"%s\", \"%s\" and \"%s\"", what,
              fp8attn_last_error(), n1, n2 ? n2 : "", n3 ? n3 : "");
        CHECK(memcmp(fx->arena, fx->snapshot, ARENA_BYTES) == 0,
              "%s: forward_cpu wrote although it failed", what);
    }
    memcpy(fx->arena, fx->snapshot, ARENA_BYTES);
    *s1 = saved1;
    if (s2) *s2 = saved2;
    memcpy(fx->snapshot, fx->arena, ARENA_BYTES);
}

/* The GPU forms softmax_scale * q_descale * k_descale in fp32 (scale first): forward_cpu refuses
 * a (b, h) where that product or its partial product is not a finite, normal fp32 number.
 * Baseline: scale 1/8, q descales in [0.25, 2.22], k descales in [0.5, 2.47]; query head h reads
 * k descale h / 2; q descale of (b, h) is index 4 * b + h. */
static void test_score_scale_product(fixture_t *fx)
{
    float *qd = arena_floats(fx, QD_OFF), *kd = arena_floats(fx, KD_OFF);
    /* partial 0.125 * 1e-37 = 1.25e-38 is normal, the product 6.25e-39 is not */
    expect_product_case(fx, "subnormal product", 0.0f, qd + 7, 1e-37f, kd + 1, 0.5f,
                        FP8ATTN_ERR_INVALID_DESCALE, "params->q_descale.ptr[7] * params->k_descale.ptr[1]",
                        "b = 1, h = 3, kv head = 1", "normal fp32");
    /* partial 1e30 * q is finite, times 1e10 overflows: first at b = 0, h = 2 (k head 1) */
    expect_product_case(fx, "overflowing product", 1e30f, kd + 1, 1e10f, NULL, 0.0f,
                        FP8ATTN_ERR_INVALID_DESCALE, "params->k_descale.ptr[1]",
                        "b = 0, h = 2, kv head = 1", "= inf");
    /* 1e-20 * 1e-20 underflows to a subnormal, although the full product (1e-10) is normal */
    expect_product_case(fx, "subnormal partial product", 1e-20f, qd + 5, 1e-20f, kd + 0, 1e30f,
                        FP8ATTN_ERR_INVALID_DESCALE, "params->q_descale.ptr[5]",
                        "b = 1, h = 1, kv head = 0", "partial product");
    /* a subnormal descale is refused through the product, even with a large scale elsewhere */
    expect_product_case(fx, "subnormal descale", 0.0f, kd + 0, 1e-39f, NULL, 0.0f,
                        FP8ATTN_ERR_INVALID_DESCALE, "params->k_descale.ptr[0]", "b = 0, h = 0, kv head = 0",
                        "softmax_scale");
    /* extreme but normal products are accepted (and computed) */
    expect_product_case(fx, "tiny normal product", 0.0f, qd + 7, 1e-36f, kd + 1, 0.5f, FP8ATTN_OK,
                        NULL, NULL, NULL);
    expect_product_case(fx, "huge normal product", 1e30f, kd + 1, 1e6f, NULL, 0.0f, FP8ATTN_OK, NULL,
                        NULL, NULL);
}

static void test_overlaps(fixture_t *fx)
{
    CASE(p.o = fx->arena + Q_OFF, FP8ATTN_ERR_OVERLAP, "params->o [", "params->q [");
    CASE(p.o = fx->arena + K_OFF + 1264, FP8ATTN_ERR_OVERLAP, "params->o [", "params->k [");
    CASE(p.o = fx->arena + V_OFF - 16, FP8ATTN_ERR_OVERLAP, "params->o [", "params->v [");
    CASE(p.lse = arena_floats(fx, O_OFF) + 100, FP8ATTN_ERR_OVERLAP, "params->o [", "params->lse [");
    CASE(p.o = fx->arena + QD_OFF - 3056, FP8ATTN_ERR_OVERLAP, "params->o [", "params->q_descale.ptr [");
    CASE(p.k_descale.ptr = arena_floats(fx, O_OFF) + 760, FP8ATTN_ERR_OVERLAP, "params->o [",
         "params->k_descale.ptr [");
    CASE(p.lse = arena_floats(fx, Q_OFF) + 8, FP8ATTN_ERR_OVERLAP, "params->lse [", "params->q [");
    CASE(p.lse = arena_floats(fx, V_OFF) + 300, FP8ATTN_ERR_OVERLAP, "params->lse [", "params->v [");
    CASE(p.v_descale.ptr = arena_floats(fx, LSE_OFF) + 23, FP8ATTN_ERR_OVERLAP, "params->lse [",
         "params->v_descale.ptr [");
    /* one shared float (the least an aligned descale can share) is enough */
    CASE(p.k_descale.ptr = arena_floats(fx, O_OFF) - 1, FP8ATTN_ERR_OVERLAP, "params->o [",
         "params->k_descale.ptr [");
    CASE(p.v_descale.ptr = arena_floats(fx, LSE_OFF) + B * HQ * SQ - 1, FP8ATTN_ERR_OVERLAP,
         "params->lse [", "params->v_descale.ptr [");
    /* touching is not overlapping: O right after the last byte of Q (inside Q's reserve) */
    CASE(p.o = fx->arena + Q_OFF + B * HQ * SQ * D, FP8ATTN_OK, NULL, NULL);
    CASE(p.lse = arena_floats(fx, O_OFF) + B * HQ * SQ * D / 2, FP8ATTN_OK, NULL, NULL);
    /* inputs may share memory with each other */
    CASE(p.k = fx->arena + Q_OFF; p.v = fx->arena + Q_OFF, FP8ATTN_OK, NULL, NULL);
}

/* Problems far past 2^31 elements and 2^32 bytes, described with made-up addresses (validate
 * never dereferences; forward_cpu is only called when validate refuses). */
static void test_huge(fixture_t *fx)
{
    const uintptr_t T = (uintptr_t)1 << 44; /* 16 TiB between tensors */
    const uintptr_t top = UINTPTR_MAX & ~(uintptr_t)15;
    fp8attn_params_t h;
    fp8attn_params_init(&h);
    h.batch = 3;
    h.h_q = 16;
    h.h_kv = 16;
    h.seqlen_q = 1 << 20;
    h.seqlen_k = 1 << 20;
    h.head_dim = 256; /* 3 * 2^32 elements per tensor */
    h.q = (const uint8_t *)T;
    h.k = (const uint8_t *)(2 * T);
    h.v = (const uint8_t *)(3 * T);
    h.o = (void *)(4 * T);
    h.lse = (float *)(5 * T);
    h.q_descale.ptr = (const float *)(6 * T);
    h.k_descale.ptr = (const float *)(6 * T + 64);
    h.v_descale.ptr = (const float *)(6 * T + 128);
    h.q_stride = h.k_stride = h.v_stride = h.o_stride = fp8attn_strides_bhsd(16, 1 << 20, 256);
#define HUGE(mutation, want, n1, n2)                                                               \
    do {                                                                                           \
        fp8attn_params_t p = h;                                                                    \
        mutation;                                                                                  \
        expect_case(fx, #mutation, &p, want, n1, n2, 0);                                           \
    } while (0)
    HUGE((void)0, FP8ATTN_OK, NULL, NULL);
    HUGE(p.seqlen_q = 2; p.q_stride.token = (int64_t)1 << 40, FP8ATTN_OK, NULL, NULL);
    HUGE(p.o_stride.token = (int64_t)1 << 40, FP8ATTN_ERR_OVERLAP, "params->o [", "params->q_descale.ptr [");
    HUGE(p.o_stride.token = (int64_t)1 << 43, FP8ATTN_ERR_TOO_LARGE, "params->o", "64 bits");
    HUGE(p.q_stride.token = (int64_t)1 << 44, FP8ATTN_ERR_TOO_LARGE, "params->q_stride.token", "64 bits");
    HUGE(p.k_stride.batch = INT64_MAX - 15, FP8ATTN_ERR_TOO_LARGE, "params->k_stride.batch", NULL);
    HUGE(p.q = (const uint8_t *)(top - ((uintptr_t)1 << 30)), FP8ATTN_ERR_TOO_LARGE, "params->q = ",
         "address space");
    HUGE(p.lse = (float *)(top - 1024), FP8ATTN_ERR_TOO_LARGE, "params->lse = ", "address space");
    /* the message names the stride fields themselves (not "params->k_descale.ptr: ...") */
    HUGE(p.k_descale.batch_stride = INT64_MAX / 2 + 1, FP8ATTN_ERR_TOO_LARGE,
         "params->k_descale.batch_stride = 4611686018427387904", "64 bits");
    HUGE(p.v_descale.head_stride = (int64_t)1 << 62, FP8ATTN_ERR_TOO_LARGE,
         "params->v_descale.head_stride = 4611686018427387904", "64 bits");
    HUGE(p.q_descale.batch_stride = (int64_t)1 << 61; p.q_descale.head_stride = (int64_t)1 << 58,
         FP8ATTN_ERR_TOO_LARGE, "params->q_descale.batch_stride = 2305843009213693952",
         "params->q_descale.head_stride = 288230376151711744");
#undef HUGE
}

int main(void)
{
    uint64_t seed;
    for (seed = 1; seed <= 2; seed++) {
        fixture_t fx;
        fp8attn_status_t st;
        fixture_init(&fx, seed * 0x9E3779B97F4A7C15ull);
        expect_case(&fx, "baseline", &fx.base, FP8ATTN_OK, NULL, NULL, 1);
        test_enums_and_sizes(&fx);
        test_pointers_and_scale(&fx);
        test_negative_strides(&fx);
        test_alignment(&fx);
        test_output_rows(&fx);
        test_descale_strides_and_values(&fx);
        test_score_scale_product(&fx);
        test_overlaps(&fx);
        test_huge(&fx);
        /* the baseline does write O and LSE, so the "nothing written" checks can fail */
        st = fp8attn_forward_cpu(&fx.base);
        CHECK(st == FP8ATTN_OK && memcmp(fx.arena + O_OFF, fx.snapshot + O_OFF, LSE_OFF + 96 - O_OFF),
              "baseline forward_cpu must succeed and write O/LSE (%s)", fp8attn_last_error());
        fixture_free(&fx);
    }
    if (g_failures) {
        printf("%ld failure(s)\n", g_failures);
        return 1;
    }
    printf("all validation checks passed\n");
    return 0;
}
