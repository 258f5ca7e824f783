#include "circuits/gadgets/insertion.h"

#include "circuits/gadgets/gadget_impl.h"

cuzk_status gadget_pick(r1cs *cs, const gadget_bool *cond, const gadget_num *a, const gadget_num *b, gadget_num *out,
                        cuzk_error *err)
{
    /* Copy first: out may alias a or b. */
    gadget_num ga = *a, gb = *b;
    cuzk_status st = gadget_num_alloc(cs, cond->value ? &ga.value : &gb.value, out, err);
    if (st != CUZK_OK) return st;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lc);
    gadget_slc_add(&la, gb.var, NULL);
    gadget_slc_sub(&la, ga.var);
    gadget_slc_bool(&lb, cond, 0);
    gadget_slc_add(&lc, gb.var, NULL);
    gadget_slc_sub(&lc, out->var);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lc.lc, err);
}

cuzk_status gadget_select(r1cs *cs, const gadget_num *from, const gadget_bool *bits, unsigned nbits, gadget_num *out,
                          cuzk_error *err)
{
    if (nbits == 0 || nbits > GADGET_SELECT_MAX_BITS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_select: %u index bits (1..%d)", nbits,
                              GADGET_SELECT_MAX_BITS);
    gadget_num state[1u << GADGET_SELECT_MAX_BITS];
    size_t half = (size_t)1 << (nbits - 1);
    for (size_t j = 0; j < 2 * half; j++) state[j] = from[j];
    for (unsigned i = 0; i < nbits; i++, half /= 2) {
        const gadget_bool *bit = &bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++) {
            gadget_num picked;
            cuzk_status st = gadget_pick(cs, bit, &state[half + j], &state[j], &picked, err);
            if (st != CUZK_OK) return st;
            state[j] = picked;
        }
    }
    *out = state[0];
    return CUZK_OK;
}

static cuzk_status insert_4(r1cs *cs, const gadget_num *x, const gadget_bool *bits, const gadget_num *e,
                            gadget_num *out, cuzk_error *err)
{
    /* Inserting A into [b, c, d]: position p takes its value from the two bits as the table in insertion.rs. */
    const gadget_bool *b0 = &bits[0], *b1 = &bits[1];
    const gadget_num *a = x, *b = &e[0], *c = &e[1], *d = &e[2];
    gadget_num t;
    cuzk_status st;
    if ((st = gadget_pick(cs, b0, b, a, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, b, &t, &out[0], err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b0, a, b, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, c, &t, &out[1], err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b0, d, a, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, &t, c, &out[2], err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b0, a, d, &t, err)) != CUZK_OK) return st;
    return gadget_pick(cs, b1, &t, d, &out[3], err);
}

static cuzk_status insert_8(r1cs *cs, const gadget_num *x, const gadget_bool *bits, const gadget_num *e,
                            gadget_num *out, cuzk_error *err)
{
    for (int i = 0; i < 3; i++)
        if (bits[i].kind != GADGET_BOOL_IS)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_insert: size 8 needs allocated bits (bit %d)", i);
    const gadget_bool *b0 = &bits[0], *b1 = &bits[1], *b2 = &bits[2];
    gadget_bit a0 = {b0->var, b0->value}, a1 = {b1->var, b1->value}, r;
    cuzk_status st;
    if ((st = gadget_bit_nor(cs, &a0, &a1, &r, err)) != CUZK_OK) return st;
    gadget_bool nor01 = gadget_bool_from_bit(&r);
    if ((st = gadget_bit_and(cs, &a0, &a1, &r, err)) != CUZK_OK) return st;
    gadget_bool and01 = gadget_bool_from_bit(&r);
    const gadget_num *a = x, *b = &e[0], *c = &e[1], *d = &e[2], *ee = &e[3], *f = &e[4], *g = &e[5], *h = &e[6];
    gadget_num t, u;
    /* position 0 */
    if ((st = gadget_pick(cs, &nor01, a, b, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, b, &t, &out[0], err)) != CUZK_OK) return st;
    /* position 1 */
    if ((st = gadget_pick(cs, b0, a, b, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, c, &t, &u, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, c, &u, &out[1], err)) != CUZK_OK) return st;
    /* position 2 */
    if ((st = gadget_pick(cs, b0, d, a, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, &t, c, &u, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, d, &u, &out[2], err)) != CUZK_OK) return st;
    /* position 3 */
    if ((st = gadget_pick(cs, &and01, a, d, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, ee, &t, &out[3], err)) != CUZK_OK) return st;
    /* position 4 */
    if ((st = gadget_pick(cs, &nor01, a, f, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, &t, ee, &out[4], err)) != CUZK_OK) return st;
    /* position 5 */
    if ((st = gadget_pick(cs, b0, a, f, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, g, &t, &u, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, &u, f, &out[5], err)) != CUZK_OK) return st;
    /* position 6 */
    if ((st = gadget_pick(cs, b0, h, a, &t, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b1, &t, g, &u, err)) != CUZK_OK) return st;
    if ((st = gadget_pick(cs, b2, &u, g, &out[6], err)) != CUZK_OK) return st;
    /* position 7 */
    if ((st = gadget_pick(cs, &and01, a, h, &t, err)) != CUZK_OK) return st;
    return gadget_pick(cs, b2, &t, h, &out[7], err);
}

cuzk_status gadget_insert(r1cs *cs, const gadget_num *element, const gadget_bool *bits, unsigned nbits,
                          const gadget_num *elements, gadget_num *out, cuzk_error *err)
{
    if (nbits == 0 || nbits > 6)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_insert: %u index bits (1..6)", nbits);
    size_t size = (size_t)1 << nbits;
    cuzk_status st;
    if (size == 2) {
        if ((st = gadget_pick(cs, &bits[0], &elements[0], element, &out[0], err)) != CUZK_OK) return st;
        return gadget_pick(cs, &bits[0], element, &elements[0], &out[1], err);
    }
    if (size == 4) return insert_4(cs, element, bits, elements, out, err);
    if (size == 8) return insert_8(cs, element, bits, elements, out, err);
    gadget_num choices[GADGET_INSERT_MAX];
    for (size_t pos = 0; pos < size; pos++) {
        /* Column pos of the table "result when the index is i": elements before i, the element at i, then the rest. */
        for (size_t i = 0; i < size; i++)
            choices[i] = pos < i ? elements[pos] : pos == i ? *element : elements[pos - 1];
        if ((st = gadget_select(cs, choices, bits, nbits, &out[pos], err)) != CUZK_OK) return st;
    }
    return CUZK_OK;
}
