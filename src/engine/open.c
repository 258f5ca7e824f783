#include "engine/open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/plan.h"
#include "gpu/tune.h"

/* Without a configured cap: the least of h's devices' implicit caps (gpu_plan_implicit_cap: the memory free on a
 * device too small for the uncapped plan), set for the whole process as gpus.memory_limit would be, with a note. */
static cuzk_status cap_small_devices(engine_host *h, cuzk_error *err)
{
    size_t cap = 0;
    gpu_device_info info, least;
    int at = -1;
    for (size_t i = 0; i < h->num_devices; i++) {
        cuzk_status st = gpu_device_get_info(h->devices[i], &info, err);
        if (st != CUZK_OK) return st;
        size_t c = gpu_plan_implicit_cap(info.total_mem, info.free_mem);
        if (c && (!cap || c < cap)) {
            cap = c;
            at = h->devices[i];
            least = info;
        }
    }
    if (!cap) return CUZK_OK;
    gpu_tune t = gpu_tune_get();
    t.memory_limit = cap;
    gpu_tune_set(&t);
    snprintf(h->cap_note, sizeof(h->cap_note),
             "device %d (%.100s) holds %.2f GiB, under the %.0f GiB the uncapped plan needs: the GPU backend holds at "
             "most the %.2f GiB free on it, on each device (gpus.memory_limit sets another cap)",
             at, least.name, (double)least.total_mem / (1 << 30), (double)GPU_PLAN_UNCAPPED_MIN / (1 << 30),
             (double)cap / (1 << 30));
    return CUZK_OK;
}

/* The GPU backend on cfg's devices (or every visible one). CUZK_ERR_UNSUPPORTED when no device is visible. */
static cuzk_status open_gpu(const engine_open_config *cfg, engine_host *h, cuzk_error *err)
{
    int visible = gpu_device_count();
    if (visible <= 0)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "gpu backend: no CUDA device (none visible, or cuzk was built without CUDA)");
    if (cfg->num_devices > ENGINE_OPEN_MAX_DEVICES)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%zu devices: at most %d", cfg->num_devices,
                              ENGINE_OPEN_MAX_DEVICES);
    h->num_devices = 0;
    for (size_t i = 0; i < cfg->num_devices; i++) {
        if (cfg->devices[i] < 0 || cfg->devices[i] >= visible)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "device %d does not exist (%d visible: 0..%d)",
                                  cfg->devices[i], visible, visible - 1);
        h->devices[h->num_devices++] = cfg->devices[i];
    }
    for (int i = 0; !cfg->num_devices && i < visible && i < ENGINE_OPEN_MAX_DEVICES; i++)
        h->devices[h->num_devices++] = i;
    /* Before any context exists: the pool's release threshold follows the cap (gpu_ctx_create). */
    cuzk_status st = CUZK_OK;
    if (cfg->gpu_memory_limit) {
        gpu_tune t = gpu_tune_get();
        t.memory_limit = (size_t)cfg->gpu_memory_limit;
        gpu_tune_set(&t);
    } else if (!gpu_tune_get().memory_limit) {
        st = cap_small_devices(h, err);
    }
    /* B_G2 and assembly on a pool of their own, so that they overlap the next partition's device work. */
    if (st == CUZK_OK) st = pool_create(&h->finish_pool, cfg->finish_threads, err);
    if (st == CUZK_OK) st = engine_backend_gpu_create(cfg->pool, h->finish_pool, &h->backend, err);
    int abc_on_device = cfg->abc_on_device;
    for (size_t i = 0; st == CUZK_OK && abc_on_device < 0 && i < h->num_devices; i++) {
        gpu_device_info info;
        st = gpu_device_get_info(h->devices[i], &info, err);
        if (st == CUZK_OK && !gpu_plan_abc_on_device(info.total_mem)) {
            abc_on_device = 0;
            snprintf(h->abc_note, sizeof(h->abc_note),
                     "a, b, c evaluated on the host: device %d holds %.2f GiB%s, under the %.0f GiB the device path "
                     "needs for a 32 GiB sector's partitions",
                     h->devices[i], (double)info.total_mem / (1 << 30), gpu_tune_get().memory_limit ? " (capped)" : "",
                     (double)GPU_PLAN_ABC_DEVICE_MIN / (1 << 30));
        }
    }
    if (st == CUZK_OK && abc_on_device >= 0) st = engine_backend_gpu_set_abc_on_device(h->backend, abc_on_device, err);
    if (st != CUZK_OK) {
        engine_backend_destroy(h->backend);
        h->backend = NULL;
        pool_destroy(h->finish_pool);
        h->finish_pool = NULL;
        h->num_devices = 0;
        return st;
    }
    h->on_devices = 1;
    return CUZK_OK;
}

static cuzk_status open_backend(const engine_open_config *cfg, engine_host *h, cuzk_error *err)
{
    if (cfg->backend != ENGINE_BACKEND_CPU) {
        cuzk_status st = open_gpu(cfg, h, err);
        if (st == CUZK_OK || cfg->backend == ENGINE_BACKEND_GPU) return st;
        /* A device that does not exist is the caller's mistake, not a reason to prove elsewhere. */
        if (st == CUZK_ERR_INVALID_ARG) return st;
        if (st != CUZK_ERR_UNSUPPORTED)
            snprintf(h->backend_note, sizeof(h->backend_note), "GPU backend unavailable (%.200s): proving on the CPU",
                     err->msg);
        else if (cfg->num_devices)
            snprintf(h->backend_note, sizeof(h->backend_note),
                     "devices are given but no GPU is visible (or cuzk was built without CUDA): proving on the CPU");
    }
    h->devices[0] = 0;
    h->num_devices = 1;
    return engine_backend_cpu_create(cfg->pool, NULL, &h->backend, err);
}

static cuzk_status open_residency(const engine_open_config *cfg, engine_host *h, cuzk_error *err)
{
    cuzk_status st = engine_residency_create(&h->res, engine_memory(h->eng), err);
    if (st != CUZK_OK) return st;
    engine_residency_options ro = {
        .idle_evict_s = cfg->idle_evict_s,
        .backend = h->backend,
        .devices = h->on_devices ? h->devices : NULL,
        .num_devices = h->on_devices ? h->num_devices : 0,
        .notify = cfg->notify,
        .notify_ctx = cfg->notify_ctx,
    };
    /* Page-locked memory only speeds up copies to a device; a driver or a container may refuse it altogether,
     * probed once so that the tier is off with one note instead of a failed pin for every set. */
    cuzk_error perr = {0};
    if (cfg->pinned_budget && !h->backend->params_pin)
        snprintf(h->pinned_note, sizeof(h->pinned_note), "no effect on the %s backend: parameters stay pageable",
                 h->backend->name);
    else if (cfg->pinned_budget && h->backend->pin_probe && h->backend->pin_probe(h->backend, &perr) != CUZK_OK)
        snprintf(h->pinned_note, sizeof(h->pinned_note),
                 "page-locking is refused here (%.180s): parameters stay "
                 "pageable",
                 perr.msg);
    else
        ro.pinned_budget = cfg->pinned_budget;
    h->pinned_budget = ro.pinned_budget;
    return engine_residency_configure(h->res, &ro, err);
}

cuzk_status engine_open(const engine_open_config *cfg, engine_host **out, cuzk_error *err)
{
    *out = NULL;
    engine_host *h = calloc(1, sizeof(*h));
    if (!h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "engine_open: out of memory");
    cuzk_status st = open_backend(cfg, h, err);
    if (st == CUZK_OK) {
        engine_config ec = cfg->engine;
        ec.backend = h->backend;
        ec.devices = h->devices;
        ec.num_devices = h->num_devices;
        st = engine_create(&h->eng, &ec, err);
    }
    if (st == CUZK_OK) st = open_residency(cfg, h, err);
    if (st != CUZK_OK) {
        engine_close(h);
        return st;
    }
    *out = h;
    return CUZK_OK;
}

void engine_close(engine_host *h)
{
    if (!h) return;
    /* The sets go first: the residency returns their bytes to the engine's accounting and tells the backend. */
    engine_residency_destroy(h->res);
    engine_destroy(h->eng);
    engine_backend_destroy(h->backend);
    pool_destroy(h->finish_pool);
    free(h);
}
