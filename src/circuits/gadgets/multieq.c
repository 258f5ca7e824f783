#include "circuits/gadgets/multieq.h"

#include "circuits/gadgets/gadget_impl.h"

void gadget_multieq_init(gadget_multieq *me, r1cs *cs)
{
    me->cs = cs;
    me->ops = 0;
    me->bits_used = 0;
    r1cs_lc_init(&me->lhs);
    r1cs_lc_init(&me->rhs);
    fr_set_one(&me->pow2[0]);
    for (size_t k = 1; k < sizeof me->pow2 / sizeof me->pow2[0]; k++) fr_dbl(&me->pow2[k], &me->pow2[k - 1]);
}

static cuzk_status accumulate(gadget_multieq *me, cuzk_error *err)
{
    cuzk_status st;
    if (me->cs->witness_only) {
        st = r1cs_enforce(me->cs, NULL, NULL, NULL, err);
    } else {
        gadget_slc b;
        gadget_slc_init(&b);
        gadget_slc_add(&b, r1cs_one(), NULL);
        st = r1cs_enforce(me->cs, &me->lhs, &b.lc, &me->rhs, err);
    }
    if (st != CUZK_OK) return cuzk_error_prefix(err, "multieq %zu: ", me->ops);
    r1cs_lc_clear(&me->lhs);
    r1cs_lc_clear(&me->rhs);
    me->bits_used = 0;
    me->ops++;
    return CUZK_OK;
}

static cuzk_status add_shifted(gadget_multieq *me, r1cs_lc *dst, const gadget_pow2_term *src, size_t n, cuzk_error *err)
{
    for (size_t k = 0; k < n; k++) {
        const fr_t *c = &me->pow2[me->bits_used + src[k].exp];
        fr_t m;
        if (src[k].neg) fr_neg(&m, c);
        cuzk_status st = r1cs_lc_add(dst, src[k].var, src[k].neg ? &m : c, err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

cuzk_status gadget_multieq_enforce_equal(gadget_multieq *me, size_t num_bits, const gadget_pow2_term *lhs, size_t nl,
                                         const gadget_pow2_term *rhs, size_t nr, cuzk_error *err)
{
    if (num_bits >= GADGET_FR_CAPACITY)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_multieq_enforce_equal: %zu bits", num_bits);
    cuzk_status st;
    if (me->bits_used + num_bits >= GADGET_FR_CAPACITY) {
        st = accumulate(me, err);
        if (st != CUZK_OK) return st;
    }
    if (!me->cs->witness_only) {
        st = add_shifted(me, &me->lhs, lhs, nl, err);
        if (st == CUZK_OK) st = add_shifted(me, &me->rhs, rhs, nr, err);
        if (st != CUZK_OK) return st;
    }
    me->bits_used += num_bits;
    return CUZK_OK;
}

cuzk_status gadget_multieq_finish(gadget_multieq *me, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    if (me->bits_used > 0 && me->cs) st = accumulate(me, err);
    r1cs_lc_free(&me->lhs);
    r1cs_lc_free(&me->rhs);
    me->cs = NULL;
    return st;
}
