/* stacked_synthesize_witness and stacked_compile_shape against the serial path (stacked_synthesize into a
 * witness-only and a shape-only system): every count, input and aux value, coefficient, CSR array and density
 * must be equal, on rust-fil-proofs' small test shapes with random values and several challenges (so that blocks
 * are replicated and challenges run on several threads), and on a sealed 2 KiB C1, whose witness must also satisfy
 * the fast shape. */
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/seal.h"
#include "circuits/stacked/stacked_fast.h"
#include "testutil.h"

static cuzk_error err;

static void random_path(rng_t *rng, const por_tree *t, stacked_path *p)
{
    size_t k = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        p->index[l] = (uint8_t)(rng_next(rng) % t->arity[l]);
        for (unsigned j = 1; j < t->arity[l]; j++) fr_random(&p->sibs[k++], rng);
    }
}

/* Values that do not satisfy the circuit: equality with the serial path does not need them to. */
static void random_witness(rng_t *rng, const stacked_circuit *c, stacked_witness *w)
{
    fr_random(&w->replica_id, rng);
    fr_random(&w->comm_d, rng);
    fr_random(&w->comm_r, rng);
    fr_random(&w->comm_r_last, rng);
    fr_random(&w->comm_c, rng);
    for (unsigned i = 0; i < c->challenges; i++) {
        stacked_challenge *p = &w->proofs[i];
        p->challenge = rng_next(rng) % c->nodes;
        fr_random(&p->data_leaf, rng);
        random_path(rng, &c->tree_d, &p->comm_d);
        random_path(rng, &c->tree_rc, &p->comm_r_last);
        random_path(rng, &c->tree_rc, &p->comm_c);
        stacked_column *cols[POREP_DEGREE];
        for (int j = 0; j < POREP_DRG_DEGREE; j++) cols[j] = &p->drg[j];
        for (int j = 0; j < POREP_EXP_DEGREE; j++) cols[POREP_DRG_DEGREE + j] = &p->exp[j];
        for (int j = 0; j < POREP_DEGREE; j++) {
            for (unsigned l = 0; l < c->layers; l++) fr_random(&cols[j]->rows[l], rng);
            random_path(rng, &c->tree_rc, &cols[j]->path);
        }
    }
}

static int same_u64(const uint64_t *x, const uint64_t *y, size_t n)
{
    return n == 0 || memcmp(x, y, n * 8) == 0;
}
static int same_u32(const uint32_t *x, const uint32_t *y, size_t n)
{
    return n == 0 || memcmp(x, y, n * 4) == 0;
}

static void compare_shapes(const r1cs *fast, const r1cs *ref, const char *what)
{
    CHECK_MSG(fast->finalized && !fast->witness_only && !fast->has_witness, "%s: fast shape mode", what);
    CHECK_MSG(fast->num_inputs == ref->num_inputs && fast->num_aux == ref->num_aux &&
                  fast->num_constraints == ref->num_constraints,
              "%s: fast shape %zu/%zu/%zu, serial %zu/%zu/%zu (inputs/aux/constraints)", what, fast->num_inputs,
              fast->num_aux, fast->num_constraints, ref->num_inputs, ref->num_aux, ref->num_constraints);
    CHECK_MSG(fast->num_coeffs == ref->num_coeffs &&
                  memcmp(fast->coeffs, ref->coeffs, ref->num_coeffs * sizeof(fr_t)) == 0,
              "%s: coefficient tables differ (%zu, %zu)", what, fast->num_coeffs, ref->num_coeffs);
    const r1cs_matrix *fm[3] = {&fast->A, &fast->B, &fast->C}, *rm[3] = {&ref->A, &ref->B, &ref->C};
    for (int m = 0; m < 3; m++) {
        CHECK_MSG(fm[m]->rows == rm[m]->rows, "%s: %c rows %zu, %zu", what, "ABC"[m], fm[m] -> rows, rm[m] -> rows);
        if (fm[m]->rows != rm[m]->rows) continue;
        size_t nnz = rm[m]->row_start[rm[m]->rows];
        CHECK_MSG(same_u64(fm[m]->row_start, rm[m]->row_start, rm[m]->rows + 1), "%s: %c row_start", what, "ABC"[m]);
        if (fm[m]->row_start[fm[m]->rows] != nnz) continue;
        CHECK_MSG(same_u32(fm[m]->col, rm[m]->col, nnz), "%s: %c columns", what, "ABC"[m]);
        CHECK_MSG(same_u32(fm[m]->coeff, rm[m]->coeff, nnz), "%s: %c coefficients", what, "ABC"[m]);
    }
    r1cs_density df, dr;
    CHECK(r1cs_compute_density(fast, &df, &err) == CUZK_OK);
    CHECK(r1cs_compute_density(ref, &dr, &err) == CUZK_OK);
    size_t wa = (ref->num_aux + 63) / 64, wi = (ref->num_inputs + 63) / 64;
    CHECK_MSG(df.a_aux_count == dr.a_aux_count && df.b_input_count == dr.b_input_count &&
                  df.b_aux_count == dr.b_aux_count && same_u64(df.a_aux, dr.a_aux, wa) &&
                  same_u64(df.b_input, dr.b_input, wi) && same_u64(df.b_aux, dr.b_aux, wa),
              "%s: densities differ", what);
    r1cs_density_free(&df);
    r1cs_density_free(&dr);
}

static void compare_witnesses(const r1cs *fast, const r1cs *ref, const char *what)
{
    CHECK_MSG(fast->finalized && fast->witness_only && fast->has_witness, "%s: fast witness mode", what);
    CHECK_MSG(fast->num_inputs == ref->num_inputs && fast->num_aux == ref->num_aux &&
                  fast->num_constraints == ref->num_constraints,
              "%s: fast witness %zu/%zu/%zu, serial %zu/%zu/%zu (inputs/aux/constraints)", what, fast->num_inputs,
              fast->num_aux, fast->num_constraints, ref->num_inputs, ref->num_aux, ref->num_constraints);
    if (fast->num_inputs != ref->num_inputs || fast->num_aux != ref->num_aux) return;
    CHECK_MSG(memcmp(fast->inputs, ref->inputs, ref->num_inputs * sizeof(fr_t)) == 0, "%s: inputs differ", what);
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < ref->num_aux && first == SIZE_MAX; i++)
        if (!fr_eq(&fast->aux[i], &ref->aux[i])) first = i;
    CHECK_MSG(first == SIZE_MAX, "%s: aux %zu (of %zu) differs", what, first, ref->num_aux);
}

/* The fast and serial outputs for circuit c and witness w, on pool; the fast witness must satisfy the fast shape
 * when expect_satisfied. */
static void run(pool_t *pool, const stacked_circuit *c, const stacked_witness *w, int expect_satisfied,
                const char *what)
{
    r1cs shape, ref_shape, wit, ref_wit;
    cuzk_status st = stacked_compile_shape(pool, c, &shape, &err);
    CHECK_MSG(st == CUZK_OK, "%s: stacked_compile_shape: %s", what, err.msg);
    CHECK(r1cs_create(&ref_shape, 0, &err) == CUZK_OK && stacked_synthesize(&ref_shape, c, NULL, &err) == CUZK_OK &&
          r1cs_finalize(&ref_shape, &err) == CUZK_OK);
    if (st == CUZK_OK) compare_shapes(&shape, &ref_shape, what);
    r1cs_free(&ref_shape);

    st = stacked_synthesize_witness(pool, c, w, &wit, &err);
    CHECK_MSG(st == CUZK_OK, "%s: stacked_synthesize_witness: %s", what, err.msg);
    CHECK(r1cs_create_witness_only(&ref_wit, &err) == CUZK_OK && stacked_synthesize(&ref_wit, c, w, &err) == CUZK_OK &&
          r1cs_finalize(&ref_wit, &err) == CUZK_OK);
    if (st == CUZK_OK) {
        compare_witnesses(&wit, &ref_wit, what);
        size_t bad = 0;
        if (expect_satisfied && r1cs_check_witness(&shape, &wit, &err) == CUZK_OK)
            CHECK_MSG(r1cs_is_satisfied(pool, &shape, wit.inputs, wit.aux, &bad), "%s: row %zu fails", what, bad);
        else
            CHECK_MSG(r1cs_check_witness(&shape, &wit, &err) == CUZK_OK, "%s: %s", what, err.msg);
    }
    r1cs_free(&ref_wit);
    r1cs_free(&wit);
    r1cs_free(&shape);
}

static void test_shapes(pool_t *pool, rng_t *rng)
{
    /* tests/stacked_circuit.rs shapes (2 layers), with 3 challenges instead of 1. */
    static const struct {
        uint64_t nodes;
        unsigned challenges, base, sub, top;
    } cases[] = {{8, 3, 8, 0, 0}, {64, 3, 8, 4, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char what[64];
        snprintf(what, sizeof what, "%llu nodes %u-%u-%u x%u", (unsigned long long)cases[k].nodes, cases[k].base,
                 cases[k].sub, cases[k].top, cases[k].challenges);
        stacked_circuit c;
        CHECK(stacked_circuit_init(&c, cases[k].nodes, 2, cases[k].challenges, cases[k].base, cases[k].sub,
                                   cases[k].top, &err) == CUZK_OK);
        stacked_witness w;
        CHECK(stacked_witness_alloc(&w, &c, &err) == CUZK_OK);
        random_witness(rng, &c, &w);
        run(k == 0 ? NULL : pool, &c, &w, 0, what);
        /* A witness for another number of challenges is refused, leaving nothing to free. */
        stacked_witness short_w = w;
        short_w.challenges--;
        r1cs none;
        CHECK(stacked_synthesize_witness(pool, &c, &short_w, &none, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(none.aux == NULL && none.inputs == NULL);
        stacked_witness_free(&w);
        stacked_circuit_free(&c);
    }
}

static void test_sealed_2kib(pool_t *pool)
{
    porep_c1 c1;
    cuzk_status st = porep_seal_test_c1(&c1, porep_proof_type_by_name("StackedDrg2KiBV1_1"), 3, &err);
    CHECK_MSG(st == CUZK_OK, "2 KiB seal: %s", err.msg);
    if (st != CUZK_OK) return;
    stacked_circuit c;
    CHECK(stacked_circuit_init_geometry(&c, c1.geometry, c1.type->kind, &err) == CUZK_OK);
    stacked_witness w;
    st = stacked_witness_from_c1(&w, &c, &c1, 0, &err);
    CHECK_MSG(st == CUZK_OK, "2 KiB witness: %s", err.msg);
    if (st == CUZK_OK) run(pool, &c, &w, 1, "sealed 2 KiB");
    stacked_witness_free(&w);
    stacked_circuit_free(&c);
    porep_c1_free(&c1);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "stacked_fast");
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 3, &err) == CUZK_OK);
    test_shapes(pool, &rng);
    test_sealed_2kib(pool);
    pool_destroy(pool);
    return test_finish("stacked_fast");
}
