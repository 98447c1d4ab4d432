/* README example: quantize float Q, K, V to FP8 E4M3 and run the CPU reference forward. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fp8attn.h"

enum { B = 1, H = 2, S = 128, D = 64, N = B * H * S * D };

/* Q, K, V and O must be 16-byte aligned (the GPU kernels use 16-byte vector loads). */
static void *alloc16(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 16, bytes) == 0 ? p : NULL;
}

/* E4M3 codes of a float [B, H, S, D] tensor, with one descale per head. */
static fp8attn_status_t to_fp8(const float *x, uint8_t *codes, float *descales)
{
    fp8attn_tensor_view_t view = {x, FP8ATTN_SRC_F32, B, H, S, D, fp8attn_strides_bhsd(H, S, D)};
    fp8attn_status_t st = fp8attn_compute_descales(&view, FP8ATTN_SCALE_PER_HEAD,
                                                   FP8ATTN_FORMAT_E4M3, descales);
    if (st != FP8ATTN_OK) return st;
    return fp8attn_quantize(&view, fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, descales, H),
                            FP8ATTN_FORMAT_E4M3, codes, view.stride);
}

int main(void)
{
    float *x = malloc(N * sizeof *x), descale[3][H], lse[B * H * S];
    uint8_t *qkv[3] = {alloc16(N), alloc16(N), alloc16(N)};
    uint16_t *o = alloc16(N * sizeof *o); /* FP16 bits */
    fp8attn_status_t st = FP8ATTN_OK;
    fp8attn_params_t p;
    int t, i;

    for (t = 0; t < 3 && st == FP8ATTN_OK; t++) { /* Q, K, V from any float data */
        for (i = 0; i < N; i++) x[i] = sinf(0.01f * (float)(i + 1) * (float)(t + 1));
        st = to_fp8(x, qkv[t], descale[t]);
    }

    fp8attn_params_init(&p); /* E4M3 in, FP16 out, softmax_scale 0 = 1/sqrt(D) */
    p.batch = B;
    p.h_q = p.h_kv = H;
    p.seqlen_q = p.seqlen_k = S;
    p.head_dim = D;
    p.causal = 1;
    p.q = qkv[0];
    p.k = qkv[1];
    p.v = qkv[2];
    p.o = o;
    p.lse = lse; /* optional */
    p.q_stride = p.k_stride = p.v_stride = p.o_stride = fp8attn_strides_bhsd(H, S, D);
    p.q_descale = fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, descale[0], H);
    p.k_descale = fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, descale[1], H);
    p.v_descale = fp8attn_descale_layout(FP8ATTN_SCALE_PER_HEAD, descale[2], H);

    if (st == FP8ATTN_OK) st = fp8attn_forward_cpu(&p);
    if (st != FP8ATTN_OK) {
        fprintf(stderr, "%s\n%s\n", fp8attn_status_string(st), fp8attn_last_error());
        return 1;
    }
    printf("O(b=0, h=1, s=5, d=0) = %g, LSE = %g\n", fp8attn_fp16_to_float(o[(S + 5) * D]),
           lse[S + 5]);

    p.head_dim = 96; /* a deliberate mistake: refused, and nothing is written */
    st = fp8attn_forward_cpu(&p);
    printf("%s\n%s\n", fp8attn_status_string(st), fp8attn_last_error());

    for (t = 0; t < 3; t++) free(qkv[t]);
    free(o);
    free(x);
    return st == FP8ATTN_ERR_UNSUPPORTED_HEAD_DIM ? 0 : 1;
}
