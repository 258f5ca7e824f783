#include "circuits/post/post_types.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/hash/sha256.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

/* rust-filecoin-proofs-api src/registry.rs RegisteredPoStProof (version(), typ(), sector_size()) and
 * filecoin-ffi's mapping of its StackedDrgWindow*V1_2 to abi's StackedDrgWindow*V1_1. */
#define PT(size, sname, base)                                                               \
    {"StackedDrgWinning" sname "V1", base, size, POST_WINNING, POST_API_1_0},               \
    {"StackedDrgWindow" sname "V1", base + 5, size, POST_WINDOW, POST_API_1_0},             \
    {"StackedDrgWindow" sname "V1_1", base + 10, size, POST_WINDOW, POST_API_1_2}
static const post_proof_type POST_TYPES[] = {
    PT(2 * KIB, "2KiB", 0), PT(8 * MIB, "8MiB", 1), PT(512 * MIB, "512MiB", 2),
    PT(32 * GIB, "32GiB", 3), PT(64 * GIB, "64GiB", 4),
};
#undef PT
#define POST_NTYPES (sizeof POST_TYPES / sizeof POST_TYPES[0])

const post_proof_type *post_proof_types(size_t *count)
{
    *count = POST_NTYPES;
    return POST_TYPES;
}

const post_proof_type *post_proof_type_by_id(uint64_t id)
{
    for (size_t i = 0; i < POST_NTYPES; i++)
        if (POST_TYPES[i].id == id) return &POST_TYPES[i];
    return NULL;
}

const post_proof_type *post_proof_type_find(post_kind kind, uint64_t sector_size)
{
    const post_proof_type *best = NULL;
    for (size_t i = 0; i < POST_NTYPES; i++)
        if (POST_TYPES[i].kind == kind && POST_TYPES[i].sector_size == sector_size &&
            (!best || POST_TYPES[i].api > best->api))
            best = &POST_TYPES[i];
    return best;
}

const char *post_kind_name(post_kind kind) { return kind == POST_WINDOW ? "WindowPoSt" : "WinningPoSt"; }

unsigned post_window_sector_count(uint64_t sector_size)
{
    /* filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT. */
    if (sector_size == 32 * GIB) return 2349;
    if (sector_size == 64 * GIB) return 2300;
    const porep_geometry *g = porep_geometry_for_size(sector_size);
    return g ? 2 : 0;
}

void post_circuit_dims(post_kind kind, uint64_t sector_size, unsigned *sectors, unsigned *challenges)
{
    if (kind == POST_WINNING) {
        *sectors = POST_WINNING_CHALLENGES;
        *challenges = 1;
    } else {
        *sectors = post_window_sector_count(sector_size);
        *challenges = POST_WINDOW_CHALLENGES;
    }
}

static cuzk_status post_circuit_init_kind(post_circuit *c, post_kind kind, uint64_t sector_size, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    const porep_geometry *g = porep_geometry_for_size(sector_size);
    if (!g)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: no sector geometry for %llu bytes",
                              post_kind_name(kind), (unsigned long long)sector_size);
    unsigned s, ch;
    post_circuit_dims(kind, sector_size, &s, &ch);
    cuzk_status st = post_circuit_init(c, g->nodes, s, ch, g->base_arity, g->sub_arity, g->top_arity, err);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s %s: ", post_kind_name(kind), g->name);
}

cuzk_status post_circuit_init_type(post_circuit *c, const post_proof_type *t, cuzk_error *err)
{
    return post_circuit_init_kind(c, t->kind, t->sector_size, err);
}

cuzk_status post_circuit_info(post_kind kind, uint64_t sector_size, post_info *out, cuzk_error *err)
{
    post_circuit c;
    cuzk_status st = post_circuit_init_kind(&c, kind, sector_size, err);
    if (st != CUZK_OK) return st;
    st = post_circuit_count(&c, out, err);
    post_circuit_free(&c);
    return st;
}

static void post_put_u64le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id, uint64_t index, uint64_t nodes)
{
    uint8_t msg[48], h[SHA256_DIGEST_BYTES];
    memcpy(msg, randomness, 32);
    post_put_u64le(msg + 32, sector_id);
    post_put_u64le(msg + 40, index);
    sha256_digest(msg, sizeof msg, h);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
    return v % nodes;
}

uint64_t post_challenge_index(post_api api, unsigned sector_index, unsigned challenges, unsigned n)
{
    return api == POST_API_1_2 ? n : (uint64_t)sector_index * challenges + n;
}

cuzk_status post_expand_sectors(const post_proof_type *t, const post_public_sector *in, size_t n,
                                post_public_sector *out, cuzk_error *err)
{
    unsigned S, C;
    post_circuit_dims(t->kind, t->sector_size, &S, &C);
    if (t->kind == POST_WINNING ? n != 1 : (n == 0 || n > S))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %zu sectors (%s)", t->name, n,
                              t->kind == POST_WINNING ? "WinningPoSt proves exactly 1" : "1 up to the sector count");
    for (unsigned s = 0; s < S; s++) out[s] = in[s < n ? s : n - 1];
    return CUZK_OK;
}

void post_sector_challenges(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *sector,
                            unsigned s, uint64_t *out)
{
    unsigned S, C;
    post_circuit_dims(t->kind, t->sector_size, &S, &C);
    uint64_t nodes = t->sector_size / 32;
    for (unsigned n = 0; n < C; n++)
        out[n] = post_leaf_challenge(randomness, sector->sector_id, post_challenge_index(t->api, s, C, n), nodes);
}

cuzk_status post_public_inputs(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *in,
                               size_t n, fr_t **out, size_t *count, cuzk_error *err)
{
    *out = NULL;
    *count = 0;
    unsigned S, C;
    post_circuit_dims(t->kind, t->sector_size, &S, &C);
    if (S == 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: no sector count", t->name);
    post_public_sector *sectors = malloc(S * sizeof *sectors);
    fr_t *v = malloc((size_t)S * (1 + C) * sizeof *v);
    uint64_t ch[POST_MAX_CHALLENGES];
    cuzk_status st = CUZK_OK;
    if (!sectors || !v) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s public inputs: out of memory", t->name);
        goto fail;
    }
    if ((st = post_expand_sectors(t, in, n, sectors, err)) != CUZK_OK) goto fail;
    fr_t *p = v;
    for (unsigned s = 0; s < S; s++) {
        if (fr_from_bytes_le(p++, sectors[s].comm_r)) {
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: sector %llu: comm_r is not a field element (>= r)",
                                t->name, (unsigned long long)sectors[s].sector_id);
            goto fail;
        }
        /* generate_public_inputs copies the last sector's values into the padding, its index included. */
        unsigned idx = t->kind == POST_WINDOW && s >= n ? (unsigned)n - 1 : s;
        post_sector_challenges(t, randomness, &sectors[s], idx, ch);
        for (unsigned i = 0; i < C; i++) fr_from_u64(p++, ch[i]);
    }
    free(sectors);
    *out = v;
    *count = (size_t)S * (1 + C);
    return CUZK_OK;
fail:
    free(sectors);
    free(v);
    return st;
}
