/* PoSt through the engine: jobs from decoded vanilla proofs (validation naming sector, challenge and field; any
 * changed bit of the bincode refused by the decoder, the job or the synthesis), the job's witness inputs equal to the public
 * inputs a verifier derives, parameters that do not fit refused, and setup + prove (CPU backend) + verify of
 * WindowPoSt 2 KiB (a full and a padded request) and WinningPoSt 2 KiB from the vanilla proofs of sealed 2 KiB
 * sectors, against inputs derived from public values only; a changed public input fails. */
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/seal.h"
#include "engine/post.h"
#include "formats/post_vanilla_gen.h"
#include "testutil.h"

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

static void test_validation(rng_t *rng, pool_t *pool)
{
    uint8_t rnd[32];
    random_randomness(rng, rnd);
    static const unsigned ids[] = {10, 5, 0};
    static const size_t counts[] = {2, 1, 1};
    for (size_t k = 0; k < 3; k++) {
        const post_proof_type *t = post_proof_type_by_id(ids[k]);
        post_vanilla v;
        CHECK_MSG(post_vanilla_synth(&v, t, counts[k], 1000, rnd, rng_next(rng), pool, &err) == CUZK_OK, "%s", err.msg);
        engine_post_job *j = NULL;
        CHECK_MSG(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_OK, "%s: %s", t->name, err.msg);
        if (j) check_job_inputs(pool, j);
        engine_post_job_free(j);
        j = NULL;

        /* Other randomness: the challenges differ. */
        uint8_t other[32];
        memcpy(other, rnd, 32);
        other[0] ^= 1;
        CHECK(engine_post_job_create(&j, &v, other, pool, &err) == CUZK_ERR_INVALID_PROOF && !j);
        CHECK_MSG(strstr(err.msg, "sector 0 (id 1000): challenge") && strstr(err.msg, "the challenge is leaf"), "%s",
                  err.msg);

        /* Any changed bit of the bincode: refused by the decoder or by the job, never accepted. */
        uint8_t *blob[2];
        size_t len[2];
        for (size_t s = 0; s < v.count; s++) {
            len[s] = post_vanilla_sector_encoded_size(&v, &v.sectors[s]);
            blob[s] = malloc(len[s]);
            post_vanilla_encode_sector(&v, s, blob[s]);
        }
        unsigned decoder = 0, job = 0, synth = 0;
        for (int trial = 0; trial < 150; trial++) {
            size_t s = (size_t)(rng_next(rng) % v.count), at = (size_t)(rng_next(rng) % len[s]);
            uint8_t bit = (uint8_t)(1u << (rng_next(rng) % 8));
            blob[s][at] ^= bit;
            post_vanilla w;
            cuzk_status st = post_vanilla_decode(&w, t, (const uint8_t *const *)blob, len, v.count, &err);
            if (st != CUZK_OK) {
                CHECK(err.msg[0] != 0);
                decoder++;
            } else {
                st = engine_post_job_create(&j, &w, rnd, pool, &err);
                char want[64];
                if (st == CUZK_OK) {
                    /* A sibling or leaf: the path misses comm_r_last, which the parallel synthesis reports. */
                    r1cs wit;
                    st = post_synthesize_witness(pool, &j->circuit, &j->witness, &wit, &err);
                    if (st == CUZK_OK) r1cs_free(&wit);
                    snprintf(want, sizeof want, t->kind == POST_WINDOW ? "sector_%zu: challenge" : "challenge", s);
                    CHECK_MSG(st == CUZK_ERR_INVALID_PROOF && strstr(err.msg, want) &&
                                  strstr(err.msg, "does not hash from its leaf"),
                              "%s: sector %zu byte %zu bit 0x%02x synthesized: %s", t->name, s, at, bit,
                              st ? err.msg : "accepted");
                    synth++;
                } else {
                    snprintf(want, sizeof want, "sector %zu (id", s);
                    CHECK_MSG(!j && strstr(err.msg, want), "%s: sector %zu byte %zu bit 0x%02x: not named: %s", t->name,
                              s, at, bit, err.msg);
                    job++;
                }
                engine_post_job_free(j);
                j = NULL;
                post_vanilla_free(&w);
            }
            blob[s][at] ^= bit;
        }
        printf("%s: 150 changed bits: %u refused by the decoder, %u by the job's checks, %u by the synthesis\n",
               t->name, decoder, job, synth);
        for (size_t s = 0; s < v.count; s++) free(blob[s]);

        /* A value not below r (as a caller other than the decoder could pass). */
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
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "TreeR"));
        v.shape.levels++;
        v.sectors[0].proofs--;
        CHECK(engine_post_job_create(&j, &v, rnd, pool, &err) == CUZK_ERR_INVALID_ARG &&
              strstr(err.msg, "inclusion proofs"));
        v.sectors[0].proofs++;
        post_vanilla_free(&v);
    }
}

/* Two sealed 2 KiB sectors (SDR, TreeR over the replica) as a prover holds them. */
typedef struct sealed_pair {
    porep_sealed sealed[2];
    porep_dom *tree_r[2];
    post_sector_tree trees[2];
} sealed_pair;

static void seal_pair(sealed_pair *sp)
{
    memset(sp, 0, sizeof *sp);
    porep_hashers h;
    CHECK(porep_hashers_init(&h, &err) == CUZK_OK);
    const porep_proof_type *seal_type = porep_proof_type_by_name("StackedDrg2KiBV1_1");
    for (int q = 0; q < 2; q++) {
        porep_seal_params p;
        uint8_t seed[32];
        CHECK_MSG(porep_seal_test(&sp->sealed[q], &p, seed, seal_type, 21 + (uint64_t)q, &err) == CUZK_OK, "%s",
                  err.msg);
        porep_dom root;
        CHECK(porep_tree_r_build(&sp->tree_r[q], root, sp->sealed[q].geometry, &h, sp->sealed[q].replica, &err) ==
              CUZK_OK);
        CHECK(memcmp(root, sp->sealed[q].comm_r_last, 32) == 0);
        sp->trees[q] = (post_sector_tree){.sector_id = p.sector_id, .tree_r = sp->tree_r[q]};
        memcpy(sp->trees[q].comm_c, sp->sealed[q].comm_c, 32);
        memcpy(sp->trees[q].comm_r_last, sp->sealed[q].comm_r_last, 32);
        memcpy(sp->trees[q].comm_r, sp->sealed[q].comm_r, 32);
    }
    porep_hashers_free(&h);
}

static void sealed_pair_free(sealed_pair *sp)
{
    for (int q = 0; q < 2; q++) {
        porep_sealed_free(&sp->sealed[q]);
        free(sp->tree_r[q]);
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

static void test_prove(rng_t *rng, pool_t *pool, const sealed_pair *sp, const groth16_params *pp, unsigned id, size_t n)
{
    const post_proof_type *t = post_proof_type_by_id(id);
    groth16_params params = *pp; /* borrowed */
    cuzk_status st = CUZK_OK;
    uint8_t rnd[32];
    random_randomness(rng, rnd);
    post_vanilla v;
    st = post_vanilla_from_trees(&v, t, sp->trees, n, rnd, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st != CUZK_OK) return;
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
    post_vanilla_free(&v);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_post_engine");
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK);
    test_validation(&rng, pool);
    /* Window V1 and V1_1 share the circuit and its parameters. */
    sealed_pair sp;
    seal_pair(&sp);
    groth16_params params;
    if (setup(pool, post_proof_type_by_id(10), &params) == CUZK_OK) {
        test_prove(&rng, pool, &sp, &params, 10, 2); /* WindowPoSt 2 KiB V1_1 */
        test_prove(&rng, pool, &sp, &params, 5, 1);  /* WindowPoSt 2 KiB V1, padded */
        groth16_params_free(&params);
    }
    const char *slow = getenv("CUZK_SLOW_TESTS");
    if (slow && strcmp(slow, "1") == 0) {
        if (setup(pool, post_proof_type_by_id(0), &params) == CUZK_OK) {
            test_prove(&rng, pool, &sp, &params, 0, 1); /* WinningPoSt 2 KiB */
            groth16_params_free(&params);
        }
    } else {
        printf("test_post_engine: WinningPoSt 2 KiB setup + prove skipped (CUZK_SLOW_TESTS=1 runs it)\n");
    }
    sealed_pair_free(&sp);
    pool_destroy(pool);
    return test_finish("test_post_engine");
}
