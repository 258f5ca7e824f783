#include "circuits/gadgets/num.h"

#include <string.h>

#include "circuits/gadgets/gadget_impl.h"

cuzk_status gadget_num_alloc(r1cs *cs, const fr_t *value, gadget_num *out, cuzk_error *err)
{
    out->value = *value;
    return r1cs_alloc_aux(cs, value, &out->var, err);
}

cuzk_status gadget_num_alloc_input(r1cs *cs, const fr_t *value, gadget_num *out, cuzk_error *err)
{
    out->value = *value;
    return r1cs_alloc_input(cs, value, &out->var, err);
}

cuzk_status gadget_num_inputize(r1cs *cs, const gadget_num *num, cuzk_error *err)
{
    r1cs_var x;
    cuzk_status st = r1cs_alloc_input(cs, &num->value, &x, err);
    if (st != CUZK_OK) return st;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc a, b, c;
    gadget_slc_init(&a);
    gadget_slc_init(&b);
    gadget_slc_init(&c);
    gadget_slc_add(&a, x, NULL);
    gadget_slc_add(&b, r1cs_one(), NULL);
    gadget_slc_add(&c, num->var, NULL);
    return r1cs_enforce(cs, &a.lc, &b.lc, &c.lc, err);
}

cuzk_status gadget_num_to_bits_le(r1cs *cs, const gadget_num *num, gadget_bool out[GADGET_FR_NUM_BITS], cuzk_error *err)
{
    uint64_t v[FR_LIMBS];
    fr_from_mont(v, &num->value);
    for (int i = 0; i < GADGET_FR_NUM_BITS; i++) {
        gadget_bit b;
        cuzk_status st = gadget_bit_alloc(cs, (int)(v[i / 64] >> (i % 64) & 1), &b, err);
        if (st != CUZK_OK) return st;
        out[i] = gadget_bool_from_bit(&b);
    }
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    r1cs_lc lc;
    r1cs_lc_init(&lc);
    fr_t coeff, m;
    fr_set_one(&coeff);
    cuzk_status st = CUZK_OK;
    for (int i = 0; i < GADGET_FR_NUM_BITS && st == CUZK_OK; i++) {
        st = r1cs_lc_add(&lc, out[i].var, &coeff, err);
        fr_dbl(&coeff, &coeff);
    }
    fr_set_one(&m);
    fr_neg(&m, &m);
    if (st == CUZK_OK) st = r1cs_lc_add(&lc, num->var, &m, err);
    if (st == CUZK_OK) st = r1cs_enforce(cs, NULL, NULL, &lc, err);
    r1cs_lc_free(&lc);
    return st;
}

/* new r with value; (a terms) * (b terms) = r, the shape of add/mul/square. */
static cuzk_status binary_gate(r1cs *cs, const fr_t *value, const gadget_slc *a, const gadget_slc *b, gadget_num *out,
                               cuzk_error *err)
{
    cuzk_status st = gadget_num_alloc(cs, value, out, err);
    if (st != CUZK_OK) return st;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc c;
    gadget_slc_init(&c);
    gadget_slc_add(&c, out->var, NULL);
    return r1cs_enforce(cs, &a->lc, &b->lc, &c.lc, err);
}

cuzk_status gadget_num_add(r1cs *cs, const gadget_num *a, const gadget_num *b, gadget_num *out, cuzk_error *err)
{
    fr_t v;
    fr_add(&v, &a->value, &b->value);
    gadget_slc la, lb;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_add(&la, a->var, NULL);
    gadget_slc_add(&la, b->var, NULL);
    gadget_slc_add(&lb, r1cs_one(), NULL);
    return binary_gate(cs, &v, &la, &lb, out, err);
}

cuzk_status gadget_num_mul(r1cs *cs, const gadget_num *a, const gadget_num *b, gadget_num *out, cuzk_error *err)
{
    fr_t v;
    fr_mul(&v, &a->value, &b->value);
    gadget_slc la, lb;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_add(&la, a->var, NULL);
    gadget_slc_add(&lb, b->var, NULL);
    return binary_gate(cs, &v, &la, &lb, out, err);
}

cuzk_status gadget_num_square(r1cs *cs, const gadget_num *a, gadget_num *out, cuzk_error *err)
{
    return gadget_num_mul(cs, a, a, out, err);
}

cuzk_status gadget_num_assert_nonzero(r1cs *cs, const gadget_num *a, cuzk_error *err)
{
    if (cs->has_witness && fr_is_zero(&a->value))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_num_assert_nonzero: the value is zero");
    fr_t inv;
    fr_inv(&inv, &a->value);
    r1cs_var iv;
    cuzk_status st = r1cs_alloc_aux(cs, &inv, &iv, err);
    if (st != CUZK_OK) return st;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lc);
    gadget_slc_add(&la, a->var, NULL);
    gadget_slc_add(&lb, iv, NULL);
    gadget_slc_add(&lc, r1cs_one(), NULL);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lc.lc, err);
}

/* new r = cond ? y : x; (x - y) * cond = x - r. */
static cuzk_status reversal(r1cs *cs, const gadget_num *x, const gadget_num *y, const gadget_bool *cond,
                            gadget_num *out, cuzk_error *err)
{
    cuzk_status st = gadget_num_alloc(cs, cond->value ? &y->value : &x->value, out, err);
    if (st != CUZK_OK) return st;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lc);
    gadget_slc_add(&la, x->var, NULL);
    gadget_slc_sub(&la, y->var);
    gadget_slc_bool(&lb, cond, 0);
    gadget_slc_add(&lc, x->var, NULL);
    gadget_slc_sub(&lc, out->var);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lc.lc, err);
}

cuzk_status gadget_num_conditionally_reverse(r1cs *cs, const gadget_num *a, const gadget_num *b,
                                             const gadget_bool *cond, gadget_num *out_c, gadget_num *out_d,
                                             cuzk_error *err)
{
    gadget_num c, d; /* locals: the outputs may alias the inputs */
    cuzk_status st = reversal(cs, a, b, cond, &c, err);
    if (st != CUZK_OK) return st;
    st = reversal(cs, b, a, cond, &d, err);
    if (st != CUZK_OK) return st;
    *out_c = c;
    *out_d = d;
    return CUZK_OK;
}

/* ---- Num ---- */

void gadget_lcnum_init(gadget_lcnum *n, const r1cs *cs)
{
    r1cs_lc_init(&n->lc);
    fr_set_zero(&n->value);
    n->keep_lc = !cs->witness_only;
}

void gadget_lcnum_free(gadget_lcnum *n)
{
    r1cs_lc_free(&n->lc);
}

cuzk_status gadget_lcnum_add_bool(gadget_lcnum *n, const gadget_bool *bit, const fr_t *coeff, cuzk_error *err)
{
    fr_t c;
    if (coeff)
        c = *coeff;
    else
        fr_set_one(&c);
    if (bit->value) fr_add(&n->value, &n->value, &c);
    return n->keep_lc ? gadget_bool_lc_add(&n->lc, bit, &c, err) : CUZK_OK;
}

cuzk_status gadget_lcnum_add_var(gadget_lcnum *n, r1cs_var var, const fr_t *value, const fr_t *coeff, cuzk_error *err)
{
    fr_t t;
    if (coeff) {
        fr_mul(&t, value, coeff);
        fr_add(&n->value, &n->value, &t);
    } else {
        fr_add(&n->value, &n->value, value);
    }
    return n->keep_lc ? r1cs_lc_add(&n->lc, var, coeff, err) : CUZK_OK;
}

cuzk_status gadget_lcnum_add_scaled(gadget_lcnum *n, const gadget_lcnum *other, const fr_t *scale, cuzk_error *err)
{
    fr_t t;
    if (scale) {
        fr_mul(&t, &other->value, scale);
        fr_add(&n->value, &n->value, &t);
    } else {
        fr_add(&n->value, &n->value, &other->value);
    }
    if (!n->keep_lc) return CUZK_OK;
    for (size_t k = 0; k < other->lc.len; k++) {
        if (scale) fr_mul(&t, &other->lc.coeffs[k], scale);
        cuzk_status st = r1cs_lc_add(&n->lc, other->lc.vars[k], scale ? &t : &other->lc.coeffs[k], err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

void gadget_lcnum_scale(gadget_lcnum *n, const fr_t *scale)
{
    fr_mul(&n->value, &n->value, scale);
    for (size_t k = 0; k < n->lc.len; k++) fr_mul(&n->lc.coeffs[k], &n->lc.coeffs[k], scale);
}

cuzk_status gadget_lcnum_copy(gadget_lcnum *dst, const gadget_lcnum *src, cuzk_error *err)
{
    r1cs_lc_clear(&dst->lc);
    fr_set_zero(&dst->value);
    dst->keep_lc = src->keep_lc;
    return gadget_lcnum_add_scaled(dst, src, NULL, err);
}
