/* A synthetic R1CS shaped like one Filecoin PoRep partition (32 GiB: 130,278,869 constraints, 328 inputs, A/B/C
 * ~2.37/1.00/2.17 non-zeros per row, ~79% SHA-256 labelling, ~19% SHA-256 TreeD, the rest Poseidon), for
 * benchmarks from 2^1 to 2^27 constraints. Deterministic from (k, seed); its witness satisfies it.
 *
 * Layout (gadgets as bellperson writes them; all boolean variables are aux):
 *  - header: per public input, 32 bits with boolean constraints (1 - b) * b = 0 and the packing
 *    input * ONE = sum 2^i b_i;
 *  - units, independent of each other (generated in parallel), each: 7 words of 32 allocated bits; two
 *    Poseidon-like permutations (width 3, 7 full rounds of x^5: x*x = x2, x2*x2 = x4, x4*x = x5 with x a
 *    4-term combination of the state through a random MDS matrix plus a round constant on ONE) over the
 *    packed words; 16 SHA-256-like rounds: Sigma0/Sigma1 as two XORs per bit ((a + a) * b = a + b - c),
 *    Ch (a * (b - c) = ch - c), Maj (b AND c, then (2bc - b - c) * a = bc - maj), and two additions mod 2^32
 *    as bellperson's uint32 addmany: 34/35 result bits with boolean constraints and one multieq row
 *    (sum 2^i operand bits) * ONE = sum 2^i result bits;
 *  - a last unit cut short at a gadget boundary where the row budget ends, then boolean filler rows.
 *
 * Sizes: num_constraints, including the input constraints, is 2^k - 2^(k-5) for k >= 5 (so the
 * FFT domain is 2^k, filled to 96.9% as PoRep fills 2^27 to 97.1%) and 2^k below; num_inputs is 9 (ONE and
 * 8 packed public inputs) for k >= 12, 2 for 6 <= k < 12, 1 below. A full unit has 5,076 rows and 5,044 aux
 * (4,912 boolean). For k >= 17, per row A/B/C hold 2.53/1.15/1.96 non-zeros; num_aux is 99.4% of
 * num_constraints; 97.4% of the aux values are 0 or 1 (2.5% are full-width x2/x4/x5 values, 0.1% packed
 * 32-bit words); 47% of the non-zeros have coefficient 1, most others -1 or a power of two (multieq rows).
 * At k = 27: 130,023,424 constraints, 9 inputs, 129,203,721 aux; k = 24: 16,252,928 constraints.
 * (synthetic_info_get reports exact figures for any k.)
 *
 * Memory: exactly sized arrays, no growth: 8 bytes per non-zero, 24 bytes per row, 32 bytes per variable
 * (about 13 GiB at k = 27 with the witness). Generation runs the units over the pool and costs about 90 ns of
 * CPU per constraint (measured at k = 20 and 24 on one core, first touch of the memory included); witness-only
 * about 25 ns. */
#ifndef CUZK_CIRCUITS_SYNTHETIC_H
#define CUZK_CIRCUITS_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

#define SYNTHETIC_MIN_K 1
#define SYNTHETIC_MAX_K 27

typedef struct synthetic_info {
    size_t num_constraints; /* including the input constraints */
    size_t num_inputs;      /* including ONE */
    size_t num_aux;
    size_t num_bool_aux;   /* aux whose value is 0 or 1 by construction */
    size_t nnz[3];         /* A, B, C, including the input constraints */
    size_t nnz_unit_coeff; /* non-zeros whose coefficient is 1 */
    size_t num_units;      /* full units */
} synthetic_info;

/* The sizes of the circuit for k, without building it. CUZK_ERR_INVALID_ARG for k outside 1..27. */
cuzk_status synthetic_info_get(unsigned k, synthetic_info *info, cuzk_error *err);

/* Builds the circuit for (k, seed) into *out, finalized. what: R1CS_MATRICES and/or R1CS_WITNESS
 * (r1cs_create_compiled); without R1CS_MATRICES the result is a witness-only system that
 * r1cs_check_witness accepts against a shape built from the same k. The same seed gives the same witness in
 * every mode. On failure *out is left empty. */
cuzk_status synthetic_build(pool_t *pool, unsigned k, uint64_t seed, unsigned what, r1cs *out, cuzk_error *err);

#endif
