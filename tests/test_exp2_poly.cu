/* The wgmma softmax's polynomial 2^x (src/kernels/wgmma/exp2_poly.cuh), run on the CPU: the same
 * source the kernel compiles. Checked against exp2 in double:
 *  - relative error <= 7.6e-5 for x in [-125.5, 8] (the softmax's x = s * scale - max + 8 <= 8):
 *    2^16 points per unit interval at every exponent, the floats next to each integer (where the
 *    round-to-nearest-even ties of the 1.5 * 2^23 trick fall), 4M random x;
 *  - below -125.5 (y = x - 0.5 < -126), at -inf and at NaN: exactly 0 (a masked score adds
 *    nothing to the row sum). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "exp2_poly.cuh"
#include "test_util.h"

#define REL_BOUND 7.6e-5

static long g_checked;
static double g_worst, g_worst_x;

/* The function gets y and returns 2^(y + 0.5); the kernel makes y = s * scale + (off - 0.5) in
 * one rounding, as the MUFU path makes its x = s * scale + off. So the reference is 2^(y + 0.5)
 * for the float y given, not 2^x: at |x| >= 32, x - 0.5 in float rounds. */
static void check_x(float x)
{
    const float y = x - 0.5f;
    const float got = exp2_poly_shifted(y);
    const double want = exp2((double)y + 0.5);
    g_checked++;
    if (y >= -126.0f) {
        const double rel = fabs((double)got - want) / want;
        if (rel > g_worst) g_worst = rel, g_worst_x = x;
        CHECK(rel <= REL_BOUND, "2^%.9g: got %.9g, want %.9g (rel %.3g)", x, got, want, rel);
    } else {
        CHECK(got == 0.0f && !signbit(got), "2^%.9g (y = %.9g): got %.9g, want +0", x, y, got);
    }
}

int main(void)
{
    /* x = k + i / 2^16 is exact in float over the whole range: every fraction g the polynomial
     * sees, 2^16 per unit, at every exponent j */
    for (int k = -127; k <= 7; k++) {
        for (int i = 0; i < 65536; i++) check_x((float)k + (float)i / 65536.0f);
        check_x(nextafterf((float)k, -INFINITY));
        check_x(nextafterf((float)k, INFINITY));
    }
    check_x(8.0f);
    check_x(-0.0f);
    check_x(1e-30f);
    check_x(-1e-30f);
    uint64_t rng = 42;
    for (int i = 0; i < 4000000; i++) check_x((float)(-133.0 + 141.0 * uniform01(&rng)));
    const float below[] = {-125.5f, -125.50001f, -126.5f, -127.0f, -150.0f, -1e30f, -INFINITY};
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) check_x(below[i]);
    {
        const float got = exp2_poly_shifted(NAN);
        CHECK(got == 0.0f, "NaN: got %.9g, want 0", got);
    }
    printf("test_exp2_poly: %ld values, worst relative error %.3g at x = %.9g (bound %.1e): %s\n",
           g_checked, g_worst, g_worst_x, REL_BOUND, g_failures ? "FAIL" : "ok");
    return g_failures ? 1 : 0;
}
