/* Tests the wgmma variant's instance choice on the host, with no GPU: its kernel_for,
 * kernel_for_ws and workspace_size (src/kernels/wgmma/wgmma_variant.cu) for a described sm_90
 * device of 132 SMs (an H100 SXM), so that CI checks the dispatch rules that
 * test_gpu_dispatch.c checks only on a GPU (and with the GPU's own SM count). Named cases: the
 * pad rule (docs/PERF.md w85) and its bounds (causal, one wave, the grid's shapes), and hd128's
 * 224-key range, which holds where V^T comes from the workspace (w102). Then, over a
 * sweep of problems and SM counts, what the rest of the library counts on: a kernel for every
 * problem, of its head dim; where no workspace is asked for (workspace_size 0), the same
 * kernel with and without one, never a _vt kernel; and given one, the same instance or a pair
 * that include/fp8attn.h names (the output without a workspace differs in the last bits there). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fp8attn.h"
#include "kernels/kernels.h"
#include "test_params.h"
#include "test_util.h"

static fp8attn_device_info_t hopper(int sm_count)
{
    fp8attn_device_info_t dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 9, dev.cc_minor = 0, dev.smem_optin = 232448, dev.sm_count = sm_count;
    return dev;
}

static const char *symbol(const fp8attn_kernel_entry_t *k)
{
    return k ? k->symbol : "NULL";
}

/* The kernels the variant picks for (b, h, h_kv, sq queries, sk keys, d) without a workspace and
 * with one. */
static void expect_qk(int b, int h, int h_kv, int sq, int sk, int d, int causal, const char *want,
                      const char *want_ws)
{
    fp8attn_params_t p = test_params_bhsd(b, h, h_kv, sq, sk, d);
    p.causal = causal;
    const fp8attn_device_info_t dev = hopper(132);
    fp8attn_status_t st;
    const char *got = symbol(fp8attn_variant_wgmma.kernel_for(&p, &dev, &st));
    const char *got_ws = symbol(fp8attn_variant_wgmma.kernel_for_ws(&p, &dev, &st));
    CHECK(!strcmp(got, want) && !strcmp(got_ws, want_ws),
          "(%d,%d/%d,%d,%d,%d)%s on 132 SMs: %s / with a workspace %s, want %s / %s", b, h, h_kv,
          sq, sk, d, causal ? " causal" : "", got, got_ws, want, want_ws);
}

/* expect_qk with as many queries as keys */
static void expect(int b, int h, int h_kv, int s, int d, int causal, const char *want,
                   const char *want_ws)
{
    expect_qk(b, h, h_kv, s, s, d, causal, want, want_ws);
}

#define HD128 "fp8attn_wgmma_hd128"
#define N224 "fp8attn_wgmma_hd128_n224"
#define HD64 "fp8attn_wgmma_hd64"
#define N160 "fp8attn_wgmma_hd64_n160"

static void named_cases(void)
{
    /* hd128 without the mask below 4096 keys, more than one wave: 224-key tiles where they cover
     * fewer keys; on the transposing kernel (fewer than 8 repeats, or no workspace) only where
     * at least 10 % fewer (w85) */
    expect(25, 16, 16, 640, 128, 0, N224, N224);          /* 672 against 768 keys, 12.5 % */
    expect(21, 16, 16, 768, 128, 0, HD128, HD128);        /* 896 against 768 */
    expect(16, 16, 16, 1024, 128, 0, HD128, N224 "_vt");  /* 1120 against 1152: 2.8 % */
    expect(16, 16, 16, 1000, 128, 0, HD128, N224 "_vt");  /* the same tiles */
    expect(12, 16, 16, 1280, 128, 0, HD128, HD128 "_vt"); /* 1344 both */
    expect(10, 16, 16, 1536, 128, 0, HD128, HD128 "_vt"); /* 1568 against 1536 */
    expect(9, 16, 16, 1792, 128, 0, HD128, N224 "_vt");   /* 1792 against 1920 */
    expect(8, 16, 16, 2048, 128, 0, HD128, HD128 "_vt");  /* 2240 against 2112 */
    expect(4, 16, 16, 3584, 128, 0, HD128, N224 "_vt");   /* 3584 against 3648 */
    expect(36, 16, 16, 448, 128, 0, N224, N224);          /* 448 against 576 */
    expect(80, 16, 16, 200, 128, 0, N224, N224);          /* one tile against two */
    expect(32, 16, 16, 512, 128, 0, HD128, HD128);        /* 672 against 576 */
    /* from 4096 keys (2048 causal) the ranges give the 224-key tiles, on the _vt kernel only:
     * where V is transposed in shared memory, hd128's 192-key kernel (RANGE_VT_ONLY, w102) */
    expect(4, 16, 16, 4096, 128, 0, HD128, N224 "_vt");
    expect(1, 16, 16, 16384, 128, 0, HD128, N224 "_vt");
    expect(1, 16, 16, 16384, 128, 1, HD128, N224 "_vtc"); /* causal: its causal _vt kernel */
    expect(2, 16, 16, 8192, 128, 1, HD128, N224 "_vtc");
    expect_qk(1, 4, 1, 8400, 8200, 128, 1, HD128, N224 "_vtc"); /* rows without keys too (w106) */
    expect_qk(1, 16, 2, 1000, 8200, 128, 1, HD128, N224 "_vtc");
    expect(4, 16, 16, 4096, 128, 1, HD128, N224 "_vtc"); /* causal from 2048 (w105, w107) */
    expect(4, 16, 16, 3584, 128, 1, HD128, N224 "_vtc");
    expect(8, 16, 4, 2048, 128, 1, HD128, N224 "_vtc");
    expect_qk(1, 16, 2, 600, 3000, 128, 1, HD128, N224 "_vtc"); /* test_gpu_sanitize.sh's */
    expect(8, 16, 16, 2048, 128, 1, HD128, HD128);        /* 16 repeats: V transposed */
    expect(10, 16, 4, 1792, 128, 1, HD128, HD128 "_vt");  /* causal below 2048 */
    expect(4, 16, 16, 6000, 128, 0, HD128, N224 "_vt");  /* 6048 keys against 6144: no pad rule */
    /* one wave against long keys: with a workspace, hd128_n224_vt where its split pays (w63,
     * w65); where it would transpose V, hd128's transposing kernel, with a workspace or without */
    expect_qk(1, 8, 8, 512, 16384, 128, 0, HD128, N224 "_vt");
    expect_qk(1, 8, 8, 512, 16384, 128, 1, HD128, HD128); /* never split under the mask */
    expect_qk(2, 16, 16, 256, 4096, 128, 0, HD128, HD128);
    expect_qk(1, 16, 16, 512, 8192, 128, 0, HD128, N224 "_vt");
    expect_qk(1, 16, 16, 512, 4096, 128, 0, HD128, HD128);
    /* but hd128_n224's transposing kernel, and no workspace, where only hd128_vt's split would
     * pay: 6 query tiles of 19 key tiles of 224 are fewer than 132 SMs, of 22 of 192 not */
    expect_qk(1, 1, 1, 700, 4096, 128, 0, N224, N224);
    /* never under the mask */
    expect(16, 16, 16, 1024, 128, 1, HD128, HD128);
    expect(9, 16, 16, 1792, 128, 1, HD128, HD128);
    expect(9, 16, 4, 1792, 128, 1, HD128, HD128 "_vt");  /* 1792 against 1920, from V^T */
    /* never on one wave: (1,8,640) is 40 tiles; (1,8/2,1000) 64 tiles of 32 repeats, _vt */
    expect(1, 8, 8, 640, 128, 0, HD128, HD128);
    expect(1, 8, 2, 1000, 128, 0, HD128, HD128 "_vt");
    /* hd64 without the mask, more than one wave: 160-key tiles where they cover no more keys
     * (w86; ties since w93, with the workspace and without) */
    expect(34, 32, 32, 480, 64, 0, N160, N160);                /* 480 against 512 */
    expect(54, 32, 32, 300, 64, 0, N160, N160);                /* 320 against 384 */
    expect(25, 32, 32, 640, 64, 0, N160, N160);                /* 640 both */
    expect(13, 32, 32, 1280, 64, 0, N160, N160);               /* 1280 both */
    expect(8, 32, 32, 1920, 64, 0, N160, N160 "_vt");          /* 1920 both */
    expect(4, 32, 32, 3650, 64, 0, N160, N160 "_vt");          /* 3680 against 3712: 0.9 % */
    expect(16, 32, 32, 1024, 64, 0, HD64, HD64);               /* 1120 against 1024 */
    expect(7, 32, 32, 2400, 64, 0, N160, N160 "_vt");          /* 2400 against 2432 */
    expect(4, 32, 32, 4000, 64, 0, N160, N160 "_vt");          /* 4000 against 4096 */
    expect(8, 32, 32, 2048, 64, 0, HD64, HD64 "_vt");          /* 2080 against 2048 */
    expect(1, 32, 32, 16384, 64, 0, HD64, HD64 "_vt");
    expect(34, 32, 32, 480, 64, 1, "fp8attn_wgmma_hd64_m128", "fp8attn_wgmma_hd64_m128");
    /* hd256: one instance */
    expect(32, 8, 8, 512, 256, 0, "fp8attn_wgmma_hd256", "fp8attn_wgmma_hd256");
}

/* One problem of the sweep on dev: a kernel of its head dim with and without a workspace; the
 * same kernel, and no _vt kernel, where no workspace is asked for. */
static void check_problem(const fp8attn_device_info_t *dev, const int bh[3], int s, int d,
                          int causal)
{
    fp8attn_params_t p = test_params_bhsd(bh[0], bh[1], bh[2], s, s, d);
    p.causal = causal;
    fp8attn_status_t st;
    const fp8attn_kernel_entry_t *k = fp8attn_variant_wgmma.kernel_for(&p, dev, &st);
    const fp8attn_kernel_entry_t *kw = fp8attn_variant_wgmma.kernel_for_ws(&p, dev, &st);
    const size_t ws = fp8attn_variant_wgmma.workspace_size(&p, dev);
    const int vt = kw && strstr(kw->symbol, "_vt") != NULL;
    CHECK(k && kw && k->head_dim == d && kw->head_dim == d,
          "(%d,%d/%d,%d,%d) causal %d, %d SMs: kernels %s / %s", bh[0], bh[1], bh[2], s, d, causal,
          dev->sm_count, symbol(k), symbol(kw));
    CHECK(ws > 0 || (k == kw && !vt),
          "(%d,%d/%d,%d,%d) causal %d, %d SMs: no workspace asked, but %s / %s", bh[0], bh[1],
          bh[2], s, d, causal, dev->sm_count, symbol(k), symbol(kw));
    /* Given a workspace, the same instance (its _vt or _vtc kernel or the same one), whose output
     * is the same bit for bit unless it splits, or one of the pairs include/fp8attn.h describes:
     * hd128's 224-key _vt or _vtc kernel where 192-key tiles run without it; hd64's one-wave
     * 192-row blocks where the 128-row ones run without it (taken where their split pays: the
     * workspace size's paragraph). A causal problem (as many queries as keys here) on an
     * instance with a _vtc kernel runs that one, never its _vt kernel. (A
     * -DWGMMA_HD128_N224_VTC=0 build fails these names.) */
    if (k && kw) {
        char same_vt[96], same_vtc[96];
        snprintf(same_vt, sizeof same_vt, "%s_vt", k->symbol);
        snprintf(same_vtc, sizeof same_vtc, "%s_vtc", k->symbol);
        CHECK(kw == k || !strcmp(kw->symbol, same_vt) || !strcmp(kw->symbol, same_vtc) ||
                  (!strcmp(k->symbol, HD128) && (!strcmp(kw->symbol, N224 "_vt") ||
                                                 !strcmp(kw->symbol, N224 "_vtc"))) ||
                  (!strcmp(k->symbol, HD64 "_m128") && !strcmp(kw->symbol, HD64 "_vt")),
              "(%d,%d/%d,%d,%d) causal %d, %d SMs: %s without a workspace, %s with one: other "
              "tiles than the header says",
              bh[0], bh[1], bh[2], s, d, causal, dev->sm_count, symbol(k), symbol(kw));
        CHECK(!(causal && !strcmp(kw->symbol, N224 "_vt")) &&
                  !(!causal && strstr(kw->symbol, "_vtc") != NULL),
              "(%d,%d/%d,%d,%d) causal %d, %d SMs: %s with a workspace", bh[0], bh[1], bh[2], s,
              d, causal, dev->sm_count, symbol(kw));
    }
}

/* check_problem over head dims, masks, seqlens, batch and heads, and SM counts. */
static void sweep(void)
{
    static const int sms[] = {132, 114, 78, 16};
    static const int dims[] = {64, 128, 256};
    static const int seqlens[] = {1,    17,   128,  192,  200,  224,  300,  448,  480,  512,
                                  576,  640,  672,  768,  800,  1000, 1024, 1100, 1120, 1152,
                                  1280, 1440, 1536, 1792, 1920, 2048, 2400, 3000, 3584, 4000,
                                  4095, 4096, 5000, 8192, 8200, 16384};
    static const int batch_heads[][3] = {
        {1, 1, 1}, {1, 8, 2}, {2, 16, 16}, {8, 16, 4}, {32, 32, 32}};
    const int n_sl = (int)(sizeof seqlens / sizeof seqlens[0]);
    const int n_bh = (int)(sizeof batch_heads / sizeof batch_heads[0]);
    long n = 0;
    for (int a = 0; a < 4; a++) {
        const fp8attn_device_info_t dev = hopper(sms[a]);
        for (int i = 0; i < 3 * 2 * n_sl * n_bh; i++, n++)
            check_problem(&dev, batch_heads[i % n_bh], seqlens[i / n_bh % n_sl],
                          dims[i / (n_bh * n_sl) % 3], i / (n_bh * n_sl * 3));
    }
    printf("sweep: %ld problems x 2\n", n);
}

int main(void)
{
    named_cases();
    sweep();
    if (g_failures) {
        printf("test_wgmma_dispatch: %ld failures\n", g_failures);
        return 1;
    }
    printf("test_wgmma_dispatch: ok\n");
    return 0;
}
