/* GetStatus and the HTTP status's snapshot, and the engine's events they are counted from (which jobs have
 * started, which job each GPU is proving). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"
#include "engine/mem.h"

void service_on_event(void *ctx, const engine_event *ev)
{
    daemon_service *s = ctx;
    if (daemon_log_enabled(LOG_TRACE)) {
        char line[ENGINE_EVENT_LINE_MAX];
        engine_event_format(ev, line, sizeof line);
        daemon_log(LOG_TRACE, "%.*s", (int)strcspn(line, "\n"), line);
    }
    int gpu_start = ev->type == ENGINE_EV_GPU_START, gpu_end = ev->type == ENGINE_EV_GPU_END;
    if (!gpu_start && !gpu_end && ev->type != ENGINE_EV_SYNTH_START) return;
    uint64_t id = ev->job_id;
    if (gpu_start || gpu_end) {
        /* GetStatus's current job of each GPU: the last job to start there while some prove_start runs. */
        int dev = ev->device;
        pthread_mutex_lock(&s->tl_mu);
        for (size_t i = 0; i < s->host->num_devices; i++) {
            if (s->host->devices[i] != dev) continue;
            if (gpu_start) {
                s->gpu_busy[i]++;
                s->gpu_job[i] = id;
            } else if (s->gpu_busy[i] && --s->gpu_busy[i] == 0) {
                s->gpu_job[i] = 0;
            }
        }
        pthread_mutex_unlock(&s->tl_mu);
        return;
    }
    pthread_mutex_lock(&s->tl_mu);
    int known = 0;
    for (size_t i = 0; i < s->n_started && !known; i++) known = s->started_ids[i] == id;
    if (!known) {
        if (s->n_started == s->cap_started) {
            size_t nc = s->cap_started ? 2 * s->cap_started : 64;
            uint64_t *n = realloc(s->started_ids, nc * sizeof(*n));
            if (n) {
                s->started_ids = n;
                s->cap_started = nc;
            }
        }
        if (s->n_started < s->cap_started) s->started_ids[s->n_started++] = id;
    }
    pthread_mutex_unlock(&s->tl_mu);
}

int service_started(daemon_service *s, uint64_t id, int remove)
{
    pthread_mutex_lock(&s->tl_mu);
    int found = 0;
    for (size_t i = 0; i < s->n_started; i++) {
        if (s->started_ids[i] == id) {
            found = 1;
            if (remove) s->started_ids[i] = s->started_ids[--s->n_started];
            break;
        }
    }
    pthread_mutex_unlock(&s->tl_mu);
    return found;
}

/* The residency's counters. A pin or an eviction's hooks hold the residency's lock for seconds, and the server loop
 * must not wait for that: then the previous figures are reported. */
void service_residency_stats(daemon_service *s, engine_residency_stats *out)
{
    engine_residency_stats fresh;
    int have = engine_residency_try_get_stats(s->res, &fresh);
    pthread_mutex_lock(&s->mu);
    if (have) s->res_stats = fresh;
    *out = s->res_stats;
    pthread_mutex_unlock(&s->mu);
}

void service_status_reply(daemon_service *s, service_reply *reply)
{
    /* The memory figures straight from the accounting (its own short lock), not engine_get_stats: that takes the
     * engine's lock, under which a cancelled or failed job's partitions are dropped and their witness and a, b, c
     * freed (hundreds of MB for a PoRep partition, munmap'd while the lock is held), and the server loop would
     * wait for it. */
    engine_mem_stats ms;
    engine_mem_get_stats(engine_memory(s->eng), &ms);

    /* Parameter sets in memory. The residency's lock may be held for seconds (a pin, an eviction's hooks), and
     * reg_mu while a new set registers with the residency behind it; the server loop must not wait for either,
     * so then the previous listing is reported. */
    srs_snap fresh[MAX_SRS_SNAP];
    size_t n_fresh = 0;
    int have_fresh = 0;
    if (pthread_mutex_trylock(&s->reg_mu) == 0) {
        have_fresh = 1;
        for (set_entry *c = s->sets; c && n_fresh < MAX_SRS_SNAP && have_fresh; c = c->next) {
            engine_residency_state st = ENGINE_PARAMS_UNKNOWN;
            have_fresh = engine_residency_try_state_of(s->res, c->id, &st);
            if (st != ENGINE_PARAMS_HOT && st != ENGINE_PARAMS_WARM) continue;
            srs_snap *e = &fresh[n_fresh++];
            snprintf(e->name, sizeof(e->name), "%s", c->id);
            e->hot = st == ENGINE_PARAMS_HOT;
            e->bytes = c->bytes;
            e->refs = c->active;
        }
        pthread_mutex_unlock(&s->reg_mu);
    }

    /* The devices (none on the CPU backend), with the job each is proving. */
    Cuzk__V1__GPUStatus gpu_store[DAEMON_MAX_DEVICES];
    Cuzk__V1__GPUStatus *gpu_ptrs[DAEMON_MAX_DEVICES];
    char gpu_names[DAEMON_MAX_DEVICES][256], gpu_jobs[DAEMON_MAX_DEVICES][MAX_REQUEST_ID + 1];
    uint64_t gpu_eid[DAEMON_MAX_DEVICES];
    size_t n_gpus = s->backend->device_memory ? s->host->num_devices : 0;
    pthread_mutex_lock(&s->tl_mu);
    memcpy(gpu_eid, s->gpu_job, sizeof(gpu_eid));
    pthread_mutex_unlock(&s->tl_mu);
    for (size_t i = 0; i < n_gpus; i++) {
        Cuzk__V1__GPUStatus *g = &gpu_store[i];
        cuzk__v1__gpustatus__init(g);
        g->ordinal = (uint32_t)s->host->devices[i];
        engine_device_memory dm;
        cuzk_error gerr;
        if (s->backend->device_memory(s->backend, s->host->devices[i], &dm, &gerr) == CUZK_OK) {
            snprintf(gpu_names[i], sizeof(gpu_names[i]), "%s", dm.name);
            g->vram_total_bytes = dm.total_bytes;
            g->vram_free_bytes = dm.free_bytes;
        } else {
            snprintf(gpu_names[i], sizeof(gpu_names[i]), "unknown (%.200s)", gerr.msg);
        }
        g->name = gpu_names[i];
        gpu_jobs[i][0] = 0;
        g->current_job_id = gpu_jobs[i];
        g->current_proof_kind = (char *)"";
        gpu_ptrs[i] = g;
    }

    Cuzk__V1__SRSStatus srs_store[MAX_SRS_SNAP], *srs_ptrs[MAX_SRS_SNAP];
    srs_snap snap[MAX_SRS_SNAP];
    Cuzk__V1__QueueStatus q_store[MAX_KINDS], *q_ptrs[MAX_KINDS];
    uint64_t completed = 0, failed = 0, cancelled = 0;
    pthread_mutex_lock(&s->mu);
    if (have_fresh) {
        memcpy(s->srs, fresh, n_fresh * sizeof(fresh[0]));
        s->n_srs = n_fresh;
    }
    size_t n_srs = s->n_srs;
    memcpy(snap, s->srs, n_srs * sizeof(snap[0]));
    for (size_t k = 0; k < s->n_kinds; k++) {
        cuzk__v1__queue_status__init(&q_store[k]);
        q_store[k].proof_kind = (char *)s->kinds[k]->label;
        q_ptrs[k] = &q_store[k];
        completed += s->completed[k];
        failed += s->failed[k];
        cancelled += s->cancelled[k];
    }
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        unsigned ki = j->ki;
        for (size_t i = 0; i < n_gpus; i++) {
            if (j->submitted && gpu_eid[i] == j->engine_id) {
                snprintf(gpu_jobs[i], sizeof(gpu_jobs[i]), "%s", j->id);
                gpu_store[i].current_proof_kind = (char *)j->kind->label;
            }
        }
        if (j->submitted && service_started(s, j->engine_id, 0))
            q_store[ki].in_progress++;
        else
            q_store[ki].pending++;
    }
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n_srs; i++) {
        Cuzk__V1__SRSStatus *e = &srs_store[i];
        cuzk__v1__srsstatus__init(e);
        e->circuit_id = snap[i].name;
        e->tier = snap[i].hot ? CUZK__V1__SRSSTATUS__TIER__HOT : CUZK__V1__SRSSTATUS__TIER__WARM;
        e->size_bytes = snap[i].bytes;
        e->ref_count = snap[i].refs;
        srs_ptrs[i] = e;
    }

    Cuzk__V1__GetStatusResponse r;
    cuzk__v1__get_status_response__init(&r);
    r.n_gpus = n_gpus;
    r.gpus = gpu_ptrs;
    r.n_loaded_srs = n_srs;
    r.loaded_srs = srs_ptrs;
    r.n_queues = s->n_kinds;
    r.queues = q_ptrs;
    r.total_proofs_completed = completed;
    r.total_proofs_failed = failed;
    r.total_proofs_cancelled = cancelled;
    r.uptime_seconds = (uint64_t)(service_now() - s->t_start);
    engine_residency_stats rs;
    service_residency_stats(s, &rs);
    /* With a pinned tier: its parameter sets against its budget. Without: every page-locked byte (parameters and
     * the engine's a, b, c sets), bounded only by the one budget. */
    r.pinned_memory_bytes = rs.pinned_budget ? rs.pinned_bytes : ms.in_use[ENGINE_MEM_PINNED];
    r.pinned_memory_limit_bytes = rs.pinned_budget ? rs.pinned_budget : ms.host_limit;
    r.memory_budget_bytes = ms.host_limit;
    r.memory_in_use_bytes = ms.host_in_use;
    r.memory_peak_bytes = ms.host_peak;
    service_reply_pack(reply, &r.base);
}

void service_snapshot_get(daemon_service *s, service_snapshot *out)
{
    memset(out, 0, sizeof(*out));
    double now = service_now();
    pthread_mutex_lock(&s->mu);
    for (size_t k = 0; k < s->n_kinds && k < SERVICE_SNAPSHOT_MAX_KINDS; k++) {
        out->kinds[k].label = s->kinds[k]->label;
        out->kinds[k].completed = s->completed[k];
        out->kinds[k].failed = s->failed[k];
        out->kinds[k].cancelled = s->cancelled[k];
        out->n_kinds = k + 1;
    }
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        int running = j->submitted && service_started(s, j->engine_id, 0);
        if (j->ki < out->n_kinds) {
            out->kinds[j->ki].in_progress += running;
            out->kinds[j->ki].pending += !running;
        }
        if (out->n_jobs == SERVICE_SNAPSHOT_MAX_JOBS) {
            out->jobs_not_listed++;
            continue;
        }
        snprintf(out->jobs[out->n_jobs].id, sizeof(out->jobs[0].id), "%s", j->id);
        out->jobs[out->n_jobs].kind = j->kind->label;
        out->jobs[out->n_jobs].age_s = now - j->t_submit;
        out->jobs[out->n_jobs].partitions = j->partitions;
        out->jobs[out->n_jobs].in_progress = running;
        out->n_jobs++;
    }
    pthread_mutex_unlock(&s->mu);
}
