/* SnapDeals (SNAP_DEALS_UPDATE): the request's vanilla_proofs are one bincode PartitionProof per partition and
 * comm_r_old, comm_r_new, comm_d_new the raw 32-byte commitments (what Curio's ProveUpdateCuzk sends); the
 * parameter set is that of the sector size, snap-<size> (snap-32g, snap-64g: the Rust daemon's ids; snap-2k,
 * snap-8m, ... for test sizes); the circuit is the EmptySectorUpdate partition circuit (engine/snap.h). The whole
 * request is validated at parse (every path hashed, every index and root checked), since Curio does not verify
 * SnapDeals proofs itself. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/kind.h"
#include "engine/snap.h"

static void snap_set_name(const update_geometry *g, char *out, size_t n)
{
    uint64_t b = g->nodes << 5;
    if (b % (1ull << 30) == 0)
        snprintf(out, n, "snap-%" PRIu64 "g", b >> 30);
    else if (b % (1ull << 20) == 0)
        snprintf(out, n, "snap-%" PRIu64 "m", b >> 20);
    else
        snprintf(out, n, "snap-%" PRIu64 "k", b >> 10);
}

static const update_geometry *snap_set_geometry(const char *name)
{
    size_t count;
    const update_geometry *gs = update_geometries(&count);
    for (size_t i = 0; i < count; i++) {
        char s[ENGINE_KIND_SET_MAX];
        snap_set_name(&gs[i], s, sizeof s);
        if (!strcmp(s, name)) return &gs[i];
    }
    return NULL;
}

static int snap_set_known(const char *name, char *id, size_t idlen)
{
    if (!snap_set_geometry(name)) return 0;
    if (id && idlen) snprintf(id, idlen, "%s", name);
    return 1;
}

/* abi.RegisteredUpdateProof: StackedDrg2KiBV1 = 0, 8MiB 1, 512MiB 2, 32GiB 3, 64GiB 4. */
static uint64_t update_proof_size(uint64_t rp)
{
    static const uint64_t sizes[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    return rp < 5 ? sizes[rp] : 0;
}

static cuzk_status snap_geometry_of(const engine_kind_input *in, const update_geometry **g, cuzk_error *err)
{
    uint64_t from_rp = update_proof_size(in->registered_proof);
    if (!from_rp && !in->sector_size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "registered_proof %" PRIu64 " is no RegisteredUpdateProof",
                              in->registered_proof);
    if (in->sector_size && from_rp && in->sector_size != from_rp)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "sector_size %" PRIu64 " does not match registered_proof %" PRIu64 " (%" PRIu64 " bytes)",
                              in->sector_size, in->registered_proof, from_rp);
    uint64_t size = in->sector_size ? in->sector_size : from_rp;
    if (!(*g = update_geometry_for_size(size)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "sector_size %" PRIu64 " has no SnapDeals circuit", size);
    return CUZK_OK;
}

static cuzk_status snap_check(const engine_kind_input *in, cuzk_error *err)
{
    const update_geometry *g;
    cuzk_status st = snap_geometry_of(in, &g, err);
    if (st) return st;
    const engine_bytes *cm[3] = {&in->comm_r_old, &in->comm_r_new, &in->comm_d_new};
    static const char *const names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++)
        if (cm[i]->len != 32)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s is %zu bytes, not 32", names[i], cm[i]->len);
    update_circuit c;
    if ((st = update_circuit_init(&c, g, err))) return st;
    unsigned parts = c.partitions;
    update_circuit_free(&c);
    if (in->n_vanilla_proofs != parts)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%zu vanilla proofs; SnapDeals %s has %u partitions",
                              in->n_vanilla_proofs, g->name, parts);
    return CUZK_OK;
}

static void snap_job_free(void *job)
{
    if (!job) return;
    engine_snap_job_free(job);
    free(job);
}

static cuzk_status snap_parse(const engine_kind_input *in, void **job, engine_kind_plan *plan, cuzk_error *err)
{
    *job = NULL;
    memset(plan, 0, sizeof *plan);
    cuzk_status st = snap_check(in, err);
    if (st) return st;
    const update_geometry *g = NULL;
    if ((st = snap_geometry_of(in, &g, err))) return st;
    engine_snap_job *j = calloc(1, sizeof *j);
    const uint8_t **bins = calloc(in->n_vanilla_proofs, sizeof *bins);
    size_t *lens = calloc(in->n_vanilla_proofs, sizeof *lens);
    if (!j || !bins || !lens) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory parsing the SnapDeals request");
    } else {
        for (size_t i = 0; i < in->n_vanilla_proofs; i++) {
            bins[i] = in->vanilla_proofs[i].data;
            lens[i] = in->vanilla_proofs[i].len;
        }
        st = engine_snap_job_parse(j, g, bins, lens, in->n_vanilla_proofs, in->comm_r_old.data, in->comm_r_old.len,
                                   in->comm_r_new.data, in->comm_r_new.len, in->comm_d_new.data, in->comm_d_new.len,
                                   err);
    }
    free(bins);
    free(lens);
    if (st) {
        free(j);
        return cuzk_error_prefix(err, "invalid SnapDeals request: ");
    }
    snap_set_name(g, plan->set, sizeof plan->set);
    plan->partitions = j->partitions;
    snprintf(plan->summary, sizeof plan->summary, "SnapDeals %s, %u partition(s)", g->name, j->partitions);
    *job = j;
    return CUZK_OK;
}

static cuzk_status snap_set_load(const char *set, const char *param_cache, int mapped, pool_t *pool,
                                 groth16_params *out, cuzk_error *err)
{
    const update_geometry *g = snap_set_geometry(set);
    if (!g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s is not a SnapDeals parameter set", set);
    return engine_kind_load_filecoin(FILECOIN_PARAMS_SNAP, g->nodes * 32, set, param_cache, mapped, pool, out, err);
}

static cuzk_status snap_circuit_create(const void *job, const engine_kind_plan *plan, const groth16_params *params,
                                       pool_t *pool, void **circuit, cuzk_error *err)
{
    (void)job;
    *circuit = NULL;
    const update_geometry *g = snap_set_geometry(plan->set);
    if (!g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s is not a SnapDeals parameter set", plan->set);
    engine_snap_circuit *sc;
    cuzk_status st = engine_snap_circuit_create(g, params, pool, &sc, err);
    if (st) return cuzk_error_prefix(err, "%s: ", plan->set);
    *circuit = sc;
    return CUZK_OK;
}

static const engine_circuit *snap_circuit_engine(const void *circuit)
{
    return engine_snap_circuit_get(circuit);
}

static void snap_circuit_free(void *circuit)
{
    engine_snap_circuit_free(circuit);
}

static cuzk_status snap_request(const void *circuit, const void *job, engine_priority prio, engine_request *out,
                                cuzk_error *err)
{
    return engine_snap_request(circuit, job, prio, out, err);
}

static cuzk_status snap_public_inputs(const void *job, unsigned k, fr_t **out, size_t *n, cuzk_error *err)
{
    const engine_snap_job *j = job;
    *out = NULL;
    *n = 0;
    if (k >= j->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "SnapDeals public inputs: partition %u of %u", k,
                              j->partitions);
    fr_t *v = malloc(UPDATE_NUM_PUBLIC_INPUTS * sizeof *v);
    if (!v) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    cuzk_status st = engine_snap_public_inputs(j->g, k, j->comm_r_old, j->comm_r_new, j->comm_d_new, v, err);
    if (st) {
        free(v);
        return st;
    }
    *out = v;
    *n = UPDATE_NUM_PUBLIC_INPUTS;
    return CUZK_OK;
}

const engine_kind engine_kind_snap_update = {
    .id = 2,
    .label = "snap-update",
    .metric = "snap_update",
    .what = "SnapDeals update (SNAP_DEALS_UPDATE)",
    .default_priority = ENGINE_PRIO_NORMAL,
    .check = snap_check,
    .parse = snap_parse,
    .job_free = snap_job_free,
    .set_known = snap_set_known,
    .set_load = snap_set_load,
    .circuit_create = snap_circuit_create,
    .circuit_engine = snap_circuit_engine,
    .circuit_free = snap_circuit_free,
    .request = snap_request,
    .public_inputs = snap_public_inputs,
};
