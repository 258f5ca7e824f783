/* Fp2 = Fp[u] / (u^2 + 1), the field of G2 coordinates. Element c0 + c1*u.
 * Aliasing of arguments is allowed everywhere.
 * Contracts: element arguments are reduced (as this layer's functions make them) and results are; outputs may alias
 * inputs. Constant time (time independent of element values) unless a comment says variable time. */
#ifndef CUZK_FF_FP2_H
#define CUZK_FF_FP2_H

#include "ff/fp.h"

#define FP2_BYTES 96

typedef struct fp2 {
    fp_t c0, c1;
} fp2_t;

/* r = a + b, 2a, a - b, -a, a * b, a^2 in Fp2. */
void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *r, const fp2_t *a);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *r, const fp2_t *a);
/* r = a * b for b in Fp. */
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b);
/* r = a * (u + 1), the non-residue that defines Fp6 over Fp2. */
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a);
/* r = c0 - c1*u (also the p-power Frobenius map). */
void fp2_conj(fp2_t *r, const fp2_t *a);
/* r = 1/a; zero maps to zero. */
void fp2_inv(fp2_t *r, const fp2_t *a);
/* r = a^e, e given as nlimbs little-endian 64-bit limbs (r = 1 for e = 0). Variable time in e. */
void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t nlimbs);
/* Returns 1 and a square root of a in r, or 0 (r untouched) if a is not a square. Variable time. */
int fp2_sqrt(fp2_t *r, const fp2_t *a);
/* 1 if a == 0 (a == 1, a == b), else 0. Variable time (coefficient by coefficient). */
int fp2_is_zero(const fp2_t *a);
int fp2_is_one(const fp2_t *a);
int fp2_eq(const fp2_t *a, const fp2_t *b);
/* r = 0, r = 1. */
void fp2_set_zero(fp2_t *r);
void fp2_set_one(fp2_t *r);
/* The zcash "sign" of an Fp2 y: decided by c1, or by c0 when c1 is zero (fp_is_lexicographically_largest). 1 or
 * 0; variable time. */
int fp2_is_lexicographically_largest(const fp2_t *a);
/* 96 bytes: c1 then c0, each 48-byte big-endian (bellperson/blst order).
 * Decoding returns -1 (r untouched) if either coefficient is >= p, else 0; variable time. Encoding: constant time. */
int fp2_from_bytes_be(fp2_t *r, const uint8_t in[FP2_BYTES]);
void fp2_to_bytes_be(uint8_t out[FP2_BYTES], const fp2_t *a);
/* Uniformly random element from rng (tests and benchmarks only). */
void fp2_random(fp2_t *r, rng_t *rng);

#endif
