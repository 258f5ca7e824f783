/* The FP64 Montgomery products (src/gpu/fp_dfma.h: fpd_mul, and fpd_mul_ia with integer column sums) on the CPU
 * against src/ff's fp_mul: random operands, operands that are sums and differences of products (the lazy additions
 * the contracts allow), operands whose digits sit at the contracts' bounds, edges, and long chains. Every output is
 * also checked against its contract's bounds (integer digits, the range of digits 0..6, |V|). */
#include <math.h>
#include <string.h>

#include "ff/fp.h"
#include "gpu/fp_dfma.h"
#include "testutil.h"

static rng_t rng;

/* V as a 512-bit two's-complement integer (eight 64-bit limbs), from the signed digits. */
static void value_of(uint64_t v[8], const fpd_t *a)
{
    memset(v, 0, 8 * sizeof(uint64_t));
    for (int k = 0; k < FPD_DIGITS; k++) {
        int64_t d = (int64_t)a->d[k];
        int bit = 48 * k, w = bit / 64, off = bit % 64;
        /* add d * 2^bit: the 128-bit shifted digit, sign-extended over the limbs above */
        unsigned __int128 part = (unsigned __int128)(__int128)d << off;
        uint64_t add[8] = {0};
        add[w] = (uint64_t)part;
        if (w + 1 < 8) add[w + 1] = (uint64_t)(part >> 64);
        for (int i = w + 2; i < 8; i++) add[i] = d < 0 ? ~0ULL : 0;
        unsigned __int128 c = 0;
        for (int i = 0; i < 8; i++) {
            c += (unsigned __int128)v[i] + add[i];
            v[i] = (uint64_t)c;
            c >>= 64;
        }
    }
}

/* sign of (x - y) for 512-bit two's-complement integers */
static int cmp512(const uint64_t x[8], const uint64_t y[8])
{
    int xn = (int64_t)x[7] < 0, yn = (int64_t)y[7] < 0;
    if (xn != yn) return xn ? -1 : 1;
    for (int i = 7; i >= 0; i--)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Whether -bound_p * p < V < bound_p * p (bound_p a small integer). */
static int within(const fpd_t *a, unsigned bound_p)
{
    uint64_t v[8], hi[8] = {0}, lo[8];
    value_of(v, a);
    unsigned __int128 c = 0;
    for (int i = 0; i < 6; i++) {
        c += (unsigned __int128)FP_MODULUS[i] * bound_p;
        hi[i] = (uint64_t)c;
        c >>= 64;
    }
    hi[6] = (uint64_t)c;
    /* lo = -hi */
    unsigned __int128 b = 1;
    for (int i = 0; i < 8; i++) {
        b += (uint64_t)~hi[i];
        lo[i] = (uint64_t)b;
        b >>= 64;
    }
    return cmp512(v, hi) < 0 && cmp512(lo, v) < 0;
}

/* The raw integer V mod p (canonical), computed with the CPU's field: sum d_k * 2^(48k). */
static void raw_mod_p(uint64_t out[6], const fpd_t *a)
{
    fp_t acc, shift, t, base;
    fp_set_zero(&acc);
    fp_set_one(&shift);
    fp_from_u64(&base, 1ULL << 48);
    for (int k = 0; k < FPD_DIGITS; k++) {
        int64_t d = (int64_t)a->d[k];
        fp_from_u64(&t, d < 0 ? (uint64_t)(-d) : (uint64_t)d);
        if (d < 0) fp_neg(&t, &t);
        fp_mul(&t, &t, &shift);
        fp_add(&acc, &acc, &t);
        fp_mul(&shift, &shift, &base);
    }
    fp_from_mont(out, &acc);
}

/* A raw integer (canonical, below p) as an fp_t whose limbs are that integer. */
static fp_t raw_fp(const uint64_t raw[6])
{
    fp_t r;
    memcpy(r.l, raw, sizeof(r.l));
    return r;
}

/* One of the two products and its output contract: digits 0..6 in [digit_lo, digit_hi], |V| < bound_p * p. */
typedef struct variant {
    const char *name;
    void (*mul)(fpd_t *r, const fpd_t *a, const fpd_t *b);
    double digit_lo, digit_hi;
    unsigned bound_p;
} variant;

static void mul_fp(fpd_t *r, const fpd_t *a, const fpd_t *b) { fpd_mul(r, a, b); }
static void mul_ia(fpd_t *r, const fpd_t *a, const fpd_t *b) { fpd_mul_ia(r, a, b); }

static const variant VARIANTS[] = {
    {"fpd_mul", mul_fp, -0x1p47, 0x1p47, 1},
    {"fpd_mul_ia", mul_ia, 0.0, 0x1p48 - 1, 2},
};

/* Checks r = v->mul(a, b) against fp_mul of the raw values, and r's bounds; returns r. */
static fpd_t check_product(const variant *v, const fpd_t *a, const fpd_t *b, const char *what)
{
    fpd_t r;
    v->mul(&r, a, b);
    uint64_t ra[6], rb[6], got[6], via_sum[6];
    raw_mod_p(ra, a);
    raw_mod_p(rb, b);
    fp_t fa = raw_fp(ra), fb = raw_fp(rb), want;
    fp_mul(&want, &fa, &fb);
    fpd_to_limbs(got, &r);
    raw_mod_p(via_sum, &r);
    CHECK_MSG(memcmp(got, want.l, sizeof(got)) == 0, "%s, %s: product differs from fp_mul", v->name, what);
    CHECK_MSG(memcmp(via_sum, want.l, sizeof(got)) == 0, "%s, %s: fpd_to_limbs disagrees with the digit sum", v->name,
              what);
    int digits_ok = 1;
    for (int k = 0; k < FPD_DIGITS; k++) {
        if (r.d[k] != floor(r.d[k])) digits_ok = 0;
        if (k < FPD_DIGITS - 1 && (r.d[k] < v->digit_lo || r.d[k] > v->digit_hi)) digits_ok = 0;
    }
    CHECK_MSG(digits_ok, "%s, %s: output digits out of range or not integers", v->name, what);
    CHECK_MSG(within(&r, v->bound_p), "%s, %s: |V| >= %u p", v->name, what, v->bound_p);
    return r;
}

static fpd_t from_fp(const fp_t *a)
{
    fpd_t r;
    fpd_from_limbs(&r, a->l);
    return r;
}

static void add_digits(fpd_t *r, const fpd_t *a, const fpd_t *b, double sign)
{
    for (int k = 0; k < FPD_DIGITS; k++) r->d[k] = a->d[k] + sign * b->d[k];
}

/* Digits 0..6 uniform in [-2^e, 2^e] (or all at +-2^e when extreme is +1 or -1), digit 7 such that |V| <= bound_p * p
 * (bound_p 2 or 3). */
static fpd_t bound_digits(rng_t *rng, int e, int extreme, unsigned bound_p)
{
    fpd_t r;
    for (int k = 0; k < FPD_DIGITS - 1; k++) {
        if (extreme) {
            r.d[k] = extreme * ldexp(1.0, e);
        } else {
            int64_t v = (int64_t)(rng_next(rng) % ((1ULL << (e + 1)) + 1)) - (1LL << e);
            r.d[k] = (double)v;
        }
    }
    /* p's top digit times bound_p, less 3: the low digits add at most 2^(e + 288) < 2^336 in magnitude */
    int64_t top = (int64_t)bound_p * (int64_t)fpd_p_digit(FPD_DIGITS - 1) - 3;
    if (extreme) r.d[FPD_DIGITS - 1] = extreme * (double)top;
    else r.d[FPD_DIGITS - 1] = (double)((int64_t)(rng_next(rng) % (2 * (uint64_t)top + 1)) - top);
    return r;
}

static void test_variant(const variant *v)
{
    /* random operands below p */
    for (int i = 0; i < 50000; i++) {
        fp_t a, b;
        fp_random(&a, &rng);
        fp_random(&b, &rng);
        fpd_t da = from_fp(&a), db = from_fp(&b);
        check_product(v, &da, &db, "random");
    }

    /* edges: 0, raw 1, raw p - 1, Montgomery one, and their products */
    {
        fp_t e[TEST_FP_EDGES];
        test_fp_edges(e);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                fpd_t da = from_fp(&e[i]), db = from_fp(&e[j]);
                check_product(v, &da, &db, "edge");
            }
    }

    /* sums and differences of two outputs of fpd_mul (digits up to 2^48, |V| < 2p); for fpd_mul_ia also an output
     * of its own plus one of fpd_mul (|V| < 3p) */
    for (int i = 0; i < 10000; i++) {
        fpd_t p[4];
        for (int k = 0; k < 4; k++) {
            fp_t x, y;
            fp_random(&x, &rng);
            fp_random(&y, &rng);
            fpd_t dx = from_fp(&x), dy = from_fp(&y);
            fpd_mul(&p[k], &dx, &dy);
        }
        fpd_t a, b;
        add_digits(&a, &p[0], &p[1], 1.0);
        add_digits(&b, &p[2], &p[3], -1.0);
        check_product(v, &a, &b, "sum times difference");
        add_digits(&a, &p[0], &p[1], -1.0);
        check_product(v, &a, &a, "difference squared");
        if (v->mul == mul_ia) {
            fpd_t q;
            fpd_mul_ia(&q, &p[2], &p[3]);
            add_digits(&a, &q, &p[0], 1.0);
            add_digits(&b, &q, &p[1], -1.0);
            check_product(v, &a, &b, "own output plus or minus another");
        }
    }

    /* digits at the contract's bounds: 2^48 and |V| <= 2p; for fpd_mul_ia 2^49 and |V| <= 3p */
    int e = v->mul == mul_ia ? 49 : 48;
    unsigned bp = v->mul == mul_ia ? 3 : 2;
    for (int i = 0; i < 10000; i++) {
        fpd_t a = bound_digits(&rng, e, 0, bp), b = bound_digits(&rng, e, 0, bp);
        CHECK(within(&a, bp) && within(&b, bp));
        check_product(v, &a, &b, "digits at the bound");
    }
    for (int sa = -1; sa <= 1; sa += 2)
        for (int sb = -1; sb <= 1; sb += 2) {
            fpd_t a = bound_digits(&rng, e, sa, bp), b = bound_digits(&rng, e, sb, bp);
            CHECK(within(&a, bp) && within(&b, bp));
            check_product(v, &a, &b, "every digit at the bound");
        }

    /* chains: x <- x * y, 2,000 times, against the CPU at every step */
    for (int c = 0; c < 10; c++) {
        fp_t x, y;
        fp_random(&x, &rng);
        fp_random(&y, &rng);
        fpd_t dx = from_fp(&x), dy = from_fp(&y);
        int bad = 0;
        for (int i = 0; i < 2000; i++) {
            v->mul(&dx, &dx, &dy);
            fp_mul(&x, &x, &y);
            uint64_t got[6];
            fpd_to_limbs(got, &dx);
            if (memcmp(got, x.l, sizeof(got)) != 0) bad++;
        }
        CHECK_MSG(bad == 0, "%s, chain %d: %d of 2000 steps differ", v->name, c, bad);
    }
}

int main(void)
{
    test_seed(&rng, "test_fp_dfma");

    /* the conversions by bits: every integer below 2^52 (to double) and within 2^51 (to int64), at the edges and
     * at random */
    {
        const int64_t edge[] = {0, 1, -1, (1LL << 48) - 1, -(1LL << 48), (1LL << 51) - 1, -(1LL << 51) + 1};
        for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) CHECK(fpd_to_i64((double)edge[i]) == edge[i]);
        CHECK(fpd_from_u52(0) == 0.0 && fpd_from_u52((1ULL << 52) - 1) == (double)((1ULL << 52) - 1));
        for (int i = 0; i < 10000; i++) {
            uint64_t v = rng_next(&rng) >> 12;
            int64_t s = (int64_t)(rng_next(&rng) >> 13) - (1LL << 50);
            CHECK(fpd_from_u52(v) == (double)v && fpd_to_i64((double)s) == s);
        }
    }

    /* raw limbs survive the digit conversion both ways */
    for (int i = 0; i < 1000; i++) {
        fp_t a;
        fp_random(&a, &rng);
        fpd_t d = from_fp(&a);
        uint64_t back[6];
        fpd_to_limbs(back, &d);
        CHECK(memcmp(back, a.l, sizeof(back)) == 0);
    }

    for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; v++) test_variant(&VARIANTS[v]);
    return test_finish("test_fp_dfma");
}
