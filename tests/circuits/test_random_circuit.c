/* random_circuit: every shape is satisfied (threaded check and a naive one), has the requested sizes and
 * edge properties, constrains every aux, and a changed value is caught where the naive check says. */
#include <stdlib.h>
#include <string.h>

#include "circuits/random_circuit.h"
#include "r1cs/r1cs.h"
#include "testutil.h"
#include "util/pool.h"

static rng_t rng;

/* +-1, or a sum of a few of them where a random LC picked one variable twice. */
static int is_small_unit_sum(const fr_t *c, size_t max_terms)
{
    for (uint64_t k = 1; k <= max_terms; k++) {
        fr_t m;
        fr_from_u64(&m, k);
        if (fr_eq(c, &m)) return 1;
        fr_neg(&m, &m);
        if (fr_eq(c, &m)) return 1;
    }
    return 0;
}

static void check_circuit(pool_t *pool, const random_circuit_params *p, const char *what)
{
    r1cs cs;
    cuzk_error err;
    cuzk_status st = random_circuit_build(&rng, p, &cs, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", what, err.msg);
    if (st != CUZK_OK) return;
    size_t ni = p->num_inputs + 1, n = cs.num_constraints;
    CHECK_MSG(cs.finalized && cs.has_witness && cs.num_inputs == ni && cs.num_aux == p->num_aux &&
                  n == p->num_constraints + ni,
              "%s: sizes", what);
    size_t bad = 0;
    CHECK_MSG(r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, &bad), "%s: row %zu", what, bad);
    CHECK_MSG(test_r1cs_first_bad(&cs, cs.inputs, cs.aux) == SIZE_MAX, "%s: naive check", what);

    /* Every aux appears somewhere (with a non-zero coefficient: the table holds none) when there are rows. */
    unsigned char *seen = calloc(cs.num_aux + 1, 1);
    CHECK(seen != NULL);
    const r1cs_matrix *mx[3] = {&cs.A, &cs.B, &cs.C};
    int unit_ok = 1, dup = 0;
    for (int m = 0; m < 3 && seen; m++)
        for (size_t i = 0; i < n; i++)
            for (uint64_t e = mx[m]->row_start[i]; e < mx[m]->row_start[i + 1]; e++) {
                uint32_t j = mx[m]->col[e];
                if (j >= ni) seen[j - ni] = 1;
                if (e > mx[m]->row_start[i] && mx[m]->col[e - 1] >= j) dup = 1;
                if (m < 2 && !is_small_unit_sum(&cs.coeffs[mx[m]->coeff[e]], p->max_terms ? p->max_terms : 4))
                    unit_ok = 0;
            }
    CHECK_MSG(!dup, "%s: a row repeats a column or is unsorted", what);
    if (p->num_constraints > 0 && seen)
        for (size_t j = 0; j < cs.num_aux; j++) CHECK_MSG(seen[j], "%s: aux %zu unconstrained", what, j);
    free(seen);
    if ((p->flags & RC_UNIT_COEFFS) && !(p->flags & RC_REPEATED_VARS)) CHECK_MSG(unit_ok, "%s: non-unit coeff", what);
    if (p->flags & RC_BOOLEAN_VALUES) {
        int ok = 1;
        for (size_t j = 0; j < cs.num_aux; j++) ok &= fr_is_zero(&cs.aux[j]) || fr_is_one(&cs.aux[j]);
        for (size_t j = 0; j < cs.num_inputs; j++) ok &= fr_is_zero(&cs.inputs[j]) || fr_is_one(&cs.inputs[j]);
        CHECK_MSG(ok, "%s: non-boolean value", what);
    }
    r1cs_density d;
    CHECK(r1cs_compute_density(&cs, &d, &err) == CUZK_OK);
    if (p->flags & RC_EMPTY_DENSITY)
        CHECK_MSG(d.a_aux_count == 0 && d.b_input_count == 0 && d.b_aux_count == 0, "%s: densities not empty", what);
    r1cs_density_free(&d);

    /* Change one value; the threaded check agrees with the naive one on whether and where it fails. */
    fr_t *w = cs.num_aux > 0 && (rng_next(&rng) & 3) ? &cs.aux[rng_next(&rng) % cs.num_aux]
                                                     : &cs.inputs[rng_next(&rng) % cs.num_inputs];
    fr_t saved = *w, delta;
    fr_random(&delta, &rng);
    fr_add(w, w, &delta);
    size_t expect = test_r1cs_first_bad(&cs, cs.inputs, cs.aux);
    int sat = r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, &bad);
    CHECK_MSG(sat == (expect == SIZE_MAX) && (sat || bad == expect), "%s: changed value: %zu vs %zu", what, bad,
              expect);
    *w = saved;
    r1cs_free(&cs);
}

int main(void)
{
    test_seed(&rng, "test_random_circuit");
    pool_t *pool = NULL;
    cuzk_error err;
    CHECK(pool_create(&pool, 3, &err) == CUZK_OK);
    char what[64];
    for (int rep = 0; rep < 12; rep++) {
        for (unsigned s = 0; s < RC_NUM_SHAPES; s++) {
            random_circuit_params p;
            random_circuit_shape(&rng, s, rep < 10 ? 200 : 5000, &p);
            snprintf(what, sizeof what, "shape %u rep %d", s, rep);
            check_circuit(pool, &p, what);
            if (s == 1) CHECK(p.num_aux == 0);
            if (s == 0) CHECK(p.num_constraints == 1);
            if (s == 5) {
                size_t total = p.num_constraints + p.num_inputs + 1;
                size_t near = (total & (total - 1)) ? total + 1 : 0, below = total - 1;
                CHECK((total & (total - 1)) != 0 && (((near & (near - 1)) == 0) || ((below & (below - 1)) == 0)));
            }
            if (s == 9) {
                size_t total = p.num_constraints + p.num_inputs + 1;
                CHECK((total & (total - 1)) == 0);
            }
        }
    }
    /* Shapes the sweep does not draw. */
    random_circuit_params p0 = {.num_inputs = 2, .num_aux = 3, .num_constraints = 0};
    check_circuit(pool, &p0, "no constraints");
    random_circuit_params p1 = {.num_inputs = 0, .num_aux = 0, .num_constraints = 5};
    check_circuit(pool, &p1, "ONE only");
    random_circuit_params p2 = {.num_inputs = 1, .num_aux = 30, .num_constraints = 40, .flags = RC_UNIT_COEFFS};
    check_circuit(pool, &p2, "unit coefficients");
    random_circuit_params p3 = {.num_inputs = 5,
                                .num_aux = 100,
                                .num_constraints = 90,
                                .max_terms = 40,
                                .flags = RC_REPEATED_VARS | RC_EMPTY_DENSITY};
    check_circuit(pool, &p3, "long LCs, empty densities");
    random_circuit_params bad = {.num_inputs = 0x7fffffff};
    r1cs cs;
    CHECK(random_circuit_build(&rng, &bad, &cs, &err) == CUZK_ERR_INVALID_ARG);
    pool_destroy(pool);
    return test_finish("test_random_circuit");
}
