/* Host side of the wgmma family: the TMA tensor maps of Q, K, V and O, built for each call from
 * the params' pointers and strides, and the rest of the flat kernel parameters (config.cuh).
 *
 * A tensor is described to TMA as 4-D, innermost first: (head_dim, tokens, heads, batch) with the
 * byte strides of the view, so BHSD, BSHD, packed and sliced layouts all work and rows past the
 * sequence are zero-filled by the copy engine without being read. cuTensorMapEncodeTiled is a
 * driver API function; it is reached through the runtime's driver entry point
 * (cudaGetDriverEntryPointByVersion, or cudaGetDriverEntryPoint before CUDA 12.5) so that the
 * library links only the static CUDA runtime. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <string.h>

#include "../../internal.h"
#include "../common.cuh"
#include "config.cuh"
#include "wgmma_host.h"

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                    const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* The driver's cuTensorMapEncodeTiled, looked up once (a race looks it up twice, harmlessly). */
static fp8attn_status_t encoder(encode_tiled_fn *fn)
{
    static encode_tiled_fn cached = NULL;
    encode_tiled_fn f = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!f) {
        void *ptr = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000,
                                                         cudaEnableDefault, &q);
#else /* CUDA 12.0-12.4: the unversioned lookup (deprecated since 12.5) */
        cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &ptr, cudaEnableDefault, &q);
#endif
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !ptr)
            return fp8attn_fail(FP8ATTN_ERR_CUDA,
                                "wgmma: the driver has no cuTensorMapEncodeTiled (%s)",
                                e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
        f = (encode_tiled_fn)ptr;
        __atomic_store_n(&cached, f, __ATOMIC_RELEASE);
    }
    *fn = f;
    return FP8ATTN_OK;
}

/* Byte strides of the (tokens, heads, batch) dimensions as TMA gets them. A dimension of extent 1
 * is never stepped over, so its stride is replaced by one TMA accepts (the span of the dimensions
 * inside it); the others are the view's own (validated: multiples of 16). */
static void tma_strides(const fp8attn_strides_t *s, int d, int tokens, int heads, int batch,
                        cuuint64_t out[3])
{
    out[0] = tokens > 1 ? (cuuint64_t)s->token : (cuuint64_t)d;
    out[1] = heads > 1 ? (cuuint64_t)s->head : out[0] * (cuuint64_t)tokens;
    out[2] = batch > 1 ? (cuuint64_t)s->batch : out[1] * (cuuint64_t)heads;
}

fp8attn_status_t fp8attn_wgmma_check_strides(const fp8attn_params_t *p)
{
    /* O too: the kernels that stage O store it only by TMA (epilogue.cuh) */
    const struct {
        const char *name;
        const fp8attn_strides_t *s;
        int tokens, heads, elem_bytes;
    } t[4] = {{"q_stride", &p->q_stride, p->seqlen_q, p->h_q, 1},
              {"k_stride", &p->k_stride, p->seqlen_k, p->h_kv, 1},
              {"v_stride", &p->v_stride, p->seqlen_k, p->h_kv, 1},
              {"o_stride", &p->o_stride, p->seqlen_q, p->h_q, 2}};
    static const char *const dim[3] = {"token", "head", "batch"};
    for (int i = 0; i < 4; i++) {
        cuuint64_t st[3];
        const int extent[3] = {t[i].tokens, t[i].heads, p->batch};
        tma_strides(t[i].s, p->head_dim, t[i].tokens, t[i].heads, p->batch, st);
        for (int k = 0; k < 3; k++) {
            const cuuint64_t bytes = st[k] * (cuuint64_t)t[i].elem_bytes;
            if (bytes == 0 || bytes >= ((cuuint64_t)1 << 40))
                return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                                    "wgmma: params->%s.%s%s gives TMA a stride of %llu bytes; it "
                                    "needs one in (0, 2^40) (use mma)",
                                    t[i].name, dim[k],
                                    extent[k] == 1 ? " (extent 1: the span of the dimensions "
                                                     "inside it)"
                                                   : "",
                                    (unsigned long long)bytes);
        }
    }
    return FP8ATTN_OK;
}

/* Encodes one 4-D map (head_dim, tokens, heads, batch) of elem_bytes-byte elements at ptr, with
 * the view's strides s (in elements), a box of box_cols x box_rows, the swizzle as wide as a box
 * row (128, 64 or 32 bytes). bytes[] gets the byte strides given to TMA. A stride TMA cannot take
 * (0, not a multiple of 16 bytes, 2^40 or more) is refused before the driver sees it. */
static CUresult encode_map(encode_tiled_fn encode, CUtensorMap *map, CUtensorMapDataType type,
                           int elem_bytes, const void *ptr, const fp8attn_strides_t *s, int d,
                           int tokens, int heads, int batch, int box_cols, int box_rows,
                           CUtensorMapL2promotion l2, cuuint64_t bytes[3])
{
    const cuuint64_t dims[4] = {(cuuint64_t)d, (cuuint64_t)tokens, (cuuint64_t)heads,
                                (cuuint64_t)batch};
    const cuuint32_t box[4] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows, 1, 1};
    const cuuint32_t elem[4] = {1, 1, 1, 1};
    tma_strides(s, d, tokens, heads, batch, bytes);
    for (int k = 0; k < 3; k++) {
        bytes[k] *= (cuuint64_t)elem_bytes;
        if (bytes[k] == 0 || bytes[k] % 16 != 0 || bytes[k] >= ((cuuint64_t)1 << 40))
            return CUDA_ERROR_INVALID_VALUE;
    }
    const int row_bytes = box_cols * elem_bytes;
    const CUtensorMapSwizzle sw = row_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                    : CU_TENSOR_MAP_SWIZZLE_32B;
    return encode(map, type, 4, (void *)ptr, dims, bytes, box, elem,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, sw, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* An E4M3 operand (Q, K, V or V^T): box box_cols bytes x box_rows rows; failure is an error. */
static fp8attn_status_t make_map(encode_tiled_fn encode, CUtensorMap *map, const char *name,
                                 const uint8_t *ptr, const fp8attn_strides_t *s, int d, int tokens,
                                 int heads, int batch, int box_cols, int box_rows)
{
    cuuint64_t bytes[3];
    const CUresult r =
        encode_map(encode, map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, ptr, s, d, tokens, heads, batch,
                   box_cols, box_rows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, bytes);
    if (r != CUDA_SUCCESS)
        return fp8attn_fail(FP8ATTN_ERR_CUDA,
                            "wgmma: the TMA map of params->%s cannot be encoded (CUresult %d): "
                            "dims (%d, %d, %d, %d), byte strides (%llu, %llu, %llu)",
                            name, (int)r, d, tokens, heads, batch, (unsigned long long)bytes[0],
                            (unsigned long long)bytes[1], (unsigned long long)bytes[2]);
    return FP8ATTN_OK;
}

/* O for the TMA store of the epilogue: 16-bit elements with O's strides, box 64 columns (128
 * bytes, 128-byte swizzle) x `rows` rows (16: one warp's; 64: one consumer's, in the kernels
 * that stage O over their ring, config.cuh O_BOX_ROWS). fp8attn_wgmma_check_strides has refused the
 * strides TMA cannot take, and a kernel that stages O has no other store, so a failure is an
 * error. */
static fp8attn_status_t make_o_map(encode_tiled_fn encode, CUtensorMap *map,
                                   const fp8attn_params_t *p, int rows)
{
    cuuint64_t bytes[3];
    const CUresult r = encode_map(encode, map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, p->o,
                                  &p->o_stride, p->head_dim, p->seqlen_q, p->h_q, p->batch, 64, rows,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, bytes);
    if (r != CUDA_SUCCESS)
        return fp8attn_fail(FP8ATTN_ERR_CUDA,
                            "wgmma: the TMA map of params->o cannot be encoded (CUresult %d): "
                            "byte strides (%llu, %llu, %llu)",
                            (int)r, (unsigned long long)bytes[0], (unsigned long long)bytes[1],
                            (unsigned long long)bytes[2]);
    return FP8ATTN_OK;
}

/* V^T [batch][h_kv][D][SKP] as a 4-D map (keys, D rows, heads, batch) of a packed array, box
 * box_keys bytes x D rows. */
static fp8attn_status_t make_vt_map(encode_tiled_fn encode, const fp8attn_params_t *p,
                                    const void *vt, int box_keys, CUtensorMap *map)
{
    const int64_t skp = fp8attn_wgmma_vt_skp(p);
    fp8attn_strides_t s;
    s.token = skp;                               /* one row of V^T: a dim's keys */
    s.head = skp * p->head_dim;
    s.batch = s.head * p->h_kv;
    return make_map(encode, map, "v, as V^T in the workspace", (const uint8_t *)vt, &s, (int)skp,
                    p->head_dim, p->h_kv, p->batch, box_keys, p->head_dim);
}

fp8attn_status_t fp8attn_wgmma_make_vt_maps(const fp8attn_params_t *p, void *vt, int sw_n,
                                            int chunk, struct wgmma_params *out)
{
    encode_tiled_fn encode;
    fp8attn_status_t st = encoder(&encode);
    if (st != FP8ATTN_OK) return st;
    if ((st = make_vt_map(encode, p, vt, sw_n, &out->tm_vt)) != FP8ATTN_OK) return st;
    if (chunk <= 0) return FP8ATTN_OK; /* make_params left the chunk fields zero */
    if ((st = make_vt_map(encode, p, vt, chunk, &out->tm_vt_store)) != FP8ATTN_OK) return st;
    out->vt_chunks_per_head = (p->seqlen_k + chunk - 1) / chunk;
    /* < 2^31 - 2 grid (the counter's last value: every background warp takes once past the
     * end): batch * h_kv * chunks_per_head <= the workspace's V^T bytes / 2048 (SKP >= 32
     * chunks_per_head keys per pair, head_dim >= 64), and a workspace of 2^42 bytes is beyond
     * any GPU */
    out->vt_chunks = (int32_t)((int64_t)p->batch * p->h_kv * out->vt_chunks_per_head);
    out->div_vt_chunks = fp8attn_fastdiv_make((uint32_t)out->vt_chunks_per_head);
    out->div_h_kv = fp8attn_fastdiv_make((uint32_t)p->h_kv);
    out->vt_chunk_counter = fp8attn_wgmma_vt_chunk_counter(p, vt);
    out->vt_ready = fp8attn_wgmma_vt_ready(p, vt);
    return FP8ATTN_OK;
}

fp8attn_status_t fp8attn_wgmma_make_params(const fp8attn_params_t *p, int bm, int bn, int v_rows,
                                           int sw_d, int o_map, struct wgmma_params *out)
{
    encode_tiled_fn encode;
    fp8attn_status_t st = encoder(&encode);
    if (st != FP8ATTN_OK) return st;
    if ((st = make_map(encode, &out->tm_q, "q", p->q, &p->q_stride, p->head_dim, p->seqlen_q,
                       p->h_q, p->batch, sw_d, bm)) != FP8ATTN_OK ||
        (st = make_map(encode, &out->tm_k, "k", p->k, &p->k_stride, p->head_dim, p->seqlen_k,
                       p->h_kv, p->batch, sw_d, bn)) != FP8ATTN_OK ||
        (st = make_map(encode, &out->tm_v, "v", p->v, &p->v_stride, p->head_dim, p->seqlen_k,
                       p->h_kv, p->batch, sw_d, v_rows)) != FP8ATTN_OK)
        return st;
    if (o_map) {
        if ((st = make_o_map(encode, &out->tm_o, p, o_map)) != FP8ATTN_OK) return st;
    } else {
        memset(&out->tm_o, 0, sizeof out->tm_o);
    }
    out->batch = p->batch;
    out->h_q = p->h_q;
    out->h_kv = p->h_kv;
    out->seqlen_q = p->seqlen_q;
    out->seqlen_k = p->seqlen_k;
    out->heads_per_kv = p->h_q / p->h_kv;
    out->causal = p->causal ? 1 : 0;
    out->out_bf16 = p->out_type == FP8ATTN_OUT_BF16;
    out->n_q_tiles = (p->seqlen_q + bm - 1) / bm;
    /* causal: the partial query tile is the first (fewest keys), not the last (all of them); a
     * multiple of 16 so that each warp's 16 rows are all before row 0 or none (epilogue.cuh) */
    out->q_off = WGMMA_Q_SHIFT && p->causal ? (out->n_q_tiles * bm - p->seqlen_q) & ~15 : 0;
    out->div_q_tiles = fp8attn_fastdiv_make((uint32_t)out->n_q_tiles);
    out->div_heads = fp8attn_fastdiv_make((uint32_t)(p->h_q * p->batch)); /* < 2^31: pick() caps the tiles */
    out->div_h_q = fp8attn_fastdiv_make((uint32_t)p->h_q);
    out->div_per_kv = fp8attn_fastdiv_make((uint32_t)out->heads_per_kv);
    out->div_pairs = fp8attn_fastdiv_make(1); /* the launch sets it with pairs_per_head */
    out->div_grid = fp8attn_fastdiv_make(1); /* the launch sets it for the snake walk */
    out->scale_log2 = fp8attn_effective_scale(p) * FP8ATTN_LOG2E;
    out->o = p->o;
    out->lse = p->lse;
    out->o_stride = p->o_stride;
    out->q_descale = p->q_descale;
    out->k_descale = p->k_descale;
    out->v_descale = p->v_descale;
    out->sec_heads = 1; /* the launch sets these for the dynamic walk */
    out->sec_units = 1;
    out->div_sec_units = out->div_sec_heads = out->div_last_heads = fp8attn_fastdiv_make(1);
    out->tile_counter = NULL;
    out->vt_chunk_counter = out->vt_ready = NULL; /* fp8attn_wgmma_make_vt_maps sets these */
    out->vt_chunks = out->vt_chunks_per_head = 0;
    out->div_vt_chunks = out->div_h_kv = fp8attn_fastdiv_make(1);
    memset(&out->tm_vt_store, 0, sizeof out->tm_vt_store);
    out->split_units0 = INT32_MAX; /* the launch sets these for the split tail */
    out->split_nk = out->split_w = 0;
    out->div_split_w = out->div_split_nk = fp8attn_fastdiv_make(1);
    out->split_heads = 0;
    out->div_split_heads = fp8attn_fastdiv_make(1);
    out->split_part = NULL;
    out->split_count = NULL;
    return FP8ATTN_OK;
}
