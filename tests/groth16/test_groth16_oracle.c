/* Groth16 files and proofs checked by an independent implementation: @noble/curves (tests/oracle).
 *
 * The test writes a .params and a .vk file and a few proofs (valid and altered); a small Node script
 * (embedded below, written to a temporary file) walks bellperson's layout on its own, decodes every point
 * with noble (curve and subgroup checks), compares some bases with the toxic waste, and checks each proof
 * with noble's pairing. Skipped (exit 77) when node or the oracle's node_modules are missing. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/random_circuit.h"
#include "groth16/groth16.h"
#include "testutil.h"

static const char *script =
    "const [oracle, paramsPath, vkPath, casesPath, alphaHex, deltaHex, tauHex, mStr] = process.argv.slice(2);\n"
    "const { bls12_381: bls } = await import(oracle + '/node_modules/@noble/curves/bls12-381.js');\n"
    "const { readFileSync } = await import('node:fs');\n"
    "const G1 = bls.G1.Point, G2 = bls.G2.Point, Fr = bls.fields.Fr, Fp12 = bls.fields.Fp12;\n"
    "const fail = (m) => { console.log('error ' + m); process.exit(0); };\n"
    "const pb = readFileSync(paramsPath), vb = readFileSync(vkPath);\n"
    "let off = 0;\n"
    "const u32 = () => { if (off + 4 > pb.length) fail('short at ' + off); const v = pb.readUInt32BE(off); off += 4;"
    " return v; };\n"
    "const pt = (P, n) => { if (off + n > pb.length) fail('short at ' + off);"
    " const p = P.fromBytes(pb.subarray(off, off + n)); p.assertValidity(); off += n; return p; };\n"
    "const vk = { alpha: pt(G1, 96), beta1: pt(G1, 96), beta2: pt(G2, 192), gamma: pt(G2, 192),"
    " delta1: pt(G1, 96), delta2: pt(G2, 192) };\n"
    "vk.ic = []; for (let n = u32(), i = 0; i < n; i++) vk.ic.push(pt(G1, 96));\n"
    "if (!vb.equals(pb.subarray(0, off))) fail('vk file is not the params prefix');\n"
    "const sec = {};\n"
    "for (const [name, P, n] of [['h', G1, 96], ['l', G1, 96], ['a', G1, 96], ['b_g1', G1, 96], ['b_g2', G2, 192]]) {\n"
    "  sec[name] = []; for (let k = u32(), i = 0; i < k; i++) { const p = pt(P, n);"
    " if (p.equals(P.ZERO)) fail(name + ' has infinity'); sec[name].push(p); } }\n"
    "if (off !== pb.length) fail('trailing bytes');\n"
    "const alpha = BigInt('0x' + alphaHex), delta = BigInt('0x' + deltaHex), tau = BigInt('0x' + tauHex);\n"
    "const m = BigInt(mStr);\n"
    "if (!vk.alpha.equals(G1.BASE.multiply(alpha))) fail('alpha_g1');\n"
    "if (!vk.delta2.equals(G2.BASE.multiply(delta))) fail('delta_g2');\n"
    "if (sec.h.length !== Number(m) - 1) fail('h length');\n"
    "const zd = Fr.div(Fr.sub(Fr.pow(tau, m), 1n), delta);\n"
    "for (const i of [0, sec.h.length - 1]) if (i >= 0 &&"
    " !sec.h[i].equals(G1.BASE.multiply(Fr.mul(Fr.pow(tau, BigInt(i)), zd)))) fail('h[' + i + ']');\n"
    "if (sec.b_g1.length !== sec.b_g2.length) fail('b lengths');\n"
    "console.log('params ok');\n"
    "for (const line of readFileSync(casesPath, 'utf8').trim().split('\\n')) {\n"
    "  const [proofHex, ...ins] = line.split(' ');\n"
    "  const b = Buffer.from(proofHex, 'hex');\n"
    "  let ok;\n"
    "  try {\n"
    "    const A = G1.fromBytes(b.subarray(0, 48)), B = G2.fromBytes(b.subarray(48, 144)),"
    " C = G1.fromBytes(b.subarray(144, 192));\n"
    "    A.assertValidity(); B.assertValidity(); C.assertValidity();\n"
    "    let acc = vk.ic[0];\n"
    "    if (ins.length + 1 !== vk.ic.length) fail('input count');\n"
    "    ins.forEach((h, i) => { const x = BigInt('0x' + h);"
    " if (x !== 0n) acc = acc.add(vk.ic[i + 1].multiply(x)); });\n"
    "    const f = bls.pairingBatch([{ g1: A, g2: B }, { g1: acc.negate(), g2: vk.gamma },"
    " { g1: C.negate(), g2: vk.delta2 }, { g1: vk.alpha.negate(), g2: vk.beta2 }]);\n"
    "    ok = Fp12.eql(f, Fp12.ONE);\n"
    "  } catch (e) { ok = false; }\n"
    "  console.log(ok ? 'valid' : 'invalid');\n"
    "}\n";

static void fr_hex(char *out, const fr_t *x)
{
    uint8_t b[32];
    fr_to_bytes_be(b, x);
    hex_encode(out, b, 32);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_groth16_oracle");
    const char *oracle = getenv("CUZK_ORACLE_DIR");
    char path[1024];
    if (!oracle || system("node --version >/dev/null 2>&1") != 0) {
        printf("skipped: node or CUZK_ORACLE_DIR missing\n");
        return 77;
    }
    snprintf(path, sizeof(path), "%s/node_modules/@noble/curves/bls12-381.js", oracle);
    if (access(path, R_OK) != 0) {
        printf("skipped: %s missing (npm ci in tests/oracle)\n", path);
        return 77;
    }
    pool_t *pool;
    cuzk_error err;
    if (pool_create(&pool, 2, &err) != CUZK_OK) return 1;
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/cuzk-g16o-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return 1;
    char pp[300], vp[300], cp[300], jp[300], op[300];
    snprintf(pp, sizeof(pp), "%s/c.params", dir);
    snprintf(vp, sizeof(vp), "%s/c.vk", dir);
    snprintf(cp, sizeof(cp), "%s/cases.txt", dir);
    snprintf(jp, sizeof(jp), "%s/check.mjs", dir);
    snprintf(op, sizeof(op), "%s/out.txt", dir);

    random_circuit_params rp = {
        .num_inputs = 3, .num_aux = 14, .num_constraints = 21, .max_terms = 4, .flags = RC_REPEATED_VARS};
    r1cs cs;
    CHECK(random_circuit_build(&rng, &rp, &cs, &err) == CUZK_OK);
    groth16_toxic tw;
    fr_random(&tw.alpha, &rng);
    fr_random(&tw.beta, &rng);
    fr_random(&tw.gamma, &rng);
    fr_random(&tw.delta, &rng);
    fr_random(&tw.tau, &rng);
    groth16_params p;
    CHECK(groth16_setup_with_toxic(pool, &cs, &tw, NULL, &p, &err) == CUZK_OK);
    CHECK(groth16_params_write(pool, &p, pp, &err) == CUZK_OK);
    CHECK(groth16_vk_write(&p.vk, vp, &err) == CUZK_OK);

    /* cases: 3 valid proofs, then altered ones; expectations in order */
    enum { NCASES = 6 };
    int expect[NCASES] = {1, 1, 1, 0, 0, 0};
    FILE *f = fopen(cp, "w");
    CHECK(f != NULL);
    size_t npub = cs.num_inputs - 1;
    for (int c = 0; f && c < NCASES; c++) {
        groth16_proof proof;
        CHECK(groth16_prove(pool, &p, &cs, NULL, NULL, NULL, NULL, &proof, NULL, &err) == CUZK_OK);
        fr_t pub[8];
        memcpy(pub, cs.inputs + 1, npub * sizeof(fr_t));
        if (c == 3) { /* another public input */
            fr_t one;
            fr_set_one(&one);
            fr_add(&pub[0], &pub[0], &one);
        }
        if (c == 4) proof.a = proof.c; /* swapped point */
        if (c == 5) g1_affine_neg(&proof.c, &proof.c);
        uint8_t bytes[GROTH16_PROOF_BYTES];
        char hex[2 * GROTH16_PROOF_BYTES + 1], h32[65];
        groth16_proof_write(bytes, &proof);
        hex_encode(hex, bytes, sizeof(bytes));
        fputs(hex, f);
        for (size_t i = 0; i < npub; i++) {
            fr_hex(h32, &pub[i]);
            fprintf(f, " %s", h32);
        }
        fputc('\n', f);
        /* our verifier agrees with the expectation */
        groth16_pvk pvk;
        CHECK(groth16_pvk_prepare(&pvk, &p.vk, &err) == CUZK_OK);
        CHECK((groth16_verify(pool, &pvk, &proof, pub, npub, &err) == CUZK_OK) == expect[c]);
        groth16_pvk_free(&pvk);
    }
    if (f) fclose(f);
    f = fopen(jp, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(script, f);
        fclose(f);
    }

    char ah[65], dh[65], th[65], cmd[4096];
    fr_hex(ah, &tw.alpha);
    fr_hex(dh, &tw.delta);
    fr_hex(th, &tw.tau);
    snprintf(cmd, sizeof(cmd), "node '%s' '%s' '%s' '%s' '%s' %s %s %s %zu > '%s'", jp, oracle, pp, vp, cp, ah, dh, th,
             p.h_len + 1, op);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "node exited with %d", rc);
    f = fopen(op, "r");
    CHECK(f != NULL);
    if (f) {
        char line[256];
        int n = 0;
        CHECK(fgets(line, sizeof(line), f) && strcmp(line, "params ok\n") == 0);
        if (strncmp(line, "params ok", 9) != 0) fprintf(stderr, "oracle: %s", line);
        while (fgets(line, sizeof(line), f) && n < NCASES) {
            int valid = strcmp(line, "valid\n") == 0;
            CHECK_MSG(valid == expect[n], "case %d: noble says %s", n, line);
            n++;
        }
        CHECK(n == NCASES);
        fclose(f);
    }
    remove(pp), remove(vp), remove(cp), remove(jp), remove(op);
    rmdir(dir);
    groth16_params_free(&p);
    r1cs_free(&cs);
    pool_destroy(pool);
    return test_finish("test_groth16_oracle");
}
