#include "circuits/stacked/create_label.h"

#include <stdlib.h>
#include <string.h>

#include "circuits/gadgets/sha256.h"
#include "circuits/gadgets/uint32.h"

cuzk_status stacked_create_label(r1cs *cs, const gadget_bool replica_id[256], const gadget_bool *const *parents,
                                 uint32_t layer, const gadget_u64 *node, gadget_num *out, cuzk_error *err)
{
    gadget_bool *bits = r1cs_xmalloc(STACKED_LABEL_BITS * sizeof *bits);
    if (!bits) return cuzk_error_set(err, CUZK_ERR_NOMEM, "stacked_create_label: cannot allocate the preimage");
    memcpy(bits, replica_id, 256 * sizeof *bits);
    gadget_u32 l = gadget_u32_const(layer);
    gadget_u32_into_bits_be(&l, bits + 256);
    gadget_u64_to_bits_be(node, bits + 288);
    for (size_t i = 352; i < 512; i++) bits[i] = gadget_bool_const(0);
    for (size_t p = 0; p < STACKED_LABEL_PARENTS; p++) memcpy(bits + 512 + p * 256, parents[p], 256 * sizeof *bits);
    cuzk_status st = gadget_sha256_fr(cs, bits, STACKED_LABEL_BITS, out, err);
    free(bits);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "stacked_create_label: ");
}
