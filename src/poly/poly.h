/* Evaluation domains, NTT over Fr, and the Groth16 quotient H.
 *
 * A domain of size m = 2^log_m (log_m <= 28) has generator omega (fr_root_of_unity).
 * Vectors are in natural order on input and output of every public function. */
#ifndef CUZK_POLY_POLY_H
#define CUZK_POLY_POLY_H

#include <stddef.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "util/pool.h"

#define POLY_MAX_LOG 28

typedef struct domain {
    unsigned log_m;
    size_t m;
    fr_t omega, omega_inv; /* primitive m-th root of unity and its inverse */
    fr_t m_inv;            /* 1/m */
    fr_t g, g_inv;         /* coset generator FR_GENERATOR (7) and its inverse */
} domain_t;

/* Smallest power-of-two domain with at least n points. Fails if n > 2^POLY_MAX_LOG. */
cuzk_status domain_for_size(domain_t *d, size_t n, cuzk_error *err);

/* In place, length d->m, with the roots of fr_root_of_unity(d->log_m) (d->omega as domain_for_size sets it).
 * Forward: coefficients -> values at omega^i. */
void ntt_forward(pool_t *pool, const domain_t *d, fr_t *a);
/* Values at omega^i -> coefficients (includes the 1/m factor). */
void ntt_inverse(pool_t *pool, const domain_t *d, fr_t *a);
/* Coefficients -> values at shift * omega^i (multiplies a_i by shift^i, then forward). */
void ntt_coset_forward(pool_t *pool, const domain_t *d, const fr_t *shift, fr_t *a);
/* Values at shift * omega^i -> coefficients. */
void ntt_coset_inverse(pool_t *pool, const domain_t *d, const fr_t *shift, fr_t *a);

/* ---- Building blocks (poly_compute_h is made of them; other backends may test against them) ---- */

/* The chain of roots of unity a transform uses: cuzk's and bellperson's
 * (fr_root_of_unity, from 7), or snarkjs' (from 5, the smallest non-residue,
 * as ffjavascript and wasmcurves pick it). The two give different m-th roots. */
typedef enum poly_roots { POLY_ROOTS_CUZK = 0, POLY_ROOTS_SNARKJS = 1 } poly_roots;

/* r = snarkjs' primitive 2^log_n-th root of unity: 5^((r-1)/2^32) squared 32-log_n times (ffjavascript Fr.w[log_n]). */
void poly_snarkjs_root_of_unity(fr_t *r, unsigned log_n);

/* In place, length 2^log_m, with psi the chain's 2^log_m-th root (its inverse when inverse != 0).
 * ntt_ct: natural order in, bit-reversed out: a[p] <- A(psi^rev(p)), A(x) = sum a_i x^i.
 * ntt_gs: bit-reversed in, natural out: a[i] <- sum_k a[rev(k)] psi^(i k). No 1/m factor in either. */
void ntt_ct(pool_t *pool, unsigned log_m, poly_roots roots, int inverse, fr_t *a);
void ntt_gs(pool_t *pool, unsigned log_m, poly_roots roots, int inverse, fr_t *a);

/* a[i] <-> a[rev(i)], then every element times *scale when scale is not NULL. */
void ntt_bitrev(pool_t *pool, unsigned log_m, fr_t *a, const fr_t *scale);

/* a[i] *= c * s^e(i) for i < 2^log_m, where e(i) = i, or rev(i) when bitrev != 0. */
void poly_scale_powers(pool_t *pool, unsigned log_m, fr_t *a, const fr_t *c, const fr_t *s, int bitrev);

/* The coset steps of poly_compute_h, each one transform with the scaling fused into its cache blocks.
 * ntt_to_coset: values at psi^i -> values at shift * psi^i (natural order in and out).
 * ntt_from_coset: values at shift * psi^i -> c times the coefficients (natural order in and out).
 * Both use about 200 KiB of the caller's stack for twiddle and scaling tables. */
void ntt_to_coset(pool_t *pool, unsigned log_m, poly_roots roots, const fr_t *shift, fr_t *v);
void ntt_from_coset(pool_t *pool, unsigned log_m, poly_roots roots, const fr_t *shift, const fr_t *c, fr_t *v);

/* The two forms of H that provers consume. */
typedef enum h_form {
    H_FORM_BELLPERSON, /* coefficients of (a*b - c)/Z, first m-1 of them (bellperson .params) */
    H_FORM_SNARKJS     /* evaluations of a*b - c on the shifted coset that snarkjs' zkey H bases expect, m of them */
} h_form;

/* a, b, c: per-constraint evaluations, length n <= d->m, each a buffer of d->m
 * elements (the tail beyond n is overwritten). On return, a holds the H scalars
 * of the requested form (m-1 or m of them); b and c are scratch.
 * H_FORM_SNARKJS does exactly what snarkjs' groth16 prover does (details in h.c):
 * it ignores c's input and uses c_i = a_i * b_i, and it works with snarkjs'
 * roots of unity (POLY_ROOTS_SNARKJS), so only d->log_m matters; the values are
 * at inc * w^i, i = 0 .. m-1, with w = snarkjs' m-th root and inc its 2m-th root. */
cuzk_status poly_compute_h(pool_t *pool, const domain_t *d, h_form form, fr_t *a, fr_t *b, fr_t *c, size_t n,
                           cuzk_error *err);

#endif
