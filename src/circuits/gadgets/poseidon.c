#include "circuits/gadgets/poseidon.h"

#include <stdlib.h>

#include "circuits/gadgets/gadget_impl.h"

/* neptune's Elt: an allocated number, or a linear combination with its value. */
typedef struct elt {
    int allocated;
    gadget_num num;
    gadget_lcnum lc;
} elt;

typedef struct pstate {
    r1cs *cs;
    const poseidon_constants *pc;
    size_t offset, round, width;
    elt *cur, *next; /* width each */
} pstate;

/* Elt::ensure_allocated(enforce = true): a linear combination gets a new variable v and lc * ONE = v. */
static cuzk_status ensure_allocated(r1cs *cs, const elt *e, gadget_num *out, cuzk_error *err)
{
    if (e->allocated) {
        *out = e->num;
        return CUZK_OK;
    }
    cuzk_status st = gadget_num_alloc(cs, &e->lc.value, out, err);
    if (st != CUZK_OK) return st;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc b, c;
    gadget_slc_init(&b);
    gadget_slc_init(&c);
    gadget_slc_add(&b, r1cs_one(), NULL);
    gadget_slc_add(&c, out->var, NULL);
    return r1cs_enforce(cs, &e->lc.lc, &b.lc, &c.lc, err);
}

/* mul_sum(a, b, pre, post): new r = (b + pre) a + post; (b + pre ONE) * a = r - post ONE. */
static cuzk_status mul_sum(r1cs *cs, const gadget_num *a, const gadget_num *b, const fr_t *pre, const fr_t *post,
                           gadget_num *out, cuzk_error *err)
{
    fr_t v = b->value;
    if (pre) fr_add(&v, &v, pre);
    fr_mul(&v, &v, &a->value);
    if (post) fr_add(&v, &v, post);
    gadget_num r;
    cuzk_status st = gadget_num_alloc(cs, &v, &r, err);
    if (st != CUZK_OK) return st;
    *out = r;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lb, lc;
    gadget_slc_init(&la);
    gadget_slc_init(&lb);
    gadget_slc_init(&lc);
    gadget_slc_add(&la, b->var, NULL);
    if (pre) gadget_slc_add(&la, r1cs_one(), pre);
    gadget_slc_add(&lb, a->var, NULL);
    gadget_slc_add(&lc, r.var, NULL);
    if (post) {
        fr_t neg;
        fr_neg(&neg, post);
        gadget_slc_add(&lc, r1cs_one(), &neg);
    }
    return r1cs_enforce(cs, &la.lc, &lb.lc, &lc.lc, err);
}

/* square_sum(k, x): new r = (x + k)^2; (x + k ONE) * (x + k ONE) = r. */
static cuzk_status square_sum(r1cs *cs, const fr_t *k, const gadget_num *x, gadget_num *out, cuzk_error *err)
{
    fr_t v;
    fr_add(&v, &x->value, k);
    fr_sqr(&v, &v);
    gadget_num r;
    cuzk_status st = gadget_num_alloc(cs, &v, &r, err);
    if (st != CUZK_OK) return st;
    *out = r;
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    gadget_slc la, lc;
    gadget_slc_init(&la);
    gadget_slc_init(&lc);
    gadget_slc_add(&la, x->var, NULL);
    gadget_slc_add(&la, r1cs_one(), k);
    gadget_slc_add(&lc, r.var, NULL);
    return r1cs_enforce(cs, &la.lc, &la.lc, &lc.lc, err);
}

/* quintic_s_box (pre NULL) and quintic_s_box_pre_add (pre and post given); the result replaces e. */
static cuzk_status sbox(r1cs *cs, elt *e, const fr_t *pre, const fr_t *post, cuzk_error *err)
{
    gadget_num l, l2, l4, l5;
    cuzk_status st = ensure_allocated(cs, e, &l, err);
    if (st == CUZK_OK) st = pre ? square_sum(cs, pre, &l, &l2, err) : gadget_num_square(cs, &l, &l2, err);
    if (st == CUZK_OK) st = gadget_num_square(cs, &l2, &l4, err);
    if (st == CUZK_OK) st = mul_sum(cs, &l4, &l, pre, post, &l5, err);
    if (st != CUZK_OK) return st;
    e->allocated = 1;
    e->num = l5;
    return CUZK_OK;
}

/* Elt::num_from_fr: the constant c as the linear combination c * ONE. */
static cuzk_status set_constant(elt *e, const fr_t *c, cuzk_error *err)
{
    r1cs_lc_clear(&e->lc.lc);
    e->allocated = 0;
    e->lc.value = *c;
    return e->lc.keep_lc ? r1cs_lc_add(&e->lc.lc, r1cs_one(), c, err) : CUZK_OK;
}

/* dst += scale * e (Elt::scale then Num::add). */
static cuzk_status add_scaled_elt(gadget_lcnum *dst, const elt *e, const fr_t *scale, cuzk_error *err)
{
    if (e->allocated) return gadget_lcnum_add_var(dst, e->num.var, &e->num.value, scale, err);
    return gadget_lcnum_add_scaled(dst, &e->lc, scale, err);
}

static void reset_next(pstate *p)
{
    for (size_t j = 0; j < p->width; j++) {
        r1cs_lc_clear(&p->next[j].lc.lc);
        fr_set_zero(&p->next[j].lc.value);
        p->next[j].allocated = 0;
    }
}

static void swap_state(pstate *p)
{
    elt *t = p->cur;
    p->cur = p->next;
    p->next = t;
}

/* product_mds_with_matrix: next[j] = sum_i m[i][j] cur[i] (m row-major). */
static cuzk_status dense_product(pstate *p, const fr_t *m, cuzk_error *err)
{
    size_t t = p->width;
    reset_next(p);
    for (size_t j = 0; j < t; j++)
        for (size_t i = 0; i < t; i++) {
            cuzk_status st = add_scaled_elt(&p->next[j].lc, &p->cur[i], &m[i * t + j], err);
            if (st != CUZK_OK) return st;
        }
    swap_state(p);
    return CUZK_OK;
}

/* product_mds_with_sparse_matrix: next[0] = w_hat . cur; next[j] = cur[j] + v_rest[j-1] cur[0]. */
static cuzk_status sparse_product(pstate *p, size_t index, cuzk_error *err)
{
    size_t t = p->width;
    const fr_t *wh = p->pc->w_hat + index * t, *vr = p->pc->v_rest + index * (t - 1);
    reset_next(p);
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; i < t && st == CUZK_OK; i++) st = add_scaled_elt(&p->next[0].lc, &p->cur[i], &wh[i], err);
    for (size_t j = 1; j < t && st == CUZK_OK; j++) {
        st = add_scaled_elt(&p->next[j].lc, &p->cur[j], NULL, err);
        if (st == CUZK_OK) st = add_scaled_elt(&p->next[j].lc, &p->cur[0], &vr[j - 1], err);
    }
    if (st == CUZK_OK) swap_state(p);
    return st;
}

/* PoseidonCircuit::product_mds: which matrix depends on the round, as in the native hash. */
static cuzk_status product_mds(pstate *p, cuzk_error *err)
{
    size_t half = p->pc->half_full_rounds, r = p->round++;
    if (r == half - 1) return dense_product(p, p->pc->pre_sparse, err);
    if (r >= half && r < half + p->pc->partial_rounds) return sparse_product(p, r - half, err);
    return dense_product(p, p->pc->mds, err);
}

static cuzk_status full_round(pstate *p, int first, int last, cuzk_error *err)
{
    const fr_t *crc = p->pc->compressed;
    size_t t = p->width, off = p->offset;
    const fr_t *pre = NULL, *post = NULL;
    if (first) {
        pre = crc + off;
        off += t;
    }
    if (first || !last) {
        post = crc + off;
        off += t;
    }
    for (size_t i = 0; i < t; i++) {
        cuzk_status st;
        if (first && i == 0) {
            /* constant_quintic_s_box_pre_add_tag: the tag is known, so its S-box costs nothing */
            fr_t v, x;
            fr_add(&v, &p->cur[0].lc.value, &pre[0]);
            fr_sqr(&x, &v);
            fr_sqr(&x, &x);
            fr_mul(&v, &v, &x);
            fr_add(&v, &v, &post[0]);
            st = set_constant(&p->cur[0], &v, err);
        } else {
            st = sbox(p->cs, &p->cur[i], first ? &pre[i] : NULL, post ? &post[i] : NULL, err);
        }
        if (st != CUZK_OK) return st;
    }
    p->offset = off;
    return product_mds(p, err);
}

static cuzk_status partial_round(pstate *p, cuzk_error *err)
{
    const fr_t *key = &p->pc->compressed[p->offset++];
    cuzk_status st = sbox(p->cs, &p->cur[0], NULL, key, err);
    if (st != CUZK_OK) return st;
    return product_mds(p, err);
}

static cuzk_status run(pstate *p, const gadget_num *preimage, gadget_num *out, cuzk_error *err)
{
    const poseidon_constants *pc = p->pc;
    cuzk_status st = set_constant(&p->cur[0], &pc->domain_tag, err);
    for (size_t i = 1; i < p->width; i++) {
        p->cur[i].allocated = 1;
        p->cur[i].num = preimage[i - 1];
    }
    if (st == CUZK_OK) st = full_round(p, 1, 0, err);
    for (size_t i = 1; i < pc->half_full_rounds && st == CUZK_OK; i++) st = full_round(p, 0, 0, err);
    for (size_t i = 0; i < pc->partial_rounds && st == CUZK_OK; i++) st = partial_round(p, err);
    for (size_t i = 0; i + 1 < pc->half_full_rounds && st == CUZK_OK; i++) st = full_round(p, 0, 0, err);
    if (st == CUZK_OK) st = full_round(p, 0, 1, err);
    if (st == CUZK_OK) st = ensure_allocated(p->cs, &p->cur[1], out, err);
    return st;
}

cuzk_status gadget_poseidon_hash(r1cs *cs, const gadget_num *preimage, const poseidon_constants *pc, gadget_num *out,
                                 cuzk_error *err)
{
    pstate p = {cs, pc, 0, 0, pc->width, NULL, NULL};
    elt *all = r1cs_xcalloc(2 * p.width, sizeof *all);
    if (!all) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gadget_poseidon_hash: state of width %zu", p.width);
    for (size_t i = 0; i < 2 * p.width; i++) gadget_lcnum_init(&all[i].lc, cs);
    p.cur = all;
    p.next = all + p.width;
    gadget_num res;
    cuzk_status st = run(&p, preimage, &res, err);
    for (size_t i = 0; i < 2 * p.width; i++) gadget_lcnum_free(&all[i].lc);
    free(all);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "gadget_poseidon_hash (arity %u): ", pc->arity);
    *out = res;
    return CUZK_OK;
}
