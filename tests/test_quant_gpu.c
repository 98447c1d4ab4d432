/* fp8attn_quantize_gpu against fp8attn_quantize_cpu, byte for byte and bit for bit: codes and
 * dynamic descales, F32/F16/BF16 inputs, given descales (tensor / head / (batch, head)
 * broadcasts, fast and IEEE division paths) and dynamic ones (every granularity), BHSD, BSHD,
 * padded and odd strides, head_dim not a multiple of 16 and misaligned inputs (the scalar
 * path), slabs from one row to many tiles; every FP16 and BF16 value and the codec's boundary
 * values and specials; NaN in a dynamic group (descale NaN, NaN codes); a non-default stream, a
 * dirty workspace, a second run, a CUDA graph replayed on new data; the error paths write
 * nothing. Outputs are poisoned first and compared whole, gaps between rows included (they must
 * keep the poison). Fresh random inputs per case. Exit 77 (CTest SKIP) only where the machine
 * has no NVIDIA device node. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "fp8attn.h"
#include "test_util.h"

#define POISON 0xA5

static cudaStream_t g_stream;

#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int64_t esize(fp8attn_src_type_t t) { return t == FP8ATTN_SRC_F32 ? 4 : 2; }

/* One quantization problem: a host tensor and the description of a call. */
typedef struct qcase {
    const char *name;
    fp8attn_src_type_t type;
    int b, h, s, d;
    int bshd;         /* layout of x and out */
    int x_pad, o_pad; /* extra elements per token row */
    int x_shift;      /* x starts this many elements past a 16-byte boundary */
    int mode;         /* -1 given descales, else the dynamic granularity */
    int given_bcast;  /* given: 0 tensor, 1 head, 2 (batch, head) */
    int specials;     /* mix in codec special values (given mode: NaN and inf too) */
} qcase_t;

static fp8attn_strides_t strides(const qcase_t *c, int pad)
{
    fp8attn_strides_t s;
    if (c->bshd) {
        s.head = c->d;
        s.token = (int64_t)c->h * c->d + pad;
        s.batch = (int64_t)c->s * s.token;
    } else {
        s.token = c->d + pad;
        s.head = (int64_t)c->s * s.token;
        s.batch = (int64_t)c->h * s.head;
    }
    return s;
}

static int64_t span(const qcase_t *c, fp8attn_strides_t s)
{
    return (c->b - 1) * s.batch + (c->h - 1) * s.head + (c->s - 1) * s.token + c->d;
}

/* Element i of a host buffer of `type`, from a float (rounded to the type). */
static void put(void *buf, fp8attn_src_type_t type, int64_t i, float v)
{
    if (type == FP8ATTN_SRC_F32) ((float *)buf)[i] = v;
    else if (type == FP8ATTN_SRC_F16) ((uint16_t *)buf)[i] = fp8attn_float_to_fp16(v);
    else ((uint16_t *)buf)[i] = fp8attn_float_to_bf16(v);
}

static float special_value(fp8attn_src_type_t type, int given, uint64_t *rng)
{
    const float finite[] = {0.0f, -0.0f, 1e-40f, -3e-39f, 6e-8f, -1e-7f, 448.0f, -464.0f, 480.0f,
                            0x1p-10f, 0x1p-9f, 0x1.8p-9f, 65504.0f, -3e38f, 1.0f + 0x1p-4f};
    const uint32_t nonfinite[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                                  0x7F800001u, 0xFFA5A5A5u};
    const uint64_t r = splitmix64(rng);
    float v;
    if (given && r % 3 == 0) return float_of_bits(nonfinite[(r >> 8) % 6]);
    v = finite[(r >> 8) % (sizeof finite / sizeof finite[0])];
    /* dynamic calls need finite inputs: keep FP16 values below its overflow */
    return type == FP8ATTN_SRC_F16 && fabsf(v) > 65504.0f ? copysignf(65504.0f, v) : v;
}

/* x: random normals scaled per (b, h) group by 2^[-12, 12], specials at ~1/64 of the elements
 * when asked; the gaps between rows get values too (never read). */
static void *make_input(const qcase_t *c, int64_t n_alloc, fp8attn_strides_t xs, uint64_t *rng)
{
    void *x = malloc((size_t)(n_alloc * esize(c->type)));
    int64_t i, b, h, s, d;
    for (i = 0; i < n_alloc; i++) put(x, c->type, i, normal(rng));
    for (b = 0; b < c->b; b++)
        for (h = 0; h < c->h; h++) {
            const float scale = ldexpf(1.0f, (int)(splitmix64(rng) % 25u) - 12);
            for (s = 0; s < c->s; s++)
                for (d = 0; d < c->d; d++) {
                    const int64_t off = c->x_shift + b * xs.batch + h * xs.head + s * xs.token + d;
                    float v = normal(rng) * scale;
                    if (c->specials && splitmix64(rng) % 64 == 0)
                        v = special_value(c->type, c->mode < 0, rng);
                    put(x, c->type, off, v);
                }
        }
    return x;
}

/* Given descales: B*H floats, random, with the (b, h) stride pattern of c->given_bcast; two of
 * them off the fast path (a subnormal and 2^70) when there are several. */
static float *make_descales(const qcase_t *c, fp8attn_descale_t *layout, uint64_t *rng)
{
    const int n = c->b * c->h;
    float *ds = malloc((size_t)n * sizeof *ds);
    int i;
    for (i = 0; i < n; i++)
        ds[i] = ldexpf(1.0f + (float)(splitmix64(rng) % 1000u) / 1000.0f,
                       (int)(splitmix64(rng) % 21u) - 18);
    if (n > 2) {
        ds[1] = float_of_bits(0x00300000u);
        ds[2] = 0x1p70f;
    }
    layout->ptr = ds;
    layout->batch_stride = c->given_bcast == 2 ? c->h : 0;
    layout->head_stride = c->given_bcast == 0 ? 0 : 1;
    return ds;
}

typedef struct run {
    uint8_t *out;    /* host copy of the whole out buffer */
    float *descale;  /* host copy of descale_out */
    fp8attn_status_t st;
} run_t;

static int64_t n_groups(const qcase_t *c)
{
    return c->mode < 0 ? 0 : fp8attn_descale_count((fp8attn_granularity_t)c->mode, c->b, c->h);
}

/* The CPU result: out buffer poisoned, then fp8attn_quantize_cpu. */
static run_t run_cpu(const qcase_t *c, const void *x, int64_t o_bytes, fp8attn_descale_t given)
{
    fp8attn_quant_params_t p;
    run_t r;
    const int64_t g = n_groups(c);
    fp8attn_quant_params_init(&p);
    r.out = malloc((size_t)o_bytes);
    r.descale = malloc((size_t)(g > 0 ? g : 1) * sizeof(float));
    memset(r.out, POISON, (size_t)o_bytes);
    memset(r.descale, 0xFF, (size_t)(g > 0 ? g : 1) * sizeof(float));
    p.x.data = (const char *)x + c->x_shift * esize(c->type);
    p.x.type = c->type;
    p.x.batch = c->b, p.x.heads = c->h, p.x.seqlen = c->s, p.x.head_dim = c->d;
    p.x.stride = strides(c, c->x_pad);
    p.out = r.out;
    p.out_stride = strides(c, c->o_pad);
    if (c->mode < 0) p.descale = given;
    else {
        p.descale_out = r.descale;
        p.granularity = (fp8attn_granularity_t)c->mode;
    }
    r.st = fp8attn_quantize_cpu(&p);
    return r;
}

/* The GPU result on g_stream: device copies, poisoned out and descale_out, a workspace full of
 * garbage, `repeat` calls (the last one counts). */
static run_t run_gpu(const qcase_t *c, const void *x, int64_t x_elems, int64_t o_bytes,
                     fp8attn_descale_t given, int repeat)
{
    fp8attn_quant_params_t p;
    run_t r;
    const int64_t g = n_groups(c);
    void *dx = NULL, *dout = NULL, *dds = NULL, *dws = NULL, *dgiven = NULL;
    size_t ws = 0;
    int i;
    fp8attn_quant_params_init(&p);
    CUDA(cudaMalloc(&dx, (size_t)(x_elems * esize(c->type))));
    CUDA(cudaMemcpy(dx, x, (size_t)(x_elems * esize(c->type)), cudaMemcpyHostToDevice));
    CUDA(cudaMalloc(&dout, (size_t)o_bytes));
    CUDA(cudaMalloc(&dds, (size_t)(g > 0 ? g : 1) * sizeof(float)));
    p.x.data = (const char *)dx + c->x_shift * esize(c->type);
    p.x.type = c->type;
    p.x.batch = c->b, p.x.heads = c->h, p.x.seqlen = c->s, p.x.head_dim = c->d;
    p.x.stride = strides(c, c->x_pad);
    p.out = dout;
    p.out_stride = strides(c, c->o_pad);
    if (c->mode < 0) {
        const size_t n = (size_t)c->b * c->h * sizeof(float);
        CUDA(cudaMalloc(&dgiven, n));
        CUDA(cudaMemcpy(dgiven, given.ptr, n, cudaMemcpyHostToDevice));
        p.descale = given;
        p.descale.ptr = dgiven;
    } else {
        p.descale_out = dds;
        p.granularity = (fp8attn_granularity_t)c->mode;
    }
    CHECK(fp8attn_quantize_workspace_size(&p, &ws) == FP8ATTN_OK, "%s: workspace size: %s", c->name,
          fp8attn_last_error());
    CHECK(ws == (size_t)g * 4, "%s: workspace %zu bytes, want %lld", c->name, ws, (long long)g * 4);
    if (ws) {
        CUDA(cudaMalloc(&dws, ws));
        CUDA(cudaMemset(dws, 0x5A, ws)); /* garbage: the call must clear it */
        p.workspace = dws;
        p.workspace_bytes = ws;
    }
    CUDA(cudaMemsetAsync(dout, POISON, (size_t)o_bytes, g_stream));
    CUDA(cudaMemsetAsync(dds, 0xFF, (size_t)(g > 0 ? g : 1) * sizeof(float), g_stream));
    for (i = 0; i < repeat; i++) r.st = fp8attn_quantize_gpu(&p, g_stream);
    CUDA(cudaStreamSynchronize(g_stream));
    CUDA(cudaGetLastError());
    r.out = malloc((size_t)o_bytes);
    r.descale = malloc((size_t)(g > 0 ? g : 1) * sizeof(float));
    CUDA(cudaMemcpy(r.out, dout, (size_t)o_bytes, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(r.descale, dds, (size_t)(g > 0 ? g : 1) * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA(cudaFree(dx));
    CUDA(cudaFree(dout));
    CUDA(cudaFree(dds));
    CUDA(cudaFree(dws));
    CUDA(cudaFree(dgiven));
    return r;
}

static void compare(const char *name, const run_t *want, const run_t *got, int64_t o_bytes,
                    int64_t groups)
{
    int64_t i, bad = 0;
    CHECK(want->st == FP8ATTN_OK, "%s: CPU: %s", name, fp8attn_last_error());
    CHECK(got->st == FP8ATTN_OK, "%s: GPU: %s %s", name, fp8attn_status_string(got->st),
          fp8attn_last_error());
    for (i = 0; i < o_bytes; i++)
        if (want->out[i] != got->out[i]) {
            if (bad++ < 5)
                CHECK(0, "%s: out byte %lld: GPU 0x%02x, CPU 0x%02x", name, (long long)i,
                      got->out[i], want->out[i]);
        }
    CHECK(bad == 0, "%s: %lld of %lld out bytes differ", name, (long long)bad, (long long)o_bytes);
    for (i = 0; i < groups; i++)
        CHECK(bits_of_float(want->descale[i]) == bits_of_float(got->descale[i]),
              "%s: descale[%lld]: GPU %a, CPU %a", name, (long long)i, (double)got->descale[i],
              (double)want->descale[i]);
}

static void free_run(run_t *r)
{
    free(r->out);
    free(r->descale);
}

static long g_cases;

static void run_case(const qcase_t *c, uint64_t seed)
{
    uint64_t rng = seed;
    const fp8attn_strides_t xs = strides(c, c->x_pad), os = strides(c, c->o_pad);
    const int64_t x_elems = c->x_shift + span(c, xs) + 16, o_bytes = span(c, os) + 16;
    void *x = make_input(c, x_elems, xs, &rng);
    fp8attn_descale_t given = {NULL, 0, 0};
    float *ds = c->mode < 0 ? make_descales(c, &given, &rng) : NULL;
    run_t want = run_cpu(c, x, o_bytes, given);
    run_t got = run_gpu(c, x, x_elems, o_bytes, given, 2);
    compare(c->name, &want, &got, o_bytes, n_groups(c));
    g_cases++;
    free_run(&want);
    free_run(&got);
    free(ds);
    free(x);
}

static const char *type_name(fp8attn_src_type_t t)
{
    return t == FP8ATTN_SRC_F32 ? "f32" : t == FP8ATTN_SRC_F16 ? "f16" : "bf16";
}

/* Shapes x layouts x strides x every mode, for one input type. */
static void test_matrix(fp8attn_src_type_t type, uint64_t seed)
{
    /* b, h, s, d, bshd, x_pad, o_pad, x_shift */
    static const int shapes[][8] = {
        {2, 3, 37, 64, 0, 0, 0, 0},     /* BHSD, vector path */
        {2, 4, 100, 128, 1, 0, 0, 0},   /* BSHD */
        {1, 2, 4097, 128, 0, 0, 0, 0},  /* many tiles per slab */
        {3, 2, 19, 256, 1, 32, 48, 0},  /* padded rows, still 16-byte aligned */
        {64, 8, 1, 64, 1, 0, 0, 0},     /* one-row slabs: tiles across groups */
        {2, 3, 29, 64, 0, 3, 5, 0},     /* odd strides: scalar path */
        {2, 2, 31, 24, 1, 0, 0, 0},     /* head_dim 24: scalar path */
        {1, 3, 40, 64, 0, 0, 0, 1},     /* misaligned x: scalar path */
        {5, 1, 7, 16, 0, 0, 16, 0},     /* head_dim 16, one head */
    };
    const long before = g_failures;
    size_t i;
    int mode;
    char name[160];
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (mode = -3; mode <= 2; mode++) {
            qcase_t c;
            memset(&c, 0, sizeof c);
            c.type = type;
            c.b = shapes[i][0], c.h = shapes[i][1], c.s = shapes[i][2], c.d = shapes[i][3];
            c.bshd = shapes[i][4], c.x_pad = shapes[i][5], c.o_pad = shapes[i][6];
            c.x_shift = shapes[i][7];
            c.mode = mode < 0 ? -1 : mode;
            c.given_bcast = mode < 0 ? mode + 3 : 0;
            c.specials = 1;
            snprintf(name, sizeof name, "%s (%d,%d,%d,%d) %s pad %d/%d shift %d %s%d", type_name(type),
                     c.b, c.h, c.s, c.d, c.bshd ? "bshd" : "bhsd", c.x_pad, c.o_pad, c.x_shift,
                     c.mode < 0 ? "given " : "dynamic ", c.mode < 0 ? c.given_bcast : c.mode);
            c.name = name;
            run_case(&c, seed + i * 16 + (uint64_t)(mode + 3));
        }
    printf("%s matrix: %s\n", type_name(type), g_failures == before ? "ok" : "FAILED");
}

/* Every 16-bit pattern as FP16 and as BF16, and the codec's float probes, with given descales
 * of each kind (exact division at 1, fast path, IEEE path). */
static void run_values(fp8attn_src_type_t type, const void *values, int n, float descale)
{
    qcase_t c;
    char name[96];
    void *x;
    fp8attn_descale_t given = {&descale, 0, 0};
    memset(&c, 0, sizeof c);
    c.type = type, c.b = 1, c.h = 1, c.s = n / 16, c.d = 16, c.mode = -1;
    snprintf(name, sizeof name, "%s values, descale %a", type_name(type), (double)descale);
    c.name = name;
    x = calloc((size_t)(n + 16), (size_t)esize(type));
    memcpy(x, values, (size_t)n * (size_t)esize(type));
    {
        run_t want = run_cpu(&c, x, n + 16, given);
        run_t got = run_gpu(&c, x, n + 16, n + 16, given, 1);
        compare(c.name, &want, &got, n + 16, 0);
        free_run(&want);
        free_run(&got);
    }
    free(x);
    g_cases++;
}

static void test_values(void)
{
    const float descales[] = {1.0f, 0.75f, 1.0f / 448.0f, 0x1p-10f, 3.1e7f, FLT_MIN, 0x1p-140f, 0x1p80f};
    const long before = g_failures;
    uint16_t *all16 = malloc(65536 * sizeof *all16);
    float *probes = malloc(200000 * sizeof *probes);
    uint64_t rng = 77;
    int n = 0, i, c, k;
    for (i = 0; i < 65536; i++) all16[i] = (uint16_t)i;
    for (c = 0; c <= 0x7E; c++) { /* E4M3 values, midpoints, their neighbours, both signs */
        const float lo = fp8attn_e4m3_to_float((uint8_t)c);
        const float hi = c < 0x7E ? fp8attn_e4m3_to_float((uint8_t)(c + 1)) : 480.0f;
        const float p[2] = {lo, (lo + hi) / 2};
        for (k = 0; k < 2; k++) {
            probes[n++] = p[k], probes[n++] = -p[k];
            probes[n++] = nextafterf(p[k], 0.0f), probes[n++] = nextafterf(p[k], INFINITY);
            probes[n++] = -nextafterf(p[k], INFINITY);
        }
    }
    {
        const uint32_t sp[] = {0x00000001u, 0x007FFFFFu, 0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u,
                               0x7F800001u, 0x7FFFFFFFu, 0x7FA5A5A5u};
        for (k = 0; k < 8; k++)
            probes[n++] = float_of_bits(sp[k]), probes[n++] = float_of_bits(sp[k] | 0x80000000u);
    }
    while (n < 200000 - 16) probes[n++] = float_of_bits((uint32_t)splitmix64(&rng));
    n -= n % 16;
    for (i = 0; i < (int)(sizeof descales / sizeof descales[0]); i++) {
        run_values(FP8ATTN_SRC_F16, all16, 65536, descales[i]);
        run_values(FP8ATTN_SRC_BF16, all16, 65536, descales[i]);
        run_values(FP8ATTN_SRC_F32, probes, n, descales[i]);
    }
    free(all16);
    free(probes);
    printf("all FP16/BF16 values and the codec probes: %s\n", g_failures == before ? "ok" : "FAILED");
}

/* A NaN in one (batch, head) group of a dynamic call: that group's descale is NaN and its codes
 * are NaN (0x7F | sign of x); the other groups are as the CPU quantizes them alone. */
static void test_nan_group(void)
{
    const int B = 2, H = 2, S = 33, D = 64, bad_b = 1, bad_h = 0;
    const long before = g_failures;
    const int64_t n = (int64_t)B * H * S * D;
    float *x = malloc((size_t)n * sizeof *x);
    uint64_t rng = 99;
    qcase_t c;
    int64_t i;
    int b, h;
    run_t got;
    memset(&c, 0, sizeof c);
    c.name = "dynamic (batch, head) with a NaN group";
    c.type = FP8ATTN_SRC_F32, c.b = B, c.h = H, c.s = S, c.d = D;
    c.mode = FP8ATTN_SCALE_PER_BATCH_HEAD;
    for (i = 0; i < n; i++) x[i] = normal(&rng);
    x[((int64_t)(bad_b * H + bad_h) * S + 5) * D + 7] = float_of_bits(0xFFC00001u); /* -NaN */
    got = run_gpu(&c, x, n, n, (fp8attn_descale_t){NULL, 0, 0}, 1);
    CHECK(got.st == FP8ATTN_OK, "%s: %s", c.name, fp8attn_last_error());
    for (b = 0; b < B; b++)
        for (h = 0; h < H; h++) {
            const int64_t base = (int64_t)(b * H + h) * S * D;
            if (b == bad_b && h == bad_h) {
                CHECK(isnan(got.descale[b * H + h]), "%s: descale of the NaN group %a", c.name,
                      (double)got.descale[b * H + h]);
                for (i = 0; i < (int64_t)S * D; i++) {
                    const uint8_t want =
                        (uint8_t)(0x7Fu | ((bits_of_float(x[base + i]) >> 24) & 0x80u &
                                           (isnan(x[base + i]) ? 0xFFu : 0u)));
                    CHECK(got.out[base + i] == want, "%s: code %lld = 0x%02x, want 0x%02x", c.name,
                          (long long)i, got.out[base + i], want);
                }
            } else { /* the group alone on the CPU */
                qcase_t one = c;
                run_t want;
                int64_t k;
                one.b = 1, one.h = 1;
                want = run_cpu(&one, x + base, (int64_t)S * D, (fp8attn_descale_t){NULL, 0, 0});
                CHECK(want.st == FP8ATTN_OK, "%s: CPU: %s", c.name, fp8attn_last_error());
                CHECK(bits_of_float(want.descale[0]) == bits_of_float(got.descale[b * H + h]),
                      "%s: descale (%d,%d)", c.name, b, h);
                for (k = 0; k < (int64_t)S * D; k++)
                    CHECK(want.out[k] == got.out[base + k], "%s: (%d,%d) code %lld", c.name, b, h,
                          (long long)k);
                free_run(&want);
            }
        }
    free_run(&got);
    free(x);
    printf("NaN group: %s\n", g_failures == before ? "ok" : "FAILED");
}

/* Refused calls write nothing: each one after poisoning out, then out is checked. */
static void test_errors(void)
{
    const int B = 1, H = 2, S = 8, D = 64;
    const size_t n = (size_t)B * H * S * D;
    const long before = g_failures;
    fp8attn_quant_params_t p, q;
    float *dx = NULL, *dds = NULL;
    uint8_t *dout = NULL, *host = malloc(n);
    void *dws = NULL;
    size_t i;
    int k;
    CUDA(cudaMalloc((void **)&dx, n * sizeof(float) + 16));
    CUDA(cudaMemset(dx, 0, n * sizeof(float) + 16));
    CUDA(cudaMalloc((void **)&dout, n));
    CUDA(cudaMalloc((void **)&dds, 64));
    CUDA(cudaMalloc(&dws, 64));
    fp8attn_quant_params_init(&p);
    p.x.data = dx, p.x.type = FP8ATTN_SRC_F32, p.x.batch = B, p.x.heads = H, p.x.seqlen = S;
    p.x.head_dim = D, p.x.stride = fp8attn_strides_bhsd(H, S, D);
    p.out = dout, p.out_stride = fp8attn_strides_bhsd(H, S, D);
    p.descale_out = dds, p.granularity = FP8ATTN_SCALE_PER_BATCH_HEAD;
    p.workspace = dws, p.workspace_bytes = 64;
    for (k = 0; k < 8; k++) {
        const char *what = "";
        fp8attn_status_t want = FP8ATTN_OK, st;
        q = p;
        switch (k) {
        case 0: q.format = FP8ATTN_FORMAT_E5M2, want = FP8ATTN_ERR_NOT_SUPPORTED, what = "params->format"; break;
        case 1: q.workspace = NULL, want = FP8ATTN_ERR_NULL_POINTER, what = "params->workspace"; break;
        case 2: q.workspace_bytes = 4, want = FP8ATTN_ERR_INVALID_ARGUMENT, what = "params->workspace_bytes"; break;
        case 3: q.descale.ptr = dds + 8, want = FP8ATTN_ERR_INVALID_ARGUMENT, what = "params->descale.ptr and params->descale_out"; break;
        case 4: q.out = (uint8_t *)dx, want = FP8ATTN_ERR_OVERLAP, what = "params->out"; break;
        case 5: q.x.data = (const char *)dx + 2, want = FP8ATTN_ERR_INVALID_STRIDE, what = "params->x.data"; break;
        case 6: q.x.head_dim = 0, want = FP8ATTN_ERR_INVALID_SIZE, what = "params->x.head_dim"; break;
        case 7: q.out_stride.token = 32, want = FP8ATTN_ERR_INVALID_STRIDE, what = "params->out_stride.token"; break;
        }
        CUDA(cudaMemset(dout, POISON, n));
        st = fp8attn_quantize_gpu(&q, g_stream);
        CUDA(cudaStreamSynchronize(g_stream));
        CHECK(st == want, "error case %d: status %d, want %d (%s)", k, (int)st, (int)want,
              fp8attn_last_error());
        CHECK(strstr(fp8attn_last_error(), what) != NULL, "error case %d: message '%s' does not name %s",
              k, fp8attn_last_error(), what);
        CUDA(cudaMemcpy(host, dout, n, cudaMemcpyDeviceToHost));
        for (i = 0; i < n; i++)
            if (host[i] != POISON) break;
        CHECK(i == n, "error case %d: out written at byte %zu", k, i);
    }
    CUDA(cudaFree(dx));
    CUDA(cudaFree(dout));
    CUDA(cudaFree(dds));
    CUDA(cudaFree(dws));
    free(host);
    printf("errors: %s\n", g_failures == before ? "ok" : "FAILED");
}

/* A dynamic (batch, head) quantization captured in a CUDA graph, replayed on two inputs: each
 * replay equals the CPU on the data of the moment. */
static void test_graph(void)
{
    const int B = 2, H = 4, S = 300, D = 128;
    const size_t n = (size_t)B * H * S * D;
    const long before = g_failures;
    float *x = malloc(n * sizeof *x), *dx = NULL, *dds = NULL;
    uint8_t *dout = NULL, *out = malloc(n);
    float ds[8];
    void *dws = NULL;
    fp8attn_quant_params_t p, hp;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    uint64_t rng = 31;
    size_t i;
    int rep;
    CUDA(cudaMalloc((void **)&dx, n * sizeof(float)));
    CUDA(cudaMalloc((void **)&dout, n));
    CUDA(cudaMalloc((void **)&dds, sizeof ds));
    CUDA(cudaMalloc(&dws, sizeof ds));
    fp8attn_quant_params_init(&p);
    p.x.data = dx, p.x.type = FP8ATTN_SRC_F32, p.x.batch = B, p.x.heads = H, p.x.seqlen = S;
    p.x.head_dim = D, p.x.stride = fp8attn_strides_bshd(H, S, D);
    p.out = dout, p.out_stride = fp8attn_strides_bshd(H, S, D);
    p.descale_out = dds, p.granularity = FP8ATTN_SCALE_PER_BATCH_HEAD;
    p.workspace = dws, p.workspace_bytes = sizeof ds;
    CUDA(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
    CHECK(fp8attn_quantize_gpu(&p, g_stream) == FP8ATTN_OK, "graph capture: %s", fp8attn_last_error());
    CUDA(cudaStreamEndCapture(g_stream, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (rep = 0; rep < 2; rep++) {
        for (i = 0; i < n; i++) x[i] = normal(&rng) * (float)(rep * 7 + 1) * (float)(i % 5 + 1);
        CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
        CUDA(cudaMemsetAsync(dout, POISON, n, g_stream));
        CUDA(cudaGraphLaunch(exec, g_stream));
        CUDA(cudaStreamSynchronize(g_stream));
        {
            float want_ds[8];
            uint8_t *want = malloc(n);
            hp = p;
            hp.x.data = x, hp.out = want, hp.descale_out = want_ds, hp.workspace = NULL;
            CHECK(fp8attn_quantize_cpu(&hp) == FP8ATTN_OK, "graph: CPU: %s", fp8attn_last_error());
            CUDA(cudaMemcpy(out, dout, n, cudaMemcpyDeviceToHost));
            CUDA(cudaMemcpy(ds, dds, sizeof ds, cudaMemcpyDeviceToHost));
            CHECK(memcmp(out, want, n) == 0, "graph replay %d: codes differ from the CPU", rep);
            CHECK(memcmp(ds, want_ds, sizeof ds) == 0, "graph replay %d: descales differ", rep);
            free(want);
        }
    }
    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaGraphDestroy(graph));
    CUDA(cudaFree(dx));
    CUDA(cudaFree(dout));
    CUDA(cudaFree(dds));
    CUDA(cudaFree(dws));
    free(x);
    free(out);
    printf("CUDA graph: %s\n", g_failures == before ? "ok" : "FAILED");
}

int main(void)
{
    int count = 0;
    if (access("/dev/nvidiactl", F_OK) != 0 && access("/dev/nvidia0", F_OK) != 0) {
        printf("SKIP: no NVIDIA GPU on this machine\n");
        return 77;
    }
    CUDA(cudaGetDeviceCount(&count));
    CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    test_matrix(FP8ATTN_SRC_F32, 1000);
    test_matrix(FP8ATTN_SRC_F16, 2000);
    test_matrix(FP8ATTN_SRC_BF16, 3000);
    test_values();
    test_nan_group();
    test_errors();
    test_graph();
    CUDA(cudaStreamDestroy(g_stream));
    printf("%ld cases\n", g_cases);
    if (g_failures) {
        printf("FAIL: %ld failures\n", g_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
