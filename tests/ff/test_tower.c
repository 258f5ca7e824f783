/* Fp6/Fp12 tower identities on random elements, against a schoolbook product in the
 * w-basis (Fp12 = Fp2[w] / (w^6 - (u + 1))) and against generic exponentiation. */
#include <string.h>

#include "ff/fp12.h"
#include "testutil.h"

/* The coefficient of w^i (i = 0..5): c0 holds w^0, w^2, w^4 and c1 holds w^1, w^3, w^5. */
static fp2_t *wcoef(fp12_t *a, int i)
{
    fp6_t *h = (i & 1) ? &a->c1 : &a->c0;
    fp2_t *c[3] = {&h->c0, &h->c1, &h->c2};
    return c[i >> 1];
}

static void schoolbook_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp2_t acc[11], t;
    fp12_t ca = *a, cb = *b, out;
    for (int k = 0; k < 11; k++) fp2_set_zero(&acc[k]);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            fp2_mul(&t, wcoef(&ca, i), wcoef(&cb, j));
            fp2_add(&acc[i + j], &acc[i + j], &t);
        }
    for (int k = 0; k < 6; k++) {
        t = k + 6 < 11 ? acc[k + 6] : (fp2_t){0};
        if (k + 6 < 11) fp2_mul_by_nonresidue(&t, &t); /* w^6 = u + 1 */
        fp2_add(wcoef(&out, k), &acc[k], &t);
    }
    *r = out;
}

static void embed6(fp12_t *r, const fp6_t *a)
{
    r->c0 = *a;
    fp6_set_zero(&r->c1);
}

/* A random element of the cyclotomic subgroup: f^((p^6 - 1)(p^2 + 1)). */
static void random_cyclotomic(fp12_t *r, rng_t *rng)
{
    fp12_t f, t;
    fp12_random(&f, rng);
    fp12_inv(&t, &f);
    fp12_conj(&f, &f);
    fp12_mul(&f, &f, &t);
    fp12_frobenius(&t, &f, 2);
    fp12_mul(r, &t, &f);
}

static void test_fp6(rng_t *rng)
{
    for (int i = 0; i < 200; i++) {
        fp6_t a, b, c, t, u;
        fp12_t A, B, T;
        fp6_random(&a, rng);
        fp6_random(&b, rng);
        fp6_mul(&t, &a, &b);
        embed6(&A, &a);
        embed6(&B, &b);
        schoolbook_mul(&T, &A, &B);
        CHECK(fp6_eq(&t, &T.c0) && fp6_is_zero(&T.c1));
        fp6_sqr(&t, &a);
        fp6_mul(&u, &a, &a);
        CHECK(fp6_eq(&t, &u));
        u = a;
        fp6_sqr(&u, &u); /* aliasing */
        CHECK(fp6_eq(&t, &u));
        fp6_inv(&t, &a);
        fp6_mul(&t, &t, &a);
        CHECK(fp6_is_one(&t));

        fp6_set_zero(&c); /* v */
        fp_set_one(&c.c1.c0);
        fp6_mul(&t, &a, &c);
        fp6_mul_by_nonresidue(&u, &a);
        CHECK(fp6_eq(&t, &u));
        c = b; /* sparse products */
        fp2_set_zero(&c.c2);
        fp6_mul(&t, &a, &c);
        fp6_mul_by_01(&u, &a, &c.c0, &c.c1);
        CHECK(fp6_eq(&t, &u));
        fp2_set_zero(&c.c0);
        fp6_mul(&t, &a, &c);
        u = a;
        fp6_mul_by_1(&u, &u, &c.c1);
        CHECK(fp6_eq(&t, &u));
        fp6_mul_fp2(&t, &a, &b.c0);
        fp6_set_zero(&c);
        c.c0 = b.c0;
        fp6_mul(&u, &a, &c);
        CHECK(fp6_eq(&t, &u));

        fp6_add(&t, &a, &b);
        fp6_sub(&t, &t, &b);
        CHECK(fp6_eq(&t, &a));
        fp6_neg(&t, &a);
        fp6_add(&t, &t, &a);
        CHECK(fp6_is_zero(&t));
        fp6_dbl(&t, &a);
        fp6_add(&u, &a, &a);
        CHECK(fp6_eq(&t, &u));

        /* Frobenius: k = 1 against a^p, then each k against k single steps. */
        if (i < 10) {
            fp12_pow(&T, &A, FP_MODULUS, FP_LIMBS);
            fp6_frobenius(&t, &a, 1);
            CHECK(fp6_eq(&t, &T.c0));
        }
        u = a;
        for (unsigned k = 0; k < 6; k++) {
            fp6_frobenius(&t, &a, k);
            CHECK_MSG(fp6_eq(&t, &u), "fp6 frobenius k=%u", k);
            fp6_frobenius(&u, &u, 1);
        }
        CHECK(fp6_eq(&u, &a));
    }
    fp6_t z;
    fp6_set_zero(&z);
    fp6_inv(&z, &z);
    CHECK(fp6_is_zero(&z));
}

static void test_fp12(rng_t *rng)
{
    for (int i = 0; i < 200; i++) {
        fp12_t a, b, t, u;
        fp12_random(&a, rng);
        fp12_random(&b, rng);
        fp12_mul(&t, &a, &b);
        schoolbook_mul(&u, &a, &b);
        CHECK(fp12_eq(&t, &u));
        u = a;
        fp12_mul(&u, &u, &b); /* aliasing */
        CHECK(fp12_eq(&t, &u));
        fp12_sqr(&t, &a);
        fp12_mul(&u, &a, &a);
        CHECK(fp12_eq(&t, &u));
        u = a;
        fp12_sqr(&u, &u);
        CHECK(fp12_eq(&t, &u));
        fp12_inv(&t, &a);
        fp12_mul(&t, &t, &a);
        CHECK(fp12_is_one(&t));
        u = a;
        fp12_inv(&u, &u);
        fp12_mul(&u, &u, &a);
        CHECK(fp12_is_one(&u));
        fp12_add(&t, &a, &b);
        fp12_sub(&t, &t, &b);
        CHECK(fp12_eq(&t, &a));
        fp12_neg(&t, &a);
        fp12_add(&t, &t, &a);
        CHECK(fp12_is_zero(&t));

        /* Line values occupy slots 0, 1 and 4. */
        fp12_t line;
        fp12_set_zero(&line);
        line.c0.c0 = b.c0.c0;
        line.c0.c1 = b.c0.c1;
        line.c1.c1 = b.c1.c1;
        fp12_mul(&t, &a, &line);
        u = a;
        fp12_mul_by_014(&u, &u, &b.c0.c0, &b.c0.c1, &b.c1.c1);
        CHECK(fp12_eq(&t, &u));

        /* Frobenius: k = 1 against a^p, each k against k single steps, p^12 against the identity. */
        if (i < 10) {
            fp12_pow(&t, &a, FP_MODULUS, FP_LIMBS);
            fp12_frobenius(&u, &a, 1);
            CHECK(fp12_eq(&t, &u));
        }
        u = a;
        for (unsigned k = 0; k < 12; k++) {
            fp12_frobenius(&t, &a, k);
            CHECK_MSG(fp12_eq(&t, &u), "fp12 frobenius k=%u", k);
            fp12_frobenius(&u, &u, 1);
        }
        CHECK(fp12_eq(&u, &a));
        fp12_frobenius(&t, &a, 6);
        fp12_conj(&u, &a);
        CHECK(fp12_eq(&t, &u));

        /* Cyclotomic subgroup: Granger-Scott against the generic square, conj against inv, x against pow. */
        fp12_t g;
        random_cyclotomic(&g, rng);
        fp12_sqr(&t, &g);
        u = g;
        fp12_cyclotomic_sqr(&u, &u);
        CHECK(fp12_eq(&t, &u));
        fp12_conj(&t, &g);
        fp12_inv(&u, &g);
        CHECK(fp12_eq(&t, &u));
        if (i < 20) {
            const uint64_t x_abs = 0xd201000000010000ULL;
            fp12_pow(&t, &g, &x_abs, 1);
            fp12_inv(&t, &t);
            u = g;
            fp12_cyclotomic_exp_x(&u, &u);
            CHECK(fp12_eq(&t, &u));
        }
    }
    fp12_t z;
    fp12_set_zero(&z);
    fp12_inv(&z, &z);
    CHECK(fp12_is_zero(&z));
}

/* The byte order is fixed by the noble comparison: coefficient k (0..11) in the listed order holds k + 1. */
static void test_bytes(void)
{
    fp12_t a;
    fp_t *slots[12] = {&a.c0.c0.c0, &a.c0.c0.c1, &a.c0.c1.c0, &a.c0.c1.c1, &a.c0.c2.c0, &a.c0.c2.c1,
                       &a.c1.c0.c0, &a.c1.c0.c1, &a.c1.c1.c0, &a.c1.c1.c1, &a.c1.c2.c0, &a.c1.c2.c1};
    for (int k = 0; k < 12; k++) fp_from_u64(slots[k], (uint64_t)k + 1);
    uint8_t out[FP12_BYTES], want[FP12_BYTES];
    memset(want, 0, sizeof want);
    for (int k = 0; k < 12; k++) want[FP_BYTES * k + FP_BYTES - 1] = (uint8_t)(k + 1);
    fp12_to_bytes_be(out, &a);
    CHECK(memcmp(out, want, sizeof out) == 0);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_tower");
    test_fp6(&rng);
    test_fp12(&rng);
    test_bytes();
    return test_finish("test_tower");
}
