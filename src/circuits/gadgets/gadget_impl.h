/* Internal helpers shared by the gadget sources (not a public header).
 *
 * Most gadget constraints have linear combinations of at most a few terms; building them in a fixed-size
 * array on the stack avoids one malloc/free per constraint, which matters because SHA-256 alone enforces
 * ~25k constraints per compression. r1cs_enforce only reads an r1cs_lc, so an r1cs_lc that points at
 * stack arrays is valid as long as nobody calls r1cs_lc_add on it. */
#ifndef CUZK_CIRCUITS_GADGETS_GADGET_IMPL_H
#define CUZK_CIRCUITS_GADGETS_GADGET_IMPL_H

#include "circuits/gadgets/boolean.h"

#define GADGET_SLC_CAP 8

typedef struct gadget_slc {
    r1cs_lc lc;
    r1cs_var v[GADGET_SLC_CAP];
    fr_t c[GADGET_SLC_CAP];
} gadget_slc;

static inline void gadget_slc_init(gadget_slc *s)
{
    s->lc.len = 0;
    s->lc.cap = GADGET_SLC_CAP;
    s->lc.vars = s->v;
    s->lc.coeffs = s->c;
}

/* coeff NULL means 1. Callers never exceed GADGET_SLC_CAP terms (each use is a fixed shape). */
static inline void gadget_slc_add(gadget_slc *s, r1cs_var v, const fr_t *coeff)
{
    size_t k = s->lc.len++;
    s->v[k] = v;
    if (coeff)
        s->c[k] = *coeff;
    else
        fr_set_one(&s->c[k]);
}

static inline void gadget_slc_sub(gadget_slc *s, r1cs_var v)
{
    fr_t m;
    fr_set_one(&m);
    fr_neg(&m, &m);
    gadget_slc_add(s, v, &m);
}

/* Appends sign * b.lc(ONE, 1) (bellpepper Boolean::lc): constant true is ONE, false nothing, Not(v) is ONE - v. */
static inline void gadget_slc_bool(gadget_slc *s, const gadget_bool *b, int negate)
{
    fr_t one, m;
    fr_set_one(&one);
    fr_neg(&m, &one);
    const fr_t *pos = negate ? &m : &one, *neg = negate ? &one : &m;
    switch (b->kind) {
    case GADGET_BOOL_CONST:
        if (b->value) gadget_slc_add(s, r1cs_one(), pos);
        break;
    case GADGET_BOOL_IS: gadget_slc_add(s, b->var, pos); break;
    default:
        gadget_slc_add(s, r1cs_one(), pos);
        gadget_slc_add(s, b->var, neg);
        break;
    }
}

static inline void gadget_fr_bit(fr_t *r, int bit)
{
    if (bit)
        fr_set_one(r);
    else
        fr_set_zero(r);
}

#endif
