/* The optimal ate pairing: bilinearity, non-degeneracy, order r, multi-pairing against products,
 * prepared against unprepared, infinity, the final exponentiation against a generic power, and
 * e(G1, G2) against the value @noble/curves 2.4.0 computes. */
#include <string.h>

#include "ec/pairing.h"
#include "testutil.h"

/* 3 (p^12 - 1) / r, little-endian limbs (python3). The pairing raises to this power, as zcash, blst and
 * noble do (the exact (p^12 - 1) / r would need an extra exponentiation by 1/3 mod r). */
static const uint64_t FINAL_EXP_3[68] = {
    0x42362d2019e05f30ULL, 0x71ec9292b3a3f16eULL, 0xcc14f35af381dd9bULL, 0xaa8e8db57364b4e0ULL, 0xbbd8542f1f4e813cULL,
    0x67448d0357e60280ULL, 0x37e374d545d9b34bULL, 0x0dbe98538990b886ULL, 0x4f37addccc764259ULL, 0xb126a5693d0c1648ULL,
    0xe2fab93c0cbe7336ULL, 0x5be26fa7d750500cULL, 0x0fd55b32bc26877fULL, 0x2789939db85ffd7eULL, 0x8a8dbc483bf8b74cULL,
    0xee57b6df108eff59ULL, 0x44dc2a7f86c253a4ULL, 0x1ab9a096b98465d0ULL, 0xa19abe6ea2accb45ULL, 0xd458de749460d4a2ULL,
    0xefda3b46ebf86211ULL, 0xbf503bd6ec0a0679ULL, 0xee452496f5166c25ULL, 0x533883a3513435f3ULL, 0x0c49ebcd2352765fULL,
    0xdd3ed254fdeda030ULL, 0xf337b31c79222145ULL, 0xdc89d154af91ad54ULL, 0x48986b14d9098746ULL, 0xb600e6c98003bf85ULL,
    0xe543c4bc40bcd4c0ULL, 0x1e5f07600ce6b407ULL, 0x5017931d6740bda7ULL, 0x99edd44084bd2372ULL, 0xb20f28c19e4105abULL,
    0x56cfa8c3574363efULL, 0x376e521070d29c9dULL, 0x24ed5e515911037bULL, 0xa9f5aa7994cec31bULL, 0xc2f98fcdd0dd36caULL,
    0xc2cb543d69430c37ULL, 0xd4c1f3ac25e3167eULL, 0x6f3496b2dd38e722ULL, 0x0c4347bb5a7e405dULL, 0x312d8a7d76233637ULL,
    0x167ff1323d6e99acULL, 0x4dde0523678105d9ULL, 0x4e2513d6e4a5d3bbULL, 0x9f28efa0d355b022ULL, 0x773528bbae870697ULL,
    0x7ab1cd294a502304ULL, 0x4b9783d9c6aa8129ULL, 0x133bdc3ca9412b98ULL, 0x16e296a72928cfeeULL, 0xfb77b732ba5f9948ULL,
    0xa9d6ff3a07dbd34eULL, 0x54207282314fc0deULL, 0x5958cb8bfdae2d2dULL, 0x15eacb2cf3218a16ULL, 0x42009fe1bd6fcbceULL,
    0x913caba6579c08fdULL, 0x7315a664019fbd84ULL, 0x468d8f473094aecbULL, 0x5a2b2fe3bea73dfbULL, 0x7dc671be77cf1771ULL,
    0xdc3e541f9dca04bbULL, 0x96587127a538fd40ULL, 0x0000000008ca5921ULL,
};

/* e(G1, G2), fp12_to_bytes_be order, from @noble/curves: Fp12.toBytes(bls12_381.pairing(G1.BASE, G2.BASE)). */
static const char E_G1_G2_HEX[] =
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6"
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f"
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87"
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f"
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5"
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6"
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d"
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a"
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57"
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2"
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef"
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631";

static void to_affine1(g1_affine_t *r, const g1_jac_t *p)
{
    g1_jac_to_affine(r, p);
}
static void to_affine2(g2_affine_t *r, const g2_jac_t *p)
{
    g2_jac_to_affine(r, p);
}

static void mul1(g1_affine_t *r, const g1_affine_t *p, const fr_t *s)
{
    g1_jac_t j;
    g1_jac_from_affine(&j, p);
    g1_jac_mul_fr(&j, &j, s);
    to_affine1(r, &j);
}

static void mul2(g2_affine_t *r, const g2_affine_t *p, const fr_t *s)
{
    g2_jac_t j;
    g2_jac_from_affine(&j, p);
    g2_jac_mul_fr(&j, &j, s);
    to_affine2(r, &j);
}

static void pow_fr(fp12_t *r, const fp12_t *a, const fr_t *s)
{
    uint64_t k[FR_LIMBS];
    fr_from_mont(k, s);
    fp12_pow(r, a, k, FR_LIMBS);
}

static void random_pair(g1_affine_t *p, g2_affine_t *q, rng_t *rng)
{
    g1_jac_t pj;
    g2_jac_t qj;
    g1_random(&pj, rng);
    g2_random(&qj, rng);
    to_affine1(p, &pj);
    to_affine2(q, &qj);
}

static void test_generator(void)
{
    fp12_t e, t;
    uint8_t got[FP12_BYTES], want[FP12_BYTES];
    pairing(&e, &G1_GENERATOR, &G2_GENERATOR);
    CHECK(!fp12_is_one(&e));
    fp12_pow(&t, &e, FR_MODULUS, FR_LIMBS);
    CHECK(fp12_is_one(&t));
    fp12_to_bytes_be(got, &e);
    CHECK(hex_decode(want, sizeof want, E_G1_G2_HEX) == 0);
    CHECK_MSG(memcmp(got, want, sizeof got) == 0, "e(G1, G2) differs from @noble/curves");
}

static void test_final_exp(rng_t *rng)
{
    fp12_t f, c, t, u;
    fp12_random(&f, rng);
    pairing_final_exp(&t, &f);
    fp12_pow(&u, &f, FINAL_EXP_3, sizeof FINAL_EXP_3 / sizeof FINAL_EXP_3[0]);
    CHECK(fp12_eq(&t, &u));
    fp12_set_zero(&c); /* elements of Fp6 vanish: (p^6 - 1) divides the exponent */
    fp6_random(&c.c0, rng);
    fp12_mul(&u, &f, &c);
    pairing_final_exp(&u, &u);
    CHECK(fp12_eq(&t, &u));
}

static void test_bilinear(rng_t *rng)
{
    for (int i = 0; i < 3; i++) {
        g1_affine_t p, ap, abp;
        g2_affine_t q, bq;
        fr_t a, b, ab;
        fp12_t e, e1, e2, e3;
        random_pair(&p, &q, rng);
        fr_random(&a, rng);
        fr_random(&b, rng);
        fr_mul(&ab, &a, &b);
        mul1(&ap, &p, &a);
        mul2(&bq, &q, &b);
        mul1(&abp, &p, &ab);
        pairing(&e, &p, &q);
        pairing(&e1, &ap, &bq);
        pow_fr(&e2, &e, &ab);
        pairing(&e3, &abp, &q);
        CHECK(fp12_eq(&e1, &e2));
        CHECK(fp12_eq(&e1, &e3));
        CHECK(!fp12_is_one(&e));
        fp12_pow(&e2, &e, FR_MODULUS, FR_LIMBS);
        CHECK(fp12_is_one(&e2));

        g1_affine_t ps[2];
        g2_affine_t qs[2];
        ps[0] = p;
        qs[0] = q;
        g1_affine_neg(&ps[1], &p);
        qs[1] = q;
        CHECK(pairing_check(ps, qs, 2));
        ps[1] = ap; /* e(aP, bQ) e(-abP, Q) = 1 as well, and e(aP, bQ) e(abP, Q) is not */
        qs[1] = bq;
        g1_affine_neg(&ps[0], &abp);
        CHECK(pairing_check(ps, qs, 2));
        ps[0] = abp;
        CHECK(!pairing_check(ps, qs, 2));
    }
}

/* n pairs, one of them with infinity on each side; also n > the loop's chunk of 16. */
static void test_multi(rng_t *rng, size_t n)
{
    g1_affine_t p[20];
    g2_affine_t q[20];
    g2_prepared_t *qp[20];
    fp12_t prod, e, multi, m1, m2;
    cuzk_error err;
    fp12_set_one(&prod);
    for (size_t i = 0; i < n; i++) {
        random_pair(&p[i], &q[i], rng);
        if (i == 1) g1_affine_set_inf(&p[i]);
        if (i == 2) g2_affine_set_inf(&q[i]);
        pairing(&e, &p[i], &q[i]);
        if (i == 1 || i == 2) CHECK(fp12_is_one(&e));
        fp12_mul(&prod, &prod, &e);
        CHECK(g2_prepare(&qp[i], &q[i], &err) == CUZK_OK);
    }
    pairing_multi(&multi, p, q, n);
    CHECK_MSG(fp12_eq(&multi, &prod), "multi-pairing of %zu pairs", n);

    pairing_miller_loop(&m1, p, q, n);
    pairing_miller_loop_prepared(&m2, p, qp, n);
    CHECK(fp12_eq(&m1, &m2));
    pairing_final_exp(&m2, &m2);
    CHECK(fp12_eq(&m2, &prod));
    for (size_t i = 0; i < n; i++) g2_prepared_free(qp[i]);
}

static void test_infinity(rng_t *rng)
{
    g1_affine_t p, pinf;
    g2_affine_t q, qinf;
    fp12_t e;
    random_pair(&p, &q, rng);
    g1_affine_set_inf(&pinf);
    g2_affine_set_inf(&qinf);
    pairing(&e, &pinf, &q);
    CHECK(fp12_is_one(&e));
    pairing(&e, &p, &qinf);
    CHECK(fp12_is_one(&e));
    pairing(&e, &pinf, &qinf);
    CHECK(fp12_is_one(&e));
    pairing_multi(&e, &p, &q, 0);
    CHECK(fp12_is_one(&e));
    CHECK(pairing_check(&pinf, &q, 1));
    CHECK(!pairing_check(&p, &q, 1));

    g2_prepared_t *qp = NULL;
    cuzk_error err;
    CHECK(g2_prepare(&qp, &qinf, &err) == CUZK_OK);
    pairing_miller_loop_prepared(&e, &p, &qp, 1);
    CHECK(fp12_is_one(&e));
    g2_prepared_free(qp);

    g2_affine_t bad = q; /* off the curve */
    fp_t one;
    fp_set_one(&one);
    fp_add(&bad.y.c0, &bad.y.c0, &one);
    qp = NULL;
    CHECK(g2_prepare(&qp, &bad, &err) == CUZK_ERR_NOT_ON_CURVE && qp == NULL);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_pairing");
    test_generator();
    test_final_exp(&rng);
    test_bilinear(&rng);
    test_multi(&rng, 4);
    test_multi(&rng, 19);
    test_infinity(&rng);
    return test_finish("test_pairing");
}
