/* Device G2 (y^2 = x^3 + 4(u + 1) over Fp2 = Fp[u]/(u^2 + 1)): the types (CPU layouts: fp2_t is c0 then c1;
 * src/ec/g2.h, so host arrays are used as they are), Fp2's operations and field trait fp2_ops for the formulas of
 * ec.cuh, the inversion, and the G2 names of ec.cuh's XYZZ operations. Infinity: affine x = y = 0, XYZZ zz = 0.
 * The Fp2 products of the XYZZ formulas and the point operations are real calls (__noinline__): inlined, every
 * kernel of the G2 MSM carried hundreds of copies of the 12-limb multiplication and its file took 10 minutes to
 * compile; as calls it takes seconds, and B_G2 is a small part of a partition. The batch-affine kernels take the
 * inlined products (mul_i, sqr_i): a handful of call sites each, where the products are most of the work. */
#ifndef CUZK_GPU_G2_CUH
#define CUZK_GPU_G2_CUH

#include "ec_g1.cuh" /* fp_ldg16, g1_fp_inv_by */

struct fp2_d {
    fp_d c0, c1;
};

typedef ec_aff<fp2_d> g2_aff_d;
typedef ec_xyzz<fp2_d> g2_xyzz_d;

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

/* Karatsuba: three base-field products. Inlined for the batch-affine kernels of msm.cu (a handful of call sites
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

/* The same products as calls, for the XYZZ formulas (hundreds of call sites: inlined, the G2 MSM file took 10
 * minutes to compile). */
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

/* r = 1/a (0 for 0): conj(a) / (a0^2 + a1^2), since u^2 = -1; the norm is 0 only for a = 0 (-1 is not a square
 * in Fp). One call per thread and round of the batch-affine sums. */
inline __device__ __noinline__ void fp2_inv(fp2_d &r, const fp2_d &a)
{
    fp_d n, t, ni;
    mont_sqr<fp_cfg>(n, a.c0);
    mont_sqr<fp_cfg>(t, a.c1);
    mont_add<fp_cfg>(n, n, t);
    g1_fp_inv_by(ni, n);
    mont_mul<fp_cfg>(r.c0, a.c0, ni);
    mont_mul<fp_cfg>(t, a.c1, ni);
    mont_neg<fp_cfg>(r.c1, t);
}

/* Fp2 for ec.cuh's formulas (mul, sqr: calls; mul_i, sqr_i: inlined), with the planar loads and stores of the
 * batch-affine rounds (word k of element j, c0 then c1, at w[k * stride + j]) and 16-byte gathers. */
struct fp2_ops {
    typedef fp2_d fe;
    static constexpr int WORDS = 24;
    static MONT_DEV void mul(fe &r, const fe &a, const fe &b)
    {
        fp2_mul(r, a, b);
    }
    static MONT_DEV void sqr(fe &r, const fe &a)
    {
        fp2_sqr(r, a);
    }
    static MONT_DEV void mul_i(fe &r, const fe &a, const fe &b)
    {
        fp2_mul_i(r, a, b);
    }
    static MONT_DEV void sqr_i(fe &r, const fe &a)
    {
        fp2_sqr_i(r, a);
    }
    static MONT_DEV void add(fe &r, const fe &a, const fe &b)
    {
        fp2_add(r, a, b);
    }
    static MONT_DEV void sub(fe &r, const fe &a, const fe &b)
    {
        fp2_sub(r, a, b);
    }
    static MONT_DEV void dbl(fe &r, const fe &a)
    {
        fp2_dbl(r, a);
    }
    static MONT_DEV void cneg(fe &r, const fe &a, bool flag)
    {
        fp2_cneg(r, a, flag);
    }
    static MONT_DEV bool is_zero(const fe &a)
    {
        return fp2_is_zero(a);
    }
    static MONT_DEV bool eq(const fe &a, const fe &b)
    {
        return fp2_eq(a, b);
    }
    static MONT_DEV void zero(fe &r)
    {
        fp2_set_zero(r);
    }
    static MONT_DEV void one(fe &r)
    {
        fp2_set_one(r);
    }
    static MONT_DEV void ldg16(fe &r, const fe *p)
    {
        fp_ldg16(r.c0, &p->c0);
        fp_ldg16(r.c1, &p->c1);
    }
    static MONT_DEV void pl_ld(fe &r, const uint32_t *__restrict__ w, size_t stride, uint32_t j)
    {
#pragma unroll
        for (int k = 0; k < 12; k++) r.c0.v[k] = w[k * stride + j];
#pragma unroll
        for (int k = 0; k < 12; k++) r.c1.v[k] = w[(12 + k) * stride + j];
    }
    static MONT_DEV void pl_st(uint32_t *__restrict__ w, size_t stride, uint32_t j, const fe &a)
    {
#pragma unroll
        for (int k = 0; k < 12; k++) w[k * stride + j] = a.c0.v[k];
#pragma unroll
        for (int k = 0; k < 12; k++) w[(12 + k) * stride + j] = a.c1.v[k];
    }
};

/* The G2 names of ec.cuh's operations: calls, but for the two tests of infinity. */
MONT_DEV bool g2_aff_is_inf(const g2_aff_d &a)
{
    return ec_aff_is_inf<fp2_ops>(a);
}
MONT_DEV void g2_xyzz_inf(g2_xyzz_d &r)
{
    ec_xyzz_inf<fp2_ops>(r);
}
MONT_DEV bool g2_xyzz_is_inf(const g2_xyzz_d &a)
{
    return ec_xyzz_is_inf<fp2_ops>(a);
}
inline __device__ __noinline__ void g2_xyzz_dbl(g2_xyzz_d &r, const g2_xyzz_d &a)
{
    ec_xyzz_dbl<fp2_ops>(r, a);
}
/* r += b (affine), b negated when neg. */
inline __device__ __noinline__ void g2_xyzz_madd(g2_xyzz_d &r, const g2_aff_d &b, bool neg = false)
{
    ec_xyzz_madd<fp2_ops>(r, b, neg);
}
inline __device__ __noinline__ void g2_xyzz_add(g2_xyzz_d &r, const g2_xyzz_d &b)
{
    ec_xyzz_add<fp2_ops>(r, b);
}

#endif
