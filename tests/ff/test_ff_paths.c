/* The assembly and portable paths of the field arithmetic against each other and against schoolbook big-integer
 * arithmetic written here, on random elements and on the edges of the range (0, 1, p-1, values near (p-1)/2 and
 * near limb boundaries), where a wrong carry or a missed final subtraction shows; and the variable-time inverse
 * against Fermat's. Both paths run in one process by
 * switching cpu_has_adx; without ADX only the portable path is compared. */
#include <string.h>

#include "ff/cpu.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "testutil.h"

#define MAXL 6

/* r = a + b - (p if a + b >= p); all of n limbs, a, b < p. */
static void ref_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
    uint64_t s[MAXL + 1], d[MAXL + 1];
    unsigned __int128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (unsigned __int128)a[i] + b[i];
        s[i] = (uint64_t)c;
        c >>= 64;
    }
    s[n] = (uint64_t)c;
    __int128 br = 0;
    for (int i = 0; i <= n; i++) {
        br += (__int128)s[i] - (i < n ? p[i] : 0);
        d[i] = (uint64_t)br;
        br >>= 64; /* arithmetic: 0 or -1 */
    }
    memcpy(r, br < 0 ? s : d, (size_t)n * sizeof *r);
}

/* r = a - b + (p if a < b). */
static void ref_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
    uint64_t d[MAXL];
    __int128 br = 0;
    for (int i = 0; i < n; i++) {
        br += (__int128)a[i] - b[i];
        d[i] = (uint64_t)br;
        br >>= 64;
    }
    if (br < 0) {
        unsigned __int128 c = 0;
        for (int i = 0; i < n; i++) {
            c += (unsigned __int128)d[i] + p[i];
            d[i] = (uint64_t)c;
            c >>= 64;
        }
    }
    memcpy(r, d, (size_t)n * sizeof *r);
}

/* Edge values below p: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, 2^64-1, 2^64, 2^(64(n-1)) - 1, random. */
static void edge_value(uint64_t *v, const uint64_t *p, int n, int which, rng_t *rng)
{
    memset(v, 0, (size_t)n * sizeof *v);
    uint64_t one[MAXL] = {1};
    switch (which) {
    case 0: break;
    case 1: v[0] = 1; break;
    case 2: v[0] = 2; break;
    case 3: ref_sub(v, v, one, p, n); break; /* 0 - 1 = p - 1 */
    case 4:
        ref_sub(v, v, one, p, n);
        ref_sub(v, v, one, p, n);
        break;
    case 5:
    case 6:
        for (int i = 0; i < n; i++) v[i] = (p[i] >> 1) | (i + 1 < n ? p[i + 1] << 63 : 0); /* (p-1)/2 */
        if (which == 6) ref_add(v, v, one, p, n);
        break;
    case 7: v[0] = ~0ULL; break;
    case 8: v[1] = 1; break;
    case 9:
        for (int i = 0; i < n - 1; i++) v[i] = ~0ULL;
        break;
    default:
        do {
            for (int i = 0; i < n; i++) v[i] = rng_next(rng);
            v[n - 1] &= (1ULL << 62) - 1; /* below 2^(64n-2): at least a third of the draws are below p */
            __int128 br = 0;
            for (int i = 0; i < n; i++) br = ((__int128)v[i] - p[i] + br) >> 64;
            if (br < 0) break;
        } while (1);
        break;
    }
}

#define NEDGE 10
#define NRANDOM 300

/* One field's add, sub, dbl, neg and mul on both paths. ADD etc. are that field's functions. */
#define CHECK_FIELD(T, N, P, ADD, SUB, DBL, NEG, MUL, SQR, NAME)                                                       \
    do {                                                                                                               \
        int have_asm = cpu_has_adx;                                                                                    \
        for (int ia = 0; ia < NEDGE + NRANDOM; ia++) {                                                                 \
            for (int ib = 0; ib < NEDGE + (ia < NEDGE ? NRANDOM / 10 : 1); ib++) {                                     \
                T a, b, r[2], want;                                                                                    \
                edge_value(a.l, P, N, ia, &rng);                                                                       \
                edge_value(b.l, P, N, ib, &rng);                                                                       \
                T mul[2], sqr[2];                                                                                      \
                for (int path = 0; path < 2; path++) {                                                                 \
                    if (path == 1 && !have_asm) break;                                                                 \
                    cpu_has_adx = path;                                                                                \
                    ADD(&r[path], &a, &b);                                                                             \
                    ref_add(want.l, a.l, b.l, P, N);                                                                   \
                    CHECK_MSG(memcmp(r[path].l, want.l, sizeof want.l) == 0, NAME " add %d %d path %d", ia, ib, path); \
                    SUB(&r[path], &a, &b);                                                                             \
                    ref_sub(want.l, a.l, b.l, P, N);                                                                   \
                    CHECK_MSG(memcmp(r[path].l, want.l, sizeof want.l) == 0, NAME " sub %d %d path %d", ia, ib, path); \
                    T z;                                                                                               \
                    memset(&z, 0, sizeof z);                                                                           \
                    NEG(&r[path], &b);                                                                                 \
                    ref_sub(want.l, z.l, b.l, P, N);                                                                   \
                    CHECK_MSG(memcmp(r[path].l, want.l, sizeof want.l) == 0, NAME " neg %d path %d", ib, path);        \
                    DBL(&r[path], &a);                                                                                 \
                    ref_add(want.l, a.l, a.l, P, N);                                                                   \
                    CHECK_MSG(memcmp(r[path].l, want.l, sizeof want.l) == 0, NAME " dbl %d path %d", ia, path);        \
                    r[path] = a; /* aliased output */                                                                  \
                    SUB(&r[path], &r[path], &r[path]);                                                                 \
                    CHECK_MSG(memcmp(r[path].l, z.l, sizeof z.l) == 0, NAME " a - a %d path %d", ia, path);            \
                    MUL(&mul[path], &a, &b);                                                                           \
                    SQR(&sqr[path], &a);                                                                               \
                }                                                                                                      \
                cpu_has_adx = have_asm;                                                                                \
                if (have_asm) {                                                                                        \
                    CHECK_MSG(memcmp(mul[0].l, mul[1].l, sizeof mul[0].l) == 0, NAME " mul paths %d %d", ia, ib);      \
                    CHECK_MSG(memcmp(sqr[0].l, sqr[1].l, sizeof sqr[0].l) == 0, NAME " sqr paths %d", ia);             \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* The variable-time inverse against Fermat's on edge and random values, on both paths. */
#define CHECK_INV(T, N, P, INV, INV_VT, NAME)                                                                          \
    do {                                                                                                               \
        int have_asm = cpu_has_adx;                                                                                    \
        for (int path = 0; path < 1 + have_asm; path++) {                                                              \
            cpu_has_adx = path;                                                                                        \
            for (int ia = 0; ia < NEDGE + NRANDOM; ia++) {                                                             \
                T a, want, got;                                                                                        \
                edge_value(a.l, P, N, ia, &rng);                                                                       \
                INV(&want, &a);                                                                                        \
                INV_VT(&got, &a);                                                                                      \
                CHECK_MSG(memcmp(got.l, want.l, sizeof want.l) == 0, NAME " inv_vartime %d path %d", ia, path);        \
            }                                                                                                          \
        }                                                                                                              \
        cpu_has_adx = have_asm;                                                                                        \
    } while (0)

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_ff_paths");
    if (!cpu_has_adx) printf("test_ff_paths: no ADX here (or CUZK_NO_ASM): the portable path only\n");
    CHECK_FIELD(fp_t, FP_LIMBS, FP_MODULUS, fp_add, fp_sub, fp_dbl, fp_neg, fp_mul, fp_sqr, "fp");
    CHECK_FIELD(fr_t, FR_LIMBS, FR_MODULUS, fr_add, fr_sub, fr_dbl, fr_neg, fr_mul, fr_sqr, "fr");
    CHECK_INV(fp_t, FP_LIMBS, FP_MODULUS, fp_inv, fp_inv_vartime, "fp");
    CHECK_INV(fr_t, FR_LIMBS, FR_MODULUS, fr_inv, fr_inv_vartime, "fr");
    return test_finish("test_ff_paths");
}
