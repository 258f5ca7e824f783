#include "circuits/stacked/stacked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/gadgets/constraint.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/gadgets/uint64.h"
#include "circuits/porep/challenges.h"
#include "circuits/stacked/create_label.h"

static int log_exact(uint64_t n, unsigned base, unsigned *out)
{
    unsigned e = 0;
    while (n > 1 && n % base == 0) {
        n /= base;
        e++;
    }
    *out = e;
    return n == 1 ? 0 : -1;
}

void stacked_circuit_free(stacked_circuit *c)
{
    poseidon_constants_free(&c->p2);
    por_tree_constants_free(&c->tree_rc_k);
    poseidon_constants_free(&c->p_column);
    memset(c, 0, sizeof *c);
}

cuzk_status stacked_circuit_init(stacked_circuit *c, uint64_t nodes, unsigned layers, unsigned challenges,
                                 unsigned base_arity, unsigned sub_arity, unsigned top_arity, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    const char *who = "stacked_circuit_init";
    if (layers != 2 && layers != POREP_MAX_LAYERS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %u layers (2 or 11: the column hash arities)", who,
                              layers);
    if (challenges == 0 || challenges > POREP_MAX_CHALLENGES)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %u challenges (1..%d)", who, challenges,
                              POREP_MAX_CHALLENGES);
    if (!por_arity_ok(base_arity) || base_arity > 8 || (sub_arity && !por_arity_ok(sub_arity)) ||
        (top_arity && (!por_arity_ok(top_arity) || !sub_arity)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: tree shape %u-%u-%u", who, base_arity, sub_arity,
                              top_arity);
    uint64_t base_leaves = nodes / (sub_arity ? sub_arity : 1) / (top_arity ? top_arity : 1);
    unsigned d_levels, base_levels;
    if (nodes < 2 || log_exact(nodes, 2, &d_levels) || d_levels >= POR_MAX_LEVELS ||
        base_leaves * (sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1) != nodes ||
        log_exact(base_leaves, base_arity, &base_levels) || base_levels == 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %llu nodes do not fit the shape %u-%u-%u", who,
                              (unsigned long long)nodes, base_arity, sub_arity, top_arity);
    c->nodes = nodes;
    c->layers = layers;
    c->challenges = challenges;
    cuzk_status st;
    if ((st = poseidon_constants_create(&c->p2, 2, POSEIDON_STANDARD, NULL, err)) != CUZK_OK ||
        (st = por_tree_poseidon(&c->tree_rc, &c->tree_rc_k, base_arity, base_levels, sub_arity, top_arity, err)) !=
            CUZK_OK ||
        (st = poseidon_constants_create(&c->p_column, layers, POSEIDON_STANDARD, NULL, err)) != CUZK_OK) {
        stacked_circuit_free(c);
        return cuzk_error_prefix(err, "%s: ", who);
    }
    c->tree_d.hasher = POR_SHA256;
    c->tree_d.levels = d_levels;
    for (unsigned l = 0; l < d_levels; l++) c->tree_d.arity[l] = 2;
    return CUZK_OK;
}

cuzk_status stacked_circuit_init_geometry(stacked_circuit *c, const porep_geometry *g, porep_kind kind, cuzk_error *err)
{
    cuzk_status st = stacked_circuit_init(c, g->nodes, g->layers, porep_challenges(g, kind), g->base_arity,
                                          g->sub_arity, g->top_arity, err);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", g->name);
}

size_t stacked_num_public_inputs(const stacked_circuit *c)
{
    return 3 + (size_t)POREP_INPUTS_PER_CHALLENGE * c->challenges;
}

/* Arguments of enforce_inclusion (params.rs): leaf and root already allocated, values from path (NULL: shape). */
static cuzk_status inclusion(r1cs *cs, const por_tree *t, const stacked_path *path, const gadget_num *leaf,
                             const gadget_num *root, const char *what, cuzk_error *err)
{
    por_args a;
    memset(&a, 0, sizeof a);
    a.leaf = leaf;
    a.root = root;
    if (path) {
        a.index = path->index;
        a.sibs = path->sibs;
    }
    cuzk_status st = gadget_por(cs, t, &a, NULL, err);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", what);
}

/* Column::alloc, AllocatedColumn::hash (hash_single_column), enforce_inclusion into TreeC. */
static cuzk_status parent_column(r1cs *cs, const stacked_circuit *c, const stacked_column *cp, const gadget_num *comm_c,
                                 gadget_num *rows, const char *what, cuzk_error *err)
{
    fr_t zero;
    fr_set_zero(&zero);
    cuzk_status st;
    for (unsigned l = 0; l < c->layers; l++)
        if ((st = gadget_num_alloc(cs, cp ? &cp->rows[l] : &zero, &rows[l], err)) != CUZK_OK)
            return cuzk_error_prefix(err, "%s: ", what);
    gadget_num h;
    if ((st = gadget_poseidon_hash(cs, rows, &c->p_column, &h, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "%s: column hash: ", what);
    return inclusion(cs, &c->tree_rc, cp ? &cp->path : NULL, &h, comm_c, what, err);
}

/* to_bits_le then reverse_bit_numbering: the 256 bits SHA-256 reads for a field element. */
static cuzk_status num_hash_bits(r1cs *cs, const gadget_num *n, gadget_bool out[256], cuzk_error *err)
{
    gadget_bool le[GADGET_FR_NUM_BITS];
    cuzk_status st = gadget_num_to_bits_le(cs, n, le, err);
    if (st != CUZK_OK) return st;
    gadget_reverse_bit_numbering(le, GADGET_FR_NUM_BITS, out);
    return CUZK_OK;
}

/* Proof::synthesize (params.rs) for one challenge, in the parts stacked.h exposes. p NULL: shape. */
cuzk_status stacked_synth_columns(r1cs *cs, const stacked_circuit *c, const stacked_challenge *p,
                                  const stacked_top_vars *top, stacked_challenge_vars *v, cuzk_error *err)
{
    cuzk_status st;
    fr_t zero;
    fr_set_zero(&zero);
    if ((st = gadget_num_alloc(cs, p ? &p->data_leaf : &zero, &v->data_leaf, err)) != CUZK_OK) return st;
    if ((st = inclusion(cs, &c->tree_d, p ? &p->comm_d : NULL, &v->data_leaf, &top->comm_d, "comm_d_inclusion", err)))
        return st;

    char what[48];
    for (int i = 0; i < POREP_DRG_DEGREE; i++) {
        snprintf(what, sizeof what, "drg_parent_%d", i);
        if ((st = parent_column(cs, c, p ? &p->drg[i] : NULL, &top->comm_c, v->drg[i], what, err)) != CUZK_OK)
            return st;
    }
    for (int i = 0; i < POREP_EXP_DEGREE; i++) {
        snprintf(what, sizeof what, "exp_parent_%d", i);
        if ((st = parent_column(cs, c, p ? &p->exp[i] : NULL, &top->comm_c, v->exp[i], what, err)) != CUZK_OK)
            return st;
    }

    if ((st = gadget_u64_alloc(cs, p ? p->challenge : 0, &v->challenge, err)) != CUZK_OK ||
        (st = gadget_u64_pack_into_input(cs, &v->challenge, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "challenge: ");
    return CUZK_OK;
}

cuzk_status stacked_synth_label(r1cs *cs, const stacked_circuit *c, const stacked_top_vars *top,
                                stacked_challenge_vars *v, unsigned layer, cuzk_error *err)
{
    cuzk_status st;
    gadget_bool bits[POREP_DEGREE][256];
    const gadget_bool *expanded[STACKED_LABEL_PARENTS];
    if (layer < 1 || layer > c->layers)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "stacked_synth_label: layer %u of %u", layer, c->layers);
    int n = 0;
    for (int i = 0; i < POREP_DRG_DEGREE; i++, n++)
        if ((st = num_hash_bits(cs, &v->drg[i][layer - 1], bits[n], err)) != CUZK_OK)
            return cuzk_error_prefix(err, "labeling_%u: drg_parent_%d_bits: ", layer, n);
    if (layer > 1) {
        /* Expander parents are the previous layer's labels. */
        for (int i = 0; i < POREP_EXP_DEGREE; i++, n++)
            if ((st = num_hash_bits(cs, &v->exp[i][layer - 2], bits[n], err)) != CUZK_OK)
                return cuzk_error_prefix(err, "labeling_%u: exp_parent_%d_bits: ", layer, n);
    }
    /* The 37-parent layout: layer 1 repeats its 6 parents six times then the first; later layers their 14
     * twice then the first 9. Both are the parents list repeated cyclically. */
    for (int j = 0; j < STACKED_LABEL_PARENTS; j++) expanded[j] = bits[j % n];
    if ((st = stacked_create_label(cs, top->replica_id, expanded, layer, &v->challenge, &v->labels[layer - 1], err)) !=
        CUZK_OK)
        return cuzk_error_prefix(err, "labeling_%u: ", layer);
    return CUZK_OK;
}

cuzk_status stacked_synth_finish(r1cs *cs, const stacked_circuit *c, const stacked_challenge *p,
                                 const stacked_top_vars *top, const stacked_challenge_vars *v, cuzk_error *err)
{
    cuzk_status st;
    gadget_num encoded, column_hash;
    if ((st = gadget_encode(cs, &v->labels[c->layers - 1], &v->data_leaf, &encoded, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "encode_node: ");
    if ((st = inclusion(cs, &c->tree_rc, p ? &p->comm_r_last : NULL, &encoded, &top->comm_r_last,
                        "comm_r_last_data_inclusion", err)) != CUZK_OK)
        return st;
    if ((st = gadget_poseidon_hash(cs, v->labels, &c->p_column, &column_hash, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "c_x_column_hash: ");
    return inclusion(cs, &c->tree_rc, p ? &p->comm_c : NULL, &column_hash, &top->comm_c, "c_x_inclusion", err);
}

static cuzk_status synth_challenge(r1cs *cs, const stacked_circuit *c, const stacked_challenge *p,
                                   const stacked_top_vars *top, cuzk_error *err)
{
    stacked_challenge_vars v;
    cuzk_status st = stacked_synth_columns(cs, c, p, top, &v, err);
    for (unsigned layer = 1; layer <= c->layers && st == CUZK_OK; layer++)
        st = stacked_synth_label(cs, c, top, &v, layer, err);
    return st == CUZK_OK ? stacked_synth_finish(cs, c, p, top, &v, err) : st;
}

cuzk_status stacked_witness_alloc(stacked_witness *w, const stacked_circuit *c, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    size_t d_levels = c->tree_d.levels, rc_levels = c->tree_rc.levels, rc_sibs = 0;
    for (unsigned l = 0; l < rc_levels; l++) rc_sibs += c->tree_rc.arity[l] - 1;
    /* Per challenge: TreeD path, 2 + 14 TreeC/TreeR paths, 14 columns. */
    size_t paths = 2 + POREP_DEGREE;
    size_t frs = d_levels + paths * rc_sibs + (size_t)POREP_DEGREE * c->layers;
    size_t bytes = d_levels + paths * rc_levels;
    size_t total = c->challenges * (sizeof(stacked_challenge) + frs * sizeof(fr_t) + bytes);
    unsigned char *block = r1cs_xcalloc(1, total);
    if (!block) return cuzk_error_set(err, CUZK_ERR_NOMEM, "stacked_witness_alloc: cannot allocate %zu bytes", total);
    w->block = block;
    w->challenges = c->challenges;
    w->proofs = (stacked_challenge *)block;
    fr_t *f = (fr_t *)(block + c->challenges * sizeof(stacked_challenge));
    uint8_t *b = (uint8_t *)(f + c->challenges * frs);
    for (unsigned i = 0; i < c->challenges; i++) {
        stacked_challenge *p = &w->proofs[i];
        p->comm_d.sibs = f, f += d_levels;
        p->comm_d.index = b, b += d_levels;
        stacked_path *rc[2 + POREP_DEGREE];
        size_t n = 0;
        for (int j = 0; j < POREP_DRG_DEGREE; j++) rc[n++] = &p->drg[j].path;
        for (int j = 0; j < POREP_EXP_DEGREE; j++) rc[n++] = &p->exp[j].path;
        rc[n++] = &p->comm_r_last;
        rc[n++] = &p->comm_c;
        for (size_t j = 0; j < n; j++) {
            rc[j]->sibs = f, f += rc_sibs;
            rc[j]->index = b, b += rc_levels;
        }
        for (int j = 0; j < POREP_DRG_DEGREE; j++) p->drg[j].rows = f, f += c->layers;
        for (int j = 0; j < POREP_EXP_DEGREE; j++) p->exp[j].rows = f, f += c->layers;
    }
    return CUZK_OK;
}

void stacked_witness_free(stacked_witness *w)
{
    free(w->block);
    memset(w, 0, sizeof *w);
}

cuzk_status stacked_synth_top(r1cs *cs, const stacked_circuit *c, const stacked_witness *w, stacked_top_vars *top,
                              cuzk_error *err)
{
    cuzk_status st;
    fr_t zero;
    fr_set_zero(&zero);
    gadget_num rid, cr, h;
    gadget_bool le[GADGET_FR_NUM_BITS];
    if ((st = gadget_num_alloc(cs, w ? &w->replica_id : &zero, &rid, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &rid, err)) != CUZK_OK ||
        (st = gadget_num_to_bits_le(cs, &rid, le, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "replica_id: ");
    gadget_reverse_bit_numbering(le, GADGET_FR_NUM_BITS, top->replica_id);
    if ((st = gadget_num_alloc(cs, w ? &w->comm_d : &zero, &top->comm_d, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &top->comm_d, err)) != CUZK_OK ||
        (st = gadget_num_alloc(cs, w ? &w->comm_r : &zero, &cr, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &cr, err)) != CUZK_OK ||
        (st = gadget_num_alloc(cs, w ? &w->comm_r_last : &zero, &top->comm_r_last, err)) != CUZK_OK ||
        (st = gadget_num_alloc(cs, w ? &w->comm_c : &zero, &top->comm_c, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "commitments: ");
    gadget_num pre[2] = {top->comm_c, top->comm_r_last};
    if ((st = gadget_poseidon_hash(cs, pre, &c->p2, &h, err)) != CUZK_OK ||
        (st = gadget_enforce_equal(cs, &cr, &h, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "H_comm_c_comm_r_last: ");
    return CUZK_OK;
}

cuzk_status stacked_synthesize(r1cs *cs, const stacked_circuit *c, const stacked_witness *w, cuzk_error *err)
{
    const char *who = "stacked_synthesize";
    cuzk_status st;
    if (w && w->challenges != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: witness for %u challenges, circuit %u", who,
                              w->challenges, c->challenges);
    stacked_top_vars top;
    if ((st = stacked_synth_top(cs, c, w, &top, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    for (unsigned i = 0; i < c->challenges; i++)
        if ((st = synth_challenge(cs, c, w ? &w->proofs[i] : NULL, &top, err)) != CUZK_OK)
            return cuzk_error_prefix(err, "%s: challenge_%u: ", who, i);
    return CUZK_OK;
}

cuzk_status stacked_circuit_count(const stacked_circuit *c, stacked_info *out, cuzk_error *err)
{
    /* A counting system stores nothing per variable or constraint: a 130-million-constraint partition needs no
     * memory beyond the stack. */
    r1cs cs;
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "stacked_circuit_count: ");
    st = stacked_synthesize(&cs, c, NULL, err);
    if (st == CUZK_OK) {
        out->synth_constraints = cs.num_constraints;
        out->inputs = cs.num_inputs;
        out->aux = cs.num_aux;
        out->constraints = cs.num_constraints + cs.num_inputs;
    }
    r1cs_free(&cs);
    return st;
}

cuzk_status stacked_circuit_info(uint64_t sector_size, stacked_info *out, cuzk_error *err)
{
    const porep_geometry *g = porep_geometry_for_size(sector_size);
    if (!g)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "stacked_circuit_info: no PoRep geometry for %llu bytes",
                              (unsigned long long)sector_size);
    stacked_circuit c;
    cuzk_status st = stacked_circuit_init_geometry(&c, g, POREP_INTERACTIVE, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "stacked_circuit_info: ");
    st = stacked_circuit_count(&c, out, err);
    stacked_circuit_free(&c);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "stacked_circuit_info: ");
}
