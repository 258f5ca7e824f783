#include "circuits/post/post.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/gadgets/constraint.h"
#include "circuits/gadgets/poseidon.h"

void post_circuit_free(post_circuit *c)
{
    poseidon_constants_free(&c->p2);
    por_tree_constants_free(&c->tree_k);
    memset(c, 0, sizeof *c);
}

cuzk_status post_circuit_init(post_circuit *c, uint64_t nodes, unsigned sectors, unsigned challenges,
                              unsigned base_arity, unsigned sub_arity, unsigned top_arity, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    const char *who = "post_circuit_init";
    if (sectors == 0 || sectors > POST_MAX_SECTORS || challenges == 0 || challenges > POST_CIRCUIT_MAX_CHALLENGES)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %u sectors x %u challenges (1..%d x 1..%d)", who, sectors,
                              challenges, POST_MAX_SECTORS, POST_CIRCUIT_MAX_CHALLENGES);
    if (!por_arity_ok(base_arity) || base_arity > 8 || (sub_arity && !por_arity_ok(sub_arity)) ||
        (top_arity && (!por_arity_ok(top_arity) || !sub_arity)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: tree shape %u-%u-%u", who, base_arity, sub_arity,
                              top_arity);
    uint64_t div = (uint64_t)(sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
    uint64_t base_leaves = nodes / div;
    unsigned base_levels = 0;
    uint64_t n = base_leaves;
    while (n > 1 && n % base_arity == 0) n /= base_arity, base_levels++;
    if (nodes < 2 || base_leaves * div != nodes || n != 1 || base_levels == 0 || base_levels + 2 > POR_MAX_LEVELS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %llu nodes do not fit the shape %u-%u-%u", who,
                              (unsigned long long)nodes, base_arity, sub_arity, top_arity);
    c->nodes = nodes;
    c->sectors = sectors;
    c->challenges = challenges;
    cuzk_status st;
    if ((st = poseidon_constants_create(&c->p2, 2, POSEIDON_STANDARD, NULL, err)) != CUZK_OK ||
        (st = por_tree_poseidon(&c->tree, &c->tree_k, base_arity, base_levels, sub_arity, top_arity, err)) != CUZK_OK) {
        post_circuit_free(c);
        return cuzk_error_prefix(err, "%s: ", who);
    }
    return CUZK_OK;
}

size_t post_num_public_inputs(const post_circuit *c)
{
    return (size_t)c->sectors * (1 + c->challenges);
}

static size_t post_path_sibs(const post_circuit *c)
{
    size_t n = 0;
    for (unsigned l = 0; l < c->tree.levels; l++) n += c->tree.arity[l] - 1;
    return n;
}

cuzk_status post_witness_alloc(post_witness *w, const post_circuit *c, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    size_t paths = (size_t)c->sectors * c->challenges, sibs = post_path_sibs(c), levels = c->tree.levels;
    size_t total = c->sectors * sizeof(post_sector) + paths * (sizeof(post_path) + sibs * sizeof(fr_t) + levels);
    unsigned char *block = r1cs_xcalloc(1, total);
    if (!block) return cuzk_error_set(err, CUZK_ERR_NOMEM, "post_witness_alloc: cannot allocate %zu bytes", total);
    w->block = block;
    w->sectors = c->sectors;
    w->challenges = c->challenges;
    w->sector = (post_sector *)block;
    post_path *p = (post_path *)(block + c->sectors * sizeof(post_sector));
    fr_t *f = (fr_t *)(p + paths);
    uint8_t *b = (uint8_t *)(f + paths * sibs);
    for (unsigned s = 0; s < c->sectors; s++) {
        w->sector[s].paths = p;
        for (unsigned i = 0; i < c->challenges; i++, p++) {
            p->sibs = f, f += sibs;
            p->index = b, b += levels;
        }
    }
    return CUZK_OK;
}

void post_witness_free(post_witness *w)
{
    free(w->block);
    memset(w, 0, sizeof *w);
}

uint64_t post_path_leaf_index(const post_circuit *c, const post_path *p)
{
    uint64_t index = 0, scale = 1;
    for (unsigned l = 0; l < c->tree.levels; l++) {
        index += p->index[l] * scale;
        scale *= c->tree.arity[l];
    }
    return index;
}

cuzk_status post_synth_sector(r1cs *cs, const post_circuit *c, const post_sector *s, cuzk_error *err)
{
    cuzk_status st;
    fr_t zero;
    fr_set_zero(&zero);
    gadget_num comm_r_last, comm_c, comm_r, h;
    if ((st = gadget_num_alloc(cs, s ? &s->comm_r_last : &zero, &comm_r_last, err)) != CUZK_OK ||
        (st = gadget_num_alloc(cs, s ? &s->comm_c : &zero, &comm_c, err)) != CUZK_OK ||
        (st = gadget_num_alloc(cs, s ? &s->comm_r : &zero, &comm_r, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &comm_r, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "commitments: ");
    gadget_num pre[2] = {comm_c, comm_r_last};
    if ((st = gadget_poseidon_hash(cs, pre, &c->p2, &h, err)) != CUZK_OK ||
        (st = gadget_enforce_equal(cs, &comm_r, &h, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "H_comm_c_comm_r_last: ");
    for (unsigned i = 0; i < c->challenges; i++) {
        por_args a;
        memset(&a, 0, sizeof a);
        a.leaf_value = s ? s->paths[i].leaf : zero;
        a.root = &comm_r_last;
        if (s) {
            a.index = s->paths[i].index;
            a.sibs = s->paths[i].sibs;
        }
        gadget_num computed;
        if ((st = gadget_por(cs, &c->tree, &a, &computed, err)) != CUZK_OK)
            return cuzk_error_prefix(err, "challenge_inclusion_%u: ", i);
        /* A witness-only system checks nothing; a path that misses the root would only show as an invalid proof. */
        if (s && !fr_eq(&computed.value, &s->comm_r_last))
            return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                  "challenge_inclusion_%u: the path does not hash from its leaf to comm_r_last", i);
    }
    return CUZK_OK;
}

cuzk_status post_synthesize(r1cs *cs, const post_circuit *c, const post_witness *w, cuzk_error *err)
{
    if (w && (w->sectors != c->sectors || w->challenges != c->challenges))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "post_synthesize: witness of %u sectors x %u challenges, circuit %u x %u", w->sectors,
                              w->challenges, c->sectors, c->challenges);
    for (unsigned s = 0; s < c->sectors; s++) {
        cuzk_status st = post_synth_sector(cs, c, w ? &w->sector[s] : NULL, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "post_synthesize: sector_%u: ", s);
    }
    return CUZK_OK;
}

cuzk_status post_circuit_count(const post_circuit *c, post_info *out, cuzk_error *err)
{
    r1cs cs;
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "post_circuit_count: ");
    st = post_synth_sector(&cs, c, NULL, err);
    if (st == CUZK_OK) {
        /* ONE is the only input outside the blocks. */
        size_t S = c->sectors;
        out->synth_constraints = S * cs.num_constraints;
        out->inputs = 1 + S * (cs.num_inputs - 1);
        out->aux = S * cs.num_aux;
        out->constraints = out->synth_constraints + out->inputs;
    } else {
        cuzk_error_prefix(err, "post_circuit_count: ");
    }
    r1cs_free(&cs);
    return st;
}
