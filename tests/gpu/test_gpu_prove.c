/* The GPU prover (src/gpu/gpu_prove.h) and the GPU backend (engine_backend_gpu) against the CPU prover: for the
 * same witness, r and s the proof bytes must be identical. Random circuits of every shape (each with the split
 * forced on, forced off and automatic), the synthetic PoRep-shaped circuit at 2^8, 2^12 and 2^16 (bellperson H),
 * the snarkjs fixture zkey (snarkjs H), the engine on a few jobs (every proof self-verified), and errors as
 * statuses (wrong params, no such device, device out of memory). Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef CUZK_HAVE_GPU
#include "circuits/random_circuit.h"
#include "circuits/synthetic.h"
#include "engine/engine.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "gpu/gpu_prove.h"
#include "gpu/tune.h"

static rng_t rng;
static pool_t *pool;
static gpu_prover *pv;

static int pending_same(const groth16_pending *x, const groth16_pending *y, char *which, size_t len)
{
    const g1_jac_t *px[4] = {&x->h, &x->l, &x->a, &x->b_g1}, *py[4] = {&y->h, &y->l, &y->a, &y->b_g1};
    static const char *const name[4] = {"h", "l", "a", "b_g1"};
    which[0] = '\0';
    int same = 1;
    for (int i = 0; i < 4; i++) {
        if (!g1_jac_eq(px[i], py[i])) {
            same = 0;
            size_t n = strlen(which);
            snprintf(which + n, len - n, "%s ", name[i]);
        }
    }
    return same;
}

/* The abc-done hook of one call: counts, and in "scribble" mode overwrites a, b, c as a caller reusing their
 * memory would (the proof must not change). */
typedef struct abc_hook {
    int calls, scribble;
    fr_t *abc;
    size_t bytes;
} abc_hook;

static void on_abc_done(void *ctx)
{
    abc_hook *hk = ctx;
    hk->calls++;
    if (hk->scribble) memset(hk->abc, 0xA5, hk->bytes);
}

/* Proves one witness with the CPU prover and with the GPU prover in every split mode; compares the four MSM
 * results and the proof bytes. a, b, c: num_constraints values in buffers of m. */
static void prove_both(const char *what, const groth16_params *params, size_t n, size_t m, const fr_t *a, const fr_t *b,
                       const fr_t *c, const fr_t *inputs, size_t n_in, const fr_t *aux, size_t n_aux,
                       const r1cs_density *dn)
{
    cuzk_error err = {0};
    fr_t r, s;
    fr_random(&r, &rng);
    fr_random(&s, &rng);
    size_t bytes = 3 * m * sizeof(fr_t);
    fr_t *scratch = malloc(bytes), *orig = malloc(bytes);
    CHECK(scratch && orig);
    if (!scratch || !orig) exit(1);
    memcpy(orig, a, m * sizeof(fr_t));
    memcpy(orig + m, b, m * sizeof(fr_t));
    memcpy(orig + 2 * m, c, m * sizeof(fr_t));
    memcpy(scratch, orig, bytes);

    groth16_pending pc, pg;
    groth16_proof proof_c, proof_g;
    uint8_t bytes_c[GROTH16_PROOF_BYTES], bytes_g[GROTH16_PROOF_BYTES];
    cuzk_status st = groth16_prove_start_abc(pool, params, n, scratch, scratch + m, scratch + 2 * m, inputs, n_in, aux,
                                             n_aux, dn, &pc, NULL, &err);
    if (st == CUZK_OK) st = groth16_prove_finish(pool, &pc, &r, &s, &proof_c, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "%s: CPU prover: %s", what, err.msg);
    if (st != CUZK_OK) goto out;
    groth16_proof_write(bytes_c, &proof_c);

    gpu_params *gp = NULL;
    st = gpu_params_upload(0, params, &gp, &err);
    CHECK_MSG(st == CUZK_OK, "%s: upload: %s", what, err.msg);
    if (st != CUZK_OK) goto out;
    /* The three split modes with the H MSM overlapping the queries (the default), then auto without overlap. */
    static const char *const MODE[4] = {"auto", "split", "no split", "auto, no overlap"};
    for (int mode = 0; mode < 4; mode++) {
        gpu_prover_set_split(pv, mode == 3 ? GPU_SPLIT_AUTO : (gpu_prove_split)mode);
        gpu_prover_set_overlap(pv, mode != 3);
        gpu_prove_timings gt;
        memcpy(scratch, orig, bytes);
        /* Mode 1 reuses a, b, c's memory as soon as the prover lets go of them. */
        abc_hook hk = {0, mode == 1, scratch, bytes};
        gpu_prover_on_abc_done(pv, on_abc_done, &hk);
        st = gpu_prove_start_abc(pv, gp, pool, params, n, scratch, scratch + m, scratch + 2 * m, inputs, n_in, aux,
                                 n_aux, dn, &pg, NULL, &gt, &err);
        CHECK_MSG(st == CUZK_OK, "%s (%s): GPU prover: %s", what, MODE[mode], err.msg);
        if (st != CUZK_OK) continue;
        CHECK_MSG(hk.calls == 1, "%s (%s): the abc-done hook ran %d times", what, MODE[mode], hk.calls);
        CHECK_MSG(hk.scribble || memcmp(scratch, orig, bytes) == 0, "%s (%s): the GPU prover wrote to a, b or c", what,
                  MODE[mode]);
        char which[64];
        CHECK_MSG(pending_same(&pc, &pg, which, sizeof which), "%s (%s): GPU differs from CPU in %s", what, MODE[mode],
                  which);
        st = groth16_prove_finish(pool, &pg, &r, &s, &proof_g, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "%s (%s): finish: %s", what, MODE[mode], err.msg);
        if (st != CUZK_OK) continue;
        groth16_proof_write(bytes_g, &proof_g);
        CHECK_MSG(memcmp(bytes_c, bytes_g, GROTH16_PROOF_BYTES) == 0, "%s (%s): proof bytes differ", what, MODE[mode]);
        if (mode == 0)
            printf("  %-34s n=%-7zu L %s ones %zu tail %zu | A %s ones %zu tail %zu | B %s ones %zu tail %zu\n", what,
                   n, gt.split[0] ? "split" : "full", gt.ones[0], gt.tail[0], gt.split[1] ? "split" : "full",
                   gt.ones[1], gt.tail[1], gt.split[2] ? "split" : "full", gt.ones[2], gt.tail[2]);
    }
    gpu_prover_set_split(pv, GPU_SPLIT_AUTO);
    gpu_prover_set_overlap(pv, 1);
    gpu_params_free(gp);
    gp = NULL;

    /* Every G1 base section streamed from the host in pieces of 192 points (a device too small for them). */
    gpu_tune saved = gpu_tune_get(), t = saved;
    t.bases_stream = 1;
    t.stream_chunk = 192;
    gpu_tune_set(&t);
    st = gpu_params_upload(0, params, &gp, &err);
    CHECK_MSG(st == CUZK_OK, "%s (streamed): upload: %s", what, err.msg);
    if (st == CUZK_OK) {
        CHECK_MSG(gpu_params_bytes(gp) == params->b_g2_len * sizeof(g2_affine_t),
                  "%s (streamed): %zu bytes on the device, only B_G2's expected", what, gpu_params_bytes(gp));
        memcpy(scratch, orig, bytes);
        st = gpu_prove_start_abc(pv, gp, pool, params, n, scratch, scratch + m, scratch + 2 * m, inputs, n_in, aux,
                                 n_aux, dn, &pg, NULL, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "%s (streamed): GPU prover: %s", what, err.msg);
        if (st == CUZK_OK) st = groth16_prove_finish(pool, &pg, &r, &s, &proof_g, NULL, &err);
        if (st == CUZK_OK) {
            groth16_proof_write(bytes_g, &proof_g);
            CHECK_MSG(memcmp(bytes_c, bytes_g, GROTH16_PROOF_BYTES) == 0, "%s (streamed): proof bytes differ", what);
        }
    }
    gpu_tune_set(&saved);
    gpu_params_free(gp);
    gp = NULL;

    /* Resident bases, two MSMs over more than 4096 points failing as if out of device memory: done in halves. */
    if (params->h_len > 4096 && gpu_params_upload(0, params, &gp, &err) == CUZK_OK) {
        gpu_debug_fail_msm_pieces(2);
        memcpy(scratch, orig, bytes);
        st = gpu_prove_start_abc(pv, gp, pool, params, n, scratch, scratch + m, scratch + 2 * m, inputs, n_in, aux,
                                 n_aux, dn, &pg, NULL, NULL, &err);
        CHECK_MSG(gpu_debug_fail_msm_pieces(0) == 0, "%s (split MSMs): the failures were not injected", what);
        CHECK_MSG(st == CUZK_OK, "%s (split MSMs): GPU prover: %s", what, err.msg);
        if (st == CUZK_OK) st = groth16_prove_finish(pool, &pg, &r, &s, &proof_g, NULL, &err);
        if (st == CUZK_OK) {
            groth16_proof_write(bytes_g, &proof_g);
            CHECK_MSG(memcmp(bytes_c, bytes_g, GROTH16_PROOF_BYTES) == 0, "%s (split MSMs): proof bytes differ", what);
        }
    }
    gpu_params_free(gp);
out:
    free(scratch);
    free(orig);
}

/* A finalized system with matrices and witness: setup, a/b/c, both provers. */
static void prove_r1cs(const char *what, const r1cs *cs)
{
    cuzk_error err = {0};
    groth16_params params;
    r1cs_density dn;
    domain_t d;
    CHECK(domain_for_size(&d, cs->num_constraints, &err) == CUZK_OK);
    cuzk_status st = groth16_setup(pool, cs, &params, &err);
    CHECK_MSG(st == CUZK_OK, "%s: setup: %s", what, err.msg);
    if (st != CUZK_OK) return;
    CHECK(r1cs_compute_density(cs, &dn, &err) == CUZK_OK);
    fr_t *abc = calloc(3 * d.m, sizeof(fr_t));
    CHECK(abc != NULL);
    if (!abc) exit(1);
    st = r1cs_eval_abc(pool, cs, cs->inputs, cs->aux, abc, abc + d.m, abc + 2 * d.m, &err);
    CHECK_MSG(st == CUZK_OK, "%s: eval: %s", what, err.msg);
    if (st == CUZK_OK)
        prove_both(what, &params, cs->num_constraints, d.m, abc, abc + d.m, abc + 2 * d.m, cs->inputs, cs->num_inputs,
                   cs->aux, cs->num_aux, &dn);
    free(abc);
    r1cs_density_free(&dn);
    groth16_params_free(&params);
}

static void test_random_circuits(void)
{
    for (unsigned round = 0; round < 2; round++) {
        for (unsigned shape = 0; shape < RC_NUM_SHAPES; shape++) {
            random_circuit_params rp;
            random_circuit_shape(&rng, shape, 1500, &rp);
            r1cs cs;
            cuzk_error err = {0};
            cuzk_status st = random_circuit_build(&rng, &rp, &cs, &err);
            CHECK_MSG(st == CUZK_OK, "random circuit shape %u: %s", shape, err.msg);
            if (st != CUZK_OK) continue;
            char what[64];
            snprintf(what, sizeof what, "random shape %u (flags %u)", shape, rp.flags);
            prove_r1cs(what, &cs);
            r1cs_free(&cs);
        }
    }
}

static void test_synthetic(void)
{
    static const unsigned K[] = {8, 12, 16};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        r1cs cs;
        cuzk_error err = {0};
        cuzk_status st = synthetic_build(pool, K[i], 1000 + K[i], R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "synthetic 2^%u: %s", K[i], err.msg);
        if (st != CUZK_OK) continue;
        char what[64];
        snprintf(what, sizeof what, "synthetic 2^%u", K[i]);
        prove_r1cs(what, &cs);
        r1cs_free(&cs);
    }
}

/* The snarkjs fixture: the zkey as full-density params with H in snarkjs' form (as zkey_prove builds them). */
static void test_zkey(void)
{
    char dir[1024], path[1100];
    const char *data = getenv("CUZK_TEST_DATA"), *src = __FILE__, *slash = strrchr(src, '/');
    if (data)
        snprintf(dir, sizeof dir, "%s/../snarkjs/fixtures", data);
    else
        snprintf(dir, sizeof dir, "%.*s/../snarkjs/fixtures", slash ? (int)(slash - src) : 1, slash ? src : ".");
    cuzk_error err = {0};
    zkey z;
    wtns w;
    snprintf(path, sizeof path, "%s/circuit.zkey", dir);
    cuzk_status st = zkey_read(pool, &z, path, 0, &err);
    CHECK_MSG(st == CUZK_OK, "zkey: %s", err.msg);
    if (st != CUZK_OK) return;
    snprintf(path, sizeof path, "%s/witness.wtns", dir);
    st = wtns_read(&w, path, &err);
    CHECK_MSG(st == CUZK_OK, "wtns: %s", err.msg);
    if (st != CUZK_OK) {
        zkey_free(&z);
        return;
    }
    size_t m = z.domain_size, n_in = (size_t)z.n_public + 1, n_aux = (size_t)z.n_vars - n_in;
    fr_t *abc = calloc(3 * m, sizeof(fr_t));
    uint64_t *din = calloc(n_in / 64 + 1, 8), *daux = calloc(n_aux / 64 + 1, 8);
    CHECK(abc && din && daux && w.n == z.n_vars);
    if (!abc || !din || !daux || w.n != z.n_vars) exit(1);
    for (size_t i = 0; i < n_in; i++) din[i / 64] |= 1ull << (i % 64);
    for (size_t i = 0; i < n_aux; i++) daux[i / 64] |= 1ull << (i % 64);
    for (size_t i = 0; i < z.n_coefs; i++) {
        const zkey_coef *k = &z.coefs[i];
        fr_t t, *dst = (k->matrix ? abc + m : abc) + k->constraint;
        fr_mul(&t, &k->value, &w.values[k->signal]);
        fr_add(dst, dst, &t);
    }
    groth16_params params;
    memset(&params, 0, sizeof params);
    params.vk.alpha_g1 = z.alpha_g1;
    params.vk.beta_g1 = z.beta_g1;
    params.vk.beta_g2 = z.beta_g2;
    params.vk.gamma_g2 = z.gamma_g2;
    params.vk.delta_g1 = z.delta_g1;
    params.vk.delta_g2 = z.delta_g2;
    params.vk.ic_len = n_in;
    params.vk.ic = z.ic;
    params.h_form = H_FORM_SNARKJS;
    params.h_len = m;
    params.h = z.h;
    params.l_len = n_aux;
    params.l = z.c;
    params.a_len = params.b_g1_len = params.b_g2_len = z.n_vars;
    params.a = z.a;
    params.b_g1 = z.b_g1;
    params.b_g2 = z.b_g2;
    r1cs_density dn = {.a_aux = daux,
                       .b_input = din,
                       .b_aux = daux,
                       .a_aux_count = n_aux,
                       .b_input_count = n_in,
                       .b_aux_count = n_aux};
    prove_both("snarkjs fixture zkey", &params, m, m, abc, abc + m, abc + 2 * m, w.values, n_in, w.values + n_in, n_aux,
               &dn);
    free(abc);
    free(din);
    free(daux);
    wtns_free(&w);
    zkey_free(&z);
}

/* ---- the engine with the GPU backend ---- */

typedef struct synth_ctx {
    unsigned k;
    uint64_t seed;
} synth_ctx;

static cuzk_status synth_synthetic(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const synth_ctx *sc = ctx;
    return synthetic_build(NULL, sc->k, sc->seed, R1CS_WITNESS, wit, err);
}

static void test_engine(void)
{
    cuzk_error err = {0};
    synth_ctx sc = {11, 77};
    r1cs shape;
    groth16_params params;
    engine_circuit circuit;
    engine_backend *be = NULL;
    engine *e = NULL;
    memset(&params, 0, sizeof params);
    memset(&circuit, 0, sizeof circuit);
    cuzk_status st = synthetic_build(pool, sc.k, sc.seed, R1CS_MATRICES, &shape, &err);
    if (st == CUZK_OK) st = groth16_setup(pool, &shape, &params, &err);
    if (st == CUZK_OK) st = engine_circuit_init(&circuit, "synthetic", &params, &shape, synth_synthetic, &sc, &err);
    if (st == CUZK_OK) st = engine_backend_gpu_create(pool, pool, &be, &err);
    engine_config cfg = {.backend = be, .gpu_workers = 2, .partition_workers = 2};
    if (st == CUZK_OK) st = engine_create(&e, &cfg, &err);
    CHECK_MSG(st == CUZK_OK, "engine fixture: %s", err.msg);
    if (st == CUZK_OK) {
        uint64_t ids[3];
        int submitted[3] = {0};
        for (int j = 0; j < 3; j++) {
            engine_request rq = {.circuit = &circuit, .partitions = 3, .priority = ENGINE_PRIO_NORMAL};
            submitted[j] = engine_submit(e, &rq, &ids[j], &err) == CUZK_OK;
            CHECK_MSG(submitted[j], "submit: %s", err.msg);
        }
        for (int j = 0; j < 3; j++) {
            if (!submitted[j]) continue;
            engine_result res;
            st = engine_wait(e, ids[j], &res, &err);
            CHECK_MSG(st == CUZK_OK, "job %d: %s", j, err.msg);
            if (st == CUZK_OK) {
                CHECK_MSG(res.verified, "job %d: a GPU proof failed self-verification", j);
                engine_result_free(&res);
            }
        }
        CHECK(engine_backend_gpu_resident_bytes(be) > 0);
    }
    engine_destroy(e);
    be->params_evict(be, &params);
    CHECK(engine_backend_gpu_resident_bytes(be) == 0);
    engine_backend_destroy(be);
    engine_circuit_free(&circuit);
    groth16_params_free(&params);
    r1cs_free(&shape);
}

/* ---- errors are statuses ---- */

static void test_errors(void)
{
    cuzk_error err = {0};
    gpu_prover *bad = NULL;
    CHECK(gpu_prover_create(gpu_device_count(), &bad, &err) == CUZK_ERR_INVALID_ARG && bad == NULL);

    /* A base section far larger than any device stays on the host (streamed when proving): nothing of it is
     * uploaded, and its host array is not read. */
    groth16_params huge;
    memset(&huge, 0, sizeof huge);
    g1_affine_t one_point;
    g1_affine_set_inf(&one_point);
    huge.h = huge.l = huge.a = huge.b_g1 = &one_point;
    huge.h_len = (size_t)1 << 33; /* 768 GiB */
    gpu_params *gp = NULL;
    cuzk_status st = gpu_params_upload(0, &huge, &gp, &err);
    CHECK_MSG(st == CUZK_OK && gp != NULL && gpu_params_bytes(gp) == 0, "oversized section: %s (%zu bytes): %s",
              cuzk_status_name(st), gpu_params_bytes(gp), err.msg);
    gpu_params_free(gp);
    gp = NULL;

    /* Bases of other params. */
    r1cs cs;
    st = synthetic_build(pool, 6, 5, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
    CHECK(st == CUZK_OK);
    if (st != CUZK_OK) return;
    groth16_params p1, p2;
    r1cs_density dn;
    CHECK(groth16_setup(pool, &cs, &p1, &err) == CUZK_OK && groth16_setup(pool, &cs, &p2, &err) == CUZK_OK);
    CHECK(r1cs_compute_density(&cs, &dn, &err) == CUZK_OK);
    CHECK(gpu_params_upload(0, &p1, &gp, &err) == CUZK_OK);
    fr_t *abc = calloc(3 * 64, sizeof(fr_t));
    CHECK(abc != NULL);
    if (abc && gp) {
        groth16_pending pd;
        CHECK(r1cs_eval_abc(pool, &cs, cs.inputs, cs.aux, abc, abc + 64, abc + 128, &err) == CUZK_OK);
        st = gpu_prove_start_abc(pv, gp, pool, &p2, cs.num_constraints, abc, abc + 64, abc + 128, cs.inputs,
                                 cs.num_inputs, cs.aux, cs.num_aux, &dn, &pd, NULL, NULL, &err);
        CHECK_MSG(st == CUZK_ERR_INVALID_ARG, "params mismatch gave %s", cuzk_status_name(st));
        /* A wrong witness length is caught like the CPU prover catches it. */
        st = gpu_prove_start_abc(pv, gp, pool, &p1, cs.num_constraints, abc, abc + 64, abc + 128, cs.inputs,
                                 cs.num_inputs, cs.aux, cs.num_aux - 1, &dn, &pd, NULL, NULL, &err);
        CHECK_MSG(st == CUZK_ERR_INVALID_ARG, "short aux gave %s", cuzk_status_name(st));
        st = gpu_prove_start_abc(pv, gp, pool, &p1, cs.num_constraints, abc, abc + 64, abc + 128, cs.inputs,
                                 cs.num_inputs, cs.aux, cs.num_aux, &dn, &pd, NULL, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "the same call with the right params: %s", err.msg);
    }
    free(abc);
    gpu_params_free(gp);
    r1cs_density_free(&dn);
    groth16_params_free(&p1);
    groth16_params_free(&p2);
    r1cs_free(&cs);
}

int main(void)
{
    if (gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device visible\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_prove");
    cuzk_error err = {0};
    if (pool_create(&pool, 0, &err) != CUZK_OK || gpu_prover_create(0, &pv, &err) != CUZK_OK) {
        fprintf(stderr, "fixture: %s\n", err.msg);
        return 1;
    }
    test_errors();
    test_random_circuits();
    test_synthetic();
    test_zkey();
    test_engine();
    gpu_prover_destroy(pv);
    pool_destroy(pool);
    return test_finish("test_gpu_prove");
}

#else

int main(void)
{
    printf("SKIP: cuzk was built without CUDA\n");
    return 77;
}

#endif
