#include "formats/post_vanilla_gen.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/porep/seal.h"
#include "circuits/post/challenges.h"
#include "util/rng.h"

cuzk_status post_vanilla_from_trees(post_vanilla *v, const post_proof_type *t, const post_sector_tree *sectors,
                                    size_t count, const uint8_t randomness[32], cuzk_error *err)
{
    cuzk_status st = post_vanilla_alloc(v, t, count, err);
    if (st) return st;
    const post_vanilla_shape *sh = &v->shape;
    uint64_t leaves[POST_MAX_CHALLENGES];
    for (size_t k = 0; k < count; k++) {
        const post_sector_tree *in = &sectors[k];
        post_vanilla_sector *s = &v->sectors[k];
        s->sector_id = in->sector_id;
        memcpy(s->comm_c, in->comm_c, 32);
        memcpy(s->comm_r_last, in->comm_r_last, 32);
        memcpy(s->comm_r, in->comm_r, 32);
        post_challenge_leaves(t, randomness, in->sector_id, k, leaves);
        for (unsigned i = 0; i < s->proofs; i++) {
            porep_merkle_proof p = {.index = post_vanilla_index(s, sh, i, 0), .sibs = post_vanilla_sibs(s, sh, i, 0)};
            porep_tree_r_path(sh->geometry, in->tree_r, leaves[i], &p);
            memcpy(s->roots[i], p.root, 32);
            memcpy(s->leaves[i], p.leaf, 32);
        }
    }
    return CUZK_OK;
}

/* ---- synthetic sectors ---- */

typedef struct post_synth_node {
    uint64_t pos;
    porep_dom val;
} post_synth_node;

typedef struct post_synth_ctx {
    post_vanilla *v;
    const uint8_t *randomness;
    uint64_t seed, first_id;
    porep_hashers hashers;
    porep_dom def[POREP_MAX_TREE_LEVELS + 1]; /* the untouched node of each level: one chain for the request */
    int failed;
} post_synth_ctx;

static void post_synth_random_fe(rng_t *rng, porep_dom out)
{
    rng_bytes(rng, out, 32);
    out[31] &= 0x3f; /* below 2^254 < r */
}

static int post_synth_cmp(const void *a, const void *b)
{
    uint64_t x = ((const post_synth_node *)a)->pos, y = ((const post_synth_node *)b)->pos;
    return x < y ? -1 : x > y;
}

static const uint8_t *post_synth_value(const post_synth_node *lv, size_t n, uint64_t pos, const porep_dom def)
{
    for (size_t j = 0; j < n; j++)
        if (lv[j].pos == pos) return lv[j].val;
    return def;
}

/* One sector: the touched nodes of every level (sorted, unique), hashed up from the random leaves. */
static int post_synth_sector(post_synth_ctx *c, size_t k)
{
    post_vanilla *v = c->v;
    const post_vanilla_shape *sh = &v->shape;
    const post_proof_type *t = v->type;
    post_vanilla_sector *s = &v->sectors[k];
    rng_t rng;
    rng_seed(&rng, c->seed ^ (0x9e3779b97f4a7c15ull * (k + 1)));
    s->sector_id = c->first_id + k;
    uint64_t leaves[POST_MAX_CHALLENGES];
    post_challenge_leaves(t, c->randomness, s->sector_id, k, leaves);

    post_synth_node lv[POREP_MAX_TREE_LEVELS + 1][POST_MAX_CHALLENGES];
    size_t n[POREP_MAX_TREE_LEVELS + 1];
    const porep_dom *def = c->def;
    porep_dom kids[16];
    n[0] = 0;
    for (unsigned i = 0; i < s->proofs; i++) {
        lv[0][n[0]].pos = leaves[i];
        post_synth_random_fe(&rng, lv[0][n[0]].val);
        n[0]++;
    }
    qsort(lv[0], n[0], sizeof lv[0][0], post_synth_cmp);
    size_t u = 0; /* a leaf challenged twice keeps its first value */
    for (size_t j = 0; j < n[0]; j++)
        if (u == 0 || lv[0][u - 1].pos != lv[0][j].pos) lv[0][u++] = lv[0][j];
    n[0] = u;
    for (unsigned l = 0; l < sh->levels; l++) {
        unsigned a = sh->arity[l];
        n[l + 1] = 0;
        for (size_t j = 0; j < n[l]; j++) {
            uint64_t parent = lv[l][j].pos / a;
            if (n[l + 1] && lv[l + 1][n[l + 1] - 1].pos == parent) continue; /* sorted: groups are contiguous */
            for (unsigned q = 0; q < a; q++) memcpy(kids[q], post_synth_value(lv[l], n[l], parent * a + q, def[l]), 32);
            post_synth_node *o = &lv[l + 1][n[l + 1]++];
            o->pos = parent;
            if (porep_poseidon(&c->hashers, a, kids, o->val) != 0) return -1;
        }
    }
    memcpy(s->comm_r_last, lv[sh->levels][0].val, 32);
    post_synth_random_fe(&rng, s->comm_c);
    memcpy(kids[0], s->comm_c, 32);
    memcpy(kids[1], s->comm_r_last, 32);
    if (porep_poseidon(&c->hashers, 2, kids, s->comm_r) != 0) return -1;

    for (unsigned i = 0; i < s->proofs; i++) {
        memcpy(s->roots[i], s->comm_r_last, 32);
        memcpy(s->leaves[i], post_synth_value(lv[0], n[0], leaves[i], def[0]), 32);
        uint64_t pos = leaves[i];
        for (unsigned l = 0; l < sh->levels; l++) {
            unsigned a = sh->arity[l], at = (unsigned)(pos % a);
            *post_vanilla_index(s, sh, i, l) = (uint8_t)at;
            porep_dom *sib = post_vanilla_sibs(s, sh, i, l);
            for (unsigned q = 0, j = 0; q < a; q++)
                if (q != at) memcpy(sib[j++], post_synth_value(lv[l], n[l], pos - at + q, def[l]), 32);
            pos /= a;
        }
    }
    return 0;
}

static void post_synth_range(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    post_synth_ctx *c = ctx;
    for (size_t k = begin; k < end; k++)
        if (post_synth_sector(c, k) != 0) __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
}

cuzk_status post_vanilla_synth(post_vanilla *v, const post_proof_type *t, size_t count, uint64_t first_id,
                               const uint8_t randomness[32], uint64_t seed, pool_t *pool, cuzk_error *err)
{
    memset(v, 0, sizeof *v);
    if (!t) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "post synth: no registered proof");
    if (count == 0 || (t->kind == POST_WINNING && count != 1) || count > t->sector_count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "post synth: %zu sectors; %s takes 1 to %u", count, t->name,
                              t->sector_count);
    post_synth_ctx c = {.randomness = randomness, .seed = seed, .first_id = first_id};
    cuzk_status st = porep_hashers_init(&c.hashers, err);
    if (st) return st;
    st = post_vanilla_alloc(v, t, count, err);
    if (st == CUZK_OK) {
        const post_vanilla_shape *sh = &v->shape;
        rng_t rng;
        rng_seed(&rng, seed);
        post_synth_random_fe(&rng, c.def[0]);
        porep_dom kids[16];
        for (unsigned l = 0; l < sh->levels && !c.failed; l++) {
            for (unsigned q = 0; q < sh->arity[l]; q++) memcpy(kids[q], c.def[l], 32);
            c.failed = porep_poseidon(&c.hashers, sh->arity[l], kids, c.def[l + 1]) != 0;
        }

        c.v = v;
        if (!c.failed) pool_parallel_for(pool, count, 16, post_synth_range, &c);
        if (c.failed) {
            post_vanilla_free(v);
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "post synth: a value left the field");
        }
    }
    porep_hashers_free(&c.hashers);
    return st;
}
