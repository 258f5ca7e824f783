/* Packing booleans into field elements, constraint-for-constraint bellperson 0.27 gadgets/multipack.rs. */
#ifndef CUZK_CIRCUITS_GADGETS_MULTIPACK_H
#define CUZK_CIRCUITS_GADGETS_MULTIPACK_H

#include "circuits/gadgets/num.h"

/* multipack::pack_into_inputs: for each chunk of up to 254 bits (bit i of a chunk weighted 2^i), a new input x
 * with (sum 2^i bit_i) * ONE = x. ceil(n / 254) inputs and constraints. */
cuzk_status gadget_pack_into_inputs(r1cs *cs, const gadget_bool *bits, size_t n, cuzk_error *err);
/* multipack::pack_bits: the first min(n, 254) bits packed into one new aux x; (sum 2^i bit_i) * ONE = x. */
cuzk_status gadget_pack_bits(r1cs *cs, const gadget_bool *bits, size_t n, gadget_num *out, cuzk_error *err);
/* multipack::compute_multipacking: the values pack_into_inputs allocates, ceil(n / 254) of them. */
void gadget_compute_multipacking(const uint8_t *bits, size_t n, fr_t *out);

#endif
