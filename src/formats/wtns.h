/* snarkjs/circom witness files (.wtns), and the iden3 "binfile" container that .wtns and .zkey share.
 *
 * Container (@iden3/binfileutils readBinFile/startWriteSection): 4-byte magic ("wtns", "zkey"), u32 version,
 * u32 number of sections, then that many sections, each u32 type, u64 size, size bytes of payload. All
 * integers little-endian. snarkjs looks sections up by type and rejects a duplicated one it needs
 * (startReadUniqueSection); types it does not read are skipped.
 *
 * .wtns (snarkjs src/wtns_utils.js, circom_runtime; version <= 2 as groth16_prove reads it):
 *   section 1: u32 n8 (32 for bls12381), q (n8 bytes LE: the scalar field modulus r), u32 nWitness
 *   section 2: nWitness values, n8 bytes each, canonical (NOT Montgomery) little-endian integers < r.
 * Index 0 is the constant ONE, then the public outputs, the public inputs, and the private signals. */
#ifndef CUZK_FORMATS_WTNS_H
#define CUZK_FORMATS_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"

/* ---- the container ---- */

/* Section types we look at are below this bound; others are checked for bounds and skipped. */
#define SNARKJS_MAX_SECTION_TYPE 16

typedef struct snarkjs_binfile {
    const uint8_t *buf; /* borrowed */
    size_t len;
    uint32_t version;
    /* per type < SNARKJS_MAX_SECTION_TYPE: payload offset and size of its first occurrence, and the count */
    uint64_t offset[SNARKJS_MAX_SECTION_TYPE], size[SNARKJS_MAX_SECTION_TYPE];
    uint32_t count[SNARKJS_MAX_SECTION_TYPE];
} snarkjs_binfile;

/* Checks the magic (4 characters) and version <= max_version and walks the section table: every section must
 * lie inside buf (CUZK_ERR_TRUNCATED naming its index, type and offset otherwise) and the last one must end
 * exactly at len (CUZK_ERR_FORMAT for trailing bytes). `what` names the file kind in messages. */
cuzk_status snarkjs_binfile_open(snarkjs_binfile *bf, const uint8_t *buf, size_t len, const char magic[4],
                                 uint32_t max_version, const char *what, cuzk_error *err);
/* The payload of the unique section of this type: CUZK_ERR_FORMAT if it is missing or duplicated. */
cuzk_status snarkjs_binfile_section(const snarkjs_binfile *bf, uint32_t type, const uint8_t **payload, size_t *size,
                                    const char *what, cuzk_error *err);

/* A whole file, memory-mapped read-only (an empty file gives buf NULL, len 0). CUZK_ERR_IO if it cannot be
 * opened or mapped. Release with snarkjs_unmap_file. */
cuzk_status snarkjs_map_file(const char *path, const uint8_t **buf, size_t *len, cuzk_error *err);
void snarkjs_unmap_file(const uint8_t *buf, size_t len);

/* ---- witness ---- */

typedef struct wtns {
    size_t n;     /* nWitness */
    fr_t *values; /* owned, Montgomery form */
} wtns;

/* Parses a .wtns image. Errors: CUZK_ERR_TRUNCATED / CUZK_ERR_FORMAT naming the section and byte offset
 * (wrong magic or version, n8 != 32, a prime other than BLS12-381's r, section 2 not nWitness * 32 bytes,
 * a value >= r), CUZK_ERR_NOMEM. On failure *out is left empty (nothing to free). */
cuzk_status wtns_parse(wtns *out, const uint8_t *buf, size_t len, cuzk_error *err);
cuzk_status wtns_read(wtns *out, const char *path, cuzk_error *err);
/* Writes a version-2 .wtns as snarkjs does. */
cuzk_status wtns_write(const char *path, const fr_t *values, size_t n, cuzk_error *err);
void wtns_free(wtns *w);

#endif
