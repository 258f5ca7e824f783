#include "circuits/gadgets/boolean.h"

#include "circuits/gadgets/gadget_impl.h"

static cuzk_status alloc_bit_var(r1cs *cs, int value, r1cs_var *out, cuzk_error *err)
{
    fr_t v;
    gadget_fr_bit(&v, value);
    return r1cs_alloc_aux(cs, &v, out, err);
}

cuzk_status gadget_bit_alloc(r1cs *cs, int value, gadget_bit *out, cuzk_error *err)
{
    r1cs_var b;
    cuzk_status st = alloc_bit_var(cs, value, &b, err);
    if (st != CUZK_OK) return st;
    out->var = b;
    out->value = value ? 1 : 0;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc a, bb;
    gadget_slc_init(&a);
    gadget_slc_init(&bb);
    gadget_slc_add(&a, r1cs_one(), NULL);
    gadget_slc_sub(&a, b);
    gadget_slc_add(&bb, b, NULL);
    return r1cs_enforce(cs, &a.lc, &bb.lc, NULL, err);
}

cuzk_status gadget_bit_alloc_conditionally(r1cs *cs, int value, const gadget_bit *must_be_false, gadget_bit *out,
                                           cuzk_error *err)
{
    r1cs_var b;
    cuzk_status st = alloc_bit_var(cs, value, &b, err);
    if (st != CUZK_OK) return st;
    out->var = b;
    out->value = value ? 1 : 0;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc a, bb;
    gadget_slc_init(&a);
    gadget_slc_init(&bb);
    gadget_slc_add(&a, r1cs_one(), NULL);
    gadget_slc_sub(&a, must_be_false->var);
    gadget_slc_sub(&a, b);
    gadget_slc_add(&bb, b, NULL);
    return r1cs_enforce(cs, &a.lc, &bb.lc, NULL, err);
}

cuzk_status gadget_bit_xor(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err)
{
    int v = a->value ^ b->value;
    r1cs_var r;
    cuzk_status st = alloc_bit_var(cs, v, &r, err);
    if (st != CUZK_OK) return st;
    gadget_bit res = {r, (uint8_t)v};
    if (cs->witness_only) {
        *out = res;
        return r1cs_enforce(cs, NULL, NULL, NULL, err);
    }
    gadget_slc la, lb, lcc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lcc);
    gadget_slc_add(&la, a->var, NULL);
    gadget_slc_add(&la, a->var, NULL);
    gadget_slc_add(&lb, b->var, NULL);
    gadget_slc_add(&lcc, a->var, NULL);
    gadget_slc_add(&lcc, b->var, NULL);
    gadget_slc_sub(&lcc, r);
    *out = res;
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lcc.lc, err);
}

/* The three product gates: (a or ONE - a) * (b or ONE - b) = r. */
static cuzk_status product_gate(r1cs *cs, const gadget_bit *a, int neg_a, const gadget_bit *b, int neg_b,
                                gadget_bit *out, cuzk_error *err)
{
    int va = neg_a ? !a->value : a->value, vb = neg_b ? !b->value : b->value;
    int v = va & vb;
    r1cs_var r;
    cuzk_status st = alloc_bit_var(cs, v, &r, err);
    if (st != CUZK_OK) return st;
    out->var = r;
    out->value = (uint8_t)v;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lcc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lcc);
    if (neg_a) {
        gadget_slc_add(&la, r1cs_one(), NULL);
        gadget_slc_sub(&la, a->var);
    } else {
        gadget_slc_add(&la, a->var, NULL);
    }
    if (neg_b) {
        gadget_slc_add(&lb, r1cs_one(), NULL);
        gadget_slc_sub(&lb, b->var);
    } else {
        gadget_slc_add(&lb, b->var, NULL);
    }
    gadget_slc_add(&lcc, r, NULL);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lcc.lc, err);
}

cuzk_status gadget_bit_and(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err)
{
    return product_gate(cs, a, 0, b, 0, out, err);
}

cuzk_status gadget_bit_and_not(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err)
{
    return product_gate(cs, a, 0, b, 1, out, err);
}

cuzk_status gadget_bit_nor(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err)
{
    return product_gate(cs, a, 1, b, 1, out, err);
}

gadget_bool gadget_bool_const(int value)
{
    gadget_bool b = {r1cs_one(), GADGET_BOOL_CONST, (uint8_t)(value ? 1 : 0)};
    return b;
}

gadget_bool gadget_bool_from_bit(const gadget_bit *bit)
{
    gadget_bool b = {bit->var, GADGET_BOOL_IS, bit->value};
    return b;
}

gadget_bool gadget_bool_not(const gadget_bool *b)
{
    gadget_bool r = *b;
    r.value = !b->value;
    if (b->kind == GADGET_BOOL_IS)
        r.kind = GADGET_BOOL_NOT;
    else if (b->kind == GADGET_BOOL_NOT)
        r.kind = GADGET_BOOL_IS;
    return r;
}

/* The AllocatedBit under an Is/Not Boolean. */
static gadget_bit underlying(const gadget_bool *b)
{
    gadget_bit r = {b->var, (uint8_t)(b->kind == GADGET_BOOL_NOT ? !b->value : b->value)};
    return r;
}

cuzk_status gadget_bool_xor(r1cs *cs, const gadget_bool *a, const gadget_bool *b, gadget_bool *out, cuzk_error *err)
{
    /* Match arms in bellpepper's order. */
    if (a->kind == GADGET_BOOL_CONST && !a->value) {
        *out = *b;
        return CUZK_OK;
    }
    if (b->kind == GADGET_BOOL_CONST && !b->value) {
        *out = *a;
        return CUZK_OK;
    }
    if (a->kind == GADGET_BOOL_CONST) {
        *out = gadget_bool_not(b);
        return CUZK_OK;
    }
    if (b->kind == GADGET_BOOL_CONST) {
        *out = gadget_bool_not(a);
        return CUZK_OK;
    }
    gadget_bit x = underlying(a), y = underlying(b), r;
    /* (Is, Not) and (Not, Is): xor(is, not.not()).not(), the Is operand first. */
    int mixed = a->kind != b->kind;
    const gadget_bit *first = &x, *second = &y;
    if (mixed && a->kind == GADGET_BOOL_NOT) {
        first = &y;
        second = &x;
    }
    cuzk_status st = gadget_bit_xor(cs, first, second, &r, err);
    if (st != CUZK_OK) return st;
    *out = gadget_bool_from_bit(&r);
    if (mixed) *out = gadget_bool_not(out);
    return CUZK_OK;
}

cuzk_status gadget_bool_and(r1cs *cs, const gadget_bool *a, const gadget_bool *b, gadget_bool *out, cuzk_error *err)
{
    if ((a->kind == GADGET_BOOL_CONST && !a->value) || (b->kind == GADGET_BOOL_CONST && !b->value)) {
        *out = gadget_bool_const(0);
        return CUZK_OK;
    }
    if (a->kind == GADGET_BOOL_CONST) {
        *out = *b;
        return CUZK_OK;
    }
    if (b->kind == GADGET_BOOL_CONST) {
        *out = *a;
        return CUZK_OK;
    }
    gadget_bit x = underlying(a), y = underlying(b), r;
    cuzk_status st;
    if (a->kind == GADGET_BOOL_IS && b->kind == GADGET_BOOL_NOT)
        st = gadget_bit_and_not(cs, &x, &y, &r, err);
    else if (a->kind == GADGET_BOOL_NOT && b->kind == GADGET_BOOL_IS)
        st = gadget_bit_and_not(cs, &y, &x, &r, err);
    else if (a->kind == GADGET_BOOL_NOT)
        st = gadget_bit_nor(cs, &x, &y, &r, err);
    else
        st = gadget_bit_and(cs, &x, &y, &r, err);
    if (st != CUZK_OK) return st;
    *out = gadget_bool_from_bit(&r);
    return CUZK_OK;
}

cuzk_status gadget_bool_or(r1cs *cs, const gadget_bool *a, const gadget_bool *b, gadget_bool *out, cuzk_error *err)
{
    gadget_bool na = gadget_bool_not(a), nb = gadget_bool_not(b), t;
    cuzk_status st = gadget_bool_and(cs, &na, &nb, &t, err);
    if (st != CUZK_OK) return st;
    *out = gadget_bool_not(&t);
    return CUZK_OK;
}

cuzk_status gadget_bool_enforce_equal(r1cs *cs, const gadget_bool *a, const gadget_bool *b, cuzk_error *err)
{
    if (a->kind == GADGET_BOOL_CONST && b->kind == GADGET_BOOL_CONST) {
        if (a->value == b->value) return CUZK_OK;
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_bool_enforce_equal: constants %d and %d differ",
                              a->value, b->value);
    }
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc c;
    gadget_slc_init(&c);
    if ((a->kind == GADGET_BOOL_CONST && a->value) || (b->kind == GADGET_BOOL_CONST && b->value)) {
        const gadget_bool *x = (a->kind == GADGET_BOOL_CONST) ? b : a;
        gadget_slc_add(&c, r1cs_one(), NULL);
        gadget_slc_bool(&c, x, 1);
    } else if (a->kind == GADGET_BOOL_CONST || b->kind == GADGET_BOOL_CONST) {
        const gadget_bool *x = (a->kind == GADGET_BOOL_CONST) ? b : a;
        gadget_slc_bool(&c, x, 0);
    } else {
        gadget_slc_bool(&c, a, 0);
        gadget_slc_bool(&c, b, 1);
    }
    return r1cs_enforce(cs, NULL, NULL, &c.lc, err);
}

static int is_const(const gadget_bool *x, int v)
{
    return x->kind == GADGET_BOOL_CONST && x->value == (v ? 1 : 0);
}

cuzk_status gadget_bool_sha256_ch(r1cs *cs, const gadget_bool *a, const gadget_bool *b, const gadget_bool *c,
                                  gadget_bool *out, cuzk_error *err)
{
    int v = (a->value & b->value) ^ ((!a->value) & c->value);
    gadget_bool t, u;
    cuzk_status st;
    if (a->kind == GADGET_BOOL_CONST && b->kind == GADGET_BOOL_CONST && c->kind == GADGET_BOOL_CONST) {
        *out = gadget_bool_const(v);
        return CUZK_OK;
    }
    if (is_const(a, 0)) {
        *out = *c;
        return CUZK_OK;
    }
    if (is_const(b, 0)) {
        t = gadget_bool_not(a);
        return gadget_bool_and(cs, &t, c, out, err);
    }
    if (is_const(c, 0)) return gadget_bool_and(cs, a, b, out, err);
    if (is_const(c, 1)) {
        t = gadget_bool_not(b);
        st = gadget_bool_and(cs, a, &t, &u, err);
        if (st == CUZK_OK) *out = gadget_bool_not(&u);
        return st;
    }
    if (is_const(b, 1)) {
        gadget_bool na = gadget_bool_not(a), nc = gadget_bool_not(c);
        st = gadget_bool_and(cs, &na, &nc, &u, err);
        if (st == CUZK_OK) *out = gadget_bool_not(&u);
        return st;
    }
    /* a constant true falls through to the general case, as in bellpepper. */
    fr_t fv;
    gadget_fr_bit(&fv, v);
    r1cs_var ch;
    st = r1cs_alloc_aux(cs, &fv, &ch, err);
    if (st != CUZK_OK) return st;
    out->var = ch;
    out->kind = GADGET_BOOL_IS;
    out->value = (uint8_t)v;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lcc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lcc);
    gadget_slc_bool(&la, b, 0);
    gadget_slc_bool(&la, c, 1);
    gadget_slc_bool(&lb, a, 0);
    gadget_slc_add(&lcc, ch, NULL);
    gadget_slc_bool(&lcc, c, 1);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lcc.lc, err);
}

cuzk_status gadget_bool_sha256_maj(r1cs *cs, const gadget_bool *a, const gadget_bool *b, const gadget_bool *c,
                                   gadget_bool *out, cuzk_error *err)
{
    int v = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    gadget_bool x, y, u;
    cuzk_status st;
    if (a->kind == GADGET_BOOL_CONST && b->kind == GADGET_BOOL_CONST && c->kind == GADGET_BOOL_CONST) {
        *out = gadget_bool_const(v);
        return CUZK_OK;
    }
    if (is_const(a, 0)) return gadget_bool_and(cs, b, c, out, err);
    if (is_const(b, 0)) return gadget_bool_and(cs, a, c, out, err);
    if (is_const(c, 0)) return gadget_bool_and(cs, a, b, out, err);
    const gadget_bool *p = NULL, *q = NULL;
    if (is_const(c, 1)) {
        p = a;
        q = b;
    } else if (is_const(b, 1)) {
        p = a;
        q = c;
    } else if (is_const(a, 1)) {
        p = b;
        q = c;
    }
    if (p) {
        x = gadget_bool_not(p);
        y = gadget_bool_not(q);
        st = gadget_bool_and(cs, &x, &y, &u, err);
        if (st == CUZK_OK) *out = gadget_bool_not(&u);
        return st;
    }
    fr_t fv;
    gadget_fr_bit(&fv, v);
    r1cs_var maj;
    st = r1cs_alloc_aux(cs, &fv, &maj, err);
    if (st != CUZK_OK) return st;
    gadget_bool bc;
    st = gadget_bool_and(cs, b, c, &bc, err);
    if (st != CUZK_OK) return st;
    out->var = maj;
    out->kind = GADGET_BOOL_IS;
    out->value = (uint8_t)v;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lcc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lcc);
    gadget_slc_bool(&la, &bc, 0);
    gadget_slc_bool(&la, &bc, 0);
    gadget_slc_bool(&la, b, 1);
    gadget_slc_bool(&la, c, 1);
    gadget_slc_bool(&lb, a, 0);
    gadget_slc_bool(&lcc, &bc, 0);
    gadget_slc_sub(&lcc, maj);
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lcc.lc, err);
}

cuzk_status gadget_bool_lc_add(r1cs_lc *lc, const gadget_bool *b, const fr_t *coeff, cuzk_error *err)
{
    fr_t c, m;
    if (coeff)
        c = *coeff;
    else
        fr_set_one(&c);
    switch (b->kind) {
    case GADGET_BOOL_CONST: return b->value ? r1cs_lc_add(lc, r1cs_one(), &c, err) : CUZK_OK;
    case GADGET_BOOL_IS: return r1cs_lc_add(lc, b->var, &c, err);
    default: {
        cuzk_status st = r1cs_lc_add(lc, r1cs_one(), &c, err);
        if (st != CUZK_OK) return st;
        fr_neg(&m, &c);
        return r1cs_lc_add(lc, b->var, &m, err);
    }
    }
}

cuzk_status gadget_u64_into_bits_le(r1cs *cs, uint64_t value, gadget_bool out[64], cuzk_error *err)
{
    for (int i = 0; i < 64; i++) {
        gadget_bit b;
        cuzk_status st = gadget_bit_alloc(cs, (int)(value >> i & 1), &b, err);
        if (st != CUZK_OK) return st;
        out[i] = gadget_bool_from_bit(&b);
    }
    return CUZK_OK;
}
