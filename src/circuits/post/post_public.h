/* The PoSt circuit of a registered proof type, and the public inputs a verifier derives for it from public values
 * alone, as rust-fil-proofs does (filecoin-proofs parameters.rs window_post_setup_params /
 * winning_post_setup_params; storage-proofs-post fallback/circuit.rs generate_public_inputs; filecoin-proofs
 * api/winning_post.rs verify_winning_post, which repeats the one sector 66 times).
 *
 * WindowPoSt: sector_count sectors of 10 challenges; a partition is always built with partition index 0 over the
 * request's own sectors; fewer sectors than sector_count repeat the last one (its inputs, challenges included,
 * copied). WinningPoSt: the one sector's 66 challenges proved as 66 sectors of one challenge, so circuit sector
 * i's challenge is challenge i of sector index 0. */
#ifndef CUZK_CIRCUITS_POST_POST_PUBLIC_H
#define CUZK_CIRCUITS_POST_POST_PUBLIC_H

#include "circuits/post/challenges.h"
#include "circuits/post/post.h"
#include "circuits/post/types.h"

/* The circuit's sectors and challenges per sector: Window sector_count x 10, Winning 66 x 1. */
void post_circuit_dims(const post_proof_type *t, unsigned *sectors, unsigned *challenges);
/* The circuit of a proof type. Window V1 and V1_1 of a size share it (the API version changes only the
 * challenges), and so do their parameters. */
cuzk_status post_circuit_init_type(post_circuit *c, const post_proof_type *t, cuzk_error *err);
/* post_circuit_count of the circuit of a kind and size in bytes (`cuzk circuit-info --circuit wpost:SIZE`). */
cuzk_status post_circuit_info(post_kind kind, uint64_t sector_size, post_info *out, cuzk_error *err);
/* The newest registered type of a kind and size (Window: V1_1, API 1.2; Winning: V1), or NULL. */
const post_proof_type *post_proof_type_find(post_kind kind, uint64_t sector_size);
const char *post_kind_name(post_kind kind); /* "WindowPoSt", "WinningPoSt" */

/* A sector as the verifier knows it. */
typedef struct post_public_sector {
    uint64_t sector_id;
    uint8_t comm_r[32]; /* Fr little-endian */
} post_public_sector;

/* The leaf challenges of circuit sector s (0 .. sectors - 1) of a request of n sectors: c challenges. */
void post_circuit_challenges(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *in,
                             size_t n, unsigned s, uint64_t *out);
/* The public inputs without ONE of a request of n sectors (Window: 1 .. sector_count; Winning: exactly 1): per
 * circuit sector comm_r then its challenges, sectors x (1 + challenges) values into *out (malloc'd). Errors:
 * CUZK_ERR_INVALID_ARG for a wrong sector count, CUZK_ERR_FORMAT naming the sector for a comm_r not below r. */
cuzk_status post_public_inputs(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *in,
                               size_t n, fr_t **out, size_t *count, cuzk_error *err);

#endif
