/* The registered PoSt proofs (abi.RegisteredPoStProof as Curio sends it in registered_proof): sector size,
 * Window or Winning, the ApiVersion that selects the challenge derivation, the challenges per sector and the
 * sectors per partition. Read-only table; sources in types.c. */
#ifndef CUZK_CIRCUITS_POST_TYPES_H
#define CUZK_CIRCUITS_POST_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "cuzk/status.h"

#define POST_WINNING_CHALLENGES 66 /* WINNING_POST_CHALLENGE_COUNT, all of one sector */
#define POST_WINDOW_CHALLENGES 10  /* WINDOW_POST_CHALLENGE_COUNT, per sector */
#define POST_MAX_CHALLENGES 66     /* inclusion proofs of one sector's vanilla proof, either kind */

typedef enum post_kind { POST_WINNING = 0, POST_WINDOW = 1 } post_kind;

typedef struct post_proof_type {
    const char *name;     /* Go abi name, e.g. "StackedDrgWindow32GiBV1_1" (Rust: StackedDrgWindow32GiBV1_2) */
    unsigned id;          /* abi.RegisteredPoStProof: Winning 0-4, Window V1 5-9, Window V1_1 10-14 */
    uint64_t sector_size; /* bytes */
    post_kind kind;
    porep_api api;         /* POREP_API_1_0 (ids 0-9) or POREP_API_1_2 (ids 10-14) */
    unsigned challenges;   /* inclusion proofs per sector vanilla proof: 66 Winning, 10 Window */
    unsigned sector_count; /* sectors per partition: Winning 1; Window 2349 (32 GiB), 2300 (64 GiB), else 2 */
} post_proof_type;

/* All entries in id order; *count receives the number. */
const post_proof_type *post_proof_types(size_t *count);
/* By abi id, or NULL. */
const post_proof_type *post_proof_type_by_id(unsigned id);
/* By id, with a message naming the id when unknown (CUZK_ERR_UNSUPPORTED). */
cuzk_status post_proof_type_get(unsigned id, const post_proof_type **out, cuzk_error *err);
/* The tree geometry of the type's sector size (never NULL for a table entry). */
const porep_geometry *post_proof_type_geometry(const post_proof_type *t);

#endif
