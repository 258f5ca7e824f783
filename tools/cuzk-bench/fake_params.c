/* Parameters of the right lengths for a circuit without a setup, for the benchmarks that time proving. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "util/rng.h"

#define FAKE_POINTS 4096

typedef struct tile_ctx {
    g1_affine_t *dst;
    const g1_affine_t *pts;
    size_t t;
} tile_ctx;

static void tile_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const tile_ctx *tc = vctx;
    for (size_t i = begin; i < end; i++) tc->dst[i] = tc->pts[(i * 7 + tc->t) % FAKE_POINTS];
}

cuzk_status bench_fake_params(pool_t *pool, const r1cs *cs, const r1cs_density *dn, size_t m, groth16_params *p,
                              cuzk_error *err)
{
    memset(p, 0, sizeof(*p));
    rng_t rng;
    rng_seed(&rng, 12345);
    g1_affine_t *pts = malloc(FAKE_POINTS * sizeof(*pts));
    g2_affine_t *pts2 = malloc(FAKE_POINTS * sizeof(*pts2));
    if (!pts || !pts2) {
        free(pts);
        free(pts2);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "fake setup: out of memory");
    }
    g1_jac_t g1, gj;
    g2_jac_t g2, g2j;
    g1_jac_from_affine(&g1, &G1_GENERATOR);
    g2_jac_from_affine(&g2, &G2_GENERATOR);
    for (size_t i = 0; i < FAKE_POINTS; i++) {
        fr_t k;
        fr_random(&k, &rng);
        g1_jac_mul_fr(&gj, &g1, &k);
        g1_jac_to_affine(&pts[i], &gj);
        g2_jac_mul_fr(&g2j, &g2, &k);
        g2_jac_to_affine(&pts2[i], &g2j);
    }
    p->h_form = H_FORM_BELLPERSON;
    p->h_len = m - 1;
    p->l_len = cs->num_aux;
    p->a_len = cs->num_inputs + dn->a_aux_count;
    p->b_g1_len = p->b_g2_len = dn->b_input_count + dn->b_aux_count;
    p->vk.ic_len = cs->num_inputs;
    p->h = malloc((p->h_len + 1) * sizeof(g1_affine_t));
    p->l = malloc((p->l_len + 1) * sizeof(g1_affine_t));
    p->a = malloc((p->a_len + 1) * sizeof(g1_affine_t));
    p->b_g1 = malloc((p->b_g1_len + 1) * sizeof(g1_affine_t));
    p->b_g2 = malloc((p->b_g2_len + 1) * sizeof(g2_affine_t));
    p->vk.ic = malloc((p->vk.ic_len + 1) * sizeof(g1_affine_t));
    if (!p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2 || !p->vk.ic) {
        free(pts);
        free(pts2);
        groth16_params_free(p);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "fake setup: cannot allocate the bases");
    }
    g1_affine_t *g1s[5] = {p->h, p->l, p->a, p->b_g1, p->vk.ic};
    size_t lens[5] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->vk.ic_len};
    for (int t = 0; t < 5; t++) {
        tile_ctx tc = {g1s[t], pts, (size_t)t};
        pool_parallel_for(pool, lens[t], 1 << 16, tile_task, &tc);
    }
    for (size_t i = 0; i < p->b_g2_len; i++) p->b_g2[i] = pts2[i % FAKE_POINTS];
    p->vk.alpha_g1 = pts[1];
    p->vk.beta_g1 = pts[2];
    p->vk.delta_g1 = pts[3];
    p->vk.beta_g2 = pts2[1];
    p->vk.gamma_g2 = pts2[2];
    p->vk.delta_g2 = pts2[3];
    free(pts);
    free(pts2);
    return CUZK_OK;
}
