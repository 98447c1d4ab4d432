/* Random attention inputs on the host: float N(0,1) draws, FP8 quantization, output buffers. */
#ifndef FP8ATTN_TOOL_PROBLEM_H
#define FP8ATTN_TOOL_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "fp8attn.h"

/* splitmix64 generator with Box-Muller normals (the second value of each pair is kept). */
typedef struct {
    uint64_t state;
    int have_spare;
    double spare;
} rng_t;

void rng_seed(rng_t *r, uint64_t seed);
uint64_t rng_next_u64(rng_t *r);
/* A standard normal draw; never exactly 0 for practical purposes (u1 is in (0, 1]). */
double rng_normal(rng_t *r);

enum { TQ = 0, TK = 1, TV = 2 }; /* index of Q, K, V in the arrays below */

/* One problem with host buffers. `p` points at `codes`, `descale`, `o` and `lse`. */
typedef struct {
    shape_t shape;
    uint64_t seed;
    fp8attn_params_t p;
    float *x[3];        /* unquantized Q, K, V with the same strides as the codes (NULL when not
                           kept) */
    uint8_t *codes[3];  /* E4M3 codes of Q, K, V */
    float *descale[3];  /* descales of Q, K, V */
    size_t elems[3];    /* elements of Q, K, V */
    size_t n_descale[3];
    size_t o_elems;     /* elements of O */
    size_t lse_elems;   /* elements of the LSE (0 without --lse) */
    uint16_t *o;        /* output of the backend under test */
    float *lse;         /* its LSE, or NULL */
} problem_t;

/* Draws Q, K, V for (shape, seed), quantizes them as the options say and allocates O (and the
 * LSE with --lse). keep_float keeps the unquantized inputs (for the full-precision reference).
 * Checks the result with fp8attn_validate. Returns 0, or -1 with a message in err (the problem
 * is then empty; problem_free is still safe). */
int problem_create(problem_t *pr, const shape_t *s, uint64_t seed, const run_opts_t *o,
                   int keep_float, char *err);
void problem_free(problem_t *pr);

/* Host output buffers of a problem's size (O and, when the problem has one, the LSE). */
typedef struct {
    uint16_t *o;
    float *lse;
} outputs_t;

int outputs_alloc(outputs_t *out, const problem_t *pr, char *err);
void outputs_free(outputs_t *out);
/* A copy of pr->p whose O and LSE pointers are out's. */
fp8attn_params_t params_with_outputs(const problem_t *pr, const outputs_t *out);

/* Value of output element i (any layout: O is compared element by element). */
double output_value(const uint16_t *o, fp8attn_out_type_t t, size_t i);

#endif
