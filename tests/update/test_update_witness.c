/* The parallel SnapDeals witness (update_synthesize_witness: the top part and its apex hashes apart, each block cut
 * into its head and TreeD levels, every piece written in place) equals the serial one (update_synthesize into one
 * witness-only system) value for value: on sizes with 8 and 128 apex leaves, one TreeD level (16KiB) and many
 * (8MiB), a partition other than 0, thread counts 1 and 3, for a satisfying witness from synthetic vanilla proofs
 * (seed printed) and for the zero witness. Also the in-place witness-only systems refuse to grow past their memory. */
#include <stdlib.h>
#include <string.h>

#include "circuits/update/update.h"
#include "formats/snap_vanilla.h"
#include "testutil.h"

static cuzk_error err;
static rng_t rng;

static void compare(const update_circuit *c, const update_witness *w, pool_t *const pools[2], const char *what)
{
    r1cs ser;
    CHECK(r1cs_create_witness_only(&ser, &err) == CUZK_OK);
    CHECK_MSG(update_synthesize(&ser, c, w, &err) == CUZK_OK, "%s", err.msg);
    CHECK(r1cs_finalize(&ser, &err) == CUZK_OK);
    for (int t = 0; t < 2; t++) {
        r1cs par;
        CHECK_MSG(update_synthesize_witness(pools[t], c, w, &par, &err) == CUZK_OK, "%s %s: %s", c->g->name, what,
                  err.msg);
        CHECK_MSG(ser.num_aux == par.num_aux && ser.num_inputs == par.num_inputs &&
                      ser.num_constraints == par.num_constraints,
                  "%s %s: sizes differ", c->g->name, what);
        size_t bad = 0;
        while (bad < ser.num_aux && !memcmp(&ser.aux[bad], &par.aux[bad], sizeof(fr_t))) bad++;
        CHECK_MSG(bad == ser.num_aux, "%s %s (pool %d): aux %zu of %zu differs", c->g->name, what, t, bad, ser.num_aux);
        CHECK(memcmp(ser.inputs, par.inputs, ser.num_inputs * sizeof(fr_t)) == 0);
        r1cs_free(&par);
    }
    r1cs_free(&ser);
}

static void run_size(const char *name, pool_t *const pools[2])
{
    const update_geometry *g;
    update_circuit c;
    CHECK(update_geometry_parse(name, &g, &err) == CUZK_OK && update_circuit_init(&c, g, &err) == CUZK_OK);
    update_info info;
    CHECK(update_circuit_info(&c, &info, &err) == CUZK_OK);
    CHECK(info.challenge_aux == info.challenge_head_aux + c.tree_d.levels * info.treed_level_aux);
    update_encoded e;
    uint64_t seed = rng_next(&rng);
    CHECK_MSG(snap_synth_encoded(&e, &c, seed, &err) == CUZK_OK, "%s", err.msg);
    unsigned k = c.partitions - 1;
    snap_partition_proof p;
    CHECK(snap_partition_proof_from_encoded(&p, &c, &e, k, &err) == CUZK_OK);
    uint8_t cro[32], crn[32], cdn[32];
    fr_to_bytes_le(cro, &e.comm_r_old);
    fr_to_bytes_le(crn, &e.comm_r_new);
    fr_to_bytes_le(cdn, &e.comm_d_new);
    update_witness w;
    CHECK_MSG(snap_witness_from_proof(&w, &c, &p, k, cro, crn, cdn, &err) == CUZK_OK, "%s", err.msg);
    compare(&c, &w, pools, "partition witness");
    compare(&c, NULL, pools, "zero witness");
    printf("%s: partition %u, %u TreeD levels, %zu aux: parallel witness equals the serial one\n", name, k,
           c.tree_d.levels, info.aux);
    update_witness_free(&w);
    snap_partition_proof_free(&p);
    update_encoded_free(&e);
    update_circuit_free(&c);
}

static void test_in_place(void)
{
    fr_t mem[4], one;
    fr_set_one(&one);
    for (int i = 0; i < 4; i++) fr_set_zero(&mem[i]);
    r1cs cs;
    r1cs_var v;
    CHECK(r1cs_create_witness_only_at(&cs, mem, 2, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, &one, &v, &err) == CUZK_OK && v.index == 0);
    CHECK(r1cs_witness_skip(&cs, 1, 3, &err) == CUZK_OK && cs.num_aux == 2 && cs.num_constraints == 3);
    CHECK(r1cs_alloc_aux(&cs, &one, &v, &err) == CUZK_ERR_INTERNAL);
    CHECK(r1cs_witness_skip(&cs, 1, 0, &err) == CUZK_ERR_INTERNAL);
    CHECK(fr_is_one(&mem[0]) && fr_is_zero(&mem[1]) && fr_is_zero(&mem[2]));
    r1cs_free(&cs); /* leaves mem alone (ASan would catch a free of it) */
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    CHECK(r1cs_witness_skip(&cs, 1, 1, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&cs);
}

int main(void)
{
    test_seed(&rng, "test_update_witness");
    pool_t *pools[2] = {NULL, NULL};
    CHECK(pool_create(&pools[0], 1, &err) == CUZK_OK && pool_create(&pools[1], 3, &err) == CUZK_OK);
    test_in_place();
    static const char *const sizes[] = {"1KiB", "4KiB", "16KiB", "32KiB", "8MiB"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) run_size(sizes[i], pools);
    pool_destroy(pools[0]);
    pool_destroy(pools[1]);
    return test_finish("test_update_witness");
}
