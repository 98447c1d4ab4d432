/* Which kernel fp8attn_forward launches (fp8attn_forward_kernel, on the current GPU): the tile
 * choice of the mma variant and the variant choice of the registry (wgmma on Hopper, but for small
 * one-wave problems). Nothing is launched, so the
 * tensors are never touched (aligned dummy addresses). The expected picks hold on any sm_89/sm_90
 * device, whatever its SM count: one-wave problems take 64-row tiles (fewer rows per SM per wave),
 * many-wave problems 128-row tiles (faster per row; docs/PERF.md v10). Exit 77 (CTest SKIP) only
 * where the machine has no NVIDIA device node. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fp8attn.h"
#include "test_params.h"
#include "test_util.h"
#ifdef FP8ATTN_HAVE_WGMMA
#include <cuda_runtime.h>

#include "kernels/wgmma/wgmma_host.h"
FP8ATTN_WGMMA_LAUNCH_DECL(hd128_n224);
#endif

/* b x h heads of s queries and keys of head dim d, BHSD (test_params.h) */
static fp8attn_params_t problem(int b, int h, int s, int d)
{
    return test_params_bhsd(b, h, h, s, s, d);
}

static void expect_kernel(const fp8attn_params_t *p, const char *variant, const char *want)
{
    const char *got = fp8attn_forward_kernel(p, variant);
    if (want)
        CHECK(got && !strcmp(got, want), "(%d,%d,%d,%d) variant %s: kernel %s, want %s (%s)",
              p->batch, p->h_q, p->seqlen_q, p->head_dim, variant ? variant : "default",
              got ? got : "NULL", want, got ? "" : fp8attn_last_error());
    else
        CHECK(!got, "(%d,%d,%d,%d) variant %s: kernel %s, want none", p->batch, p->h_q,
              p->seqlen_q, p->head_dim, variant ? variant : "default", got);
}

#ifdef FP8ATTN_HAVE_WGMMA
/* The launcher takes the dispatcher's split plan (wgmma_variant.cu split_plan_of) and refuses
 * one that is not its kernel's, before it launches anything: each plan below is
 * hd128_n224_vt's plan for (1,16,16384,128) on 132 SMs (2048 tiles: a last round of 68 tiles of
 * 74 key tiles) with one field wrong, or the right plan where the kernel cannot split (the
 * mask, which no kernel splits (the launcher runs the _vtc kernel there, which could not: two
 * Q stages), no workspace, the transposing kernel: hd128_n224's has two Q stages). The pointers
 * are
 * never dereferenced: a launch would fault. */
static void expect_split_refused(void)
{
    fp8attn_params_t p = problem(1, 16, 16384, 128);
    void *ws = (void *)(uintptr_t)(6ull << 32);
    const fp8attn_wgmma_split_t good = {.tiles = 68, .nk = 74, .grid = 132, .warps = 8,
                                        .d = 128, .w = 68 * 74};
    for (int i = 0; i < 9; i++) {
        fp8attn_wgmma_split_t s = good;
        void *vt = ws;
        p.causal = 0;
        if (i == 0) s.nk = 73, s.w = 68 * 73;
        if (i == 1) s.grid = 114;
        if (i == 2) s.warps = 12;
        if (i == 3) s.d = 64;
        if (i == 4) s.w = 68 * 73;
        if (i == 5) s.tiles = 67, s.w = 67 * 74; /* not the last round's count */
        if (i == 6) p.causal = 1;
        if (i == 7) vt = NULL;
        if (i == 8) s.tr = 1;
        char want[96];
        snprintf(want, sizeof want, "cannot run the split plan of %d query tiles x %d key tiles on "
                 "%d blocks", s.tiles, s.nk, s.grid);
        const fp8attn_status_t st = fp8attn_wgmma_launch_hd128_n224(&p, vt, &s, 132, NULL);
        CHECK(st == FP8ATTN_ERR_INVALID_ARGUMENT && strstr(fp8attn_last_error(), want) != NULL,
              "split plan %d: status %d, '%s'", i, (int)st, fp8attn_last_error());
    }
}
#endif

/* The same with a workspace (fp8attn_forward_ws_kernel), for the default variant. */
static void expect_ws_kernel(const fp8attn_params_t *p, const char *want)
{
    const char *got = fp8attn_forward_ws_kernel(p, NULL, 1);
    CHECK(got && !strcmp(got, want), "(%d,%d,%d,%d) causal %d with a workspace: kernel %s, want %s",
          p->batch, p->h_q, p->seqlen_q, p->head_dim, p->causal, got ? got : "NULL", want);
}

#ifdef FP8ATTN_HAVE_WGMMA
/* Whether the default asks p, a one-wave hd256 problem (128-row tiles, 8 consumer warps), for a
 * workspace: none (want 0), or exactly one for the transposing kernel's split alone (want 1: a
 * count per tile and consumer warp, 256-byte aligned, then two slots per SM; wgmma_host.h,
 * docs/PERF.md w66), which holds no V^T. */
static void expect_split_ws(const fp8attn_params_t *p, int want)
{
    size_t bytes = 1, need = 0;
    int sms = 0;
    const fp8attn_status_t st = fp8attn_forward_workspace_size(p, NULL, &bytes);
    int dev = 0;
    CHECK(cudaGetDevice(&dev) == cudaSuccess &&
              cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess,
          "cudaDeviceGetAttribute: %d SMs", sms);
    if (want) {
        const size_t tiles = (size_t)p->batch * p->h_q * (((size_t)p->seqlen_q + 127) / 128);
        need = (tiles * 8 * 4 + 255) / 256 * 256 +
               2 * (size_t)sms * 8 * FP8ATTN_WGMMA_SPLIT_WARP_BYTES(256);
    }
    CHECK(st == FP8ATTN_OK && bytes == need,
          "(%d,%d,%d,%d,%d) causal %d: workspace %zu bytes (status %d), want %zu (%s)", p->batch,
          p->h_q, p->seqlen_q, p->seqlen_k, p->head_dim, p->causal, bytes, (int)st, need,
          want ? "the split's alone" : "none");
}
#endif

int main(void)
{
    fp8attn_params_t p;
    if (access("/dev/nvidiactl", F_OK) != 0 && access("/dev/nvidia0", F_OK) != 0) {
        printf("SKIP: no NVIDIA GPU on this machine\n");
        return 77;
    }
    /* Hopper with this build's sm_90a image: wgmma is the default except on small one-wave
     * problems, where mma's 64-row tiles finish first (wgmma_variant.cu, rank); elsewhere mma */
    p = problem(2, 16, 8192, 128);
    const int hopper = fp8attn_variant_supports("wgmma", &p, 0) == FP8ATTN_OK;
    printf("wgmma %s on device 0\n", hopper ? "supported" : "not supported");
    p = problem(1, 8, 512, 64);
    expect_kernel(&p, NULL, "fp8attn_mma_hd64_m64");
    p = problem(1, 32, 16384, 64);
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd64" : "fp8attn_mma_hd64_m128");
    p = problem(1, 8, 512, 128);
    expect_kernel(&p, NULL, "fp8attn_mma_hd128_m64");
    p = problem(2, 8, 1024, 128); /* under one wave, but 1024 keys x 128: wgmma */
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd128" : "fp8attn_mma_hd128_m64");
    /* hd128: 224-key tiles from 4096 keys, 2048 if causal, but only on the _vt kernels: without a
     * workspace V is transposed in shared memory, by hd128's 192-key kernel (w102) */
    p = problem(2, 16, 8192, 128);
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd128" : "fp8attn_mma_hd128_m128");
    p.causal = 1;
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd128" : "fp8attn_mma_hd128_m128");
    p = problem(4, 16, 4096, 128);
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd128" : "fp8attn_mma_hd128_m128");
    p.causal = 1;
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd128" : "fp8attn_mma_hd128_m128");
    p = problem(8, 16, 2048, 128);
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd128" : "fp8attn_mma_hd128_m128");
    p = problem(1, 8, 16384, 256);
    expect_kernel(&p, NULL, hopper ? "fp8attn_wgmma_hd256" : "fp8attn_mma_hd256_m64");
    /* hd64 whose 128-row tiles fit in one wave (64 tiles, fewer than any sm_90 part has SMs):
     * the 128-row instance; at (1,32,16384,64) above, the 192-row one */
    if (hopper) {
        p = problem(1, 4, 2048, 64);
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd64_m128");
        /* named, wgmma runs any size */
        p = problem(1, 8, 512, 64);
        expect_kernel(&p, "wgmma", "fp8attn_wgmma_hd64_m128");
        /* causal hd64 of more than one wave: 128-row tiles up to 1024 keys, 160-key tiles from
         * 1025 to 4096, else 192 x 128 (the one-wave instance still comes first) */
        static const struct {
            int b, h, s;
            const char *kernel;
        } causal64[] = {{64, 32, 256, "fp8attn_wgmma_hd64_m128"},
                        {32, 32, 512, "fp8attn_wgmma_hd64_m128"},
                        {16, 32, 1024, "fp8attn_wgmma_hd64_m128"},
                        {16, 32, 1025, "fp8attn_wgmma_hd64_n160"},
                        {8, 32, 2048, "fp8attn_wgmma_hd64_n160"},
                        {2, 32, 4096, "fp8attn_wgmma_hd64_n160"},
                        {2, 32, 8192, "fp8attn_wgmma_hd64"},
                        {1, 4, 2048, "fp8attn_wgmma_hd64_m128"}};
        for (size_t i = 0; i < sizeof causal64 / sizeof causal64[0]; i++) {
            p = problem(causal64[i].b, causal64[i].h, causal64[i].s, 64);
            p.causal = 1;
            expect_kernel(&p, NULL, causal64[i].kernel);
        }
    }
    /* with a workspace: V^T written once when a V tile would be transposed often enough
     * (wgmma_variant.cu, use_vt_pass; problems of more than one wave: hd64 10, hd128 8, hd256
     * 8, causal hd256 16, hd128 24, hd64 32; one wave 32): 32 times at (4,8,4096,256), 16 at
     * (8,8,2048,256), 4 at (32,8,512,256); any sm_90 part has fewer SMs than their blocks */
    if (hopper) {
        p = problem(4, 8, 4096, 256);
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p.causal = 1; /* causal: 32 repeats needed */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p = problem(8, 8, 2048, 256); /* 16 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p.causal = 1; /* causal hd256: 16, its line since w55 */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p = problem(8, 8, 1920, 256); /* causal, 15 repeats */
        p.causal = 1;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256");
        p = problem(4, 8, 1408, 256); /* 11 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p = problem(4, 8, 1024, 256); /* 8 repeats: hd256's line since w69 (12 from w44) */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p = problem(4, 8, 896, 256); /* 7 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256");
        p = problem(4, 8, 3072, 256); /* causal, 24 repeats */
        p.causal = 1;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
        p = problem(32, 8, 512, 256);
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256");
        p = problem(1, 16, 16384, 128);
        p.causal = 1; /* the causal _vt kernel (cross-tile overlap, docs/PERF.md w103) */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vtc");
        p = problem(4, 16, 4096, 128); /* 32 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vt");
        p.causal = 1; /* causal from 2048 keys on the _vtc kernel (w105, w107) */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vtc");
        p = problem(16, 16, 896, 128); /* 7 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        p = problem(16, 16, 1024, 128); /* 8 repeats: hd128's line since w55; 224-key tiles pad
                                          * 1120 keys, 192-key 1152 (WGMMA_HD128_PAD_RULE) */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vt");
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd128"); /* transposing: 3 % less is too little */
        p.causal = 1; /* never under the mask */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        p = problem(10, 16, 1536, 128); /* 192-key tiles pad 1536, 224-key 1568 */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_vt");
        p = problem(9, 16, 1792, 128); /* 1920 against 1792 */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vt");
        p = problem(12, 16, 1280, 128); /* 1344 both: the 192-key tiles */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_vt");
        p = problem(25, 16, 640, 128); /* 5 repeats, transposing: 672 against 768, 12.5 % less */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224");
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd128_n224");
        p = problem(21, 16, 768, 128); /* 896 against 768 */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        p = problem(1, 8, 640, 128); /* one wave (40 tiles): the pad rule does not apply */
        expect_kernel(&p, "wgmma", "fp8attn_wgmma_hd128");
        p = test_params_bhsd(1, 8, 2, 1024, 1024, 128); /* one wave, 32 repeats: _vt, but not
                                                          * the pad rule's */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_vt");
        p = problem(8, 16, 2048, 128); /* 16 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_vt");
        p.causal = 1; /* causal hd128: 24 needed */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        p = problem(4, 16, 3072, 128); /* causal, 24 repeats: hd128's causal line since w55; from
                                        * 2048 keys hd128_n224's _vtc kernel (w107) */
        p.causal = 1;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vtc");
        p = problem(4, 16, 2944, 128); /* causal, 23 repeats */
        p.causal = 1;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        p = problem(8, 32, 1920, 64); /* hd64: 10 repeats, its line; 1920 keys both tiles, so
                                        * the 160-key tiles (the pad rule takes ties: w93) */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_n160_vt");
        /* hd64 without the mask: 160-key tiles where they cover no more keys (the pad rule) */
        p = problem(34, 32, 480, 64); /* 480 against 512, transposing */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_n160");
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd64_n160");
        p.causal = 1; /* never under the mask: hd64_m128 up to 1024 keys */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_m128");
        p = problem(25, 32, 640, 64); /* 640 both: the 160-key tiles (w93) */
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd64_n160");
        p = problem(16, 32, 1024, 64); /* 1120 against 1024 */
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd64");
        p = problem(4, 32, 4000, 64); /* 21 repeats: _vt; 4000 against 4096 */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_n160_vt");
        p = problem(2, 32, 8192, 64); /* 8320 against 8192 */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_vt");
        p = problem(8, 32, 2048, 64); /* 11 repeats */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_vt");
        p.causal = 1; /* causal: 32 repeats needed (and 160-key tiles) */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_n160");
        p = problem(1, 32, 4096, 64); /* causal, 22 query tiles x 4 (GQA 4): the pass */
        p.causal = 1;
        p.h_kv = 8;
        p.k_stride = p.v_stride = fp8attn_strides_bhsd(8, 4096, 64);
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_n160_vt");
        p = problem(32, 32, 512, 64); /* causal, 4 repeats */
        p.causal = 1;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_m128");
        p = problem(1, 4, 2048, 64); /* 16 repeats, but one wave: the pass would not pay */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_m128");
        /* one wave at hd64 with a workspace: the 192-row instance's split where it beats
         * hd64_m128 unsplit by the model (w67): 48 tiles of 64 key tiles, 26 x 1.25 + 8 V^T
         * rounds x 2.06 + 3 = 52 against 64; not at 2k keys (17 against 16) */
        p = problem(1, 16, 8192, 64);
        p.seqlen_q = 512;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_vt");
        expect_kernel(&p, NULL, "fp8attn_wgmma_hd64_m128"); /* without a workspace */
        p.causal = 1;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_m128");
        p = problem(1, 16, 2048, 64);
        p.seqlen_q = 512;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd64_m128");
        /* one wave without the mask, below the line: the workspace where the split tail pays
         * (w63): 32 query tiles of 74 key tiles spread over every SM, against the V^T rounds */
        p = problem(1, 8, 16384, 128);
        p.seqlen_q = 512;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vt");
        p.causal = 1; /* never split under the mask: 4 repeats; V transposed: hd128's kernel */
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        p = problem(2, 16, 4096, 128); /* 64 tiles of 19: the V^T rounds eat the gain */
        p.seqlen_q = 256;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        /* the line at a model gain of 10 % (w65): 64 tiles of 37 key tiles, 31 split (16 %),
         * against 64 tiles of 19, 18 split (5 %) */
        p = problem(1, 16, 8192, 128);
        p.seqlen_q = 512;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128_n224_vt");
        p.seqlen_k = 4096;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd128");
        /* hd256: one query tile per head against 8k keys (-8 % by the _vt kernel's model, w65)
         * and four (6 %): the transposing kernel's split, which writes no V^T (w66); the _vt
         * kernel's where a V^T round serves many query tiles (64 query heads per kv head, 32k
         * keys: (125 + 10) x 1.1 key tiles against 125 + 2 + 7 for V^T) */
        p = problem(1, 32, 8192, 256);
        p.seqlen_q = 128;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256");
#ifdef FP8ATTN_HAVE_WGMMA
        expect_split_ws(&p, 1);
#endif
        p = problem(1, 16, 8192, 256);
        p.seqlen_q = 512;
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256");
#ifdef FP8ATTN_HAVE_WGMMA
        expect_split_ws(&p, 1);
        p.causal = 1; /* never split under the mask */
        expect_split_ws(&p, 0);
        p = problem(1, 8, 1024, 256); /* 64 tiles of 8 key tiles: 4 + 10 split (w66) */
        expect_split_ws(&p, 0);
        p = problem(1, 32, 4096, 256); /* 32 tiles of 32: 8 + 10, against the _vt kernel's
                                        * 8 + 2 + 26 for V^T */
        p.seqlen_q = 128;
        expect_split_ws(&p, 1);
        p = problem(32, 8, 512, 256); /* 1024 tiles, a last round of 100 of 4 key tiles */
        expect_split_ws(&p, 0);
#endif
        p = problem(1, 64, 32768, 256);
        p.seqlen_q = 128;
        p.h_kv = 1;
        p.k_stride = p.v_stride = fp8attn_strides_bhsd(1, 32768, 256);
        expect_ws_kernel(&p, "fp8attn_wgmma_hd256_vt");
#ifdef FP8ATTN_HAVE_WGMMA
        expect_split_refused();
#endif
    }
    /* forced tiles, whatever the size */
    p = problem(1, 8, 512, 128);
    expect_kernel(&p, "mma-m128", "fp8attn_mma_hd128_m128");
    expect_kernel(&p, "mma", "fp8attn_mma_hd128_m64");
    p = problem(2, 16, 8192, 128);
    expect_kernel(&p, "mma-m64", "fp8attn_mma_hd128_m64");
    p = problem(1, 8, 512, 256);
    expect_kernel(&p, "mma-m128", NULL);
    CHECK(strstr(fp8attn_last_error(), "mma-m128: head_dim = 256 not compiled") != NULL,
          "mma-m128 at hd256: message '%s'", fp8attn_last_error());
    /* E5M2 is not for mma: the default falls back to the reference; naming mma is refused */
    p = problem(1, 8, 512, 128);
    p.in_format = FP8ATTN_FORMAT_E5M2;
    expect_kernel(&p, NULL, "fp8attn_reference_gpu_hd128");
    expect_kernel(&p, "mma", NULL);
    if (hopper) expect_kernel(&p, "wgmma", NULL);
    /* an O stride TMA cannot take (2^40 bytes and more): wgmma refuses it, naming the field (the
     * kernels that stage O store it only by TMA: epilogue.cuh), and the default takes mma */
    p = problem(1, 1, 2, 64);
    p.o = (void *)(uintptr_t)(1ull << 44);
    p.o_stride.token = (int64_t)1 << 39; /* 2^40 bytes */
    if (hopper) {
        expect_kernel(&p, "wgmma", NULL);
        CHECK(strstr(fp8attn_last_error(), "params->o_stride.token") != NULL, "message '%s'",
              fp8attn_last_error());
        /* control: 2^37 bytes (TMA gets the span of the two tokens as the stride of the single
         * head and batch, 2^38 bytes: tensor_maps.cu tma_strides) */
        p.o_stride.token = (int64_t)1 << 36;
        expect_kernel(&p, "wgmma", "fp8attn_wgmma_hd64_m128");
        p.o_stride.token = (int64_t)1 << 39;
    }
    expect_kernel(&p, NULL, "fp8attn_mma_hd64_m64");
    /* bad input: an unknown variant, an invalid problem */
    p = problem(1, 8, 512, 128);
    expect_kernel(&p, "no-such-variant", NULL);
    CHECK(strstr(fp8attn_last_error(), "no-such-variant") != NULL, "message '%s'",
          fp8attn_last_error());
    p.head_dim = 96;
    expect_kernel(&p, NULL, NULL);
    CHECK(strstr(fp8attn_last_error(), "head_dim") != NULL, "message '%s'", fp8attn_last_error());
    if (g_failures) {
        printf("test_gpu_dispatch: %ld failure(s)\n", g_failures);
        return 1;
    }
    printf("test_gpu_dispatch: ok\n");
    return 0;
}
