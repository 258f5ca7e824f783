/* One way to open an engine: a backend (the GPU on the chosen or every visible device, or the CPU), the engine over
 * it and the parameter residency told of that backend (pins and frees through its hooks, the pinned tier where the
 * backend can pin and page-locking works here). The daemon, `cuzk prove` and `cuzk-bench batch` all open their
 * engine with engine_open, so that none of them names the GPU layer or wires the pieces its own way. */
#ifndef CUZK_ENGINE_OPEN_H
#define CUZK_ENGINE_OPEN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "engine/engine.h"
#include "engine/residency.h"
#include "util/pool.h"

typedef enum engine_backend_choice {
    ENGINE_BACKEND_AUTO = 0, /* the GPU when a device is visible and its backend starts, else the CPU */
    ENGINE_BACKEND_CPU,
    ENGINE_BACKEND_GPU /* the GPU or an error */
} engine_backend_choice;

#define ENGINE_OPEN_MAX_DEVICES 64

typedef struct engine_open_config {
    engine_backend_choice backend;
    /* GPU: the devices to prove on (each must exist: CUZK_ERR_INVALID_ARG otherwise); none: every visible one, up
     * to ENGINE_OPEN_MAX_DEVICES. Ignored by the CPU backend (one device slot, 0); with AUTO and no GPU, a note. */
    const int *devices;
    size_t num_devices;
    pool_t *pool;            /* borrowed, may be NULL: the backend's host work (the CPU's prove_start) */
    unsigned finish_threads; /* GPU: threads of the pool B_G2 and assembly run on (0: pool_create's default) */
    /* GPU: a, b, c evaluated on the device: 1, 0, or -1 by the devices' memory: on the device unless one of them
     * holds (as capped) less than the device path needs for the largest partitions (gpu_plan_abc_on_device) */
    int abc_on_device;
    /* GPU: a cap in bytes on the device memory the backend holds on each device (gpu_tune.memory_limit, set here
     * for the whole process before the backend starts); 0 leaves the tuning's (CUZK_GPU_MEMORY_LIMIT), and without
     * one a device under GPU_PLAN_UNCAPPED_MIN is capped at the memory free on it (plan.h; cap_note says so). */
    uint64_t gpu_memory_limit;
    /* The engine's configuration; backend, devices and num_devices are set by engine_open. */
    engine_config engine;
    /* The residency: idle eviction, the pinned tier's budget (0: none) and the owner's notification. */
    double idle_evict_s;
    uint64_t pinned_budget;
    engine_residency_notify_fn notify;
    void *notify_ctx;
} engine_open_config;

typedef struct engine_host {
    engine *eng;
    engine_backend *backend;
    engine_residency *res;
    int devices[ENGINE_OPEN_MAX_DEVICES]; /* the device slots the engine proves on */
    size_t num_devices;
    int on_devices;         /* the backend is the GPU's (devices are real devices) */
    uint64_t pinned_budget; /* the pinned tier in effect (0: none) */
    char backend_note[256]; /* why AUTO proves on the CPU ("" when it did not fall back) */
    char abc_note[256];     /* GPU: why abc_on_device -1 chose the host ("" otherwise) */
    char cap_note[320];     /* GPU: the cap set for devices too small for the uncapped plan ("" otherwise) */
    char pinned_note[256];  /* why a pinned_budget asked for has no effect ("" otherwise) */
    pool_t *finish_pool;
} engine_host;

/* Opens backend, engine and residency from cfg (borrowed; cfg->pool and cfg->engine.synth_pool must outlive the
 * host). On failure nothing is left open. */
cuzk_status engine_open(const engine_open_config *cfg, engine_host **out, cuzk_error *err);
/* Frees the residency's sets (the backend is told), then the engine, the backend and its pool. NULL is allowed.
 * Every job must be over. */
void engine_close(engine_host *h);

#endif
