/* PoRep challenge derivation: the synthetic-challenge vector hard-coded in rust-fil-proofs
 * (challenges.rs test_synth_challenges_against_hardcoded), and interactive / non-interactive derivation, the
 * replica id and the public-input layout against independent recomputations. */
#include <string.h>

#include "circuits/hash/sha256.h"
#include "circuits/porep/challenges.h"
#include "testutil.h"

/* x mod m by long division on 64-bit limbs, most significant first (a different route than the byte loop). */
static uint64_t mod_limbs(const uint8_t x[32], uint64_t m)
{
    unsigned __int128 r = 0;
    for (int l = 3; l >= 0; l--) {
        uint64_t limb = 0;
        for (int i = 7; i >= 0; i--) limb = limb << 8 | x[8 * l + i];
        r = ((r << 64) | limb) % m;
    }
    return (uint64_t)r;
}

static void test_synth_vector(void)
{
    uint8_t replica_id[32] = {55}, comm_r[32] = {101}, rand[32];
    memset(rand, 1, 32);
    static const uint64_t synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    for (unsigned i = 0; i < 21; i++)
        CHECK_MSG(porep_synth_challenge(1024, replica_id, comm_r, i) == synth[i], "%u", i);
    uint64_t got[10];
    porep_challenges_synth(got, 10, 1024, 21, replica_id, comm_r, rand, 0);
    for (unsigned i = 0; i < 10; i++)
        CHECK_MSG(got[i] == porep[i], "porep challenge %u: %llu", i, (unsigned long long)got[i]);
    /* partition k continues the selection stream where partition k-1 stopped */
    uint64_t all[10], part[5];
    porep_synth_indexes(all, 10, 21, replica_id, rand, 0);
    porep_synth_indexes(part, 5, 21, replica_id, rand, 1);
    CHECK(memcmp(part, all + 5, sizeof part) == 0);
    CHECK(porep_synth_challenge_count(64) == 64 && porep_synth_challenge_count(UINT64_C(1) << 30) == (1u << 18));
}

static void test_interactive(rng_t *rng)
{
    uint8_t x[32];
    memset(x, 0xff, 32);
    CHECK(porep_challenge_from_bytes(x, 2) == 1);
    /* 2^256 - 1 mod 2^30 - 1 = 2^(256 mod 30) - 1 */
    CHECK(porep_challenge_from_bytes(x, UINT64_C(1) << 30) == (UINT64_C(1) << 16));
    for (int t = 0; t < 1000; t++) {
        rng_bytes(rng, x, 32);
        uint64_t nodes = 2 + rng_next(rng) % (UINT64_C(1) << 31);
        CHECK(porep_challenge_from_bytes(x, nodes) == mod_limbs(x, nodes - 1) + 1);
    }

    uint8_t replica_id[32], seed[32], comm_r[32];
    rng_bytes(rng, replica_id, 32);
    rng_bytes(rng, seed, 32);
    rng_bytes(rng, comm_r, 32);
    uint64_t nodes = UINT64_C(1) << 30;
    /* challenge_partition_equivalence: 10 partitions of 18 are one partition of 180 */
    uint64_t one[180], many[180];
    porep_challenges_interactive(one, 180, nodes, replica_id, seed, 0);
    for (unsigned k = 0; k < 10; k++) porep_challenges_interactive(many + 18 * k, 18, nodes, replica_id, seed, k);
    CHECK(memcmp(one, many, sizeof one) == 0);
    porep_challenges_ni(one, 180, nodes, replica_id, comm_r, 0);
    for (unsigned k = 0; k < 10; k++) porep_challenges_ni(many + 18 * k, 18, nodes, replica_id, comm_r, k);
    CHECK(memcmp(one, many, sizeof one) == 0);
    /* one challenge recomputed from the hash of the explicit preimage */
    uint8_t pre[68], h[32];
    memcpy(pre, replica_id, 32);
    memcpy(pre + 32, seed, 32);
    uint32_t j = 18 * 3 + 7;
    for (int i = 0; i < 4; i++) pre[64 + i] = (uint8_t)(j >> (8 * i));
    sha256_digest(pre, 68, h);
    uint64_t c[18];
    porep_challenges_interactive(c, 18, nodes, replica_id, seed, 3);
    CHECK(c[7] == mod_limbs(h, nodes - 1) + 1);
    const porep_geometry *g = porep_geometry_for_size(UINT64_C(32) << 30);
    porep_challenges_derive(c, g, POREP_INTERACTIVE, replica_id, seed, comm_r, 3);
    CHECK(c[7] == mod_limbs(h, nodes - 1) + 1);
    uint8_t ni[36 + 64 + 4];
    memcpy(ni, "filecoin.io|PoRep|1|NonInteractive|1", 36);
    memcpy(ni + 36, replica_id, 32);
    memcpy(ni + 68, comm_r, 32);
    j = 18 * 100 + 17;
    for (int i = 0; i < 4; i++) ni[100 + i] = (uint8_t)(j >> (8 * i));
    sha256_digest(ni, sizeof ni, h);
    porep_challenges_derive(c, g, POREP_NON_INTERACTIVE, replica_id, seed, comm_r, 100);
    CHECK(c[17] == mod_limbs(h, nodes - 1) + 1);
    for (unsigned i = 0; i < 180; i++) CHECK(one[i] >= 1 && one[i] < nodes);
}

static void test_replica_id_and_inputs(rng_t *rng)
{
    uint8_t prover[32], ticket[32], comm_d[32], porep_id[32], out[32];
    rng_bytes(rng, prover, 32);
    rng_bytes(rng, ticket, 32);
    rng_bytes(rng, comm_d, 32);
    rng_bytes(rng, porep_id, 32);
    uint64_t sector = rng_next(rng);
    porep_replica_id(out, prover, sector, ticket, comm_d, porep_id);
    uint8_t pre[136], h[32];
    memcpy(pre, prover, 32);
    for (int i = 0; i < 8; i++) pre[32 + i] = (uint8_t)(sector >> (56 - 8 * i));
    memcpy(pre + 40, ticket, 32);
    memcpy(pre + 72, comm_d, 32);
    memcpy(pre + 104, porep_id, 32);
    sha256_digest(pre, sizeof pre, h);
    h[31] &= 0x3f;
    CHECK(memcmp(out, h, 32) == 0);

    porep_graph graph;
    cuzk_error err;
    CHECK(porep_graph_init(&graph, 64, POREP_API_1_1, porep_id, &err) == CUZK_OK);
    uint64_t ch[2] = {5, 63};
    fr_t in[3 + 2 * POREP_INPUTS_PER_CHALLENGE];
    uint8_t comm_r[32] = {1};
    CHECK(porep_public_inputs(in, &graph, ch, 2, out, out, comm_r, &err) == CUZK_OK);
    fr_t v;
    CHECK(fr_from_bytes_le(&v, out) == 0 && fr_eq(&v, &in[0]) && fr_eq(&v, &in[1]));
    fr_from_u64(&v, 1);
    CHECK(fr_eq(&v, &in[2]));
    for (unsigned i = 0; i < 2; i++) {
        const fr_t *o = in + 3 + POREP_INPUTS_PER_CHALLENGE * i;
        uint32_t p[POREP_DEGREE];
        porep_graph_parents(&graph, (uint32_t)ch[i], p);
        fr_from_u64(&v, ch[i]);
        CHECK(fr_eq(&o[0], &v) && fr_eq(&o[15], &v) && fr_eq(&o[16], &v) && fr_eq(&o[17], &v));
        for (int j = 0; j < POREP_DEGREE; j++) {
            fr_from_u64(&v, p[j]);
            CHECK(fr_eq(&o[1 + j], &v));
        }
    }
    uint8_t big[32];
    memset(big, 0xff, 32);
    CHECK(porep_public_inputs(in, &graph, ch, 2, big, out, comm_r, &err) == CUZK_ERR_FORMAT);
    ch[1] = 64;
    CHECK(porep_public_inputs(in, &graph, ch, 2, out, out, comm_r, &err) == CUZK_ERR_INVALID_ARG);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_porep_challenges");
    test_synth_vector();
    test_interactive(&rng);
    test_replica_id_and_inputs(&rng);
    return test_finish("test_porep_challenges");
}
