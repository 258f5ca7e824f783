/* StackedDRG PoRep geometry: for each sector size the graph (nodes, layers), the trees (TreeD binary SHA-256;
 * TreeC and TreeR Poseidon of shape base-sub-top) and the challenge layout (partitions x challenges), and the
 * registered seal proofs of the Filecoin proofs API (name, id, API version, challenge kind) with their porep_id.
 * Read-only tables; sources in geometry.c. */
#ifndef CUZK_CIRCUITS_POREP_GEOMETRY_H
#define CUZK_CIRCUITS_POREP_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define POREP_NODE_BYTES 32
#define POREP_DRG_DEGREE 6 /* BucketGraph parents, the first is node-1 (API >= 1.1) */
#define POREP_EXP_DEGREE 8 /* expander parents from the Feistel permutation */
#define POREP_DEGREE 14
#define POREP_LABEL_PARENTS 37 /* parent labels hashed into one label */
#define POREP_MAX_LAYERS 11
#define POREP_MAX_CHALLENGES 18 /* per partition */
#define POREP_MAX_PARTITIONS 126
#define POREP_MAX_TREE_LEVELS 40 /* TreeD of 64 GiB has 31 */

typedef struct porep_geometry {
    const char *name;                          /* "2KiB", "32GiB" */
    uint64_t sector_size;                      /* bytes */
    uint64_t nodes;                            /* sector_size / 32 */
    unsigned layers;                           /* SDR layers; also the TreeC column height and column-hash arity */
    unsigned partitions;                       /* interactive and synthetic PoRep */
    unsigned challenges;                       /* per partition, interactive and synthetic */
    unsigned ni_partitions, ni_challenges;     /* non-interactive PoRep */
    unsigned base_arity, sub_arity, top_arity; /* TreeR/TreeC shape; 0 = level absent */
    unsigned base_levels;                      /* path levels inside one base tree */
    unsigned tree_d_levels;                    /* log2(nodes) */
    int published;                             /* has parameters and a registered proof */
} porep_geometry;

/* All sizes, ascending; *count receives the number of entries. */
const porep_geometry *porep_geometries(size_t *count);
/* By exact sector size in bytes, or NULL. */
const porep_geometry *porep_geometry_for_size(uint64_t sector_size);
/* By name ("2KiB", "32GiB", case-insensitive) or by a decimal byte count ("2048"). */
cuzk_status porep_geometry_parse(const char *text, const porep_geometry **out, cuzk_error *err);

/* Number of base trees (1, sub, or sub*top) and leaves per base tree. */
unsigned porep_base_tree_count(const porep_geometry *g);
/* Levels of a TreeR/TreeC inclusion path and the arity of level i (leaf side first). */
unsigned porep_tree_levels(const porep_geometry *g);
unsigned porep_tree_level_arity(const porep_geometry *g, unsigned level);

typedef enum porep_api { POREP_API_1_0 = 0, POREP_API_1_1 = 1, POREP_API_1_2 = 2 } porep_api;
typedef enum porep_kind { POREP_INTERACTIVE = 0, POREP_SYNTHETIC = 1, POREP_NON_INTERACTIVE = 2 } porep_kind;

typedef struct porep_proof_type {
    const char *name; /* RegisteredSealProof variant, e.g. "StackedDrg32GiBV1_1" */
    unsigned id;      /* the registered proof id that goes into porep_id */
    uint64_t sector_size;
    porep_api api;
    porep_kind kind;
} porep_proof_type;

const porep_proof_type *porep_proof_types(size_t *count);
const porep_proof_type *porep_proof_type_by_name(const char *name);
const porep_proof_type *porep_proof_type_find(uint64_t sector_size, porep_api api, porep_kind kind);
/* porep_id = id as u64 LE || nonce (0) as u64 LE || 16 zero bytes. */
void porep_proof_type_porep_id(const porep_proof_type *t, uint8_t porep_id[32]);
/* Partitions and challenges per partition for the proof type's challenge kind. */
unsigned porep_partitions(const porep_geometry *g, porep_kind kind);
unsigned porep_challenges(const porep_geometry *g, porep_kind kind);
/* The VanillaSealProof variant that holds this size's proofs in C1 JSON ("StackedDrg2KiBV1"), NULL if none. */
const char *porep_vanilla_variant(const porep_geometry *g);

#endif
