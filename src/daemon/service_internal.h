/* The service's internals, shared by its files (one job each): service.c (handlers), service_jobs.c (job table,
 * job threads, waiters, delivery), service_registry.c (parameter sets and circuits, PreloadSRS/EvictSRS),
 * service_status.c (GetStatus, timeline, the HTTP status's snapshot), service_metrics.c (GetMetrics),
 * service_setup.c (configuration glue).
 *
 * Locks, in the order they may be taken: reg_mu (the registry; held for moments: a set's load and a circuit's
 * compilation run without it), mu (jobs, waiters, counters, threads), tl_mu (timeline). The delivery callback and
 * calls into the engine and the residency run with none held. */
#ifndef CUZK_DAEMON_SERVICE_INTERNAL_H
#define CUZK_DAEMON_SERVICE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/v1/proving.pb-c.h"
#include "daemon/config.h"
#include "daemon/request_digest.h"
#include "daemon/service.h"
#include "engine/engine.h"
#include "engine/kind.h"
#include "engine/open.h"
#include "engine/residency.h"

#define MAX_ACTIVE_JOBS 4096   /* jobs not yet ended; beyond that SubmitProof answers RESOURCE_EXHAUSTED */
#define MAX_FINISHED_JOBS 1024 /* ended jobs kept for AwaitProof; the oldest are forgotten first */
#define MAX_KINDS 16           /* entries of engine_kinds() the counters have room for */
#define MAX_REQUEST_ID 256

/* A kind's circuit over a set, for one variant (e.g. a PoRep proof type over its size's parameters). */
typedef struct set_circuit {
    char variant[ENGINE_KIND_VARIANT_MAX];
    void *circuit;      /* the kind's (circuit_create) */
    uint64_t params_id; /* the load of the set it was created over (engine_params_id) */
    int compiling;      /* circuit_create runs (without reg_mu); the others wait on reg_cv */
    struct set_circuit *next;
} set_circuit;

typedef struct set_entry {
    char id[ENGINE_KIND_SET_MAX]; /* the canonical id, the residency's key */
    const engine_kind *kind;
    set_circuit *circuits;
    unsigned active; /* jobs holding a residency reference */
    uint64_t bytes;  /* of the parameters when last loaded (written by the load under reg_mu) */
    double last_load_ms;
    struct daemon_service *svc;
    struct set_entry *next;
} set_entry;

typedef enum job_state { JOB_PREPARING, JOB_QUEUED, JOB_DONE } job_state;

typedef struct job {
    char id[MAX_REQUEST_ID + 1];
    const engine_kind *kind;
    unsigned ki; /* its index in the table (the counters) */
    job_state state;
    int started; /* the engine began synthesis of a partition */
    int submitted, cancel_requested;
    int superseded; /* a request with the same id and other inputs replaced it: service_job_find no longer sees it */
    /* The request's digest (request_digest.h): the head at submission; the whole by the job thread (off the
     * server loop: the payloads may be 50 MB) or by a submission of the same id that needs it first. */
    uint8_t digest_head[DAEMON_REQUEST_DIGEST_BYTES], digest[DAEMON_REQUEST_DIGEST_BYTES];
    int digest_ready;
    uint64_t engine_id;
    struct daemon_service *svc;
    engine_kind_input in; /* a copy of the request's fields, until the job thread is done with them */
    int have_in;
    unsigned partitions;
    engine_priority prio;
    double t_submit, t_end;
    /* result */
    int status; /* Cuzk__V1__AwaitProofResponse__Status */
    char error[512];
    uint8_t *proof;
    size_t proof_len;
    int verified;
    uint64_t queue_ms, srs_ms, synth_ms, gpu_ms, total_ms;
    struct job *next;
} job;

typedef struct waiter {
    void *call;
    job *j;          /* NULL: a helper's reply (PreloadSRS/EvictSRS), which cannot be dropped */
    double deadline; /* seconds on the monotonic clock; 0: none */
    int prove;       /* answer with a ProveResponse instead of an AwaitProofResponse */
    struct waiter *next;
} waiter;

/* A parameter set as GetStatus reports it. */
typedef struct srs_snap {
    char name[128];
    int hot;
    uint64_t bytes;
    unsigned refs;
} srs_snap;
#define MAX_SRS_SNAP 64

typedef struct pending_delivery {
    void *call;
    service_reply reply;
} pending_delivery;

struct daemon_service {
    daemon_config cfg;
    service_deliver_fn deliver;
    void *deliver_ctx;
    double t_start;

    pool_t *prove_pool, *synth_pool;
    engine_host *host; /* backend, engine, residency (engine_open); the three below are its, for short */
    engine_backend *backend;
    engine *eng;
    engine_residency *res;

    pthread_mutex_t mu; /* jobs, waiters, counters, threads */
    pthread_cond_t threads_cv;
    job *jobs; /* newest first */
    size_t n_active, n_finished;
    waiter *waiters;
    unsigned threads;
    int shutting_down;
    uint64_t next_anon;
    const engine_kind *const *kinds; /* engine_kinds() */
    size_t n_kinds;
    uint64_t completed[MAX_KINDS], failed[MAX_KINDS], cancelled[MAX_KINDS];
    double duration_sum[MAX_KINDS];
    srs_snap srs[MAX_SRS_SNAP]; /* the last listing GetStatus could take */
    size_t n_srs;
    int sweeping;                     /* a residency sweep runs on a helper thread */
    engine_residency_stats res_stats; /* the last the server loop could take (service_residency_stats) */
    double next_sweep;                /* when service_tick starts the next one */
    int trimming;                     /* malloc_trim runs on a helper thread (service_jobs.c, trim_main) */
    double next_trim;                 /* when service_tick looks at the allocator's free memory next */

    pthread_mutex_t reg_mu; /* sets and their circuits */
    pthread_cond_t reg_cv;  /* a circuit's compilation ended */
    set_entry *sets;

    pthread_mutex_t tl_mu; /* the engine ids whose synthesis has started (timeline events) */
    uint64_t *started_ids;
    size_t n_started, cap_started;
    uint64_t gpu_job[DAEMON_MAX_DEVICES];  /* engine job in prove_start per device slot (0: none) */
    unsigned gpu_busy[DAEMON_MAX_DEVICES]; /* prove_starts running per device slot */
};

/* ---- service.c ---- */

/* Seconds on the monotonic clock; milliseconds of a duration in seconds, rounded. */
double service_now(void);
uint64_t service_ms(double seconds);
void service_reply_error(service_reply *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Packs a message into r (RPC_OK), or RPC_INTERNAL when out of memory. */
void service_reply_pack(service_reply *r, const ProtobufCMessage *m);

/* ---- service_jobs.c ---- */

/* The job table, under mu. service_job_find: the job the id names (not a superseded one). */
job *service_job_find(daemon_service *s, const char *id);
void service_job_free(job *j);
void service_job_unlink(daemon_service *s, job *j);
/* The AwaitProofResponse of j (TIMEOUT while it runs), or a ProveResponse holding it. */
void service_reply_for(service_reply *out, const job *j, int prove);
/* Marks j ended (under mu) and collects the replies of its waiters into *out (malloc'd, *n entries). */
void service_job_end_locked(daemon_service *s, job *j, int status, const char *error, pending_delivery **out,
                            size_t *n);
/* Hands each reply to the delivery callback (no lock held) and frees d. */
void service_deliver_all(daemon_service *s, pending_delivery *d, size_t n);
/* A detached helper thread (counted in threads, under mu), and its end. */
void service_thread_done(daemon_service *s);
int service_spawn(daemon_service *s, void *(*fn)(void *), void *arg);
/* Jobs not started ahead of a job of priority prio (under mu). */
uint32_t service_queue_position(daemon_service *s, const job *self);
/* Creates (or finds) the job of a SubmitProofRequest. Returns the job under mu (locked on success), or
 * fills *reply with an error and returns NULL with mu unlocked. */
job *service_submit_locked(daemon_service *s, const Cuzk__V1__SubmitProofRequest *rq, service_reply *reply,
                           int *is_new);
/* Answers now if j has ended, else registers a waiter (under mu). Returns 1 when reply is filled. */
int service_await_locked(daemon_service *s, job *j, uint64_t timeout_ms, int prove, void *call, service_reply *reply);

/* ---- service_registry.c ---- */

/* The residency's pins and frees, for the log (engine_open_config.notify). */
void service_on_residency(void *ctx, engine_residency_event ev, const char *name, uint64_t bytes, double ms,
                          const char *error);
/* Finds or registers the set of canonical id `id` of kind k (takes reg_mu). Entries live until service_sets_free. */
cuzk_status service_set_get(daemon_service *s, const engine_kind *k, const char *id, set_entry **out, cuzk_error *err);
/* The bytes of e's parameters when last loaded (takes reg_mu). */
uint64_t service_set_bytes(daemon_service *s, const set_entry *e);
/* Takes a residency reference on the job's set (*set) and gives the circuit of its variant over those parameters
 * (a set evicted and loaded again has a new id: its circuits are made again). Takes reg_mu for moments only: the
 * set's load (the residency's) and the circuit's compilation run without it, so that a job whose set and circuit
 * are ready (a WinningPoSt) is never held up by another set's load or compilation; callers of a circuit being
 * compiled wait for it. */
cuzk_status service_circuit_acquire(daemon_service *s, set_entry *e, const engine_kind_plan *plan, const void *kjob,
                                    void **circuit, engine_params **set, cuzk_error *err);
/* Releases what service_circuit_acquire took (takes reg_mu). */
void service_circuit_release(daemon_service *s, set_entry *e, engine_params *set);
/* Every set and circuit, at teardown (after the residency is gone). */
void service_sets_free(daemon_service *s);
/* Starts PreloadSRS / EvictSRS of set `id` (canonical) of kind k on a helper thread. Returns 0 (the reply comes
 * through the delivery callback) or 1 with *reply filled. */
int service_srs_start(daemon_service *s, const engine_kind *k, const char *id, int evict, void *call,
                      service_reply *reply);

/* ---- service_status.c ---- */

/* The engine's timeline callback (engine_config.timeline_cb, ctx = the service). */
void service_on_event(void *ctx, const engine_event *ev);

/* The most memory kept for CRITICAL work (engine_config.critical_reserve). */
#define SERVICE_CRITICAL_RESERVE (256ull << 20)
/* Whether synthesis of engine job id has begun; remove: forget the id (its job ended). */
int service_started(daemon_service *s, uint64_t id, int remove);
/* The residency's counters. A pin or an eviction's hooks hold the residency's lock for seconds, and the server loop
 * must not wait for that: then the previous figures are reported. */
void service_residency_stats(daemon_service *s, engine_residency_stats *out);
/* GetStatus. */
void service_status_reply(daemon_service *s, service_reply *reply);

/* ---- service_metrics.c ---- */

/* GetMetrics. */
void service_metrics_reply(daemon_service *s, service_reply *reply);

#endif
