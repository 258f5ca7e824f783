/* The PoRep C2 partition circuit as the engine proves it: the StackedDRG circuit of a proof type, its shape
 * compiled once, and a synthesis function that turns partition k of a parsed C1 (the request's payload) into a
 * witness-only system. The params must be those of the same circuit (bellperson's published .params for a
 * published size, or `cuzk setup --circuit porep:SIZE` for a test size). */
#ifndef CUZK_ENGINE_POREP_H
#define CUZK_ENGINE_POREP_H

#include "circuits/porep/c1.h"
#include "circuits/porep/geometry.h"
#include "engine/engine.h"

typedef struct engine_porep_circuit engine_porep_circuit;

/* Compiles the partition circuit's shape for a proof type (sector size + API version + interactive/non-interactive
 * from circuits/porep/geometry.h) once and wraps it with params into an engine_circuit. pool: for compiling (and,
 * borrowed until engine_porep_circuit_free, for the parallel parts of synthesis). params are borrowed and must
 * match the circuit (CUZK_ERR_INVALID_ARG naming the mismatch). */
cuzk_status engine_porep_circuit_create(const porep_proof_type *type, const groth16_params *params, pool_t *pool,
                                        engine_porep_circuit **out, cuzk_error *err);
const engine_circuit *engine_porep_circuit_get(const engine_porep_circuit *pc);
/* The proof type the circuit was created for. */
const porep_proof_type *engine_porep_circuit_type(const engine_porep_circuit *pc);
/* NULL is allowed. */
void engine_porep_circuit_free(engine_porep_circuit *pc);

/* An engine_request for a parsed C1 (payload = the porep_c1, partitions = its partition count); the C1 must match
 * the circuit's proof type (CUZK_ERR_INVALID_ARG naming what differs). The C1 is borrowed until engine_wait. */
cuzk_status engine_porep_request(const engine_porep_circuit *pc, const porep_c1 *c1, engine_priority prio,
                                 engine_request *out, cuzk_error *err);

/* The public inputs of partition k (without ONE), for verification: *out is malloc'd (free()), *n = 3 + 18 x the
 * C1's challenges per partition. CUZK_ERR_INVALID_ARG for k out of range, CUZK_ERR_FORMAT for a value not below r. */
cuzk_status engine_porep_public_inputs(const porep_c1 *c1, unsigned k, fr_t **out, size_t *n, cuzk_error *err);

#endif
