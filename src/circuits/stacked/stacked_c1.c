#include <string.h>

#include "circuits/stacked/stacked.h"

static cuzk_status dom_fr(fr_t *out, const porep_dom d, cuzk_error *err)
{
    if (fr_from_bytes_le(out, d) != 0) return cuzk_error_set(err, CUZK_ERR_FORMAT, "value not below the field modulus");
    return CUZK_OK;
}

static cuzk_status copy_path(const por_tree *t, const porep_merkle_proof *mp, stacked_path *p, cuzk_error *err)
{
    size_t k = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        if (mp->index[l] >= t->arity[l])
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "level %u: index %u for arity %u", l, mp->index[l],
                                  t->arity[l]);
        p->index[l] = mp->index[l];
        for (unsigned j = 0; j + 1 < t->arity[l]; j++, k++)
            if (dom_fr(&p->sibs[k], mp->sibs[k], err) != CUZK_OK)
                return cuzk_error_prefix(err, "level %u sibling %u: ", l, j);
    }
    return CUZK_OK;
}

static cuzk_status copy_column(const stacked_circuit *c, const porep_column_proof *cp, stacked_column *col,
                               cuzk_error *err)
{
    for (unsigned l = 0; l < c->layers; l++)
        if (dom_fr(&col->rows[l], cp->rows[l], err) != CUZK_OK) return cuzk_error_prefix(err, "row %u: ", l);
    return copy_path(&c->tree_rc, &cp->path, &col->path, err);
}

static cuzk_status fill(stacked_witness *w, const stacked_circuit *c, const porep_c1 *c1, unsigned k, cuzk_error *err)
{
    porep_dom comm_c, comm_r_last;
    porep_c1_comm_c(c1, comm_c);
    porep_c1_comm_r_last(c1, comm_r_last);
    if (dom_fr(&w->replica_id, c1->replica_id, err) != CUZK_OK) return cuzk_error_prefix(err, "replica_id: ");
    if (dom_fr(&w->comm_d, c1->comm_d, err) != CUZK_OK) return cuzk_error_prefix(err, "comm_d: ");
    if (dom_fr(&w->comm_r, c1->comm_r, err) != CUZK_OK) return cuzk_error_prefix(err, "comm_r: ");
    if (dom_fr(&w->comm_c, comm_c, err) != CUZK_OK) return cuzk_error_prefix(err, "comm_c: ");
    if (dom_fr(&w->comm_r_last, comm_r_last, err) != CUZK_OK) return cuzk_error_prefix(err, "comm_r_last: ");
    for (unsigned i = 0; i < c->challenges; i++) {
        const porep_challenge_proof *vp = porep_c1_proof(c1, k, i);
        stacked_challenge *p = &w->proofs[i];
        cuzk_status st;
        p->challenge = vp->challenge;
        if ((st = dom_fr(&p->data_leaf, vp->comm_d.leaf, err)) != CUZK_OK ||
            (st = copy_path(&c->tree_d, &vp->comm_d, &p->comm_d, err)) != CUZK_OK)
            return cuzk_error_prefix(err, "challenge %u: comm_d: ", i);
        for (int j = 0; j < POREP_DRG_DEGREE; j++)
            if ((st = copy_column(c, &vp->drg[j], &p->drg[j], err)) != CUZK_OK)
                return cuzk_error_prefix(err, "challenge %u: drg parent %d: ", i, j);
        for (int j = 0; j < POREP_EXP_DEGREE; j++)
            if ((st = copy_column(c, &vp->exp[j], &p->exp[j], err)) != CUZK_OK)
                return cuzk_error_prefix(err, "challenge %u: exp parent %d: ", i, j);
        if ((st = copy_path(&c->tree_rc, &vp->comm_r_last, &p->comm_r_last, err)) != CUZK_OK)
            return cuzk_error_prefix(err, "challenge %u: comm_r_last: ", i);
        if ((st = copy_path(&c->tree_rc, &vp->c_x.path, &p->comm_c, err)) != CUZK_OK)
            return cuzk_error_prefix(err, "challenge %u: c_x: ", i);
    }
    return CUZK_OK;
}

cuzk_status stacked_witness_from_c1(stacked_witness *w, const stacked_circuit *c, const porep_c1 *c1, unsigned k,
                                    cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    const porep_geometry *g = c1->geometry;
    int fits = g && k < c1->partitions && c1->challenges == c->challenges && g->nodes == c->nodes &&
               g->layers == c->layers && g->tree_d_levels == c->tree_d.levels &&
               porep_tree_levels(g) == c->tree_rc.levels;
    for (unsigned l = 0; fits && l < c->tree_rc.levels; l++) fits = porep_tree_level_arity(g, l) == c->tree_rc.arity[l];
    if (!fits)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "stacked_witness_from_c1: C1 (%s, %u partitions x %u challenges) does not fit the "
                              "circuit (%llu nodes, %u layers, %u challenges) or partition %u",
                              g ? g->name : "no geometry", c1->partitions, c1->challenges, (unsigned long long)c->nodes,
                              c->layers, c->challenges, k);
    cuzk_status st = stacked_witness_alloc(w, c, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "stacked_witness_from_c1: ");
    if ((st = fill(w, c, c1, k, err)) != CUZK_OK) {
        stacked_witness_free(w);
        return cuzk_error_prefix(err, "stacked_witness_from_c1: partition %u: ", k);
    }
    return CUZK_OK;
}
