/* tools/stats.c: percentiles (numpy "linear" rule), mean, sample std on arrays worked by hand. */
#include <math.h>
#include <stdio.h>

#include "stats.h"

static int g_failures;

/* Expected values are a few exact-input floating-point operations away from the truth, so
 * they agree to a few ulps; 1e-12 relative leaves room for that and still catches a wrong rank
 * or divisor, which moves the result by 1e-2 or more. */
static void expect_near(const char *what, double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want)))) {
        printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
        g_failures++;
    }
}

static void expect(const char *what, int ok)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        g_failures++;
    }
}

/* {1,2,3,4}: rank positions q/100*(n-1): p50 -> 1.5, p90 -> 2.7, p25 -> 0.75. */
static void test_percentiles_of_four(void)
{
    const double x[] = {1, 2, 3, 4};
    expect_near("p50 {1,2,3,4}", stats_percentile(x, 4, 50), 2.5);
    expect_near("p90 {1,2,3,4}", stats_percentile(x, 4, 90), 3.7);
    expect_near("p25 {1,2,3,4}", stats_percentile(x, 4, 25), 1.75);
    expect_near("p0 {1,2,3,4}", stats_percentile(x, 4, 0), 1);
    expect_near("p100 {1,2,3,4}", stats_percentile(x, 4, 100), 4);
}

/* {15,20,35,40,50}: p50 at rank 2 exactly; p90 at 3.6 -> 40 + 0.6*10; p40 at 1.6 -> 20 + 0.6*15. */
static void test_percentiles_of_five(void)
{
    const double x[] = {15, 20, 35, 40, 50};
    expect_near("p50 {15..50}", stats_percentile(x, 5, 50), 35);
    expect_near("p90 {15..50}", stats_percentile(x, 5, 90), 46);
    expect_near("p40 {15..50}", stats_percentile(x, 5, 40), 29);
}

static void test_percentile_bad_input(void)
{
    const double x[] = {1, 2};
    expect("percentile of n=0 is NaN", isnan(stats_percentile(x, 0, 50)));
    expect("percentile q=-1 is NaN", isnan(stats_percentile(x, 2, -1)));
    expect("percentile q=101 is NaN", isnan(stats_percentile(x, 2, 101)));
    expect("percentile of NULL is NaN", isnan(stats_percentile(NULL, 2, 50)));
}

/* Unsorted {40,15,50,35,20}: sorted {15,20,35,40,50}, mean 32, deviations -17,-12,3,8,18,
 * squares sum 830, sample variance 830/4 = 207.5. */
static void test_compute_unsorted(void)
{
    double x[] = {40, 15, 50, 35, 20};
    stats_t s;
    expect("stats_compute returns 0", stats_compute(x, 5, &s) == 0);
    expect("n = 5", s.n == 5);
    expect_near("p50", s.p50, 35);
    expect_near("p90", s.p90, 46);
    expect_near("mean", s.mean, 32);
    expect_near("std", s.std, sqrt(207.5));
    expect_near("min", s.min, 15);
    expect_near("max", s.max, 50);
    expect("input left in its order", x[0] == 40 && x[1] == 15 && x[2] == 50 && x[3] == 35 &&
                                          x[4] == 20);
}

/* {1,2,3,4}: deviations +-1.5, +-0.5, squares sum 5, sample variance 5/3. */
static void test_compute_std_divisor(void)
{
    const double x[] = {4, 3, 2, 1};
    stats_t s;
    expect("stats_compute returns 0", stats_compute(x, 4, &s) == 0);
    expect_near("std uses n-1", s.std, sqrt(5.0 / 3.0));
}

static void test_compute_single_and_errors(void)
{
    const double one[] = {7};
    stats_t s;
    expect("stats_compute n=1 returns 0", stats_compute(one, 1, &s) == 0);
    expect_near("n=1 p50", s.p50, 7);
    expect_near("n=1 p90", s.p90, 7);
    expect_near("n=1 std is 0", s.std, 0);
    expect("n=0 refused", stats_compute(one, 0, &s) == -1);
    expect("NULL x refused", stats_compute(NULL, 1, &s) == -1);
    expect("NULL out refused", stats_compute(one, 1, NULL) == -1);
}

int main(void)
{
    test_percentiles_of_four();
    test_percentiles_of_five();
    test_percentile_bad_input();
    test_compute_unsorted();
    test_compute_std_divisor();
    test_compute_single_and_errors();
    if (g_failures) printf("%d failure(s)\n", g_failures);
    else printf("all stats checks passed\n");
    return g_failures ? 1 : 0;
}
