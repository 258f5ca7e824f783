/* The .zkey reader and prover on the committed snarkjs fixtures (tests/snarkjs/fixtures, made by
 * `node tests/snarkjs/interop.mjs fixtures tests/snarkjs/fixtures` from circuits/mulchain.circom with x = 3,
 * a = 4, b = 5), checked against what snarkjs wrote beside them:
 *  - the zkey's verifying-key points equal those decoded from verification_key.json (decimal, canonical):
 *    pins the Montgomery little-endian representation and the G2 coordinate order;
 *  - gamma2 is the G2 generator (snarkjs newZKey sets it so, and contributions leave it);
 *  - the coefficient section holds snarkjs' input constraints (value 1) and the circuit's constants -3 and -5i;
 *  - a proof from zkey_prove verifies against the JSON verification key, snarkjs' own proof does too, and
 *    tampered ones do not;
 *  - every truncation and single-byte corruption of the file is rejected or parsed without a crash, with
 *    errors of the documented kinds. */
#include <stdlib.h>
#include <string.h>

#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "testutil.h"
#include "util/pool.h"

static char fixture_dir[1024];

static const char *fixture(const char *name)
{
    static char path[1200];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
    return path;
}

static int has_coef(const zkey *z, uint32_t matrix, uint32_t constraint, uint32_t signal, const fr_t *v)
{
    for (size_t i = 0; i < z->n_coefs; i++) {
        const zkey_coef *k = &z->coefs[i];
        if (k->matrix == matrix && k->constraint == constraint && k->signal == signal && fr_eq(&k->value, v)) return 1;
    }
    return 0;
}

static int has_value(const zkey *z, uint32_t matrix, const fr_t *v)
{
    for (size_t i = 0; i < z->n_coefs; i++)
        if (z->coefs[i].matrix == matrix && fr_eq(&z->coefs[i].value, v)) return 1;
    return 0;
}

/* The zkey as the engine sees it (zkey_shape, zkey_witness, zkey_params; c evaluates to zero and H in snarkjs'
 * form takes a * b): the same proof bytes as zkey_prove for the same r, s; a witness of the wrong length or
 * without ONE is refused. */
static void check_engine_form(const zkey *z, const wtns *w, const fr_t *r, const fr_t *s, const groth16_proof *want)
{
    cuzk_error err;
    r1cs shape, wit;
    r1cs_density dn;
    groth16_params params;
    memset(&dn, 0, sizeof dn);
    memset(&params, 0, sizeof params);
    memset(&wit, 0, sizeof wit);
    fr_t *abc = NULL;
    cuzk_status st = zkey_shape(z, &shape, &err);
    CHECK_MSG(st == CUZK_OK, "zkey_shape: %s", err.msg);
    if (st != CUZK_OK) return;
    CHECK(shape.num_inputs == (size_t)z->n_public + 1 && shape.num_inputs + shape.num_aux == z->n_vars);
    CHECK_MSG(shape.num_constraints == 9, "zkey_shape: %zu constraints (6 + 3 input rows expected)",
              shape.num_constraints);
    if ((st = r1cs_compute_density(&shape, &dn, &err)) == CUZK_OK) st = zkey_params(z, &dn, &params, &err);
    CHECK_MSG(st == CUZK_OK, "zkey_params: %s", err.msg);
    if (st == CUZK_OK) st = zkey_witness(z, w->values, w->n, &wit, &err);
    CHECK_MSG(st == CUZK_OK, "zkey_witness: %s", err.msg);
    size_t m = z->domain_size;
    abc = calloc(3 * m, sizeof *abc);
    if (st == CUZK_OK && abc) {
        st = r1cs_check_witness(&shape, &wit, &err);
        if (st == CUZK_OK) st = r1cs_eval_abc(NULL, &shape, wit.inputs, wit.aux, abc, abc + m, abc + 2 * m, &err);
        groth16_pending pending;
        groth16_proof got;
        if (st == CUZK_OK)
            st = groth16_prove_start_abc(NULL, &params, shape.num_constraints, abc, abc + m, abc + 2 * m, wit.inputs,
                                         wit.num_inputs, wit.aux, wit.num_aux, &dn, &pending, NULL, &err);
        if (st == CUZK_OK) st = groth16_prove_finish(NULL, &pending, r, s, &got, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "engine form: %s", err.msg);
        if (st == CUZK_OK) {
            uint8_t e1[GROTH16_PROOF_BYTES], e2[GROTH16_PROOF_BYTES];
            groth16_proof_write(e1, want);
            groth16_proof_write(e2, &got);
            CHECK_MSG(memcmp(e1, e2, sizeof e1) == 0, "engine form: proof bytes differ from zkey_prove's");
        }
    }
    r1cs bad;
    CHECK(zkey_witness(z, w->values, w->n - 1, &bad, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(zkey_witness(z, w->values + 1, w->n, &bad, &err) == CUZK_ERR_INVALID_ARG);
    free(abc);
    r1cs_free(&wit);
    groth16_params_free(&params);
    r1cs_density_free(&dn);
    r1cs_free(&shape);
}

static void test_fixture(rng_t *rng)
{
    cuzk_error err;
    zkey z;
    cuzk_status st = zkey_read(NULL, &z, fixture("circuit.zkey"), 0, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st != CUZK_OK) return;
    /* mulchain(5): wires ONE, y, x, a, b, t[0..4]; constraints 6, plus 3 input constraints -> domain 16. */
    CHECK(z.n_vars == 10);
    CHECK(z.n_public == 2);
    CHECK(z.domain_size == 16 && z.log_domain == 4);
    CHECK(z.n_coefs > 0);

    groth16_vk jvk;
    st = snarkjs_vk_read(&jvk, fixture("verification_key.json"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) {
        CHECK(g1_affine_eq(&jvk.alpha_g1, &z.alpha_g1));
        CHECK(g2_affine_eq(&jvk.beta_g2, &z.beta_g2));
        CHECK(g2_affine_eq(&jvk.gamma_g2, &z.gamma_g2));
        CHECK(g2_affine_eq(&jvk.delta_g2, &z.delta_g2));
        CHECK(jvk.ic_len == 3);
        for (size_t i = 0; i < jvk.ic_len && i < 3; i++) CHECK(g1_affine_eq(&jvk.ic[i], &z.ic[i]));
    }
    CHECK(g2_affine_eq(&z.gamma_g2, &G2_GENERATOR));
    CHECK(!g2_affine_eq(&z.delta_g2, &G2_GENERATOR)); /* the phase-2 contribution moved delta */

    /* Coefficients: snarkjs' input constraints A[6 + s] = 1 * signal s, and the circuit's constants. */
    fr_t one, v;
    fr_set_one(&one);
    for (uint32_t s = 0; s <= 2; s++) CHECK(has_coef(&z, 0, 6 + s, s, &one));
    fr_from_u64(&v, 3); /* circom negates A (and C): A = -(t + 3x) */
    fr_neg(&v, &v);
    CHECK(has_value(&z, 0, &v));
    for (uint64_t i = 1; i < 5; i++) {
        fr_from_u64(&v, 5 * i);
        fr_neg(&v, &v);
        CHECK_MSG(has_value(&z, 1, &v), "B coefficient -%llu", (unsigned long long)(5 * i));
    }

    wtns w;
    st = wtns_read(&w, fixture("witness.wtns"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    fr_t *pub = NULL;
    size_t npub = 0;
    st = snarkjs_public_read(&pub, &npub, fixture("snarkjs_public.json"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (w.n == 10 && npub == 2) {
        CHECK(fr_eq(&w.values[1], &pub[0]) && fr_eq(&w.values[2], &pub[1]));
        /* y = t4^2 - 7b + 11 with the fixture's x = 3, a = 4, b = 5 (worked out in interop.mjs' terms). */
        fr_from_u64(&v, 508953576);
        CHECK(fr_eq(&pub[0], &v));
    }

    /* cuzk's proof verifies against snarkjs' verification key; tampering breaks it. */
    groth16_proof proof, sproof;
    fr_t r, s;
    fr_random(&r, rng);
    fr_random(&s, rng);
    st = zkey_prove(NULL, &z, w.values, w.n, &r, &s, &proof, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) check_engine_form(&z, &w, &r, &s, &proof);
    if (st == CUZK_OK && jvk.ic && pub) {
        st = snarkjs_verify(&jvk, &proof, pub, npub, &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        fr_t bad = pub[1];
        fr_add(&bad, &bad, &one);
        fr_t badpub[2] = {pub[0], bad};
        CHECK(snarkjs_verify(&jvk, &proof, badpub, 2, &err) == CUZK_ERR_INVALID_PROOF);
        groth16_proof t = proof;
        t.c = proof.a;
        CHECK(snarkjs_verify(&jvk, &t, pub, npub, &err) == CUZK_ERR_INVALID_PROOF);
        /* The verifying key from the zkey works as well. */
        groth16_vk zvk;
        CHECK(zkey_vk(&z, &zvk, &err) == CUZK_OK);
        CHECK(snarkjs_verify(&zvk, &proof, pub, npub, &err) == CUZK_OK);
        groth16_vk_free(&zvk);
        /* Fresh r, s from the OS: still valid, and a different proof. */
        groth16_proof p2;
        CHECK(zkey_prove(NULL, &z, w.values, w.n, NULL, NULL, &p2, &err) == CUZK_OK);
        CHECK(snarkjs_verify(&jvk, &p2, pub, npub, &err) == CUZK_OK);
        CHECK(!g1_affine_eq(&p2.a, &proof.a));
        /* A wrong witness (one private value changed) gives a proof that fails. */
        w.values[5].l[0] ^= 1;
        CHECK(zkey_prove(NULL, &z, w.values, w.n, &r, &s, &p2, &err) == CUZK_OK);
        CHECK(snarkjs_verify(&jvk, &p2, pub, npub, &err) == CUZK_ERR_INVALID_PROOF);
        w.values[5].l[0] ^= 1;
        /* The same through a thread pool (parallel point decoding, NTTs and MSMs). */
        pool_t *pool;
        if (pool_create(&pool, 3, &err) == CUZK_OK) {
            zkey zp;
            CHECK(zkey_read(pool, &zp, fixture("circuit.zkey"), 0, &err) == CUZK_OK);
            CHECK(zkey_prove(pool, &zp, w.values, w.n, &r, &s, &p2, &err) == CUZK_OK);
            CHECK(g1_affine_eq(&p2.a, &proof.a) && g2_affine_eq(&p2.b, &proof.b) && g1_affine_eq(&p2.c, &proof.c));
            zkey_free(&zp);
            pool_destroy(pool);
        }
        /* Argument checks. */
        CHECK(zkey_prove(NULL, &z, w.values, w.n - 1, &r, &s, &p2, &err) == CUZK_ERR_INVALID_ARG);
        fr_t w0 = w.values[0];
        fr_set_zero(&w.values[0]);
        CHECK(zkey_prove(NULL, &z, w.values, w.n, &r, &s, &p2, &err) == CUZK_ERR_INVALID_ARG);
        w.values[0] = w0;
    }

    /* snarkjs' own proof verifies with cuzk; tampered, it does not. */
    st = snarkjs_proof_read(&sproof, fixture("snarkjs_proof.json"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK && jvk.ic && pub) {
        CHECK(snarkjs_verify(&jvk, &sproof, pub, npub, &err) == CUZK_OK);
        g1_affine_neg(&sproof.a, &sproof.a);
        CHECK(snarkjs_verify(&jvk, &sproof, pub, npub, &err) == CUZK_ERR_INVALID_PROOF);
    }
    free(pub);
    wtns_free(&w);
    groth16_vk_free(&jvk);
    zkey_free(&z);
}

static int status_ok_kind(cuzk_status st)
{
    return st == CUZK_OK || st == CUZK_ERR_TRUNCATED || st == CUZK_ERR_FORMAT || st == CUZK_ERR_UNSUPPORTED;
}

static void test_truncations_and_flips(rng_t *rng)
{
    size_t len;
    uint8_t *buf = test_read_file(fixture("circuit.zkey"), &len);
    CHECK(buf != NULL);
    if (!buf) return;
    cuzk_error err;
    zkey z;
    /* Every proper prefix fails: the section table walk sees the missing bytes. */
    size_t bad_kind = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1); /* exact-size copy so ASan catches any overread */
        memcpy(cut, buf, n);
        cuzk_status st = zkey_parse(NULL, &z, cut, n, ZKEY_SKIP_SUBGROUP_CHECK, &err);
        if (st != CUZK_ERR_TRUNCATED && st != CUZK_ERR_FORMAT) bad_kind++;
        if (st == CUZK_OK) zkey_free(&z);
        free(cut);
    }
    CHECK_MSG(bad_kind == 0, "%zu truncations not rejected as truncated/format", bad_kind);
    CHECK(zkey_parse(NULL, &z, buf, 100, 0, &err) == CUZK_ERR_TRUNCATED && strstr(err.msg, "offset") != NULL);

    /* One random bit flipped at every offset up to the A section (headers, IC, coefficients), and at a random
     * quarter of the offsets after it (each parse checks the six header points fully, which costs): no crash,
     * only the documented kinds. */
    snarkjs_binfile bf;
    CHECK(snarkjs_binfile_open(&bf, buf, len, "zkey", 1, "zkey", &err) == CUZK_OK);
    size_t rejected_points = 0, point_bytes = 0;
    bad_kind = 0;
    for (size_t i = 0; i < len; i++) {
        if (i >= bf.offset[5] && (rng_next(rng) & 3) != 0) continue;
        uint8_t bit = (uint8_t)(1u << (rng_next(rng) & 7));
        buf[i] ^= bit;
        cuzk_status st = zkey_parse(NULL, &z, buf, len, ZKEY_SKIP_SUBGROUP_CHECK, &err);
        buf[i] ^= bit;
        if (!status_ok_kind(st)) bad_kind++;
        if (st == CUZK_OK) zkey_free(&z);
        /* Inside the A, B1, B2, C, H sections a flipped bit leaves the curve (or p) almost surely. */
        for (uint32_t t = 5; t <= 9; t++) {
            if (i >= bf.offset[t] && i < bf.offset[t] + bf.size[t]) {
                point_bytes++;
                rejected_points += st == CUZK_ERR_FORMAT;
            }
        }
    }
    CHECK_MSG(bad_kind == 0, "%zu flips gave an undocumented status", bad_kind);
    CHECK_MSG(rejected_points + point_bytes / 100 >= point_bytes, "%zu of %zu point-byte flips rejected",
              rejected_points, point_bytes);
    free(buf);
}

/* Rewrites a little-endian u32 at off. */
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void test_targeted(rng_t *rng)
{
    size_t len;
    uint8_t *buf = test_read_file(fixture("circuit.zkey"), &len);
    CHECK(buf != NULL);
    if (!buf) return;
    uint8_t *b = malloc(len + 16);
    cuzk_error err;
    zkey z;
    snarkjs_binfile bf;
    CHECK(snarkjs_binfile_open(&bf, buf, len, "zkey", 1, "zkey", &err) == CUZK_OK);
    size_t g16 = bf.offset[2];

#define MUTATE(stmt, expect, needle)                                                                                   \
    do {                                                                                                               \
        memcpy(b, buf, len);                                                                                           \
        size_t blen = len;                                                                                             \
        stmt;                                                                                                          \
        cuzk_status st_ = zkey_parse(NULL, &z, b, blen, 0, &err);                                                      \
        CHECK_MSG(st_ == (expect) && strstr(err.msg, needle), "%s: got %s: %s", #stmt, cuzk_status_name(st_),          \
                  st_ == CUZK_OK ? "" : err.msg);                                                                      \
        if (st_ == CUZK_OK) zkey_free(&z);                                                                             \
    } while (0)

    MUTATE(b[0] = 'x', CUZK_ERR_FORMAT, "magic");
    MUTATE(put32(b + 4, 2), CUZK_ERR_FORMAT, "version");
    MUTATE((b[len] = 0, blen = len + 1), CUZK_ERR_FORMAT, "trailing");
    MUTATE(put32(b + bf.offset[1], 2), CUZK_ERR_UNSUPPORTED, "PLONK");
    MUTATE(put32(b + g16, 32), CUZK_ERR_FORMAT, "n8q");
    MUTATE(b[g16 + 4] ^= 1, CUZK_ERR_FORMAT, "q is not");
    MUTATE(put32(b + g16 + 4 + 48 + 4 + 32 + 8, 15), CUZK_ERR_FORMAT, "power of two");
    MUTATE(put32(b + g16 + 4 + 48 + 4 + 32 + 8, 32), CUZK_ERR_FORMAT, "section 9 (H)");
    MUTATE(put32(b + g16 + 4 + 48 + 4 + 32, 11), CUZK_ERR_FORMAT, "section 5 (A)");
    MUTATE(put32(b + g16 + 4 + 48 + 4 + 32 + 4, 10), CUZK_ERR_FORMAT, "nPublic");
    /* Section 3 (IC) relabelled as a second section 5: IC missing, A duplicated. */
    MUTATE(put32(b + bf.offset[3] - 12, 5), CUZK_ERR_FORMAT, "section 3 is missing");
    MUTATE(put32(b + bf.offset[4] + 4, 2), CUZK_ERR_FORMAT, "matrix 2");
    MUTATE(put32(b + bf.offset[4] + 4 + 8, 10), CUZK_ERR_FORMAT, "signal 10");
    MUTATE(put32(b + bf.offset[4] + 4 + 4, 16), CUZK_ERR_FORMAT, "constraint 16");
    MUTATE(memset(b + bf.offset[4] + 4 + 12, 0xff, 32), CUZK_ERR_FORMAT, "not below r");
    /* A point of H moved off the curve; an A point replaced by the infinity encoding (accepted, as snarkjs does). */
    MUTATE(b[bf.offset[9] + 3 * 96 + 50] ^= 4, CUZK_ERR_FORMAT, "section 9 (H): point 3 at offset");
    MUTATE(memset(b + bf.offset[5] + 96, 0, 96), CUZK_OK, "");
    MUTATE(memset(b + bf.offset[5] + 96, 0xff, 48), CUZK_ERR_FORMAT, "not below p");
    MUTATE(b[g16 + 100 + 10] ^= 1, CUZK_ERR_FORMAT, "alpha1");

    /* A point on the curve outside the subgroup: rejected unless the check is skipped. */
    g1_affine_t q;
    g1_random_on_curve(&q, rng);
    CHECK(!g1_affine_in_subgroup(&q));
    memcpy(b, buf, len);
    memcpy(b + bf.offset[8], q.x.l, 48); /* our limbs are the file's Montgomery little-endian bytes on this host */
    memcpy(b + bf.offset[8] + 48, q.y.l, 48);
    cuzk_status st = zkey_parse(NULL, &z, b, len, 0, &err);
    CHECK_MSG(st == CUZK_ERR_FORMAT && strstr(err.msg, "subgroup") && strstr(err.msg, "section 8 (C): point 0"), "%s",
              err.msg);
    st = zkey_parse(NULL, &z, b, len, ZKEY_SKIP_SUBGROUP_CHECK, &err);
    CHECK(st == CUZK_OK);
    if (st == CUZK_OK) {
        CHECK(g1_affine_eq(&z.c[0], &q));
        zkey_free(&z);
    }
    free(b);
    free(buf);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_zkey");
    const char *src = __FILE__;
    const char *slash = strrchr(src, '/');
    snprintf(fixture_dir, sizeof fixture_dir, "%.*s/../snarkjs/fixtures", slash ? (int)(slash - src) : 1,
             slash ? src : ".");
    test_fixture(&rng);
    test_targeted(&rng);
    test_truncations_and_flips(&rng);
    return test_finish("test_zkey");
}
