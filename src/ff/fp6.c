#include "ff/fp6.h"

/* Frobenius coefficients, Montgomery form, computed with python3 from the field
 * definition; tests/ff/test_tower.c checks them against a^(p^k). */
/* v^(p^k) = FP6_FROB_V[k] * v, i.e. (u+1)^((p^k-1)/3) */
static const fp2_t FP6_FROB_V[6] = {
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 0 */
    {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}},
     {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}}}, /* k = 1 */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 2 */
    {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}},
     {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}}}, /* k = 3 */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 4 */
    {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}},
     {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}}}, /* k = 5 */
};
/* (v^2)^(p^k) = FP6_FROB_V2[k] * v^2, i.e. (u+1)^(2(p^k-1)/3) */
static const fp2_t FP6_FROB_V2[6] = {
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 0 */
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 1 */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 2 */
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 3 */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 4 */
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}}, /* k = 5 */
};

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_add(&r->c0, &a->c0, &b->c0);
    fp2_add(&r->c1, &a->c1, &b->c1);
    fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_dbl(fp6_t *r, const fp6_t *a)
{
    fp2_dbl(&r->c0, &a->c0);
    fp2_dbl(&r->c1, &a->c1);
    fp2_dbl(&r->c2, &a->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_sub(&r->c0, &a->c0, &b->c0);
    fp2_sub(&r->c1, &a->c1, &b->c1);
    fp2_sub(&r->c2, &a->c2, &b->c2);
}

void fp6_neg(fp6_t *r, const fp6_t *a)
{
    fp2_neg(&r->c0, &a->c0);
    fp2_neg(&r->c1, &a->c1);
    fp2_neg(&r->c2, &a->c2);
}

/* Karatsuba over three coefficients: six Fp2 multiplications. */
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_t t0, t1, t2, s, t, c0, c1, c2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);

    fp2_add(&s, &a->c1, &a->c2); /* c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2) */
    fp2_add(&t, &b->c1, &b->c2);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &t1);
    fp2_sub(&s, &s, &t2);
    fp2_mul_by_nonresidue(&s, &s);
    fp2_add(&c0, &s, &t0);

    fp2_add(&s, &a->c0, &a->c1); /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2 */
    fp2_add(&t, &b->c0, &b->c1);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &t0);
    fp2_sub(&s, &s, &t1);
    fp2_mul_by_nonresidue(&t, &t2);
    fp2_add(&c1, &s, &t);

    fp2_add(&s, &a->c0, &a->c2); /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    fp2_add(&t, &b->c0, &b->c2);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &t0);
    fp2_sub(&s, &s, &t2);
    fp2_add(&c2, &s, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* Chung-Hasan SQR2: two multiplications and three squarings in Fp2. */
void fp6_sqr(fp6_t *r, const fp6_t *a)
{
    fp2_t s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&s2, &a->c0, &a->c1);
    fp2_add(&s2, &s2, &a->c2);
    fp2_sqr(&s2, &s2);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_mul_by_nonresidue(&t, &s3);
    fp2_add(&r->c0, &s0, &t);
    fp2_add(&r->c2, &s1, &s2);
    fp2_add(&r->c2, &r->c2, &s3);
    fp2_sub(&r->c2, &r->c2, &s0);
    fp2_sub(&r->c2, &r->c2, &s4);
    fp2_mul_by_nonresidue(&t, &s4);
    fp2_add(&r->c1, &s1, &t);
}

/* With t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2, the product a * (t0 + t1 v + t2 v^2)
 * is the norm-like d = a0 t0 + xi (a2 t1 + a1 t2) in Fp2, so one Fp2 inversion suffices. */
void fp6_inv(fp6_t *r, const fp6_t *a)
{
    fp2_t t0, t1, t2, d, s;
    fp2_sqr(&t0, &a->c0);
    fp2_mul(&s, &a->c1, &a->c2);
    fp2_mul_by_nonresidue(&s, &s);
    fp2_sub(&t0, &t0, &s);

    fp2_sqr(&t1, &a->c2);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_mul(&s, &a->c0, &a->c1);
    fp2_sub(&t1, &t1, &s);

    fp2_sqr(&t2, &a->c1);
    fp2_mul(&s, &a->c0, &a->c2);
    fp2_sub(&t2, &t2, &s);

    fp2_mul(&d, &a->c2, &t1);
    fp2_mul(&s, &a->c1, &t2);
    fp2_add(&d, &d, &s);
    fp2_mul_by_nonresidue(&d, &d);
    fp2_mul(&s, &a->c0, &t0);
    fp2_add(&d, &d, &s);
    fp2_inv(&d, &d);

    fp2_mul(&r->c0, &t0, &d);
    fp2_mul(&r->c1, &t1, &d);
    fp2_mul(&r->c2, &t2, &d);
}

/* (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2 */
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a)
{
    fp2_t t;
    fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void fp6_mul_fp2(fp6_t *r, const fp6_t *a, const fp2_t *b)
{
    fp2_mul(&r->c0, &a->c0, b);
    fp2_mul(&r->c1, &a->c1, b);
    fp2_mul(&r->c2, &a->c2, b);
}

/* (a0 + a1 v + a2 v^2)(b0 + b1 v) = (a0 b0 + xi a2 b1) + (a0 b1 + a1 b0) v + (a1 b1 + a2 b0) v^2,
 * five Fp2 multiplications by Karatsuba. */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
    fp2_t t0, t1, s, t, c0, c1, c2;
    fp2_mul(&t0, &a->c0, b0);
    fp2_mul(&t1, &a->c1, b1);

    fp2_add(&s, &a->c1, &a->c2); /* xi a2 b1 = xi ((a1 + a2) b1 - t1) */
    fp2_mul(&s, &s, b1);
    fp2_sub(&s, &s, &t1);
    fp2_mul_by_nonresidue(&s, &s);
    fp2_add(&c0, &s, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&t, b0, b1);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &t0);
    fp2_sub(&c1, &s, &t1);

    fp2_add(&s, &a->c0, &a->c2); /* a2 b0 = (a0 + a2) b0 - t0 */
    fp2_mul(&s, &s, b0);
    fp2_sub(&s, &s, &t0);
    fp2_add(&c2, &s, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1)
{
    fp2_t c0, c1, c2;
    fp2_mul(&c0, &a->c2, b1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_mul(&c1, &a->c0, b1);
    fp2_mul(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned k)
{
    k %= 6;
    if (k & 1) {
        fp2_conj(&r->c0, &a->c0);
        fp2_conj(&r->c1, &a->c1);
        fp2_conj(&r->c2, &a->c2);
    } else {
        *r = *a;
    }
    fp2_mul(&r->c1, &r->c1, &FP6_FROB_V[k]);
    fp2_mul(&r->c2, &r->c2, &FP6_FROB_V2[k]);
}

int fp6_is_zero(const fp6_t *a)
{
    return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

int fp6_is_one(const fp6_t *a)
{
    return fp2_is_one(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

int fp6_eq(const fp6_t *a, const fp6_t *b)
{
    return fp2_eq(&a->c0, &b->c0) && fp2_eq(&a->c1, &b->c1) && fp2_eq(&a->c2, &b->c2);
}

void fp6_set_zero(fp6_t *r)
{
    fp2_set_zero(&r->c0);
    fp2_set_zero(&r->c1);
    fp2_set_zero(&r->c2);
}

void fp6_set_one(fp6_t *r)
{
    fp2_set_one(&r->c0);
    fp2_set_zero(&r->c1);
    fp2_set_zero(&r->c2);
}

void fp6_random(fp6_t *r, rng_t *rng)
{
    fp2_random(&r->c0, rng);
    fp2_random(&r->c1, rng);
    fp2_random(&r->c2, rng);
}
