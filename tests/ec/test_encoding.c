/* Point encodings of G1 and G2 (zcash/blst rules, /work/shared/references/gpu-prover.md section 1.1):
 * every class of malformed input gets its own status and a message, never a crash; valid points and
 * infinity round-trip in both forms; the generators encode to the bytes @noble/curves 2.4.0 gives. */
#include <string.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "testutil.h"

#define SLOT 48 /* one Fp coefficient, big-endian */

/* G.toHex(true) of the generators, from @noble/curves 2.4.0. */
static const char G1_GEN_COMPRESSED[] =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G2_GEN_COMPRESSED[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";

static uint8_t P_BE[SLOT]; /* the modulus p, big-endian */

/* out = in + p over 48 big-endian bytes; returns 0 if the sum still fits in 381 bits (no flag bits). */
static int slot_add_p(uint8_t *out, const uint8_t *in)
{
    unsigned carry = 0;
    for (int i = SLOT - 1; i >= 0; i--) {
        unsigned s = (unsigned)in[i] + P_BE[i] + carry;
        out[i] = (uint8_t)s;
        carry = s >> 8;
    }
    return carry == 0 && (out[0] & 0xe0) == 0 ? 0 : -1;
}

static void slot_set_p(uint8_t *out)
{
    memcpy(out, P_BE, SLOT);
}

static void slot_set_max(uint8_t *out)
{
    memset(out, 0xff, SLOT);
    out[0] = 0x1f;
}

/* Checks one rejected decoding: the exact status, the same code in err, and a message. */
#define EXPECT_REJECT(call, want, what)                                                                                \
    do {                                                                                                               \
        cuzk_error err_;                                                                                               \
        memset(&err_, 0, sizeof err_);                                                                                 \
        cuzk_status st_ = (call);                                                                                      \
        CHECK_MSG(st_ == (want) && err_.code == (want) && err_.msg[0] != 0, "%s: got %s (%s), want %s", what,          \
                  cuzk_status_name(st_), err_.msg, cuzk_status_name(want));                                            \
    } while (0)

/* 1 if r*P is infinity: the subgroup test computed here, independent of the library's fast check. */
static int g1_order_r(const g1_affine_t *p)
{
    g1_jac_t j;
    g1_jac_from_affine(&j, p);
    g1_jac_mul(&j, &j, FR_MODULUS, FR_LIMBS);
    return g1_jac_is_inf(&j);
}

static int g2_order_r(const g2_affine_t *p)
{
    g2_jac_t j;
    g2_jac_from_affine(&j, p);
    g2_jac_mul(&j, &j, FR_MODULUS, FR_LIMBS);
    return g2_jac_is_inf(&j);
}

/* An x for which x^3 + b is not a square (so no point has it), found with the Legendre symbol. */
static void g1_x_without_point(uint8_t out[G1_COMPRESSED_BYTES], rng_t *rng)
{
    fp_t x, rhs, b;
    fp_from_u64(&b, 4);
    do {
        fp_random(&x, rng);
        fp_sqr(&rhs, &x);
        fp_mul(&rhs, &rhs, &x);
        fp_add(&rhs, &rhs, &b);
    } while (fp_legendre(&rhs) != -1);
    fp_to_bytes_be(out, &x);
}

/* In Fp2 = Fp[u]/(u^2 + 1), a is a square iff its norm c0^2 + c1^2 is a square in Fp. */
static void g2_x_without_point(uint8_t out[G2_COMPRESSED_BYTES], rng_t *rng)
{
    fp2_t x, rhs, b;
    fp_t norm, t;
    fp_from_u64(&b.c0, 4);
    fp_from_u64(&b.c1, 4);
    do {
        fp2_random(&x, rng);
        fp2_sqr(&rhs, &x);
        fp2_mul(&rhs, &rhs, &x);
        fp2_add(&rhs, &rhs, &b);
        fp_sqr(&norm, &rhs.c0);
        fp_sqr(&t, &rhs.c1);
        fp_add(&norm, &norm, &t);
    } while (fp_legendre(&norm) != -1);
    fp2_to_bytes_be(out, &x);
}

static void g1_bump_y(g1_affine_t *p)
{
    fp_t one;
    fp_set_one(&one);
    fp_add(&p->y, &p->y, &one);
}

static void g2_bump_y(g2_affine_t *p)
{
    fp2_t one;
    fp2_set_one(&one);
    fp2_add(&p->y, &p->y, &one);
}

static int g1_y_largest(const g1_affine_t *p)
{
    return fp_is_lexicographically_largest(&p->y);
}
static int g2_y_largest(const g2_affine_t *p)
{
    return fp2_is_lexicographically_largest(&p->y);
}

/* The tests, once per group. UB/CB: uncompressed/compressed sizes; a coordinate has CB / SLOT coefficients. */
#define DEFINE_ENCODING_TESTS(G, GEN, UB, CB, GEN_HEX)                                                                 \
    static void G##_random_affine(G##_affine_t *r, rng_t *rng)                                                         \
    {                                                                                                                  \
        G##_jac_t j;                                                                                                   \
        G##_random(&j, rng);                                                                                           \
        G##_jac_to_affine(r, &j);                                                                                      \
    }                                                                                                                  \
                                                                                                                       \
    /* An on-curve point outside the subgroup, confirmed by r*P != O. */                                               \
    static void G##_outside_subgroup(G##_affine_t *r, rng_t *rng)                                                      \
    {                                                                                                                  \
        do G##_random_on_curve(r, rng);                                                                                \
        while (G##_order_r(r));                                                                                        \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_test_roundtrip(rng_t *rng)                                                                         \
    {                                                                                                                  \
        G##_affine_t p, q;                                                                                             \
        uint8_t u[UB], c[CB], u2[UB], c2[CB];                                                                          \
        cuzk_error err;                                                                                                \
        for (int i = 0; i < 64; i++) {                                                                                 \
            G##_random_affine(&p, rng);                                                                                \
            G##_to_uncompressed(u, &p);                                                                                \
            G##_to_compressed(c, &p);                                                                                  \
            /* Compressed = x with 0x80, and 0x20 exactly when y is the larger of +-y. */                              \
            CHECK((u[0] & 0xe0) == 0 && (c[0] & 0xc0) == 0x80);                                                        \
            CHECK(c[0] == (u[0] | 0x80 | (G##_y_largest(&p) ? 0x20 : 0)) && memcmp(u + 1, c + 1, CB - 1) == 0);        \
            for (int check = 0; check <= 1; check++) {                                                                 \
                CHECK(G##_from_uncompressed(&q, u, check, &err) == CUZK_OK && G##_affine_eq(&p, &q));                  \
                CHECK(G##_from_compressed(&q, c, check, &err) == CUZK_OK && G##_affine_eq(&p, &q));                    \
            }                                                                                                          \
            G##_to_uncompressed(u2, &q);                                                                               \
            G##_to_compressed(c2, &q);                                                                                 \
            CHECK(memcmp(u, u2, UB) == 0 && memcmp(c, c2, CB) == 0);                                                   \
            /* The sign bit selects y or -y: flipping it decodes to -P. */                                             \
            c[0] ^= 0x20;                                                                                              \
            G##_affine_t neg;                                                                                          \
            G##_affine_neg(&neg, &p);                                                                                  \
            CHECK(G##_from_compressed(&q, c, 1, &err) == CUZK_OK && G##_affine_eq(&q, &neg));                          \
        }                                                                                                              \
        /* Infinity: exactly 0x40 / 0xc0 followed by zeros, both ways. */                                              \
        G##_affine_set_inf(&p);                                                                                        \
        G##_to_uncompressed(u, &p);                                                                                    \
        G##_to_compressed(c, &p);                                                                                      \
        uint8_t want_u[UB] = {0x40}, want_c[CB] = {0xc0};                                                              \
        CHECK(memcmp(u, want_u, UB) == 0 && memcmp(c, want_c, CB) == 0);                                               \
        for (int check = 0; check <= 1; check++) {                                                                     \
            CHECK(G##_from_uncompressed(&q, u, check, &err) == CUZK_OK && G##_affine_is_inf(&q));                      \
            CHECK(G##_from_compressed(&q, c, check, &err) == CUZK_OK && G##_affine_is_inf(&q));                        \
        }                                                                                                              \
        /* The generator, against noble's bytes. */                                                                    \
        uint8_t gen[CB];                                                                                               \
        CHECK(hex_decode(gen, CB, GEN_HEX) == 0);                                                                      \
        G##_to_compressed(c, &GEN);                                                                                    \
        CHECK(memcmp(c, gen, CB) == 0);                                                                                \
        CHECK(G##_from_compressed(&q, gen, 1, &err) == CUZK_OK && G##_affine_eq(&q, &GEN));                            \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_test_bad_compressed(rng_t *rng)                                                                    \
    {                                                                                                                  \
        G##_affine_t p, q;                                                                                             \
        uint8_t c[CB], b[CB];                                                                                          \
        G##_random_affine(&p, rng);                                                                                    \
        G##_to_compressed(c, &p);                                                                                      \
        /* Flags: the compression bit must be set; infinity needs every other bit clear. */                            \
        static const uint8_t no_compress[] = {0x00, 0x20, 0x40, 0x60};                                                 \
        for (size_t i = 0; i < sizeof no_compress; i++) {                                                              \
            memcpy(b, c, CB);                                                                                          \
            b[0] = (uint8_t)((b[0] & 0x1f) | no_compress[i]);                                                          \
            EXPECT_REJECT(G##_from_compressed(&q, b, 1, &err_), CUZK_ERR_BAD_FLAGS, #G " compressed, no 0x80");        \
            memset(b, 0, CB);                                                                                          \
            b[0] = no_compress[i];                                                                                     \
            EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                    \
                          #G " compressed zero payload, no 0x80");                                                     \
        }                                                                                                              \
        memset(b, 0, CB);                                                                                              \
        b[0] = 0xe0;                                                                                                   \
        EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS, #G " compressed infinity+sign");       \
        static const size_t nz_at[] = {0, 1, CB / 2, CB - 1};                                                          \
        for (size_t i = 0; i < 4; i++) {                                                                               \
            memset(b, 0, CB);                                                                                          \
            b[0] = 0xc0;                                                                                               \
            b[nz_at[i]] |= 0x01;                                                                                       \
            EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                    \
                          #G " compressed infinity with payload");                                                     \
        }                                                                                                              \
        memcpy(b, c, CB);                                                                                              \
        b[0] |= 0x40;                                                                                                  \
        EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                        \
                      #G " compressed point with the infinity bit");                                                   \
        /* Non-canonical coefficients: p, 2^381 - 1, and (for a real point) x + p, which a decoder that        \
         * reduced mod p would accept. */       \
        for (int s = 0; s < CB / SLOT; s++) {                                                                          \
            memcpy(b, c, CB);                                                                                          \
            slot_set_p(b + s * SLOT);                                                                                  \
            b[0] |= 0x80;                                                                                              \
            EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_NOT_CANONICAL, #G " compressed x = p");       \
            memcpy(b, c, CB);                                                                                          \
            slot_set_max(b + s * SLOT);                                                                                \
            b[0] |= 0x80;                                                                                              \
            EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_NOT_CANONICAL,                                \
                          #G " compressed x = 2^381 - 1");                                                             \
            int found = 0;                                                                                             \
            for (int tries = 0; tries < 200 && !found; tries++) {                                                      \
                G##_random_affine(&p, rng);                                                                            \
                G##_to_compressed(b, &p);                                                                              \
                uint8_t flags = b[0] & 0xe0;                                                                           \
                b[0] &= 0x1f;                                                                                          \
                if (slot_add_p(b + s * SLOT, b + s * SLOT) != 0) continue;                                             \
                found = 1;                                                                                             \
                b[0] |= flags;                                                                                         \
                EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_NOT_CANONICAL, #G " compressed x + p");   \
            }                                                                                                          \
            CHECK_MSG(found, #G ": no point with a small enough coefficient %d", s);                                   \
        }                                                                                                              \
        /* An x with no point. */                                                                                      \
        for (int i = 0; i < 8; i++) {                                                                                  \
            G##_x_without_point(b, rng);                                                                               \
            b[0] |= (uint8_t)(0x80 | (i & 1 ? 0x20 : 0));                                                              \
            EXPECT_REJECT(G##_from_compressed(&q, b, 0, &err_), CUZK_ERR_NO_SQUARE_ROOT,                               \
                          #G " compressed x without y");                                                               \
        }                                                                                                              \
        /* On the curve, outside the subgroup: rejected only when asked. */                                            \
        for (int i = 0; i < 8; i++) {                                                                                  \
            cuzk_error err;                                                                                            \
            G##_outside_subgroup(&p, rng);                                                                             \
            G##_to_compressed(b, &p);                                                                                  \
            EXPECT_REJECT(G##_from_compressed(&q, b, 1, &err_), CUZK_ERR_NOT_IN_SUBGROUP,                              \
                          #G " compressed outside the subgroup");                                                      \
            CHECK(G##_from_compressed(&q, b, 0, &err) == CUZK_OK && G##_affine_eq(&p, &q));                            \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    static void G##_test_bad_uncompressed(rng_t *rng)                                                                  \
    {                                                                                                                  \
        G##_affine_t p, q;                                                                                             \
        uint8_t u[UB], b[UB];                                                                                          \
        G##_random_affine(&p, rng);                                                                                    \
        G##_to_uncompressed(u, &p);                                                                                    \
        static const uint8_t bad_flags[] = {0x80, 0xa0, 0xc0, 0xe0, 0x20};                                             \
        for (size_t i = 0; i < sizeof bad_flags; i++) {                                                                \
            memcpy(b, u, UB);                                                                                          \
            b[0] |= bad_flags[i];                                                                                      \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                  \
                          #G " uncompressed point with flags");                                                        \
            memset(b, 0, UB);                                                                                          \
            b[0] = bad_flags[i];                                                                                       \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                  \
                          #G " uncompressed zero payload with flags");                                                 \
        }                                                                                                              \
        memset(b, 0, UB);                                                                                              \
        b[0] = 0x60;                                                                                                   \
        EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS, #G " uncompressed infinity+sign");   \
        static const size_t nz_at[] = {0, 1, UB / 2, UB - 1};                                                          \
        for (size_t i = 0; i < 4; i++) {                                                                               \
            memset(b, 0, UB);                                                                                          \
            b[0] = 0x40;                                                                                               \
            b[nz_at[i]] |= 0x01;                                                                                       \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                  \
                          #G " uncompressed infinity with payload");                                                   \
        }                                                                                                              \
        memcpy(b, u, UB);                                                                                              \
        b[0] |= 0x40;                                                                                                  \
        EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_BAD_FLAGS,                                      \
                      #G " uncompressed point with the infinity bit");                                                 \
        /* All zeros without the infinity flag is (0, 0), which is not on the curve (blst agrees). */                  \
        memset(b, 0, UB);                                                                                              \
        EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_NOT_ON_CURVE, #G " uncompressed zeros");        \
        for (int s = 0; s < UB / SLOT; s++) {                                                                          \
            memcpy(b, u, UB);                                                                                          \
            slot_set_p(b + s * SLOT);                                                                                  \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_NOT_CANONICAL,                              \
                          #G " uncompressed coefficient = p");                                                         \
            memcpy(b, u, UB);                                                                                          \
            slot_set_max(b + s * SLOT);                                                                                \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_NOT_CANONICAL,                              \
                          #G " uncompressed coefficient = 2^381 - 1");                                                 \
            int found = 0;                                                                                             \
            for (int tries = 0; tries < 200 && !found; tries++) {                                                      \
                G##_random_affine(&p, rng);                                                                            \
                G##_to_uncompressed(b, &p);                                                                            \
                if (slot_add_p(b + s * SLOT, b + s * SLOT) != 0) continue;                                             \
                found = 1;                                                                                             \
                EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_NOT_CANONICAL,                          \
                              #G " uncompressed coefficient + p");                                                     \
            }                                                                                                          \
            CHECK_MSG(found, #G ": no point with a small enough coefficient %d", s);                                   \
        }                                                                                                              \
        for (int i = 0; i < 8; i++) {                                                                                  \
            G##_random_affine(&p, rng);                                                                                \
            G##_bump_y(&p);                                                                                            \
            G##_to_uncompressed(b, &p);                                                                                \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 0, &err_), CUZK_ERR_NOT_ON_CURVE,                               \
                          #G " uncompressed off the curve");                                                           \
        }                                                                                                              \
        for (int i = 0; i < 8; i++) {                                                                                  \
            cuzk_error err;                                                                                            \
            G##_outside_subgroup(&p, rng);                                                                             \
            G##_to_uncompressed(b, &p);                                                                                \
            EXPECT_REJECT(G##_from_uncompressed(&q, b, 1, &err_), CUZK_ERR_NOT_IN_SUBGROUP,                            \
                          #G " uncompressed outside the subgroup");                                                    \
            CHECK(G##_from_uncompressed(&q, b, 0, &err) == CUZK_OK && G##_affine_eq(&p, &q));                          \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* Random bytes (with random flag bits) never crash; whatever decodes is valid and canonical. */                   \
    static void G##_test_random_bytes(rng_t *rng)                                                                      \
    {                                                                                                                  \
        G##_affine_t q;                                                                                                \
        uint8_t u[UB], c[CB], again_u[UB], again_c[CB];                                                                \
        cuzk_error err;                                                                                                \
        int decoded = 0;                                                                                               \
        for (int i = 0; i < 400; i++) {                                                                                \
            int check = i & 1;                                                                                         \
            rng_bytes(rng, c, CB);                                                                                     \
            /* Mostly well-flagged with 381-bit coefficients, so many reach the square root and curve checks. */       \
            if (i % 4 != 3) {                                                                                          \
                uint8_t sign = c[0] & 0x20;                                                                            \
                for (int s = 0; s < CB / SLOT; s++) c[s * SLOT] &= 0x1f;                                               \
                c[0] |= (uint8_t)(0x80 | sign);                                                                        \
            }                                                                                                          \
            cuzk_status st = G##_from_compressed(&q, c, check, &err);                                                  \
            if (st == CUZK_OK) {                                                                                       \
                decoded++;                                                                                             \
                CHECK(G##_affine_is_on_curve(&q) && (!check || G##_order_r(&q)));                                      \
                G##_to_compressed(again_c, &q);                                                                        \
                CHECK(memcmp(again_c, c, CB) == 0);                                                                    \
            } else {                                                                                                   \
                CHECK(st == CUZK_ERR_BAD_FLAGS || st == CUZK_ERR_NOT_CANONICAL || st == CUZK_ERR_NO_SQUARE_ROOT ||     \
                      st == CUZK_ERR_NOT_IN_SUBGROUP);                                                                 \
                CHECK(err.code == st && err.msg[0] != 0);                                                              \
            }                                                                                                          \
            rng_bytes(rng, u, UB);                                                                                     \
            if (i % 4 != 3)                                                                                            \
                for (int s = 0; s < UB / SLOT; s++) u[s * SLOT] &= 0x1f;                                               \
            st = G##_from_uncompressed(&q, u, check, &err);                                                            \
            if (st == CUZK_OK) {                                                                                       \
                G##_to_uncompressed(again_u, &q);                                                                      \
                CHECK(memcmp(again_u, u, UB) == 0);                                                                    \
            } else {                                                                                                   \
                CHECK(st == CUZK_ERR_BAD_FLAGS || st == CUZK_ERR_NOT_CANONICAL || st == CUZK_ERR_NOT_ON_CURVE);        \
                CHECK(err.code == st && err.msg[0] != 0);                                                              \
            }                                                                                                          \
        }                                                                                                              \
        /* About half of canonical x have a point; a decoder that rejected everything would fail here. */              \
        CHECK_MSG(decoded > 20, #G ": only %d random compressed encodings decoded", decoded);                          \
    }

DEFINE_ENCODING_TESTS(g1, G1_GENERATOR, G1_UNCOMPRESSED_BYTES, G1_COMPRESSED_BYTES, G1_GEN_COMPRESSED)
DEFINE_ENCODING_TESTS(g2, G2_GENERATOR, G2_UNCOMPRESSED_BYTES, G2_COMPRESSED_BYTES, G2_GEN_COMPRESSED)

/* The point (0, 2) of order 3 on y^2 = x^3 + 4: compressed x = 0 decodes only without the subgroup check. */
static void test_g1_order_three(void)
{
    uint8_t b[G1_COMPRESSED_BYTES] = {0x80};
    g1_affine_t q;
    cuzk_error err;
    EXPECT_REJECT(g1_from_compressed(&q, b, 1, &err_), CUZK_ERR_NOT_IN_SUBGROUP, "g1 (0, 2)");
    CHECK(g1_from_compressed(&q, b, 0, &err) == CUZK_OK && fp_is_zero(&q.x));
    fp_t two;
    fp_from_u64(&two, 2);
    CHECK(fp_eq(&q.y, &two)); /* 2 < (p-1)/2, so the sign bit clear means +2 */
    g1_jac_t j;
    g1_jac_from_affine(&j, &q);
    uint64_t three = 3;
    g1_jac_mul(&j, &j, &three, 1);
    CHECK(g1_jac_is_inf(&j));
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_encoding");
    for (int i = 0; i < FP_LIMBS; i++)
        for (int j = 0; j < 8; j++) P_BE[SLOT - 1 - 8 * i - j] = (uint8_t)(FP_MODULUS[i] >> (8 * j));

    g1_test_roundtrip(&rng);
    g2_test_roundtrip(&rng);
    g1_test_bad_compressed(&rng);
    g2_test_bad_compressed(&rng);
    g1_test_bad_uncompressed(&rng);
    g2_test_bad_uncompressed(&rng);
    g1_test_random_bytes(&rng);
    g2_test_random_bytes(&rng);
    test_g1_order_three();
    return test_finish("test_encoding");
}
