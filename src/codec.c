/* Host conversions between float and the FP8 (E4M3, E5M2), FP16 and BF16 encodings. */
#include <string.h>

#include "internal.h"

#define E4M3_MAN_BITS 3
#define E4M3_BIAS 7
#define E4M3_MAX_CODE 0x7Eu /* 448 */
#define E5M2_MAN_BITS 2
#define E5M2_BIAS 15
#define E5M2_INF_CODE 0x7Cu
#define FP16_MAN_BITS 10
#define FP16_BIAS 15
#define FP16_INF_CODE 0x7C00u
#define BF16_MAN_BITS 7
#define BF16_BIAS 127
#define BF16_INF_CODE 0x7F80u
#define FP8_NAN_CODE 0x7Fu /* E4M3's only NaN; one of E5M2's */
#define FLOAT_INF_BITS 0x7F800000u

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* A quiet float NaN carrying the sign of a code (sign_bit = 0 or 1). */
static float signed_nan(uint32_t sign_bit) { return bits_float((sign_bit << 31) | 0x7FC00000u); }

/* The one rounding routine of the codec. Rounds a non-negative value mant * 2^(e - frac_bits)
 * to nearest, ties to even, in a format with `man_bits` mantissa bits and exponent `bias`, as if
 * its exponent range were unbounded above. mant holds the source significand: the implicit one
 * at bit frac_bits for a normal source, and for a subnormal source no implicit one with e the
 * source's smallest normal exponent. Requires frac_bits > man_bits and frac_bits <= 62.
 * Returns the magnitude code (biased exponent << man_bits | mantissa), which exceeds the
 * format's largest finite code when the value overflows: callers clamp. */
static uint32_t round_significand(uint64_t mant, int e, int frac_bits, int man_bits, int bias)
{
    int emin = 1 - bias; /* smallest normal exponent of the format */
    int shift, e_code;
    uint64_t q, rem, half;
    /* keep man_bits bits below the leading one; below emin the quantum stays 2^(emin-man_bits) */
    shift = frac_bits - man_bits + (e < emin ? emin - e : 0);
    if (shift > frac_bits + 1) return 0; /* below half the smallest subnormal: rounds to zero */
    q = mant >> shift;
    rem = mant & ((1ull << shift) - 1u);
    half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) q++;
    /* q includes the implicit one for normals (so exponent field e_code + 1), and a carry out
     * of the mantissa moves into the exponent by plain addition. */
    e_code = (e < emin ? emin : e) + bias - 1;
    return ((uint32_t)e_code << man_bits) + (uint32_t)q;
}

/* round_significand for the magnitude of a finite float or +inf (its bits without the sign). */
static uint32_t round_magnitude(uint32_t mag_bits, int man_bits, int bias)
{
    int exp_field = (int)(mag_bits >> 23);
    uint64_t mant = mag_bits & 0x7FFFFFu;
    if (exp_field) mant |= 0x800000u;
    return round_significand(mant, exp_field ? exp_field - 127 : -126, 23, man_bits, bias);
}

/* round_significand for the magnitude of a finite double or +inf (its bits without the sign). */
static uint32_t round_magnitude_double(uint64_t mag_bits, int man_bits, int bias)
{
    int exp_field = (int)(mag_bits >> 52);
    uint64_t mant = mag_bits & 0xFFFFFFFFFFFFFull;
    if (exp_field) mant |= 1ull << 52;
    return round_significand(mant, exp_field ? exp_field - 1023 : -1022, 52, man_bits, bias);
}

/* Decodes a finite magnitude code (no sign) of a format with man_bits / bias. */
static float decode_magnitude(uint32_t code, int man_bits, int bias)
{
    uint32_t e = code >> man_bits;
    uint32_t m = code & ((1u << man_bits) - 1u);
    if (e == 0) /* subnormal: m * 2^(1 - bias - man_bits), exact in float */
        return (float)m * bits_float((uint32_t)(127 + 1 - bias - man_bits) << 23);
    return bits_float(((e + 127u - (uint32_t)bias) << 23) | (m << (23 - man_bits)));
}

uint8_t fp8attn_float_to_e4m3(float x)
{
    uint32_t u = float_bits(x), sign = (u >> 24) & 0x80u, mag = u & 0x7FFFFFFFu, code;
    if (mag > FLOAT_INF_BITS) return (uint8_t)(sign | FP8_NAN_CODE);
    /* no inf in E4M3: anything rounding above 448 (+inf included) saturates */
    code = round_magnitude(mag, E4M3_MAN_BITS, E4M3_BIAS);
    return (uint8_t)(sign | (code > E4M3_MAX_CODE ? E4M3_MAX_CODE : code));
}

float fp8attn_e4m3_to_float(uint8_t code)
{
    uint32_t mag = code & 0x7Fu, sign = code >> 7;
    float v;
    if (mag == FP8_NAN_CODE) return signed_nan(sign);
    v = decode_magnitude(mag, E4M3_MAN_BITS, E4M3_BIAS);
    return sign ? -v : v;
}

uint8_t fp8attn_float_to_e5m2(float x)
{
    uint32_t u = float_bits(x), sign = (u >> 24) & 0x80u, mag = u & 0x7FFFFFFFu, code;
    if (mag > FLOAT_INF_BITS) return (uint8_t)(sign | FP8_NAN_CODE);
    /* IEEE overflow: a value whose rounding exceeds 57344 (+inf included) becomes inf */
    code = round_magnitude(mag, E5M2_MAN_BITS, E5M2_BIAS);
    return (uint8_t)(sign | (code > E5M2_INF_CODE ? E5M2_INF_CODE : code));
}

float fp8attn_e5m2_to_float(uint8_t code)
{
    uint32_t mag = code & 0x7Fu, sign = code >> 7;
    float v;
    if (mag > E5M2_INF_CODE) return signed_nan(sign);
    v = mag == E5M2_INF_CODE ? bits_float(FLOAT_INF_BITS)
                             : decode_magnitude(mag, E5M2_MAN_BITS, E5M2_BIAS);
    return sign ? -v : v;
}

uint16_t fp8attn_float_to_fp16(float x)
{
    uint32_t u = float_bits(x), sign = (u >> 16) & 0x8000u, mag = u & 0x7FFFFFFFu, code;
    if (mag > FLOAT_INF_BITS) /* quiet NaN keeping the top payload bits */
        return (uint16_t)(sign | FP16_INF_CODE | 0x200u | ((mag >> 13) & 0x3FFu));
    code = round_magnitude(mag, FP16_MAN_BITS, FP16_BIAS);
    return (uint16_t)(sign | (code > FP16_INF_CODE ? FP16_INF_CODE : code));
}

float fp8attn_fp16_to_float(uint16_t h)
{
    uint32_t mag = h & 0x7FFFu, sign = (uint32_t)h >> 15;
    float v;
    if (mag > FP16_INF_CODE) /* NaN: keep sign and payload, quiet */
        return bits_float((sign << 31) | 0x7FC00000u | ((mag & 0x3FFu) << 13));
    v = mag == FP16_INF_CODE ? bits_float(FLOAT_INF_BITS)
                             : decode_magnitude(mag, FP16_MAN_BITS, FP16_BIAS);
    return sign ? -v : v;
}

uint16_t fp8attn_float_to_bf16(float x)
{
    uint32_t u = float_bits(x), sign = (u >> 16) & 0x8000u, mag = u & 0x7FFFFFFFu;
    if (mag > FLOAT_INF_BITS) /* quiet it, so dropping payload bits cannot leave inf */
        return (uint16_t)(sign | (mag >> 16) | 0x40u);
    /* bf16 has float's exponent range: overflow of the rounding lands exactly on inf */
    return (uint16_t)(sign | round_magnitude(mag, BF16_MAN_BITS, BF16_BIAS));
}

float fp8attn_bf16_to_float(uint16_t h) { return bits_float((uint32_t)h << 16); }

/* A double to a 16-bit format whose infinity code is inf_code (FP16 0x7C00, BF16 0x7F80):
 * one rounding, overflow (+-inf included) gives +-inf, NaN a quiet NaN of the same sign. */
static uint16_t double_to_16(double x, int man_bits, int bias, uint32_t inf_code)
{
    uint64_t u, mag;
    uint32_t sign, code;
    memcpy(&u, &x, sizeof u);
    sign = (uint32_t)(u >> 48) & 0x8000u;
    mag = u & 0x7FFFFFFFFFFFFFFFull;
    if (mag > 0x7FF0000000000000ull) return (uint16_t)(sign | inf_code | (1u << (man_bits - 1)));
    code = round_magnitude_double(mag, man_bits, bias);
    return (uint16_t)(sign | (code > inf_code ? inf_code : code));
}

uint16_t fp8attn_double_to_fp16(double x)
{
    return double_to_16(x, FP16_MAN_BITS, FP16_BIAS, FP16_INF_CODE);
}

uint16_t fp8attn_double_to_bf16(double x)
{
    return double_to_16(x, BF16_MAN_BITS, BF16_BIAS, BF16_INF_CODE);
}

float fp8attn_format_max(fp8attn_format_t format)
{
    switch (format) {
    case FP8ATTN_FORMAT_E4M3: return fp8attn_e4m3_to_float(E4M3_MAX_CODE);
    case FP8ATTN_FORMAT_E5M2: return fp8attn_e5m2_to_float(E5M2_INF_CODE - 1u);
    }
    return 0.0f;
}

float fp8attn_decode(fp8attn_format_t format, uint8_t code)
{
    return format == FP8ATTN_FORMAT_E5M2 ? fp8attn_e5m2_to_float(code)
                                         : fp8attn_e4m3_to_float(code);
}

uint8_t fp8attn_encode(fp8attn_format_t format, float x)
{
    return format == FP8ATTN_FORMAT_E5M2 ? fp8attn_float_to_e5m2(x) : fp8attn_float_to_e4m3(x);
}
