/* Problems for the dispatch tests (test_gpu_dispatch.c, test_wgmma_dispatch.c): params whose
 * pointers are never dereferenced (nothing launches: the tests ask which kernel would run), only
 * validated, so they are aligned and the output lies 4 GiB away from every input. Header-only,
 * for tests only. */
#ifndef FP8ATTN_TEST_PARAMS_H
#define FP8ATTN_TEST_PARAMS_H

#include <stdint.h>

#include "fp8attn.h"

/* b x h query heads (h_kv kv heads) of sq queries and sk keys of head dim d, BHSD, no mask. */
static inline fp8attn_params_t test_params_bhsd(int b, int h, int h_kv, int sq, int sk, int d)
{
    fp8attn_params_t p;
    fp8attn_params_init(&p);
    p.batch = b, p.h_q = h, p.h_kv = h_kv, p.seqlen_q = sq, p.seqlen_k = sk, p.head_dim = d;
    p.q = (const uint8_t *)(uintptr_t)(1ull << 32);
    p.k = (const uint8_t *)(uintptr_t)(2ull << 32);
    p.v = (const uint8_t *)(uintptr_t)(3ull << 32);
    p.o = (void *)(uintptr_t)(4ull << 32);
    p.q_stride = p.o_stride = fp8attn_strides_bhsd(h, sq, d);
    p.k_stride = p.v_stride = fp8attn_strides_bhsd(h_kv, sk, d);
    p.q_descale.ptr = p.k_descale.ptr = p.v_descale.ptr = (const float *)(uintptr_t)(5ull << 32);
    return p;
}

#endif
