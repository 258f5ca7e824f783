/* Boolean gadgets, constraint-for-constraint those of bellpepper-core 0.2 (gadgets/boolean.rs), which
 * bellperson 0.27 re-exports and rust-fil-proofs uses.
 *
 * Every function allocates the same variables and enforces the same constraints, in the same order and
 * with the same linear combinations (after merging repeated variables), as the bellpepper function named
 * in its comment. Values are always computed; in a shape-only system they are simply not stored, so a
 * caller may pass any value there. In a witness-only system no linear combination is built at all.
 *
 * Constraint notation below: A * B = C. */
#ifndef CUZK_CIRCUITS_GADGETS_BOOLEAN_H
#define CUZK_CIRCUITS_GADGETS_BOOLEAN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "r1cs/r1cs.h"

/* AllocatedBit: a variable constrained to 0 or 1. */
typedef struct gadget_bit {
    r1cs_var var;
    uint8_t value;
} gadget_bit;

typedef enum gadget_bool_kind { GADGET_BOOL_CONST = 0, GADGET_BOOL_IS = 1, GADGET_BOOL_NOT = 2 } gadget_bool_kind;

/* Boolean: Constant(value), Is(bit) or Not(bit). value is the Boolean's own value (for Not, the negation of
 * the bit's); var is meaningful for Is and Not only. */
typedef struct gadget_bool {
    r1cs_var var;
    uint8_t kind;
    uint8_t value;
} gadget_bool;

/* AllocatedBit::alloc: new aux b; (ONE - b) * b = 0. */
cuzk_status gadget_bit_alloc(r1cs *cs, int value, gadget_bit *out, cuzk_error *err);
/* AllocatedBit::alloc_conditionally: new aux b; (ONE - must_be_false - b) * b = 0. */
cuzk_status gadget_bit_alloc_conditionally(r1cs *cs, int value, const gadget_bit *must_be_false, gadget_bit *out,
                                           cuzk_error *err);
/* AllocatedBit::xor: new r; (2a) * b = a + b - r. */
cuzk_status gadget_bit_xor(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err);
/* AllocatedBit::and: new r; a * b = r. */
cuzk_status gadget_bit_and(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err);
/* AllocatedBit::and_not (a AND NOT b): new r; a * (ONE - b) = r. */
cuzk_status gadget_bit_and_not(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err);
/* AllocatedBit::nor: new r; (ONE - a) * (ONE - b) = r. */
cuzk_status gadget_bit_nor(r1cs *cs, const gadget_bit *a, const gadget_bit *b, gadget_bit *out, cuzk_error *err);

/* Boolean::constant, From<AllocatedBit>, Boolean::not: no constraints. */
gadget_bool gadget_bool_const(int value);
gadget_bool gadget_bool_from_bit(const gadget_bit *bit);
gadget_bool gadget_bool_not(const gadget_bool *b);

/* Boolean::xor, Boolean::and, Boolean::or: constants fold away; otherwise one AllocatedBit operation chosen by
 * the (Is/Not) pattern exactly as bellpepper matches it. */
cuzk_status gadget_bool_xor(r1cs *cs, const gadget_bool *a, const gadget_bool *b, gadget_bool *out, cuzk_error *err);
cuzk_status gadget_bool_and(r1cs *cs, const gadget_bool *a, const gadget_bool *b, gadget_bool *out, cuzk_error *err);
cuzk_status gadget_bool_or(r1cs *cs, const gadget_bool *a, const gadget_bool *b, gadget_bool *out, cuzk_error *err);

/* Boolean::enforce_equal: one constraint 0 * 0 = (a - b) in bellpepper's three shapes; two constants that
 * differ give CUZK_ERR_INVALID_ARG (bellpepper's SynthesisError::Unsatisfiable), two equal ones nothing. */
cuzk_status gadget_bool_enforce_equal(r1cs *cs, const gadget_bool *a, const gadget_bool *b, cuzk_error *err);

/* Boolean::sha256_ch ((a AND b) XOR (NOT a AND c)) and Boolean::sha256_maj (majority): the constant cases
 * reduce to and/not; the general case allocates one variable (maj also the and of b, c). */
cuzk_status gadget_bool_sha256_ch(r1cs *cs, const gadget_bool *a, const gadget_bool *b, const gadget_bool *c,
                                  gadget_bool *out, cuzk_error *err);
cuzk_status gadget_bool_sha256_maj(r1cs *cs, const gadget_bool *a, const gadget_bool *b, const gadget_bool *c,
                                   gadget_bool *out, cuzk_error *err);

/* Appends coeff * b.lc(ONE) to lc (Boolean::lc): constant true gives coeff*ONE, false nothing, Is(v) coeff*v,
 * Not(v) coeff*ONE - coeff*v. coeff NULL means 1. */
cuzk_status gadget_bool_lc_add(r1cs_lc *lc, const gadget_bool *b, const fr_t *coeff, cuzk_error *err);

/* u64_into_boolean_vec_le: 64 allocated bits, least significant first. */
cuzk_status gadget_u64_into_bits_le(r1cs *cs, uint64_t value, gadget_bool out[64], cuzk_error *err);

#endif
