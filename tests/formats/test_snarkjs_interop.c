/* Interoperability with snarkjs on bls12381, both ways, with a fresh ceremony each run:
 *   tests/snarkjs/interop.mjs setup compiles circuits/mulchain.circom (circom2, --prime bls12381), runs a small
 *   powers-of-tau ceremony and a phase-2 contribution, computes the witness for random x, a, b and a snarkjs
 *   proof. Then:
 *   - cuzk reads the .zkey and .wtns; the public values in the witness equal the circuit's output computed here
 *     in Fr (an independent check of the witness reader);
 *   - cuzk proves; `snarkjs groth16 verify` accepts the proof.json/public.json that cuzk wrote;
 *   - cuzk's verifier accepts snarkjs' proof with snarkjs' verification_key.json and public.json;
 *   - tampered proofs (pi_a negated, or a public value changed) fail in snarkjs and in cuzk.
 * Needs node and tests/snarkjs/node_modules (`npm ci` in tests/snarkjs); without them the test prints SKIP and
 * returns 77, unless CUZK_REQUIRE_ORACLE=1, when that is a failure. The work directory is kept on failure. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "testutil.h"

static char project[1024]; /* tests/snarkjs */
static char work[1024];

static const char *in_work(const char *name)
{
    static char bufs[16][1200]; /* enough for every path one call site holds at once */
    static int next;
    char *p = bufs[next++ % 16];
    snprintf(p, sizeof bufs[0], "%s/%s", work, name);
    return p;
}

static void fr_decimal(char *out, const fr_t *v)
{
    uint64_t l[FR_LIMBS];
    fr_from_mont(l, v);
    snarkjs_limbs_to_decimal(out, l, FR_LIMBS);
}

/* y of circuits/mulchain.circom (n = 5): t0 = a*b, t_i = (t_{i-1} + 3x)(a - 5i), y = t4^2 - 7b + 11. */
static void mulchain(fr_t *y, const fr_t *x, const fr_t *a, const fr_t *b)
{
    fr_t t, u, k;
    fr_mul(&t, a, b);
    for (uint64_t i = 1; i < 5; i++) {
        fr_from_u64(&k, 3);
        fr_mul(&k, &k, x);
        fr_add(&t, &t, &k);
        fr_from_u64(&k, 5 * i);
        fr_sub(&u, a, &k);
        fr_mul(&t, &t, &u);
    }
    fr_sqr(y, &t);
    fr_from_u64(&k, 7);
    fr_mul(&k, &k, b);
    fr_sub(y, y, &k);
    fr_from_u64(&k, 11);
    fr_add(y, y, &k);
}

/* Runs snarkjs verify on (public, proof) pairs; verdicts[i] = 1 for VALID, 0 for INVALID, -1 if no answer. */
static int snarkjs_verify_files(const char *const *pairs, size_t npairs, int *verdicts)
{
    char cmd[8192];
    int len = snprintf(cmd, sizeof cmd, "node '%s/interop.mjs' verify '%s'", project, in_work("verification_key.json"));
    for (size_t i = 0; i < 2 * npairs; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " '%s'", pairs[i]);
    for (size_t i = 0; i < npairs; i++) verdicts[i] = -1;
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    char line[256];
    size_t k = 0;
    while (fgets(line, sizeof line, f)) {
        if (k < npairs && strncmp(line, "VALID", 5) == 0)
            verdicts[k++] = 1;
        else if (k < npairs && strncmp(line, "INVALID", 7) == 0)
            verdicts[k++] = 0;
    }
    return pclose(f);
}

static int oracle_available(void)
{
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/node_modules/snarkjs/package.json", project);
    if (stat(path, &st) != 0) return 0;
    snprintf(path, sizeof path, "%s/node_modules/.bin/circom2", project);
    if (stat(path, &st) != 0) return 0;
    return system("node --version > /dev/null 2>&1") == 0;
}

static void run(rng_t *rng)
{
    cuzk_error err;
    fr_t x, a, b, y;
    fr_random(&x, rng);
    fr_random(&a, rng);
    fr_random(&b, rng);
    mulchain(&y, &x, &a, &b);
    char dx[100], da[100], db[100], cmd[4096];
    fr_decimal(dx, &x);
    fr_decimal(da, &a);
    fr_decimal(db, &b);
    snprintf(cmd, sizeof cmd, "node '%s/interop.mjs' setup '%s' %s %s %s", project, work, dx, da, db);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "snarkjs setup failed (%d): %s", rc, cmd);
    if (rc != 0) return;

    zkey z;
    wtns w;
    cuzk_status st = zkey_read(NULL, &z, in_work("circuit.zkey"), 0, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st != CUZK_OK) return;
    st = wtns_read(&w, in_work("witness.wtns"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st != CUZK_OK) {
        zkey_free(&z);
        return;
    }
    CHECK(z.n_public == 2 && w.n == z.n_vars);
    if (z.n_public == 2 && w.n >= 3) CHECK(fr_eq(&w.values[1], &y) && fr_eq(&w.values[2], &x));

    /* cuzk proves; snarkjs checks it (and two tampered variants). */
    groth16_proof proof, bad;
    st = zkey_prove(NULL, &z, w.values, w.n, NULL, NULL, &proof, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    fr_t badpub[2] = {w.values[1], w.values[2]};
    fr_t one;
    fr_set_one(&one);
    fr_add(&badpub[0], &badpub[0], &one);
    bad = proof;
    g1_affine_neg(&bad.a, &bad.a);
    CHECK(snarkjs_proof_write(in_work("proof.json"), &proof, &err) == CUZK_OK);
    CHECK(snarkjs_public_write(in_work("public.json"), w.values + 1, z.n_public, &err) == CUZK_OK);
    CHECK(snarkjs_proof_write(in_work("proof_bad_a.json"), &bad, &err) == CUZK_OK);
    CHECK(snarkjs_public_write(in_work("public_bad.json"), badpub, 2, &err) == CUZK_OK);

    /* snarkjs' proof, tampered the same way, for snarkjs to reject too. */
    groth16_proof sproof;
    st = snarkjs_proof_read(&sproof, in_work("snarkjs_proof.json"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    bad = sproof;
    g1_affine_neg(&bad.a, &bad.a);
    CHECK(snarkjs_proof_write(in_work("snarkjs_proof_bad_a.json"), &bad, &err) == CUZK_OK);

    const char *pairs[] = {in_work("public.json"),         in_work("proof.json"),
                           in_work("public.json"),         in_work("proof_bad_a.json"),
                           in_work("public_bad.json"),     in_work("proof.json"),
                           in_work("snarkjs_public.json"), in_work("snarkjs_proof_bad_a.json")};
    int verdict[4];
    snarkjs_verify_files(pairs, 4, verdict);
    CHECK_MSG(verdict[0] == 1, "snarkjs rejects cuzk's proof (%d)", verdict[0]);
    CHECK_MSG(verdict[1] == 0, "snarkjs on cuzk's proof with pi_a negated: %d", verdict[1]);
    CHECK_MSG(verdict[2] == 0, "snarkjs on cuzk's proof with a wrong public value: %d", verdict[2]);
    CHECK_MSG(verdict[3] == 0, "snarkjs on its own proof with pi_a negated: %d", verdict[3]);

    /* cuzk checks snarkjs' proof with snarkjs' key and public values (as files), and the tampered ones. */
    groth16_vk vk;
    fr_t *pub = NULL;
    size_t npub = 0;
    st = snarkjs_vk_read(&vk, in_work("verification_key.json"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    st = snarkjs_public_read(&pub, &npub, in_work("snarkjs_public.json"), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (vk.ic && npub == 2) {
        CHECK(fr_eq(&pub[0], &y) && fr_eq(&pub[1], &x));
        CHECK(snarkjs_verify(&vk, &sproof, pub, npub, &err) == CUZK_OK);
        CHECK(snarkjs_verify(&vk, &bad, pub, npub, &err) == CUZK_ERR_INVALID_PROOF);
        CHECK(snarkjs_verify(&vk, &sproof, badpub, 2, &err) == CUZK_ERR_INVALID_PROOF);
        /* And cuzk's own proof as it was written to JSON, read back. */
        groth16_proof back;
        CHECK(snarkjs_proof_read(&back, in_work("proof.json"), &err) == CUZK_OK);
        CHECK(snarkjs_verify(&vk, &back, pub, npub, &err) == CUZK_OK);
        CHECK(snarkjs_proof_read(&back, in_work("proof_bad_a.json"), &err) == CUZK_OK);
        CHECK(snarkjs_verify(&vk, &back, pub, npub, &err) == CUZK_ERR_INVALID_PROOF);
    }
    free(pub);
    groth16_vk_free(&vk);
    wtns_free(&w);
    zkey_free(&z);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_snarkjs_interop");
    const char *src = __FILE__;
    const char *slash = strrchr(src, '/');
    snprintf(project, sizeof project, "%.*s/../snarkjs", slash ? (int)(slash - src) : 1, slash ? src : ".");
    const char *require = getenv("CUZK_REQUIRE_ORACLE");
    if (!oracle_available()) {
        if (require && strcmp(require, "1") == 0) {
            fprintf(stderr,
                    "test_snarkjs_interop: node or %s/node_modules missing and CUZK_REQUIRE_ORACLE=1 "
                    "(run `npm ci` in tests/snarkjs)\n",
                    project);
            return 1;
        }
        printf("SKIP: test_snarkjs_interop: node or %s/node_modules missing (run `npm ci` in tests/snarkjs)\n",
               project);
        return 77;
    }
    const char *base = getenv("CUZK_BUILD_DIR");
    snprintf(work, sizeof work, "%s/snarkjs-interop-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(work)) {
        fprintf(stderr, "test_snarkjs_interop: cannot create %s\n", work);
        return 1;
    }
    run(&rng);
    if (test_failures == 0) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", work);
    } else {
        fprintf(stderr, "test_snarkjs_interop: files kept in %s\n", work);
    }
    return test_finish("test_snarkjs_interop");
}
