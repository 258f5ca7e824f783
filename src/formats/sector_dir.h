/* The sealed-sector directory (the convention shared by the PoSt and SnapDeals test data; `cuzk porep seal
 * --sector-dir DIR` writes it):
 *   sealed       the replica, sector_size bytes: node i = key_i + data_i in Fr, 32-byte little-endian
 *   unsealed     the original data, sector_size bytes
 *   sector.json  {"sector_size": N, "registered_seal_proof": ID, "sector_id": N, "prover_id": "<hex 32>",
 *                 "ticket": "<hex 32>", "comm_c": "<hex 32>", "comm_r_last": "<hex 32>", "comm_r": "<hex 32>",
 *                 "comm_d": "<hex 32>"}   (32-byte values: the bytes in order, i.e. the little-endian Fr repr)
 * Trees are not stored: whoever needs a path rebuilds them from these (small sizes only). */
#ifndef CUZK_FORMATS_SECTOR_DIR_H
#define CUZK_FORMATS_SECTOR_DIR_H

#include <stdint.h>

#include "circuits/porep/seal.h"
#include "cuzk/status.h"

#define SECTOR_DIR_MAX_SIZE (1ull << 30) /* the reader holds the whole replica */

typedef struct sector_dir {
    const porep_geometry *geometry;
    unsigned registered_seal_proof;
    uint64_t sector_id;
    uint8_t prover_id[32], ticket[32];
    porep_dom comm_c, comm_r_last, comm_r, comm_d;
    porep_dom *sealed;   /* geometry->nodes */
    porep_dom *unsealed; /* geometry->nodes, or NULL when not asked for */
} sector_dir;

/* Writes dir (created when missing) for sealed sector s, sealed with p as registered seal proof id. */
cuzk_status sector_dir_write(const char *dir, const porep_sealed *s, const porep_seal_params *p,
                             unsigned registered_seal_proof, cuzk_error *err);
/* Reads dir: sector.json, sealed, and unsealed when with_unsealed. Errors name the file and the field; the files
 * must be exactly sector_size bytes. */
cuzk_status sector_dir_read(sector_dir *d, const char *dir, int with_unsealed, cuzk_error *err);
void sector_dir_free(sector_dir *d);
/* The sector.json part of sector_dir_read: every field but sealed and unsealed (left NULL) from text (len bytes);
 * errors name the field. On failure *d is zeroed. */
cuzk_status sector_dir_parse_info(sector_dir *d, const char *text, size_t len, cuzk_error *err);

#endif
