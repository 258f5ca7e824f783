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

/* In place, length d->m. Forward: coefficients -> values at omega^i. */
void ntt_forward(pool_t *pool, const domain_t *d, fr_t *a);
/* Values at omega^i -> coefficients (includes the 1/m factor). */
void ntt_inverse(pool_t *pool, const domain_t *d, fr_t *a);
/* Coefficients -> values at shift * omega^i (multiplies a_i by shift^i, then forward). */
void ntt_coset_forward(pool_t *pool, const domain_t *d, const fr_t *shift, fr_t *a);
/* Values at shift * omega^i -> coefficients. */
void ntt_coset_inverse(pool_t *pool, const domain_t *d, const fr_t *shift, fr_t *a);

/* The two forms of H that provers consume. */
typedef enum h_form {
    H_FORM_BELLPERSON, /* coefficients of (a*b - c)/Z, first m-1 of them (bellperson .params) */
    H_FORM_SNARKJS     /* evaluations of a*b - c on the shifted coset that snarkjs' zkey H bases expect, m of them */
} h_form;

/* a, b, c: per-constraint evaluations, length n <= d->m, each a buffer of d->m
 * elements (the tail beyond n is overwritten). On return, a holds the H scalars
 * of the requested form (m-1 or m of them); b and c are scratch. */
cuzk_status poly_compute_h(pool_t *pool, const domain_t *d, h_form form, fr_t *a, fr_t *b, fr_t *c, size_t n,
                           cuzk_error *err);

#endif
