/* MultiEq, bellperson 0.27 gadgets/multieq.rs: batches equalities lhs = rhs of known bit widths into one
 * constraint (sum 2^off_k lhs_k) * ONE = (sum 2^off_k rhs_k) while the widths fit below Fr::CAPACITY (254).
 * The batch is flushed (its constraint enforced) when the next equality would not fit, and by
 * gadget_multieq_finish, which mirrors MultiEq's Drop. */
#ifndef CUZK_CIRCUITS_GADGETS_MULTIEQ_H
#define CUZK_CIRCUITS_GADGETS_MULTIEQ_H

#include "circuits/gadgets/num.h"

typedef struct gadget_multieq {
    r1cs *cs;
    size_t ops, bits_used;
    r1cs_lc lhs, rhs;
    fr_t pow2[GADGET_FR_CAPACITY + 64]; /* 2^k, for the offsets and the callers' own bit weights */
} gadget_multieq;

void gadget_multieq_init(gadget_multieq *me, r1cs *cs);
/* A term of a power-of-two weighted sum: sign * 2^exp * var (every multieq user, addmany, has only such terms;
 * keeping exponents lets the batch offset be added without a field multiplication). */
typedef struct gadget_pow2_term {
    r1cs_var var;
    uint16_t exp;
    uint16_t neg;
} gadget_pow2_term;

/* Adds the equality sum(lhs) = sum(rhs) (num_bits wide); may first enforce the pending batch. num_bits < 254 and
 * every exp < 64. */
cuzk_status gadget_multieq_enforce_equal(gadget_multieq *me, size_t num_bits, const gadget_pow2_term *lhs, size_t nl,
                                         const gadget_pow2_term *rhs, size_t nr, cuzk_error *err);
/* Enforces the pending batch, if any, and frees the multieq (also on error paths: call it once, always). */
cuzk_status gadget_multieq_finish(gadget_multieq *me, cuzk_error *err);

#endif
