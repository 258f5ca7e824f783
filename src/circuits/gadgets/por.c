#include "circuits/gadgets/por.h"

#include <string.h>

#include "circuits/gadgets/constraint.h"
#include "circuits/gadgets/insertion.h"
#include "circuits/gadgets/multipack.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/gadgets/sha256.h"

static unsigned log2_arity(unsigned arity)
{
    unsigned b = 0;
    while ((1u << b) < arity) b++;
    return b;
}

unsigned por_tree_bits(const por_tree *t)
{
    unsigned bits = 0;
    for (unsigned l = 0; l < t->levels; l++) bits += log2_arity(t->arity[l]);
    return bits;
}

int por_arity_ok(unsigned a)
{
    return a >= 2 && a <= POR_MAX_ARITY && (a & (a - 1)) == 0;
}

void por_tree_constants_free(por_tree_constants *k)
{
    poseidon_constants_free(&k->base);
    poseidon_constants_free(&k->sub);
    poseidon_constants_free(&k->top);
}

cuzk_status por_tree_poseidon(por_tree *t, por_tree_constants *k, unsigned base_arity, unsigned base_levels,
                              unsigned sub_arity, unsigned top_arity, cuzk_error *err)
{
    memset(t, 0, sizeof *t);
    memset(k, 0, sizeof *k);
    if (!por_arity_ok(base_arity) || (sub_arity && !por_arity_ok(sub_arity)) ||
        (top_arity && !por_arity_ok(top_arity)) || base_levels + (sub_arity != 0) + (top_arity != 0) > POR_MAX_LEVELS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "por_tree_poseidon: %u levels of %u, then %u, %u", base_levels,
                              base_arity, sub_arity, top_arity);
    cuzk_status st;
    if ((st = poseidon_constants_create(&k->base, base_arity, POSEIDON_STANDARD, NULL, err)) != CUZK_OK ||
        (sub_arity && (st = poseidon_constants_create(&k->sub, sub_arity, POSEIDON_STANDARD, NULL, err)) != CUZK_OK) ||
        (top_arity && (st = poseidon_constants_create(&k->top, top_arity, POSEIDON_STANDARD, NULL, err)) != CUZK_OK)) {
        por_tree_constants_free(k);
        return st;
    }
    t->hasher = POR_POSEIDON;
    unsigned l = 0;
    for (; l < base_levels; l++) {
        t->arity[l] = base_arity;
        t->pc[l] = &k->base;
    }
    if (sub_arity) {
        t->arity[l] = sub_arity;
        t->pc[l++] = &k->sub;
    }
    if (top_arity) {
        t->arity[l] = top_arity;
        t->pc[l++] = &k->top;
    }
    t->levels = l;
    return CUZK_OK;
}

cuzk_status gadget_por_hash(r1cs *cs, por_hasher hasher, const poseidon_constants *pc, const gadget_num *children,
                            unsigned arity, gadget_num *out, cuzk_error *err)
{
    if (hasher == POR_POSEIDON) {
        if (!pc || pc->arity != arity)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_por_hash: no Poseidon constants for arity %u",
                                  arity);
        return gadget_poseidon_hash(cs, children, pc, out, err);
    }
    /* Sha256Function::hash_multi_leaf_circuit: all children's bits first, then one SHA-256. */
    gadget_bool bits[POR_MAX_ARITY * 256];
    for (unsigned i = 0; i < arity; i++) {
        gadget_bool le[GADGET_FR_NUM_BITS];
        cuzk_status st = gadget_num_to_bits_le(cs, &children[i], le, err);
        if (st != CUZK_OK) return st;
        gadget_reverse_bit_numbering(le, GADGET_FR_NUM_BITS, bits + (size_t)i * 256);
    }
    return gadget_sha256_fr(cs, bits, (size_t)arity * 256, out, err);
}

cuzk_status gadget_por(r1cs *cs, const por_tree *t, const por_args *args, gadget_num *computed, cuzk_error *err)
{
    if (t->levels > POR_MAX_LEVELS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_por: %u levels (at most %d)", t->levels,
                              POR_MAX_LEVELS);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        if (a < 2 || a > POR_MAX_ARITY || (a & (a - 1)))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_por: level %u arity %u (a power of two, 2..%d)", l,
                                  a, POR_MAX_ARITY);
    }
    gadget_bool path_bits[POR_MAX_LEVELS * 4];
    cuzk_status st;
    gadget_num cur;
    if (args->leaf) {
        cur = *args->leaf;
    } else if ((st = gadget_num_alloc(cs, &args->leaf_value, &cur, err)) != CUZK_OK) {
        return cuzk_error_prefix(err, "gadget_por: leaf: ");
    }
    unsigned nbits = 0;
    size_t sib_off = 0;
    fr_t zero;
    fr_set_zero(&zero);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned arity = t->arity[l], ib = log2_arity(arity);
        unsigned index = args->index ? args->index[l] : 0;
        if (index >= arity)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gadget_por: level %u index %u >= arity %u", l, index,
                                  arity);
        for (unsigned i = 0; i < ib; i++) {
            gadget_bit b;
            if ((st = gadget_bit_alloc(cs, (int)(index >> i & 1), &b, err)) != CUZK_OK) goto fail;
            path_bits[nbits++] = gadget_bool_from_bit(&b);
        }
        gadget_num sibs[POR_MAX_ARITY], children[POR_MAX_ARITY];
        for (unsigned i = 0; i + 1 < arity; i++) {
            const fr_t *v = args->sibs ? &args->sibs[sib_off + i] : &zero;
            if ((st = gadget_num_alloc(cs, v, &sibs[i], err)) != CUZK_OK) goto fail;
        }
        sib_off += arity - 1;
        if ((st = gadget_insert(cs, &cur, &path_bits[nbits - ib], ib, sibs, children, err)) != CUZK_OK) goto fail;
        if ((st = gadget_por_hash(cs, t->hasher, t->pc[l], children, arity, &cur, err)) != CUZK_OK) goto fail;
        continue;
    fail:
        return cuzk_error_prefix(err, "gadget_por: level %u: ", l);
    }
    if ((st = gadget_pack_into_inputs(cs, path_bits, nbits, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "gadget_por: path input: ");
    gadget_num root;
    if (args->root) {
        root = *args->root;
    } else if ((st = gadget_num_alloc(cs, &args->root_value, &root, err)) != CUZK_OK) {
        return cuzk_error_prefix(err, "gadget_por: root: ");
    }
    if ((st = gadget_enforce_equal(cs, &cur, &root, err)) != CUZK_OK) return cuzk_error_prefix(err, "gadget_por: ");
    if (args->public_root && (st = gadget_num_inputize(cs, &root, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "gadget_por: root input: ");
    if (computed) *computed = cur;
    return CUZK_OK;
}
