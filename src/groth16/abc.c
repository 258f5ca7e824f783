/* prove_start from a, b, c computed elsewhere (the engine's synthesis stage evaluates them on its own threads,
 * so that the prover stage, the one an accelerator replaces, starts at H).
 *
 * This repeats the orchestration of groth16_prove_start after its a/b/c evaluation (shape checks, then
 * poly_compute_h and the four G1 MSMs of the msm layer): prover.c keeps both private. The single-source form
 * would be for groth16_prove_start to evaluate a/b/c and then call this function; that change belongs to
 * prover.c and is left to its owner. The engine tests check that both paths give proofs that verify. */
#include <string.h>

#include "groth16/internal.h"
#include "msm/msm.h"

static cuzk_status check_sizes(const groth16_params *p, size_t n_in, size_t n_aux, size_t n, const r1cs_density *dn,
                               const domain_t *d, cuzk_error *err)
{
    if (p->vk.ic_len != n_in)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: vk has %zu ic points, witness has %zu inputs",
                              p->vk.ic_len, n_in);
    if (p->l_len != n_aux)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: params have %zu l points, witness has %zu aux",
                              p->l_len, n_aux);
    if (p->a_len != n_in + dn->a_aux_count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "prove: params have %zu a points, circuit needs %zu inputs + %zu aux (A density)",
                              p->a_len, n_in, dn->a_aux_count);
    size_t nb = dn->b_input_count + dn->b_aux_count;
    if (p->b_g1_len != nb || p->b_g2_len != nb)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "prove: params have %zu b_g1 / %zu b_g2 points, circuit needs %zu (B density)",
                              p->b_g1_len, p->b_g2_len, nb);
    size_t want_h = p->h_form == H_FORM_BELLPERSON ? d->m - 1 : d->m;
    if (p->h_len != want_h)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "prove: params have %zu h points, domain of %zu constraints needs %zu", p->h_len, n,
                              want_h);
    return CUZK_OK;
}

cuzk_status groth16_prove_start_abc(pool_t *pool, const groth16_params *params, size_t num_constraints, fr_t *a,
                                    fr_t *b, fr_t *c, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                                    size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                    groth16_timings *timings, cuzk_error *err)
{
    if (!params || !a || !b || !c || !inputs || (!aux && num_aux) || !density || !pending)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: NULL argument");
    if (num_inputs == 0 || !fr_is_one(&inputs[0]))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "prove: input 0 must be the constant one");
    domain_t d;
    cuzk_status st = domain_for_size(&d, num_constraints, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "prove: ");
    if ((st = check_sizes(params, num_inputs, num_aux, num_constraints, density, &d, err)) != CUZK_OK) return st;

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
