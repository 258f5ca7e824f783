/* The SNAP_DEALS_UPDATE entry of the proof-kind table on requests as Curio sends them: an encoded 2 KiB sector's
 * vanilla proofs parse into a job over set snap-2k with the public inputs a verifier derives (k_and_h_select =
 * k | h_select << partition bits with h = hs[3]); wrong sizes, lengths, counts and every sampled corrupted byte are
 * refused at check or parse with a message, never later. A synthetic 32 GiB request (snap_synth_encoded, what
 * synth-vanilla writes) passes the same complete validation: partition proofs of 561,7xx bytes (the reference's
 * derived size). Random data from a printed seed. */
#include <stdlib.h>
#include <string.h>

#include "engine/kind.h"
#include "engine/snap.h"
#include "testutil.h"

static cuzk_error err;
static rng_t rng;

/* Every partition's bincode of an encoded sector. */
static void proofs_of(const update_circuit *c, const update_encoded *e, uint8_t **bins, size_t *lens)
{
    for (unsigned k = 0; k < c->partitions; k++) {
        snap_partition_proof p;
        CHECK(snap_partition_proof_from_encoded(&p, c, e, k, &err) == CUZK_OK);
        CHECK(snap_partition_proof_encode(&p, c, &bins[k], &lens[k], &err) == CUZK_OK);
        snap_partition_proof_free(&p);
    }
}

static void test_kind_2k(void)
{
    const engine_kind *kd = engine_kind_find(2);
    CHECK(kd && engine_kind_implemented(kd) && !strcmp(kd->label, "snap-update"));
    char id[ENGINE_KIND_SET_MAX];
    CHECK(engine_kind_of_set("snap-32g", id, sizeof id) == kd && !strcmp(id, "snap-32g"));
    CHECK(engine_kind_of_set("snap-2k", NULL, 0) == kd && engine_kind_of_set("snap-3k", NULL, 0) == NULL);
    const update_geometry *g;
    update_circuit c;
    CHECK(update_geometry_parse("2KiB", &g, &err) == CUZK_OK && update_circuit_init(&c, g, &err) == CUZK_OK);
    fr_t *old = malloc(sizeof(fr_t) * g->nodes), *data = malloc(sizeof(fr_t) * g->nodes), comm_c;
    for (uint64_t i = 0; i < g->nodes; i++) {
        fr_from_u64(&old[i], rng_next(&rng));
        fr_from_u64(&data[i], rng_next(&rng));
    }
    fr_from_u64(&comm_c, rng_next(&rng));
    update_encoded e;
    CHECK(update_encode(&e, &c, 0, old, data, &comm_c, &err) == CUZK_OK);
    uint8_t *bin;
    size_t len;
    proofs_of(&c, &e, &bin, &len);
    uint8_t cm[3][32];
    fr_to_bytes_le(cm[0], &e.comm_r_old);
    fr_to_bytes_le(cm[1], &e.comm_r_new);
    fr_to_bytes_le(cm[2], &e.comm_d_new);
    engine_bytes vp = {bin, len};
    engine_kind_input in;
    memset(&in, 0, sizeof in);
    in.registered_proof = 0; /* StackedDrg2KiBV1 */
    in.vanilla_proofs = &vp;
    in.n_vanilla_proofs = 1;
    in.comm_r_old = (engine_bytes){cm[0], 32};
    in.comm_r_new = (engine_bytes){cm[1], 32};
    in.comm_d_new = (engine_bytes){cm[2], 32};
    void *job;
    engine_kind_plan plan;
    CHECK(kd->check(&in, &err) == CUZK_OK);
    CHECK_MSG(kd->parse(&in, &job, &plan, &err) == CUZK_OK, "%s", err.msg);
    CHECK(!strcmp(plan.set, "snap-2k") && plan.partitions == 1);
    fr_t *pub;
    size_t n;
    CHECK(kd->public_inputs(job, 0, &pub, &n, &err) == CUZK_OK && n == 4);
    fr_t want;
    /* 2 KiB: no partition bits; hs = [1; 6], so h = hs[3] = 1 is found first at index 0 (constants.rs h_select
     * takes the first position): h_select = 1. */
    fr_from_u64(&want, 1);
    CHECK(fr_eq(&pub[0], &want) && fr_eq(&pub[1], &e.comm_r_old) && fr_eq(&pub[2], &e.comm_d_new) &&
          fr_eq(&pub[3], &e.comm_r_new));
    free(pub);
    CHECK(kd->public_inputs(job, 1, &pub, &n, &err) == CUZK_ERR_INVALID_ARG);
    kd->job_free(job);

    /* Small fields refused at check. */
    in.sector_size = 8ull << 20;
    CHECK(kd->check(&in, &err) == CUZK_ERR_INVALID_ARG);
    in.sector_size = 2048;
    in.comm_d_new.len = 31;
    CHECK(kd->check(&in, &err) == CUZK_ERR_INVALID_ARG);
    in.comm_d_new.len = 32;
    in.n_vanilla_proofs = 2;
    CHECK(kd->check(&in, &err) == CUZK_ERR_INVALID_ARG);
    in.n_vanilla_proofs = 1;
    in.registered_proof = 9;
    in.sector_size = 0;
    CHECK(kd->check(&in, &err) == CUZK_ERR_INVALID_ARG);
    in.registered_proof = 0;
    /* Corrupted bytes refused at parse, naming where. */
    for (int t = 0; t < 200; t++) {
        size_t pos = rng_next(&rng) % len;
        uint8_t was = bin[pos];
        bin[pos] ^= (uint8_t)(1 + rng_next(&rng) % 255);
        cuzk_status st = kd->parse(&in, &job, &plan, &err);
        CHECK_MSG(st == CUZK_ERR_FORMAT && job == NULL, "byte %zu: status %d", pos, st);
        bin[pos] = was;
    }
    printf("last: %s\n", err.msg);
    cm[1][7] ^= 0x10;
    CHECK(kd->parse(&in, &job, &plan, &err) == CUZK_ERR_FORMAT);
    cm[1][7] ^= 0x10;
    CHECK(kd->parse(&in, &job, &plan, &err) == CUZK_OK);
    kd->job_free(job);
    free(bin);
    update_encoded_free(&e);
    free(old);
    free(data);
    update_circuit_free(&c);
}

static void test_synth_32g(void)
{
    const update_geometry *g;
    update_circuit c;
    CHECK(update_geometry_parse("32GiB", &g, &err) == CUZK_OK && update_circuit_init(&c, g, &err) == CUZK_OK);
    update_encoded e;
    CHECK_MSG(snap_synth_encoded(&e, &c, rng_next(&rng), &err) == CUZK_OK, "%s", err.msg);
    uint8_t *bins[16];
    size_t lens[16];
    proofs_of(&c, &e, bins, lens);
    CHECK_MSG(lens[0] > 561000 && lens[0] < 562500, "32 GiB partition proof of %zu bytes", lens[0]);
    uint8_t cm[3][32];
    fr_to_bytes_le(cm[0], &e.comm_r_old);
    fr_to_bytes_le(cm[1], &e.comm_r_new);
    fr_to_bytes_le(cm[2], &e.comm_d_new);
    engine_snap_job job;
    CHECK_MSG(engine_snap_job_parse(&job, g, (const uint8_t *const *)bins, lens, 16, cm[0], 32, cm[1], 32, cm[2], 32,
                                    &err) == CUZK_OK,
              "%s", err.msg);
    engine_snap_job_free(&job);
    /* The proofs in the wrong order: partition 0's in partition 1's place. */
    uint8_t *t = bins[1];
    size_t tl = lens[1];
    bins[1] = bins[0], lens[1] = lens[0];
    CHECK(engine_snap_job_parse(&job, g, (const uint8_t *const *)bins, lens, 16, cm[0], 32, cm[1], 32, cm[2], 32,
                                &err) == CUZK_ERR_FORMAT);
    bins[1] = t, lens[1] = tl;
    for (int k = 0; k < 16; k++) free(bins[k]);
    update_encoded_free(&e);
    update_circuit_free(&c);
}

int main(void)
{
    test_seed(&rng, "test_snap_kind");
    test_kind_2k();
    test_synth_32g();
    return test_finish("test_snap_kind");
}
