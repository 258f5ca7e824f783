/* The fallback PoSt circuit: constraint and input counts against rust-fil-proofs (storage-proofs-post
 * tests/fallback_circuit.rs shapes, its 5-sector 32 GiB bench case, filecoin-proofs constants.rs WindowPoSt
 * 32 GiB), the per-sector count against a whole synthesis, the parallel witness and the replicated shape against
 * the serial ones, a satisfied witness whose inputs equal the public inputs a verifier derives (both API
 * versions, a padded request, WinningPoSt), changed values unsatisfied, and leaf challenges against values
 * computed independently (Python hashlib). */
#include <stdlib.h>
#include <string.h>

#include "circuits/post/post_public.h"
#include "testutil.h"

static cuzk_error err;

/* Synthesizes the whole circuit in a counting system (no per-sector shortcut). */
static void count_full(const post_circuit *c, size_t *constraints, size_t *inputs)
{
    r1cs cs;
    CHECK(r1cs_create_counter(&cs, &err) == CUZK_OK);
    CHECK_MSG(post_synthesize(&cs, c, NULL, &err) == CUZK_OK, "%s", err.msg);
    *constraints = cs.num_constraints;
    *inputs = cs.num_inputs;
    r1cs_free(&cs);
}

static void test_counts(void)
{
    /* fallback_circuit.rs: leaves = 64 * base tree count, 5 challenges, (sector_count, inputs, constraints). */
    static const struct {
        unsigned base, sub, top, sectors;
        size_t inputs, constraints;
    } cases[] = {
        {8, 0, 0, 3, 19, 16869},
        {8, 4, 0, 3, 19, 22674},
        {8, 4, 2, 3, 19, 27384},
        {8, 0, 0, 2, 13, 11246},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        post_circuit c;
        uint64_t nodes = 64 * (cases[i].sub ? cases[i].sub : 1) * (cases[i].top ? cases[i].top : 1);
        CHECK_MSG(post_circuit_init(&c, nodes, cases[i].sectors, 5, cases[i].base, cases[i].sub, cases[i].top, &err) ==
                      CUZK_OK,
                  "%s", err.msg);
        size_t nc, ni;
        count_full(&c, &nc, &ni);
        post_info info;
        CHECK(post_circuit_count(&c, &info, &err) == CUZK_OK);
        CHECK_MSG(nc == cases[i].constraints && ni == cases[i].inputs, "case %zu: %zu constraints, %zu inputs", i, nc,
                  ni);
        CHECK_MSG(info.synth_constraints == nc && info.inputs == ni && info.constraints == nc + ni,
                  "case %zu: count %zu/%zu, synthesis %zu/%zu", i, info.synth_constraints, info.inputs, nc, ni);
        post_circuit_free(&c);
    }
    /* test_fallback_post_circuit_poseidon_base_8_bench_cs: 32 GiB, base-8 tree only, 10 challenges, 5 sectors. */
    post_circuit c;
    CHECK(post_circuit_init(&c, UINT64_C(1) << 30, 5, 10, 8, 0, 0, &err) == CUZK_OK);
    size_t nc, ni;
    count_full(&c, &nc, &ni);
    CHECK_MSG(nc == 266665, "5 sectors of 32 GiB: %zu constraints", nc);
    post_circuit_free(&c);

    /* constants.rs: WINDOW_POST_SECTOR_COUNT 32 GiB "gives 125,279,217 constraints"; 1 + 2349 * 11 inputs. */
    post_info info;
    CHECK(post_circuit_info(POST_WINDOW, UINT64_C(32) << 30, &info, &err) == CUZK_OK);
    CHECK_MSG(info.synth_constraints == 125279217 && info.inputs == 25840,
              "WindowPoSt 32 GiB: %zu constraints, %zu "
              "inputs",
              info.synth_constraints, info.inputs);
    /* WinningPoSt 32 GiB: 66 sectors of one challenge, the whole synthesis against the per-sector count. */
    const post_proof_type *t = post_proof_type_find(POST_WINNING, UINT64_C(32) << 30);
    CHECK(t && t->id == 3);
    CHECK(post_circuit_init_type(&c, t, &err) == CUZK_OK);
    count_full(&c, &nc, &ni);
    CHECK(post_circuit_count(&c, &info, &err) == CUZK_OK);
    CHECK_MSG(info.synth_constraints == nc && info.inputs == ni && ni == 1 + 66 * 2,
              "WinningPoSt 32 GiB: %zu/%zu, "
              "%zu/%zu",
              info.synth_constraints, nc, info.inputs, ni);
    printf("WinningPoSt 32 GiB: %zu constraints, %zu inputs\n", nc, ni);
    post_circuit_free(&c);
}

static void test_types(void)
{
    const post_proof_type *w = post_proof_type_find(POST_WINDOW, UINT64_C(32) << 30);
    const post_proof_type *g = post_proof_type_find(POST_WINNING, 2048);
    CHECK(w && w->id == 13 && g && g->id == 0);
    CHECK(post_proof_type_find(POST_WINDOW, 4096) == NULL);
    unsigned s, c;
    post_circuit_dims(w, &s, &c);
    CHECK(s == 2349 && c == 10);
    post_circuit_dims(g, &s, &c);
    CHECK(s == 66 && c == 1);
}

static void test_challenges(void)
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = (uint8_t)i;
    const post_proof_type *w2k = post_proof_type_by_id(10), *w32 = post_proof_type_by_id(13),
                          *w32v1 = post_proof_type_by_id(8);
    /* Python: int.from_bytes(sha256(r + pack('<Q', id) + pack('<Q', idx)).digest()[:8], 'little') % nodes. */
    CHECK(post_challenge_leaf(w2k, r, 7, 0, 3) == 53);
    CHECK(post_challenge_leaf(w32, r, 7, 5, 3) == 347619957);
    CHECK(post_challenge_leaf(w32, r, 1234567, 0, 0) == 531211990);
    CHECK(post_challenge_leaf(w32v1, r, 7, 5, 3) == 760632211); /* API 1.0: index 5 * 10 + 3 */
    /* The public inputs of a padded 2 KiB request by hand: [comm_r, 10 challenges] for sector 7, twice. */
    post_public_sector one = {7, {0}};
    one.comm_r[0] = 9;
    fr_t *pub;
    size_t n;
    CHECK(post_public_inputs(w2k, r, &one, 1, &pub, &n, &err) == CUZK_OK && n == 22);
    fr_t nine, want;
    fr_from_u64(&nine, 9);
    fr_from_u64(&want, 53);
    CHECK(fr_eq(&pub[0], &nine) && fr_eq(&pub[11], &nine) && fr_eq(&pub[4], &want) && fr_eq(&pub[15], &want));
    free(pub);
    one.comm_r[31] = 0xff; /* >= r */
    CHECK(post_public_inputs(w2k, r, &one, 1, &pub, &n, &err) == CUZK_ERR_FORMAT);
    post_public_sector three[3] = {one, one, one};
    CHECK(post_public_inputs(w2k, r, three, 3, &pub, &n, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(post_public_inputs(post_proof_type_by_id(0), r, three, 2, &pub, &n, &err) == CUZK_ERR_INVALID_ARG);
}

/* A whole small tree of the circuit's shape: levels[0] the leaves, levels[L] the root. */
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

static void tree_path(const post_circuit *c, const small_tree *t, uint64_t leaf, post_path *p)
{
    p->leaf = t->levels[0][leaf];
    fr_t *sib = p->sibs;
    for (unsigned l = 0; l < c->tree.levels; l++) {
        unsigned a = c->tree.arity[l];
        p->index[l] = (uint8_t)(leaf % a);
        for (unsigned i = 0; i < a; i++)
            if (i != p->index[l]) *sib++ = t->levels[l][leaf - leaf % a + i];
        leaf /= a;
    }
}

/* The witness a prover builds for the request's n sectors (pub; comm_r filled in here): each sector's own tree,
 * the paths of its derived challenges; Window pads with the last sector's proof, Winning spreads the one sector's
 * 66 challenges over the 66 circuit sectors. */
static void make_witness(rng_t *rng, const post_proof_type *t, const post_circuit *c, const uint8_t rnd[32],
                         post_public_sector *pub, size_t n, post_witness *w)
{
    CHECK(post_witness_alloc(w, c, &err) == CUZK_OK);
    for (size_t i = 0; i < n; i++) {
        small_tree tr;
        tree_build(rng, c, &tr);
        fr_t comm_c, comm_r_last = tr.levels[tr.nlevels][0], comm_r;
        fr_random(&comm_c, rng);
        fr_t pre[2] = {comm_c, comm_r_last};
        poseidon_hash(&c->p2, pre, &comm_r);
        fr_to_bytes_le(pub[i].comm_r, &comm_r);
        uint64_t ch[POST_MAX_CHALLENGES];
        if (t->kind == POST_WINNING) {
            /* The vanilla proof's 66 challenges are those of sector index 0 of a 1 x 66 request. */
            for (unsigned k = 0; k < c->sectors; k++) {
                ch[k] = post_challenge_leaf(t, rnd, pub[i].sector_id, 0, k);
                post_sector *sk = &w->sector[k];
                sk->comm_c = comm_c, sk->comm_r_last = comm_r_last, sk->comm_r = comm_r;
                tree_path(c, &tr, ch[k], &sk->paths[0]);
            }
        } else {
            post_circuit_challenges(t, rnd, pub, n, (unsigned)i, ch);
            post_sector *s = &w->sector[i];
            s->comm_c = comm_c, s->comm_r_last = comm_r_last, s->comm_r = comm_r;
            for (unsigned j = 0; j < c->challenges; j++) tree_path(c, &tr, ch[j], &s->paths[j]);
        }
        tree_free(&tr);
    }
    for (size_t s = n; t->kind == POST_WINDOW && s < c->sectors; s++) {
        post_sector *d = &w->sector[s], *from = &w->sector[n - 1];
        d->comm_c = from->comm_c, d->comm_r_last = from->comm_r_last, d->comm_r = from->comm_r;
        size_t sibs = 0;
        for (unsigned l = 0; l < c->tree.levels; l++) sibs += c->tree.arity[l] - 1;
        for (unsigned j = 0; j < c->challenges; j++) {
            d->paths[j].leaf = from->paths[j].leaf;
            memcpy(d->paths[j].index, from->paths[j].index, c->tree.levels);
            memcpy(d->paths[j].sibs, from->paths[j].sibs, sibs * sizeof(fr_t));
        }
    }
}

/* Serial full synthesis; returns the first unsatisfied row (SIZE_MAX: satisfied; 0 when synthesis refused the
 * witness) and checks the inputs against the verifier's. */
static size_t check_satisfied(const post_circuit *c, const post_witness *w, const fr_t *expect, size_t nexpect,
                              int *inputs_equal)
{
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    cuzk_status st = post_synthesize(&cs, c, w, &err);
    if (st != CUZK_OK) {
        /* A path that misses its root is refused at synthesis, naming the challenge. */
        CHECK_MSG(st == CUZK_ERR_INVALID_PROOF && strstr(err.msg, "does not hash from its leaf"), "%s", err.msg);
        r1cs_free(&cs);
        *inputs_equal = 0;
        return 0;
    }
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    *inputs_equal = cs.num_inputs == nexpect + 1;
    for (size_t i = 0; *inputs_equal && i < nexpect; i++) *inputs_equal = fr_eq(&cs.inputs[1 + i], &expect[i]);
    size_t bad = test_r1cs_first_bad(&cs, cs.inputs, cs.aux);
    r1cs_free(&cs);
    return bad;
}

static void test_satisfied(rng_t *rng, unsigned id, size_t n)
{
    const post_proof_type *t = post_proof_type_by_id(id);
    post_circuit c;
    CHECK(post_circuit_init_type(&c, t, &err) == CUZK_OK);
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)rng_next(rng);
    rnd[31] &= 0x3f;
    post_public_sector pub[4];
    for (size_t i = 0; i < n; i++) pub[i].sector_id = 1000 + 17 * i;
    post_witness w;
    make_witness(rng, t, &c, rnd, pub, n, &w);
    fr_t *expect;
    size_t nexpect;
    CHECK_MSG(post_public_inputs(t, rnd, pub, n, &expect, &nexpect, &err) == CUZK_OK, "%s", err.msg);
    CHECK(nexpect == post_num_public_inputs(&c));
    int eq;
    size_t bad = check_satisfied(&c, &w, expect, nexpect, &eq);
    CHECK_MSG(bad == SIZE_MAX && eq, "%s with %zu sectors: row %zu unsatisfied, inputs %s", t->name, n, bad,
              eq ? "equal" : "differ");
    /* A changed sibling, leaf, comm_c: unsatisfied. */
    fr_t one;
    fr_set_one(&one);
    fr_t *targets[3] = {&w.sector[0].paths[0].sibs[0], &w.sector[c.sectors - 1].paths[c.challenges - 1].leaf,
                        &w.sector[0].comm_c};
    for (int k = 0; k < 3; k++) {
        fr_t keep = *targets[k];
        fr_add(targets[k], targets[k], &one);
        CHECK_MSG(check_satisfied(&c, &w, expect, nexpect, &eq) != SIZE_MAX, "%s: change %d satisfied", t->name, k);
        *targets[k] = keep;
    }
    /* A wrong challenge: the inputs differ from the verifier's. */
    w.sector[0].paths[0].index[0] ^= 1;
    check_satisfied(&c, &w, expect, nexpect, &eq);
    CHECK_MSG(!eq, "%s: a changed path index left the inputs equal", t->name);
    w.sector[0].paths[0].index[0] ^= 1;

    /* The parallel witness and the replicated shape against the serial ones. */
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 3, &err) == CUZK_OK);
    r1cs fast, ref, shape, sref;
    CHECK(post_synthesize_witness(pool, &c, &w, &fast, &err) == CUZK_OK);
    CHECK(r1cs_create_witness_only(&ref, &err) == CUZK_OK);
    CHECK(post_synthesize(&ref, &c, &w, &err) == CUZK_OK && r1cs_finalize(&ref, &err) == CUZK_OK);
    CHECK(fast.num_inputs == ref.num_inputs && fast.num_aux == ref.num_aux &&
          fast.num_constraints == ref.num_constraints);
    CHECK(memcmp(fast.inputs, ref.inputs, ref.num_inputs * sizeof(fr_t)) == 0);
    CHECK(memcmp(fast.aux, ref.aux, ref.num_aux * sizeof(fr_t)) == 0);
    CHECK_MSG(post_compile_shape(pool, &c, &shape, &err) == CUZK_OK, "%s", err.msg);
    CHECK(r1cs_create(&sref, 0, &err) == CUZK_OK);
    CHECK(post_synthesize(&sref, &c, NULL, &err) == CUZK_OK && r1cs_finalize(&sref, &err) == CUZK_OK);
    CHECK(shape.num_inputs == sref.num_inputs && shape.num_aux == sref.num_aux &&
          shape.num_constraints == sref.num_constraints && shape.num_coeffs == sref.num_coeffs);
    const r1cs_matrix *fm[3] = {&shape.A, &shape.B, &shape.C}, *rm[3] = {&sref.A, &sref.B, &sref.C};
    for (int m = 0; m < 3 && shape.num_constraints == sref.num_constraints; m++) {
        size_t nnz = rm[m]->row_start[rm[m]->rows];
        CHECK_MSG(fm[m]->row_start[fm[m]->rows] == nnz &&
                      memcmp(fm[m]->row_start, rm[m]->row_start, (rm[m]->rows + 1) * 8) == 0 &&
                      memcmp(fm[m]->col, rm[m]->col, nnz * 4) == 0 && memcmp(fm[m]->coeff, rm[m]->coeff, nnz * 4) == 0,
                  "%s: replicated %c differs from the serial shape", t->name, "ABC"[m]);
    }
    /* The fast witness satisfies the fast shape. */
    CHECK(test_r1cs_first_bad(&shape, fast.inputs, fast.aux) == SIZE_MAX);
    r1cs_free(&fast);
    r1cs_free(&ref);
    r1cs_free(&shape);
    r1cs_free(&sref);
    pool_destroy(pool);
    free(expect);
    post_witness_free(&w);
    post_circuit_free(&c);
}

/* Sector blocks identical across sectors on a shape with more than two sectors (the replication path). */
static void test_replicated_shape(void)
{
    post_circuit c;
    CHECK(post_circuit_init(&c, 512, 5, 3, 8, 4, 2, &err) == CUZK_OK);
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 2, &err) == CUZK_OK);
    r1cs shape, sref;
    CHECK_MSG(post_compile_shape(pool, &c, &shape, &err) == CUZK_OK, "%s", err.msg);
    CHECK(r1cs_create(&sref, 0, &err) == CUZK_OK);
    CHECK(post_synthesize(&sref, &c, NULL, &err) == CUZK_OK && r1cs_finalize(&sref, &err) == CUZK_OK);
    CHECK(shape.num_inputs == sref.num_inputs && shape.num_aux == sref.num_aux &&
          shape.num_constraints == sref.num_constraints);
    const r1cs_matrix *fm[3] = {&shape.A, &shape.B, &shape.C}, *rm[3] = {&sref.A, &sref.B, &sref.C};
    for (int m = 0; m < 3 && shape.num_constraints == sref.num_constraints; m++) {
        size_t nnz = rm[m]->row_start[rm[m]->rows];
        CHECK_MSG(fm[m]->row_start[fm[m]->rows] == nnz && memcmp(fm[m]->col, rm[m]->col, nnz * 4) == 0 &&
                      memcmp(fm[m]->coeff, rm[m]->coeff, nnz * 4) == 0,
                  "5 sectors: replicated %c differs", "ABC"[m]);
    }
    r1cs_free(&shape);
    r1cs_free(&sref);
    pool_destroy(pool);
    post_circuit_free(&c);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_post_circuit");
    test_counts();
    test_types();
    test_challenges();
    test_satisfied(&rng, 10, 2); /* Window 2 KiB V1_1 (API 1.2) */
    test_satisfied(&rng, 10, 1); /* padded */
    test_satisfied(&rng, 5, 1);  /* Window 2 KiB V1 (API 1.0), padded */
    test_satisfied(&rng, 0, 1);  /* Winning 2 KiB */
    test_replicated_shape();
    return test_finish("test_post_circuit");
}
