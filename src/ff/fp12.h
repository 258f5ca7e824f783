/* Fp12 = Fp6[w] / (w^2 - v), the pairing target field (the zcash/blst/noble tower).
 * Element c0 + c1*w. Aliasing of arguments is allowed everywhere.
 * Contracts: element arguments are reduced (as this layer's functions make them) and results are; outputs may alias
 * inputs. Constant time (time independent of element values) unless a comment says variable time. */
#ifndef CUZK_FF_FP12_H
#define CUZK_FF_FP12_H

#include "ff/fp6.h"

#define FP12_BYTES 576

typedef struct fp12 {
    fp6_t c0, c1;
} fp12_t;

/* r = a + b, a - b, -a, a * b, a^2 in Fp12. */
void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_neg(fp12_t *r, const fp12_t *a);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *r, const fp12_t *a);
/* r = 1/a; zero maps to zero. */
void fp12_inv(fp12_t *r, const fp12_t *a);
/* r = c0 - c1*w = a^(p^6); the inverse for a in the cyclotomic subgroup (e.g. pairing values). */
void fp12_conj(fp12_t *r, const fp12_t *a);
/* r = a^(p^k) for any k >= 0 (k is taken mod 12). Variable time in k only. */
void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned k);
/* r = a^2 for a in the cyclotomic subgroup (a = b^((p^6 - 1)(p^2 + 1)) for some b, as after the easy part
 * of the final exponentiation); Granger-Scott, cheaper than fp12_sqr, wrong for other a. */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a);
/* r = a^x for the BLS parameter x = -0xd201000000010000, a in the cyclotomic subgroup. */
void fp12_cyclotomic_exp_x(fp12_t *r, const fp12_t *a);
/* r = a * (b0 + b1*v + b4*v*w): multiplication by a Miller-loop line value (slots 0, 1 and 4 of
 * the basis 1, v, v^2, w, vw, v^2w). */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *b0, const fp2_t *b1, const fp2_t *b4);
/* r = a^e, e given as nlimbs little-endian 64-bit limbs (square-and-multiply; tests). Variable time in e. */
void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t nlimbs);
/* 1 if a == 0 (a == 1, a == b), else 0. Variable time (coefficient by coefficient). */
int fp12_is_zero(const fp12_t *a);
int fp12_is_one(const fp12_t *a);
int fp12_eq(const fp12_t *a, const fp12_t *b);
/* r = 0, r = 1. */
void fp12_set_zero(fp12_t *r);
void fp12_set_one(fp12_t *r);
/* The 12 Fp coefficients, 48-byte big-endian each, c0 before c1 at every level:
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, ... (the @noble/curves order). */
void fp12_to_bytes_be(uint8_t out[FP12_BYTES], const fp12_t *a);
/* Uniformly random element from rng (tests and benchmarks only). */
void fp12_random(fp12_t *r, rng_t *rng);

#endif
