/* The job table: submission (idempotent by request_id), the job threads (a kind's parse, parameters and circuit,
 * engine, result), waiters and their delivery, timeouts, the idle sweep's timer and shutdown. */
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"
#include "engine/mem.h"

job *service_job_find(daemon_service *s, const char *id)
{
    for (job *j = s->jobs; j; j = j->next)
        if (!j->superseded && !strcmp(j->id, id)) return j;
    return NULL;
}

/* The whole digest of j, from its request while it still holds it (under mu). 0 when it cannot be had any more
 * (the job ended before its thread ran, or without one). */
static int job_digest(job *j)
{
    if (!j->digest_ready && j->have_in) {
        daemon_request_digest_finish(j->digest_head, &j->in, j->digest);
        j->digest_ready = 1;
    }
    return j->digest_ready;
}

void service_job_free(job *j)
{
    if (j->have_in) engine_kind_input_free(&j->in);
    free(j->proof);
    free(j);
}

void service_job_unlink(daemon_service *s, job *j)
{
    for (job **pp = &s->jobs; *pp; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    }
}

/* Forgets the oldest ended jobs nobody waits for beyond MAX_FINISHED_JOBS. */
static void jobs_trim(daemon_service *s)
{
    while (s->n_finished > MAX_FINISHED_JOBS) {
        job *oldest = NULL;
        for (job *j = s->jobs; j; j = j->next) {
            if (j->state != JOB_DONE) continue;
            int waited = 0;
            for (waiter *w = s->waiters; w && !waited; w = w->next) waited = w->j == j;
            if (!waited && (!oldest || j->t_end <= oldest->t_end)) oldest = j;
        }
        if (!oldest) return;
        service_job_unlink(s, oldest);
        service_job_free(oldest);
        s->n_finished--;
    }
}

static void fill_await(Cuzk__V1__AwaitProofResponse *r, const job *j)
{
    cuzk__v1__await_proof_response__init(r);
    r->job_id = (char *)j->id;
    if (j->state != JOB_DONE) {
        r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
        return;
    }
    r->status = (Cuzk__V1__AwaitProofResponse__Status)j->status;
    r->error_message = (char *)j->error;
    r->proof.data = j->proof;
    r->proof.len = j->proof_len;
    r->verified = j->verified;
    r->queue_wait_ms = j->queue_ms;
    r->srs_load_ms = j->srs_ms;
    r->synthesis_ms = j->synth_ms;
    r->gpu_compute_ms = j->gpu_ms;
    r->total_ms = j->total_ms;
}

void service_reply_for(service_reply *out, const job *j, int prove)
{
    Cuzk__V1__AwaitProofResponse ar;
    fill_await(&ar, j);
    if (!prove) {
        service_reply_pack(out, &ar.base);
        return;
    }
    Cuzk__V1__ProveResponse pr;
    cuzk__v1__prove_response__init(&pr);
    pr.result = &ar;
    service_reply_pack(out, &pr.base);
}

/* Marks j ended (under mu) and collects the replies of its waiters into *out (malloc'd, *n entries). */
void service_job_end_locked(daemon_service *s, job *j, int status, const char *error, pending_delivery **out, size_t *n)
{
    j->state = JOB_DONE;
    j->status = status;
    if (error) snprintf(j->error, sizeof(j->error), "%s", error);
    j->t_end = service_now();
    j->total_ms = service_ms(j->t_end - j->t_submit);
    unsigned ki = j->ki;
    if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        s->completed[ki]++;
        s->duration_sum[ki] += j->t_end - j->t_submit;
    } else if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED) {
        s->cancelled[ki]++;
    } else {
        s->failed[ki]++;
    }
    s->n_active--;
    s->n_finished++;
    size_t count = 0;
    for (waiter *w = s->waiters; w; w = w->next) count += w->j == j;
    *out = NULL;
    *n = 0;
    if (count) {
        *out = calloc(count, sizeof(**out));
        /* Without memory for the list the waiters stay registered and their timeouts (if any) answer. */
        if (!*out) return;
    }
    for (waiter **pp = &s->waiters; *pp;) {
        waiter *w = *pp;
        if (w->j != j) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        (*out)[*n].call = w->call;
        service_reply_for(&(*out)[(*n)++].reply, j, w->prove);
        free(w);
    }
    jobs_trim(s);
}

void service_deliver_all(daemon_service *s, pending_delivery *d, size_t n)
{
    for (size_t i = 0; i < n; i++) s->deliver(s->deliver_ctx, d[i].call, &d[i].reply);
    free(d);
}

void service_thread_done(daemon_service *s)
{
    pthread_mutex_lock(&s->mu);
    s->threads--;
    pthread_cond_broadcast(&s->threads_cv);
    pthread_mutex_unlock(&s->mu);
}

/* A parameter load that found the budget held by the working sets of other jobs (the residency had nothing idle
 * to evict) waits for them to release it, as partitions do, instead of failing the job: 1 once `bytes` fit (try
 * again), 0 when waiting cannot help (nothing else holds memory, or the set is larger than the budget), -1 when
 * the job is cancelled or the daemon stops meanwhile. */
static int params_wait(daemon_service *s, job *j, uint64_t bytes)
{
    engine_mem *m = engine_memory(s->eng);
    engine_mem_stats ms;
    engine_mem_get_stats(m, &ms);
    if (!bytes || (ms.host_limit && bytes > ms.host_limit)) return 0;
    int logged = 0;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        int stop = j->cancel_requested || s->shutting_down;
        pthread_mutex_unlock(&s->mu);
        if (stop) return -1;
        uint64_t in_use = engine_mem_host_in_use(m);
        if (!ms.host_limit || in_use + bytes <= ms.host_limit) return 1;
        if (!logged++)
            LOGI("job %s: its parameters (%" PRIu64 " bytes) wait for memory: %" PRIu64 " of %" PRIu64
                 " bytes are held by other jobs",
                 j->id, bytes, in_use, ms.host_limit);
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void *job_main(void *arg)
{
    job *j = arg;
    daemon_service *s = j->svc;
    const engine_kind *k = j->kind;
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    int status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
    engine_result res;
    memset(&res, 0, sizeof(res));
    int have_res = 0;
    double t_prep = service_now();
    engine_request rq;
    memset(&rq, 0, sizeof(rq));
    engine_kind_plan plan;
    void *kjob = NULL;
    set_entry *set = NULL;
    engine_params *params = NULL;

    /* The digest's pass over the payloads and the parse run here, not in the handler: a 50 MB C1 or a 58 MB
     * WindowPoSt request must not hold up the server loop. Only this thread frees j->in. */
    pthread_mutex_lock(&s->mu);
    int ready = j->digest_ready;
    pthread_mutex_unlock(&s->mu);
    uint8_t digest[DAEMON_REQUEST_DIGEST_BYTES];
    if (!ready) daemon_request_digest_finish(j->digest_head, &j->in, digest);
    pthread_mutex_lock(&s->mu);
    if (!j->digest_ready) memcpy(j->digest, digest, sizeof(digest));
    j->digest_ready = 1;
    pthread_mutex_unlock(&s->mu);

    cuzk_status st = k->parse(&j->in, &kjob, &plan, &err);
    /* Taken out under mu, freed outside it: a 50 MB C1 or a 58 MB WindowPoSt request goes back to the system
     * (munmap) here, which GetStatus and every other handler would otherwise wait for. */
    pthread_mutex_lock(&s->mu);
    engine_kind_input in = j->in;
    memset(&j->in, 0, sizeof(j->in));
    j->have_in = 0;
    pthread_mutex_unlock(&s->mu);
    engine_kind_input_free(&in);
    if (st == CUZK_OK) {
        LOGI("job %s: %s", j->id, plan.summary);
        pthread_mutex_lock(&s->mu);
        j->partitions = plan.partitions;
        pthread_mutex_unlock(&s->mu);
        void *circuit = NULL;
        set_entry *e = NULL;
        st = service_set_get(s, k, plan.set, &e, &err);
        if (st == CUZK_OK) st = service_circuit_acquire(s, e, &plan, kjob, &circuit, &params, &err);
        if (st == CUZK_OK) set = e;
        uint64_t need = st == CUZK_ERR_NOMEM && e ? service_set_bytes(s, e) : 0;
        for (int w; st == CUZK_ERR_NOMEM && (w = params_wait(s, j, need)) != 0;) {
            if (w < 0) {
                st = CUZK_ERR_CANCELLED;
                break;
            }
            st = service_circuit_acquire(s, e, &plan, kjob, &circuit, &params, &err);
            if (st == CUZK_OK) set = e;
            need = st == CUZK_ERR_NOMEM ? service_set_bytes(s, e) : 0;
        }
        if (st == CUZK_OK) st = k->request(circuit, kjob, j->prio, &rq, &err);
    }
    j->srs_ms = service_ms(service_now() - t_prep);

    if (st == CUZK_OK) {
        pthread_mutex_lock(&s->mu);
        int cancel = j->cancel_requested;
        pthread_mutex_unlock(&s->mu);
        if (cancel) {
            st = CUZK_ERR_CANCELLED;
        } else {
            uint64_t eid = 0;
            st = engine_submit(s->eng, &rq, &eid, &err);
            if (st == CUZK_OK) {
                pthread_mutex_lock(&s->mu);
                j->engine_id = eid;
                j->submitted = 1;
                j->state = JOB_QUEUED;
                cancel = j->cancel_requested;
                pthread_mutex_unlock(&s->mu);
                if (cancel) engine_cancel(s->eng, eid);
                st = engine_wait(s->eng, eid, &res, &err);
                have_res = 1;
                service_started(s, eid, 1);
            }
        }
    }
    if (set) service_circuit_release(s, set, params);
    if (kjob && k->job_free) k->job_free(kjob);

    uint8_t *proof = NULL;
    size_t proof_len = 0;
    if (st == CUZK_OK) {
        proof_len = (size_t)res.partitions * GROTH16_PROOF_BYTES;
        proof = malloc(proof_len);
        if (proof) {
            groth16_proofs_write(proof, res.proofs, res.partitions);
            status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
        } else {
            cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory encoding the proof");
        }
    } else if (st == CUZK_ERR_CANCELLED) {
        status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
        snprintf(err.msg, sizeof(err.msg), "cancelled");
    }

    pthread_mutex_lock(&s->mu);
    if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        j->proof = proof;
        j->proof_len = proof_len;
        j->verified = res.verified;
    }
    if (have_res) {
        j->queue_ms = service_ms(res.queue_ms / 1e3);
        j->synth_ms = service_ms(res.synth_ms / 1e3);
        j->gpu_ms = service_ms(res.gpu_ms / 1e3);
    }
    pending_delivery *d;
    size_t nd;
    char msg[sizeof(err.msg) + 64];
    snprintf(msg, sizeof(msg), "%s", status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? "" : err.msg);
    if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED && j->superseded)
        snprintf(msg, sizeof(msg), "%s",
                 "cancelled: superseded by a newer request with the same request_id and other inputs");
    service_job_end_locked(s, j, status, msg, &d, &nd);
    /* Once mu is released the job may be forgotten (trimmed or replaced): log from copies. */
    char id[sizeof(j->id)];
    memcpy(id, j->id, sizeof(id));
    int verified = j->verified;
    uint64_t total_ms = j->total_ms;
    pthread_mutex_unlock(&s->mu);
    if (have_res) engine_result_free(&res);
    if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
        LOGI("job %s completed: %zu bytes, verified %d, %" PRIu64 " ms", id, proof_len, verified, total_ms);
    else
        LOGI("job %s %s: %s", id, status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED ? "cancelled" : "failed",
             msg);
    service_deliver_all(s, d, nd);
    service_thread_done(s);
    return NULL;
}

int service_spawn(daemon_service *s, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr)) return -1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    s->threads++;
    int rc = pthread_create(&t, &attr, fn, arg);
    if (rc) s->threads--;
    pthread_attr_destroy(&attr);
    return rc ? -1 : 0;
}

static int valid_request_id(const char *id)
{
    size_t n = strlen(id);
    if (n > MAX_REQUEST_ID) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)id[i] < 0x20 || (unsigned char)id[i] > 0x7e) return 0;
    return 1;
}

static engine_priority priority_of(const engine_kind *k, int prio)
{
    if (prio >= 1 && prio <= 4) return (engine_priority)prio;
    if (prio == 0) return k->default_priority;
    return ENGINE_PRIO_NORMAL; /* unknown values too, as the Rust daemon */
}

/* The request's fields as a kind reads them, borrowed from the message (vanilla_proofs: *store, malloc'd). */
static cuzk_status kind_input_of(const Cuzk__V1__SubmitProofRequest *rq, engine_kind_input *in, engine_bytes **store,
                                 cuzk_error *err)
{
    memset(in, 0, sizeof(*in));
    *store = NULL;
    in->sector_size = rq->sector_size;
    in->registered_proof = rq->registered_proof;
    in->sector_number = rq->sector_number;
    in->miner_id = rq->miner_id;
    in->partition_index = rq->partition_index;
    in->vanilla_proof = (engine_bytes){rq->vanilla_proof.data, rq->vanilla_proof.len};
    if (rq->n_vanilla_proofs) {
        engine_bytes *v = calloc(rq->n_vanilla_proofs, sizeof(*v));
        if (!v) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory reading the request");
        for (size_t i = 0; i < rq->n_vanilla_proofs; i++)
            v[i] = (engine_bytes){rq->vanilla_proofs[i].data, rq->vanilla_proofs[i].len};
        in->vanilla_proofs = v;
        in->n_vanilla_proofs = rq->n_vanilla_proofs;
        *store = v;
    }
    in->randomness = (engine_bytes){rq->randomness.data, rq->randomness.len};
    in->comm_r_old = (engine_bytes){rq->comm_r_old.data, rq->comm_r_old.len};
    in->comm_r_new = (engine_bytes){rq->comm_r_new.data, rq->comm_r_new.len};
    in->comm_d_new = (engine_bytes){rq->comm_d_new.data, rq->comm_d_new.len};
    in->circuit = rq->circuit;
    in->partitions = rq->partitions;
    return CUZK_OK;
}

/* Jobs not started ahead of a job of priority prio (under mu). */
uint32_t service_queue_position(daemon_service *s, const job *self)
{
    uint32_t pos = 0;
    for (const job *j = s->jobs; j; j = j->next)
        if (j != self && j->state != JOB_DONE && j->prio >= self->prio && j->t_submit <= self->t_submit &&
            !(j->submitted && service_started(s, j->engine_id, 0)))
            pos++;
    return pos;
}

/* The table index of a kind (its counters). */
static unsigned kind_slot(const daemon_service *s, const engine_kind *k)
{
    for (size_t i = 0; i < s->n_kinds; i++)
        if (s->kinds[i] == k) return (unsigned)i;
    return 0; /* not reached: every kind comes from the table */
}

/* Creates (or finds) the job of a SubmitProofRequest. Returns the job under mu (locked on success), or
 * fills *reply with an error and returns NULL with mu unlocked. */
job *service_submit_locked(daemon_service *s, const Cuzk__V1__SubmitProofRequest *rq, service_reply *reply, int *is_new)
{
    *is_new = 0;
    const engine_kind *k = engine_kind_find((int)rq->proof_kind);
    if (!k) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "invalid proof_kind: %d", (int)rq->proof_kind);
        return NULL;
    }
    if (!valid_request_id(rq->request_id)) {
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "request_id must be at most %d printable ASCII characters",
                            MAX_REQUEST_ID);
        return NULL;
    }
    engine_kind_input in;
    engine_bytes *store;
    cuzk_error err;
    if (kind_input_of(rq, &in, &store, &err) != CUZK_OK) {
        service_reply_error(reply, RPC_RESOURCE_EXHAUSTED, "%s", err.msg);
        return NULL;
    }
    /* The kind's cheap checks answer at once; the whole parse runs on the job's thread. */
    if (engine_kind_implemented(k) && k->check && k->check(&in, &err) != CUZK_OK) {
        free(store);
        service_reply_error(reply, RPC_INVALID_ARGUMENT, "%s", err.msg);
        return NULL;
    }

    /* A known request_id joins its job only for the same request; other inputs under the same id (Curio
     * retrying a sector with a new seed, a redone snap) make a new job that the id names from then on, and
     * the older one, now useless, is cancelled: its waiters get CANCELLED, saying why (docs/DAEMON.md). */
    uint8_t head[DAEMON_REQUEST_DIGEST_BYTES] = {0}, digest[DAEMON_REQUEST_DIGEST_BYTES];
    int have_digest = 0; /* the pass over the payloads (~4 ms/MB) only when a known id needs it */
    if (rq->request_id[0]) daemon_request_digest_head((int)rq->proof_kind, &in, head);
    pthread_mutex_lock(&s->mu);
    for (job *old; !s->shutting_down && rq->request_id[0] && (old = service_job_find(s, rq->request_id));) {
        int waited = 0;
        for (waiter *w = s->waiters; w && !waited; w = w->next) waited = w->j == old;
        int same = !memcmp(old->digest_head, head, sizeof(head));
        if (same && !have_digest) {
            daemon_request_digest_finish(head, &in, digest);
            have_digest = 1;
        }
        if (same && job_digest(old) && !memcmp(old->digest, digest, sizeof(digest))) {
            int retry = old->state == JOB_DONE && old->status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
            if (!retry || waited) {
                LOGD("SubmitProof %s: already known, same request, same job", old->id);
                free(store);
                return old;
            }
        } else if (old->state != JOB_DONE || waited) {
            LOGI("job %s: superseded by a request with the same id and other inputs%s", old->id,
                 old->state != JOB_DONE ? ", cancelling it" : "");
            old->superseded = 1;
            old->cancel_requested = 1;
            if (old->state != JOB_DONE && old->submitted) {
                /* Outside mu, as the CancelProof handler; the loop looks again afterwards. */
                uint64_t eid = old->engine_id;
                pthread_mutex_unlock(&s->mu);
                engine_cancel(s->eng, eid);
                pthread_mutex_lock(&s->mu);
            }
            continue;
        }
        service_job_unlink(s, old);
        service_job_free(old);
        s->n_finished--;
    }
    if (s->shutting_down) {
        pthread_mutex_unlock(&s->mu);
        free(store);
        service_reply_error(reply, RPC_UNAVAILABLE, "cuzk-daemon is shutting down");
        return NULL;
    }
    if (s->n_active >= MAX_ACTIVE_JOBS) {
        pthread_mutex_unlock(&s->mu);
        free(store);
        service_reply_error(reply, RPC_RESOURCE_EXHAUSTED, "%d jobs are already queued or running", MAX_ACTIVE_JOBS);
        return NULL;
    }
    job *j = calloc(1, sizeof(*j));
    if (!j) {
        pthread_mutex_unlock(&s->mu);
        free(store);
        service_reply_error(reply, RPC_RESOURCE_EXHAUSTED, "out of memory creating the job");
        return NULL;
    }
    if (rq->request_id[0])
        snprintf(j->id, sizeof(j->id), "%s", rq->request_id);
    else
        snprintf(j->id, sizeof(j->id), "cuzk-%" PRIu64 "-%" PRIu64, (uint64_t)time(NULL), ++s->next_anon);
    memcpy(j->digest_head, head, sizeof(head));
    if (have_digest) memcpy(j->digest, digest, sizeof(digest));
    /* A made-up id has no request of the same id to compare with; otherwise the job thread finishes it. */
    j->digest_ready = have_digest || !rq->request_id[0];
    j->kind = k;
    j->ki = kind_slot(s, k);
    j->partitions = rq->partitions ? rq->partitions : 1; /* until the parse says */
    j->prio = priority_of(k, (int)rq->priority);
    j->t_submit = service_now();
    j->state = JOB_PREPARING;
    j->next = s->jobs;
    s->jobs = j;
    s->n_active++;
    *is_new = 1;

    const char *failure = NULL;
    char msg[sizeof(err.msg) + 64];
    if (!engine_kind_implemented(k)) {
        snprintf(msg, sizeof(msg),
                 "%s proofs are not implemented yet in cuzk (their circuits are still being written); "
                 "the kinds cuzk proves are those of its kind table (engine/kind.c)",
                 k->what);
        failure = msg;
        LOGI("job %s: %s", j->id, msg);
    } else if (engine_kind_input_copy(&in, &j->in, &err) != CUZK_OK) {
        /* A copy: the request message is freed when the handler returns; the job thread parses it. */
        snprintf(msg, sizeof(msg), "%s", err.msg);
        failure = msg;
    } else {
        j->have_in = 1;
        j->svc = s;
        if (service_spawn(s, job_main, j)) failure = "cannot start the job's thread";
    }
    free(store);
    if (failure) {
        pending_delivery *d;
        size_t nd;
        service_job_end_locked(s, j, CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED, failure, &d, &nd);
        free(d); /* a new job has no waiters */
        return j;
    }
    size_t bytes = rq->vanilla_proof.len;
    for (size_t i = 0; i < rq->n_vanilla_proofs; i++) bytes += rq->vanilla_proofs[i].len;
    LOGI("job %s queued: %s, %zu bytes of vanilla proofs%s%s, priority %d", j->id, k->what, bytes,
         rq->circuit[0] ? ", circuit " : "", rq->circuit, (int)j->prio);
    return j;
}

/* Answers now if j has ended, else registers a waiter (under mu). Returns 1 when reply is filled. */
int service_await_locked(daemon_service *s, job *j, uint64_t timeout_ms, int prove, void *call, service_reply *reply)
{
    if (j->state == JOB_DONE) {
        service_reply_for(reply, j, prove);
        return 1;
    }
    waiter *w = calloc(1, sizeof(*w));
    if (!w) {
        service_reply_error(reply, RPC_RESOURCE_EXHAUSTED, "out of memory registering the waiter");
        return 1;
    }
    w->call = call;
    w->j = j;
    w->prove = prove;
    w->deadline = timeout_ms ? service_now() + (double)timeout_ms / 1e3 : 0;
    w->next = s->waiters;
    s->waiters = w;
    return 0;
}

/* The idle sweep runs on a helper thread: it waits for the residency's lock, which a load holds for as long
 * as it takes, and freeing large parameters takes a while too. */
static void *sweep_main(void *arg)
{
    daemon_service *s = arg;
    unsigned n = engine_residency_sweep(s->res);
    if (n) LOGI("%u parameter set(s) idle for %" PRIu64 " s freed", n, s->cfg.idle_evict_s);
    pthread_mutex_lock(&s->mu);
    s->sweeping = 0;
    pthread_mutex_unlock(&s->mu);
    service_thread_done(s);
    return NULL;
}

/* Freed memory back to the system. A 257 MiB request that gRPC refuses as too large is read first, in small
 * blocks on the server loop's arena, and freed: with other calls' blocks above it the heap cannot shrink, and the
 * daemon kept ~260 MB of RSS for good (the soak: 106 -> 367 MB; malloc_trim: back to 97 MB). gRPC frees it
 * without telling the service, so every 2 s a helper thread asks glibc how much free memory its arenas hold
 * and, past 16 MiB, gives the free pages back (malloc_trim walks the arenas one at a time: ~1 ms here). */
static void *trim_main(void *arg)
{
    daemon_service *s = arg;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
    struct mallinfo2 mi = mallinfo2();
    if (mi.fordblks > (size_t)16 << 20) {
        double t0 = service_now();
        int released = malloc_trim(0);
        struct mallinfo2 after = mallinfo2();
        double ms = (service_now() - t0) * 1e3;
        /* At info level when it took long enough to delay other threads' allocations (GetStatus's among them). */
        daemon_log(ms > 10 ? LOG_INFO : LOG_DEBUG, "malloc_trim: %zu bytes free in the arenas, %zu after (%s), %.1f ms",
                   mi.fordblks, after.fordblks, released ? "pages released" : "nothing released", ms);
    }
#endif
    pthread_mutex_lock(&s->mu);
    s->trimming = 0;
    pthread_mutex_unlock(&s->mu);
    service_thread_done(s);
    return NULL;
}

void service_tick(daemon_service *s)
{
    double now = service_now();
    pending_delivery *d = NULL;
    size_t nd = 0, cap = 0;
    pthread_mutex_lock(&s->mu);
    if (s->cfg.idle_evict_s && !s->sweeping && !s->shutting_down && now >= s->next_sweep) {
        /* A set goes at most a quarter of idle_evict late (within 1..30 s). */
        double period = (double)s->cfg.idle_evict_s / 4;
        s->next_sweep = now + (period < 1 ? 1 : period > 30 ? 30 : period);
        s->sweeping = service_spawn(s, sweep_main, s) == 0;
    }
    if (!s->trimming && !s->shutting_down && now >= s->next_trim) {
        s->next_trim = now + 2;
        s->trimming = service_spawn(s, trim_main, s) == 0;
    }
    for (waiter **pp = &s->waiters; *pp;) {
        waiter *w = *pp;
        if (!w->j || !w->deadline || w->deadline > now) {
            pp = &w->next;
            continue;
        }
        if (nd == cap) {
            size_t nc = cap ? 2 * cap : 8;
            pending_delivery *n = realloc(d, nc * sizeof(*n));
            if (!n) break; /* the rest time out on a later tick */
            d = n;
            cap = nc;
        }
        *pp = w->next;
        d[nd].call = w->call;
        service_reply_for(&d[nd].reply, w->j, w->prove); /* the job has not ended: TIMEOUT */
        nd++;
        free(w);
    }
    pthread_mutex_unlock(&s->mu);
    service_deliver_all(s, d, nd);
}

void service_begin_shutdown(daemon_service *s)
{
    uint64_t *ids = NULL;
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    s->shutting_down = 1;
    ids = calloc(s->n_active ? s->n_active : 1, sizeof(*ids));
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        j->cancel_requested = 1;
        if (j->submitted && ids) ids[n++] = j->engine_id;
    }
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n; i++) engine_cancel(s->eng, ids[i]);
    free(ids);
}

int service_idle(daemon_service *s)
{
    pthread_mutex_lock(&s->mu);
    int idle = s->threads == 0 && s->waiters == NULL;
    pthread_mutex_unlock(&s->mu);
    return idle;
}
