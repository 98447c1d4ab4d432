/* Summary statistics of timing samples (owned by the pipeline: tools/stats.c). */
#ifndef FP8ATTN_TOOL_STATS_H
#define FP8ATTN_TOOL_STATS_H

typedef struct {
    int n;
    double p50, p90, mean, std, min, max; /* std: sample standard deviation (n-1); 0 if n < 2 */
} stats_t;

/* Percentile q in [0,100] of an ascending array, linear interpolation between closest ranks
 * (the numpy default). */
double stats_percentile(const double *sorted, int n, double q);
/* Sorts x[0..n) in ascending order. */
void stats_sort(double *x, int n);
/* Fills *out from x[0..n) (x is not modified). Returns 0, or -1 if n < 1 or x/out is NULL. */
int stats_compute(const double *x, int n, stats_t *out);

#endif
