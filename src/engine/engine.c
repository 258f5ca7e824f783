/* The engine: scheduler, synthesis workers, hand-off channel, prover workers, finish workers.
 *
 * One mutex (e->mu) guards all scheduling state: jobs, the hand-off channel, the finish queue, counters and
 * histograms; the memory budget is only touched with it held, so a worker that finds no room can wait on
 * cv_synth without missing the release that makes room. Heavy work (synthesis, prove_start, prove_finish,
 * verification) runs without the lock. */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"

enum { JOB_ACTIVE = 0, JOB_OK, JOB_FAILED, JOB_CANCELLED };

typedef struct job {
    uint64_t id, seq;
    int prio;
    const engine_circuit *circuit;
    const void *payload;
    unsigned n, next_part, done, inflight;
    int state;   /* JOB_ACTIVE until over (all proved, or failed/cancelled and nothing in flight) */
    int stopped; /* failed or cancelled: no new partition starts, in-flight ones are dropped */
    cuzk_status status;
    cuzk_error err;
    groth16_proof *proofs;
    double t_submit, t_first, t_end, synth_ms, gpu_ms, finish_ms;
    struct job *next;
} job;

/* One partition between its synthesis start and its proof. */
typedef struct part {
    job *job;
    unsigned index;
    r1cs wit;
    fr_t *a, *b, *c;
    uint64_t wit_bytes, abc_bytes; /* still reserved */
    void *handle;                  /* between prove_start and prove_finish */
    struct part *next;
} part;

/* Histogram buckets in milliseconds (Prometheus "le" bounds); the last bucket is +Inf. */
static const double HIST_LE[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 300000};
#define HIST_N (sizeof HIST_LE / sizeof HIST_LE[0])
typedef struct hist {
    uint64_t bucket[HIST_N + 1];
    uint64_t count;
    double sum;
} hist;
enum { H_SYNTH, H_GPU, H_FINISH, H_JOB, H_COUNT };
static const char *const HIST_NAME[H_COUNT] = {"cuzk_engine_synthesis_ms", "cuzk_engine_prove_start_ms",
                                               "cuzk_engine_prove_finish_ms", "cuzk_engine_job_ms"};
static const char *const HIST_HELP[H_COUNT] = {"Synthesis (witness and a/b/c) per partition, milliseconds",
                                               "Backend prove_start per partition, milliseconds",
                                               "Backend prove_finish and verification per partition, milliseconds",
                                               "Job wall time from submit to end, milliseconds"};

struct engine {
    engine_config cfg;
    engine_backend *be;
    engine_mem mem;
    struct timespec t0;

    pthread_mutex_t mu;
    pthread_cond_t cv_synth, cv_item, cv_space, cv_fin, cv_done;
    int stop;
    job *jobs;
    uint64_t next_id, next_seq;

    part **chan; /* hand-off channel: unordered slots, popped by priority */
    unsigned chan_len, chan_cap;
    part *fin_head; /* finish queue: unbounded (its entries hold only the witness, already reserved) */

    unsigned n_synth, n_prover, n_finish;
    pthread_t *threads;
    struct worker_arg *wargs;
    unsigned n_threads;
    unsigned synth_active, provers_active;

    uint64_t jobs_submitted, jobs_completed, jobs_failed, jobs_cancelled, parts_proved, parts_failed;
    hist h[H_COUNT];

    pthread_mutex_t tl_mu; /* keeps timeline lines whole and in order */
};

/* ---- time, timeline, metrics ---- */

engine_mem *engine_memory(engine *e) { return &e->mem; }

double engine_now_ms(const engine *e)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - e->t0.tv_sec) * 1e3 + (double)(ts.tv_nsec - e->t0.tv_nsec) * 1e-6;
}

static void timeline(engine *e, const char *ev, uint64_t job_id, int part_idx, int worker, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static void timeline(engine *e, const char *ev, uint64_t job_id, int part_idx, int worker, const char *fmt, ...)
{
    if (!e->cfg.timeline && !e->cfg.timeline_cb) return;
    char line[512];
    pthread_mutex_lock(&e->tl_mu);
    int n = snprintf(line, sizeof(line), "TIMELINE t_ms=%.3f ev=%s job=%llu part=%d worker=%d", engine_now_ms(e), ev,
                     (unsigned long long)job_id, part_idx, worker);
    if (fmt && n > 0 && (size_t)n < sizeof(line) - 2) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
        va_end(ap);
        if (m > 0) n += m;
    }
    if (n < 0) n = 0;
    if ((size_t)n > sizeof(line) - 2) n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    line[n] = '\0';
    if (e->cfg.timeline) {
        fputs(line, e->cfg.timeline);
        fflush(e->cfg.timeline);
    }
    if (e->cfg.timeline_cb) e->cfg.timeline_cb(e->cfg.timeline_ctx, line);
    pthread_mutex_unlock(&e->tl_mu);
}

static void hist_add(hist *h, double v)
{
    size_t i = 0;
    while (i < HIST_N && v > HIST_LE[i]) i++;
    h->bucket[i]++;
    h->count++;
    h->sum += v;
}

static const char *status_word(int state)
{
    return state == JOB_OK ? "ok" : state == JOB_CANCELLED ? "cancelled" : "failed";
}

/* ---- jobs (all with e->mu held) ---- */

static job *job_find(engine *e, uint64_t id)
{
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id) return j;
    return NULL;
}

/* The job whose next partition synthesis should start: highest priority, then oldest; NULL if none. */
static job *job_pick(engine *e)
{
    job *best = NULL;
    for (job *j = e->jobs; j; j = j->next) {
        if (j->state != JOB_ACTIVE || j->stopped || j->next_part >= j->n) continue;
        if (!best || j->prio > best->prio || (j->prio == best->prio && j->seq < best->seq)) best = j;
    }
    return best;
}

/* Ends the job if nothing of it is left in the pipeline. */
static void job_maybe_end(engine *e, job *j)
{
    if (j->state != JOB_ACTIVE || j->inflight) return;
    if (!j->stopped && j->done < j->n) return;
    j->state = j->stopped ? (j->status == CUZK_ERR_CANCELLED ? JOB_CANCELLED : JOB_FAILED) : JOB_OK;
    j->t_end = engine_now_ms(e);
    if (j->state == JOB_OK) e->jobs_completed++;
    else if (j->state == JOB_CANCELLED) e->jobs_cancelled++;
    else e->jobs_failed++;
    hist_add(&e->h[H_JOB], j->t_end - j->t_submit);
    timeline(e, "JOB_END", j->id, -1, -1, "status=%s verified=%d total_ms=%.3f", status_word(j->state),
             j->state == JOB_OK && !e->cfg.no_verify, j->t_end - j->t_submit);
    pthread_cond_broadcast(&e->cv_done);
}

/* Frees what a partition still holds and returns its reservations. */
static void part_drop(engine *e, part *p)
{
    job *j = p->job;
    if (p->handle) e->be->discard(e->be, p->handle);
    free(p->a);
    free(p->b);
    free(p->c);
    r1cs_free(&p->wit);
    if (p->abc_bytes) engine_mem_release(&e->mem, ENGINE_MEM_HOST, p->abc_bytes);
    if (p->wit_bytes) engine_mem_release(&e->mem, ENGINE_MEM_HOST, p->wit_bytes);
    free(p);
    j->inflight--;
    pthread_cond_broadcast(&e->cv_synth);
    job_maybe_end(e, j);
}

/* Stops a job: keeps the first reason, drops its partitions that wait in the channel or the finish queue. */
static void job_stop(engine *e, job *j, cuzk_status st, const cuzk_error *why)
{
    if (j->state != JOB_ACTIVE) return;
    if (!j->stopped) {
        j->stopped = 1;
        j->status = st;
        if (why) j->err = *why;
        else cuzk_error_set(&j->err, st, "job %llu: %s", (unsigned long long)j->id, cuzk_status_name(st));
    }
    for (unsigned i = 0; i < e->chan_len;) {
        if (e->chan[i]->job == j) {
            part *p = e->chan[i];
            e->chan[i] = e->chan[--e->chan_len];
            part_drop(e, p);
        } else {
            i++;
        }
    }
    for (part **pp = &e->fin_head; *pp;) {
        if ((*pp)->job == j) {
            part *p = *pp;
            *pp = p->next;
            part_drop(e, p);
        } else {
            pp = &(*pp)->next;
        }
    }
    /* Wakes the room freed in the channel, and synthesis workers waiting to send a partition of this job. */
    pthread_cond_broadcast(&e->cv_space);
    job_maybe_end(e, j);
}

static void part_fail(engine *e, part *p, const cuzk_error *err, int worker)
{
    job *j = p->job;
    e->parts_failed++;
    timeline(e, "FAIL", j->id, (int)p->index, worker, "status=%s", cuzk_status_name(err->code));
    cuzk_error full = *err;
    cuzk_error_prefix(&full, "job %llu partition %u: ", (unsigned long long)j->id, p->index);
    job_stop(e, j, err->code, &full);
    part_drop(e, p);
}

/* The best partition in the channel (priority, age, index); NULL if empty. */
static part *chan_pop(engine *e)
{
    if (!e->chan_len) return NULL;
    unsigned b = 0;
    for (unsigned i = 1; i < e->chan_len; i++) {
        const part *x = e->chan[i], *y = e->chan[b];
        if (x->job->prio > y->job->prio ||
            (x->job->prio == y->job->prio &&
             (x->job->seq < y->job->seq || (x->job->seq == y->job->seq && x->index < y->index))))
            b = i;
    }
    part *p = e->chan[b];
    e->chan[b] = e->chan[--e->chan_len];
    return p;
}

/* ---- synthesis ---- */

typedef struct worker_arg {
    engine *e;
    unsigned id;
} worker_arg;

static cuzk_status synthesize(engine *e, part *p, cuzk_error *err)
{
    const engine_circuit *c = p->job->circuit;
    cuzk_status st = c->synthesize(c->synth_ctx, p->job->payload, p->index, &p->wit, err);
    if (st != CUZK_OK) return st;
    if (!p->wit.finalized || !p->wit.has_witness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "synthesis returned no finalized witness");
    if ((st = r1cs_check_witness(c->shape, &p->wit, err)) != CUZK_OK) return st;
    if (e->cfg.fault && e->cfg.fault(e->cfg.fault_ctx, ENGINE_FAULT_ALLOC_ABC, p->job->id, p->index))
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate a, b, c (%zu elements each; injected)", c->m);
    size_t bytes = c->m * sizeof(fr_t);
    p->a = malloc(bytes);
    p->b = malloc(bytes);
    p->c = malloc(bytes);
    if (!p->a || !p->b || !p->c)
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate a, b, c (%zu elements each)", c->m);
    return r1cs_eval_abc(e->cfg.synth_pool, c->shape, p->wit.inputs, p->wit.aux, p->a, p->b, p->c, err);
}

static void *synth_main(void *arg)
{
    worker_arg *wa = arg;
    engine *e = wa->e;
    int w = (int)wa->id;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stop) break;
        job *j = job_pick(e);
        if (!j) {
            pthread_cond_wait(&e->cv_synth, &e->mu);
            continue;
        }
        const engine_circuit *c = j->circuit;
        uint64_t need = c->witness_bytes + c->abc_bytes;
        if (!engine_mem_fits_at_all(&e->mem, ENGINE_MEM_HOST, need)) {
            cuzk_error why;
            cuzk_error_set(&why, CUZK_ERR_NOMEM,
                           "job %llu: a partition of %s needs %llu bytes, more than the whole budget of %llu",
                           (unsigned long long)j->id, c->name, (unsigned long long)need,
                           (unsigned long long)e->mem.host_limit);
            job_stop(e, j, CUZK_ERR_NOMEM, &why);
            continue;
        }
        /* Waiting for room keeps the order: the best partition waits rather than letting others pass it. */
        if (!engine_mem_try_reserve(&e->mem, ENGINE_MEM_HOST, need)) {
            pthread_cond_wait(&e->cv_synth, &e->mu);
            continue;
        }
        part *p = calloc(1, sizeof(*p));
        if (!p) {
            engine_mem_release(&e->mem, ENGINE_MEM_HOST, need);
            cuzk_error why;
            cuzk_error_set(&why, CUZK_ERR_NOMEM, "job %llu: cannot allocate a partition record",
                           (unsigned long long)j->id);
            job_stop(e, j, CUZK_ERR_NOMEM, &why);
            continue;
        }
        p->job = j;
        p->index = j->next_part++;
        p->wit_bytes = c->witness_bytes;
        p->abc_bytes = c->abc_bytes;
        j->inflight++;
        e->synth_active++;
        double t0 = engine_now_ms(e);
        if (j->next_part == 1) j->t_first = t0;
        /* Reservations are the only way accounted memory grows, so the largest mem= of these lines is the peak. */
        timeline(e, "SYNTH_START", j->id, (int)p->index, w, "mem=%llu",
                 (unsigned long long)engine_mem_host_in_use(&e->mem));
        pthread_mutex_unlock(&e->mu);

        cuzk_error err;
        err.code = CUZK_OK;
        err.msg[0] = '\0';
        cuzk_status st = synthesize(e, p, &err);
        double t1 = engine_now_ms(e);

        pthread_mutex_lock(&e->mu);
        e->synth_active--;
        if (st != CUZK_OK) {
            if (err.code == CUZK_OK) err.code = st;
            cuzk_error_prefix(&err, "synthesis: ");
            part_fail(e, p, &err, w);
            continue;
        }
        j->synth_ms += t1 - t0;
        hist_add(&e->h[H_SYNTH], t1 - t0);
        timeline(e, "SYNTH_END", j->id, (int)p->index, w, "synth_ms=%.3f", t1 - t0);
        /* The permit (this worker) is held until the send succeeds. */
        while (e->chan_len == e->chan_cap && !e->stop && !j->stopped) pthread_cond_wait(&e->cv_space, &e->mu);
        if (e->stop || j->stopped) {
            part_drop(e, p);
            continue;
        }
        e->chan[e->chan_len++] = p;
        timeline(e, "HANDOFF", j->id, (int)p->index, w, "wait_ms=%.3f", engine_now_ms(e) - t1);
        pthread_cond_signal(&e->cv_item);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- prover workers ---- */

static void *prover_main(void *arg)
{
    worker_arg *wa = arg;
    engine *e = wa->e;
    unsigned w = wa->id;
    unsigned gw = e->cfg.gpu_workers;
    int device = e->cfg.devices ? e->cfg.devices[w / gw] : 0;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stop) break;
        part *p = chan_pop(e);
        if (!p) {
            pthread_cond_wait(&e->cv_item, &e->mu);
            continue;
        }
        pthread_cond_signal(&e->cv_space);
        job *j = p->job;
        timeline(e, "GPU_PICKUP", j->id, (int)p->index, (int)w, "gpu=%d", device);
        e->provers_active++;
        pthread_mutex_unlock(&e->mu);

        engine_partition ep = {
            .job_id = j->id,
            .index = p->index,
            .circuit = j->circuit,
            .inputs = p->wit.inputs,
            .aux = p->wit.aux,
            .num_inputs = p->wit.num_inputs,
            .num_aux = p->wit.num_aux,
            .num_constraints = j->circuit->shape->num_constraints,
            .a = p->a,
            .b = p->b,
            .c = p->c,
        };
        cuzk_error err;
        err.code = CUZK_OK;
        err.msg[0] = '\0';
        double t0 = engine_now_ms(e);
        timeline(e, "GPU_START", j->id, (int)p->index, (int)w, "gpu=%d", device);
        cuzk_status st = e->be->prove_start(e->be, device, w, &ep, &p->handle, &err);
        double t1 = engine_now_ms(e);
        timeline(e, "GPU_END", j->id, (int)p->index, (int)w, "gpu=%d gpu_ms=%.3f", device, t1 - t0);
        free(p->a);
        free(p->b);
        free(p->c);
        p->a = p->b = p->c = NULL;
        if (st != CUZK_OK) p->handle = NULL;

        pthread_mutex_lock(&e->mu);
        e->provers_active--;
        engine_mem_release(&e->mem, ENGINE_MEM_HOST, p->abc_bytes);
        p->abc_bytes = 0;
        pthread_cond_broadcast(&e->cv_synth);
        if (st != CUZK_OK) {
            if (err.code == CUZK_OK) err.code = st;
            cuzk_error_prefix(&err, "%s backend prove_start: ", e->be->name);
            part_fail(e, p, &err, (int)w);
            continue;
        }
        j->gpu_ms += t1 - t0;
        hist_add(&e->h[H_GPU], t1 - t0);
        if (j->stopped || e->stop) {
            part_drop(e, p);
            continue;
        }
        /* Appended at the tail: finishing runs in the order the prover stage completed. */
        part **pp = &e->fin_head;
        while (*pp) pp = &(*pp)->next;
        p->next = NULL;
        *pp = p;
        pthread_cond_signal(&e->cv_fin);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- finish workers ---- */

static void *finish_main(void *arg)
{
    worker_arg *wa = arg;
    engine *e = wa->e;
    int w = (int)wa->id;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stop) break;
        part *p = e->fin_head;
        if (!p) {
            pthread_cond_wait(&e->cv_fin, &e->mu);
            continue;
        }
        e->fin_head = p->next;
        job *j = p->job;
        timeline(e, "FINISH_START", j->id, (int)p->index, w, NULL);
        pthread_mutex_unlock(&e->mu);

        cuzk_error err;
        err.code = CUZK_OK;
        err.msg[0] = '\0';
        groth16_proof proof;
        double t0 = engine_now_ms(e);
        void *h = p->handle;
        p->handle = NULL;
        cuzk_status st = e->be->prove_finish(e->be, h, &proof, &err);
        if (st != CUZK_OK) {
            if (err.code == CUZK_OK) err.code = st;
            cuzk_error_prefix(&err, "%s backend prove_finish: ", e->be->name);
        } else if (!e->cfg.no_verify) {
            const fr_t *pub = p->wit.inputs + 1;
            st = groth16_verify(NULL, &j->circuit->pvk, &proof, pub, p->wit.num_inputs - 1, &err);
            if (st != CUZK_OK) {
                if (err.code == CUZK_OK) err.code = st;
                cuzk_error_prefix(&err, "self-verification: ");
            }
        }
        double t1 = engine_now_ms(e);

        pthread_mutex_lock(&e->mu);
        timeline(e, "FINISH_END", j->id, (int)p->index, w, "finish_ms=%.3f", t1 - t0);
        if (st != CUZK_OK) {
            part_fail(e, p, &err, w);
            continue;
        }
        j->finish_ms += t1 - t0;
        hist_add(&e->h[H_FINISH], t1 - t0);
        if (!j->stopped) {
            j->proofs[p->index] = proof;
            j->done++;
            e->parts_proved++;
        }
        part_drop(e, p);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- lifecycle ---- */

static void engine_stop_threads(engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->stop = 1;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_cond_broadcast(&e->cv_item);
    pthread_cond_broadcast(&e->cv_space);
    pthread_cond_broadcast(&e->cv_fin);
    pthread_mutex_unlock(&e->mu);
    for (unsigned i = 0; i < e->n_threads; i++) pthread_join(e->threads[i], NULL);
    e->n_threads = 0;
}

cuzk_status engine_create(engine **out, const engine_config *cfg, cuzk_error *err)
{
    *out = NULL;
    if (!cfg || !cfg->backend) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine: no backend");
    if (cfg->devices && !cfg->num_devices)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine: an empty device list");
    engine *e = calloc(1, sizeof(*e));
    if (!e) return cuzk_error_set(err, CUZK_ERR_NOMEM, "engine: cannot allocate");
    e->cfg = *cfg;
    if (!e->cfg.devices) e->cfg.num_devices = 1;
    if (!e->cfg.gpu_workers) e->cfg.gpu_workers = 2;
    if (!e->cfg.partition_workers) e->cfg.partition_workers = 2;
    if (!e->cfg.synthesis_lookahead) e->cfg.synthesis_lookahead = 1;
    if (!e->cfg.finish_workers) e->cfg.finish_workers = 1;
    e->be = cfg->backend;
    clock_gettime(CLOCK_MONOTONIC, &e->t0);
    e->next_id = 1;
    e->chan_cap = e->cfg.synthesis_lookahead > e->cfg.partition_workers ? e->cfg.synthesis_lookahead
                                                                         : e->cfg.partition_workers;
    e->n_synth = e->cfg.partition_workers;
    e->n_prover = (unsigned)e->cfg.num_devices * e->cfg.gpu_workers;
    e->n_finish = e->cfg.finish_workers;
    unsigned total = e->n_synth + e->n_prover + e->n_finish;
    e->chan = calloc(e->chan_cap, sizeof(*e->chan));
    e->threads = calloc(total, sizeof(*e->threads));
    e->wargs = calloc(total, sizeof(*e->wargs));
    cuzk_status st = engine_mem_init(&e->mem, cfg->host_budget, 0, err);
    if (st != CUZK_OK || !e->chan || !e->threads || !e->wargs) {
        if (st == CUZK_OK) engine_mem_destroy(&e->mem);
        free(e->chan);
        free(e->threads);
        free(e->wargs);
        free(e);
        return st != CUZK_OK ? st : cuzk_error_set(err, CUZK_ERR_NOMEM, "engine: cannot allocate");
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->tl_mu, NULL);
    pthread_cond_init(&e->cv_synth, NULL);
    pthread_cond_init(&e->cv_item, NULL);
    pthread_cond_init(&e->cv_space, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    pthread_cond_init(&e->cv_done, NULL);
    for (unsigned i = 0; i < total; i++) {
        void *(*fn)(void *) = synth_main;
        unsigned id = i;
        if (i >= e->n_synth + e->n_prover) {
            fn = finish_main;
            id = i - e->n_synth - e->n_prover;
        } else if (i >= e->n_synth) {
            fn = prover_main;
            id = i - e->n_synth;
        }
        e->wargs[i].e = e;
        e->wargs[i].id = id;
        if (pthread_create(&e->threads[i], NULL, fn, &e->wargs[i]) != 0) {
            engine_destroy(e);
            return cuzk_error_set(err, CUZK_ERR_INTERNAL, "engine: cannot start worker thread %u", i);
        }
        e->n_threads = i + 1;
    }
    *out = e;
    return CUZK_OK;
}

void engine_destroy(engine *e)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    for (job *j = e->jobs; j; j = j->next) job_stop(e, j, CUZK_ERR_CANCELLED, NULL);
    pthread_mutex_unlock(&e->mu);
    engine_stop_threads(e);
    /* Workers drop what they hold before exiting; what remains sits in the queues. */
    pthread_mutex_lock(&e->mu);
    while (e->chan_len) part_drop(e, e->chan[--e->chan_len]);
    while (e->fin_head) {
        part *p = e->fin_head;
        e->fin_head = p->next;
        part_drop(e, p);
    }
    while (e->jobs) {
        job *j = e->jobs;
        e->jobs = j->next;
        free(j->proofs);
        free(j);
    }
    pthread_mutex_unlock(&e->mu);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->tl_mu);
    pthread_cond_destroy(&e->cv_synth);
    pthread_cond_destroy(&e->cv_item);
    pthread_cond_destroy(&e->cv_space);
    pthread_cond_destroy(&e->cv_fin);
    pthread_cond_destroy(&e->cv_done);
    engine_mem_destroy(&e->mem);
    free(e->chan);
    free(e->threads);
    free(e->wargs);
    free(e);
}

cuzk_status engine_submit(engine *e, const engine_request *req, uint64_t *job_id, cuzk_error *err)
{
    if (!e || !req || !req->circuit || !job_id)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "submit: NULL argument");
    if (req->partitions == 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "submit: zero partitions");
    if (req->priority < ENGINE_PRIO_LOW || req->priority > ENGINE_PRIO_CRITICAL)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "submit: priority %d outside 1..4", (int)req->priority);
    job *j = calloc(1, sizeof(*j));
    groth16_proof *proofs = calloc(req->partitions, sizeof(*proofs));
    if (!j || !proofs) {
        free(j);
        free(proofs);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "submit: cannot allocate a job of %u partitions", req->partitions);
    }
    j->circuit = req->circuit;
    j->payload = req->payload;
    j->n = req->partitions;
    j->prio = (int)req->priority;
    j->proofs = proofs;
    pthread_mutex_lock(&e->mu);
    if (e->stop) {
        pthread_mutex_unlock(&e->mu);
        free(proofs);
        free(j);
        return cuzk_error_set(err, CUZK_ERR_CANCELLED, "submit: the engine is shutting down");
    }
    j->id = e->next_id++;
    j->seq = e->next_seq++;
    j->t_submit = engine_now_ms(e);
    j->next = e->jobs;
    e->jobs = j;
    e->jobs_submitted++;
    *job_id = j->id;
    timeline(e, "QUEUE", j->id, -1, -1, "parts=%u prio=%d", j->n, j->prio);
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

int engine_cancel(engine *e, uint64_t job_id)
{
    pthread_mutex_lock(&e->mu);
    job *j = job_find(e, job_id);
    int found = j && j->state == JOB_ACTIVE && !j->stopped;
    if (found) job_stop(e, j, CUZK_ERR_CANCELLED, NULL);
    pthread_mutex_unlock(&e->mu);
    return found;
}

cuzk_status engine_wait(engine *e, uint64_t job_id, engine_result *out, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&e->mu);
    job *j = job_find(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        out->status = cuzk_error_set(&out->error, CUZK_ERR_INVALID_ARG, "wait: no job %llu",
                                     (unsigned long long)job_id);
        if (err) *err = out->error;
        return out->status;
    }
    while (j->state == JOB_ACTIVE) pthread_cond_wait(&e->cv_done, &e->mu);
    for (job **pp = &e->jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    pthread_mutex_unlock(&e->mu);

    out->partitions = j->n;
    out->queue_ms = j->t_first > 0 ? j->t_first - j->t_submit : 0;
    out->total_ms = j->t_end - j->t_submit;
    out->synth_ms = j->synth_ms;
    out->gpu_ms = j->gpu_ms;
    out->finish_ms = j->finish_ms;
    if (j->state == JOB_OK) {
        out->status = CUZK_OK;
        out->proofs = j->proofs;
        out->verified = !e->cfg.no_verify;
        j->proofs = NULL;
    } else {
        out->status = j->status;
        out->error = j->err;
        if (err) *err = j->err;
    }
    free(j->proofs);
    free(j);
    return out->status;
}

void engine_result_free(engine_result *r)
{
    if (!r) return;
    free(r->proofs);
    r->proofs = NULL;
}

void engine_get_stats(engine *e, engine_stats *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&e->mu);
    out->jobs_submitted = e->jobs_submitted;
    out->jobs_completed = e->jobs_completed;
    out->jobs_failed = e->jobs_failed;
    out->jobs_cancelled = e->jobs_cancelled;
    out->partitions_proved = e->parts_proved;
    out->partitions_failed = e->parts_failed;
    for (job *j = e->jobs; j; j = j->next) out->jobs_active += j->state == JOB_ACTIVE;
    out->synth_active = e->synth_active;
    out->handoff_len = e->chan_len;
    out->provers_active = e->provers_active;
    for (part *p = e->fin_head; p; p = p->next) out->finish_pending++;
    engine_mem_get_stats(&e->mem, &out->mem);
    pthread_mutex_unlock(&e->mu);
}

void engine_metrics_write(engine *e, FILE *f)
{
    engine_stats s;
    engine_get_stats(e, &s);
    hist h[H_COUNT];
    pthread_mutex_lock(&e->mu);
    memcpy(h, e->h, sizeof(h));
    pthread_mutex_unlock(&e->mu);
    fprintf(f, "# HELP cuzk_engine_jobs_total Jobs by outcome (submitted counts every job).\n"
               "# TYPE cuzk_engine_jobs_total counter\n");
    fprintf(f, "cuzk_engine_jobs_total{outcome=\"submitted\"} %llu\n", (unsigned long long)s.jobs_submitted);
    fprintf(f, "cuzk_engine_jobs_total{outcome=\"completed\"} %llu\n", (unsigned long long)s.jobs_completed);
    fprintf(f, "cuzk_engine_jobs_total{outcome=\"failed\"} %llu\n", (unsigned long long)s.jobs_failed);
    fprintf(f, "cuzk_engine_jobs_total{outcome=\"cancelled\"} %llu\n", (unsigned long long)s.jobs_cancelled);
    fprintf(f, "# HELP cuzk_engine_partitions_total Partitions proved and failed.\n"
               "# TYPE cuzk_engine_partitions_total counter\n");
    fprintf(f, "cuzk_engine_partitions_total{outcome=\"proved\"} %llu\n", (unsigned long long)s.partitions_proved);
    fprintf(f, "cuzk_engine_partitions_total{outcome=\"failed\"} %llu\n", (unsigned long long)s.partitions_failed);
    fprintf(f, "# HELP cuzk_engine_jobs_active Jobs not yet over.\n# TYPE cuzk_engine_jobs_active gauge\n"
               "cuzk_engine_jobs_active %u\n", s.jobs_active);
    fprintf(f, "# HELP cuzk_engine_stage_partitions Partitions in each stage.\n"
               "# TYPE cuzk_engine_stage_partitions gauge\n");
    fprintf(f, "cuzk_engine_stage_partitions{stage=\"synthesis\"} %u\n", s.synth_active);
    fprintf(f, "cuzk_engine_stage_partitions{stage=\"handoff\"} %u\n", s.handoff_len);
    fprintf(f, "cuzk_engine_stage_partitions{stage=\"prove_start\"} %u\n", s.provers_active);
    fprintf(f, "cuzk_engine_stage_partitions{stage=\"finish_queue\"} %u\n", s.finish_pending);
    fprintf(f, "# HELP cuzk_engine_memory_bytes Accounted host memory (host and pinned share the budget).\n"
               "# TYPE cuzk_engine_memory_bytes gauge\n");
    fprintf(f, "cuzk_engine_memory_bytes{kind=\"in_use\"} %llu\n", (unsigned long long)s.mem.host_in_use);
    fprintf(f, "cuzk_engine_memory_bytes{kind=\"peak\"} %llu\n", (unsigned long long)s.mem.host_peak);
    fprintf(f, "cuzk_engine_memory_bytes{kind=\"budget\"} %llu\n", (unsigned long long)s.mem.host_limit);
    for (int k = 0; k < H_COUNT; k++) {
        fprintf(f, "# HELP %s %s.\n# TYPE %s histogram\n", HIST_NAME[k], HIST_HELP[k], HIST_NAME[k]);
        uint64_t cum = 0;
        for (size_t i = 0; i < HIST_N; i++) {
            cum += h[k].bucket[i];
            fprintf(f, "%s_bucket{le=\"%g\"} %llu\n", HIST_NAME[k], HIST_LE[i], (unsigned long long)cum);
        }
        cum += h[k].bucket[HIST_N];
        fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n", HIST_NAME[k], (unsigned long long)cum);
        fprintf(f, "%s_sum %.3f\n%s_count %llu\n", HIST_NAME[k], h[k].sum, HIST_NAME[k],
                (unsigned long long)h[k].count);
    }
}
