/* Error figures of an attention output against a reference. */
#ifndef FP8ATTN_TOOL_ERRSTATS_H
#define FP8ATTN_TOOL_ERRSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "fp8attn.h"

/* Relative errors divide by max(|ref|, REL_FLOOR_OF_RMS * rms(ref)): outputs near zero would
 * otherwise turn a harmless absolute error into an arbitrarily large ratio. */
#define REL_FLOOR_OF_RMS 0.1

typedef struct {
    double max_abs;     /* max |got - ref| */
    double mean_abs;    /* mean |got - ref| */
    double max_rel;     /* max |got - ref| / max(|ref|, REL_FLOOR_OF_RMS * rms(ref)) */
    double pct_bad;     /* % of elements with |got - ref| > atol (non-finite ones included) */
    double rel_rmse;    /* ||got - ref||_2 / ||ref||_2 */
    size_t n_nonfinite; /* NaN or infinite elements of got; if > 0 every figure above but
                           pct_bad is NaN, so no gate can pass */
} err_stats_t;

/* A gate: 1 if value <= limit. NaN never passes. */
int gate_passes(double value, double limit);

/* Statistics of the n outputs `got` (16-bit, type t) against ref, element by element. */
void err_stats_compute(const uint16_t *got, fp8attn_out_type_t t, const double *ref, size_t n,
                       double atol, err_stats_t *s);

/* n outputs (16-bit, type t) as doubles in a new malloc'd array; NULL when out of memory. */
double *outputs_to_double(const uint16_t *o, fp8attn_out_type_t t, size_t n);

/* max |got - ref| over n LSE values. Rows that see no key must be -inf in both (error 0);
 * any other infinity or a NaN in got gives NaN, which fails every gate. */
double lse_max_abs_err(const float *got, const float *ref, size_t n);

#endif
