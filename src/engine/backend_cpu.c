/* The reference backend (CPU threads) and the circuit descriptor. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

typedef struct cpu_backend {
    engine_backend be;
    pool_t *start_pool, *finish_pool;
} cpu_backend;

typedef struct cpu_handle {
    groth16_pending pending;
} cpu_handle;

static cuzk_status cpu_prove_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                                   void **handle, cuzk_error *err)
{
    (void)device;
    (void)worker;
    cpu_backend *cb = be->ctx;
    cpu_handle *h = malloc(sizeof(*h));
    if (!h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "cpu backend: cannot allocate a handle");
    cuzk_status st =
        groth16_prove_start_abc(cb->start_pool, p->circuit->params, p->num_constraints, p->a, p->b, p->c, p->inputs,
                                p->num_inputs, p->aux, p->num_aux, &p->circuit->density, &h->pending, NULL, err);
    if (st != CUZK_OK) {
        free(h);
        return st;
    }
    *handle = h;
    return CUZK_OK;
}

static cuzk_status cpu_prove_finish(engine_backend *be, void *handle, groth16_proof *proof, cuzk_error *err)
{
    cpu_backend *cb = be->ctx;
    cpu_handle *h = handle;
    cuzk_status st = groth16_prove_finish(cb->finish_pool, &h->pending, NULL, NULL, proof, NULL, err);
    free(h);
    return st;
}

static void cpu_discard(engine_backend *be, void *handle)
{
    (void)be;
    free(handle);
}

static void cpu_destroy(engine_backend *be)
{
    free(be->ctx);
}

cuzk_status engine_backend_cpu_create(pool_t *start_pool, pool_t *finish_pool, engine_backend **out, cuzk_error *err)
{
    cpu_backend *cb = calloc(1, sizeof(*cb));
    if (!cb) return cuzk_error_set(err, CUZK_ERR_NOMEM, "cpu backend: cannot allocate");
    cb->start_pool = start_pool;
    cb->finish_pool = finish_pool;
    cb->be.name = "cpu";
    cb->be.ctx = cb;
    cb->be.prove_start = cpu_prove_start;
    cb->be.prove_finish = cpu_prove_finish;
    cb->be.discard = cpu_discard;
    cb->be.destroy = cpu_destroy;
    *out = &cb->be;
    return CUZK_OK;
}

void engine_backend_destroy(engine_backend *be)
{
    if (be && be->destroy) be->destroy(be);
}

cuzk_status engine_circuit_init(engine_circuit *c, const char *name, const groth16_params *params, const r1cs *shape,
                                engine_synth_fn synthesize, void *synth_ctx, cuzk_error *err)
{
    memset(c, 0, sizeof(*c));
    if (!params || !shape || !synthesize)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine circuit: NULL argument");
    if (!shape->finalized || shape->witness_only)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "engine circuit %s: the shape is not a finalized system "
                              "with matrices",
                              name ? name : "?");
    snprintf(c->name, sizeof(c->name), "%s", name ? name : "circuit");
    c->params = params;
    c->shape = shape;
    c->synthesize = synthesize;
    c->synth_ctx = synth_ctx;
    domain_t d;
    cuzk_status st = domain_for_size(&d, shape->num_constraints, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "engine circuit %s: ", c->name);
    c->m = d.m;
    c->witness_bytes = (uint64_t)(shape->num_inputs + shape->num_aux) * sizeof(fr_t);
    c->abc_bytes = 3 * (uint64_t)d.m * sizeof(fr_t);
    if ((st = r1cs_compute_density(shape, &c->density, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "engine circuit %s: ", c->name);
    if ((st = groth16_pvk_prepare(&c->pvk, &params->vk, err)) != CUZK_OK) {
        r1cs_density_free(&c->density);
        return cuzk_error_prefix(err, "engine circuit %s: ", c->name);
    }
    return CUZK_OK;
}

cuzk_status engine_params_fit(const groth16_params *params, const r1cs *shape, cuzk_error *err)
{
    domain_t d;
    r1cs_density dn;
    memset(&dn, 0, sizeof dn);
    cuzk_status st = domain_for_size(&d, shape->num_constraints, err);
    if (st == CUZK_OK) st = r1cs_compute_density(shape, &dn, err);
    if (st == CUZK_OK)
        st = groth16_check_shapes(params, shape->num_inputs, shape->num_aux, shape->num_constraints, &dn, &d, err);
    r1cs_density_free(&dn);
    if (st == CUZK_OK && params->vk.ic_len != shape->num_inputs)
        st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "the verifying key has %zu inputs, the circuit %zu",
                            params->vk.ic_len, shape->num_inputs);
    return st;
}

void engine_circuit_free(engine_circuit *c)
{
    if (!c) return;
    r1cs_density_free(&c->density);
    groth16_pvk_free(&c->pvk);
    memset(c, 0, sizeof(*c));
}
