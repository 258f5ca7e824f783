/* The Groth16 quotient H, in the two forms provers consume.
 *
 * bellperson (src/groth16/prover/native.rs execute_fft, src/domain.rs): with
 * omega = fr_root_of_unity(log m) and g = 7: iNTT of a, b, c; multiply
 * coefficient i by g^i; NTT (values on the coset g<omega>); a*b - c; times
 * 1/(g^m - 1) (Z on that coset); iNTT; multiply coefficient i by g^-i; keep
 * the first m-1 coefficients (the .params file has m-1 h points).
 * Seven transforms; we get the same vector with six. Values on the coset
 * determine a polynomial modulo x^m - g^m, so bellperson's result is
 * ((A B - C) mod (x^m - g^m)) / z with z = g^m - 1, for any a, b, c. C has
 * degree < m and is its own remainder, so that is (R - C) / z where R, the
 * remainder of A B, is the coset transform back of A's and B's coset values
 * multiplied, and C is c's coefficients: c needs only its iNTT.
 *
 * snarkjs (src/groth16_prove.js, iden3/snarkjs 9a8f1c0, unchanged in substance since 2021):
 *  - buildABC1 evaluates only the A and B matrices (the zkey stores no C
 *    coefficients) and sets c_i = a_i * b_i for every i < m (zero past the
 *    constraints). So snarkjs never reads C; we do the same and ignore c's input.
 *  - Its roots come from ffjavascript/wasmcurves: w[32] = 5^((r-1)/2^32) with
 *    5 the smallest quadratic non-residue, w[k] = w[k+1]^2. These differ from
 *    bellperson's (from 7), so the m-th root is w[log m], not omega.
 *  - inc = w[log m + 1], a primitive 2m-th root (Fr.shift = 25 only when
 *    log m = 32, beyond our domains).
 *  - For each of a, b, c: Fr.ifft (natural order, includes 1/m); batchApplyKey
 *    with first = 1, inc (coefficient i times inc^i); Fr.fft (natural order).
 *    That is the evaluation at inc * w^i, the odd powers of the 2m-th root.
 *  - joinABC: a*b - c elementwise (then from Montgomery form for the MSM),
 *    no division: Z(x) = x^m - 1 is the constant -2 on that coset and the
 *    zkey's H points (odd-index Lagrange points of the 2m domain from the
 *    ptau) absorb it. The MSM uses all m values, in index order i = 0 .. m-1. */
#include <string.h>

#include "poly/poly.h"

typedef struct pointwise_job {
    fr_t *out;
    const fr_t *a, *b, *c; /* c NULL: out = a*b */
} pointwise_job;

static void pointwise_range(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const pointwise_job *job = ctxp;
    for (size_t i = begin; i < end; i++) {
        fr_mul(&job->out[i], &job->a[i], &job->b[i]);
        if (job->c) fr_sub(&job->out[i], &job->out[i], &job->c[i]);
    }
}

/* out = a*b - c, or a*b when c is NULL; out may alias a. */
static void pointwise(pool_t *pool, size_t m, fr_t *out, const fr_t *a, const fr_t *b, const fr_t *c)
{
    pointwise_job job = {.out = out, .a = a, .b = b, .c = c};
    pool_parallel_for(pool, m, 4096, pointwise_range, &job);
}

typedef struct difference_job {
    fr_t *a;
    const fr_t *c;
} difference_job;

static void difference_range(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const difference_job *job = ctxp;
    for (size_t i = begin; i < end; i++) fr_sub(&job->a[i], &job->a[i], &job->c[i]);
}

/* a -= c */
static void difference(pool_t *pool, size_t m, fr_t *a, const fr_t *c)
{
    difference_job job = {.a = a, .c = c};
    pool_parallel_for(pool, m, 4096, difference_range, &job);
}

cuzk_status poly_compute_h(pool_t *pool, const domain_t *d, h_form form, fr_t *a, fr_t *b, fr_t *c, size_t n,
                           cuzk_error *err)
{
    if (!d || !a || !b || !c) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "poly_compute_h: NULL argument");
    if (n > d->m)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "poly_compute_h: %zu constraints exceed the domain of %zu", n,
                              d->m);
    if (form != H_FORM_BELLPERSON && form != H_FORM_SNARKJS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "poly_compute_h: unknown form %d", (int)form);
    size_t m = d->m;
    /* Zero is all-zero limbs in Montgomery form too. */
    memset(a + n, 0, (m - n) * sizeof(fr_t));
    memset(b + n, 0, (m - n) * sizeof(fr_t));
    memset(c + n, 0, (m - n) * sizeof(fr_t));

    if (form == H_FORM_SNARKJS) {
        fr_t inc;
        poly_snarkjs_root_of_unity(&inc, d->log_m + 1);
        pointwise(pool, m, c, a, b, NULL); /* buildABC1: c = a*b */
        ntt_to_coset(pool, d->log_m, POLY_ROOTS_SNARKJS, &inc, a);
        ntt_to_coset(pool, d->log_m, POLY_ROOTS_SNARKJS, &inc, b);
        ntt_to_coset(pool, d->log_m, POLY_ROOTS_SNARKJS, &inc, c);
        pointwise(pool, m, a, a, b, c);
        return CUZK_OK;
    }

    fr_t z, one, cz;
    uint64_t e = m;
    fr_pow(&z, &d->g, &e, 1);
    fr_set_one(&one);
    fr_sub(&z, &z, &one);
    fr_inv(&z, &z); /* 1/z */
    ntt_to_coset(pool, d->log_m, POLY_ROOTS_CUZK, &d->g, a);
    ntt_to_coset(pool, d->log_m, POLY_ROOTS_CUZK, &d->g, b);
    pointwise(pool, m, a, a, b, NULL);
    ntt_from_coset(pool, d->log_m, POLY_ROOTS_CUZK, &d->g, &z, a); /* R / z */
    ntt_ct(pool, d->log_m, POLY_ROOTS_CUZK, 1, c);
    fr_mul(&cz, &d->m_inv, &z);
    ntt_bitrev(pool, d->log_m, c, &cz); /* C / z */
    difference(pool, m, a, c);
    return CUZK_OK;
}
