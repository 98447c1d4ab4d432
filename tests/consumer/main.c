/* Uses an installed fp8attn: quantizes float Q, K, V with dynamic per-(batch, head) descales
 * (fp8attn_quantize_cpu), runs the CPU backend (fp8attn_forward_cpu) and checks the result is
 * finite and the library's version is the header's. Exit 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fp8attn.h>

enum { B = 1, H = 2, S = 64, D = 64, N = B * H * S * D };

int main(void)
{
    static float x[N];
    static uint8_t qkv[3][N] __attribute__((aligned(16)));
    static uint16_t o[N] __attribute__((aligned(16)));
    float descale[3][B * H];
    char want[32];
    fp8attn_params_t p;
    fp8attn_status_t st = FP8ATTN_OK;
    int t, i;

    snprintf(want, sizeof want, "%d.%d.%d", FP8ATTN_VERSION_MAJOR, FP8ATTN_VERSION_MINOR,
             FP8ATTN_VERSION_PATCH);
    if (strcmp(fp8attn_version(), want) != 0) {
        fprintf(stderr, "library version %s, header %s\n", fp8attn_version(), want);
        return 1;
    }
    for (t = 0; t < 3 && st == FP8ATTN_OK; t++) {
        fp8attn_quant_params_t q;
        for (i = 0; i < N; i++) x[i] = cosf(0.37f * (float)i * (float)(t + 1));
        fp8attn_quant_params_init(&q);
        q.x.data = x, q.x.type = FP8ATTN_SRC_F32;
        q.x.batch = B, q.x.heads = H, q.x.seqlen = S, q.x.head_dim = D;
        q.x.stride = fp8attn_strides_bhsd(H, S, D);
        q.out = qkv[t], q.out_stride = q.x.stride;
        q.descale_out = descale[t], q.granularity = FP8ATTN_SCALE_PER_BATCH_HEAD;
        st = fp8attn_quantize_cpu(&q);
    }
    fp8attn_params_init(&p);
    p.batch = B, p.h_q = p.h_kv = H, p.seqlen_q = p.seqlen_k = S, p.head_dim = D, p.causal = 1;
    p.q = qkv[0], p.k = qkv[1], p.v = qkv[2], p.o = o;
    p.q_stride = p.k_stride = p.v_stride = p.o_stride = fp8attn_strides_bhsd(H, S, D);
    p.q_descale = fp8attn_descale_layout(FP8ATTN_SCALE_PER_BATCH_HEAD, descale[0], H);
    p.k_descale = fp8attn_descale_layout(FP8ATTN_SCALE_PER_BATCH_HEAD, descale[1], H);
    p.v_descale = fp8attn_descale_layout(FP8ATTN_SCALE_PER_BATCH_HEAD, descale[2], H);
    if (st == FP8ATTN_OK) st = fp8attn_forward_cpu(&p);
    if (st != FP8ATTN_OK) {
        fprintf(stderr, "%s: %s\n", fp8attn_status_string(st), fp8attn_last_error());
        return 1;
    }
    for (i = 0; i < N; i++)
        if (!isfinite(fp8attn_fp16_to_float(o[i]))) {
            fprintf(stderr, "O[%d] is not finite\n", i);
            return 1;
        }
    printf("fp8attn %s: O(0, 1, 63, 0) = %g\n", fp8attn_version(),
           fp8attn_fp16_to_float(o[(S + 63) * D]));
    return 0;
}
