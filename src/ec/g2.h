/* G2 of BLS12-381: y^2 = x^3 + 4(u + 1) over Fp2 (the M-type twist).
 * Affine points mark infinity with x = y = 0 (not on the curve), Jacobian
 * points (X/Z^2, Y/Z^3) with Z = 0, XYZZ points (X/ZZ, Y/ZZZ) with ZZ = 0.
 * Aliasing of arguments is allowed everywhere.
 * Contracts: point arguments have reduced coordinates (as the ff layer makes them); unless a comment says it is
 * checked, a finite input point must be on the curve (results of non-curve inputs are unspecified, never a
 * crash). Every function is variable time (branches on infinity and on equal inputs, scalar digits): for public
 * values. */
#ifndef CUZK_EC_G2_H
#define CUZK_EC_G2_H

#include "cuzk/status.h"
#include "ff/fp2.h"
#include "ff/fr.h"

#define G2_COMPRESSED_BYTES 96
#define G2_UNCOMPRESSED_BYTES 192

typedef struct g2_affine {
    fp2_t x, y;
} g2_affine_t;

typedef struct g2_jac {
    fp2_t x, y, z;
} g2_jac_t;

typedef struct g2_xyzz {
    fp2_t x, y, zz, zzz;
} g2_xyzz_t;

extern const g2_affine_t G2_GENERATOR;

/* 1 if p is the point at infinity (x = y = 0), else 0; set_inf makes p infinity. */
int g2_affine_is_inf(const g2_affine_t *p);
void g2_affine_set_inf(g2_affine_t *p);
/* 1 if a and b are the same point (same coordinates), else 0. */
int g2_affine_eq(const g2_affine_t *a, const g2_affine_t *b);
/* r = -a (infinity stays infinity). */
void g2_affine_neg(g2_affine_t *r, const g2_affine_t *a);
/* 1 if p satisfies the curve equation, else 0; any reduced coordinates may be given. Infinity counts as on the
 * curve. */
int g2_affine_is_on_curve(const g2_affine_t *p);
/* 1 if p (precondition: on the curve) is in the order-r subgroup, else 0; infinity is. */
int g2_affine_in_subgroup(const g2_affine_t *p);

/* r = infinity (Z = 0); 1 if p is infinity, else 0. */
void g2_jac_set_inf(g2_jac_t *r);
int g2_jac_is_inf(const g2_jac_t *p);
/* 1 if a and b represent the same point (whatever their Z), else 0. */
int g2_jac_eq(const g2_jac_t *a, const g2_jac_t *b);
/* 1 if p (any reduced coordinates) satisfies the curve equation, else 0; infinity counts as on the curve. */
int g2_jac_is_on_curve(const g2_jac_t *p);
/* Conversions (infinity to infinity); to_affine costs a field inversion. */
void g2_jac_from_affine(g2_jac_t *r, const g2_affine_t *a);
void g2_jac_to_affine(g2_affine_t *r, const g2_jac_t *a);
/* r = -a, r = 2a, r = a + b (complete: a == b, a == -b and infinity are handled), r = a + b for affine b. */
void g2_jac_neg(g2_jac_t *r, const g2_jac_t *a);
void g2_jac_dbl(g2_jac_t *r, const g2_jac_t *a);
void g2_jac_add(g2_jac_t *r, const g2_jac_t *a, const g2_jac_t *b);
void g2_jac_add_affine(g2_jac_t *r, const g2_jac_t *a, const g2_affine_t *b);
/* r = k*p for k given as nlimbs canonical little-endian 64-bit limbs (window NAF; k = 0: infinity).
 * Precondition: nlimbs <= 8 (more limbs are ignored). Variable time in k. */
void g2_jac_mul(g2_jac_t *r, const g2_jac_t *p, const uint64_t *k, size_t nlimbs);
/* r = s*p for s in Fr (its canonical value). Variable time in s. */
void g2_jac_mul_fr(g2_jac_t *r, const g2_jac_t *p, const fr_t *s);
/* out[i] = in[i] in affine form (infinity to infinity) for i < n, one field inversion per 256 points. out and in
 * must not overlap. */
void g2_batch_to_affine(g2_affine_t *out, const g2_jac_t *in, size_t n);

/* XYZZ points (the MSM's buckets): r = infinity (ZZ = 0), 1 if p is infinity, r = 2a, r = a + b (complete),
 * r = a + b for affine b, and the conversion to Jacobian. */
void g2_xyzz_set_inf(g2_xyzz_t *r);
int g2_xyzz_is_inf(const g2_xyzz_t *p);
void g2_xyzz_dbl(g2_xyzz_t *r, const g2_xyzz_t *a);
void g2_xyzz_add(g2_xyzz_t *r, const g2_xyzz_t *a, const g2_xyzz_t *b);
void g2_xyzz_add_affine(g2_xyzz_t *r, const g2_xyzz_t *a, const g2_affine_t *b);
void g2_xyzz_to_jac(g2_jac_t *r, const g2_xyzz_t *a);

/* Random points for tests and benchmarks: in the subgroup (k*G, k random), and
 * merely on the curve (random x; usually outside the subgroup). */
void g2_random(g2_jac_t *r, rng_t *rng);
void g2_random_on_curve(g2_affine_t *r, rng_t *rng);
/* r = h*p for the curve's cofactor h: for p on the curve, the result is in the subgroup. */
void g2_clear_cofactor(g2_jac_t *r, const g2_jac_t *p);

/* Encodings exactly as bellperson/blst: coordinates c1 before c0, zcash flags 0x80 compressed,
 * 0x40 infinity, 0x20 sign. */
void g2_to_compressed(uint8_t out[G2_COMPRESSED_BYTES], const g2_affine_t *p);
void g2_to_uncompressed(uint8_t out[G2_UNCOMPRESSED_BYTES], const g2_affine_t *p);
/* Encoding: p must be on the curve (or infinity); its bytes are fully written.
 * Decoding checks flags, canonical coordinates, the curve, and (when check_subgroup) the subgroup; on failure *r
 * is unspecified.
 * Errors: CUZK_ERR_BAD_FLAGS, CUZK_ERR_NOT_CANONICAL, CUZK_ERR_NO_SQUARE_ROOT, CUZK_ERR_NOT_ON_CURVE,
 * CUZK_ERR_NOT_IN_SUBGROUP, each with a message. */
cuzk_status g2_from_compressed(g2_affine_t *r, const uint8_t in[G2_COMPRESSED_BYTES], int check_subgroup,
                               cuzk_error *err);
cuzk_status g2_from_uncompressed(g2_affine_t *r, const uint8_t in[G2_UNCOMPRESSED_BYTES], int check_subgroup,
                                 cuzk_error *err);

#endif
