/* 64-bit words of booleans, rust-fil-proofs storage-proofs-core gadgets/uint64.rs (UInt64). Bits are kept least
 * significant first. Only alloc and pack_into_input create variables or constraints. */
#ifndef CUZK_CIRCUITS_GADGETS_UINT64_H
#define CUZK_CIRCUITS_GADGETS_UINT64_H

#include "circuits/gadgets/boolean.h"

typedef struct gadget_u64 {
    gadget_bool bits[64]; /* bits[0] is the least significant */
    uint64_t value;
} gadget_u64;

/* UInt64::constant. */
gadget_u64 gadget_u64_const(uint64_t value);
/* UInt64::alloc: 64 allocated bits (AllocatedBit::alloc each), least significant first: 64 constraints. */
cuzk_status gadget_u64_alloc(r1cs *cs, uint64_t value, gadget_u64 *out, cuzk_error *err);
/* UInt64::to_bits_be: out[0] is the most significant bit. */
void gadget_u64_to_bits_be(const gadget_u64 *w, gadget_bool out[64]);
/* UInt64::pack_into_input: multipack::pack_into_inputs of the 64 bits (one input, one constraint). */
cuzk_status gadget_u64_pack_into_input(r1cs *cs, const gadget_u64 *w, cuzk_error *err);

#endif
