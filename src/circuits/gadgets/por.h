/* Merkle inclusion (proof of retrievability), constraint-for-constraint rust-fil-proofs storage-proofs-core
 * gadgets/por.rs PoRCircuit::synthesize with the hashers of filecoin-hashers (Sha256Function and PoseidonFunction
 * hash_multi_leaf_circuit). Conventions as in boolean.h.
 *
 * Order (SubPath::synthesize for the base levels, then the sub level, then the top level; one loop here since the
 * three only differ in arity): the leaf (allocated here unless given); per level: log2(arity) index bits
 * (AllocatedBit::alloc), the arity - 1 siblings (AllocatedNum::alloc), insert, the level hash; then every index
 * bit packed into public inputs (multipack::pack_into_inputs, one input while the path has at most 254 bits), the
 * root (allocated here unless given), constraint::equal(computed, root), and, for a public root, inputize.
 *
 * Level hashes: Poseidon: neptune poseidon_hash of the arity children with the MerkleTree constants of that arity.
 * SHA-256: each child to_bits_le (256 constraints), padded to 256 bits with its bytes' bits reversed, then
 * Sha256Function::hash_circuit of the concatenation (the two constant pad bits fold away inside SHA-256). */
#ifndef CUZK_CIRCUITS_GADGETS_POR_H
#define CUZK_CIRCUITS_GADGETS_POR_H

#include "circuits/gadgets/num.h"
#include "circuits/hash/poseidon.h"

#define POR_MAX_LEVELS 64
#define POR_MAX_ARITY 16

typedef enum por_hasher { POR_SHA256 = 0, POR_POSEIDON = 1 } por_hasher;

/* The shape of one inclusion path, leaf side first. For Poseidon, pc[l] are the constants for arity[l]. */
typedef struct por_tree {
    por_hasher hasher;
    unsigned levels;
    unsigned arity[POR_MAX_LEVELS]; /* powers of two, 2..POR_MAX_ARITY */
    const poseidon_constants *pc[POR_MAX_LEVELS];
} por_tree;

typedef struct por_args {
    const gadget_num *leaf; /* Root::Var; NULL: allocate leaf_value first (Root::Val) */
    fr_t leaf_value;
    const gadget_num *root; /* Root::Var; NULL: allocate root_value after the path input (Root::Val) */
    fr_t root_value;
    int public_root;      /* PoRCircuit private = false: inputize the root */
    const uint8_t *index; /* per level, the running node's position among its siblings; NULL: zeros (shape) */
    const fr_t *sibs;     /* per level arity - 1 siblings, levels concatenated; NULL: zeros (shape) */
} por_args;

/* 1 if a is an arity a tree level may have: a power of two, 2..POR_MAX_ARITY. */
int por_arity_ok(unsigned a);

/* The Poseidon constants of a TreeR-shaped tree (rust-fil-proofs' base, sub and top arities). */
typedef struct por_tree_constants {
    poseidon_constants base, sub, top;
} por_tree_constants;

/* A Poseidon tree of base_levels levels of base_arity, then one of sub_arity and one of top_arity where not 0:
 * creates k's constants and fills t, whose pc[] point into k (k must stay where it is while t is used). Arities
 * must be powers of two, 2..POR_MAX_ARITY, and the levels at most POR_MAX_LEVELS; CUZK_ERR_INVALID_ARG
 * otherwise. On failure k is freed. */
cuzk_status por_tree_poseidon(por_tree *t, por_tree_constants *k, unsigned base_arity, unsigned base_levels,
                              unsigned sub_arity, unsigned top_arity, cuzk_error *err);
void por_tree_constants_free(por_tree_constants *k);

/* Total index bits of the path (= log2 of the leaves the path addresses). */
unsigned por_tree_bits(const por_tree *t);

/* PoRCircuit::synthesize. computed (may be NULL) receives the hash the path ends in. */
cuzk_status gadget_por(r1cs *cs, const por_tree *t, const por_args *args, gadget_num *computed, cuzk_error *err);

/* One level hash (hash_multi_leaf_circuit) of arity children. */
cuzk_status gadget_por_hash(r1cs *cs, por_hasher hasher, const poseidon_constants *pc, const gadget_num *children,
                            unsigned arity, gadget_num *out, cuzk_error *err);

#endif
