/* CIRCUIT_SPEC: a synthetic circuit named by its spec text (circuits/spec.h), its parameters set up in memory at
 * first use. The parameter set's id is the canonical spec ("synthetic:k=8,seed=1"); every partition proves the
 * same statement (the witness is fixed by k and seed), so a request is its partition count only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/spec.h"
#include "circuits/synthetic.h"
#include "engine/kind.h"

typedef struct spec_job {
    circuit_spec spec;
    unsigned partitions;
} spec_job;

typedef struct spec_circuit {
    circuit_spec spec;
    r1cs shape;
    engine_circuit ec;
} spec_circuit;

/* The spec of a set id or request text, synthetic only. */
static cuzk_status spec_of(const char *text, circuit_spec *spec, cuzk_error *err)
{
    cuzk_status st = circuit_spec_parse(text, spec, err);
    if (st != CUZK_OK) return st;
    if (spec->kind != CIRCUIT_SYNTHETIC)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "CIRCUIT_SPEC proves synthetic:k=N circuits; a PoRep C2 is POREP_SEAL_COMMIT with the C1 "
                              "in vanilla_proof");
    return CUZK_OK;
}

static cuzk_status spec_check(const engine_kind_input *in, cuzk_error *err)
{
    if (!in->circuit || !in->circuit[0])
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "CIRCUIT_SPEC needs the circuit field, e.g. \"synthetic:k=8\"");
    circuit_spec spec;
    if (spec_of(in->circuit, &spec, err) != CUZK_OK) return cuzk_error_prefix(err, "circuit: ");
    unsigned partitions = in->partitions ? in->partitions : spec.partitions ? spec.partitions : 1;
    if (partitions > ENGINE_KIND_MAX_PARTITIONS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "partitions: %u is more than %d", partitions,
                              ENGINE_KIND_MAX_PARTITIONS);
    return CUZK_OK;
}

static cuzk_status spec_parse(const engine_kind_input *in, void **job, engine_kind_plan *plan, cuzk_error *err)
{
    *job = NULL;
    memset(plan, 0, sizeof(*plan));
    cuzk_status st = spec_check(in, err);
    if (st != CUZK_OK) return st;
    spec_job *j = calloc(1, sizeof(*j));
    if (!j) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    spec_of(in->circuit, &j->spec, err); /* checked above */
    j->partitions = in->partitions ? in->partitions : j->spec.partitions ? j->spec.partitions : 1;
    circuit_spec_format(&j->spec, plan->set, sizeof(plan->set));
    plan->partitions = j->partitions;
    snprintf(plan->summary, sizeof(plan->summary), "%s, %u partition(s)", plan->set, j->partitions);
    *job = j;
    return CUZK_OK;
}

static void spec_job_free(void *job)
{
    free(job);
}

static int spec_set_known(const char *name, char *id, size_t idlen)
{
    circuit_spec spec;
    cuzk_error err;
    if (spec_of(name, &spec, &err) != CUZK_OK) return 0;
    if (id && idlen) circuit_spec_format(&spec, id, idlen);
    return 1;
}

static cuzk_status spec_set_load(const char *set, const char *param_cache, int mapped, pool_t *pool,
                                 groth16_params *out, cuzk_error *err)
{
    (void)param_cache;
    (void)mapped;
    circuit_spec spec;
    if (spec_of(set, &spec, err) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", set);
    r1cs shape;
    cuzk_status st = circuit_spec_build(pool, &spec, R1CS_MATRICES, &shape, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", set);
    st = groth16_setup(pool, &shape, out, err);
    r1cs_free(&shape);
    return st;
}

static cuzk_status spec_synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const spec_circuit *c = ctx;
    return synthetic_build(NULL, c->spec.k, c->spec.seed, R1CS_WITNESS, wit, err);
}

static void spec_circuit_free(void *circuit)
{
    spec_circuit *c = circuit;
    if (!c) return;
    engine_circuit_free(&c->ec);
    r1cs_free(&c->shape);
    free(c);
}

static cuzk_status spec_circuit_create(const void *job, const engine_kind_plan *plan, const groth16_params *params,
                                       pool_t *pool, void **circuit, cuzk_error *err)
{
    (void)job;
    *circuit = NULL;
    spec_circuit *c = calloc(1, sizeof(*c));
    if (!c) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    cuzk_status st = spec_of(plan->set, &c->spec, err);
    if (st == CUZK_OK) st = circuit_spec_build(pool, &c->spec, R1CS_MATRICES, &c->shape, err);
    if (st != CUZK_OK) {
        free(c);
        return cuzk_error_prefix(err, "%s: ", plan->set);
    }
    st = engine_circuit_init(&c->ec, plan->set, params, &c->shape, spec_synth, c, err);
    if (st != CUZK_OK) {
        r1cs_free(&c->shape);
        free(c);
        return cuzk_error_prefix(err, "%s: ", plan->set);
    }
    *circuit = c;
    return CUZK_OK;
}

static const engine_circuit *spec_circuit_engine(const void *circuit)
{
    return &((const spec_circuit *)circuit)->ec;
}

static cuzk_status spec_request(const void *circuit, const void *job, engine_priority prio, engine_request *out,
                                cuzk_error *err)
{
    const spec_circuit *c = circuit;
    const spec_job *j = job;
    memset(out, 0, sizeof(*out));
    if (c->spec.k != j->spec.k || c->spec.seed != j->spec.seed)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "the request is synthetic k=%u seed=%llu, the circuit k=%u "
                              "seed=%llu",
                              j->spec.k, (unsigned long long)j->spec.seed, c->spec.k, (unsigned long long)c->spec.seed);
    out->circuit = &c->ec;
    out->payload = j;
    out->partitions = j->partitions;
    out->priority = prio;
    return CUZK_OK;
}

/* The synthetic circuit's inputs are part of its fixed witness: built once more to read them. */
static cuzk_status spec_public_inputs(const void *job, unsigned k, fr_t **out, size_t *n, cuzk_error *err)
{
    const spec_job *j = job;
    *out = NULL;
    *n = 0;
    if (k >= j->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "public inputs: partition %u of %u", k, j->partitions);
    r1cs wit;
    cuzk_status st = synthetic_build(NULL, j->spec.k, j->spec.seed, R1CS_WITNESS, &wit, err);
    if (st != CUZK_OK) return st;
    size_t count = wit.num_inputs ? wit.num_inputs - 1 : 0;
    fr_t *v = malloc((count ? count : 1) * sizeof(*v));
    if (!v) {
        r1cs_free(&wit);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "public inputs: out of memory");
    }
    if (count) memcpy(v, wit.inputs + 1, count * sizeof(*v));
    r1cs_free(&wit);
    *out = v;
    *n = count;
    return CUZK_OK;
}

const engine_kind engine_kind_circuit_spec = {
    .id = 100,
    .label = "circuit",
    .metric = "circuit",
    .what = "circuit (CIRCUIT_SPEC)",
    .default_priority = ENGINE_PRIO_NORMAL,
    .check = spec_check,
    .parse = spec_parse,
    .job_free = spec_job_free,
    .set_known = spec_set_known,
    .set_load = spec_set_load,
    .circuit_create = spec_circuit_create,
    .circuit_engine = spec_circuit_engine,
    .circuit_free = spec_circuit_free,
    .request = spec_request,
    .public_inputs = spec_public_inputs,
};
