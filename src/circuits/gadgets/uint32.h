/* 32-bit words of booleans, constraint-for-constraint bellperson 0.27 gadgets/uint32.rs. Bits are kept least
 * significant first, as there. Only addmany, xor, sha256_ch/maj and alloc create constraints; rotations, shifts
 * and bit reorderings are free. */
#ifndef CUZK_CIRCUITS_GADGETS_UINT32_H
#define CUZK_CIRCUITS_GADGETS_UINT32_H

#include "circuits/gadgets/multieq.h"

typedef struct gadget_u32 {
    gadget_bool bits[32]; /* bits[0] is the least significant */
    uint32_t value;
} gadget_u32;

/* UInt32::constant. */
gadget_u32 gadget_u32_const(uint32_t value);
/* UInt32::alloc: 32 allocated bits, least significant first. */
cuzk_status gadget_u32_alloc(r1cs *cs, uint32_t value, gadget_u32 *out, cuzk_error *err);
/* UInt32::from_bits_be / into_bits_be: bits[0] is the most significant. */
gadget_u32 gadget_u32_from_bits_be(const gadget_bool bits[32]);
void gadget_u32_into_bits_be(const gadget_u32 *w, gadget_bool out[32]);
/* UInt32::from_bits: bits[0] is the least significant. */
gadget_u32 gadget_u32_from_bits(const gadget_bool bits[32]);
/* UInt32::rotr and UInt32::shr (zeros shifted in are constant false). */
gadget_u32 gadget_u32_rotr(const gadget_u32 *w, unsigned by);
gadget_u32 gadget_u32_shr(const gadget_u32 *w, unsigned by);
/* UInt32::xor: Boolean::xor on each bit pair, bit 0 first. */
cuzk_status gadget_u32_xor(r1cs *cs, const gadget_u32 *a, const gadget_u32 *b, gadget_u32 *out, cuzk_error *err);
/* UInt32::sha256_ch / sha256_maj: Boolean::sha256_ch / maj on each bit triple, bit 0 first. */
cuzk_status gadget_u32_sha256_ch(r1cs *cs, const gadget_u32 *a, const gadget_u32 *b, const gadget_u32 *c,
                                 gadget_u32 *out, cuzk_error *err);
cuzk_status gadget_u32_sha256_maj(r1cs *cs, const gadget_u32 *a, const gadget_u32 *b, const gadget_u32 *c,
                                  gadget_u32 *out, cuzk_error *err);
/* UInt32::addmany: the sum of 2..10 operands mod 2^32. If every operand bit is constant the result is a constant
 * and nothing is allocated; otherwise the full sum is allocated as ceil(log2(n (2^32 - 1))) bits (33 to 36), each
 * with its boolean constraint, and (sum of operand bits) = (sum of result bits) goes to the multieq. */
cuzk_status gadget_u32_addmany(gadget_multieq *me, const gadget_u32 *ops, size_t n, gadget_u32 *out, cuzk_error *err);

#endif
