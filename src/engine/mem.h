/* The memory accounting layer: one budget for the large host buffers (pageable and pinned) that the engine
 * holds, with bytes in use and peak per kind. The engine takes every partition's working set through it
 * before synthesis starts, so the budget is never exceeded; the tests and the benchmark read the peak from
 * here. Device memory is counted separately (its own limit, 0 = unlimited) because it is a different pool.
 *
 * What is counted is what the caller reserves: the estimate of a buffer's size taken before the buffer
 * exists, released (possibly in parts) when it is freed. Small allocations (MSM buckets, job records) are
 * not counted. Thread-safe. */
#ifndef CUZK_ENGINE_MEM_H
#define CUZK_ENGINE_MEM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef enum engine_mem_kind { ENGINE_MEM_HOST = 0, ENGINE_MEM_PINNED = 1, ENGINE_MEM_DEVICE = 2 } engine_mem_kind;
#define ENGINE_MEM_KINDS 3

/* Frees memory a holder keeps only as a cache (the engine's idle a, b, c buffer sets), about `bytes` of it or
 * more if it can; returns the bytes it released. Called by engine_mem_try_reserve without the budget's lock,
 * on the reserving thread; it must not reserve. */
typedef uint64_t (*engine_mem_reclaim_fn)(void *ctx, uint64_t bytes);

typedef struct engine_mem {
    pthread_mutex_t mu;
    engine_mem_reclaim_fn reclaim; /* set once, before other threads use the budget */
    void *reclaim_ctx;
    uint64_t host_limit;   /* host + pinned; 0 = unlimited */
    uint64_t device_limit; /* 0 = unlimited */
    uint64_t in_use[ENGINE_MEM_KINDS], peak[ENGINE_MEM_KINDS];
    uint64_t host_peak; /* peak of host + pinned together (what the budget bounds) */
    uint64_t refused;   /* reservations that did not fit */
} engine_mem;

cuzk_status engine_mem_init(engine_mem *m, uint64_t host_limit, uint64_t device_limit, cuzk_error *err);
void engine_mem_destroy(engine_mem *m);
/* Takes bytes of kind if they fit under the limit: 1 if taken, 0 if not (nothing changes then). Host or
 * pinned bytes that do not fit first make the reclaimer (if any) free what it caches, then are tried again: a
 * cache never refuses anybody room. */
int engine_mem_try_reserve(engine_mem *m, engine_mem_kind kind, uint64_t bytes);
/* As engine_mem_try_reserve without asking the reclaimer: for the reclaimer's owner, which frees its cache its
 * own way (and may hold a lock the reclaimer takes). */
int engine_mem_try_reserve_direct(engine_mem *m, engine_mem_kind kind, uint64_t bytes);
/* Installs the reclaimer (NULL: none). Call it before other threads reserve. */
void engine_mem_set_reclaim(engine_mem *m, engine_mem_reclaim_fn fn, void *ctx);
/* Gives back bytes taken earlier (any split of a reservation). Releasing more than is in use is a bug;
 * the count is clamped at zero. */
void engine_mem_release(engine_mem *m, engine_mem_kind kind, uint64_t bytes);
/* Recounts bytes reserved as kind `from` as kind `to`, in one step (no other thread sees them in neither or
 * both). Between host and pinned, which share one limit, it always succeeds (e.g. a buffer page-locked or
 * unlocked in place); into or out of device memory the bytes must fit under to's limit: 1 if moved, 0 if not
 * (nothing changes then, and it counts as refused). Moving more than from has in use is a bug; that count is
 * clamped at zero. */
int engine_mem_move(engine_mem *m, engine_mem_kind from, engine_mem_kind to, uint64_t bytes);
/* Whether bytes of kind could ever fit (when nothing else is reserved). */
int engine_mem_fits_at_all(const engine_mem *m, engine_mem_kind kind, uint64_t bytes);

typedef struct engine_mem_stats {
    uint64_t host_limit, device_limit;
    uint64_t in_use[ENGINE_MEM_KINDS], peak[ENGINE_MEM_KINDS];
    uint64_t host_in_use, host_peak; /* host + pinned */
    uint64_t refused;
} engine_mem_stats;
void engine_mem_get_stats(engine_mem *m, engine_mem_stats *out);
/* Host + pinned bytes in use now. */
uint64_t engine_mem_host_in_use(engine_mem *m);

#endif
