/* The r1cs checker mode against r1cs_is_satisfied, and porep_synth_c1: its C1 passes validation, the vanilla
 * verification and the partition circuit (checked by the checker), its comm_d equals a sealed sector of the same
 * constant data, a node that is both a challenge and a parent gets one column, and changed values are rejected
 * by the vanilla checks and by the circuit. */
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/seal.h"
#include "circuits/porep/synth_c1.h"
#include "circuits/random_circuit.h"
#include "circuits/stacked/stacked.h"
#include "formats/porep_c1.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static cuzk_error err;

/* ---- checker ---- */

/* Synthesizes full's rows (without the input constraints, which finalize appends) into a checker holding the
 * values inputs/aux, as a circuit would: same variables, same linear combinations. */
static cuzk_status replay(const r1cs *full, const fr_t *inputs, const fr_t *aux, r1cs *chk)
{
    cuzk_status st = r1cs_create_checker(chk, &err);
    r1cs_var v;
    for (size_t i = 1; st == CUZK_OK && i < full->num_inputs; i++) st = r1cs_alloc_input(chk, &inputs[i], &v, &err);
    for (size_t i = 0; st == CUZK_OK && i < full->num_aux; i++) st = r1cs_alloc_aux(chk, &aux[i], &v, &err);
    r1cs_lc lc[3];
    for (int m = 0; m < 3; m++) r1cs_lc_init(&lc[m]);
    const r1cs_matrix *mx[3] = {&full->A, &full->B, &full->C};
    size_t ni = full->num_inputs, rows = full->num_constraints - ni;
    for (size_t i = 0; st == CUZK_OK && i < rows; i++) {
        for (int m = 0; m < 3 && st == CUZK_OK; m++) {
            r1cs_lc_clear(&lc[m]);
            for (uint64_t k = mx[m]->row_start[i]; st == CUZK_OK && k < mx[m]->row_start[i + 1]; k++) {
                uint32_t col = mx[m]->col[k];
                r1cs_var x = {col < ni ? R1CS_INPUT : R1CS_AUX, col < ni ? col : (uint32_t)(col - ni)};
                st = r1cs_lc_add(&lc[m], x, &full->coeffs[mx[m]->coeff[k]], &err);
            }
        }
        if (st == CUZK_OK) st = r1cs_enforce(chk, &lc[0], &lc[1], &lc[2], &err);
    }
    for (int m = 0; m < 3; m++) r1cs_lc_free(&lc[m]);
    if (st == CUZK_OK) st = r1cs_finalize(chk, &err);
    return st;
}

/* Rows where a * b != c, counted from r1cs_eval_abc (an evaluation independent of both checkers). */
static size_t count_bad_rows(const r1cs *full, const fr_t *aux)
{
    size_t n = full->num_constraints, bad = 0;
    fr_t *v = malloc(3 * n * sizeof *v + 1);
    CHECK(v != NULL);
    if (!v) return SIZE_MAX;
    CHECK(r1cs_eval_abc(NULL, full, full->inputs, aux, v, v + n, v + 2 * n, &err) == CUZK_OK);
    for (size_t i = 0; i < n; i++) {
        fr_t ab;
        fr_mul(&ab, &v[i], &v[n + i]);
        bad += !fr_eq(&ab, &v[2 * n + i]);
    }
    free(v);
    return bad;
}

static void test_checker(rng_t *rng)
{
    for (unsigned shape = 0; shape < 3 * RC_NUM_SHAPES; shape++) {
        random_circuit_params p;
        random_circuit_shape(rng, shape, 3000, &p);
        r1cs full;
        cuzk_status st = random_circuit_build(rng, &p, &full, &err);
        CHECK_MSG(st == CUZK_OK, "shape %u: %s", shape, err.msg);
        if (st != CUZK_OK) continue;
        r1cs chk;
        st = replay(&full, full.inputs, full.aux, &chk);
        CHECK_MSG(st == CUZK_OK, "shape %u: %s", shape, err.msg);
        size_t first = 0, fails = 0;
        CHECK_MSG(r1cs_checker_result(&chk, &first, &fails) == 1 && first == SIZE_MAX && fails == 0,
                  "shape %u: first %zu, %zu failures", shape, first, fails);
        CHECK(chk.num_constraints == full.num_constraints && chk.A.rows == 0 && chk.num_aux == full.num_aux);
        CHECK(r1cs_is_satisfied(NULL, &chk, chk.inputs, chk.aux, NULL) == 0); /* no matrices to check */
        CHECK(r1cs_check_witness(&chk, &full, &err) == CUZK_ERR_INVALID_ARG);
        r1cs_free(&chk);

        /* Broken: one aux value changed (or, without aux, the checker of a satisfied system is all we have). */
        if (full.num_aux > 0) {
            fr_t *aux = malloc(full.num_aux * sizeof *aux);
            CHECK(aux != NULL);
            if (!aux) {
                r1cs_free(&full);
                continue;
            }
            memcpy(aux, full.aux, full.num_aux * sizeof *aux);
            size_t j = rng_next(rng) % full.num_aux;
            fr_t one;
            fr_set_one(&one);
            fr_add(&aux[j], &aux[j], &one);
            size_t want_row = SIZE_MAX;
            int want_sat = r1cs_is_satisfied(NULL, &full, full.inputs, aux, &want_row);
            size_t want_fails = count_bad_rows(&full, aux);
            st = replay(&full, full.inputs, aux, &chk);
            CHECK_MSG(st == CUZK_OK, "shape %u: %s", shape, err.msg);
            int sat = r1cs_checker_result(&chk, &first, &fails);
            /* Every aux sits in some C (random_circuit.h), but a term can cancel: agree with the reference. */
            CHECK_MSG(sat == want_sat && (sat || first == want_row) && fails == want_fails,
                      "shape %u aux %zu: checker %d row %zu (%zu fail), is_satisfied %d row %zu (%zu fail)", shape, j,
                      sat, first, fails, want_sat, want_row, want_fails);
            r1cs_free(&chk);
            free(aux);
        }
        r1cs_free(&full);
    }
}

/* ---- synthetic C1 ---- */

/* Partition k of c1 through the circuit in a checker system: 1 satisfied with c1's public inputs, else 0 with
 * *first_bad the failing constraint (SIZE_MAX when only the inputs differ). w_edit, if set, changes the witness. */
static int circuit_ok(const porep_c1 *c1, unsigned k, void (*w_edit)(stacked_witness *), size_t *first_bad)
{
    *first_bad = SIZE_MAX;
    stacked_circuit c;
    cuzk_status st = stacked_circuit_init_geometry(&c, c1->geometry, c1->type->kind, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) return 0;
    stacked_witness w;
    st = stacked_witness_from_c1(&w, &c, c1, k, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) {
        stacked_circuit_free(&c);
        return 0;
    }
    if (w_edit) w_edit(&w);
    r1cs cs;
    st = r1cs_create_checker(&cs, &err);
    if (st == CUZK_OK) st = stacked_synthesize(&cs, &c, &w, &err);
    if (st == CUZK_OK) st = r1cs_finalize(&cs, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    int ok = st == CUZK_OK && r1cs_checker_result(&cs, first_bad, NULL);
    size_t np = stacked_num_public_inputs(&c);
    fr_t *want = malloc(np * sizeof *want);
    CHECK(want && porep_c1_public_inputs(c1, k, want, &err) == CUZK_OK && cs.num_inputs == np + 1);
    for (size_t i = 0; ok && want && i < np; i++) ok = fr_eq(&want[i], &cs.inputs[i + 1]);
    free(want);
    r1cs_free(&cs);
    stacked_witness_free(&w);
    stacked_circuit_free(&c);
    return ok;
}

static int c1_equal(const porep_c1 *a, const porep_c1 *b)
{
    char *ja = NULL, *jb = NULL;
    size_t la = 0, lb = 0;
    int eq = porep_c1_to_json(a, &ja, &la, &err) == CUZK_OK && porep_c1_to_json(b, &jb, &lb, &err) == CUZK_OK &&
             la == lb && memcmp(ja, jb, la) == 0;
    free(ja);
    free(jb);
    return eq;
}

/* The C1 must pass everything check-c1 runs, survive a JSON round trip, and satisfy the circuit. */
static void check_valid(const porep_c1 *c1, const char *what, int circuit)
{
    cuzk_status st = porep_c1_validate(c1, &err);
    CHECK_MSG(st == CUZK_OK, "%s: validate: %s", what, err.msg);
    st = porep_c1_verify(c1, &err);
    CHECK_MSG(st == CUZK_OK, "%s: verify: %s", what, err.msg);
    char *json = NULL;
    size_t len = 0;
    if (porep_vanilla_variant(c1->geometry)) { /* unpublished test shapes have no JSON form */
        CHECK(porep_c1_to_json(c1, &json, &len, &err) == CUZK_OK);
        porep_c1 back;
        st = porep_c1_parse(&back, json, len, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "%s: parse: %s", what, err.msg);
        if (st == CUZK_OK) {
            CHECK(c1_equal(c1, &back));
            porep_c1_free(&back);
        }
        free(json);
    }
    size_t bad;
    for (unsigned k = 0; circuit && k < c1->partitions; k++)
        CHECK_MSG(circuit_ok(c1, k, NULL, &bad), "%s: partition %u: constraint %zu fails", what, k, bad);
}

/* comm_d of a sealed 2 KiB sector whose every data node is the synthetic one's (its TreeD leaf). */
static void test_comm_d(const porep_c1 *c1)
{
    porep_dom *data = malloc(c1->geometry->nodes * sizeof *data);
    CHECK(data != NULL);
    if (!data) return;
    for (uint64_t v = 0; v < c1->geometry->nodes; v++) memcpy(data[v], c1->proofs[0].comm_d.leaf, 32);
    porep_seal_params p = {.geometry = c1->geometry, .api = c1->type->api, .data = data};
    porep_proof_type_porep_id(c1->type, p.porep_id);
    porep_sealed s;
    CHECK(porep_seal(&s, &p, &err) == CUZK_OK);
    CHECK(memcmp(s.comm_d, c1->comm_d, 32) == 0);
    porep_sealed_free(&s);
    free(data);
}

static int is_parent_of(const porep_challenge_proof *p, uint64_t node)
{
    for (int j = 0; j < POREP_DRG_DEGREE; j++)
        if (p->drg[j].node == node) return 1;
    for (int j = 0; j < POREP_EXP_DEGREE; j++)
        if (p->exp[j].node == node) return 1;
    return 0;
}

static void bump_drg_row(stacked_witness *w)
{
    fr_t one;
    fr_set_one(&one);
    fr_add(&w->proofs[0].drg[2].rows[1], &w->proofs[0].drg[2].rows[1], &one);
}

static void bump_data_leaf(stacked_witness *w)
{
    fr_t one;
    fr_set_one(&one);
    fr_add(&w->proofs[1].data_leaf, &w->proofs[1].data_leaf, &one);
}

static void test_synth_small(rng_t *rng)
{
    const porep_proof_type *t = porep_proof_type_by_name("StackedDrg2KiBV1_1");
    uint64_t seed = rng_next(rng);
    porep_c1 c1, again, other;
    cuzk_status st = porep_synth_c1(&c1, t, seed, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) return;
    check_valid(&c1, "2KiB", 1);
    test_comm_d(&c1);
    CHECK(porep_synth_c1(&again, t, seed, &err) == CUZK_OK && c1_equal(&c1, &again));
    CHECK(porep_synth_c1(&other, t, seed + 1, &err) == CUZK_OK && memcmp(other.comm_r, c1.comm_r, 32) != 0);
    porep_c1_free(&again);
    porep_c1_free(&other);

    /* Changed values: the vanilla checks and the circuit reject them. */
    porep_challenge_proof *p = porep_c1_proof(&c1, 0, 0);
    p->drg[3].path.sibs[0][0] ^= 1; /* a TreeC sibling: the path no longer reaches comm_c */
    CHECK(porep_c1_validate(&c1, &err) == CUZK_OK);
    CHECK(porep_c1_verify(&c1, &err) != CUZK_OK);
    size_t bad = 0;
    CHECK(!circuit_ok(&c1, 0, NULL, &bad) && bad != SIZE_MAX);
    p->drg[3].path.sibs[0][0] ^= 1;
    c1.comm_r[0] ^= 1; /* comm_r != Poseidon2(comm_c, comm_r_last); also a public input */
    CHECK(porep_c1_verify(&c1, &err) != CUZK_OK);
    CHECK(!circuit_ok(&c1, 0, NULL, &bad) && bad != SIZE_MAX);
    c1.comm_r[0] ^= 1;
    CHECK(circuit_ok(&c1, 0, NULL, &bad));
    CHECK(!circuit_ok(&c1, 0, bump_drg_row, &bad) && bad != SIZE_MAX);
    CHECK(!circuit_ok(&c1, 0, bump_data_leaf, &bad) && bad != SIZE_MAX);
    porep_c1_free(&c1);

    /* A challenge that is also a parent of another challenge (64 nodes: it happens within a few seeds). */
    int found = 0;
    for (uint64_t s = seed; s < seed + 200 && !found; s++) {
        if (porep_synth_c1(&c1, t, s, &err) != CUZK_OK) break;
        const porep_challenge_proof *a = porep_c1_proof(&c1, 0, 0), *b = porep_c1_proof(&c1, 0, 1);
        if (is_parent_of(a, b->challenge) || is_parent_of(b, a->challenge)) {
            found = 1;
            check_valid(&c1, "2KiB, a challenge is a parent", 0);
        }
        porep_c1_free(&c1);
    }
    CHECK(found);

    /* API 1.0 (the other DRG parent order) and 8 MiB (deeper trees). */
    st = porep_synth_c1(&c1, porep_proof_type_by_name("StackedDrg2KiBV1"), seed, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) check_valid(&c1, "2KiB V1", 0);
    porep_c1_free(&c1);
    st = porep_synth_c1(&c1, porep_proof_type_by_name("StackedDrg8MiBV1_1"), seed, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) check_valid(&c1, "8MiB", 1);
    porep_c1_free(&c1);

    /* Sub and top tree levels at a small size: 32 KiB is 8-8-2 (a proof type of our own, as in the stacked tests). */
    static const porep_proof_type t32k = {"StackedDrg32KiBTest", 3, 32768, POREP_API_1_1, POREP_INTERACTIVE};
    st = porep_synth_c1(&c1, &t32k, seed, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) check_valid(&c1, "32KiB 8-8-2", 1);
    porep_c1_free(&c1);

    /* Challenges derived from comm_r cannot be synthesized this way. */
    CHECK(porep_synth_c1(&c1, porep_proof_type_by_name("StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), seed, &err) ==
          CUZK_ERR_UNSUPPORTED);
    CHECK(porep_synth_c1(&c1, porep_proof_type_by_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"), seed, &err) ==
          CUZK_ERR_UNSUPPORTED);
}

/* 32 and 64 GiB without the circuit (130 M constraints is for `cuzk porep check-circuit`): every vanilla check.
 * About 10 s of CPU, so opt-in with CUZK_SLOW_TESTS=1 like the other full-size tests. */
static void test_synth_full(rng_t *rng)
{
    porep_c1 c1;
    cuzk_status st = porep_synth_c1(&c1, porep_proof_type_by_name("StackedDrg32GiBV1_1"), rng_next(rng), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) return;
    CHECK(c1.partitions == 10 && c1.challenges == 18);
    check_valid(&c1, "32GiB", 0);
    porep_c1_free(&c1);
    st = porep_synth_c1(&c1, porep_proof_type_by_name("StackedDrg64GiBV1_1"), rng_next(rng), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) check_valid(&c1, "64GiB", 0);
    porep_c1_free(&c1);
}

/* A sealed sector's C1 passes the checker; a corrupted witness value fails it at the row full mode names. */
static void test_sealed(rng_t *rng)
{
    porep_c1 c1;
    cuzk_status st = porep_seal_test_c1(&c1, porep_proof_type_by_name("StackedDrg2KiBV1_1"), rng_next(rng), &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) return;
    size_t bad = 0;
    CHECK_MSG(circuit_ok(&c1, 0, NULL, &bad), "sealed 2KiB: constraint %zu fails", bad);
    CHECK(!circuit_ok(&c1, 0, bump_drg_row, &bad) && bad != SIZE_MAX);
    /* The same corruption in a full system: r1cs_is_satisfied names the same row. */
    stacked_circuit c;
    stacked_witness w;
    r1cs cs;
    CHECK(stacked_circuit_init_geometry(&c, c1.geometry, c1.type->kind, &err) == CUZK_OK);
    CHECK(stacked_witness_from_c1(&w, &c, &c1, 0, &err) == CUZK_OK);
    bump_drg_row(&w);
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK && stacked_synthesize(&cs, &c, &w, &err) == CUZK_OK &&
          r1cs_finalize(&cs, &err) == CUZK_OK);
    size_t row = 0;
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &row) == 0);
    CHECK_MSG(row == bad, "full mode row %zu, checker %zu", row, bad);
    r1cs_free(&cs);
    stacked_witness_free(&w);
    stacked_circuit_free(&c);
    porep_c1_free(&c1);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "synth_c1");
    test_checker(&rng);
    test_synth_small(&rng);
    if (getenv("CUZK_SLOW_TESTS")) test_synth_full(&rng);
    test_sealed(&rng);
    return test_finish("synth_c1");
}
