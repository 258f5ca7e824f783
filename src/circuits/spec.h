/* Circuit specifications as the command-line tools take them, e.g.
 *   synthetic:k=20            the synthetic PoRep-shaped circuit of 2^20 rows (seed 1)
 *   synthetic:k=20,seed=7
 * One parser for every program, so a spec means the same thing everywhere. */
#ifndef CUZK_CIRCUITS_SPEC_H
#define CUZK_CIRCUITS_SPEC_H

#include <stdint.h>

#include "cuzk/status.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

typedef enum circuit_kind { CIRCUIT_SYNTHETIC } circuit_kind;

typedef struct circuit_spec {
    circuit_kind kind;
    unsigned k;
    uint64_t seed;
} circuit_spec;

/* CUZK_ERR_INVALID_ARG with a message naming the bad part. */
cuzk_status circuit_spec_parse(const char *text, circuit_spec *out, cuzk_error *err);
/* Canonical text of a spec ("synthetic:k=20,seed=1"). */
void circuit_spec_format(const circuit_spec *spec, char *buf, size_t len);
/* Builds and finalizes the circuit. what: R1CS_MATRICES and/or R1CS_WITNESS. */
cuzk_status circuit_spec_build(pool_t *pool, const circuit_spec *spec, unsigned what, r1cs *out, cuzk_error *err);

#endif
