/* The service from the configuration: pools, and backend (GPU when a device is visible, else CPU), engine and
 * residency through engine_open; and its teardown. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"

/* The status and metrics keep per-device arrays of DAEMON_MAX_DEVICES. */
_Static_assert(ENGINE_OPEN_MAX_DEVICES <= DAEMON_MAX_DEVICES, "more engine devices than the daemon has room for");

cuzk_status service_create(daemon_service **out, const daemon_config *cfg, service_deliver_fn deliver,
                           void *deliver_ctx, cuzk_error *err)
{
    *out = NULL;
    daemon_service *s = calloc(1, sizeof(*s));
    if (!s) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    s->cfg = *cfg;
    s->deliver = deliver;
    s->deliver_ctx = deliver_ctx;
    s->t_start = service_now();
    s->kinds = engine_kinds(&s->n_kinds);
    if (s->n_kinds > MAX_KINDS) {
        size_t n = s->n_kinds;
        free(s);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "%zu proof kinds, room for %d", n, MAX_KINDS);
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->reg_mu, NULL);
    pthread_cond_init(&s->reg_cv, NULL);
    pthread_mutex_init(&s->tl_mu, NULL);
    pthread_cond_init(&s->threads_cv, NULL);
    cuzk_status st = pool_create(&s->prove_pool, cfg->gpu_threads, err);
    if (st == CUZK_OK) st = pool_create(&s->synth_pool, cfg->synthesis_threads, err);
    if (st == CUZK_OK) {
        uint64_t budget = daemon_config_budget(cfg);
        /* Room only CRITICAL work (WinningPoSt) may take, so that its partition is admitted while PoRep
         * partitions hold the rest of the budget: a 32 GiB WinningPoSt partition's witness and a, b, c are
         * ~70 MB, so 256 MiB covers it with room to spare (a sixteenth of a small budget). */
        uint64_t critical_reserve =
            budget ? (budget / 16 < SERVICE_CRITICAL_RESERVE ? budget / 16 : SERVICE_CRITICAL_RESERVE) : 0;
        engine_open_config oc = {
            .backend = ENGINE_BACKEND_AUTO,
            .devices = cfg->devices,
            .num_devices = cfg->n_devices,
            .pool = s->prove_pool,
            .finish_threads = cfg->gpu_threads,
            .abc_on_device = cfg->abc_on_device,
            .gpu_memory_limit = cfg->gpu_memory_limit,
            .engine =
                {
                    .gpu_workers = cfg->gpu_workers_per_device,
                    .partition_workers = cfg->max_parallel_synthesis,
                    .synthesis_lookahead = cfg->synthesis_lookahead,
                    .abc_pinned = cfg->pinned_abc ? 1 : -1,
                    .host_budget = budget,
                    .critical_reserve = critical_reserve,
                    .synth_pool = s->synth_pool,
                    .event_cb = service_on_event,
                    .event_ctx = s,
                },
            .idle_evict_s = (double)cfg->idle_evict_s,
            .pinned_budget = cfg->pinned_budget,
            .notify = service_on_residency,
            .notify_ctx = s,
        };
        st = engine_open(&oc, &s->host, err);
        if (st == CUZK_ERR_INVALID_ARG) cuzk_error_prefix(err, "gpus.devices: ");
        if (st == CUZK_OK) {
            s->eng = s->host->eng;
            s->res = s->host->res;
            s->backend = s->host->backend;
            if (s->host->backend_note[0]) LOGW("%s", s->host->backend_note);
            if (s->host->pinned_note[0]) LOGW("srs.pinned_budget: %s", s->host->pinned_note);
            if (s->host->cap_note[0]) LOGI("gpus.memory_limit unset: %s", s->host->cap_note);
            if (s->host->abc_note[0]) LOGI("pipeline.abc_on_device = \"auto\": %s", s->host->abc_note);
            LOGI("engine: %s backend, %zu device(s), %u prover worker(s) per device, %u synthesis worker(s), "
                 "budget %.1f GiB",
                 s->backend->name, s->host->num_devices, cfg->gpu_workers_per_device, cfg->max_parallel_synthesis,
                 (double)budget / (1 << 30));
            if (cfg->gpu_memory_limit && s->host->on_devices)
                LOGI("gpus.memory_limit: the GPU backend holds at most %.2f GiB on each device",
                     (double)cfg->gpu_memory_limit / (1 << 30));
            if (cfg->idle_evict_s) LOGI("parameter sets idle for %" PRIu64 " s are freed", cfg->idle_evict_s);
            if (s->host->pinned_budget)
                LOGI("parameter sets in use are pinned within %.1f GiB", (double)s->host->pinned_budget / (1 << 30));
        }
    }
    if (st != CUZK_OK) {
        service_destroy(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

void service_destroy(daemon_service *s)
{
    if (!s) return;
    if (s->eng) service_begin_shutdown(s);
    pthread_mutex_lock(&s->mu);
    while (s->threads) pthread_cond_wait(&s->threads_cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    while (s->waiters) {
        waiter *w = s->waiters;
        s->waiters = w->next;
        free(w);
    }
    while (s->jobs) {
        job *j = s->jobs;
        s->jobs = j->next;
        service_job_free(j);
    }
    /* Every job thread has returned from engine_wait, so the engine holds no job: the parameters go (before
     * the engine: the residency returns their bytes to its accounting), then the circuits built over them. */
    engine_close(s->host);
    service_sets_free(s);
    pool_destroy(s->synth_pool);
    pool_destroy(s->prove_pool);
    free(s->started_ids);
    pthread_cond_destroy(&s->threads_cv);
    pthread_mutex_destroy(&s->tl_mu);
    pthread_cond_destroy(&s->reg_cv);
    pthread_mutex_destroy(&s->reg_mu);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
