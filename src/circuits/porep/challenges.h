/* PoRep challenges and the values they are derived from, as rust-fil-proofs computes them
 * (storage-proofs-porep stacked/vanilla/challenges.rs, params.rs generate_replica_id, circuit/proof.rs
 * generate_public_inputs). Byte strings are the 32-byte little-endian representations the Rust code hashes. */
#ifndef CUZK_CIRCUITS_POREP_CHALLENGES_H
#define CUZK_CIRCUITS_POREP_CHALLENGES_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "circuits/porep/graph.h"
#include "cuzk/status.h"
#include "ff/fr.h"

/* bigint_to_challenge: the 32 bytes as a little-endian integer x, challenge = x mod (nodes - 1) + 1 (node 0 is
 * never challenged). nodes >= 2. */
uint64_t porep_challenge_from_bytes(const uint8_t x[32], uint64_t nodes);

/* Interactive: challenge i of partition k is from SHA256(replica_id || seed || u32 LE (count*k + i)). */
void porep_challenges_interactive(uint64_t *out, unsigned count, uint64_t nodes, const uint8_t replica_id[32],
                                  const uint8_t seed[32], unsigned k);
/* Non-interactive: SHA256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r || u32 LE j). */
void porep_challenges_ni(uint64_t *out, unsigned count, uint64_t nodes, const uint8_t replica_id[32],
                         const uint8_t comm_r[32], unsigned k);

/* Synthetic PoRep: min(nodes, 2^18) synthetic challenges from ChaCha20 keyed by
 * BLAKE2b-256/key "filecoin.io|PoRep|1|Synthetic|1|Generation"(replica_id || comm_r), 32 keystream bytes each;
 * the partition's challenges are the synthetic ones at indices u32 LE % num_synth from ChaCha20 keyed by
 * "...|Selection"(replica_id || seed). num_synth = 0 selects the default count. */
uint64_t porep_synth_challenge_count(uint64_t nodes);
uint64_t porep_synth_challenge(uint64_t nodes, const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t i);
void porep_synth_indexes(uint64_t *out, unsigned count, uint64_t num_synth, const uint8_t replica_id[32],
                         const uint8_t seed[32], unsigned k);
void porep_challenges_synth(uint64_t *out, unsigned count, uint64_t nodes, uint64_t num_synth,
                            const uint8_t replica_id[32], const uint8_t comm_r[32], const uint8_t seed[32], unsigned k);

/* The challenges of partition k for a proof type (count = porep_challenges(g, kind)); the seed is unused by
 * non-interactive PoRep, comm_r unused by interactive. */
void porep_challenges_derive(uint64_t *out, const porep_geometry *g, porep_kind kind, const uint8_t replica_id[32],
                             const uint8_t seed[32], const uint8_t comm_r[32], unsigned k);

/* replica_id = SHA256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id) with the top two bits of
 * byte 31 cleared (bytes_into_fr_repr_safe). */
void porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                      const uint8_t comm_d[32], const uint8_t porep_id[32]);

/* Public inputs of partition k's circuit (StackedCompound::generate_public_inputs): replica_id, comm_d, comm_r,
 * then for each challenge c: c (TreeD path), its 6 DRG and 8 expander parents (TreeC paths), c (the UInt64),
 * c (TreeR path), c (TreeC path of the challenged column): 3 + 18 * count values. Fails (CUZK_ERR_FORMAT) when a
 * 32-byte value is not below r. */
#define POREP_INPUTS_PER_CHALLENGE 18
cuzk_status porep_public_inputs(fr_t *out, const porep_graph *graph, const uint64_t *challenges, unsigned count,
                                const uint8_t replica_id[32], const uint8_t comm_d[32], const uint8_t comm_r[32],
                                cuzk_error *err);

#endif
