#include "circuits/gadgets/uint32.h"

#include "circuits/gadgets/gadget_impl.h"

gadget_u32 gadget_u32_const(uint32_t value)
{
    gadget_u32 w;
    for (int i = 0; i < 32; i++) w.bits[i] = gadget_bool_const((int)(value >> i & 1));
    w.value = value;
    return w;
}

cuzk_status gadget_u32_alloc(r1cs *cs, uint32_t value, gadget_u32 *out, cuzk_error *err)
{
    for (int i = 0; i < 32; i++) {
        gadget_bit b;
        cuzk_status st = gadget_bit_alloc(cs, (int)(value >> i & 1), &b, err);
        if (st != CUZK_OK) return st;
        out->bits[i] = gadget_bool_from_bit(&b);
    }
    out->value = value;
    return CUZK_OK;
}

gadget_u32 gadget_u32_from_bits_be(const gadget_bool bits[32])
{
    gadget_u32 w;
    w.value = 0;
    for (int i = 0; i < 32; i++) {
        w.bits[31 - i] = bits[i];
        w.value = w.value << 1 | bits[i].value;
    }
    return w;
}

void gadget_u32_into_bits_be(const gadget_u32 *w, gadget_bool out[32])
{
    gadget_bool tmp[32];
    for (int i = 0; i < 32; i++) tmp[i] = w->bits[31 - i];
    for (int i = 0; i < 32; i++) out[i] = tmp[i];
}

gadget_u32 gadget_u32_from_bits(const gadget_bool bits[32])
{
    gadget_u32 w;
    w.value = 0;
    for (int i = 0; i < 32; i++) {
        w.bits[i] = bits[i];
        w.value |= (uint32_t)bits[i].value << i;
    }
    return w;
}

gadget_u32 gadget_u32_rotr(const gadget_u32 *w, unsigned by)
{
    by %= 32;
    gadget_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = w->bits[(i + by) % 32];
    r.value = by ? (w->value >> by | w->value << (32 - by)) : w->value;
    return r;
}

gadget_u32 gadget_u32_shr(const gadget_u32 *w, unsigned by)
{
    by %= 32;
    gadget_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = i + by < 32 ? w->bits[i + by] : gadget_bool_const(0);
    r.value = w->value >> by;
    return r;
}

cuzk_status gadget_u32_xor(r1cs *cs, const gadget_u32 *a, const gadget_u32 *b, gadget_u32 *out, cuzk_error *err)
{
    gadget_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_status st = gadget_bool_xor(cs, &a->bits[i], &b->bits[i], &r.bits[i], err);
        if (st != CUZK_OK) return st;
    }
    r.value = a->value ^ b->value;
    *out = r;
    return CUZK_OK;
}

cuzk_status gadget_u32_sha256_ch(r1cs *cs, const gadget_u32 *a, const gadget_u32 *b, const gadget_u32 *c,
                                 gadget_u32 *out, cuzk_error *err)
{
    gadget_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_status st = gadget_bool_sha256_ch(cs, &a->bits[i], &b->bits[i], &c->bits[i], &r.bits[i], err);
        if (st != CUZK_OK) return st;
    }
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    *out = r;
    return CUZK_OK;
}

cuzk_status gadget_u32_sha256_maj(r1cs *cs, const gadget_u32 *a, const gadget_u32 *b, const gadget_u32 *c,
                                  gadget_u32 *out, cuzk_error *err)
{
    gadget_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_status st = gadget_bool_sha256_maj(cs, &a->bits[i], &b->bits[i], &c->bits[i], &r.bits[i], err);
        if (st != CUZK_OK) return st;
    }
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    *out = r;
    return CUZK_OK;
}

cuzk_status gadget_u32_addmany(gadget_multieq *me, const gadget_u32 *ops, size_t n, gadget_u32 *out, cuzk_error *err)
{
    if (n < 2 || n > 10) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_u32_addmany: %zu operands", n);
    r1cs *cs = me->cs;
    uint64_t max_value = (uint64_t)n * 0xffffffffULL, sum = 0;
    int all_constants = 1;
    for (size_t k = 0; k < n; k++) {
        sum += ops[k].value;
        for (int i = 0; i < 32; i++) all_constants &= ops[k].bits[i].kind == GADGET_BOOL_CONST;
    }
    if (all_constants) {
        *out = gadget_u32_const((uint32_t)sum);
        return CUZK_OK;
    }
    /* operand bits weighted 2^i (Boolean::lc: a constant true is ONE, Not(v) is ONE - v), result bits 2^i */
    gadget_pow2_term lhs[10 * 32 * 2], rhs[64];
    size_t nl = 0, nr = 0;
    int keep = !cs->witness_only;
    for (size_t k = 0; k < n && keep; k++)
        for (int i = 0; i < 32; i++) {
            const gadget_bool *b = &ops[k].bits[i];
            if (b->kind == GADGET_BOOL_CONST && !b->value) continue;
            if (b->kind != GADGET_BOOL_IS) lhs[nl++] = (gadget_pow2_term){r1cs_one(), (uint16_t)i, 0};
            if (b->kind != GADGET_BOOL_CONST)
                lhs[nl++] = (gadget_pow2_term){b->var, (uint16_t)i, (uint16_t)(b->kind == GADGET_BOOL_NOT)};
        }
    gadget_u32 r;
    size_t nbits = 0;
    while (max_value != 0) {
        gadget_bit b;
        cuzk_status st = gadget_bit_alloc(cs, (int)(sum >> nbits & 1), &b, err);
        if (st != CUZK_OK) return st;
        if (keep) rhs[nr++] = (gadget_pow2_term){b.var, (uint16_t)nbits, 0};
        if (nbits < 32) r.bits[nbits] = gadget_bool_from_bit(&b);
        max_value >>= 1;
        nbits++;
    }
    cuzk_status st = gadget_multieq_enforce_equal(me, nbits, lhs, nl, rhs, nr, err);
    if (st != CUZK_OK) return st;
    r.value = (uint32_t)sum;
    *out = r;
    return CUZK_OK;
}
