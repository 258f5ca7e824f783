/* snarkjs JSON files: decimal output against known constants and the JSON reader's decimal parser, round trips
 * of proofs (incl. infinity and projective coordinates) and public values, and the rejections the readers
 * promise (wrong curve or protocol, missing members, numbers not below the modulus, points off the curve or
 * outside the subgroup, IC/nPublic mismatch). The fixture proof is checked in test_zkey. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/json.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "testutil.h"

static const char *P_DEC = "40024095552216673934177898257359041565568828199390078853320581361240316504908378644426876"
                           "29129015664037894272559787";
static const char *R_DEC = "52435875175126190479447740508185965837690552500527637822603658699938581184513";
static const char *MAX512_DEC = "1340780792994259709957402499820584612747936582059239337772356144372176403007354697"
                                "6801874298166903427690031858186486050853753882811946569946433649006084095";

static void test_decimal(rng_t *rng)
{
    char out[8 * 20 + 1];
    snarkjs_limbs_to_decimal(out, FP_MODULUS, FP_LIMBS);
    CHECK(strcmp(out, P_DEC) == 0);
    snarkjs_limbs_to_decimal(out, FR_MODULUS, FR_LIMBS);
    CHECK(strcmp(out, R_DEC) == 0);
    uint64_t ones[8];
    memset(ones, 0xff, sizeof ones);
    snarkjs_limbs_to_decimal(out, ones, 8);
    CHECK(strcmp(out, MAX512_DEC) == 0);
    uint64_t v[2] = {0, 0};
    snarkjs_limbs_to_decimal(out, v, 2);
    CHECK(strcmp(out, "0") == 0);
    v[0] = 10000000000000000000ull;
    snarkjs_limbs_to_decimal(out, v, 1);
    CHECK(strcmp(out, "10000000000000000000") == 0);
    v[0] = 9999999999999999999ull;
    snarkjs_limbs_to_decimal(out, v, 1);
    CHECK(strcmp(out, "9999999999999999999") == 0);
    v[0] = 0;
    v[1] = 1;
    snarkjs_limbs_to_decimal(out, v, 2);
    CHECK(strcmp(out, "18446744073709551616") == 0);

    /* Round trip through json_decimal_limbs (an independent parser) for random widths and values. */
    for (int i = 0; i < 500; i++) {
        uint64_t l[6], back[6];
        size_t n = 1 + rng_next(rng) % 6;
        for (size_t k = 0; k < n; k++) l[k] = rng_next(rng) >> (rng_next(rng) % 64);
        snarkjs_limbs_to_decimal(out, l, n);
        char doc[200];
        snprintf(doc, sizeof doc, "\"%s\"", out);
        json_doc *d;
        cuzk_error err;
        CHECK(json_parse(&d, doc, strlen(doc), &err) == CUZK_OK);
        CHECK(json_decimal_limbs(json_root(d), back, n, "x", &err) == CUZK_OK);
        CHECK(memcmp(l, back, n * sizeof *l) == 0);
        CHECK(out[0] != '0' || out[1] == 0); /* no leading zeros */
        json_free(d);
    }
}

static char tmpdir[] = "/tmp/cuzk-json-XXXXXX";

static const char *tmpfile_path(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static char *slurp_text(const char *path, size_t *len)
{
    const uint8_t *m;
    cuzk_error err;
    if (snarkjs_map_file(path, &m, len, &err) != CUZK_OK) return NULL;
    char *b = malloc(*len + 1);
    if (b) {
        memcpy(b, m, *len);
        b[*len] = 0;
    }
    snarkjs_unmap_file(m, *len);
    return b;
}

static void test_round_trips(rng_t *rng)
{
    cuzk_error err;
    for (int i = 0; i < 4; i++) {
        groth16_proof p, q;
        g1_jac_t a, c;
        g2_jac_t b;
        g1_random(&a, rng);
        g2_random(&b, rng);
        g1_random(&c, rng);
        g1_jac_to_affine(&p.a, &a);
        g2_jac_to_affine(&p.b, &b);
        g1_jac_to_affine(&p.c, &c);
        if (i == 1) g1_affine_set_inf(&p.a);
        if (i == 2) g2_affine_set_inf(&p.b);
        CHECK(snarkjs_proof_write(tmpfile_path("proof.json"), &p, &err) == CUZK_OK);
        cuzk_status st = snarkjs_proof_read(&q, tmpfile_path("proof.json"), &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        CHECK(g1_affine_eq(&p.a, &q.a) && g2_affine_eq(&p.b, &q.b) && g1_affine_eq(&p.c, &q.c));
    }
    for (size_t n = 0; n < 4; n++) {
        fr_t v[3], *back = NULL;
        size_t nb = 99;
        for (size_t k = 0; k < n && k < 3; k++) fr_random(&v[k], rng);
        size_t nn = n < 3 ? n : 3;
        CHECK(snarkjs_public_write(tmpfile_path("public.json"), v, nn, &err) == CUZK_OK);
        CHECK(snarkjs_public_read(&back, &nb, tmpfile_path("public.json"), &err) == CUZK_OK);
        CHECK(nb == nn);
        for (size_t k = 0; k < nb && k < nn; k++) CHECK(fr_eq(&back[k], &v[k]));
        free(back);
    }
    /* The writer's output is exactly snarkjs' layout for a proof: members and the affine "1" coordinates. */
    size_t len;
    char *text = slurp_text(tmpfile_path("proof.json"), &len);
    CHECK(text && strstr(text, "\"protocol\": \"groth16\"") && strstr(text, "\"curve\": \"bls12381\"") &&
          strstr(text, ", [\"1\", \"0\"]]"));
    free(text);
}

/* A proof JSON text for points given as decimal strings, with the z coordinates supplied. */
static void dec_fp(char *out, const fp_t *a)
{
    uint64_t l[FP_LIMBS];
    fp_from_mont(l, a);
    snarkjs_limbs_to_decimal(out, l, FP_LIMBS);
}

static cuzk_status parse_str(groth16_proof *p, const char *s, cuzk_error *err)
{
    return snarkjs_proof_parse(p, s, strlen(s), err);
}

static void test_rejections(rng_t *rng)
{
    cuzk_error err;
    groth16_proof p;
    g1_jac_t ja;
    g1_affine_t a;
    g1_random(&ja, rng);
    g1_jac_to_affine(&a, &ja);
    g2_affine_t b = G2_GENERATOR;
    char ax[120], ay[120], bx0[120], bx1[120], by0[120], by1[120], doc[4096];
    dec_fp(ax, &a.x);
    dec_fp(ay, &a.y);
    dec_fp(bx0, &b.x.c0);
    dec_fp(bx1, &b.x.c1);
    dec_fp(by0, &b.y.c0);
    dec_fp(by1, &b.y.c1);
#define DOC(pa, curve, protocol)                                                                                       \
    snprintf(doc, sizeof doc,                                                                                          \
             "{\"pi_a\": %s, \"pi_b\": [[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]], \"pi_c\": [\"%s\",\"%s\"], "   \
             "\"protocol\": \"%s\", \"curve\": \"%s\"}",                                                               \
             pa, bx0, bx1, by0, by1, ax, ay, protocol, curve)
    char pa[400];
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\", \"1\"]", ax, ay);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_OK && g1_affine_eq(&p.a, &a) && g1_affine_eq(&p.c, &a) &&
          g2_affine_eq(&p.b, &b));
    DOC(pa, "bn128", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.msg, "curve"));
    DOC(pa, "bls12381", "plonk");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.msg, "protocol"));
    /* Projective (Jacobian) input with z != 1, and z = 0 for infinity. */
    fp_t z, z2, z3, X, Y;
    fp_random(&z, rng);
    fp_sqr(&z2, &z);
    fp_mul(&z3, &z2, &z);
    fp_mul(&X, &a.x, &z2);
    fp_mul(&Y, &a.y, &z3);
    char zx[120], zy[120], zz[120];
    dec_fp(zx, &X);
    dec_fp(zy, &Y);
    dec_fp(zz, &z);
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\", \"%s\"]", zx, zy, zz);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_OK && g1_affine_eq(&p.a, &a));
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\", \"0\"]", zx, zy);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_OK && g1_affine_is_inf(&p.a));
    /* Not below p, off the curve, outside the subgroup, malformed. */
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\", \"1\"]", P_DEC, ay);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "pi_a[0]: not below p"));
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\", \"1\"]", ay, ax);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "pi_a: not on the curve"));
    g1_affine_t off;
    g1_random_on_curve(&off, rng);
    char ox[120], oy[120];
    dec_fp(ox, &off.x);
    dec_fp(oy, &off.y);
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\"]", ox, oy);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "subgroup"));
    snprintf(pa, sizeof pa, "[\"%s\", \"-%s\", \"1\"]", ax, ay);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_FORMAT);
    snprintf(pa, sizeof pa, "[\"%s\"]", ax);
    DOC(pa, "bls12381", "groth16");
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "coordinates"));
    CHECK(parse_str(&p, "{\"pi_a\": [\"1\", \"2\"]", &err) == CUZK_ERR_FORMAT);
    CHECK(parse_str(&p, "[]", &err) == CUZK_ERR_FORMAT);
    snprintf(pa, sizeof pa, "[\"%s\", \"%s\", \"1\"]", ax, ay);
    snprintf(doc, sizeof doc, "{\"pi_a\": %s, \"pi_c\": %s}", pa, pa);
    CHECK(parse_str(&p, doc, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "pi_b: missing"));

    /* Public values: r is rejected, r - 1 is accepted; numbers as JSON numbers too (as snarkjs' JSON allows). */
    fr_t *v = NULL;
    size_t n = 0;
    snprintf(doc, sizeof doc, "[\"%s\"]", R_DEC);
    CHECK(snarkjs_public_parse(&v, &n, doc, strlen(doc), &err) == CUZK_ERR_FORMAT && strstr(err.msg, "public[0]"));
    const char *pubs = "[12, \"52435875175126190479447740508185965837690552500527637822603658699938581184512\"]";
    CHECK(snarkjs_public_parse(&v, &n, pubs, strlen(pubs), &err) == CUZK_OK);
    if (n == 2) {
        fr_t t;
        fr_from_u64(&t, 12);
        CHECK(fr_eq(&v[0], &t));
        fr_set_one(&t);
        fr_neg(&t, &t);
        CHECK(fr_eq(&v[1], &t));
    }
    free(v);
    CHECK(snarkjs_public_parse(&v, &n, "{}", 2, &err) == CUZK_ERR_FORMAT && v == NULL);

    /* Verification keys: IC count must match nPublic. */
    char g1s[400], g2s[800];
    snprintf(g1s, sizeof g1s, "[\"%s\", \"%s\", \"1\"]", ax, ay);
    snprintf(g2s, sizeof g2s, "[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]]", bx0, bx1, by0, by1);
    for (int np = 0; np < 3; np++) {
        snprintf(doc, sizeof doc,
                 "{\"protocol\": \"groth16\", \"curve\": \"bls12381\", \"nPublic\": %d, \"vk_alpha_1\": %s, "
                 "\"vk_beta_2\": %s, \"vk_gamma_2\": %s, \"vk_delta_2\": %s, \"IC\": [%s, %s]}",
                 np, g1s, g2s, g2s, g2s, g1s, g1s);
        groth16_vk vk;
        cuzk_status st = snarkjs_vk_parse(&vk, doc, strlen(doc), &err);
        if (np == 1) {
            CHECK_MSG(st == CUZK_OK, "%s", err.msg);
            CHECK(vk.ic_len == 2 && g1_affine_eq(&vk.ic[1], &a) && g1_affine_is_inf(&vk.delta_g1));
            groth16_vk_free(&vk);
        } else {
            CHECK(st == CUZK_ERR_FORMAT && strstr(err.msg, "nPublic") && vk.ic == NULL);
        }
    }
#undef DOC
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_snarkjs_json");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot create %s\n", tmpdir);
        return 1;
    }
    test_decimal(&rng);
    test_round_trips(&rng);
    test_rejections(&rng);
    unlink(tmpfile_path("proof.json"));
    unlink(tmpfile_path("public.json"));
    rmdir(tmpdir);
    return test_finish("test_snarkjs_json");
}
