/* Field-element gadgets, constraint-for-constraint those of bellpepper-core 0.2 (gadgets/num.rs):
 * AllocatedNum (one variable with its value) and Num (a linear combination with its value, no variable).
 * Conventions as in boolean.h. */
#ifndef CUZK_CIRCUITS_GADGETS_NUM_H
#define CUZK_CIRCUITS_GADGETS_NUM_H

#include "circuits/gadgets/boolean.h"

#define GADGET_FR_NUM_BITS 255
#define GADGET_FR_CAPACITY 254

/* AllocatedNum. */
typedef struct gadget_num {
    r1cs_var var;
    fr_t value;
} gadget_num;

/* AllocatedNum::alloc / alloc_input: one new variable, no constraint. */
cuzk_status gadget_num_alloc(r1cs *cs, const fr_t *value, gadget_num *out, cuzk_error *err);
cuzk_status gadget_num_alloc_input(r1cs *cs, const fr_t *value, gadget_num *out, cuzk_error *err);
/* AllocatedNum::inputize: new input x; x * ONE = num. */
cuzk_status gadget_num_inputize(r1cs *cs, const gadget_num *num, cuzk_error *err);
/* AllocatedNum::to_bits_le (non-strict): 255 allocated bits, least significant first, each with its boolean
 * constraint (field_into_allocated_bits_le), then 0 * 0 = sum 2^i bit_i - num. 256 constraints. */
cuzk_status gadget_num_to_bits_le(r1cs *cs, const gadget_num *num, gadget_bool out[GADGET_FR_NUM_BITS],
                                  cuzk_error *err);
/* AllocatedNum::add: new s; (a + b) * ONE = s. mul: new p; a * b = p. square: new s; a * a = s. */
cuzk_status gadget_num_add(r1cs *cs, const gadget_num *a, const gadget_num *b, gadget_num *out, cuzk_error *err);
cuzk_status gadget_num_mul(r1cs *cs, const gadget_num *a, const gadget_num *b, gadget_num *out, cuzk_error *err);
cuzk_status gadget_num_square(r1cs *cs, const gadget_num *a, gadget_num *out, cuzk_error *err);
/* AllocatedNum::assert_nonzero: new inv; a * inv = ONE. A zero value gives CUZK_ERR_INVALID_ARG when the
 * witness is kept (bellpepper's DivisionByZero); in a shape-only system the value is not looked at. */
cuzk_status gadget_num_assert_nonzero(r1cs *cs, const gadget_num *a, cuzk_error *err);
/* AllocatedNum::conditionally_reverse: (c, d) = cond ? (b, a) : (a, b):
 *   new c; (a - b) * cond = a - c;  new d; (b - a) * cond = b - d. */
cuzk_status gadget_num_conditionally_reverse(r1cs *cs, const gadget_num *a, const gadget_num *b,
                                             const gadget_bool *cond, gadget_num *out_c, gadget_num *out_d,
                                             cuzk_error *err);

/* Num: a linear combination and its value. Zero-initialize with gadget_lcnum_init; free with
 * gadget_lcnum_free. In a witness-only system (keep_lc = 0) the combination is not built, only the value. */
typedef struct gadget_lcnum {
    r1cs_lc lc;
    fr_t value;
    int keep_lc;
} gadget_lcnum;

void gadget_lcnum_init(gadget_lcnum *n, const r1cs *cs);
void gadget_lcnum_free(gadget_lcnum *n);
/* Num::add_bool_with_coeff: n += coeff * bit (coeff NULL means 1). */
cuzk_status gadget_lcnum_add_bool(gadget_lcnum *n, const gadget_bool *bit, const fr_t *coeff, cuzk_error *err);
/* n += coeff * var with value (coeff NULL means 1); the From<AllocatedNum> term. */
cuzk_status gadget_lcnum_add_var(gadget_lcnum *n, r1cs_var var, const fr_t *value, const fr_t *coeff, cuzk_error *err);
/* n += scale * other (Num::add of a Num::scale'd copy; scale NULL means 1). */
cuzk_status gadget_lcnum_add_scaled(gadget_lcnum *n, const gadget_lcnum *other, const fr_t *scale, cuzk_error *err);
/* Num::scale in place. */
void gadget_lcnum_scale(gadget_lcnum *n, const fr_t *scale);
/* dst = copy of src (dst must be initialized; its old terms are dropped). */
cuzk_status gadget_lcnum_copy(gadget_lcnum *dst, const gadget_lcnum *src, cuzk_error *err);

#endif
