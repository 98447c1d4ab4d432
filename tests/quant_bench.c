/* fp8attn_quant_bench: bandwidth of fp8attn_quantize_gpu against a device-to-device copy of the
 * same input, in `fp8attn bench` style: CUDA events around the one call, L2 flushed before each
 * timed run (a cudaMemsetAsync over twice the L2 size), warm-up runs first, p50 with p10/p90.
 * GB/s counts bytes read + written once each: the copy moves 2 x input bytes; quantize reads the
 * input and writes one byte per element. Dynamic descales read the input twice (amax, then
 * encode); their GB/s is given both ways: "GB/s" counts the input once (what the call delivers),
 * "traffic GB/s" twice (what the memory moved).
 *
 *   fp8attn_quant_bench [--mib 64,256] [--iters 50] [--warmup 10] [--json FILE]
 *
 * Input: [1, 16, S, 128] BSHD contiguous with S chosen for --mib MiB of input, for BF16, FP16 and
 * F32. Exit 77 without an NVIDIA device node, 1 on any CUDA or library error. Not a test: run by
 * tests/python/device_run.sh and by hand. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "fp8attn.h"

#define MAX_SIZES 8
#define MAX_ITERS 10000

#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "fp8attn_quant_bench: %s: %s\n", #call, cudaGetErrorString(e_));       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct stats {
    double p10, p50, p90; /* microseconds */
} stats_t;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, int n, double q)
{
    double pos = q / 100.0 * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]) : sorted[n - 1];
}

static cudaStream_t g_stream;
static void *g_flush;
static size_t g_flush_bytes;

typedef enum { OP_COPY, OP_GIVEN, OP_DYNAMIC_TENSOR, OP_DYNAMIC_BH } op_t;

typedef struct bench_case {
    fp8attn_quant_params_t p;
    void *copy_dst;
    size_t in_bytes;
} bench_case_t;

static void run_op(bench_case_t *c, op_t op)
{
    fp8attn_quant_params_t p = c->p;
    fp8attn_status_t st;
    if (op == OP_COPY) {
        CUDA(cudaMemcpyAsync(c->copy_dst, c->p.x.data, c->in_bytes, cudaMemcpyDeviceToDevice, g_stream));
        return;
    }
    if (op != OP_GIVEN) {
        p.descale.ptr = NULL;
        p.granularity = op == OP_DYNAMIC_TENSOR ? FP8ATTN_SCALE_PER_TENSOR : FP8ATTN_SCALE_PER_BATCH_HEAD;
    } else {
        p.descale_out = NULL;
    }
    if ((st = fp8attn_quantize_gpu(&p, g_stream)) != FP8ATTN_OK) {
        fprintf(stderr, "fp8attn_quant_bench: fp8attn_quantize_gpu: %s: %s\n",
                fp8attn_status_string(st), fp8attn_last_error());
        exit(1);
    }
}

static stats_t time_op(bench_case_t *c, op_t op, int warmup, int iters)
{
    double t[MAX_ITERS];
    cudaEvent_t a, b;
    stats_t s;
    int i;
    float ms;
    CUDA(cudaEventCreate(&a));
    CUDA(cudaEventCreate(&b));
    for (i = 0; i < warmup; i++) run_op(c, op);
    for (i = 0; i < iters; i++) {
        CUDA(cudaMemsetAsync(g_flush, i & 0xFF, g_flush_bytes, g_stream));
        CUDA(cudaEventRecord(a, g_stream));
        run_op(c, op);
        CUDA(cudaEventRecord(b, g_stream));
        CUDA(cudaEventSynchronize(b));
        CUDA(cudaEventElapsedTime(&ms, a, b));
        t[i] = 1e3 * ms;
    }
    CUDA(cudaGetLastError());
    CUDA(cudaEventDestroy(a));
    CUDA(cudaEventDestroy(b));
    qsort(t, (size_t)iters, sizeof t[0], cmp_double);
    s.p10 = percentile(t, iters, 10), s.p50 = percentile(t, iters, 50), s.p90 = percentile(t, iters, 90);
    return s;
}

/* x: uniform values in (-4, 4) of the type, generated on the host and copied. */
static void fill_random(void *x, fp8attn_src_type_t type, size_t n, uint64_t seed)
{
    const size_t es = type == FP8ATTN_SRC_F32 ? 4 : 2;
    unsigned char *h = malloc(n * es);
    size_t i;
    if (!h) {
        fprintf(stderr, "fp8attn_quant_bench: out of host memory\n");
        exit(1);
    }
    for (i = 0; i < n; i++) {
        float v;
        uint16_t b;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v = (float)((double)(seed >> 11) / 9007199254740992.0 * 8.0 - 4.0);
        if (type == FP8ATTN_SRC_F32) {
            memcpy(h + 4 * i, &v, 4);
            continue;
        }
        b = type == FP8ATTN_SRC_F16 ? fp8attn_float_to_fp16(v) : fp8attn_float_to_bf16(v);
        memcpy(h + 2 * i, &b, 2);
    }
    CUDA(cudaMemcpy(x, h, n * es, cudaMemcpyHostToDevice));
    free(h);
}

static int parse_sizes(const char *arg, int *mib)
{
    int n = 0;
    while (*arg && n < MAX_SIZES) {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || v < 1 || v > 65536) return -1;
        mib[n++] = (int)v;
        arg = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    static const fp8attn_src_type_t types[3] = {FP8ATTN_SRC_BF16, FP8ATTN_SRC_F16, FP8ATTN_SRC_F32};
    static const char *const type_names[3] = {"bf16", "f16", "f32"};
    static const char *const op_names[4] = {"copy", "quantize given", "quantize dynamic tensor",
                                            "quantize dynamic (b,h)"};
    int mib[MAX_SIZES] = {64, 256}, n_sizes = 2, iters = 50, warmup = 10, i, t, o, l2 = 0, dev = 0;
    const char *json_path = NULL;
    FILE *json = NULL;
    struct cudaDeviceProp prop;
    int first = 1;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) {
            if ((n_sizes = parse_sizes(argv[++i], mib)) < 1) {
                fprintf(stderr, "fp8attn_quant_bench: --mib %s: want sizes in MiB, e.g. 64,256\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            json_path = argv[++i];
        } else {
            fprintf(stderr, "usage: fp8attn_quant_bench [--mib 64,256] [--iters 50] [--warmup 10] "
                            "[--json FILE]\n");
            return 2;
        }
    }
    if (iters < 1 || iters > MAX_ITERS || warmup < 0) {
        fprintf(stderr, "fp8attn_quant_bench: --iters 1..%d, --warmup >= 0\n", MAX_ITERS);
        return 2;
    }
    if (access("/dev/nvidiactl", F_OK) != 0 && access("/dev/nvidia0", F_OK) != 0) {
        printf("SKIP: no NVIDIA GPU on this machine\n");
        return 77;
    }
    CUDA(cudaGetDevice(&dev));
    CUDA(cudaGetDeviceProperties(&prop, dev));
    CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    g_flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    CUDA(cudaMalloc(&g_flush, g_flush_bytes));
    if (json_path && !(json = fopen(json_path, "w"))) {
        perror(json_path);
        return 1;
    }
    printf("device: %s, L2 %d MiB, L2 flush %zu MiB before each timed run, %d warm-up, %d timed\n",
           prop.name, l2 >> 20, g_flush_bytes >> 20, warmup, iters);
    printf("%-5s %6s  %-24s %9s %9s %9s %9s %8s\n", "type", "MiB", "op", "p50 us", "p10 us", "p90 us",
           "GB/s", "vs copy");
    if (json)
        fprintf(json, "{\n \"device\": \"%s\", \"l2_bytes\": %d, \"warmup\": %d, \"iters\": %d,\n"
                      " \"results\": [", prop.name, l2, warmup, iters);
    for (i = 0; i < n_sizes; i++)
        for (t = 0; t < 3; t++) {
            const size_t es = types[t] == FP8ATTN_SRC_F32 ? 4 : 2;
            const int H = 16, D = 128;
            const int S = (int)(((size_t)mib[i] << 20) / (es * H * D));
            const size_t elems = (size_t)H * S * D, in_bytes = elems * es;
            bench_case_t c;
            void *x = NULL, *out = NULL, *ws = NULL;
            float *ds = NULL, one = 0.01f;
            double copy_gbs = 0;
            memset(&c, 0, sizeof c);
            CUDA(cudaMalloc(&x, in_bytes));
            CUDA(cudaMalloc(&c.copy_dst, in_bytes));
            CUDA(cudaMalloc(&out, elems));
            CUDA(cudaMalloc((void **)&ds, 64 * sizeof(float)));
            CUDA(cudaMalloc(&ws, 64 * sizeof(float)));
            fill_random(x, types[t], elems, (uint64_t)(i * 3 + t + 1));
            CUDA(cudaMemcpy(ds, &one, sizeof one, cudaMemcpyHostToDevice));
            fp8attn_quant_params_init(&c.p);
            c.p.x.data = x, c.p.x.type = types[t];
            c.p.x.batch = 1, c.p.x.heads = H, c.p.x.seqlen = S, c.p.x.head_dim = D;
            c.p.x.stride = fp8attn_strides_bshd(H, S, D);
            c.p.out = out, c.p.out_stride = c.p.x.stride;
            c.p.descale.ptr = ds; /* given: one per tensor */
            c.p.descale_out = ds + 16;
            c.p.workspace = ws, c.p.workspace_bytes = 64 * sizeof(float);
            c.in_bytes = in_bytes;
            for (o = 0; o < 4; o++) {
                const stats_t s = time_op(&c, (op_t)o, warmup, iters);
                const double bytes = o == OP_COPY ? 2.0 * in_bytes : (double)(in_bytes + elems);
                const double traffic = o >= OP_DYNAMIC_TENSOR ? bytes + in_bytes : bytes;
                const double gbs = bytes / (s.p50 * 1e3);
                if (o == OP_COPY) copy_gbs = gbs;
                printf("%-5s %6d  %-24s %9.1f %9.1f %9.1f %9.0f %7.1f%%", type_names[t], mib[i],
                       op_names[o], s.p50, s.p10, s.p90, gbs, 100.0 * gbs / copy_gbs);
                if (traffic != bytes) printf("  (traffic %.0f GB/s)", traffic / (s.p50 * 1e3));
                printf("\n");
                if (json) {
                    fprintf(json, "%s\n  {\"type\": \"%s\", \"input_mib\": %d, \"op\": \"%s\", "
                                  "\"p50_us\": %.3f, \"p10_us\": %.3f, \"p90_us\": %.3f, "
                                  "\"bytes\": %.0f, \"traffic_bytes\": %.0f, \"gb_per_s\": %.1f, "
                                  "\"traffic_gb_per_s\": %.1f, \"fraction_of_copy\": %.4f}",
                            first ? "" : ",", type_names[t], mib[i], op_names[o], s.p50, s.p10, s.p90,
                            bytes, traffic, gbs, traffic / (s.p50 * 1e3), gbs / copy_gbs);
                    first = 0;
                }
            }
            CUDA(cudaFree(x));
            CUDA(cudaFree(c.copy_dst));
            CUDA(cudaFree(out));
            CUDA(cudaFree(ds));
            CUDA(cudaFree(ws));
        }
    if (json) {
        fprintf(json, "\n ]\n}\n");
        fclose(json);
    }
    CUDA(cudaFree(g_flush));
    CUDA(cudaStreamDestroy(g_stream));
    return 0;
}
