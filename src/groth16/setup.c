/* Parameter generation from toxic waste, computed as bellperson's generate_parameters. */
#include <stdlib.h>
#include <string.h>

#include "groth16/internal.h"

cuzk_status groth16_random_fr(fr_t *r, cuzk_error *err)
{
    for (;;) {
        uint64_t l[FR_LIMBS];
        cuzk_status st = os_random(l, sizeof(l), err);
        if (st != CUZK_OK) return st;
        l[FR_LIMBS - 1] &= UINT64_MAX >> 1; /* r < 2^255: rejection keeps ~90% of draws */
        int ok = fr_to_mont(r, l) == 0 && !fr_is_zero(r);
        explicit_bzero(l, sizeof(l));
        if (ok) return CUZK_OK;
    }
}

/* Fixed-base scalar multiplication by the generator: a table T[j][d-1] = d * 2^(w*j) * G (affine) turns each
 * multiplication into one mixed addition per w-bit window, instead of ~255 doublings plus additions. */
#define FB_MAX_SUBBLOCK 128

#define DEFINE_FIXED_BASE(G)                                                                                      \
    typedef struct G##_fb {                                                                                       \
        unsigned w, nwin;                                                                                         \
        size_t per; /* 2^w - 1 entries per window */                                                             \
        G##_affine_t *t;                                                                                          \
        G##_jac_t *tmp; /* only while building */                                                                 \
        const G##_jac_t *bases;                                                                                   \
    } G##_fb;                                                                                                     \
                                                                                                                  \
    static void G##_fb_fill(void *ctx, size_t begin, size_t end, unsigned worker)                                 \
    {                                                                                                             \
        (void)worker;                                                                                             \
        G##_fb *fb = ctx;                                                                                         \
        for (size_t j = begin; j < end; j++) {                                                                    \
            G##_jac_t *row = fb->tmp + j * fb->per;                                                               \
            row[0] = fb->bases[j];                                                                                \
            for (size_t d = 1; d < fb->per; d++) G##_jac_add(&row[d], &row[d - 1], &fb->bases[j]);               \
            G##_batch_to_affine(fb->t + j * fb->per, row, fb->per);                                               \
        }                                                                                                         \
    }                                                                                                             \
                                                                                                                  \
    static cuzk_status G##_fb_init(pool_t *pool, G##_fb *fb, const G##_affine_t *gen, size_t count,               \
                                   cuzk_error *err)                                                               \
    {                                                                                                             \
        memset(fb, 0, sizeof(*fb));                                                                               \
        fb->w = count > ((size_t)1 << 17) ? 12 : count > 4096 ? 10 : 7;                                          \
        fb->nwin = (255 + fb->w - 1) / fb->w;                                                                     \
        fb->per = ((size_t)1 << fb->w) - 1;                                                                       \
        size_t total = fb->nwin * fb->per;                                                                        \
        fb->t = malloc(total * sizeof(G##_affine_t));                                                             \
        fb->tmp = malloc(total * sizeof(G##_jac_t));                                                              \
        G##_jac_t *bases = malloc(fb->nwin * sizeof(G##_jac_t));                                                  \
        if (!fb->t || !fb->tmp || !bases) {                                                                       \
            free(fb->t);                                                                                          \
            free(fb->tmp);                                                                                        \
            free(bases);                                                                                          \
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate a fixed-base table of %zu points", \
                                  total);                                                                         \
        }                                                                                                         \
        G##_jac_from_affine(&bases[0], gen);                                                                      \
        for (unsigned j = 1; j < fb->nwin; j++) {                                                                 \
            bases[j] = bases[j - 1];                                                                              \
            for (unsigned k = 0; k < fb->w; k++) G##_jac_dbl(&bases[j], &bases[j]);                               \
        }                                                                                                         \
        fb->bases = bases;                                                                                        \
        pool_parallel_for(pool, fb->nwin, 1, G##_fb_fill, fb);                                                    \
        free(bases);                                                                                              \
        free(fb->tmp);                                                                                            \
        fb->tmp = NULL;                                                                                           \
        fb->bases = NULL;                                                                                         \
        return CUZK_OK;                                                                                           \
    }                                                                                                             \
                                                                                                                  \
    static void G##_fb_mul(const G##_fb *fb, G##_jac_t *r, const fr_t *s)                                         \
    {                                                                                                             \
        uint64_t k[FR_LIMBS];                                                                                     \
        fr_from_mont(k, s);                                                                                       \
        G##_jac_set_inf(r);                                                                                       \
        for (unsigned j = 0; j < fb->nwin; j++) {                                                                 \
            unsigned bit = j * fb->w, limb = bit / 64, sh = bit % 64;                                             \
            uint64_t d = k[limb] >> sh;                                                                           \
            if (sh + fb->w > 64 && limb + 1 < FR_LIMBS) d |= k[limb + 1] << (64 - sh);                            \
            d &= fb->per;                                                                                         \
            if (d) G##_jac_add_affine(r, r, &fb->t[j * fb->per + d - 1]);                                         \
        }                                                                                                         \
    }                                                                                                             \
                                                                                                                  \
    typedef struct G##_fb_job {                                                                                   \
        const G##_fb *fb;                                                                                         \
        const fr_t *s;                                                                                            \
        G##_affine_t *out;                                                                                        \
    } G##_fb_job;                                                                                                 \
                                                                                                                  \
    static void G##_fb_job_run(void *ctx, size_t begin, size_t end, unsigned worker)                              \
    {                                                                                                             \
        (void)worker;                                                                                             \
        G##_fb_job *job = ctx;                                                                                    \
        G##_jac_t tmp[FB_MAX_SUBBLOCK];                                                                           \
        for (size_t i = begin; i < end; i += FB_MAX_SUBBLOCK) {                                                   \
            size_t k = end - i < FB_MAX_SUBBLOCK ? end - i : FB_MAX_SUBBLOCK;                                     \
            for (size_t t = 0; t < k; t++) G##_fb_mul(job->fb, &tmp[t], &job->s[i + t]);                          \
            G##_batch_to_affine(job->out + i, tmp, k);                                                            \
        }                                                                                                         \
    }                                                                                                             \
                                                                                                                  \
    /* out[i] = s[i] * G for i < n, in parallel. */                                                               \
    static void G##_fb_mul_many(pool_t *pool, const G##_fb *fb, const fr_t *s, size_t n, G##_affine_t *out)       \
    {                                                                                                             \
        G##_fb_job job = {fb, s, out};                                                                            \
        pool_parallel_for(pool, n, 64, G##_fb_job_run, &job);                                                     \
    }

DEFINE_FIXED_BASE(g1)
DEFINE_FIXED_BASE(g2)

/* Evaluations at tau of the QAP polynomial of every variable for one matrix: p[col] = sum_rows coeff * L_row. */
typedef struct qap_ctx {
    const r1cs *cs;
    const r1cs_matrix *m[3];
    fr_t *out[3];
    const fr_t *lagrange;
} qap_ctx;

static void qap_eval(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    qap_ctx *q = ctx;
    for (size_t k = begin; k < end; k++) {
        const r1cs_matrix *mx = q->m[k];
        fr_t *p = q->out[k];
        for (size_t row = 0; row < mx->rows; row++) {
            for (uint64_t e = mx->row_start[row]; e < mx->row_start[row + 1]; e++) {
                fr_t t;
                fr_mul(&t, &q->cs->coeffs[mx->coeff[e]], &q->lagrange[row]);
                fr_add(&p[mx->col[e]], &p[mx->col[e]], &t);
            }
        }
    }
}

typedef struct powers_ctx {
    const fr_t *tau;
    fr_t *out;
} powers_ctx;

static void powers_run(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    powers_ctx *c = ctx;
    uint64_t e = begin;
    fr_t p;
    fr_pow(&p, c->tau, &e, 1);
    for (size_t i = begin; i < end; i++) {
        c->out[i] = p;
        fr_mul(&p, &p, c->tau);
    }
}

/* Compacts the non-zero entries of v[0..n) into out (may alias v); returns their number. */
static size_t compact_nonzero(fr_t *out, const fr_t *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!fr_is_zero(&v[i])) out[k++] = v[i];
    return k;
}

cuzk_status groth16_setup_with_toxic(pool_t *pool, const r1cs *cs, const groth16_toxic *tw, groth16_params *out,
                                     cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!cs || !tw) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: NULL argument");
    if (!cs->finalized || cs->witness_only || cs->num_inputs == 0 || cs->A.rows != cs->num_constraints ||
        cs->B.rows != cs->num_constraints || cs->C.rows != cs->num_constraints)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "setup: the r1cs is not a finalized shape (%zu inputs, %zu constraints, %zu/%zu/%zu rows)",
                              cs->num_inputs, cs->num_constraints, cs->A.rows, cs->B.rows, cs->C.rows);
    if (fr_is_zero(&tw->alpha) || fr_is_zero(&tw->beta) || fr_is_zero(&tw->gamma) || fr_is_zero(&tw->delta) ||
        fr_is_zero(&tw->tau))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: a trapdoor is zero");

    domain_t d;
    cuzk_status st = domain_for_size(&d, cs->num_constraints, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "setup: ");
    size_t m = d.m, n_in = cs->num_inputs, n_aux = cs->num_aux, n_var = n_in + n_aux;

    fr_t *lag = malloc(m * sizeof(fr_t));
    fr_t *qap = calloc(3 * (n_var ? n_var : 1), sizeof(fr_t));
    fr_t *ext = malloc((n_var ? n_var : 1) * sizeof(fr_t));
    groth16_params p;
    memset(&p, 0, sizeof(p));
    p.vk.ic = malloc(n_in * sizeof(g1_affine_t));
    p.l = malloc((n_aux ? n_aux : 1) * sizeof(g1_affine_t));
    p.h = malloc((m > 1 ? m - 1 : 1) * sizeof(g1_affine_t));
    p.a = malloc(n_var * sizeof(g1_affine_t));
    p.b_g1 = malloc(n_var * sizeof(g1_affine_t));
    p.b_g2 = malloc(n_var * sizeof(g2_affine_t));
    g1_fb fb1 = {0};
    g2_fb fb2 = {0};
    fr_t gamma_inv, delta_inv, zt, t;
    if (!lag || !qap || !ext || !p.vk.ic || !p.l || !p.h || !p.a || !p.b_g1 || !p.b_g2) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate for %zu variables, domain %zu", n_var, m);
        goto done;
    }
    fr_t *at = qap, *bt = qap + n_var, *ct = qap + 2 * n_var;

    /* t(tau) = tau^m - 1 must not vanish: tau in the domain would make every h base the identity. */
    powers_ctx pc = {&tw->tau, lag};
    pool_parallel_for(pool, m, 4096, powers_run, &pc);
    fr_mul(&zt, &lag[m - 1], &tw->tau);
    fr_t one;
    fr_set_one(&one);
    fr_sub(&zt, &zt, &one);
    if (fr_is_zero(&zt)) {
        st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: tau is a root of t(x) = x^%zu - 1", m);
        goto done;
    }
    fr_inv(&gamma_inv, &tw->gamma);
    fr_inv(&delta_inv, &tw->delta);

    size_t g1_count = (m - 1) + 3 * n_var;
    if ((st = g1_fb_init(pool, &fb1, &G1_GENERATOR, g1_count, err)) != CUZK_OK) goto done;
    if ((st = g2_fb_init(pool, &fb2, &G2_GENERATOR, n_var, err)) != CUZK_OK) goto done;

    /* H: tau^i * t(tau) / delta for i < m - 1, from the powers before they become the Lagrange basis. */
    {
        fr_t coeff;
        fr_mul(&coeff, &zt, &delta_inv);
        fr_t *hs = malloc((m > 1 ? m - 1 : 1) * sizeof(fr_t));
        if (!hs) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate %zu H scalars", m - 1);
            goto done;
        }
        for (size_t i = 0; i + 1 < m; i++) fr_mul(&hs[i], &lag[i], &coeff);
        g1_fb_mul_many(pool, &fb1, hs, m - 1, p.h);
        explicit_bzero(hs, (m > 1 ? m - 1 : 1) * sizeof(fr_t));
        free(hs);
        p.h_len = m - 1;
    }

    /* Powers of tau -> Lagrange basis at tau: L_j(tau) = (1/m) sum_i tau^i omega^(-ij). */
    ntt_inverse(pool, &d, lag);

    qap_ctx qc = {cs, {&cs->A, &cs->B, &cs->C}, {at, bt, ct}, lag};
    pool_parallel_for(pool, 3, 1, qap_eval, &qc);

    /* ic (inputs, / gamma) and l (aux, / delta): (beta * A + alpha * B + C) / divisor. */
    for (size_t v = 0; v < n_var; v++) {
        fr_mul(&ext[v], &at[v], &tw->beta);
        fr_mul(&t, &bt[v], &tw->alpha);
        fr_add(&ext[v], &ext[v], &t);
        fr_add(&ext[v], &ext[v], &ct[v]);
        fr_mul(&ext[v], &ext[v], v < n_in ? &gamma_inv : &delta_inv);
    }
    for (size_t j = 0; j < n_aux; j++) {
        if (fr_is_zero(&ext[n_in + j])) {
            st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: aux variable %zu is unconstrained", j);
            goto done;
        }
    }
    g1_fb_mul_many(pool, &fb1, ext, n_in, p.vk.ic);
    p.vk.ic_len = n_in;
    g1_fb_mul_many(pool, &fb1, ext + n_in, n_aux, p.l);
    p.l_len = n_aux;

    /* a, b_g1, b_g2 without the identity points (zero evaluations), as bellperson filters them. */
    p.a_len = compact_nonzero(at, at, n_var);
    g1_fb_mul_many(pool, &fb1, at, p.a_len, p.a);
    p.b_g1_len = p.b_g2_len = compact_nonzero(bt, bt, n_var);
    g1_fb_mul_many(pool, &fb1, bt, p.b_g1_len, p.b_g1);
    g2_fb_mul_many(pool, &fb2, bt, p.b_g2_len, p.b_g2);

    g1_jac_t j1;
    g2_jac_t j2;
    g1_fb_mul(&fb1, &j1, &tw->alpha);
    g1_jac_to_affine(&p.vk.alpha_g1, &j1);
    g1_fb_mul(&fb1, &j1, &tw->beta);
    g1_jac_to_affine(&p.vk.beta_g1, &j1);
    g1_fb_mul(&fb1, &j1, &tw->delta);
    g1_jac_to_affine(&p.vk.delta_g1, &j1);
    g2_fb_mul(&fb2, &j2, &tw->beta);
    g2_jac_to_affine(&p.vk.beta_g2, &j2);
    g2_fb_mul(&fb2, &j2, &tw->gamma);
    g2_jac_to_affine(&p.vk.gamma_g2, &j2);
    g2_fb_mul(&fb2, &j2, &tw->delta);
    g2_jac_to_affine(&p.vk.delta_g2, &j2);
    p.h_form = H_FORM_BELLPERSON;
    *out = p;
    memset(&p, 0, sizeof(p));
    st = CUZK_OK;

done:
    /* Every scalar here is a function of the trapdoors. */
    if (lag) explicit_bzero(lag, m * sizeof(fr_t));
    if (qap) explicit_bzero(qap, 3 * (n_var ? n_var : 1) * sizeof(fr_t));
    if (ext) explicit_bzero(ext, (n_var ? n_var : 1) * sizeof(fr_t));
    explicit_bzero(&gamma_inv, sizeof(gamma_inv));
    explicit_bzero(&delta_inv, sizeof(delta_inv));
    explicit_bzero(&zt, sizeof(zt));
    explicit_bzero(&t, sizeof(t));
    free(lag);
    free(qap);
    free(ext);
    free(fb1.t);
    free(fb2.t);
    groth16_params_free(&p);
    return st;
}

cuzk_status groth16_setup(pool_t *pool, const r1cs *cs, groth16_params *out, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    groth16_toxic tw;
    cuzk_status st = CUZK_OK;
    fr_t *f[5] = {&tw.alpha, &tw.beta, &tw.gamma, &tw.delta, &tw.tau};
    for (int i = 0; i < 5 && st == CUZK_OK; i++) st = groth16_random_fr(f[i], err);
    if (st == CUZK_OK) st = groth16_setup_with_toxic(pool, cs, &tw, out, err);
    explicit_bzero(&tw, sizeof(tw));
    return st;
}

cuzk_status groth16_setup_files(pool_t *pool, const r1cs *cs, const char *params_path, const char *vk_path,
                                cuzk_error *err)
{
    groth16_params p;
    cuzk_status st = groth16_setup(pool, cs, &p, err);
    if (st != CUZK_OK) return st;
    if (params_path) st = groth16_params_write(pool, &p, params_path, err);
    if (st == CUZK_OK && vk_path) st = groth16_vk_write(&p.vk, vk_path, err);
    groth16_params_free(&p);
    return st;
}
