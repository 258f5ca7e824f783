/* r1cs_bellperson_hash: bellpepper-core's TestConstraintSystem::hash() (src/util_cs/test_cs.rs).
 * - The rules on a small system, against the byte stream built here by hand: term order inputs then aux, repeated
 *   variables summed, zero sums dropped, coefficients big-endian, the appended input constraints left out.
 * - The StackedDRG circuit of storage-proofs-porep tests/stacked_circuit.rs for DiskTree<Poseidon, U8, U0, U0>
 *   (8 nodes, 2 layers, 1 interactive challenge; 22 inputs, 1,199,620 constraints): rust-fil-proofs' circuit gives
 *   b9e22ee377bc73c4e08f679252c4f87948f5812be8c95358a6bf87a7279a785f. The shape does not depend on the witness
 *   (porep_id [44;32], V1_1_0, the XorShift seed only pick values), so the shape-only system is hashed. */
#include <string.h>

#include "circuits/stacked/stacked.h"
#include "circuits/stacked/stacked_fast.h"
#include "testutil.h"
#include "util/blake2s.h"

static cuzk_error err;

static void put_u64(blake2s_state *h, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (56 - 8 * i));
    blake2s_update(h, b, 8);
}

static void put_term(blake2s_state *h, char kind, uint64_t index, uint64_t coeff)
{
    uint8_t k = (uint8_t)kind, c[32];
    blake2s_update(h, &k, 1);
    put_u64(h, index);
    memset(c, 0, 32);
    for (int i = 0; i < 8; i++) c[31 - i] = (uint8_t)(coeff >> (8 * i));
    blake2s_update(h, c, 32);
}

static void test_rules(void)
{
    r1cs cs;
    CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
    r1cs_var a0, a1, in1;
    CHECK(r1cs_alloc_aux(&cs, NULL, &a0, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, NULL, &a1, &err) == CUZK_OK);
    CHECK(r1cs_alloc_input(&cs, NULL, &in1, &err) == CUZK_OK); /* an input allocated after aux */
    r1cs_lc la, lb, lc;
    r1cs_lc_init(&la), r1cs_lc_init(&lb), r1cs_lc_init(&lc);
    fr_t three, minus_one;
    fr_from_u64(&three, 3);
    fr_set_one(&minus_one);
    fr_neg(&minus_one, &minus_one);
    /* A = a1 + 3 in1 + a0 + a0 -> I1:3, A0:2, A1:1;  B = a1 - a1 + ONE -> I0:1;  C = empty. */
    CHECK(r1cs_lc_add(&la, a1, NULL, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&la, in1, &three, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&la, a0, NULL, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&la, a0, NULL, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&lb, a1, NULL, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&lb, a1, &minus_one, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&lb, r1cs_one(), NULL, &err) == CUZK_OK);
    CHECK(r1cs_enforce(&cs, &la, &lb, &lc, &err) == CUZK_OK);
    /* Second constraint: 0 * 0 = a0. */
    r1cs_lc_clear(&lc);
    CHECK(r1cs_lc_add(&lc, a0, NULL, &err) == CUZK_OK);
    CHECK(r1cs_enforce(&cs, NULL, NULL, &lc, &err) == CUZK_OK);
    uint8_t got[R1CS_HASH_BYTES], want[32];
    CHECK(r1cs_bellperson_hash(&cs, got, &err) == CUZK_ERR_INVALID_ARG); /* not finalized */
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    CHECK(cs.num_constraints == 4);
    CHECK(r1cs_bellperson_hash(&cs, got, &err) == CUZK_OK);

    blake2s_state h;
    blake2s_init(&h, 32, NULL, 0);
    put_u64(&h, 2), put_u64(&h, 2), put_u64(&h, 2);
    put_u64(&h, 3), put_term(&h, 'I', 1, 3), put_term(&h, 'A', 0, 2), put_term(&h, 'A', 1, 1);
    put_u64(&h, 1), put_term(&h, 'I', 0, 1);
    put_u64(&h, 0);
    put_u64(&h, 0), put_u64(&h, 0), put_u64(&h, 1), put_term(&h, 'A', 0, 1);
    blake2s_final(&h, want);
    CHECK(memcmp(got, want, 32) == 0);
    char hex[2 * R1CS_HASH_BYTES + 1];
    r1cs_hash_hex(got, hex);
    CHECK(strlen(hex) == 64);
    r1cs_lc_free(&la), r1cs_lc_free(&lb), r1cs_lc_free(&lc);
    r1cs_free(&cs);

    /* A system without matrices is refused with a message. */
    CHECK(r1cs_create_witness_only(&cs, &err) == CUZK_OK);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    CHECK(r1cs_bellperson_hash(&cs, got, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "without matrices"));
    r1cs_free(&cs);
}

static void test_stacked_circuit_rs(void)
{
    stacked_circuit c;
    CHECK(stacked_circuit_init(&c, 8, 2, 1, 8, 0, 0, &err) == CUZK_OK);
    r1cs cs;
    CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
    CHECK(stacked_synthesize(&cs, &c, NULL, &err) == CUZK_OK);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    CHECK(cs.num_inputs == 22 && cs.num_constraints == 1199620 + 22);
    uint8_t got[R1CS_HASH_BYTES];
    CHECK(r1cs_bellperson_hash(&cs, got, &err) == CUZK_OK);
    char hex[2 * R1CS_HASH_BYTES + 1];
    r1cs_hash_hex(got, hex);
    printf("stacked_circuit.rs 8-0-0, 8 nodes: hash %s\n", hex);
    CHECK_MSG(strcmp(hex, "b9e22ee377bc73c4e08f679252c4f87948f5812be8c95358a6bf87a7279a785f") == 0,
              "hash %s differs from rust-fil-proofs'", hex);
    r1cs_free(&cs);
    /* The compiled shape (stacked_fast: what setup and the engine build) hashes the same. */
    r1cs fast;
    CHECK(stacked_compile_shape(NULL, &c, &fast, &err) == CUZK_OK);
    uint8_t got_fast[R1CS_HASH_BYTES];
    CHECK(r1cs_bellperson_hash(&fast, got_fast, &err) == CUZK_OK);
    CHECK(memcmp(got, got_fast, R1CS_HASH_BYTES) == 0);
    r1cs_free(&fast);
    stacked_circuit_free(&c);
}

int main(void)
{
    test_rules();
    test_stacked_circuit_rs();
    return test_finish("stacked_hash");
}
