#include "circuits/gadgets/uint64.h"

#include "circuits/gadgets/multipack.h"

gadget_u64 gadget_u64_const(uint64_t value)
{
    gadget_u64 w;
    w.value = value;
    for (int i = 0; i < 64; i++) w.bits[i] = gadget_bool_const((int)(value >> i & 1));
    return w;
}

cuzk_status gadget_u64_alloc(r1cs *cs, uint64_t value, gadget_u64 *out, cuzk_error *err)
{
    out->value = value;
    for (int i = 0; i < 64; i++) {
        gadget_bit b;
        cuzk_status st = gadget_bit_alloc(cs, (int)(value >> i & 1), &b, err);
        if (st != CUZK_OK) return st;
        out->bits[i] = gadget_bool_from_bit(&b);
    }
    return CUZK_OK;
}

void gadget_u64_to_bits_be(const gadget_u64 *w, gadget_bool out[64])
{
    for (int i = 0; i < 64; i++) out[i] = w->bits[63 - i];
}

cuzk_status gadget_u64_pack_into_input(r1cs *cs, const gadget_u64 *w, cuzk_error *err)
{
    return gadget_pack_into_inputs(cs, w->bits, 64, err);
}
