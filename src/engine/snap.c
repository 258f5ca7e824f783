#include "engine/snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct engine_snap_circuit {
    const update_geometry *g;
    pool_t *pool;
    update_circuit uc;
    r1cs shape;
    engine_circuit ec;
};

void engine_snap_job_free(engine_snap_job *job)
{
    for (unsigned k = 0; job->proofs && k < job->partitions; k++) snap_partition_proof_free(&job->proofs[k]);
    free(job->proofs);
    memset(job, 0, sizeof *job);
}

static cuzk_status comm_copy(uint8_t out[32], const uint8_t *in, size_t len, const char *name, cuzk_error *err)
{
    fr_t f;
    if (!in || len != 32)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "SnapDeals request: %s is %zu bytes, not 32", name, in ? len : 0);
    if (fr_from_bytes_le(&f, in))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "SnapDeals request: %s is not below the field modulus", name);
    memcpy(out, in, 32);
    return CUZK_OK;
}

cuzk_status engine_snap_job_parse(engine_snap_job *job, const update_geometry *g, const uint8_t *const *proofs,
                                  const size_t *lens, size_t n, const uint8_t *comm_r_old, size_t comm_r_old_len,
                                  const uint8_t *comm_r_new, size_t comm_r_new_len, const uint8_t *comm_d_new,
                                  size_t comm_d_new_len, cuzk_error *err)
{
    memset(job, 0, sizeof *job);
    job->g = g;
    cuzk_status st;
    if ((st = comm_copy(job->comm_r_old, comm_r_old, comm_r_old_len, "comm_r_old", err)) ||
        (st = comm_copy(job->comm_r_new, comm_r_new, comm_r_new_len, "comm_r_new", err)) ||
        (st = comm_copy(job->comm_d_new, comm_d_new, comm_d_new_len, "comm_d_new", err)))
        return st;
    update_circuit c;
    if ((st = update_circuit_init(&c, g, err))) return st;
    if (n != c.partitions) {
        st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "SnapDeals request: %zu vanilla proofs, %s has %u partitions", n,
                            g->name, c.partitions);
        goto done;
    }
    if (!(job->proofs = calloc(n, sizeof *job->proofs))) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "SnapDeals request: out of memory");
        goto done;
    }
    job->partitions = (unsigned)n;
    for (unsigned k = 0; k < n && st == CUZK_OK; k++) {
        update_witness w;
        if ((st = snap_partition_proof_parse(&job->proofs[k], &c, k, proofs[k], lens[k], err)) == CUZK_OK &&
            (st = snap_witness_from_proof(&w, &c, &job->proofs[k], k, job->comm_r_old, job->comm_r_new, job->comm_d_new,
                                          err)) == CUZK_OK)
            update_witness_free(&w);
    }
done:
    update_circuit_free(&c);
    if (st) engine_snap_job_free(job);
    return st;
}

cuzk_status engine_snap_public_inputs(const update_geometry *g, unsigned k, const uint8_t comm_r_old[32],
                                      const uint8_t comm_r_new[32], const uint8_t comm_d_new[32], fr_t *out,
                                      cuzk_error *err)
{
    update_circuit c;
    cuzk_status st = update_circuit_init(&c, g, err);
    if (st) return st;
    uint64_t khs;
    if ((st = update_k_and_h_select(&c, k, update_h_default(&c), &khs, err)) == CUZK_OK) {
        fr_from_u64(&out[0], khs);
        if (fr_from_bytes_le(&out[1], comm_r_old) || fr_from_bytes_le(&out[2], comm_d_new) ||
            fr_from_bytes_le(&out[3], comm_r_new))
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "SnapDeals public inputs: a commitment is not below r");
    }
    update_circuit_free(&c);
    return st;
}

static cuzk_status snap_synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    const engine_snap_circuit *sc = ctx;
    const engine_snap_job *job = payload;
    update_witness w;
    memset(wit, 0, sizeof *wit);
    if (partition >= job->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "SnapDeals partition %u of %u", partition, job->partitions);
    cuzk_status st = snap_witness_from_proof(&w, &sc->uc, &job->proofs[partition], partition, job->comm_r_old,
                                             job->comm_r_new, job->comm_d_new, err);
    if (st) return st;
    st = update_synthesize_witness(sc->pool, &sc->uc, &w, wit, err);
    update_witness_free(&w);
    if (st) cuzk_error_prefix(err, "SnapDeals partition %u: ", partition);
    return st;
}

cuzk_status engine_snap_circuit_create(const update_geometry *g, const groth16_params *params, pool_t *pool,
                                       engine_snap_circuit **out, cuzk_error *err)
{
    *out = NULL;
    if (!g || !params) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine_snap_circuit_create: NULL argument");
    engine_snap_circuit *sc = calloc(1, sizeof *sc);
    if (!sc) return cuzk_error_set(err, CUZK_ERR_NOMEM, "engine_snap_circuit_create: out of memory");
    sc->g = g;
    sc->pool = pool;
    cuzk_status st = update_circuit_init(&sc->uc, g, err);
    if (st == CUZK_OK) st = update_compile_shape(pool, &sc->uc, &sc->shape, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "SnapDeals %s: compiling the circuit: ", g->name);
        engine_snap_circuit_free(sc);
        return st;
    }
    /* Parameters of another circuit would only fail at the first proof, deep in the prover: say so now. */
    st = engine_params_fit(params, &sc->shape, err);
    char name[64];
    snprintf(name, sizeof name, "snap-%s", g->name);
    if (st == CUZK_OK) st = engine_circuit_init(&sc->ec, name, params, &sc->shape, snap_synth, sc, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err,
                          "SnapDeals %s: parameters do not fit the circuit (%zu constraints, %zu inputs): ", g->name,
                          sc->shape.num_constraints, sc->shape.num_inputs);
        engine_snap_circuit_free(sc);
        return st;
    }
    *out = sc;
    return CUZK_OK;
}

const engine_circuit *engine_snap_circuit_get(const engine_snap_circuit *sc)
{
    return &sc->ec;
}

const update_geometry *engine_snap_circuit_geometry(const engine_snap_circuit *sc)
{
    return sc->g;
}

void engine_snap_circuit_free(engine_snap_circuit *sc)
{
    if (!sc) return;
    engine_circuit_free(&sc->ec);
    r1cs_free(&sc->shape);
    update_circuit_free(&sc->uc);
    free(sc);
}

cuzk_status engine_snap_request(const engine_snap_circuit *sc, const engine_snap_job *job, engine_priority prio,
                                engine_request *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (job->g != sc->g)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "SnapDeals request: the proofs are of %s, the circuit of %s",
                              job->g->name, sc->g->name);
    out->circuit = &sc->ec;
    out->payload = job;
    out->partitions = job->partitions;
    out->priority = prio;
    return CUZK_OK;
}
