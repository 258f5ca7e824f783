/* PoSt through the engine: jobs from decoded vanilla proofs (validation naming sector, challenge and field; any
 * changed value refused), the job's witness inputs equal to the public inputs a verifier derives, parameters that
 * do not fit refused, and setup + prove (CPU backend) + verify of WindowPoSt 2 KiB (a full and a padded request)
 * and WinningPoSt 2 KiB, with a changed public input failing. */
#include <stdlib.h>
#include <string.h>

#include "engine/post.h"
#include "post_testtree.h"

static cuzk_error err;

static void random_randomness(rng_t *rng, uint8_t rnd[32])
{
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)rng_next(rng);
    rnd[31] &= 0x3f;
}

/* The job's witness, synthesized, holds exactly the verifier's public inputs, and satisfies the circuit. */
static void check_job_inputs(pool_t *pool, const engine_post_job *j)
{
    fr_t *pub;
    size_t n;
    CHECK(engine_post_job_public_inputs(j, &pub, &n, &err) == CUZK_OK);
    r1cs w, shape;
    CHECK_MSG(post_synthesize_witness(pool, &j->circuit, &j->witness, &w, &err) == CUZK_OK, "%s", err.msg);
    CHECK(post_compile_shape(pool, &j->circuit, &shape, &err) == CUZK_OK);
    CHECK(w.num_inputs == n + 1);
    int eq = w.num_inputs == n + 1;
    for (size_t i = 0; eq && i < n; i++) eq = fr_eq(&w.inputs[1 + i], &pub[i]);
    CHECK_MSG(eq, "%s: witness inputs differ from the verifier's", j->type->name);
    CHECK_MSG(test_r1cs_first_bad(&shape, w.inputs, w.aux) == SIZE_MAX, "%s: unsatisfied", j->type->name);
    r1cs_free(&w);
    r1cs_free(&shape);
    free(pub);
}

/* Flips bit `bit` of byte `at` of one field of sector s (or moves an index); returns what was changed. */
static const char *corrupt(post_vanilla *v, size_t s, unsigned field, unsigned i, size_t at, unsigned bit)
{
    post_vanilla_sector *vs = &v->sectors[s];
    size_t nsib = v->shape.sib_offset[v->shape.levels];
    uint8_t *p;
    const char *what;
    switch (field) {
    case 0: p = vs->comm_r, what = "comm_r"; break;
    case 1: p = vs->comm_c, what = "comm_c"; break;
    case 2: p = vs->comm_r_last, what = "comm_r_last"; break;
    case 3: p = vs->roots[i], what = "root"; break;
    case 4: p = vs->leaves[i], what = "leaf"; break;
    case 5: p = vs->sibs[i * nsib + at / 32], at %= 32, what = "sibling"; break;
    default: {
        uint8_t *ix = &vs->index[(size_t)i * v->shape.levels + at % v->shape.levels];
        *ix = (uint8_t)((*ix + 1 + bit % (v->shape.arity[0] - 1)) % v->shape.arity[0]);
        return "index";
    }
    }
    p[at % 32] ^= (uint8_t)(1u << bit);
    return what;
}

static void test_validation(rng_t *rng, pool_t *pool)
{
    uint8_t rnd[32];
    random_randomness(rng, rnd);
    static const unsigned ids[] = {10, 5, 0};
    static const size_t counts[] = {2, 1, 1};
    for (size_t k = 0; k < 3; k++) {
        const post_proof_type *t = post_proof_type_by_id(ids[k]);
        post_vanilla v;
        test_vanilla_make(rng, t, counts[k], rnd, &v);
        engine_post_job *j = NULL;
        CHECK_MSG(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_OK, "%s: %s", t->name, err.msg);
        if (j) check_job_inputs(pool, j);
        engine_post_job_free(j);

        /* Other randomness: every challenge differs. */
        uint8_t other[32];
        memcpy(other, rnd, 32);
        other[0] ^= 1;
        CHECK(engine_post_job_create(&j, &v, other, pool, &err) == CUZK_ERR_INVALID_PROOF && !j);
        CHECK_MSG(strstr(err.msg, "sector 0 (id 1000): challenge") && strstr(err.msg, "the challenge is leaf"), "%s",
                  err.msg);

        /* Changed values, each refused with the sector named. */
        size_t nsib = v.shape.sib_offset[v.shape.levels];
        for (int trial = 0; trial < 60; trial++) {
            size_t s = (size_t)(rng_next(rng) % v.count);
            unsigned field = (unsigned)(rng_next(rng) % 7), i = (unsigned)(rng_next(rng) % t->challenges);
            size_t at = (size_t)(rng_next(rng) % (field == 5 ? nsib * 32 : 32));
            unsigned bit = (unsigned)(rng_next(rng) % 8);
            post_vanilla_sector keep = v.sectors[s];
            uint8_t save[32 * 3];
            memcpy(save, keep.comm_r, 32), memcpy(save + 32, keep.comm_c, 32), memcpy(save + 64, keep.comm_r_last, 32);
            size_t blob = (size_t)t->challenges * (64 + nsib * 32 + v.shape.levels);
            uint8_t *copy = malloc(blob), *q = copy;
            memcpy(q, keep.roots, t->challenges * 32), q += t->challenges * 32;
            memcpy(q, keep.leaves, t->challenges * 32), q += t->challenges * 32;
            memcpy(q, keep.sibs, t->challenges * nsib * 32), q += t->challenges * nsib * 32;
            memcpy(q, keep.index, (size_t)t->challenges * v.shape.levels);
            const char *what = corrupt(&v, s, field, i, at, bit);
            cuzk_status st = engine_post_job_create(&j, &v, rnd, pool, &err);
            char want[48];
            snprintf(want, sizeof want, "sector %zu (id %llu)", s, (unsigned long long)v.sectors[s].sector_id);
            CHECK_MSG(st != CUZK_OK && !j && strstr(err.msg, want), "%s: changed %s of sector %zu (challenge %u, "
                      "byte %zu bit %u) accepted or not named: %s", t->name, what, s, i, at, bit,
                      st ? err.msg : "accepted");
            engine_post_job_free(j);
            j = NULL;
            memcpy(v.sectors[s].comm_r, save, 32), memcpy(v.sectors[s].comm_c, save + 32, 32);
            memcpy(v.sectors[s].comm_r_last, save + 64, 32);
            q = copy;
            memcpy(keep.roots, q, t->challenges * 32), q += t->challenges * 32;
            memcpy(keep.leaves, q, t->challenges * 32), q += t->challenges * 32;
            memcpy(keep.sibs, q, t->challenges * nsib * 32), q += t->challenges * nsib * 32;
            memcpy(keep.index, q, (size_t)t->challenges * v.shape.levels);
            free(copy);
        }
        CHECK_MSG(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_OK, "restored: %s", err.msg);
        engine_post_job_free(j);
        j = NULL;

        /* A value not below r. */
        uint8_t keep = v.sectors[0].leaves[0][31];
        v.sectors[0].leaves[0][31] = 0xff;
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_FORMAT &&
              strstr(err.msg, "challenge 0: leaf is not a field element"));
        v.sectors[0].leaves[0][31] = keep;
        /* Wrong counts and shapes. */
        size_t n = v.count;
        v.count = t->kind == POST_WINNING ? 2 : t->sector_count + 1;
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_INVALID_ARG);
        v.count = 0;
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_INVALID_ARG);
        v.count = n;
        v.shape.levels--;
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_INVALID_ARG &&
              strstr(err.msg, "TreeR"));
        v.shape.levels++;
        v.sectors[0].proofs--;
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_INVALID_ARG &&
              strstr(err.msg, "inclusion proofs"));
        v.sectors[0].proofs++;
        test_vanilla_free(&v);
    }
}

/* Setup, prove on the CPU backend, verify against the inputs derived from public values only. */
static cuzk_status setup(pool_t *pool, const post_proof_type *t, groth16_params *params)
{
    post_circuit c;
    r1cs shape;
    memset(params, 0, sizeof *params);
    cuzk_status st = post_circuit_init_type(&c, t, &err);
    if (st == CUZK_OK) st = post_compile_shape(pool, &c, &shape, &err);
    if (st == CUZK_OK) {
        st = groth16_setup(pool, &shape, params, &err);
        r1cs_free(&shape);
    }
    post_circuit_free(&c);
    CHECK_MSG(st == CUZK_OK, "setup %s: %s", t->name, err.msg);
    return st;
}

static void test_prove(rng_t *rng, pool_t *pool, const groth16_params *pp, unsigned id, size_t n)
{
    const post_proof_type *t = post_proof_type_by_id(id);
    groth16_params params = *pp; /* borrowed */
    cuzk_status st = CUZK_OK;
    uint8_t rnd[32];
    random_randomness(rng, rnd);
    post_vanilla v;
    test_vanilla_make(rng, t, n, rnd, &v);
    engine_post_job *j = NULL;
    engine_post_circuit *pc = NULL;
    engine_backend *be = NULL;
    engine *e = NULL;
    if (st == CUZK_OK) st = engine_post_job_create(&j, &v, rnd, pool, &err);
    if (st == CUZK_OK) st = engine_post_circuit_create(t, &params, pool, &pc, &err);
    if (st == CUZK_OK) st = engine_backend_cpu_create(pool, NULL, &be, &err);
    engine_config cfg = {.backend = be, .synth_pool = pool};
    if (st == CUZK_OK) st = engine_create(&e, &cfg, &err);
    engine_request rq;
    uint64_t jid;
    engine_result res;
    memset(&res, 0, sizeof res);
    if (st == CUZK_OK) st = engine_post_request(pc, j, ENGINE_PRIO_HIGH, &rq, &err);
    if (st == CUZK_OK) st = engine_submit(e, &rq, &jid, &err);
    if (st == CUZK_OK) st = engine_wait(e, jid, &res, &err);
    CHECK_MSG(st == CUZK_OK && res.verified && res.partitions == 1, "prove %s: %s", t->name, err.msg);
    if (st == CUZK_OK) {
        /* The verifier's inputs from (type, randomness, sector ids, comm_r) alone. */
        post_public_sector pubs[4];
        for (size_t s = 0; s < n; s++) {
            pubs[s].sector_id = v.sectors[s].sector_id;
            memcpy(pubs[s].comm_r, v.sectors[s].comm_r, 32);
        }
        fr_t *pub;
        size_t np;
        groth16_pvk pvk;
        CHECK(post_public_inputs(t, rnd, pubs, n, &pub, &np, &err) == CUZK_OK);
        CHECK(groth16_pvk_prepare(&pvk, &params.vk, &err) == CUZK_OK);
        CHECK_MSG(groth16_verify(pool, &pvk, &res.proofs[0], pub, np, &err) == CUZK_OK, "%s: %s", t->name, err.msg);
        fr_t one;
        fr_set_one(&one);
        size_t i = (size_t)(rng_next(rng) % np);
        fr_add(&pub[i], &pub[i], &one);
        CHECK_MSG(groth16_verify(pool, &pvk, &res.proofs[0], pub, np, &err) == CUZK_ERR_INVALID_PROOF,
                  "%s verifies with input %zu changed", t->name, i);
        groth16_pvk_free(&pvk);
        free(pub);
        /* A circuit of another kind refuses the job; parameters of another circuit are refused. */
        engine_post_circuit *other = NULL;
        const post_proof_type *u = post_proof_type_by_id(t->kind == POST_WINDOW ? 0 : 10);
        CHECK(engine_post_circuit_create(u, &params, pool, &other, &err) == CUZK_ERR_INVALID_ARG && !other &&
              strstr(err.msg, "do not fit"));
    }
    engine_result_free(&res);
    engine_destroy(e);
    engine_backend_destroy(be);
    engine_post_circuit_free(pc);
    engine_post_job_free(j);
    test_vanilla_free(&v);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_post_engine");
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK);
    test_validation(&rng, pool);
    /* Window V1 and V1_1 share the circuit and its parameters. */
    groth16_params params;
    if (setup(pool, post_proof_type_by_id(10), &params) == CUZK_OK) {
        test_prove(&rng, pool, &params, 10, 2); /* WindowPoSt 2 KiB V1_1 */
        test_prove(&rng, pool, &params, 5, 1);  /* WindowPoSt 2 KiB V1, padded */
        groth16_params_free(&params);
    }
    const char *slow = getenv("CUZK_SLOW_TESTS");
    if (slow && strcmp(slow, "1") == 0) {
        if (setup(pool, post_proof_type_by_id(0), &params) == CUZK_OK) {
            test_prove(&rng, pool, &params, 0, 1); /* WinningPoSt 2 KiB */
            groth16_params_free(&params);
        }
    } else {
        printf("test_post_engine: WinningPoSt 2 KiB setup + prove skipped (CUZK_SLOW_TESTS=1 runs it)\n");
    }
    pool_destroy(pool);
    return test_finish("test_post_engine");
}
