/* The StackedDRG circuit with a real witness: a small sector sealed here from first principles (labels by SHA-256
 * over the graph's parents, TreeD by SHA-256, TreeC and TreeR by Poseidon in the circuit's shape), its challenges
 * opened into a stacked_witness, then the full system must be satisfied, its public inputs must equal
 * porep_public_inputs, a witness-only synthesis must give the same values (checked against the shape of a
 * shape-only synthesis), and tampering with any one opened value must break satisfaction. */
#include <stdlib.h>
#include <string.h>

#include "circuits/hash/poseidon.h"
#include "circuits/hash/sha256.h"
#include "circuits/porep/challenges.h"
#include "circuits/porep/seal.h"
#include "circuits/stacked/stacked.h"
#include "testutil.h"
#include "formats/porep_c1.h"

static cuzk_error err;

/* A Merkle tree stored level by level, leaves first. */
typedef struct tree {
    unsigned levels;
    unsigned arity[64];
    fr_t *level[65];
    size_t size[65];
} tree;

static void tree_build(tree *t, const fr_t *leaves, size_t n, const unsigned *arity, unsigned levels, int sha,
                       const poseidon_constants *const *pc)
{
    t->levels = levels;
    t->size[0] = n;
    t->level[0] = malloc(n * sizeof(fr_t));
    memcpy(t->level[0], leaves, n * sizeof(fr_t));
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = arity[l];
        t->arity[l] = a;
        size_t m = t->size[l] / a;
        t->size[l + 1] = m;
        t->level[l + 1] = malloc(m * sizeof(fr_t));
        for (size_t i = 0; i < m; i++) {
            const fr_t *ch = &t->level[l][i * a];
            if (sha) {
                uint8_t buf[64];
                fr_to_bytes_le(buf, &ch[0]);
                fr_to_bytes_le(buf + 32, &ch[1]);
                sha256_fr(buf, 64, &t->level[l + 1][i]);
            } else {
                poseidon_hash(pc[l], ch, &t->level[l + 1][i]);
            }
        }
    }
}

static void tree_free(tree *t)
{
    for (unsigned l = 0; l <= t->levels; l++) free(t->level[l]);
}

static void tree_open(const tree *t, uint64_t leaf, stacked_path *p)
{
    size_t k = 0, pos = leaf;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l], idx = (unsigned)(pos % a);
        p->index[l] = (uint8_t)idx;
        for (unsigned j = 0; j < a; j++)
            if (j != idx) p->sibs[k++] = t->level[l][pos - idx + j];
        pos /= a;
    }
}

typedef struct sector {
    uint64_t nodes;
    unsigned layers;
    porep_graph g;
    uint8_t replica_id[32], seed[32], comm_d[32], comm_r[32];
    fr_t *data, *labels; /* labels[(layer - 1) * nodes + v] */
    tree td, tc, tr;
} sector;

static void label(sector *s, unsigned layer, uint32_t v)
{
    uint8_t pre[64 + 37 * 32];
    memset(pre, 0, sizeof pre);
    memcpy(pre, s->replica_id, 32);
    for (int i = 0; i < 4; i++) pre[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) pre[36 + i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
    fr_t *out = &s->labels[(size_t)(layer - 1) * s->nodes + v];
    if (v == 0) {
        sha256_fr(pre, 64, out);
        return;
    }
    uint32_t p[POREP_DEGREE];
    porep_graph_parents(&s->g, v, p);
    fr_t vals[POREP_DEGREE];
    int n = 0;
    for (int i = 0; i < POREP_DRG_DEGREE; i++) vals[n++] = s->labels[(size_t)(layer - 1) * s->nodes + p[i]];
    if (layer > 1)
        for (int i = POREP_DRG_DEGREE; i < POREP_DEGREE; i++)
            vals[n++] = s->labels[(size_t)(layer - 2) * s->nodes + p[i]];
    for (int j = 0; j < 37; j++) fr_to_bytes_le(pre + 64 + 32 * j, &vals[j % n]);
    sha256_fr(pre, sizeof pre, out);
}

static void seal(sector *s, const stacked_circuit *c, rng_t *rng)
{
    s->nodes = c->nodes;
    s->layers = c->layers;
    uint8_t porep_id[32];
    for (int i = 0; i < 32; i++) porep_id[i] = (uint8_t)rng_next(rng);
    CHECK(porep_graph_init(&s->g, s->nodes, POREP_API_1_1, porep_id, &err) == CUZK_OK);
    fr_t f;
    fr_random(&f, rng);
    fr_to_bytes_le(s->replica_id, &f);
    s->replica_id[31] &= 0x3f;
    for (int i = 0; i < 32; i++) s->seed[i] = (uint8_t)rng_next(rng);
    s->data = malloc(s->nodes * sizeof(fr_t));
    s->labels = malloc(s->nodes * s->layers * sizeof(fr_t));
    for (uint64_t v = 0; v < s->nodes; v++) fr_random(&s->data[v], rng);
    for (unsigned l = 1; l <= s->layers; l++)
        for (uint64_t v = 0; v < s->nodes; v++) label(s, l, (uint32_t)v);
    fr_t *col = malloc(s->nodes * sizeof(fr_t)), *rep = malloc(s->nodes * sizeof(fr_t));
    for (uint64_t v = 0; v < s->nodes; v++) {
        fr_t rows[POREP_MAX_LAYERS];
        for (unsigned l = 0; l < s->layers; l++) rows[l] = s->labels[l * s->nodes + v];
        poseidon_hash(&c->p_column, rows, &col[v]);
        fr_add(&rep[v], &s->labels[(s->layers - 1) * s->nodes + v], &s->data[v]);
    }
    tree_build(&s->td, s->data, s->nodes, c->tree_d.arity, c->tree_d.levels, 1, NULL);
    tree_build(&s->tc, col, s->nodes, c->tree_rc.arity, c->tree_rc.levels, 0, c->tree_rc.pc);
    tree_build(&s->tr, rep, s->nodes, c->tree_rc.arity, c->tree_rc.levels, 0, c->tree_rc.pc);
    free(col);
    free(rep);
}

static void sector_free(sector *s)
{
    free(s->data);
    free(s->labels);
    tree_free(&s->td);
    tree_free(&s->tc);
    tree_free(&s->tr);
}

static void open_column(const sector *s, uint32_t node, stacked_column *col)
{
    for (unsigned l = 0; l < s->layers; l++) col->rows[l] = s->labels[l * s->nodes + node];
    tree_open(&s->tc, node, &col->path);
}

static void fill_witness(const sector *s, const stacked_circuit *c, const uint64_t *challenges, stacked_witness *w)
{
    CHECK(fr_from_bytes_le(&w->replica_id, s->replica_id) == 0);
    w->comm_d = s->td.level[s->td.levels][0];
    w->comm_c = s->tc.level[s->tc.levels][0];
    w->comm_r_last = s->tr.level[s->tr.levels][0];
    fr_t pre[2] = {w->comm_c, w->comm_r_last};
    poseidon_hash(&c->p2, pre, &w->comm_r);
    for (unsigned i = 0; i < c->challenges; i++) {
        stacked_challenge *p = &w->proofs[i];
        uint64_t ch = challenges[i];
        p->challenge = ch;
        p->data_leaf = s->data[ch];
        tree_open(&s->td, ch, &p->comm_d);
        uint32_t par[POREP_DEGREE];
        porep_graph_parents(&s->g, (uint32_t)ch, par);
        for (int j = 0; j < POREP_DRG_DEGREE; j++) open_column(s, par[j], &p->drg[j]);
        for (int j = 0; j < POREP_EXP_DEGREE; j++) open_column(s, par[POREP_DRG_DEGREE + j], &p->exp[j]);
        tree_open(&s->tr, ch, &p->comm_r_last);
        tree_open(&s->tc, ch, &p->comm_c);
    }
}

static int satisfied(const stacked_circuit *c, const stacked_witness *w)
{
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    int ok = stacked_synthesize(&cs, c, w, &err) == CUZK_OK && r1cs_finalize(&cs, &err) == CUZK_OK &&
             r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, NULL);
    r1cs_free(&cs);
    return ok;
}

static void run_shape(rng_t *rng, uint64_t nodes, unsigned challenges, unsigned base, unsigned sub, unsigned top,
                      int tamper)
{
    stacked_circuit c;
    CHECK(stacked_circuit_init(&c, nodes, 2, challenges, base, sub, top, &err) == CUZK_OK);
    sector s;
    memset(&s, 0, sizeof s);
    seal(&s, &c, rng);
    uint64_t ch[POREP_MAX_CHALLENGES];
    porep_challenges_interactive(ch, challenges, nodes, s.replica_id, s.seed, 0);
    stacked_witness w;
    CHECK(stacked_witness_alloc(&w, &c, &err) == CUZK_OK);
    fill_witness(&s, &c, ch, &w);

    r1cs full, shape, wit;
    CHECK(r1cs_create(&full, 1, &err) == CUZK_OK);
    cuzk_status st = stacked_synthesize(&full, &c, &w, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    CHECK(r1cs_finalize(&full, &err) == CUZK_OK);
    size_t bad = 0;
    CHECK_MSG(r1cs_is_satisfied(NULL, &full, full.inputs, full.aux, &bad), "%u-%u-%u: row %zu fails", base, sub, top,
              bad);

    /* Public inputs as StackedCompound::generate_public_inputs computes them. */
    size_t np = stacked_num_public_inputs(&c);
    CHECK(full.num_inputs == np + 1);
    fr_t *want = malloc(np * sizeof(fr_t));
    uint8_t comm_d[32], comm_r[32];
    fr_to_bytes_le(comm_d, &w.comm_d);
    fr_to_bytes_le(comm_r, &w.comm_r);
    CHECK(porep_public_inputs(want, &s.g, ch, challenges, s.replica_id, comm_d, comm_r, &err) == CUZK_OK);
    for (size_t i = 0; i < np && i + 1 < full.num_inputs; i++)
        CHECK_MSG(fr_eq(&want[i], &full.inputs[i + 1]), "public input %zu differs", i);
    free(want);

    /* Witness-only synthesis: the same values, valid against the shape-only matrices. */
    CHECK(r1cs_create(&shape, 0, &err) == CUZK_OK && stacked_synthesize(&shape, &c, NULL, &err) == CUZK_OK &&
          r1cs_finalize(&shape, &err) == CUZK_OK);
    CHECK(r1cs_create_witness_only(&wit, &err) == CUZK_OK && stacked_synthesize(&wit, &c, &w, &err) == CUZK_OK &&
          r1cs_finalize(&wit, &err) == CUZK_OK);
    CHECK(r1cs_check_witness(&shape, &wit, &err) == CUZK_OK);
    CHECK(r1cs_is_satisfied(NULL, &shape, wit.inputs, wit.aux, NULL));
    CHECK(wit.num_aux == full.num_aux && memcmp(wit.aux, full.aux, full.num_aux * sizeof(fr_t)) == 0);
    r1cs_free(&full);
    r1cs_free(&shape);
    r1cs_free(&wit);

    /* One wrong value anywhere must be caught (each try is a full synthesis: only on the smallest shape). */
    if (!tamper) goto done;
    fr_t one;
    fr_set_one(&one);
    fr_t *targets[] = {&w.comm_r,
                       &w.proofs[0].data_leaf,
                       &w.proofs[0].drg[3].rows[1],
                       &w.proofs[0].exp[5].rows[0],
                       &w.proofs[0].comm_d.sibs[0],
                       &w.proofs[0].comm_c.sibs[c.tree_rc.arity[0] - 1],
                       &w.proofs[challenges - 1].comm_r_last.sibs[0]};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        fr_t keep = *targets[i];
        fr_add(targets[i], targets[i], &one);
        CHECK_MSG(!satisfied(&c, &w), "%u-%u-%u: tampered value %zu accepted", base, sub, top, i);
        *targets[i] = keep;
    }
    w.proofs[0].challenge ^= 1;
    CHECK_MSG(!satisfied(&c, &w), "wrong challenge accepted");
    w.proofs[0].challenge ^= 1;
    w.proofs[0].comm_r_last.index[0] ^= 1;
    CHECK_MSG(!satisfied(&c, &w), "wrong TreeR index accepted");
    w.proofs[0].comm_r_last.index[0] ^= 1;
done:
    stacked_witness_free(&w);
    sector_free(&s);
    stacked_circuit_free(&c);
}

/* porepdata's C1 (parsed or sealed) through stacked_witness_from_c1: partition k must satisfy the circuit and
 * expose porep_c1_public_inputs. */
static void run_c1(const porep_c1 *c1, unsigned k, const char *what)
{
    stacked_circuit c;
    cuzk_status st = stacked_circuit_init_geometry(&c, c1->geometry, c1->type->kind, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", what, err.msg);
    if (st != CUZK_OK) return;
    stacked_witness w;
    st = stacked_witness_from_c1(&w, &c, c1, k, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", what, err.msg);
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    st = stacked_synthesize(&cs, &c, &w, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", what, err.msg);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    size_t bad = 0;
    CHECK_MSG(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad), "%s: row %zu fails", what, bad);
    size_t np = stacked_num_public_inputs(&c);
    fr_t *want = malloc(np * sizeof(fr_t));
    CHECK(cs.num_inputs == np + 1);
    CHECK(porep_c1_public_inputs(c1, k, want, &err) == CUZK_OK);
    for (size_t i = 0; i < np && i + 1 < cs.num_inputs; i++)
        CHECK_MSG(fr_eq(&want[i], &cs.inputs[i + 1]), "%s: public input %zu differs", what, i);
    free(want);
    r1cs_free(&cs);
    /* A C1 of another shape is refused. */
    stacked_circuit other;
    CHECK(stacked_circuit_init(&other, c.nodes, c.layers, c.challenges, 2, 0, 0, &err) == CUZK_OK);
    stacked_witness w2;
    CHECK(stacked_witness_from_c1(&w2, &other, c1, k, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(stacked_witness_from_c1(&w2, &c, c1, c1->partitions, &err) == CUZK_ERR_INVALID_ARG);
    stacked_circuit_free(&other);
    stacked_witness_free(&w);
    stacked_circuit_free(&c);
}

static void test_c1(void)
{
    const char *dir = getenv("CUZK_TEST_DATA");
    char path[512];
    snprintf(path, sizeof path, "%s/porep/c1-2kib.json", dir ? dir : "tests/data");
    porep_c1 c1;
    cuzk_status st = porep_c1_read_file(&c1, path, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", path, err.msg);
    if (st == CUZK_OK) {
        run_c1(&c1, 0, "c1-2kib.json");
        porep_c1_free(&c1);
    }
    /* 32 KiB (unpublished, so a proof type of our own): TreeC/TreeR 8-8-2, base, sub and top levels in C1's order. */
    static const porep_proof_type t = {"StackedDrg32KiBTest", 3, 32768, POREP_API_1_1, POREP_INTERACTIVE};
    st = porep_seal_test_c1(&c1, &t, 7, &err);
    CHECK_MSG(st == CUZK_OK, "32 KiB seal: %s", err.msg);
    if (st == CUZK_OK) {
        run_c1(&c1, 0, t.name);
        porep_c1_free(&c1);
    }
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "stacked_witness");
    run_shape(&rng, 64, 2, 8, 0, 0, 0); /* the 2 KiB shape */
    run_shape(&rng, 64, 1, 8, 4, 2, 0);
    run_shape(&rng, 8, 1, 8, 0, 0, 1);
    test_c1();
    return test_finish("stacked_witness");
}
