/* Rank-1 constraint systems: a builder (allocate variables with values, enforce
 * a*b = c over linear combinations) and the compiled form (CSR matrices over a
 * table of distinct coefficients), bellperson's density masks, and the
 * evaluation of a, b, c from a witness.
 *
 * Variable indexing follows bellperson: inputs first (input 0 is the constant
 * ONE, allocated by r1cs_create), then aux. In the CSR form of a finalized
 * system a column index j < num_inputs is input j, and j >= num_inputs is aux
 * j - num_inputs. (While a system is being built, inputs may still be
 * allocated after aux variables are used, so the builder keeps columns tagged
 * by kind and r1cs_finalize rewrites them into this layout.)
 *
 * How bellperson treats linear combinations, and therefore what this layer
 * reproduces (bellpepper-core 0.2 src/lc.rs; bellperson d1fa22c src/lc.rs
 * eval_with_trackers and src/groth16/prover/mod.rs; ec-gpu-gen
 * multiexp_cpu.rs DensityTracker):
 *  - A LinearCombination is two sorted maps (inputs, aux) from variable index
 *    to coefficient. Adding a variable that is already present adds the
 *    coefficients (x + x is the single term 2x); a term whose sum becomes
 *    zero stays in the map with coefficient zero.
 *  - The prover's enforce evaluates A and B with eval_with_trackers, which
 *    skips zero-coefficient terms entirely (no contribution, no density bit)
 *    since the zero-coefficient fix (bellperson #307, Aug 2023); C is
 *    evaluated without trackers. Multiplying by a zero coefficient would add
 *    nothing to a/b/c either, so dropping merged-zero terms from the matrices
 *    gives exactly bellperson's a/b/c values and densities; the builder does
 *    that, and the coefficient table never holds zero.
 *  - Densities: a_aux (A, aux only: "inputs have full density in the A
 *    query"), b_input and b_aux (B). DensityTracker::inc sets bit i once and
 *    counts it once; a BitVec<usize, Lsb0> on 64-bit hosts puts bit i in word
 *    i/64 at bit i%64, exactly our layout. C has no density.
 *  - After synthesis the prover appends one constraint per input i (ONE
 *    included): A = input_i, B = 0, C = 0. These rows count in a/b/c (a gets
 *    the input value, b = c = 0) but set no density bit (A tracks aux only,
 *    B is empty). r1cs_finalize appends them the same way.
 *
 * Ways to hold a system:
 *  - full (r1cs_create with_witness = 1): matrices and variable values;
 *  - shape only (r1cs_create with_witness = 0): matrices, no values (setup,
 *    or compiling a circuit once);
 *  - witness only (r1cs_create_witness_only): the same synthesis code runs
 *    with the same calls, but r1cs_enforce only counts the constraint and
 *    records no row, so synthesis costs only the witness computation. The
 *    a/b/c of such a witness are evaluated against a shape compiled earlier
 *    from the same circuit: check with r1cs_check_witness, then call
 *    r1cs_eval_abc(pool, shape, wit.inputs, wit.aux, ...);
 *  - checker (r1cs_create_checker): values are kept and r1cs_enforce evaluates a * b = c on the spot, keeping
 *    only the index of the first failing constraint and the number of failures (r1cs_checker_result), so a
 *    circuit of any size is checked with memory for its values alone. Gadgets build their linear combinations
 *    as in full mode (witness_only is 0), so the checker sees exactly the rows a full build would store.
 * Generators and file readers that know the sizes up front skip the builder
 * with r1cs_create_compiled and write the arrays directly.
 *
 * Not thread-safe while building; a finalized system is read-only and may be
 * shared between threads. */
#ifndef CUZK_R1CS_R1CS_H
#define CUZK_R1CS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "util/pool.h"

typedef enum r1cs_var_kind { R1CS_INPUT = 0, R1CS_AUX = 1 } r1cs_var_kind;

typedef struct r1cs_var {
    r1cs_var_kind kind;
    uint32_t index;
} r1cs_var;

/* The constant ONE (input 0). */
static inline r1cs_var r1cs_one(void)
{
    r1cs_var v = {R1CS_INPUT, 0};
    return v;
}

/* A linear combination under construction: sum coeff_k * var_k (repeats allowed; merged when enforced). */
typedef struct r1cs_lc {
    size_t len, cap;
    r1cs_var *vars;
    fr_t *coeffs;
} r1cs_lc;

void r1cs_lc_init(r1cs_lc *lc);
void r1cs_lc_free(r1cs_lc *lc);
void r1cs_lc_clear(r1cs_lc *lc);
/* Appends coeff * v; coeff NULL means 1 (the common case in gadgets). CUZK_ERR_NOMEM if it cannot grow. */
cuzk_status r1cs_lc_add(r1cs_lc *lc, r1cs_var v, const fr_t *coeff, cuzk_error *err);

/* One sparse matrix in CSR form; values are indices into the system's coefficient table. */
typedef struct r1cs_matrix {
    size_t rows;
    uint64_t *row_start; /* rows + 1 entries */
    uint32_t *col;       /* variable column (see above) */
    uint32_t *coeff;     /* index into r1cs.coeffs */
} r1cs_matrix;

typedef struct r1cs {
    size_t num_inputs, num_aux, num_constraints;
    r1cs_matrix A, B, C; /* rows == num_constraints, except in witness-only mode (rows == 0) */
    size_t num_coeffs, cap_coeffs;
    fr_t *coeffs; /* distinct non-zero coefficients; coeffs[0] == 1 */
    /* witness; empty when the system holds only the shape */
    size_t cap_inputs, cap_aux;
    fr_t *inputs, *aux;
    int has_witness;
    int witness_only;                       /* no matrices: enforce only counts */
    int checker;                            /* no matrices: enforce evaluates the constraint (r1cs_create_checker) */
    size_t check_failures, check_first_bad; /* checker: failing constraints so far, the first (SIZE_MAX: none) */
    int finalized;    /* r1cs_finalize succeeded: the shape is frozen and columns are in final layout */
    int aux_borrowed; /* aux is the caller's memory (r1cs_create_witness_only_at): never grown nor freed */
    void *builder;    /* private construction state; NULL once finalized */
} r1cs;

/* Creates an empty system with the ONE input (value 1). with_witness: whether values are kept.
 * On failure *cs is left empty (r1cs_free is still safe). */
cuzk_status r1cs_create(r1cs *cs, int with_witness, cuzk_error *err);
/* Creates an empty witness-only system (see the top of this file). */
cuzk_status r1cs_create_witness_only(r1cs *cs, cuzk_error *err);
/* A witness-only system whose aux values go straight to aux[0 .. cap_aux), memory the caller owns: one piece of a
 * larger witness synthesized in its place, with no growth and no copy. Allocating aux beyond cap_aux fails
 * (CUZK_ERR_INTERNAL); r1cs_free leaves aux alone. Inputs are kept in the system's own array as usual. */
cuzk_status r1cs_create_witness_only_at(r1cs *cs, fr_t *aux, size_t cap_aux, cuzk_error *err);
/* Witness-only systems: numbers n_aux aux variables and n_constraints constraints as if a gadget had allocated and
 * enforced them, writing no value (a piece synthesized elsewhere writes them). CUZK_ERR_INVALID_ARG in other modes,
 * CUZK_ERR_INTERNAL beyond a borrowed capacity. */
cuzk_status r1cs_witness_skip(r1cs *cs, size_t n_aux, size_t n_constraints, cuzk_error *err);
/* Creates a pure counter: variables and constraints are numbered, nothing else is stored (no matrices, no
 * values), so synthesis of any size needs no memory per variable or constraint. For circuit-info counts. */
cuzk_status r1cs_create_counter(r1cs *cs, cuzk_error *err);
/* Creates an empty checker (see the top of this file). */
cuzk_status r1cs_create_checker(r1cs *cs, cuzk_error *err);
/* For a checker: 1 if every constraint enforced so far holds, else 0 with *first_bad (may be NULL) the index of the
 * first failing constraint in enforce order (the row r1cs_is_satisfied would name) and *failures (may be NULL)
 * their number. For a system of another mode: 0, *first_bad = SIZE_MAX, *failures = 0. */
int r1cs_checker_result(const r1cs *cs, size_t *first_bad, size_t *failures);
/* Frees everything; leaves *cs zeroed. Safe on a zeroed or failed system. */
void r1cs_free(r1cs *cs);
/* value may be NULL in shape-only mode (and is ignored there); it is required when values are kept.
 * Indices are limited to 2^31 - 1 per kind. */
cuzk_status r1cs_alloc_input(r1cs *cs, const fr_t *value, r1cs_var *out, cuzk_error *err);
cuzk_status r1cs_alloc_aux(r1cs *cs, const fr_t *value, r1cs_var *out, cuzk_error *err);
/* The value of lc under cs's kept values (every variable allocated; cs has a witness). The checker's evaluation:
 * terms on zero values are skipped, unit coefficients and values of one add without a multiplication. */
void r1cs_lc_eval(const r1cs *cs, const r1cs_lc *lc, fr_t *out);
/* Appends constraint a * b = c (NULL stands for an empty combination). Repeated variables inside one LC are merged
 * by adding their coefficients and terms whose merged coefficient is zero are dropped (see above). Every variable
 * must have been allocated (CUZK_ERR_INVALID_ARG otherwise). In witness-only mode only the count grows; in checker
 * mode the constraint is evaluated and a failure recorded (not an error). */
cuzk_status r1cs_enforce(r1cs *cs, const r1cs_lc *a, const r1cs_lc *b, const r1cs_lc *c, cuzk_error *err);
/* The index of value in the coefficient table, adding it if new. value must be non-zero. For writers of
 * compiled systems (the builder calls it itself). Not available once finalized. */
cuzk_status r1cs_coeff_intern(r1cs *cs, const fr_t *value, uint32_t *index, cuzk_error *err);
/* Appends bellperson's input constraints (input_i * 0 = 0 for each input) and freezes the shape.
 * Must be called once after synthesis, before the density or evaluation functions. For a system from
 * r1cs_create_compiled it first validates what the caller wrote (CUZK_ERR_INVALID_ARG naming the matrix and
 * row of the first defect). */
cuzk_status r1cs_finalize(r1cs *cs, cuzk_error *err);

/* What r1cs_create_compiled allocates. */
#define R1CS_MATRICES 1u
#define R1CS_WITNESS 2u

/* Creates a system of known size whose arrays the caller fills directly: num_inputs counts ONE;
 * num_synth_constraints and nnz[0..2] (A, B, C) count the synthesized rows only, without the input
 * constraints, which r1cs_finalize appends. With R1CS_MATRICES the caller writes A/B/C.row_start[1 ..
 * num_synth_constraints] (row_start[0] is 0; row_start[num_synth_constraints] must equal nnz), col[] in the
 * final layout (inputs then aux) and coeff[] for the first nnz entries, interning coefficients with
 * r1cs_coeff_intern. With R1CS_WITNESS the caller writes inputs[1 .. num_inputs-1] (inputs[0] is set to
 * ONE) and aux[]. Without R1CS_MATRICES the result is a witness-only system. Then r1cs_finalize. */
cuzk_status r1cs_create_compiled(r1cs *cs, size_t num_inputs, size_t num_aux, size_t num_synth_constraints,
                                 const size_t nnz[3], unsigned what, cuzk_error *err);

/* Checks that wit (finalized, with values) is a witness for shape (finalized, with matrices): the same
 * numbers of inputs, aux and constraints. CUZK_ERR_INVALID_ARG saying which differs. */
cuzk_status r1cs_check_witness(const r1cs *shape, const r1cs *wit, cuzk_error *err);

/* Density vectors as bellperson builds them (bit set the first time a variable appears with a
 * non-zero coefficient): a over aux, b over inputs, b over aux. Each is ceil(len/64) words (at least one),
 * allocated by the call and freed with r1cs_density_free. The input constraints set no bit (see above). */
typedef struct r1cs_density {
    uint64_t *a_aux, *b_input, *b_aux;
    size_t a_aux_count, b_input_count, b_aux_count; /* popcounts */
} r1cs_density;
cuzk_status r1cs_compute_density(const r1cs *cs, r1cs_density *out, cuzk_error *err);
void r1cs_density_free(r1cs_density *d);

/* a[i], b[i], c[i] = row i of A, B, C times the witness (inputs ++ aux), for i < num_constraints
 * (including the input constraints). Outputs have num_constraints entries each.
 * inputs/aux: the witness to use (may be the system's own, or a witness-only system's).
 * Multi-threaded over pool (NULL: the caller's thread). Terms with coefficient 1, and witness values 0 or
 * 1, take paths without a multiplication. */
cuzk_status r1cs_eval_abc(pool_t *pool, const r1cs *cs, const fr_t *inputs, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c,
                          cuzk_error *err);

/* 1 if every constraint holds for the given witness; otherwise 0 and *bad_row (may be NULL) is the first
 * failing row. A system that is not finalized or has no matrices gives 0 with *bad_row == SIZE_MAX. */
int r1cs_is_satisfied(pool_t *pool, const r1cs *cs, const fr_t *inputs, const fr_t *aux, size_t *bad_row);

/* bellpepper-core's TestConstraintSystem::hash() of cs (finalized, with matrices), as rust-fil-proofs' tests compute
 * it on the circuit they synthesize: BLAKE2s-256 over u64 BE inputs (ONE included), aux and constraints, then per
 * constraint A, B, C: u64 BE term count and per term 'I' or 'A', u64 BE index, coefficient 32 bytes big-endian;
 * terms inputs first then aux by index, repeated variables summed, zero coefficients dropped. The input constraints
 * r1cs_finalize appended (the last num_inputs rows) are left out: TestConstraintSystem has none. */
#define R1CS_HASH_BYTES 32
cuzk_status r1cs_bellperson_hash(const r1cs *cs, uint8_t out[R1CS_HASH_BYTES], cuzk_error *err);
/* Lowercase hex, as hash() returns it. */
void r1cs_hash_hex(const uint8_t hash[R1CS_HASH_BYTES], char out[2 * R1CS_HASH_BYTES + 1]);

/* Test hook: the n-th allocation from now made by this layer (and by circuits built on it) fails, as if
 * the system were out of memory; n < 0 disables. Not thread-safe; for tests of the CUZK_ERR_NOMEM paths. */
void r1cs_test_fail_alloc_after(long n);
/* malloc / realloc / calloc honouring the hook above (for src/circuits). */
void *r1cs_xmalloc(size_t n);
void *r1cs_xrealloc(void *p, size_t n);
void *r1cs_xcalloc(size_t count, size_t size);

#endif
