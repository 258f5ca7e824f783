#include "ff/fp12.h"

/* Frobenius coefficients, Montgomery form, computed with python3 from the field
 * definition; tests/ff/test_tower.c checks them against a^(p^k). */
/* w^(p^k) = FP12_FROB_W[k] * w, i.e. (u+1)^((p^k-1)/6) */
static const fp2_t FP12_FROB_W[12] = {
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 0 */
    {{{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}},
     {{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}}}, /* k = 1 */
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 2 */
    {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
     {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}}, /* k = 3 */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 4 */
    {{{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL,
       0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}},
     {{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL,
       0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}}}, /* k = 5 */
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 6 */
    {{{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}},
     {{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}}}, /* k = 7 */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 8 */
    {{{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
     {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}}}, /* k = 9 */
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 10 */
    {{{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL,
       0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}},
     {{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL,
       0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}}}, /* k = 11 */
};

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define BLS_X_ABS 0xd201000000010000ULL

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_add(&r->c0, &a->c0, &b->c0);
    fp6_add(&r->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_sub(&r->c0, &a->c0, &b->c0);
    fp6_sub(&r->c1, &a->c1, &b->c1);
}

void fp12_neg(fp12_t *r, const fp12_t *a)
{
    fp6_neg(&r->c0, &a->c0);
    fp6_neg(&r->c1, &a->c1);
}

/* Karatsuba: three Fp6 multiplications. */
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_t t0, t1, s, t;
    fp6_mul(&t0, &a->c0, &b->c0);
    fp6_mul(&t1, &a->c1, &b->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_add(&t, &b->c0, &b->c1);
    fp6_mul(&s, &s, &t);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&r->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
}

/* Complex squaring: with t = a0 a1, a^2 = ((a0 + a1)(a0 + v a1) - t - v t) + 2t w. */
void fp12_sqr(fp12_t *r, const fp12_t *a)
{
    fp6_t t, s, u;
    fp6_mul(&t, &a->c0, &a->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_nonresidue(&u, &a->c1);
    fp6_add(&u, &u, &a->c0);
    fp6_mul(&s, &s, &u);
    fp6_sub(&s, &s, &t);
    fp6_mul_by_nonresidue(&u, &t);
    fp6_sub(&r->c0, &s, &u);
    fp6_dbl(&r->c1, &t);
}

/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
void fp12_inv(fp12_t *r, const fp12_t *a)
{
    fp6_t d, t;
    fp6_sqr(&d, &a->c0);
    fp6_sqr(&t, &a->c1);
    fp6_mul_by_nonresidue(&t, &t);
    fp6_sub(&d, &d, &t);
    fp6_inv(&d, &d);
    fp6_mul(&r->c0, &a->c0, &d);
    fp6_mul(&t, &a->c1, &d);
    fp6_neg(&r->c1, &t);
}

void fp12_conj(fp12_t *r, const fp12_t *a)
{
    r->c0 = a->c0;
    fp6_neg(&r->c1, &a->c1);
}

void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned k)
{
    k %= 12;
    fp6_frobenius(&r->c0, &a->c0, k);
    fp6_frobenius(&r->c1, &a->c1, k);
    fp6_mul_fp2(&r->c1, &r->c1, &FP12_FROB_W[k]);
}

/* (a + b s)^2 in Fp4 = Fp2[s] / (s^2 - (u + 1)): three Fp2 squarings. */
static void fp4_sqr(fp2_t *r0, fp2_t *r1, const fp2_t *a, const fp2_t *b)
{
    fp2_t t, u;
    fp2_sqr(&t, a);
    fp2_sqr(&u, b);
    fp2_add(r1, a, b);
    fp2_sqr(r1, r1);
    fp2_sub(r1, r1, &t);
    fp2_sub(r1, r1, &u);
    fp2_mul_by_nonresidue(&u, &u);
    fp2_add(r0, &u, &t);
}

/* Granger-Scott: with s = w^3, Fp12 = Fp4[w] / (w^3 - s) and a = A + B w + C w^2 where
 * A = c0.c0 + c1.c1 s, B = c1.c0 + c0.c2 s, C = c0.c1 + c1.c2 s. On the cyclotomic subgroup
 * a^2 = (3A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w + (3B^2 - 2 conj(C)) w^2, conj(x + y s) = x - y s. */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a)
{
    fp2_t z0, z1, t;
    fp12_t out;

    fp4_sqr(&z0, &z1, &a->c0.c0, &a->c1.c1); /* A */
    fp2_sub(&t, &z0, &a->c0.c0);
    fp2_dbl(&t, &t);
    fp2_add(&out.c0.c0, &t, &z0);
    fp2_add(&t, &z1, &a->c1.c1);
    fp2_dbl(&t, &t);
    fp2_add(&out.c1.c1, &t, &z1);

    fp4_sqr(&z0, &z1, &a->c0.c1, &a->c1.c2); /* B from s C^2 = xi z1 + z0 s */
    fp2_mul_by_nonresidue(&z1, &z1);
    fp2_add(&t, &z1, &a->c1.c0);
    fp2_dbl(&t, &t);
    fp2_add(&out.c1.c0, &t, &z1);
    fp2_sub(&t, &z0, &a->c0.c2);
    fp2_dbl(&t, &t);
    fp2_add(&out.c0.c2, &t, &z0);

    fp4_sqr(&z0, &z1, &a->c1.c0, &a->c0.c2); /* C */
    fp2_sub(&t, &z0, &a->c0.c1);
    fp2_dbl(&t, &t);
    fp2_add(&out.c0.c1, &t, &z0);
    fp2_add(&t, &z1, &a->c1.c2);
    fp2_dbl(&t, &t);
    fp2_add(&out.c1.c2, &t, &z1);

    *r = out;
}

/* x is negative: raise to |x| with cyclotomic squarings, then conjugate (the inverse here). */
void fp12_cyclotomic_exp_x(fp12_t *r, const fp12_t *a)
{
    fp12_t base = *a, acc = *a;
    for (int bit = 62; bit >= 0; bit--) {
        fp12_cyclotomic_sqr(&acc, &acc);
        if ((BLS_X_ABS >> bit) & 1) fp12_mul(&acc, &acc, &base);
    }
    fp12_conj(r, &acc);
}

/* With L0 = b0 + b1 v and L1 = b4 v: a L = (a0 L0 + v a1 L1) + ((a0 + a1)(L0 + L1) - a0 L0 - a1 L1) w. */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *b0, const fp2_t *b1, const fp2_t *b4)
{
    fp6_t t0, t1, s;
    fp2_t b14;
    fp6_mul_by_01(&t0, &a->c0, b0, b1);
    fp6_mul_by_1(&t1, &a->c1, b4);
    fp2_add(&b14, b1, b4);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_01(&s, &s, b0, &b14);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&r->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
}

void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t nlimbs)
{
    fp12_t acc, base = *a;
    fp12_set_one(&acc);
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) fp12_mul(&acc, &acc, &base);
        }
    }
    *r = acc;
}

int fp12_is_zero(const fp12_t *a)
{
    return fp6_is_zero(&a->c0) && fp6_is_zero(&a->c1);
}

int fp12_is_one(const fp12_t *a)
{
    return fp6_is_one(&a->c0) && fp6_is_zero(&a->c1);
}

int fp12_eq(const fp12_t *a, const fp12_t *b)
{
    return fp6_eq(&a->c0, &b->c0) && fp6_eq(&a->c1, &b->c1);
}

void fp12_set_zero(fp12_t *r)
{
    fp6_set_zero(&r->c0);
    fp6_set_zero(&r->c1);
}

void fp12_set_one(fp12_t *r)
{
    fp6_set_one(&r->c0);
    fp6_set_zero(&r->c1);
}

void fp12_to_bytes_be(uint8_t out[FP12_BYTES], const fp12_t *a)
{
    const fp6_t *halves[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        const fp2_t *c[3] = {&halves[i]->c0, &halves[i]->c1, &halves[i]->c2};
        for (int j = 0; j < 3; j++) {
            fp_to_bytes_be(out, &c[j]->c0);
            fp_to_bytes_be(out + FP_BYTES, &c[j]->c1);
            out += 2 * FP_BYTES;
        }
    }
}

void fp12_random(fp12_t *r, rng_t *rng)
{
    fp6_random(&r->c0, rng);
    fp6_random(&r->c1, rng);
}
