#include "circuits/porep/synth_c1.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/hash/sha256.h"
#include "circuits/porep/challenges.h"
#include "circuits/porep/graph.h"
#include "circuits/porep/hashing.h"
#include "util/rng.h"

/* ---- sparse trees: per level the touched nodes (sorted indices and values); every other node of level l holds
 * def[l], the root of a subtree of default leaves ---- */

typedef struct sparse_tree {
    unsigned levels;
    unsigned arity[POREP_MAX_TREE_LEVELS];
    int sha; /* binary SHA-256 (TreeD), else Poseidon of the level's arity */
    porep_dom def[POREP_MAX_TREE_LEVELS + 1];
    size_t n[POREP_MAX_TREE_LEVELS + 1];
    uint64_t *idx[POREP_MAX_TREE_LEVELS + 1];
    porep_dom *val[POREP_MAX_TREE_LEVELS + 1];
} sparse_tree;

static void sparse_free(sparse_tree *t)
{
    for (unsigned l = 0; l <= t->levels; l++) {
        free(t->idx[l]);
        free(t->val[l]);
    }
    memset(t, 0, sizeof *t);
}

static int node_hash(const porep_hashers *h, const sparse_tree *t, unsigned arity, const porep_dom *kids, porep_dom out)
{
    if (t->sha) {
        porep_sha256_node(kids[0], kids[1], out);
        return 0;
    }
    return porep_poseidon(h, arity, kids, out);
}

static const uint8_t *sparse_get(const sparse_tree *t, unsigned l, uint64_t i)
{
    size_t lo = 0, hi = t->n[l];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->idx[l][mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n[l] && t->idx[l][lo] == i ? t->val[l][lo] : t->def[l];
}

/* Builds the tree over leaves (idx sorted and unique) in a tree whose other leaves are def_leaf. The tree takes
 * over idx and val. -1 on allocation failure or a value not below r. */
static int sparse_build(sparse_tree *t, const porep_hashers *h, uint64_t *idx, porep_dom *val, size_t n,
                        const porep_dom def_leaf)
{
    porep_dom kids[8];
    t->idx[0] = idx;
    t->val[0] = val;
    t->n[0] = n;
    memcpy(t->def[0], def_leaf, 32);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        for (unsigned q = 0; q < a; q++) memcpy(kids[q], t->def[l], 32);
        if (node_hash(h, t, a, kids, t->def[l + 1]) != 0) return -1;
        size_t m = 0, cap = t->n[l] ? t->n[l] : 1;
        t->idx[l + 1] = malloc(cap * sizeof(uint64_t));
        t->val[l + 1] = malloc(cap * sizeof(porep_dom));
        if (!t->idx[l + 1] || !t->val[l + 1]) return -1;
        for (size_t k = 0; k < t->n[l];) {
            uint64_t parent = t->idx[l][k] / a;
            for (unsigned q = 0; q < a; q++) memcpy(kids[q], t->def[l], 32);
            for (; k < t->n[l] && t->idx[l][k] / a == parent; k++) memcpy(kids[t->idx[l][k] % a], t->val[l][k], 32);
            t->idx[l + 1][m] = parent;
            if (node_hash(h, t, a, kids, t->val[l + 1][m]) != 0) return -1;
            m++;
        }
        t->n[l + 1] = m;
    }
    return 0;
}

static void sparse_path(const sparse_tree *t, uint64_t leaf, porep_merkle_proof *p)
{
    memcpy(p->leaf, sparse_get(t, 0, leaf), 32);
    memcpy(p->root, sparse_get(t, t->levels, 0), 32);
    uint64_t i = leaf;
    size_t k = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l], at = (unsigned)(i % a);
        p->index[l] = (uint8_t)at;
        for (unsigned q = 0; q < a; q++)
            if (q != at) memcpy(p->sibs[k++], sparse_get(t, l, i - at + q), 32);
        i /= a;
    }
}

/* ---- the synthetic sector ---- */

typedef struct synth {
    const porep_geometry *g;
    porep_graph graph;
    porep_hashers hashers;
    porep_dom replica_id, data, label_key;
    size_t nchal;      /* distinct challenged nodes */
    uint64_t *chal;    /* sorted */
    porep_dom *labels; /* nchal x layers: the challenged nodes' computed labels */
    uint32_t *parents; /* nchal x POREP_DEGREE */
    sparse_tree tree_d, tree_c, tree_r;
} synth;

static size_t find_node(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x ? lo : SIZE_MAX;
}

/* The label of node v in layer (1-based): computed for a challenged node, a keyed PRF of (v, layer) otherwise. */
static void label_of(const synth *s, uint64_t v, unsigned layer, porep_dom out)
{
    size_t i = find_node(s->chal, s->nchal, v);
    if (i != SIZE_MAX) {
        memcpy(out, s->labels[i * s->g->layers + layer - 1], 32);
        return;
    }
    uint8_t buf[44];
    memcpy(buf, s->label_key, 32);
    for (int b = 0; b < 8; b++) buf[32 + b] = (uint8_t)(v >> (8 * b));
    for (int b = 0; b < 4; b++) buf[40 + b] = (uint8_t)(layer >> (8 * b));
    sha256_digest(buf, sizeof buf, out);
    sha256_trim_fr32(out);
}

/* The 37 labels hashed into the label of a node with parents par in layer (seal.c's label_parents layout). */
static void label_parents(const synth *s, const uint32_t par[POREP_DEGREE], unsigned layer,
                          porep_dom out[POREP_LABEL_PARENTS])
{
    unsigned deg = layer == 1 ? POREP_DRG_DEGREE : POREP_DEGREE;
    for (unsigned q = 0; q < POREP_LABEL_PARENTS; q++) {
        unsigned j = q % deg;
        label_of(s, par[j], j < POREP_DRG_DEGREE ? layer : layer - 1, out[q]);
    }
}

static int column_hash(const synth *s, uint64_t v, porep_dom out)
{
    porep_dom col[POREP_MAX_LAYERS];
    for (unsigned l = 0; l < s->g->layers; l++) label_of(s, v, l + 1, col[l]);
    return porep_poseidon(&s->hashers, s->g->layers, col, out);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t sort_unique(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static void random_dom(rng_t *rng, porep_dom out)
{
    rng_bytes(rng, out, 32);
    out[31] &= 0x3f; /* below 2^254 < r, like a trimmed hash or an Fr32-padded data node */
}

static void synth_free(synth *s)
{
    porep_hashers_free(&s->hashers);
    free(s->chal);
    free(s->labels);
    free(s->parents);
    sparse_free(&s->tree_d);
    sparse_free(&s->tree_c);
    sparse_free(&s->tree_r);
}

static void tree_shape(sparse_tree *t, const porep_geometry *g, int tree_d)
{
    t->sha = tree_d;
    t->levels = tree_d ? g->tree_d_levels : porep_tree_levels(g);
    for (unsigned l = 0; l < t->levels; l++) t->arity[l] = tree_d ? 2 : porep_tree_level_arity(g, l);
}

/* Labels of the challenged nodes, layer by layer and node by node ascending: a DRG parent (an earlier node, same
 * layer) or an expander parent (previous layer) that is itself challenged is then already computed. */
static void compute_labels(synth *s)
{
    porep_dom par[POREP_LABEL_PARENTS];
    for (unsigned layer = 1; layer <= s->g->layers; layer++) {
        for (size_t i = 0; i < s->nchal; i++) {
            label_parents(s, s->parents + i * POREP_DEGREE, layer, par);
            porep_label(s->labels[i * s->g->layers + layer - 1], s->replica_id, layer, s->chal[i], par);
        }
    }
}

static void column_proof(const synth *s, uint32_t node, porep_column_proof *c)
{
    c->node = node;
    for (unsigned l = 0; l < s->g->layers; l++) label_of(s, node, l + 1, c->rows[l]);
    sparse_path(&s->tree_c, node, &c->path);
}

static void prove(const synth *s, uint64_t challenge, porep_challenge_proof *p)
{
    const porep_geometry *g = s->g;
    size_t ci = find_node(s->chal, s->nchal, challenge);
    const uint32_t *par = s->parents + ci * POREP_DEGREE;
    p->challenge = challenge;
    sparse_path(&s->tree_d, challenge, &p->comm_d);
    sparse_path(&s->tree_r, challenge, &p->comm_r_last);
    column_proof(s, (uint32_t)challenge, &p->c_x);
    for (int j = 0; j < POREP_DRG_DEGREE; j++) column_proof(s, par[j], &p->drg[j]);
    for (int j = 0; j < POREP_EXP_DEGREE; j++) column_proof(s, par[POREP_DRG_DEGREE + j], &p->exp[j]);
    for (unsigned layer = 1; layer <= g->layers; layer++)
        label_parents(s, par, layer, p->labeling + (size_t)POREP_LABEL_PARENTS * (layer - 1));
    memcpy(p->encoding, p->labeling + (size_t)POREP_LABEL_PARENTS * (g->layers - 1),
           POREP_LABEL_PARENTS * sizeof(porep_dom));
}

/* Everything after the challenges are known: labels, the three trees, comm_r, the proofs. */
static cuzk_status synth_build(synth *s, porep_c1 *c1, const uint64_t *all_ch, rng_t *rng, cuzk_error *err)
{
    const porep_geometry *g = s->g;
    size_t total = (size_t)c1->partitions * c1->challenges;
    s->chal = malloc(total * sizeof(uint64_t));
    if (!s->chal) return cuzk_error_set(err, CUZK_ERR_NOMEM, "porep synth-c1: out of memory");
    memcpy(s->chal, all_ch, total * sizeof(uint64_t));
    s->nchal = sort_unique(s->chal, total);
    s->labels = malloc(s->nchal * g->layers * sizeof(porep_dom));
    s->parents = malloc(s->nchal * POREP_DEGREE * sizeof(uint32_t));
    size_t ncols_max = s->nchal * (POREP_DEGREE + 1);
    uint64_t *cols = malloc(ncols_max * sizeof(uint64_t));
    uint64_t *r_idx = malloc(s->nchal * sizeof(uint64_t));
    porep_dom *r_val = malloc(s->nchal * sizeof(porep_dom));
    porep_dom *c_val = malloc(ncols_max * sizeof(porep_dom));
    if (!s->labels || !s->parents || !cols || !r_idx || !r_val || !c_val) {
        free(cols);
        free(r_idx);
        free(r_val);
        free(c_val);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "porep synth-c1: out of memory");
    }
    size_t ncols = 0;
    for (size_t i = 0; i < s->nchal; i++) {
        porep_graph_parents(&s->graph, (uint32_t)s->chal[i], s->parents + i * POREP_DEGREE);
        cols[ncols++] = s->chal[i];
        for (int j = 0; j < POREP_DEGREE; j++) cols[ncols++] = s->parents[i * POREP_DEGREE + j];
    }
    ncols = sort_unique(cols, ncols);
    compute_labels(s);

    /* TreeC: the columns anybody opens; TreeR: the challenged replica nodes (last label + data). */
    int bad = 0;
    for (size_t k = 0; k < ncols && !bad; k++) bad = column_hash(s, cols[k], c_val[k]);
    for (size_t i = 0; i < s->nchal && !bad; i++) {
        r_idx[i] = s->chal[i];
        bad = porep_fr_add(r_val[i], s->labels[i * g->layers + g->layers - 1], s->data);
    }
    porep_dom def_c, def_r;
    random_dom(rng, def_c);
    random_dom(rng, def_r);
    tree_shape(&s->tree_c, g, 0);
    tree_shape(&s->tree_r, g, 0);
    if (!bad) {
        bad = sparse_build(&s->tree_c, &s->hashers, cols, c_val, ncols, def_c);
    } else {
        free(cols);
        free(c_val);
    }
    if (!bad) {
        bad = sparse_build(&s->tree_r, &s->hashers, r_idx, r_val, s->nchal, def_r);
    } else {
        free(r_idx);
        free(r_val);
    }
    porep_dom kids[2];
    if (!bad) {
        memcpy(kids[0], sparse_get(&s->tree_c, s->tree_c.levels, 0), 32);
        memcpy(kids[1], sparse_get(&s->tree_r, s->tree_r.levels, 0), 32);
        bad = porep_poseidon(&s->hashers, 2, kids, c1->comm_r);
    }
    if (bad) return cuzk_error_set(err, CUZK_ERR_INTERNAL, "porep synth-c1: out of memory or a value left the field");
    for (unsigned k = 0; k < c1->partitions; k++)
        for (unsigned i = 0; i < c1->challenges; i++)
            prove(s, all_ch[(size_t)k * c1->challenges + i], porep_c1_proof(c1, k, i));
    return CUZK_OK;
}

cuzk_status porep_synth_c1(porep_c1 *out, const porep_proof_type *type, uint64_t seed, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (!type) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep synth-c1: no proof type");
    if (type->kind != POREP_INTERACTIVE)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "porep synth-c1: %s: only interactive PoRep (challenges from the seed; synthetic and "
                              "non-interactive ones depend on comm_r)",
                              type->name);
    synth s;
    memset(&s, 0, sizeof s);
    s.g = porep_geometry_for_size(type->sector_size);
    if (!s.g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep synth-c1: no geometry for %s", type->name);
    uint8_t porep_id[32];
    porep_proof_type_porep_id(type, porep_id);
    cuzk_status st = porep_graph_init(&s.graph, s.g->nodes, type->api, porep_id, err);
    if (st) return cuzk_error_prefix(err, "porep synth-c1: ");
    if ((st = porep_hashers_init(&s.hashers, err))) return cuzk_error_prefix(err, "porep synth-c1: ");
    if ((st = porep_c1_alloc(out, type, err))) {
        synth_free(&s);
        return cuzk_error_prefix(err, "porep synth-c1: ");
    }

    rng_t rng;
    rng_seed(&rng, seed);
    uint8_t prover_id[32];
    rng_bytes(&rng, prover_id, 32);
    uint64_t sector_id = rng_next(&rng);
    rng_bytes(&rng, out->ticket, 32);
    rng_bytes(&rng, out->seed, 32);
    random_dom(&rng, s.data);
    rng_bytes(&rng, s.label_key, 32);

    /* TreeD: every data node is s.data, so only default subtrees. */
    tree_shape(&s.tree_d, s.g, 1);
    if (sparse_build(&s.tree_d, &s.hashers, NULL, NULL, 0, s.data) != 0) {
        synth_free(&s);
        porep_c1_free(out);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "porep synth-c1: out of memory");
    }
    memcpy(out->comm_d, sparse_get(&s.tree_d, s.tree_d.levels, 0), 32);
    porep_replica_id(s.replica_id, prover_id, sector_id, out->ticket, out->comm_d, porep_id);
    memcpy(out->replica_id, s.replica_id, 32);

    size_t total = (size_t)out->partitions * out->challenges;
    uint64_t *all_ch = malloc(total * sizeof *all_ch);
    if (!all_ch) st = cuzk_error_set(err, CUZK_ERR_NOMEM, "porep synth-c1: out of memory");
    static const uint8_t no_comm_r[32];
    for (unsigned k = 0; !st && k < out->partitions; k++)
        porep_challenges_derive(all_ch + (size_t)k * out->challenges, s.g, type->kind, s.replica_id, out->seed,
                                no_comm_r, k);
    if (!st) st = synth_build(&s, out, all_ch, &rng, err);
    free(all_ch);
    synth_free(&s);
    if (st) porep_c1_free(out);
    return st;
}
