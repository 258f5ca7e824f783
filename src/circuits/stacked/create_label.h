/* The SDR label in-circuit, rust-fil-proofs storage-proofs-porep stacked/circuit/create_label.rs
 * (create_label_circuit): SHA-256 over replica_id (256 bits) || layer (u32 BE) || node (u64 BE) || zeros to 512
 * bits || 37 parents of 256 bits each (9984 bits, 20 compressions after padding), the digest's bytes' bits reversed
 * and the first 254 packed into one new variable. */
#ifndef CUZK_CIRCUITS_STACKED_CREATE_LABEL_H
#define CUZK_CIRCUITS_STACKED_CREATE_LABEL_H

#include "circuits/gadgets/num.h"
#include "circuits/gadgets/uint64.h"

#define STACKED_LABEL_PARENTS 37
#define STACKED_LABEL_BITS ((2 + STACKED_LABEL_PARENTS) * 256)

/* replica_id: 256 bits in hashing order (reverse_bit_numbering of to_bits_le); parents[i]: 256 bits each, same
 * order; layer is a constant (UInt32::constant). */
cuzk_status stacked_create_label(r1cs *cs, const gadget_bool replica_id[256], const gadget_bool *const *parents,
                                 uint32_t layer, const gadget_u64 *node, gadget_num *out, cuzk_error *err);

#endif
