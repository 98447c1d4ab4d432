/* Summary statistics of timing samples: numpy-style percentiles, mean, sample std, extremes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

double stats_percentile(const double *sorted, int n, double q)
{
    double pos, frac;
    int lo, hi;
    if (!sorted || n < 1 || !(q >= 0.0 && q <= 100.0)) return NAN;
    /* numpy "linear": position q/100 * (n-1) between the closest ranks. */
    pos = q / 100.0 * (double)(n - 1);
    lo = (int)floor(pos);
    hi = lo + 1 < n ? lo + 1 : n - 1;
    frac = pos - (double)lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort(double *x, int n)
{
    if (x && n > 1) qsort(x, (size_t)n, sizeof *x, compare_doubles);
}

static double mean_of(const double *x, int n)
{
    double sum = 0.0;
    int i;
    for (i = 0; i < n; i++) sum += x[i];
    return sum / (double)n;
}

/* Sample standard deviation (divisor n-1), two-pass for accuracy; 0 when n < 2. */
static double sample_std(const double *x, int n, double mean)
{
    double ss = 0.0;
    int i;
    if (n < 2) return 0.0;
    for (i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    return sqrt(ss / (double)(n - 1));
}

int stats_compute(const double *x, int n, stats_t *out)
{
    double *sorted;
    if (!x || !out || n < 1) return -1;
    sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, x, (size_t)n * sizeof *sorted);
    stats_sort(sorted, n);
    out->n = n;
    out->p50 = stats_percentile(sorted, n, 50.0);
    out->p90 = stats_percentile(sorted, n, 90.0);
    out->mean = mean_of(sorted, n);
    out->std = sample_std(sorted, n, out->mean);
    out->min = sorted[0];
    out->max = sorted[n - 1];
    free(sorted);
    return 0;
}
