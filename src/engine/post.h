/* WindowPoSt and WinningPoSt as the engine proves them: the fallback PoSt circuit of a proof type (shape compiled
 * once, sectors synthesized in parallel into their own variable ranges), and jobs made from a request's decoded
 * vanilla proofs (formats/post_vanilla.h) after every semantic check a prover's vanilla verification makes, so that
 * a bad vanilla proof is a message naming the sector, challenge and field, never a proof. The params must be those
 * of the same circuit (the published .params, or `cuzk setup --circuit wpost:SIZE|winning:SIZE`). */
#ifndef CUZK_ENGINE_POST_H
#define CUZK_ENGINE_POST_H

#include "circuits/post/post_public.h"
#include "engine/engine.h"
#include "formats/post_vanilla.h"

/* One request, validated, with the circuit's witness built: payload of engine_post_request. */
typedef struct engine_post_job {
    const post_proof_type *type;
    uint8_t randomness[32];
    size_t n;                    /* the request's sectors */
    post_public_sector *sectors; /* n: sector_id, comm_r */
    post_circuit circuit;        /* the circuit the witness is for (its Poseidon constants hash the checks) */
    post_witness witness;
} engine_post_job;

/* Validates the decoded vanilla proofs v of one request (the structural part is post_vanilla_decode's) against
 * randomness (32 bytes; Curio clears the top two bits of byte 31) and builds the witness; the checks run in
 * parallel over sectors on pool (NULL: this thread):
 *   - the sector count (Window: 1 .. sector_count; Winning: 1) and t->challenges proofs per sector;
 *   - the path shape of the type's TreeR (levels, arity per level);
 *   - every value below r; every root = comm_r_last;
 *   - Poseidon2(comm_c, comm_r_last) = comm_r;
 *   - every path's leaf index = the challenge derived from randomness, the sector id and its position.
 * CUZK_ERR_INVALID_ARG (count, shape), CUZK_ERR_FORMAT (not below r) or CUZK_ERR_INVALID_PROOF (hashes,
 * challenges), naming the sector (position and id), the challenge and the field. That every path hashes from its
 * leaf to comm_r_last (10 Poseidon hashes a path, 4 s of one core for 32 GiB) is checked where the witness
 * computes those hashes anyway, in the parallel synthesis (post_synth_sector: an error naming the circuit's
 * sector and challenge). Free with engine_post_job_free. */
cuzk_status engine_post_job_create(engine_post_job **out, const post_vanilla *v, const uint8_t randomness[32],
                                   pool_t *pool, cuzk_error *err);
void engine_post_job_free(engine_post_job *j); /* NULL is allowed */
/* The public inputs (without ONE) a verifier derives from the job's public values (post_public_inputs). */
cuzk_status engine_post_job_public_inputs(const engine_post_job *j, fr_t **out, size_t *n, cuzk_error *err);

typedef struct engine_post_circuit engine_post_circuit;

/* Compiles the circuit of proof type t (Window V1 and V1_1 of a size share it) and wraps it with params
 * (borrowed; checked against the circuit: CUZK_ERR_INVALID_ARG naming the mismatch). pool: for compiling and,
 * borrowed until engine_post_circuit_free, for the parallel synthesis. */
cuzk_status engine_post_circuit_create(const post_proof_type *t, const groth16_params *params, pool_t *pool,
                                       engine_post_circuit **out, cuzk_error *err);
const engine_circuit *engine_post_circuit_get(const engine_post_circuit *pc);
const post_proof_type *engine_post_circuit_type(const engine_post_circuit *pc);
void engine_post_circuit_free(engine_post_circuit *pc); /* NULL is allowed */

/* The engine request (one partition) of job over pc; CUZK_ERR_INVALID_ARG when the job's kind or sector size is
 * not the circuit's. job is borrowed until engine_wait. */
cuzk_status engine_post_request(const engine_post_circuit *pc, const engine_post_job *job, engine_priority prio,
                                engine_request *out, cuzk_error *err);

#endif
