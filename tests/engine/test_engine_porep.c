/* PoRep C2 through the engine (engine/porep.h) and the porep circuit specs.
 *
 * Always: specs parse, format and build the shape; the engine circuit refuses parameters of another shape and C1s
 * of another sector size or API version; the engine's synthesis of a C1 partition (the committed 2 KiB fixture
 * and a freshly sealed one) satisfies the compiled shape and exposes engine_porep_public_inputs as its inputs.
 *
 * With CUZK_SLOW_TESTS=1 (a 2 KiB setup is minutes of CPU time): setup in-process, every partition proved through
 * the engine on the CPU backend and verified; a tampered proof and a changed public input fail. The same path runs
 * end to end in tests/tools/porep_cli.sh and scripts/demo.sh. */
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/seal.h"
#include "circuits/spec.h"
#include "engine/porep.h"
#include "testutil.h"
#include "formats/porep_c1.h"

static cuzk_error err;

static void test_specs(void)
{
    circuit_spec s;
    char buf[128];
    CHECK(circuit_spec_parse("porep:2KiB", &s, &err) == CUZK_OK && s.kind == CIRCUIT_POREP &&
          strcmp(s.porep->name, "StackedDrg2KiBV1_1") == 0);
    circuit_spec_format(&s, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "porep:2KiB,api=1.1,kind=interactive") == 0, "%s", buf);
    CHECK(circuit_spec_parse("porep:32GiB,api=1.2", &s, &err) == CUZK_OK &&
          strcmp(s.porep->name, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep") == 0);
    CHECK(circuit_spec_parse("porep:2048,kind=ni,api=1.2", &s, &err) == CUZK_OK &&
          strcmp(s.porep->name, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep") == 0);
    circuit_spec_format(&s, buf, sizeof buf);
    circuit_spec s2;
    CHECK_MSG(circuit_spec_parse(buf, &s2, &err) == CUZK_OK && s2.porep == s.porep, "%s does not round-trip", buf);
    const char *bad[] = {"porep",
                         "porep:",
                         "porep:3KiB",
                         "porep:2KiB,api=1.3",
                         "porep:2KiB,kind=x",
                         "porep:2KiB,k=3",
                         "porep:2KiB,api",
                         "porep:2KiB,api=1.1,kind=ni",
                         "porep:4KiB,api=1.0,x=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.msg[0] = 0;
        CHECK_MSG(circuit_spec_parse(bad[i], &s, &err) == CUZK_ERR_INVALID_ARG && err.msg[0], "accepted '%s'", bad[i]);
    }
    r1cs cs;
    CHECK(circuit_spec_parse("porep:2KiB", &s, &err) == CUZK_OK);
    CHECK(circuit_spec_build(NULL, &s, R1CS_MATRICES | R1CS_WITNESS, &cs, &err) == CUZK_ERR_UNSUPPORTED);
    r1cs_free(&cs);
}

/* Parameters with the lengths the shape needs and a valid verifying key, but no proving bases: enough for
 * everything before a proof. Free with fake_params_free. */
static void fake_params(groth16_params *p, const r1cs *shape)
{
    memset(p, 0, sizeof *p);
    r1cs_density dn;
    domain_t d;
    CHECK(r1cs_compute_density(shape, &dn, &err) == CUZK_OK);
    CHECK(domain_for_size(&d, shape->num_constraints, &err) == CUZK_OK);
    g1_affine_t g1 = G1_GENERATOR;
    g2_affine_t g2 = G2_GENERATOR;
    p->vk.alpha_g1 = p->vk.beta_g1 = p->vk.delta_g1 = g1;
    p->vk.beta_g2 = p->vk.gamma_g2 = p->vk.delta_g2 = g2;
    p->vk.ic_len = shape->num_inputs;
    p->vk.ic = malloc(p->vk.ic_len * sizeof *p->vk.ic);
    CHECK(p->vk.ic != NULL);
    for (size_t i = 0; p->vk.ic && i < p->vk.ic_len; i++) p->vk.ic[i] = g1;
    p->h_len = d.m - 1;
    p->l_len = shape->num_aux;
    p->a_len = shape->num_inputs + dn.a_aux_count;
    p->b_g1_len = p->b_g2_len = dn.b_input_count + dn.b_aux_count;
    r1cs_density_free(&dn);
}

static void fake_params_free(groth16_params *p)
{
    free(p->vk.ic);
}

/* The engine's synthesis of every partition of c1 must satisfy the shape with the C1's public inputs. */
static void check_synthesis(const engine_porep_circuit *pc, const porep_c1 *c1, const char *what)
{
    const engine_circuit *ec = engine_porep_circuit_get(pc);
    engine_request rq;
    cuzk_status st = engine_porep_request(pc, c1, ENGINE_PRIO_HIGH, &rq, &err);
    CHECK_MSG(st == CUZK_OK, "%s: request: %s", what, err.msg);
    CHECK(rq.circuit == ec && rq.payload == c1 && rq.partitions == c1->partitions && rq.priority == ENGINE_PRIO_HIGH);
    for (unsigned k = 0; st == CUZK_OK && k < c1->partitions; k++) {
        r1cs wit;
        st = ec->synthesize(ec->synth_ctx, c1, k, &wit, &err);
        CHECK_MSG(st == CUZK_OK, "%s: partition %u: %s", what, k, err.msg);
        if (st) break;
        CHECK(wit.finalized && wit.has_witness && wit.witness_only);
        CHECK_MSG(r1cs_check_witness(ec->shape, &wit, &err) == CUZK_OK, "%s: %s", what, err.msg);
        size_t bad_row = 0;
        CHECK_MSG(r1cs_is_satisfied(NULL, ec->shape, wit.inputs, wit.aux, &bad_row), "%s: partition %u: row %zu", what,
                  k, bad_row);
        fr_t *pub = NULL;
        size_t n = 0;
        CHECK(engine_porep_public_inputs(c1, k, &pub, &n, &err) == CUZK_OK);
        CHECK(n == 3 + 18 * (size_t)c1->challenges && n + 1 == wit.num_inputs);
        for (size_t i = 0; pub && i < n && i + 1 < wit.num_inputs; i++)
            CHECK_MSG(fr_eq(&pub[i], &wit.inputs[i + 1]), "%s: partition %u: public input %zu", what, k, i);
        free(pub);
        r1cs_free(&wit);
    }
    fr_t *pub = NULL;
    size_t n = 7;
    CHECK(engine_porep_public_inputs(c1, c1->partitions, &pub, &n, &err) == CUZK_ERR_INVALID_ARG && !pub && !n);
    /* A synthesis that fails leaves the witness empty. */
    r1cs wit;
    CHECK(ec->synthesize(ec->synth_ctx, c1, c1->partitions, &wit, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&wit);
}

static void test_circuit(rng_t *rng, pool_t *pool)
{
    circuit_spec s;
    r1cs shape;
    CHECK(circuit_spec_parse("porep:2KiB", &s, &err) == CUZK_OK);
    cuzk_status st = circuit_spec_build(pool, &s, R1CS_MATRICES, &shape, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) return;
    groth16_params params;
    fake_params(&params, &shape);
    const porep_proof_type *t = s.porep;

    /* Parameters of another circuit are refused when the circuit is made, not at the first proof. */
    engine_porep_circuit *pc = NULL;
    params.l_len--;
    CHECK(engine_porep_circuit_create(t, &params, pool, &pc, &err) == CUZK_ERR_INVALID_ARG && !pc);
    params.l_len++;
    params.vk.ic_len--;
    CHECK(engine_porep_circuit_create(t, &params, pool, &pc, &err) == CUZK_ERR_INVALID_ARG && !pc);
    params.vk.ic_len++;

    st = engine_porep_circuit_create(t, &params, pool, &pc, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) {
        const engine_circuit *ec = engine_porep_circuit_get(pc);
        CHECK(ec->params == &params && ec->shape->num_constraints == shape.num_constraints &&
              ec->shape->num_aux == shape.num_aux && ec->m == params.h_len + 1);
        CHECK(engine_porep_circuit_type(pc)->sector_size == 2048);

        const char *dir = getenv("CUZK_TEST_DATA");
        char path[512];
        snprintf(path, sizeof path, "%s/porep/c1-2kib.json", dir ? dir : "tests/data");
        porep_c1 c1;
        st = porep_c1_read_file(&c1, path, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "%s: %s", path, err.msg);
        if (st == CUZK_OK) {
            check_synthesis(pc, &c1, "c1-2kib.json");
            /* The same sector under another API version (another porep_id, so other parents) is refused. */
            const porep_proof_type *saved = c1.type;
            c1.type = porep_proof_type_by_name("StackedDrg2KiBV1");
            engine_request rq;
            CHECK(c1.type && engine_porep_request(pc, &c1, ENGINE_PRIO_NORMAL, &rq, &err) == CUZK_ERR_INVALID_ARG &&
                  strstr(err.msg, "API version") && !rq.circuit);
            c1.type = saved;
            porep_c1_free(&c1);
        }
        uint64_t seed = rng_next(rng);
        st = porep_seal_test_c1(&c1, t, seed, &err);
        CHECK_MSG(st == CUZK_OK, "2 KiB seal %llu: %s", (unsigned long long)seed, err.msg);
        if (st == CUZK_OK) {
            check_synthesis(pc, &c1, "sealed 2 KiB");
            porep_c1_free(&c1);
        }
        /* A C1 of another sector size. */
        static const porep_proof_type t32 = {"StackedDrg32KiBTest", 3, 32768, POREP_API_1_1, POREP_INTERACTIVE};
        st = porep_seal_test_c1(&c1, &t32, seed, &err);
        CHECK_MSG(st == CUZK_OK, "32 KiB seal: %s", err.msg);
        if (st == CUZK_OK) {
            engine_request rq;
            CHECK(engine_porep_request(pc, &c1, ENGINE_PRIO_NORMAL, &rq, &err) == CUZK_ERR_INVALID_ARG &&
                  strstr(err.msg, "sector size"));
            porep_c1_free(&c1);
        }
    }
    engine_porep_circuit_free(pc);
    fake_params_free(&params);
    r1cs_free(&shape);
}

/* Setup, prove through the engine on the CPU backend, verify; tampering fails. */
static void test_prove(rng_t *rng, pool_t *pool)
{
    circuit_spec s;
    r1cs shape;
    groth16_params params;
    memset(&params, 0, sizeof params);
    CHECK(circuit_spec_parse("porep:2KiB", &s, &err) == CUZK_OK);
    cuzk_status st = circuit_spec_build(pool, &s, R1CS_MATRICES, &shape, &err);
    if (st == CUZK_OK) st = groth16_setup(pool, &shape, &params, &err);
    r1cs_free(&shape);
    CHECK_MSG(st == CUZK_OK, "setup: %s", err.msg);
    porep_c1 c1;
    memset(&c1, 0, sizeof c1);
    if (st == CUZK_OK) st = porep_seal_test_c1(&c1, s.porep, rng_next(rng), &err);
    engine_porep_circuit *pc = NULL;
    engine_backend *be = NULL;
    engine *e = NULL;
    if (st == CUZK_OK) st = engine_porep_circuit_create(s.porep, &params, pool, &pc, &err);
    if (st == CUZK_OK) st = engine_backend_cpu_create(pool, NULL, &be, &err);
    engine_config cfg = {.backend = be, .synth_pool = pool};
    if (st == CUZK_OK) st = engine_create(&e, &cfg, &err);
    engine_request rq;
    uint64_t id;
    engine_result res;
    memset(&res, 0, sizeof res);
    if (st == CUZK_OK) st = engine_porep_request(pc, &c1, ENGINE_PRIO_NORMAL, &rq, &err);
    if (st == CUZK_OK) st = engine_submit(e, &rq, &id, &err);
    if (st == CUZK_OK) st = engine_wait(e, id, &res, &err);
    CHECK_MSG(st == CUZK_OK && res.verified && res.partitions == c1.partitions, "prove: %s", err.msg);
    groth16_pvk pvk;
    if (st == CUZK_OK && groth16_pvk_prepare(&pvk, &params.vk, &err) == CUZK_OK) {
        for (unsigned k = 0; k < c1.partitions; k++) {
            fr_t *pub;
            size_t n;
            CHECK(engine_porep_public_inputs(&c1, k, &pub, &n, &err) == CUZK_OK);
            CHECK_MSG(groth16_verify(pool, &pvk, &res.proofs[k], pub, n, &err) == CUZK_OK, "partition %u: %s", k,
                      err.msg);
            fr_t one;
            fr_set_one(&one);
            size_t i = (size_t)(rng_next(rng) % n);
            fr_add(&pub[i], &pub[i], &one);
            CHECK_MSG(groth16_verify(pool, &pvk, &res.proofs[k], pub, n, &err) == CUZK_ERR_INVALID_PROOF,
                      "partition %u verifies with public input %zu changed", k, i);
            fr_sub(&pub[i], &pub[i], &one);
            groth16_proof bad = res.proofs[k];
            bad.a = res.proofs[k].c;
            bad.c = res.proofs[k].a;
            CHECK(groth16_verify(pool, &pvk, &bad, pub, n, &err) == CUZK_ERR_INVALID_PROOF);
            free(pub);
        }
        groth16_pvk_free(&pvk);
    }
    engine_result_free(&res);
    engine_destroy(e);
    engine_backend_destroy(be);
    engine_porep_circuit_free(pc);
    porep_c1_free(&c1);
    groth16_params_free(&params);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "engine_porep");
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK);
    test_specs();
    test_circuit(&rng, pool);
    const char *slow = getenv("CUZK_SLOW_TESTS");
    if (slow && strcmp(slow, "1") == 0)
        test_prove(&rng, pool);
    else
        printf("engine_porep: setup + prove + verify of 2 KiB skipped (minutes of CPU; CUZK_SLOW_TESTS=1 runs it)\n");
    pool_destroy(pool);
    return test_finish("engine_porep");
}
