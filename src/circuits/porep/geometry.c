#include "circuits/porep/geometry.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

/* Sources (rust-fil-proofs 87348a7):
 * - layers, partitions: filecoin-proofs/src/constants.rs LAYERS, POREP_PARTITIONS;
 * - challenges: ceil(get_porep_interactive_minimum_challenges / partitions) (2 or 176 -> 2 or 18), parameters.rs
 *   select_challenges; NI: get_porep_non_interactive_partitions (13 / 126) and minimum 26 / 2253 -> 2 / 18;
 * - shapes: constants.rs SectorShape{Base,Sub2,Sub8,Top2} = LCTree<Poseidon, U8, U0|U2|U8, U0|U2> per size;
 * - base levels: storage-proofs-core merkle/proof.rs base_path_length (leaves / top / sub, arity 8);
 * - published: constants.rs PUBLISHED_SECTOR_SIZES. */
static const porep_geometry GEOMETRIES[] = {
    {"2KiB", 2 * KIB, 64, 2, 1, 2, 13, 2, 8, 0, 0, 2, 6, 1},
    {"4KiB", 4 * KIB, 128, 2, 1, 2, 13, 2, 8, 2, 0, 2, 7, 0},
    {"16KiB", 16 * KIB, 512, 2, 1, 2, 13, 2, 8, 8, 0, 2, 9, 0},
    {"32KiB", 32 * KIB, 1024, 2, 1, 2, 13, 2, 8, 8, 2, 2, 10, 0},
    {"8MiB", 8 * MIB, UINT64_C(1) << 18, 2, 1, 2, 13, 2, 8, 0, 0, 6, 18, 1},
    {"16MiB", 16 * MIB, UINT64_C(1) << 19, 2, 1, 2, 13, 2, 8, 2, 0, 6, 19, 0},
    {"512MiB", 512 * MIB, UINT64_C(1) << 24, 2, 1, 2, 13, 2, 8, 0, 0, 8, 24, 1},
    {"1GiB", 1 * GIB, UINT64_C(1) << 25, 2, 1, 2, 13, 2, 8, 2, 0, 8, 25, 0},
    {"32GiB", 32 * GIB, UINT64_C(1) << 30, 11, 10, 18, 126, 18, 8, 8, 0, 9, 30, 1},
    {"64GiB", 64 * GIB, UINT64_C(1) << 31, 11, 10, 18, 126, 18, 8, 8, 2, 9, 31, 1},
};
#define NGEOMETRIES (sizeof GEOMETRIES / sizeof GEOMETRIES[0])

const porep_geometry *porep_geometries(size_t *count)
{
    *count = NGEOMETRIES;
    return GEOMETRIES;
}

const porep_geometry *porep_geometry_for_size(uint64_t sector_size)
{
    for (size_t i = 0; i < NGEOMETRIES; i++)
        if (GEOMETRIES[i].sector_size == sector_size) return &GEOMETRIES[i];
    return NULL;
}

cuzk_status porep_geometry_parse(const char *text, const porep_geometry **out, cuzk_error *err)
{
    *out = NULL;
    if (!text || !*text) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "sector size: empty");
    for (size_t i = 0; i < NGEOMETRIES; i++) {
        if (strcasecmp(text, GEOMETRIES[i].name) == 0) {
            *out = &GEOMETRIES[i];
            return CUZK_OK;
        }
    }
    uint64_t v = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10) break;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p == 0) *out = porep_geometry_for_size(v);
    if (!*out)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "sector size '%s': expected one of 2KiB 4KiB 16KiB 32KiB 8MiB 16MiB 512MiB 1GiB 32GiB "
                              "64GiB or the byte count",
                              text);
    return CUZK_OK;
}

unsigned porep_base_tree_count(const porep_geometry *g)
{
    unsigned n = 1;
    if (g->sub_arity) n *= g->sub_arity;
    if (g->top_arity) n *= g->top_arity;
    return n;
}

unsigned porep_tree_levels(const porep_geometry *g)
{
    return g->base_levels + (g->sub_arity ? 1 : 0) + (g->top_arity ? 1 : 0);
}

unsigned porep_tree_level_arity(const porep_geometry *g, unsigned level)
{
    if (level < g->base_levels) return g->base_arity;
    level -= g->base_levels;
    if (g->sub_arity) {
        if (level == 0) return g->sub_arity;
        level--;
    }
    if (g->top_arity && level == 0) return g->top_arity;
    return 0;
}

/* rust-filecoin-proofs-api 0e64ce8 src/registry.rs: RegisteredSealProof, REGISTERED_PROOF_IDS, version() and the
 * features of as_v1_config (SyntheticPoRep / NonInteractivePoRep). */
#define PT(size, sname, base)                                                                                          \
    {"StackedDrg" sname "V1", base, size, POREP_API_1_0, POREP_INTERACTIVE},                                           \
        {"StackedDrg" sname "V1_1", base + 5, size, POREP_API_1_1, POREP_INTERACTIVE},                                 \
        {"StackedDrg" sname "V1_1_Feat_SyntheticPoRep", base + 10, size, POREP_API_1_2, POREP_SYNTHETIC},              \
    {                                                                                                                  \
        "StackedDrg" sname "V1_2_Feat_NonInteractivePoRep", base + 15, size, POREP_API_1_2, POREP_NON_INTERACTIVE      \
    }
static const porep_proof_type PROOF_TYPES[] = {
    PT(2 * KIB, "2KiB", 0),   PT(8 * MIB, "8MiB", 1),   PT(512 * MIB, "512MiB", 2),
    PT(32 * GIB, "32GiB", 3), PT(64 * GIB, "64GiB", 4),
};
#undef PT
#define NPROOF_TYPES (sizeof PROOF_TYPES / sizeof PROOF_TYPES[0])

const porep_proof_type *porep_proof_types(size_t *count)
{
    *count = NPROOF_TYPES;
    return PROOF_TYPES;
}

const porep_proof_type *porep_proof_type_by_name(const char *name)
{
    for (size_t i = 0; i < NPROOF_TYPES; i++)
        if (strcmp(PROOF_TYPES[i].name, name) == 0) return &PROOF_TYPES[i];
    return NULL;
}

const porep_proof_type *porep_proof_type_find(uint64_t sector_size, porep_api api, porep_kind kind)
{
    for (size_t i = 0; i < NPROOF_TYPES; i++)
        if (PROOF_TYPES[i].sector_size == sector_size && PROOF_TYPES[i].api == api && PROOF_TYPES[i].kind == kind)
            return &PROOF_TYPES[i];
    return NULL;
}

void porep_proof_type_porep_id(const porep_proof_type *t, uint8_t porep_id[32])
{
    memset(porep_id, 0, 32);
    uint64_t id = t->id;
    for (int i = 0; i < 8; i++) porep_id[i] = (uint8_t)(id >> (8 * i));
    /* bytes 8..15: the nonce, 0 for every published proof type */
}

unsigned porep_partitions(const porep_geometry *g, porep_kind kind)
{
    return kind == POREP_NON_INTERACTIVE ? g->ni_partitions : g->partitions;
}

unsigned porep_challenges(const porep_geometry *g, porep_kind kind)
{
    return kind == POREP_NON_INTERACTIVE ? g->ni_challenges : g->challenges;
}

const char *porep_vanilla_variant(const porep_geometry *g)
{
    /* rust-filecoin-proofs-api src/seal.rs VanillaSealProof: one variant per published size */
    switch (g->sector_size) {
    case 2 * KIB: return "StackedDrg2KiBV1";
    case 8 * MIB: return "StackedDrg8MiBV1";
    case 512 * MIB: return "StackedDrg512MiBV1";
    case 32 * GIB: return "StackedDrg32GiBV1";
    case 64 * GIB: return "StackedDrg64GiBV1";
    default: return NULL;
    }
}
