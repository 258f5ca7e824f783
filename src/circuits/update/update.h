/* The SnapDeals EmptySectorUpdate partition circuit, constraint for constraint rust-fil-proofs
 * storage-proofs-update circuit.rs (EmptySectorUpdateCircuit::synthesize) and gadgets.rs, with the constants of
 * constants.rs, so that the system equals the one bellperson synthesizes and the published parameters apply.
 *
 * Order: k_and_h_select (alloc, inputize, split into partition_bit_len + 6 allocated bits, binary decomposition
 * lc * ONE = k_and_h_select), the partition packed (pack_bits); comm_r_old, comm_d_new, comm_r_new (alloc,
 * inputize); phi = Poseidon2_gen(comm_d_new, comm_r_old); comm_c, root_r_old, root_r_new, the apex leaves and the
 * partition path (alloc); comm_r_old = Poseidon2(comm_c, root_r_old), comm_r_new = Poseidon2(comm_c, root_r_new);
 * apex_por (the apex tree by SHA-256 hash2, its root's PoR up the partition path to comm_d_new); gen_challenge_bits
 * (per digest: digest_index, digest = Poseidon2_gen(comm_r_new, digest_index), its 255 bits); then per challenge:
 * c_high (6 pack_bits, 6 products with h_select bits, their sum), rho = Poseidon2_gen(phi, c_high), leaf_r_old,
 * leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new * rho, the TreeR-old siblings and PoR, the TreeR-new siblings
 * and PoR, the apex-leaf select, the TreeD siblings to the apex leaf and their PoR.
 * Poseidon2_gen is neptune's arity-2 Poseidon with HashType::Custom(CType::Arbitrary(1)) (domain tag 2^40). */
#ifndef CUZK_CIRCUITS_UPDATE_UPDATE_H
#define CUZK_CIRCUITS_UPDATE_UPDATE_H

#include "circuits/gadgets/por.h"
#include "util/pool.h"

#define UPDATE_HS 6
#define UPDATE_MAX_CHALLENGES 86
#define UPDATE_MAX_APEX 128

/* One row of constants.rs: a sector size. */
typedef struct update_geometry {
    const char *name; /* "2KiB", "32GiB" */
    uint64_t nodes;
    unsigned base_arity, sub_arity, top_arity; /* validate_tree_r_shape */
} update_geometry;

/* The allowed sizes (ALLOWED_SECTOR_SIZES), smallest first; *n receives their number. */
const update_geometry *update_geometries(size_t *n);
/* By name ("32GiB") or byte count ("34359738368"); CUZK_ERR_INVALID_ARG naming the allowed sizes. */
cuzk_status update_geometry_parse(const char *text, const update_geometry **out, cuzk_error *err);
const update_geometry *update_geometry_for_size(uint64_t sector_bytes);

/* PublicParams::from_sector_size and the Poseidon constants of the circuit. */
typedef struct update_circuit {
    const update_geometry *g;
    unsigned challenge_bits, challenges, partitions, partition_bits, apex_leaves, apex_bits;
    unsigned hs[UPDATE_HS];
    unsigned bits_per_challenge, challenges_per_digest, digests; /* gen_challenge_bits */
    unsigned r_levels;                                           /* TreeR path length: base levels + sub + top */
    unsigned r_sibs;                                             /* TreeR siblings per path */
    por_tree tree_r;                                             /* Poseidon 8-x-y */
    por_tree_constants tree_r_k;
    por_tree tree_d; /* SHA-256 binary, the levels below the apex leaf */
    poseidon_constants p2, p_gen;
} update_circuit;

cuzk_status update_circuit_init(update_circuit *c, const update_geometry *g, cuzk_error *err);
void update_circuit_free(update_circuit *c);

/* h_select = 2^i for h = hs[i]; k_and_h_select = k | h_select << partition_bit_len (PublicInputs::new).
 * CUZK_ERR_INVALID_ARG for k >= partitions or an h not among hs. */
cuzk_status update_k_and_h_select(const update_circuit *c, unsigned k, unsigned h, uint64_t *out, cuzk_error *err);
/* h_default: hs[3]. */
unsigned update_h_default(const update_circuit *c);

/* The public inputs without ONE, in order: k_and_h_select, comm_r_old, comm_d_new, comm_r_new. */
#define UPDATE_NUM_PUBLIC_INPUTS 4

/* One challenge's values (circuit.rs ChallengeProof): paths leaf side first; path_r_* hold r_sibs values (the
 * arity - 1 siblings of each level, levels concatenated), path_d challenge_bits siblings (the whole TreeD path; the
 * circuit uses its first challenge_bits - partition_bits - apex_bits, and challenge 0's last partition_bits are the
 * partition path). */
typedef struct update_challenge {
    fr_t leaf_r_old, leaf_d_new, leaf_r_new;
    fr_t *path_r_old, *path_d, *path_r_new;
} update_challenge;

typedef struct update_witness {
    fr_t k_and_h_select, comm_r_old, comm_d_new, comm_r_new;
    fr_t comm_c, root_r_old, root_r_new;
    fr_t *apex_leaves;
    unsigned challenges;
    update_challenge *proofs;
    void *block;
} update_witness;

/* Zeroed arrays sized for c. Free with update_witness_free (safe on a zeroed struct). */
cuzk_status update_witness_alloc(update_witness *w, const update_circuit *c, cuzk_error *err);
void update_witness_free(update_witness *w);

/* The checks circuit.rs makes with assert! before it synthesizes (k < partitions, h_select one bit of the 6, the
 * other bits zero, every challenge's partition path equal to challenge 0's) and the leaf_r_new sanity check it
 * makes while synthesizing (rho as the circuit computes it), so a witness the circuit would reject is refused
 * first: CUZK_ERR_INVALID_ARG naming the challenge and the value. */
cuzk_status update_witness_check(const update_circuit *c, const update_witness *w, cuzk_error *err);

/* Native gen_challenge_bits / Challenges::new: the challenges of partition k (c->challenges of them), and the
 * native rho of challenge value ch for h (phi = Poseidon2_gen(comm_d_new, comm_r_old)). */
void update_challenges(const update_circuit *c, const fr_t *comm_r_new, unsigned k, uint64_t *out);
void update_phi(const update_circuit *c, const fr_t *comm_d_new, const fr_t *comm_r_old, fr_t *phi);
void update_rho(const update_circuit *c, const fr_t *phi, uint64_t challenge, unsigned h, fr_t *rho);

/* The variables of the top part that the challenge blocks read. */
typedef struct update_top_vars {
    gadget_bit h_select[UPDATE_HS];
    gadget_num phi, root_r_old, root_r_new;
    gadget_num apex[UPDATE_MAX_APEX];
    gadget_bit *c_bits; /* challenges x challenge_bits, the generated bits then the partition bits */
} update_top_vars;

/* The top part (everything before the challenge loop); allocates top->c_bits (update_top_vars_free). w NULL:
 * the shape with zero values. */
cuzk_status update_synth_top(r1cs *cs, const update_circuit *c, const update_witness *w, update_top_vars *top,
                             cuzk_error *err);
/* The top part with its apex tree's hashes (apex_leaves - 1 SHA-256 hashes of two nodes, row by row, left to right)
 * left to others, for the parallel witness: in a witness-only cs each hash is skipped (r1cs_witness_skip of
 * hash_aux aux and hash_constraints constraints, update_info's apex_hash_*) and its output takes the value
 * nodes[j], j the hash's number in that order; the rest is update_synth_top exactly. */
cuzk_status update_synth_top_skip_apex(r1cs *cs, const update_circuit *c, const update_witness *w, const fr_t *nodes,
                                       update_top_vars *top, cuzk_error *err);
void update_top_vars_free(update_top_vars *top);
/* Challenge i's block. p NULL: shape. */
cuzk_status update_synth_challenge(r1cs *cs, const update_circuit *c, const update_top_vars *top, unsigned i,
                                   const update_challenge *p, cuzk_error *err);
/* Challenge i's block in pieces, for the parallel witness (update_synth_challenge is the head, then every level):
 * the head is everything before the TreeD path's first level (update_info's challenge_head_*); TreeD level l
 * (treed_level_* each, and one constraint more for the last level, the check against the apex leaf) runs in a
 * witness-only cs from the running node's value *cur, reading the sibling and the index bit through their values,
 * and gives the node above in *next. */
cuzk_status update_synth_challenge_head(r1cs *cs, const update_circuit *c, const update_top_vars *top, unsigned i,
                                        const update_challenge *p, cuzk_error *err);
cuzk_status update_synth_challenge_treed_level(r1cs *cs, const update_circuit *c, const update_top_vars *top,
                                               unsigned i, const update_challenge *p, unsigned l, const fr_t *cur,
                                               fr_t *next, cuzk_error *err);
/* Top, then every challenge. w NULL: shape. */
cuzk_status update_synthesize(r1cs *cs, const update_circuit *c, const update_witness *w, cuzk_error *err);

/* The witness-only system of partition witness w, finalized, synthesized in pieces on pool (NULL: this thread),
 * each in a witness-only system that writes its values straight to their place: the top part with its apex
 * hashes skipped and each apex hash alone, then per challenge block its head and each TreeD level alone (the
 * nodes a piece starts from computed natively, and every circuit hash compared with its native value). Pieces read
 * the variables of others through their values only, so the result equals update_synthesize into one
 * witness-only system (test_update_witness checks every value). CUZK_ERR_INTERNAL if a piece's size differs from
 * the count. */
cuzk_status update_synthesize_witness(pool_t *pool, const update_circuit *c, const update_witness *w, r1cs *out,
                                      cuzk_error *err);
/* The finalized shape (matrices, no values) without synthesizing every block: the top level and two blocks are
 * compiled, block 1 is checked to be block 0 placed one block on (its own variables shifted by a block, its
 * challenge's bits at their columns, the rest shared), and the block is replicated in parallel on pool. Identical
 * to update_compile_shape_serial (test_update_shape compares every entry); CUZK_ERR_UNSUPPORTED if the blocks
 * were not copies of one another. */
cuzk_status update_compile_shape(pool_t *pool, const update_circuit *c, r1cs *out, cuzk_error *err);
/* The same by synthesizing every block into one shape-only system. */
cuzk_status update_compile_shape_serial(const update_circuit *c, r1cs *out, cuzk_error *err);

typedef struct update_info {
    size_t synth_constraints; /* TestConstraintSystem / BenchCS num_constraints */
    size_t constraints;       /* plus one per input (ONE included) */
    size_t inputs;            /* including ONE */
    size_t aux;
    size_t top_constraints, top_aux, challenge_constraints, challenge_aux; /* the parts */
    size_t apex_aux;                                       /* top aux before the apex tree's first hash */
    size_t apex_hash_aux, apex_hash_constraints;           /* one apex-tree hash (every one has this shape) */
    size_t challenge_head_aux, challenge_head_constraints; /* a block before its TreeD path */
    size_t treed_level_aux, treed_level_constraints;       /* one TreeD level of a block (the last: +1 constraint) */
} update_info;

/* Counts the top once and one challenge block once and multiplies (every block has the same shape:
 * test_update_counts checks that on the small sizes against a full count). 32 GiB: 81,049,499 synthesized. The
 * counts of a geometry are made once per process and remembered (thread-safe), since every partition's witness
 * needs them. */
cuzk_status update_circuit_info(const update_circuit *c, update_info *out, cuzk_error *err);
/* The full count by synthesizing every block in a counting system. */
cuzk_status update_circuit_count_full(const update_circuit *c, update_info *out, cuzk_error *err);

#endif
