#include <stdlib.h>

#include "ec/pairing.h"

/* |x| for the BLS parameter x = -0xd201000000010000: the Miller loop runs over its bits 62..0
 * below the top one, a doubling each and an addition for each of the five other set bits. */
#define BLS_X_ABS 0xd201000000010000ULL
#define MILLER_LINES (63 + 5)
/* Pairs processed together in one pass of the shared loop; more pairs take more passes, whose
 * results are multiplied (stack use stays bounded without allocation). */
#define MILLER_CHUNK 16

/* A line value l(P) = a + (b xP) v + (c yP) v w, scaled by a factor in Fp2 (which the final
 * exponentiation removes). M-type twist: psi(x', y') = (x' / w^2, y' / w^3), and the line through
 * twist points with slope s' evaluated at P, times w^3, is (s' x'T - y'T) - s' xP v + yP v w. */
typedef struct line {
    fp2_t a, b, c;
} line_t;

/* Homogeneous projective point on the twist: (X/Z, Y/Z). */
typedef struct g2_proj {
    fp2_t x, y, z;
} g2_proj_t;

struct g2_prepared {
    int inf;
    line_t lines[MILLER_LINES];
};

/* T = 2T, scaled by 4 to avoid halvings (Costello-Lange-Naehrig 2010 for y^2 = x^3 + b', b' = 4(u+1)):
 * X3 = 2XY(Y^2 - 9b'Z^2), Y3 = (Y^2 + 9b'Z^2)^2 - 108 b'^2 Z^4, Z3 = 8 Y^3 Z.
 * Tangent slope 3X^2 / (2YZ); the line times 2YZ is (Y^2 - 3b'Z^2) - 3X^2 xP v + 2YZ yP v w. */
static void dbl_step(line_t *l, g2_proj_t *t)
{
    fp2_t a, b, c, d, e, s;
    fp2_sqr(&a, &t->x);
    fp2_sqr(&b, &t->y);
    fp2_sqr(&c, &t->z);
    fp2_mul_by_nonresidue(&d, &c); /* d = 3b'Z^2 = 12 (u+1) Z^2 */
    fp2_dbl(&d, &d);
    fp2_dbl(&d, &d);
    fp2_dbl(&s, &d);
    fp2_add(&d, &d, &s);
    fp2_add(&e, &t->y, &t->z); /* e = 2YZ */
    fp2_sqr(&e, &e);
    fp2_sub(&e, &e, &b);
    fp2_sub(&e, &e, &c);

    fp2_sub(&l->a, &b, &d);
    fp2_dbl(&s, &a);
    fp2_add(&s, &s, &a);
    fp2_neg(&l->b, &s);
    l->c = e;

    fp2_mul(&s, &t->x, &t->y); /* X3 = 2XY (B - 3D) */
    fp2_dbl(&s, &s);
    fp2_dbl(&c, &d);
    fp2_add(&c, &c, &d);
    fp2_sub(&a, &b, &c);
    fp2_mul(&t->x, &s, &a);
    fp2_add(&a, &b, &c); /* Y3 = (B + 3D)^2 - 12 D^2 */
    fp2_sqr(&a, &a);
    fp2_sqr(&d, &d);
    fp2_dbl(&d, &d);
    fp2_dbl(&d, &d);
    fp2_dbl(&s, &d);
    fp2_add(&d, &d, &s);
    fp2_sub(&t->y, &a, &d);
    fp2_dbl(&b, &b); /* Z3 = 4B * 2YZ */
    fp2_dbl(&b, &b);
    fp2_mul(&t->z, &b, &e);
}

/* T = T + Q with Q affine and T != +-Q (T = kQ with 1 < k < |x| < r in the loop).
 * With theta = Y - yQ Z and lambda = X - xQ Z (slope theta/lambda), the line times lambda is
 * (theta xQ - lambda yQ) - theta xP v + lambda yP v w. */
static void add_step(line_t *l, g2_proj_t *t, const g2_affine_t *q)
{
    fp2_t th, lam, c, d, e, f, g, h;
    fp2_mul(&th, &q->y, &t->z);
    fp2_sub(&th, &t->y, &th);
    fp2_mul(&lam, &q->x, &t->z);
    fp2_sub(&lam, &t->x, &lam);

    fp2_mul(&c, &th, &q->x);
    fp2_mul(&d, &lam, &q->y);
    fp2_sub(&l->a, &c, &d);
    fp2_neg(&l->b, &th);
    l->c = lam;

    fp2_sqr(&c, &th);
    fp2_sqr(&d, &lam);
    fp2_mul(&e, &lam, &d);
    fp2_mul(&f, &t->z, &c);
    fp2_mul(&g, &t->x, &d);
    fp2_add(&h, &e, &f); /* H = E + F - 2G */
    fp2_sub(&h, &h, &g);
    fp2_sub(&h, &h, &g);
    fp2_mul(&t->x, &lam, &h);
    fp2_sub(&g, &g, &h); /* Y3 = theta (G - H) - E Y */
    fp2_mul(&g, &th, &g);
    fp2_mul(&f, &e, &t->y);
    fp2_sub(&t->y, &g, &f);
    fp2_mul(&t->z, &t->z, &e);
}

static void line_eval(fp12_t *f, const line_t *l, const g1_affine_t *p)
{
    fp2_t b, c;
    fp2_mul_fp(&b, &l->b, &p->x);
    fp2_mul_fp(&c, &l->c, &p->y);
    fp12_mul_by_014(f, f, &l->a, &b, &c);
}

/* One pair of the shared loop: either an accumulator T walking from Q, or stored lines. */
typedef struct miller_pair {
    const g1_affine_t *p;
    const g2_affine_t *q;
    g2_proj_t t;
    const line_t *lines;
} miller_pair_t;

static void next_line(line_t *l, const line_t **out, miller_pair_t *m, int step, int is_add)
{
    if (m->lines) {
        *out = &m->lines[step];
        return;
    }
    if (is_add)
        add_step(l, &m->t, m->q);
    else
        dbl_step(l, &m->t);
    *out = l;
}

/* f = prod_j f_{x, Q_j}(P_j) for n pairs, none at infinity. x < 0, so the product over |x| is
 * conjugated at the end (equal to its inverse after the final exponentiation). */
static void miller_shared(fp12_t *f, miller_pair_t *m, size_t n)
{
    line_t tmp;
    const line_t *l;
    int step = 0;
    fp12_set_one(f);
    for (int bit = 62; bit >= 0; bit--) {
        if (bit != 62) fp12_sqr(f, f); /* f is still 1 on the first step */
        for (size_t j = 0; j < n; j++) {
            next_line(&tmp, &l, &m[j], step, 0);
            line_eval(f, l, m[j].p);
        }
        step++;
        if ((BLS_X_ABS >> bit) & 1) {
            for (size_t j = 0; j < n; j++) {
                next_line(&tmp, &l, &m[j], step, 1);
                line_eval(f, l, m[j].p);
            }
            step++;
        }
    }
    fp12_conj(f, f);
}

/* Runs the pairs in chunks of MILLER_CHUNK, skipping those with a point at infinity. Exactly one of
 * q and qp is non-NULL. */
static void miller_multi(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, g2_prepared_t *const *qp, size_t n)
{
    miller_pair_t m[MILLER_CHUNK];
    fp12_t acc, f;
    size_t k = 0;
    int have = 0;
    fp12_set_one(&acc);
    for (size_t i = 0; i <= n; i++) {
        if (i < n) {
            int inf = g1_affine_is_inf(&p[i]) || (q ? g2_affine_is_inf(&q[i]) : qp[i]->inf);
            if (inf) continue;
            m[k].p = &p[i];
            if (q) {
                m[k].q = &q[i];
                m[k].t.x = q[i].x;
                m[k].t.y = q[i].y;
                fp2_set_one(&m[k].t.z);
                m[k].lines = NULL;
            } else {
                m[k].q = NULL;
                m[k].lines = qp[i]->lines;
            }
            k++;
        }
        if (k == MILLER_CHUNK || (i == n && k > 0)) {
            miller_shared(&f, m, k);
            if (have)
                fp12_mul(&acc, &acc, &f);
            else
                acc = f;
            have = 1;
            k = 0;
        }
    }
    *r = acc;
}

void pairing_miller_loop(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    miller_multi(r, p, q, NULL, n);
}

void pairing_miller_loop_prepared(fp12_t *r, const g1_affine_t *p, g2_prepared_t *const *q, size_t n)
{
    miller_multi(r, p, NULL, q, n);
}

/* Easy part: f^((p^6 - 1)(p^2 + 1)) with one inversion; the result lies in the cyclotomic subgroup.
 * Hard part by Hayashida-Hayasaka-Teruya (eprint 2020/875): 3 (p^4 - p^2 + 1) / r =
 * (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3, five exponentiations by x. This computes the cube of
 * f^((p^12 - 1) / r), still a non-degenerate bilinear pairing (3 is prime to r), and the very value
 * zcash/blst/@noble/curves return, so results compare byte for byte. */
void pairing_final_exp(fp12_t *r, const fp12_t *a)
{
    fp12_t f, t, g;
    fp12_inv(&t, a);
    fp12_conj(&f, a);
    fp12_mul(&f, &f, &t);
    fp12_frobenius(&t, &f, 2);
    fp12_mul(&f, &t, &f);

    fp12_t b, c;
    fp12_cyclotomic_exp_x(&t, &f); /* b = f^(x - 1) */
    fp12_conj(&g, &f);
    fp12_mul(&b, &t, &g);
    fp12_cyclotomic_exp_x(&t, &b); /* b = f^((x - 1)^2) */
    fp12_conj(&g, &b);
    fp12_mul(&b, &t, &g);
    fp12_cyclotomic_exp_x(&t, &b); /* c = b^(x + p) */
    fp12_frobenius(&g, &b, 1);
    fp12_mul(&c, &t, &g);
    fp12_cyclotomic_exp_x(&t, &c); /* t = c^(x^2 + p^2 - 1) */
    fp12_cyclotomic_exp_x(&t, &t);
    fp12_frobenius(&g, &c, 2);
    fp12_mul(&t, &t, &g);
    fp12_conj(&g, &c);
    fp12_mul(&t, &t, &g);
    fp12_cyclotomic_sqr(&g, &f); /* times f^3 */
    fp12_mul(&g, &g, &f);
    fp12_mul(r, &t, &g);
}

void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q)
{
    pairing_multi(r, p, q, 1);
}

void pairing_multi(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t f;
    pairing_miller_loop(&f, p, q, n);
    pairing_final_exp(r, &f);
}

int pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t f;
    pairing_multi(&f, p, q, n);
    return fp12_is_one(&f);
}

cuzk_status g2_prepare(g2_prepared_t **out, const g2_affine_t *q, cuzk_error *err)
{
    if (!out || !q) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "g2_prepare: NULL argument");
    *out = NULL;
    if (!g2_affine_is_on_curve(q))
        return cuzk_error_set(err, CUZK_ERR_NOT_ON_CURVE, "g2_prepare: point is not on the twist curve");
    g2_prepared_t *pq = malloc(sizeof *pq);
    if (!pq) return cuzk_error_set(err, CUZK_ERR_NOMEM, "g2_prepare: out of memory (%zu bytes)", sizeof *pq);
    pq->inf = g2_affine_is_inf(q);
    if (!pq->inf) {
        g2_proj_t t;
        t.x = q->x;
        t.y = q->y;
        fp2_set_one(&t.z);
        int step = 0;
        for (int bit = 62; bit >= 0; bit--) {
            dbl_step(&pq->lines[step++], &t);
            if ((BLS_X_ABS >> bit) & 1) add_step(&pq->lines[step++], &t, q);
        }
    }
    *out = pq;
    return CUZK_OK;
}

void g2_prepared_free(g2_prepared_t *q)
{
    free(q);
}
