/* The cuzk.v1.ProvingEngine handlers, independent of the transport: a request's bytes in, a reply (gRPC
 * status code, message, response bytes) out, either at once or later through a delivery callback.
 *
 * Jobs: a SubmitProof (or Prove) makes a job named by its request_id (the idempotency key for the same
 * request: the same request_id and request digest return the job already known, unless that one failed or
 * was cancelled, which a new submission replaces; other inputs under a known id make a new job and cancel
 * the older one, docs/DAEMON.md "request_id"). Every kind comes from the table of engine/kind.h; a kind without functions there is
 * answered FAILED ("not implemented yet"). Each job runs on its own thread: the kind's parse, the parameter
 * set (held in the engine's residency), the circuit over it, engine_submit, engine_wait, result. Nothing here
 * blocks on proving: AwaitProof and Prove
 * register a waiter that the job's end (or the timeout, through service_tick) answers.
 *
 * Locking: the delivery callback is never called with a service lock held, so it may take the
 * transport's lock; the transport may call service_handle and service_forget under its own lock. */
#ifndef CUZK_DAEMON_SERVICE_H
#define CUZK_DAEMON_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "daemon/config.h"

/* gRPC status codes used here (grpc/status.h values, repeated so this file needs no gRPC header). */
enum {
    RPC_OK = 0,
    RPC_CANCELLED = 1,
    RPC_INVALID_ARGUMENT = 3,
    RPC_NOT_FOUND = 5,
    RPC_RESOURCE_EXHAUSTED = 8,
    RPC_FAILED_PRECONDITION = 9,
    RPC_UNIMPLEMENTED = 12,
    RPC_INTERNAL = 13,
    RPC_UNAVAILABLE = 14
};

typedef struct service_reply {
    int code;      /* RPC_OK: body holds the response message */
    char msg[512]; /* the status message when code != RPC_OK */
    uint8_t *body; /* malloc'd; the receiver frees it */
    size_t len;
} service_reply;

/* Called once per deferred reply, from a job or helper thread or from service_tick. */
typedef void (*service_deliver_fn)(void *ctx, void *call, service_reply *reply);

typedef struct daemon_service daemon_service;

cuzk_status service_create(daemon_service **out, const daemon_config *cfg, service_deliver_fn deliver,
                           void *deliver_ctx, cuzk_error *err);
/* Cancels what is left, waits for every thread and frees everything. Call once nothing can call in. */
void service_destroy(daemon_service *s);

/* method: the full gRPC path ("/cuzk.v1.ProvingEngine/SubmitProof"). Returns 1 with *reply filled, or 0 when
 * the reply will come through the delivery callback for `call`. */
int service_handle(daemon_service *s, const char *method, const uint8_t *req, size_t len, void *call,
                   service_reply *reply);
/* The client of `call` went away: 1 if its pending reply was dropped (no delivery will come), 0 if a
 * delivery is under way or will still come. */
int service_forget(daemon_service *s, void *call);
/* Answers the AwaitProof waiters whose timeout has passed. Call every few tens of milliseconds. */
void service_tick(daemon_service *s);

/* What GetStatus does not carry, for the HTTP status page (status_http.c): per-kind counters and the jobs not
 * ended yet (the newest first, at most SERVICE_SNAPSHOT_MAX_JOBS). */
#define SERVICE_SNAPSHOT_MAX_KINDS 16
#define SERVICE_SNAPSHOT_MAX_JOBS 64
typedef struct service_snapshot {
    size_t n_kinds;
    struct {
        const char *label; /* GetStatus's queue label: "porep-c2", "circuit", ... */
        uint64_t completed, failed, cancelled;
        unsigned pending, in_progress;
    } kinds[SERVICE_SNAPSHOT_MAX_KINDS];
    size_t n_jobs, jobs_not_listed;
    struct {
        char id[257];
        const char *kind;
        double age_s;
        unsigned partitions;
        int in_progress; /* the engine began its synthesis */
    } jobs[SERVICE_SNAPSHOT_MAX_JOBS];
} service_snapshot;
void service_snapshot_get(daemon_service *s, service_snapshot *out);

/* No new jobs (UNAVAILABLE); every job is cancelled; waiters get their answers as the jobs end. */
void service_begin_shutdown(daemon_service *s);
/* 1 when no job or helper thread runs and no reply is pending. */
int service_idle(daemon_service *s);

#endif
