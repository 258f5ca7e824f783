/* Fp products on the FP64 units: a Montgomery product of BLS12-381's base field computed with double-precision
 * fused multiply-adds only, for the GPU, where the FP64 pipe sits idle while the 32-bit multiply-adds of mont.cuh
 * bound the MSM rounds and the NTT. The same code compiles as C (the CPU tests check it against src/ff) and as
 * CUDA (__host__ __device__).
 *
 * An element is eight doubles d[0..7] holding integers, its value V = sum d[k] * 2^(48k) (radix 2^48: eight
 * digits span 384 bits, so the Montgomery radix R = 2^384 is the CPU's and mont.cuh's, and the raw integers of
 * those forms convert digit by digit). Digits may be negative.
 *
 * The product of two digits below 2^48 is split exactly into hi + lo by two FMAs around the constant
 * FPD_ROUND = 1.5 * 2^100: fma(x, y, FPD_ROUND) lies in [2^100, 2^101), whose spacing is 2^48, so subtracting
 * FPD_ROUND leaves x*y rounded to a multiple of 2^48 (hi), and fma(x, y, -hi) is the remainder (lo, |lo| <= 2^47),
 * both exact. Column sums of lo and hi / 2^48 stay below 2^53 and are therefore exact too.
 *
 * Contract of fpd_mul: inputs with every digit |d| <= 2^48 and |V| <= 2p (what fpd_from_limbs gives, and a sum or
 * difference of two outputs of fpd_mul); output with digits 0..6 in [-2^47, 2^47] and |V| < p, congruent to
 * A * B / 2^384 mod p. The bounds: every column stays below 5.1 * 2^50 < 2^53, and |V| <= 4p^2 / R + p/2 < 0.91p.
 *
 * fpd_mul_ia computes the same product with the splits' results read as integers (the bits of the FMA results,
 * whose exponent is fixed) and the columns summed in 64-bit integers: 3 FP64 instructions a digit product instead of
 * 5, the sums on the integer ALU. Its reduction uses the unsigned m in [0, 2^48). Contract: inputs with digits
 * |d| <= 2^49 and |V| <= 3p; output digits 0..6 in [0, 2^48), |V| < 2p (|V| <= 9p^2 / R + p < 1.92p). */
#ifndef CUZK_GPU_FP_DFMA_H
#define CUZK_GPU_FP_DFMA_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define FPD_FN static __host__ __device__ __forceinline__
#else
#define FPD_FN static inline
#endif
#if defined(__CUDA_ARCH__) /* the device pass: the host compiler would warn of an unknown pragma */
#define FPD_UNROLL _Pragma("unroll")
#else
#define FPD_UNROLL
#endif

#define FPD_DIGITS 8
#define FPD_ROUND 0x1.8p100 /* x + FPD_ROUND - FPD_ROUND rounds x (|x| < 2^98) to a multiple of 2^48 */
#define FPD_SCALE_DOWN 0x1p-48
#define FPD_MASK48 0xffffffffffffULL
#define FPD_TWO52 0x1p52      /* its bits plus v (v < 2^52) are the bits of 2^52 + v */
#define FPD_TWO52_HALF 0x1.8p52 /* d + 1.5 * 2^52 (|d| < 2^51 an integer) has the bits of 1.5 * 2^52 plus d */
/* -p^-1 mod 2^48 as the signed representative: |n'| < 2^34; and as the unsigned one. */
#define FPD_NINV (-12885098499.0)
#define FPD_NINV_U 0xfffcfffcfffdULL
/* fpd_mul_ia: fma(x, y, FPD_ROUND) has the bits of FPD_ROUND plus round(x * y / 2^48); fma(x, y, FPD_IA_K - that) is
 * 1.5 * 2^52 plus the remainder, with the bits of 1.5 * 2^52 plus the remainder. */
#define FPD_IA_K 0x1.8000000000018p100 /* FPD_ROUND + 1.5 * 2^52, exactly */
#define FPD_ROUND_BITS 0x4638000000000000ULL
#define FPD_TWO52_HALF_BITS 0x4338000000000000ULL

typedef struct fpd {
    double d[FPD_DIGITS];
} fpd_t;

/* Digit j of p (unsigned, below 2^48). */
FPD_FN uint64_t fpd_p_digit(int j)
{
    return j == 0   ? 0xffffffffaaabULL
           : j == 1 ? 0xb153ffffb9feULL
           : j == 2 ? 0xf6241eabfffeULL
           : j == 3 ? 0x6730d2a0f6b0ULL
           : j == 4 ? 0x4b84f38512bfULL
           : j == 5 ? 0x434bacd76477ULL
           : j == 6 ? 0xe69a4b1ba7b6ULL
                    : 0x1a0111ea397fULL;
}

/* s[k] += the low part of x * y, s[k + 1] += its high part / 2^48 (|x * y| < 2^98). */
FPD_FN void fpd_mac(double *s, int k, double x, double y)
{
    double hi = fma(x, y, FPD_ROUND) - FPD_ROUND;
    double lo = fma(x, y, -hi);
    s[k] += lo;
    s[k + 1] = fma(hi, FPD_SCALE_DOWN, s[k + 1]);
}

/* r = a * b / 2^384 mod p (see the contract above); r may alias a or b. */
FPD_FN void fpd_mul(fpd_t *r, const fpd_t *a, const fpd_t *b)
{
    double s[2 * FPD_DIGITS + 1];
    FPD_UNROLL
    for (int k = 0; k <= 2 * FPD_DIGITS; k++) s[k] = 0.0;
    FPD_UNROLL
    for (int i = 0; i < FPD_DIGITS; i++)
        FPD_UNROLL
        for (int j = 0; j < FPD_DIGITS; j++) fpd_mac(s, i + j, a->d[i], b->d[j]);
    FPD_UNROLL
    for (int i = 0; i < FPD_DIGITS; i++) {
        /* m = -s[i] / p mod 2^48 (signed, |m| <= 2^47): adding m * p makes column i a multiple of 2^48. */
        double t = s[i] - ((s[i] + FPD_ROUND) - FPD_ROUND);
        double mh = fma(t, FPD_NINV, FPD_ROUND) - FPD_ROUND;
        double m = fma(t, FPD_NINV, -mh);
        FPD_UNROLL
        for (int j = 0; j < FPD_DIGITS; j++) fpd_mac(s, i + j, m, (double)fpd_p_digit(j));
        s[i + 1] = fma(s[i], FPD_SCALE_DOWN, s[i + 1]);
    }
    FPD_UNROLL
    for (int k = FPD_DIGITS; k < 2 * FPD_DIGITS - 1; k++) {
        double q = (s[k] + FPD_ROUND) - FPD_ROUND;
        r->d[k - FPD_DIGITS] = s[k] - q;
        s[k + 1] = fma(q, FPD_SCALE_DOWN, s[k + 1]);
    }
    r->d[FPD_DIGITS - 1] = s[2 * FPD_DIGITS - 1];
}

FPD_FN double fpd_from_bits(uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)b);
#else
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
#endif
}

FPD_FN uint64_t fpd_bits(double d)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(d);
#else
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
#endif
}

/* v < 2^52 as a double, and an integer-valued d with |d| < 2^51 as an int64, by the bits of one addition: the
 * device's conversion instructions run at a quarter of the FP64 rate. */
FPD_FN double fpd_from_u52(uint64_t v) { return fpd_from_bits(fpd_bits(FPD_TWO52) + v) - FPD_TWO52; }
FPD_FN int64_t fpd_to_i64(double d) { return (int64_t)(fpd_bits(d + FPD_TWO52_HALF) - fpd_bits(FPD_TWO52_HALF)); }

/* The digits of a raw integer below 2^384 in six little-endian 64-bit limbs (a Montgomery-form fp_t's l[]). */
FPD_FN void fpd_from_limbs(fpd_t *r, const uint64_t l[6])
{
    FPD_UNROLL
    for (int k = 0; k < FPD_DIGITS; k++) {
        int bit = 48 * k, w = bit / 64, off = bit % 64;
        uint64_t v = l[w] >> off;
        if (off > 16) v |= l[w + 1] << (64 - off);
        r->d[k] = fpd_from_u52(v & FPD_MASK48);
    }
}

/* acc[k] += the low part of x * y, acc[k + 1] += its high part / 2^48, as integers (|x * y| <= 2^98). */
FPD_FN void fpd_mac_ia(int64_t *acc, int k, double x, double y)
{
    double hr = fma(x, y, FPD_ROUND);
    double lo = fma(x, y, FPD_IA_K - hr);
    acc[k] += (int64_t)(fpd_bits(lo) - FPD_TWO52_HALF_BITS);
    acc[k + 1] += (int64_t)(fpd_bits(hr) - FPD_ROUND_BITS);
}

/* r = a * b / 2^384 mod p with integer column sums (see the contract above); r may alias a or b. */
FPD_FN void fpd_mul_ia(fpd_t *r, const fpd_t *a, const fpd_t *b)
{
    int64_t acc[2 * FPD_DIGITS + 1];
    FPD_UNROLL
    for (int k = 0; k <= 2 * FPD_DIGITS; k++) acc[k] = 0;
    FPD_UNROLL
    for (int i = 0; i < FPD_DIGITS; i++)
        FPD_UNROLL
        for (int j = 0; j < FPD_DIGITS; j++) fpd_mac_ia(acc, i + j, a->d[i], b->d[j]);
    FPD_UNROLL
    for (int i = 0; i < FPD_DIGITS; i++) {
        /* m = -acc[i] / p mod 2^48: adding m * p makes column i a multiple of 2^48, carried up exactly */
        double m = fpd_from_u52(((uint64_t)acc[i] * FPD_NINV_U) & FPD_MASK48);
        FPD_UNROLL
        for (int j = 0; j < FPD_DIGITS; j++) fpd_mac_ia(acc, i + j, m, (double)fpd_p_digit(j));
        acc[i + 1] += acc[i] >> 48;
    }
    FPD_UNROLL
    for (int k = FPD_DIGITS; k < 2 * FPD_DIGITS - 1; k++) {
        r->d[k - FPD_DIGITS] = fpd_from_u52((uint64_t)acc[k] & FPD_MASK48);
        acc[k + 1] += acc[k] >> 48;
    }
    /* the top digit is small and may be negative */
    r->d[FPD_DIGITS - 1] = fpd_from_bits(FPD_TWO52_HALF_BITS + (uint64_t)acc[2 * FPD_DIGITS - 1]) - FPD_TWO52_HALF;
}

/* The canonical raw integer (in [0, p)) of a value with |V| < 2p whose digits are integers below 2^51 in
 * magnitude, as six little-endian 64-bit limbs. */
FPD_FN void fpd_to_limbs(uint64_t l[6], const fpd_t *a)
{
    /* W = V + 2p, in [0, 4p): digits carried into [0, 2^48), then p subtracted while W >= p. */
    uint64_t w[FPD_DIGITS];
    int64_t carry = 0;
    FPD_UNROLL
    for (int k = 0; k < FPD_DIGITS; k++) {
        int64_t e = fpd_to_i64(a->d[k]) + 2 * (int64_t)fpd_p_digit(k) + carry;
        w[k] = (uint64_t)e & FPD_MASK48;
        carry = (e - (int64_t)w[k]) / ((int64_t)1 << 48);
    }
    for (int round = 0; round < 3; round++) {
        int ge = 1; /* W >= p, from the top digit down */
        FPD_UNROLL
        for (int k = FPD_DIGITS - 1; k >= 0; k--) {
            if (w[k] != fpd_p_digit(k)) {
                ge = w[k] > fpd_p_digit(k);
                break;
            }
        }
        if (!ge) break;
        int64_t borrow = 0;
        FPD_UNROLL
        for (int k = 0; k < FPD_DIGITS; k++) {
            int64_t e = (int64_t)w[k] - (int64_t)fpd_p_digit(k) + borrow;
            w[k] = (uint64_t)e & FPD_MASK48;
            borrow = (e - (int64_t)w[k]) / ((int64_t)1 << 48);
        }
    }
    FPD_UNROLL
    for (int i = 0; i < 6; i++) l[i] = 0;
    FPD_UNROLL
    for (int k = 0; k < FPD_DIGITS; k++) {
        int bit = 48 * k, w0 = bit / 64, off = bit % 64;
        l[w0] |= w[k] << off;
        if (off > 16) l[w0 + 1] |= w[k] >> (64 - off);
    }
}

#endif
