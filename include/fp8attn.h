/*
 * fp8attn.h -- FP8 scaled-dot-product attention (forward) for NVIDIA tensor cores.
 *
 *   O = softmax(scale * Q.K^T + mask) . V
 *
 * Q, K, V are FP8 codes (E4M3, or E5M2) with fp32 descales; O is FP16 or BF16; an optional
 * fp32 log-sum-exp (natural log) per query row. Plain C99; usable from C and C++.
 *
 * Conventions (see README.md for the long form):
 *  - Element offsets and strides are 64-bit and counted in elements of the tensor's own type
 *    (bytes for FP8 inputs, 2-byte elements for O). The last dimension (head_dim) is contiguous.
 *    Tensor X's element (b, h, s, d) lives at X + b*X_stride.batch + h*X_stride.head
 *    + s*X_stride.token + d. fp8attn_strides_bhsd() / fp8attn_strides_bshd() build the two
 *    common layouts; sliced views are any other strides that satisfy the checks.
 *  - Real value of an input element = decode(code) * descale[b*descale.batch_stride +
 *    h*descale.head_stride], where h is the tensor's own head index (a query head for Q, a
 *    key/value head for K and V). A stride of 0 broadcasts: (0,0) is one descale per tensor,
 *    (0,1) one per head, (heads,1) one per (batch, head).
 *  - GQA/MQA: query head h reads key/value head h / (h_q / h_kv).
 *  - causal: query i sees keys j <= i + seqlen_k - seqlen_q (aligned bottom-right, as in
 *    FlashAttention 2/3). A query row that sees no key gets O = 0 and LSE = -inf.
 *  - softmax_scale == 0 means 1/sqrt(head_dim).
 *  - LSE, when requested, is fp32, contiguous [batch, h_q, seqlen_q], natural log of
 *    sum_j exp(scale * q.k_j) over the visible keys.
 *  - Alignment (checked by fp8attn_validate, so for every backend, the CPU one included): the
 *    Q, K, V and O pointers are 16-byte aligned; the Q, K and V strides of every dimension whose
 *    extent is > 1 are multiples of 16 elements, O's multiples of 8 elements (16 bytes); the lse
 *    and descale pointers are 4-byte aligned. A violation is FP8ATTN_ERR_INVALID_STRIDE.
 *  - GPU numerics: the kernels fold softmax_scale * q_descale * k_descale into one multiplier
 *    formed in fp32, left to right, with subnormals flushed to zero, so for every (batch, query
 *    head) that product (and softmax_scale * q_descale) must be a finite, normal fp32 number;
 *    fp8attn_forward_cpu refuses a problem where it is not (FP8ATTN_ERR_INVALID_DESCALE);
 *    fp8attn_forward cannot read the descales and does not check.
 *    The Hopper kernel (variant "wgmma") accumulates Q.K^T on FP8 tensor cores that truncate each
 *    32-deep partial sum, so its LSE carries up to ~2.5e-3 absolute error (O is unaffected at
 *    that level: its error is dominated by the E4M3 rounding of the probabilities, ~2e-2 rel RMS).
 *    Inputs must be finite: with a NaN code in V at a key that a row cannot see (causal), the
 *    tensor-core path may still propagate NaN into that row (0 * NaN), although the CPU backend
 *    ignores masked keys.
 *
 * Error handling: every call returns an fp8attn_status_t; fp8attn_last_error() gives the
 * message of the calling thread's last failure, naming the field, its value and what is allowed.
 * On failure nothing is written to O or LSE (one exception: fp8attn_forward below, when the CUDA
 * launch itself fails after its counter's memset).
 */
#ifndef FP8ATTN_H
#define FP8ATTN_H

#include <stddef.h>
#include <stdint.h>

#define FP8ATTN_VERSION_MAJOR 0
#define FP8ATTN_VERSION_MINOR 1
#define FP8ATTN_VERSION_PATCH 0
/* Single comparable number: MAJOR*10000 + MINOR*100 + PATCH. */
#define FP8ATTN_VERSION_CODE \
    (FP8ATTN_VERSION_MAJOR * 10000 + FP8ATTN_VERSION_MINOR * 100 + FP8ATTN_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* Same type as cudaStream_t, declared here so the header needs no CUDA headers.
 * NULL (0) is the legacy default stream. */
struct CUstream_st;
typedef struct CUstream_st *fp8attn_stream_t;

typedef enum fp8attn_status {
    FP8ATTN_OK = 0,
    FP8ATTN_ERR_NULL_POINTER = 1,       /* a required pointer (params, q, k, v, o, descale) is NULL */
    FP8ATTN_ERR_INVALID_SIZE = 2,       /* batch, heads or a seqlen is < 1 */
    FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM = 3, /* head_dim is not 64, 128 or 256 */
    FP8ATTN_ERR_HEAD_RATIO = 4,         /* h_q is not a multiple of h_kv */
    FP8ATTN_ERR_INVALID_STRIDE = 5,     /* negative, misaligned, or self-overlapping strides, or a
                                           misaligned pointer (q, k, v, o: 16 bytes; lse and the
                                           descales: 4 bytes) */
    FP8ATTN_ERR_OVERLAP = 6,            /* O or LSE overlaps an input or each other */
    FP8ATTN_ERR_INVALID_DESCALE = 7,    /* a descale is non-finite or <= 0 (or bad strides), or
                                           (CPU backend) softmax_scale * q_descale * k_descale is
                                           not a finite, normal fp32 number */
    FP8ATTN_ERR_INVALID_SCALE = 8,      /* softmax_scale is negative or non-finite */
    FP8ATTN_ERR_INVALID_FORMAT = 9,     /* unknown input format or output type */
    FP8ATTN_ERR_TOO_LARGE = 10,         /* an offset would not fit in 64 bits */
    FP8ATTN_ERR_NOT_SUPPORTED = 11,     /* valid problem, but no kernel/backend here supports it */
    FP8ATTN_ERR_CUDA = 12,              /* a CUDA runtime call failed (message has the CUDA error) */
    FP8ATTN_ERR_OUT_OF_MEMORY = 13,     /* host allocation failed */
    FP8ATTN_ERR_INVALID_ARGUMENT = 14   /* any other bad argument (unknown variant name, ...) */
} fp8attn_status_t;

typedef enum fp8attn_format {
    FP8ATTN_FORMAT_E4M3 = 0, /* OCP E4M3 "fn": bias 7, max 448, no inf, S.1111.111 = NaN */
    FP8ATTN_FORMAT_E5M2 = 1  /* OCP E5M2: bias 15, max 57344, IEEE-like inf/NaN */
} fp8attn_format_t;

typedef enum fp8attn_out_type {
    FP8ATTN_OUT_FP16 = 0,
    FP8ATTN_OUT_BF16 = 1
} fp8attn_out_type_t;

/* Element strides of a [batch, heads, tokens, head_dim] view; head_dim is contiguous. */
typedef struct fp8attn_strides {
    int64_t batch;
    int64_t head;
    int64_t token;
} fp8attn_strides_t;

/* fp32 descales: value for (b, h) is ptr[b*batch_stride + h*head_stride]. Strides may be 0. */
typedef struct fp8attn_descale {
    const float *ptr;
    int64_t batch_stride;
    int64_t head_stride;
} fp8attn_descale_t;

/* One problem. Initialise with fp8attn_params_init(), then fill in. For fp8attn_forward() every
 * pointer (descales included) is device memory; for fp8attn_forward_cpu() host memory. */
typedef struct fp8attn_params {
    int32_t batch;
    int32_t h_q;      /* query heads */
    int32_t h_kv;     /* key/value heads; h_q % h_kv == 0 */
    int32_t seqlen_q; /* >= 1 */
    int32_t seqlen_k; /* >= 1 */
    int32_t head_dim; /* 64, 128 or 256 */

    fp8attn_format_t in_format;  /* format of the Q, K, V codes */
    fp8attn_out_type_t out_type; /* element type of O */

    const uint8_t *q; /* FP8 codes */
    const uint8_t *k;
    const uint8_t *v;
    void *o;          /* uint16_t elements: FP16 or BF16 bits */
    float *lse;       /* optional (NULL = not written): [batch, h_q, seqlen_q], contiguous */

    fp8attn_strides_t q_stride, k_stride, v_stride, o_stride;
    fp8attn_descale_t q_descale, k_descale, v_descale;

    float softmax_scale; /* 0 = 1/sqrt(head_dim); must be finite and >= 0 */
    int32_t causal;      /* 0 or 1 */
} fp8attn_params_t;

/* ---- version, status, errors ---- */
const char *fp8attn_version(void); /* "MAJOR.MINOR.PATCH" of the library actually linked */
const char *fp8attn_status_string(fp8attn_status_t status);
/* Message of the calling thread's last failure ("" if none yet). Valid until the next call
 * into fp8attn from the same thread. */
const char *fp8attn_last_error(void);

/* ---- problem description ---- */
/* Zeroes *p and sets the defaults: E4M3 input, FP16 output, softmax_scale 0, not causal. */
void fp8attn_params_init(fp8attn_params_t *p);
/* Contiguous [B, H, S, D] and [B, S, H, D] strides for a tensor with `heads` heads. */
fp8attn_strides_t fp8attn_strides_bhsd(int32_t heads, int32_t seqlen, int32_t head_dim);
fp8attn_strides_t fp8attn_strides_bshd(int32_t heads, int32_t seqlen, int32_t head_dim);
/* Checks every field that can be checked without touching the data. Backends call it first.
 * Descale *values* are checked by fp8attn_forward_cpu (host memory); fp8attn_forward cannot
 * read device memory without synchronising and checks pointers and strides only. */
fp8attn_status_t fp8attn_validate(const fp8attn_params_t *p);
/* Softmax scale actually used (resolves 0 to 1/sqrt(head_dim)). */
float fp8attn_effective_scale(const fp8attn_params_t *p);

/* ---- compute ---- */
/* CPU reference and CPU backend: decodes FP8 exactly, applies descales, accumulates in double,
 * rounds once to the output type. Single-threaded; allocates O(seqlen_k * head_dim) host scratch. */
fp8attn_status_t fp8attn_forward_cpu(const fp8attn_params_t *p);
/* GPU forward on `stream` with the fastest kernel variant that supports the problem on the
 * current device. Asynchronous; allocates nothing. Uses no workspace: on Hopper,
 * fp8attn_forward_ws (below) with one is faster. On Hopper a causal problem of two waves of
 * query tiles or more may count its tiles in 4 bytes of O (a 4-byte memset on `stream` before
 * the kernel, in a CUDA graph a memset node), which the kernel then overwrites with the output;
 * a CUDA launch error (FP8ATTN_ERR_CUDA) after that memset leaves those 4 bytes zeroed. The
 * kernel's blocks then take their tiles from that count, and the block with the last tile waits
 * until every block of the grid has taken its last: the kernel needs a second SM to finish
 * (docs/PERF.md w117; it finishes in a green context of 8 SMs, eager and in a CUDA graph, w119).
 * The same holds for fp8attn_forward_variant and for fp8attn_forward_ws where its kernel reads
 * no V^T from the workspace. */
fp8attn_status_t fp8attn_forward(const fp8attn_params_t *p, fp8attn_stream_t stream);

/* ---- kernel variants (registry) ---- */
int fp8attn_variant_count(void);
const char *fp8attn_variant_name(int index);         /* NULL if out of range */
const char *fp8attn_variant_description(int index);  /* NULL if out of range */
/* FP8ATTN_OK if `variant` can run `p` on CUDA device `device`; otherwise why not. "wgmma" reads
 * and writes through TMA, so it refuses (FP8ATTN_ERR_NOT_SUPPORTED, naming the field) a Q, K, V
 * or O stride of 2^40 bytes or more; the default dispatch then takes "mma". */
fp8attn_status_t fp8attn_variant_supports(const char *variant, const fp8attn_params_t *p,
                                          int device);
/* Device scratch ("workspace") for the GPU forward. The Hopper kernels ("wgmma") use it to
 * transpose V once per call instead of once per block of queries in shared memory, which makes
 * them faster (docs/PERF.md, w8, w55), for the counters their causal tile scheduler and that
 * transpose hand out work with (w50, w55), and without the causal mask to spread the last round
 * of query tiles over every SM, whose partial results meet there (w62, w66); every other variant
 * needs none (0 bytes). With the workspace the output is the same on every call, as it is
 * without one. The two are the same bit for bit where the call runs the same key tiles either way
 * and does not split that last round: fp8attn_forward_ws_kernel names both kernels, and the
 * same tiles are the same name or it with "_vt" or "_vtc" appended. Elsewhere the sums of P.V
 * are grouped differently: the last bits differ, the error against fp64 is the same (at
 * head_dim 128, where the call given a workspace reads V^T from it, its kernel takes 224-key
 * tiles from 4096 keys (causal: 2048), and, without the mask, on some shorter problems where
 * they pad fewer keys; without one, 192-key tiles). The workspace holds
 * nothing between calls, must be FP8ATTN_WORKSPACE_ALIGN-byte aligned (cudaMalloc and PyTorch's
 * allocator are) and must not overlap any tensor of the problem; calls on different streams need
 * different workspaces. fp8attn_forward_ws(p, variant, NULL, 0, s) is
 * fp8attn_forward_variant(p, variant, s) (variant NULL: fp8attn_forward's choice).
 * Both functions allocate nothing and do not synchronise. */
#define FP8ATTN_WORKSPACE_ALIGN 256
/* *bytes = the scratch fp8attn_forward_ws(p, variant, ...) can use on the current device
 * (0: none). For wgmma: batch * h_kv * head_dim * (seqlen_k rounded up to 32), V's size,
 * rounded up to 16, plus 16 (two counters and padding) plus 4 * (batch * h_kv + c) rounded up
 * to 16 (a count per kv head, and c the split tail's), where c is 0 unless the kernel splits
 * the last round of query tiles (no causal mask, a last round that leaves SMs idle, a split
 * that saves at least 2 % by the model in src/kernels/wgmma/sched_plan.cu): then c is that
 * round's tiles x rows per block / 16, and from the next multiple of 256 follow two slots per
 * SM of rows per block x (head_dim / 8 + 1) x 32 bytes (partial O, row maxima and sums). All
 * this when a V tile would otherwise be transposed in shared memory often enough, i.e. when
 * ceil(seqlen_q / rows per block) * (h_q / h_kv) reaches, on a problem of more than one wave of
 * blocks, 10 (head_dim 64) or 8 (128, 256) without the causal mask and 16 (256) or 24
 * (128) with it, and 32 otherwise; or, on a problem of one wave without the mask, when
 * splitting its tiles' keys over every SM saves at least 10 % (head_dim 256: 5 %) by the
 * model in src/kernels/wgmma/wgmma_variant.cu (use_vt_pass: e.g. 512 queries against 16k
 * keys). At head_dim 256 without the mask the kernel that transposes V in shared memory splits
 * too, needing no V^T: where its split saves 2 % with 10 key tiles of cost, the size is only
 * the split's, 4 x that round's tiles x 8 rounded up to 256, plus two slots per SM of 128 x
 * (head_dim / 8 + 1) x 32 bytes; it is taken where V^T would not be, and on one-wave problems
 * where the model puts it ahead of the V^T split (workspace_use, docs/PERF.md w66: e.g. 512
 * queries against 32k keys, 1.8x faster). At head_dim 64 a one-wave problem without the mask
 * takes the size of its 192-row blocks (rows per block 192) where their split is 10 % ahead of
 * the 128-row blocks by the model in wgmma_variant.cu (instance_for_call, w67: e.g. 512 queries
 * against 16k keys, 1.33x faster); without a workspace it runs the 128-row blocks. 0
 * otherwise. */
fp8attn_status_t fp8attn_forward_workspace_size(const fp8attn_params_t *p, const char *variant,
                                                size_t *bytes);
/* fp8attn_forward_variant with a workspace of workspace_size bytes: at least the size above
 * (else FP8ATTN_ERR_INVALID_ARGUMENT), or NULL and 0 (the kernels that need none). */
fp8attn_status_t fp8attn_forward_ws(const fp8attn_params_t *p, const char *variant,
                                    void *workspace, size_t workspace_size,
                                    fp8attn_stream_t stream);
/* Name of the variant fp8attn_forward() would pick for `p` on `device` (NULL if none). */
const char *fp8attn_variant_default(const fp8attn_params_t *p, int device);
/* Like fp8attn_forward, with a named variant. */
fp8attn_status_t fp8attn_forward_variant(const fp8attn_params_t *p, const char *variant,
                                         fp8attn_stream_t stream);
/* Symbol of the kernel fp8attn_forward_variant(p, variant, ...) would launch on the current device
 * (variant NULL: fp8attn_forward's choice), e.g. "fp8attn_mma_hd128_m128"; NULL if it would fail,
 * with fp8attn_last_error saying why. Launches nothing. */
const char *fp8attn_forward_kernel(const fp8attn_params_t *p, const char *variant);
/* The same for fp8attn_forward_ws: with_workspace != 0 names the kernel that runs when it is
 * given a workspace of fp8attn_forward_workspace_size bytes (e.g. "fp8attn_wgmma_hd128_vt",
 * which the one-block fp8attn_wgmma_vt_clear precedes); 0 is fp8attn_forward_kernel. */
const char *fp8attn_forward_ws_kernel(const fp8attn_params_t *p, const char *variant,
                                      int with_workspace);

/* ---- compiled kernels (for resource reports) ----
 * Every __global__ kernel the library launches has a plain (unmangled) symbol name, so it can be
 * found in `cuobjdump --dump-resource-usage` output. Static fields are known without a GPU;
 * the runtime fields are filled from cudaFuncGetAttributes / the occupancy API when a device is
 * present and are -1 otherwise. */
typedef struct fp8attn_kernel_info {
    const char *variant;      /* registry name, e.g. "mma" */
    const char *symbol;       /* kernel symbol, e.g. "fp8attn_mma_hd128_m128" */
    int32_t head_dim;         /* head_dim it serves (0 = any) */
    int32_t threads;          /* threads per block */
    int64_t dynamic_smem;     /* dynamic shared memory per block at launch, bytes */
    /* runtime (the calling thread's current CUDA device, cudaGetDevice), -1 without a GPU: */
    int32_t registers;        /* per thread */
    int64_t static_smem;      /* bytes */
    int64_t local_bytes;      /* local memory per thread (stack frame + spills), bytes */
    int32_t max_blocks_per_sm;/* occupancy at `threads` and `dynamic_smem` */
} fp8attn_kernel_info_t;

int fp8attn_kernel_count(void);
/* Fills *info for kernel `index` (0 <= index < fp8attn_kernel_count()). */
fp8attn_status_t fp8attn_kernel_get(int index, fp8attn_kernel_info_t *info);

/* ---- host FP8 codec: round to nearest, ties to even ----
 * E4M3: finite values beyond +-448 and +-inf saturate to +-448; NaN -> 0x7F | sign.
 * E5M2: IEEE-like; overflow rounds to +-inf as IEEE does; inf kept; NaN -> 0x7F | sign (a NaN). */
uint8_t fp8attn_float_to_e4m3(float x);
float fp8attn_e4m3_to_float(uint8_t code);
uint8_t fp8attn_float_to_e5m2(float x);
float fp8attn_e5m2_to_float(uint8_t code);
/* 16-bit output helpers (round to nearest even; NaN stays NaN). */
uint16_t fp8attn_float_to_fp16(float x);
float fp8attn_fp16_to_float(uint16_t h);
uint16_t fp8attn_float_to_bf16(float x);
float fp8attn_bf16_to_float(uint16_t h);

/* ---- host quantization helpers ---- */
typedef enum fp8attn_src_type {
    FP8ATTN_SRC_F32 = 0,
    FP8ATTN_SRC_F16 = 1,
    FP8ATTN_SRC_BF16 = 2
} fp8attn_src_type_t;

typedef enum fp8attn_granularity {
    FP8ATTN_SCALE_PER_TENSOR = 0,    /* 1 descale;               strides (0, 0)     */
    FP8ATTN_SCALE_PER_HEAD = 1,      /* [heads] descales;        strides (0, 1)     */
    FP8ATTN_SCALE_PER_BATCH_HEAD = 2 /* [batch, heads] descales; strides (heads, 1) */
} fp8attn_granularity_t;

/* A host tensor [batch, heads, seqlen, head_dim] of src_type elements with element strides. */
typedef struct fp8attn_tensor_view {
    const void *data;
    fp8attn_src_type_t type;
    int32_t batch, heads, seqlen, head_dim;
    fp8attn_strides_t stride;
} fp8attn_tensor_view_t;

/* Number of descales `g` produces for a tensor of (batch, heads). */
int64_t fp8attn_descale_count(fp8attn_granularity_t g, int32_t batch, int32_t heads);
/* The (batch_stride, head_stride) that index the array fp8attn_compute_descales writes. */
fp8attn_descale_t fp8attn_descale_layout(fp8attn_granularity_t g, const float *ptr,
                                         int32_t heads);
/* descale[i] = max(amax over group i / max finite of `format`, FLT_MIN) (amax 0 gives descale 1).
 * The FLT_MIN floor keeps descales normal fp32 numbers (the GPU flushes subnormals to zero) and
 * amax / descale <= max finite, so quantizing with these descales never overflows (no E5M2 inf);
 * a group whose amax is below max finite * FLT_MIN then quantizes with reduced resolution.
 * Non-finite input values are refused (FP8ATTN_ERR_INVALID_ARGUMENT). */
fp8attn_status_t fp8attn_compute_descales(const fp8attn_tensor_view_t *x, fp8attn_granularity_t g,
                                          fp8attn_format_t format, float *descale_out);
/* out(b,h,s,d) = encode(x(b,h,s,d) / descale(b,h)) in `format`, written with out_stride.
 * Encoding follows the codec above: with a caller's descale so small that x / descale exceeds the
 * max finite, E4M3 saturates and E5M2 gives inf (descales from fp8attn_compute_descales never do). */
fp8attn_status_t fp8attn_quantize(const fp8attn_tensor_view_t *x, fp8attn_descale_t descale,
                                  fp8attn_format_t format, uint8_t *out,
                                  fp8attn_strides_t out_stride);

/* ---- quantization on the GPU, and the same function on the CPU ----
 * One call turns a [batch, heads, seqlen, head_dim] F32/F16/BF16 view into FP8 codes, either with
 * given descales (x = code * descale, as fp8attn_quantize) or with dynamic ones: the amax of every
 * group (per tensor, per head or per (batch, head), fp8attn_granularity_t) is reduced and
 * descale = max(amax / format max, FLT_MIN) (amax 0 gives 1) is written to descale_out in the
 * layout fp8attn_descale_layout(granularity, descale_out, heads) describes, exactly as
 * fp8attn_compute_descales computes it. Codes are bit-identical to the host codec applied to
 * x / descale (round to nearest even; E4M3 saturates to +-448; NaN -> 0x7F | sign).
 *
 * fp8attn_quantize_gpu: every pointer is device memory; stream-ordered (no host synchronisation),
 * allocates nothing, capturable in a CUDA graph. Dynamic descales need a workspace of
 * fp8attn_quantize_workspace_size() bytes (4-byte aligned; not shared with another call in flight).
 * E4M3 only (E5M2 gives FP8ATTN_ERR_NOT_SUPPORTED). The GPU cannot refuse values it would have to
 * read back: a group holding a NaN or inf gets descale NaN and NaN codes (0x7F | sign), and given
 * descales are not checked (they must be finite and > 0).
 * fp8attn_quantize_cpu: host memory; E4M3 and E5M2; refuses non-finite inputs of a dynamic call
 * and descales that are not finite and > 0 (nothing written); needs no workspace.
 * Both check every field first (the message names it) and write nothing on failure. */
typedef struct fp8attn_quant_params {
    fp8attn_tensor_view_t x;         /* input; strides in elements, head_dim contiguous */
    fp8attn_format_t format;         /* of the codes (default E4M3) */
    uint8_t *out;                    /* codes, element (b, h, s, d) at out + b*out_stride.batch */
    fp8attn_strides_t out_stride;    /* + h*.head + s*.token + d; rows disjoint, apart from x */
    /* Exactly one of the two: */
    fp8attn_descale_t descale;       /* given: descale.ptr != NULL (read; broadcast strides) */
    float *descale_out;              /* dynamic: fp8attn_descale_count(granularity, ...) floats */
    fp8attn_granularity_t granularity; /* dynamic only */
    void *workspace;                 /* dynamic, GPU only */
    size_t workspace_bytes;
} fp8attn_quant_params_t;

/* Zeroes *p: E4M3, per tensor, no pointers. */
void fp8attn_quant_params_init(fp8attn_quant_params_t *p);
/* Bytes of workspace fp8attn_quantize_gpu needs for *p (0 with given descales). */
fp8attn_status_t fp8attn_quantize_workspace_size(const fp8attn_quant_params_t *p, size_t *bytes);
fp8attn_status_t fp8attn_quantize_gpu(const fp8attn_quant_params_t *p, fp8attn_stream_t stream);
fp8attn_status_t fp8attn_quantize_cpu(const fp8attn_quant_params_t *p);

#ifdef __cplusplus
}
#endif
#endif /* FP8ATTN_H */
