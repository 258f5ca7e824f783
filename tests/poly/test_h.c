/* poly_compute_h in both forms against direct polynomial arithmetic.
 *
 * a, b are random per-constraint values and c = a*b (a satisfied system), so
 * P = A*B - C vanishes on the domain. A, B, C are evaluated off the domain with
 * the Lagrange formula (no NTT involved):
 *   A(x) = (x^m - 1)/m * sum_i a_i psi^i / (x - psi^i).
 * bellperson: H(x) = sum h_i x^i must satisfy P(x) = H(x) (x^m - 1) at random x.
 * snarkjs: h_i must equal P(inc * psi^i) with snarkjs' roots psi = w[log m],
 * inc = w[log m + 1], whatever c holds on input. */
#include <stdlib.h>
#include <string.h>

#include "poly/poly.h"
#include "testutil.h"

static fr_t *alloc_fr(size_t n)
{
    fr_t *p = malloc((n ? n : 1) * sizeof(fr_t));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* Lagrange evaluation at x (not in the domain) of the polynomial with values v[i] at psi^i.
 * scratch holds 2m elements. */
static void lagrange_eval(fr_t *r, const fr_t *v, size_t m, const fr_t *psi, const fr_t *x, fr_t *scratch)
{
    fr_t *den = scratch, *inv = scratch + m, w, acc, t;
    fr_set_one(&w);
    for (size_t i = 0; i < m; i++) {
        fr_sub(&den[i], x, &w);
        fr_mul(&w, &w, psi);
    }
    fr_batch_inv(inv, den, m);
    fr_set_zero(&acc);
    fr_set_one(&w);
    for (size_t i = 0; i < m; i++) {
        fr_mul(&t, &v[i], &w);
        fr_mul(&t, &t, &inv[i]);
        fr_add(&acc, &acc, &t);
        fr_mul(&w, &w, psi);
    }
    uint64_t e = m;
    fr_pow(&t, x, &e, 1);
    fr_t one, minv;
    fr_set_one(&one);
    fr_sub(&t, &t, &one);
    fr_from_u64(&minv, m);
    fr_inv(&minv, &minv);
    fr_mul(&t, &t, &minv);
    fr_mul(r, &acc, &t);
}

/* P(x) = A(x) B(x) - C(x) */
static void p_eval(fr_t *r, const fr_t *a, const fr_t *b, const fr_t *c, size_t m, const fr_t *psi, const fr_t *x,
                   fr_t *scratch)
{
    fr_t va, vb, vc;
    lagrange_eval(&va, a, m, psi, x, scratch);
    lagrange_eval(&vb, b, m, psi, x, scratch);
    lagrange_eval(&vc, c, m, psi, x, scratch);
    fr_mul(r, &va, &vb);
    fr_sub(r, r, &vc);
}

struct inputs {
    size_t m, n;
    fr_t *a, *b, *c; /* the satisfied per-constraint values, zero past n */
};

static void make_inputs(struct inputs *in, size_t m, size_t n, rng_t *rng)
{
    in->m = m;
    in->n = n;
    in->a = alloc_fr(m);
    in->b = alloc_fr(m);
    in->c = alloc_fr(m);
    for (size_t i = 0; i < m; i++) {
        if (i < n) {
            fr_random(&in->a[i], rng);
            fr_random(&in->b[i], rng);
            /* Some constraints with zero sides, as real circuits have. */
            if (rng_next(rng) % 8 == 0) fr_set_zero(&in->b[i]);
        } else {
            fr_set_zero(&in->a[i]);
            fr_set_zero(&in->b[i]);
        }
        fr_mul(&in->c[i], &in->a[i], &in->b[i]);
    }
}

static void free_inputs(struct inputs *in)
{
    free(in->a);
    free(in->b);
    free(in->c);
}

/* Runs poly_compute_h on copies; garbage past n (and in c for snarkjs) must not matter. */
static cuzk_status run_h(pool_t *pool, const domain_t *d, h_form form, const struct inputs *in, fr_t *out, rng_t *rng,
                         int garbage_c)
{
    size_t m = in->m;
    fr_t *a = alloc_fr(m), *b = alloc_fr(m), *c = alloc_fr(m);
    memcpy(a, in->a, m * sizeof(fr_t));
    memcpy(b, in->b, m * sizeof(fr_t));
    memcpy(c, in->c, m * sizeof(fr_t));
    for (size_t i = in->n; i < m; i++) {
        fr_random(&a[i], rng);
        fr_random(&b[i], rng);
        fr_random(&c[i], rng);
    }
    if (garbage_c)
        for (size_t i = 0; i < m; i++) fr_random(&c[i], rng);
    cuzk_error err;
    cuzk_status st = poly_compute_h(pool, d, form, a, b, c, in->n, &err);
    memcpy(out, a, m * sizeof(fr_t));
    free(a);
    free(b);
    free(c);
    return st;
}

static void check_bellperson(pool_t *pool, const domain_t *d, const struct inputs *in, const fr_t *h, rng_t *rng,
                             int points)
{
    size_t m = d->m;
    fr_t *scratch = alloc_fr(2 * m);
    fr_t x, p, hx, z, one;
    fr_set_one(&one);
    for (int t = 0; t < points; t++) {
        fr_random(&x, rng);
        p_eval(&p, in->a, in->b, in->c, m, &d->omega, &x, scratch);
        fr_set_zero(&hx);
        for (size_t i = m - 1; i-- > 0;) { /* Horner over the m-1 coefficients */
            fr_mul(&hx, &hx, &x);
            fr_add(&hx, &hx, &h[i]);
        }
        uint64_t e = m;
        fr_pow(&z, &x, &e, 1);
        fr_sub(&z, &z, &one);
        fr_mul(&hx, &hx, &z);
        CHECK_MSG(fr_eq(&hx, &p), "bellperson m=%zu n=%zu: A(x)B(x) - C(x) != H(x) Z(x)", m, in->n);
    }
    CHECK_MSG(fr_is_zero(&h[m - 1]), "bellperson m=%zu: coefficient m-1 of H is not zero", m);
    (void)pool;
    free(scratch);
}

static void check_snarkjs(const domain_t *d, const struct inputs *in, const fr_t *h, rng_t *rng, size_t points)
{
    size_t m = d->m;
    fr_t *scratch = alloc_fr(2 * m);
    fr_t psi, inc;
    poly_snarkjs_root_of_unity(&psi, d->log_m);
    poly_snarkjs_root_of_unity(&inc, d->log_m + 1);
    size_t bad = 0;
    for (size_t t = 0; t < points; t++) {
        size_t i = points >= m ? t : rng_next(rng) % m;
        if (i >= m) break;
        fr_t x, p;
        uint64_t e = i;
        fr_pow(&x, &psi, &e, 1);
        fr_mul(&x, &x, &inc);
        p_eval(&p, in->a, in->b, in->c, m, &psi, &x, scratch);
        bad += !fr_eq(&p, &h[i]);
    }
    CHECK_MSG(bad == 0, "snarkjs m=%zu n=%zu: %zu values differ from P(inc psi^i)", m, in->n, bad);
    free(scratch);
}

/* bellperson's execute_fft step by step, from the public transforms (seven of them): iNTT, coefficient i times g^i
 * and NTT for each of a, b, c; a*b - c; times 1/(g^m - 1); iNTT and coefficient i times g^-i. */
static void bellperson_reference(pool_t *pool, const domain_t *d, fr_t *a, fr_t *b, fr_t *c)
{
    size_t m = d->m;
    fr_t *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        ntt_inverse(pool, d, v[k]);
        ntt_coset_forward(pool, d, &d->g, v[k]);
    }
    fr_t z, one, g_inv;
    uint64_t e = m;
    fr_pow(&z, &d->g, &e, 1);
    fr_set_one(&one);
    fr_sub(&z, &z, &one);
    fr_inv(&z, &z);
    for (size_t i = 0; i < m; i++) {
        fr_mul(&a[i], &a[i], &b[i]);
        fr_sub(&a[i], &a[i], &c[i]);
        fr_mul(&a[i], &a[i], &z);
    }
    ntt_inverse(pool, d, a);
    fr_inv(&g_inv, &d->g);
    poly_scale_powers(pool, d->log_m, a, &one, &g_inv, 0);
}

/* Any a, b, c, satisfied or not (c random): poly_compute_h's six transforms give bellperson's vector exactly, all m
 * entries. */
static void test_unsatisfied(pool_t *pool, rng_t *rng)
{
    cuzk_error err;
    for (unsigned log_m = 0; log_m <= 12; log_m++) {
        size_t m = (size_t)1 << log_m, n = m == 1 ? 1 : m - rng_next(rng) % (m / 2);
        domain_t d;
        CHECK(domain_for_size(&d, n, &err) == CUZK_OK && d.m == m);
        fr_t *a = alloc_fr(3 * m), *r = alloc_fr(3 * m);
        for (size_t i = 0; i < 3 * m; i++) {
            if (i % m < n)
                fr_random(&a[i], rng);
            else
                fr_set_zero(&a[i]);
        }
        memcpy(r, a, 3 * m * sizeof(fr_t));
        bellperson_reference(pool, &d, r, r + m, r + 2 * m);
        CHECK(poly_compute_h(log_m % 2 ? pool : NULL, &d, H_FORM_BELLPERSON, a, a + m, a + 2 * m, n, &err) == CUZK_OK);
        size_t i = 0;
        while (i < m && fr_eq(&a[i], &r[i])) i++;
        CHECK_MSG(i == m, "m=%zu n=%zu, random c: H differs from bellperson's seven transforms at %zu", m, n, i);
        free(a);
        free(r);
    }
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_h");
    cuzk_error err;
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 3, &err) == CUZK_OK);

    for (unsigned log_m = 0; log_m <= 10; log_m++) {
        size_t m = (size_t)1 << log_m;
        size_t n = m == 1 ? 1 : m / 2 + 1 + rng_next(&rng) % (m / 2);
        domain_t d;
        CHECK(domain_for_size(&d, n, &err) == CUZK_OK && d.m == m);
        struct inputs in;
        make_inputs(&in, m, n, &rng);
        fr_t *h = alloc_fr(m);
        pool_t *p = log_m % 2 ? pool : NULL;
        CHECK(run_h(p, &d, H_FORM_BELLPERSON, &in, h, &rng, 0) == CUZK_OK);
        if (m > 1) check_bellperson(p, &d, &in, h, &rng, 3);
        CHECK(run_h(p, &d, H_FORM_SNARKJS, &in, h, &rng, 1) == CUZK_OK);
        check_snarkjs(&d, &in, h, &rng, m <= 256 ? m : 64);
        free(h);
        free_inputs(&in);
    }

    /* Larger: threaded equals single-threaded, and the same identities at random points. */
    const unsigned large[] = {13, 16};
    for (size_t k = 0; k < sizeof large / sizeof *large; k++) {
        size_t m = (size_t)1 << large[k], n = m - 1 - rng_next(&rng) % 100;
        domain_t d;
        CHECK(domain_for_size(&d, n, &err) == CUZK_OK && d.m == m);
        struct inputs in;
        make_inputs(&in, m, n, &rng);
        fr_t *h1 = alloc_fr(m), *h2 = alloc_fr(m);
        for (int form = 0; form < 2; form++) {
            CHECK(run_h(pool, &d, (h_form)form, &in, h1, &rng, 0) == CUZK_OK);
            CHECK(run_h(NULL, &d, (h_form)form, &in, h2, &rng, form == H_FORM_SNARKJS) == CUZK_OK);
            size_t cmp = form == H_FORM_BELLPERSON ? m - 1 : m;
            CHECK_MSG(memcmp(h1, h2, cmp * sizeof(fr_t)) == 0, "m=%zu form=%d: threaded result differs", m, form);
            if (form == H_FORM_BELLPERSON)
                check_bellperson(pool, &d, &in, h1, &rng, 2);
            else
                check_snarkjs(&d, &in, h1, &rng, 4);
        }
        free(h1);
        free(h2);
        free_inputs(&in);
    }

    test_unsatisfied(pool, &rng);

    /* Argument errors. */
    domain_t d;
    CHECK(domain_for_size(&d, 8, &err) == CUZK_OK);
    fr_t v[8];
    memset(v, 0, sizeof v);
    CHECK(poly_compute_h(pool, &d, H_FORM_BELLPERSON, v, v, v, 9, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(poly_compute_h(pool, &d, (h_form)7, v, v, v, 8, &err) == CUZK_ERR_INVALID_ARG);

    pool_destroy(pool);
    return test_finish("test_h");
}
