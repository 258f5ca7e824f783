/* The GPU MSM's GLV split and endomorphism on the CPU (src/gpu/glv.h, g1_glv_beta): known answers computed with
 * Python's integers, random scalars recombined with the test's own multi-precision arithmetic, and
 * (beta x, y) = lambda P for random points of G1. Needs no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "ec/g1.h"
#include "gpu/glv.h"

static rng_t rng;

/* Big-endian hex (exactly 8 * n digits) -> n little-endian 32-bit limbs. */
static void from_hex(uint32_t *out, size_t n, const char *hex)
{
    for (size_t i = 0; i < n; i++) {
        char word[9];
        memcpy(word, hex + 8 * (n - 1 - i), 8);
        word[8] = 0;
        out[i] = (uint32_t)strtoul(word, NULL, 16);
    }
}

/* a == b over n limbs. */
static int limbs_eq(const uint32_t *a, const uint32_t *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* a < b over n limbs. */
static int limbs_lt(const uint32_t *a, const uint32_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

static const uint32_t LAMBDA[4] = GLV_LAMBDA;

/* k1 + k2 * lambda, 9 limbs (the test's own arithmetic: 16-bit pieces, so no 64-bit carries to get wrong). */
static void recombine(uint32_t out[9], const uint32_t k1[4], const uint32_t k2[4])
{
    uint32_t acc[18] = {0}; /* 16-bit digits */
    for (int i = 0; i < 8; i++) {
        uint32_t a = (k2[i / 2] >> (16 * (i % 2))) & 0xffff;
        for (int j = 0; j < 8; j++) {
            uint32_t b = (LAMBDA[j / 2] >> (16 * (j % 2))) & 0xffff;
            uint64_t v = (uint64_t)a * b;
            for (int p = i + j; v != 0 && p < 18; p++) {
                v += acc[p];
                acc[p] = (uint32_t)(v & 0xffff);
                v >>= 16;
            }
        }
    }
    for (int i = 0; i < 8; i++) {
        uint64_t v = (k1[i / 2] >> (16 * (i % 2))) & 0xffff;
        for (int p = i; v != 0 && p < 18; p++) {
            v += acc[p];
            acc[p] = (uint32_t)(v & 0xffff);
            v >>= 16;
        }
    }
    for (int i = 0; i < 9; i++) out[i] = acc[2 * i] | (acc[2 * i + 1] << 16);
}

static void check_split(const uint32_t k[8], const char *what)
{
    uint32_t k1[4], k2[4], back[9], k9[9];
    glv_split(k, k1, k2);
    recombine(back, k1, k2);
    memcpy(k9, k, 8 * sizeof *k);
    k9[8] = 0;
    CHECK_MSG(limbs_eq(back, k9, 9), "%s: k1 + k2 lambda != k", what);
    CHECK_MSG(limbs_lt(k1, LAMBDA, 4), "%s: k1 >= lambda", what);
}

static void test_known(void)
{
    /* k, k mod lambda, k div lambda (Python): 0, 1, lambda - 1, lambda, lambda + 1, (r - 1) / 2 and one above, r - 1,
     * lambda^2 - 1, lambda^2, lambda 2^128 - 1 (the largest k with k2 < 2^128), two random values below r. */
    static const char *const v[][3] = {
        {"0000000000000000000000000000000000000000000000000000000000000000", "00000000000000000000000000000000",
         "00000000000000000000000000000000"},
        {"0000000000000000000000000000000000000000000000000000000000000001", "00000000000000000000000000000001",
         "00000000000000000000000000000000"},
        {"00000000000000000000000000000000ac45a4010001a40200000000fffffffe", "ac45a4010001a40200000000fffffffe",
         "00000000000000000000000000000000"},
        {"00000000000000000000000000000000ac45a4010001a40200000000ffffffff", "00000000000000000000000000000000",
         "00000000000000000000000000000001"},
        {"00000000000000000000000000000000ac45a4010001a4020000000100000000", "00000000000000000000000000000001",
         "00000000000000000000000000000001"},
        {"39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000000", "00000000000000000000000000000000",
         "5622d2008000d2010000000080000000"},
        {"39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000001", "00000000000000000000000000000001",
         "5622d2008000d2010000000080000000"},
        {"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000", "00000000000000000000000000000000",
         "ac45a4010001a4020000000100000000"},
        {"73eda753299d7d483339d80809a1d804a7780001fffcb7fcfffffffe00000000", "ac45a4010001a40200000000fffffffe",
         "ac45a4010001a40200000000fffffffe"},
        {"73eda753299d7d483339d80809a1d804a7780001fffcb7fcfffffffe00000001", "00000000000000000000000000000000",
         "ac45a4010001a40200000000ffffffff"},
        {"ac45a4010001a40200000000fffffffeffffffffffffffffffffffffffffffff", "ac45a4010001a40200000000fffffffe",
         "ffffffffffffffffffffffffffffffff"},
        {"691f8412128b2f330c5c7fd0a6a3a4506513270e269e0d37f2a74de452e6b438", "24f012e959f76f088c118e65a4160913",
         "9c3719836788ece2ea99955c512f54db"},
        {"1b7b3ae681e74ef5e8e25d940ed904759531985d5d9dc9f81818e811892f902b", "78b5342c8f0d5f6e0faacadd8c70433b",
         "28d6815f5889d171fad295dc0340b310"},
    };
    for (size_t t = 0; t < sizeof v / sizeof v[0]; t++) {
        uint32_t k[8], want1[4], want2[4], k1[4], k2[4];
        from_hex(k, 8, v[t][0]);
        from_hex(want1, 4, v[t][1]);
        from_hex(want2, 4, v[t][2]);
        glv_split(k, k1, k2);
        CHECK_MSG(limbs_eq(k1, want1, 4) && limbs_eq(k2, want2, 4), "known answer %zu (k = %s)", t, v[t][0]);
        check_split(k, v[t][0]);
    }
}

/* Random k below r and below (r - 1) / 2 (the MSM's folded scalars: k2 < 2^127 there). */
static void test_random(void)
{
    for (int t = 0; t < 20000; t++) {
        fr_t s;
        uint64_t c[FR_LIMBS];
        uint32_t k[8], k1[4], k2[4];
        fr_random(&s, &rng);
        fr_from_mont(c, &s);
        for (int i = 0; i < 4; i++) {
            k[2 * i] = (uint32_t)c[i];
            k[2 * i + 1] = (uint32_t)(c[i] >> 32);
        }
        check_split(k, "random k < r");
        k[7] &= 0x1fffffffu; /* below 2^253 < (r - 1) / 2 */
        check_split(k, "random k < 2^253");
        glv_split(k, k1, k2);
        CHECK_MSG(k2[3] < 0x80000000u, "k < 2^253: k2 >= 2^127");
    }
}

/* (beta x, y) = lambda P on G1, and beta is a cube root of unity other than 1. */
static void test_endomorphism(void)
{
    fp_t beta, b3, one;
    g1_glv_beta(&beta);
    fp_sqr(&b3, &beta);
    fp_mul(&b3, &b3, &beta);
    fp_set_one(&one);
    CHECK(fp_eq(&b3, &one) && !fp_eq(&beta, &one));
    const uint64_t lambda[2] = {0x00000000ffffffffull, 0xac45a4010001a402ull};
    for (int t = 0; t < 16; t++) {
        g1_jac_t p, lp, phi_j;
        g1_affine_t a, phi;
        g1_random(&p, &rng);
        g1_jac_to_affine(&a, &p);
        phi = a;
        fp_mul(&phi.x, &a.x, &beta);
        CHECK(g1_affine_is_on_curve(&phi));
        g1_jac_mul(&lp, &p, lambda, 2);
        g1_jac_from_affine(&phi_j, &phi);
        CHECK_MSG(g1_jac_eq(&lp, &phi_j), "point %d: (beta x, y) != lambda P", t);
    }
}

int main(void)
{
    test_seed(&rng, "test_gpu_glv");
    test_known();
    test_random();
    test_endomorphism();
    return test_finish("test_gpu_glv");
}
