/* Device G1 arithmetic (y^2 = x^3 + 4 over Fp) on XYZZ coordinates:
 * x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; infinity is ZZ = 0. Affine inputs mark
 * infinity with x = y = 0, as the CPU code does (src/ec/g1.h), and the structs
 * have the CPU layout, so host arrays are used as they are.
 * Formulas: EFD "xyzz" for a = 0: madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1. */
#ifndef CUZK_GPU_G1_CUH
#define CUZK_GPU_G1_CUH

#include "mont.cuh"

struct g1_aff_d {
    fp_d x, y;
};

struct g1_xyzz_d {
    fp_d x, y, zz, zzz;
};

#define FP_MUL mont_mul<fp_cfg>
#define FP_SQR mont_sqr<fp_cfg>
#define FP_ADD mont_add<fp_cfg>
#define FP_SUB mont_sub<fp_cfg>
#define FP_DBL mont_dbl<fp_cfg>

/* 16-byte loads and stores of field elements and points in device arrays (which are 16-byte aligned: 48 and 96 are
 * multiples of 16). A gather of one point per lane is 6 vector loads instead of 24 scalar ones: the L1 serves every
 * lane's distinct line separately, per instruction. ldg: read-only for the kernel's lifetime. */
MONT_DEV void fp_ldg16(fp_d &r, const fp_d *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int k = 0; k < 3; k++) {
        uint4 t = __ldg(q + k);
        r.v[4 * k] = t.x;
        r.v[4 * k + 1] = t.y;
        r.v[4 * k + 2] = t.z;
        r.v[4 * k + 3] = t.w;
    }
}

MONT_DEV void fp_ld16(fp_d &r, const fp_d *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int k = 0; k < 3; k++) {
        uint4 t = q[k];
        r.v[4 * k] = t.x;
        r.v[4 * k + 1] = t.y;
        r.v[4 * k + 2] = t.z;
        r.v[4 * k + 3] = t.w;
    }
}

MONT_DEV void fp_st16(fp_d *p, const fp_d &a)
{
    uint4 *q = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (int k = 0; k < 3; k++) q[k] = make_uint4(a.v[4 * k], a.v[4 * k + 1], a.v[4 * k + 2], a.v[4 * k + 3]);
}

MONT_DEV bool g1_aff_is_inf(const g1_aff_d &a)
{
    return mont_is_zero<fp_cfg>(a.x) && mont_is_zero<fp_cfg>(a.y);
}

MONT_DEV void g1_xyzz_inf(g1_xyzz_d &r)
{
    mont_set_zero<fp_cfg>(r.x);
    mont_set_zero<fp_cfg>(r.y);
    mont_set_zero<fp_cfg>(r.zz);
    mont_set_zero<fp_cfg>(r.zzz);
}

MONT_DEV bool g1_xyzz_is_inf(const g1_xyzz_d &a)
{
    return mont_is_zero<fp_cfg>(a.zz);
}

MONT_DEV void g1_xyzz_from_aff(g1_xyzz_d &r, const g1_aff_d &a)
{
    if (g1_aff_is_inf(a)) {
        g1_xyzz_inf(r);
        return;
    }
    r.x = a.x;
    r.y = a.y;
    mont_set_one<fp_cfg>(r.zz);
    mont_set_one<fp_cfg>(r.zzz);
}

/* r = 2a for an affine a (not infinity, y != 0: true for every point of odd order). */
MONT_DEV void g1_xyzz_mdbl(g1_xyzz_d &r, const g1_aff_d &a)
{
    fp_d u, v, w, s, m, t;
    FP_DBL(u, a.y);
    FP_SQR(v, u);
    FP_MUL(w, u, v);
    FP_MUL(s, a.x, v);
    FP_SQR(m, a.x);
    FP_DBL(t, m);
    FP_ADD(m, m, t);
    FP_SQR(t, m);
    FP_SUB(t, t, s);
    FP_SUB(r.x, t, s);
    FP_SUB(t, s, r.x);
    FP_MUL(t, m, t);
    FP_MUL(u, w, a.y);
    FP_SUB(r.y, t, u);
    r.zz = v;
    r.zzz = w;
}

MONT_DEV void g1_xyzz_dbl(g1_xyzz_d &r, const g1_xyzz_d &a)
{
    if (g1_xyzz_is_inf(a)) {
        r = a;
        return;
    }
    fp_d u, v, w, s, m, t;
    FP_DBL(u, a.y);
    FP_SQR(v, u);
    FP_MUL(w, u, v);
    FP_MUL(s, a.x, v);
    FP_SQR(m, a.x);
    FP_DBL(t, m);
    FP_ADD(m, m, t);
    FP_SQR(t, m);
    FP_SUB(t, t, s);
    fp_d x3;
    FP_SUB(x3, t, s);
    FP_SUB(t, s, x3);
    FP_MUL(t, m, t);
    FP_MUL(u, w, a.y);
    FP_SUB(r.y, t, u);
    r.x = x3;
    FP_MUL(r.zz, v, a.zz);
    FP_MUL(r.zzz, w, a.zzz);
}

/* r += b (affine), b negated when neg. r and the result may be infinity; equal points double. */
MONT_DEV void g1_xyzz_madd(g1_xyzz_d &r, const g1_aff_d &b_in, bool neg)
{
    if (g1_aff_is_inf(b_in)) return;
    g1_aff_d b;
    b.x = b_in.x;
    mont_cneg<fp_cfg>(b.y, b_in.y, neg);
    if (g1_xyzz_is_inf(r)) {
        g1_xyzz_from_aff(r, b);
        return;
    }
    fp_d p, rr, pp, ppp, q, t;
    FP_MUL(p, b.x, r.zz);
    FP_SUB(p, p, r.x);
    FP_MUL(rr, b.y, r.zzz);
    FP_SUB(rr, rr, r.y);
    if (mont_is_zero<fp_cfg>(p)) {
        if (mont_is_zero<fp_cfg>(rr))
            g1_xyzz_mdbl(r, b);
        else
            g1_xyzz_inf(r);
        return;
    }
    FP_SQR(pp, p);
    FP_MUL(ppp, p, pp);
    FP_MUL(q, r.x, pp);
    FP_SQR(t, rr);
    FP_SUB(t, t, ppp);
    FP_SUB(t, t, q);
    FP_SUB(t, t, q); /* t = X3 */
    FP_SUB(q, q, t);
    FP_MUL(q, rr, q);
    FP_MUL(p, r.y, ppp);
    FP_SUB(r.y, q, p);
    r.x = t;
    FP_MUL(r.zz, r.zz, pp);
    FP_MUL(r.zzz, r.zzz, ppp);
}

/* r += b, both XYZZ. */
MONT_DEV void g1_xyzz_add(g1_xyzz_d &r, const g1_xyzz_d &b)
{
    if (g1_xyzz_is_inf(b)) return;
    if (g1_xyzz_is_inf(r)) {
        r = b;
        return;
    }
    fp_d u1, s1, p, rr, pp, ppp, q, t;
    FP_MUL(u1, r.x, b.zz);
    FP_MUL(p, b.x, r.zz);
    FP_SUB(p, p, u1);
    FP_MUL(s1, r.y, b.zzz);
    FP_MUL(rr, b.y, r.zzz);
    FP_SUB(rr, rr, s1);
    if (mont_is_zero<fp_cfg>(p)) {
        if (mont_is_zero<fp_cfg>(rr))
            g1_xyzz_dbl(r, b);
        else
            g1_xyzz_inf(r);
        return;
    }
    FP_SQR(pp, p);
    FP_MUL(ppp, p, pp);
    FP_MUL(q, u1, pp);
    FP_SQR(t, rr);
    FP_SUB(t, t, ppp);
    FP_SUB(t, t, q);
    FP_SUB(t, t, q); /* t = X3 */
    FP_SUB(q, q, t);
    FP_MUL(q, rr, q);
    FP_MUL(s1, s1, ppp);
    FP_SUB(r.y, q, s1);
    r.x = t;
    FP_MUL(r.zz, r.zz, b.zz);
    FP_MUL(r.zz, r.zz, pp);
    FP_MUL(r.zzz, r.zzz, b.zzz);
    FP_MUL(r.zzz, r.zzz, ppp);
}

/* r = a^-1 (a != 0) by Fermat, a^(p-2): ~570 products, paid once per batch of affine additions. */
MONT_DEV void g1_fp_inv(fp_d &r, const fp_d &a)
{
    fp_d x;
    mont_set_one<fp_cfg>(x);
#pragma unroll 1
    for (int i = fp_cfg::N - 1; i >= 0; i--) {
        uint32_t e = fp_cfg::p(i) - (i == 0 ? 2u : 0u);
#pragma unroll 1
        for (int k = 31; k >= 0; k--) {
            FP_SQR(x, x);
            if ((e >> k) & 1) FP_MUL(x, x, a);
        }
    }
    r = x;
}

/* Batched affine addition a + b (Montgomery's trick): g1_aff_pair_den gives the kind of the sum and, for the two
 * kinds that need one, the denominator to invert; g1_aff_pair_finish takes its inverse. Infinity is (0, 0). */
enum { G1_PAIR_ADD = 0, G1_PAIR_DBL = 1, G1_PAIR_A = 2, G1_PAIR_B = 3, G1_PAIR_INF = 4 };

/* The kind of a + b (signs applied; infinity is (0, 0), and (0, +-2) is a curve point) and, for ADD and DBL, the
 * denominator: x(b) - x(a), or 2 y(a). */
MONT_DEV int g1_aff_pair_den(fp_d &den, const g1_aff_d &a, const g1_aff_d &b)
{
    if (g1_aff_is_inf(a)) return G1_PAIR_B;
    if (g1_aff_is_inf(b)) return G1_PAIR_A;
    FP_SUB(den, b.x, a.x);
    if (!mont_is_zero<fp_cfg>(den)) return G1_PAIR_ADD;
    if (!mont_eq<fp_cfg>(a.y, b.y) || mont_is_zero<fp_cfg>(a.y)) return G1_PAIR_INF;
    FP_DBL(den, a.y);
    return G1_PAIR_DBL;
}

/* r = a + b for kind ADD or DBL, inv = 1/den (a and b with their signs applied). */
MONT_DEV void g1_aff_pair_finish(g1_aff_d &r, const g1_aff_d &a, const g1_aff_d &b, int kind, const fp_d &inv)
{
    fp_d lam, t;
    if (kind == G1_PAIR_DBL) {
        FP_SQR(t, a.x);
        FP_DBL(lam, t);
        FP_ADD(t, lam, t);
    } else {
        FP_SUB(t, b.y, a.y);
    }
    FP_MUL(lam, t, inv);
    FP_SQR(t, lam);
    FP_SUB(t, t, a.x);
    FP_SUB(t, t, b.x); /* x3 */
    fp_d u;
    FP_SUB(u, a.x, t);
    FP_MUL(u, lam, u);
    FP_SUB(r.y, u, a.y);
    r.x = t;
}

#endif
