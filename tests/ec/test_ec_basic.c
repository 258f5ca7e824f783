/* Group laws and subgroup membership on random points; the oracle tests compare with noble. */
#include "ec/g1.h"
#include "ec/g2.h"
#include "testutil.h"

static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                    0x73eda753299d7d48ULL};

#define GROUP_TESTS(G, AFF, JAC, XYZZ, ITERS)                                                                          \
    for (int it = 0; it < ITERS; it++) {                                                                               \
        JAC p, q, s, t, u;                                                                                             \
        AFF pa, qa, sa;                                                                                                \
        G##_random(&p, rng);                                                                                           \
        G##_random(&q, rng);                                                                                           \
        CHECK(G##_jac_is_on_curve(&p));                                                                                \
        G##_jac_add(&s, &p, &q); /* commutativity */                                                                   \
        G##_jac_add(&t, &q, &p);                                                                                       \
        CHECK(G##_jac_eq(&s, &t));                                                                                     \
        G##_jac_to_affine(&qa, &q); /* mixed add = add */                                                              \
        G##_jac_add_affine(&t, &p, &qa);                                                                               \
        CHECK(G##_jac_eq(&s, &t));                                                                                     \
        G##_jac_add(&t, &p, &p); /* add of equal points = dbl */                                                       \
        G##_jac_dbl(&u, &p);                                                                                           \
        CHECK(G##_jac_eq(&t, &u));                                                                                     \
        G##_jac_neg(&t, &p);                                                                                           \
        G##_jac_add(&t, &t, &p);                                                                                       \
        CHECK(G##_jac_is_inf(&t));                                                                                     \
        /* XYZZ agrees with Jacobian */                                                                                \
        XYZZ x1, x2;                                                                                                   \
        G##_jac_to_affine(&pa, &p);                                                                                    \
        G##_xyzz_set_inf(&x1);                                                                                         \
        G##_xyzz_add_affine(&x1, &x1, &pa);                                                                            \
        G##_xyzz_add_affine(&x1, &x1, &qa);                                                                            \
        G##_xyzz_to_jac(&t, &x1);                                                                                      \
        CHECK(G##_jac_eq(&s, &t));                                                                                     \
        G##_xyzz_add_affine(&x2, &x1, &pa);                                                                            \
        G##_xyzz_add(&x1, &x1, &x1);                                                                                   \
        G##_xyzz_dbl(&x2, &x2);                                                                                        \
        G##_jac_dbl(&u, &s);                                                                                           \
        G##_jac_add(&u, &u, &p);                                                                                       \
        G##_jac_dbl(&u, &u); /* 2(2s + p) */                                                                           \
        G##_xyzz_add_affine(&x1, &x1, &pa);                                                                            \
        G##_xyzz_dbl(&x1, &x1);                                                                                        \
        G##_xyzz_to_jac(&t, &x1);                                                                                      \
        CHECK(G##_jac_eq(&u, &t));                                                                                     \
        /* scalar mul: (a+b)P = aP + bP, r P = 0 */                                                                    \
        fr_t a, b, c;                                                                                                  \
        fr_random(&a, rng);                                                                                            \
        fr_random(&b, rng);                                                                                            \
        fr_add(&c, &a, &b);                                                                                            \
        G##_jac_mul_fr(&s, &p, &a);                                                                                    \
        G##_jac_mul_fr(&t, &p, &b);                                                                                    \
        G##_jac_add(&s, &s, &t);                                                                                       \
        G##_jac_mul_fr(&u, &p, &c);                                                                                    \
        CHECK(G##_jac_eq(&s, &u));                                                                                     \
        G##_jac_mul(&t, &p, R_LIMBS, 4);                                                                               \
        CHECK(G##_jac_is_inf(&t));                                                                                     \
        CHECK(G##_affine_in_subgroup(&pa));                                                                            \
        /* random curve points: fast subgroup check agrees with r*P == 0; cofactor clearing */                         \
        G##_random_on_curve(&sa, rng);                                                                                 \
        CHECK(G##_affine_is_on_curve(&sa));                                                                            \
        G##_jac_from_affine(&t, &sa);                                                                                  \
        G##_jac_mul(&u, &t, R_LIMBS, 4);                                                                               \
        CHECK(G##_affine_in_subgroup(&sa) == G##_jac_is_inf(&u));                                                      \
        CHECK(!G##_affine_in_subgroup(&sa));                                                                           \
        G##_clear_cofactor(&t, &t);                                                                                    \
        G##_jac_to_affine(&sa, &t);                                                                                    \
        CHECK(G##_affine_in_subgroup(&sa));                                                                            \
        G##_jac_mul(&u, &t, R_LIMBS, 4);                                                                               \
        CHECK(G##_jac_is_inf(&u));                                                                                     \
        /* batch to affine with infinity inside */                                                                     \
        JAC batch[3] = {p, q, p};                                                                                      \
        G##_jac_set_inf(&batch[1]);                                                                                    \
        AFF outb[3];                                                                                                   \
        G##_batch_to_affine(outb, batch, 3);                                                                           \
        CHECK(G##_affine_eq(&outb[0], &pa) && G##_affine_is_inf(&outb[1]) && G##_affine_eq(&outb[2], &pa));            \
        /* encodings round trip */                                                                                     \
        uint8_t cbuf[sizeof(AFF)], ubuf[2 * sizeof(AFF)];                                                              \
        G##_to_compressed(cbuf, &pa);                                                                                  \
        CHECK(G##_from_compressed(&sa, cbuf, 1, NULL) == CUZK_OK && G##_affine_eq(&sa, &pa));                          \
        G##_to_uncompressed(ubuf, &pa);                                                                                \
        CHECK(G##_from_uncompressed(&sa, ubuf, 1, NULL) == CUZK_OK && G##_affine_eq(&sa, &pa));                        \
    }

static void g1_tests(rng_t *rng)
{
    GROUP_TESTS(g1, g1_affine_t, g1_jac_t, g1_xyzz_t, 100)
}
static void g2_tests(rng_t *rng)
{
    GROUP_TESTS(g2, g2_affine_t, g2_jac_t, g2_xyzz_t, 40)
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_ec_basic");
    CHECK(g1_affine_is_on_curve(&G1_GENERATOR) && g1_affine_in_subgroup(&G1_GENERATOR));
    CHECK(g2_affine_is_on_curve(&G2_GENERATOR) && g2_affine_in_subgroup(&G2_GENERATOR));
    g1_tests(&rng);
    g2_tests(&rng);
    return test_finish("test_ec_basic");
}
