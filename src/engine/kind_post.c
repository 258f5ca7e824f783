/* WindowPoSt (WINDOW_POST_PARTITION) and WinningPoSt (WINNING_POST): the request's vanilla_proofs are bincode
 * FallbackPoStSectorProofs (formats/post_vanilla.h), registered_proof an abi.RegisteredPoStProof of the entry's
 * kind, randomness 32 bytes; miner_id (the prover id) enters neither the circuit nor its public inputs, and a
 * WindowPoSt partition is built with partition index 0 over the request's own sectors, as filecoin-proofs does,
 * so partition_index is only reported. The parameter set is wpost-<size> / winning-<size> (Window V1 and V1_1
 * share it and its circuit); its files are the published ones (v28-proof-of-spacetime-fallback-...params) or
 * `cuzk setup`'s <set>.params under the parameter cache. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/kind.h"
#include "engine/post.h"
#include "formats/post_vanilla.h"

static const char *post_set_prefix(post_kind kind)
{
    return kind == POST_WINDOW ? "wpost" : "winning";
}

/* wpost-2k, wpost-32g, winning-512m, ... (the Rust daemon's wpost-32g and winning-32g for 32 GiB). */
static void post_set_name(post_kind kind, uint64_t b, char *out, size_t n)
{
    if (b % (1ull << 30) == 0)
        snprintf(out, n, "%s-%" PRIu64 "g", post_set_prefix(kind), b >> 30);
    else if (b % (1ull << 20) == 0)
        snprintf(out, n, "%s-%" PRIu64 "m", post_set_prefix(kind), b >> 20);
    else
        snprintf(out, n, "%s-%" PRIu64 "k", post_set_prefix(kind), b >> 10);
}

/* The newest proof type of a set of this kind, or NULL. */
static const post_proof_type *post_set_type(post_kind kind, const char *name)
{
    size_t count;
    const post_proof_type *ts = post_proof_types(&count);
    for (size_t i = 0; i < count; i++) {
        if (ts[i].kind != kind) continue;
        char s[ENGINE_KIND_SET_MAX];
        post_set_name(kind, ts[i].sector_size, s, sizeof s);
        if (!strcmp(s, name)) return post_proof_type_find(kind, ts[i].sector_size);
    }
    return NULL;
}

static int post_set_known_kind(post_kind kind, const char *name, char *id, size_t idlen)
{
    if (!post_set_type(kind, name)) return 0;
    if (id && idlen) snprintf(id, idlen, "%s", name);
    return 1;
}

static int wpost_set_known(const char *name, char *id, size_t idlen)
{
    return post_set_known_kind(POST_WINDOW, name, id, idlen);
}

static int winning_set_known(const char *name, char *id, size_t idlen)
{
    return post_set_known_kind(POST_WINNING, name, id, idlen);
}

/* The request's small fields: the proof type (of this kind), the sizes, the randomness and the count. */
static cuzk_status post_check_kind(post_kind kind, const engine_kind_input *in, const post_proof_type **out,
                                   cuzk_error *err)
{
    *out = NULL;
    const post_proof_type *t =
        in->registered_proof <= UINT32_MAX ? post_proof_type_by_id((unsigned)in->registered_proof) : NULL;
    if (!t || t->kind != kind)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "registered_proof %" PRIu64 " is not a registered %s proof",
                              in->registered_proof, post_kind_name(kind));
    if (in->sector_size && in->sector_size != t->sector_size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "sector_size %" PRIu64 " is not %s's (%" PRIu64 " bytes)",
                              in->sector_size, t->name, t->sector_size);
    if (in->randomness.len != 32)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "randomness: %zu bytes, 32 expected", in->randomness.len);
    fr_t r;
    if (fr_from_bytes_le(&r, in->randomness.data))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "randomness is not a field element (>= r)");
    unsigned most = kind == POST_WINNING ? 1 : t->sector_count;
    if (in->n_vanilla_proofs == 0 || in->n_vanilla_proofs > most)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "vanilla_proofs: %zu entries, %s takes 1 to %u",
                              in->n_vanilla_proofs, t->name, most);
    *out = t;
    return CUZK_OK;
}

static cuzk_status wpost_check(const engine_kind_input *in, cuzk_error *err)
{
    const post_proof_type *t;
    return post_check_kind(POST_WINDOW, in, &t, err);
}

static cuzk_status winning_check(const engine_kind_input *in, cuzk_error *err)
{
    const post_proof_type *t;
    return post_check_kind(POST_WINNING, in, &t, err);
}

static void post_job_free(void *job)
{
    engine_post_job_free(job);
}

static cuzk_status post_parse_kind(post_kind kind, const engine_kind_input *in, void **job, engine_kind_plan *plan,
                                   cuzk_error *err)
{
    *job = NULL;
    memset(plan, 0, sizeof *plan);
    const post_proof_type *t;
    cuzk_status st = post_check_kind(kind, in, &t, err);
    if (st != CUZK_OK) return st;
    size_t n = in->n_vanilla_proofs;
    const uint8_t **bytes = malloc(n * sizeof *bytes);
    size_t *lens = malloc(n * sizeof *lens);
    if (!bytes || !lens) {
        free(bytes);
        free(lens);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        bytes[i] = in->vanilla_proofs[i].data ? in->vanilla_proofs[i].data : (const uint8_t *)"";
        lens[i] = in->vanilla_proofs[i].len;
    }
    post_vanilla v;
    st = post_vanilla_decode(&v, t, bytes, lens, n, err);
    free(bytes);
    free(lens);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "vanilla_proofs: ");
    engine_post_job *j = NULL;
    st = engine_post_job_create(&j, &v, in->randomness.data, NULL, err);
    post_vanilla_free(&v);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "vanilla_proofs: ");
    post_set_name(kind, t->sector_size, plan->set, sizeof plan->set);
    plan->partitions = 1;
    if (kind == POST_WINDOW)
        snprintf(plan->summary, sizeof plan->summary, "%s, %zu sectors, partition %u", t->name, n, in->partition_index);
    else
        snprintf(plan->summary, sizeof plan->summary, "%s, sector %" PRIu64, t->name, j->sectors[0].sector_id);
    *job = j;
    return CUZK_OK;
}

static cuzk_status wpost_parse(const engine_kind_input *in, void **job, engine_kind_plan *plan, cuzk_error *err)
{
    return post_parse_kind(POST_WINDOW, in, job, plan, err);
}

static cuzk_status winning_parse(const engine_kind_input *in, void **job, engine_kind_plan *plan, cuzk_error *err)
{
    return post_parse_kind(POST_WINNING, in, job, plan, err);
}

/* The published file first, then `cuzk setup`'s <set>.params. Trusted local files: the subgroup checks of the
 * bases are skipped (as for PoRep); the verifying key is checked in full. */
static cuzk_status post_set_load_kind(post_kind kind, const char *set, const char *param_cache, int mapped,
                                      pool_t *pool, groth16_params *out, cuzk_error *err)
{
    const post_proof_type *t = post_set_type(kind, set);
    if (!t) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s is not a %s parameter set", set, post_kind_name(kind));
    return engine_kind_load_filecoin(kind == POST_WINDOW ? FILECOIN_PARAMS_WINDOW_POST : FILECOIN_PARAMS_WINNING_POST,
                                     t->sector_size, set, param_cache, mapped, pool, out, err);
}

static cuzk_status wpost_set_load(const char *set, const char *param_cache, int mapped, pool_t *pool,
                                  groth16_params *out, cuzk_error *err)
{
    return post_set_load_kind(POST_WINDOW, set, param_cache, mapped, pool, out, err);
}

static cuzk_status winning_set_load(const char *set, const char *param_cache, int mapped, pool_t *pool,
                                    groth16_params *out, cuzk_error *err)
{
    return post_set_load_kind(POST_WINNING, set, param_cache, mapped, pool, out, err);
}

static cuzk_status post_circuit_create_kind(post_kind kind, const engine_kind_plan *plan, const groth16_params *params,
                                            pool_t *pool, void **circuit, cuzk_error *err)
{
    *circuit = NULL;
    const post_proof_type *t = post_set_type(kind, plan->set);
    if (!t)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s is not a %s parameter set", plan->set,
                              post_kind_name(kind));
    engine_post_circuit *pc;
    cuzk_status st = engine_post_circuit_create(t, params, pool, &pc, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", plan->set);
    *circuit = pc;
    return CUZK_OK;
}

static cuzk_status wpost_circuit_create(const void *job, const engine_kind_plan *plan, const groth16_params *params,
                                        pool_t *pool, void **circuit, cuzk_error *err)
{
    (void)job;
    return post_circuit_create_kind(POST_WINDOW, plan, params, pool, circuit, err);
}

static cuzk_status winning_circuit_create(const void *job, const engine_kind_plan *plan, const groth16_params *params,
                                          pool_t *pool, void **circuit, cuzk_error *err)
{
    (void)job;
    return post_circuit_create_kind(POST_WINNING, plan, params, pool, circuit, err);
}

static const engine_circuit *post_circuit_engine(const void *circuit)
{
    return engine_post_circuit_get(circuit);
}

static void post_circuit_free_cb(void *circuit)
{
    engine_post_circuit_free(circuit);
}

static cuzk_status post_request(const void *circuit, const void *job, engine_priority prio, engine_request *out,
                                cuzk_error *err)
{
    return engine_post_request(circuit, job, prio, out, err);
}

static cuzk_status post_public_inputs_cb(const void *job, unsigned k, fr_t **out, size_t *n, cuzk_error *err)
{
    *out = NULL;
    *n = 0;
    if (k != 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "PoSt public inputs: partition %u of 1", k);
    return engine_post_job_public_inputs(job, out, n, err);
}

const engine_kind engine_kind_window_post = {
    .id = 3,
    .label = "window-post",
    .metric = "window_post",
    .what = "WindowPoSt (WINDOW_POST_PARTITION)",
    .default_priority = ENGINE_PRIO_HIGH,
    .check = wpost_check,
    .parse = wpost_parse,
    .job_free = post_job_free,
    .set_known = wpost_set_known,
    .set_load = wpost_set_load,
    .circuit_create = wpost_circuit_create,
    .circuit_engine = post_circuit_engine,
    .circuit_free = post_circuit_free_cb,
    .request = post_request,
    .public_inputs = post_public_inputs_cb,
};

const engine_kind engine_kind_winning_post = {
    .id = 4,
    .label = "winning-post",
    .metric = "winning_post",
    .what = "WinningPoSt (WINNING_POST)",
    .default_priority = ENGINE_PRIO_CRITICAL,
    .check = winning_check,
    .parse = winning_parse,
    .job_free = post_job_free,
    .set_known = winning_set_known,
    .set_load = winning_set_load,
    .circuit_create = winning_circuit_create,
    .circuit_engine = post_circuit_engine,
    .circuit_free = post_circuit_free_cb,
    .request = post_request,
    .public_inputs = post_public_inputs_cb,
};
