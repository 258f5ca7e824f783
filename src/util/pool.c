/* Thread pool: workers sleep on a condition variable between loops; a loop is
 * published under the mutex with a new generation number, and chunks are handed
 * out through an atomic counter so that uneven work balances itself. */
#include "util/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct worker_arg;

struct pool {
    unsigned nthreads; /* including the caller */
    pthread_t *threads;
    struct worker_arg *args; /* workers keep a pointer to theirs until they exit */
    pthread_mutex_t call_mu; /* one loop at a time */
    pthread_mutex_t mu;      /* guards everything below except next */
    pthread_cond_t cv_work, cv_done;
    uint64_t generation;
    unsigned busy; /* workers that have not finished the current loop */
    int stop;
    pool_fn fn;
    void *ctx;
    size_t n, chunk;
    atomic_size_t next;
};

struct worker_arg {
    pool_t *pool;
    unsigned id;
};

/* The pool whose loop this thread is running, so that a nested call runs inline
 * instead of waiting for itself. */
static _Thread_local pool_t *tls_pool;
static _Thread_local unsigned tls_worker;

static void run_chunks(pool_t *p, pool_fn fn, void *ctx, size_t n, size_t chunk, unsigned id)
{
    pool_t *saved_pool = tls_pool;
    unsigned saved_worker = tls_worker;
    tls_pool = p;
    tls_worker = id;
    for (;;) {
        size_t begin = atomic_fetch_add_explicit(&p->next, chunk, memory_order_relaxed);
        if (begin >= n) break;
        size_t end = n - begin > chunk ? begin + chunk : n;
        fn(ctx, begin, end, id);
    }
    tls_pool = saved_pool;
    tls_worker = saved_worker;
}

static void *worker_main(void *argp)
{
    struct worker_arg *arg = argp;
    pool_t *p = arg->pool;
    unsigned id = arg->id;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->cv_work, &p->mu);
        if (p->stop) break;
        seen = p->generation;
        pool_fn fn = p->fn;
        void *ctx = p->ctx;
        size_t n = p->n, chunk = p->chunk;
        pthread_mutex_unlock(&p->mu);
        run_chunks(p, fn, ctx, n, chunk, id);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->cv_done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

cuzk_status pool_create(pool_t **out, unsigned nthreads, cuzk_error *err)
{
    *out = NULL;
    if (nthreads == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = online > 0 ? (unsigned)online : 1;
    }
    if (nthreads > 4096)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "pool_create: %u threads is more than 4096", nthreads);
    pool_t *p = calloc(1, sizeof *p);
    struct worker_arg *args = calloc(nthreads, sizeof *args);
    if (p) p->threads = calloc(nthreads, sizeof *p->threads);
    if (!p || !args || !p->threads) {
        if (p) free(p->threads);
        free(p);
        free(args);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "pool_create: cannot allocate a pool of %u threads", nthreads);
    }
    p->nthreads = 1;
    p->args = args;
    pthread_mutex_init(&p->call_mu, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    atomic_init(&p->next, 0);
    for (unsigned i = 1; i < nthreads; i++) {
        args[i].pool = p;
        args[i].id = i;
        if (pthread_create(&p->threads[i], NULL, worker_main, &args[i]) != 0) {
            pool_destroy(p); /* joins the p->nthreads - 1 workers already running */
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "pool_create: cannot start thread %u of %u", i, nthreads);
        }
        p->nthreads = i + 1;
    }
    *out = p;
    return CUZK_OK;
}

void pool_destroy(pool_t *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->mu);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->cv_work);
    pthread_mutex_unlock(&pool->mu);
    for (unsigned i = 1; i < pool->nthreads; i++) pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->cv_work);
    pthread_cond_destroy(&pool->cv_done);
    pthread_mutex_destroy(&pool->mu);
    pthread_mutex_destroy(&pool->call_mu);
    free(pool->threads);
    free(pool->args);
    free(pool);
}

unsigned pool_size(const pool_t *pool)
{
    return pool ? pool->nthreads : 1;
}

void pool_parallel_for(pool_t *pool, size_t n, size_t grain, pool_fn fn, void *ctx)
{
    if (n == 0) return;
    if (grain == 0) grain = 1;
    if (!pool || pool->nthreads == 1 || n <= grain || tls_pool == pool) {
        fn(ctx, 0, n, pool && tls_pool == pool ? tls_worker : 0);
        return;
    }
    /* About eight chunks per thread: enough to even out uneven work, few enough to keep the counter cold. */
    size_t chunk = n / ((size_t)pool->nthreads * 8);
    if (chunk < grain) chunk = grain;

    pthread_mutex_lock(&pool->call_mu);
    pthread_mutex_lock(&pool->mu);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->n = n;
    pool->chunk = chunk;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->busy = pool->nthreads - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->cv_work);
    pthread_mutex_unlock(&pool->mu);

    run_chunks(pool, fn, ctx, n, chunk, 0);

    pthread_mutex_lock(&pool->mu);
    while (pool->busy != 0) pthread_cond_wait(&pool->cv_done, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
    pthread_mutex_unlock(&pool->call_mu);
}

typedef struct memcpy_job {
    char *dst;
    const char *src;
} memcpy_job;

static void memcpy_run(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    memcpy_job *j = ctx;
    memcpy(j->dst + begin, j->src + begin, end - begin);
}

void pool_memcpy(pool_t *pool, void *dst, const void *src, size_t bytes)
{
    memcpy_job j = {dst, src};
    pool_parallel_for(pool, bytes, (size_t)1 << 20, memcpy_run, &j);
}
