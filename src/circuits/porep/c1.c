#include "circuits/porep/c1.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/challenges.h"
#include "circuits/porep/graph.h"
#include "circuits/porep/hashing.h"
#include "ff/fr.h"

/* ---------------------------------------------------------------- layout of one challenge's block */

void porep_c1_layout_init(porep_c1_layout *lo, const porep_geometry *g)
{
    lo->d_levels = g->tree_d_levels;
    lo->t_levels = porep_tree_levels(g);
    lo->layers = g->layers;
    unsigned off = 0;
    for (unsigned l = 0; l < lo->t_levels; l++) {
        lo->t_arity[l] = porep_tree_level_arity(g, l);
        lo->t_sib_off[l] = off;
        off += lo->t_arity[l] - 1;
    }
    lo->t_sib_off[lo->t_levels] = off;
    lo->t_sibs = off;
}

static size_t layout_doms(const porep_c1_layout *lo)
{
    return lo->d_levels + lo->t_sibs + 15 * ((size_t)lo->layers + lo->t_sibs) +
           (size_t)POREP_LABEL_PARENTS * (lo->layers + 1);
}

static size_t layout_bytes(const porep_c1_layout *lo)
{
    return layout_doms(lo) * sizeof(porep_dom) + lo->d_levels + 16 * (size_t)lo->t_levels;
}

static void column_carve(porep_column_proof *c, const porep_c1_layout *lo, porep_dom **d, uint8_t **ix)
{
    c->rows = *d;
    *d += lo->layers;
    c->path.sibs = *d;
    *d += lo->t_sibs;
    c->path.index = *ix;
    *ix += lo->t_levels;
}

int porep_c1_proof_alloc(porep_challenge_proof *p, const porep_c1_layout *lo)
{
    memset(p, 0, sizeof *p);
    uint8_t *block = calloc(1, layout_bytes(lo));
    if (!block) return -1;
    p->block = block;
    porep_dom *d = (porep_dom *)block;
    uint8_t *ix = block + layout_doms(lo) * sizeof(porep_dom);
    p->comm_d.sibs = d;
    d += lo->d_levels;
    p->comm_d.index = ix;
    ix += lo->d_levels;
    p->comm_r_last.sibs = d;
    d += lo->t_sibs;
    p->comm_r_last.index = ix;
    ix += lo->t_levels;
    column_carve(&p->c_x, lo, &d, &ix);
    for (int i = 0; i < POREP_DRG_DEGREE; i++) column_carve(&p->drg[i], lo, &d, &ix);
    for (int i = 0; i < POREP_EXP_DEGREE; i++) column_carve(&p->exp[i], lo, &d, &ix);
    p->labeling = d;
    d += (size_t)POREP_LABEL_PARENTS * lo->layers;
    p->encoding = d;
    return 0;
}

cuzk_status porep_c1_alloc(porep_c1 *c1, const porep_proof_type *type, cuzk_error *err)
{
    memset(c1, 0, sizeof *c1);
    const porep_geometry *g = porep_geometry_for_size(type->sector_size);
    if (!g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "C1: no geometry for %s", type->name);
    c1->type = type;
    c1->geometry = g;
    c1->partitions = porep_partitions(g, type->kind);
    c1->challenges = porep_challenges(g, type->kind);
    size_t n = (size_t)c1->partitions * c1->challenges;
    c1->proofs = calloc(n, sizeof *c1->proofs);
    if (!c1->proofs) return cuzk_error_set(err, CUZK_ERR_NOMEM, "C1: out of memory for %zu proofs", n);
    porep_c1_layout lo;
    porep_c1_layout_init(&lo, g);
    for (size_t i = 0; i < n; i++) {
        if (porep_c1_proof_alloc(&c1->proofs[i], &lo) != 0) {
            porep_c1_free(c1);
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "C1: out of memory for %zu proofs", n);
        }
    }
    return CUZK_OK;
}

void porep_c1_free(porep_c1 *c1)
{
    if (!c1) return;
    if (c1->proofs)
        for (size_t i = 0; i < (size_t)c1->partitions * c1->challenges; i++) free(c1->proofs[i].block);
    free(c1->proofs);
    memset(c1, 0, sizeof *c1);
}

/* ---------------------------------------------------------------- validation */

static int below_r(const porep_dom d)
{
    fr_t x;
    return fr_from_bytes_le(&x, d) == 0;
}

#define VFAIL(...) cuzk_error_set(err, CUZK_ERR_FORMAT, __VA_ARGS__)

static uint64_t tree_index(const porep_merkle_proof *p, const porep_c1_layout *lo)
{
    /* mixed radix, leaf level least significant */
    uint64_t v = 0;
    for (unsigned l = lo->t_levels; l-- > 0;) v = v * lo->t_arity[l] + p->index[l];
    return v;
}

static uint64_t d_index(const porep_merkle_proof *p, const porep_c1_layout *lo)
{
    uint64_t v = 0;
    for (unsigned l = lo->d_levels; l-- > 0;) v = v * 2 + p->index[l];
    return v;
}

static cuzk_status check_doms(const porep_dom *d, size_t n, unsigned k, unsigned i, const char *what, cuzk_error *err)
{
    for (size_t j = 0; j < n; j++)
        if (!below_r(d[j])) return VFAIL("C1 partition %u, challenge %u, %s[%zu]: value not below r", k, i, what, j);
    return CUZK_OK;
}

static cuzk_status check_tree_proof(const porep_merkle_proof *p, const porep_c1_layout *lo, uint64_t want, unsigned k,
                                    unsigned i, const char *what, cuzk_error *err)
{
    cuzk_status st;
    char w[64];
    if (!below_r(p->leaf)) return VFAIL("C1 partition %u, challenge %u, %s.leaf: value not below r", k, i, what);
    if (!below_r(p->root)) return VFAIL("C1 partition %u, challenge %u, %s.root: value not below r", k, i, what);
    snprintf(w, sizeof w, "%s siblings", what);
    if ((st = check_doms(p->sibs, lo->t_sibs, k, i, w, err))) return st;
    uint64_t idx = tree_index(p, lo);
    if (idx != want)
        return VFAIL("C1 partition %u, challenge %u, %s: path index %llu, expected node %llu", k, i, what,
                     (unsigned long long)idx, (unsigned long long)want);
    return CUZK_OK;
}

cuzk_status porep_c1_validate(const porep_c1 *c1, cuzk_error *err)
{
    const porep_proof_type *t = c1->type;
    const porep_geometry *g = c1->geometry;
    if (!t || !g) return VFAIL("C1: no registered proof or no proofs");
    if (t->sector_size != g->sector_size)
        return VFAIL("C1: registered_proof %s is for %llu-byte sectors, the vanilla proofs for %s", t->name,
                     (unsigned long long)t->sector_size, g->name);
    if (c1->partitions != porep_partitions(g, t->kind) || c1->challenges != porep_challenges(g, t->kind))
        return VFAIL("C1: %u partitions x %u challenges, %s needs %u x %u", c1->partitions, c1->challenges, t->name,
                     porep_partitions(g, t->kind), porep_challenges(g, t->kind));
    if (!below_r(c1->comm_r)) return VFAIL("C1 comm_r: value not below r");
    if (!below_r(c1->comm_d)) return VFAIL("C1 comm_d: value not below r");
    if (!below_r(c1->replica_id)) return VFAIL("C1 replica_id: value not below r");

    porep_c1_layout lo;
    porep_c1_layout_init(&lo, g);
    uint8_t porep_id[32];
    porep_proof_type_porep_id(t, porep_id);
    porep_graph graph;
    cuzk_status st = porep_graph_init(&graph, g->nodes, t->api, porep_id, err);
    if (st) return st;
    const porep_challenge_proof *first = &c1->proofs[0];
    uint64_t want[POREP_MAX_CHALLENGES];
    for (unsigned k = 0; k < c1->partitions; k++) {
        porep_challenges_derive(want, g, t->kind, c1->replica_id, c1->seed, c1->comm_r, k);
        for (unsigned i = 0; i < c1->challenges; i++) {
            const porep_challenge_proof *p = porep_c1_proof(c1, k, i);
            uint64_t c = p->challenge;
            if (c != want[i])
                return VFAIL("C1 partition %u, challenge %u: proves node %llu, but replica_id and %s give challenge "
                             "%llu",
                             k, i, (unsigned long long)c, t->kind == POREP_NON_INTERACTIVE ? "comm_r" : "the seed",
                             (unsigned long long)want[i]);
            /* TreeD */
            if (!below_r(p->comm_d.leaf))
                return VFAIL("C1 partition %u, challenge %u, comm_d_proofs.leaf: value not below r", k, i);
            if ((st = check_doms(p->comm_d.sibs, lo.d_levels, k, i, "comm_d_proofs siblings", err))) return st;
            if (d_index(&p->comm_d, &lo) != c)
                return VFAIL("C1 partition %u, challenge %u, comm_d_proofs: path index %llu, expected node %llu", k, i,
                             (unsigned long long)d_index(&p->comm_d, &lo), (unsigned long long)c);
            if (memcmp(p->comm_d.root, c1->comm_d, 32) != 0)
                return VFAIL("C1 partition %u, challenge %u, comm_d_proofs.root: differs from comm_d", k, i);
            /* TreeR */
            if ((st = check_tree_proof(&p->comm_r_last, &lo, c, k, i, "comm_r_last_proof", err))) return st;
            if (memcmp(p->comm_r_last.root, first->comm_r_last.root, 32) != 0)
                return VFAIL("C1 partition %u, challenge %u, comm_r_last_proof.root: differs from the first proof's", k,
                             i);
            /* TreeC columns */
            uint32_t parents[POREP_DEGREE];
            porep_graph_parents(&graph, (uint32_t)c, parents);
            for (unsigned j = 0; j < 1 + POREP_DEGREE; j++) {
                const porep_column_proof *col = j == 0                  ? &p->c_x
                                                : j <= POREP_DRG_DEGREE ? &p->drg[j - 1]
                                                                        : &p->exp[j - 1 - POREP_DRG_DEGREE];
                char what[64];
                if (j == 0)
                    snprintf(what, sizeof what, "replica_column_proofs.c_x");
                else if (j <= POREP_DRG_DEGREE)
                    snprintf(what, sizeof what, "replica_column_proofs.drg_parents[%u]", j - 1);
                else
                    snprintf(what, sizeof what, "replica_column_proofs.exp_parents[%u]", j - 1 - POREP_DRG_DEGREE);
                uint64_t node = j == 0 ? c : parents[j - 1];
                if (col->node != node)
                    return VFAIL("C1 partition %u, challenge %u, %s.column.index: %u, the graph gives %llu", k, i, what,
                                 col->node, (unsigned long long)node);
                char rows[80];
                snprintf(rows, sizeof rows, "%s.column.rows", what);
                if ((st = check_doms(col->rows, lo.layers, k, i, rows, err))) return st;
                snprintf(rows, sizeof rows, "%s.inclusion_proof", what);
                if ((st = check_tree_proof(&col->path, &lo, node, k, i, rows, err))) return st;
                if (memcmp(col->path.root, first->c_x.path.root, 32) != 0)
                    return VFAIL("C1 partition %u, challenge %u, %s.inclusion_proof.root: differs from comm_c", k, i,
                                 what);
            }
            /* the 37-parent layouts: layer 1 cycles the 6 DRG parents of layer 1; layer l > 1 cycles the DRG parents
             * of layer l and the expander parents of layer l - 1 */
            for (unsigned l = 1; l <= lo.layers; l++) {
                const porep_dom *lp = p->labeling + (size_t)POREP_LABEL_PARENTS * (l - 1);
                unsigned deg = l == 1 ? POREP_DRG_DEGREE : POREP_DEGREE;
                for (unsigned q = 0; q < POREP_LABEL_PARENTS; q++) {
                    unsigned j = q % deg;
                    const uint8_t *v =
                        j < POREP_DRG_DEGREE ? p->drg[j].rows[l - 1] : p->exp[j - POREP_DRG_DEGREE].rows[l - 2];
                    if (memcmp(lp[q], v, 32) != 0)
                        return VFAIL("C1 partition %u, challenge %u, labeling_proofs[%u].parents[%u]: differs from the "
                                     "%s column's layer-%u row",
                                     k, i, l - 1, q, j < POREP_DRG_DEGREE ? "DRG parent" : "expander parent",
                                     j < POREP_DRG_DEGREE ? l : l - 1);
                }
            }
            if (memcmp(p->encoding, p->labeling + (size_t)POREP_LABEL_PARENTS * (lo.layers - 1),
                       POREP_LABEL_PARENTS * sizeof(porep_dom)) != 0)
                return VFAIL("C1 partition %u, challenge %u, encoding_proof.parents: differ from the last layer's "
                             "labeling parents",
                             k, i);
        }
    }
    return CUZK_OK;
}

cuzk_status porep_c1_public_inputs(const porep_c1 *c1, unsigned k, fr_t *out, cuzk_error *err)
{
    if (k >= c1->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "C1: partition %u of %u", k, c1->partitions);
    uint8_t porep_id[32];
    porep_proof_type_porep_id(c1->type, porep_id);
    porep_graph graph;
    cuzk_status st = porep_graph_init(&graph, c1->geometry->nodes, c1->type->api, porep_id, err);
    if (st) return st;
    uint64_t ch[POREP_MAX_CHALLENGES];
    for (unsigned i = 0; i < c1->challenges; i++) ch[i] = porep_c1_proof(c1, k, i)->challenge;
    return porep_public_inputs(out, &graph, ch, c1->challenges, c1->replica_id, c1->comm_d, c1->comm_r, err);
}

void porep_c1_comm_c(const porep_c1 *c1, porep_dom out)
{
    memcpy(out, c1->proofs[0].c_x.path.root, 32);
}
void porep_c1_comm_r_last(const porep_c1 *c1, porep_dom out)
{
    memcpy(out, c1->proofs[0].comm_r_last.root, 32);
}

/* ---------------------------------------------------------------- verification (hashing) */

static int tree_root(const porep_hashers *h, const porep_merkle_proof *p, const porep_c1_layout *lo, porep_dom out)
{
    porep_dom cur, kids[8];
    memcpy(cur, p->leaf, 32);
    for (unsigned l = 0; l < lo->t_levels; l++) {
        unsigned a = lo->t_arity[l], at = p->index[l];
        const porep_dom *s = p->sibs + lo->t_sib_off[l];
        for (unsigned q = 0, j = 0; q < a; q++) memcpy(kids[q], q == at ? cur : s[j++], 32);
        if (porep_poseidon(h, a, kids, cur) != 0) return -1;
    }
    memcpy(out, cur, 32);
    return 0;
}

cuzk_status porep_c1_verify(const porep_c1 *c1, cuzk_error *err)
{
    porep_c1_layout lo;
    porep_c1_layout_init(&lo, c1->geometry);
    porep_hashers h;
    cuzk_status st = porep_hashers_init(&h, err);
    if (st) return st;
    porep_dom comm_c, comm_r_last, x, kids[2];
    porep_c1_comm_c(c1, comm_c);
    porep_c1_comm_r_last(c1, comm_r_last);
    memcpy(kids[0], comm_c, 32);
    memcpy(kids[1], comm_r_last, 32);
    if (porep_poseidon(&h, 2, kids, x) != 0 || memcmp(x, c1->comm_r, 32) != 0) {
        porep_hashers_free(&h);
        return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "C1: comm_r is not Poseidon2(comm_c, comm_r_last)");
    }
    for (unsigned k = 0; k < c1->partitions && st == CUZK_OK; k++) {
        for (unsigned i = 0; i < c1->challenges && st == CUZK_OK; i++) {
            const porep_challenge_proof *p = porep_c1_proof(c1, k, i);
            const char *bad = NULL;
            porep_dom cur;
            memcpy(cur, p->comm_d.leaf, 32);
            for (unsigned l = 0; l < lo.d_levels; l++) {
                if (p->comm_d.index[l])
                    porep_sha256_node(p->comm_d.sibs[l], cur, cur);
                else
                    porep_sha256_node(cur, p->comm_d.sibs[l], cur);
            }
            if (memcmp(cur, c1->comm_d, 32) != 0) bad = "comm_d_proofs does not hash to comm_d";
            if (!bad && (tree_root(&h, &p->comm_r_last, &lo, cur) || memcmp(cur, comm_r_last, 32) != 0))
                bad = "comm_r_last_proof does not hash to its root";
            for (unsigned j = 0; !bad && j < 1 + POREP_DEGREE; j++) {
                const porep_column_proof *col = j == 0                  ? &p->c_x
                                                : j <= POREP_DRG_DEGREE ? &p->drg[j - 1]
                                                                        : &p->exp[j - 1 - POREP_DRG_DEGREE];
                if (porep_poseidon(&h, lo.layers, col->rows, cur) != 0 || memcmp(cur, col->path.leaf, 32) != 0)
                    bad = j == 0 ? "c_x: the column hash is not the TreeC leaf"
                                 : "a parent column's hash is not its TreeC leaf";
                else if (tree_root(&h, &col->path, &lo, cur) || memcmp(cur, comm_c, 32) != 0)
                    bad = "a TreeC inclusion proof does not hash to comm_c";
            }
            for (unsigned l = 1; !bad && l <= lo.layers; l++) {
                porep_label(cur, c1->replica_id, l, p->challenge, p->labeling + (size_t)POREP_LABEL_PARENTS * (l - 1));
                if (memcmp(cur, p->c_x.rows[l - 1], 32) != 0) bad = "a label does not match its labeling proof";
            }
            if (!bad) {
                porep_label(cur, c1->replica_id, lo.layers, p->challenge, p->encoding);
                if (porep_fr_add(cur, cur, p->comm_d.leaf) != 0 || memcmp(cur, p->comm_r_last.leaf, 32) != 0)
                    bad = "the replica node is not key + data";
            }
            if (bad) st = cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "C1 partition %u, challenge %u: %s", k, i, bad);
        }
    }
    porep_hashers_free(&h);
    return st;
}
