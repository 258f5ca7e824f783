/* The service from the configuration: pools, backend (GPU when a device is visible, else CPU), engine,
 * registry; and its teardown. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"
#include "gpu/gpu.h"

/* The GPU backend on the configured devices (gpus.devices; empty: every visible one) when a device is
 * visible, else the CPU backend on device slot 0. A configured device that does not exist is an error. */
static cuzk_status backend_choose(daemon_service *s, cuzk_error *err)
{
    int visible = gpu_device_count();
    if (visible > 0) {
        if (s->cfg.n_devices) {
            for (size_t i = 0; i < s->cfg.n_devices; i++) {
                if (s->cfg.devices[i] < 0 || s->cfg.devices[i] >= visible)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                          "gpus.devices: device %d does not exist (%d visible: 0..%d)",
                                          s->cfg.devices[i], visible, visible - 1);
                s->devices[i] = s->cfg.devices[i];
            }
            s->n_devices = s->cfg.n_devices;
        } else {
            for (int i = 0; i < visible && i < DAEMON_MAX_DEVICES; i++) s->devices[s->n_devices++] = i;
        }
        cuzk_status st = pool_create(&s->finish_pool, s->cfg.gpu_threads, err);
        if (st == CUZK_OK) st = engine_backend_gpu_create(s->prove_pool, s->finish_pool, &s->backend, err);
        if (st == CUZK_OK) {
            engine_backend_gpu_set_abc_on_device(s->backend, s->cfg.abc_on_device, NULL); /* a GPU backend: ok */
            s->gpu = 1;
            return CUZK_OK;
        }
        LOGW("GPU backend unavailable (%s): proving on the CPU", err->msg);
        s->n_devices = 0;
    } else if (s->cfg.n_devices) {
        LOGW("gpus.devices is set but no GPU is visible (or cuzk was built without CUDA): proving on the CPU");
    }
    s->devices[0] = 0;
    s->n_devices = 1;
    return engine_backend_cpu_create(s->prove_pool, NULL, &s->backend, err);
}

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
    pthread_mutex_init(&s->tl_mu, NULL);
    pthread_cond_init(&s->threads_cv, NULL);
    cuzk_status st = pool_create(&s->prove_pool, cfg->gpu_threads, err);
    if (st == CUZK_OK) st = pool_create(&s->synth_pool, cfg->synthesis_threads, err);
    if (st == CUZK_OK) st = backend_choose(s, err);
    if (st == CUZK_OK) {
        uint64_t budget = daemon_config_budget(cfg);
        engine_config ec = {
            .backend = s->backend,
            .devices = s->devices,
            .num_devices = s->n_devices,
            .gpu_workers = cfg->gpu_workers_per_device,
            .partition_workers = cfg->max_parallel_synthesis,
            .synthesis_lookahead = cfg->synthesis_lookahead,
            .abc_pinned = cfg->pinned_abc ? 1 : -1,
            .host_budget = budget,
            .synth_pool = s->synth_pool,
            .timeline_cb = service_on_timeline,
            .timeline_ctx = s,
        };
        st = engine_create(&s->eng, &ec, err);
        if (st == CUZK_OK)
            LOGI("engine: %s backend, %zu device(s), %u prover worker(s) per device, %u synthesis worker(s), "
                 "budget %.1f GiB", s->backend->name, s->n_devices, cfg->gpu_workers_per_device,
                 cfg->max_parallel_synthesis, (double)budget / (1 << 30));
    }
    if (st == CUZK_OK) st = service_registry_open(s, err);
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
    /* Every job thread has returned from engine_wait, so the engine holds no job: the parameters can go
     * before the engine, and must, since the residency returns their bytes to the engine's accounting. */
    if (s->res) engine_residency_destroy(s->res);
    service_sets_free(s);
    engine_destroy(s->eng);
    engine_backend_destroy(s->backend);
    pool_destroy(s->finish_pool);
    pool_destroy(s->synth_pool);
    pool_destroy(s->prove_pool);
    free(s->started_ids);
    pthread_cond_destroy(&s->threads_cv);
    pthread_mutex_destroy(&s->tl_mu);
    pthread_mutex_destroy(&s->reg_mu);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
