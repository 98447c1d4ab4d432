/* Error figures of an attention output against a reference (see errstats.h). */
#include <math.h>
#include <stdlib.h>

#include "errstats.h"
#include "problem.h"

static double rms_of(const double *x, size_t n)
{
    double ss = 0.0;
    size_t i;
    for (i = 0; i < n; i++) ss += x[i] * x[i];
    return n ? sqrt(ss / (double)n) : 0.0;
}

int gate_passes(double value, double limit) { return value <= limit; }

void err_stats_compute(const uint16_t *got, fp8attn_out_type_t t, const double *ref, size_t n,
                       double atol, err_stats_t *s)
{
    const double rel_floor = REL_FLOOR_OF_RMS * rms_of(ref, n);
    double sum_abs = 0.0, sum_sq_err = 0.0, sum_sq_ref = 0.0;
    size_t i, n_bad = 0;
    s->max_abs = 0.0;
    s->max_rel = 0.0;
    s->n_nonfinite = 0;
    for (i = 0; i < n; i++) {
        double g = output_value(got, t, i), r = ref[i], err = fabs(g - r);
        double denom = fabs(r) > rel_floor ? fabs(r) : rel_floor;
        if (!isfinite(g)) s->n_nonfinite++;
        if (!(err <= atol)) n_bad++; /* NaN counts as bad */
        if (err > s->max_abs) s->max_abs = err;
        if (denom > 0.0 && err / denom > s->max_rel) s->max_rel = err / denom;
        sum_abs += err;
        sum_sq_err += err * err;
        sum_sq_ref += r * r;
    }
    s->mean_abs = n ? sum_abs / (double)n : 0.0;
    s->pct_bad = n ? 100.0 * (double)n_bad / (double)n : 0.0;
    s->rel_rmse = sum_sq_ref > 0.0 ? sqrt(sum_sq_err / sum_sq_ref) : NAN;
    if (s->n_nonfinite) s->max_abs = s->mean_abs = s->max_rel = s->rel_rmse = NAN;
}

double *outputs_to_double(const uint16_t *o, fp8attn_out_type_t t, size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    size_t i;
    if (!x) return NULL;
    for (i = 0; i < n; i++) x[i] = output_value(o, t, i);
    return x;
}

double lse_max_abs_err(const float *got, const float *ref, size_t n)
{
    double max = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double g = got[i], r = ref[i];
        if (isinf(g) && g < 0 && isinf(r) && r < 0) continue; /* both: no key seen */
        if (!isfinite(g) || !isfinite(r)) return NAN;
        if (fabs(g - r) > max) max = fabs(g - r);
    }
    return max;
}
