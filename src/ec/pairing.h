/* The optimal ate pairing of BLS12-381, e: G1 x G2 -> GT (a subgroup of Fp12*).
 * Inputs are affine points assumed to be in their subgroups; infinity on either
 * side makes that pair contribute 1.
 * Contracts: the points are public (every function is variable time: branches on infinity), p and q hold n
 * entries each (n = 0 gives 1); pairing_final_exp allows r == a. */
#ifndef CUZK_EC_PAIRING_H
#define CUZK_EC_PAIRING_H

#include <stddef.h>

#include "cuzk/status.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp12.h"

/* r = prod_i MillerLoop(p[i], q[i]) with one shared accumulator. */
void pairing_miller_loop(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n);
/* r = a^(3(p^12 - 1)/r): the cube of the textbook value, as zcash/blst/@noble/curves compute it
 * (the Hayashida-Hayasaka-Teruya hard part); still a non-degenerate bilinear pairing since 3 does not divide r. */
void pairing_final_exp(fp12_t *r, const fp12_t *a);
/* r = e(p, q). */
void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q);
/* r = prod_i e(p[i], q[i]) with one final exponentiation. */
void pairing_multi(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n);
/* 1 if prod_i e(p[i], q[i]) == 1, else 0 (the verifier's check). */
int pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n);

/* A G2 point with its Miller-loop line coefficients precomputed (for verifying keys,
 * whose G2 points are fixed). Allocated by g2_prepare, released by g2_prepared_free. */
typedef struct g2_prepared g2_prepared_t;
/* CUZK_ERR_NOT_ON_CURVE for q off the twist (q must also be in the subgroup: not checked), CUZK_ERR_NOMEM,
 * CUZK_ERR_INVALID_ARG for NULL; *out is NULL on failure. g2_prepared_free(NULL) is allowed. */
cuzk_status g2_prepare(g2_prepared_t **out, const g2_affine_t *q, cuzk_error *err);
void g2_prepared_free(g2_prepared_t *q);
/* Like pairing_miller_loop, with prepared G2 points (q: n of them). */
void pairing_miller_loop_prepared(fp12_t *r, const g1_affine_t *p, g2_prepared_t *const *q, size_t n);

#endif
