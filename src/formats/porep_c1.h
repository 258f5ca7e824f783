/* The PoRep commit-phase-1 output (circuits/porep/c1.h) in its two file forms, read and written:
 *  - the JSON of rust-filecoin-proofs-api SealCommitPhase1Output (serde_json of filecoin-ffi's
 *    seal_commit_phase1): {"registered_proof", "vanilla_proofs": {"StackedDrg<size>V1": [[Proof]]}, "comm_r",
 *    "comm_d", "replica_id", "seed", "ticket"}, every 32-byte value an array of 32 integers (little-endian Fr repr);
 *  - the Lotus/Curio envelope (lotus-bench Commit2In, Curio cuzk C1OutputWrapper):
 *    {"SectorNum": n, "Phase1Out": "<base64 of that JSON>", "SectorSize": bytes}.
 * The reader is a single pass over the text that stores only the values (about 56 KB per challenge for 32 GiB,
 * 10 MB in all); a JSON tree of a 50 MB C1 would take ~600 MB. */
#ifndef CUZK_FORMATS_POREP_C1_H
#define CUZK_FORMATS_POREP_C1_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/c1.h"
#include "cuzk/status.h"

/* Parses C1 JSON or the envelope (recognised by its "Phase1Out" member; *sector_num receives SectorNum, else 0;
 * may be NULL) and validates it with porep_c1_validate. Errors (CUZK_ERR_FORMAT, CUZK_ERR_NOMEM,
 * CUZK_ERR_UNSUPPORTED) name the byte offset, the partition, the challenge and the field. */
cuzk_status porep_c1_parse(porep_c1 *c1, const char *text, size_t len, int64_t *sector_num, cuzk_error *err);

/* Reads a whole file and parses it with porep_c1_parse. */
cuzk_status porep_c1_read_file(porep_c1 *c1, const char *path, int64_t *sector_num, cuzk_error *err);

/* Serializes as serde_json would (compact, fields in declaration order). *out is malloc'd; free() it. The
 * envelope form wraps that JSON in {"SectorNum","Phase1Out","SectorSize"}. */
cuzk_status porep_c1_to_json(const porep_c1 *c1, char **out, size_t *len, cuzk_error *err);
cuzk_status porep_c1_to_envelope(const porep_c1 *c1, int64_t sector_num, char **out, size_t *len, cuzk_error *err);

#endif
