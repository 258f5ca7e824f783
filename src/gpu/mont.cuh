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
 * Constants come from constexpr functions so that, in the fully unrolled loops,
 * they become instruction immediates instead of loads.
 *
 * Contract: inputs fully reduced (< p), outputs fully reduced. Both moduli are
 * below 2^(32N-1), which the carry reasoning in mont_mul relies on.
 *
 * The PTX carry chains (add.cc/addc, mad.lo.cc/madc.hi) span several asm
 * statements; nothing but register moves sits between them once unrolled. */
#ifndef CUZK_GPU_MONT_CUH
#define CUZK_GPU_MONT_CUH

#include <stdint.h>

#define MONT_DEV __device__ __forceinline__

struct fp_cfg {
    static constexpr int N = 12;
    static constexpr uint32_t M0 = 0xfffcfffdu;
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

typedef mont_t<fp_cfg> fp_d;
typedef mont_t<fr_cfg> fr_d;

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

/* r = a*b/R mod p: CIOS, one limb of b per step, with the running sum t on N+1 limbs.
 * Bound: t < 2p before each step, and t + a*b_i + p*m < 2p*2^32 < 2^(32(N+1)) because p < 2^(32N-1),
 * so no carry ever leaves limb N; after the shift t < 2p again. */
template <class C> MONT_DEV void mont_mul(mont_t<C> &r, const mont_t<C> &a, const mont_t<C> &b)
{
    constexpr int N = C::N;
    uint32_t t[N + 1];
#pragma unroll
    for (int j = 0; j <= N; j++) t[j] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t bi = b.v[i], m;
        /* t += a*b_i: the low halves into limbs 0..N-1, then the high halves into limbs 1..N. */
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.v[j]), "r"(bi));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N - 1; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.v[j]), "r"(bi));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(a.v[N - 1]), "r"(bi));
        /* t += p*m with m chosen so that limb 0 becomes zero, then t >>= 32. */
        m = t[0] * C::M0;
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(C::p(0)), "r"(m));
#pragma unroll
        for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(C::p(j)), "r"(m));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(C::p(0)), "r"(m));
#pragma unroll
        for (int j = 1; j < N - 1; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(C::p(j)), "r"(m));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(C::p(N - 1)), "r"(m));
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = t[j + 1];
        t[N] = 0;
    }
    mont_final_sub<C>(r, t);
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

#endif
