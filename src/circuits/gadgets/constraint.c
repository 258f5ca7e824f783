#include "circuits/gadgets/constraint.h"

#include "circuits/gadgets/gadget_impl.h"

cuzk_status gadget_enforce_equal(r1cs *cs, const gadget_num *a, const gadget_num *b, cuzk_error *err)
{
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lc);
    gadget_slc_add(&la, a->var, NULL);
    gadget_slc_add(&lb, r1cs_one(), NULL);
    gadget_slc_add(&lc, b->var, NULL);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lc.lc, err);
}

cuzk_status gadget_encode(r1cs *cs, const gadget_num *key, const gadget_num *value, gadget_num *out, cuzk_error *err)
{
    /* constraint::add allocates the sum and enforces (a + b) * ONE = sum: exactly AllocatedNum::add's shape. */
    return gadget_num_add(cs, key, value, out, err);
}

size_t gadget_reverse_bit_numbering(const gadget_bool *in, size_t n, gadget_bool *out)
{
    size_t padded = (n + 7) / 8 * 8;
    for (size_t i = 0; i < padded; i++) {
        size_t src = i / 8 * 8 + (7 - i % 8);
        out[i] = src < n ? in[src] : gadget_bool_const(0);
    }
    return padded;
}
