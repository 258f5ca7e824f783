/* Random satisfiable R1CS of many shapes, for the tests of everything that consumes a constraint system
 * (Groth16 setup, prover, verifier, a/b/c evaluation, densities).
 *
 * Construction: variables first (inputs and aux with random values, drawn from a mix of 0, 1, small
 * integers and full-width field elements), then each constraint draws random linear combinations a and b
 * over the allocated variables and a random c, and then adds (a*b - c) * ONE to c so that the row holds.
 * Every aux variable is placed in the C of some constraint (round-robin) so that none is unconstrained
 * (bellperson's setup rejects an aux whose L base is the identity) whenever there is at least one
 * synthesized constraint. */
#ifndef CUZK_CIRCUITS_RANDOM_CIRCUIT_H
#define CUZK_CIRCUITS_RANDOM_CIRCUIT_H

#include <stddef.h>

#include "cuzk/status.h"
#include "r1cs/r1cs.h"
#include "util/rng.h"

/* Edge shapes. */
#define RC_EMPTY_DENSITY 1u  /* A holds inputs only and B is empty: all three density masks are zero */
#define RC_REPEATED_VARS 2u  /* LCs repeat variables, including pairs that cancel to a zero coefficient */
#define RC_BOOLEAN_VALUES 4u /* witness values are 0 or 1 only (the batch-addition path of the prover) */
#define RC_UNIT_COEFFS 8u    /* every coefficient is 1 or -1 (plus the balancing ONE term) */

typedef struct random_circuit_params {
    size_t num_inputs;      /* public inputs besides ONE (0: only ONE) */
    size_t num_aux;         /* 0 gives a circuit over public inputs only */
    size_t num_constraints; /* synthesized constraints, before the num_inputs + 1 input constraints */
    size_t max_terms;       /* largest LC before balancing (0: 4) */
    unsigned flags;         /* RC_* */
} random_circuit_params;

/* Builds the circuit into *out (full mode: matrices and witness) and finalizes it. On failure *out is left
 * empty. CUZK_ERR_INVALID_ARG for sizes above 2^31 - 1. */
cuzk_status random_circuit_build(rng_t *rng, const random_circuit_params *p, r1cs *out, cuzk_error *err);

/* Draws parameters for the next shape of a sweep: shape_index 0, 1, 2, ... cycles through the edge shapes
 * (one constraint, only public inputs, empty densities, repeated variables, boolean witness, sizes just off
 * powers of two, ...) with sizes up to about max_size constraints. */
void random_circuit_shape(rng_t *rng, unsigned shape_index, size_t max_size, random_circuit_params *p);

/* Number of shapes random_circuit_shape cycles through. */
#define RC_NUM_SHAPES 10u

#endif
