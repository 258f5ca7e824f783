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
/* Scalars per batch of affine additions: larger blocks amortise the inversion further. */
#define FB_BLOCK 1024

#define DEFINE_FIXED_BASE(G, F)                                                                                      \
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
    /* out[i] = s[i] * G for a block of n <= FB_BLOCK scalars, window by window: every accumulator of the    \
     * block takes its table entry by an affine addition, and one inversion serves the whole block. The     \
     * additions never meet equal or opposite x: after window j an accumulator holds (k mod 2^(w j)) G and   \
     * the entry is d 2^(w j) G with k mod 2^(w j) + d 2^(w j) <= k < r. */                                  \
    typedef struct G##_fb_scratch {                                                                           \
        uint64_t (*k)[FR_LIMBS];                                                                              \
        int *inf;                                                                                             \
        size_t *idx;                                                                                          \
        const G##_affine_t **add;                                                                             \
        F##_t *dx, *pre;                                                                                      \
    } G##_fb_scratch;                                                                                         \
                                                                                                              \
    static void G##_fb_block(const G##_fb *fb, G##_fb_scratch *sc, const fr_t *s, size_t n, G##_affine_t *out) \
    {                                                                                                         \
        uint64_t(*k)[FR_LIMBS] = sc->k;                                                                       \
        int *inf = sc->inf;                                                                                   \
        size_t *idx = sc->idx;                                                                                \
        const G##_affine_t **add = sc->add;                                                                   \
        F##_t *dx = sc->dx, *pre = sc->pre;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                                      \
            fr_from_mont(k[i], &s[i]);                                                                        \
            inf[i] = 1;                                                                                       \
        }                                                                                                     \
        for (unsigned j = 0; j < fb->nwin; j++) {                                                             \
            unsigned bit = j * fb->w, limb = bit / 64, sh = bit % 64;                                         \
            size_t cnt = 0;                                                                                   \
            for (size_t i = 0; i < n; i++) {                                                                  \
                uint64_t d = k[i][limb] >> sh;                                                                \
                if (sh + fb->w > 64 && limb + 1 < FR_LIMBS) d |= k[i][limb + 1] << (64 - sh);                 \
                d &= fb->per;                                                                                 \
                if (!d) continue;                                                                             \
                const G##_affine_t *e = &fb->t[j * fb->per + d - 1];                                          \
                if (inf[i]) {                                                                                 \
                    out[i] = *e;                                                                              \
                    inf[i] = 0;                                                                               \
                    continue;                                                                                 \
                }                                                                                             \
                F##_sub(&dx[cnt], &e->x, &out[i].x);                                                          \
                pre[cnt] = cnt ? pre[cnt - 1] : dx[cnt];                                                      \
                if (cnt) F##_mul(&pre[cnt], &pre[cnt], &dx[cnt]);                                             \
                idx[cnt] = i;                                                                                 \
                add[cnt] = e;                                                                                 \
                cnt++;                                                                                        \
            }                                                                                                 \
            if (!cnt) continue;                                                                               \
            F##_t inv, lam, t, x3;                                                                            \
            F##_inv(&inv, &pre[cnt - 1]);                                                                     \
            for (size_t c = cnt; c-- > 0;) {                                                                  \
                G##_affine_t *a = &out[idx[c]];                                                               \
                if (c) {                                                                                      \
                    F##_mul(&t, &inv, &pre[c - 1]);                                                           \
                    F##_mul(&inv, &inv, &dx[c]);                                                              \
                } else {                                                                                      \
                    t = inv;                                                                                  \
                }                                                                                             \
                F##_sub(&lam, &add[c]->y, &a->y);                                                             \
                F##_mul(&lam, &lam, &t);                                                                      \
                F##_sqr(&x3, &lam);                                                                           \
                F##_sub(&x3, &x3, &a->x);                                                                     \
                F##_sub(&x3, &x3, &add[c]->x);                                                                \
                F##_sub(&t, &a->x, &x3);                                                                      \
                F##_mul(&t, &t, &lam);                                                                        \
                F##_sub(&a->y, &t, &a->y);                                                                    \
                a->x = x3;                                                                                    \
            }                                                                                                 \
        }                                                                                                     \
        for (size_t i = 0; i < n; i++)                                                                        \
            if (inf[i]) G##_affine_set_inf(&out[i]);                                                          \
    }                                                                                                         \
                                                                                                              \
    typedef struct G##_fb_job {                                                                               \
        const G##_fb *fb;                                                                                     \
        G##_fb_scratch *scratch; /* one per worker */                                                         \
        const fr_t *s;                                                                                        \
        G##_affine_t *out;                                                                                    \
    } G##_fb_job;                                                                                             \
                                                                                                              \
    static void G##_fb_job_run(void *ctx, size_t begin, size_t end, unsigned worker)                          \
    {                                                                                                         \
        G##_fb_job *job = ctx;                                                                                \
        for (size_t i = begin; i < end; i += FB_BLOCK)                                                        \
            G##_fb_block(job->fb, &job->scratch[worker], job->s + i, end - i < FB_BLOCK ? end - i : FB_BLOCK, \
                         job->out + i);                                                                       \
    }                                                                                                         \
                                                                                                              \
    /* out[i] = s[i] * G for i < n, in parallel. */                                                           \
    static cuzk_status G##_fb_mul_many(pool_t *pool, const G##_fb *fb, const fr_t *s, size_t n,               \
                                       G##_affine_t *out, cuzk_error *err)                                    \
    {                                                                                                         \
        unsigned nw = pool ? pool_size(pool) : 1;                                                             \
        G##_fb_scratch *sc = calloc(nw, sizeof(*sc));                                                         \
        int ok = sc != NULL;                                                                                  \
        for (unsigned w = 0; ok && w < nw; w++) {                                                             \
            sc[w].k = malloc(FB_BLOCK * sizeof(*sc[w].k));                                                    \
            sc[w].inf = malloc(FB_BLOCK * sizeof(int));                                                       \
            sc[w].idx = malloc(FB_BLOCK * sizeof(size_t));                                                    \
            sc[w].add = malloc(FB_BLOCK * sizeof(*sc[w].add));                                                \
            sc[w].dx = malloc(FB_BLOCK * sizeof(F##_t));                                                      \
            sc[w].pre = malloc(FB_BLOCK * sizeof(F##_t));                                                     \
            ok = sc[w].k && sc[w].inf && sc[w].idx && sc[w].add && sc[w].dx && sc[w].pre;                     \
        }                                                                                                     \
        if (ok) {                                                                                             \
            G##_fb_job job = {fb, sc, s, out};                                                                \
            pool_parallel_for(pool, n, FB_BLOCK, G##_fb_job_run, &job);                                       \
        }                                                                                                     \
        for (unsigned w = 0; sc && w < nw; w++) {                                                             \
            /* the scalars derive from the trapdoors */                                                       \
            if (sc[w].k) explicit_bzero(sc[w].k, FB_BLOCK * sizeof(*sc[w].k));                                \
            free(sc[w].k), free(sc[w].inf), free(sc[w].idx), free(sc[w].add), free(sc[w].dx), free(sc[w].pre); \
        }                                                                                                     \
        free(sc);                                                                                             \
        return ok ? CUZK_OK                                                                                   \
                  : cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate fixed-base scratch");         \
    }

DEFINE_FIXED_BASE(g1, fp)
DEFINE_FIXED_BASE(g2, fp2)

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
                              "setup: the r1cs is not a finalized shape "
                              "(%zu inputs, %zu constraints, %zu/%zu/%zu rows)",
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
        st = g1_fb_mul_many(pool, &fb1, hs, m - 1, p.h, err);
        explicit_bzero(hs, (m > 1 ? m - 1 : 1) * sizeof(fr_t));
        free(hs);
        if (st != CUZK_OK) goto done;
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
    /* a, b_g1, b_g2 without the identity points (zero evaluations), as bellperson filters them. */
    size_t na = compact_nonzero(at, at, n_var), nb = compact_nonzero(bt, bt, n_var);
    fr_t s1[3] = {tw->alpha, tw->beta, tw->delta}, s2[3] = {tw->beta, tw->gamma, tw->delta};
    g1_affine_t v1[3];
    g2_affine_t v2[3];
    if ((st = g1_fb_mul_many(pool, &fb1, ext, n_in, p.vk.ic, err)) != CUZK_OK ||
        (st = g1_fb_mul_many(pool, &fb1, ext + n_in, n_aux, p.l, err)) != CUZK_OK ||
        (st = g1_fb_mul_many(pool, &fb1, at, na, p.a, err)) != CUZK_OK ||
        (st = g1_fb_mul_many(pool, &fb1, bt, nb, p.b_g1, err)) != CUZK_OK ||
        (st = g2_fb_mul_many(pool, &fb2, bt, nb, p.b_g2, err)) != CUZK_OK ||
        (st = g1_fb_mul_many(NULL, &fb1, s1, 3, v1, err)) != CUZK_OK ||
        (st = g2_fb_mul_many(NULL, &fb2, s2, 3, v2, err)) != CUZK_OK) {
        explicit_bzero(s1, sizeof(s1));
        explicit_bzero(s2, sizeof(s2));
        goto done;
    }
    p.vk.ic_len = n_in;
    p.l_len = n_aux;
    p.a_len = na;
    p.b_g1_len = p.b_g2_len = nb;

    explicit_bzero(s1, sizeof(s1));
    explicit_bzero(s2, sizeof(s2));
    p.vk.alpha_g1 = v1[0];
    p.vk.beta_g1 = v1[1];
    p.vk.delta_g1 = v1[2];
    p.vk.beta_g2 = v2[0];
    p.vk.gamma_g2 = v2[1];
    p.vk.delta_g2 = v2[2];
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
