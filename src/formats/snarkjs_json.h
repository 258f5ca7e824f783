/* snarkjs' JSON files for Groth16 on BLS12-381 (curve name "bls12381"), and the snarkjs verifier equation.
 *
 * Shapes (snarkjs 0.7.6 groth16_prove.js, zkey_export_verificationkey.js, ffjavascript G.toObject):
 *   proof.json   {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], "pi_c": [x, y, "1"],
 *                 "protocol": "groth16", "curve": "bls12381"}
 *   public.json  [v1, ..., vn]: public outputs then public inputs (witness indices 1..nPublic)
 *   verification_key.json  {"protocol": "groth16", "curve": "bls12381", "nPublic": n, "vk_alpha_1": G1,
 *                 "vk_beta_2": G2, "vk_gamma_2": G2, "vk_delta_2": G2, "vk_alphabeta_12": (not read), "IC": [G1 x n+1]}
 * Every number is a decimal string of the canonical integer (not Montgomery). Points carry a third, projective
 * (Jacobian: x/z^2, y/z^3) coordinate; z = 0 is the point at infinity, written ["0", "1", "0"] (and for G2
 * [["0","0"], ["1","0"], ["0","0"]]). The readers accept 2 or 3 coordinates, as ffjavascript's fromObject does,
 * and check every point for the curve and the subgroup. */
#ifndef CUZK_FORMATS_SNARKJS_JSON_H
#define CUZK_FORMATS_SNARKJS_JSON_H

#include <stddef.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "groth16/groth16.h"

/* Errors: CUZK_ERR_FORMAT naming the member (e.g. "pi_b[1][0]") for malformed JSON, a missing member, a number
 * not below its modulus or a point off the curve / outside the subgroup; CUZK_ERR_UNSUPPORTED for a protocol other
 * than "groth16" or a curve other than "bls12381"; CUZK_ERR_IO for a file that cannot be read or written. */
cuzk_status snarkjs_proof_parse(groth16_proof *out, const char *text, size_t len, cuzk_error *err);
cuzk_status snarkjs_proof_read(groth16_proof *out, const char *path, cuzk_error *err);
cuzk_status snarkjs_proof_write(const char *path, const groth16_proof *proof, cuzk_error *err);

/* *values is allocated (free()); n may be 0. */
cuzk_status snarkjs_public_parse(fr_t **values, size_t *n, const char *text, size_t len, cuzk_error *err);
cuzk_status snarkjs_public_read(fr_t **values, size_t *n, const char *path, cuzk_error *err);
cuzk_status snarkjs_public_write(const char *path, const fr_t *values, size_t n, cuzk_error *err);

/* Fills alpha_g1, beta_g2, gamma_g2, delta_g2 and ic (ic_len = nPublic + 1, checked against "nPublic");
 * beta_g1 and delta_g1 are not in the file and are set to infinity. Free with groth16_vk_free. */
cuzk_status snarkjs_vk_parse(groth16_vk *out, const char *text, size_t len, cuzk_error *err);
cuzk_status snarkjs_vk_read(groth16_vk *out, const char *path, cuzk_error *err);

/* snarkjs' groth16_verify: e(-pi_a, pi_b) e(IC_0 + sum pub_i IC_i, gamma2) e(pi_c, delta2) e(alpha1, beta2) == 1,
 * with pairing_check. CUZK_OK if the proof is valid, CUZK_ERR_INVALID_PROOF if not, CUZK_ERR_INVALID_ARG when
 * n_pub != ic_len - 1. The points are assumed checked (the readers above do). */
cuzk_status snarkjs_verify(const groth16_vk *vk, const groth16_proof *proof, const fr_t *pub, size_t n_pub,
                           cuzk_error *err);

/* Writes the decimal digits of the canonical integer given as n little-endian limbs (at most 8) into out,
 * which must hold 20 * n + 1 bytes. For the writers above and their tests. */
void snarkjs_limbs_to_decimal(char *out, const uint64_t *limbs, size_t n);

#endif
