#include "circuits/porep/hashing.h"

#include <string.h>

#include "circuits/hash/sha256.h"

cuzk_status porep_hashers_init(porep_hashers *h, cuzk_error *err)
{
    memset(h, 0, sizeof *h);
    cuzk_status st = poseidon_constants_create(&h->p2, 2, POSEIDON_STANDARD, NULL, err);
    if (st == CUZK_OK) st = poseidon_constants_create(&h->p8, 8, POSEIDON_STANDARD, NULL, err);
    if (st == CUZK_OK) st = poseidon_constants_create(&h->p11, 11, POSEIDON_STANDARD, NULL, err);
    if (st != CUZK_OK) porep_hashers_free(h);
    return st;
}

void porep_hashers_free(porep_hashers *h)
{
    poseidon_constants_free(&h->p2);
    poseidon_constants_free(&h->p8);
    poseidon_constants_free(&h->p11);
}

int porep_poseidon(const porep_hashers *h, unsigned arity, const porep_dom *in, porep_dom out)
{
    const poseidon_constants *pc = arity == 2 ? &h->p2 : arity == 8 ? &h->p8 : arity == 11 ? &h->p11 : NULL;
    if (!pc) return -1;
    fr_t x[11], y;
    for (unsigned i = 0; i < arity; i++)
        if (fr_from_bytes_le(&x[i], in[i]) != 0) return -1;
    poseidon_hash(pc, x, &y);
    fr_to_bytes_le(out, &y);
    return 0;
}

void porep_sha256_node(const porep_dom left, const porep_dom right, porep_dom out)
{
    uint8_t buf[64];
    memcpy(buf, left, 32);
    memcpy(buf + 32, right, 32);
    sha256_digest(buf, 64, out);
    sha256_trim_fr32(out);
}

void porep_label(porep_dom out, const porep_dom replica_id, uint32_t layer, uint64_t node, const porep_dom *parents)
{
    uint8_t prefix[64] = {0};
    memcpy(prefix, replica_id, 32);
    for (int i = 0; i < 4; i++) prefix[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) prefix[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, prefix, 64);
    if (parents) sha256_update(&c, parents, 32 * POREP_LABEL_PARENTS);
    sha256_final(&c, out);
    sha256_trim_fr32(out);
}

int porep_fr_add(porep_dom out, const porep_dom a, const porep_dom b)
{
    fr_t x, y;
    if (fr_from_bytes_le(&x, a) != 0 || fr_from_bytes_le(&y, b) != 0) return -1;
    fr_add(&x, &x, &y);
    fr_to_bytes_le(out, &x);
    return 0;
}
