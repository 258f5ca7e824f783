/* G1 of BLS12-381: y^2 = x^3 + 4 over Fp.
 * Affine points mark infinity with x = y = 0 (not on the curve), Jacobian
 * points (X/Z^2, Y/Z^3) with Z = 0, XYZZ points (X/ZZ, Y/ZZZ) with ZZ = 0.
 * Aliasing of arguments is allowed everywhere.
 * Contracts: point arguments have reduced coordinates (as the ff layer makes them); unless a comment says it is
 * checked, a finite input point must be on the curve (results of non-curve inputs are unspecified, never a
 * crash). Every function is variable time (branches on infinity and on equal inputs, scalar digits): for public
 * values. */
#ifndef CUZK_EC_G1_H
#define CUZK_EC_G1_H

#include "cuzk/status.h"
#include "ff/fp.h"
#include "ff/fr.h"

#define G1_COMPRESSED_BYTES 48
#define G1_UNCOMPRESSED_BYTES 96

typedef struct g1_affine {
    fp_t x, y;
} g1_affine_t;

typedef struct g1_jac {
    fp_t x, y, z;
} g1_jac_t;

typedef struct g1_xyzz {
    fp_t x, y, zz, zzz;
} g1_xyzz_t;

extern const g1_affine_t G1_GENERATOR;

/* 1 if p is the point at infinity (x = y = 0), else 0; set_inf makes p infinity. */
int g1_affine_is_inf(const g1_affine_t *p);
void g1_affine_set_inf(g1_affine_t *p);
/* 1 if a and b are the same point (same coordinates), else 0. */
int g1_affine_eq(const g1_affine_t *a, const g1_affine_t *b);
/* r = -a (infinity stays infinity). */
void g1_affine_neg(g1_affine_t *r, const g1_affine_t *a);
/* 1 if p satisfies the curve equation, else 0; any reduced coordinates may be given. Infinity counts as on the
 * curve. */
int g1_affine_is_on_curve(const g1_affine_t *p);
/* 1 if p (precondition: on the curve) is in the order-r subgroup, else 0; infinity is. */
int g1_affine_in_subgroup(const g1_affine_t *p);

/* r = infinity (Z = 0); 1 if p is infinity, else 0. */
void g1_jac_set_inf(g1_jac_t *r);
int g1_jac_is_inf(const g1_jac_t *p);
/* 1 if a and b represent the same point (whatever their Z), else 0. */
int g1_jac_eq(const g1_jac_t *a, const g1_jac_t *b);
/* 1 if p (any reduced coordinates) satisfies the curve equation, else 0; infinity counts as on the curve. */
int g1_jac_is_on_curve(const g1_jac_t *p);
/* Conversions (infinity to infinity); to_affine costs a field inversion. */
void g1_jac_from_affine(g1_jac_t *r, const g1_affine_t *a);
void g1_jac_to_affine(g1_affine_t *r, const g1_jac_t *a);
/* r = -a, r = 2a, r = a + b (complete: a == b, a == -b and infinity are handled), r = a + b for affine b. */
void g1_jac_neg(g1_jac_t *r, const g1_jac_t *a);
void g1_jac_dbl(g1_jac_t *r, const g1_jac_t *a);
void g1_jac_add(g1_jac_t *r, const g1_jac_t *a, const g1_jac_t *b);
void g1_jac_add_affine(g1_jac_t *r, const g1_jac_t *a, const g1_affine_t *b);
/* r = k*p for k given as nlimbs canonical little-endian 64-bit limbs (window NAF; k = 0: infinity).
 * Precondition: nlimbs <= 8 (more limbs are ignored). Variable time in k. */
void g1_jac_mul(g1_jac_t *r, const g1_jac_t *p, const uint64_t *k, size_t nlimbs);
/* r = s*p for s in Fr (its canonical value). Variable time in s. */
void g1_jac_mul_fr(g1_jac_t *r, const g1_jac_t *p, const fr_t *s);
/* out[i] = in[i] in affine form (infinity to infinity) for i < n, one field inversion per 256 points. out and in
 * must not overlap. */
void g1_batch_to_affine(g1_affine_t *out, const g1_jac_t *in, size_t n);

/* XYZZ points (the MSM's buckets): r = infinity (ZZ = 0), 1 if p is infinity, r = 2a, r = a + b (complete),
 * r = a + b for affine b, and the conversion to Jacobian. */
void g1_xyzz_set_inf(g1_xyzz_t *r);
int g1_xyzz_is_inf(const g1_xyzz_t *p);
void g1_xyzz_dbl(g1_xyzz_t *r, const g1_xyzz_t *a);
void g1_xyzz_add(g1_xyzz_t *r, const g1_xyzz_t *a, const g1_xyzz_t *b);
void g1_xyzz_add_affine(g1_xyzz_t *r, const g1_xyzz_t *a, const g1_affine_t *b);
void g1_xyzz_to_jac(g1_jac_t *r, const g1_xyzz_t *a);

/* The cube root of unity beta (Montgomery form) for which (beta x, y) = lambda (x, y) on G1, lambda = x^2 - 1 for
 * the BLS parameter x: the GPU MSM's GLV endomorphism (src/gpu/glv.h). It is the square of the one whose map is
 * -x^2 = lambda^2 (the subgroup check's). */
void g1_glv_beta(fp_t *beta);

/* Random points for tests and benchmarks: in the subgroup (k*G, k random), and
 * merely on the curve (random x; usually outside the subgroup). */
void g1_random(g1_jac_t *r, rng_t *rng);
void g1_random_on_curve(g1_affine_t *r, rng_t *rng);
/* r = h*p for the curve's cofactor h: for p on the curve, the result is in the subgroup. */
void g1_clear_cofactor(g1_jac_t *r, const g1_jac_t *p);

/* Encodings exactly as bellperson/blst (zcash flags 0x80 compressed, 0x40 infinity, 0x20 sign). */
void g1_to_compressed(uint8_t out[G1_COMPRESSED_BYTES], const g1_affine_t *p);
void g1_to_uncompressed(uint8_t out[G1_UNCOMPRESSED_BYTES], const g1_affine_t *p);
/* Encoding: p must be on the curve (or infinity); its bytes are fully written.
 * Decoding checks flags, canonical coordinates, the curve, and (when check_subgroup) the subgroup; on failure *r
 * is unspecified.
 * Errors: CUZK_ERR_BAD_FLAGS, CUZK_ERR_NOT_CANONICAL, CUZK_ERR_NO_SQUARE_ROOT, CUZK_ERR_NOT_ON_CURVE,
 * CUZK_ERR_NOT_IN_SUBGROUP, each with a message. */
cuzk_status g1_from_compressed(g1_affine_t *r, const uint8_t in[G1_COMPRESSED_BYTES], int check_subgroup,
                               cuzk_error *err);
cuzk_status g1_from_uncompressed(g1_affine_t *r, const uint8_t in[G1_UNCOMPRESSED_BYTES], int check_subgroup,
                                 cuzk_error *err);

#endif
