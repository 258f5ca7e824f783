/* The GPU backend behind the engine's seam (engine.h): gpu_prove_start_abc per partition (or, when it
 * evaluates a, b, c itself, gpu_prove_start_shape from the circuit's matrices on the device), one gpu_prover per
 * prover worker, resident bases per (params, device) and matrices per (shape, device) in device caches
 * (device_cache.h: uploaded outside any lock a resident partition waits for), groth16_prove_finish on CPU
 * threads. The residency's hooks (params_pin/unpin: host registration of a set's arrays, for its pinned
 * tier; params_upload: a preloaded set's bases onto a device; params_evict: the set's device copies dropped) and
 * per-device memory figures. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/device_cache.h"
#include "engine/engine.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_prove.h"

typedef struct gpu_backend {
    engine_backend be;
    pool_t *host_pool, *finish_pool;
    pthread_mutex_t mu; /* workers[] */
    gpu_prover **workers;
    unsigned n_workers;
    /* Per visible device: the prover of CRITICAL partitions (gpu_prover_create_urgent), created on first use,
     * and the lock that makes two CRITICAL partitions on one device take it in turn. */
    gpu_prover **urgent;
    pthread_mutex_t *urgent_mu;
    /* Per visible device: held through an upload (bases or matrices), so that each upload plans its device memory
     * (gpu_plan) with the others' finished. Only uploads wait for it: a partition whose bases and matrices are
     * resident never does (the caches build outside their locks). */
    pthread_mutex_t *upload_mu;
    device_cache *params; /* gpu_params per (parameter set, device) */
    /* gpu_shape per (circuit shape, device), keyed by the shape's address and tagged with a fingerprint of its
     * contents, so that a shape freed and another allocated at the same address is never taken for the old one.
     * Unused matrices are freed before another shape's upload: a device holds the shapes in use and one more. */
    device_cache *shapes;
    int n_devices;
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

/* The device's prover of CRITICAL partitions, locked for the caller (urgent_release gives it back). */
static cuzk_status urgent_prover(gpu_backend *gb, int device, gpu_prover **out, cuzk_error *err)
{
    if (device < 0 || device >= gb->n_devices)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: no device %d", device);
    pthread_mutex_lock(&gb->urgent_mu[device]);
    cuzk_status st = CUZK_OK;
    if (!gb->urgent[device]) st = gpu_prover_create_urgent(device, &gb->urgent[device], err);
    if (st != CUZK_OK) {
        pthread_mutex_unlock(&gb->urgent_mu[device]);
        return cuzk_error_prefix(err, "gpu backend: the critical prover on device %d: ", device);
    }
    *out = gb->urgent[device];
    return CUZK_OK;
}

static void urgent_release(gpu_backend *gb, int device)
{
    pthread_mutex_unlock(&gb->urgent_mu[device]);
}

static cuzk_status params_build(void *ctx, const void *key, int device, void **obj, uint64_t *bytes, cuzk_error *err)
{
    gpu_backend *gb = ctx;
    gpu_params *gp = NULL;
    pthread_mutex_lock(&gb->upload_mu[device]);
    cuzk_status st = gpu_params_upload(device, key, &gp, err);
    pthread_mutex_unlock(&gb->upload_mu[device]);
    if (st != CUZK_OK) return st;
    *obj = gp;
    *bytes = gpu_params_bytes(gp);
    return CUZK_OK;
}

static void params_free(void *ctx, void *obj)
{
    (void)ctx;
    gpu_params_free(obj);
}

static cuzk_status shape_build(void *ctx, const void *key, int device, void **obj, uint64_t *bytes, cuzk_error *err)
{
    gpu_backend *gb = ctx;
    gpu_shape *gs = NULL;
    pthread_mutex_lock(&gb->upload_mu[device]);
    cuzk_status st = gpu_shape_upload(device, key, &gs, err);
    pthread_mutex_unlock(&gb->upload_mu[device]);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu backend: the circuit's matrices on device %d: ", device);
    *obj = gs;
    *bytes = gpu_shape_bytes(gs);
    return CUZK_OK;
}

static void shape_free(void *ctx, void *obj)
{
    (void)ctx;
    gpu_shape_free(obj);
}

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Sizes, the coefficient table and 1024 evenly spaced entries of each matrix: enough to tell shapes apart, cheap
 * enough for every partition (a few microseconds). */
static uint64_t shape_print(const r1cs *cs)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t dims[3] = {cs->num_inputs, cs->num_aux, cs->num_constraints};
    h = fnv_bytes(h, dims, sizeof dims);
    h = fnv_bytes(h, cs->coeffs, cs->num_coeffs * sizeof(fr_t));
    const r1cs_matrix *mx[3] = {&cs->A, &cs->B, &cs->C};
    for (int m = 0; m < 3; m++) {
        uint64_t nnz = mx[m]->rows ? mx[m]->row_start[mx[m]->rows] : 0;
        h = fnv_bytes(h, &nnz, sizeof nnz);
        for (uint64_t i = 0; nnz && i < 1024; i++) {
            uint64_t k = i * nnz / 1024, r = i * mx[m]->rows / 1024;
            h = fnv_bytes(h, &mx[m]->col[k], sizeof(uint32_t));
            h = fnv_bytes(h, &mx[m]->coeff[k], sizeof(uint32_t));
            h = fnv_bytes(h, &mx[m]->row_start[r], sizeof(uint64_t));
        }
    }
    return h;
}

/* The prover's abc-done hook: passes the release on to the engine and remembers it (no retry after it). */
typedef struct abc_release_hook {
    const engine_partition *p;
    int released;
} abc_release_hook;

static void on_abc_done(void *ctx)
{
    abc_release_hook *hk = ctx;
    hk->released = 1;
    if (hk->p->abc_release) hk->p->abc_release(hk->p->abc_release_ctx);
}

static cuzk_status gpu_prove_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                                   void **handle, cuzk_error *err)
{
    gpu_backend *gb = be->ctx;
    const engine_circuit *ci = p->circuit;
    gpu_handle *h = malloc(sizeof(*h));
    if (!h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate a handle");
    gpu_prover *pv = NULL;
    cuzk_status st = CUZK_OK;
    /* One retry after running out of device memory: the other worker on the device may have released its
     * working set by then. a, b, c are only read by the GPU prover, so the retry sees the same inputs, unless
     * they were already handed back to the engine. */
    abc_release_hook hk = {p, 0};
    int urgent = p->priority == ENGINE_PRIO_CRITICAL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) sched_yield();
        device_cache_entry *shape = NULL, *params = NULL;
        st = urgent ? urgent_prover(gb, device, &pv, err) : worker_prover(gb, device, worker, &pv, err);
        /* The matrices before the bases: under a device-memory cap the bases' plan leaves room for what the device
         * already holds (gpu_params_upload). */
        if (st == CUZK_OK && !p->a)
            st = device_cache_acquire(gb->shapes, ci->shape, shape_print(ci->shape), device, &shape, err);
        if (st == CUZK_OK) st = device_cache_acquire(gb->params, ci->params, 0, device, &params, err);
        const gpu_params *gp = device_cache_object(params);
        if (st == CUZK_OK && !p->a) {
            st = gpu_prove_start_shape(pv, gp, device_cache_object(shape), gb->host_pool, ci->params, p->inputs,
                                       p->num_inputs, p->aux, p->num_aux, &ci->density, &h->pending, NULL, NULL, err);
        } else if (st == CUZK_OK) {
            gpu_prover_on_abc_done(pv, on_abc_done, &hk);
            st = gpu_prove_start_abc(pv, gp, gb->host_pool, ci->params, p->num_constraints, p->a, p->b, p->c, p->inputs,
                                     p->num_inputs, p->aux, p->num_aux, &ci->density, &h->pending, NULL, NULL, err);
        }
        device_cache_release(gb->params, params);
        device_cache_release(gb->shapes, shape);
        if (urgent && pv) urgent_release(gb, device);
        pv = NULL;
        if (st != CUZK_ERR_NOMEM || hk.released) break;
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

/* a, b, c in page-locked memory: stage_abc (prove.cu) then hands them to the NTT, whose copy stream reads them
 * by direct DMA overlapped with the transforms, instead of copying them through the staging buffers. */
static cuzk_status gpu_abc_alloc(engine_backend *be, size_t bytes, void **out, cuzk_error *err)
{
    (void)be;
    return gpu_host_alloc(bytes, out, err);
}

static void gpu_abc_free(engine_backend *be, void *p, size_t bytes)
{
    (void)be;
    (void)bytes;
    gpu_host_free(p);
}

/* Frees gb as far as it was made: the per-device arrays' mutexes exist for n_devices devices. */
static void backend_free(gpu_backend *gb)
{
    device_cache_destroy(gb->params);
    device_cache_destroy(gb->shapes);
    for (unsigned i = 0; i < gb->n_workers; i++) gpu_prover_destroy(gb->workers[i]);
    for (int d = 0; d < gb->n_devices; d++) {
        gpu_prover_destroy(gb->urgent[d]);
        pthread_mutex_destroy(&gb->urgent_mu[d]);
        pthread_mutex_destroy(&gb->upload_mu[d]);
    }
    free(gb->urgent);
    free(gb->urgent_mu);
    free(gb->upload_mu);
    free(gb->workers);
    pthread_mutex_destroy(&gb->mu);
    free(gb);
}

static void gpu_destroy(engine_backend *be)
{
    backend_free(be->ctx);
}

static void gpu_params_evict(engine_backend *be, const groth16_params *params);
static cuzk_status gpu_params_upload_hook(engine_backend *be, const groth16_params *params, int device,
                                          cuzk_error *err);
static cuzk_status gpu_params_pin(engine_backend *be, const groth16_params *params, cuzk_error *err);
static void gpu_params_unpin(engine_backend *be, const groth16_params *params);
static cuzk_status gpu_pin_probe(engine_backend *be, cuzk_error *err);
static cuzk_status gpu_device_memory(engine_backend *be, int device, engine_device_memory *out, cuzk_error *err);

cuzk_status engine_backend_gpu_create(pool_t *host_pool, pool_t *finish_pool, engine_backend **out, cuzk_error *err)
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
    int devices = gpu_device_count();
    gb->urgent = calloc((size_t)devices, sizeof(*gb->urgent));
    gb->urgent_mu = calloc((size_t)devices, sizeof(*gb->urgent_mu));
    gb->upload_mu = calloc((size_t)devices, sizeof(*gb->upload_mu));
    if (!gb->urgent || !gb->urgent_mu || !gb->upload_mu) {
        backend_free(gb);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate");
    }
    for (int d = 0; d < devices; d++) {
        pthread_mutex_init(&gb->urgent_mu[d], NULL);
        pthread_mutex_init(&gb->upload_mu[d], NULL);
    }
    gb->n_devices = devices;
    device_cache_config pc = {.devices = devices, .build = params_build, .free_obj = params_free, .ctx = gb};
    device_cache_config sc = {
        .devices = devices, .build = shape_build, .free_obj = shape_free, .ctx = gb, .free_unused_before_build = 1};
    cuzk_status st = device_cache_create(&pc, &gb->params, err);
    if (st == CUZK_OK) st = device_cache_create(&sc, &gb->shapes, err);
    if (st != CUZK_OK) {
        backend_free(gb);
        return cuzk_error_prefix(err, "gpu backend: ");
    }
    gb->host_pool = host_pool;
    gb->finish_pool = finish_pool;
    gb->be.name = "gpu";
    gb->be.ctx = gb;
    gb->be.prove_start = gpu_prove_start;
    gb->be.prove_finish = gpu_prove_finish;
    gb->be.discard = gpu_discard;
    gb->be.destroy = gpu_destroy;
    gb->be.host_alloc = gpu_abc_alloc;
    gb->be.host_free = gpu_abc_free;
    gb->be.evaluates_abc = ENGINE_GPU_ABC_ON_DEVICE_DEFAULT;
    gb->be.params_pin = gpu_params_pin;
    gb->be.params_unpin = gpu_params_unpin;
    gb->be.params_evict = gpu_params_evict;
    gb->be.params_upload = gpu_params_upload_hook;
    gb->be.pin_probe = gpu_pin_probe;
    gb->be.device_memory = gpu_device_memory;
    *out = &gb->be;
    return CUZK_OK;
}

cuzk_status engine_backend_gpu_set_abc_on_device(engine_backend *be, int on, cuzk_error *err)
{
    if (!be || be->prove_start != gpu_prove_start)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: a, b, c on the device needs the GPU backend");
    be->evaluates_abc = on != 0;
    return CUZK_OK;
}

/* The residency's preload: the bases go to the device now, as the first partition there would upload them. */
static cuzk_status gpu_params_upload_hook(engine_backend *be, const groth16_params *params, int device, cuzk_error *err)
{
    gpu_backend *gb = be->ctx;
    device_cache_entry *e = NULL;
    cuzk_status st = device_cache_acquire(gb->params, params, 0, device, &e, err);
    device_cache_release(gb->params, e);
    return st;
}

/* The set's device copies go (each at once, or when the partition using it ends), and with them the matrices no
 * partition is using. */
static void gpu_params_evict(engine_backend *be, const groth16_params *params)
{
    gpu_backend *gb = be->ctx;
    device_cache_drop(gb->params, params);
    device_cache_free_unused(gb->shapes, -1);
}

size_t engine_backend_gpu_resident_bytes(engine_backend *be)
{
    if (!be || be->prove_start != gpu_prove_start) return 0;
    gpu_backend *gb = be->ctx;
    size_t n = 0;
    for (int d = 0; d < gb->n_devices; d++) n += device_cache_bytes(gb->params, d) + device_cache_bytes(gb->shapes, d);
    return n;
}

/* The arrays of params that pinning covers: every base the device path uploads or reads. */
static size_t params_arrays(const groth16_params *p, void **ptr, size_t *bytes)
{
    void *const ps[] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    const size_t bs[] = {p->h_len * sizeof(g1_affine_t), p->l_len * sizeof(g1_affine_t), p->a_len * sizeof(g1_affine_t),
                         p->b_g1_len * sizeof(g1_affine_t), p->b_g2_len * sizeof(g2_affine_t)};
    size_t n = 0;
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        if (!ps[i] || !bs[i]) continue; /* an empty query has nothing to register */
        ptr[n] = ps[i];
        bytes[n++] = bs[i];
    }
    return n;
}

static cuzk_status gpu_params_pin(engine_backend *be, const groth16_params *params, cuzk_error *err)
{
    (void)be;
    if (!params) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: NULL params to pin");
    void *ptr[5];
    size_t bytes[5], n = params_arrays(params, ptr, bytes);
    for (size_t i = 0; i < n; i++) {
        cuzk_status st = gpu_host_register(ptr[i], bytes[i], err);
        if (st != CUZK_OK) {
            for (size_t j = 0; j < i; j++) gpu_host_unregister(ptr[j], NULL);
            if (err) cuzk_error_prefix(err, "gpu backend: pinning parameters (array %zu of %zu): ", i + 1, n);
            return st;
        }
    }
    return CUZK_OK;
}

static void gpu_params_unpin(engine_backend *be, const groth16_params *params)
{
    (void)be;
    if (!params) return;
    void *ptr[5];
    size_t bytes[5], n = params_arrays(params, ptr, bytes);
    for (size_t i = 0; i < n; i++) gpu_host_unregister(ptr[i], NULL);
}

static cuzk_status gpu_device_memory(engine_backend *be, int device, engine_device_memory *out, cuzk_error *err)
{
    if (!out) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: NULL out");
    memset(out, 0, sizeof(*out));
    out->device = device;
    gpu_backend *gb = be->ctx;
    if (device < 0 || device >= gb->n_devices)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: no device %d (%d visible)", device,
                              gb->n_devices);
    gpu_device_info info;
    cuzk_status st = gpu_device_get_info(device, &info, err);
    if (st != CUZK_OK) return st;
    snprintf(out->name, sizeof(out->name), "%s", info.name);
    out->total_bytes = info.total_mem;
    out->free_bytes = info.free_mem;
    out->resident_bytes = device_cache_bytes(gb->params, device) + device_cache_bytes(gb->shapes, device);
    out->resident_sets = device_cache_count(gb->params, device);
    return CUZK_OK;
}

/* Page-locking a small probe: a driver or a container may refuse registration altogether. */
static cuzk_status gpu_pin_probe(engine_backend *be, cuzk_error *err)
{
    (void)be;
    size_t n = 1 << 16;
    void *probe = malloc(n);
    if (!probe) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: out of memory");
    cuzk_status st = gpu_host_register(probe, n, err);
    if (st == CUZK_OK) gpu_host_unregister(probe, NULL);
    free(probe);
    return st;
}
