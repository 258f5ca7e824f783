/* Rank-1 constraint systems: a builder (allocate variables with values, enforce
 * a*b = c over linear combinations) and the compiled form (CSR matrices over a
 * table of distinct coefficients), bellperson's density masks, and the
 * evaluation of a, b, c from a witness.
 *
 * Variable indexing follows bellperson: inputs first (input 0 is the constant
 * ONE, allocated by r1cs_create), then aux. In the CSR form a column index
 * j < num_inputs is input j, and j >= num_inputs is aux j - num_inputs. */
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

/* A linear combination under construction: sum coeff_k * var_k (repeats allowed; merged when enforced). */
typedef struct r1cs_lc {
    size_t len, cap;
    r1cs_var *vars;
    fr_t *coeffs;
} r1cs_lc;

void r1cs_lc_init(r1cs_lc *lc);
void r1cs_lc_free(r1cs_lc *lc);
void r1cs_lc_clear(r1cs_lc *lc);
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
    r1cs_matrix A, B, C;
    size_t num_coeffs, cap_coeffs;
    fr_t *coeffs; /* distinct coefficients; coeffs[0] == 1 */
    /* witness; empty when the system holds only the shape */
    size_t cap_inputs, cap_aux;
    fr_t *inputs, *aux;
    int has_witness;
    void *builder; /* private construction state */
} r1cs;

/* Creates an empty system with the ONE input (value 1). with_witness: whether values are kept. */
cuzk_status r1cs_create(r1cs *cs, int with_witness, cuzk_error *err);
void r1cs_free(r1cs *cs);
/* value may be NULL in shape-only mode. */
cuzk_status r1cs_alloc_input(r1cs *cs, const fr_t *value, r1cs_var *out, cuzk_error *err);
cuzk_status r1cs_alloc_aux(r1cs *cs, const fr_t *value, r1cs_var *out, cuzk_error *err);
/* Appends constraint a * b = c. */
cuzk_status r1cs_enforce(r1cs *cs, const r1cs_lc *a, const r1cs_lc *b, const r1cs_lc *c, cuzk_error *err);
/* Appends bellperson's input constraints (input_i * 0 = 0 for each input) and freezes the shape.
 * Must be called once after synthesis, before the density or evaluation functions. */
cuzk_status r1cs_finalize(r1cs *cs, cuzk_error *err);

/* Density vectors as bellperson builds them (bit set the first time a variable appears with a
 * non-zero coefficient): a over aux, b over inputs, b over aux. Each is ceil(len/64) words,
 * allocated by the call and freed with free(). */
typedef struct r1cs_density {
    uint64_t *a_aux, *b_input, *b_aux;
    size_t a_aux_count, b_input_count, b_aux_count; /* popcounts */
} r1cs_density;
cuzk_status r1cs_compute_density(const r1cs *cs, r1cs_density *out, cuzk_error *err);
void r1cs_density_free(r1cs_density *d);

/* a[i], b[i], c[i] = row i of A, B, C times the witness (inputs ++ aux), for i < num_constraints
 * (including the input constraints). Outputs have num_constraints entries each.
 * inputs/aux: the witness to use (may be the system's own). Multi-threaded. */
cuzk_status r1cs_eval_abc(pool_t *pool, const r1cs *cs, const fr_t *inputs, const fr_t *aux, fr_t *a, fr_t *b,
                          fr_t *c, cuzk_error *err);

/* 1 if every constraint holds for the given witness; otherwise 0 and *bad_row is the first failing row. */
int r1cs_is_satisfied(pool_t *pool, const r1cs *cs, const fr_t *inputs, const fr_t *aux, size_t *bad_row);

#endif
