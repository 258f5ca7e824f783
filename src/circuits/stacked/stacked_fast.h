/* Fast synthesis of a StackedDRG partition for proving: the witness synthesized in parallel pieces, and the
 * matrices compiled once from the top level and two challenge blocks instead of from every challenge.
 *
 * Both rest on the structure of stacked_synthesize: a top level that allocates every variable a challenge refers
 * to outside itself (replica_id and its bits, comm_d, comm_c, comm_r_last), then one block per challenge that
 * depends only on the top level and its own challenge's values. Block i's constraints, aux and inputs come right
 * after block i - 1's, and all blocks have the same size and the same constraints up to these offsets. The shape
 * compiler checks this on the first two blocks rather than trusting it, and fails with CUZK_ERR_UNSUPPORTED if a
 * circuit breaks it; the witness checks every piece's size against a count made without values
 * (CUZK_ERR_INTERNAL if one differs).
 *
 * The witness's pieces are the segments of stacked.h's parts (per challenge: columns, the label of each layer, the
 * finish), n * (layers + 2) of them (216 for 32 GiB: none above 1.5 million of the 130 million constraints), so 16
 * threads stay busy although 18 challenges do not divide among them. Each piece runs in a witness-only system of
 * its own holding the top level and stand-ins for what it reads, and its values are copied to their place: the
 * transient memory is one piece per thread (<= 64 MB at 32 GiB). */
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
