/* SnapDeals vanilla proofs end to end below the prover: a random sector encoded (update_encode), each partition's
 * PartitionProof written as bincode, read back (same bytes again), turned into a witness that a checking
 * constraint system finds satisfied with exactly the counted constraints; then corrupted bytes of the proof and of
 * the commitments must each be refused before synthesis (CUZK_ERR_FORMAT), and malformed bincode (truncations,
 * trailing bytes) refused by the reader. A block-structured (synth-vanilla style) sector must satisfy the circuit
 * too, and the parallel witness equal the serial one. Random data from a printed seed. */
#include <stdlib.h>
#include <string.h>

#include "circuits/update/encode.h"
#include "formats/snap_vanilla.h"
#include "testutil.h"

static cuzk_error err;
static rng_t rng;

static void rand_fr(fr_t *f, int fr32)
{
    uint8_t b[32];
    do {
        rng_bytes(&rng, b, 32);
        b[31] &= fr32 ? 0x3f : 0x7f;
    } while (fr_from_bytes_le(f, b));
}

/* Partition k's witness from bytes, then satisfied in a checker. Returns the status of the witness step. */
static cuzk_status prove_check(const update_circuit *c, const uint8_t *bin, size_t len, unsigned k,
                               const uint8_t cro[32], const uint8_t crn[32], const uint8_t cdn[32], int synth)
{
    snap_partition_proof p;
    cuzk_status st = snap_partition_proof_parse(&p, c, k, bin, len, &err);
    if (st) return st;
    update_witness w;
    st = snap_witness_from_proof(&w, c, &p, k, cro, crn, cdn, &err);
    snap_partition_proof_free(&p);
    if (st) return st;
    if (synth) {
        r1cs cs;
        CHECK(r1cs_create_checker(&cs, &err) == CUZK_OK);
        CHECK_MSG(update_synthesize(&cs, c, &w, &err) == CUZK_OK, "%s", err.msg);
        size_t bad, fails;
        CHECK_MSG(r1cs_checker_result(&cs, &bad, &fails), "%s partition %u: %zu failing, first %zu", c->g->name, k,
                  fails, bad);
        update_info info;
        CHECK(update_circuit_info(c, &info, &err) == CUZK_OK);
        CHECK(cs.num_constraints == info.synth_constraints && cs.num_aux == info.aux);
        r1cs_free(&cs);
    }
    if (synth > 1) {
        /* The parallel witness equals the serial one value for value. */
        r1cs ser, par;
        pool_t *pool;
        CHECK(pool_create(&pool, 3, &err) == CUZK_OK);
        CHECK(r1cs_create_witness_only(&ser, &err) == CUZK_OK);
        CHECK(update_synthesize(&ser, c, &w, &err) == CUZK_OK);
        CHECK(r1cs_finalize(&ser, &err) == CUZK_OK);
        CHECK_MSG(update_synthesize_witness(pool, c, &w, &par, &err) == CUZK_OK, "%s", err.msg);
        CHECK(ser.num_aux == par.num_aux && ser.num_inputs == par.num_inputs &&
              ser.num_constraints == par.num_constraints);
        CHECK(memcmp(ser.aux, par.aux, ser.num_aux * sizeof(fr_t)) == 0);
        CHECK(memcmp(ser.inputs, par.inputs, ser.num_inputs * sizeof(fr_t)) == 0);
        r1cs_free(&ser);
        r1cs_free(&par);
        pool_destroy(pool);
    }
    update_witness_free(&w);
    return CUZK_OK;
}

/* synth: 0 witness checks only, 1 also the checker, 2 also the parallel witness against the serial one. */
static void run_size(const char *name, int blocks, int corrupt, int synth)
{
    const update_geometry *g;
    CHECK(update_geometry_parse(name, &g, &err) == CUZK_OK);
    update_circuit c;
    CHECK(update_circuit_init(&c, g, &err) == CUZK_OK);
    unsigned bb = blocks ? c.challenge_bits - update_h_default(&c) : 0;
    uint64_t n = 1ull << (c.challenge_bits - bb);
    fr_t *old = malloc(sizeof(fr_t) * n), *data = malloc(sizeof(fr_t) * n), comm_c;
    for (uint64_t i = 0; i < n; i++) {
        rand_fr(&old[i], 0);
        rand_fr(&data[i], 1);
    }
    rand_fr(&comm_c, 0);
    update_encoded e;
    CHECK_MSG(update_encode(&e, &c, bb, old, data, &comm_c, &err) == CUZK_OK, "%s", err.msg);
    uint8_t cro[32], crn[32], cdn[32];
    fr_to_bytes_le(cro, &e.comm_r_old);
    fr_to_bytes_le(crn, &e.comm_r_new);
    fr_to_bytes_le(cdn, &e.comm_d_new);
    for (unsigned k = 0; k < c.partitions; k++) {
        snap_partition_proof p, q;
        CHECK(snap_partition_proof_from_encoded(&p, &c, &e, k, &err) == CUZK_OK);
        uint8_t *bin, *bin2;
        size_t len, len2;
        CHECK(snap_partition_proof_encode(&p, &c, &bin, &len, &err) == CUZK_OK);
        CHECK_MSG(snap_partition_proof_parse(&q, &c, k, bin, len, &err) == CUZK_OK, "%s", err.msg);
        CHECK(snap_partition_proof_encode(&q, &c, &bin2, &len2, &err) == CUZK_OK);
        CHECK(len == len2 && memcmp(bin, bin2, len) == 0);
        free(bin2);
        snap_partition_proof_free(&q);
        snap_partition_proof_free(&p);
        CHECK_MSG(prove_check(&c, bin, len, k, cro, crn, cdn, k == 0 ? synth : 0) == CUZK_OK, "%s k=%u: %s", name, k,
                  err.msg);
        if (corrupt && k == c.partitions - 1) {
            /* Every changed byte fails cleanly: sampled positions of the proof, each commitment byte. */
            for (int t = 0; t < 400; t++) {
                size_t pos = rng_next(&rng) % len;
                uint8_t was = bin[pos];
                bin[pos] ^= (uint8_t)(1 + rng_next(&rng) % 255);
                cuzk_status st = prove_check(&c, bin, len, k, cro, crn, cdn, 0);
                CHECK_MSG(st == CUZK_ERR_FORMAT, "%s: byte %zu changed: status %d", name, pos, st);
                bin[pos] = was;
            }
            uint8_t *cm[3] = {cro, crn, cdn};
            for (int w = 0; w < 3; w++)
                for (int b = 0; b < 32; b += 5) {
                    cm[w][b] ^= 1;
                    CHECK(prove_check(&c, bin, len, k, cro, crn, cdn, 0) == CUZK_ERR_FORMAT);
                    cm[w][b] ^= 1;
                }
            for (size_t cut = 0; cut < len; cut += 1 + len / 50) {
                snap_partition_proof r;
                CHECK(snap_partition_proof_parse(&r, &c, k, bin, cut, &err) == CUZK_ERR_FORMAT);
            }
            uint8_t *longer = malloc(len + 1);
            memcpy(longer, bin, len);
            longer[len] = 0;
            snap_partition_proof r;
            CHECK(snap_partition_proof_parse(&r, &c, k, longer, len + 1, &err) == CUZK_ERR_FORMAT);
            free(longer);
            /* A valid proof of another partition is refused. */
            if (c.partitions > 1) CHECK(prove_check(&c, bin, len, 0, cro, crn, cdn, 0) == CUZK_ERR_FORMAT);
            printf("%s: proof %zu bytes; last error: %s\n", name, len, err.msg);
        }
        free(bin);
    }
    update_encoded_free(&e);
    free(old);
    free(data);
    update_circuit_free(&c);
}

int main(void)
{
    test_seed(&rng, "test_update_vanilla");
    run_size("1KiB", 0, 0, 2);  /* TreeR 8-4-0 (Sub) */
    run_size("2KiB", 0, 1, 0);  /* 8-0-0 (Single) */
    run_size("32KiB", 0, 1, 1); /* 8-8-2 (Top), two partitions */
    run_size("4KiB", 1, 0, 1);  /* 8-2-0, block-structured as synth-vanilla makes them */
    return test_finish("test_update_vanilla");
}
