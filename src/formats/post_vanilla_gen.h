/* PoSt vanilla proofs made here, as test and benchmark data:
 *  - from sectors whose TreeR is in memory (sealed test sectors): what filecoin-ffi GenerateSingleVanillaProof
 *    computes, each challenge's TreeR inclusion proof;
 *  - synthetic, for any sector size (32 and 64 GiB included) without a replica: each sector is a sparse TreeR in
 *    which every leaf no challenge touches holds one default value (so every untouched subtree of a level hashes
 *    to that level's default), and the challenged leaves hold random values; the touched nodes are hashed up,
 *    so every path hashes to the one comm_r_last of its sector, and comm_r = Poseidon2(comm_c, comm_r_last) with
 *    a random comm_c. Challenges are derived from the randomness as the prover derives them. Cost: about
 *    levels x challenges Poseidon hashes per sector, spread over a pool's threads. */
#ifndef CUZK_FORMATS_POST_VANILLA_GEN_H
#define CUZK_FORMATS_POST_VANILLA_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "formats/post_vanilla.h"
#include "util/pool.h"

/* A sector with its TreeR in memory (porep_tree_r_build or porep_sealed's tree_r layout). */
typedef struct post_sector_tree {
    uint64_t sector_id;
    porep_dom comm_c, comm_r_last, comm_r;
    const porep_dom *tree_r;
} post_sector_tree;

/* The vanilla proofs of count sectors (their sizes t's) for randomness; sector k is at sector_index k in the
 * challenge derivation. */
cuzk_status post_vanilla_from_trees(post_vanilla *v, const post_proof_type *t, const post_sector_tree *sectors,
                                    size_t count, const uint8_t randomness[32], cuzk_error *err);

/* count synthetic sectors of t's size (Winning: count must be 1), every random value drawn from generators seeded
 * with seed (sector k from seed and k, so the result does not depend on the pool); sector ids first_id + k.
 * pool may be NULL. */
cuzk_status post_vanilla_synth(post_vanilla *v, const post_proof_type *t, size_t count, uint64_t first_id,
                               const uint8_t randomness[32], uint64_t seed, pool_t *pool, cuzk_error *err);

#endif
