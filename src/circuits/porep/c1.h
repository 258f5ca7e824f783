/* The PoRep commit-phase-1 output (C1): the vanilla proofs a PoRep C2 proves, in memory, with its validation, its
 * verification and the circuit's public inputs derived from it. Its JSON reader and writer (rust-filecoin-proofs-api
 * SealCommitPhase1Output and the Lotus/Curio envelope) are formats/porep_c1.h. */
#ifndef CUZK_CIRCUITS_POREP_C1_H
#define CUZK_CIRCUITS_POREP_C1_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "cuzk/status.h"
#include "ff/fr.h"

typedef uint8_t porep_dom[32]; /* a field element or SHA-256 node: 32 bytes, little-endian */

/* One Merkle inclusion proof. Levels go from the leaf up: TreeD has tree_d_levels binary levels; TreeR and TreeC
 * have porep_tree_levels(g) levels of arity porep_tree_level_arity(g, l) (base levels, then sub, then top). */
typedef struct porep_merkle_proof {
    porep_dom root, leaf;
    uint8_t *index;  /* per level: the position of the running node among its arity siblings */
    porep_dom *sibs; /* per level the arity-1 other children, in order, levels concatenated */
} porep_merkle_proof;

typedef struct porep_column_proof {
    uint32_t node;           /* column index */
    porep_dom *rows;         /* the labels of the node in layers 1..L */
    porep_merkle_proof path; /* TreeC inclusion of the column hash (path.leaf) */
} porep_column_proof;

typedef struct porep_challenge_proof {
    uint64_t challenge;             /* the challenged node (= every path index below) */
    porep_merkle_proof comm_d;      /* TreeD: leaf = the unsealed data node */
    porep_merkle_proof comm_r_last; /* TreeR: leaf = the replica node */
    porep_column_proof c_x;         /* the challenged column */
    porep_column_proof drg[POREP_DRG_DEGREE];
    porep_column_proof exp[POREP_EXP_DEGREE];
    porep_dom *labeling; /* layers x 37 parent labels (LabelingProof.parents), layer 1 first */
    porep_dom *encoding; /* 37 parent labels of the EncodingProof */
    void *block;         /* the single allocation holding every array above */
} porep_challenge_proof;

typedef struct porep_c1 {
    const porep_proof_type *type;
    const porep_geometry *geometry;
    porep_dom comm_r, comm_d, replica_id, seed, ticket;
    unsigned partitions, challenges; /* per partition */
    porep_challenge_proof *proofs;   /* partitions * challenges, partition-major */
} porep_c1;

/* Allocates a C1 with room for porep_partitions x porep_challenges proofs of the type's geometry (values zero). */
cuzk_status porep_c1_alloc(porep_c1 *c1, const porep_proof_type *type, cuzk_error *err);
void porep_c1_free(porep_c1 *c1);
static inline porep_challenge_proof *porep_c1_proof(const porep_c1 *c1, unsigned partition, unsigned i)
{
    return &c1->proofs[(size_t)partition * c1->challenges + i];
}

/* Everything that holds without hashing a Merkle path: counts and shapes for the registered proof's size and
 * challenge kind; every value below r; every path index, column index and labeling/encoding node equal to the
 * challenge; the challenges equal to those derived from replica_id and seed (or comm_r) for the partition; the
 * DRG and expander column indices equal to the graph's parents of the challenge; labeling parents equal to the
 * columns' rows in the 37-parent layout and the encoding parents to the last layer's; every TreeD root equal to
 * comm_d; one TreeR root (comm_r_last) and one TreeC root (comm_c) throughout. */
cuzk_status porep_c1_validate(const porep_c1 *c1, cuzk_error *err);

/* The cryptographic rest of the vanilla verification: every TreeD path hashes (SHA-256, 254-bit) to comm_d, every
 * TreeR/TreeC path (Poseidon) to comm_r_last / comm_c, each column hash is its TreeC leaf, each layer's label
 * recomputed from its labeling parents equals the column row, the replica leaf equals last label + data leaf, and
 * comm_r = Poseidon2(comm_c, comm_r_last). Assumes porep_c1_validate passed. */
cuzk_status porep_c1_verify(const porep_c1 *c1, cuzk_error *err);

/* The circuit's private roots, read from the proofs. */
void porep_c1_comm_c(const porep_c1 *c1, porep_dom out);
void porep_c1_comm_r_last(const porep_c1 *c1, porep_dom out);

/* The 3 + 18 * challenges public inputs of partition k's circuit (porep_public_inputs), from the C1's values and
 * its challenges. */
cuzk_status porep_c1_public_inputs(const porep_c1 *c1, unsigned k, fr_t *out, cuzk_error *err);

/* The arrays of one challenge proof for a geometry: how the reader and writer (formats/porep_c1.c) walk them. */
typedef struct porep_c1_layout {
    unsigned d_levels, t_levels, t_sibs, layers;
    unsigned t_arity[POREP_MAX_TREE_LEVELS], t_sib_off[POREP_MAX_TREE_LEVELS + 1];
} porep_c1_layout;
void porep_c1_layout_init(porep_c1_layout *lo, const porep_geometry *g);
/* One challenge proof's arrays (zero) in a single block (p->block); -1 when out of memory. */
int porep_c1_proof_alloc(porep_challenge_proof *p, const porep_c1_layout *lo);

#endif
