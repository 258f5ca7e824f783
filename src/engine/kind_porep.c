/* PoRep C2 (POREP_SEAL_COMMIT): the request's vanilla_proof is a C1 (raw JSON or the Curio envelope); the
 * parameter set is that of the C1's sector size, porep-<size>[-ni]; the circuit over it is the StackedDRG
 * partition circuit of the C1's registered proof type (engine/porep.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/c1.h"
#include "circuits/porep/geometry.h"
#include "engine/kind.h"
#include "engine/porep.h"
#include "formats/porep_c1.h"

/* The set name of a PoRep size: porep-2k, porep-8m, porep-512m, porep-32g, porep-64g (the Rust daemon's ids for
 * the published sizes), with -ni for non-interactive PoRep, whose circuit has more challenges per partition and
 * so parameters of its own. Interactive and synthetic PoRep of a size share theirs. */
static void porep_set_name(const porep_geometry *g, int ni, char *out, size_t n)
{
    uint64_t b = g->sector_size;
    if (b % (1ull << 30) == 0)
        snprintf(out, n, "porep-%" PRIu64 "g%s", b >> 30, ni ? "-ni" : "");
    else if (b % (1ull << 20) == 0)
        snprintf(out, n, "porep-%" PRIu64 "m%s", b >> 20, ni ? "-ni" : "");
    else
        snprintf(out, n, "porep-%" PRIu64 "k%s", b >> 10, ni ? "-ni" : "");
}

static int porep_set_known(const char *name, char *id, size_t idlen)
{
    size_t count;
    const porep_geometry *gs = porep_geometries(&count);
    for (size_t i = 0; i < count; i++) {
        for (int ni = 0; ni < 2; ni++) {
            char s[ENGINE_KIND_SET_MAX];
            porep_set_name(&gs[i], ni, s, sizeof(s));
            if (strcmp(s, name)) continue;
            if (id && idlen) snprintf(id, idlen, "%s", s);
            return 1;
        }
    }
    return 0;
}

static void porep_job_free(void *job)
{
    porep_c1 *c1 = job;
    if (!c1) return;
    porep_c1_free(c1);
    free(c1);
}

static cuzk_status porep_parse(const engine_kind_input *in, void **job, engine_kind_plan *plan, cuzk_error *err)
{
    *job = NULL;
    memset(plan, 0, sizeof(*plan));
    porep_c1 *c1 = calloc(1, sizeof(*c1));
    if (!c1) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory parsing the C1");
    const char *text = in->vanilla_proof.data ? (const char *)in->vanilla_proof.data : "";
    cuzk_status st = porep_c1_parse(c1, text, in->vanilla_proof.len, NULL, err);
    if (st != CUZK_OK) {
        free(c1);
        return cuzk_error_prefix(err, "invalid C1 (vanilla_proof): ");
    }
    if (in->sector_size && in->sector_size != c1->type->sector_size) {
        st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                            "sector_size %" PRIu64 " does not match the C1's proof type %s (%" PRIu64 " bytes)",
                            in->sector_size, c1->type->name, c1->type->sector_size);
        porep_job_free(c1);
        return st;
    }
    porep_set_name(c1->geometry, c1->type->kind == POREP_NON_INTERACTIVE, plan->set, sizeof(plan->set));
    /* Each registered proof type of a size has its own circuit (engine_porep_request checks the C1's API version
     * and kind against it), over the parameters of the size. */
    snprintf(plan->variant, sizeof(plan->variant), "%s", c1->type->name);
    plan->partitions = c1->partitions;
    snprintf(plan->summary, sizeof(plan->summary), "PoRep C2 %s, %u partition(s)", c1->type->name, c1->partitions);
    *job = c1;
    return CUZK_OK;
}

static cuzk_status porep_set_load(const char *set, const char *param_cache, int mapped, pool_t *pool,
                                  groth16_params *out, cuzk_error *err)
{
    size_t count;
    const porep_geometry *gs = porep_geometries(&count);
    for (size_t i = 0; i < count; i++) {
        for (int ni = 0; ni < 2; ni++) {
            char s[ENGINE_KIND_SET_MAX];
            porep_set_name(&gs[i], ni, s, sizeof(s));
            if (!strcmp(s, set))
                return engine_kind_load_filecoin(ni ? FILECOIN_PARAMS_POREP_NI : FILECOIN_PARAMS_POREP,
                                                 gs[i].sector_size, set, param_cache, mapped, pool, out, err);
        }
    }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s is not a PoRep parameter set", set);
}

static const porep_proof_type *porep_type_named(const char *name)
{
    size_t count;
    const porep_proof_type *ts = porep_proof_types(&count);
    for (size_t i = 0; i < count; i++)
        if (!strcmp(ts[i].name, name)) return &ts[i];
    return NULL;
}

static cuzk_status porep_circuit_create(const void *job, const engine_kind_plan *plan, const groth16_params *params,
                                        pool_t *pool, void **circuit, cuzk_error *err)
{
    (void)job;
    *circuit = NULL;
    const porep_proof_type *type = porep_type_named(plan->variant);
    if (!type) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: no PoRep proof type %s", plan->set, plan->variant);
    engine_porep_circuit *pc;
    cuzk_status st = engine_porep_circuit_create(type, params, pool, &pc, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s (%s): ", plan->set, type->name);
    *circuit = pc;
    return CUZK_OK;
}

static const engine_circuit *porep_circuit_engine(const void *circuit)
{
    return engine_porep_circuit_get(circuit);
}

static void porep_circuit_free(void *circuit)
{
    engine_porep_circuit_free(circuit);
}

static cuzk_status porep_request(const void *circuit, const void *job, engine_priority prio, engine_request *out,
                                 cuzk_error *err)
{
    return engine_porep_request(circuit, job, prio, out, err);
}

static cuzk_status porep_public_inputs(const void *job, unsigned k, fr_t **out, size_t *n, cuzk_error *err)
{
    return engine_porep_public_inputs(job, k, out, n, err);
}

const engine_kind engine_kind_porep_c2 = {
    .id = 1,
    .label = "porep-c2",
    .metric = "porep_c2",
    .what = "PoRep C2 (POREP_SEAL_COMMIT)",
    .default_priority = ENGINE_PRIO_NORMAL,
    .parse = porep_parse,
    .job_free = porep_job_free,
    .set_known = porep_set_known,
    .set_load = porep_set_load,
    .circuit_create = porep_circuit_create,
    .circuit_engine = porep_circuit_engine,
    .circuit_free = porep_circuit_free,
    .request = porep_request,
    .public_inputs = porep_public_inputs,
};
