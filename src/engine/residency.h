/* Parameter residency, a first version: named parameter sets that are cold (not in memory), warm (in memory,
 * unused, evictable) or hot (in memory, referenced by running work). Loaded bytes are reserved in the same
 * engine_mem as the partitions' working sets, so parameters and partitions share one budget; when a load
 * does not fit, idle (warm) sets are evicted, least recently used first.
 *
 * Not yet: a pinned tier for hot parameters, an mmap'd warm tier (page cache instead of private copies),
 * eviction after a minimum idle time, and jobs acquiring their parameters through this automatically (an
 * engine_circuit still borrows a groth16_params). Loads run under the residency's lock, so a slow load
 * delays other acquires. Thread-safe. */
#ifndef CUZK_ENGINE_RESIDENCY_H
#define CUZK_ENGINE_RESIDENCY_H

#include <stdint.h>

#include "cuzk/status.h"
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

typedef struct engine_residency engine_residency;

/* mem is borrowed (typically the engine's, engine_memory) and must outlive the residency. */
cuzk_status engine_residency_create(engine_residency **out, engine_mem *mem, cuzk_error *err);
/* Frees every loaded set and returns its bytes. Sets still referenced are freed too: call it last. */
void engine_residency_destroy(engine_residency *r);

/* Registers a cold set. CUZK_ERR_INVALID_ARG for a duplicate name. */
cuzk_status engine_residency_add(engine_residency *r, const char *name, engine_params_load_fn load, void *ctx,
                                 cuzk_error *err);
/* Loads the set if cold (evicting warm ones to make room; CUZK_ERR_NOMEM if it cannot fit) and takes a
 * reference: the set is hot until the matching release. */
cuzk_status engine_residency_acquire(engine_residency *r, const char *name, const groth16_params **params,
                                     cuzk_error *err);
void engine_residency_release(engine_residency *r, const char *name);
/* Loads without a reference (the set becomes warm). */
cuzk_status engine_residency_preload(engine_residency *r, const char *name, cuzk_error *err);
/* Frees a warm set (it becomes cold). Returns 1 if freed, 0 if it was hot, cold or unknown. */
int engine_residency_evict(engine_residency *r, const char *name);
engine_residency_state engine_residency_state_of(engine_residency *r, const char *name);

/* Bytes of the arrays of a loaded parameter set (what the residency accounts for it). */
uint64_t engine_params_bytes(const groth16_params *p);

#endif
