/* The registered PoSt proofs and what a verifier derives from public values: the challenged leaves and the
 * circuit's public inputs, as rust-fil-proofs computes them (storage-proofs-post fallback/vanilla.rs
 * generate_leaf_challenge, fallback/circuit.rs generate_public_inputs; filecoin-proofs parameters.rs
 * window_post_setup_params / winning_post_setup_params, constants.rs). */
#ifndef CUZK_CIRCUITS_POST_POST_TYPES_H
#define CUZK_CIRCUITS_POST_POST_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "circuits/post/post.h"

#define POST_WINDOW_CHALLENGES 10  /* WINDOW_POST_CHALLENGE_COUNT */
#define POST_WINNING_CHALLENGES 66 /* WINNING_POST_CHALLENGE_COUNT, of WINNING_POST_SECTOR_COUNT = 1 sector */

typedef enum post_kind { POST_WINNING = 0, POST_WINDOW = 1 } post_kind;
/* ApiVersion of the proof type: it decides the challenge index (post_challenge_index). */
typedef enum post_api { POST_API_1_0 = 0, POST_API_1_2 = 2 } post_api;

typedef struct post_proof_type {
    const char *name; /* abi.RegisteredPoStProof, e.g. "StackedDrgWindow32GiBV1_1" (the proofs API's V1_2) */
    unsigned id;      /* abi id: Winning 0-4, Window 5-9, Window V1_1 10-14 */
    uint64_t sector_size;
    post_kind kind;
    post_api api;
} post_proof_type;

const post_proof_type *post_proof_types(size_t *count);
const post_proof_type *post_proof_type_by_id(uint64_t id);
/* The newest type of a kind and size (Window: V1_1 = API 1.2; Winning: V1), or NULL. */
const post_proof_type *post_proof_type_find(post_kind kind, uint64_t sector_size);
const char *post_kind_name(post_kind kind); /* "WindowPoSt", "WinningPoSt" */

/* WINDOW_POST_SECTOR_COUNT of a sector size (2 for the small sizes, 2349 for 32 GiB, 2300 for 64 GiB), 0 if none. */
unsigned post_window_sector_count(uint64_t sector_size);

/* The circuit's sectors and challenges for a kind: Window S x 10, Winning 66 x 1 (66 challenges of one sector
 * proved as 66 sectors of one challenge). */
void post_circuit_dims(post_kind kind, uint64_t sector_size, unsigned *sectors, unsigned *challenges);
/* The circuit of a proof type (geometry from circuits/porep/geometry.h). */
cuzk_status post_circuit_init_type(post_circuit *c, const post_proof_type *t, cuzk_error *err);
/* post_circuit_count of the circuit of a kind and size in bytes (`cuzk circuit-info --circuit wpost:SIZE`). */
cuzk_status post_circuit_info(post_kind kind, uint64_t sector_size, post_info *out, cuzk_error *err);

/* leaf = u64 LE of SHA256(randomness || sector_id u64 LE || index u64 LE)[0..8] mod nodes. */
uint64_t post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id, uint64_t index, uint64_t nodes);
/* The index hashed for challenge n of the sector_index-th sector of the partition (partition 0): n for API 1.2,
 * sector_index * challenges + n for 1.0. */
uint64_t post_challenge_index(post_api api, unsigned sector_index, unsigned challenges, unsigned n);

/* A sector as the verifier knows it. */
typedef struct post_public_sector {
    uint64_t sector_id;
    uint8_t comm_r[32]; /* Fr little-endian, as Filecoin's commitments are */
} post_public_sector;

/* The circuit's sectors for a request's n public sectors: Window: n in 1..S, the last repeated up to S;
 * Winning: exactly 1 sector, repeated 66 times. out has S entries (post_circuit_dims). CUZK_ERR_INVALID_ARG for
 * a wrong count. */
cuzk_status post_expand_sectors(const post_proof_type *t, const post_public_sector *in, size_t n,
                                post_public_sector *out, cuzk_error *err);
/* The challenged leaves of a sector at position sector_index of the request (for Window padding, the last real
 * sector's position; for Winning, the copy's position 0..65): challenges entries. */
void post_sector_challenges(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *sector,
                            unsigned sector_index, uint64_t *out);
/* The public inputs without ONE for the request's n sectors: per circuit sector comm_r then its challenges,
 * S * (1 + C) values into out (malloc'd, *count). CUZK_ERR_FORMAT naming the sector for a comm_r not below r. */
cuzk_status post_public_inputs(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *in,
                               size_t n, fr_t **out, size_t *count, cuzk_error *err);

#endif
