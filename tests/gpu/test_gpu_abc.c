/* a, b, c on the GPU from a compiled r1cs (src/gpu/gpu_abc.h) against r1cs_eval_abc, byte for byte, in every kernel
 * variant: random circuits of every shape, the synthetic PoRep-shaped circuit, a compiled system with empty rows,
 * long rows (the warp kernel), more than 65536 coefficients (u32 indices) and a constraint count off powers of
 * two, and an all-zero witness. Then gpu_prove_start_shape against gpu_prove_start_abc (the same pending, the same
 * proof bytes for the same r, s), and bad arguments as CUZK_ERR_INVALID_ARG. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef CUZK_HAVE_GPU
#include "circuits/random_circuit.h"
#include "circuits/synthetic.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_prove.h"
#include "gpu/tune.h"

static rng_t rng;
static pool_t *pool;
static gpu_ctx *ctx;
static gpu_prover *pv;

/* The a, b, c kernel variant later calls use ("": the default). */
static void abc_variant_set(const char *name)
{
    gpu_tune t = gpu_tune_get();
    snprintf(t.abc_variant, sizeof t.abc_variant, "%s", name);
    gpu_tune_set(&t);
}

/* Every kernel variant's a, b, c for (inputs, aux) equal r1cs_eval_abc's. */
static void eval_both(const char *what, const r1cs *cs, const gpu_shape *s, const fr_t *inputs, const fr_t *aux)
{
    cuzk_error err = {0};
    size_t n = cs->num_constraints;
    fr_t *ref = calloc(3 * n + 3, sizeof(fr_t)), *got = calloc(3 * n + 3, sizeof(fr_t));
    CHECK(ref && got);
    if (!ref || !got) exit(1);
    cuzk_status st = r1cs_eval_abc(pool, cs, inputs, aux, ref, ref + n, ref + 2 * n, &err);
    CHECK_MSG(st == CUZK_OK, "%s: r1cs_eval_abc: %s", what, err.msg);
    for (int v = 0; v < gpu_abc_variant_count() && st == CUZK_OK; v++) {
        abc_variant_set(gpu_abc_variant_name(v));
        memset(got, 0x5A, 3 * n * sizeof(fr_t));
        gpu_abc_timings t;
        cuzk_status gs =
            gpu_shape_eval(ctx, s, inputs, cs->num_inputs, aux, cs->num_aux, got, got + n, got + 2 * n, &t, &err);
        CHECK_MSG(gs == CUZK_OK, "%s (%s): gpu_shape_eval: %s", what, gpu_abc_variant_name(v), err.msg);
        if (gs != CUZK_OK) continue;
        for (int m = 0; m < 3; m++) {
            size_t bad = n;
            for (size_t i = 0; i < n && bad == n; i++)
                if (memcmp(&ref[m * n + i], &got[m * n + i], sizeof(fr_t)) != 0) bad = i;
            CHECK_MSG(bad == n, "%s (%s): %c differs first at row %zu of %zu", what, gpu_abc_variant_name(v), "abc"[m],
                      bad, n);
        }
    }
    abc_variant_set("");
    free(ref);
    free(got);
}

/* Uploads cs's shape and compares with its own witness (and, with zeros, with an all-zero witness). */
static void eval_r1cs(const char *what, const r1cs *cs, int zeros)
{
    cuzk_error err = {0};
    gpu_shape *s = NULL;
    cuzk_status st = gpu_shape_upload(0, cs, &s, &err);
    CHECK_MSG(st == CUZK_OK, "%s: gpu_shape_upload: %s", what, err.msg);
    if (st != CUZK_OK) return;
    CHECK(gpu_shape_device(s) == 0 && gpu_shape_bytes(s) > 0 && gpu_shape_num_constraints(s) == cs->num_constraints);
    eval_both(what, cs, s, cs->inputs, cs->aux);
    if (zeros) {
        fr_t *z = calloc(cs->num_inputs + cs->num_aux + 1, sizeof(fr_t));
        CHECK(z != NULL);
        if (!z) exit(1);
        char w2[96];
        snprintf(w2, sizeof w2, "%s, zero witness", what);
        eval_both(w2, cs, s, z, z + cs->num_inputs);
        free(z);
    }
    gpu_shape_free(s);
}

static void test_random_circuits(void)
{
    for (unsigned round = 0; round < 3; round++) {
        for (unsigned shape = 0; shape < RC_NUM_SHAPES; shape++) {
            random_circuit_params rp;
            random_circuit_shape(&rng, shape, round == 2 ? 20000 : 1500, &rp);
            r1cs cs;
            cuzk_error err = {0};
            cuzk_status st = random_circuit_build(&rng, &rp, &cs, &err);
            CHECK_MSG(st == CUZK_OK, "random circuit shape %u: %s", shape, err.msg);
            if (st != CUZK_OK) continue;
            char what[64];
            snprintf(what, sizeof what, "random shape %u (flags %u, n %zu)", shape, rp.flags, cs.num_constraints);
            eval_r1cs(what, &cs, shape == 0);
            r1cs_free(&cs);
        }
    }
}

static void test_synthetic(void)
{
    static const unsigned K[] = {4, 10, 17};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        r1cs cs;
        cuzk_error err = {0};
        cuzk_status st = synthetic_build(pool, K[i], rng_next(&rng), R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "synthetic 2^%u: %s", K[i], err.msg);
        if (st != CUZK_OK) continue;
        char what[64];
        snprintf(what, sizeof what, "synthetic 2^%u", K[i]);
        eval_r1cs(what, &cs, K[i] == 10);
        r1cs_free(&cs);
    }
}

/* A random witness value: mostly 0 and 1, as in PoRep, else full width. */
static void witness_value(fr_t *v)
{
    uint64_t r = rng_next(&rng) % 8;
    if (r < 3)
        fr_set_zero(v);
    else if (r < 6)
        fr_set_one(v);
    else
        fr_random(v, &rng);
}

/* A compiled system written directly: row lengths from empty to thousands of terms (rows above the warp
 * kernel's threshold in every matrix, one warp-sized multiple and odd lengths around it), one fresh coefficient
 * per non-empty row of B and C so that the table outgrows u16 indices, coefficient index 0 (the value 1) on a third of the terms,
 * repeated columns, and a constraint count off powers of two. */
static void test_compiled_edges(void)
{
    const size_t ni = 4, na = 3000, rows = 70001;
    static const size_t LONG[] = {31, 32, 33, 64, 65, 100, 257, 1000, 4099};
    cuzk_error err = {0};
    uint32_t *len[3];
    size_t nnz[3] = {0, 0, 0};
    for (int m = 0; m < 3; m++) {
        len[m] = malloc(rows * sizeof(uint32_t));
        CHECK(len[m] != NULL);
        if (!len[m]) exit(1);
        for (size_t i = 0; i < rows; i++) {
            uint64_t r = rng_next(&rng);
            len[m][i] = (uint32_t)(r % 97 == 0 ? LONG[(r >> 8) % (sizeof LONG / sizeof LONG[0])] : (r >> 16) % 5);
            if (i % 1000 == 7) len[m][i] = 0;
            if (m == 2 && len[m][i] == 0 && i % 2) len[m][i] = 1;
            nnz[m] += len[m][i];
        }
    }
    r1cs cs;
    cuzk_status st = r1cs_create_compiled(&cs, ni, na, rows, nnz, R1CS_MATRICES | R1CS_WITNESS, &err);
    CHECK_MSG(st == CUZK_OK, "compiled: create: %s", err.msg);
    if (st != CUZK_OK) goto out;
    for (size_t j = 1; j < ni; j++) witness_value(&cs.inputs[j]);
    for (size_t j = 0; j < na; j++) witness_value(&cs.aux[j]);
    fr_t few[8];
    uint32_t few_i[8];
    for (int k = 0; k < 8 && st == CUZK_OK; k++) {
        fr_random(&few[k], &rng);
        st = r1cs_coeff_intern(&cs, &few[k], &few_i[k], &err);
    }
    r1cs_matrix *mx[3] = {&cs.A, &cs.B, &cs.C};
    for (int m = 0; m < 3 && st == CUZK_OK; m++) {
        uint64_t k = 0;
        for (size_t i = 0; i < rows && st == CUZK_OK; i++) {
            uint32_t fresh = 0;
            if (m > 0 && len[m][i]) {
                fr_t c;
                fr_random(&c, &rng);
                st = r1cs_coeff_intern(&cs, &c, &fresh, &err);
            }
            for (uint32_t t = 0; t < len[m][i]; t++, k++) {
                uint64_t r = rng_next(&rng);
                mx[m]->col[k] = (uint32_t)(r % (ni + na));
                mx[m]->coeff[k] = t == 0 && fresh ? fresh : (r >> 32) % 3 == 0 ? 0 : few_i[(r >> 40) % 8];
            }
            mx[m]->row_start[i + 1] = k;
        }
    }
    if (st == CUZK_OK) st = r1cs_finalize(&cs, &err);
    CHECK_MSG(st == CUZK_OK, "compiled: build: %s", err.msg);
    if (st == CUZK_OK) {
        CHECK_MSG(cs.num_coeffs > 65536, "compiled: only %zu coefficients", cs.num_coeffs);
        eval_r1cs("compiled edges", &cs, 1);
    }
    r1cs_free(&cs);
out:
    for (int m = 0; m < 3; m++) free(len[m]);
}

static int pending_same(const groth16_pending *x, const groth16_pending *y)
{
    return g1_jac_eq(&x->h, &y->h) && g1_jac_eq(&x->l, &y->l) && g1_jac_eq(&x->a, &y->a) &&
           g1_jac_eq(&x->b_g1, &y->b_g1) && x->b_g2_done == y->b_g2_done &&
           (!x->b_g2_done || g2_jac_eq(&x->b_g2, &y->b_g2));
}

/* gpu_prove_start_shape against gpu_prove_start_abc on a, b, c from r1cs_eval_abc. */
static void prove_r1cs(const char *what, const r1cs *cs)
{
    cuzk_error err = {0};
    groth16_params params;
    r1cs_density dn;
    gpu_params *gp = NULL;
    gpu_shape *s = NULL;
    fr_t r, sb;
    fr_random(&r, &rng);
    fr_random(&sb, &rng);
    size_t n = cs->num_constraints;
    cuzk_status st = groth16_setup(pool, cs, &params, &err);
    CHECK_MSG(st == CUZK_OK, "%s: setup: %s", what, err.msg);
    if (st != CUZK_OK) return;
    CHECK(r1cs_compute_density(cs, &dn, &err) == CUZK_OK);
    fr_t *abc = calloc(3 * n + 3, sizeof(fr_t));
    CHECK(abc != NULL);
    if (!abc) exit(1);
    st = r1cs_eval_abc(pool, cs, cs->inputs, cs->aux, abc, abc + n, abc + 2 * n, &err);
    if (st == CUZK_OK) st = gpu_params_upload(0, &params, &gp, &err);
    if (st == CUZK_OK) st = gpu_shape_upload(0, cs, &s, &err);
    CHECK_MSG(st == CUZK_OK, "%s: fixture: %s", what, err.msg);
    groth16_pending p1, p2;
    groth16_proof pr1, pr2;
    uint8_t b1[GROTH16_PROOF_BYTES], b2[GROTH16_PROOF_BYTES];
    if (st == CUZK_OK) {
        st = gpu_prove_start_abc(pv, gp, pool, &params, n, abc, abc + n, abc + 2 * n, cs->inputs, cs->num_inputs,
                                 cs->aux, cs->num_aux, &dn, &p1, NULL, NULL, &err);
        if (st == CUZK_OK) st = groth16_prove_finish(pool, &p1, &r, &sb, &pr1, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "%s: gpu_prove_start_abc: %s", what, err.msg);
    }
    for (int v = 0; v < gpu_abc_variant_count() && st == CUZK_OK; v++) {
        abc_variant_set(gpu_abc_variant_name(v));
        gpu_prove_timings gt;
        cuzk_status ss = gpu_prove_start_shape(pv, gp, s, pool, &params, cs->inputs, cs->num_inputs, cs->aux,
                                               cs->num_aux, &dn, &p2, NULL, &gt, &err);
        CHECK_MSG(ss == CUZK_OK, "%s (%s): gpu_prove_start_shape: %s", what, gpu_abc_variant_name(v), err.msg);
        if (ss != CUZK_OK) continue;
        CHECK_MSG(pending_same(&p1, &p2), "%s (%s): pending differs", what, gpu_abc_variant_name(v));
        ss = groth16_prove_finish(pool, &p2, &r, &sb, &pr2, NULL, &err);
        CHECK_MSG(ss == CUZK_OK, "%s: finish: %s", what, err.msg);
        if (ss != CUZK_OK) continue;
        groth16_proof_write(b1, &pr1);
        groth16_proof_write(b2, &pr2);
        CHECK_MSG(memcmp(b1, b2, sizeof b1) == 0, "%s (%s): proof bytes differ", what, gpu_abc_variant_name(v));
    }
    abc_variant_set("");
    /* The H step fails once after a, b, c were evaluated (as when another prover holds the device's memory):
     * its retry evaluates them again, from a fresh upload of the witness, and gives the same proof. */
    if (st == CUZK_OK && n >= 64) { /* domains below 2^3 take the CPU's H, no H step */
        gpu_debug_fail_h_steps(1);
        cuzk_status ss = gpu_prove_start_shape(pv, gp, s, pool, &params, cs->inputs, cs->num_inputs, cs->aux,
                                               cs->num_aux, &dn, &p2, NULL, NULL, &err);
        CHECK_MSG(gpu_debug_fail_h_steps(0) == 0, "%s: the H step's failure was not injected", what);
        CHECK_MSG(ss == CUZK_OK, "%s: gpu_prove_start_shape after a failed H step: %s", what, err.msg);
        if (ss == CUZK_OK) ss = groth16_prove_finish(pool, &p2, &r, &sb, &pr2, NULL, &err);
        if (ss == CUZK_OK) {
            groth16_proof_write(b1, &pr1);
            groth16_proof_write(b2, &pr2);
            CHECK_MSG(memcmp(b1, b2, sizeof b1) == 0, "%s: proof bytes differ after the H step's retry", what);
        }
    }
    gpu_shape_free(s);
    gpu_params_free(gp);
    free(abc);
    r1cs_density_free(&dn);
    groth16_params_free(&params);
}

static void test_prove(void)
{
    for (unsigned shape = 0; shape < RC_NUM_SHAPES; shape++) {
        random_circuit_params rp;
        random_circuit_shape(&rng, shape, 600, &rp);
        r1cs cs;
        cuzk_error err = {0};
        cuzk_status st = random_circuit_build(&rng, &rp, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "random circuit shape %u: %s", shape, err.msg);
        if (st != CUZK_OK) continue;
        char what[64];
        snprintf(what, sizeof what, "prove: random shape %u (n %zu)", shape, cs.num_constraints);
        prove_r1cs(what, &cs);
        r1cs_free(&cs);
    }
    static const unsigned K[] = {2, 12};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        r1cs cs;
        cuzk_error err = {0};
        cuzk_status st = synthetic_build(pool, K[i], rng_next(&rng), R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "synthetic 2^%u: %s", K[i], err.msg);
        if (st != CUZK_OK) continue;
        char what[64];
        snprintf(what, sizeof what, "prove: synthetic 2^%u", K[i]);
        prove_r1cs(what, &cs);
        r1cs_free(&cs);
    }
}

static void test_errors(void)
{
    cuzk_error err = {0};
    gpu_shape *s = (gpu_shape *)&err;
    r1cs cs;
    /* Not finalized. */
    CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
    CHECK(gpu_shape_upload(0, &cs, &s, &err) == CUZK_ERR_INVALID_ARG && s == NULL);
    r1cs_free(&cs);
    /* Witness only: no matrices. */
    CHECK(synthetic_build(pool, 6, 1, R1CS_WITNESS, &cs, &err) == CUZK_OK);
    s = (gpu_shape *)&err;
    CHECK_MSG(gpu_shape_upload(0, &cs, &s, &err) == CUZK_ERR_INVALID_ARG && s == NULL, "witness-only: %s", err.msg);
    r1cs_free(&cs);
    CHECK(gpu_shape_upload(0, NULL, &s, &err) == CUZK_ERR_INVALID_ARG);
    /* A witness of the wrong size, and a context on another device than the shape. */
    CHECK(synthetic_build(pool, 6, 1, R1CS_MATRICES | R1CS_WITNESS, &cs, &err) == CUZK_OK);
    if (gpu_shape_upload(0, &cs, &s, &err) == CUZK_OK) {
        size_t n = cs.num_constraints;
        fr_t *out = calloc(3 * n, sizeof(fr_t));
        CHECK(out != NULL);
        if (!out) exit(1);
        CHECK(gpu_shape_eval(ctx, s, cs.inputs, cs.num_inputs, cs.aux, cs.num_aux - 1, out, out + n, out + 2 * n, NULL,
                             &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_shape_eval(NULL, s, cs.inputs, cs.num_inputs, cs.aux, cs.num_aux, out, out + n, out + 2 * n, NULL,
                             &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_shape_eval(ctx, s, cs.inputs, cs.num_inputs, cs.aux, cs.num_aux, NULL, out + n, out + 2 * n, NULL,
                             &err) == CUZK_ERR_INVALID_ARG);
        abc_variant_set("no-such-variant");
        CHECK(gpu_shape_eval(ctx, s, cs.inputs, cs.num_inputs, cs.aux, cs.num_aux, out, out + n, out + 2 * n, NULL,
                             &err) == CUZK_ERR_INVALID_ARG);
        abc_variant_set("");
        /* The prover: a shape whose witness sizes do not match the params'. */
        groth16_pending p;
        r1cs_density dn;
        CHECK(r1cs_compute_density(&cs, &dn, &err) == CUZK_OK);
        CHECK(gpu_prove_start_shape(pv, NULL, s, pool, NULL, cs.inputs, cs.num_inputs, cs.aux, cs.num_aux, &dn, &p,
                                    NULL, NULL, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_prove_start_shape(pv, NULL, NULL, pool, NULL, cs.inputs, cs.num_inputs, cs.aux, cs.num_aux, &dn, &p,
                                    NULL, NULL, &err) == CUZK_ERR_INVALID_ARG);
        r1cs_density_free(&dn);
        free(out);
        gpu_shape_free(s);
    } else {
        CHECK_MSG(0, "upload: %s", err.msg);
    }
    r1cs_free(&cs);
    gpu_shape_free(NULL);
    CHECK(gpu_shape_bytes(NULL) == 0 && gpu_shape_device(NULL) == -1);
}

int main(void)
{
    if (gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device visible\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_abc");
    cuzk_error err = {0};
    if (pool_create(&pool, 0, &err) != CUZK_OK || gpu_ctx_create(&ctx, 0, &err) != CUZK_OK ||
        gpu_prover_create(0, &pv, &err) != CUZK_OK) {
        fprintf(stderr, "fixture: %s\n", err.msg);
        return 1;
    }
    test_errors();
    test_random_circuits();
    test_synthetic();
    test_compiled_edges();
    test_prove();
    gpu_prover_destroy(pv);
    gpu_ctx_destroy(ctx);
    pool_destroy(pool);
    return test_finish("test_gpu_abc");
}

#else

int main(void)
{
    printf("SKIP: cuzk was built without CUDA\n");
    return 77;
}

#endif
