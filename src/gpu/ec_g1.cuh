/* Device G1 (y^2 = x^3 + 4 over Fp): the types, Fp's field trait fp_ops for the formulas of ec.cuh (every operation
 * inlined: G1 is the prover's hot path), the inversions (Fermat, Bernstein-Yang), and the G1 names of ec.cuh's
 * XYZZ operations, inlined. Affine infinity is x = y = 0, XYZZ infinity zz = 0; the structs have the CPU layout
 * (src/ec/g1.h), so host arrays are used as they are. */
#ifndef CUZK_GPU_G1_CUH
#define CUZK_GPU_G1_CUH

#include "ec.cuh"

typedef ec_aff<fp_d> g1_aff_d;
typedef ec_xyzz<fp_d> g1_xyzz_d;

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

/* Fp for ec.cuh's formulas; the planar loads and stores and 16-byte gathers are for the batch-affine rounds of
 * msm.cu (planar: limb k of element j at w[k * stride + j]). */
struct fp_ops {
    typedef fp_d fe;
    static constexpr int WORDS = 12;
    static MONT_DEV void mul(fe &r, const fe &a, const fe &b)
    {
        mont_mul<fp_cfg>(r, a, b);
    }
    static MONT_DEV void sqr(fe &r, const fe &a)
    {
        mont_sqr<fp_cfg>(r, a);
    }
    static MONT_DEV void mul_i(fe &r, const fe &a, const fe &b)
    {
        mont_mul<fp_cfg>(r, a, b);
    }
    static MONT_DEV void sqr_i(fe &r, const fe &a)
    {
        mont_sqr<fp_cfg>(r, a);
    }
    static MONT_DEV void add(fe &r, const fe &a, const fe &b)
    {
        mont_add<fp_cfg>(r, a, b);
    }
    static MONT_DEV void sub(fe &r, const fe &a, const fe &b)
    {
        mont_sub<fp_cfg>(r, a, b);
    }
    static MONT_DEV void dbl(fe &r, const fe &a)
    {
        mont_dbl<fp_cfg>(r, a);
    }
    static MONT_DEV void cneg(fe &r, const fe &a, bool flag)
    {
        mont_cneg<fp_cfg>(r, a, flag);
    }
    static MONT_DEV bool is_zero(const fe &a)
    {
        return mont_is_zero<fp_cfg>(a);
    }
    static MONT_DEV bool eq(const fe &a, const fe &b)
    {
        return mont_eq<fp_cfg>(a, b);
    }
    static MONT_DEV void zero(fe &r)
    {
        mont_set_zero<fp_cfg>(r);
    }
    static MONT_DEV void one(fe &r)
    {
        mont_set_one<fp_cfg>(r);
    }
    static MONT_DEV void ldg16(fe &r, const fe *p)
    {
        fp_ldg16(r, p);
    }
    static MONT_DEV void pl_ld(fe &r, const uint32_t *__restrict__ w, size_t stride, uint32_t j)
    {
#pragma unroll
        for (int k = 0; k < 12; k++) r.v[k] = w[k * stride + j];
    }
    static MONT_DEV void pl_st(uint32_t *__restrict__ w, size_t stride, uint32_t j, const fe &a)
    {
#pragma unroll
        for (int k = 0; k < 12; k++) w[k * stride + j] = a.v[k];
    }
};

/* The G1 names of ec.cuh's operations (inlined). */
MONT_DEV bool g1_aff_is_inf(const g1_aff_d &a)
{
    return ec_aff_is_inf<fp_ops>(a);
}
MONT_DEV void g1_xyzz_inf(g1_xyzz_d &r)
{
    ec_xyzz_inf<fp_ops>(r);
}
MONT_DEV bool g1_xyzz_is_inf(const g1_xyzz_d &a)
{
    return ec_xyzz_is_inf<fp_ops>(a);
}
MONT_DEV void g1_xyzz_from_aff(g1_xyzz_d &r, const g1_aff_d &a)
{
    ec_xyzz_from_aff<fp_ops>(r, a);
}
MONT_DEV void g1_xyzz_dbl(g1_xyzz_d &r, const g1_xyzz_d &a)
{
    ec_xyzz_dbl<fp_ops>(r, a);
}
/* r += b (affine), b negated when neg. */
MONT_DEV void g1_xyzz_madd(g1_xyzz_d &r, const g1_aff_d &b, bool neg)
{
    ec_xyzz_madd<fp_ops>(r, b, neg);
}
MONT_DEV void g1_xyzz_add(g1_xyzz_d &r, const g1_xyzz_d &b)
{
    ec_xyzz_add<fp_ops>(r, b);
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

/* Inversion in Fp by Bernstein-Yang divsteps (variable time): batches of 62 divsteps on the low 64 bits of f, g
 * give a 2x2 matrix with entries below 2^62, which is then applied to the full f, g (signed, 7 limbs of 62 bits) and
 * to the coefficients d, e (kept in [0, p)), with d * x = f and e * x = g mod p throughout. From f = p, g = x to
 * g = 0, f = +-1: ~15 batches instead of Fermat's 609 products. */
#define BY_L 7
#define BY_M62 ((uint64_t)0x3fffffffffffffffull)

struct by_mat {
    int64_t u, v, q, r;
};

/* 62 divsteps on the low words f, g (f odd); delta as in Bernstein-Yang (starts at 1). */
MONT_DEV int64_t by_divsteps62(int64_t delta, uint64_t f, uint64_t g, by_mat &t)
{
    int64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < 62; i++) {
        uint64_t godd = g & 1;
        bool sw = (delta > 0) && godd;
        if (sw) {
            uint64_t tf = f;
            f = g;
            g = (uint64_t)0 - tf;
            int64_t tu = u, tv = v;
            u = q;
            v = r;
            q = -tu;
            r = -tv;
            delta = -delta;
        }
        if (godd) {
            g += f;
            q += u;
            r += v;
        }
        g >>= 1;
        u *= 2;
        v *= 2;
        delta += 1;
    }
    t.u = u;
    t.v = v;
    t.q = q;
    t.r = r;
    return delta;
}

/* (f, g) = (u f + v g, q f + r g) / 2^62 (exact). */
MONT_DEV void by_update_fg(int64_t *f, int64_t *g, const by_mat &t)
{
    __int128 cf = (__int128)t.u * f[0] + (__int128)t.v * g[0];
    __int128 cg = (__int128)t.q * f[0] + (__int128)t.r * g[0];
    cf >>= 62;
    cg >>= 62;
#pragma unroll
    for (int i = 1; i < BY_L; i++) {
        cf += (__int128)t.u * f[i] + (__int128)t.v * g[i];
        cg += (__int128)t.q * f[i] + (__int128)t.r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & BY_M62);
        g[i - 1] = (int64_t)((uint64_t)cg & BY_M62);
        cf >>= 62;
        cg >>= 62;
    }
    f[BY_L - 1] = (int64_t)cf;
    g[BY_L - 1] = (int64_t)cg;
}

/* x = x + p if x < 0, x - p if x >= p (x in (-p, 2p), 7 limbs). */
MONT_DEV void by_norm(int64_t *x, const int64_t *P)
{
    int64_t c = 0;
    if (x[BY_L - 1] < 0) {
#pragma unroll
        for (int i = 0; i < BY_L; i++) {
            c += x[i] + P[i];
            x[i] = i < BY_L - 1 ? (int64_t)((uint64_t)c & BY_M62) : c;
            c >>= 62;
        }
        return;
    }
    int64_t s[BY_L];
#pragma unroll
    for (int i = 0; i < BY_L; i++) {
        c += x[i] - P[i];
        s[i] = i < BY_L - 1 ? (int64_t)((uint64_t)c & BY_M62) : c;
        c >>= 62;
    }
    if (s[BY_L - 1] >= 0)
        for (int i = 0; i < BY_L; i++) x[i] = s[i];
}

/* (d, e) = (u d + v e + md p, q d + r e + me p) / 2^62 mod p, in [0, p) (d, e in [0, p) on entry). */
MONT_DEV void by_update_de(int64_t *d, int64_t *e, const by_mat &t, const int64_t *P, uint64_t pinv62)
{
    uint64_t md = ((uint64_t)0 - ((uint64_t)t.u * (uint64_t)d[0] + (uint64_t)t.v * (uint64_t)e[0]) * pinv62) & BY_M62;
    uint64_t me = ((uint64_t)0 - ((uint64_t)t.q * (uint64_t)d[0] + (uint64_t)t.r * (uint64_t)e[0]) * pinv62) & BY_M62;
    __int128 cd = (__int128)t.u * d[0] + (__int128)t.v * e[0] + (__int128)md * P[0];
    __int128 ce = (__int128)t.q * d[0] + (__int128)t.r * e[0] + (__int128)me * P[0];
    cd >>= 62;
    ce >>= 62;
#pragma unroll
    for (int i = 1; i < BY_L; i++) {
        cd += (__int128)t.u * d[i] + (__int128)t.v * e[i] + (__int128)md * P[i];
        ce += (__int128)t.q * d[i] + (__int128)t.r * e[i] + (__int128)me * P[i];
        d[i - 1] = (int64_t)((uint64_t)cd & BY_M62);
        e[i - 1] = (int64_t)((uint64_t)ce & BY_M62);
        cd >>= 62;
        ce >>= 62;
    }
    d[BY_L - 1] = (int64_t)cd;
    e[BY_L - 1] = (int64_t)ce;
    by_norm(d, P);
    by_norm(e, P);
}

/* 12 32-bit limbs <-> 7 62-bit limbs (values in [0, 2^384)). */
MONT_DEV void by_from32(int64_t *x, const uint32_t *a)
{
#pragma unroll
    for (int i = 0; i < BY_L; i++) {
        uint64_t w = 0;
#pragma unroll
        for (int b = 0; b < 62; b += 2) {
            int bit = 62 * i + b;
            if (bit >= 384) break;
            w |= (uint64_t)((a[bit / 32] >> (bit % 32)) & 3) << b;
        }
        x[i] = (int64_t)w;
    }
}

MONT_DEV void by_to32(uint32_t *a, const int64_t *x)
{
    for (int k = 0; k < 12; k++) a[k] = 0;
#pragma unroll
    for (int i = 0; i < BY_L; i++)
#pragma unroll
        for (int b = 0; b < 62; b += 2) {
            int bit = 62 * i + b;
            if (bit >= 384) break;
            a[bit / 32] |= (uint32_t)(((uint64_t)x[i] >> b) & 3) << (bit % 32);
        }
}

/* r = x^-1 mod p as integers (limbs of 32 bits), 0 for x = 0. */
MONT_DEV void by_inv_int(uint32_t *r, const uint32_t *x, const uint32_t *p32, uint64_t pinv62)
{
    int64_t f[BY_L], g[BY_L], d[BY_L] = {0}, e[BY_L] = {0}, P[BY_L];
    by_from32(P, p32);
    by_from32(g, x);
    for (int i = 0; i < BY_L; i++) f[i] = P[i];
    e[0] = 1;
    int64_t delta = 1;
    for (int it = 0; it < 24; it++) {
        int64_t z = 0;
        for (int i = 0; i < BY_L; i++) z |= g[i];
        if (z == 0) break;
        by_mat t;
        uint64_t flo = (uint64_t)f[0] | ((uint64_t)f[1] << 62), glo = (uint64_t)g[0] | ((uint64_t)g[1] << 62);
        delta = by_divsteps62(delta, flo, glo, t);
        by_update_fg(f, g, t);
        by_update_de(d, e, t, P, pinv62);
    }
    /* f = +-1: x^-1 = d * f. */
    if (f[BY_L - 1] < 0) {
        int64_t n[BY_L], c = 0;
        for (int i = 0; i < BY_L; i++) {
            c += P[i] - d[i];
            n[i] = i < BY_L - 1 ? (int64_t)((uint64_t)c & BY_M62) : c;
            c >>= 62;
        }
        for (int i = 0; i < BY_L; i++) d[i] = n[i];
        by_norm(d, P);
    }
    by_to32(r, d);
}

/* r = a^-1 (Montgomery form, 0 for a = 0) by by_inv_int: the integer inverse of aR is a^-1 R^-1, and one Montgomery
 * product with R^3 mod p makes it a^-1 R. Same result as g1_fp_inv, ~10x fewer instructions (variable time: for
 * public data only). */
MONT_DEV void g1_fp_inv_by(fp_d &r, const fp_d &a)
{
    uint32_t p32[12], t[12];
#pragma unroll
    for (int k = 0; k < 12; k++) p32[k] = fp_cfg::p(k);
    by_inv_int(t, a.v, p32, 0x360c000300030003ull); /* p^-1 mod 2^62 */
    /* R^3 mod p */
    constexpr uint32_t r3[12] = {0xd94ca1e0, 0xed48ac6b, 0x03a7adf8, 0x315f831e, 0x615e29dd, 0x9a53352a,
                                 0x921e1761, 0x34c04e5e, 0x65724728, 0x2512d435, 0x91755d4d, 0x0aa63460};
    fp_d x, c;
#pragma unroll
    for (int k = 0; k < 12; k++) {
        x.v[k] = t[k];
        c.v[k] = r3[k];
    }
    FP_MUL(r, x, c);
}

#endif
