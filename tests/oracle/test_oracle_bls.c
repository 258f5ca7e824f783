/* Checks the BLS12-381 core (Fp, Fr, Fp2, G1, G2, encodings, pairing) against vectors computed by
 * @noble/curves (tests/oracle/gen-vectors.mjs describes the line format).
 *
 * (a) Always: the committed regression file $CUZK_TEST_DATA/bls12_381_seed1.txt.
 * (b) When node and $CUZK_ORACLE_DIR/node_modules exist: a fresh seed (CUZK_SEED replays it), fresh vectors
 *     written under $CUZK_BUILD_DIR, all checked. Otherwise a SKIP line, or a failure when
 *     CUZK_REQUIRE_ORACLE=1. CUZK_ORACLE_COUNT and CUZK_ORACLE_PAIRINGS override the sizes.
 * With file arguments, checks exactly those files instead (to replay a kept vector file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "ec/pairing.h"
#include "ff/fp12.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "testutil.h"

/* Fresh-run sizes: 1000 per op, but pairings cost ~20 ms each in noble and dominate under ASan, so 100
 * single pairings and 100 products. */
#define FRESH_COUNT 1000
#define FRESH_PAIRINGS 100
#define MAX_TOKENS 24
#define MAX_PAIRS 8

typedef struct op_stat {
    const char *name;
    long n, failed;
} op_stat_t;

static op_stat_t OPS[] = {
    {"fp_add", 0, 0},  {"fp_sub", 0, 0},   {"fp_mul", 0, 0},      {"fp_sqr", 0, 0},       {"fp_neg", 0, 0},
    {"fp_inv", 0, 0},  {"fp_sqrt", 0, 0},  {"fp_legendre", 0, 0}, {"fr_add", 0, 0},       {"fr_sub", 0, 0},
    {"fr_mul", 0, 0},  {"fr_sqr", 0, 0},   {"fr_inv", 0, 0},      {"fp2_mul", 0, 0},      {"fp2_sqr", 0, 0},
    {"fp2_inv", 0, 0}, {"fp2_sqrt", 0, 0}, {"g1_add", 0, 0},      {"g1_dbl", 0, 0},       {"g1_neg", 0, 0},
    {"g1_mul", 0, 0},  {"g1_enc", 0, 0},   {"g2_add", 0, 0},      {"g2_dbl", 0, 0},       {"g2_neg", 0, 0},
    {"g2_mul", 0, 0},  {"g2_enc", 0, 0},   {"pairing", 0, 0},     {"pairing_prod", 0, 0},
};
#define NOPS (sizeof OPS / sizeof OPS[0])

/* The vector being checked, for failure reports. */
static const char *cur_file;
static long cur_line;
static const char *cur_text;

/* Reports one mismatch with the whole input line (inputs are in it), at most a few per op. */
static void mismatch(op_stat_t *op, const char *what, const char *got_hex)
{
    op->failed++;
    test_failures++;
    if (op->failed <= 3) {
        fprintf(stderr, "MISMATCH %s:%ld: %s: %s\n  line: %.2000s\n", cur_file, cur_line, op->name, what, cur_text);
        if (got_hex) fprintf(stderr, "  C gave: %s\n", got_hex);
    }
}

/* Counts one sub-check; on failure reports the C value (hex of n bytes) against the line. */
static void expect(op_stat_t *op, int ok, const char *what, const uint8_t *got, size_t n)
{
    test_checks++;
    if (ok) return;
    char *hex = NULL;
    if (got) {
        hex = malloc(2 * n + 1);
        if (hex) hex_encode(hex, got, n);
    }
    mismatch(op, what, hex);
    free(hex);
}

/* Exact-length hex. */
static int parse_hex(uint8_t *out, size_t n, const char *tok)
{
    return strlen(tok) == 2 * n ? hex_decode(out, n, tok) : -1;
}

static int parse_fp(fp_t *r, const char *tok)
{
    uint8_t b[FP_BYTES];
    return parse_hex(b, sizeof b, tok) == 0 && fp_from_bytes_be(r, b) == 0 ? 0 : -1;
}

static int parse_fr(fr_t *r, const char *tok)
{
    uint8_t b[FR_BYTES];
    return parse_hex(b, sizeof b, tok) == 0 && fr_from_bytes_be(r, b) == 0 ? 0 : -1;
}

static int parse_fp2(fp2_t *r, const char *tok)
{
    uint8_t b[FP2_BYTES];
    return parse_hex(b, sizeof b, tok) == 0 && fp2_from_bytes_be(r, b) == 0 ? 0 : -1;
}

/* Big-endian 32-byte scalar -> 4 little-endian limbs, any value below 2^256. */
static int parse_scalar(uint64_t k[4], uint8_t be[32], const char *tok)
{
    if (parse_hex(be, 32, tok) != 0) return -1;
    for (int i = 0; i < 4; i++) {
        k[i] = 0;
        for (int j = 0; j < 8; j++) k[i] |= (uint64_t)be[31 - 8 * i - j] << (8 * j);
    }
    return 0;
}

/* Compares a C value, serialized to bytes, with the expected hex token. */
#define EXPECT_BYTES(op, what, bytes, n, tok)                                                                          \
    do {                                                                                                               \
        uint8_t want_[n];                                                                                              \
        int ok_ = parse_hex(want_, n, tok) == 0 && memcmp(want_, bytes, n) == 0;                                       \
        expect(op, ok_, what, bytes, n);                                                                               \
    } while (0)

static void expect_fp(op_stat_t *op, const char *what, const fp_t *v, const char *tok)
{
    uint8_t b[FP_BYTES];
    fp_to_bytes_be(b, v);
    EXPECT_BYTES(op, what, b, FP_BYTES, tok);
}

static void expect_fr(op_stat_t *op, const char *what, const fr_t *v, const char *tok)
{
    uint8_t b[FR_BYTES];
    fr_to_bytes_be(b, v);
    EXPECT_BYTES(op, what, b, FR_BYTES, tok);
}

static void expect_fp2(op_stat_t *op, const char *what, const fp2_t *v, const char *tok)
{
    uint8_t b[FP2_BYTES];
    fp2_to_bytes_be(b, v);
    EXPECT_BYTES(op, what, b, FP2_BYTES, tok);
}

static void expect_fp12(op_stat_t *op, const char *what, const fp12_t *v, const char *tok)
{
    uint8_t b[FP12_BYTES];
    fp12_to_bytes_be(b, v);
    EXPECT_BYTES(op, what, b, FP12_BYTES, tok);
}

/* ---- fields ---- */

static int check_fp(op_stat_t *op, char **t, int nt)
{
    fp_t a, b, r;
    const char *name = op->name;
    if (!strcmp(name, "fp_add") || !strcmp(name, "fp_sub") || !strcmp(name, "fp_mul")) {
        if (nt != 4 || parse_fp(&a, t[1]) || parse_fp(&b, t[2])) return -1;
        void (*f)(fp_t *, const fp_t *, const fp_t *) = name[3] == 'a' ? fp_add : name[3] == 's' ? fp_sub : fp_mul;
        f(&r, &a, &b);
        expect_fp(op, "result", &r, t[3]);
        r = a; /* aliased output */
        f(&r, &r, &b);
        expect_fp(op, "result (r aliases a)", &r, t[3]);
        return 0;
    }
    if (nt != 3 || parse_fp(&a, t[1])) return -1;
    if (!strcmp(name, "fp_sqr")) {
        fp_sqr(&r, &a);
        expect_fp(op, "result", &r, t[2]);
        fp_mul(&r, &a, &a);
        expect_fp(op, "a*a", &r, t[2]);
    } else if (!strcmp(name, "fp_neg")) {
        fp_neg(&r, &a);
        expect_fp(op, "result", &r, t[2]);
    } else if (!strcmp(name, "fp_inv")) {
        fp_inv(&r, &a);
        expect_fp(op, "result", &r, t[2]);
        if (!fp_is_zero(&a)) {
            fp_t in[1] = {a}, out[1];
            fp_batch_inv(out, in, 1);
            expect_fp(op, "batch_inv", &out[0], t[2]);
        }
    } else if (!strcmp(name, "fp_legendre")) {
        int want = atoi(t[2]);
        int got = fp_legendre(&a);
        expect(op, got == want, "legendre symbol", NULL, 0);
    } else if (!strcmp(name, "fp_sqrt")) {
        int ok = fp_sqrt(&r, &a);
        if (!strcmp(t[2], "none")) {
            expect(op, !ok, "sqrt of a non-square succeeded", NULL, 0);
        } else {
            fp_t want, neg;
            if (parse_fp(&want, t[2])) return -1;
            fp_neg(&neg, &want);
            uint8_t got[FP_BYTES];
            fp_to_bytes_be(got, &r);
            expect(op, ok && (fp_eq(&r, &want) || fp_eq(&r, &neg)), "sqrt is not +-the expected root", got, sizeof got);
        }
    } else {
        return -1;
    }
    return 0;
}

static int check_fr(op_stat_t *op, char **t, int nt)
{
    fr_t a, b, r;
    const char *name = op->name;
    if (!strcmp(name, "fr_add") || !strcmp(name, "fr_sub") || !strcmp(name, "fr_mul")) {
        if (nt != 4 || parse_fr(&a, t[1]) || parse_fr(&b, t[2])) return -1;
        void (*f)(fr_t *, const fr_t *, const fr_t *) = name[3] == 'a' ? fr_add : name[3] == 's' ? fr_sub : fr_mul;
        f(&r, &a, &b);
        expect_fr(op, "result", &r, t[3]);
        r = b; /* aliased output */
        f(&r, &a, &r);
        expect_fr(op, "result (r aliases b)", &r, t[3]);
        return 0;
    }
    if (nt != 3 || parse_fr(&a, t[1])) return -1;
    if (!strcmp(name, "fr_sqr")) {
        fr_sqr(&r, &a);
        expect_fr(op, "result", &r, t[2]);
    } else if (!strcmp(name, "fr_inv")) {
        fr_inv(&r, &a);
        expect_fr(op, "result", &r, t[2]);
        if (!fr_is_zero(&a)) {
            fr_t in[1] = {a}, out[1];
            fr_batch_inv(out, in, 1);
            expect_fr(op, "batch_inv", &out[0], t[2]);
        }
    } else {
        return -1;
    }
    return 0;
}

static int check_fp2(op_stat_t *op, char **t, int nt)
{
    fp2_t a, b, r;
    const char *name = op->name;
    if (!strcmp(name, "fp2_mul")) {
        if (nt != 4 || parse_fp2(&a, t[1]) || parse_fp2(&b, t[2])) return -1;
        fp2_mul(&r, &a, &b);
        expect_fp2(op, "result", &r, t[3]);
        r = a;
        fp2_mul(&r, &r, &b);
        expect_fp2(op, "result (r aliases a)", &r, t[3]);
        return 0;
    }
    if (nt != 3 || parse_fp2(&a, t[1])) return -1;
    if (!strcmp(name, "fp2_sqr")) {
        fp2_sqr(&r, &a);
        expect_fp2(op, "result", &r, t[2]);
        fp2_mul(&r, &a, &a);
        expect_fp2(op, "a*a", &r, t[2]);
    } else if (!strcmp(name, "fp2_inv")) {
        fp2_inv(&r, &a);
        expect_fp2(op, "result", &r, t[2]);
    } else if (!strcmp(name, "fp2_sqrt")) {
        int ok = fp2_sqrt(&r, &a);
        if (!strcmp(t[2], "none")) {
            expect(op, !ok, "sqrt of a non-square succeeded", NULL, 0);
        } else {
            fp2_t want, neg;
            if (parse_fp2(&want, t[2])) return -1;
            fp2_neg(&neg, &want);
            uint8_t got[FP2_BYTES];
            fp2_to_bytes_be(got, &r);
            expect(op, ok && (fp2_eq(&r, &want) || fp2_eq(&r, &neg)), "sqrt is not +-the expected root", got,
                   sizeof got);
        }
    } else {
        return -1;
    }
    return 0;
}

/* ---- curves: one template for G1 and G2 ---- */

/* Projective inputs from the oracle all have Z = 1; rescaling by a random l (X l^2, Y l^3, Z l) keeps the
 * point and exercises the general formulas. Fixed seed: a failing line replays alone. */
static rng_t scale_rng;

static void fp_scale_pair(fp_t *x, fp_t *y, fp_t *z, fp_t *zz, fp_t *zzz)
{
    fp_t l, l2, l3;
    do fp_random(&l, &scale_rng);
    while (fp_is_zero(&l));
    fp_sqr(&l2, &l);
    fp_mul(&l3, &l2, &l);
    fp_mul(x, x, &l2);
    fp_mul(y, y, &l3);
    if (z) fp_mul(z, z, &l);
    if (zz) fp_mul(zz, zz, &l2);
    if (zzz) fp_mul(zzz, zzz, &l3);
}

static void fp2_scale_pair(fp2_t *x, fp2_t *y, fp2_t *z, fp2_t *zz, fp2_t *zzz)
{
    fp2_t l, l2, l3;
    do fp2_random(&l, &scale_rng);
    while (fp2_is_zero(&l));
    fp2_sqr(&l2, &l);
    fp2_mul(&l3, &l2, &l);
    fp2_mul(x, x, &l2);
    fp2_mul(y, y, &l3);
    if (z) fp2_mul(z, z, &l);
    if (zz) fp2_mul(zz, zz, &l2);
    if (zzz) fp2_mul(zzz, zzz, &l3);
}

static void g1_jac_rescale(g1_jac_t *p)
{
    fp_scale_pair(&p->x, &p->y, &p->z, NULL, NULL);
}
static void g1_xyzz_rescale(g1_xyzz_t *p)
{
    fp_scale_pair(&p->x, &p->y, NULL, &p->zz, &p->zzz);
}
static void g2_jac_rescale(g2_jac_t *p)
{
    fp2_scale_pair(&p->x, &p->y, &p->z, NULL, NULL);
}
static void g2_xyzz_rescale(g2_xyzz_t *p)
{
    fp2_scale_pair(&p->x, &p->y, NULL, &p->zz, &p->zzz);
}

/* Point arguments are decoded without the subgroup check (the oracle's points are in the subgroup; the
 * *_enc vectors check decoding with it), so the curve vectors measure arithmetic, not decoding. */
#define DEFINE_CURVE_CHECKS(G, UB, CB)                                                                                 \
    static int G##_parse(G##_affine_t *r, const char *tok)                                                             \
    {                                                                                                                  \
        uint8_t b[UB];                                                                                                 \
        cuzk_error err;                                                                                                \
        return parse_hex(b, UB, tok) == 0 && G##_from_uncompressed(r, b, 0, &err) == CUZK_OK ? 0 : -1;                 \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_expect(op_stat_t *op, const char *what, const G##_affine_t *p, const char *tok)                    \
    {                                                                                                                  \
        uint8_t b[UB];                                                                                                 \
        G##_to_uncompressed(b, p);                                                                                     \
        EXPECT_BYTES(op, what, b, UB, tok);                                                                            \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_expect_jac(op_stat_t *op, const char *what, const G##_jac_t *p, const char *tok)                   \
    {                                                                                                                  \
        G##_affine_t a;                                                                                                \
        G##_jac_to_affine(&a, p);                                                                                      \
        G##_expect(op, what, &a, tok);                                                                                 \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_to_xyzz(G##_xyzz_t *r, const G##_affine_t *a)                                                      \
    {                                                                                                                  \
        G##_xyzz_set_inf(r);                                                                                           \
        G##_xyzz_add_affine(r, r, a);                                                                                  \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_expect_xyzz(op_stat_t *op, const char *what, const G##_xyzz_t *p, const char *tok)                 \
    {                                                                                                                  \
        G##_jac_t j;                                                                                                   \
        G##_xyzz_to_jac(&j, p);                                                                                        \
        G##_expect_jac(op, what, &j, tok);                                                                             \
    }                                                                                                                  \
                                                                                                                       \
    static int G##_check(op_stat_t *op, char **t, int nt)                                                              \
    {                                                                                                                  \
        const char *kind = op->name + 3;                                                                               \
        G##_affine_t a, b;                                                                                             \
        G##_jac_t ja, jb, jr;                                                                                          \
        G##_xyzz_t xa, xb, xr;                                                                                         \
        if (!strcmp(kind, "add")) {                                                                                    \
            if (nt != 4 || G##_parse(&a, t[1]) || G##_parse(&b, t[2])) return -1;                                      \
            G##_jac_from_affine(&ja, &a);                                                                              \
            G##_jac_from_affine(&jb, &b);                                                                              \
            G##_jac_add(&jr, &ja, &jb);                                                                                \
            G##_expect_jac(op, "jac_add", &jr, t[3]);                                                                  \
            G##_jac_rescale(&ja);                                                                                      \
            G##_jac_rescale(&jb);                                                                                      \
            G##_jac_add(&jr, &ja, &jb);                                                                                \
            G##_expect_jac(op, "jac_add (random Z)", &jr, t[3]);                                                       \
            G##_jac_add_affine(&jr, &ja, &b);                                                                          \
            G##_expect_jac(op, "jac_add_affine", &jr, t[3]);                                                           \
            G##_to_xyzz(&xa, &a);                                                                                      \
            G##_to_xyzz(&xb, &b);                                                                                      \
            G##_xyzz_add(&xr, &xa, &xb);                                                                               \
            G##_expect_xyzz(op, "xyzz_add", &xr, t[3]);                                                                \
            G##_xyzz_rescale(&xa);                                                                                     \
            G##_xyzz_rescale(&xb);                                                                                     \
            G##_xyzz_add(&xr, &xa, &xb);                                                                               \
            G##_expect_xyzz(op, "xyzz_add (random ZZ)", &xr, t[3]);                                                    \
            G##_xyzz_add_affine(&xr, &xa, &b);                                                                         \
            G##_expect_xyzz(op, "xyzz_add_affine", &xr, t[3]);                                                         \
            return 0;                                                                                                  \
        }                                                                                                              \
        if (!strcmp(kind, "mul")) {                                                                                    \
            uint64_t k[4];                                                                                             \
            uint8_t kbe[32];                                                                                           \
            fr_t s;                                                                                                    \
            if (nt != 4 || G##_parse(&a, t[1]) || parse_scalar(k, kbe, t[2])) return -1;                               \
            G##_jac_from_affine(&ja, &a);                                                                              \
            G##_jac_mul(&jr, &ja, k, 4);                                                                               \
            G##_expect_jac(op, "jac_mul", &jr, t[3]);                                                                  \
            if (fr_from_bytes_be(&s, kbe) == 0) {                                                                      \
                G##_jac_mul_fr(&jr, &ja, &s);                                                                          \
                G##_affine_t out[1];                                                                                   \
                G##_batch_to_affine(out, &jr, 1);                                                                      \
                G##_expect(op, "jac_mul_fr + batch_to_affine", &out[0], t[3]);                                         \
            }                                                                                                          \
            return 0;                                                                                                  \
        }                                                                                                              \
        if (!strcmp(kind, "enc")) {                                                                                    \
            uint8_t u[UB], c[CB], got_u[UB], got_c[CB];                                                                \
            cuzk_error err;                                                                                            \
            if (nt != 3 || parse_hex(u, UB, t[1]) || parse_hex(c, CB, t[2])) return -1;                                \
            cuzk_status su = G##_from_uncompressed(&a, u, 1, &err);                                                    \
            expect(op, su == CUZK_OK, "from_uncompressed rejected noble's bytes", NULL, 0);                            \
            cuzk_status sc = G##_from_compressed(&b, c, 1, &err);                                                      \
            expect(op, sc == CUZK_OK, "from_compressed rejected noble's bytes", NULL, 0);                              \
            if (su != CUZK_OK || sc != CUZK_OK) return 0;                                                              \
            expect(op, G##_affine_eq(&a, &b), "compressed and uncompressed decode to different points", NULL, 0);      \
            G##_to_uncompressed(got_u, &a);                                                                            \
            expect(op, memcmp(got_u, u, UB) == 0, "to_uncompressed", got_u, UB);                                       \
            G##_to_compressed(got_c, &a);                                                                              \
            expect(op, memcmp(got_c, c, CB) == 0, "to_compressed", got_c, CB);                                         \
            return 0;                                                                                                  \
        }                                                                                                              \
        if (nt != 3 || G##_parse(&a, t[1])) return -1;                                                                 \
        G##_jac_from_affine(&ja, &a);                                                                                  \
        if (!strcmp(kind, "dbl")) {                                                                                    \
            G##_jac_dbl(&jr, &ja);                                                                                     \
            G##_expect_jac(op, "jac_dbl", &jr, t[2]);                                                                  \
            G##_to_xyzz(&xa, &a);                                                                                      \
            G##_xyzz_dbl(&xr, &xa);                                                                                    \
            G##_expect_xyzz(op, "xyzz_dbl", &xr, t[2]);                                                                \
            G##_xyzz_rescale(&xa);                                                                                     \
            G##_xyzz_dbl(&xr, &xa);                                                                                    \
            G##_expect_xyzz(op, "xyzz_dbl (random ZZ)", &xr, t[2]);                                                    \
            G##_jac_rescale(&ja);                                                                                      \
            G##_jac_dbl(&jr, &ja);                                                                                     \
            G##_expect_jac(op, "jac_dbl (random Z)", &jr, t[2]);                                                       \
            /* Doubling again from a Jacobian input whose Z is not 1. */                                               \
            G##_jac_dbl(&jb, &jr);                                                                                     \
            G##_jac_add(&jr, &jr, &jr);                                                                                \
            expect(op, G##_jac_eq(&jb, &jr), "jac_add(2P, 2P) != jac_dbl(2P)", NULL, 0);                               \
        } else if (!strcmp(kind, "neg")) {                                                                             \
            G##_affine_neg(&b, &a);                                                                                    \
            G##_expect(op, "affine_neg", &b, t[2]);                                                                    \
            G##_jac_neg(&jr, &ja);                                                                                     \
            G##_expect_jac(op, "jac_neg", &jr, t[2]);                                                                  \
        } else {                                                                                                       \
            return -1;                                                                                                 \
        }                                                                                                              \
        return 0;                                                                                                      \
    }

DEFINE_CURVE_CHECKS(g1, G1_UNCOMPRESSED_BYTES, G1_COMPRESSED_BYTES)
DEFINE_CURVE_CHECKS(g2, G2_UNCOMPRESSED_BYTES, G2_COMPRESSED_BYTES)

/* ---- pairings ---- */

/* When a pairing differs, says whether it differs by a simple map (a hint for whoever debugs it). */
static void pairing_hint(const fp12_t *got, const char *tok)
{
    uint8_t want[FP12_BYTES], b[FP12_BYTES];
    if (parse_hex(want, FP12_BYTES, tok)) return;
    fp12_t c;
    fp12_conj(&c, got);
    fp12_to_bytes_be(b, &c);
    if (!memcmp(b, want, FP12_BYTES)) fprintf(stderr, "  hint: C result is the conjugate (inverse) of noble's\n");
    fp12_t sq;
    fp12_sqr(&sq, got);
    fp12_mul(&sq, &sq, got);
    fp12_to_bytes_be(b, &sq);
    if (!memcmp(b, want, FP12_BYTES)) fprintf(stderr, "  hint: noble's result is the cube of C's\n");
}

static int check_pairing(op_stat_t *op, char **t, int nt)
{
    g1_affine_t p[MAX_PAIRS];
    g2_affine_t q[MAX_PAIRS];
    g2_prepared_t *qp[MAX_PAIRS];
    size_t n;
    const char *want;
    if (!strcmp(op->name, "pairing")) {
        if (nt != 4) return -1;
        n = 1;
        if (g1_parse(&p[0], t[1]) || g2_parse(&q[0], t[2])) return -1;
        want = t[3];
    } else {
        if (nt < 2) return -1;
        n = (size_t)atoi(t[1]);
        if (n < 1 || n > MAX_PAIRS || nt != 3 + 2 * (int)n) return -1;
        for (size_t i = 0; i < n; i++)
            if (g1_parse(&p[i], t[2 + 2 * i]) || g2_parse(&q[i], t[3 + 2 * i])) return -1;
        want = t[2 + 2 * n];
    }
    fp12_t f, m;
    int before = test_failures;
    if (n == 1) {
        pairing(&f, &p[0], &q[0]);
        expect_fp12(op, "pairing", &f, want);
        if (test_failures != before) pairing_hint(&f, want);
    }
    pairing_multi(&f, p, q, n);
    expect_fp12(op, "pairing_multi", &f, want);
    pairing_miller_loop(&m, p, q, n);
    pairing_final_exp(&f, &m);
    expect_fp12(op, "miller_loop + final_exp", &f, want);

    size_t prepared = 0;
    for (; prepared < n; prepared++) {
        cuzk_error err;
        if (g2_affine_is_inf(&q[prepared])) break; /* the contract of g2_prepare does not promise infinity */
        if (g2_prepare(&qp[prepared], &q[prepared], &err) != CUZK_OK) {
            expect(op, 0, "g2_prepare failed", NULL, 0);
            break;
        }
    }
    if (prepared == n) {
        pairing_miller_loop_prepared(&m, p, qp, n);
        pairing_final_exp(&f, &m);
        expect_fp12(op, "miller_loop_prepared + final_exp", &f, want);
    }
    for (size_t i = 0; i < prepared; i++) g2_prepared_free(qp[i]);

    uint8_t one_b[FP12_BYTES], want_b[FP12_BYTES];
    fp12_t one;
    fp12_set_one(&one);
    fp12_to_bytes_be(one_b, &one);
    if (parse_hex(want_b, FP12_BYTES, want)) return -1;
    int is_one = memcmp(one_b, want_b, FP12_BYTES) == 0;
    expect(op, pairing_check(p, q, n) == is_one, "pairing_check disagrees with the product", NULL, 0);
    return 0;
}

/* ---- driver ---- */

static op_stat_t *find_op(const char *name)
{
    for (size_t i = 0; i < NOPS; i++)
        if (!strcmp(OPS[i].name, name)) return &OPS[i];
    return NULL;
}

static int check_line(char *line)
{
    char *tok[MAX_TOKENS];
    int nt = 0;
    for (char *s = strtok(line, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
        if (nt == MAX_TOKENS) return -1;
        tok[nt++] = s;
    }
    if (nt == 0) return 0;
    op_stat_t *op = find_op(tok[0]);
    if (!op) return -1;
    op->n++;
    if (!strncmp(op->name, "fp2_", 4)) return check_fp2(op, tok, nt);
    if (!strncmp(op->name, "fp_", 3)) return check_fp(op, tok, nt);
    if (!strncmp(op->name, "fr_", 3)) return check_fr(op, tok, nt);
    if (!strncmp(op->name, "g1_", 3)) return g1_check(op, tok, nt);
    if (!strncmp(op->name, "g2_", 3)) return g2_check(op, tok, nt);
    return check_pairing(op, tok, nt);
}

/* Checks every line of one file; prints per-op counts. Returns the number of vectors, or -1 if the file
 * could not be read or parsed (also counted as a failure). */
static long check_file(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "cannot open vector file %s", path);
    if (!f) return -1;
    for (size_t i = 0; i < NOPS; i++) OPS[i].n = OPS[i].failed = 0;
    char *buf = NULL, *copy = NULL;
    size_t cap = 0, copy_cap = 0;
    ssize_t len;
    long total = 0, bad = 0;
    cur_file = path;
    cur_line = 0;
    clock_t t0 = clock();
    while ((len = getline(&buf, &cap, f)) != -1) {
        cur_line++;
        if (buf[0] == '#') {
            if (cur_line == 1) printf("  %s", buf);
            continue;
        }
        if ((size_t)len + 1 > copy_cap) {
            char *c = realloc(copy, (size_t)len + 1);
            CHECK(c != NULL);
            if (!c) break;
            copy = c;
            copy_cap = (size_t)len + 1;
        }
        memcpy(copy, buf, (size_t)len + 1);
        cur_text = copy;
        if (check_line(buf) != 0) {
            bad++;
            CHECK_MSG(0, "%s:%ld: malformed vector line: %.200s", path, cur_line, copy);
        } else if (copy[0] != '\n' && copy[0] != 0) {
            total++;
        }
    }
    free(buf);
    free(copy);
    fclose(f);
    long failed = 0;
    for (size_t i = 0; i < NOPS; i++) {
        printf("  %-13s %6ld vectors, %ld failed checks\n", OPS[i].name, OPS[i].n, OPS[i].failed);
        failed += OPS[i].failed;
        /* A file without some op would let that op go untested silently. */
        CHECK_MSG(OPS[i].n > 0, "%s: no %s vectors", path, OPS[i].name);
    }
    printf("  %s: %ld vectors, %ld failed, %ld malformed lines, %.1f s\n", path, total, failed, bad,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    return bad ? -1 : total;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : dflt;
}

static void check_regression(void)
{
    const char *dir = getenv("CUZK_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/bls12_381_seed1.txt", dir && *dir ? dir : "tests/data");
    printf("(a) regression vectors %s\n", path);
    check_file(path);
}

static void check_fresh(void)
{
    const char *oracle = getenv("CUZK_ORACLE_DIR");
    const char *build = getenv("CUZK_BUILD_DIR");
    int required = getenv("CUZK_REQUIRE_ORACLE") && !strcmp(getenv("CUZK_REQUIRE_ORACLE"), "1");
    char path[4096];
    struct stat st;
    const char *missing = NULL;
    if (!oracle || !*oracle)
        missing = "CUZK_ORACLE_DIR is not set";
    else if (system("node --version >/dev/null 2>&1") != 0)
        missing = "node is not installed";
    else if (snprintf(path, sizeof path, "%s/node_modules/@noble/curves", oracle), stat(path, &st) != 0)
        missing = "node_modules is missing (run npm ci in tests/oracle)";
    if (missing) {
        if (required) {
            CHECK_MSG(0, "(b) oracle required (CUZK_REQUIRE_ORACLE=1) but %s", missing);
        } else {
            printf("(b) SKIP fresh oracle vectors: %s\n", missing);
        }
        return;
    }
    uint64_t seed = rng_fresh_seed();
    long count = env_long("CUZK_ORACLE_COUNT", FRESH_COUNT);
    long pairings = env_long("CUZK_ORACLE_PAIRINGS", FRESH_PAIRINGS);
    char out[4096], cmd[12288];
    snprintf(out, sizeof out, "%s/oracle_bls12_381_%llu.txt", build && *build ? build : ".", (unsigned long long)seed);
    printf("(b) fresh oracle vectors: seed %llu (replay with CUZK_SEED=%llu), %ld per op, %ld pairings\n",
           (unsigned long long)seed, (unsigned long long)seed, count, pairings);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "node '%s/gen-vectors.mjs' --seed %llu --count %ld --pairing-count %ld --out '%s'",
             oracle, (unsigned long long)seed, count, pairings, out);
    time_t t0 = time(NULL);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "generator failed (%d): %s", rc, cmd);
    if (rc != 0) return;
    printf("  generated in %ld s\n", (long)(time(NULL) - t0));
    int before = test_failures;
    check_file(out);
    if (test_failures == before)
        remove(out);
    else
        printf("  kept %s for replay (test_oracle_bls %s)\n", out, out);
}

int main(int argc, char **argv)
{
    rng_seed(&scale_rng, 1);
    if (argc > 1) {
        for (int i = 1; i < argc; i++) check_file(argv[i]);
        return test_finish("test_oracle_bls");
    }
    check_regression();
    check_fresh();
    return test_finish("test_oracle_bls");
}
