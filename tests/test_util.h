/* What the C tests share: a failure counter with CHECK (prints the first TEST_MAX_PRINTED failures,
 * counts them all) and a seeded random source (splitmix64, uniform, Box-Muller normal), written
 * independently of the tool's generator in tools/problem.c. Header-only, for tests only. */
#ifndef FP8ATTN_TEST_UTIL_H
#define FP8ATTN_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TEST_MAX_PRINTED 30

static long g_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (g_failures++ < TEST_MAX_PRINTED) {                                                 \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* CHECK for a condition described by a fixed string. */
static inline void expect_true(const char *what, int ok)
{
    CHECK(ok, "%s", what);
}

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A float's IEEE bits and back. */
static inline uint32_t bits_of_float(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float float_of_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Uniform in (0, 1), never 0 or 1. */
static inline double uniform01(uint64_t *rng)
{
    return ((splitmix64(rng) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller); never exactly zero. */
static inline float normal(uint64_t *rng)
{
    double u = uniform01(rng), v = uniform01(rng);
    float x = (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
    return x != 0.0f ? x : 1.0f;
}

#endif
