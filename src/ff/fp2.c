#include "ff/fp2.h"

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_add(&r->c0, &a->c0, &b->c0);
    fp_add(&r->c1, &a->c1, &b->c1);
}

void fp2_dbl(fp2_t *r, const fp2_t *a)
{
    fp_dbl(&r->c0, &a->c0);
    fp_dbl(&r->c1, &a->c1);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_sub(&r->c0, &a->c0, &b->c0);
    fp_sub(&r->c1, &a->c1, &b->c1);
}

void fp2_neg(fp2_t *r, const fp2_t *a)
{
    fp_neg(&r->c0, &a->c0);
    fp_neg(&r->c1, &a->c1);
}

/* Karatsuba: three Fp multiplications. */
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_t v0, v1, s, t;
    fp_mul(&v0, &a->c0, &b->c0);
    fp_mul(&v1, &a->c1, &b->c1);
    fp_add(&s, &a->c0, &a->c1);
    fp_add(&t, &b->c0, &b->c1);
    fp_mul(&s, &s, &t);
    fp_sub(&r->c0, &v0, &v1);
    fp_sub(&s, &s, &v0);
    fp_sub(&r->c1, &s, &v1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
void fp2_sqr(fp2_t *r, const fp2_t *a)
{
    fp_t s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&m, &a->c0, &a->c1);
    fp_mul(&r->c0, &s, &d);
    fp_dbl(&r->c1, &m);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b)
{
    fp_mul(&r->c0, &a->c0, b);
    fp_mul(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a)
{
    fp_t t0;
    fp_sub(&t0, &a->c0, &a->c1);
    fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t0;
}

void fp2_conj(fp2_t *r, const fp2_t *a)
{
    r->c0 = a->c0;
    fp_neg(&r->c1, &a->c1);
}

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
void fp2_inv(fp2_t *r, const fp2_t *a)
{
    fp_t n, t;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    fp_inv(&n, &n);
    fp_mul(&r->c0, &a->c0, &n);
    fp_mul(&t, &a->c1, &n);
    fp_neg(&r->c1, &t);
}

void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t nlimbs)
{
    fp2_t acc, base = *a;
    fp2_set_one(&acc);
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) fp2_mul(&acc, &acc, &base);
        }
    }
    *r = acc;
}

/* Square root through the norm: with n = sqrt(a0^2 + a1^2) in Fp, x0 = sqrt((a0 +- n)/2)
 * and x1 = a1 / (2 x0). The result is checked, so any slip reports "not a square". */
int fp2_sqrt(fp2_t *r, const fp2_t *a)
{
    fp2_t x, check;
    if (fp_is_zero(&a->c1)) {
        fp_t s, neg;
        if (fp_sqrt(&s, &a->c0)) {
            x.c0 = s;
            fp_set_zero(&x.c1);
        } else {
            fp_neg(&neg, &a->c0);
            if (!fp_sqrt(&s, &neg)) return 0;
            fp_set_zero(&x.c0);
            x.c1 = s;
        }
    } else {
        fp_t norm, t, n, delta, half, two;
        fp_sqr(&norm, &a->c0);
        fp_sqr(&t, &a->c1);
        fp_add(&norm, &norm, &t);
        if (!fp_sqrt(&n, &norm)) return 0;
        fp_from_u64(&two, 2);
        fp_inv(&half, &two);
        fp_add(&delta, &a->c0, &n);
        fp_mul(&delta, &delta, &half);
        if (fp_legendre(&delta) != 1) {
            fp_sub(&delta, &a->c0, &n);
            fp_mul(&delta, &delta, &half);
        }
        if (!fp_sqrt(&x.c0, &delta)) return 0;
        fp_dbl(&t, &x.c0);
        fp_inv(&t, &t);
        fp_mul(&x.c1, &a->c1, &t);
    }
    fp2_sqr(&check, &x);
    if (!fp2_eq(&check, a)) return 0;
    *r = x;
    return 1;
}

int fp2_is_zero(const fp2_t *a)
{
    return fp_is_zero(&a->c0) && fp_is_zero(&a->c1);
}

int fp2_is_one(const fp2_t *a)
{
    return fp_is_one(&a->c0) && fp_is_zero(&a->c1);
}

int fp2_eq(const fp2_t *a, const fp2_t *b)
{
    return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1);
}

void fp2_set_zero(fp2_t *r)
{
    fp_set_zero(&r->c0);
    fp_set_zero(&r->c1);
}

void fp2_set_one(fp2_t *r)
{
    fp_set_one(&r->c0);
    fp_set_zero(&r->c1);
}

int fp2_is_lexicographically_largest(const fp2_t *a)
{
    if (!fp_is_zero(&a->c1)) return fp_is_lexicographically_largest(&a->c1);
    return fp_is_lexicographically_largest(&a->c0);
}

int fp2_from_bytes_be(fp2_t *r, const uint8_t in[FP2_BYTES])
{
    fp2_t t;
    if (fp_from_bytes_be(&t.c1, in) != 0) return -1;
    if (fp_from_bytes_be(&t.c0, in + FP_BYTES) != 0) return -1;
    *r = t;
    return 0;
}

void fp2_to_bytes_be(uint8_t out[FP2_BYTES], const fp2_t *a)
{
    fp_to_bytes_be(out, &a->c1);
    fp_to_bytes_be(out + FP_BYTES, &a->c0);
}

void fp2_random(fp2_t *r, rng_t *rng)
{
    fp_random(&r->c0, rng);
    fp_random(&r->c1, rng);
}
