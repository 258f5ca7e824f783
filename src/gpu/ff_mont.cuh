/* Device Montgomery arithmetic for the two BLS12-381 fields, on 32-bit limbs:
 * Fp (381 bits, 12 limbs, R = 2^384) and Fr (255 bits, 8 limbs, R = 2^256).
 *
 * The limb layout and the Montgomery values are exactly those of the CPU code
 * (src/ff/fp.h, src/ff/fr.h: 64-bit little-endian limbs, same R), so arrays
 * copied from the host are used directly: 64-bit limb k is 32-bit limbs 2k, 2k+1.
 *
 * One generic implementation, parameterised by a constants class C:
 *   C::N           number of 32-bit limbs
 *   C::p(i)        limb i of the modulus
 *   C::one(i)      limb i of R mod p (Montgomery 1)
 *   C::rr(i)       limb i of R^2 mod p (to enter Montgomery form)
 *   C::M0          -p^-1 mod 2^32
 *   C::m0()        M0 as the device code reads it
 * Constants come from constexpr functions so that, in the fully unrolled loops,
 * they become instruction immediates instead of loads.
 *
 * Contract: inputs fully reduced (< p), outputs fully reduced. Both moduli are
 * below 0.91*2^(32N-1), which the carry reasoning in mont_mul relies on.
 *
 * The PTX carry chains (add.cc/addc, mad.lo.cc/madc.hi) span several asm
 * statements; nothing but register moves sits between them once unrolled. Every
 * chain is asm volatile: plain asm statements of one chain were reordered (the
 * carry flag is invisible to the compiler). */
#ifndef CUZK_GPU_MONT_CUH
#define CUZK_GPU_MONT_CUH

#include <stdint.h>

#define MONT_DEV __device__ __forceinline__

struct fp_cfg {
    static constexpr int N = 12;
    static constexpr uint32_t M0 = 0xfffcfffdu;
    __device__ static uint32_t m0()
    {
        return M0;
    }
    __host__ __device__ static constexpr uint32_t p(int i)
    {
        constexpr uint32_t v[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                                    0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return v[i];
    }
    __host__ __device__ static constexpr uint32_t one(int i)
    {
        constexpr uint32_t v[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
                                    0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return v[i];
    }
    __host__ __device__ static constexpr uint32_t rr(int i)
    {
        constexpr uint32_t v[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
                                    0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
        return v[i];
    }
};

struct fr_cfg {
    static constexpr int N = 8;
    static constexpr uint32_t M0 = 0xffffffffu;
    __device__ static uint32_t m0();
    __host__ __device__ static constexpr uint32_t p(int i)
    {
        constexpr uint32_t v[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return v[i];
    }
    __host__ __device__ static constexpr uint32_t one(int i)
    {
        constexpr uint32_t v[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return v[i];
    }
    __host__ __device__ static constexpr uint32_t rr(int i)
    {
        constexpr uint32_t v[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                                   0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
        return v[i];
    }
};

/* A field element: N 32-bit limbs, little-endian, Montgomery form. */
template <class C> struct mont_t {
    uint32_t v[C::N];
};

/* Fr's M0 is all ones: when ptxas sees that constant it splits 48 of the 128 wide multiply-adds of a product into
 * two instructions (288 -> 240 SASS instructions per product with the load), so it comes from constant memory. */
static __constant__ uint32_t mont_fr_m0 = fr_cfg::M0;
__device__ __forceinline__ uint32_t fr_cfg::m0()
{
    return mont_fr_m0;
}

typedef mont_t<fp_cfg> fp_d;
typedef mont_t<fr_cfg> fr_d;

/* An Fr element of read-only memory (tables, matrices, inputs) as two 16-byte loads through the non-coherent
 * cache, and a store as two 16-byte stores. */
__device__ __forceinline__ fr_d fr_ldg(const fr_d *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = __ldg(q), b = __ldg(q + 1);
    fr_d r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
}

__device__ __forceinline__ void fr_st(fr_d *p, const fr_d &r)
{
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
    q[1] = make_uint4(r.v[4], r.v[5], r.v[6], r.v[7]);
}

template <class C> MONT_DEV void mont_set_zero(mont_t<C> &r)
{
#pragma unroll
    for (int i = 0; i < C::N; i++) r.v[i] = 0;
}

template <class C> MONT_DEV void mont_set_one(mont_t<C> &r)
{
#pragma unroll
    for (int i = 0; i < C::N; i++) r.v[i] = C::one(i);
}

template <class C> MONT_DEV bool mont_is_zero(const mont_t<C> &a)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) acc |= a.v[i];
    return acc == 0;
}

template <class C> MONT_DEV bool mont_eq(const mont_t<C> &a, const mont_t<C> &b)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
}

/* r = t - p if t >= p, else t (t < 2p, given in N limbs). */
template <class C> MONT_DEV void mont_final_sub(mont_t<C> &r, const uint32_t t[C::N])
{
    uint32_t s[C::N], borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(C::p(0)));
#pragma unroll
    for (int i = 1; i < C::N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(t[i]), "r"(C::p(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
    /* borrow is all ones when t < p: keep t. */
#pragma unroll
    for (int i = 0; i < C::N; i++) r.v[i] = borrow ? t[i] : s[i];
}

template <class C> MONT_DEV void mont_add(mont_t<C> &r, const mont_t<C> &a, const mont_t<C> &b)
{
    uint32_t t[C::N];
    /* a + b < 2p < 2^(32N): no carry out. */
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < C::N - 1; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(t[C::N - 1]) : "r"(a.v[C::N - 1]), "r"(b.v[C::N - 1]));
    mont_final_sub<C>(r, t);
}

template <class C> MONT_DEV void mont_dbl(mont_t<C> &r, const mont_t<C> &a)
{
    mont_add<C>(r, a, a);
}

template <class C> MONT_DEV void mont_sub(mont_t<C> &r, const mont_t<C> &a, const mont_t<C> &b)
{
    uint32_t t[C::N], borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < C::N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
    /* On borrow add p back (borrow is 0 or all ones, so p & borrow selects). */
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(C::p(0) & borrow));
#pragma unroll
    for (int i = 1; i < C::N - 1; i++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[i]) : "r"(C::p(i) & borrow));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(t[C::N - 1]) : "r"(C::p(C::N - 1) & borrow));
#pragma unroll
    for (int i = 0; i < C::N; i++) r.v[i] = t[i];
}

/* r = -a (zero stays zero). */
template <class C> MONT_DEV void mont_neg(mont_t<C> &r, const mont_t<C> &a)
{
    bool z = mont_is_zero<C>(a);
    uint32_t t[C::N];
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(C::p(0)), "r"(a.v[0]));
#pragma unroll
    for (int i = 1; i < C::N - 1; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(C::p(i)), "r"(a.v[i]));
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(t[C::N - 1]) : "r"(C::p(C::N - 1)), "r"(a.v[C::N - 1]));
#pragma unroll
    for (int i = 0; i < C::N; i++) r.v[i] = z ? 0u : t[i];
}

/* r = -a when flag, else a. */
template <class C> MONT_DEV void mont_cneg(mont_t<C> &r, const mont_t<C> &a, bool flag)
{
    mont_t<C> n;
    mont_neg<C>(n, a);
#pragma unroll
    for (int i = 0; i < C::N; i++) r.v[i] = flag ? n.v[i] : a.v[i];
}

namespace mont_detail {

/* The multiplication keeps its running sum in two accumulators of N limbs: e holds the products of the
 * even-indexed limbs (a[j]*b_i with j even, a 64-bit product at limbs j, j+1), o those of the odd-indexed limbs,
 * one limb higher. Within one accumulator the 64-bit products of a row do not overlap, so a row is a single carry
 * chain of lo/hi pairs into adjacent registers, which ptxas emits as one IMAD.WIDE.U32(.X) per product; with one
 * accumulator (CIOS) the lo and hi halves land in separate chains and every step needs an extra carry add. */

/* acc[j], acc[j+1] = x[j]*y for even j < CNT. */
template <int CNT> MONT_DEV void mul_pairs(uint32_t *acc, const uint32_t *x, uint32_t y)
{
#pragma unroll
    for (int j = 0; j < CNT; j += 2)
        asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                     : "=r"(acc[j]), "=r"(acc[j + 1])
                     : "r"(x[j]), "r"(y));
}

/* acc[0..CNT) += sum over even j of x[j]*y*2^(32j): one chain, carry in ignored, carry out left in CC. */
template <int CNT> MONT_DEV void mad_pairs(uint32_t *acc, const uint32_t *x, uint32_t y)
{
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(acc[0]), "+r"(acc[1])
                 : "r"(x[0]), "r"(y));
#pragma unroll
    for (int j = 2; j < CNT; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(acc[j]), "+r"(acc[j + 1])
                     : "r"(x[j]), "r"(y));
}

/* One row of the interleaved multiply-and-reduce: (e + o*2^32) += a*y, then += P*m with m making limb 0 of e
 * zero. Before a row that is not the first, the caller has swapped the roles (the old o is the new e, the old e
 * the new o), which divides the sum by 2^32: the old e's limb 0 is zero, its limb 1 sits at the new limb 0 and
 * its limbs k >= 2 at the new o's limb k-2, so the shift is folded into this row's first chain.
 * Carries that leave the top limb of o are zero: the odd-indexed limbs of x, one limb down, are at most x/2^32,
 * so o < (a*y + P*m)/2^32 + (old e)/2^64 + 2*2^(32(N-1)) < 2P + 2^(32(N-2)) + 2^(32N-31) < 2^(32N): true for both
 * moduli (2P < 0.91*2^(32N)). Carries that leave e are added to o's top limb explicitly. */
template <class C>
MONT_DEV void mul_row(uint32_t *e, uint32_t *o, const uint32_t *a, uint32_t y, const uint32_t *P, bool first)
{
    constexpr int N = C::N;
    if (first) {
        mul_pairs<N>(o, a + 1, y);
        mul_pairs<N>(e, a, y);
    } else {
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(e[0]) : "r"(o[1]));
#pragma unroll
        for (int j = 0; j < N - 2; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
                         : "=r"(o[j]), "=r"(o[j + 1])
                         : "r"(a[j + 1]), "r"(y), "r"(o[j + 2]), "r"(o[j + 3]));
        asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                     : "=r"(o[N - 2]), "=r"(o[N - 1])
                     : "r"(a[N - 1]), "r"(y));
        mad_pairs<N>(e, a, y);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(o[N - 1]));
    }
    uint32_t m = e[0] * C::m0();
    mad_pairs<N>(o, P + 1, m);
    mad_pairs<N>(e, P, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(o[N - 1]));
}

} // namespace mont_detail

/* r = a*b/R mod p (Montgomery product), fully reduced; r may alias a or b. N must be even.
 * Bound: the sum after the last row is (a*b + M*p)/R < 2p, so one conditional subtraction suffices.
 * Costs ~2N^2 IMAD.WIDE plus ~3N adds, and 2N accumulator registers (a CIOS with one accumulator needs N+1 but
 * pays an extra carry add per product). */
template <class C> MONT_DEV void mont_mul(mont_t<C> &r, const mont_t<C> &a, const mont_t<C> &b)
{
    constexpr int N = C::N;
    static_assert(N % 2 == 0, "mont_mul pairs limbs");
    uint32_t P[N], e[N], o[N];
#pragma unroll
    for (int i = 0; i < N; i++) P[i] = C::p(i);
#pragma unroll
    for (int i = 0; i < N; i += 2) {
        mont_detail::mul_row<C>(e, o, a.v, b.v[i], P, i == 0);
        mont_detail::mul_row<C>(o, e, a.v, b.v[i + 1], P, false);
    }
    /* The last row ran with the roles swapped (o at offset 0, e one limb up), and its reduction zeroed o's limb 0:
     * the result is (o + e*2^32)/2^32 = e + o/2^32. */
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(e[0]) : "r"(o[1]));
#pragma unroll
    for (int k = 1; k < N - 1; k++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(e[k]) : "r"(o[k + 1]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(e[N - 1]));
    mont_final_sub<C>(r, e);
}

template <class C> MONT_DEV void mont_sqr(mont_t<C> &r, const mont_t<C> &a)
{
    mont_mul<C>(r, a, a);
}

/* Montgomery -> canonical limbs (a*1/R). */
template <class C> MONT_DEV void mont_from(mont_t<C> &r, const mont_t<C> &a)
{
    mont_t<C> one;
#pragma unroll
    for (int i = 0; i < C::N; i++) one.v[i] = i == 0;
    mont_mul<C>(r, a, one);
}

/* Canonical limbs (< p) -> Montgomery (a*R^2/R). */
template <class C> MONT_DEV void mont_to(mont_t<C> &r, const mont_t<C> &a)
{
    mont_t<C> rr;
#pragma unroll
    for (int i = 0; i < C::N; i++) rr.v[i] = C::rr(i);
    mont_mul<C>(r, a, rr);
}

/* An MSM scalar as Pippenger's signed digits want it: canonical limbs (from Montgomery form), replaced by r - s
 * when s > (r - 1) / 2 so that s < 2^254; returns whether it was replaced (the point is then negated). */
MONT_DEV bool fr_fold_half(fr_d &s, const fr_d &mont)
{
    const uint32_t h[8] = {0x80000000, 0x7fffffff, 0x7fff2dff, 0xa9ded201,
                           0x04d0ec02, 0x199cec04, 0x94cebea4, 0x39f6d3a9};
    mont_from<fr_cfg>(s, mont);
    bool gt = false;
#pragma unroll
    for (int i = 7; i >= 0; i--) {
        if (s.v[i] != h[i]) {
            gt = s.v[i] > h[i];
            break;
        }
    }
    if (gt) mont_neg<fr_cfg>(s, s);
    return gt;
}

#endif
