#include "circuits/gadgets/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/gadgets/multipack.h"
#include "circuits/hash/sha256.h"

/* bellperson's Maybe: a word that is either known or a list of addends whose sum is not yet allocated. */
typedef struct maybe {
    int deferred;
    size_t n;
    gadget_u32 ops[10];
} maybe;

static void maybe_concrete(maybe *m, const gadget_u32 *w)
{
    m->deferred = 0;
    m->n = 1;
    m->ops[0] = *w;
}

/* Maybe::compute(others): a concrete word as is; otherwise addmany(ops ++ others). */
static cuzk_status maybe_compute(gadget_multieq *me, const maybe *m, const gadget_u32 *other, gadget_u32 *out,
                                 cuzk_error *err)
{
    if (!m->deferred) {
        *out = m->ops[0];
        return CUZK_OK;
    }
    gadget_u32 ops[11];
    memcpy(ops, m->ops, m->n * sizeof ops[0]);
    size_t n = m->n;
    if (other) ops[n++] = *other;
    return gadget_u32_addmany(me, ops, n, out, err);
}

/* x.rotr(r1) ^ x.rotr(r2) ^ (shift ? x.shr(r3) : x.rotr(r3)), xors in that order. */
static cuzk_status sigma(r1cs *cs, const gadget_u32 *x, unsigned r1, unsigned r2, unsigned r3, int shift,
                         gadget_u32 *out, cuzk_error *err)
{
    gadget_u32 s = gadget_u32_rotr(x, r1), t = gadget_u32_rotr(x, r2);
    gadget_u32 u = shift ? gadget_u32_shr(x, r3) : gadget_u32_rotr(x, r3);
    cuzk_status st = gadget_u32_xor(cs, &s, &t, &s, err);
    if (st != CUZK_OK) return st;
    return gadget_u32_xor(cs, &s, &u, out, err);
}

static cuzk_status compression(gadget_multieq *me, const gadget_bool input[512], const gadget_u32 cur[8],
                               gadget_u32 out[8], cuzk_error *err)
{
    r1cs *cs = me->cs;
    gadget_u32 *w = r1cs_xmalloc(64 * sizeof *w);
    if (!w) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gadget_sha256_compression: message schedule");
    cuzk_status st = CUZK_OK;
    for (int i = 0; i < 16; i++) w[i] = gadget_u32_from_bits_be(input + 32 * i);
    for (int i = 16; i < 64 && st == CUZK_OK; i++) {
        gadget_u32 ops[4];
        ops[0] = w[i - 16];
        ops[2] = w[i - 7];
        st = sigma(cs, &w[i - 15], 7, 18, 3, 1, &ops[1], err);
        if (st == CUZK_OK) st = sigma(cs, &w[i - 2], 17, 19, 10, 1, &ops[3], err);
        if (st == CUZK_OK) st = gadget_u32_addmany(me, ops, 4, &w[i], err);
        if (st != CUZK_OK) cuzk_error_prefix(err, "w extension %d: ", i);
    }
    maybe a, e;
    gadget_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    maybe_concrete(&a, &cur[0]);
    maybe_concrete(&e, &cur[4]);
    for (int i = 0; i < 64 && st == CUZK_OK; i++) {
        gadget_u32 new_e, new_a, s1, ch, s0, maj;
        st = maybe_compute(me, &e, NULL, &new_e, err);
        if (st == CUZK_OK) st = sigma(cs, &new_e, 6, 11, 25, 0, &s1, err);
        if (st == CUZK_OK) st = gadget_u32_sha256_ch(cs, &new_e, &f, &g, &ch, err);
        if (st == CUZK_OK) st = maybe_compute(me, &a, NULL, &new_a, err);
        if (st == CUZK_OK) st = sigma(cs, &new_a, 2, 13, 22, 0, &s0, err);
        if (st == CUZK_OK) st = gadget_u32_sha256_maj(cs, &new_a, &b, &c, &maj, err);
        if (st != CUZK_OK) {
            cuzk_error_prefix(err, "compression round %d: ", i);
            break;
        }
        /* temp1 = [h, s1, ch, K_i, w_i]; e = temp1 ++ [d]; a = temp1 ++ [s0, maj] */
        gadget_u32 temp1[5] = {h, s1, ch, gadget_u32_const(SHA256_K[i]), w[i]};
        h = g;
        g = f;
        f = new_e;
        e.deferred = 1;
        e.n = 6;
        memcpy(e.ops, temp1, sizeof temp1);
        e.ops[5] = d;
        d = c;
        c = b;
        b = new_a;
        a.deferred = 1;
        a.n = 7;
        memcpy(a.ops, temp1, sizeof temp1);
        a.ops[5] = s0;
        a.ops[6] = maj;
    }
    if (st == CUZK_OK) st = maybe_compute(me, &a, &cur[0], &out[0], err);
    if (st == CUZK_OK) st = gadget_u32_addmany(me, (gadget_u32[]){cur[1], b}, 2, &out[1], err);
    if (st == CUZK_OK) st = gadget_u32_addmany(me, (gadget_u32[]){cur[2], c}, 2, &out[2], err);
    if (st == CUZK_OK) st = gadget_u32_addmany(me, (gadget_u32[]){cur[3], d}, 2, &out[3], err);
    if (st == CUZK_OK) st = maybe_compute(me, &e, &cur[4], &out[4], err);
    if (st == CUZK_OK) st = gadget_u32_addmany(me, (gadget_u32[]){cur[5], f}, 2, &out[5], err);
    if (st == CUZK_OK) st = gadget_u32_addmany(me, (gadget_u32[]){cur[6], g}, 2, &out[6], err);
    if (st == CUZK_OK) st = gadget_u32_addmany(me, (gadget_u32[]){cur[7], h}, 2, &out[7], err);
    free(w);
    return st;
}

cuzk_status gadget_sha256_compression(r1cs *cs, const gadget_bool input[512], const gadget_u32 state[8],
                                      gadget_u32 out[8], cuzk_error *err)
{
    gadget_multieq *me = r1cs_xmalloc(sizeof *me);
    if (!me) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gadget_sha256_compression: multieq");
    gadget_multieq_init(me, cs);
    gadget_u32 res[8];
    cuzk_status st = compression(me, input, state, res, err);
    cuzk_error ferr;
    cuzk_status fst = gadget_multieq_finish(me, &ferr);
    free(me);
    if (st != CUZK_OK) return st;
    if (fst != CUZK_OK) {
        if (err) *err = ferr;
        return fst;
    }
    memcpy(out, res, sizeof res);
    return CUZK_OK;
}

static void iv_words(gadget_u32 iv[8])
{
    for (int i = 0; i < 8; i++) iv[i] = gadget_u32_const(SHA256_IV[i]);
}

static void words_to_bits(const gadget_u32 w[8], gadget_bool out[256])
{
    for (int i = 0; i < 8; i++) gadget_u32_into_bits_be(&w[i], out + 32 * i);
}

cuzk_status gadget_sha256_block_no_padding(r1cs *cs, const gadget_bool input[512], gadget_bool out[256],
                                           cuzk_error *err)
{
    gadget_u32 iv[8], res[8];
    iv_words(iv);
    cuzk_status st = gadget_sha256_compression(cs, input, iv, res, err);
    if (st != CUZK_OK) return st;
    words_to_bits(res, out);
    return CUZK_OK;
}

cuzk_status gadget_sha256(r1cs *cs, const gadget_bool *input, size_t nbits, gadget_bool out[256], cuzk_error *err)
{
    if (nbits % 8) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_sha256: %zu bits, not whole bytes", nbits);
    size_t total = (nbits + 1 + 64 + 511) / 512 * 512;
    gadget_bool *padded = r1cs_xmalloc(total * sizeof *padded);
    if (!padded) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gadget_sha256: %zu padded bits", total);
    memcpy(padded, input, nbits * sizeof *padded);
    padded[nbits] = gadget_bool_const(1);
    for (size_t i = nbits + 1; i < total - 64; i++) padded[i] = gadget_bool_const(0);
    for (int i = 0; i < 64; i++) padded[total - 64 + i] = gadget_bool_const((int)((uint64_t)nbits >> (63 - i) & 1));
    gadget_u32 cur[8];
    iv_words(cur);
    cuzk_status st = CUZK_OK;
    for (size_t blk = 0; blk < total / 512 && st == CUZK_OK; blk++) {
        st = gadget_sha256_compression(cs, padded + 512 * blk, cur, cur, err);
        if (st != CUZK_OK) cuzk_error_prefix(err, "gadget_sha256: block %zu: ", blk);
    }
    free(padded);
    if (st != CUZK_OK) return st;
    words_to_bits(cur, out);
    return CUZK_OK;
}

cuzk_status gadget_sha256_fr(r1cs *cs, const gadget_bool *input, size_t nbits, gadget_num *out, cuzk_error *err)
{
    gadget_bool be[256], le[256];
    cuzk_status st = gadget_sha256(cs, input, nbits, be, err);
    if (st != CUZK_OK) return st;
    for (int byte = 0; byte < 32; byte++)
        for (int i = 0; i < 8; i++) le[8 * byte + i] = be[8 * byte + 7 - i];
    return gadget_pack_bits(cs, le, GADGET_FR_CAPACITY, out, err);
}
