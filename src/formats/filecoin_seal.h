/* filecoin-ffi's VerifySeal from a sector's public values alone (filecoin-proofs api/seal.rs verify_seal):
 * replica_id from prover_id, sector_id, ticket, comm_d and porep_id; each partition's challenges from replica_id
 * and seed (interactive) or replica_id, comm_r and seed (synthetic); the partition's public inputs; one Groth16
 * check per 192-byte partition proof against the published verifying key. Non-interactive PoRep proofs are
 * SnarkPack aggregates and are not verified here. */
#ifndef CUZK_FORMATS_FILECOIN_SEAL_H
#define CUZK_FORMATS_FILECOIN_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "cuzk/status.h"
#include "formats/json.h"
#include "groth16/groth16.h"

/* What VerifySeal is given. */
typedef struct filecoin_seal {
    const porep_geometry *g;
    porep_api api;
    porep_kind kind;
    unsigned partitions;
    uint8_t porep_id[32], comm_r[32], comm_d[32], prover_id[32], ticket[32], seed[32];
    uint64_t sector_id;
} filecoin_seal;

/* "1.0.0", "1.1.0", "1.2.0" by porep_api; "interactive", "synthetic", "non-interactive" by porep_kind. */
extern const char *const FILECOIN_SEAL_API_NAMES[3];
extern const char *const FILECOIN_SEAL_KIND_NAMES[3];

/* An INFO object ({"registered_proof": ID} or {"sector_size": N, "porep_id", "api_version": "1.1.0" (or
 * "V1_1_0"), optional "api_features": ["SyntheticPoRep" | "NonInteractivePoRep"], optional "partitions"}, plus
 * "comm_r", "comm_d", "prover_id", "ticket", "seed" and "sector_id"), or a rust-fil-proofs seal regression record
 * (the same under "porep_config"). 32-byte values: 64 hex digits or an array of 32 bytes. CUZK_ERR_FORMAT naming
 * the field at fault. */
cuzk_status filecoin_seal_parse(const json_value *root, filecoin_seal *out, cuzk_error *err);

/* CUZK_OK when every partition verifies, CUZK_ERR_INVALID_PROOF when one does not (err names it); otherwise bad
 * input: CUZK_ERR_INVALID_ARG for a key of another circuit, CUZK_ERR_FORMAT for a proof of the wrong length,
 * CUZK_ERR_UNSUPPORTED for non-interactive PoRep. */
cuzk_status filecoin_seal_verify(const filecoin_seal *sp, const groth16_pvk *pvk, const uint8_t *proof, size_t len,
                                 cuzk_error *err);

#endif
