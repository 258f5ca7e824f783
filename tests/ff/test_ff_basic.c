/* Field identities on random elements; the oracle tests compare against noble. */
#include "ff/fp2.h"
#include "ff/fr.h"
#include "testutil.h"

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_ff_basic");
    for (int i = 0; i < 2000; i++) {
        fp_t a, b, c, t, u;
        fp_random(&a, &rng);
        fp_random(&b, &rng);
        fp_random(&c, &rng);
        fp_mul(&t, &a, &b); /* commutativity and distributivity */
        fp_mul(&u, &b, &a);
        CHECK(fp_eq(&t, &u));
        fp_add(&t, &b, &c);
        fp_mul(&t, &a, &t);
        fp_mul(&u, &a, &b);
        fp_mul(&b, &a, &c);
        fp_add(&u, &u, &b);
        CHECK(fp_eq(&t, &u));
        fp_inv(&t, &a);
        fp_mul(&t, &t, &a);
        CHECK(fp_is_one(&t));
        fp_sub(&t, &a, &c);
        fp_add(&t, &t, &c);
        CHECK(fp_eq(&t, &a));
        fp_sqr(&t, &a);
        CHECK(fp_sqrt(&u, &t) && (fp_eq(&u, &a) || (fp_neg(&u, &u), fp_eq(&u, &a))));
        CHECK(fp_legendre(&t) == 1);
        uint8_t buf[FP_BYTES];
        fp_to_bytes_be(buf, &a);
        CHECK(fp_from_bytes_be(&t, buf) == 0 && fp_eq(&t, &a));
        fp_to_bytes_le(buf, &a);
        CHECK(fp_from_bytes_le(&t, buf) == 0 && fp_eq(&t, &a));

        fr_t x, y, z;
        fr_random(&x, &rng);
        fr_inv(&y, &x);
        fr_mul(&z, &x, &y);
        CHECK(fr_is_one(&z));

        fp2_t p, q, s;
        fp2_random(&p, &rng);
        fp2_inv(&q, &p);
        fp2_mul(&s, &p, &q);
        CHECK(fp2_is_one(&s));
        fp2_sqr(&s, &p);
        fp2_mul(&q, &p, &p);
        CHECK(fp2_eq(&s, &q));
        CHECK(fp2_sqrt(&q, &s));
        fp2_sqr(&q, &q);
        CHECK(fp2_eq(&q, &s));
    }
    /* p itself and all-ones must be rejected */
    uint8_t pb[FP_BYTES];
    for (int i = 0; i < FP_LIMBS; i++)
        for (int k = 0; k < 8; k++) pb[FP_BYTES - 1 - (8 * i + k)] = (uint8_t)(FP_MODULUS[i] >> (8 * k));
    fp_t t;
    CHECK(fp_from_bytes_be(&t, pb) == -1);
    fr_t w;
    fr_root_of_unity(&w, 32);
    for (int i = 0; i < 31; i++) fr_sqr(&w, &w);
    CHECK(!fr_is_one(&w));
    fr_sqr(&w, &w);
    CHECK(fr_is_one(&w));
    return test_finish("test_ff_basic");
}
