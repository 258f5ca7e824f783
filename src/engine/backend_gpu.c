/* The GPU backend behind the engine's seam (engine.h): gpu_prove_start_abc per partition (or, when it
 * evaluates a, b, c itself, gpu_prove_start_shape from the circuit's matrices on the device), one gpu_prover per
 * prover worker, resident bases per (params, device) and matrices per (shape, device), groth16_prove_finish on
 * CPU threads. The residency's hooks (params_pin/unpin: host registration of a set's arrays, for its pinned
 * tier; params_upload: a preloaded set's bases onto a device; params_evict: the set's device copies dropped) and
 * per-device memory figures. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_prove.h"

typedef struct resident {
    const groth16_params *params;
    gpu_params *gp;
    struct resident *next;
} resident;

/* Resident bases on one device, kept beside the list so that readers (metrics) need not wait for mu, which
 * an upload holds for as long as it takes. Written under mu, read without it (atomics). */
typedef struct device_usage {
    uint64_t bytes;
    unsigned sets;
} device_usage;

/* A circuit's matrices on one device. Keyed by the shape's address and a fingerprint of its contents, so that
 * a shape freed and another allocated at the same address is never taken for the old one. users: partitions
 * in prove_start with it; an entry without users is freed when another shape needs the device. */
typedef struct resident_shape {
    const r1cs *shape;
    uint64_t print;
    gpu_shape *gs;
    unsigned users;
    struct resident_shape *next;
} resident_shape;

typedef struct gpu_backend {
    engine_backend be;
    pool_t *host_pool, *finish_pool;
    pthread_mutex_t mu; /* workers[] and the resident lists; held during an upload (others wait for it) */
    gpu_prover **workers;
    unsigned n_workers;
    /* Per visible device: the prover of CRITICAL partitions (gpu_prover_create_urgent), created on first use,
     * and the lock that makes two CRITICAL partitions on one device take it in turn. */
    gpu_prover **urgent;
    pthread_mutex_t *urgent_mu;
    resident *res;
    resident_shape *shapes;
    device_usage *usage; /* per visible device */
    int n_usage;
} gpu_backend;

/* With mu held: r joins (sign 1) or leaves (sign -1) the resident list. */
static void usage_add(gpu_backend *gb, const resident *r, int sign)
{
    int d = gpu_params_device(r->gp);
    if (d < 0 || d >= gb->n_usage) return;
    uint64_t bytes = gpu_params_bytes(r->gp);
    if (sign > 0) {
        __atomic_add_fetch(&gb->usage[d].bytes, bytes, __ATOMIC_RELAXED);
        __atomic_add_fetch(&gb->usage[d].sets, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_sub_fetch(&gb->usage[d].bytes, bytes, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&gb->usage[d].sets, 1, __ATOMIC_RELAXED);
    }
}

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
    if (device < 0 || device >= gb->n_usage)
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
            usage_add(gb, r, 1);
        }
    }
    pthread_mutex_unlock(&gb->mu);
    if (r) *out = r->gp;
    return st;
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

/* With mu held: r's device bytes join (sign 1) or leave (sign -1) its device's figure. */
static void usage_add_shape(gpu_backend *gb, const resident_shape *r, int sign)
{
    int d = gpu_shape_device(r->gs);
    if (d < 0 || d >= gb->n_usage) return;
    uint64_t bytes = gpu_shape_bytes(r->gs);
    if (sign > 0)
        __atomic_add_fetch(&gb->usage[d].bytes, bytes, __ATOMIC_RELAXED);
    else
        __atomic_sub_fetch(&gb->usage[d].bytes, bytes, __ATOMIC_RELAXED);
}

/* With mu held: frees the matrices no partition is using, on `device` (-1: every device). */
static void shapes_free_unused(gpu_backend *gb, int device)
{
    for (resident_shape **pp = &gb->shapes; *pp;) {
        resident_shape *r = *pp;
        if (r->users == 0 && (device < 0 || gpu_shape_device(r->gs) == device)) {
            *pp = r->next;
            usage_add_shape(gb, r, -1);
            gpu_shape_free(r->gs);
            free(r);
        } else {
            pp = &r->next;
        }
    }
}

/* shape's matrices on device, uploaded by the first partition that needs them; *out is held (users) until
 * shape_release. Matrices of other shapes that nobody uses are freed first, so a device holds the shapes in use
 * and at most one more. */
static cuzk_status shape_acquire(gpu_backend *gb, const r1cs *shape, int device, resident_shape **out, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    uint64_t print = shape_print(shape);
    pthread_mutex_lock(&gb->mu);
    resident_shape *r = gb->shapes;
    while (r && !(r->shape == shape && r->print == print && gpu_shape_device(r->gs) == device)) r = r->next;
    if (!r) {
        shapes_free_unused(gb, device);
        r = calloc(1, sizeof(*r));
        if (!r) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate a resident shape entry");
        } else if ((st = gpu_shape_upload(device, shape, &r->gs, err)) != CUZK_OK) {
            cuzk_error_prefix(err, "gpu backend: the circuit's matrices on device %d: ", device);
            free(r);
            r = NULL;
        } else {
            r->shape = shape;
            r->print = print;
            r->next = gb->shapes;
            gb->shapes = r;
            usage_add_shape(gb, r, 1);
        }
    }
    if (r) r->users++;
    pthread_mutex_unlock(&gb->mu);
    *out = r;
    return st;
}

static void shape_release(gpu_backend *gb, resident_shape *r)
{
    if (!r) return;
    pthread_mutex_lock(&gb->mu);
    r->users--;
    pthread_mutex_unlock(&gb->mu);
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
    const gpu_params *gp = NULL;
    cuzk_status st = CUZK_OK;
    /* One retry after running out of device memory: the other worker on the device may have released its
     * working set by then. a, b, c are only read by the GPU prover, so the retry sees the same inputs, unless
     * they were already handed back to the engine. */
    abc_release_hook hk = {p, 0};
    int urgent = p->priority == ENGINE_PRIO_CRITICAL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) sched_yield();
        resident_shape *rs = NULL;
        st = urgent ? urgent_prover(gb, device, &pv, err) : worker_prover(gb, device, worker, &pv, err);
        /* The matrices before the bases: under a device-memory cap the bases' plan leaves room for what the device
         * already holds (gpu_params_upload). */
        if (st == CUZK_OK && !p->a) st = shape_acquire(gb, ci->shape, device, &rs, err);
        if (st == CUZK_OK) st = resident_params(gb, ci->params, device, &gp, err);
        if (st == CUZK_OK && !p->a) {
            st = gpu_prove_start_shape(pv, gp, rs->gs, gb->host_pool, ci->params, p->inputs, p->num_inputs, p->aux,
                                       p->num_aux, &ci->density, &h->pending, NULL, NULL, err);
        } else if (st == CUZK_OK) {
            gpu_prover_on_abc_done(pv, on_abc_done, &hk);
            st = gpu_prove_start_abc(pv, gp, gb->host_pool, ci->params, p->num_constraints, p->a, p->b, p->c, p->inputs,
                                     p->num_inputs, p->aux, p->num_aux, &ci->density, &h->pending, NULL, NULL, err);
        }
        shape_release(gb, rs);
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

static void gpu_destroy(engine_backend *be)
{
    gpu_backend *gb = be->ctx;
    for (resident *r = gb->res, *next; r; r = next) {
        next = r->next;
        gpu_params_free(r->gp);
        free(r);
    }
    for (resident_shape *r = gb->shapes, *next; r; r = next) {
        next = r->next;
        gpu_shape_free(r->gs);
        free(r);
    }
    free(gb->usage);
    for (unsigned i = 0; i < gb->n_workers; i++) gpu_prover_destroy(gb->workers[i]);
    for (int d = 0; d < gb->n_usage; d++) {
        gpu_prover_destroy(gb->urgent[d]);
        pthread_mutex_destroy(&gb->urgent_mu[d]);
    }
    free(gb->urgent);
    free(gb->urgent_mu);
    free(gb->workers);
    pthread_mutex_destroy(&gb->mu);
    free(gb);
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
    gb->n_usage = gpu_device_count();
    gb->usage = calloc((size_t)gb->n_usage, sizeof(*gb->usage));
    gb->urgent = calloc((size_t)gb->n_usage, sizeof(*gb->urgent));
    gb->urgent_mu = calloc((size_t)gb->n_usage, sizeof(*gb->urgent_mu));
    if (!gb->usage || !gb->urgent || !gb->urgent_mu) {
        free(gb->usage);
        free(gb->urgent);
        free(gb->urgent_mu);
        pthread_mutex_destroy(&gb->mu);
        free(gb);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu backend: cannot allocate");
    }
    for (int d = 0; d < gb->n_usage; d++) pthread_mutex_init(&gb->urgent_mu[d], NULL);
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
    const gpu_params *gp = NULL;
    return resident_params(be->ctx, params, device, &gp, err);
}

static void gpu_params_evict(engine_backend *be, const groth16_params *params)
{
    gpu_backend *gb = be->ctx;
    pthread_mutex_lock(&gb->mu);
    for (resident **pp = &gb->res; *pp;) {
        resident *r = *pp;
        if (r->params == params) {
            *pp = r->next;
            usage_add(gb, r, -1);
            gpu_params_free(r->gp);
            free(r);
        } else {
            pp = &r->next;
        }
    }
    shapes_free_unused(gb, -1);
    pthread_mutex_unlock(&gb->mu);
}

size_t engine_backend_gpu_resident_bytes(engine_backend *be)
{
    if (!be || be->prove_start != gpu_prove_start) return 0;
    gpu_backend *gb = be->ctx;
    size_t n = 0;
    for (int d = 0; d < gb->n_usage; d++) n += __atomic_load_n(&gb->usage[d].bytes, __ATOMIC_RELAXED);
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
    if (device < 0 || device >= gb->n_usage)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu backend: no device %d (%d visible)", device, gb->n_usage);
    gpu_device_info info;
    cuzk_status st = gpu_device_get_info(device, &info, err);
    if (st != CUZK_OK) return st;
    snprintf(out->name, sizeof(out->name), "%s", info.name);
    out->total_bytes = info.total_mem;
    out->free_bytes = info.free_mem;
    {
        out->resident_bytes = __atomic_load_n(&gb->usage[device].bytes, __ATOMIC_RELAXED);
        out->resident_sets = __atomic_load_n(&gb->usage[device].sets, __ATOMIC_RELAXED);
    }
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
