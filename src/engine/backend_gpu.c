/* The GPU backend behind the engine's seam (engine.h): gpu_prove_start_abc per partition, one gpu_prover per
 * prover worker, resident bases per (params, device), groth16_prove_finish on CPU threads. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "gpu/gpu_prove.h"

typedef struct resident {
    const groth16_params *params;
    gpu_params *gp;
    struct resident *next;
} resident;

typedef struct gpu_backend {
    engine_backend be;
    pool_t *host_pool, *finish_pool;
    pthread_mutex_t mu; /* workers[] and the resident list; held during an upload (others wait for it) */
    gpu_prover **workers;
    unsigned n_workers;
    resident *res;
} gpu_backend;

typedef struct gpu_handle {
    groth16_pending pending;
} gpu_handle;

/* The worker's prover, created on first use in the worker's own thread. */
static cuzk_status worker_prover(gpu_backend *gb, int device, unsigned worker, gpu_prover **out, cuzk_error *err)
{
    pthread_mutex_lock(&gb->mu);
    if (worker >= gb->n_workers) {
        unsigned n = worker + 1;
        gpu_prover **nw = realloc(gb->workers, n * sizeof(*nw));
        if (!nw) {
            pthread_mutex_unlock(&gb->mu);
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate worker %u", worker);
        }
        for (unsigned i = gb->n_workers; i < n; i++) nw[i] = NULL;
        gb->workers = nw;
        gb->n_workers = n;
    }
    gpu_prover *pv = gb->workers[worker];
    pthread_mutex_unlock(&gb->mu);
    if (!pv) {
        /* Only this worker's thread writes its slot. */
        cuzk_status st = gpu_prover_create(device, &pv, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu backend: worker %u on device %d: ", worker, device);
        pthread_mutex_lock(&gb->mu);
        gb->workers[worker] = pv;
        pthread_mutex_unlock(&gb->mu);
    }
    *out = pv;
    return CUZK_OK;
}

/* params' bases on device, uploaded by the first partition that needs them. */
static cuzk_status resident_params(gpu_backend *gb, const groth16_params *params, int device, const gpu_params **out,
                                   cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    pthread_mutex_lock(&gb->mu);
    resident *r = gb->res;
    while (r && !(r->params == params && gpu_params_device(r->gp) == device)) r = r->next;
    if (!r) {
        r = calloc(1, sizeof(*r));
        if (!r) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate a resident entry");
        } else if ((st = gpu_params_upload(device, params, &r->gp, err)) != CUZK_OK) {
            free(r);
            r = NULL;
        } else {
            r->params = params;
            r->next = gb->res;
            gb->res = r;
        }
    }
    pthread_mutex_unlock(&gb->mu);
    if (r) *out = r->gp;
    return st;
}

static cuzk_status gpu_prove_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                                   void **handle, cuzk_error *err)
{
    gpu_backend *gb = be->ctx;
    const engine_circuit *ci = p->circuit;
    gpu_handle *h = malloc(sizeof(*h));
    if (!h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate a handle");
    gpu_prover *pv = NULL;
    const gpu_params *gp = NULL;
    cuzk_status st = CUZK_OK;
    /* One retry after running out of device memory: the other worker on the device may have released its
     * working set by then. a, b, c are only read by the GPU prover, so the retry sees the same inputs. */
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) sched_yield();
        st = worker_prover(gb, device, worker, &pv, err);
        if (st == CUZK_OK) st = resident_params(gb, ci->params, device, &gp, err);
        if (st == CUZK_OK)
            st = gpu_prove_start_abc(pv, gp, gb->host_pool, ci->params, p->num_constraints, p->a, p->b, p->c,
                                     p->inputs, p->num_inputs, p->aux, p->num_aux, &ci->density, &h->pending, NULL,
                                     NULL, err);
        if (st != CUZK_ERR_NOMEM) break;
    }
    if (st != CUZK_OK) {
        free(h);
        return st;
    }
    *handle = h;
    return CUZK_OK;
}

static cuzk_status gpu_prove_finish(engine_backend *be, void *handle, groth16_proof *proof, cuzk_error *err)
{
    gpu_backend *gb = be->ctx;
    gpu_handle *h = handle;
    cuzk_status st = groth16_prove_finish(gb->finish_pool, &h->pending, NULL, NULL, proof, NULL, err);
    free(h);
    return st;
}

static void gpu_discard(engine_backend *be, void *handle)
{
    (void)be;
    free(handle);
}

static void gpu_destroy(engine_backend *be)
{
    gpu_backend *gb = be->ctx;
    for (resident *r = gb->res, *next; r; r = next) {
        next = r->next;
        gpu_params_free(r->gp);
        free(r);
    }
    for (unsigned i = 0; i < gb->n_workers; i++) gpu_prover_destroy(gb->workers[i]);
    free(gb->workers);
    pthread_mutex_destroy(&gb->mu);
    free(gb);
}

cuzk_status engine_backend_gpu_create(pool_t *host_pool, pool_t *finish_pool, engine_backend **out,
                                      cuzk_error *err)
{
    if (!out) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: NULL out");
    *out = NULL;
    if (gpu_device_count() <= 0)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "gpu backend: no CUDA device (none visible, or cuzk was built without CUDA)");
    gpu_backend *gb = calloc(1, sizeof(*gb));
    if (!gb) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate");
    if (pthread_mutex_init(&gb->mu, NULL) != 0) {
        free(gb);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "gpu backend: cannot create a mutex");
    }
    gb->host_pool = host_pool;
    gb->finish_pool = finish_pool;
    gb->be.name = "gpu";
    gb->be.ctx = gb;
    gb->be.prove_start = gpu_prove_start;
    gb->be.prove_finish = gpu_prove_finish;
    gb->be.discard = gpu_discard;
    gb->be.destroy = gpu_destroy;
    *out = &gb->be;
    return CUZK_OK;
}

void engine_backend_gpu_drop_params(engine_backend *be, const groth16_params *params)
{
    if (!be || be->prove_start != gpu_prove_start) return;
    gpu_backend *gb = be->ctx;
    pthread_mutex_lock(&gb->mu);
    for (resident **pp = &gb->res; *pp;) {
        resident *r = *pp;
        if (r->params == params) {
            *pp = r->next;
            gpu_params_free(r->gp);
            free(r);
        } else {
            pp = &r->next;
        }
    }
    pthread_mutex_unlock(&gb->mu);
}

size_t engine_backend_gpu_resident_bytes(engine_backend *be)
{
    if (!be || be->prove_start != gpu_prove_start) return 0;
    gpu_backend *gb = be->ctx;
    size_t n = 0;
    pthread_mutex_lock(&gb->mu);
    for (resident *r = gb->res; r; r = r->next) n += gpu_params_bytes(r->gp);
    pthread_mutex_unlock(&gb->mu);
    return n;
}
