/* The synthetic PoRep-shaped circuit: satisfied at every small k, sizes as synthetic_info_get says, the same
 * bytes with and without threads, the three modes agree, and the rows are what the builder would make. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/synthetic.h"
#include "r1cs/r1cs.h"
#include "testutil.h"
#include "util/pool.h"

static rng_t rng;

static int same_matrix(const r1cs_matrix *x, const r1cs_matrix *y)
{
    if (x->rows != y->rows || memcmp(x->row_start, y->row_start, (x->rows + 1) * sizeof *x->row_start)) return 0;
    size_t nnz = x->row_start[x->rows];
    return !memcmp(x->col, y->col, nnz * sizeof *x->col) && !memcmp(x->coeff, y->coeff, nnz * sizeof *x->coeff);
}

static int same_system(const r1cs *x, const r1cs *y)
{
    return x->num_inputs == y->num_inputs && x->num_aux == y->num_aux && x->num_constraints == y->num_constraints &&
           same_matrix(&x->A, &y->A) && same_matrix(&x->B, &y->B) && same_matrix(&x->C, &y->C) &&
           x->num_coeffs == y->num_coeffs && !memcmp(x->coeffs, y->coeffs, x->num_coeffs * sizeof *x->coeffs) &&
           !memcmp(x->inputs, y->inputs, x->num_inputs * sizeof *x->inputs) &&
           !memcmp(x->aux, y->aux, x->num_aux * sizeof *x->aux);
}

static void test_small_k(pool_t *pool, uint64_t seed)
{
    for (unsigned k = SYNTHETIC_MIN_K; k <= 15; k++) {
        synthetic_info info;
        r1cs cs, cs1;
        cuzk_error err;
        CHECK(synthetic_info_get(k, &info, &err) == CUZK_OK);
        cuzk_status st = synthetic_build(pool, k, seed, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "k=%u: %s", k, err.msg);
        if (st != CUZK_OK) continue;
        size_t n = cs.num_constraints;
        CHECK(n == info.num_constraints && cs.num_inputs == info.num_inputs && cs.num_aux == info.num_aux);
        CHECK(cs.A.row_start[n] == info.nnz[0] && cs.B.row_start[n] == info.nnz[1] && cs.C.row_start[n] == info.nnz[2]);
        CHECK(n <= ((size_t)1 << k) && n > ((size_t)1 << (k - 1)));
        size_t bad = 0;
        CHECK_MSG(r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, &bad), "k=%u row %zu", k, bad);
        if (k <= 12) CHECK(test_r1cs_first_bad(&cs, cs.inputs, cs.aux) == SIZE_MAX);
        /* The boolean count is what the values say (at least: other values may happen to be 0 or 1). */
        size_t bits = 0, unit = 0;
        for (size_t j = 0; j < cs.num_aux; j++) bits += fr_is_zero(&cs.aux[j]) || fr_is_one(&cs.aux[j]);
        const r1cs_matrix *mx[3] = {&cs.A, &cs.B, &cs.C};
        for (int m = 0; m < 3; m++)
            for (size_t e = 0; e < mx[m]->row_start[n]; e++) unit += mx[m]->coeff[e] == 0;
        CHECK_MSG(bits >= info.num_bool_aux && bits - info.num_bool_aux <= 4 + cs.num_aux / 100, "k=%u %zu vs %zu", k,
                  bits, info.num_bool_aux);
        CHECK(unit == info.nnz_unit_coeff);
        /* Threads change nothing. */
        st = synthetic_build(NULL, k, seed, R1CS_MATRICES | R1CS_WITNESS, &cs1, &err);
        CHECK(st == CUZK_OK && same_system(&cs, &cs1));
        r1cs_free(&cs1);
        /* Adding 2 to any aux breaks a row (booleans leave {0, 1}; the others are pinned by their row). */
        if (cs.num_aux > 0) {
            fr_t *w = &cs.aux[rng_next(&rng) % cs.num_aux], saved = *w, two;
            fr_from_u64(&two, 2);
            fr_add(w, w, &two);
            size_t expect = k <= 12 ? test_r1cs_first_bad(&cs, cs.inputs, cs.aux) : 0;
            int sat = r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, &bad);
            CHECK_MSG(!sat && (k > 12 || bad == expect), "k=%u: changed aux %zu not caught", k, (size_t)(w - cs.aux));
            *w = saved;
        }
        r1cs_free(&cs);
    }
}

static void test_modes(pool_t *pool, uint64_t seed)
{
    unsigned k = 14;
    r1cs full, shape, wit, other;
    cuzk_error err;
    CHECK(synthetic_build(pool, k, seed, R1CS_MATRICES | R1CS_WITNESS, &full, &err) == CUZK_OK);
    CHECK(synthetic_build(pool, k, seed, R1CS_MATRICES, &shape, &err) == CUZK_OK);
    CHECK(synthetic_build(pool, k, seed, R1CS_WITNESS, &wit, &err) == CUZK_OK);
    CHECK(synthetic_build(pool, k, seed + 1, R1CS_WITNESS, &other, &err) == CUZK_OK);
    CHECK(shape.aux == NULL && wit.A.rows == 0 && wit.witness_only);
    CHECK(r1cs_check_witness(&shape, &wit, &err) == CUZK_OK);
    CHECK(memcmp(full.aux, wit.aux, full.num_aux * sizeof *full.aux) == 0);
    CHECK(memcmp(full.aux, other.aux, full.num_aux * sizeof *full.aux) != 0);
    size_t n = full.num_constraints;
    fr_t *v = malloc(6 * n * sizeof *v);
    CHECK(v != NULL);
    if (v) {
        CHECK(r1cs_eval_abc(pool, &full, full.inputs, full.aux, v, v + n, v + 2 * n, &err) == CUZK_OK);
        CHECK(r1cs_eval_abc(NULL, &shape, wit.inputs, wit.aux, v + 3 * n, v + 4 * n, v + 5 * n, &err) == CUZK_OK);
        CHECK(memcmp(v, v + 3 * n, 3 * n * sizeof *v) == 0);
        free(v);
    }
    /* A different seed draws different Poseidon constants: its witness does not fit this shape's rows. */
    CHECK(r1cs_check_witness(&shape, &other, &err) == CUZK_OK);
    CHECK(r1cs_is_satisfied(pool, &shape, other.inputs, other.aux, NULL) == 0);
    r1cs_free(&full);
    r1cs_free(&shape);
    r1cs_free(&wit);
    r1cs_free(&other);
}

/* Feeding every row through the builder gives the same system: no column twice in a row, sorted rows,
 * interned coefficients consistent. */
static void test_through_builder(pool_t *pool, uint64_t seed)
{
    unsigned k = 13;
    r1cs syn, b;
    cuzk_error err;
    CHECK(synthetic_build(pool, k, seed, R1CS_MATRICES | R1CS_WITNESS, &syn, &err) == CUZK_OK);
    CHECK(r1cs_create(&b, 1, &err) == CUZK_OK);
    r1cs_var v;
    for (size_t j = 1; j < syn.num_inputs; j++) CHECK(r1cs_alloc_input(&b, &syn.inputs[j], &v, &err) == CUZK_OK);
    for (size_t j = 0; j < syn.num_aux; j++) CHECK(r1cs_alloc_aux(&b, &syn.aux[j], &v, &err) == CUZK_OK);
    r1cs_lc lc[3];
    for (int m = 0; m < 3; m++) r1cs_lc_init(&lc[m]);
    const r1cs_matrix *mx[3] = {&syn.A, &syn.B, &syn.C};
    size_t synth_rows = syn.num_constraints - syn.num_inputs;
    int ok = 1;
    for (size_t i = 0; i < synth_rows && ok; i++) {
        for (int m = 0; m < 3; m++) {
            r1cs_lc_clear(&lc[m]);
            for (uint64_t e = mx[m]->row_start[i]; e < mx[m]->row_start[i + 1]; e++) {
                uint32_t j = mx[m]->col[e];
                r1cs_var x = j < syn.num_inputs ? (r1cs_var){R1CS_INPUT, j}
                                                : (r1cs_var){R1CS_AUX, (uint32_t)(j - syn.num_inputs)};
                ok &= r1cs_lc_add(&lc[m], x, &syn.coeffs[mx[m]->coeff[e]], &err) == CUZK_OK;
            }
        }
        ok &= r1cs_enforce(&b, &lc[0], &lc[1], &lc[2], &err) == CUZK_OK;
    }
    CHECK(ok);
    for (int m = 0; m < 3; m++) r1cs_lc_free(&lc[m]);
    CHECK(r1cs_finalize(&b, &err) == CUZK_OK);
    CHECK(b.num_constraints == syn.num_constraints);
    const r1cs_matrix *mb[3] = {&b.A, &b.B, &b.C};
    for (int m = 0; m < 3; m++) {
        CHECK(memcmp(mb[m]->row_start, mx[m]->row_start, (syn.num_constraints + 1) * sizeof(uint64_t)) == 0);
        /* The builder sorts each row by column (bellpepper's order); the generator writes gadget order. */
        size_t diff = 0;
        for (size_t i = 0; i < syn.num_constraints; i++) {
            uint64_t s = mx[m]->row_start[i], len = mx[m]->row_start[i + 1] - s;
            for (uint64_t e = 0; e < len; e++) {
                uint64_t f = s;
                while (f < s + len && mx[m]->col[f] != mb[m]->col[s + e]) f++;
                diff += f == s + len || !fr_eq(&b.coeffs[mb[m]->coeff[s + e]], &syn.coeffs[mx[m]->coeff[f]]) ||
                        (e > 0 && mb[m]->col[s + e - 1] >= mb[m]->col[s + e]);
            }
        }
        CHECK_MSG(diff == 0, "matrix %c: %zu entries differ from the builder's", "ABC"[m], diff);
    }
    r1cs_density d1, d2;
    CHECK(r1cs_compute_density(&syn, &d1, &err) == CUZK_OK && r1cs_compute_density(&b, &d2, &err) == CUZK_OK);
    CHECK(d1.a_aux_count == d2.a_aux_count && d1.b_aux_count == d2.b_aux_count && d1.b_input_count == d2.b_input_count);
    CHECK(memcmp(d1.a_aux, d2.a_aux, (syn.num_aux + 63) / 64 * 8) == 0);
    CHECK(memcmp(d1.b_aux, d2.b_aux, (syn.num_aux + 63) / 64 * 8) == 0);
    r1cs_density_free(&d1);
    r1cs_density_free(&d2);
    r1cs_free(&b);
    r1cs_free(&syn);
}

static void test_errors(void)
{
    r1cs cs;
    cuzk_error err;
    synthetic_info info;
    CHECK(synthetic_info_get(0, &info, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(synthetic_info_get(28, &info, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(synthetic_build(NULL, 28, 1, R1CS_MATRICES, &cs, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(synthetic_build(NULL, 10, 1, 0, &cs, &err) == CUZK_ERR_INVALID_ARG);
    int completed = 0;
    for (long n = 0; n < 1000 && !completed; n++) {
        r1cs_test_fail_alloc_after(n);
        cuzk_status st = synthetic_build(NULL, 10, 1, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        r1cs_test_fail_alloc_after(-1);
        CHECK_MSG(st == CUZK_OK || st == CUZK_ERR_NOMEM, "%s", err.msg);
        if (st == CUZK_OK)
            completed = 1;
        else
            CHECK(cs.coeffs == NULL && cs.aux == NULL);
        r1cs_free(&cs);
    }
    CHECK(completed);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    uint64_t seed = test_seed(&rng, "test_synthetic");
    pool_t *pool = NULL;
    cuzk_error err;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK);
    test_small_k(pool, seed);
    test_modes(pool, seed);
    test_through_builder(pool, seed);
    test_errors();
    /* Informational: generation speed at a benchmark-like size. */
    r1cs cs;
    double t0 = seconds();
    if (synthetic_build(pool, 18, seed, R1CS_MATRICES | R1CS_WITNESS, &cs, &err) == CUZK_OK) {
        double t1 = seconds();
        printf("synthetic k=18: %zu constraints in %.3f s (%.0f ns per constraint, %u threads)\n", cs.num_constraints,
               t1 - t0, (t1 - t0) * 1e9 / (double)cs.num_constraints, pool_size(pool));
        CHECK(r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, NULL));
        r1cs_free(&cs);
    }
    pool_destroy(pool);
    return test_finish("test_synthetic");
}
