/* Thread pool: every index visited exactly once, chunks respect the grain,
 * uneven work completes, nested and concurrent callers, pools of 1 and NULL. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/pool.h"

struct visit_ctx {
    atomic_uint *count; /* per index */
    size_t grain, n;
    atomic_int bad_chunk;
    atomic_int bad_worker;
    unsigned nworkers;
};

static void visit(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    struct visit_ctx *ctx = ctxp;
    if (end <= begin || (end - begin < ctx->grain && end != ctx->n)) atomic_store(&ctx->bad_chunk, 1);
    if (worker >= ctx->nworkers) atomic_store(&ctx->bad_worker, 1);
    for (size_t i = begin; i < end; i++) atomic_fetch_add(&ctx->count[i], 1);
}

static void check_visits(pool_t *pool, size_t n, size_t grain)
{
    struct visit_ctx ctx = {.grain = grain, .n = n, .nworkers = pool_size(pool)};
    ctx.count = calloc(n ? n : 1, sizeof *ctx.count);
    CHECK(ctx.count != NULL);
    if (!ctx.count) return;
    atomic_init(&ctx.bad_chunk, 0);
    atomic_init(&ctx.bad_worker, 0);
    pool_parallel_for(pool, n, grain, visit, &ctx);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += atomic_load(&ctx.count[i]) != 1;
    CHECK_MSG(wrong == 0, "n=%zu grain=%zu threads=%u: %zu indices not visited exactly once", n, grain, pool_size(pool),
              wrong);
    CHECK_MSG(!atomic_load(&ctx.bad_chunk), "n=%zu grain=%zu: a chunk smaller than the grain", n, grain);
    CHECK_MSG(!atomic_load(&ctx.bad_worker), "n=%zu: worker id out of range", n);
    free(ctx.count);
}

/* Uneven work: index i costs i^2 steps of an LCG; the sum of per-index
 * results written to distinct slots is compared with a serial computation. */
static uint64_t work(size_t i)
{
    uint64_t x = i + 1;
    size_t steps = (i * i) % 20000;
    for (size_t k = 0; k < steps; k++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

struct uneven_ctx {
    uint64_t *out;
};

static void uneven(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct uneven_ctx *ctx = ctxp;
    for (size_t i = begin; i < end; i++) ctx->out[i] = work(i);
}

struct nested_ctx {
    pool_t *pool;
    atomic_ulong total;
};

static void inner(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct nested_ctx *ctx = ctxp;
    for (size_t i = begin; i < end; i++) atomic_fetch_add(&ctx->total, i);
}

static void outer(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct nested_ctx *ctx = ctxp;
    for (size_t i = begin; i < end; i++) pool_parallel_for(ctx->pool, 100, 7, inner, ctx);
}

struct caller_arg {
    pool_t *pool;
    int rounds;
    uint64_t seed;
    int failures;
};

struct sum_ctx {
    const uint64_t *v;
    atomic_ullong sum;
};

static void sum_fn(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct sum_ctx *ctx = ctxp;
    uint64_t s = 0;
    for (size_t i = begin; i < end; i++) s += ctx->v[i];
    atomic_fetch_add(&ctx->sum, s);
}

/* Several threads share one pool: each checks its own sums. */
static void *caller_main(void *argp)
{
    struct caller_arg *arg = argp;
    rng_t rng;
    rng_seed(&rng, arg->seed);
    enum { N = 5000 };
    uint64_t *v = malloc(N * sizeof *v);
    if (!v) {
        arg->failures++;
        return NULL;
    }
    for (int r = 0; r < arg->rounds; r++) {
        size_t n = rng_next(&rng) % N;
        uint64_t expect = 0;
        for (size_t i = 0; i < n; i++) expect += (v[i] = rng_next(&rng));
        struct sum_ctx ctx = {.v = v};
        atomic_init(&ctx.sum, 0);
        pool_parallel_for(arg->pool, n, 1 + rng_next(&rng) % 64, sum_fn, &ctx);
        if (atomic_load(&ctx.sum) != expect) arg->failures++;
    }
    free(v);
    return NULL;
}

int main(void)
{
    rng_t rng;
    uint64_t seed = test_seed(&rng, "test_pool");
    cuzk_error err;

    CHECK(pool_size(NULL) == 1);
    check_visits(NULL, 1000, 10);

    const unsigned sizes[] = {1, 2, 3, 8};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        pool_t *pool = NULL;
        CHECK(pool_create(&pool, sizes[s], &err) == CUZK_OK);
        if (!pool) continue;
        CHECK(pool_size(pool) == sizes[s]);
        const size_t ns[] = {0, 1, 2, 7, 64, 1000, 100003};
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
            check_visits(pool, ns[i], 1);
            check_visits(pool, ns[i], 1 + rng_next(&rng) % 100);
            check_visits(pool, ns[i], 1000000);
        }
        for (int r = 0; r < 50; r++) check_visits(pool, rng_next(&rng) % 3000, 1 + rng_next(&rng) % 50);

        /* Uneven work matches a serial computation. */
        enum { NU = 600 };
        uint64_t par[NU];
        struct uneven_ctx uc = {.out = par};
        pool_parallel_for(pool, NU, 1, uneven, &uc);
        size_t mismatch = 0;
        for (size_t i = 0; i < NU; i++) mismatch += par[i] != work(i);
        CHECK_MSG(mismatch == 0, "uneven work on %u threads: %zu wrong", sizes[s], mismatch);

        /* A loop body that itself calls pool_parallel_for on the same pool runs the inner loop inline. */
        struct nested_ctx nc = {.pool = pool};
        atomic_init(&nc.total, 0);
        pool_parallel_for(pool, 40, 1, outer, &nc);
        CHECK_MSG(atomic_load(&nc.total) == 40UL * (99 * 100 / 2), "nested total %lu",
                  (unsigned long)atomic_load(&nc.total));

        /* Concurrent callers are serialised. */
        enum { NC = 3 };
        pthread_t th[NC];
        struct caller_arg ca[NC];
        int started[NC];
        for (int t = 0; t < NC; t++) {
            ca[t] = (struct caller_arg){.pool = pool, .rounds = 30, .seed = seed + 17 * (uint64_t)t + s};
            started[t] = pthread_create(&th[t], NULL, caller_main, &ca[t]) == 0;
            CHECK(started[t]);
        }
        for (int t = 0; t < NC; t++) {
            if (!started[t]) continue;
            pthread_join(th[t], NULL);
            CHECK_MSG(ca[t].failures == 0, "caller %d: %d wrong sums", t, ca[t].failures);
        }
        pool_destroy(pool);
    }

    /* Created and destroyed without use; 0 means one per CPU. */
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK && pool && pool_size(pool) >= 1);
    pool_destroy(pool);
    pool_destroy(NULL);
    return test_finish("test_pool");
}
