/* Device G2 arithmetic (y^2 = x^3 + 4(u + 1) over Fp2 = Fp[u]/(u^2 + 1)) on XYZZ coordinates, with the CPU
 * layouts (fp2_t is c0 then c1; src/ec/g2.h), so host arrays are used as they are. Infinity: affine x = y = 0,
 * XYZZ zz = 0. The addition formulas do not depend on b, so they are those of ec_g1.cuh over Fp2.
 * The Fp2 products and the point operations are real calls (__noinline__): inlined, every kernel of g2_sum.cu
 * carried hundreds of copies of the 12-limb multiplication and the file took 10 minutes to compile; as calls it
 * takes 20 seconds, and B_G2 is a small part of a partition. */
#ifndef CUZK_GPU_G2_CUH
#define CUZK_GPU_G2_CUH

#include "ff_mont.cuh"

struct fp2_d {
    fp_d c0, c1;
};

struct g2_aff_d {
    fp2_d x, y;
};

struct g2_xyzz_d {
    fp2_d x, y, zz, zzz;
};

MONT_DEV void fp2_add(fp2_d &r, const fp2_d &a, const fp2_d &b)
{
    mont_add<fp_cfg>(r.c0, a.c0, b.c0);
    mont_add<fp_cfg>(r.c1, a.c1, b.c1);
}

MONT_DEV void fp2_sub(fp2_d &r, const fp2_d &a, const fp2_d &b)
{
    mont_sub<fp_cfg>(r.c0, a.c0, b.c0);
    mont_sub<fp_cfg>(r.c1, a.c1, b.c1);
}

MONT_DEV void fp2_dbl(fp2_d &r, const fp2_d &a)
{
    mont_dbl<fp_cfg>(r.c0, a.c0);
    mont_dbl<fp_cfg>(r.c1, a.c1);
}

MONT_DEV void fp2_cneg(fp2_d &r, const fp2_d &a, bool flag)
{
    mont_cneg<fp_cfg>(r.c0, a.c0, flag);
    mont_cneg<fp_cfg>(r.c1, a.c1, flag);
}

/* Karatsuba: three base-field products. Inlined for the batch-affine kernels of g2_sum.cu (a handful of call sites
 * per kernel, where the products are most of the work and a call would pass its operands through local memory). */
MONT_DEV void fp2_mul_i(fp2_d &r, const fp2_d &a, const fp2_d &b)
{
    fp_d t0, t1, s, u;
    mont_mul<fp_cfg>(t0, a.c0, b.c0);
    mont_mul<fp_cfg>(t1, a.c1, b.c1);
    mont_add<fp_cfg>(s, a.c0, a.c1);
    mont_add<fp_cfg>(u, b.c0, b.c1);
    mont_mul<fp_cfg>(s, s, u);
    mont_sub<fp_cfg>(s, s, t0);
    mont_sub<fp_cfg>(r.c1, s, t1);
    mont_sub<fp_cfg>(r.c0, t0, t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
MONT_DEV void fp2_sqr_i(fp2_d &r, const fp2_d &a)
{
    fp_d s, d, p;
    mont_add<fp_cfg>(s, a.c0, a.c1);
    mont_sub<fp_cfg>(d, a.c0, a.c1);
    mont_mul<fp_cfg>(p, a.c0, a.c1);
    mont_mul<fp_cfg>(r.c0, s, d);
    mont_dbl<fp_cfg>(r.c1, p);
}

/* The same products as calls, for the XYZZ formulas (hundreds of call sites: inlined, g2_sum.cu took 10 minutes to
 * compile). */
inline __device__ __noinline__ void fp2_mul(fp2_d &r, const fp2_d &a, const fp2_d &b)
{
    fp2_mul_i(r, a, b);
}

inline __device__ __noinline__ void fp2_sqr(fp2_d &r, const fp2_d &a)
{
    fp2_sqr_i(r, a);
}

MONT_DEV bool fp2_eq(const fp2_d &a, const fp2_d &b)
{
    return mont_eq<fp_cfg>(a.c0, b.c0) && mont_eq<fp_cfg>(a.c1, b.c1);
}

MONT_DEV bool fp2_is_zero(const fp2_d &a)
{
    return mont_is_zero<fp_cfg>(a.c0) && mont_is_zero<fp_cfg>(a.c1);
}

MONT_DEV void fp2_set_zero(fp2_d &r)
{
    mont_set_zero<fp_cfg>(r.c0);
    mont_set_zero<fp_cfg>(r.c1);
}

MONT_DEV void fp2_set_one(fp2_d &r)
{
    mont_set_one<fp_cfg>(r.c0);
    mont_set_zero<fp_cfg>(r.c1);
}

MONT_DEV void g2_xyzz_inf(g2_xyzz_d &r)
{
    fp2_set_zero(r.x);
    fp2_set_zero(r.y);
    fp2_set_zero(r.zz);
    fp2_set_zero(r.zzz);
}

MONT_DEV bool g2_xyzz_is_inf(const g2_xyzz_d &a)
{
    return fp2_is_zero(a.zz);
}

MONT_DEV bool g2_aff_is_inf(const g2_aff_d &a)
{
    return fp2_is_zero(a.x) && fp2_is_zero(a.y);
}

/* r = 2a (dbl-2008-s-1; mdbl-2008-s-1 when a has zz = zzz = 1). */
inline __device__ __noinline__ void g2_xyzz_dbl(g2_xyzz_d &r, const g2_xyzz_d &a)
{
    if (g2_xyzz_is_inf(a)) {
        r = a;
        return;
    }
    fp2_d u, v, w, s, m, t, x3;
    fp2_dbl(u, a.y);
    fp2_sqr(v, u);
    fp2_mul(w, u, v);
    fp2_mul(s, a.x, v);
    fp2_sqr(m, a.x);
    fp2_dbl(t, m);
    fp2_add(m, m, t);
    fp2_sqr(t, m);
    fp2_sub(t, t, s);
    fp2_sub(x3, t, s);
    fp2_sub(t, s, x3);
    fp2_mul(t, m, t);
    fp2_mul(u, w, a.y);
    fp2_sub(r.y, t, u);
    r.x = x3;
    fp2_mul(r.zz, v, a.zz);
    fp2_mul(r.zzz, w, a.zzz);
}

/* r += b (affine; madd-2008-s). r may be infinity; equal points double, opposite points give infinity. */
inline __device__ __noinline__ void g2_xyzz_madd(g2_xyzz_d &r, const g2_aff_d &b)
{
    if (g2_aff_is_inf(b)) return;
    if (g2_xyzz_is_inf(r)) {
        r.x = b.x;
        r.y = b.y;
        fp2_set_one(r.zz);
        fp2_set_one(r.zzz);
        return;
    }
    fp2_d p, rr, pp, ppp, q, t;
    fp2_mul(p, b.x, r.zz);
    fp2_sub(p, p, r.x);
    fp2_mul(rr, b.y, r.zzz);
    fp2_sub(rr, rr, r.y);
    if (fp2_is_zero(p)) {
        if (fp2_is_zero(rr)) {
            g2_xyzz_d a;
            a.x = b.x;
            a.y = b.y;
            fp2_set_one(a.zz);
            fp2_set_one(a.zzz);
            g2_xyzz_dbl(r, a);
        } else {
            g2_xyzz_inf(r);
        }
        return;
    }
    fp2_sqr(pp, p);
    fp2_mul(ppp, p, pp);
    fp2_mul(q, r.x, pp);
    fp2_sqr(t, rr);
    fp2_sub(t, t, ppp);
    fp2_sub(t, t, q);
    fp2_sub(t, t, q); /* t = X3 */
    fp2_sub(q, q, t);
    fp2_mul(q, rr, q);
    fp2_mul(p, r.y, ppp);
    fp2_sub(r.y, q, p);
    r.x = t;
    fp2_mul(r.zz, r.zz, pp);
    fp2_mul(r.zzz, r.zzz, ppp);
}

/* r += b, both XYZZ (add-2008-s). */
inline __device__ __noinline__ void g2_xyzz_add(g2_xyzz_d &r, const g2_xyzz_d &b)
{
    if (g2_xyzz_is_inf(b)) return;
    if (g2_xyzz_is_inf(r)) {
        r = b;
        return;
    }
    fp2_d u1, s1, p, rr, pp, ppp, q, t;
    fp2_mul(u1, r.x, b.zz);
    fp2_mul(p, b.x, r.zz);
    fp2_sub(p, p, u1);
    fp2_mul(s1, r.y, b.zzz);
    fp2_mul(rr, b.y, r.zzz);
    fp2_sub(rr, rr, s1);
    if (fp2_is_zero(p)) {
        if (fp2_is_zero(rr))
            g2_xyzz_dbl(r, b);
        else
            g2_xyzz_inf(r);
        return;
    }
    fp2_sqr(pp, p);
    fp2_mul(ppp, p, pp);
    fp2_mul(q, u1, pp);
    fp2_sqr(t, rr);
    fp2_sub(t, t, ppp);
    fp2_sub(t, t, q);
    fp2_sub(t, t, q); /* t = X3 */
    fp2_sub(q, q, t);
    fp2_mul(q, rr, q);
    fp2_mul(s1, s1, ppp);
    fp2_sub(r.y, q, s1);
    r.x = t;
    fp2_mul(r.zz, r.zz, b.zz);
    fp2_mul(r.zz, r.zz, pp);
    fp2_mul(r.zzz, r.zzz, b.zzz);
    fp2_mul(r.zzz, r.zzz, ppp);
}

#endif
