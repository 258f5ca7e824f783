#include "engine/porep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/challenges.h"
#include "circuits/stacked/stacked.h"
#include "circuits/stacked/stacked_fast.h"

struct engine_porep_circuit {
    porep_proof_type type; /* a copy: the caller's may be a test type of its own */
    const porep_geometry *geometry;
    pool_t *pool;
    stacked_circuit sc;
    r1cs shape;
    engine_circuit ec;
};

static const char *api_name(porep_api api)
{
    return api == POREP_API_1_0 ? "1.0" : api == POREP_API_1_1 ? "1.1" : "1.2";
}

static const char *kind_name(porep_kind kind)
{
    return kind == POREP_INTERACTIVE ? "interactive" : kind == POREP_SYNTHETIC ? "synthetic" : "non-interactive";
}

/* The engine's synthesis: the witness-only system of one partition (challenges in parallel on the circuit's pool),
 * checked against the shape by the engine. */
static cuzk_status porep_synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    const engine_porep_circuit *pc = ctx;
    stacked_witness w;
    memset(wit, 0, sizeof *wit);
    cuzk_status st = stacked_witness_from_c1(&w, &pc->sc, payload, partition, err);
    if (st != CUZK_OK) return st;
    st = stacked_synthesize_witness(pc->pool, &pc->sc, &w, wit, err);
    stacked_witness_free(&w);
    if (st != CUZK_OK) {
        r1cs_free(wit);
        cuzk_error_prefix(err, "PoRep partition %u: ", partition);
    }
    return st;
}

cuzk_status engine_porep_circuit_create(const porep_proof_type *type, const groth16_params *params, pool_t *pool,
                                        engine_porep_circuit **out, cuzk_error *err)
{
    *out = NULL;
    if (!type || !params)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine_porep_circuit_create: NULL argument");
    const porep_geometry *g = porep_geometry_for_size(type->sector_size);
    if (!g)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine_porep_circuit_create: %s: no geometry for %llu bytes",
                              type->name, (unsigned long long)type->sector_size);
    engine_porep_circuit *pc = calloc(1, sizeof *pc);
    if (!pc) return cuzk_error_set(err, CUZK_ERR_NOMEM, "engine_porep_circuit_create: out of memory");
    pc->type = *type;
    pc->geometry = g;
    pc->pool = pool;
    cuzk_status st = stacked_circuit_init_geometry(&pc->sc, g, type->kind, err);
    if (st == CUZK_OK) st = stacked_compile_shape(pool, &pc->sc, &pc->shape, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "PoRep %s: compiling the circuit: ", type->name);
        engine_porep_circuit_free(pc);
        return st;
    }
    /* Parameters of another circuit would only fail at the first proof, deep in the prover: say so now. */
    st = engine_params_fit(params, &pc->shape, err);
    if (st == CUZK_OK) st = engine_circuit_init(&pc->ec, type->name, params, &pc->shape, porep_synth, pc, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err,
                          "PoRep %s: parameters do not fit the circuit (%zu constraints, %zu inputs): ", type->name,
                          pc->shape.num_constraints, pc->shape.num_inputs);
        engine_porep_circuit_free(pc);
        return st;
    }
    *out = pc;
    return CUZK_OK;
}

const engine_circuit *engine_porep_circuit_get(const engine_porep_circuit *pc)
{
    return &pc->ec;
}

const porep_proof_type *engine_porep_circuit_type(const engine_porep_circuit *pc)
{
    return &pc->type;
}

void engine_porep_circuit_free(engine_porep_circuit *pc)
{
    if (!pc) return;
    engine_circuit_free(&pc->ec);
    r1cs_free(&pc->shape);
    stacked_circuit_free(&pc->sc);
    free(pc);
}

cuzk_status engine_porep_request(const engine_porep_circuit *pc, const porep_c1 *c1, engine_priority prio,
                                 engine_request *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    const porep_proof_type *t = &pc->type, *u = c1->type;
    if (!u || !c1->geometry)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "PoRep request: the C1 has no proof type");
    if (u->sector_size != t->sector_size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "PoRep request: the C1 is of sector size %s (%s), the circuit of %s (%s)",
                              c1->geometry->name, u->name, pc->geometry->name, t->name);
    if (u->api != t->api)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "PoRep request: the C1 is of API version %s (%s), the circuit "
                              "of %s (%s)",
                              api_name(u->api), u->name, api_name(t->api), t->name);
    if (u->kind != t->kind)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "PoRep request: the C1 is %s PoRep (%s), the circuit %s (%s)",
                              kind_name(u->kind), u->name, kind_name(t->kind), t->name);
    if (c1->partitions == 0 || c1->challenges != pc->sc.challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "PoRep request: the C1 has %u partitions x %u challenges, the circuit proves %u "
                              "challenges per partition",
                              c1->partitions, c1->challenges, pc->sc.challenges);
    out->circuit = &pc->ec;
    out->payload = c1;
    out->partitions = c1->partitions;
    out->priority = prio;
    return CUZK_OK;
}

cuzk_status engine_porep_public_inputs(const porep_c1 *c1, unsigned k, fr_t **out, size_t *n, cuzk_error *err)
{
    *out = NULL;
    *n = 0;
    if (k >= c1->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "PoRep public inputs: partition %u of %u", k, c1->partitions);
    size_t count = 3 + (size_t)POREP_INPUTS_PER_CHALLENGE * c1->challenges;
    fr_t *v = malloc(count * sizeof *v);
    if (!v) return cuzk_error_set(err, CUZK_ERR_NOMEM, "PoRep public inputs: out of memory");
    cuzk_status st = porep_c1_public_inputs(c1, k, v, err);
    if (st != CUZK_OK) {
        free(v);
        return st;
    }
    *out = v;
    *n = count;
    return CUZK_OK;
}
