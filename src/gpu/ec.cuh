/* Device curve arithmetic written once for G1 (over Fp, ec_g1.cuh) and G2 (over Fp2, ec_g2.cuh): XYZZ coordinates
 * x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2, infinity ZZ = 0; affine infinity is x = y = 0, as in the CPU code
 * (src/ec/g1.h, g2.h), whose layouts the structs share, so host arrays are used as they are. The formulas do not
 * depend on the curve's b: EFD "xyzz" for a = 0, madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1; and the
 * affine sum of a pair for the batch-affine rounds (Montgomery's trick: the caller inverts the denominators).
 *
 * F is a field trait: typedef fe; mul, sqr (the products of the XYZZ formulas), mul_i, sqr_i (products the
 * batch-affine kernels want inlined), add, sub, dbl, cneg, is_zero, eq, zero, one. For Fp all are inlined; for
 * Fp2, mul and sqr are calls (ec_g2.cuh says why). Whether a point operation itself is inlined is the caller's
 * choice: ec_g1.cuh wraps these templates inline, ec_g2.cuh in __noinline__ functions. */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "ff_mont.cuh"

template <class Fe> struct ec_aff {
    Fe x, y;
};

template <class Fe> struct ec_xyzz {
    Fe x, y, zz, zzz;
};

template <class F> MONT_DEV bool ec_aff_is_inf(const ec_aff<typename F::fe> &a)
{
    return F::is_zero(a.x) && F::is_zero(a.y);
}

template <class F> MONT_DEV void ec_xyzz_inf(ec_xyzz<typename F::fe> &r)
{
    F::zero(r.x);
    F::zero(r.y);
    F::zero(r.zz);
    F::zero(r.zzz);
}

template <class F> MONT_DEV bool ec_xyzz_is_inf(const ec_xyzz<typename F::fe> &a)
{
    return F::is_zero(a.zz);
}

template <class F> MONT_DEV void ec_xyzz_from_aff(ec_xyzz<typename F::fe> &r, const ec_aff<typename F::fe> &a)
{
    if (ec_aff_is_inf<F>(a)) {
        ec_xyzz_inf<F>(r);
        return;
    }
    r.x = a.x;
    r.y = a.y;
    F::one(r.zz);
    F::one(r.zzz);
}

/* r = 2a for an affine a (not infinity, y != 0: true for every point of odd order). */
template <class F> MONT_DEV void ec_xyzz_mdbl(ec_xyzz<typename F::fe> &r, const ec_aff<typename F::fe> &a)
{
    typename F::fe u, v, w, s, m, t;
    F::dbl(u, a.y);
    F::sqr(v, u);
    F::mul(w, u, v);
    F::mul(s, a.x, v);
    F::sqr(m, a.x);
    F::dbl(t, m);
    F::add(m, m, t);
    F::sqr(t, m);
    F::sub(t, t, s);
    F::sub(r.x, t, s);
    F::sub(t, s, r.x);
    F::mul(t, m, t);
    F::mul(u, w, a.y);
    F::sub(r.y, t, u);
    r.zz = v;
    r.zzz = w;
}

template <class F> MONT_DEV void ec_xyzz_dbl(ec_xyzz<typename F::fe> &r, const ec_xyzz<typename F::fe> &a)
{
    if (ec_xyzz_is_inf<F>(a)) {
        r = a;
        return;
    }
    typename F::fe u, v, w, s, m, t, x3;
    F::dbl(u, a.y);
    F::sqr(v, u);
    F::mul(w, u, v);
    F::mul(s, a.x, v);
    F::sqr(m, a.x);
    F::dbl(t, m);
    F::add(m, m, t);
    F::sqr(t, m);
    F::sub(t, t, s);
    F::sub(x3, t, s);
    F::sub(t, s, x3);
    F::mul(t, m, t);
    F::mul(u, w, a.y);
    F::sub(r.y, t, u);
    r.x = x3;
    F::mul(r.zz, v, a.zz);
    F::mul(r.zzz, w, a.zzz);
}

/* r += b (affine), b negated when neg. r and the result may be infinity; equal points double (mdbl: the copies
 * before this header doubled G2 through the general dbl with zz = zzz = 1, 4 products more), opposite points give
 * infinity. */
template <class F> MONT_DEV void ec_xyzz_madd(ec_xyzz<typename F::fe> &r, const ec_aff<typename F::fe> &b_in, bool neg)
{
    if (ec_aff_is_inf<F>(b_in)) return;
    ec_aff<typename F::fe> b;
    b.x = b_in.x;
    F::cneg(b.y, b_in.y, neg);
    if (ec_xyzz_is_inf<F>(r)) {
        ec_xyzz_from_aff<F>(r, b);
        return;
    }
    typename F::fe p, rr, pp, ppp, q, t;
    F::mul(p, b.x, r.zz);
    F::sub(p, p, r.x);
    F::mul(rr, b.y, r.zzz);
    F::sub(rr, rr, r.y);
    if (F::is_zero(p)) {
        if (F::is_zero(rr))
            ec_xyzz_mdbl<F>(r, b);
        else
            ec_xyzz_inf<F>(r);
        return;
    }
    F::sqr(pp, p);
    F::mul(ppp, p, pp);
    F::mul(q, r.x, pp);
    F::sqr(t, rr);
    F::sub(t, t, ppp);
    F::sub(t, t, q);
    F::sub(t, t, q); /* t = X3 */
    F::sub(q, q, t);
    F::mul(q, rr, q);
    F::mul(p, r.y, ppp);
    F::sub(r.y, q, p);
    r.x = t;
    F::mul(r.zz, r.zz, pp);
    F::mul(r.zzz, r.zzz, ppp);
}

/* r += b, both XYZZ. */
template <class F> MONT_DEV void ec_xyzz_add(ec_xyzz<typename F::fe> &r, const ec_xyzz<typename F::fe> &b)
{
    if (ec_xyzz_is_inf<F>(b)) return;
    if (ec_xyzz_is_inf<F>(r)) {
        r = b;
        return;
    }
    typename F::fe u1, s1, p, rr, pp, ppp, q, t;
    F::mul(u1, r.x, b.zz);
    F::mul(p, b.x, r.zz);
    F::sub(p, p, u1);
    F::mul(s1, r.y, b.zzz);
    F::mul(rr, b.y, r.zzz);
    F::sub(rr, rr, s1);
    if (F::is_zero(p)) {
        if (F::is_zero(rr))
            ec_xyzz_dbl<F>(r, b);
        else
            ec_xyzz_inf<F>(r);
        return;
    }
    F::sqr(pp, p);
    F::mul(ppp, p, pp);
    F::mul(q, u1, pp);
    F::sqr(t, rr);
    F::sub(t, t, ppp);
    F::sub(t, t, q);
    F::sub(t, t, q); /* t = X3 */
    F::sub(q, q, t);
    F::mul(q, rr, q);
    F::mul(s1, s1, ppp);
    F::sub(r.y, q, s1);
    r.x = t;
    F::mul(r.zz, r.zz, b.zz);
    F::mul(r.zz, r.zz, pp);
    F::mul(r.zzz, r.zzz, b.zzz);
    F::mul(r.zzz, r.zzz, ppp);
}

/* Batched affine addition a + b (Montgomery's trick): ec_aff_pair_den gives the kind of the sum and, for the two
 * kinds that need one, the denominator to invert; ec_aff_pair_finish takes its inverse. A and B pass one side
 * through (the other is infinity, or a is an odd last point); INF is P + (-P) (and P + P for y = 0). */
enum { EC_PAIR_ADD = 0, EC_PAIR_DBL = 1, EC_PAIR_A = 2, EC_PAIR_B = 3, EC_PAIR_INF = 4 };

/* The kind of a + b (signs applied; infinity is (0, 0)) and, for ADD and DBL, the denominator: x(b) - x(a), or
 * 2 y(a), never zero, so that it can enter a running product. */
template <class F>
MONT_DEV int ec_aff_pair_den(typename F::fe &den, const ec_aff<typename F::fe> &a, const ec_aff<typename F::fe> &b)
{
    if (ec_aff_is_inf<F>(a)) return EC_PAIR_B;
    if (ec_aff_is_inf<F>(b)) return EC_PAIR_A;
    F::sub(den, b.x, a.x);
    if (!F::is_zero(den)) return EC_PAIR_ADD;
    if (!F::eq(a.y, b.y) || F::is_zero(a.y)) return EC_PAIR_INF;
    F::dbl(den, a.y);
    return EC_PAIR_DBL;
}

/* r = a + b for kind ADD or DBL, inv = 1/den (a and b with their signs applied): lambda = (y2 - y1) / (x2 - x1)
 * or 3 x1^2 / 2 y1; x3 = lambda^2 - x1 - x2; y3 = lambda (x1 - x3) - y1. The doubling's square is F::sqr (a call
 * for Fp2: doublings are rare). */
template <class F>
MONT_DEV void ec_aff_pair_finish(ec_aff<typename F::fe> &r, const ec_aff<typename F::fe> &a,
                                 const ec_aff<typename F::fe> &b, int kind, const typename F::fe &inv)
{
    typename F::fe lam, t, u;
    if (kind == EC_PAIR_DBL) {
        F::sqr(t, a.x);
        F::dbl(lam, t);
        F::add(t, lam, t);
    } else {
        F::sub(t, b.y, a.y);
    }
    F::mul_i(lam, t, inv);
    F::sqr_i(t, lam);
    F::sub(t, t, a.x);
    F::sub(t, t, b.x); /* x3 */
    F::sub(u, a.x, t);
    F::mul_i(u, lam, u);
    F::sub(r.y, u, a.y);
    r.x = t;
}

#endif
