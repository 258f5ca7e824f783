#include "circuits/update/encode.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/hash/sha256.h"

static unsigned log2a(unsigned a)
{
    unsigned b = 0;
    while ((1u << b) < a) b++;
    return b;
}

static void node_hash(const update_tree *t, unsigned l, const fr_t *kids, fr_t *out)
{
    if (t->hasher == POR_SHA256) {
        uint8_t buf[64];
        fr_to_bytes_le(buf, &kids[0]);
        fr_to_bytes_le(buf + 32, &kids[1]);
        sha256_fr(buf, 64, out);
    } else {
        poseidon_hash(t->pc[l], kids, out);
    }
}

/* log2 of the leaves a level-l node covers. */
static unsigned span_bits(const update_tree *t, unsigned l)
{
    unsigned b = 0;
    for (unsigned i = 0; i < l; i++) b += log2a(t->arity[i]);
    return b;
}

const fr_t *update_tree_node(const update_tree *t, unsigned level, uint64_t index)
{
    if (level < t->chain_levels) {
        uint64_t block = (index << span_bits(t, level)) >> t->block_bits;
        return &t->chain[block * t->chain_levels + level];
    }
    return &t->lvl[level][index];
}

const fr_t *update_tree_root(const update_tree *t)
{
    return update_tree_node(t, t->levels, 0);
}

void update_tree_free(update_tree *t)
{
    free(t->chain);
    for (unsigned l = 0; l <= POR_MAX_LEVELS; l++) free(t->lvl[l]);
    memset(t, 0, sizeof *t);
}

cuzk_status update_tree_build(update_tree *t, const update_circuit *c, int tree_d, unsigned block_bits,
                              const fr_t *blocks, cuzk_error *err)
{
    memset(t, 0, sizeof *t);
    if (tree_d) {
        t->hasher = POR_SHA256;
        t->levels = c->challenge_bits;
        for (unsigned l = 0; l < t->levels; l++) t->arity[l] = 2;
    } else {
        t->hasher = POR_POSEIDON;
        t->levels = c->tree_r.levels;
        for (unsigned l = 0; l < t->levels; l++) {
            t->arity[l] = c->tree_r.arity[l];
            t->pc[l] = c->tree_r.pc[l];
        }
    }
    t->leaf_bits = c->challenge_bits;
    t->block_bits = block_bits;
    if (block_bits > t->leaf_bits)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "update_tree_build: blocks of 2^%u nodes", block_bits);
    while (t->chain_levels <= t->levels && span_bits(t, t->chain_levels) <= block_bits) t->chain_levels++;
    uint64_t nblocks = 1ull << (t->leaf_bits - block_bits);
    t->chain = malloc(sizeof(fr_t) * nblocks * t->chain_levels);
    if (!t->chain) goto nomem;
    for (uint64_t b = 0; b < nblocks; b++) {
        fr_t *ch = &t->chain[b * t->chain_levels];
        ch[0] = blocks[b];
        for (unsigned l = 1; l < t->chain_levels; l++) {
            fr_t kids[POR_MAX_ARITY];
            for (unsigned i = 0; i < t->arity[l - 1]; i++) kids[i] = ch[l - 1];
            node_hash(t, l - 1, kids, &ch[l]);
        }
    }
    for (unsigned l = t->chain_levels; l <= t->levels; l++) {
        uint64_t n = 1ull << (t->leaf_bits - span_bits(t, l));
        if (!(t->lvl[l] = malloc(sizeof(fr_t) * n))) goto nomem;
        unsigned a = t->arity[l - 1];
        for (uint64_t i = 0; i < n; i++) {
            fr_t kids[POR_MAX_ARITY];
            for (unsigned j = 0; j < a; j++) kids[j] = *update_tree_node(t, l - 1, i * a + j);
            node_hash(t, l - 1, kids, &t->lvl[l][i]);
        }
    }
    return CUZK_OK;
nomem:
    update_tree_free(t);
    return cuzk_error_set(err, CUZK_ERR_NOMEM, "update_tree_build: out of memory");
}

void update_tree_path(const update_tree *t, uint64_t i, uint8_t *index, fr_t *sibs)
{
    size_t s = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        uint64_t first = i / a * a;
        index[l] = (uint8_t)(i % a);
        for (unsigned j = 0; j < a; j++)
            if (first + j != i) sibs[s++] = *update_tree_node(t, l, first + j);
        i /= a;
    }
}

void update_encoded_free(update_encoded *e)
{
    update_tree_free(&e->d);
    update_tree_free(&e->r_old);
    update_tree_free(&e->r_new);
}

cuzk_status update_encode(update_encoded *e, const update_circuit *c, unsigned block_bits, const fr_t *old,
                          const fr_t *data, const fr_t *comm_c, cuzk_error *err)
{
    memset(e, 0, sizeof *e);
    unsigned h = update_h_default(c);
    if (block_bits > c->challenge_bits - h)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "update_encode: blocks of 2^%u nodes span several rhos",
                              block_bits);
    uint64_t nblocks = 1ull << (c->challenge_bits - block_bits);
    fr_t *repl = malloc(sizeof(fr_t) * nblocks);
    if (!repl) return cuzk_error_set(err, CUZK_ERR_NOMEM, "update_encode: out of memory");
    cuzk_status st;
    e->comm_c = *comm_c;
    if ((st = update_tree_build(&e->d, c, 1, block_bits, data, err)) != CUZK_OK ||
        (st = update_tree_build(&e->r_old, c, 0, block_bits, old, err)) != CUZK_OK)
        goto out;
    e->comm_d_new = *update_tree_root(&e->d);
    fr_t pre[2] = {*comm_c, *update_tree_root(&e->r_old)};
    poseidon_hash(&c->p2, pre, &e->comm_r_old);
    fr_t phi;
    update_phi(c, &e->comm_d_new, &e->comm_r_old, &phi);
    fr_t rho;
    uint64_t have = UINT64_MAX;
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t node = b << block_bits;
        if (node >> (c->challenge_bits - h) != have) {
            have = node >> (c->challenge_bits - h);
            update_rho(c, &phi, node, h, &rho);
        }
        fr_mul(&repl[b], &data[b], &rho);
        fr_add(&repl[b], &repl[b], &old[b]);
    }
    if ((st = update_tree_build(&e->r_new, c, 0, block_bits, repl, err)) != CUZK_OK) goto out;
    pre[1] = *update_tree_root(&e->r_new);
    poseidon_hash(&c->p2, pre, &e->comm_r_new);
out:
    free(repl);
    if (st != CUZK_OK) update_encoded_free(e);
    return st;
}
