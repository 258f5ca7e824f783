#include "engine/mem.h"

#include <string.h>

cuzk_status engine_mem_init(engine_mem *m, uint64_t host_limit, uint64_t device_limit, cuzk_error *err)
{
    memset(m, 0, sizeof(*m));
    if (pthread_mutex_init(&m->mu, NULL) != 0)
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "engine: cannot create the memory budget's mutex");
    m->host_limit = host_limit;
    m->device_limit = device_limit;
    return CUZK_OK;
}

void engine_mem_destroy(engine_mem *m)
{
    pthread_mutex_destroy(&m->mu);
}

static uint64_t limit_of(const engine_mem *m, engine_mem_kind kind)
{
    return kind == ENGINE_MEM_DEVICE ? m->device_limit : m->host_limit;
}

/* Bytes that count against the limit of kind (host and pinned share one). */
static uint64_t used_of(const engine_mem *m, engine_mem_kind kind)
{
    return kind == ENGINE_MEM_DEVICE ? m->in_use[ENGINE_MEM_DEVICE]
                                     : m->in_use[ENGINE_MEM_HOST] + m->in_use[ENGINE_MEM_PINNED];
}

/* With m->mu held. */
static int fits(const engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    uint64_t limit = limit_of(m, kind), used = used_of(m, kind);
    return limit == 0 || (bytes <= limit && used <= limit - bytes);
}

static void take(engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    m->in_use[kind] += bytes;
    if (m->in_use[kind] > m->peak[kind]) m->peak[kind] = m->in_use[kind];
    uint64_t host = m->in_use[ENGINE_MEM_HOST] + m->in_use[ENGINE_MEM_PINNED];
    if (host > m->host_peak) m->host_peak = host;
}

static void give(engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    m->in_use[kind] = m->in_use[kind] >= bytes ? m->in_use[kind] - bytes : 0;
}

int engine_mem_try_reserve_direct(engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    int ok = fits(m, kind, bytes);
    if (ok)
        take(m, kind, bytes);
    else
        m->refused++;
    pthread_mutex_unlock(&m->mu);
    return ok;
}

int engine_mem_try_reserve(engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    int ok = fits(m, kind, bytes);
    if (ok) take(m, kind, bytes);
    uint64_t short_by = 0;
    if (!ok && m->reclaim && kind != ENGINE_MEM_DEVICE) {
        if (bytes <= m->host_limit) short_by = used_of(m, kind) + bytes - m->host_limit; /* > 0: it did not fit */
    }
    pthread_mutex_unlock(&m->mu);
    if (ok) return 1;
    if (short_by && m->reclaim(m->reclaim_ctx, short_by) > 0) {
        pthread_mutex_lock(&m->mu);
        ok = fits(m, kind, bytes);
        if (ok) take(m, kind, bytes);
        pthread_mutex_unlock(&m->mu);
        if (ok) return 1;
    }
    pthread_mutex_lock(&m->mu);
    m->refused++;
    pthread_mutex_unlock(&m->mu);
    return 0;
}

void engine_mem_set_reclaim(engine_mem *m, engine_mem_reclaim_fn fn, void *ctx)
{
    pthread_mutex_lock(&m->mu);
    m->reclaim = fn;
    m->reclaim_ctx = ctx;
    pthread_mutex_unlock(&m->mu);
}

void engine_mem_release(engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    give(m, kind, bytes);
    pthread_mutex_unlock(&m->mu);
}

int engine_mem_move(engine_mem *m, engine_mem_kind from, engine_mem_kind to, uint64_t bytes)
{
    int same_limit = from != ENGINE_MEM_DEVICE && to != ENGINE_MEM_DEVICE;
    pthread_mutex_lock(&m->mu);
    /* Within one limit the bytes are already counted against it: release first, so the check cannot fail. */
    int ok = same_limit || from == to || fits(m, to, bytes);
    if (ok) {
        give(m, from, bytes);
        take(m, to, bytes);
    } else {
        m->refused++;
    }
    pthread_mutex_unlock(&m->mu);
    return ok;
}

int engine_mem_fits_at_all(const engine_mem *m, engine_mem_kind kind, uint64_t bytes)
{
    uint64_t limit = limit_of(m, kind); /* limits never change after init */
    return limit == 0 || bytes <= limit;
}

void engine_mem_get_stats(engine_mem *m, engine_mem_stats *out)
{
    pthread_mutex_lock(&m->mu);
    out->host_limit = m->host_limit;
    out->device_limit = m->device_limit;
    for (int k = 0; k < ENGINE_MEM_KINDS; k++) {
        out->in_use[k] = m->in_use[k];
        out->peak[k] = m->peak[k];
    }
    out->host_in_use = m->in_use[ENGINE_MEM_HOST] + m->in_use[ENGINE_MEM_PINNED];
    out->host_peak = m->host_peak;
    out->refused = m->refused;
    pthread_mutex_unlock(&m->mu);
}

uint64_t engine_mem_host_in_use(engine_mem *m)
{
    pthread_mutex_lock(&m->mu);
    uint64_t v = m->in_use[ENGINE_MEM_HOST] + m->in_use[ENGINE_MEM_PINNED];
    pthread_mutex_unlock(&m->mu);
    return v;
}
