/* Small helpers of rust-fil-proofs storage-proofs-core: gadgets/constraint.rs (equal), gadgets/encode.rs (encode)
 * and util.rs (reverse_bit_numbering). Conventions as in boolean.h. */
#ifndef CUZK_CIRCUITS_GADGETS_CONSTRAINT_H
#define CUZK_CIRCUITS_GADGETS_CONSTRAINT_H

#include "circuits/gadgets/num.h"

/* constraint::equal: a * ONE = b. */
cuzk_status gadget_enforce_equal(r1cs *cs, const gadget_num *a, const gadget_num *b, cuzk_error *err);
/* encode::encode (constraint::add): new s = key + value; (key + value) * ONE = s. */
cuzk_status gadget_encode(r1cs *cs, const gadget_num *key, const gadget_num *value, gadget_num *out, cuzk_error *err);
/* util::reverse_bit_numbering: pad n bits with constant false to a multiple of 8, reverse the bits inside each
 * byte. out has room for the padded length, which is returned. No constraints. */
size_t gadget_reverse_bit_numbering(const gadget_bool *in, size_t n, gadget_bool *out);

#endif
