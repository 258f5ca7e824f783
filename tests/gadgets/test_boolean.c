/* Boolean, num, multipack and uint32 gadgets: truth tables over every Boolean kind, satisfaction (and its loss
 * when a witness value changes), constraint counts, and the exact rows bellpepper-core writes for the basic
 * gates (so that a change to a linear combination cannot go unnoticed). */
#include <string.h>

#include "circuits/gadgets/multipack.h"
#include "circuits/gadgets/uint32.h"
#include "testutil.h"

static cuzk_error err;

typedef struct term {
    uint32_t col; /* final layout: input j is column j, aux k is column num_inputs + k */
    int64_t coeff;
} term;

/* Row r of matrix m (0 A, 1 B, 2 C) of a finalized system has exactly these terms, in column order. */
static int row_is(const r1cs *cs, int m, size_t r, const term *want, size_t n)
{
    const r1cs_matrix *mx = m == 0 ? &cs->A : m == 1 ? &cs->B : &cs->C;
    if (mx->row_start[r + 1] - mx->row_start[r] != n) return 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t e = mx->row_start[r] + k;
        fr_t c;
        fr_from_u64(&c, (uint64_t)(want[k].coeff < 0 ? -want[k].coeff : want[k].coeff));
        if (want[k].coeff < 0) fr_neg(&c, &c);
        if (mx->col[e] != want[k].col || !fr_eq(&cs->coeffs[mx->coeff[e]], &c)) return 0;
    }
    return 1;
}

static int satisfied(r1cs *cs)
{
    size_t bad;
    return r1cs_finalize(cs, &err) == CUZK_OK && r1cs_is_satisfied(NULL, cs, cs->inputs, cs->aux, &bad);
}

/* AllocatedBit gates: values, one constraint each, and the rows (a = aux 0, b = aux 1, r = aux 2; ONE = col 0). */
static void test_bit_gates(void)
{
    for (int av = 0; av < 2; av++)
        for (int bv = 0; bv < 2; bv++)
            for (int g = 0; g < 4; g++) {
                r1cs cs;
                CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
                gadget_bit a, b, r;
                CHECK(gadget_bit_alloc(&cs, av, &a, &err) == CUZK_OK);
                CHECK(gadget_bit_alloc(&cs, bv, &b, &err) == CUZK_OK);
                cuzk_status st = g == 0   ? gadget_bit_xor(&cs, &a, &b, &r, &err)
                                 : g == 1 ? gadget_bit_and(&cs, &a, &b, &r, &err)
                                 : g == 2 ? gadget_bit_and_not(&cs, &a, &b, &r, &err)
                                          : gadget_bit_nor(&cs, &a, &b, &r, &err);
                CHECK(st == CUZK_OK);
                int want = g == 0 ? av ^ bv : g == 1 ? av & bv : g == 2 ? av & !bv : !av & !bv;
                CHECK(r.value == want);
                CHECK(cs.num_constraints == 3 && cs.num_aux == 3);
                CHECK(satisfied(&cs));
                /* boolean constraint of a: (ONE - a) * a = 0 */
                CHECK(row_is(&cs, 0, 0, (term[]){{0, 1}, {1, -1}}, 2) && row_is(&cs, 1, 0, (term[]){{1, 1}}, 1) &&
                      row_is(&cs, 2, 0, NULL, 0));
                if (g == 0)
                    CHECK(row_is(&cs, 0, 2, (term[]){{1, 2}}, 1) && row_is(&cs, 1, 2, (term[]){{2, 1}}, 1) &&
                          row_is(&cs, 2, 2, (term[]){{1, 1}, {2, 1}, {3, -1}}, 3));
                if (g == 1)
                    CHECK(row_is(&cs, 0, 2, (term[]){{1, 1}}, 1) && row_is(&cs, 1, 2, (term[]){{2, 1}}, 1) &&
                          row_is(&cs, 2, 2, (term[]){{3, 1}}, 1));
                if (g == 2)
                    CHECK(row_is(&cs, 0, 2, (term[]){{1, 1}}, 1) && row_is(&cs, 1, 2, (term[]){{0, 1}, {2, -1}}, 2));
                if (g == 3)
                    CHECK(row_is(&cs, 0, 2, (term[]){{0, 1}, {1, -1}}, 2) &&
                          row_is(&cs, 1, 2, (term[]){{0, 1}, {2, -1}}, 2));
                /* the wrong result value breaks it */
                fr_t one;
                fr_set_one(&one);
                fr_sub(&cs.aux[2], &one, &cs.aux[2]);
                size_t bad;
                CHECK(!r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad) && bad == 2);
                r1cs_free(&cs);
            }
}

/* Kinds: 0 const false, 1 const true, 2 Is(0), 3 Is(1), 4 Not(bit 1) = 0, 5 Not(bit 0) = 1. */
static gadget_bool make(r1cs *cs, int kind)
{
    if (kind < 2) return gadget_bool_const(kind);
    gadget_bit b;
    int bitv = kind == 2 ? 0 : kind == 3 ? 1 : kind == 4 ? 1 : 0;
    if (gadget_bit_alloc(cs, bitv, &b, &err) != CUZK_OK) return gadget_bool_const(0);
    gadget_bool x = gadget_bool_from_bit(&b);
    return kind >= 4 ? gadget_bool_not(&x) : x;
}

static int kval(int kind)
{
    return kind == 1 || kind == 3 || kind == 5;
}

static void test_bool_ops(void)
{
    for (int ka = 0; ka < 6; ka++)
        for (int kb = 0; kb < 6; kb++) {
            for (int op = 0; op < 4; op++) {
                r1cs cs;
                CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
                gadget_bool a = make(&cs, ka), b = make(&cs, kb), r;
                size_t before = cs.num_constraints;
                cuzk_status st = CUZK_OK;
                if (op == 0) st = gadget_bool_xor(&cs, &a, &b, &r, &err);
                if (op == 1) st = gadget_bool_and(&cs, &a, &b, &r, &err);
                if (op == 2) st = gadget_bool_or(&cs, &a, &b, &r, &err);
                if (op == 3) st = gadget_bool_enforce_equal(&cs, &a, &b, &err);
                int va = kval(ka), vb = kval(kb);
                int any_const = ka < 2 || kb < 2;
                if (op == 3) {
                    if (ka < 2 && kb < 2) {
                        CHECK(st == (va == vb ? CUZK_OK : CUZK_ERR_INVALID_ARG));
                        CHECK(cs.num_constraints == before);
                    } else {
                        CHECK(st == CUZK_OK && cs.num_constraints == before + 1);
                        CHECK_MSG(satisfied(&cs) == (va == vb), "enforce_equal kinds %d %d", ka, kb);
                    }
                } else {
                    CHECK(st == CUZK_OK);
                    int want = op == 0 ? va ^ vb : op == 1 ? va & vb : va | vb;
                    CHECK_MSG(r.value == want, "op %d kinds %d %d", op, ka, kb);
                    CHECK(cs.num_constraints == before + (any_const ? 0 : 1));
                    /* the Boolean's value agrees with its variable */
                    if (r.kind != GADGET_BOOL_CONST) {
                        int v = !fr_is_zero(&cs.aux[r.var.index]);
                        CHECK((r.kind == GADGET_BOOL_IS ? v : !v) == r.value);
                    }
                    CHECK(satisfied(&cs));
                }
                r1cs_free(&cs);
            }
        }
}

static void test_ch_maj(void)
{
    for (int ka = 0; ka < 6; ka++)
        for (int kb = 0; kb < 6; kb++)
            for (int kc = 0; kc < 6; kc++)
                for (int op = 0; op < 2; op++) {
                    r1cs cs;
                    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
                    gadget_bool a = make(&cs, ka), b = make(&cs, kb), c = make(&cs, kc), r;
                    cuzk_status st = op ? gadget_bool_sha256_maj(&cs, &a, &b, &c, &r, &err)
                                        : gadget_bool_sha256_ch(&cs, &a, &b, &c, &r, &err);
                    CHECK(st == CUZK_OK);
                    int va = kval(ka), vb = kval(kb), vc = kval(kc);
                    int want = op ? (va & vb) ^ (va & vc) ^ (vb & vc) : (va & vb) ^ ((!va) & vc);
                    CHECK_MSG(r.value == want, "%s kinds %d %d %d", op ? "maj" : "ch", ka, kb, kc);
                    if (r.kind != GADGET_BOOL_CONST) {
                        int v = !fr_is_zero(&cs.aux[r.var.index]);
                        CHECK((r.kind == GADGET_BOOL_IS ? v : !v) == r.value);
                    }
                    CHECK(satisfied(&cs));
                    r1cs_free(&cs);
                }
}

static void test_num(rng_t *rng)
{
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    fr_t va, vb, t;
    fr_random(&va, rng);
    fr_random(&vb, rng);
    gadget_num a, b, s, p, q, c, d;
    gadget_bool bits[255];
    CHECK(gadget_num_alloc(&cs, &va, &a, &err) == CUZK_OK);
    CHECK(gadget_num_alloc(&cs, &vb, &b, &err) == CUZK_OK);
    CHECK(gadget_num_to_bits_le(&cs, &a, bits, &err) == CUZK_OK);
    CHECK(cs.num_constraints == 256 && cs.num_aux == 2 + 255);
    uint64_t limbs[4];
    fr_from_mont(limbs, &va);
    int ok = 1;
    for (int i = 0; i < 255; i++) ok &= bits[i].value == (limbs[i / 64] >> (i % 64) & 1);
    CHECK(ok);
    CHECK(gadget_num_add(&cs, &a, &b, &s, &err) == CUZK_OK);
    fr_add(&t, &va, &vb);
    CHECK(fr_eq(&s.value, &t));
    CHECK(gadget_num_mul(&cs, &a, &b, &p, &err) == CUZK_OK);
    fr_mul(&t, &va, &vb);
    CHECK(fr_eq(&p.value, &t));
    CHECK(gadget_num_square(&cs, &a, &q, &err) == CUZK_OK);
    fr_sqr(&t, &va);
    CHECK(fr_eq(&q.value, &t));
    CHECK(gadget_num_assert_nonzero(&cs, &a, &err) == CUZK_OK);
    size_t before = cs.num_constraints;
    gadget_bool cond = make(&cs, 3);
    CHECK(gadget_num_conditionally_reverse(&cs, &a, &b, &cond, &c, &d, &err) == CUZK_OK);
    CHECK(fr_eq(&c.value, &vb) && fr_eq(&d.value, &va));
    CHECK(cs.num_constraints == before + 1 + 2);
    CHECK(gadget_num_inputize(&cs, &p, &err) == CUZK_OK);
    CHECK(cs.num_inputs == 2 && fr_eq(&cs.inputs[1], &p.value));
    size_t rev_row = before + 1;
    uint32_t ca = 2 + a.var.index, cb = 2 + b.var.index, cc = 2 + c.var.index, cond_col = 2 + cond.var.index;
    CHECK(satisfied(&cs));
    /* first conditional reversal: (a - b) * cond = a - c */
    CHECK(row_is(&cs, 0, rev_row, (term[]){{ca, 1}, {cb, -1}}, 2) &&
          row_is(&cs, 1, rev_row, (term[]){{cond_col, 1}}, 1) &&
          row_is(&cs, 2, rev_row, (term[]){{ca, 1}, {cc, -1}}, 2));
    /* a changed bit breaks the unpacking */
    fr_t one;
    fr_set_one(&one);
    fr_sub(&cs.aux[bits[7].var.index], &one, &cs.aux[bits[7].var.index]);
    size_t bad;
    CHECK(!r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad) && bad == 255);
    r1cs_free(&cs);
    /* assert_nonzero refuses zero when the witness is kept */
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    fr_set_zero(&t);
    CHECK(gadget_num_alloc(&cs, &t, &a, &err) == CUZK_OK);
    CHECK(gadget_num_assert_nonzero(&cs, &a, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&cs);
}

static void test_multipack(rng_t *rng)
{
    static const size_t ns[] = {0, 1, 253, 254, 255, 508, 600};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        size_t n = ns[k];
        r1cs cs;
        CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
        uint8_t v[600];
        gadget_bool bits[600];
        for (size_t i = 0; i < n; i++) {
            v[i] = rng_next(rng) & 1;
            int kind = (int)(rng_next(rng) % 6);
            if (kind >= 2)
                kind = v[i] ? (kind & 1 ? 3 : 5) : (kind & 1 ? 2 : 4);
            else
                kind = v[i];
            bits[i] = make(&cs, kind);
        }
        size_t before = cs.num_constraints, chunks = (n + 253) / 254;
        CHECK(gadget_pack_into_inputs(&cs, bits, n, &err) == CUZK_OK);
        CHECK(cs.num_constraints == before + chunks && cs.num_inputs == 1 + chunks);
        fr_t want[3];
        gadget_compute_multipacking(v, n, want);
        int ok = 1;
        for (size_t c = 0; c < chunks; c++) ok &= fr_eq(&cs.inputs[1 + c], &want[c]);
        CHECK_MSG(ok, "%zu bits", n);
        gadget_num packed;
        CHECK(gadget_pack_bits(&cs, bits, n, &packed, &err) == CUZK_OK);
        if (n) CHECK(fr_eq(&packed.value, &want[0]));
        CHECK(satisfied(&cs));
        r1cs_free(&cs);
    }
}

static void test_u32(rng_t *rng)
{
    for (size_t n = 2; n <= 10; n++) {
        r1cs cs;
        CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
        gadget_multieq me;
        gadget_multieq_init(&me, &cs);
        gadget_u32 ops[10], r;
        uint32_t sum = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t v = (uint32_t)rng_next(rng);
            if (k % 3 == 1)
                ops[k] = gadget_u32_const(v);
            else
                CHECK(gadget_u32_alloc(&cs, v, &ops[k], &err) == CUZK_OK);
            if (k % 3 == 2) { /* a word of Not bits, as sha256's xors produce */
                for (int i = 0; i < 32; i++) ops[k].bits[i] = gadget_bool_not(&ops[k].bits[i]);
                ops[k].value = ~ops[k].value;
            }
            sum += ops[k].value;
        }
        size_t before = cs.num_constraints;
        CHECK(gadget_u32_addmany(&me, ops, n, &r, &err) == CUZK_OK);
        size_t nbits = 0;
        for (uint64_t mx = (uint64_t)n * 0xffffffffULL; mx; mx >>= 1) nbits++;
        CHECK(cs.num_constraints == before + nbits);
        CHECK(gadget_multieq_finish(&me, &err) == CUZK_OK);
        CHECK(cs.num_constraints == before + nbits + 1);
        CHECK(r.value == sum);
        uint32_t from_bits = 0;
        for (int i = 0; i < 32; i++) from_bits |= (uint32_t)r.bits[i].value << i;
        CHECK(from_bits == sum);
        gadget_u32 x;
        CHECK(gadget_u32_xor(&cs, &ops[0], &ops[1], &x, &err) == CUZK_OK);
        CHECK(x.value == (ops[0].value ^ ops[1].value));
        gadget_u32 rr = gadget_u32_rotr(&ops[0], 7), sh = gadget_u32_shr(&ops[0], 10);
        uint32_t rv = 0, sv = 0;
        for (int i = 0; i < 32; i++) {
            rv |= (uint32_t)rr.bits[i].value << i;
            sv |= (uint32_t)sh.bits[i].value << i;
        }
        CHECK(rv == (ops[0].value >> 7 | ops[0].value << 25) && rr.value == rv && sv == ops[0].value >> 10);
        gadget_bool be[32];
        gadget_u32_into_bits_be(&ops[0], be);
        CHECK(gadget_u32_from_bits_be(be).value == ops[0].value);
        CHECK(gadget_u32_from_bits(ops[0].bits).value == ops[0].value);
        CHECK(satisfied(&cs));
        r1cs_free(&cs);
    }
    /* constants only: folded, nothing allocated */
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    gadget_multieq me;
    gadget_multieq_init(&me, &cs);
    gadget_u32 c[3] = {gadget_u32_const(0xffffffffu), gadget_u32_const(2), gadget_u32_const(5)}, r;
    CHECK(gadget_u32_addmany(&me, c, 3, &r, &err) == CUZK_OK && r.value == 6 && r.bits[1].kind == GADGET_BOOL_CONST);
    CHECK(gadget_multieq_finish(&me, &err) == CUZK_OK);
    CHECK(cs.num_constraints == 0 && cs.num_aux == 0);
    r1cs_free(&cs);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_boolean");
    test_bit_gates();
    test_bool_ops();
    test_ch_maj();
    test_num(&rng);
    test_multipack(&rng);
    test_u32(&rng);
    return test_finish("test_boolean");
}
