/* Montgomery arithmetic on N 64-bit limbs, instantiated once per prime field.
 *
 * The including file defines:
 *   MONT_N        number of limbs
 *   MONT_T        the element type, a struct with `uint64_t l[MONT_N]`
 *   MONT_FN(x)    the public name of operation x (e.g. fp_##x)
 *   MONT_MUL_ADX  the x86-64 MULX/ADX multiplication for N limbs (mont_x86_adx.h)
 *   MONT_ADD_ASM, MONT_SUB_ASM  the x86-64 addition and subtraction for N limbs (same header)
 *   and static const arrays mont_mod[N], mont_one[N] (R mod p), mont_r2[N]
 *   (R^2 mod p), a constant mont_inv (-p^-1 mod 2^64), and mont_pm[N+1]
 *   (the modulus followed by mont_inv, for the assembly), mont_pz[2N] (the modulus followed by N zero limbs, for
 *   the assembly addition and subtraction).
 * The modulus must leave its top bit clear with room to spare (top limb below
 * 2^63 - 1): multiplication then needs no extra carry word and addition never
 * overflows N limbs. Both BLS12-381 fields satisfy this. */
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 mont_u128;

/* GCC's SLP vectorizer turns the limb selects into SSE code that reloads
 * freshly stored limbs (a store-forwarding stall on every add). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
/* The same for the loop vectorizer: is_zero of a freshly stored element loaded 16 bytes at a time stalled. */
#pragma GCC optimize("no-tree-loop-vectorize")
#endif

/* Add/subtract with carry: the x86 intrinsics compile to ADC/SBB chains; elsewhere 128-bit arithmetic. */
#if defined(__x86_64__)
#include <x86intrin.h>
#define MONT_ADDC(c, x, y, out) ((c) = _addcarry_u64((unsigned char)(c), (x), (y), (unsigned long long *)(out)))
#define MONT_SUBB(b, x, y, out) ((b) = _subborrow_u64((unsigned char)(b), (x), (y), (unsigned long long *)(out)))
#else
#define MONT_ADDC(c, x, y, out)                                                                                        \
    do {                                                                                                               \
        mont_u128 s_ = (mont_u128)(x) + (y) + (c);                                                                     \
        *(out) = (uint64_t)s_;                                                                                         \
        (c) = (uint64_t)(s_ >> 64);                                                                                    \
    } while (0)
#define MONT_SUBB(b, x, y, out)                                                                                        \
    do {                                                                                                               \
        mont_u128 d_ = (mont_u128)(x) - (y) - (b);                                                                     \
        *(out) = (uint64_t)d_;                                                                                         \
        (b) = (uint64_t)(d_ >> 64) & 1;                                                                                \
    } while (0)
#endif

/* The assembly path needs BMI2 (MULX) and ADX (ADCX/ADOX), checked at run time. Addition and subtraction would
 * run anywhere on x86-64 but follow the same switch, so that CUZK_NO_ASM tests and times the whole portable path. */
#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
#include "ff/cpu.h"
#include "ff/mont_x86_adx.h"
#define MONT_ASM 1
#else
#define MONT_ASM 0
#endif

/* Full unrolling lets the compiler keep the limbs in registers. */
#if defined(__clang__)
#define MONT_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define MONT_UNROLL _Pragma("GCC unroll 8")
#else
#define MONT_UNROLL
#endif

static inline int mont_geq_mod(const uint64_t *a)
{
    MONT_UNROLL
    for (int i = MONT_N - 1; i >= 0; i--) {
        if (a[i] != mont_mod[i]) return a[i] > mont_mod[i];
    }
    return 1;
}

/* a - p if a >= p, without branches (a < 2p). */
static inline void mont_reduce_once(uint64_t *r, const uint64_t *a)
{
    uint64_t d[MONT_N], borrow = 0;
    MONT_UNROLL
    for (int i = 0; i < MONT_N; i++) MONT_SUBB(borrow, a[i], mont_mod[i], &d[i]);
    uint64_t keep = 0 - (uint64_t)borrow; /* all ones when a < p */
    MONT_UNROLL
    for (int i = 0; i < MONT_N; i++) r[i] = (a[i] & keep) | (d[i] & ~keep);
}

/* The portable additions, each in its own function so that the assembly path sets up no stack frame for them. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
mont_add_portable(MONT_T *r, const MONT_T *a, const MONT_T *b)
{
    uint64_t t[MONT_N], carry = 0;
    MONT_UNROLL
    for (int i = 0; i < MONT_N; i++) MONT_ADDC(carry, a->l[i], b->l[i], &t[i]);
    mont_reduce_once(r->l, t); /* a + b < 2p: never a carry out of the top limb */
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
mont_sub_portable(MONT_T *r, const MONT_T *a, const MONT_T *b)
{
    uint64_t t[MONT_N], borrow = 0, carry = 0;
    MONT_UNROLL
    for (int i = 0; i < MONT_N; i++) MONT_SUBB(borrow, a->l[i], b->l[i], &t[i]);
    uint64_t mask = 0 - (uint64_t)borrow; /* add p back when a < b, without a branch */
    MONT_UNROLL
    for (int i = 0; i < MONT_N; i++) MONT_ADDC(carry, t[i], mont_pz[i] & mask, &r->l[i]);
}

void MONT_FN(add)(MONT_T *r, const MONT_T *a, const MONT_T *b)
{
#if MONT_ASM
    if (cpu_has_adx) {
        MONT_ADD_ASM(r->l, a->l, b->l, mont_pz);
        return;
    }
#endif
    mont_add_portable(r, a, b);
}

void MONT_FN(dbl)(MONT_T *r, const MONT_T *a)
{
    MONT_FN(add)(r, a, a);
}

void MONT_FN(sub)(MONT_T *r, const MONT_T *a, const MONT_T *b)
{
#if MONT_ASM
    if (cpu_has_adx) {
        MONT_SUB_ASM(r->l, a->l, b->l, mont_pz);
        return;
    }
#endif
    mont_sub_portable(r, a, b);
}

/* 0 - a mod p: zero stays zero, anything else becomes p - a. */
void MONT_FN(neg)(MONT_T *r, const MONT_T *a)
{
    static const MONT_T zero;
    MONT_FN(sub)(r, &zero, a);
}

/* CIOS multiplication without the extra carry word (the modulus has spare bits). Portable C. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
mont_mul_portable(MONT_T *r, const MONT_T *a, const MONT_T *b)
{
    uint64_t t[MONT_N] = {0};
    MONT_UNROLL
    for (int i = 0; i < MONT_N; i++) {
        mont_u128 acc = (mont_u128)a->l[0] * b->l[i] + t[0];
        uint64_t A = (uint64_t)(acc >> 64);
        uint64_t m = (uint64_t)acc * mont_inv;
        mont_u128 red = (mont_u128)m * mont_mod[0] + (uint64_t)acc;
        uint64_t C = (uint64_t)(red >> 64);
        MONT_UNROLL
        for (int j = 1; j < MONT_N; j++) {
            acc = (mont_u128)a->l[j] * b->l[i] + t[j] + A;
            A = (uint64_t)(acc >> 64);
            red = (mont_u128)m * mont_mod[j] + (uint64_t)acc + C;
            C = (uint64_t)(red >> 64);
            t[j - 1] = (uint64_t)red;
        }
        t[MONT_N - 1] = C + A;
    }
    mont_reduce_once(r->l, t);
}

/* The assembly when the processor has it; the portable code in its own function, so that
 * the assembly path sets up no stack frame for it. */
void MONT_FN(mul)(MONT_T *r, const MONT_T *a, const MONT_T *b)
{
#if MONT_ASM
    if (cpu_has_adx) {
        MONT_MUL_ADX(r->l, a->l, b->l, mont_pm);
        return;
    }
#endif
    mont_mul_portable(r, a, b);
}

void MONT_FN(sqr)(MONT_T *r, const MONT_T *a)
{
    MONT_FN(mul)(r, a, a);
}

int MONT_FN(is_zero)(const MONT_T *a)
{
    uint64_t acc = 0;
    for (int i = 0; i < MONT_N; i++) acc |= a->l[i];
    return acc == 0;
}

int MONT_FN(is_one)(const MONT_T *a)
{
    return memcmp(a->l, mont_one, sizeof a->l) == 0;
}

int MONT_FN(eq)(const MONT_T *a, const MONT_T *b)
{
    return memcmp(a->l, b->l, sizeof a->l) == 0;
}

void MONT_FN(set_zero)(MONT_T *r)
{
    memset(r->l, 0, sizeof r->l);
}

void MONT_FN(set_one)(MONT_T *r)
{
    memcpy(r->l, mont_one, sizeof r->l);
}

void MONT_FN(from_u64)(MONT_T *r, uint64_t v)
{
    MONT_T t;
    memset(t.l, 0, sizeof t.l);
    t.l[0] = v;
    MONT_FN(to_mont)(r, t.l);
}

int MONT_FN(to_mont)(MONT_T *r, const uint64_t canonical[MONT_N])
{
    if (mont_geq_mod(canonical)) return -1;
    MONT_T t, r2;
    memcpy(t.l, canonical, sizeof t.l);
    memcpy(r2.l, mont_r2, sizeof r2.l);
    MONT_FN(mul)(r, &t, &r2);
    return 0;
}

void MONT_FN(from_mont)(uint64_t canonical[MONT_N], const MONT_T *a)
{
    MONT_T one, t;
    memset(one.l, 0, sizeof one.l);
    one.l[0] = 1;
    MONT_FN(mul)(&t, a, &one);
    memcpy(canonical, t.l, sizeof t.l);
}

void MONT_FN(pow)(MONT_T *r, const MONT_T *a, const uint64_t *exp, size_t nlimbs)
{
    MONT_T acc, base = *a;
    MONT_FN(set_one)(&acc);
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            MONT_FN(sqr)(&acc, &acc);
            if ((exp[i] >> bit) & 1) MONT_FN(mul)(&acc, &acc, &base);
        }
    }
    *r = acc;
}

/* Fermat: a^(p-2). Zero maps to zero. */
void MONT_FN(inv)(MONT_T *r, const MONT_T *a)
{
    uint64_t e[MONT_N];
    memcpy(e, mont_mod, sizeof e);
    e[0] -= 2; /* the low limb of both moduli is odd and >= 2 */
    MONT_FN(pow)(r, a, e, MONT_N);
}

/* x = x / 2^k mod p for x < p, 0 < k < 64: adds the multiple of p that clears the low k bits, then shifts. */
static inline void mont_halve_k(uint64_t *x, unsigned k)
{
    uint64_t m = (x[0] * mont_inv) & ((1ULL << k) - 1), t[MONT_N + 1];
    mont_u128 c = 0;
    for (int i = 0; i < MONT_N; i++) {
        c += (mont_u128)m * mont_mod[i] + x[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
    t[MONT_N] = (uint64_t)c;
    for (int i = 0; i < MONT_N; i++) x[i] = (t[i] >> k) | (t[i + 1] << (64 - k));
    mont_reduce_once(x, x); /* (x + m p) / 2^k < p / 2^k + p */
}

/* Removes the factors of two from u (non-zero) and divides x by as many, mod p. */
static inline void mont_strip_twos(uint64_t *u, uint64_t *x)
{
    while (!(u[0] & 1)) {
        unsigned k = u[0] ? (unsigned)__builtin_ctzll(u[0]) : 63;
        for (int i = 0; i < MONT_N - 1; i++) u[i] = (u[i] >> k) | (u[i + 1] << (64 - k));
        u[MONT_N - 1] >>= k;
        mont_halve_k(x, k);
    }
}

static inline int mont_limbs_is_one(const uint64_t *u)
{
    uint64_t acc = u[0] ^ 1;
    for (int i = 1; i < MONT_N; i++) acc |= u[i];
    return acc == 0;
}

/* Binary extended Euclid on A = a R: keeps x1 A = u and x2 A = v (mod p), starting from u = A, v = p, and
 * shrinks u and v to 1. Then A^-1 R^3 R^-1 = a^-1 R. Several times faster than a^(p-2), but its time depends
 * on a. */
void MONT_FN(inv_vartime)(MONT_T *r, const MONT_T *a)
{
    if (MONT_FN(is_zero)(a)) {
        MONT_FN(set_zero)(r);
        return;
    }
    uint64_t u[MONT_N], v[MONT_N];
    MONT_T x1, x2;
    memcpy(u, a->l, sizeof u);
    memcpy(v, mont_mod, sizeof v);
    memset(x1.l, 0, sizeof x1.l);
    memset(x2.l, 0, sizeof x2.l);
    x1.l[0] = 1;
    for (;;) {
        mont_strip_twos(u, x1.l);
        if (mont_limbs_is_one(u)) break;
        mont_strip_twos(v, x2.l);
        if (mont_limbs_is_one(v)) {
            x1 = x2;
            break;
        }
        /* u and v are odd and distinct (their gcd is 1 and neither is 1): the difference is even and non-zero */
        int u_ge = 1;
        for (int i = MONT_N - 1; i >= 0; i--) {
            if (u[i] != v[i]) {
                u_ge = u[i] > v[i];
                break;
            }
        }
        uint64_t *big = u_ge ? u : v, *small = u_ge ? v : u, borrow = 0;
        for (int i = 0; i < MONT_N; i++) MONT_SUBB(borrow, big[i], small[i], &big[i]);
        if (u_ge)
            MONT_FN(sub)(&x1, &x1, &x2);
        else
            MONT_FN(sub)(&x2, &x2, &x1);
    }
    MONT_T r2, r3;
    memcpy(r2.l, mont_r2, sizeof r2.l);
    MONT_FN(mul)(&r3, &r2, &r2); /* R^3 */
    MONT_FN(mul)(r, &x1, &r3);
}

int MONT_FN(legendre)(const MONT_T *a)
{
    if (MONT_FN(is_zero)(a)) return 0;
    uint64_t e[MONT_N];
    memcpy(e, mont_mod, sizeof e);
    e[0] -= 1;
    for (int i = 0; i < MONT_N; i++) e[i] = (e[i] >> 1) | (i + 1 < MONT_N ? e[i + 1] << 63 : 0);
    MONT_T t;
    MONT_FN(pow)(&t, a, e, MONT_N);
    return MONT_FN(is_one)(&t) ? 1 : -1;
}

void MONT_FN(batch_inv)(MONT_T *out, const MONT_T *in, size_t n)
{
    if (n == 0) return;
    MONT_T acc;
    MONT_FN(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc; /* product of the non-zero in[0..i) */
        if (!MONT_FN(is_zero)(&in[i])) MONT_FN(mul)(&acc, &acc, &in[i]);
    }
    MONT_FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (MONT_FN(is_zero)(&in[i])) {
            MONT_FN(set_zero)(&out[i]);
            continue;
        }
        MONT_T t;
        MONT_FN(mul)(&t, &acc, &out[i]);
        MONT_FN(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

#define MONT_BYTES (MONT_N * 8)

int MONT_FN(from_bytes_be)(MONT_T *r, const uint8_t in[MONT_N * 8])
{
    uint64_t c[MONT_N];
    for (int i = 0; i < MONT_N; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) w = (w << 8) | in[MONT_BYTES - 8 * (i + 1) + k];
        c[i] = w;
    }
    return MONT_FN(to_mont)(r, c);
}

int MONT_FN(from_bytes_le)(MONT_T *r, const uint8_t in[MONT_N * 8])
{
    uint64_t c[MONT_N];
    for (int i = 0; i < MONT_N; i++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--) w = (w << 8) | in[8 * i + k];
        c[i] = w;
    }
    return MONT_FN(to_mont)(r, c);
}

void MONT_FN(to_bytes_be)(uint8_t out[MONT_N * 8], const MONT_T *a)
{
    uint64_t c[MONT_N];
    MONT_FN(from_mont)(c, a);
    for (int i = 0; i < MONT_N; i++)
        for (int k = 0; k < 8; k++) out[MONT_BYTES - 1 - (8 * i + k)] = (uint8_t)(c[i] >> (8 * k));
}

void MONT_FN(to_bytes_le)(uint8_t out[MONT_N * 8], const MONT_T *a)
{
    uint64_t c[MONT_N];
    MONT_FN(from_mont)(c, a);
    for (int i = 0; i < MONT_N; i++)
        for (int k = 0; k < 8; k++) out[8 * i + k] = (uint8_t)(c[i] >> (8 * k));
}

#undef MONT_BYTES
