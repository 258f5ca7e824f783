/* The handlers of cuzk.v1.ProvingEngine: each request unpacked, answered or handed to the job table
 * (service_jobs.c), the registry (service_registry.c), the status (service_status.c) or the metrics
 * (service_metrics.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"

#define METHOD_PREFIX "/cuzk.v1.ProvingEngine/"

double service_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t service_ms(double seconds)
{
    return seconds <= 0 ? 0 : (uint64_t)(seconds * 1000.0 + 0.5);
}

void service_reply_error(service_reply *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    memset(r, 0, sizeof(*r));
    r->code = code;
    vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
    va_end(ap);
}

/* Packs a message into r (RPC_OK), or RPC_INTERNAL when out of memory. */
void service_reply_pack(service_reply *r, const ProtobufCMessage *m)
{
    memset(r, 0, sizeof(*r));
    size_t n = protobuf_c_message_get_packed_size(m);
    r->body = malloc(n ? n : 1);
    if (!r->body) {
        service_reply_error(r, RPC_INTERNAL, "out of memory packing the response");
        return;
    }
    r->len = protobuf_c_message_pack(m, r->body);
    r->code = RPC_OK;
}

static void handle_submit(daemon_service *s, const uint8_t *req, size_t len, service_reply *reply)
{
    Cuzk__V1__SubmitProofRequest *rq = cuzk__v1__submit_proof_request__unpack(NULL, len, req);
    if (!rq) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed SubmitProofRequest");
        return;
    }
    int is_new;
    job *j = service_submit_locked(s, rq, reply, &is_new);
    if (j) {
        Cuzk__V1__SubmitProofResponse r;
        cuzk__v1__submit_proof_response__init(&r);
        r.job_id = j->id;
        r.queue_position = j->state == JOB_DONE ? 0 : service_queue_position(s, j);
        service_reply_pack(reply, &r.base);
        pthread_mutex_unlock(&s->mu);
    }
    cuzk__v1__submit_proof_request__free_unpacked(rq, NULL);
}

static int handle_await(daemon_service *s, const uint8_t *req, size_t len, void *call, service_reply *reply)
{
    Cuzk__V1__AwaitProofRequest *rq = cuzk__v1__await_proof_request__unpack(NULL, len, req);
    if (!rq) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed AwaitProofRequest");
        return 1;
    }
    int done = 1;
    pthread_mutex_lock(&s->mu);
    job *j = service_job_find(s, rq->job_id);
    if (!j)
        service_reply_error(reply, RPC_NOT_FOUND, "job not found: %.200s", rq->job_id);
    else
        done = service_await_locked(s, j, rq->timeout_ms, 0, call, reply);
    pthread_mutex_unlock(&s->mu);
    cuzk__v1__await_proof_request__free_unpacked(rq, NULL);
    return done;
}

static int handle_prove(daemon_service *s, const uint8_t *req, size_t len, void *call, service_reply *reply)
{
    Cuzk__V1__ProveRequest *rq = cuzk__v1__prove_request__unpack(NULL, len, req);
    if (!rq) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed ProveRequest");
        return 1;
    }
    int done = 1;
    if (!rq->submit) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "missing submit field");
    } else {
        int is_new;
        job *j = service_submit_locked(s, rq->submit, reply, &is_new);
        if (j) {
            done = service_await_locked(s, j, 0, 1, call, reply);
            pthread_mutex_unlock(&s->mu);
        }
    }
    cuzk__v1__prove_request__free_unpacked(rq, NULL);
    return done;
}

static void handle_cancel(daemon_service *s, const uint8_t *req, size_t len, service_reply *reply)
{
    Cuzk__V1__CancelProofRequest *rq = cuzk__v1__cancel_proof_request__unpack(NULL, len, req);
    if (!rq) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed CancelProofRequest");
        return;
    }
    int was_running = 0, have_eid = 0;
    uint64_t eid = 0;
    pthread_mutex_lock(&s->mu);
    job *j = service_job_find(s, rq->job_id);
    if (j && j->state != JOB_DONE) {
        was_running = 1;
        j->cancel_requested = 1;
        if (j->submitted) {
            have_eid = 1;
            eid = j->engine_id;
        }
    }
    pthread_mutex_unlock(&s->mu);
    /* Outside mu: the engine may call the timeline callback, which must not wait for a lock held here. */
    if (have_eid) engine_cancel(s->eng, eid);
    if (was_running) LOGI("job %s: cancel requested", rq->job_id);
    Cuzk__V1__CancelProofResponse r;
    cuzk__v1__cancel_proof_response__init(&r);
    r.was_running = was_running;
    service_reply_pack(reply, &r.base);
    cuzk__v1__cancel_proof_request__free_unpacked(rq, NULL);
}

static int handle_srs(daemon_service *s, int evict, const uint8_t *req, size_t len, void *call, service_reply *reply)
{
    char id[160];
    if (evict) {
        Cuzk__V1__EvictSrsRequest *rq = cuzk__v1__evict_srs_request__unpack(NULL, len, req);
        if (!rq) {
            service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed EvictSrsRequest");
            return 1;
        }
        snprintf(id, sizeof(id), "%s", rq->circuit_id);
        cuzk__v1__evict_srs_request__free_unpacked(rq, NULL);
    } else {
        Cuzk__V1__PreloadSrsRequest *rq = cuzk__v1__preload_srs_request__unpack(NULL, len, req);
        if (!rq) {
            service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed PreloadSrsRequest");
            return 1;
        }
        snprintf(id, sizeof(id), "%s", rq->circuit_id);
        cuzk__v1__preload_srs_request__free_unpacked(rq, NULL);
    }
    char canon[ENGINE_KIND_SET_MAX];
    const engine_kind *k = engine_kind_of_set(id, canon, sizeof(canon));
    if (!k) {
        service_reply_error(
            reply, RPC_INVALID_ARGUMENT,
            "unknown circuit_id '%.100s' (a parameter set such as porep-32g, wpost-32g, winning-32g, snap-32g or "
            "porep-2k, or a circuit spec such as synthetic:k=8)",
            id);
        return 1;
    }
    if (!engine_kind_implemented(k)) {
        if (evict) {
            /* Never loaded here: nothing to free (the Rust daemon answers the same way). */
            Cuzk__V1__EvictSrsResponse r;
            cuzk__v1__evict_srs_response__init(&r);
            service_reply_pack(reply, &r.base);
        } else {
            service_reply_error(reply, RPC_UNIMPLEMENTED,
                                "%s: this Filecoin parameter set is not implemented yet in cuzk (its circuit is still "
                                "being written)",
                                id);
        }
        return 1;
    }
    return service_srs_start(s, k, canon, evict, call, reply);
}

int service_handle(daemon_service *s, const char *method, const uint8_t *req, size_t len, void *call,
                   service_reply *reply)
{
    memset(reply, 0, sizeof(*reply));
    size_t pl = strlen(METHOD_PREFIX);
    const char *m = strncmp(method, METHOD_PREFIX, pl) == 0 ? method + pl : NULL;
    if (!m) {
        service_reply_error(reply, RPC_UNIMPLEMENTED, "unknown service or method %.200s", method);
        return 1;
    }
    LOGD("rpc %s (%zu bytes)", m, len);
    if (!strcmp(m, "SubmitProof")) {
        handle_submit(s, req, len, reply);
        return 1;
    }
    if (!strcmp(m, "AwaitProof")) return handle_await(s, req, len, call, reply);
    if (!strcmp(m, "Prove")) return handle_prove(s, req, len, call, reply);
    if (!strcmp(m, "CancelProof")) {
        handle_cancel(s, req, len, reply);
        return 1;
    }
    /* The requests without fields still must be valid messages. */
    if (!strcmp(m, "GetStatus") || !strcmp(m, "GetMetrics")) {
        ProtobufCMessage *rq =
            protobuf_c_message_unpack(!strcmp(m, "GetStatus") ? &cuzk__v1__get_status_request__descriptor
                                                              : &cuzk__v1__get_metrics_request__descriptor,
                                      NULL, len, req);
        if (!rq) {
            service_reply_error(reply, RPC_INVALID_ARGUMENT, "malformed %sRequest", m);
            return 1;
        }
        protobuf_c_message_free_unpacked(rq, NULL);
        if (!strcmp(m, "GetStatus"))
            service_status_reply(s, reply);
        else
            service_metrics_reply(s, reply);
        return 1;
    }
    if (!strcmp(m, "PreloadSRS")) return handle_srs(s, 0, req, len, call, reply);
    if (!strcmp(m, "EvictSRS")) return handle_srs(s, 1, req, len, call, reply);
    service_reply_error(reply, RPC_UNIMPLEMENTED, "unknown method %.200s", method);
    return 1;
}

int service_forget(daemon_service *s, void *call)
{
    int dropped = 0;
    pthread_mutex_lock(&s->mu);
    for (waiter **pp = &s->waiters; *pp; pp = &(*pp)->next) {
        waiter *w = *pp;
        if (w->call != call) continue;
        if (w->j) {
            *pp = w->next;
            free(w);
            dropped = 1;
        }
        break;
    }
    pthread_mutex_unlock(&s->mu);
    return dropped;
}
