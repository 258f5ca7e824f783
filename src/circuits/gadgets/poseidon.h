/* The Poseidon gadget, constraint-for-constraint neptune's circuit::poseidon_hash (the "Legacy" circuit, which
 * rust-fil-proofs' filecoin-hashers calls for every Poseidon hash in its circuits: tree nodes, column hashes,
 * comm_r = H(comm_c, comm_r_last)).
 *
 * Structure (neptune circuit.rs, OptimizedStatic constants from circuits/hash/poseidon.h):
 *  - the state holds either allocated numbers or linear combinations (Elt::Allocated / Elt::Num); the linear
 *    layers (MDS, pre-sparse, sparse matrices) only build linear combinations, never constraints;
 *  - first full round: the tag element's S-box is computed as a constant; every preimage element x gets
 *    (x + k)^2, ^4, (x + k) * ^4 + k' with the pre- and post-round keys folded in: 3 constraints;
 *  - every later S-box first allocates its input linear combination (1 constraint: lc * ONE = v), then
 *    squares twice and multiplies, adding the post-round key if any: 4 constraints;
 *  - the output state[1] is allocated the same way (1 constraint).
 * Total 3 arity + 4 ((R_F - 1) t + R_P) + 1 = 311, 377, 505, 598 constraints for arities 2, 4, 8, 11. */
#ifndef CUZK_CIRCUITS_GADGETS_POSEIDON_H
#define CUZK_CIRCUITS_GADGETS_POSEIDON_H

#include "circuits/gadgets/num.h"
#include "circuits/hash/poseidon.h"

/* preimage: pc->arity allocated numbers. out: the new variable holding the hash (poseidon_hash of the values). */
cuzk_status gadget_poseidon_hash(r1cs *cs, const gadget_num *preimage, const poseidon_constants *pc, gadget_num *out,
                                 cuzk_error *err);

#endif
