/* Fr: the 255-bit scalar field of BLS12-381 (the field of Groth16 witnesses),
 * in Montgomery form on four 64-bit little-endian limbs. All operations accept aliased arguments (r == a etc.)
 * and always return fully reduced values (< r). */
#ifndef CUZK_FF_FR_H
#define CUZK_FF_FR_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

#define FR_LIMBS 4
#define FR_BYTES 32

typedef struct fr {
    uint64_t l[FR_LIMBS];
} fr_t;

/* r, little-endian limbs (canonical, not Montgomery). */
extern const uint64_t FR_MODULUS[FR_LIMBS];

/* Contracts. An element argument must be a reduced Montgomery value as this file's functions make (< r); results
 * are reduced. Outputs may alias inputs. "Constant time": the time does not depend on element values (no branch
 * or memory index on them; the ADX/portable choice depends on the processor only); else "variable time". */

/* r = a + b, r = 2a, r = a - b, r = -a, r = a * b, r = a^2 (mod r). Constant time. */
void fr_add(fr_t *r, const fr_t *a, const fr_t *b);
void fr_dbl(fr_t *r, const fr_t *a);
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b);
void fr_neg(fr_t *r, const fr_t *a);
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *r, const fr_t *a);
/* 1 if a == 0, else 0. Constant time. */
int fr_is_zero(const fr_t *a);
/* 1 if a == 1 (a == b), else 0. Variable time (memcmp): for values that are not secret. */
int fr_is_one(const fr_t *a);
int fr_eq(const fr_t *a, const fr_t *b);
/* r = 0, r = 1, r = v (any v: reduced mod r). Constant time. */
void fr_set_zero(fr_t *r);
void fr_set_one(fr_t *r);
void fr_from_u64(fr_t *r, uint64_t v);
/* Canonical little-endian limbs -> Montgomery. Returns -1 (r untouched) if >= r, else 0. Variable time (the
 * range check). */
int fr_to_mont(fr_t *r, const uint64_t canonical[FR_LIMBS]);
/* Montgomery -> canonical little-endian limbs (< r). Constant time. */
void fr_from_mont(uint64_t canonical[FR_LIMBS], const fr_t *a);
/* r = a^e, e given as nlimbs little-endian 64-bit limbs (e = 0 or nlimbs = 0: r = 1). Square and multiply:
 * constant time in a, variable time in e. */
void fr_pow(fr_t *r, const fr_t *a, const uint64_t *e, size_t nlimbs);
/* r = 1/a; the inverse of zero is zero. Constant time (a^(r-2)). */
void fr_inv(fr_t *r, const fr_t *a);
/* The same inverse in time that depends on a (binary extended Euclid), several times faster: for values that are
 * not secret, such as the MSM's batched bucket additions. */
void fr_inv_vartime(fr_t *r, const fr_t *a);
/* out[i] = 1/in[i] for all i with one inversion; zeros map to zero. out and in must not overlap. Variable time in
 * which inputs are zero. */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n);
/* 1 if a is a non-zero square, -1 if a non-square, 0 if zero. Variable time (zero and the result). */
int fr_legendre(const fr_t *a);
/* The 2-adicity of r - 1, and the multiplicative generator used for cosets (7). */
#define FR_TWO_ADICITY 32
#define FR_GENERATOR 7
/* r = a primitive 2^log_n-th root of unity (7^((r-1)/2^32) squared 32-log_n times). Precondition: log_n <= 32
 * (a larger log_n gives the 2^32-th root). Variable time in log_n only. */
void fr_root_of_unity(fr_t *r, unsigned log_n);
/* Encodings of exactly FR_BYTES bytes, big- or little-endian canonical integers. Decoding returns -1 (r untouched)
 * if the value is >= r, else 0; variable time (the range check). Encoding is constant time. */
int fr_from_bytes_be(fr_t *r, const uint8_t in[FR_BYTES]);
int fr_from_bytes_le(fr_t *r, const uint8_t in[FR_BYTES]);
void fr_to_bytes_be(uint8_t out[FR_BYTES], const fr_t *a);
void fr_to_bytes_le(uint8_t out[FR_BYTES], const fr_t *a);
/* Uniformly random element from rng (tests and benchmarks only: rng is no cryptographic generator). */
void fr_random(fr_t *r, rng_t *rng);

#endif
