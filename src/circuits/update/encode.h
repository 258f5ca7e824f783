/* SnapDeals encoding and the trees around it, the way rust-fil-proofs storage-proofs-update vanilla.rs
 * encode_into does: new replica node i = old replica node i + data node i * rho(i >> (log2(nodes) - h)), TreeD
 * (binary SHA-256) over the data, TreeR-new (Poseidon 8-x-y) over the new replica, comm_r_new = Poseidon2(comm_c,
 * root_r_new), and TreeR-old over the old replica for its paths.
 *
 * A tree is held per level. Its leaves may be given per block of 2^block_bits nodes (every node of a block has the
 * block's value): then every level whose nodes cover at most a block is one value per block, computed once, and
 * only the levels above are stored. block_bits = 0 is an ordinary tree (small sectors, every node stored);
 * block_bits = log2(nodes) - h (the rho regions) makes a consistent 32 GiB sector of a few thousand hashes, which
 * synth-vanilla uses for full-size benchmarks. */
#ifndef CUZK_CIRCUITS_UPDATE_ENCODE_H
#define CUZK_CIRCUITS_UPDATE_ENCODE_H

#include "circuits/update/update.h"

typedef struct update_tree {
    por_hasher hasher;
    unsigned levels;
    unsigned arity[POR_MAX_LEVELS];
    const poseidon_constants *pc[POR_MAX_LEVELS];
    unsigned leaf_bits, block_bits;
    unsigned chain_levels;         /* levels 0..chain_levels-1 are one value per block */
    fr_t *chain;                   /* blocks x chain_levels */
    fr_t *lvl[POR_MAX_LEVELS + 1]; /* levels chain_levels..levels, stored */
} update_tree;

/* TreeD (tree_d 1) or TreeR of circuit c over 2^(leaf_bits - block_bits) block values. */
cuzk_status update_tree_build(update_tree *t, const update_circuit *c, int tree_d, unsigned block_bits,
                              const fr_t *blocks, cuzk_error *err);
void update_tree_free(update_tree *t);
const fr_t *update_tree_node(const update_tree *t, unsigned level, uint64_t index);
const fr_t *update_tree_root(const update_tree *t);
/* The path of leaf i: per level its position among its siblings and the arity - 1 siblings. */
void update_tree_path(const update_tree *t, uint64_t i, uint8_t *index, fr_t *sibs);

typedef struct update_encoded {
    fr_t comm_c, comm_r_old, comm_d_new, comm_r_new;
    update_tree d, r_old, r_new;
} update_encoded;

/* old and data: per block of 2^block_bits nodes (block_bits 0: per node; at most log2(nodes) - h so each block has
 * one rho). data values must be below 2^254 (Fr32). */
cuzk_status update_encode(update_encoded *e, const update_circuit *c, unsigned block_bits, const fr_t *old,
                          const fr_t *data, const fr_t *comm_c, cuzk_error *err);
void update_encoded_free(update_encoded *e);

#endif
