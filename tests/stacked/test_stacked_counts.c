/* Constraint and input counts of the StackedDRG circuit and its gadgets against the numbers rust-fil-proofs' tests
 * assert (storage-proofs-core tests/por_circuit.rs and gadgets/insertion.rs, storage-proofs-porep
 * tests/stacked_circuit.rs and circuit/create_label.rs) and the 32 GiB partition Curio's cuzk measured
 * (130,278,869 constraints with bellperson's input constraints, 130,169,893 aux, 328 inputs). Counting, shape-only
 * and full systems must agree. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/gadgets/insertion.h"
#include "circuits/gadgets/por.h"
#include "circuits/hash/sha256.h"
#include "circuits/stacked/create_label.h"
#include "circuits/stacked/stacked.h"
#include "testutil.h"

static cuzk_error err;

/* A counting system: witness-only without values (what stacked_circuit_count uses). */
static int count_system(r1cs *cs)
{
    if (r1cs_create_witness_only(cs, &err) != CUZK_OK) return -1;
    cs->has_witness = 0;
    return 0;
}

static void test_insertion_counts(void)
{
    /* insertion.rs: 2 for size 2, 8 for 4, 22 for 8 ("unoptimized, would be 56"), size (size - 1) otherwise. */
    static const size_t want[5] = {2, 8, 22, 240, 992};
    for (unsigned nbits = 1; nbits <= 5; nbits++) {
        r1cs cs;
        CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
        fr_t z;
        fr_set_zero(&z);
        gadget_num x, e[31], out[32];
        gadget_bool bits[5];
        CHECK(gadget_num_alloc(&cs, &z, &x, &err) == CUZK_OK);
        for (unsigned i = 0; i < nbits; i++) {
            gadget_bit b;
            CHECK(gadget_bit_alloc(&cs, 0, &b, &err) == CUZK_OK);
            bits[i] = gadget_bool_from_bit(&b);
        }
        for (unsigned i = 0; i + 1 < (1u << nbits); i++) CHECK(gadget_num_alloc(&cs, &z, &e[i], &err) == CUZK_OK);
        size_t before = cs.num_constraints;
        CHECK(gadget_insert(&cs, &x, bits, nbits, e, out, &err) == CUZK_OK);
        CHECK_MSG(cs.num_constraints - before == want[nbits - 1], "size %u: %zu constraints, want %zu", 1u << nbits,
                  cs.num_constraints - before, want[nbits - 1]);
        r1cs_free(&cs);
    }
}

/* tests/por_circuit.rs: 64 leaves per base tree, public root: 3 inputs (ONE, path, root). */
static void test_por_counts(void)
{
    static const struct {
        por_hasher h;
        unsigned base, sub, top;
        size_t want;
    } cases[] = {
        {POR_SHA256, 2, 0, 0, 272295}, {POR_SHA256, 4, 0, 0, 216258}, {POR_SHA256, 8, 0, 0, 250987},
        {POR_POSEIDON, 2, 0, 0, 1887}, {POR_POSEIDON, 4, 0, 0, 1164}, {POR_POSEIDON, 8, 0, 0, 1063},
        {POR_POSEIDON, 8, 2, 0, 1377}, {POR_POSEIDON, 8, 4, 2, 1764}, {POR_POSEIDON, 8, 8, 0, 1593},
        {POR_POSEIDON, 8, 8, 2, 1907}, {POR_POSEIDON, 8, 2, 4, 1764},
    };
    poseidon_constants pc[17];
    memset(pc, 0, sizeof pc);
    for (unsigned a = 2; a <= 8; a *= 2)
        CHECK(poseidon_constants_create(&pc[a], a, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        por_tree t;
        memset(&t, 0, sizeof t);
        t.hasher = cases[k].h;
        unsigned base_levels = cases[k].base == 2 ? 6 : cases[k].base == 4 ? 3 : 2;
        for (unsigned l = 0; l < base_levels; l++) t.arity[t.levels++] = cases[k].base;
        if (cases[k].sub) t.arity[t.levels++] = cases[k].sub;
        if (cases[k].top) t.arity[t.levels++] = cases[k].top;
        for (unsigned l = 0; l < t.levels; l++) t.pc[l] = &pc[t.arity[l]];
        for (int pub = 0; pub <= 1; pub++) {
            r1cs cs;
            CHECK(count_system(&cs) == 0);
            por_args a;
            memset(&a, 0, sizeof a);
            a.public_root = pub;
            CHECK(gadget_por(&cs, &t, &a, NULL, &err) == CUZK_OK);
            size_t want = cases[k].want - (pub ? 0 : 1);
            CHECK_MSG(cs.num_constraints == want && cs.num_inputs == (size_t)(2 + pub),
                      "PoR %s %u-%u-%u public %d: %zu constraints %zu inputs, want %zu and %d",
                      t.hasher == POR_SHA256 ? "sha256" : "poseidon", cases[k].base, cases[k].sub, cases[k].top, pub,
                      cs.num_constraints, cs.num_inputs, want, 2 + pub);
            r1cs_free(&cs);
        }
    }
    for (unsigned a = 2; a <= 8; a *= 2) poseidon_constants_free(&pc[a]);
}

/* bytes_into_boolean_vec_be: every bit of every byte allocated, most significant first. */
static void alloc_bytes_be(r1cs *cs, const uint8_t *bytes, size_t n, gadget_bool *out)
{
    for (size_t i = 0; i < n * 8; i++) {
        gadget_bit b;
        CHECK(gadget_bit_alloc(cs, bytes[i / 8] >> (7 - i % 8) & 1, &b, &err) == CUZK_OK);
        out[i] = gadget_bool_from_bit(&b);
    }
}

/* create_label.rs test_create_label: 37 allocated parents and an allocated id, constant layer and node: 532,025.
 * Its value must be the label the vanilla code computes (SHA-256 of the 1248-byte preimage, trimmed). */
static void test_create_label(rng_t *rng)
{
    uint8_t id[32], parents[14][32], pre[1248];
    fr_t f;
    fr_random(&f, rng);
    fr_to_bytes_le(id, &f);
    for (int i = 0; i < 14; i++) {
        fr_random(&f, rng);
        fr_to_bytes_le(parents[i], &f);
    }
    uint32_t layer = 3;
    uint64_t node = 22;
    for (int full = 0; full <= 1; full++) {
        r1cs cs;
        CHECK(full ? r1cs_create(&cs, 1, &err) == CUZK_OK : count_system(&cs) == 0);
        static gadget_bool pbits[37][256];
        const gadget_bool *pp[37];
        for (int i = 0; i < 37; i++) {
            alloc_bytes_be(&cs, parents[i % 14], 32, pbits[i]);
            pp[i] = pbits[i];
        }
        gadget_bool idb[256];
        alloc_bytes_be(&cs, id, 32, idb);
        gadget_u64 n = gadget_u64_const(node);
        gadget_num out;
        CHECK(stacked_create_label(&cs, idb, pp, layer, &n, &out, &err) == CUZK_OK);
        CHECK_MSG(cs.num_constraints == 532025, "create_label: %zu constraints", cs.num_constraints);
        if (full) {
            CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
            CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, NULL));
            memset(pre, 0, sizeof pre);
            memcpy(pre, id, 32);
            pre[32] = (uint8_t)(layer >> 24), pre[33] = (uint8_t)(layer >> 16), pre[34] = (uint8_t)(layer >> 8);
            pre[35] = (uint8_t)layer;
            for (int i = 0; i < 8; i++) pre[36 + i] = (uint8_t)(node >> (56 - 8 * i));
            for (int i = 0; i < 37; i++) memcpy(pre + 64 + 32 * i, parents[i % 14], 32);
            fr_t want;
            sha256_fr(pre, sizeof pre, &want);
            CHECK(fr_eq(&want, &out.value));
        }
        r1cs_free(&cs);
    }
}

/* tests/stacked_circuit.rs: 2 layers, 1 challenge, nodes = 8 x base tree count: 22 inputs. */
static void test_stacked_small(void)
{
    static const struct {
        uint64_t nodes;
        unsigned base, sub, top;
        size_t want;
    } cases[] = {{8, 2, 0, 0, 1206212}, {8, 8, 0, 0, 1199620}, {32, 8, 4, 0, 1296576}, {64, 8, 4, 2, 1346982}};
    for (size_t k = 0; k < 4; k++) {
        stacked_circuit c;
        CHECK(stacked_circuit_init(&c, cases[k].nodes, 2, 1, cases[k].base, cases[k].sub, cases[k].top, &err) ==
              CUZK_OK);
        stacked_info info;
        CHECK(stacked_circuit_count(&c, &info, &err) == CUZK_OK);
        CHECK_MSG(info.synth_constraints == cases[k].want && info.inputs == 22,
                  "%u-%u-%u, %llu nodes: %zu constraints, %zu inputs; want %zu and 22", cases[k].base, cases[k].sub,
                  cases[k].top, (unsigned long long)cases[k].nodes, info.synth_constraints, info.inputs, cases[k].want);
        CHECK(info.constraints == info.synth_constraints + info.inputs);
        if (k == 1) {
            /* A shape-only system built by the same code has the same numbers. */
            r1cs cs;
            CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
            CHECK(stacked_synthesize(&cs, &c, NULL, &err) == CUZK_OK);
            CHECK(cs.num_constraints == info.synth_constraints && cs.num_inputs == info.inputs &&
                  cs.num_aux == info.aux);
            CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
            CHECK(cs.num_constraints == info.constraints);
            r1cs_free(&cs);
        }
        stacked_circuit_free(&c);
    }
}

static void test_stacked_32gib(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    stacked_info info;
    cuzk_status st = stacked_circuit_info(34359738368ull, &info, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("32 GiB partition: %zu + %zu = %zu constraints, %zu inputs, %zu aux (counted in %.2f s)\n",
           info.synth_constraints, info.inputs, info.constraints, info.inputs, info.aux, s);
    CHECK(info.synth_constraints == 130278541);
    CHECK(info.constraints == 130278869);
    CHECK(info.inputs == 328);
    CHECK(info.aux == 130169893);
    CHECK(stacked_circuit_info(12345, &info, &err) == CUZK_ERR_INVALID_ARG);
}

/* The non-zeros of A, B and C of the 32 GiB partition as Curio's cuzk extracted them from bellperson (309,405,051 /
 * 130,327,340 / 282,656,500, the input rows included): every challenge has the same shape, so shape-only systems
 * of 1 and 2 challenges give the top-level and per-challenge parts. ~15 s and ~1 GB: only with CUZK_SLOW_TESTS=1. */
static void test_stacked_32gib_nnz(void)
{
    const porep_geometry *g = porep_geometry_for_size(34359738368ull);
    size_t nnz[3][3] = {{0}};
    for (unsigned ch = 1; ch <= 2; ch++) {
        stacked_circuit c;
        CHECK(stacked_circuit_init(&c, g->nodes, g->layers, ch, g->base_arity, g->sub_arity, g->top_arity, &err) ==
              CUZK_OK);
        r1cs cs;
        CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
        CHECK(stacked_synthesize(&cs, &c, NULL, &err) == CUZK_OK);
        nnz[ch][0] = cs.A.row_start[cs.A.rows];
        nnz[ch][1] = cs.B.row_start[cs.B.rows];
        nnz[ch][2] = cs.C.row_start[cs.C.rows];
        r1cs_free(&cs);
        stacked_circuit_free(&c);
    }
    static const size_t want[3] = {309405051, 130327340, 282656500};
    for (int m = 0; m < 3; m++) {
        size_t per = nnz[2][m] - nnz[1][m], total = nnz[1][m] + 17 * per + (m == 0 ? 328 : 0);
        CHECK_MSG(total == want[m], "32 GiB nnz(%c) %zu, want %zu", "ABC"[m], total, want[m]);
    }
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "stacked_counts");
    test_insertion_counts();
    test_por_counts();
    test_create_label(&rng);
    test_stacked_small();
    test_stacked_32gib();
    const char *slow = getenv("CUZK_SLOW_TESTS");
    if (slow && slow[0] == '1') test_stacked_32gib_nnz();
    return test_finish("stacked_counts");
}
