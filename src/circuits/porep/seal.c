#include "circuits/porep/seal.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/porep/challenges.h"
#include "util/rng.h"

/* ---- trees: levels stored leaves first; a tree of n leaves and arity a has (n a - 1) / (a - 1) nodes ---- */

static size_t tree_size(uint64_t leaves, unsigned arity)
{
    return (size_t)((leaves * arity - 1) / (arity - 1));
}

/* Fills the levels above t[0..leaves). */
static int tree_build(const porep_hashers *h, porep_dom *t, uint64_t leaves, unsigned arity, int sha)
{
    porep_dom *in = t;
    for (uint64_t n = leaves; n > 1; n /= arity) {
        porep_dom *out = in + n;
        for (uint64_t i = 0; i < n / arity; i++) {
            if (sha)
                porep_sha256_node(in[2 * i], in[2 * i + 1], out[i]);
            else if (porep_poseidon(h, arity, in + i * arity, out[i]) != 0)
                return -1;
        }
        in = out;
    }
    return 0;
}

/* Path of leaf j in one tree: levels [first, first + n) of p. */
static void tree_path(const porep_dom *t, uint64_t leaves, unsigned arity, uint64_t j, porep_merkle_proof *p,
                      unsigned first, const unsigned *sib_off)
{
    const porep_dom *level = t;
    unsigned l = first;
    for (uint64_t n = leaves; n > 1; n /= arity, l++) {
        uint64_t group = j / arity * arity;
        p->index[l] = (uint8_t)(j % arity);
        porep_dom *s = p->sibs + sib_off[l];
        for (unsigned q = 0, k = 0; q < arity; q++)
            if (q != j % arity) memcpy(s[k++], level[group + q], 32);
        level += n;
        j /= arity;
    }
}

typedef struct shape {
    unsigned levels, base_count, sub, top, arity[POREP_MAX_TREE_LEVELS], sib_off[POREP_MAX_TREE_LEVELS + 1];
    uint64_t base_leaves;
    size_t base_size;
} shape;

static void shape_init(shape *sh, const porep_geometry *g)
{
    sh->levels = porep_tree_levels(g);
    sh->base_count = porep_base_tree_count(g);
    sh->sub = g->sub_arity;
    sh->top = g->top_arity;
    sh->base_leaves = g->nodes / sh->base_count;
    sh->base_size = tree_size(sh->base_leaves, g->base_arity);
    unsigned off = 0;
    for (unsigned l = 0; l < sh->levels; l++) {
        sh->arity[l] = porep_tree_level_arity(g, l);
        sh->sib_off[l] = off;
        off += sh->arity[l] - 1;
    }
    sh->sib_off[sh->levels] = off;
}

static size_t compound_size(const shape *sh)
{
    return sh->base_count * sh->base_size + (sh->sub ? sh->base_count / sh->sub : 0) + (sh->top ? 1 : 0);
}

/* t holds the leaves of every base tree (base tree b at b * base_size); builds everything above them. */
static int compound_build(const porep_hashers *h, const shape *sh, unsigned base_arity, porep_dom *t, porep_dom root)
{
    for (unsigned b = 0; b < sh->base_count; b++)
        if (tree_build(h, t + b * sh->base_size, sh->base_leaves, base_arity, 0) != 0) return -1;
    porep_dom *subs = t + sh->base_count * sh->base_size;
    if (!sh->sub) {
        memcpy(root, t[sh->base_size - 1], 32);
        return 0;
    }
    porep_dom kids[8];
    unsigned groups = sh->base_count / sh->sub;
    for (unsigned gi = 0; gi < groups; gi++) {
        for (unsigned q = 0; q < sh->sub; q++) memcpy(kids[q], t[(gi * sh->sub + q + 1) * sh->base_size - 1], 32);
        if (porep_poseidon(h, sh->sub, kids, subs[gi]) != 0) return -1;
    }
    if (!sh->top) {
        memcpy(root, subs[0], 32);
        return 0;
    }
    if (porep_poseidon(h, sh->top, subs, subs[groups]) != 0) return -1;
    memcpy(root, subs[groups], 32);
    return 0;
}

static void compound_path(const shape *sh, unsigned base_arity, const porep_dom *t, uint64_t i, porep_merkle_proof *p)
{
    uint64_t b = i / sh->base_leaves;
    tree_path(t + b * sh->base_size, sh->base_leaves, base_arity, i % sh->base_leaves, p, 0, sh->sib_off);
    const porep_dom *subs = t + sh->base_count * sh->base_size;
    const porep_dom *base_root = t + sh->base_size - 1; /* base tree q's root is base_root[q * base_size] */
    unsigned l = sh->levels - (sh->sub ? 1 : 0) - (sh->top ? 1 : 0);
    memcpy(p->leaf, t[b * sh->base_size + i % sh->base_leaves], 32);
    if (!sh->sub) {
        memcpy(p->root, base_root[b * sh->base_size], 32);
        return;
    }
    unsigned gi = (unsigned)(b / sh->sub), at = (unsigned)(b % sh->sub);
    p->index[l] = (uint8_t)at;
    for (unsigned q = 0, k = 0; q < sh->sub; q++)
        if (q != at) memcpy(p->sibs[sh->sib_off[l] + k++], base_root[(gi * sh->sub + q) * sh->base_size], 32);
    if (!sh->top) {
        memcpy(p->root, subs[0], 32);
        return;
    }
    l++;
    p->index[l] = (uint8_t)gi;
    for (unsigned q = 0, k = 0; q < sh->top; q++)
        if (q != gi) memcpy(p->sibs[sh->sib_off[l] + k++], subs[q], 32);
    memcpy(p->root, subs[sh->base_count / sh->sub], 32);
}

/* ---- sealing ---- */

void porep_sealed_free(porep_sealed *s)
{
    if (!s) return;
    porep_hashers_free(&s->hashers);
    free(s->data);
    free(s->labels);
    free(s->replica);
    free(s->tree_d);
    free(s->tree_c);
    free(s->tree_r);
    memset(s, 0, sizeof *s);
}

/* The 37 parent labels of a node in a layer: layer 1 cycles its 6 DRG parents' layer-1 labels; layer l > 1 cycles
 * the DRG parents' layer-l labels and the expander parents' layer-(l - 1) labels. */
static void label_parents(const porep_sealed *s, unsigned layer, const uint32_t par[POREP_DEGREE],
                          porep_dom out[POREP_LABEL_PARENTS])
{
    uint64_t n = s->geometry->nodes;
    const porep_dom *cur = s->labels + (size_t)(layer - 1) * n;
    const porep_dom *prev = layer > 1 ? cur - n : NULL;
    unsigned deg = layer == 1 ? POREP_DRG_DEGREE : POREP_DEGREE;
    for (unsigned q = 0; q < POREP_LABEL_PARENTS; q++) {
        unsigned j = q % deg;
        memcpy(out[q], j < POREP_DRG_DEGREE ? cur[par[j]] : prev[par[j]], 32);
    }
}

cuzk_status porep_seal(porep_sealed *s, const porep_seal_params *p, cuzk_error *err)
{
    memset(s, 0, sizeof *s);
    const porep_geometry *g = p->geometry;
    if (!g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep seal: no geometry");
    s->geometry = g;
    memcpy(s->porep_id, p->porep_id, 32);
    cuzk_status st = porep_graph_init(&s->graph, g->nodes, p->api, p->porep_id, err);
    if (st) return st;
    if ((st = porep_hashers_init(&s->hashers, err))) return st;
    uint64_t n = g->nodes;
    shape sh;
    shape_init(&sh, g);
    s->data = calloc(n, sizeof(porep_dom));
    s->labels = malloc((size_t)g->layers * n * sizeof(porep_dom));
    s->replica = malloc(n * sizeof(porep_dom));
    s->tree_d = malloc(tree_size(n, 2) * sizeof(porep_dom));
    s->tree_c = malloc(compound_size(&sh) * sizeof(porep_dom));
    s->tree_r = malloc(compound_size(&sh) * sizeof(porep_dom));
    uint32_t *parents = malloc(n * POREP_DEGREE * sizeof(uint32_t));
    if (!s->data || !s->labels || !s->replica || !s->tree_d || !s->tree_c || !s->tree_r || !parents) {
        free(parents);
        porep_sealed_free(s);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "porep seal: out of memory for a %s sector", g->name);
    }
    if (p->data) {
        for (uint64_t v = 0; v < n; v++) {
            if (p->data[v][31] & 0xc0) {
                free(parents);
                porep_sealed_free(s);
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                      "porep seal: data node %llu has bit 254 or 255 set (not Fr32-padded)",
                                      (unsigned long long)v);
            }
        }
        memcpy(s->data, p->data, n * sizeof(porep_dom));
    }

    /* TreeD and replica_id */
    memcpy(s->tree_d, s->data, n * sizeof(porep_dom));
    tree_build(NULL, s->tree_d, n, 2, 1);
    memcpy(s->comm_d, s->tree_d[tree_size(n, 2) - 1], 32);
    porep_replica_id(s->replica_id, p->prover_id, p->sector_id, p->ticket, s->comm_d, p->porep_id);

    /* SDR labels, layer by layer */
    for (uint64_t v = 0; v < n; v++) porep_graph_parents(&s->graph, (uint32_t)v, parents + v * POREP_DEGREE);
    porep_dom par[POREP_LABEL_PARENTS];
    for (unsigned layer = 1; layer <= g->layers; layer++) {
        porep_dom *cur = s->labels + (size_t)(layer - 1) * n;
        for (uint64_t v = 0; v < n; v++) {
            if (v == 0) {
                porep_label(cur[0], s->replica_id, layer, 0, NULL);
                continue;
            }
            label_parents(s, layer, parents + v * POREP_DEGREE, par);
            porep_label(cur[v], s->replica_id, layer, v, par);
        }
    }
    free(parents);

    /* encoding, TreeC, TreeR, comm_r */
    const porep_dom *last = s->labels + (size_t)(g->layers - 1) * n;
    porep_dom col[POREP_MAX_LAYERS];
    int bad = 0;
    for (uint64_t v = 0; v < n && !bad; v++) {
        uint64_t b = v / sh.base_leaves, j = v % sh.base_leaves;
        bad |= porep_fr_add(s->tree_r[b * sh.base_size + j], last[v], s->data[v]);
        memcpy(s->replica[v], s->tree_r[b * sh.base_size + j], 32);
        for (unsigned l = 0; l < g->layers; l++) memcpy(col[l], s->labels[(size_t)l * n + v], 32);
        bad |= porep_poseidon(&s->hashers, g->layers, col, s->tree_c[b * sh.base_size + j]);
    }
    if (!bad) bad |= compound_build(&s->hashers, &sh, g->base_arity, s->tree_c, s->comm_c);
    if (!bad) bad |= compound_build(&s->hashers, &sh, g->base_arity, s->tree_r, s->comm_r_last);
    porep_dom kids[2];
    memcpy(kids[0], s->comm_c, 32);
    memcpy(kids[1], s->comm_r_last, 32);
    if (!bad) bad |= porep_poseidon(&s->hashers, 2, kids, s->comm_r);
    if (bad) {
        porep_sealed_free(s);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "porep seal: a value left the field");
    }
    return CUZK_OK;
}

static void column_proof(const porep_sealed *s, const shape *sh, uint32_t node, porep_column_proof *c)
{
    uint64_t n = s->geometry->nodes;
    c->node = node;
    for (unsigned l = 0; l < s->geometry->layers; l++) memcpy(c->rows[l], s->labels[(size_t)l * n + node], 32);
    compound_path(sh, s->geometry->base_arity, s->tree_c, node, &c->path);
}

void porep_sealed_prove(const porep_sealed *s, uint64_t challenge, porep_challenge_proof *p)
{
    const porep_geometry *g = s->geometry;
    shape sh;
    shape_init(&sh, g);
    unsigned d_off[POREP_MAX_TREE_LEVELS + 1];
    for (unsigned l = 0; l <= g->tree_d_levels; l++) d_off[l] = l;
    uint64_t n = g->nodes, c = challenge;
    p->challenge = c;
    memcpy(p->comm_d.leaf, s->data[c], 32);
    memcpy(p->comm_d.root, s->comm_d, 32);
    tree_path(s->tree_d, n, 2, c, &p->comm_d, 0, d_off);
    compound_path(&sh, g->base_arity, s->tree_r, c, &p->comm_r_last);
    uint32_t par[POREP_DEGREE];
    porep_graph_parents(&s->graph, (uint32_t)c, par);
    column_proof(s, &sh, (uint32_t)c, &p->c_x);
    for (int j = 0; j < POREP_DRG_DEGREE; j++) column_proof(s, &sh, par[j], &p->drg[j]);
    for (int j = 0; j < POREP_EXP_DEGREE; j++) column_proof(s, &sh, par[POREP_DRG_DEGREE + j], &p->exp[j]);
    for (unsigned layer = 1; layer <= g->layers; layer++)
        label_parents(s, layer, par, p->labeling + (size_t)POREP_LABEL_PARENTS * (layer - 1));
    memcpy(p->encoding, p->labeling + (size_t)POREP_LABEL_PARENTS * (g->layers - 1),
           POREP_LABEL_PARENTS * sizeof(porep_dom));
}

cuzk_status porep_sealed_c1(porep_c1 *c1, const porep_sealed *s, const porep_proof_type *t, const uint8_t seed[32],
                            const uint8_t ticket[32], cuzk_error *err)
{
    uint8_t porep_id[32];
    porep_proof_type_porep_id(t, porep_id);
    if (t->sector_size != s->geometry->sector_size || memcmp(porep_id, s->porep_id, 32) != 0 || t->api != s->graph.api)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep C1: the sector was not sealed as %s", t->name);
    cuzk_status st = porep_c1_alloc(c1, t, err);
    if (st) return st;
    memcpy(c1->comm_r, s->comm_r, 32);
    memcpy(c1->comm_d, s->comm_d, 32);
    memcpy(c1->replica_id, s->replica_id, 32);
    memcpy(c1->seed, seed, 32);
    memcpy(c1->ticket, ticket, 32);
    uint64_t ch[POREP_MAX_CHALLENGES];
    for (unsigned k = 0; k < c1->partitions; k++) {
        porep_challenges_derive(ch, s->geometry, t->kind, s->replica_id, seed, s->comm_r, k);
        for (unsigned i = 0; i < c1->challenges; i++) porep_sealed_prove(s, ch[i], porep_c1_proof(c1, k, i));
    }
    return CUZK_OK;
}

cuzk_status porep_tree_r_build(porep_dom **tree, porep_dom root, const porep_geometry *g, const porep_hashers *h,
                               const porep_dom *leaves, cuzk_error *err)
{
    shape sh;
    shape_init(&sh, g);
    *tree = malloc(compound_size(&sh) * sizeof(porep_dom));
    if (!*tree) return cuzk_error_set(err, CUZK_ERR_NOMEM, "porep TreeR: out of memory for a %s tree", g->name);
    for (unsigned b = 0; b < sh.base_count; b++)
        memcpy(*tree + b * sh.base_size, leaves + b * sh.base_leaves, sh.base_leaves * sizeof(porep_dom));
    if (compound_build(h, &sh, g->base_arity, *tree, root) != 0) {
        free(*tree);
        *tree = NULL;
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "porep TreeR: a %s leaf is not below r", g->name);
    }
    return CUZK_OK;
}

void porep_tree_r_path(const porep_geometry *g, const porep_dom *tree, uint64_t node, porep_merkle_proof *p)
{
    shape sh;
    shape_init(&sh, g);
    compound_path(&sh, g->base_arity, tree, node, p);
}

cuzk_status porep_seal_test(porep_sealed *s, porep_seal_params *p, uint8_t seed[32], const porep_proof_type *t,
                            uint64_t seed_value, cuzk_error *err)
{
    memset(s, 0, sizeof *s);
    memset(p, 0, sizeof *p);
    const porep_geometry *g = porep_geometry_for_size(t->sector_size);
    if (!g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep seal: no geometry for %s", t->name);
    rng_t rng;
    rng_seed(&rng, seed_value);
    porep_dom *data = malloc(g->nodes * sizeof(porep_dom));
    if (!data) return cuzk_error_set(err, CUZK_ERR_NOMEM, "porep seal: out of memory for the data");
    rng_bytes(&rng, data, g->nodes * sizeof(porep_dom));
    for (uint64_t v = 0; v < g->nodes; v++) data[v][31] &= 0x3f;
    p->geometry = g;
    p->api = t->api;
    p->data = data;
    porep_proof_type_porep_id(t, p->porep_id);
    rng_bytes(&rng, p->prover_id, 32);
    p->sector_id = rng_next(&rng);
    rng_bytes(&rng, p->ticket, 32);
    rng_bytes(&rng, seed, 32);
    cuzk_status st = porep_seal(s, p, err);
    free(data);
    p->data = NULL;
    return st;
}

cuzk_status porep_seal_test_c1(porep_c1 *c1, const porep_proof_type *t, uint64_t seed_value, cuzk_error *err)
{
    uint8_t prover_id[32];
    uint64_t sector_id;
    return porep_seal_test_c1_ids(c1, t, seed_value, prover_id, &sector_id, err);
}

cuzk_status porep_seal_test_c1_ids(porep_c1 *c1, const porep_proof_type *t, uint64_t seed_value, uint8_t prover_id[32],
                                   uint64_t *sector_id, cuzk_error *err)
{
    memset(c1, 0, sizeof *c1);
    porep_sealed s;
    porep_seal_params p;
    uint8_t seed[32];
    cuzk_status st = porep_seal_test(&s, &p, seed, t, seed_value, err);
    if (st) return st;
    memcpy(prover_id, p.prover_id, 32);
    *sector_id = p.sector_id;
    st = porep_sealed_c1(c1, &s, t, seed, p.ticket, err);
    porep_sealed_free(&s);
    return st;
}
