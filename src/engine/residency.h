/* Parameter residency: named parameter sets that are cold (not in memory), warm (in memory, unused,
 * evictable) or hot (in memory, referenced by running work). Loaded bytes are reserved in the same
 * engine_mem as the partitions' working sets, so parameters and partitions share one budget; when a load
 * does not fit, idle (warm) sets are evicted, least recently used first. A set is never evicted while it is
 * referenced.
 *
 * A loaded set is an engine_params: a reference-counted object (engine_residency_acquire takes a reference,
 * engine_residency_release gives it back) with a stable id, unique for the life of the process, so a set
 * evicted and loaded again (maybe at the same address) is told apart by its id: what its holders built over
 * it (circuits) is keyed by that id.
 *
 * The backend (engine_backend's params_* hooks, engine.h) is told about each set by the residency itself:
 * - the pinned tier: when a set becomes hot it is pinned (params_pin: e.g. CUDA host registration, for fast
 *   DMA) while the pinned bytes stay within pinned_budget; its bytes then count as ENGINE_MEM_PINNED instead of
 *   ENGINE_MEM_HOST (the same budget, another kind). A pinned set stays pinned while warm, and is unpinned when
 *   a hot set needs the pinned room or when it is evicted. No pinned tier without params_pin;
 * - preloads: params_upload once per device of the options, so the first partition finds the set there;
 * - eviction: params_evict once for every set freed (explicit evict, pressure, idle sweep, destroy), before
 *   its memory goes, so that the backend drops its copies (e.g. the bases on the devices).
 * Optional (engine_residency_configure): idle eviction (engine_residency_sweep frees the warm sets unused for
 * idle_evict_s seconds; the owner calls it periodically), and a notification of pins and frees for the owner's
 * log.
 *
 * Hooks run under the residency's lock, but for params_pin and params_upload (seconds for tens of GB, run on a
 * referenced set without it): none may call into the residency. Loads run without the lock, one at a time: a call for a loaded set never waits for another set's load (a 32 GiB PoRep set reads ~47 GB), a call
 * for the set being loaded, or for another cold one, waits for the load running (at most one set's memory is
 * then outside the accounting: a set is reserved once it is in). A load hook may return memory-mapped parameters
 * (groth16_params_load_mapped): warm sets are then mappings backed by the page cache, and such a set is never
 * pinned. Thread-safe. */
#ifndef CUZK_ENGINE_RESIDENCY_H
#define CUZK_ENGINE_RESIDENCY_H

#include <stdint.h>

#include "cuzk/status.h"
#include "engine/engine.h"
#include "engine/mem.h"
#include "groth16/groth16.h"

typedef enum engine_residency_state {
    ENGINE_PARAMS_UNKNOWN = 0, /* no set of that name */
    ENGINE_PARAMS_COLD,
    ENGINE_PARAMS_WARM,
    ENGINE_PARAMS_HOT
} engine_residency_state;

/* Loads a parameter set into *out (e.g. groth16_params_read of a file). */
typedef cuzk_status (*engine_params_load_fn)(void *ctx, groth16_params *out, cuzk_error *err);

typedef enum engine_residency_event {
    ENGINE_RESIDENCY_PINNED,       /* a set was pinned (bytes, ms) */
    ENGINE_RESIDENCY_PIN_FAILED,   /* pinning failed, the set stays pageable (bytes, error) */
    ENGINE_RESIDENCY_FREED,        /* a set was freed (bytes) */
    ENGINE_RESIDENCY_UPLOADED,     /* a preloaded set went to a device (bytes, ms) */
    ENGINE_RESIDENCY_UPLOAD_FAILED /* it did not; the first partition there uploads it (bytes, error) */
} engine_residency_event;
/* For the owner's log: name of the set, its bytes, the time the step took, the error of a failure (else NULL). */
typedef void (*engine_residency_notify_fn)(void *ctx, engine_residency_event ev, const char *name, uint64_t bytes,
                                           double ms, const char *error);

#define ENGINE_RESIDENCY_MAX_DEVICES 64

typedef struct engine_residency_options {
    double idle_evict_s;     /* sweep frees warm sets unused this long; 0: never */
    engine_backend *backend; /* borrowed, may be NULL: told of pins and frees through its params_* hooks */
    uint64_t pinned_budget;  /* bytes of parameters kept pinned; 0 (or no params_pin hook): no pinned tier */
    /* The devices a preloaded set is uploaded to (the backend's params_upload), e.g. the engine's; copied. At
     * most ENGINE_RESIDENCY_MAX_DEVICES; none: no uploads ahead of the partitions. */
    const int *devices;
    size_t num_devices;
    engine_residency_notify_fn notify; /* may be NULL */
    void *notify_ctx;
    double (*clock)(void *ctx); /* seconds, for the idle times; NULL: CLOCK_MONOTONIC */
    void *clock_ctx;
} engine_residency_options;

/* A loaded parameter set (see above). */
typedef struct engine_params engine_params;
const groth16_params *engine_params_get(const engine_params *p);
/* Unique among every set any residency loads in this process; a new load of the same name gets a new id. */
uint64_t engine_params_id(const engine_params *p);
const char *engine_params_name(const engine_params *p);

typedef struct engine_residency engine_residency;

/* mem is borrowed (typically the engine's, engine_memory) and must outlive the residency. */
cuzk_status engine_residency_create(engine_residency **out, engine_mem *mem, cuzk_error *err);
/* Sets the options (all off after create). Only while no set is loaded: CUZK_ERR_INVALID_ARG otherwise, or
 * for a backend with params_pin but not params_unpin. */
cuzk_status engine_residency_configure(engine_residency *r, const engine_residency_options *o, cuzk_error *err);
/* Frees every loaded set (unpinning it and telling the backend) and returns its bytes. Sets still referenced
 * are freed too: call it last. */
void engine_residency_destroy(engine_residency *r);

/* Registers a cold set. CUZK_ERR_INVALID_ARG for a duplicate name. */
cuzk_status engine_residency_add(engine_residency *r, const char *name, engine_params_load_fn load, void *ctx,
                                 cuzk_error *err);
/* Loads the set if cold (evicting warm ones to make room; CUZK_ERR_NOMEM if it cannot fit) and takes a
 * reference on it (*out): the set is hot until every reference is released. Pins it if the pinned tier has
 * room. */
cuzk_status engine_residency_acquire(engine_residency *r, const char *name, engine_params **out, cuzk_error *err);
/* Gives back a reference of engine_residency_acquire; NULL is allowed. */
void engine_residency_release(engine_residency *r, engine_params *p);
/* Loads without a reference (the set becomes warm; its idle time starts now); with a backend that has
 * params_upload and devices in the options, also uploads it to each of those devices (pinning it first when the
 * tier has room) without holding the lock. A failed upload is counted and notified, not returned. */
cuzk_status engine_residency_preload(engine_residency *r, const char *name, cuzk_error *err);
/* Frees a warm set (it becomes cold). Returns 1 if freed (*bytes, may be NULL: what it held), 0 if it was hot,
 * cold or unknown. */
int engine_residency_evict(engine_residency *r, const char *name, uint64_t *bytes);
/* Frees every warm set idle for at least idle_evict_s (nothing when that is 0). Returns how many it freed. */
unsigned engine_residency_sweep(engine_residency *r);
engine_residency_state engine_residency_state_of(engine_residency *r, const char *name);
/* As engine_residency_state_of, without waiting: 0 (and *out untouched) when the lock is held (a pin of tens of
 * GB or an eviction's hooks hold it for seconds), for callers that must not wait, such as a status request on
 * the daemon's server loop. */
int engine_residency_try_state_of(engine_residency *r, const char *name, engine_residency_state *out);
/* Whether the set is loaded and pinned now. */
int engine_residency_pinned(engine_residency *r, const char *name);

typedef struct engine_residency_stats {
    uint64_t loads, load_failures; /* load hook calls that succeeded / failed (or did not fit) */
    uint64_t evictions;            /* sets freed, destroy aside: explicit + pressure + idle */
    uint64_t pressure_evictions, idle_evictions;
    uint64_t pins, unpins, pin_failures;
    uint64_t uploads, upload_failures; /* params_upload calls of preloads that succeeded / failed */
    uint64_t loaded_bytes, pinned_bytes, pinned_budget;
    unsigned sets, loaded, hot, pinned; /* registered, in memory, referenced, pinned */
} engine_residency_stats;
void engine_residency_get_stats(engine_residency *r, engine_residency_stats *out);
/* As engine_residency_get_stats, without waiting: 0 (and *out untouched) when the lock is held. */
int engine_residency_try_get_stats(engine_residency *r, engine_residency_stats *out);

/* Bytes of the arrays of a loaded parameter set (what the residency accounts for it). */
uint64_t engine_params_bytes(const groth16_params *p);

#endif
