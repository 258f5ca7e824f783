/* Fp: the 381-bit base field of BLS12-381, in Montgomery form on six 64-bit
 * little-endian limbs. All operations accept aliased arguments (r == a etc.)
 * and always return fully reduced values (< p). */
#ifndef CUZK_FF_FP_H
#define CUZK_FF_FP_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

#define FP_LIMBS 6
#define FP_BYTES 48

typedef struct fp {
    uint64_t l[FP_LIMBS];
} fp_t;

/* p, little-endian limbs (canonical, not Montgomery). */
extern const uint64_t FP_MODULUS[FP_LIMBS];
/* p followed by -p^-1 mod 2^64, and p followed by six zero limbs: the operands of the x86-64 assembly
 * (src/ff/mont_x86_adx.h), for the loops that inline it (the MSM's bucket additions). */
extern const uint64_t FP_MONT_PM[FP_LIMBS + 1];
extern const uint64_t FP_MONT_PZ[2 * FP_LIMBS];

/* Contracts. An element argument must be a reduced Montgomery value as this file's functions make (< p); results
 * are reduced. Outputs may alias inputs. "Constant time": the time does not depend on element values (no branch
 * or memory index on them; the ADX/portable choice depends on the processor only); else "variable time". */

/* r = a + b, r = 2a, r = a - b, r = -a, r = a * b, r = a^2 (mod p). Constant time. */
void fp_add(fp_t *r, const fp_t *a, const fp_t *b);
void fp_dbl(fp_t *r, const fp_t *a);
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b);
void fp_neg(fp_t *r, const fp_t *a);
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *r, const fp_t *a);
/* 1 if a == 0, else 0. Constant time. */
int fp_is_zero(const fp_t *a);
/* 1 if a == 1 (a == b), else 0. Variable time (memcmp): for values that are not secret. */
int fp_is_one(const fp_t *a);
int fp_eq(const fp_t *a, const fp_t *b);
/* r = 0, r = 1, r = v (any v: reduced mod p). Constant time. */
void fp_set_zero(fp_t *r);
void fp_set_one(fp_t *r);
void fp_from_u64(fp_t *r, uint64_t v);
/* Canonical little-endian limbs -> Montgomery. Returns -1 (r untouched) if >= p, else 0. Variable time (the
 * range check). */
int fp_to_mont(fp_t *r, const uint64_t canonical[FP_LIMBS]);
/* Montgomery -> canonical little-endian limbs (< p). Constant time. */
void fp_from_mont(uint64_t canonical[FP_LIMBS], const fp_t *a);
/* r = a^e, e given as nlimbs little-endian 64-bit limbs (e = 0 or nlimbs = 0: r = 1). Square and multiply:
 * constant time in a, variable time in e. */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *e, size_t nlimbs);
/* r = 1/a; the inverse of zero is zero. Constant time (a^(p-2)). */
void fp_inv(fp_t *r, const fp_t *a);
/* The same inverse in time that depends on a (binary extended Euclid), several times faster: for values that are
 * not secret, such as the MSM's batched bucket additions. */
void fp_inv_vartime(fp_t *r, const fp_t *a);
/* out[i] = 1/in[i] for all i with one inversion; zeros map to zero. out and in must not overlap. Variable time in
 * which inputs are zero. */
void fp_batch_inv(fp_t *out, const fp_t *in, size_t n);
/* 1 if a is a non-zero square, -1 if a non-square, 0 if zero. Variable time (zero and the result). */
int fp_legendre(const fp_t *a);
/* r = a square root of a (either one); returns 1 on success, 0 if a is not a square (r untouched). Variable
 * time. */
int fp_sqrt(fp_t *r, const fp_t *a);
/* 1 if a > (p-1)/2 as canonical integers (the zcash "sign" of y), else 0. Variable time. */
int fp_is_lexicographically_largest(const fp_t *a);
/* Encodings of exactly FP_BYTES bytes, big- or little-endian canonical integers. Decoding returns -1 (r untouched)
 * if the value is >= p, else 0; variable time (the range check). Encoding is constant time. */
int fp_from_bytes_be(fp_t *r, const uint8_t in[FP_BYTES]);
int fp_from_bytes_le(fp_t *r, const uint8_t in[FP_BYTES]);
void fp_to_bytes_be(uint8_t out[FP_BYTES], const fp_t *a);
void fp_to_bytes_le(uint8_t out[FP_BYTES], const fp_t *a);
/* Uniformly random element from rng (tests and benchmarks only: rng is no cryptographic generator). */
void fp_random(fp_t *r, rng_t *rng);

#endif
