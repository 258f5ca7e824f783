#include "circuits/gadgets/multipack.h"

#include "circuits/gadgets/gadget_impl.h"

/* Builds the packed Num of bits[0..n) and allocates x (input or aux) with (Num) * ONE = x. */
static cuzk_status pack_one(r1cs *cs, const gadget_bool *bits, size_t n, int as_input, gadget_num *out, cuzk_error *err)
{
    gadget_lcnum num;
    gadget_lcnum_init(&num, cs);
    fr_t coeff;
    fr_set_one(&coeff);
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; i < n && st == CUZK_OK; i++) {
        st = gadget_lcnum_add_bool(&num, &bits[i], &coeff, err);
        fr_dbl(&coeff, &coeff);
    }
    if (st == CUZK_OK)
        st = as_input ? gadget_num_alloc_input(cs, &num.value, out, err) : gadget_num_alloc(cs, &num.value, out, err);
    if (st == CUZK_OK) {
        if (cs->witness_only) {
            st = r1cs_enforce(cs, NULL, NULL, NULL, err);
        } else {
            gadget_slc b, c;
            gadget_slc_init(&b);
            gadget_slc_init(&c);
            gadget_slc_add(&b, r1cs_one(), NULL);
            gadget_slc_add(&c, out->var, NULL);
            st = r1cs_enforce(cs, &num.lc, &b.lc, &c.lc, err);
        }
    }
    gadget_lcnum_free(&num);
    return st;
}

cuzk_status gadget_pack_into_inputs(r1cs *cs, const gadget_bool *bits, size_t n, cuzk_error *err)
{
    for (size_t off = 0; off < n; off += GADGET_FR_CAPACITY) {
        size_t len = n - off < GADGET_FR_CAPACITY ? n - off : GADGET_FR_CAPACITY;
        gadget_num x;
        cuzk_status st = pack_one(cs, bits + off, len, 1, &x, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "gadget_pack_into_inputs: chunk %zu: ", off / 254);
    }
    return CUZK_OK;
}

cuzk_status gadget_pack_bits(r1cs *cs, const gadget_bool *bits, size_t n, gadget_num *out, cuzk_error *err)
{
    return pack_one(cs, bits, n < GADGET_FR_CAPACITY ? n : GADGET_FR_CAPACITY, 0, out, err);
}

void gadget_compute_multipacking(const uint8_t *bits, size_t n, fr_t *out)
{
    for (size_t off = 0, k = 0; off < n; off += GADGET_FR_CAPACITY, k++) {
        fr_t cur, coeff;
        fr_set_zero(&cur);
        fr_set_one(&coeff);
        for (size_t i = off; i < n && i < off + GADGET_FR_CAPACITY; i++) {
            if (bits[i]) fr_add(&cur, &cur, &coeff);
            fr_dbl(&coeff, &coeff);
        }
        out[k] = cur;
    }
}
