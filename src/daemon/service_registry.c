/* The registry: parameter sets (held by the engine's residency, loaded by their kind) and the kinds' circuits over
 * them, the residency's hooks, PreloadSRS and EvictSRS. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"

/* The residency's load of a set: the kind's set_load under srs.param_cache (srs.mapped). */
static cuzk_status set_load_cb(void *ctx, groth16_params *out, cuzk_error *err)
{
    set_entry *e = ctx;
    daemon_service *s = e->svc;
    double t0 = service_now();
    cuzk_status st = e->kind->set_load(e->id, s->cfg.param_cache, s->cfg.srs_mapped, s->prove_pool, out, err);
    if (st != CUZK_OK) return st == CUZK_ERR_IO ? cuzk_error_prefix(err, "srs.param_cache: ") : st;
    double ms = (service_now() - t0) * 1e3;
    uint64_t bytes = engine_params_bytes(out);
    pthread_mutex_lock(&s->reg_mu); /* the load runs with no lock held (see service_circuit_acquire) */
    e->last_load_ms = ms;
    e->bytes = bytes;
    pthread_mutex_unlock(&s->reg_mu);
    LOGI("parameters of %s loaded: %.1f MiB in %.0f ms", e->id, (double)bytes / 1048576.0, ms);
    return CUZK_OK;
}

/* The residency's pins, uploads and frees, for the log. Runs under the residency's lock. */
void service_on_residency(void *ctx, engine_residency_event ev, const char *name, uint64_t bytes, double ms,
                          const char *error)
{
    (void)ctx;
    double mib = (double)bytes / 1048576.0;
    if (ev == ENGINE_RESIDENCY_PINNED)
        LOGI("parameters of %s pinned: %.1f MiB in %.0f ms", name, mib, ms);
    else if (ev == ENGINE_RESIDENCY_PIN_FAILED)
        LOGW("pinning %.1f MiB of parameters of %s failed (they stay pageable): %s", mib, name, error);
    else if (ev == ENGINE_RESIDENCY_UPLOADED)
        LOGI("parameters of %s preloaded onto a device in %.0f ms", name, ms);
    else if (ev == ENGINE_RESIDENCY_UPLOAD_FAILED)
        LOGW("preloading the parameters of %s onto a device failed (the first partition there uploads them): %s", name,
             error);
    else
        LOGD("parameters of %s freed", name);
}

/* With reg_mu held. */
static cuzk_status set_get_locked(daemon_service *s, const engine_kind *k, const char *id, set_entry **out,
                                  cuzk_error *err)
{
    set_entry *e = s->sets;
    while (e && strcmp(e->id, id)) e = e->next;
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (!e) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory registering %s", id);
        snprintf(e->id, sizeof(e->id), "%s", id);
        e->kind = k;
        e->svc = s;
        cuzk_status st = engine_residency_add(s->res, e->id, set_load_cb, e, err);
        if (st != CUZK_OK) {
            free(e);
            return st;
        }
        e->next = s->sets;
        s->sets = e;
    }
    *out = e;
    return CUZK_OK;
}

cuzk_status service_set_get(daemon_service *s, const engine_kind *k, const char *id, set_entry **out, cuzk_error *err)
{
    pthread_mutex_lock(&s->reg_mu);
    cuzk_status st = set_get_locked(s, k, id, out, err);
    pthread_mutex_unlock(&s->reg_mu);
    return st;
}

uint64_t service_set_bytes(daemon_service *s, const set_entry *e)
{
    pthread_mutex_lock(&s->reg_mu);
    uint64_t b = e->bytes;
    pthread_mutex_unlock(&s->reg_mu);
    return b;
}

cuzk_status service_circuit_acquire(daemon_service *s, set_entry *e, const engine_kind_plan *plan, const void *kjob,
                                    void **circuit, engine_params **set, cuzk_error *err)
{
    engine_params *h;
    cuzk_status st = engine_residency_acquire(s->res, e->id, &h, err); /* may load: no lock of ours held */
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&s->reg_mu);
    set_circuit *c = e->circuits;
    while (c && strcmp(c->variant, plan->variant)) c = c->next;
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c) {
            pthread_mutex_unlock(&s->reg_mu);
            engine_residency_release(s->res, h);
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory registering %s", plan->variant);
        }
        snprintf(c->variant, sizeof(c->variant), "%s", plan->variant);
        c->next = e->circuits;
        e->circuits = c;
    }
    while (c->compiling) pthread_cond_wait(&s->reg_cv, &s->reg_mu);
    if (!c->circuit || c->params_id != engine_params_id(h)) {
        /* The old circuit was made over an earlier load of the set, which no job holds any more (a set is
         * evicted only unreferenced): nobody uses it. */
        void *old = c->circuit, *made = NULL;
        c->circuit = NULL;
        c->compiling = 1;
        pthread_mutex_unlock(&s->reg_mu);
        if (old && e->kind->circuit_free) e->kind->circuit_free(old);
        double t0 = service_now();
        st = e->kind->circuit_create(kjob, plan, engine_params_get(h), s->prove_pool, &made, err);
        pthread_mutex_lock(&s->reg_mu);
        c->compiling = 0;
        pthread_cond_broadcast(&s->reg_cv);
        if (st != CUZK_OK) {
            pthread_mutex_unlock(&s->reg_mu);
            engine_residency_release(s->res, h);
            return st;
        }
        c->circuit = made;
        c->params_id = engine_params_id(h);
        LOGI("circuit %s%s%s compiled in %.0f ms", e->id, plan->variant[0] ? " " : "", plan->variant,
             (service_now() - t0) * 1e3);
    }
    e->active++;
    *circuit = c->circuit;
    *set = h;
    pthread_mutex_unlock(&s->reg_mu);
    return CUZK_OK;
}

void service_circuit_release(daemon_service *s, set_entry *e, engine_params *set)
{
    pthread_mutex_lock(&s->reg_mu);
    e->active--;
    pthread_mutex_unlock(&s->reg_mu);
    engine_residency_release(s->res, set);
}

void service_sets_free(daemon_service *s)
{
    while (s->sets) {
        set_entry *e = s->sets;
        s->sets = e->next;
        while (e->circuits) {
            set_circuit *c = e->circuits;
            e->circuits = c->next;
            if (c->circuit && e->kind->circuit_free) e->kind->circuit_free(c->circuit);
            free(c);
        }
        free(e);
    }
}

/* PreloadSRS and EvictSRS run on a helper thread: a load or an upload may take long. */
typedef struct srs_op {
    daemon_service *s;
    void *call;
    int evict;
    const engine_kind *kind;
    char id[ENGINE_KIND_SET_MAX]; /* canonical */
} srs_op;

static void *srs_main(void *arg)
{
    srs_op *op = arg;
    daemon_service *s = op->s;
    service_reply reply;
    cuzk_error err;
    const char *name = op->id;
    if (!op->evict) {
        double t0 = service_now();
        set_entry *c = NULL;
        cuzk_status st = service_set_get(s, op->kind, op->id, &c, &err);
        int already = 0;
        if (st == CUZK_OK) {
            engine_residency_state rs = engine_residency_state_of(s->res, c->id);
            already = rs == ENGINE_PARAMS_HOT || rs == ENGINE_PARAMS_WARM;
            if (!already) st = engine_residency_preload(s->res, c->id, &err);
        }
        if (st != CUZK_OK) {
            service_reply_error(&reply,
                                st == CUZK_ERR_NOMEM ? RPC_RESOURCE_EXHAUSTED
                                : st == CUZK_ERR_IO  ? RPC_FAILED_PRECONDITION
                                                     : RPC_INTERNAL,
                                "%s: %s", name, err.msg);
        } else {
            Cuzk__V1__PreloadSrsResponse r;
            cuzk__v1__preload_srs_response__init(&r);
            r.already_loaded = already;
            r.load_time_ms = already ? 0 : service_ms(service_now() - t0);
            service_reply_pack(&reply, &r.base);
            LOGI("PreloadSRS %s: %s", name, already ? "already loaded" : "loaded");
        }
    } else {
        pthread_mutex_lock(&s->reg_mu);
        set_entry *c = s->sets;
        while (c && strcmp(c->id, name)) c = c->next;
        pthread_mutex_unlock(&s->reg_mu);
        uint64_t bytes = 0;
        int freed = c ? engine_residency_evict(s->res, c->id, &bytes) : 0;
        int hot = c && !freed && engine_residency_state_of(s->res, c->id) == ENGINE_PARAMS_HOT;
        if (hot) {
            service_reply_error(&reply, RPC_FAILED_PRECONDITION, "%s is in use by running proofs", name);
        } else {
            Cuzk__V1__EvictSrsResponse r;
            cuzk__v1__evict_srs_response__init(&r);
            r.was_loaded = freed;
            r.freed_bytes = bytes;
            service_reply_pack(&reply, &r.base);
            LOGI("EvictSRS %s: %s", name, freed ? "freed" : "was not loaded");
        }
    }
    pthread_mutex_lock(&s->mu);
    for (waiter **pp = &s->waiters; *pp; pp = &(*pp)->next) {
        if ((*pp)->call == op->call && !(*pp)->j) {
            waiter *w = *pp;
            *pp = w->next;
            free(w);
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    s->deliver(s->deliver_ctx, op->call, &reply);
    free(op);
    service_thread_done(s);
    return NULL;
}

/* Starts PreloadSRS / EvictSRS of set `id` (canonical) of kind k on a helper thread. Returns 0 (the reply comes
 * through the delivery callback) or 1 with *reply filled. */
int service_srs_start(daemon_service *s, const engine_kind *k, const char *id, int evict, void *call,
                      service_reply *reply)
{
    srs_op *op = calloc(1, sizeof(*op));
    if (!op) {
        service_reply_error(reply, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return 1;
    }
    op->kind = k;
    snprintf(op->id, sizeof(op->id), "%s", id);
    op->s = s;
    op->call = call;
    op->evict = evict;
    waiter *w = calloc(1, sizeof(*w));
    pthread_mutex_lock(&s->mu);
    int refused = s->shutting_down || !w;
    if (!refused) {
        w->call = call;
        w->next = s->waiters;
        s->waiters = w;
        if (service_spawn(s, srs_main, op)) {
            s->waiters = w->next;
            refused = 1;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (refused) {
        free(w);
        free(op);
        service_reply_error(reply, RPC_UNAVAILABLE, "cannot start the request (shutting down or out of resources)");
        return 1;
    }
    return 0;
}
