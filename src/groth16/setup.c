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

#define DEFINE_FIXED_BASE(G, F)                                                                                        \
    typedef struct G##_fb {                                                                                            \
        unsigned w, nwin;                                                                                              \
        size_t per; /* 2^w - 1 entries per window */                                                                   \
        G##_affine_t *t;                                                                                               \
        G##_jac_t *tmp; /* only while building */                                                                      \
        const G##_jac_t *bases;                                                                                        \
    } G##_fb;                                                                                                          \
                                                                                                                       \
    static void G##_fb_fill(void *ctx, size_t begin, size_t end, unsigned worker)                                      \
    {                                                                                                                  \
        (void)worker;                                                                                                  \
        G##_fb *fb = ctx;                                                                                              \
        for (size_t j = begin; j < end; j++) {                                                                         \
            G##_jac_t *row = fb->tmp + j * fb->per;                                                                    \
            row[0] = fb->bases[j];                                                                                     \
            for (size_t d = 1; d < fb->per; d++) G##_jac_add(&row[d], &row[d - 1], &fb->bases[j]);                     \
            G##_batch_to_affine(fb->t + j * fb->per, row, fb->per);                                                    \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    static cuzk_status G##_fb_init(pool_t *pool, G##_fb *fb, const G##_affine_t *gen, unsigned w, cuzk_error *err)     \
    {                                                                                                                  \
        memset(fb, 0, sizeof(*fb));                                                                                    \
        if (w < 1 || w > 20) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: window of %u bits", w);          \
        fb->w = w;                                                                                                     \
        fb->nwin = (255 + fb->w - 1) / fb->w;                                                                          \
        fb->per = ((size_t)1 << fb->w) - 1;                                                                            \
        size_t total = fb->nwin * fb->per;                                                                             \
        fb->t = malloc(total * sizeof(G##_affine_t));                                                                  \
        fb->tmp = malloc(total * sizeof(G##_jac_t));                                                                   \
        G##_jac_t *bases = malloc(fb->nwin * sizeof(G##_jac_t));                                                       \
        if (!fb->t || !fb->tmp || !bases) {                                                                            \
            free(fb->t);                                                                                               \
            free(fb->tmp);                                                                                             \
            free(bases);                                                                                               \
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate a fixed-base table of %zu points",      \
                                  total);                                                                              \
        }                                                                                                              \
        G##_jac_from_affine(&bases[0], gen);                                                                           \
        for (unsigned j = 1; j < fb->nwin; j++) {                                                                      \
            bases[j] = bases[j - 1];                                                                                   \
            for (unsigned k = 0; k < fb->w; k++) G##_jac_dbl(&bases[j], &bases[j]);                                    \
        }                                                                                                              \
        fb->bases = bases;                                                                                             \
        pool_parallel_for(pool, fb->nwin, 1, G##_fb_fill, fb);                                                         \
        free(bases);                                                                                                   \
        free(fb->tmp);                                                                                                 \
        fb->tmp = NULL;                                                                                                \
        fb->bases = NULL;                                                                                              \
        return CUZK_OK;                                                                                                \
    }                                                                                                                  \
                                                                                                                       \
    /* out[i] = s[i] * G for a block of n <= FB_BLOCK scalars, window by window: every accumulator of the    \
     * block takes its table entry by an affine addition, and one inversion serves the whole block. The     \
     * additions never meet equal or opposite x: after window j an accumulator holds (k mod 2^(w j)) G and   \
     * the entry is d 2^(w j) G with k mod 2^(w j) + d 2^(w j) <= k < r. */         \
    typedef struct G##_fb_scratch {                                                                                    \
        uint64_t (*k)[FR_LIMBS];                                                                                       \
        int *inf;                                                                                                      \
        size_t *idx;                                                                                                   \
        const G##_affine_t **add;                                                                                      \
        F##_t *dx, *pre;                                                                                               \
    } G##_fb_scratch;                                                                                                  \
                                                                                                                       \
    static void G##_fb_block(const G##_fb *fb, G##_fb_scratch *sc, const fr_t *s, size_t n, G##_affine_t *out)         \
    {                                                                                                                  \
        uint64_t(*k)[FR_LIMBS] = sc->k;                                                                                \
        int *inf = sc->inf;                                                                                            \
        size_t *idx = sc->idx;                                                                                         \
        const G##_affine_t **add = sc->add;                                                                            \
        F##_t *dx = sc->dx, *pre = sc->pre;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                                               \
            fr_from_mont(k[i], &s[i]);                                                                                 \
            inf[i] = 1;                                                                                                \
        }                                                                                                              \
        for (unsigned j = 0; j < fb->nwin; j++) {                                                                      \
            unsigned bit = j * fb->w, limb = bit / 64, sh = bit % 64;                                                  \
            size_t cnt = 0;                                                                                            \
            for (size_t i = 0; i < n; i++) {                                                                           \
                uint64_t d = k[i][limb] >> sh;                                                                         \
                if (sh + fb->w > 64 && limb + 1 < FR_LIMBS) d |= k[i][limb + 1] << (64 - sh);                          \
                d &= fb->per;                                                                                          \
                if (!d) continue;                                                                                      \
                const G##_affine_t *e = &fb->t[j * fb->per + d - 1];                                                   \
                if (inf[i]) {                                                                                          \
                    out[i] = *e;                                                                                       \
                    inf[i] = 0;                                                                                        \
                    continue;                                                                                          \
                }                                                                                                      \
                F##_sub(&dx[cnt], &e->x, &out[i].x);                                                                   \
                pre[cnt] = cnt ? pre[cnt - 1] : dx[cnt];                                                               \
                if (cnt) F##_mul(&pre[cnt], &pre[cnt], &dx[cnt]);                                                      \
                idx[cnt] = i;                                                                                          \
                add[cnt] = e;                                                                                          \
                cnt++;                                                                                                 \
            }                                                                                                          \
            if (!cnt) continue;                                                                                        \
            F##_t inv, lam, t, x3;                                                                                     \
            F##_inv(&inv, &pre[cnt - 1]);                                                                              \
            for (size_t c = cnt; c-- > 0;) {                                                                           \
                G##_affine_t *a = &out[idx[c]];                                                                        \
                if (c) {                                                                                               \
                    F##_mul(&t, &inv, &pre[c - 1]);                                                                    \
                    F##_mul(&inv, &inv, &dx[c]);                                                                       \
                } else {                                                                                               \
                    t = inv;                                                                                           \
                }                                                                                                      \
                F##_sub(&lam, &add[c]->y, &a->y);                                                                      \
                F##_mul(&lam, &lam, &t);                                                                               \
                F##_sqr(&x3, &lam);                                                                                    \
                F##_sub(&x3, &x3, &a->x);                                                                              \
                F##_sub(&x3, &x3, &add[c]->x);                                                                         \
                F##_sub(&t, &a->x, &x3);                                                                               \
                F##_mul(&t, &t, &lam);                                                                                 \
                F##_sub(&a->y, &t, &a->y);                                                                             \
                a->x = x3;                                                                                             \
            }                                                                                                          \
        }                                                                                                              \
        for (size_t i = 0; i < n; i++)                                                                                 \
            if (inf[i]) G##_affine_set_inf(&out[i]);                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    typedef struct G##_fb_job {                                                                                        \
        const G##_fb *fb;                                                                                              \
        G##_fb_scratch *scratch; /* one per worker */                                                                  \
        const fr_t *s;                                                                                                 \
        G##_affine_t *out;                                                                                             \
    } G##_fb_job;                                                                                                      \
                                                                                                                       \
    static void G##_fb_job_run(void *ctx, size_t begin, size_t end, unsigned worker)                                   \
    {                                                                                                                  \
        G##_fb_job *job = ctx;                                                                                         \
        for (size_t i = begin; i < end; i += FB_BLOCK)                                                                 \
            G##_fb_block(job->fb, &job->scratch[worker], job->s + i, end - i < FB_BLOCK ? end - i : FB_BLOCK,          \
                         job->out + i);                                                                                \
    }                                                                                                                  \
                                                                                                                       \
    /* out[i] = s[i] * G for i < n, in parallel. */                                                                    \
    static cuzk_status G##_fb_mul_many(pool_t *pool, const G##_fb *fb, const fr_t *s, size_t n, G##_affine_t *out,     \
                                       cuzk_error *err)                                                                \
    {                                                                                                                  \
        unsigned nw = pool ? pool_size(pool) : 1;                                                                      \
        G##_fb_scratch *sc = calloc(nw, sizeof(*sc));                                                                  \
        int ok = sc != NULL;                                                                                           \
        for (unsigned w = 0; ok && w < nw; w++) {                                                                      \
            sc[w].k = malloc(FB_BLOCK * sizeof(*sc[w].k));                                                             \
            sc[w].inf = malloc(FB_BLOCK * sizeof(int));                                                                \
            sc[w].idx = malloc(FB_BLOCK * sizeof(size_t));                                                             \
            sc[w].add = malloc(FB_BLOCK * sizeof(*sc[w].add));                                                         \
            sc[w].dx = malloc(FB_BLOCK * sizeof(F##_t));                                                               \
            sc[w].pre = malloc(FB_BLOCK * sizeof(F##_t));                                                              \
            ok = sc[w].k && sc[w].inf && sc[w].idx && sc[w].add && sc[w].dx && sc[w].pre;                              \
        }                                                                                                              \
        if (ok) {                                                                                                      \
            G##_fb_job job = {fb, sc, s, out};                                                                         \
            pool_parallel_for(pool, n, FB_BLOCK, G##_fb_job_run, &job);                                                \
        }                                                                                                              \
        for (unsigned w = 0; sc && w < nw; w++) {                                                                      \
            /* the scalars derive from the trapdoors */                                                                \
            if (sc[w].k) explicit_bzero(sc[w].k, FB_BLOCK * sizeof(*sc[w].k));                                         \
            free(sc[w].k), free(sc[w].inf), free(sc[w].idx), free(sc[w].add), free(sc[w].dx), free(sc[w].pre);         \
        }                                                                                                              \
        free(sc);                                                                                                      \
        return ok ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate fixed-base scratch");        \
    }

DEFINE_FIXED_BASE(g1, fp)
DEFINE_FIXED_BASE(g2, fp2)

/* Window bits of the CPU's tables for `count` multiplications: larger tables pay off over more scalars. */
static unsigned fb_cpu_window(size_t count)
{
    return count > ((size_t)1 << 17) ? 12 : count > 4096 ? 10 : 7;
}

cuzk_status groth16_generator_table_g1(pool_t *pool, unsigned w, g1_affine_t **out, cuzk_error *err)
{
    g1_fb fb;
    *out = NULL;
    cuzk_status st = g1_fb_init(pool, &fb, &G1_GENERATOR, w, err);
    if (st == CUZK_OK) *out = fb.t;
    return st;
}

cuzk_status groth16_generator_table_g2(pool_t *pool, unsigned w, g2_affine_t **out, cuzk_error *err)
{
    g2_fb fb;
    *out = NULL;
    cuzk_status st = g2_fb_init(pool, &fb, &G2_GENERATOR, w, err);
    if (st == CUZK_OK) *out = fb.t;
    return st;
}

/* Where the fixed-base multiplications of a setup run: the pool's CPU threads, or opts->fixed_base. */
typedef struct fb_engine {
    const groth16_fixed_base *ext;
    pool_t *pool;
    g1_fb fb1;
    g2_fb fb2;
} fb_engine;

static cuzk_status fb_engine_init(fb_engine *e, pool_t *pool, const groth16_setup_options *opts, size_t g1_count,
                                  size_t g2_count, cuzk_error *err)
{
    memset(e, 0, sizeof(*e));
    e->pool = pool;
    e->ext = opts ? opts->fixed_base : NULL;
    unsigned w1 = e->ext ? e->ext->w : fb_cpu_window(g1_count), w2 = e->ext ? e->ext->w : fb_cpu_window(g2_count);
    cuzk_status st = g1_fb_init(pool, &e->fb1, &G1_GENERATOR, w1, err);
    if (st == CUZK_OK) st = g2_fb_init(pool, &e->fb2, &G2_GENERATOR, w2, err);
    return st;
}

static void fb_engine_free(fb_engine *e)
{
    free(e->fb1.t);
    free(e->fb2.t);
    e->fb1.t = NULL;
    e->fb2.t = NULL;
}

static cuzk_status fb_g1(fb_engine *e, const fr_t *s, size_t n, g1_affine_t *out, cuzk_error *err)
{
    if (!n) return CUZK_OK;
    if (e->ext) return e->ext->g1(e->ext->ctx, e->pool, e->fb1.t, e->fb1.w, s, n, out, err);
    return g1_fb_mul_many(e->pool, &e->fb1, s, n, out, err);
}

static cuzk_status fb_g2(fb_engine *e, const fr_t *s, size_t n, g2_affine_t *out, cuzk_error *err)
{
    if (!n) return CUZK_OK;
    if (e->ext) return e->ext->g2(e->ext->ctx, e->pool, e->fb2.t, e->fb2.w, s, n, out, err);
    return g2_fb_mul_many(e->pool, &e->fb2, s, n, out, err);
}

/* Evaluations at tau of the QAP polynomial of every variable: p[col] = sum_rows coeff * L_row, for the three
 * matrices. Task k takes matrix k % 3 and the k / 3-th of its column range, so that no two tasks write one
 * column: each scans the whole matrix but multiplies only its own entries. */
typedef struct qap_ctx {
    const r1cs *cs;
    const r1cs_matrix *m[3];
    fr_t *out[3];
    const fr_t *lagrange;
    size_t ranges, n_var;
} qap_ctx;

static void qap_eval(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    qap_ctx *q = ctx;
    for (size_t k = begin; k < end; k++) {
        const r1cs_matrix *mx = q->m[k % 3];
        fr_t *p = q->out[k % 3];
        size_t r = k / 3;
        uint32_t lo = (uint32_t)(q->n_var * r / q->ranges), hi = (uint32_t)(q->n_var * (r + 1) / q->ranges);
        for (size_t row = 0; row < mx->rows; row++) {
            for (uint64_t e = mx->row_start[row]; e < mx->row_start[row + 1]; e++) {
                uint32_t c = mx->col[e];
                if (c < lo || c >= hi) continue;
                fr_t t;
                fr_mul(&t, &q->cs->coeffs[mx->coeff[e]], &q->lagrange[row]);
                fr_add(&p[c], &p[c], &t);
            }
        }
    }
}

typedef struct powers_ctx {
    const fr_t *tau;
    fr_t *out;
} powers_ctx;

/* out[i] = tau^i. */
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

typedef struct scale_ctx {
    const fr_t *in, *k;
    fr_t *out;
} scale_ctx;

/* out[i] = k * in[i]. */
static void scale_run(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    scale_ctx *c = ctx;
    for (size_t i = begin; i < end; i++) fr_mul(&c->out[i], &c->in[i], c->k);
}

typedef struct ext_ctx {
    const fr_t *at, *bt;
    fr_t *ct; /* becomes (beta A + alpha B + C) / (gamma for inputs, delta for aux) */
    const groth16_toxic *tw;
    const fr_t *gamma_inv, *delta_inv;
    size_t n_in;
} ext_ctx;

static void ext_run(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    ext_ctx *c = ctx;
    for (size_t v = begin; v < end; v++) {
        fr_t t, u;
        fr_mul(&t, &c->at[v], &c->tw->beta);
        fr_mul(&u, &c->bt[v], &c->tw->alpha);
        fr_add(&t, &t, &u);
        fr_add(&t, &t, &c->ct[v]);
        fr_mul(&c->ct[v], &t, v < c->n_in ? c->gamma_inv : c->delta_inv);
    }
}

/* Compacts the non-zero entries of v[0..n) to its front; returns their number. */
static size_t compact_nonzero(fr_t *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!fr_is_zero(&v[i])) v[k++] = v[i];
    return k;
}

static void wipe_free(void *p, size_t bytes)
{
    if (p) explicit_bzero(p, bytes);
    free(p);
}

static void setup_progress(const groth16_setup_options *opts, const char *step)
{
    if (opts && opts->progress) opts->progress(opts->progress_ctx, step);
}

/* H scalars per chunk: tau^i t(tau) / delta made and multiplied a chunk at a time, never all at once. */
#define H_CHUNK ((size_t)1 << 22)

/* The order of the steps keeps the peak small for partitions of 10^8 constraints (the parameters themselves
 * plus one vector of n_var scalars at the end): H first, in chunks; a, b, c at tau as three separate vectors,
 * each freed once its bases are made; a, b_g1, b_g2 allocated at their filtered lengths. */
cuzk_status groth16_setup_with_toxic(pool_t *pool, const r1cs *cs, const groth16_toxic *tw,
                                     const groth16_setup_options *opts, groth16_params *out, cuzk_error *err)
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
    if (opts && opts->fixed_base && (!opts->fixed_base->g1 || !opts->fixed_base->g2))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: incomplete fixed-base engine");

    domain_t d;
    cuzk_status st = domain_for_size(&d, cs->num_constraints, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "setup: ");
    size_t m = d.m, n_in = cs->num_inputs, n_aux = cs->num_aux, n_var = n_in + n_aux;
    size_t vbytes = (n_var ? n_var : 1) * sizeof(fr_t), hchunk = m - 1 < H_CHUNK ? (m > 1 ? m - 1 : 1) : H_CHUNK;

    fr_t *lag = malloc(m * sizeof(fr_t)), *hs = malloc(hchunk * sizeof(fr_t));
    fr_t *at = NULL, *bt = NULL, *ct = NULL;
    groth16_params p;
    memset(&p, 0, sizeof(p));
    fb_engine fe;
    memset(&fe, 0, sizeof(fe));
    fr_t gamma_inv, delta_inv, zt, hcoeff, one;
    fr_set_one(&one);
    p.vk.ic = malloc(n_in * sizeof(g1_affine_t));
    p.h = malloc((m > 1 ? m - 1 : 1) * sizeof(g1_affine_t));
    if (!lag || !hs || !p.vk.ic || !p.h) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate for %zu variables, domain %zu", n_var, m);
        goto done;
    }
    if ((st = fb_engine_init(&fe, pool, opts, (m - 1) + 3 * n_var, n_var, err)) != CUZK_OK) goto done;
    setup_progress(opts, "generator tables");

    /* t(tau) = tau^m - 1 must not vanish: tau in the domain would make every h base the identity. */
    powers_ctx pc = {&tw->tau, lag};
    pool_parallel_for(pool, m, 4096, powers_run, &pc);
    fr_mul(&zt, &lag[m - 1], &tw->tau);
    fr_sub(&zt, &zt, &one);
    if (fr_is_zero(&zt)) {
        st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: tau is a root of t(x) = x^%zu - 1", m);
        goto done;
    }
    fr_inv(&gamma_inv, &tw->gamma);
    fr_inv(&delta_inv, &tw->delta);

    /* H: tau^i * t(tau) / delta for i < m - 1. */
    fr_mul(&hcoeff, &zt, &delta_inv);
    for (size_t i = 0; i + 1 < m; i += hchunk) {
        size_t c = m - 1 - i < hchunk ? m - 1 - i : hchunk;
        scale_ctx sc = {lag + i, &hcoeff, hs};
        pool_parallel_for(pool, c, 4096, scale_run, &sc);
        if ((st = fb_g1(&fe, hs, c, p.h + i, err)) != CUZK_OK) goto done;
    }
    p.h_len = m - 1;
    setup_progress(opts, "h");

    /* Powers of tau -> Lagrange basis at tau: L_j(tau) = (1/m) sum_i tau^i omega^(-ij). */
    ntt_inverse(pool, &d, lag);
    at = calloc(1, vbytes);
    bt = calloc(1, vbytes);
    ct = calloc(1, vbytes);
    if (!at || !bt || !ct) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate 3 x %zu QAP evaluations", n_var);
        goto done;
    }
    size_t ranges = pool ? pool_size(pool) : 1;
    if (n_var < 4096 * ranges) ranges = 1;
    qap_ctx qc = {cs, {&cs->A, &cs->B, &cs->C}, {at, bt, ct}, lag, ranges, n_var};
    pool_parallel_for(pool, 3 * ranges, 1, qap_eval, &qc);
    wipe_free(lag, m * sizeof(fr_t));
    lag = NULL;
    setup_progress(opts, "QAP at tau");

    /* ic (inputs, / gamma) and l (aux, / delta): (beta * A + alpha * B + C) / divisor, in ct. */
    ext_ctx ec = {at, bt, ct, tw, &gamma_inv, &delta_inv, n_in};
    pool_parallel_for(pool, n_var, 4096, ext_run, &ec);
    for (size_t j = 0; j < n_aux; j++) {
        if (fr_is_zero(&ct[n_in + j])) {
            st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "setup: aux variable %zu is unconstrained", j);
            goto done;
        }
    }
    p.l = malloc((n_aux ? n_aux : 1) * sizeof(g1_affine_t));
    if (!p.l) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate %zu l bases", n_aux);
        goto done;
    }
    if ((st = fb_g1(&fe, ct, n_in, p.vk.ic, err)) != CUZK_OK ||
        (st = fb_g1(&fe, ct + n_in, n_aux, p.l, err)) != CUZK_OK)
        goto done;
    p.vk.ic_len = n_in;
    p.l_len = n_aux;
    wipe_free(ct, vbytes);
    ct = NULL;
    setup_progress(opts, "ic and l");

    /* a, b_g1, b_g2 without the identity points (zero evaluations), as bellperson filters them. */
    size_t na = compact_nonzero(at, n_var);
    if (!(p.a = malloc((na ? na : 1) * sizeof(g1_affine_t)))) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate %zu a bases", na);
        goto done;
    }
    if ((st = fb_g1(&fe, at, na, p.a, err)) != CUZK_OK) goto done;
    p.a_len = na;
    wipe_free(at, vbytes);
    at = NULL;
    setup_progress(opts, "a");

    size_t nb = compact_nonzero(bt, n_var);
    p.b_g1 = malloc((nb ? nb : 1) * sizeof(g1_affine_t));
    p.b_g2 = malloc((nb ? nb : 1) * sizeof(g2_affine_t));
    if (!p.b_g1 || !p.b_g2) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "setup: cannot allocate %zu b bases", nb);
        goto done;
    }
    if ((st = fb_g1(&fe, bt, nb, p.b_g1, err)) != CUZK_OK || (st = fb_g2(&fe, bt, nb, p.b_g2, err)) != CUZK_OK)
        goto done;
    p.b_g1_len = p.b_g2_len = nb;
    setup_progress(opts, "b_g1 and b_g2");

    fr_t s1[3] = {tw->alpha, tw->beta, tw->delta}, s2[3] = {tw->beta, tw->gamma, tw->delta};
    g1_affine_t v1[3];
    g2_affine_t v2[3];
    st = fb_g1(&fe, s1, 3, v1, err);
    if (st == CUZK_OK) st = fb_g2(&fe, s2, 3, v2, err);
    explicit_bzero(s1, sizeof(s1));
    explicit_bzero(s2, sizeof(s2));
    if (st != CUZK_OK) goto done;
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
    wipe_free(lag, m * sizeof(fr_t));
    wipe_free(hs, hchunk * sizeof(fr_t));
    wipe_free(at, vbytes);
    wipe_free(bt, vbytes);
    wipe_free(ct, vbytes);
    explicit_bzero(&gamma_inv, sizeof(gamma_inv));
    explicit_bzero(&delta_inv, sizeof(delta_inv));
    explicit_bzero(&zt, sizeof(zt));
    explicit_bzero(&hcoeff, sizeof(hcoeff));
    fb_engine_free(&fe);
    groth16_params_free(&p);
    return st;
}

cuzk_status groth16_setup_opts(pool_t *pool, const r1cs *cs, const groth16_setup_options *opts, groth16_params *out,
                               cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    groth16_toxic tw;
    cuzk_status st = CUZK_OK;
    fr_t *f[5] = {&tw.alpha, &tw.beta, &tw.gamma, &tw.delta, &tw.tau};
    for (int i = 0; i < 5 && st == CUZK_OK; i++) st = groth16_random_fr(f[i], err);
    if (st == CUZK_OK) st = groth16_setup_with_toxic(pool, cs, &tw, opts, out, err);
    explicit_bzero(&tw, sizeof(tw));
    return st;
}

cuzk_status groth16_setup(pool_t *pool, const r1cs *cs, groth16_params *out, cuzk_error *err)
{
    return groth16_setup_opts(pool, cs, NULL, out, err);
}

cuzk_status groth16_setup_files(pool_t *pool, const r1cs *cs, const groth16_setup_options *opts,
                                const char *params_path, const char *vk_path, cuzk_error *err)
{
    groth16_params p;
    cuzk_status st = groth16_setup_opts(pool, cs, opts, &p, err);
    if (st != CUZK_OK) return st;
    if (params_path) st = groth16_params_write(pool, &p, params_path, err);
    if (st == CUZK_OK && vk_path) st = groth16_vk_write(&p.vk, vk_path, err);
    groth16_params_free(&p);
    return st;
}
