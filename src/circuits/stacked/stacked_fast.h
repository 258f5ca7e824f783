/* Fast synthesis of a StackedDRG partition for proving: the witness with the challenges synthesized in parallel,
 * and the matrices compiled once from the top level and a single challenge block instead of from every challenge.
 *
 * Both rest on the structure of stacked_synthesize: a top level that allocates every variable a challenge refers
 * to outside itself (replica_id and its bits, comm_d, comm_c, comm_r_last), then one block per challenge that
 * depends only on the top level and its own challenge's values. Block i's constraints, aux and inputs come right
 * after block i - 1's, and all blocks have the same size and the same constraints up to these offsets. The shape
 * compiler checks this on the first two blocks rather than trusting it, and fails with CUZK_ERR_UNSUPPORTED if a
 * circuit breaks it. */
#ifndef CUZK_CIRCUITS_STACKED_STACKED_FAST_H
#define CUZK_CIRCUITS_STACKED_STACKED_FAST_H

#include "circuits/stacked/stacked.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

/* Witness-only system for partition witness w (NULL: zero values, as stacked_synthesize), challenges synthesized
 * in parallel on pool (NULL: the caller's thread); identical (every input and aux value, counts) to
 * stacked_synthesize into r1cs_create_witness_only + r1cs_finalize. out is finalized; free with r1cs_free. */
cuzk_status stacked_synthesize_witness(pool_t *pool, const stacked_circuit *c, const stacked_witness *w, r1cs *out,
                                       cuzk_error *err);

/* The finalized shape (matrices, no values) of the partition circuit, without synthesizing every challenge: the
 * top level and two challenge blocks are compiled, the second block is checked to equal the first shifted, and the
 * block is replicated with shifted columns (in parallel on pool). Identical to stacked_synthesize into a
 * shape-only r1cs + r1cs_finalize. */
cuzk_status stacked_compile_shape(pool_t *pool, const stacked_circuit *c, r1cs *out, cuzk_error *err);

#endif
