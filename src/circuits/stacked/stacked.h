/* The StackedDRG PoRep partition circuit, constraint for constraint rust-fil-proofs storage-proofs-porep
 * stacked/circuit/proof.rs (StackedCircuit::synthesize) and params.rs (Proof::synthesize): the same variables,
 * constraints and public inputs in the same order, so that the system equals the one bellperson synthesizes and the
 * published Groth16 parameters apply.
 *
 * Top level: replica_id (alloc, inputize, to_bits_le + reverse_bit_numbering), comm_d and comm_r (alloc, inputize),
 * comm_r_last and comm_c (alloc), comm_r = Poseidon2(comm_c, comm_r_last) (equal). Then per challenge:
 *   data_leaf; TreeD PoR to comm_d;
 *   6 DRG then 8 expander parent columns: rows allocated, column hash (Poseidon of arity layers), TreeC PoR;
 *   the challenge as a UInt64 (alloc, pack_into_input);
 *   per layer 1..L: the DRG parents' rows of that layer and (from layer 2) the expander parents' rows of the previous
 *   layer to bits (to_bits_le, reverse_bit_numbering), expanded to 37 parents, create_label;
 *   encode (last label + data_leaf), TreeR PoR to comm_r_last; column hash of the labels, TreeC PoR to comm_c.
 * Every PoR has private roots and exposes its packed path bits, so the public inputs are replica_id, comm_d,
 * comm_r, then per challenge 18 values (porep_public_inputs in circuits/porep/challenges.h). */
#ifndef CUZK_CIRCUITS_STACKED_STACKED_H
#define CUZK_CIRCUITS_STACKED_STACKED_H

#include "circuits/gadgets/boolean.h"
#include "circuits/gadgets/por.h"
#include "circuits/gadgets/uint64.h"
#include "circuits/porep/c1.h"
#include "circuits/porep/geometry.h"

/* The circuit's shape and the Poseidon constants it needs. */
typedef struct stacked_circuit {
    uint64_t nodes;
    unsigned layers;     /* 2 or 11: also the column-hash arity */
    unsigned challenges; /* per partition */
    por_tree tree_d;     /* binary SHA-256 */
    por_tree tree_rc;    /* TreeR and TreeC: Poseidon, base levels then sub then top */
    por_tree_constants tree_rc_k;
    poseidon_constants p2, p_column;
} stacked_circuit;

/* A shape given directly (the rust-fil-proofs circuit tests use shapes no sector size has): nodes a power of two,
 * base_arity 2, 4 or 8, sub_arity and top_arity 0 or a power of two (top only with sub), nodes divisible by
 * sub * top with a power of base_arity left. Free with stacked_circuit_free (safe on a zeroed or failed struct). */
cuzk_status stacked_circuit_init(stacked_circuit *c, uint64_t nodes, unsigned layers, unsigned challenges,
                                 unsigned base_arity, unsigned sub_arity, unsigned top_arity, cuzk_error *err);
/* The circuit of one partition of a sector size for a challenge kind. */
cuzk_status stacked_circuit_init_geometry(stacked_circuit *c, const porep_geometry *g, porep_kind kind,
                                          cuzk_error *err);
void stacked_circuit_free(stacked_circuit *c);

/* Public inputs without ONE: 3 + 18 * challenges. */
size_t stacked_num_public_inputs(const stacked_circuit *c);

/* The values one partition's circuit is synthesized from (rust-fil-proofs' circuit-side StackedCircuit and Proof:
 * field elements, not bytes). Paths go leaf first; index[l] is the running node's position among its arity
 * siblings at level l; sibs holds the arity - 1 other children of each level, levels concatenated. */
typedef struct stacked_path {
    uint8_t *index;
    fr_t *sibs;
} stacked_path;

typedef struct stacked_column {
    fr_t *rows;        /* the node's labels in layers 1..L */
    stacked_path path; /* TreeC */
} stacked_column;

typedef struct stacked_challenge {
    uint64_t challenge;
    fr_t data_leaf;
    stacked_path comm_d; /* TreeD path of data_leaf */
    stacked_column drg[POREP_DRG_DEGREE], exp[POREP_EXP_DEGREE];
    stacked_path comm_r_last; /* TreeR path of the replica node */
    stacked_path comm_c;      /* TreeC path of the challenged column */
} stacked_challenge;

typedef struct stacked_witness {
    fr_t replica_id, comm_d, comm_r, comm_r_last, comm_c;
    unsigned challenges;
    stacked_challenge *proofs;
    void *block; /* the one allocation behind every array */
} stacked_witness;

/* Allocates a zeroed witness with arrays sized for c. Free with stacked_witness_free (safe on a zeroed struct). */
cuzk_status stacked_witness_alloc(stacked_witness *w, const stacked_circuit *c, cuzk_error *err);
void stacked_witness_free(stacked_witness *w);

/* The witness of partition k of a parsed C1, as rust-fil-proofs turns a vanilla proof into the circuit's Proof
 * (params.rs From<VanillaProof>): data leaf = the TreeD leaf, challenge, the three paths, the 14 parent columns;
 * comm_c and comm_r_last from the proofs' roots. c must be the circuit of c1's geometry and challenge kind
 * (stacked_circuit_init_geometry(c, c1->geometry, c1->type->kind)); CUZK_ERR_INVALID_ARG if not, CUZK_ERR_FORMAT
 * for a value not below r. Allocates w (stacked_witness_free). */
cuzk_status stacked_witness_from_c1(stacked_witness *w, const stacked_circuit *c, const porep_c1 *c1, unsigned k,
                                    cuzk_error *err);

/* Synthesizes the partition into cs (any r1cs mode). w NULL synthesizes the shape with zero values (for a
 * shape-only or counting system). w must have been allocated for c. */
cuzk_status stacked_synthesize(r1cs *cs, const stacked_circuit *c, const stacked_witness *w, cuzk_error *err);

/* stacked_synthesize in parts, for synthesizing pieces of a partition in separate systems (stacked_fast.c): the
 * top level, then per challenge the columns part (data leaf, TreeD path, the 14 parent columns, the challenge),
 * the label of each layer 1..L, and the finish (encoding, TreeR path, the challenged column). stacked_synthesize is
 * top, then for each challenge columns, labels, finish. A part reads of the variables of earlier parts only those
 * in its arguments, through their values and indices, so a system that holds other variables with the same values
 * (and the same kinds) synthesizes the same part. p NULL: shape. */
typedef struct stacked_top_vars {
    gadget_num comm_d, comm_c, comm_r_last;
    gadget_bool replica_id[256]; /* to_bits_le then reverse_bit_numbering */
} stacked_top_vars;

typedef struct stacked_challenge_vars {
    gadget_num data_leaf;
    gadget_num drg[POREP_DRG_DEGREE][POREP_MAX_LAYERS], exp[POREP_EXP_DEGREE][POREP_MAX_LAYERS];
    gadget_u64 challenge;
    gadget_num labels[POREP_MAX_LAYERS];
} stacked_challenge_vars;

cuzk_status stacked_synth_top(r1cs *cs, const stacked_circuit *c, const stacked_witness *w, stacked_top_vars *top,
                              cuzk_error *err);
/* Sets v's data_leaf, drg, exp and challenge. */
cuzk_status stacked_synth_columns(r1cs *cs, const stacked_circuit *c, const stacked_challenge *p,
                                  const stacked_top_vars *top, stacked_challenge_vars *v, cuzk_error *err);
/* Reads v's drg[.][layer - 1], exp[.][layer - 2] (layer > 1) and challenge; sets labels[layer - 1]. */
cuzk_status stacked_synth_label(r1cs *cs, const stacked_circuit *c, const stacked_top_vars *top,
                                stacked_challenge_vars *v, unsigned layer, cuzk_error *err);
/* Reads v's labels and data_leaf. */
cuzk_status stacked_synth_finish(r1cs *cs, const stacked_circuit *c, const stacked_challenge *p,
                                 const stacked_top_vars *top, const stacked_challenge_vars *v, cuzk_error *err);

/* Sizes of the partition circuit as bellperson reports them. */
typedef struct stacked_info {
    size_t synth_constraints; /* enforced by synthesis (TestConstraintSystem::num_constraints) */
    size_t constraints;       /* plus one input constraint per input (the prover's and cuzk's num_constraints) */
    size_t inputs;            /* including ONE */
    size_t aux;
} stacked_info;

/* Counts by synthesizing in a counting system: nothing stored per variable or constraint. */
cuzk_status stacked_circuit_count(const stacked_circuit *c, stacked_info *out, cuzk_error *err);

/* The interactive PoRep partition circuit of a sector size in bytes (what `cuzk circuit-info --circuit porep:SIZE`
 * reports); CUZK_ERR_INVALID_ARG for a size without geometry. 32 GiB: 130,278,541 + 328 = 130,278,869 constraints,
 * 328 inputs. */
cuzk_status stacked_circuit_info(uint64_t sector_size, stacked_info *out, cuzk_error *err);

#endif
