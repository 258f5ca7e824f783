/* The SnapDeals EmptySectorUpdate partition circuit as the engine proves it: the circuit of a sector size, its
 * shape compiled once, and a synthesis function turning partition k of a parsed request (the vanilla proofs and
 * the three commitments) into a witness-only system, challenge blocks in parallel on the circuit's pool. The params
 * must be those of the same circuit (the published v28-empty-sector-update .params for 32/64 GiB, or
 * `cuzk setup --circuit snap:SIZE` for a test size). */
#ifndef CUZK_ENGINE_SNAP_H
#define CUZK_ENGINE_SNAP_H

#include "engine/engine.h"
#include "formats/snap_vanilla.h"

/* A parsed, fully validated request: every partition's proof has passed snap_witness_from_proof. */
typedef struct engine_snap_job {
    const update_geometry *g;
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
    unsigned partitions;
    snap_partition_proof *proofs;
} engine_snap_job;

/* proofs: n bincode PartitionProofs (n must be the size's partition count); commitments 32 bytes each.
 * CUZK_ERR_FORMAT / CUZK_ERR_INVALID_ARG naming the partition, challenge and field. Free with engine_snap_job_free
 * (safe on a zeroed or failed job). */
cuzk_status engine_snap_job_parse(engine_snap_job *job, const update_geometry *g, const uint8_t *const *proofs,
                                  const size_t *lens, size_t n, const uint8_t *comm_r_old, size_t comm_r_old_len,
                                  const uint8_t *comm_r_new, size_t comm_r_new_len, const uint8_t *comm_d_new,
                                  size_t comm_d_new_len, cuzk_error *err);
void engine_snap_job_free(engine_snap_job *job);

/* The public inputs of partition k as a verifier derives them from the commitments alone (k_and_h_select with
 * h = hs[3], comm_r_old, comm_d_new, comm_r_new): out[UPDATE_NUM_PUBLIC_INPUTS]. CUZK_ERR_FORMAT for a commitment
 * not below r, CUZK_ERR_INVALID_ARG for k out of range. */
cuzk_status engine_snap_public_inputs(const update_geometry *g, unsigned k, const uint8_t comm_r_old[32],
                                      const uint8_t comm_r_new[32], const uint8_t comm_d_new[32], fr_t *out,
                                      cuzk_error *err);

typedef struct engine_snap_circuit engine_snap_circuit;

/* Compiles the shape of g's circuit and wraps it with params (borrowed; checked against the circuit). pool: for
 * synthesis (borrowed until free). */
cuzk_status engine_snap_circuit_create(const update_geometry *g, const groth16_params *params, pool_t *pool,
                                       engine_snap_circuit **out, cuzk_error *err);
const engine_circuit *engine_snap_circuit_get(const engine_snap_circuit *sc);
const update_geometry *engine_snap_circuit_geometry(const engine_snap_circuit *sc);
void engine_snap_circuit_free(engine_snap_circuit *sc);

/* An engine request for job (borrowed until engine_wait); the job's sector size must be the circuit's. */
cuzk_status engine_snap_request(const engine_snap_circuit *sc, const engine_snap_job *job, engine_priority prio,
                                engine_request *out, cuzk_error *err);

#endif
