/* The SHA-256 gadget, constraint-for-constraint bellperson 0.27 gadgets/sha256.rs, and the Filecoin wrapper
 * around it (filecoin-hashers sha256.rs Sha256Function::hash_circuit).
 *
 * Bit order as in bellperson: input bit 0 is the most significant bit of message byte 0; the output is the
 * digest's bytes in order, each most significant bit first. One compression costs 25,840 constraints when
 * the message bits are allocated and the state is the constant IV; a 512-bit message (two compressions, the
 * second on constant padding) 44,874. */
#ifndef CUZK_CIRCUITS_GADGETS_SHA256_H
#define CUZK_CIRCUITS_GADGETS_SHA256_H

#include "circuits/gadgets/uint32.h"

/* sha256_compression_function: the message schedule and 64 rounds with the additions deferred and batched
 * through one MultiEq (flushed at the end of the call), then h_i = state_i + working_i. */
cuzk_status gadget_sha256_compression(r1cs *cs, const gadget_bool input[512], const gadget_u32 state[8],
                                      gadget_u32 out[8], cuzk_error *err);
/* sha256_block_no_padding: one compression of 512 bits from the constant IV; 256 output bits. */
cuzk_status gadget_sha256_block_no_padding(r1cs *cs, const gadget_bool input[512], gadget_bool out[256],
                                           cuzk_error *err);
/* sha256: nbits (a multiple of 8) message bits, padded with constants (a one, zeros, the 64-bit big-endian
 * length), one compression per 512-bit block; 256 output bits. */
cuzk_status gadget_sha256(r1cs *cs, const gadget_bool *input, size_t nbits, gadget_bool out[256], cuzk_error *err);
/* Sha256Function::hash_circuit: sha256, then the bits of each output byte reversed (a little-endian bit
 * string), the first 254 packed with multipack::pack_bits into one new aux variable. Its value is sha256_fr
 * of the message. One constraint more than gadget_sha256. */
cuzk_status gadget_sha256_fr(r1cs *cs, const gadget_bool *input, size_t nbits, gadget_num *out, cuzk_error *err);

#endif
