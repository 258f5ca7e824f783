/* The WindowPoSt and WinningPoSt entries of the proof-kind table, as the daemon drives them: check() of the small
 * fields (proof type of the kind, sizes, randomness, counts), parse() of bincode vanilla proofs into a plan
 * (set wpost-2k / winning-2k, one partition), the public inputs from the request, set names, set_load from a
 * parameter cache holding `cuzk setup`'s file, and a WindowPoSt 2 KiB request proved and verified through
 * circuit_create / request on the CPU backend. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/post/post_public.h"
#include "circuits/spec.h"
#include "engine/kind.h"
#include "engine/post.h"
#include "formats/post_vanilla_gen.h"
#include "testutil.h"

static cuzk_error err;

/* A request of count synthetic sectors of type id, its bincode in *blobs (free each and the array). */
static void make_request(rng_t *rng, unsigned id, size_t count, uint8_t rnd[32], engine_kind_input *in,
                         engine_bytes **vps)
{
    const post_proof_type *t = post_proof_type_by_id(id);
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)rng_next(rng);
    rnd[31] &= 0x3f;
    post_vanilla v;
    CHECK(post_vanilla_synth(&v, t, count, 500, rnd, rng_next(rng), NULL, &err) == CUZK_OK);
    *vps = calloc(count, sizeof **vps);
    for (size_t s = 0; s < count; s++) {
        size_t len = post_vanilla_sector_encoded_size(&v, &v.sectors[s]);
        uint8_t *b = malloc(len);
        post_vanilla_encode_sector(&v, s, b);
        (*vps)[s] = (engine_bytes){b, len};
    }
    post_vanilla_free(&v);
    memset(in, 0, sizeof *in);
    in->registered_proof = id;
    in->vanilla_proofs = *vps;
    in->n_vanilla_proofs = count;
    in->randomness = (engine_bytes){rnd, 32};
    in->miner_id = 1234;
}

static void free_request(engine_bytes *vps, size_t count)
{
    for (size_t s = 0; s < count; s++) free((void *)vps[s].data);
    free(vps);
}

static void test_kind_checks(rng_t *rng)
{
    const engine_kind *w = engine_kind_find(3), *g = engine_kind_find(4);
    CHECK(w == &engine_kind_window_post && g == &engine_kind_winning_post && engine_kind_implemented(w) &&
          engine_kind_implemented(g));
    CHECK(w->default_priority == ENGINE_PRIO_HIGH && g->default_priority == ENGINE_PRIO_CRITICAL);
    uint8_t rnd[32];
    engine_kind_input in;
    engine_bytes *vps;
    make_request(rng, 10, 2, rnd, &in, &vps);
    CHECK_MSG(w->check(&in, &err) == CUZK_OK, "%s", err.msg);
    CHECK(g->check(&in, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "registered WinningPoSt"));
    engine_kind_input bad = in;
    bad.registered_proof = 15;
    CHECK(w->check(&bad, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "registered_proof 15"));
    bad = in;
    bad.sector_size = 4096;
    CHECK(w->check(&bad, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "sector_size"));
    bad = in;
    bad.randomness.len = 31;
    CHECK(w->check(&bad, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "randomness"));
    uint8_t big[32];
    memset(big, 0xff, 32);
    bad = in;
    bad.randomness.data = big;
    CHECK(w->check(&bad, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "not a field element"));
    bad = in;
    bad.n_vanilla_proofs = 3;
    CHECK(w->check(&bad, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "vanilla_proofs"));
    bad.n_vanilla_proofs = 0;
    CHECK(w->check(&bad, &err) == CUZK_ERR_INVALID_ARG);

    /* parse: the plan and the public inputs of the request. */
    void *job = NULL;
    engine_kind_plan plan;
    CHECK_MSG(w->parse(&in, &job, &plan, &err) == CUZK_OK, "%s", err.msg);
    CHECK(!strcmp(plan.set, "wpost-2k") && plan.partitions == 1 && !strcmp(plan.variant, ""));
    fr_t *pub, *want;
    size_t n, nw;
    CHECK(w->public_inputs(job, 0, &pub, &n, &err) == CUZK_OK);
    CHECK(w->public_inputs(job, 1, &want, &nw, &err) == CUZK_ERR_INVALID_ARG);
    const engine_post_job *pj = job;
    CHECK(post_public_inputs(post_proof_type_by_id(10), rnd, pj->sectors, 2, &want, &nw, &err) == CUZK_OK);
    CHECK(n == nw && n == 22 && memcmp(pub, want, n * sizeof(fr_t)) == 0);
    free(pub);
    free(want);
    w->job_free(job);
    /* A corrupted proof is refused by parse, naming the field. */
    uint8_t *b = (uint8_t *)vps[1].data;
    b[5] ^= 1; /* sector_id */
    CHECK(w->parse(&in, &job, &plan, &err) != CUZK_OK && strstr(err.msg, "vanilla_proofs: ") &&
          strstr(err.msg, "sector 1"));
    b[5] ^= 1;
    vps[0].len--;
    CHECK(w->parse(&in, &job, &plan, &err) != CUZK_OK && strstr(err.msg, "vanilla_proofs: "));
    vps[0].len++;
    free_request(vps, 2);

    make_request(rng, 0, 1, rnd, &in, &vps);
    CHECK_MSG(g->check(&in, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(g->parse(&in, &job, &plan, &err) == CUZK_OK, "%s", err.msg);
    CHECK(!strcmp(plan.set, "winning-2k") && plan.partitions == 1);
    CHECK(g->public_inputs(job, 0, &pub, &n, &err) == CUZK_OK && n == 66 * 2);
    free(pub);
    g->job_free(job);
    free_request(vps, 1);

    /* Set names. */
    char id[ENGINE_KIND_SET_MAX];
    CHECK(engine_kind_of_set("wpost-32g", id, sizeof id) == w && !strcmp(id, "wpost-32g"));
    CHECK(engine_kind_of_set("winning-32g", NULL, 0) == g);
    CHECK(engine_kind_of_set("wpost-2k", NULL, 0) == w && engine_kind_of_set("winning-64g", NULL, 0) == g);
    CHECK(engine_kind_of_set("wpost-4k", NULL, 0) == NULL && engine_kind_of_set("wpost-32", NULL, 0) == NULL);
    groth16_params p;
    CHECK(w->set_load("wpost-2k", "/nonexistent-cuzk-dir", 0, NULL, &p, &err) == CUZK_ERR_IO &&
          strstr(err.msg, "v28-proof-of-spacetime-fallback"));
    CHECK(w->set_load("winning-2k", "/nonexistent-cuzk-dir", 0, NULL, &p, &err) == CUZK_ERR_INVALID_ARG);
}

/* The daemon's path for one WindowPoSt request over `cuzk setup`'s parameters in a cache directory. */
static void test_prove(rng_t *rng, pool_t *pool)
{
    const engine_kind *w = &engine_kind_window_post;
    char dir[] = "/tmp/cuzk-post-kind-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char params_path[128], vk_path[128];
    snprintf(params_path, sizeof params_path, "%s/wpost-2k.params", dir);
    snprintf(vk_path, sizeof vk_path, "%s/wpost-2k.vk", dir);
    circuit_spec spec;
    r1cs shape;
    CHECK(circuit_spec_parse("wpost:2KiB", &spec, &err) == CUZK_OK);
    cuzk_status st = circuit_spec_build(pool, &spec, R1CS_MATRICES, &shape, &err);
    if (st == CUZK_OK) {
        st = groth16_setup_files(pool, &shape, NULL, params_path, vk_path, &err);
        r1cs_free(&shape);
    }
    CHECK_MSG(st == CUZK_OK, "setup: %s", err.msg);
    groth16_params params;
    memset(&params, 0, sizeof params);
    if (st == CUZK_OK) st = w->set_load("wpost-2k", dir, 0, pool, &params, &err);
    CHECK_MSG(st == CUZK_OK, "set_load: %s", err.msg);
    uint8_t rnd[32];
    engine_kind_input in;
    engine_bytes *vps;
    make_request(rng, 10, 1, rnd, &in, &vps); /* StackedDrgWindow2KiBV1_1, one sector (padded) */
    void *job = NULL, *circuit = NULL;
    engine_kind_plan plan;
    engine_backend *be = NULL;
    engine *e = NULL;
    engine_result res;
    memset(&res, 0, sizeof res);
    if (st == CUZK_OK) st = w->parse(&in, &job, &plan, &err);
    if (st == CUZK_OK) st = w->circuit_create(job, &plan, &params, pool, &circuit, &err);
    if (st == CUZK_OK) st = engine_backend_cpu_create(pool, NULL, &be, &err);
    engine_config cfg = {.backend = be, .synth_pool = pool};
    if (st == CUZK_OK) st = engine_create(&e, &cfg, &err);
    engine_request rq;
    uint64_t jid;
    if (st == CUZK_OK) st = w->request(circuit, job, w->default_priority, &rq, &err);
    if (st == CUZK_OK) st = engine_submit(e, &rq, &jid, &err);
    if (st == CUZK_OK) st = engine_wait(e, jid, &res, &err);
    CHECK_MSG(st == CUZK_OK && res.verified, "prove: %s", err.msg);
    if (st == CUZK_OK) {
        fr_t *pub;
        size_t n;
        groth16_pvk pvk;
        CHECK(w->public_inputs(job, 0, &pub, &n, &err) == CUZK_OK);
        CHECK(groth16_pvk_prepare(&pvk, &params.vk, &err) == CUZK_OK);
        CHECK(groth16_verify(pool, &pvk, &res.proofs[0], pub, n, &err) == CUZK_OK);
        groth16_pvk_free(&pvk);
        free(pub);
        /* A WinningPoSt job does not fit the WindowPoSt circuit. */
        void *gjob = NULL;
        engine_kind_input gin;
        engine_bytes *gvps;
        uint8_t grnd[32];
        make_request(rng, 0, 1, grnd, &gin, &gvps);
        CHECK(engine_kind_winning_post.parse(&gin, &gjob, &plan, &err) == CUZK_OK);
        CHECK(w->request(circuit, gjob, ENGINE_PRIO_HIGH, &rq, &err) == CUZK_ERR_INVALID_ARG);
        engine_kind_winning_post.job_free(gjob);
        free_request(gvps, 1);
    }
    engine_result_free(&res);
    engine_destroy(e);
    engine_backend_destroy(be);
    w->circuit_free(circuit);
    w->job_free(job);
    free_request(vps, 1);
    groth16_params_free(&params);
    unlink(params_path);
    unlink(vk_path);
    rmdir(dir);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_post_kind");
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK);
    test_kind_checks(&rng);
    test_prove(&rng, pool);
    pool_destroy(pool);
    return test_finish("test_post_kind");
}
