/* The PoSt leaf challenges, as rust-fil-proofs derives them (storage-proofs-post fallback/vanilla.rs
 * generate_leaf_challenge, fallback/utils.rs get_challenge_index, filecoin-proofs api/post_util.rs
 * generate_fallback_sector_challenges):
 *   leaf = u64 LE of SHA-256(randomness || sector_id u64 LE || index u64 LE)[0..8] mod (sector_size / 32)
 *   index = n                            for ApiVersion 1.2 (Window V1_1, ids 10-14)
 *   index = sector_index * C + n         for ApiVersion 1.0 (Winning 0-4, Window V1 5-9)
 * where n < C is the challenge number within the sector (C = the type's challenges: 66 Winning, 10 Window) and
 * sector_index is the sector's position in the list of challenged sectors (all partitions, in order; 0 for the
 * single Winning sector). randomness is the 32 bytes as sent (Curio clears the top two bits of byte 31). */
#ifndef CUZK_CIRCUITS_POST_CHALLENGES_H
#define CUZK_CIRCUITS_POST_CHALLENGES_H

#include <stdint.h>

#include "circuits/post/types.h"

/* The challenge index hashed for challenge n of the sector at sector_index. */
uint64_t post_challenge_index(const post_proof_type *t, uint64_t sector_index, unsigned n);
/* The challenged leaf (node) of challenge n. */
uint64_t post_challenge_leaf(const post_proof_type *t, const uint8_t randomness[32], uint64_t sector_id,
                             uint64_t sector_index, unsigned n);
/* All t->challenges leaves of one sector into out. */
void post_challenge_leaves(const post_proof_type *t, const uint8_t randomness[32], uint64_t sector_id,
                           uint64_t sector_index, uint64_t *out);

#endif
