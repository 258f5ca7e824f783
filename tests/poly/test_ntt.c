/* NTT against direct evaluation: the naive DFT for small sizes, Horner spot
 * checks for large ones (they reach the tiled passes and the split twiddle
 * table), inverse after forward, cosets, snarkjs' roots, and multi-threaded
 * against single-threaded results. */
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

static void random_vec(fr_t *v, size_t n, rng_t *rng)
{
    for (size_t i = 0; i < n; i++) fr_random(&v[i], rng);
}

/* sum_i a_i x^i */
static void horner(fr_t *r, const fr_t *a, size_t n, const fr_t *x)
{
    fr_t acc;
    fr_set_zero(&acc);
    for (size_t i = n; i-- > 0;) {
        fr_mul(&acc, &acc, x);
        fr_add(&acc, &acc, &a[i]);
    }
    *r = acc;
}

static void pow_u64(fr_t *r, const fr_t *a, uint64_t e)
{
    fr_pow(r, a, &e, 1);
}

static size_t rev_bits(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static int vec_eq(const fr_t *a, const fr_t *b, size_t n)
{
    return memcmp(a, b, n * sizeof(fr_t)) == 0;
}

/* Every output against the naive DFT, for both public directions and both building blocks. */
static void check_small(pool_t *pool, unsigned log_m, rng_t *rng)
{
    domain_t d;
    cuzk_error err;
    CHECK(domain_for_size(&d, ((size_t)1 << log_m) - (log_m > 1), &err) == CUZK_OK && d.log_m == log_m);
    size_t m = d.m;
    fr_t *x = alloc_fr(m), *y = alloc_fr(m), *want = alloc_fr(m), *coset = alloc_fr(m);
    random_vec(x, m, rng);
    fr_t shift;
    fr_random(&shift, rng);

    size_t bad_fwd = 0, bad_inv = 0, bad_coset = 0;
    fr_t w;
    fr_set_one(&w);
    for (size_t k = 0; k < m; k++) { /* want[k] = X(omega^k) */
        horner(&want[k], x, m, &w);
        fr_t sw;
        fr_mul(&sw, &shift, &w);
        horner(&coset[k], x, m, &sw);
        fr_mul(&w, &w, &d.omega);
    }
    memcpy(y, x, m * sizeof(fr_t));
    ntt_forward(pool, &d, y);
    for (size_t k = 0; k < m; k++) bad_fwd += !fr_eq(&y[k], &want[k]);
    ntt_inverse(pool, &d, y);
    for (size_t k = 0; k < m; k++) bad_inv += !fr_eq(&y[k], &x[k]);
    memcpy(y, x, m * sizeof(fr_t));
    ntt_coset_forward(pool, &d, &shift, y);
    for (size_t k = 0; k < m; k++) bad_coset += !fr_eq(&y[k], &coset[k]);
    ntt_coset_inverse(pool, &d, &shift, y);
    for (size_t k = 0; k < m; k++) bad_coset += !fr_eq(&y[k], &x[k]);
    CHECK_MSG(bad_fwd == 0, "m=%zu: %zu forward values differ from the naive DFT", m, bad_fwd);
    CHECK_MSG(bad_inv == 0, "m=%zu: %zu values not restored by the inverse", m, bad_inv);
    CHECK_MSG(bad_coset == 0, "m=%zu: %zu coset values wrong", m, bad_coset);

    /* ntt_ct: natural in, bit-reversed out, for both chains and directions; ntt_gs undoes it up to m. */
    for (int roots = 0; roots < 2; roots++) {
        for (int inv = 0; inv < 2; inv++) {
            fr_t psi;
            if (roots == POLY_ROOTS_SNARKJS)
                poly_snarkjs_root_of_unity(&psi, log_m);
            else
                fr_root_of_unity(&psi, log_m);
            if (inv) fr_inv(&psi, &psi);
            memcpy(y, x, m * sizeof(fr_t));
            ntt_ct(pool, log_m, (poly_roots)roots, inv, y);
            size_t bad = 0;
            for (size_t p = 0; p < m; p++) {
                fr_t pt, v;
                pow_u64(&pt, &psi, rev_bits(p, log_m));
                horner(&v, x, m, &pt);
                bad += !fr_eq(&v, &y[p]);
            }
            CHECK_MSG(bad == 0, "m=%zu roots=%d inverse=%d: ntt_ct has %zu wrong values", m, roots, inv, bad);
            /* gs with psi^-1 after ct with psi gives m * x. */
            ntt_gs(pool, log_m, (poly_roots)roots, !inv, y);
            fr_t minv;
            fr_from_u64(&minv, m);
            fr_inv(&minv, &minv);
            bad = 0;
            for (size_t i = 0; i < m; i++) {
                fr_mul(&y[i], &y[i], &minv);
                bad += !fr_eq(&y[i], &x[i]);
            }
            CHECK_MSG(bad == 0, "m=%zu roots=%d inverse=%d: ntt_gs does not undo ntt_ct", m, roots, inv);
        }
    }
    free(x);
    free(y);
    free(want);
    free(coset);
}

/* Large sizes: spot checks against Horner, inverse after forward, coset round trip, threads. */
static void check_large(pool_t *pool, unsigned log_m, rng_t *rng)
{
    domain_t d;
    cuzk_error err;
    CHECK(domain_for_size(&d, (size_t)1 << log_m, &err) == CUZK_OK);
    size_t m = d.m;
    fr_t *x = alloc_fr(m), *y = alloc_fr(m), *z = alloc_fr(m);
    random_vec(x, m, rng);
    memcpy(y, x, m * sizeof(fr_t));
    ntt_forward(pool, &d, y);
    memcpy(z, x, m * sizeof(fr_t));
    ntt_forward(NULL, &d, z);
    CHECK_MSG(vec_eq(y, z, m), "m=%zu: multi-threaded forward differs from single-threaded", m);
    size_t bad = 0;
    for (int t = 0; t < 6; t++) {
        size_t k = t == 0 ? 0 : t == 1 ? m - 1 : rng_next(rng) % m;
        fr_t pt, v;
        pow_u64(&pt, &d.omega, k);
        horner(&v, x, m, &pt);
        bad += !fr_eq(&v, &y[k]);
    }
    CHECK_MSG(bad == 0, "m=%zu: %zu spot-checked forward values wrong", m, bad);
    ntt_inverse(pool, &d, y);
    CHECK_MSG(vec_eq(y, x, m), "m=%zu: inverse(forward(x)) != x", m);

    /* The building blocks, threaded vs not, snarkjs chain. */
    memcpy(y, x, m * sizeof(fr_t));
    memcpy(z, x, m * sizeof(fr_t));
    ntt_gs(pool, log_m, POLY_ROOTS_SNARKJS, 1, y);
    ntt_gs(NULL, log_m, POLY_ROOTS_SNARKJS, 1, z);
    CHECK_MSG(vec_eq(y, z, m), "m=%zu: multi-threaded ntt_gs differs", m);
    fr_t psi, v;
    poly_snarkjs_root_of_unity(&psi, log_m);
    fr_inv(&psi, &psi);
    size_t k = rng_next(rng) % m;
    pow_u64(&psi, &psi, k);
    /* ntt_gs(x)[k] = sum_j x[rev(j)] psi^(jk): Horner over the un-bit-reversed input. */
    for (size_t j = 0; j < m; j++) z[j] = x[rev_bits(j, log_m)];
    horner(&v, z, m, &psi);
    CHECK_MSG(fr_eq(&v, &y[k]), "m=%zu: ntt_gs value %zu wrong", m, k);

    fr_t shift;
    fr_random(&shift, rng);
    memcpy(y, x, m * sizeof(fr_t));
    ntt_coset_forward(pool, &d, &shift, y);
    k = rng_next(rng) % m;
    fr_t pt;
    pow_u64(&pt, &d.omega, k);
    fr_mul(&pt, &pt, &shift);
    horner(&v, x, m, &pt);
    CHECK_MSG(fr_eq(&v, &y[k]), "m=%zu: coset value %zu wrong", m, k);
    ntt_coset_inverse(pool, &d, &shift, y);
    CHECK_MSG(vec_eq(y, x, m), "m=%zu: coset inverse(coset forward(x)) != x", m);
    free(x);
    free(y);
    free(z);
}

static void check_roots(void)
{
    /* 5^((r-1)/2^32), computed independently (Python pow), canonical big-endian. */
    static const char *w32 = "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f";
    uint8_t be[FR_BYTES];
    fr_t want, w, t;
    CHECK(hex_decode(be, FR_BYTES, w32) == 0 && fr_from_bytes_be(&want, be) == 0);
    poly_snarkjs_root_of_unity(&w, 32);
    CHECK(fr_eq(&w, &want));
    /* 5 is the smallest non-residue: ffjavascript's nqr. */
    for (uint64_t v = 2; v <= 5; v++) {
        fr_from_u64(&t, v);
        CHECK_MSG(fr_legendre(&t) == (v == 5 ? -1 : 1), "legendre(%llu)", (unsigned long long)v);
    }
    for (unsigned k = 0; k <= 32; k++) { /* primitive 2^k-th roots, each the square of the next */
        fr_t r, s;
        poly_snarkjs_root_of_unity(&r, k);
        s = r;
        for (unsigned i = 0; i < k; i++) fr_sqr(&s, &s);
        CHECK(fr_is_one(&s));
        if (k > 0) {
            s = r;
            for (unsigned i = 0; i + 1 < k; i++) fr_sqr(&s, &s);
            CHECK(!fr_is_one(&s));
        }
    }
    fr_root_of_unity(&t, 32);
    CHECK(!fr_eq(&t, &w)); /* the two chains differ */
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_ntt");
    cuzk_error err;
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 4, &err) == CUZK_OK);

    check_roots();
    domain_t d;
    CHECK(domain_for_size(&d, 0, &err) == CUZK_OK && d.m == 1);
    CHECK(domain_for_size(&d, ((size_t)1 << POLY_MAX_LOG) + 1, &err) != CUZK_OK);
    CHECK(domain_for_size(&d, 1000, &err) == CUZK_OK && d.m == 1024 && d.log_m == 10);

    for (unsigned log_m = 0; log_m <= 10; log_m++) check_small(log_m % 2 ? pool : NULL, log_m, &rng);
    const unsigned large[] = {12, 13, 16, 18, 19};
    for (size_t i = 0; i < sizeof large / sizeof *large; i++) check_large(pool, large[i], &rng);

    pool_destroy(pool);
    return test_finish("test_ntt");
}
