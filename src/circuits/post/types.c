#include "circuits/post/types.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* rust-filecoin-proofs-api 0e64ce8 src/registry.rs RegisteredPoStProof (version(), sector_size(), typ(),
 * sector_count(), as_v1_config()); filecoin-proofs constants.rs (WINNING_POST_CHALLENGE_COUNT,
 * WINDOW_POST_CHALLENGE_COUNT, WINDOW_POST_SECTOR_COUNT); the abi ids are the Rust enum's order, and filecoin-ffi
 * maps abi StackedDrgWindow*V1_1 (10-14) to the Rust StackedDrgWindow*V1_2 (ApiVersion 1.2.0). */
#define WIN(size, sname, id)                                                                                           \
    {                                                                                                                  \
        "StackedDrgWinning" sname "V1", id, size, POST_WINNING, POREP_API_1_0, POST_WINNING_CHALLENGES, 1              \
    }
#define WDP(size, sname, suffix, id, api, count)                                                                       \
    {                                                                                                                  \
        "StackedDrgWindow" sname suffix, id, size, POST_WINDOW, api, POST_WINDOW_CHALLENGES, count                     \
    }
static const post_proof_type POST_TYPES[] = {
    WIN(2 * KIB, "2KiB", 0),
    WIN(8 * MIB, "8MiB", 1),
    WIN(512 * MIB, "512MiB", 2),
    WIN(32 * GIB, "32GiB", 3),
    WIN(64 * GIB, "64GiB", 4),
    WDP(2 * KIB, "2KiB", "V1", 5, POREP_API_1_0, 2),
    WDP(8 * MIB, "8MiB", "V1", 6, POREP_API_1_0, 2),
    WDP(512 * MIB, "512MiB", "V1", 7, POREP_API_1_0, 2),
    WDP(32 * GIB, "32GiB", "V1", 8, POREP_API_1_0, 2349),
    WDP(64 * GIB, "64GiB", "V1", 9, POREP_API_1_0, 2300),
    WDP(2 * KIB, "2KiB", "V1_1", 10, POREP_API_1_2, 2),
    WDP(8 * MIB, "8MiB", "V1_1", 11, POREP_API_1_2, 2),
    WDP(512 * MIB, "512MiB", "V1_1", 12, POREP_API_1_2, 2),
    WDP(32 * GIB, "32GiB", "V1_1", 13, POREP_API_1_2, 2349),
    WDP(64 * GIB, "64GiB", "V1_1", 14, POREP_API_1_2, 2300),
};
#undef WIN
#undef WDP
#define NPOST_TYPES (sizeof POST_TYPES / sizeof POST_TYPES[0])

const post_proof_type *post_proof_types(size_t *count)
{
    *count = NPOST_TYPES;
    return POST_TYPES;
}

const post_proof_type *post_proof_type_by_id(unsigned id)
{
    return id < NPOST_TYPES ? &POST_TYPES[id] : NULL;
}

cuzk_status post_proof_type_get(unsigned id, const post_proof_type **out, cuzk_error *err)
{
    *out = post_proof_type_by_id(id);
    if (!*out)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "registered PoSt proof %u is not one of 0..%u", id,
                              (unsigned)NPOST_TYPES - 1);
    return CUZK_OK;
}

const porep_geometry *post_proof_type_geometry(const post_proof_type *t)
{
    return porep_geometry_for_size(t->sector_size);
}
