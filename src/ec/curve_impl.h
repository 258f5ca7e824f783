/* Short-Weierstrass arithmetic for y^2 = x^3 + b (a = 0), instantiated once for
 * G1 (over Fp) and once for G2 (over Fp2). The including file defines:
 *   F_T, F(x)        the coordinate field type and its operation names (fp_##x)
 *   F_BYTES          bytes of one encoded coordinate
 *   C(x)             the curve's names (g1_##x)
 *   C_AFF, C_JAC, C_XYZZ   the point types
 *   static const F_T curve_b                 the constant b
 *   static const uint64_t curve_cofactor[]   the cofactor, CURVE_COFACTOR_LIMBS limbs
 * Formulas: Jacobian dbl-2009-l, add-2007-bl, madd-2007-bl; XYZZ dbl-2008-s-1,
 * add-2008-s, madd-2008-s (Explicit-Formulas Database), all for a = 0. */
#include <string.h>

int C(affine_is_inf)(const C_AFF *p)
{
    return F(is_zero)(&p->x) && F(is_zero)(&p->y);
}

void C(affine_set_inf)(C_AFF *p)
{
    F(set_zero)(&p->x);
    F(set_zero)(&p->y);
}

int C(affine_eq)(const C_AFF *a, const C_AFF *b)
{
    return F(eq)(&a->x, &b->x) && F(eq)(&a->y, &b->y);
}

void C(affine_neg)(C_AFF *r, const C_AFF *a)
{
    r->x = a->x;
    if (C(affine_is_inf)(a))
        F(set_zero)(&r->y);
    else
        F(neg)(&r->y, &a->y);
}

static void curve_rhs(F_T *r, const F_T *x)
{
    F_T t;
    F(sqr)(&t, x);
    F(mul)(&t, &t, x);
    F(add)(r, &t, &curve_b);
}

int C(affine_is_on_curve)(const C_AFF *p)
{
    if (C(affine_is_inf)(p)) return 1;
    F_T lhs, rhs;
    F(sqr)(&lhs, &p->y);
    curve_rhs(&rhs, &p->x);
    return F(eq)(&lhs, &rhs);
}

void C(jac_set_inf)(C_JAC *r)
{
    F(set_one)(&r->x);
    F(set_one)(&r->y);
    F(set_zero)(&r->z);
}

int C(jac_is_inf)(const C_JAC *p)
{
    return F(is_zero)(&p->z);
}

/* Y^2 = X^3 + b Z^6 */
int C(jac_is_on_curve)(const C_JAC *p)
{
    if (C(jac_is_inf)(p)) return 1;
    F_T lhs, rhs, z2, z6;
    F(sqr)(&lhs, &p->y);
    F(sqr)(&rhs, &p->x);
    F(mul)(&rhs, &rhs, &p->x);
    F(sqr)(&z2, &p->z);
    F(mul)(&z6, &z2, &p->z);
    F(sqr)(&z6, &z6);
    F(mul)(&z6, &z6, &curve_b);
    F(add)(&rhs, &rhs, &z6);
    return F(eq)(&lhs, &rhs);
}

int C(jac_eq)(const C_JAC *a, const C_JAC *b)
{
    int ia = C(jac_is_inf)(a), ib = C(jac_is_inf)(b);
    if (ia || ib) return ia && ib;
    F_T za2, zb2, t1, t2;
    F(sqr)(&za2, &a->z);
    F(sqr)(&zb2, &b->z);
    F(mul)(&t1, &a->x, &zb2);
    F(mul)(&t2, &b->x, &za2);
    if (!F(eq)(&t1, &t2)) return 0;
    F(mul)(&t1, &a->y, &zb2);
    F(mul)(&t1, &t1, &b->z);
    F(mul)(&t2, &b->y, &za2);
    F(mul)(&t2, &t2, &a->z);
    return F(eq)(&t1, &t2);
}

void C(jac_from_affine)(C_JAC *r, const C_AFF *a)
{
    if (C(affine_is_inf)(a)) {
        C(jac_set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    F(set_one)(&r->z);
}

void C(jac_to_affine)(C_AFF *r, const C_JAC *a)
{
    if (C(jac_is_inf)(a)) {
        C(affine_set_inf)(r);
        return;
    }
    F_T zi, zi2, zi3;
    F(inv)(&zi, &a->z);
    F(sqr)(&zi2, &zi);
    F(mul)(&zi3, &zi2, &zi);
    F(mul)(&r->x, &a->x, &zi2);
    F(mul)(&r->y, &a->y, &zi3);
}

void C(jac_neg)(C_JAC *r, const C_JAC *a)
{
    r->x = a->x;
    F(neg)(&r->y, &a->y);
    r->z = a->z;
}

void C(jac_dbl)(C_JAC *r, const C_JAC *p)
{
    if (C(jac_is_inf)(p)) {
        *r = *p;
        return;
    }
    F_T A, B, Cc, D, E, Fq, t;
    F(sqr)(&A, &p->x);
    F(sqr)(&B, &p->y);
    F(sqr)(&Cc, &B);
    F(add)(&D, &p->x, &B);
    F(sqr)(&D, &D);
    F(sub)(&D, &D, &A);
    F(sub)(&D, &D, &Cc);
    F(dbl)(&D, &D);
    F(dbl)(&E, &A);
    F(add)(&E, &E, &A);
    F(sqr)(&Fq, &E);
    F(mul)(&r->z, &p->y, &p->z); /* before r->y is written: r may alias p */
    F(dbl)(&r->z, &r->z);
    F(dbl)(&t, &D);
    F(sub)(&r->x, &Fq, &t);
    F(sub)(&t, &D, &r->x);
    F(mul)(&t, &E, &t);
    F(dbl)(&Cc, &Cc);
    F(dbl)(&Cc, &Cc);
    F(dbl)(&Cc, &Cc);
    F(sub)(&r->y, &t, &Cc);
}

void C(jac_add)(C_JAC *r, const C_JAC *a, const C_JAC *b)
{
    if (C(jac_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (C(jac_is_inf)(b)) {
        *r = *a;
        return;
    }
    F_T z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    F(sqr)(&z1z1, &a->z);
    F(sqr)(&z2z2, &b->z);
    F(mul)(&u1, &a->x, &z2z2);
    F(mul)(&u2, &b->x, &z1z1);
    F(mul)(&s1, &a->y, &b->z);
    F(mul)(&s1, &s1, &z2z2);
    F(mul)(&s2, &b->y, &a->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    if (F(is_zero)(&h)) {
        if (F(is_zero)(&rr))
            C(jac_dbl)(r, a);
        else
            C(jac_set_inf)(r);
        return;
    }
    F(dbl)(&rr, &rr);
    F(dbl)(&i, &h);
    F(sqr)(&i, &i);
    F(mul)(&j, &h, &i);
    F(mul)(&v, &u1, &i);
    F(add)(&t, &a->z, &b->z);
    F(sqr)(&t, &t);
    F(sub)(&t, &t, &z1z1);
    F(sub)(&t, &t, &z2z2);
    F(mul)(&r->z, &t, &h);
    F(sqr)(&r->x, &rr);
    F(sub)(&r->x, &r->x, &j);
    F(sub)(&r->x, &r->x, &v);
    F(sub)(&r->x, &r->x, &v);
    F(sub)(&t, &v, &r->x);
    F(mul)(&t, &rr, &t);
    F(mul)(&s1, &s1, &j);
    F(dbl)(&s1, &s1);
    F(sub)(&r->y, &t, &s1);
}

void C(jac_add_affine)(C_JAC *r, const C_JAC *a, const C_AFF *b)
{
    if (C(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (C(jac_is_inf)(a)) {
        C(jac_from_affine)(r, b);
        return;
    }
    F_T z1z1, u2, s2, h, hh, i, j, rr, v, t, y1;
    F(sqr)(&z1z1, &a->z);
    F(mul)(&u2, &b->x, &z1z1);
    F(mul)(&s2, &b->y, &a->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &a->x);
    F(sub)(&rr, &s2, &a->y);
    if (F(is_zero)(&h)) {
        if (F(is_zero)(&rr))
            C(jac_dbl)(r, a);
        else
            C(jac_set_inf)(r);
        return;
    }
    F(dbl)(&rr, &rr);
    F(sqr)(&hh, &h);
    F(dbl)(&i, &hh);
    F(dbl)(&i, &i);
    F(mul)(&j, &h, &i);
    F(mul)(&v, &a->x, &i);
    y1 = a->y;
    F(add)(&t, &a->z, &h);
    F(sqr)(&t, &t);
    F(sub)(&t, &t, &z1z1);
    F(sub)(&r->z, &t, &hh);
    F(sqr)(&r->x, &rr);
    F(sub)(&r->x, &r->x, &j);
    F(sub)(&r->x, &r->x, &v);
    F(sub)(&r->x, &r->x, &v);
    F(sub)(&t, &v, &r->x);
    F(mul)(&t, &rr, &t);
    F(mul)(&y1, &y1, &j);
    F(dbl)(&y1, &y1);
    F(sub)(&r->y, &t, &y1);
}

/* Width-5 non-adjacent form of a multi-limb scalar: digits odd in [-15, 15] or 0, least significant first. */
#define CURVE_WNAF_W 5
#define CURVE_MAX_SCALAR_LIMBS 8
static size_t curve_wnaf(int8_t *digits, const uint64_t *k, size_t nlimbs)
{
    uint64_t t[CURVE_MAX_SCALAR_LIMBS + 1] = {0};
    memcpy(t, k, nlimbs * sizeof *k);
    size_t n = nlimbs + 1, len = 0;
    for (;;) {
        uint64_t any = 0;
        for (size_t i = 0; i < n; i++) any |= t[i];
        if (!any) break;
        int d = 0;
        if (t[0] & 1) {
            d = (int)(t[0] & ((1u << CURVE_WNAF_W) - 1));
            if (d >= 1 << (CURVE_WNAF_W - 1)) d -= 1 << CURVE_WNAF_W;
            uint64_t carry = d > 0 ? (uint64_t)d : (uint64_t)(-d);
            if (d > 0) { /* t -= d */
                for (size_t i = 0; i < n && carry; i++) {
                    uint64_t old = t[i];
                    t[i] -= carry;
                    carry = old < carry;
                }
            } else { /* t += -d */
                for (size_t i = 0; i < n && carry; i++) {
                    t[i] += carry;
                    carry = t[i] < carry;
                }
            }
        }
        digits[len++] = (int8_t)d;
        for (size_t i = 0; i < n; i++) t[i] = (t[i] >> 1) | (i + 1 < n ? t[i + 1] << 63 : 0);
    }
    return len;
}

void C(jac_mul)(C_JAC *r, const C_JAC *p, const uint64_t *k, size_t nlimbs)
{
    int8_t digits[CURVE_MAX_SCALAR_LIMBS * 64 + 2];
    if (nlimbs > CURVE_MAX_SCALAR_LIMBS) nlimbs = CURVE_MAX_SCALAR_LIMBS; /* callers never pass more */
    size_t len = curve_wnaf(digits, k, nlimbs);
    C_JAC table[1 << (CURVE_WNAF_W - 2)], p2; /* P, 3P, 5P, ..., 15P */
    table[0] = *p;
    C(jac_dbl)(&p2, p);
    for (int i = 1; i < 1 << (CURVE_WNAF_W - 2); i++) C(jac_add)(&table[i], &table[i - 1], &p2);
    C_JAC acc, neg;
    C(jac_set_inf)(&acc);
    for (size_t i = len; i-- > 0;) {
        C(jac_dbl)(&acc, &acc);
        int d = digits[i];
        if (d > 0)
            C(jac_add)(&acc, &acc, &table[d >> 1]);
        else if (d < 0) {
            C(jac_neg)(&neg, &table[(-d) >> 1]);
            C(jac_add)(&acc, &acc, &neg);
        }
    }
    *r = acc;
}

void C(jac_mul_fr)(C_JAC *r, const C_JAC *p, const fr_t *s)
{
    uint64_t k[FR_LIMBS];
    fr_from_mont(k, s);
    C(jac_mul)(r, p, k, FR_LIMBS);
}

void C(batch_to_affine)(C_AFF *out, const C_JAC *in, size_t n)
{
    enum { CHUNK = 256 };
    F_T prefix[CHUNK];
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t m = n - base < CHUNK ? n - base : CHUNK;
        F_T acc;
        F(set_one)(&acc);
        for (size_t i = 0; i < m; i++) {
            prefix[i] = acc;
            if (!C(jac_is_inf)(&in[base + i])) F(mul)(&acc, &acc, &in[base + i].z);
        }
        F(inv)(&acc, &acc);
        for (size_t i = m; i-- > 0;) {
            const C_JAC *p = &in[base + i];
            if (C(jac_is_inf)(p)) {
                C(affine_set_inf)(&out[base + i]);
                continue;
            }
            F_T zi, zi2, zi3;
            F(mul)(&zi, &acc, &prefix[i]);
            F(mul)(&acc, &acc, &p->z);
            F(sqr)(&zi2, &zi);
            F(mul)(&zi3, &zi2, &zi);
            F_T x = p->x, y = p->y; /* out may alias in's memory only through distinct types: copy first */
            F(mul)(&out[base + i].x, &x, &zi2);
            F(mul)(&out[base + i].y, &y, &zi3);
        }
    }
}

void C(xyzz_set_inf)(C_XYZZ *r)
{
    F(set_one)(&r->x);
    F(set_one)(&r->y);
    F(set_zero)(&r->zz);
    F(set_zero)(&r->zzz);
}

int C(xyzz_is_inf)(const C_XYZZ *p)
{
    return F(is_zero)(&p->zz);
}

static void curve_xyzz_dbl_affine(C_XYZZ *r, const C_AFF *a)
{
    F_T u, v, w, s, m, t;
    F(dbl)(&u, &a->y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, &a->x, &v);
    F(sqr)(&m, &a->x);
    F(dbl)(&t, &m);
    F(add)(&m, &m, &t);
    F(sqr)(&r->x, &m);
    F(dbl)(&t, &s);
    F(sub)(&r->x, &r->x, &t);
    F(sub)(&t, &s, &r->x);
    F(mul)(&t, &m, &t);
    F(mul)(&r->y, &w, &a->y);
    F(sub)(&r->y, &t, &r->y);
    r->zz = v;
    r->zzz = w;
}

void C(xyzz_dbl)(C_XYZZ *r, const C_XYZZ *a)
{
    if (C(xyzz_is_inf)(a)) {
        *r = *a;
        return;
    }
    F_T u, v, w, s, m, t, y1 = a->y;
    F(dbl)(&u, &a->y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, &a->x, &v);
    F(sqr)(&m, &a->x);
    F(dbl)(&t, &m);
    F(add)(&m, &m, &t);
    F(mul)(&r->zz, &v, &a->zz);
    F(mul)(&r->zzz, &w, &a->zzz);
    F(sqr)(&r->x, &m);
    F(dbl)(&t, &s);
    F(sub)(&r->x, &r->x, &t);
    F(sub)(&t, &s, &r->x);
    F(mul)(&t, &m, &t);
    F(mul)(&y1, &w, &y1);
    F(sub)(&r->y, &t, &y1);
}

void C(xyzz_add)(C_XYZZ *r, const C_XYZZ *a, const C_XYZZ *b)
{
    if (C(xyzz_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (C(xyzz_is_inf)(b)) {
        *r = *a;
        return;
    }
    F_T u1, u2, s1, s2, p, rr, pp, ppp, q, t;
    F(mul)(&u1, &a->x, &b->zz);
    F(mul)(&u2, &b->x, &a->zz);
    F(mul)(&s1, &a->y, &b->zzz);
    F(mul)(&s2, &b->y, &a->zzz);
    F(sub)(&p, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    if (F(is_zero)(&p)) {
        if (F(is_zero)(&rr))
            C(xyzz_dbl)(r, a);
        else
            C(xyzz_set_inf)(r);
        return;
    }
    F(sqr)(&pp, &p);
    F(mul)(&ppp, &p, &pp);
    F(mul)(&q, &u1, &pp);
    F(mul)(&r->zz, &a->zz, &b->zz);
    F(mul)(&r->zz, &r->zz, &pp);
    F(mul)(&r->zzz, &a->zzz, &b->zzz);
    F(mul)(&r->zzz, &r->zzz, &ppp);
    F(sqr)(&r->x, &rr);
    F(sub)(&r->x, &r->x, &ppp);
    F(dbl)(&t, &q);
    F(sub)(&r->x, &r->x, &t);
    F(sub)(&t, &q, &r->x);
    F(mul)(&t, &rr, &t);
    F(mul)(&s1, &s1, &ppp);
    F(sub)(&r->y, &t, &s1);
}

void C(xyzz_add_affine)(C_XYZZ *r, const C_XYZZ *a, const C_AFF *b)
{
    if (C(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (C(xyzz_is_inf)(a)) {
        r->x = b->x;
        r->y = b->y;
        F(set_one)(&r->zz);
        F(set_one)(&r->zzz);
        return;
    }
    F_T p, rr, pp, ppp, q, t, y1 = a->y;
    F(mul)(&p, &b->x, &a->zz);
    F(sub)(&p, &p, &a->x);
    F(mul)(&rr, &b->y, &a->zzz);
    F(sub)(&rr, &rr, &a->y);
    if (F(is_zero)(&p)) {
        if (F(is_zero)(&rr))
            curve_xyzz_dbl_affine(r, b);
        else
            C(xyzz_set_inf)(r);
        return;
    }
    F(sqr)(&pp, &p);
    F(mul)(&ppp, &p, &pp);
    F(mul)(&q, &a->x, &pp);
    F(mul)(&r->zz, &a->zz, &pp);
    F(mul)(&r->zzz, &a->zzz, &ppp);
    F(sqr)(&r->x, &rr);
    F(sub)(&r->x, &r->x, &ppp);
    F(dbl)(&t, &q);
    F(sub)(&r->x, &r->x, &t);
    F(sub)(&t, &q, &r->x);
    F(mul)(&t, &rr, &t);
    F(mul)(&y1, &y1, &ppp);
    F(sub)(&r->y, &t, &y1);
}

/* The XYZZ formulas keep ZZ^3 = ZZZ^2, so Z = ZZZ gives X = x ZZ^2 and Y = y ZZZ^2. */
void C(xyzz_to_jac)(C_JAC *r, const C_XYZZ *a)
{
    if (C(xyzz_is_inf)(a)) {
        C(jac_set_inf)(r);
        return;
    }
    F_T zz2, zzz2;
    F(sqr)(&zz2, &a->zz);
    F(sqr)(&zzz2, &a->zzz);
    F(mul)(&r->x, &a->x, &zz2);
    F(mul)(&r->y, &a->y, &zzz2);
    r->z = a->zzz;
}

void C(random)(C_JAC *r, rng_t *rng)
{
    fr_t k;
    C_JAC g;
    fr_random(&k, rng);
    C(jac_from_affine)(&g, &C_GENERATOR);
    C(jac_mul_fr)(r, &g, &k);
}

void C(random_on_curve)(C_AFF *r, rng_t *rng)
{
    F_T x, rhs, y;
    do {
        F(random)(&x, rng);
        curve_rhs(&rhs, &x);
    } while (!F(sqrt)(&y, &rhs));
    if (rng_next(rng) & 1) F(neg)(&y, &y);
    r->x = x;
    r->y = y;
}

void C(clear_cofactor)(C_JAC *r, const C_JAC *p)
{
    C(jac_mul)(r, p, curve_cofactor, CURVE_COFACTOR_LIMBS);
}

/* ---- encodings ---- */

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20

void C(to_compressed)(uint8_t out[F_BYTES], const C_AFF *p)
{
    if (C(affine_is_inf)(p)) {
        memset(out, 0, F_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    F(to_bytes_be)(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (F(is_lexicographically_largest)(&p->y)) out[0] |= FLAG_SIGN;
}

void C(to_uncompressed)(uint8_t out[2 * F_BYTES], const C_AFF *p)
{
    if (C(affine_is_inf)(p)) {
        memset(out, 0, 2 * F_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    F(to_bytes_be)(out, &p->x);
    F(to_bytes_be)(out + F_BYTES, &p->y);
}

static int curve_rest_is_zero(const uint8_t *in, size_t n)
{
    uint8_t acc = in[0] & 0x1f;
    for (size_t i = 1; i < n; i++) acc |= in[i];
    return acc == 0;
}

static cuzk_status curve_check_point(const C_AFF *p, int check_subgroup, cuzk_error *err)
{
    if (!C(affine_is_on_curve)(p))
        return cuzk_error_set(err, CUZK_ERR_NOT_ON_CURVE, "%s point is not on the curve", CURVE_NAME);
    if (check_subgroup && !C(affine_in_subgroup)(p))
        return cuzk_error_set(err, CUZK_ERR_NOT_IN_SUBGROUP, "%s point is not in the prime-order subgroup", CURVE_NAME);
    return CUZK_OK;
}

cuzk_status C(from_compressed)(C_AFF *r, const uint8_t in[F_BYTES], int check_subgroup, cuzk_error *err)
{
    uint8_t flags = in[0] & 0xe0;
    if (!(flags & FLAG_COMPRESSED))
        return cuzk_error_set(err, CUZK_ERR_BAD_FLAGS,
                              "%s compressed encoding lacks the compression flag (byte 0 = 0x%02x)", CURVE_NAME, in[0]);
    if (flags & FLAG_INFINITY) {
        if ((flags & FLAG_SIGN) || !curve_rest_is_zero(in, F_BYTES))
            return cuzk_error_set(err, CUZK_ERR_BAD_FLAGS, "%s infinity encoding has non-zero bits", CURVE_NAME);
        C(affine_set_inf)(r);
        return CUZK_OK;
    }
    uint8_t buf[F_BYTES];
    memcpy(buf, in, F_BYTES);
    buf[0] &= 0x1f;
    C_AFF p;
    if (F(from_bytes_be)(&p.x, buf) != 0)
        return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "%s x coordinate is not below the field modulus",
                              CURVE_NAME);
    F_T rhs;
    curve_rhs(&rhs, &p.x);
    if (!F(sqrt)(&p.y, &rhs))
        return cuzk_error_set(err, CUZK_ERR_NO_SQUARE_ROOT, "%s x coordinate has no point on the curve", CURVE_NAME);
    if (F(is_lexicographically_largest)(&p.y) != !!(flags & FLAG_SIGN)) F(neg)(&p.y, &p.y);
    cuzk_status st = curve_check_point(&p, check_subgroup, err);
    if (st == CUZK_OK) *r = p;
    return st;
}

cuzk_status C(from_uncompressed)(C_AFF *r, const uint8_t in[2 * F_BYTES], int check_subgroup, cuzk_error *err)
{
    uint8_t flags = in[0] & 0xe0;
    if (flags & FLAG_COMPRESSED)
        return cuzk_error_set(err, CUZK_ERR_BAD_FLAGS,
                              "%s uncompressed encoding has the compression flag (byte 0 = 0x%02x)", CURVE_NAME, in[0]);
    if (flags & FLAG_INFINITY) {
        if ((flags & FLAG_SIGN) || !curve_rest_is_zero(in, 2 * F_BYTES))
            return cuzk_error_set(err, CUZK_ERR_BAD_FLAGS, "%s infinity encoding has non-zero bits", CURVE_NAME);
        C(affine_set_inf)(r);
        return CUZK_OK;
    }
    if (flags & FLAG_SIGN)
        return cuzk_error_set(err, CUZK_ERR_BAD_FLAGS, "%s uncompressed encoding has the sign flag", CURVE_NAME);
    C_AFF p;
    if (F(from_bytes_be)(&p.x, in) != 0)
        return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "%s x coordinate is not below the field modulus",
                              CURVE_NAME);
    if (F(from_bytes_be)(&p.y, in + F_BYTES) != 0)
        return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "%s y coordinate is not below the field modulus",
                              CURVE_NAME);
    if (C(affine_is_inf)(&p))
        return cuzk_error_set(err, CUZK_ERR_NOT_ON_CURVE, "%s point (0, 0) without the infinity flag", CURVE_NAME);
    cuzk_status st = curve_check_point(&p, check_subgroup, err);
    if (st == CUZK_OK) *r = p;
    return st;
}

#undef FLAG_COMPRESSED
#undef FLAG_INFINITY
#undef FLAG_SIGN
