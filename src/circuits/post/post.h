/* The fallback PoSt circuit (WindowPoSt and WinningPoSt), constraint for constraint rust-fil-proofs
 * storage-proofs-post fallback/circuit.rs (FallbackPoStCircuit::synthesize, Sector::synthesize): the same
 * variables, constraints and public inputs in the same order, so that the published Groth16 parameters apply.
 *
 * Per sector, in order: comm_r_last, comm_c, comm_r allocated; comm_r inputized; Poseidon2(comm_c, comm_r_last)
 * equal to comm_r; per challenge a TreeR PoRCircuit with the leaf allocated first (Root::Val), the root the
 * sector's comm_r_last (private), and the packed path index as a public input. So the public inputs are ONE, then
 * per sector [comm_r, challenge_0 .. challenge_{C-1}]. A sector reads nothing allocated outside itself (ONE
 * aside), so every sector's block has the same shape, one block after another; post_fast.c relies on this. */
#ifndef CUZK_CIRCUITS_POST_POST_H
#define CUZK_CIRCUITS_POST_POST_H

#include "circuits/gadgets/por.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

typedef struct post_circuit {
    uint64_t nodes;      /* leaves of TreeR: sector_size / 32 */
    unsigned sectors;    /* S, sector_count of the public params */
    unsigned challenges; /* C, challenge_count */
    por_tree tree;       /* TreeR: Poseidon, base levels then sub then top */
    por_tree_constants tree_k;
    poseidon_constants p2;
} post_circuit;

#define POST_MAX_SECTORS 4096
#define POST_CIRCUIT_MAX_CHALLENGES 128

/* A shape given directly (rust-fil-proofs' circuit tests use shapes no sector size has): nodes divisible by
 * sub * top with a power of base_arity (2, 4 or 8) left, sub and top 0 or a power of two (top only with sub).
 * Free with post_circuit_free (safe on a zeroed or failed struct). */
cuzk_status post_circuit_init(post_circuit *c, uint64_t nodes, unsigned sectors, unsigned challenges,
                              unsigned base_arity, unsigned sub_arity, unsigned top_arity, cuzk_error *err);
void post_circuit_free(post_circuit *c);

/* Public inputs without ONE: S * (1 + C). */
size_t post_num_public_inputs(const post_circuit *c);

/* One challenge's inclusion path, leaf side first: index[l] is the running node's position among its arity
 * siblings at level l; sibs holds the arity - 1 other children of each level, levels concatenated. */
typedef struct post_path {
    fr_t leaf;
    uint8_t *index;
    fr_t *sibs;
} post_path;

typedef struct post_sector {
    fr_t comm_r, comm_c, comm_r_last;
    post_path *paths; /* challenges of them */
} post_sector;

typedef struct post_witness {
    unsigned sectors, challenges;
    post_sector *sector;
    void *block; /* the one allocation behind every array */
} post_witness;

/* A zeroed witness with arrays sized for c. Free with post_witness_free (safe on a zeroed struct). */
cuzk_status post_witness_alloc(post_witness *w, const post_circuit *c, cuzk_error *err);
void post_witness_free(post_witness *w);

/* The leaf index a path addresses (the public input its packed index bits make). */
uint64_t post_path_leaf_index(const post_circuit *c, const post_path *p);

/* Sector::synthesize of one sector (s NULL: shape, zero values). With values, a path that does not hash to the
 * sector's comm_r_last fails (CUZK_ERR_INVALID_PROOF naming the challenge) instead of giving an unsatisfied
 * system: the witness-only systems the prover synthesizes check no constraint. */
cuzk_status post_synth_sector(r1cs *cs, const post_circuit *c, const post_sector *s, cuzk_error *err);
/* The whole circuit into cs (any r1cs mode); w NULL: shape. */
cuzk_status post_synthesize(r1cs *cs, const post_circuit *c, const post_witness *w, cuzk_error *err);

/* Sizes as bellperson reports them (the fields of stacked_info). */
typedef struct post_info {
    size_t synth_constraints; /* enforced by synthesis (TestConstraintSystem / BenchCS num_constraints) */
    size_t constraints;       /* plus one input constraint per input */
    size_t inputs;            /* including ONE */
    size_t aux;
} post_info;

/* Counts one sector's block in a counting system and multiplies by S (the blocks are identical: the tests check
 * it against a whole synthesis), so a 125-million-constraint WindowPoSt costs one sector's synthesis. */
cuzk_status post_circuit_count(const post_circuit *c, post_info *out, cuzk_error *err);

/* Parallel synthesis (post_fast.c). The witness-only system of w (sectors synthesized in parallel on pool, NULL:
 * the caller's thread), identical to post_synthesize into r1cs_create_witness_only + r1cs_finalize; finalized. */
cuzk_status post_synthesize_witness(pool_t *pool, const post_circuit *c, const post_witness *w, r1cs *out,
                                    cuzk_error *err);
/* The finalized shape, compiled from two sectors: the second block is checked to equal the first shifted, then
 * the block is replicated (in parallel on pool). Identical to post_synthesize into a shape-only r1cs +
 * r1cs_finalize. */
cuzk_status post_compile_shape(pool_t *pool, const post_circuit *c, r1cs *out, cuzk_error *err);

#endif
