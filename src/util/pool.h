/* One shared pool of POSIX threads for parallel loops (NTT, MSM, a/b/c
 * evaluation, setup). The owner creates it and passes it down; there is no
 * global pool. A pool of 1 thread runs everything on the caller. */
#ifndef CUZK_UTIL_POOL_H
#define CUZK_UTIL_POOL_H

#include <stddef.h>

#include "cuzk/status.h"

typedef struct pool pool_t;

/* The body of a parallel loop: handle indices [begin, end). worker is in [0, pool_size). */
typedef void (*pool_fn)(void *ctx, size_t begin, size_t end, unsigned worker);

/* nthreads == 0 means one per online CPU. The caller's thread counts as one of them. */
cuzk_status pool_create(pool_t **out, unsigned nthreads, cuzk_error *err);
void pool_destroy(pool_t *pool);
unsigned pool_size(const pool_t *pool);

/* Runs fn over [0, n) split into chunks of at least `grain` indices, spread
 * over the pool's threads, and returns when all are done. Calls from several
 * threads at once are serialised. pool may be NULL: then fn runs on the caller. */
void pool_parallel_for(pool_t *pool, size_t n, size_t grain, pool_fn fn, void *ctx);

/* memcpy spread over the pool's threads (page faults of fresh destination memory included, which one thread takes
 * at a few GB/s). */
void pool_memcpy(pool_t *pool, void *dst, const void *src, size_t bytes);

#endif
