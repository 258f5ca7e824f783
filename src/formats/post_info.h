/* The public values of a PoSt proof, as filecoin-ffi's VerifyWindowPoSt / VerifyWinningPoSt take them, in the JSON
 * form `cuzk verify-post --info` and `cuzk prove --post --info` read:
 *   {"registered_proof": 13, "randomness": "<64 hex>", "prover_id": "<64 hex>",
 *    "sectors": [{"sector_id": 1, "comm_r": "<64 hex>"}, ...]}
 * registered_proof is abi.RegisteredPoStProof; randomness, prover_id and comm_r are the 32 bytes as Filecoin holds
 * them (comm_r the Fr little-endian bytes), in hex with an optional 0x. sectors may be left out (for prove, where
 * the vanilla proofs carry them). Unknown keys are ignored. */
#ifndef CUZK_FORMATS_POST_INFO_H
#define CUZK_FORMATS_POST_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/post/post_public.h"

#define POST_INFO_MAX_SECTORS 4096

typedef struct post_info_file {
    const post_proof_type *type;
    uint8_t randomness[32], prover_id[32];
    size_t n;                    /* sectors */
    post_public_sector *sectors; /* n, malloc'd (NULL when n = 0) */
} post_info_file;

/* CUZK_ERR_FORMAT naming the key (and sector) that is missing or malformed; CUZK_ERR_UNSUPPORTED for an unknown
 * registered_proof. Every comm_r is checked below r. Free with post_info_free. */
cuzk_status post_info_parse(post_info_file *out, const char *text, size_t len, cuzk_error *err);
cuzk_status post_info_read(post_info_file *out, const char *path, cuzk_error *err);
void post_info_free(post_info_file *info);

#endif
