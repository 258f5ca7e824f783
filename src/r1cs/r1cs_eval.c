/* a/b/c evaluation (sparse matrix times witness), satisfaction check, bellperson densities. */
#include "r1cs/r1cs.h"

#include <stdlib.h>
#include <string.h>

/* Rows per task: large enough to amortise scheduling, small enough to balance rows of uneven length. */
#define EVAL_GRAIN 4096

static inline int fr_zero_fast(const fr_t *x)
{
    return (x->l[0] | x->l[1] | x->l[2] | x->l[3]) == 0;
}

static inline int fr_eq_fast(const fr_t *x, const fr_t *y)
{
    return ((x->l[0] ^ y->l[0]) | (x->l[1] ^ y->l[1]) | (x->l[2] ^ y->l[2]) | (x->l[3] ^ y->l[3])) == 0;
}

typedef struct eval_ctx {
    const r1cs *cs;
    const fr_t *inputs, *aux;
    fr_t one;
    fr_t *out[3];     /* eval_abc: destinations */
    size_t first_bad; /* is_satisfied: smallest failing row (atomic min) */
} eval_ctx;

/* Witness-heavy circuits are mostly 0/1 values under unit coefficients: a zero value costs a test, a unit
 * coefficient or a value of one an addition; only the rest pays a multiplication. */
static inline void row_eval(const eval_ctx *e, const r1cs_matrix *mx, size_t i, fr_t *out)
{
    const fr_t *coeffs = e->cs->coeffs;
    const uint32_t ni = (uint32_t)e->cs->num_inputs;
    fr_t acc, t;
    fr_set_zero(&acc);
    for (uint64_t k = mx->row_start[i], end = mx->row_start[i + 1]; k < end; k++) {
        uint32_t j = mx->col[k];
        const fr_t *x = j < ni ? &e->inputs[j] : &e->aux[j - ni];
        if (fr_zero_fast(x)) continue;
        uint32_t ci = mx->coeff[k];
        if (ci == 0) {
            fr_add(&acc, &acc, x);
        } else if (fr_eq_fast(x, &e->one)) {
            fr_add(&acc, &acc, &coeffs[ci]);
        } else {
            fr_mul(&t, x, &coeffs[ci]);
            fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

void r1cs_lc_eval(const r1cs *cs, const r1cs_lc *lc, fr_t *out)
{
    fr_t acc, t, one;
    fr_set_zero(&acc);
    fr_set_one(&one);
    for (size_t k = 0; k < lc->len; k++) {
        r1cs_var v = lc->vars[k];
        const fr_t *x = v.kind == R1CS_INPUT ? &cs->inputs[v.index] : &cs->aux[v.index];
        if (fr_zero_fast(x)) continue;
        const fr_t *cf = &lc->coeffs[k];
        if (fr_eq_fast(cf, &one)) {
            fr_add(&acc, &acc, x);
        } else if (fr_eq_fast(x, &one)) {
            fr_add(&acc, &acc, cf);
        } else {
            fr_mul(&t, x, cf);
            fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

static void eval_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const eval_ctx *e = ctx;
    const r1cs_matrix *mx[3] = {&e->cs->A, &e->cs->B, &e->cs->C};
    for (int m = 0; m < 3; m++)
        for (size_t i = begin; i < end; i++) row_eval(e, mx[m], i, &e->out[m][i]);
}

static cuzk_status check_eval_args(const r1cs *cs, const fr_t *inputs, const fr_t *aux, const char *who,
                                   cuzk_error *err)
{
    if (!cs->finalized) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: system is not finalized", who);
    if (cs->witness_only || cs->checker || cs->A.rows != cs->num_constraints || cs->B.rows != cs->num_constraints ||
        cs->C.rows != cs->num_constraints)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: system holds no matrices (witness-only)", who);
    if (!inputs || (!aux && cs->num_aux > 0))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: no witness given", who);
    return CUZK_OK;
}

cuzk_status r1cs_eval_abc(pool_t *pool, const r1cs *cs, const fr_t *inputs, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c,
                          cuzk_error *err)
{
    cuzk_status st = check_eval_args(cs, inputs, aux, "r1cs_eval_abc", err);
    if (st != CUZK_OK) return st;
    if (cs->num_constraints > 0 && (!a || !b || !c))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_eval_abc: missing output vector");
    eval_ctx e = {.cs = cs, .inputs = inputs, .aux = aux, .out = {a, b, c}};
    fr_set_one(&e.one);
    pool_parallel_for(pool, cs->num_constraints, EVAL_GRAIN, eval_task, &e);
    return CUZK_OK;
}

static void check_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    eval_ctx *e = ctx;
    for (size_t i = begin; i < end; i++) {
        if (__atomic_load_n(&e->first_bad, __ATOMIC_RELAXED) < i) return; /* an earlier row already failed */
        fr_t va, vb, vc, ab;
        row_eval(e, &e->cs->A, i, &va);
        row_eval(e, &e->cs->B, i, &vb);
        row_eval(e, &e->cs->C, i, &vc);
        fr_mul(&ab, &va, &vb);
        if (!fr_eq(&ab, &vc)) {
            size_t cur = __atomic_load_n(&e->first_bad, __ATOMIC_RELAXED);
            while (i < cur &&
                   !__atomic_compare_exchange_n(&e->first_bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
            return;
        }
    }
}

int r1cs_is_satisfied(pool_t *pool, const r1cs *cs, const fr_t *inputs, const fr_t *aux, size_t *bad_row)
{
    if (check_eval_args(cs, inputs, aux, "r1cs_is_satisfied", NULL) != CUZK_OK) {
        if (bad_row) *bad_row = SIZE_MAX;
        return 0;
    }
    eval_ctx e = {.cs = cs, .inputs = inputs, .aux = aux, .first_bad = SIZE_MAX};
    fr_set_one(&e.one);
    pool_parallel_for(pool, cs->num_constraints, EVAL_GRAIN, check_task, &e);
    if (e.first_bad == SIZE_MAX) return 1;
    if (bad_row) *bad_row = e.first_bad;
    return 0;
}

void r1cs_density_free(r1cs_density *d)
{
    free(d->a_aux);
    free(d->b_input);
    free(d->b_aux);
    memset(d, 0, sizeof *d);
}

static size_t popcount_words(const uint64_t *w, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += (size_t)__builtin_popcountll(w[i]);
    return c;
}

cuzk_status r1cs_compute_density(const r1cs *cs, r1cs_density *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cs->finalized || cs->witness_only || cs->checker)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_compute_density: system is %s",
                              cs->finalized ? "without matrices" : "not finalized");
    size_t ni = cs->num_inputs, na = cs->num_aux;
    size_t wi = (ni + 63) / 64, wa = (na + 63) / 64;
    out->a_aux = r1cs_xcalloc(wa ? wa : 1, sizeof(uint64_t));
    out->b_input = r1cs_xcalloc(wi ? wi : 1, sizeof(uint64_t));
    out->b_aux = r1cs_xcalloc(wa ? wa : 1, sizeof(uint64_t));
    if (!out->a_aux || !out->b_input || !out->b_aux) {
        r1cs_density_free(out);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_compute_density: cannot allocate %zu + %zu bits", ni, na);
    }
    /* The coefficient table holds no zero, so presence in a row is presence with a non-zero coefficient. */
    const r1cs_matrix *A = &cs->A, *B = &cs->B;
    for (uint64_t k = 0, n = A->row_start[A->rows]; k < n; k++) {
        uint32_t j = A->col[k];
        if (j >= ni) out->a_aux[(j - ni) >> 6] |= 1ULL << ((j - ni) & 63);
    }
    for (uint64_t k = 0, n = B->row_start[B->rows]; k < n; k++) {
        uint32_t j = B->col[k];
        if (j < ni)
            out->b_input[j >> 6] |= 1ULL << (j & 63);
        else
            out->b_aux[(j - ni) >> 6] |= 1ULL << ((j - ni) & 63);
    }
    out->a_aux_count = popcount_words(out->a_aux, wa);
    out->b_input_count = popcount_words(out->b_input, wi);
    out->b_aux_count = popcount_words(out->b_aux, wa);
    return CUZK_OK;
}
