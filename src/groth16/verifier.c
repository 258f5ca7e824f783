/* Verification: e(A, B) = e(alpha, beta) · e(acc, gamma) · e(C, delta), acc = ic[0] + sum x_i ic[i+1]. */
#include <stdlib.h>
#include <string.h>

#include "groth16/internal.h"
#include "msm/msm.h"

void groth16_pvk_free(groth16_pvk *pvk)
{
    if (!pvk) return;
    g2_prepared_free(pvk->neg_gamma);
    g2_prepared_free(pvk->neg_delta);
    g2_prepared_free(pvk->beta);
    free(pvk->ic);
    memset(pvk, 0, sizeof(*pvk));
}

cuzk_status groth16_pvk_prepare(groth16_pvk *out, const groth16_vk *vk, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!vk || vk->ic_len == 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "vk: no ic points");
    out->ic = malloc(vk->ic_len * sizeof(g1_affine_t));
    if (!out->ic) return cuzk_error_set(err, CUZK_ERR_NOMEM, "vk: cannot copy %zu ic points", vk->ic_len);
    memcpy(out->ic, vk->ic, vk->ic_len * sizeof(g1_affine_t));
    out->ic_len = vk->ic_len;
    out->alpha_g1 = vk->alpha_g1;
    pairing(&out->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    g2_affine_t neg;
    cuzk_status st;
    g2_affine_neg(&neg, &vk->gamma_g2);
    if ((st = g2_prepare(&out->neg_gamma, &neg, err)) != CUZK_OK) goto fail;
    g2_affine_neg(&neg, &vk->delta_g2);
    if ((st = g2_prepare(&out->neg_delta, &neg, err)) != CUZK_OK) goto fail;
    if ((st = g2_prepare(&out->beta, &vk->beta_g2, err)) != CUZK_OK) goto fail;
    return CUZK_OK;
fail:
    groth16_pvk_free(out);
    return st;
}

static int proof_points_valid(const groth16_proof *p)
{
    return g1_affine_is_on_curve(&p->a) && g1_affine_in_subgroup(&p->a) && g2_affine_is_on_curve(&p->b) &&
           g2_affine_in_subgroup(&p->b) && g1_affine_is_on_curve(&p->c) && g1_affine_in_subgroup(&p->c);
}

cuzk_status groth16_verify(pool_t *pool, const groth16_pvk *pvk, const groth16_proof *proof, const fr_t *inputs,
                           size_t num_inputs, cuzk_error *err)
{
    if (!pvk || !proof || (num_inputs && !inputs))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "verify: NULL argument");
    if (num_inputs + 1 != pvk->ic_len)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "verify: %zu public inputs given, the vk expects %zu",
                              num_inputs, pvk->ic_len - 1);
    if (!proof_points_valid(proof))
        return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "verify: a proof point is not in its subgroup");

    g1_jac_t acc;
    msm_g1(pool, &acc, pvk->ic + 1, inputs, NULL, num_inputs);
    g1_jac_add_affine(&acc, &acc, &pvk->ic[0]);
    g1_affine_t g1s[2];
    g1_jac_to_affine(&g1s[0], &acc);
    g1s[1] = proof->c;
    g2_prepared_t *g2s[2] = {pvk->neg_gamma, pvk->neg_delta};

    fp12_t ml_ab, ml_rest, f;
    pairing_miller_loop(&ml_ab, &proof->a, &proof->b, 1);
    pairing_miller_loop_prepared(&ml_rest, g1s, g2s, 2);
    fp12_mul(&ml_ab, &ml_ab, &ml_rest);
    pairing_final_exp(&f, &ml_ab);
    if (!fp12_eq(&f, &pvk->alpha_beta))
        return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "verify: the pairing equation does not hold");
    return CUZK_OK;
}

/* Miller loops of (z_i·A_i, B_i) in parallel chunks; each chunk's product lands in ml[chunk]. */
typedef struct batch_ctx {
    const groth16_proof *proofs;
    const uint64_t *z; /* two limbs per proof */
    size_t n, nchunks;
    fp12_t *ml;
    int *bad; /* per chunk: a point outside its subgroup */
} batch_ctx;

#define BATCH_SUB 32

static void batch_chunk(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    batch_ctx *c = ctx;
    for (size_t k = begin; k < end; k++) {
        size_t lo = c->n * k / c->nchunks, hi = c->n * (k + 1) / c->nchunks;
        fp12_set_one(&c->ml[k]);
        c->bad[k] = 0;
        for (size_t i = lo; i < hi; i += BATCH_SUB) {
            size_t cnt = hi - i < BATCH_SUB ? hi - i : BATCH_SUB;
            g1_jac_t za[BATCH_SUB];
            g1_affine_t pa[BATCH_SUB];
            g2_affine_t qb[BATCH_SUB];
            for (size_t t = 0; t < cnt; t++) {
                const groth16_proof *p = &c->proofs[i + t];
                if (!proof_points_valid(p)) c->bad[k] = 1;
                g1_jac_t a;
                g1_jac_from_affine(&a, &p->a);
                g1_jac_mul(&za[t], &a, c->z + 2 * (i + t), 2);
                qb[t] = p->b;
            }
            if (c->bad[k]) return;
            g1_batch_to_affine(pa, za, cnt);
            fp12_t f;
            pairing_miller_loop(&f, pa, qb, cnt);
            fp12_mul(&c->ml[k], &c->ml[k], &f);
        }
    }
}

cuzk_status groth16_verify_batch(pool_t *pool, const groth16_pvk *pvk, const groth16_proof *proofs, size_t n_proofs,
                                 const fr_t *inputs, size_t num_inputs, cuzk_error *err)
{
    if (!pvk || !proofs || (num_inputs && !inputs))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "verify: NULL argument");
    if (n_proofs == 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "verify: empty batch");
    if (num_inputs + 1 != pvk->ic_len)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "verify: %zu public inputs given, the vk expects %zu",
                              num_inputs, pvk->ic_len - 1);
    if (n_proofs == 1) return groth16_verify(pool, pvk, proofs, inputs, num_inputs, err);

    size_t nchunks = pool ? pool_size(pool) : 1;
    if (nchunks > n_proofs) nchunks = n_proofs;
    uint64_t *z = malloc(n_proofs * 2 * sizeof(uint64_t));
    fr_t *zf = malloc(n_proofs * sizeof(fr_t));
    fr_t *y = malloc(pvk->ic_len * sizeof(fr_t));
    g1_affine_t *cs = malloc(n_proofs * sizeof(g1_affine_t));
    fp12_t *ml = malloc(nchunks * sizeof(fp12_t));
    int *bad = malloc(nchunks * sizeof(int));
    cuzk_status st = CUZK_OK;
    if (!z || !zf || !y || !cs || !ml || !bad) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "verify: cannot allocate for a batch of %zu", n_proofs);
        goto done;
    }
    /* 128-bit random coefficients: a bad proof survives with probability 2^-128. */
    if ((st = os_random(z, n_proofs * 2 * sizeof(uint64_t), err)) != CUZK_OK) goto done;
    for (size_t i = 0; i < n_proofs; i++) {
        if (z[2 * i] == 0 && z[2 * i + 1] == 0) z[2 * i] = 1;
        uint64_t limbs[FR_LIMBS] = {z[2 * i], z[2 * i + 1], 0, 0};
        fr_to_mont(&zf[i], limbs);
        cs[i] = proofs[i].c;
    }

    batch_ctx bc = {proofs, z, n_proofs, nchunks, ml, bad};
    pool_parallel_for(pool, nchunks, 1, batch_chunk, &bc);
    for (size_t k = 0; k < nchunks; k++) {
        if (bad[k]) {
            st = cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "verify: a proof point is not in its subgroup");
            goto done;
        }
    }

    /* sum_i z_i·acc_i = (sum z_i)·ic[0] + sum_k (sum_i z_i x_ik)·ic[k+1]: one MSM over ic. */
    fr_t zsum, t;
    fr_set_zero(&zsum);
    for (size_t k = 0; k < pvk->ic_len; k++) fr_set_zero(&y[k]);
    for (size_t i = 0; i < n_proofs; i++) {
        fr_add(&zsum, &zsum, &zf[i]);
        for (size_t k = 0; k < num_inputs; k++) {
            fr_mul(&t, &zf[i], &inputs[i * num_inputs + k]);
            fr_add(&y[k + 1], &y[k + 1], &t);
        }
    }
    y[0] = zsum;
    g1_jac_t acc, csum, alpha;
    msm_g1(pool, &acc, pvk->ic, y, NULL, pvk->ic_len);
    msm_g1(pool, &csum, cs, zf, NULL, n_proofs);
    /* e(alpha, beta)^(sum z) moves to the left as e(-(sum z)·alpha, beta), so the product must be 1. */
    fr_neg(&t, &zsum);
    g1_jac_from_affine(&alpha, &pvk->alpha_g1);
    g1_jac_mul_fr(&alpha, &alpha, &t);
    g1_jac_t jl[3] = {acc, csum, alpha};
    g1_affine_t g1s[3];
    g1_batch_to_affine(g1s, jl, 3);
    g2_prepared_t *g2s[3] = {pvk->neg_gamma, pvk->neg_delta, pvk->beta};

    fp12_t f, res;
    pairing_miller_loop_prepared(&f, g1s, g2s, 3);
    for (size_t k = 0; k < nchunks; k++) fp12_mul(&f, &f, &ml[k]);
    pairing_final_exp(&res, &f);
    if (!fp12_is_one(&res))
        st = cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "verify: the batch of %zu proofs does not verify", n_proofs);
done:
    free(z);
    free(zf);
    free(y);
    free(cs);
    free(ml);
    free(bad);
    return st;
}
