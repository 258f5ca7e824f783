/* Choosing among allocated numbers by index bits, constraint-for-constraint rust-fil-proofs
 * storage-proofs-core gadgets/insertion.rs (insert, insert_2/4/8, select, pick). Conventions as in boolean.h. */
#ifndef CUZK_CIRCUITS_GADGETS_INSERTION_H
#define CUZK_CIRCUITS_GADGETS_INSERTION_H

#include "circuits/gadgets/num.h"

#define GADGET_INSERT_MAX 64     /* largest insertion size (elements + 1) */
#define GADGET_SELECT_MAX_BITS 7 /* select among up to 128 (SnapDeals' apex leaves) */

/* pick: new c = cond ? a : b; (b - a) * cond = (b - c). One constraint. */
cuzk_status gadget_pick(r1cs *cs, const gadget_bool *cond, const gadget_num *a, const gadget_num *b, gadget_num *out,
                        cuzk_error *err);

/* select: from[index] where bits (nbits, least significant first) give the index; a binary tree of picks consuming
 * the most significant bit first: 2^nbits - 1 constraints. */
cuzk_status gadget_select(r1cs *cs, const gadget_num *from, const gadget_bool *bits, unsigned nbits, gadget_num *out,
                          cuzk_error *err);

/* insert: out (size = 2^nbits entries) is elements (size - 1 entries) with element inserted at the index the bits
 * give (least significant first). Size 2: 2 picks; size 4: 8 picks; size 8: a NOR and an AND of bits 0 and 1, then
 * 20 picks (22 constraints; the bits must be allocated, not negated or constant: CUZK_ERR_INVALID_ARG otherwise);
 * other sizes: one select per position, size (size - 1) constraints. */
cuzk_status gadget_insert(r1cs *cs, const gadget_num *element, const gadget_bool *bits, unsigned nbits,
                          const gadget_num *elements, gadget_num *out, cuzk_error *err);

#endif
