#include "circuits/random_circuit.h"

#include <string.h>

static void draw_value(rng_t *rng, unsigned flags, fr_t *v)
{
    uint64_t r = rng_next(rng);
    if (flags & RC_BOOLEAN_VALUES) {
        fr_from_u64(v, r & 1);
        return;
    }
    switch (r % 8) {
    case 0:
    case 1: fr_set_zero(v); break;
    case 2:
    case 3: fr_set_one(v); break;
    case 4: fr_from_u64(v, (r >> 8) % 1000); break;
    case 5:
        fr_set_one(v);
        fr_neg(v, v);
        break;
    default: fr_random(v, rng); break;
    }
}

/* A non-zero coefficient. */
static void draw_coeff(rng_t *rng, unsigned flags, fr_t *c)
{
    uint64_t r = rng_next(rng);
    if ((flags & RC_UNIT_COEFFS) || r % 4 < 2) {
        fr_set_one(c);
        if (r & 0x100) fr_neg(c, c);
        return;
    }
    if (r % 4 == 2) {
        fr_from_u64(c, 2 + (r >> 8) % 1000);
        return;
    }
    do fr_random(c, rng);
    while (fr_is_zero(c));
}

static r1cs_var pick_var(rng_t *rng, size_t ninputs, size_t naux, int inputs_only)
{
    r1cs_var v;
    uint64_t r = rng_next(rng);
    if (!inputs_only && naux > 0 && r % 3 != 0) {
        v.kind = R1CS_AUX;
        v.index = (uint32_t)((r >> 8) % naux);
    } else {
        v.kind = R1CS_INPUT;
        v.index = (uint32_t)((r >> 8) % ninputs);
    }
    return v;
}

static const fr_t *var_value(const r1cs *cs, r1cs_var v)
{
    return v.kind == R1CS_INPUT ? &cs->inputs[v.index] : &cs->aux[v.index];
}

static void lc_eval(const r1cs *cs, const r1cs_lc *lc, fr_t *out)
{
    fr_t t;
    fr_set_zero(out);
    for (size_t k = 0; k < lc->len; k++) {
        fr_mul(&t, &lc->coeffs[k], var_value(cs, lc->vars[k]));
        fr_add(out, out, &t);
    }
}

/* Fills lc with up to max_terms random terms (and, with RC_REPEATED_VARS, repeats and cancelling pairs). */
static cuzk_status random_lc(rng_t *rng, const r1cs *cs, unsigned flags, size_t max_terms, int inputs_only, r1cs_lc *lc,
                             cuzk_error *err)
{
    size_t n = (size_t)(rng_next(rng) % (max_terms + 1));
    for (size_t k = 0; k < n; k++) {
        fr_t c;
        draw_coeff(rng, flags, &c);
        r1cs_var v = pick_var(rng, cs->num_inputs, cs->num_aux, inputs_only);
        cuzk_status st = r1cs_lc_add(lc, v, &c, err);
        if (st != CUZK_OK) return st;
        if (!(flags & RC_REPEATED_VARS)) continue;
        uint64_t r = rng_next(rng) % 4;
        if (r == 0) { /* the same variable again: merged into one term */
            draw_coeff(rng, flags, &c);
            st = r1cs_lc_add(lc, v, &c, err);
        } else if (r == 1) { /* x - x: a merged zero, which bellperson skips */
            fr_neg(&c, &c);
            st = r1cs_lc_add(lc, v, &c, err);
        } else if (r == 2) { /* an explicit zero coefficient */
            fr_set_zero(&c);
            st = r1cs_lc_add(lc, pick_var(rng, cs->num_inputs, cs->num_aux, inputs_only), &c, err);
        }
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

/* Adds aux j to c with a coefficient that keeps its merged coefficient non-zero. */
static cuzk_status add_forced(r1cs_lc *c, uint32_t j, cuzk_error *err)
{
    fr_t sum, one;
    fr_set_zero(&sum);
    for (size_t k = 0; k < c->len; k++)
        if (c->vars[k].kind == R1CS_AUX && c->vars[k].index == j) fr_add(&sum, &sum, &c->coeffs[k]);
    fr_set_one(&one);
    fr_add(&sum, &sum, &one);
    if (fr_is_zero(&sum)) fr_neg(&one, &one);
    r1cs_var v = {R1CS_AUX, j};
    return r1cs_lc_add(c, v, &one, err);
}

cuzk_status random_circuit_build(rng_t *rng, const random_circuit_params *p, r1cs *out, cuzk_error *err)
{
    const size_t limit = 0x7fffffffu;
    if (p->num_inputs >= limit || p->num_aux > limit || p->num_constraints > limit)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "random_circuit_build: sizes out of range");
    size_t max_terms = p->max_terms ? p->max_terms : 4;
    unsigned flags = p->flags;
    cuzk_status st = r1cs_create(out, 1, err);
    if (st != CUZK_OK) return st;
    r1cs_lc lc[3];
    for (int m = 0; m < 3; m++) r1cs_lc_init(&lc[m]);

    /* Aux first and half of the inputs late, so that inputs are allocated after aux variables are used (the
     * builder must then renumber columns at finalize). */
    size_t early_inputs = p->num_inputs / 2;
    r1cs_var v;
    fr_t x;
    for (size_t i = 0; i < p->num_aux && st == CUZK_OK; i++) {
        draw_value(rng, flags, &x);
        st = r1cs_alloc_aux(out, &x, &v, err);
    }
    for (size_t i = 0; i < early_inputs && st == CUZK_OK; i++) {
        draw_value(rng, flags, &x);
        st = r1cs_alloc_input(out, &x, &v, err);
    }
    size_t n = p->num_constraints;
    for (size_t i = 0; i < n && st == CUZK_OK; i++) {
        if (i == n / 2) {
            for (size_t k = early_inputs; k < p->num_inputs && st == CUZK_OK; k++) {
                draw_value(rng, flags, &x);
                st = r1cs_alloc_input(out, &x, &v, err);
            }
            if (st != CUZK_OK) break;
        }
        for (int m = 0; m < 3; m++) r1cs_lc_clear(&lc[m]);
        int empty = (flags & RC_EMPTY_DENSITY) != 0;
        st = random_lc(rng, out, flags, max_terms, empty, &lc[0], err);
        if (st == CUZK_OK && !empty) st = random_lc(rng, out, flags, max_terms, 0, &lc[1], err);
        if (st == CUZK_OK) st = random_lc(rng, out, flags, max_terms, 0, &lc[2], err);
        for (size_t j = i; j < p->num_aux && st == CUZK_OK; j += n) st = add_forced(&lc[2], (uint32_t)j, err);
        if (st != CUZK_OK) break;
        fr_t va, vb, vc, delta;
        lc_eval(out, &lc[0], &va);
        lc_eval(out, &lc[1], &vb);
        lc_eval(out, &lc[2], &vc);
        fr_mul(&delta, &va, &vb);
        fr_sub(&delta, &delta, &vc);
        if (!fr_is_zero(&delta)) st = r1cs_lc_add(&lc[2], r1cs_one(), &delta, err);
        if (st == CUZK_OK) st = r1cs_enforce(out, &lc[0], &lc[1], &lc[2], err);
    }
    /* With no constraints the late inputs were never allocated. */
    for (size_t k = out->num_inputs - 1; k < p->num_inputs && st == CUZK_OK; k++) {
        draw_value(rng, flags, &x);
        st = r1cs_alloc_input(out, &x, &v, err);
    }
    for (int m = 0; m < 3; m++) r1cs_lc_free(&lc[m]);
    if (st == CUZK_OK) st = r1cs_finalize(out, err);
    if (st != CUZK_OK) {
        r1cs_free(out);
        return cuzk_error_prefix(err, "random_circuit_build: ");
    }
    return CUZK_OK;
}

static size_t draw_size(rng_t *rng, size_t lo, size_t hi)
{
    if (hi <= lo) return lo;
    return lo + (size_t)(rng_next(rng) % (hi - lo + 1));
}

void random_circuit_shape(rng_t *rng, unsigned shape_index, size_t max_size, random_circuit_params *p)
{
    if (max_size < 4) max_size = 4;
    memset(p, 0, sizeof *p);
    p->max_terms = draw_size(rng, 1, 6);
    p->num_inputs = draw_size(rng, 0, 4);
    p->num_constraints = draw_size(rng, 1, max_size);
    p->num_aux = draw_size(rng, 1, p->num_constraints + 3);
    switch (shape_index % RC_NUM_SHAPES) {
    case 0: /* one constraint (plus the input constraints) */
        p->num_constraints = 1;
        p->num_aux = draw_size(rng, 1, 3);
        break;
    case 1: /* only public inputs */
        p->num_aux = 0;
        p->num_inputs = draw_size(rng, 1, 6);
        break;
    case 2: p->flags = RC_EMPTY_DENSITY; break;
    case 3: p->flags = RC_REPEATED_VARS; break;
    case 4: p->flags = RC_BOOLEAN_VALUES; break;
    case 5: { /* total rows one off a power of two */
        size_t pow = 4;
        while (pow * 2 <= max_size) pow *= 2;
        size_t total = (rng_next(rng) & 1) ? pow + 1 : pow - 1;
        p->num_inputs = draw_size(rng, 0, 2);
        p->num_constraints = total - p->num_inputs - 1;
        p->num_aux = draw_size(rng, 1, p->num_constraints);
        break;
    }
    case 6: p->flags = RC_BOOLEAN_VALUES | RC_UNIT_COEFFS | RC_REPEATED_VARS; break;
    case 7: /* ONE is the only input */
        p->num_inputs = 0;
        p->flags = RC_REPEATED_VARS;
        break;
    case 8: /* more aux than constraints: several forced aux per row */ p->num_aux = p->num_constraints * 3 + 1; break;
    default: { /* total rows exactly a power of two */
        size_t pow = 4;
        while (pow * 2 <= max_size) pow *= 2;
        p->num_inputs = draw_size(rng, 0, 3);
        p->num_constraints = pow - p->num_inputs - 1;
        p->flags = RC_REPEATED_VARS;
        break;
    }
    }
}
