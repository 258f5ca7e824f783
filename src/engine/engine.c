/* The engine: scheduler, synthesis workers, hand-off channel, prover workers, finish workers.
 *
 * One mutex (e->mu) guards all scheduling state: jobs, the hand-off channel, the finish queue, counters and
 * histograms; the memory budget is only touched with it held, so a worker that finds no room can wait on
 * cv_synth without missing the release that makes room. Heavy work (synthesis, prove_start, prove_finish,
 * verification) runs without the lock. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
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

/* A partition's buffer set: one allocation of `elems` elements, accounted as `bytes` of `kind` from allocation
 * to free (in use or idle in the cache). It holds a, b, c (3 m elements) when the engine evaluates them; for a
 * backend that evaluates them itself, a page-locked copy of the witness (inputs ++ aux), which the device reads
 * by direct DMA (set_elems). */
typedef struct abc_set {
    fr_t *mem;
    size_t elems;
    uint64_t bytes;
    engine_mem_kind kind; /* ENGINE_MEM_PINNED: from the backend's host_alloc */
    struct abc_set *next;
} abc_set;

/* One partition between its synthesis start and its proof. */
typedef struct part {
    job *job;
    unsigned index;
    r1cs wit;
    abc_set *abc;                  /* a, b, c: from synthesis until prove_start returns; a witness copy: to the end */
    uint64_t wit_bytes, abc_bytes; /* still reserved (abc_bytes: for a set not yet allocated) */
    const fr_t *inputs, *aux;      /* the witness the backend reads: wit's values, or their copy in abc */
    size_t num_inputs, num_aux;
    void *handle;     /* between prove_start and prove_finish */
    int reserved;     /* synthesized by the reserved worker: its hand-off slot is the spare one */
    int crit_pending; /* a CRITICAL partition counted in crit_pending (synthesis to hand-off) */
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

    part **chan; /* hand-off channel: unordered slots (chan_cap + 1), popped by priority */
    unsigned chan_len, chan_cap;
    /* The reserved synthesis worker's partition, synthesizing or in the channel (0 or 1 each): the others count
     * against chan_cap, it has the spare slot. */
    unsigned res_synth, res_chan;
    unsigned crit_pending; /* CRITICAL partitions between synthesis start and hand-off */
    unsigned *dev_busy;    /* per device: its prover workers in prove_start */
    part *fin_head;        /* finish queue: unbounded (its entries hold only the witness, already reserved) */

    /* The ordinary synthesis and prover workers; for CRITICAL work one more synthesis worker and one more prover
     * worker per device (ids n_prover..) are reserved. */
    unsigned n_synth, n_prover, n_finish;
    pthread_t *threads;
    struct worker_arg *wargs;
    unsigned n_threads;
    unsigned synth_active, provers_active;

    uint64_t jobs_submitted, jobs_completed, jobs_failed, jobs_cancelled, parts_proved, parts_failed;
    hist h[H_COUNT];

    /* The a, b, c cache (under mu). use_pinned (atomic) turns 0 when host_alloc fails. */
    abc_set *abc_idle;
    unsigned abc_n_idle, abc_max_idle;
    int abc_host; /* the engine evaluates a, b, c (the backend does not: !evaluates_abc) */
    int wit_copy; /* !abc_host and page-locked sets on offer: the witness is copied into one after synthesis */
    int abc_use_pinned, abc_fallback;
    uint64_t abc_allocated, abc_pinned, abc_reused, abc_freed, abc_alloc_us;
    uint64_t critical_reserve; /* bytes of the budget only CRITICAL partitions may take (0 without a budget) */

    pthread_mutex_t tl_mu; /* keeps timeline lines whole and in order */
};

/* ---- time, timeline, metrics ---- */

engine_mem *engine_memory(engine *e)
{
    return &e->mem;
}

double engine_now_ms(const engine *e)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - e->t0.tv_sec) * 1e3 + (double)(ts.tv_nsec - e->t0.tv_nsec) * 1e-6;
}

static const char *const EVENT_NAME[ENGINE_EV_COUNT] = {
    "QUEUE",        "SYNTH_START", "SYNTH_END", "HANDOFF", "GPU_PICKUP",  "GPU_START",   "GPU_END",
    "FINISH_START", "FINISH_END",  "JOB_END",   "FAIL",    "ABC_RELEASE", "ABC_FALLBACK"};

const char *engine_event_name(engine_event_type type)
{
    return (unsigned)type < ENGINE_EV_COUNT ? EVENT_NAME[type] : "?";
}

static int event_has_device(engine_event_type t)
{
    return t == ENGINE_EV_GPU_PICKUP || t == ENGINE_EV_GPU_START || t == ENGINE_EV_GPU_END;
}

static const char *outcome_word(cuzk_status st)
{
    return st == CUZK_OK ? "ok" : st == CUZK_ERR_CANCELLED ? "cancelled" : "failed";
}

size_t engine_event_format(const engine_event *ev, char *buf, size_t size)
{
    char line[ENGINE_EVENT_LINE_MAX];
    int n = snprintf(line, sizeof line, "TIMELINE t_ms=%.3f ev=%s job=%llu part=%d worker=%d", ev->t_ms,
                     engine_event_name(ev->type), (unsigned long long)ev->job_id, ev->partition, ev->worker);
    if (n < 0) n = 0;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, room = sizeof line - len;
    switch (ev->type) {
    case ENGINE_EV_QUEUE: n = snprintf(line + len, room, " parts=%u prio=%d", ev->parts, ev->priority); break;
    case ENGINE_EV_SYNTH_START: n = snprintf(line + len, room, " mem=%llu", (unsigned long long)ev->bytes); break;
    case ENGINE_EV_SYNTH_END: n = snprintf(line + len, room, " synth_ms=%.3f", ev->ms); break;
    case ENGINE_EV_HANDOFF: n = snprintf(line + len, room, " wait_ms=%.3f", ev->ms); break;
    case ENGINE_EV_GPU_PICKUP:
    case ENGINE_EV_GPU_START: n = snprintf(line + len, room, " gpu=%d", ev->device); break;
    case ENGINE_EV_GPU_END: n = snprintf(line + len, room, " gpu=%d gpu_ms=%.3f", ev->device, ev->ms); break;
    case ENGINE_EV_FINISH_END: n = snprintf(line + len, room, " finish_ms=%.3f", ev->ms); break;
    case ENGINE_EV_JOB_END:
        n = snprintf(line + len, room, " status=%s verified=%d total_ms=%.3f", outcome_word(ev->status), ev->verified,
                     ev->ms);
        break;
    case ENGINE_EV_FAIL: n = snprintf(line + len, room, " status=%s", cuzk_status_name(ev->status)); break;
    case ENGINE_EV_ABC_FALLBACK:
        n = snprintf(line + len, room, " status=%s bytes=%llu", cuzk_status_name(ev->status),
                     (unsigned long long)ev->bytes);
        break;
    default: n = 0; break;
    }
    if (n > 0) len += (size_t)n < room ? (size_t)n : room - 1;
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    line[len] = '\0';
    if (size) {
        size_t c = len < size ? len : size - 1;
        memcpy(buf, line, c);
        buf[c] = '\0';
    }
    return len;
}

/* ---- reading a line back ---- */

typedef struct ev_reader {
    const char *p;
    cuzk_error *err;
} ev_reader;

/* Expects " key=" at r->p and leaves r->p at the value. */
static cuzk_status rd_key(ev_reader *r, const char *key)
{
    size_t kl = strlen(key);
    if (r->p[0] != ' ' || strncmp(r->p + 1, key, kl) != 0 || r->p[1 + kl] != '=')
        return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "timeline line: expected ' %s=' at '%.*s'", key,
                              (int)(strcspn(r->p, "\r\n") < 24 ? strcspn(r->p, "\r\n") : 24), r->p);
    r->p += kl + 2;
    return CUZK_OK;
}

/* A word up to the next space or end of line, copied into w. */
static cuzk_status rd_word(ev_reader *r, const char *key, char *w, size_t size)
{
    cuzk_status st = rd_key(r, key);
    if (st) return st;
    size_t n = strcspn(r->p, " \r\n");
    if (!n || n >= size) return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "timeline line: %s: a bad value", key);
    memcpy(w, r->p, n);
    w[n] = '\0';
    r->p += n;
    return CUZK_OK;
}

static cuzk_status rd_u64(ev_reader *r, const char *key, uint64_t *out)
{
    char w[32], *end;
    cuzk_status st = rd_word(r, key, w, sizeof w);
    if (st) return st;
    errno = 0;
    unsigned long long v = strtoull(w, &end, 10);
    if (*end || w[0] == '-' || errno)
        return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "timeline line: %s=%s is not an unsigned integer", key, w);
    *out = v;
    return CUZK_OK;
}

static cuzk_status rd_int(ev_reader *r, const char *key, int *out)
{
    char w[32], *end;
    cuzk_status st = rd_word(r, key, w, sizeof w);
    if (st) return st;
    errno = 0;
    long v = strtol(w, &end, 10);
    if (*end || errno || v < INT_MIN || v > INT_MAX)
        return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "timeline line: %s=%s is not an integer", key, w);
    *out = (int)v;
    return CUZK_OK;
}

static cuzk_status rd_ms(ev_reader *r, const char *key, double *out)
{
    char w[48], *end;
    cuzk_status st = rd_word(r, key, w, sizeof w);
    if (st) return st;
    double v = strtod(w, &end);
    if (*end || !(v >= 0 && v < 1e15)) /* also refuses NaN */
        return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "timeline line: %s=%s is not milliseconds", key, w);
    *out = v;
    return CUZK_OK;
}

static cuzk_status rd_status(ev_reader *r, cuzk_status *out)
{
    char w[32];
    cuzk_status st = rd_word(r, "status", w, sizeof w);
    if (st) return st;
    for (int c = CUZK_OK; c <= CUZK_ERR_INTERNAL; c++)
        if (!strcmp(w, cuzk_status_name((cuzk_status)c))) {
            *out = (cuzk_status)c;
            return CUZK_OK;
        }
    return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "timeline line: status=%s is no status name", w);
}

cuzk_status engine_event_parse(const char *line, engine_event *out, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    out->device = -1;
    if (strncmp(line, "TIMELINE", 8) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "timeline line: does not start with TIMELINE");
    ev_reader r = {line + 8, err};
    char name[16], w[16];
    uint64_t u = 0;
    cuzk_status st = rd_ms(&r, "t_ms", &out->t_ms);
    if (!st) st = rd_word(&r, "ev", name, sizeof name);
    if (st) return st;
    out->type = ENGINE_EV_COUNT;
    for (int t = 0; t < ENGINE_EV_COUNT; t++)
        if (!strcmp(name, EVENT_NAME[t])) out->type = (engine_event_type)t;
    if (out->type == ENGINE_EV_COUNT)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "timeline line: ev=%s is no event", name);
    if (!st) st = rd_u64(&r, "job", &out->job_id);
    if (!st) st = rd_int(&r, "part", &out->partition);
    if (!st) st = rd_int(&r, "worker", &out->worker);
    switch (out->type) {
    case ENGINE_EV_QUEUE:
        if (!st) st = rd_u64(&r, "parts", &u);
        if (!st && u > UINT_MAX)
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "timeline line: parts=%llu", (unsigned long long)u);
        out->parts = (unsigned)u;
        if (!st) st = rd_int(&r, "prio", &out->priority);
        break;
    case ENGINE_EV_SYNTH_START:
        if (!st) st = rd_u64(&r, "mem", &out->bytes);
        break;
    case ENGINE_EV_SYNTH_END:
        if (!st) st = rd_ms(&r, "synth_ms", &out->ms);
        break;
    case ENGINE_EV_HANDOFF:
        if (!st) st = rd_ms(&r, "wait_ms", &out->ms);
        break;
    case ENGINE_EV_GPU_PICKUP:
    case ENGINE_EV_GPU_START:
        if (!st) st = rd_int(&r, "gpu", &out->device);
        break;
    case ENGINE_EV_GPU_END:
        if (!st) st = rd_int(&r, "gpu", &out->device);
        if (!st) st = rd_ms(&r, "gpu_ms", &out->ms);
        break;
    case ENGINE_EV_FINISH_END:
        if (!st) st = rd_ms(&r, "finish_ms", &out->ms);
        break;
    case ENGINE_EV_JOB_END:
        if (!st) st = rd_word(&r, "status", w, sizeof w);
        if (!st) {
            if (!strcmp(w, "ok"))
                out->status = CUZK_OK;
            else if (!strcmp(w, "cancelled"))
                out->status = CUZK_ERR_CANCELLED;
            else if (!strcmp(w, "failed"))
                out->status = CUZK_ERR_INTERNAL;
            else
                st = cuzk_error_set(err, CUZK_ERR_FORMAT, "timeline line: JOB_END status=%s", w);
        }
        if (!st) st = rd_int(&r, "verified", &out->verified);
        if (!st && out->verified != 0 && out->verified != 1)
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "timeline line: verified=%d", out->verified);
        if (!st) st = rd_ms(&r, "total_ms", &out->ms);
        break;
    case ENGINE_EV_FAIL:
        if (!st) st = rd_status(&r, &out->status);
        break;
    case ENGINE_EV_ABC_FALLBACK:
        if (!st) st = rd_status(&r, &out->status);
        if (!st) st = rd_u64(&r, "bytes", &out->bytes);
        break;
    default: break;
    }
    if (st) return cuzk_error_prefix(err, "%s: ", name);
    r.p += strspn(r.p, "\r\n");
    if (*r.p)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "timeline line: %s: unexpected '%.24s' at the end", name, r.p);
    return CUZK_OK;
}

/* An event; its own fields as designated initializers (emit sets device -1 but for GPU_* events). */
#define EV(t, job, part, w, ...)                                                                                       \
    ((engine_event){.type = (t), .job_id = (job), .partition = (part), .worker = (w), __VA_ARGS__})

/* Reports one event to the callback and/or as a line; its time is taken under the lock that keeps them in order. */
static void emit(engine *e, engine_event ev)
{
    if (!e->cfg.timeline && !e->cfg.timeline_cb && !e->cfg.event_cb) return;
    if (!event_has_device(ev.type)) ev.device = -1;
    pthread_mutex_lock(&e->tl_mu);
    ev.t_ms = engine_now_ms(e);
    if (e->cfg.event_cb) e->cfg.event_cb(e->cfg.event_ctx, &ev);
    if (e->cfg.timeline || e->cfg.timeline_cb) {
        char line[ENGINE_EVENT_LINE_MAX];
        engine_event_format(&ev, line, sizeof line);
        if (e->cfg.timeline) {
            fputs(line, e->cfg.timeline);
            fflush(e->cfg.timeline);
        }
        if (e->cfg.timeline_cb) e->cfg.timeline_cb(e->cfg.timeline_ctx, line);
    }
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

/* ---- jobs (all with e->mu held) ---- */

static job *job_find(engine *e, uint64_t id)
{
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id) return j;
    return NULL;
}

/* The job whose next partition synthesis should start: highest priority, then oldest, of priority min_prio or
 * more; NULL if none. */
static job *job_pick(engine *e, int min_prio)
{
    job *best = NULL;
    for (job *j = e->jobs; j; j = j->next) {
        if (j->state != JOB_ACTIVE || j->stopped || j->next_part >= j->n || j->prio < min_prio) continue;
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
    if (j->state == JOB_OK)
        e->jobs_completed++;
    else if (j->state == JOB_CANCELLED)
        e->jobs_cancelled++;
    else
        e->jobs_failed++;
    hist_add(&e->h[H_JOB], j->t_end - j->t_submit);
    emit(e, EV(ENGINE_EV_JOB_END, j->id, -1, -1, .status = j->state == JOB_OK ? CUZK_OK : j->status,
               .verified = j->state == JOB_OK && !e->cfg.no_verify, .ms = j->t_end - j->t_submit));
    pthread_cond_broadcast(&e->cv_done);
}

/* ---- the a, b, c cache ---- */

/* Frees a set and returns its accounting. Called without mu: freeing page-locked memory takes a while. */
static void abc_free(engine *e, abc_set *s)
{
    if (!s) return;
    if (s->kind == ENGINE_MEM_PINNED)
        e->be->host_free(e->be, s->mem, (size_t)s->bytes);
    else
        free(s->mem);
    engine_mem_release(&e->mem, s->kind, s->bytes);
    __atomic_add_fetch(&e->abc_freed, 1, __ATOMIC_RELAXED);
    free(s);
}

/* Elements of the set a partition of c needs (0: none). */
static size_t set_elems(const engine *e, const engine_circuit *c)
{
    if (e->abc_host) return 3 * c->m;
    return e->wit_copy ? c->shape->num_inputs + c->shape->num_aux : 0;
}

/* With mu held: takes an idle set of `elems` elements out of the cache (NULL if none). */
static abc_set *abc_take(engine *e, size_t elems)
{
    for (abc_set **pp = &e->abc_idle; *pp; pp = &(*pp)->next)
        if ((*pp)->elems == elems) {
            abc_set *s = *pp;
            *pp = s->next;
            s->next = NULL;
            e->abc_n_idle--;
            e->abc_reused++;
            return s;
        }
    return NULL;
}

/* With mu held: an idle set to free to make room, taken out of the cache; a set of a size other than elems
 * first. NULL if none. */
static abc_set *abc_victim(engine *e, size_t elems)
{
    abc_set **pick = NULL;
    for (abc_set **pp = &e->abc_idle; *pp; pp = &(*pp)->next)
        if (!pick || (*pp)->elems != elems) pick = pp;
    if (!pick) return NULL;
    abc_set *s = *pick;
    *pick = s->next;
    e->abc_n_idle--;
    return s;
}

/* With mu held: a set its partition no longer needs goes back to the cache, or is freed when the cache is full
 * (or the engine stops). With may_free 0 the caller frees the returned set after unlocking; else it is freed
 * here. */
static abc_set *abc_put(engine *e, abc_set *s, int may_free)
{
    if (!s) return NULL;
    if (s->kind != ENGINE_MEM_PINNED && e->cfg.abc_cache == 0) {
        /* By default only page-locked sets are kept (see engine_config.abc_cache). */
    } else if (!e->stop && e->abc_n_idle == e->abc_max_idle && e->abc_max_idle) {
        /* Full: the set just used is likelier to be wanted again than an idle one of another size. */
        abc_set *old = abc_victim(e, s->elems);
        if (old && old->elems == s->elems) {
            old->next = e->abc_idle;
            e->abc_idle = old;
            e->abc_n_idle++;
        } else if (old) {
            s->next = e->abc_idle;
            e->abc_idle = s;
            e->abc_n_idle++;
            s = old;
        }
    } else if (!e->stop && e->abc_n_idle < e->abc_max_idle) {
        s->next = e->abc_idle;
        e->abc_idle = s;
        e->abc_n_idle++;
        pthread_cond_broadcast(&e->cv_synth);
        return NULL;
    }
    if (!may_free) return s;
    abc_free(e, s);
    pthread_cond_broadcast(&e->cv_synth);
    return NULL;
}

/* The budget's reclaimer: another holder (the residency) needs room, so idle sets go first. Takes mu: the
 * engine's own reservations, made with mu held, use engine_mem_try_reserve_direct. */
static uint64_t abc_reclaim(void *ctx, uint64_t bytes)
{
    engine *e = ctx;
    abc_set *list = NULL;
    uint64_t freed = 0;
    pthread_mutex_lock(&e->mu);
    while (freed < bytes && e->abc_idle) {
        abc_set *s = e->abc_idle;
        e->abc_idle = s->next;
        e->abc_n_idle--;
        s->next = list;
        list = s;
        freed += s->bytes;
    }
    pthread_mutex_unlock(&e->mu);
    while (list) {
        abc_set *next = list->next;
        abc_free(e, list);
        list = next;
    }
    return freed;
}

/* A new set of `elems` elements for p, whose reservation p->abc_bytes (host) it takes over. Without mu. */
static cuzk_status abc_alloc(engine *e, part *p, size_t elems, cuzk_error *err)
{
    abc_set *s = calloc(1, sizeof(*s));
    if (!s) return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate a buffer set record");
    s->elems = elems;
    s->bytes = p->abc_bytes;
    s->kind = ENGINE_MEM_HOST;
    double t0 = engine_now_ms(e);
    if (__atomic_load_n(&e->abc_use_pinned, __ATOMIC_RELAXED)) {
        void *mem = NULL;
        cuzk_error perr;
        perr.code = CUZK_OK;
        perr.msg[0] = '\0';
        if (e->be->host_alloc(e->be, (size_t)s->bytes, &mem, &perr) == CUZK_OK && mem) {
            s->mem = mem;
            s->kind = ENGINE_MEM_PINNED;
            engine_mem_move(&e->mem, ENGINE_MEM_HOST, ENGINE_MEM_PINNED, s->bytes);
        } else {
            int first = __atomic_exchange_n(&e->abc_use_pinned, 0, __ATOMIC_RELAXED);
            pthread_mutex_lock(&e->mu);
            e->abc_fallback = 1;
            if (first)
                emit(e, EV(ENGINE_EV_ABC_FALLBACK, p->job->id, (int)p->index, -1,
                           .status = perr.code == CUZK_OK ? CUZK_ERR_NOMEM : perr.code, .bytes = s->bytes));
            pthread_mutex_unlock(&e->mu);
            if (first && !e->cfg.timeline && !e->cfg.timeline_cb && !e->cfg.event_cb)
                fprintf(stderr, "cuzk engine: the %s backend refused page-locked a, b, c (%s); malloc from now on\n",
                        e->be->name, perr.msg);
        }
    }
    if (!s->mem) s->mem = malloc((size_t)s->bytes);
    if (!s->mem) {
        free(s);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate a buffer set of %zu elements (%s)", elems,
                              e->abc_host ? "a, b, c" : "the witness");
    }
    __atomic_add_fetch(&e->abc_allocated, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&e->abc_alloc_us, (uint64_t)((engine_now_ms(e) - t0) * 1e3), __ATOMIC_RELAXED);
    if (s->kind == ENGINE_MEM_PINNED) __atomic_add_fetch(&e->abc_pinned, 1, __ATOMIC_RELAXED);
    p->abc = s;
    p->abc_bytes = 0; /* the set holds the accounting now */
    return CUZK_OK;
}

/* With mu held: p (CRITICAL) leaves the span between synthesis start and hand-off in which prover workers keep
 * a turn for it. */
static void part_unpend(engine *e, part *p)
{
    if (!p->crit_pending) return;
    p->crit_pending = 0;
    e->crit_pending--;
    pthread_cond_broadcast(&e->cv_item); /* held prover workers look again */
}

/* With mu held: takes the partition in channel slot i out of the channel. */
static part *chan_take(engine *e, unsigned i)
{
    part *p = e->chan[i];
    e->chan[i] = e->chan[--e->chan_len];
    if (p->reserved) e->res_chan--;
    return p;
}

/* Frees what a partition still holds and returns its reservations. */
static void part_drop(engine *e, part *p)
{
    job *j = p->job;
    part_unpend(e, p);
    if (p->handle) e->be->discard(e->be, p->handle);
    abc_put(e, p->abc, 1);
    p->abc = NULL;
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
        if (why)
            j->err = *why;
        else
            cuzk_error_set(&j->err, st, "job %llu: %s", (unsigned long long)j->id, cuzk_status_name(st));
    }
    for (unsigned i = 0; i < e->chan_len;) {
        if (e->chan[i]->job == j) {
            part_drop(e, chan_take(e, i));
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
    emit(e, EV(ENGINE_EV_FAIL, j->id, (int)p->index, worker, .status = err->code));
    cuzk_error full = *err;
    cuzk_error_prefix(&full, "job %llu partition %u: ", (unsigned long long)j->id, p->index);
    job_stop(e, j, err->code, &full);
    part_drop(e, p);
}

/* Whether x goes before y: priority, then age, then index. */
static int part_before(const part *x, const part *y)
{
    return x->job->prio > y->job->prio ||
           (x->job->prio == y->job->prio &&
            (x->job->seq < y->job->seq || (x->job->seq == y->job->seq && x->index < y->index)));
}

/* For a prover worker of device index dev: the best partition in the channel; NULL if empty, or if it is not
 * CRITICAL while a CRITICAL partition is synthesizing and another worker keeps the device busy (the turn is kept
 * for the CRITICAL one; a device is never left idle for it). */
static part *chan_pop(engine *e, unsigned dev, int reserved)
{
    if (!e->chan_len) return NULL;
    unsigned b = 0;
    for (unsigned i = 1; i < e->chan_len; i++)
        if (part_before(e->chan[i], e->chan[b])) b = i;
    if (reserved && e->chan[b]->job->prio < ENGINE_PRIO_CRITICAL) return NULL;
    if (e->chan[b]->job->prio < ENGINE_PRIO_CRITICAL && e->crit_pending && e->dev_busy[dev]) return NULL;
    return chan_take(e, b);
}

/* With mu held: the best partition waiting for prove_finish (priority, then the order prove_start ended in). */
static part *fin_pop(engine *e)
{
    part **best = NULL;
    for (part **pp = &e->fin_head; *pp; pp = &(*pp)->next)
        if (!best || (*pp)->job->prio > (*best)->job->prio) best = pp;
    if (!best) return NULL;
    part *p = *best;
    *best = p->next;
    return p;
}

/* ---- synthesis ---- */

typedef struct worker_arg {
    engine *e;
    unsigned id;
    int reserved; /* the synthesis worker kept for CRITICAL work */
} worker_arg;

static cuzk_status synthesize(engine *e, part *p, cuzk_error *err)
{
    const engine_circuit *c = p->job->circuit;
    cuzk_status st = c->synthesize(c->synth_ctx, p->job->payload, p->index, &p->wit, err);
    if (st != CUZK_OK) return st;
    if (!p->wit.finalized || !p->wit.has_witness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "synthesis returned no finalized witness");
    if ((st = r1cs_check_witness(c->shape, &p->wit, err)) != CUZK_OK) return st;
    p->inputs = p->wit.inputs;
    p->aux = p->wit.aux;
    p->num_inputs = p->wit.num_inputs;
    p->num_aux = p->wit.num_aux;
    size_t elems = set_elems(e, c);
    if (!elems) return CUZK_OK;
    if (e->cfg.fault && e->cfg.fault(e->cfg.fault_ctx, ENGINE_FAULT_ALLOC_ABC, p->job->id, p->index))
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate a buffer set of %zu elements (injected)", elems);
    if (!p->abc && (st = abc_alloc(e, p, elems, err)) != CUZK_OK) return st;
    fr_t *a = p->abc->mem;
    if (e->abc_host)
        return r1cs_eval_abc(e->cfg.synth_pool, c->shape, p->wit.inputs, p->wit.aux, a, a + c->m, a + 2 * c->m, err);
    /* The witness moves into the set: its own arrays and their reservation go now. */
    pool_memcpy(e->cfg.synth_pool, a, p->wit.inputs, p->num_inputs * sizeof(fr_t));
    pool_memcpy(e->cfg.synth_pool, a + p->num_inputs, p->wit.aux, p->num_aux * sizeof(fr_t));
    p->inputs = a;
    p->aux = a + p->num_inputs;
    r1cs_free(&p->wit);
    pthread_mutex_lock(&e->mu);
    engine_mem_release(&e->mem, ENGINE_MEM_HOST, p->wit_bytes);
    p->wit_bytes = 0;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

/* With mu held: whether no partition of any job is between its synthesis start and its end (nothing the engine
 * runs will give memory back). */
static int nothing_in_flight(const engine *e)
{
    for (const job *j = e->jobs; j; j = j->next)
        if (j->inflight) return 0;
    return 1;
}

/* How long the best partition waits for room with nothing in flight before its job fails: long enough for the
 * releases that run outside mu (a buffer set being freed) to land, short against a request's deadline. */
#define STALL_FAIL_MS 2000.0

static void *synth_main(void *arg)
{
    worker_arg *wa = arg;
    engine *e = wa->e;
    int w = (int)wa->id;
    int reserved = wa->reserved;
    uint64_t stall_job = 0; /* the job whose partition has been waiting for room with nothing in flight */
    double stall_t0 = 0;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stop) break;
        job *j = job_pick(e, reserved ? ENGINE_PRIO_CRITICAL : ENGINE_PRIO_LOW);
        if (!j) {
            pthread_cond_wait(&e->cv_synth, &e->mu);
            continue;
        }
        /* Partitions synthesizing or waiting in the hand-off never outnumber its capacity, so a, b, c exist for
         * at most that many plus the ones in prove_start, and a send never waits; the reserved worker's
         * partition has a slot of its own. */
        if (reserved ? e->res_synth + e->res_chan > 0
                     : e->synth_active - e->res_synth + e->chan_len - e->res_chan >= e->chan_cap) {
            pthread_cond_wait(&e->cv_synth, &e->mu);
            continue;
        }
        const engine_circuit *c = j->circuit;
        size_t elems = set_elems(e, c);
        uint64_t abc_need = (uint64_t)elems * sizeof(fr_t);
        uint64_t need = c->witness_bytes + abc_need;
        /* Only CRITICAL partitions may use the reserve. */
        uint64_t headroom = j->prio >= ENGINE_PRIO_CRITICAL ? 0 : e->critical_reserve;
        if (!engine_mem_fits_at_all(&e->mem, ENGINE_MEM_HOST, need + headroom)) {
            cuzk_error why;
            cuzk_error_set(&why, CUZK_ERR_NOMEM,
                           "job %llu: a partition of %s needs %llu bytes, more than the whole budget of %llu%s",
                           (unsigned long long)j->id, c->name, (unsigned long long)need,
                           (unsigned long long)(e->mem.host_limit - headroom),
                           headroom ? " (less the CRITICAL reserve)" : "");
            job_stop(e, j, CUZK_ERR_NOMEM, &why);
            continue;
        }
        /* An idle set of this size is already accounted: only the witness is reserved then. */
        abc_set *set = elems ? abc_take(e, elems) : NULL;
        if (set) need = c->witness_bytes;
        /* Waiting for room keeps the order: the best partition waits rather than letting others pass it. Idle
         * sets are freed before waiting, so the cache never makes a partition wait. */
        int room = !headroom || engine_mem_host_in_use(&e->mem) + need + headroom <= e->mem.host_limit;
        if (!room || !engine_mem_try_reserve_direct(&e->mem, ENGINE_MEM_HOST, need)) {
            abc_set *victim = abc_victim(e, elems);
            if (set) {
                /* Back where it was (not counted as reused). */
                set->next = e->abc_idle;
                e->abc_idle = set;
                e->abc_n_idle++;
                e->abc_reused--;
            }
            if (victim) {
                pthread_mutex_unlock(&e->mu);
                abc_free(e, victim);
                pthread_mutex_lock(&e->mu);
            } else if (nothing_in_flight(e)) {
                /* What holds the budget (parameter sets of this and queued jobs) is not freed by anything the
                 * engine runs: the job fails rather than every job waiting for ever (a budget too small for the
                 * sets in use and one partition). */
                double now = engine_now_ms(e);
                if (stall_job != j->id) {
                    stall_job = j->id;
                    stall_t0 = now;
                }
                if (now - stall_t0 >= STALL_FAIL_MS) {
                    cuzk_error why;
                    cuzk_error_set(&why, CUZK_ERR_NOMEM,
                                   "job %llu: a partition of %s needs %llu bytes%s, but %llu of the budget's %llu "
                                   "stay held with no partition in flight (parameter sets in use): the budget "
                                   "cannot hold them and one partition",
                                   (unsigned long long)j->id, c->name, (unsigned long long)need,
                                   headroom ? " beside the CRITICAL reserve" : "",
                                   (unsigned long long)engine_mem_host_in_use(&e->mem),
                                   (unsigned long long)e->mem.host_limit);
                    stall_job = 0;
                    job_stop(e, j, CUZK_ERR_NOMEM, &why);
                    continue;
                }
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_nsec += 200 * 1000000L;
                if (until.tv_nsec >= 1000000000L) {
                    until.tv_sec++;
                    until.tv_nsec -= 1000000000L;
                }
                pthread_cond_timedwait(&e->cv_synth, &e->mu, &until);
            } else {
                stall_job = 0;
                pthread_cond_wait(&e->cv_synth, &e->mu);
            }
            continue;
        }
        stall_job = 0;
        part *p = calloc(1, sizeof(*p));
        if (!p) {
            engine_mem_release(&e->mem, ENGINE_MEM_HOST, need);
            abc_put(e, set, 1);
            cuzk_error why;
            cuzk_error_set(&why, CUZK_ERR_NOMEM, "job %llu: cannot allocate a partition record",
                           (unsigned long long)j->id);
            job_stop(e, j, CUZK_ERR_NOMEM, &why);
            continue;
        }
        p->job = j;
        p->index = j->next_part++;
        p->wit_bytes = c->witness_bytes;
        p->abc = set;
        p->abc_bytes = set ? 0 : abc_need;
        p->reserved = reserved;
        p->crit_pending = j->prio >= ENGINE_PRIO_CRITICAL;
        j->inflight++;
        e->synth_active++;
        e->res_synth += (unsigned)reserved;
        e->crit_pending += (unsigned)p->crit_pending;
        double t0 = engine_now_ms(e);
        if (j->next_part == 1) j->t_first = t0;
        /* Reservations are the only way accounted memory grows, so the largest mem= of these lines is the peak. */
        emit(e, EV(ENGINE_EV_SYNTH_START, j->id, (int)p->index, w, .bytes = engine_mem_host_in_use(&e->mem)));
        pthread_mutex_unlock(&e->mu);

        cuzk_error err;
        err.code = CUZK_OK;
        err.msg[0] = '\0';
        cuzk_status st = synthesize(e, p, &err);
        double t1 = engine_now_ms(e);

        pthread_mutex_lock(&e->mu);
        e->synth_active--;
        e->res_synth -= (unsigned)reserved;
        if (st != CUZK_OK) {
            if (err.code == CUZK_OK) err.code = st;
            cuzk_error_prefix(&err, "synthesis: ");
            part_fail(e, p, &err, w);
            continue;
        }
        j->synth_ms += t1 - t0;
        hist_add(&e->h[H_SYNTH], t1 - t0);
        emit(e, EV(ENGINE_EV_SYNTH_END, j->id, (int)p->index, w, .ms = t1 - t0));
        /* The permit (this worker) is held until the send succeeds; the reserved worker's slot is always free. */
        while (!reserved && e->chan_len - e->res_chan >= e->chan_cap && !e->stop && !j->stopped)
            pthread_cond_wait(&e->cv_space, &e->mu);
        if (e->stop || j->stopped) {
            part_drop(e, p);
            continue;
        }
        e->chan[e->chan_len++] = p;
        e->res_chan += (unsigned)reserved;
        emit(e, EV(ENGINE_EV_HANDOFF, j->id, (int)p->index, w, .ms = engine_now_ms(e) - t1));
        part_unpend(e, p);
        /* Every prover worker looks: a held one may be the only one free for a CRITICAL partition. */
        pthread_cond_broadcast(&e->cv_item);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- prover workers ---- */

/* With mu held: p's a, b, c go back to the cache (or are handed out to be freed after unlocking). */
static abc_set *abc_return(engine *e, part *p)
{
    abc_set *done = abc_put(e, p->abc, 0);
    p->abc = NULL;
    pthread_cond_broadcast(&e->cv_synth);
    return done;
}

typedef struct abc_release_arg {
    engine *e;
    part *p;
} abc_release_arg;

/* engine_partition.abc_release: the backend has let go of a, b, c before the end of prove_start (p->abc is NULL
 * once they are back). */
static void abc_release_early(void *ctx)
{
    abc_release_arg *ra = ctx;
    pthread_mutex_lock(&ra->e->mu);
    if (!ra->p->abc || !ra->e->abc_host) { /* a witness set stays until prove_finish */
        pthread_mutex_unlock(&ra->e->mu);
        return;
    }
    abc_set *done = abc_return(ra->e, ra->p);
    emit(ra->e, EV(ENGINE_EV_ABC_RELEASE, ra->p->job->id, (int)ra->p->index, -1, .ms = 0));
    pthread_mutex_unlock(&ra->e->mu);
    abc_free(ra->e, done);
}

static void *prover_main(void *arg)
{
    worker_arg *wa = arg;
    engine *e = wa->e;
    unsigned w = wa->id;
    unsigned gw = e->cfg.gpu_workers;
    /* Workers n_prover.. are the reserved ones, one per device, for CRITICAL partitions only. */
    int reserved = w >= e->n_prover;
    unsigned dev = reserved ? w - e->n_prover : w / gw;
    int device = e->cfg.devices ? e->cfg.devices[dev] : 0;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stop) break;
        part *p = chan_pop(e, dev, reserved);
        if (!p) {
            pthread_cond_wait(&e->cv_item, &e->mu);
            continue;
        }
        pthread_cond_signal(&e->cv_space);
        pthread_cond_broadcast(&e->cv_synth);
        job *j = p->job;
        emit(e, EV(ENGINE_EV_GPU_PICKUP, j->id, (int)p->index, (int)w, .device = device));
        e->provers_active++;
        e->dev_busy[dev]++;
        pthread_mutex_unlock(&e->mu);

        engine_partition ep = {
            .job_id = j->id,
            .index = p->index,
            .circuit = j->circuit,
            .inputs = p->inputs,
            .aux = p->aux,
            .num_inputs = p->num_inputs,
            .num_aux = p->num_aux,
            .num_constraints = j->circuit->shape->num_constraints,
            .a = e->abc_host ? p->abc->mem : NULL,
            .b = e->abc_host ? p->abc->mem + j->circuit->m : NULL,
            .c = e->abc_host ? p->abc->mem + 2 * j->circuit->m : NULL,
            .abc_release = abc_release_early,
            .priority = j->prio,
        };
        abc_release_arg ra = {e, p};
        ep.abc_release_ctx = &ra;
        cuzk_error err;
        err.code = CUZK_OK;
        err.msg[0] = '\0';
        double t0 = engine_now_ms(e);
        emit(e, EV(ENGINE_EV_GPU_START, j->id, (int)p->index, (int)w, .device = device));
        cuzk_status st = e->be->prove_start(e->be, device, w, &ep, &p->handle, &err);
        double t1 = engine_now_ms(e);
        emit(e, EV(ENGINE_EV_GPU_END, j->id, (int)p->index, (int)w, .device = device, .ms = t1 - t0));
        if (st != CUZK_OK) p->handle = NULL;

        pthread_mutex_lock(&e->mu);
        e->provers_active--;
        e->dev_busy[dev]--;
        if (e->crit_pending) pthread_cond_broadcast(&e->cv_item);        /* a held worker may be this device's last */
        abc_set *done = p->abc && e->abc_host ? abc_return(e, p) : NULL; /* a witness set: after prove_finish */
        if (done) {
            pthread_mutex_unlock(&e->mu);
            abc_free(e, done);
            pthread_mutex_lock(&e->mu);
        }
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
        part *p = fin_pop(e);
        if (!p) {
            pthread_cond_wait(&e->cv_fin, &e->mu);
            continue;
        }
        job *j = p->job;
        emit(e, EV(ENGINE_EV_FINISH_START, j->id, (int)p->index, w, .ms = 0));
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
            st = groth16_verify(NULL, &j->circuit->pvk, &proof, p->inputs + 1, p->num_inputs - 1, &err);
            if (st != CUZK_OK) {
                if (err.code == CUZK_OK) err.code = st;
                cuzk_error_prefix(&err, "self-verification: ");
            }
        }
        double t1 = engine_now_ms(e);

        pthread_mutex_lock(&e->mu);
        emit(e, EV(ENGINE_EV_FINISH_END, j->id, (int)p->index, w, .ms = t1 - t0));
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
    e->chan_cap =
        e->cfg.synthesis_lookahead > e->cfg.partition_workers ? e->cfg.synthesis_lookahead : e->cfg.partition_workers;
    e->n_synth = e->cfg.partition_workers;
    e->n_prover = (unsigned)e->cfg.num_devices * e->cfg.gpu_workers;
    e->n_finish = e->cfg.finish_workers;
    e->abc_max_idle = e->cfg.abc_cache < 0   ? 0
                      : e->cfg.abc_cache > 0 ? (unsigned)e->cfg.abc_cache
                                             : e->chan_cap + 1 + e->n_prover;
    if (cfg->host_budget && cfg->critical_reserve >= cfg->host_budget) {
        free(e);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine: a CRITICAL reserve of %llu bytes in a budget of %llu",
                              (unsigned long long)cfg->critical_reserve, (unsigned long long)cfg->host_budget);
    }
    e->critical_reserve = cfg->host_budget ? cfg->critical_reserve : 0;
    if ((e->be->host_alloc == NULL) != (e->be->host_free == NULL)) {
        free(e);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine: a backend with only one of host_alloc and host_free");
    }
    if (!e->cfg.abc_pinned) e->cfg.abc_pinned = ENGINE_ABC_PINNED_DEFAULT;
    e->abc_use_pinned = e->cfg.abc_pinned > 0 && e->be->host_alloc != NULL;
    e->abc_host = !e->be->evaluates_abc;
    e->wit_copy = !e->abc_host && e->abc_use_pinned;
    unsigned n_synth_threads = e->n_synth + 1;                              /* and the reserved one */
    unsigned n_prover_threads = e->n_prover + (unsigned)e->cfg.num_devices; /* and a reserved one per device */
    unsigned total = n_synth_threads + n_prover_threads + e->n_finish;
    e->chan = calloc(e->chan_cap + 1, sizeof(*e->chan));
    e->dev_busy = calloc(e->cfg.num_devices, sizeof(*e->dev_busy));
    e->threads = calloc(total, sizeof(*e->threads));
    e->wargs = calloc(total, sizeof(*e->wargs));
    cuzk_status st = engine_mem_init(&e->mem, cfg->host_budget, 0, err);
    if (st != CUZK_OK || !e->chan || !e->threads || !e->wargs || !e->dev_busy) {
        if (st == CUZK_OK) engine_mem_destroy(&e->mem);
        free(e->chan);
        free(e->dev_busy);
        free(e->threads);
        free(e->wargs);
        free(e);
        return st != CUZK_OK ? st : cuzk_error_set(err, CUZK_ERR_NOMEM, "engine: cannot allocate");
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->tl_mu, NULL);
    engine_mem_set_reclaim(&e->mem, abc_reclaim, e);
    pthread_cond_init(&e->cv_synth, NULL);
    pthread_cond_init(&e->cv_item, NULL);
    pthread_cond_init(&e->cv_space, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    pthread_cond_init(&e->cv_done, NULL);
    for (unsigned i = 0; i < total; i++) {
        void *(*fn)(void *) = synth_main;
        unsigned id = i;
        if (i >= n_synth_threads + n_prover_threads) {
            fn = finish_main;
            id = i - n_synth_threads - n_prover_threads;
        } else if (i >= n_synth_threads) {
            fn = prover_main;
            id = i - n_synth_threads;
        }
        e->wargs[i].e = e;
        e->wargs[i].id = id;
        e->wargs[i].reserved = i == e->n_synth;
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
    engine_mem_set_reclaim(&e->mem, NULL, NULL);
    pthread_mutex_lock(&e->mu);
    for (job *j = e->jobs; j; j = j->next) job_stop(e, j, CUZK_ERR_CANCELLED, NULL);
    pthread_mutex_unlock(&e->mu);
    engine_stop_threads(e);
    /* Workers drop what they hold before exiting; what remains sits in the queues. */
    pthread_mutex_lock(&e->mu);
    while (e->chan_len) part_drop(e, chan_take(e, e->chan_len - 1));
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
    abc_set *idle = e->abc_idle;
    e->abc_idle = NULL;
    e->abc_n_idle = 0;
    pthread_mutex_unlock(&e->mu);
    while (idle) {
        abc_set *next = idle->next;
        abc_free(e, idle);
        idle = next;
    }
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->tl_mu);
    pthread_cond_destroy(&e->cv_synth);
    pthread_cond_destroy(&e->cv_item);
    pthread_cond_destroy(&e->cv_space);
    pthread_cond_destroy(&e->cv_fin);
    pthread_cond_destroy(&e->cv_done);
    engine_mem_destroy(&e->mem);
    free(e->chan);
    free(e->dev_busy);
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
    emit(e, EV(ENGINE_EV_QUEUE, j->id, -1, -1, .parts = j->n, .priority = j->prio));
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
        out->status =
            cuzk_error_set(&out->error, CUZK_ERR_INVALID_ARG, "wait: no job %llu", (unsigned long long)job_id);
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
    out->abc_allocated = __atomic_load_n(&e->abc_allocated, __ATOMIC_RELAXED);
    out->abc_alloc_us = __atomic_load_n(&e->abc_alloc_us, __ATOMIC_RELAXED);
    out->abc_pinned = __atomic_load_n(&e->abc_pinned, __ATOMIC_RELAXED);
    out->abc_freed = __atomic_load_n(&e->abc_freed, __ATOMIC_RELAXED);
    out->abc_reused = e->abc_reused;
    out->abc_idle = e->abc_n_idle;
    out->abc_fallback = e->abc_fallback;
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
    fprintf(f,
            "# HELP cuzk_engine_jobs_active Jobs not yet over.\n# TYPE cuzk_engine_jobs_active gauge\n"
            "cuzk_engine_jobs_active %u\n",
            s.jobs_active);
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
    fprintf(f, "cuzk_engine_memory_bytes{kind=\"pinned\"} %llu\n", (unsigned long long)s.mem.in_use[ENGINE_MEM_PINNED]);
    fprintf(f, "# HELP cuzk_engine_abc_sets_total a, b, c buffer sets by event (reused: taken from the cache).\n"
               "# TYPE cuzk_engine_abc_sets_total counter\n");
    fprintf(f, "cuzk_engine_abc_sets_total{event=\"allocated\"} %llu\n", (unsigned long long)s.abc_allocated);
    fprintf(f, "cuzk_engine_abc_sets_total{event=\"pinned\"} %llu\n", (unsigned long long)s.abc_pinned);
    fprintf(f, "cuzk_engine_abc_sets_total{event=\"reused\"} %llu\n", (unsigned long long)s.abc_reused);
    fprintf(f, "cuzk_engine_abc_sets_total{event=\"freed\"} %llu\n", (unsigned long long)s.abc_freed);
    fprintf(f,
            "# HELP cuzk_engine_abc_sets_idle a, b, c buffer sets kept for the next partition.\n"
            "# TYPE cuzk_engine_abc_sets_idle gauge\ncuzk_engine_abc_sets_idle %u\n",
            s.abc_idle);
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
