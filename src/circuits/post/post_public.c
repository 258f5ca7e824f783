#include "circuits/post/post_public.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void post_circuit_dims(const post_proof_type *t, unsigned *sectors, unsigned *challenges)
{
    if (t->kind == POST_WINNING) {
        *sectors = t->challenges;
        *challenges = 1;
    } else {
        *sectors = t->sector_count;
        *challenges = t->challenges;
    }
}

cuzk_status post_circuit_init_type(post_circuit *c, const post_proof_type *t, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    const porep_geometry *g = post_proof_type_geometry(t);
    if (!g)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: no sector geometry for %llu bytes", t->name,
                              (unsigned long long)t->sector_size);
    unsigned s, ch;
    post_circuit_dims(t, &s, &ch);
    cuzk_status st = post_circuit_init(c, g->nodes, s, ch, g->base_arity, g->sub_arity, g->top_arity, err);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", t->name);
}

const post_proof_type *post_proof_type_find(post_kind kind, uint64_t sector_size)
{
    size_t n;
    const post_proof_type *all = post_proof_types(&n), *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (all[i].kind == kind && all[i].sector_size == sector_size && (!best || all[i].api > best->api))
            best = &all[i];
    return best;
}

const char *post_kind_name(post_kind kind)
{
    return kind == POST_WINDOW ? "WindowPoSt" : "WinningPoSt";
}

cuzk_status post_circuit_info(post_kind kind, uint64_t sector_size, post_info *out, cuzk_error *err)
{
    const post_proof_type *t = post_proof_type_find(kind, sector_size);
    if (!t)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: no registered proof for %llu-byte sectors",
                              post_kind_name(kind), (unsigned long long)sector_size);
    post_circuit c;
    cuzk_status st = post_circuit_init_type(&c, t, err);
    if (st != CUZK_OK) return st;
    st = post_circuit_count(&c, out, err);
    post_circuit_free(&c);
    return st;
}

void post_circuit_challenges(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *in,
                             size_t n, unsigned s, uint64_t *out)
{
    if (t->kind == POST_WINNING) {
        out[0] = post_challenge_leaf(t, randomness, in[0].sector_id, 0, s);
        return;
    }
    /* generate_public_inputs copies the last sector's inputs into the padding, its sector index included. */
    size_t i = s < n ? s : n - 1;
    post_challenge_leaves(t, randomness, in[i].sector_id, i, out);
}

cuzk_status post_public_inputs(const post_proof_type *t, const uint8_t randomness[32], const post_public_sector *in,
                               size_t n, fr_t **out, size_t *count, cuzk_error *err)
{
    *out = NULL;
    *count = 0;
    unsigned S, C;
    post_circuit_dims(t, &S, &C);
    if (t->kind == POST_WINNING ? n != 1 : (n == 0 || n > S))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %zu sectors (%s %u)", t->name, n,
                              t->kind == POST_WINNING ? "WinningPoSt proves exactly" : "WindowPoSt proves 1 to",
                              t->kind == POST_WINNING ? 1 : S);
    fr_t *v = malloc((size_t)S * (1 + C) * sizeof *v);
    if (!v) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s public inputs: out of memory", t->name);
    uint64_t ch[POST_MAX_CHALLENGES];
    fr_t *p = v;
    for (unsigned s = 0; s < S; s++) {
        const post_public_sector *sec = &in[s < n ? s : n - 1];
        if (fr_from_bytes_le(p++, sec->comm_r)) {
            free(v);
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: sector %llu: comm_r is not a field element (>= r)",
                                  t->name, (unsigned long long)sec->sector_id);
        }
        post_circuit_challenges(t, randomness, in, n, s, ch);
        for (unsigned i = 0; i < C; i++) fr_from_u64(p++, ch[i]);
    }
    *out = v;
    *count = (size_t)S * (1 + C);
    return CUZK_OK;
}
