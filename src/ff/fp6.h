/* Fp6 = Fp2[v] / (v^3 - (u + 1)), the middle of the zcash/blst/noble tower.
 * Element c0 + c1*v + c2*v^2. Aliasing of arguments is allowed everywhere.
 * Contracts: element arguments are reduced (as this layer's functions make them) and results are; outputs may alias
 * inputs. Constant time (time independent of element values) unless a comment says variable time. */
#ifndef CUZK_FF_FP6_H
#define CUZK_FF_FP6_H

#include "ff/fp2.h"

typedef struct fp6 {
    fp2_t c0, c1, c2;
} fp6_t;

/* r = a + b, 2a, a - b, -a, a * b, a^2 in Fp6. */
void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_dbl(fp6_t *r, const fp6_t *a);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_neg(fp6_t *r, const fp6_t *a);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *r, const fp6_t *a);
/* r = 1/a; zero maps to zero. */
void fp6_inv(fp6_t *r, const fp6_t *a);
/* r = a * v, the non-residue that defines Fp12 over Fp6. */
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a);
/* r = a * b for b in Fp2. */
void fp6_mul_fp2(fp6_t *r, const fp6_t *a, const fp2_t *b);
/* Sparse products used by the Miller loop: r = a * (b0 + b1 v) and r = a * (b1 v). */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1);
/* r = a^(p^k) for any k >= 0 (k is taken mod 6). Variable time in k only. */
void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned k);
/* 1 if a == 0 (a == 1, a == b), else 0. Variable time (coefficient by coefficient). */
int fp6_is_zero(const fp6_t *a);
int fp6_is_one(const fp6_t *a);
int fp6_eq(const fp6_t *a, const fp6_t *b);
/* r = 0, r = 1. */
void fp6_set_zero(fp6_t *r);
void fp6_set_one(fp6_t *r);
/* Uniformly random element from rng (tests and benchmarks only). */
void fp6_random(fp6_t *r, rng_t *rng);

#endif
