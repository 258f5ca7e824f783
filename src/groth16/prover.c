/* The CPU prover: bellperson's math, split at the backend seam (prove_start / prove_finish). */
#include <stdlib.h>
#include <string.h>

#include "groth16/internal.h"
#include "msm/msm.h"

cuzk_status groth16_check_shapes(const groth16_params *p, size_t n_in, size_t n_aux, size_t n, const r1cs_density *dn,
                                 const domain_t *d, cuzk_error *err)
{
    if (p->vk.ic_len != n_in)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: vk has %zu ic points, circuit has %zu inputs",
                              p->vk.ic_len, n_in);
    if (p->l_len != n_aux)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: params have %zu l points, circuit has %zu aux",
                              p->l_len, n_aux);
    if (p->a_len != n_in + dn->a_aux_count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "prove: params have %zu a points, circuit needs %zu inputs + %zu aux (A density)",
                              p->a_len, n_in, dn->a_aux_count);
    size_t nb = dn->b_input_count + dn->b_aux_count;
    if (p->b_g1_len != nb || p->b_g2_len != nb)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "prove: params have %zu b_g1 / %zu b_g2 points, circuit needs %zu inputs + %zu aux "
                              "(B density)",
                              p->b_g1_len, p->b_g2_len, dn->b_input_count, dn->b_aux_count);
    size_t want_h = p->h_form == H_FORM_BELLPERSON ? d->m - 1 : d->m;
    if (p->h_len != want_h)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "prove: params have %zu h points, domain of %zu constraints needs %zu", p->h_len, n,
                              want_h);
    return CUZK_OK;
}

static cuzk_status check_start_args(const groth16_params *params, size_t n, const fr_t *inputs, size_t n_in,
                                    const fr_t *aux, size_t n_aux, const r1cs_density *density,
                                    const groth16_pending *pending, domain_t *d, cuzk_error *err)
{
    if (!params || !inputs || (!aux && n_aux) || !density || !pending)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: NULL argument");
    if (n_in == 0 || !fr_is_one(&inputs[0]))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: input 0 must be the constant one");
    cuzk_status st = domain_for_size(d, n, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "prove: ");
    return groth16_check_shapes(params, n_in, n_aux, n, density, d, err);
}

cuzk_status groth16_prove_start_abc(pool_t *pool, const groth16_params *params, size_t num_constraints, fr_t *a,
                                    fr_t *b, fr_t *c, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                                    size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                    groth16_timings *timings, cuzk_error *err)
{
    domain_t d;
    if (!a || !b || !c) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: NULL a, b or c");
    cuzk_status st =
        check_start_args(params, num_constraints, inputs, num_inputs, aux, num_aux, density, pending, &d, err);
    if (st != CUZK_OK) return st;

    double t0 = groth16_now_ms();
    st = poly_compute_h(pool, &d, params->h_form, a, b, c, num_constraints, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "prove: ");
    double t1 = groth16_now_ms();

    memset(pending, 0, sizeof(*pending));
    pending->params = params;
    pending->inputs = inputs;
    pending->aux = aux;
    pending->num_inputs = num_inputs;
    pending->num_aux = num_aux;
    pending->density = density;

    msm_g1(pool, &pending->h, params->h, a, NULL, params->h_len);
    double t2 = groth16_now_ms();
    msm_g1(pool, &pending->l, params->l, aux, NULL, num_aux);
    double t3 = groth16_now_ms();
    /* A: inputs are fully dense (the input constraints guarantee it); aux follow the A density. */
    g1_jac_t part;
    msm_g1(pool, &pending->a, params->a, inputs, NULL, num_inputs);
    msm_g1(pool, &part, params->a + num_inputs, aux, density->a_aux, num_aux);
    g1_jac_add(&pending->a, &pending->a, &part);
    double t4 = groth16_now_ms();
    msm_g1(pool, &pending->b_g1, params->b_g1, inputs, density->b_input, num_inputs);
    msm_g1(pool, &part, params->b_g1 + density->b_input_count, aux, density->b_aux, num_aux);
    g1_jac_add(&pending->b_g1, &pending->b_g1, &part);
    double t5 = groth16_now_ms();

    if (timings) {
        timings->h_ms = t1 - t0;
        timings->msm_h_ms = t2 - t1;
        timings->msm_l_ms = t3 - t2;
        timings->msm_a_ms = t4 - t3;
        timings->msm_b_g1_ms = t5 - t4;
    }
    return CUZK_OK;
}

cuzk_status groth16_prove_start(pool_t *pool, const groth16_params *params, const r1cs *cs, const fr_t *inputs,
                                const fr_t *aux, const r1cs_density *density, groth16_pending *pending,
                                groth16_timings *timings, cuzk_error *err)
{
    if (!cs) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: NULL argument");
    if (!cs->finalized || cs->witness_only)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: the r1cs is not a finalized shape");
    domain_t d;
    cuzk_status st = check_start_args(params, cs->num_constraints, inputs, cs->num_inputs, aux, cs->num_aux, density,
                                      pending, &d, err);
    if (st != CUZK_OK) return st;

    size_t m = d.m;
    fr_t *a = malloc(m * sizeof(fr_t)), *b = malloc(m * sizeof(fr_t)), *c = malloc(m * sizeof(fr_t));
    if (!a || !b || !c) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "prove: cannot allocate a, b, c for a domain of %zu", m);
    } else {
        double t0 = groth16_now_ms();
        st = r1cs_eval_abc(pool, cs, inputs, aux, a, b, c, err);
        if (timings) timings->eval_abc_ms = groth16_now_ms() - t0;
        if (st == CUZK_OK)
            st = groth16_prove_start_abc(pool, params, cs->num_constraints, a, b, c, inputs, cs->num_inputs, aux,
                                         cs->num_aux, density, pending, timings, err);
        else
            cuzk_error_prefix(err, "prove: ");
    }
    free(a);
    free(b);
    free(c);
    return st;
}

cuzk_status groth16_prove_finish(pool_t *pool, const groth16_pending *pending, const fr_t *r_in, const fr_t *s_in,
                                 groth16_proof *proof, groth16_timings *timings, cuzk_error *err)
{
    if (!pending || !pending->params || !proof)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: NULL argument");
    if ((r_in == NULL) != (s_in == NULL))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: give both r and s, or neither");
    const groth16_params *pp = pending->params;
    const groth16_vk *vk = &pp->vk;
    /* A zero delta would let a subverted CRS leak the witness (bellperson's UnexpectedIdentity). */
    if (g1_affine_is_inf(&vk->delta_g1) || g2_affine_is_inf(&vk->delta_g2))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: delta in the verifying key is the identity");
    const r1cs_density *dn = pending->density;

    fr_t r, s, rs;
    cuzk_status st = CUZK_OK;
    if (r_in) {
        r = *r_in;
        s = *s_in;
    } else {
        st = groth16_random_fr(&r, err);
        if (st == CUZK_OK) st = groth16_random_fr(&s, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "prove: drawing r, s: ");
    }

    double t0 = groth16_now_ms();
    g2_jac_t b2;
    if (pending->b_g2_done) {
        b2 = pending->b_g2;
    } else {
        g2_jac_t b2_aux;
        msm_g2(pool, &b2, pp->b_g2, pending->inputs, dn->b_input, pending->num_inputs);
        msm_g2(pool, &b2_aux, pp->b_g2 + dn->b_input_count, pending->aux, dn->b_aux, pending->num_aux);
        g2_jac_add(&b2, &b2, &b2_aux);
    }
    double t1 = groth16_now_ms();

    g1_jac_t alpha, beta1, delta1, ga, gc, t;
    g2_jac_t beta2, delta2, gb;
    g1_jac_from_affine(&alpha, &vk->alpha_g1);
    g1_jac_from_affine(&beta1, &vk->beta_g1);
    g1_jac_from_affine(&delta1, &vk->delta_g1);
    g2_jac_from_affine(&beta2, &vk->beta_g2);
    g2_jac_from_affine(&delta2, &vk->delta_g2);

    /* A = r·delta1 + alpha1 + a */
    g1_jac_mul_fr(&ga, &delta1, &r);
    g1_jac_add(&ga, &ga, &alpha);
    g1_jac_add(&ga, &ga, &pending->a);
    /* B = s·delta2 + beta2 + b2 */
    g2_jac_mul_fr(&gb, &delta2, &s);
    g2_jac_add(&gb, &gb, &beta2);
    g2_jac_add(&gb, &gb, &b2);
    /* C = s·a + r·b1 + (r·s)·delta1 + s·alpha1 + r·beta1 + h + l */
    g1_jac_mul_fr(&gc, &pending->a, &s);
    g1_jac_mul_fr(&t, &pending->b_g1, &r);
    g1_jac_add(&gc, &gc, &t);
    fr_mul(&rs, &r, &s);
    g1_jac_mul_fr(&t, &delta1, &rs);
    g1_jac_add(&gc, &gc, &t);
    g1_jac_mul_fr(&t, &alpha, &s);
    g1_jac_add(&gc, &gc, &t);
    g1_jac_mul_fr(&t, &beta1, &r);
    g1_jac_add(&gc, &gc, &t);
    g1_jac_add(&gc, &gc, &pending->h);
    g1_jac_add(&gc, &gc, &pending->l);

    g1_jac_to_affine(&proof->a, &ga);
    g2_jac_to_affine(&proof->b, &gb);
    g1_jac_to_affine(&proof->c, &gc);
    explicit_bzero(&r, sizeof(r));
    explicit_bzero(&s, sizeof(s));
    explicit_bzero(&rs, sizeof(rs));
    double t3 = groth16_now_ms();
    if (timings) {
        timings->msm_b_g2_ms = t1 - t0;
        timings->assembly_ms = t3 - t1;
    }
    return CUZK_OK;
}

cuzk_status groth16_prove(pool_t *pool, const groth16_params *params, const r1cs *cs, const fr_t *inputs,
                          const fr_t *aux, const fr_t *r, const fr_t *s, groth16_proof *proof, groth16_timings *timings,
                          cuzk_error *err)
{
    if (!params || !cs || !proof) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: NULL argument");
    if (!inputs) {
        if (!cs->has_witness)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: no witness given and the r1cs holds none");
        inputs = cs->inputs;
        aux = cs->aux;
    }
    r1cs_density dn;
    cuzk_status st = r1cs_compute_density(cs, &dn, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "prove: ");
    groth16_pending pending;
    st = groth16_prove_start(pool, params, cs, inputs, aux, &dn, &pending, timings, err);
    if (st == CUZK_OK) st = groth16_prove_finish(pool, &pending, r, s, proof, timings, err);
    r1cs_density_free(&dn);
    return st;
}
