/* Poseidon: constants derived as neptune derives them, checked through neptune's published digests
 * (poseidon.rs hash_values, Standard and Strengthened, arities 2..36), rust-fil-proofs' hasher vectors
 * (filecoin-hashers poseidon.rs), the first round constant of neptune's t = 9 parameter file, and the round
 * numbers neptune's tests assert. The gadget against the native hash, neptune's constraint counts
 * (circuit.rs test_poseidon_hash), satisfaction, and the three r1cs modes agreeing. */
#include <string.h>

#include "circuits/gadgets/poseidon.h"
#include "circuits/hash/poseidon.h"
#include "testutil.h"

static cuzk_error err;

static const unsigned ARITIES[7] = {2, 4, 8, 11, 16, 24, 36};

/* neptune poseidon.rs hash_values: preimage [0, 1, ..., arity - 1], MerkleTree type; canonical limbs. */
static const uint64_t VEC_STANDARD[7][4] = {
    {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
    {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
    {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
    {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
    {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
    {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
    {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f}};
static const uint64_t VEC_STRENGTHENED[7][4] = {
    {0x793dbaf54552cd69, 0x5278ecbf17040ea6, 0xc48b36ecc4cab748, 0x33d28a753baee41b},
    {0x4650ee190212aa9a, 0xe5113a254d6f5c7e, 0x54013bdaf68ba4c2, 0x09d8207c51ca3f43},
    {0x9f0c3c93c3fc894e, 0xe843d4cfba662df1, 0xd69aae8fe1cb63e8, 0x69e61465981ae17e},
    {0x778af344d8f9e8b7, 0xc94fe2ca3f46d433, 0x07abbcf9b406e8d8, 0x28bb83ff439753c0},
    {0x3cc2664c5fd6ae07, 0xd7431eaaa5e43189, 0x43ba5f418c6ef01d, 0x68d7856395aa217e},
    {0x1df1da58827cb39d, 0x0566756b7b80fb10, 0x222eb82c6666be3d, 0x086e4e81a35bfd92},
    {0x636401e9371dc311, 0x8f69e35a702ed188, 0x64d73b2ddc03d43b, 0x609f8c6fe45cc054}};
/* neptune circuit.rs test_poseidon_hash (MerkleTree type); index 3 (arity 11) from storage-proofs-porep
 * hash_single_column. */
static const size_t COUNT_STANDARD[7] = {311, 377, 505, 598, 761, 1009, 1385};
static const size_t COUNT_STRENGTHENED[7] = {367, 433, 565, 0, 821, 1069, 1445};

static int eq_limbs(const fr_t *a, const uint64_t want[4])
{
    uint64_t c[4];
    fr_from_mont(c, a);
    return memcmp(c, want, sizeof c) == 0;
}

static void test_round_numbers(void)
{
    /* neptune round_numbers.rs test_round_numbers_against_known_values: width -> R_P (R_F is 8) */
    static const unsigned w[][2] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},  {7, 56},  {8, 57},
                                    {9, 57},  {10, 57}, {11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57},
                                    {16, 59}, {17, 59}, {18, 59}, {19, 59}, {20, 59}, {21, 59}, {22, 59},
                                    {23, 59}, {24, 59}, {25, 59}, {37, 60}, {65, 61}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        unsigned rf, rp;
        poseidon_round_numbers(w[i][0] - 1, POSEIDON_STANDARD, &rf, &rp);
        CHECK_MSG(rf == 8 && rp == w[i][1], "t = %u: (%u, %u), want (8, %u)", w[i][0], rf, rp, w[i][1]);
    }
    unsigned rf, rp;
    poseidon_round_numbers(2, POSEIDON_STRENGTHENED, &rf, &rp);
    CHECK(rf == 8 && rp == 69);
}

static void test_constants_t9(void)
{
    poseidon_constants pc;
    CHECK(poseidon_constants_create(&pc, 8, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    /* round_constants-1-1-255-9-8-57-73EDA...00000001.txt: 585 constants, the first one this */
    CHECK((pc.full_rounds + pc.partial_rounds) * pc.width == 585);
    uint8_t be[32], want[32];
    fr_to_bytes_be(be, &pc.round_constants[0]);
    CHECK(hex_decode(want, 32, "6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9") == 0);
    CHECK(memcmp(be, want, 32) == 0);
    fr_t tag;
    fr_from_u64(&tag, 0xff); /* neptune test_domain_tags */
    CHECK(fr_eq(&pc.domain_tag, &tag));
    poseidon_constants_free(&pc);
    CHECK(poseidon_constants_create(&pc, 0, POSEIDON_STANDARD, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(poseidon_constants_create(&pc, 37, POSEIDON_STANDARD, NULL, &err) == CUZK_ERR_INVALID_ARG);
}

static void test_vectors(rng_t *rng)
{
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 7; k++) {
            unsigned a = ARITIES[k];
            poseidon_constants pc;
            CHECK(poseidon_constants_create(&pc, a, s ? POSEIDON_STRENGTHENED : POSEIDON_STANDARD, NULL, &err) ==
                  CUZK_OK);
            fr_t pre[POSEIDON_MAX_ARITY], h, h2;
            for (unsigned i = 0; i < a; i++) fr_from_u64(&pre[i], i);
            poseidon_hash(&pc, pre, &h);
            poseidon_hash_correct(&pc, pre, &h2);
            CHECK_MSG(eq_limbs(&h, s ? VEC_STRENGTHENED[k] : VEC_STANDARD[k]), "arity %u %s", a,
                      s ? "strengthened" : "standard");
            CHECK(fr_eq(&h, &h2));
            /* the optimized form equals the textbook permutation on random inputs too */
            for (int r = 0; r < 3; r++) {
                for (unsigned i = 0; i < a; i++) fr_random(&pre[i], rng);
                poseidon_hash(&pc, pre, &h);
                poseidon_hash_correct(&pc, pre, &h2);
                CHECK_MSG(fr_eq(&h, &h2), "arity %u: optimized != correct", a);
            }
            poseidon_constants_free(&pc);
        }
    }
}

/* rust-fil-proofs filecoin-hashers poseidon.rs test_poseidon_hasher (binary tree over [1, 0, 0, 1]) and
 * test_hash_md (71 ones through arity-36 Merkle-Damgard, the MerkleTree constants). */
static void test_filecoin_vectors(void)
{
    static const uint64_t h10[4] = {0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3};
    static const uint64_t root[4] = {0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb};
    static const uint64_t md[4] = {0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7};
    poseidon_constants p2, p36;
    CHECK(poseidon_constants_create(&p2, 2, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    CHECK(poseidon_constants_create(&p36, 36, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    fr_t one, zero, pre[36], a, b, r;
    fr_set_one(&one);
    fr_set_zero(&zero);
    pre[0] = one;
    pre[1] = zero;
    poseidon_hash(&p2, pre, &a);
    CHECK(eq_limbs(&a, h10));
    pre[0] = zero;
    pre[1] = one;
    poseidon_hash(&p2, pre, &b);
    pre[0] = a;
    pre[1] = b;
    poseidon_hash(&p2, pre, &r);
    CHECK(eq_limbs(&r, root));
    /* hash_md: acc = x0; for each chunk of 35 of x1..x70: acc = H36(acc, chunk) */
    fr_t acc = one;
    for (int chunk = 0; chunk < 2; chunk++) {
        pre[0] = acc;
        for (int i = 1; i < 36; i++) pre[i] = one;
        poseidon_hash(&p36, pre, &acc);
    }
    CHECK(eq_limbs(&acc, md));
    poseidon_constants_free(&p2);
    poseidon_constants_free(&p36);
}

static int build(r1cs *cs, const poseidon_constants *pc, const fr_t *vals, gadget_num *out)
{
    gadget_num pre[POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < pc->arity; i++)
        if (gadget_num_alloc(cs, &vals[i], &pre[i], &err) != CUZK_OK) return -1;
    return gadget_poseidon_hash(cs, pre, pc, out, &err) == CUZK_OK ? 0 : -1;
}

static int same_matrices(const r1cs *x, const r1cs *y)
{
    if (x->num_coeffs != y->num_coeffs || memcmp(x->coeffs, y->coeffs, x->num_coeffs * sizeof(fr_t))) return 0;
    for (int m = 0; m < 3; m++) {
        const r1cs_matrix *a = m == 0 ? &x->A : m == 1 ? &x->B : &x->C;
        const r1cs_matrix *b = m == 0 ? &y->A : m == 1 ? &y->B : &y->C;
        size_t nnz = a->row_start[a->rows];
        if (a->rows != b->rows || nnz != b->row_start[b->rows] ||
            memcmp(a->row_start, b->row_start, (a->rows + 1) * sizeof *a->row_start) ||
            memcmp(a->col, b->col, nnz * sizeof *a->col) || memcmp(a->coeff, b->coeff, nnz * sizeof *a->coeff))
            return 0;
    }
    return 1;
}

static void test_gadget(rng_t *rng)
{
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 7; k++) {
            const size_t *counts = s ? COUNT_STRENGTHENED : COUNT_STANDARD;
            unsigned a = ARITIES[k];
            poseidon_constants pc;
            CHECK(poseidon_constants_create(&pc, a, s ? POSEIDON_STRENGTHENED : POSEIDON_STANDARD, NULL, &err) ==
                  CUZK_OK);
            fr_t vals[POSEIDON_MAX_ARITY], want;
            for (unsigned i = 0; i < a; i++) fr_random(&vals[i], rng);
            poseidon_hash(&pc, vals, &want);
            r1cs full, shape, wit;
            gadget_num o, o2, o3;
            CHECK(r1cs_create(&full, 1, &err) == CUZK_OK);
            CHECK(r1cs_create(&shape, 0, &err) == CUZK_OK);
            CHECK(r1cs_create_witness_only(&wit, &err) == CUZK_OK);
            CHECK(build(&full, &pc, vals, &o) == 0);
            CHECK(build(&shape, &pc, vals, &o2) == 0);
            CHECK(build(&wit, &pc, vals, &o3) == 0);
            size_t t = pc.width;
            size_t sboxes = t * pc.full_rounds + pc.partial_rounds, formula = 3 * (sboxes - 1) + (sboxes - a);
            CHECK_MSG(full.num_constraints == formula, "arity %u: %zu constraints, formula %zu", a,
                      full.num_constraints, formula);
            if (counts[k])
                CHECK_MSG(full.num_constraints == counts[k], "arity %u %s: %zu constraints, neptune %zu", a,
                          s ? "strengthened" : "standard", full.num_constraints, counts[k]);
            CHECK(fr_eq(&o.value, &want) && fr_eq(&full.aux[o.var.index], &want));
            CHECK(shape.num_constraints == full.num_constraints && wit.num_constraints == full.num_constraints);
            CHECK(shape.num_aux == full.num_aux && wit.num_aux == full.num_aux);
            CHECK(memcmp(wit.aux, full.aux, full.num_aux * sizeof(fr_t)) == 0);
            CHECK(r1cs_finalize(&full, &err) == CUZK_OK);
            CHECK(r1cs_finalize(&shape, &err) == CUZK_OK);
            CHECK(r1cs_finalize(&wit, &err) == CUZK_OK);
            size_t bad;
            CHECK_MSG(r1cs_is_satisfied(NULL, &full, full.inputs, full.aux, &bad), "arity %u: row %zu", a, bad);
            CHECK(r1cs_is_satisfied(NULL, &shape, wit.inputs, wit.aux, &bad));
            CHECK(same_matrices(&full, &shape));
            /* any changed witness value breaks a constraint (every variable is constrained) */
            for (int f = 0; f < 6; f++) {
                size_t idx = (size_t)(rng_next(rng) % full.num_aux);
                fr_t saved = full.aux[idx], one;
                fr_set_one(&one);
                fr_add(&full.aux[idx], &full.aux[idx], &one);
                CHECK_MSG(!r1cs_is_satisfied(NULL, &full, full.inputs, full.aux, &bad), "arity %u aux %zu", a, idx);
                full.aux[idx] = saved;
            }
            r1cs_free(&full);
            r1cs_free(&shape);
            r1cs_free(&wit);
            poseidon_constants_free(&pc);
        }
    }
}

/* The gadget reused on its own output (as Merkle paths do), mixing in repeated inputs. */
static void test_chain(rng_t *rng)
{
    poseidon_constants pc;
    CHECK(poseidon_constants_create(&pc, 2, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    fr_t v, native[2];
    fr_random(&v, rng);
    gadget_num x, pre[2];
    CHECK(gadget_num_alloc(&cs, &v, &x, &err) == CUZK_OK);
    fr_t cur = v;
    gadget_num g = x;
    for (int i = 0; i < 4; i++) {
        pre[0] = g;
        pre[1] = i % 2 ? x : g;
        native[0] = cur;
        native[1] = i % 2 ? v : cur;
        CHECK(gadget_poseidon_hash(&cs, pre, &pc, &g, &err) == CUZK_OK);
        poseidon_hash(&pc, native, &cur);
        CHECK(fr_eq(&g.value, &cur));
    }
    CHECK(cs.num_constraints == 4 * 311);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    size_t bad;
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad));
    r1cs_free(&cs);
    poseidon_constants_free(&pc);
}

/* Allocation failures inside the gadget come back as CUZK_ERR_NOMEM, never a crash or a leak (ASan). */
static void test_nomem(rng_t *rng)
{
    poseidon_constants pc;
    CHECK(poseidon_constants_create(&pc, 4, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    fr_t vals[4];
    for (int i = 0; i < 4; i++) fr_random(&vals[i], rng);
    for (long n = 0; n < 3000; n += 37) {
        r1cs cs;
        if (r1cs_create(&cs, 1, &err) != CUZK_OK) continue;
        gadget_num o;
        r1cs_test_fail_alloc_after(n);
        int rc = build(&cs, &pc, vals, &o);
        r1cs_test_fail_alloc_after(-1);
        CHECK(rc == 0 || err.code == CUZK_ERR_NOMEM);
        r1cs_free(&cs);
    }
    poseidon_constants_free(&pc);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_poseidon");
    test_round_numbers();
    test_constants_t9();
    test_vectors(&rng);
    test_filecoin_vectors();
    test_gadget(&rng);
    test_chain(&rng);
    test_nomem(&rng);
    return test_finish("test_poseidon");
}
