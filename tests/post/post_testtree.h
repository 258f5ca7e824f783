/* Small whole TreeR trees and the vanilla proofs a prover makes from them, for the PoSt tests (static helpers,
 * included by the test programs of tests/post). */
#ifndef CUZK_TESTS_POST_TESTTREE_H
#define CUZK_TESTS_POST_TESTTREE_H

#include <stdlib.h>
#include <string.h>

#include "circuits/post/post_public.h"
#include "formats/post_vanilla.h"
#include "testutil.h"

/* levels[0] the leaves, levels[L] the root. */
typedef struct small_tree {
    fr_t *levels[POR_MAX_LEVELS + 1];
    unsigned nlevels;
} small_tree;

static void tree_build(rng_t *rng, const post_circuit *c, small_tree *t)
{
    memset(t, 0, sizeof *t);
    uint64_t n = c->nodes;
    t->levels[0] = malloc(n * sizeof(fr_t));
    for (uint64_t i = 0; i < n; i++) fr_random(&t->levels[0][i], rng);
    for (unsigned l = 0; l < c->tree.levels; l++) {
        unsigned a = c->tree.arity[l];
        n /= a;
        t->levels[l + 1] = malloc(n * sizeof(fr_t));
        for (uint64_t i = 0; i < n; i++) poseidon_hash(c->tree.pc[l], &t->levels[l][i * a], &t->levels[l + 1][i]);
    }
    t->nlevels = c->tree.levels;
}

static void tree_free(small_tree *t)
{
    for (unsigned l = 0; l <= t->nlevels; l++) free(t->levels[l]);
}

/* The path of leaf: index per level, the siblings (as field elements) of each level concatenated. */
static void tree_path(const post_circuit *c, const small_tree *t, uint64_t leaf, fr_t *leaf_value, uint8_t *index,
                      fr_t *sibs)
{
    *leaf_value = t->levels[0][leaf];
    for (unsigned l = 0; l < c->tree.levels; l++) {
        unsigned a = c->tree.arity[l];
        index[l] = (uint8_t)(leaf % a);
        for (unsigned i = 0; i < a; i++)
            if (i != index[l]) *sibs++ = t->levels[l][leaf - leaf % a + i];
        leaf /= a;
    }
}

/* The decoded vanilla proofs of n sectors (ids 1000 + 17 i) of type t for randomness, as a prover makes them from
 * each sector's own tree (comm_c random, comm_r = Poseidon2(comm_c, comm_r_last)). Free with test_vanilla_free. */
static void test_vanilla_make(rng_t *rng, const post_proof_type *t, size_t n, const uint8_t rnd[32], post_vanilla *v)
{
    post_circuit c;
    CHECK(post_circuit_init_type(&c, t, NULL) == CUZK_OK);
    memset(v, 0, sizeof *v);
    v->type = t;
    v->count = n;
    v->shape.geometry = post_proof_type_geometry(t);
    v->shape.levels = c.tree.levels;
    for (unsigned l = 0; l < c.tree.levels; l++) {
        v->shape.arity[l] = c.tree.arity[l];
        v->shape.sib_offset[l + 1] = v->shape.sib_offset[l] + c.tree.arity[l] - 1;
    }
    size_t nsib = v->shape.sib_offset[c.tree.levels];
    v->sectors = calloc(n, sizeof *v->sectors);
    for (size_t s = 0; s < n; s++) {
        post_vanilla_sector *vs = &v->sectors[s];
        unsigned m = t->challenges;
        vs->sector_id = 1000 + 17 * s;
        vs->proofs = m;
        vs->roots = calloc(m, sizeof(porep_dom));
        vs->leaves = calloc(m, sizeof(porep_dom));
        vs->index = calloc((size_t)m * c.tree.levels, 1);
        vs->sibs = calloc((size_t)m * nsib, sizeof(porep_dom));
        small_tree tr;
        tree_build(rng, &c, &tr);
        fr_t comm_c, comm_r, pre[2];
        fr_random(&comm_c, rng);
        pre[0] = comm_c, pre[1] = tr.levels[tr.nlevels][0];
        poseidon_hash(&c.p2, pre, &comm_r);
        fr_to_bytes_le(vs->comm_c, &comm_c);
        fr_to_bytes_le(vs->comm_r_last, &pre[1]);
        fr_to_bytes_le(vs->comm_r, &comm_r);
        uint64_t ch[POST_MAX_CHALLENGES];
        post_challenge_leaves(t, rnd, vs->sector_id, s, ch);
        fr_t *sibs = malloc(nsib * sizeof(fr_t)), leaf;
        for (unsigned i = 0; i < m; i++) {
            tree_path(&c, &tr, ch[i], &leaf, &vs->index[(size_t)i * c.tree.levels], sibs);
            fr_to_bytes_le(vs->leaves[i], &leaf);
            memcpy(vs->roots[i], vs->comm_r_last, 32);
            for (size_t k = 0; k < nsib; k++) fr_to_bytes_le(vs->sibs[i * nsib + k], &sibs[k]);
        }
        free(sibs);
        tree_free(&tr);
    }
    post_circuit_free(&c);
}

static void test_vanilla_free(post_vanilla *v)
{
    for (size_t s = 0; s < v->count; s++) {
        free(v->sectors[s].roots);
        free(v->sectors[s].leaves);
        free(v->sectors[s].index);
        free(v->sectors[s].sibs);
    }
    free(v->sectors);
    memset(v, 0, sizeof *v);
}

#endif
