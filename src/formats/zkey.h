/* snarkjs Groth16 proving keys (.zkey) for BLS12-381, and a prover for a .zkey with a .wtns.
 *
 * Layout (iden3 binfile container, magic "zkey", version 1; snarkjs src/zkey_utils.js, zkey_new.js, 0.7.6):
 *   1  header:   u32 protocol (1 = Groth16; 2 PLONK and 10 FFLONK are not supported here)
 *   2  groth16:  u32 n8q (48), q (48 bytes LE), u32 n8r (32), r (32 bytes LE), u32 nVars, u32 nPublic
 *                (public outputs + public inputs, without ONE), u32 domainSize (a power of two),
 *                alpha1, beta1 (G1), beta2, gamma2 (G2), delta1 (G1), delta2 (G2): exactly 964 bytes
 *   3  IC:       nPublic + 1 G1 points
 *   4  coefs:    u32 count, then count records of u32 matrix (0 = A, 1 = B), u32 constraint, u32 signal,
 *                32-byte value. No C matrix: the prover takes c = a * b per constraint. The last
 *                nPublic + 1 records are snarkjs' input constraints: A[nConstraints + i] = 1 * signal i.
 *   5  A:        nVars G1 points       6  B1: nVars G1 points       7  B2: nVars G2 points
 *   8  C:        nVars - nPublic - 1 G1 points (private signals only)
 *   9  H:        domainSize G1 points (the odd powers of the 2*domainSize Lagrange basis: they expect the
 *                evaluations of a*b - c on the coset that poly_compute_h's H_FORM_SNARKJS produces)
 *   10 contributions (phase-2 transcript; not read)
 *
 * Representation, as ffjavascript/wasmcurves hold values in memory (zkey_utils writeG1 = toRprLEM):
 *   - Fq elements: 48 bytes, little-endian, in Montgomery form with R = 2^384 (wasmcurves build_f1m:
 *     R = 2^(64 * n64)). That is exactly cuzk's fp_t limbs on a little-endian reading, so a coordinate is
 *     taken as is after a check that the integer is below p.
 *   - G1 points: x then y (affine). G2 points: x.c0, x.c1, y.c0, y.c1 (c0 first, unlike the zcash encoding).
 *   - The point at infinity: all bytes zero (wasmcurves isZeroAffine: x == 0 and y == 0), as cuzk's affine.
 *   - Coefficient values: the canonical little-endian integer of c * R^2 mod r with R = 2^256 (zkey_new.js
 *     writeCoef multiplies by R2r, then toRprLE leaves Montgomery form). snarkjs' prover multiplies that,
 *     as a Montgomery element, by the canonical witness value and so gets c * w in Montgomery form.
 *     Here: the value read as cuzk Montgomery limbs is c * R; converting it from Montgomery gives c * R,
 *     whose limbs are the Montgomery form of c.
 *   - q and r in the header: canonical little-endian. */
#ifndef CUZK_FORMATS_ZKEY_H
#define CUZK_FORMATS_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

/* One coefficient of the A or B matrix. */
typedef struct zkey_coef {
    uint32_t matrix; /* 0 = A, 1 = B */
    uint32_t constraint;
    uint32_t signal;
    fr_t value; /* Montgomery form */
} zkey_coef;

typedef struct zkey {
    uint32_t n_vars, n_public, domain_size;
    unsigned log_domain;
    g1_affine_t alpha_g1, beta_g1, delta_g1;
    g2_affine_t beta_g2, gamma_g2, delta_g2;
    g1_affine_t *ic; /* n_public + 1 */
    size_t n_coefs;
    zkey_coef *coefs;
    g1_affine_t *a, *b_g1; /* n_vars */
    g2_affine_t *b_g2;     /* n_vars */
    g1_affine_t *c;        /* n_vars - n_public - 1 */
    g1_affine_t *h;        /* domain_size */
} zkey;

/* Skip the subgroup check of the IC, A, B1, B2, C and H points (on-curve is still checked), for trusted files.
 * The six header points are always fully checked. */
#define ZKEY_SKIP_SUBGROUP_CHECK 1u

/* Parses a .zkey image. Every section size is checked against the header's counts and the file length.
 * Errors name the section and byte offset (and the point or record index): CUZK_ERR_TRUNCATED when the file
 * ends inside the section table, CUZK_ERR_FORMAT for a wrong magic/version/section size, a curve other than
 * BLS12-381, a domain that is not a power of two, a coefficient out of range, or an invalid point (not below p,
 * off the curve, outside the subgroup), CUZK_ERR_UNSUPPORTED for a PLONK/FFLONK key, CUZK_ERR_NOMEM. Points
 * are decoded in parallel over pool (may be NULL). On failure *out is left empty (nothing to free). */
cuzk_status zkey_parse(pool_t *pool, zkey *out, const uint8_t *buf, size_t len, unsigned flags, cuzk_error *err);
cuzk_status zkey_read(pool_t *pool, zkey *out, const char *path, unsigned flags, cuzk_error *err);
void zkey_free(zkey *z);

/* The verifying key inside the zkey (ic copied; free with groth16_vk_free). */
cuzk_status zkey_vk(const zkey *z, groth16_vk *vk, cuzk_error *err);

/* Proves as snarkjs' groth16_prove.js does, for the full witness w (n_vars values, w[0] = 1):
 *   a, b = A·w, B·w per constraint from the coefficient section; c = a * b; H = poly_compute_h(H_FORM_SNARKJS);
 *   pi_a = alpha1 + sum w_i A_i + r delta1,  pi_b = beta2 + sum w_i B2_i + s delta2,
 *   pi_c = sum_{private} w_i C_i + sum h_j H_j + s pi_a + r (beta1 + sum w_i B1_i + s delta1) - r s delta1,
 * which is bellperson's assembly: the zkey is handed, as borrowed groth16_params with full density and
 * h_form = H_FORM_SNARKJS, to groth16_prove_start_abc (H and the G1 MSMs) and groth16_prove_finish (B2 MSM,
 * blinding). r and s: both given, or both NULL to draw them from the operating system. CUZK_ERR_INVALID_ARG if n_witness != n_vars or w[0] != 1. */
cuzk_status zkey_prove(pool_t *pool, const zkey *z, const fr_t *w, size_t n_witness, const fr_t *r, const fr_t *s,
                       groth16_proof *proof, cuzk_error *err);

/* Where zkey_prove_with runs prove_start: groth16_prove_start_abc's arguments without the timings (e.g. the GPU's
 * gpu_prove_start_once). */
typedef cuzk_status (*zkey_start_fn)(void *ctx, pool_t *pool, const groth16_params *params, size_t m, const fr_t *a,
                                     const fr_t *b, const fr_t *c, const fr_t *inputs, size_t n_in, const fr_t *aux,
                                     size_t n_aux, const r1cs_density *density, groth16_pending *pending,
                                     cuzk_error *err);
/* zkey_prove with prove_start done by start (NULL: groth16_prove_start_abc on pool); the same r, s give the same
 * proof bytes on every backend. */
cuzk_status zkey_prove_with(pool_t *pool, const zkey *z, const fr_t *w, size_t n_witness, const fr_t *r, const fr_t *s,
                            zkey_start_fn start, void *start_ctx, groth16_proof *proof, cuzk_error *err);

/* The zkey for the engine, whose a, b, c come from a constraint system and whose parameters have bellperson's
 * layout:
 * zkey_shape: a shape-only system with the zkey's A and B over the circuit's own constraints, C empty (H in
 *   snarkjs' form takes c = a * b and never reads c, as snarkjs' prover does); r1cs_finalize appends the input rows,
 *   which are snarkjs' (A[nc + i] = 1 * signal i; CUZK_ERR_FORMAT when the records say otherwise).
 * zkey_witness: a witness-only system of w (n_witness = nVars values, w[0] = 1) for that shape.
 * zkey_params: parameters (owned; free with groth16_params_free) for dn, the densities of zkey_shape's system:
 *   H in snarkjs' form, L = the zkey's C, and A, B1, B2 without the bases of variables outside their density
 *   (snarkjs keeps one, at infinity, for every variable). */
cuzk_status zkey_shape(const zkey *z, r1cs *out, cuzk_error *err);
cuzk_status zkey_witness(const zkey *z, const fr_t *w, size_t n_witness, r1cs *out, cuzk_error *err);
cuzk_status zkey_params(const zkey *z, const r1cs_density *dn, groth16_params *out, cuzk_error *err);

#endif
