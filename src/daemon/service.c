#include "daemon/service.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/porep/c1.h"
#include "circuits/porep/geometry.h"
#include "circuits/spec.h"
#include "circuits/synthetic.h"
#include "cuzk/v1/proving.pb-c.h"
#include "daemon/log.h"
#include "daemon/request_digest.h"
#include "engine/engine.h"
#include "engine/porep.h"
#include "engine/residency.h"
#include "gpu/gpu.h"
#include "gpu/gpu_host.h"
#include "groth16/groth16.h"

#define MAX_ACTIVE_JOBS 4096    /* jobs not yet ended; beyond that SubmitProof answers RESOURCE_EXHAUSTED */
#define MAX_FINISHED_JOBS 1024  /* ended jobs kept for AwaitProof; the oldest are forgotten first */
#define MAX_PARTITIONS 256
#define MAX_REQUEST_ID 256

#define METHOD_PREFIX "/cuzk.v1.ProvingEngine/"

/* The proof kinds of cuzk.v1.ProofKind, in one table: label for GetStatus queues, metric label. */
enum { KIND_POREP = 1, KIND_SNAP = 2, KIND_WPOST = 3, KIND_WINNING = 4, KIND_CIRCUIT = 100 };
static const struct {
    int kind;
    const char *label, *metric, *what;
} KINDS[] = {
    {KIND_POREP, "porep-c2", "porep_c2", "PoRep C2 (POREP_SEAL_COMMIT)"},
    {KIND_SNAP, "snap-update", "snap_update", "SnapDeals update (SNAP_DEALS_UPDATE)"},
    {KIND_WPOST, "window-post", "window_post", "WindowPoSt (WINDOW_POST_PARTITION)"},
    {KIND_WINNING, "winning-post", "winning_post", "WinningPoSt (WINNING_POST)"},
    {KIND_CIRCUIT, "circuit", "circuit", "circuit (CIRCUIT_SPEC)"},
};
#define NKINDS (sizeof(KINDS) / sizeof(KINDS[0]))

static int kind_index(int kind)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (KINDS[i].kind == kind) return (int)i;
    return -1;
}

/* Circuit-id names of the Rust daemon's parameter sets that cuzk cannot prove yet (PreloadSRS / EvictSRS).
 * PoRep sets are named porep-<size>[-ni] (porep_set_name). */
static const char *const FILECOIN_SRS[] = {"wpost-32g", "winning-32g", "snap-32g", "snap-64g"};

/* ---- circuits: one entry per canonical spec or PoRep parameter set, parameters held by the residency ---- */

/* A PoRep entry's circuit for one proof type (the engine's PoRep circuit checks the C1's API version and kind
 * against it, so each registered proof type of the set's size gets its own, over the same parameters). */
typedef struct porep_variant {
    const porep_proof_type *type;
    engine_porep_circuit *pc;
    unsigned loads; /* the parameter load pc was created with */
    struct porep_variant *next;
} porep_variant;

typedef struct circuit_entry {
    char name[128];
    /* PoRep: the parameters are <srs.param_cache>/<name>.params; interactive and synthetic PoRep of a size share
     * them ("porep-32g"), non-interactive has its own ("porep-32g-ni"). */
    const porep_geometry *geometry; /* NULL: a circuit spec */
    int ni;
    porep_variant *variants;
    circuit_spec spec;
    r1cs shape;
    int shape_built;
    engine_circuit circuit;
    const groth16_params *circuit_params; /* the params circuit was initialised with, NULL if not */
    unsigned active;                      /* jobs holding a residency reference */
    uint64_t bytes;                       /* of the parameters when last loaded */
    double last_load_ms;
    unsigned loads; /* parameter loads so far; a new load (fresh setup) needs a new engine circuit */
    unsigned circuit_loads; /* the load the engine circuit was initialised with */
    struct daemon_service *svc;
    struct circuit_entry *next;
} circuit_entry;

/* ---- jobs and waiters ---- */

typedef enum job_state { JOB_PREPARING, JOB_QUEUED, JOB_DONE } job_state;

typedef struct job {
    char id[MAX_REQUEST_ID + 1];
    int kind;
    job_state state;
    int started; /* the engine began synthesis of a partition */
    int submitted, cancel_requested;
    int superseded; /* a request with the same id and other inputs replaced it: job_find no longer sees it */
    /* The request's digest (request_digest.h): the head at once; the whole, over a PoRep C1, by the job thread
     * (off the server loop) or by a submission of the same id that needs it first. */
    uint8_t digest_head[DAEMON_REQUEST_DIGEST_BYTES], digest[DAEMON_REQUEST_DIGEST_BYTES];
    int digest_ready;
    uint64_t engine_id;
    struct daemon_service *svc;
    circuit_spec spec;
    uint8_t *input;       /* PoRep: the C1 as received, until the job thread parsed it */
    size_t input_len;
    uint64_t sector_size; /* PoRep: the request's sector_size (0: not given) */
    circuit_entry *entry; /* set by the job thread */
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
    job *j;           /* NULL: a helper's reply (PreloadSRS/EvictSRS), which cannot be dropped */
    double deadline;  /* seconds on the monotonic clock; 0: none */
    int prove;        /* answer with a ProveResponse instead of an AwaitProofResponse */
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

    pool_t *prove_pool, *synth_pool, *finish_pool;
    engine_backend *backend;
    int gpu;                               /* the backend is the GPU one */
    int devices[DAEMON_MAX_DEVICES];       /* the devices the engine uses (GPU backend) */
    size_t n_devices;
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
    uint64_t completed[NKINDS], failed[NKINDS], cancelled[NKINDS];
    double duration_sum[NKINDS];
    srs_snap srs[MAX_SRS_SNAP]; /* the last listing GetStatus could take */
    size_t n_srs;
    int sweeping;      /* a residency sweep runs on a helper thread */
    engine_residency_stats res_stats; /* the last the server loop could take (residency_stats) */
    double next_sweep; /* when service_tick starts the next one */

    pthread_mutex_t reg_mu; /* circuits; held while preparing one (setup may take a while) */
    circuit_entry *circuits;

    pthread_mutex_t tl_mu; /* the engine ids whose synthesis has started (timeline events) */
    uint64_t *started_ids;
    size_t n_started, cap_started;
    uint64_t gpu_job[DAEMON_MAX_DEVICES]; /* engine job in prove_start per device slot (0: none) */
    unsigned gpu_busy[DAEMON_MAX_DEVICES]; /* prove_starts running per device slot */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t ms_of(double seconds)
{
    return seconds <= 0 ? 0 : (uint64_t)(seconds * 1000.0 + 0.5);
}

static void reply_error(service_reply *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reply_error(service_reply *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    memset(r, 0, sizeof(*r));
    r->code = code;
    vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
    va_end(ap);
}

/* Packs a message into r (RPC_OK), or RPC_INTERNAL when out of memory. */
static void reply_pack(service_reply *r, const ProtobufCMessage *m)
{
    memset(r, 0, sizeof(*r));
    size_t n = protobuf_c_message_get_packed_size(m);
    r->body = malloc(n ? n : 1);
    if (!r->body) {
        reply_error(r, RPC_INTERNAL, "out of memory packing the response");
        return;
    }
    r->len = protobuf_c_message_pack(m, r->body);
    r->code = RPC_OK;
}

/* ---- timeline: which jobs have started ---- */

static void on_timeline(void *ctx, const char *line)
{
    daemon_service *s = ctx;
    if (daemon_log_enabled(LOG_TRACE)) daemon_log(LOG_TRACE, "%.*s", (int)strcspn(line, "\n"), line);
    int gpu_start = strstr(line, " ev=GPU_START ") != NULL, gpu_end = !gpu_start && strstr(line, " ev=GPU_END ");
    if (!gpu_start && !gpu_end && !strstr(line, " ev=SYNTH_START ")) return;
    const char *j = strstr(line, " job=");
    if (!j) return;
    uint64_t id = strtoull(j + 5, NULL, 10);
    if (gpu_start || gpu_end) {
        /* GetStatus's current job of each GPU: the last job to start there while some prove_start runs. */
        const char *g = strstr(line, " gpu=");
        int dev = g ? atoi(g + 5) : -1;
        pthread_mutex_lock(&s->tl_mu);
        for (size_t i = 0; i < s->n_devices; i++) {
            if (s->devices[i] != dev) continue;
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

static int started_take(daemon_service *s, uint64_t id, int remove)
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

/* ---- circuits ---- */

static cuzk_status circuit_synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const circuit_entry *c = ctx;
    /* Every partition proves the same statement: the synthetic witness is fixed by (k, seed). */
    return synthetic_build(NULL, c->spec.k, c->spec.seed, R1CS_WITNESS, wit, err);
}

static cuzk_status circuit_load(void *ctx, groth16_params *out, cuzk_error *err)
{
    circuit_entry *c = ctx;
    double t0 = now_s();
    cuzk_status st = groth16_setup(c->svc->prove_pool, &c->shape, out, err);
    if (st == CUZK_OK) c->loads++;
    c->last_load_ms = (now_s() - t0) * 1e3;
    if (st == CUZK_OK) {
        c->bytes = engine_params_bytes(out);
        LOGI("parameters of %s set up in memory: %.1f MiB in %.0f ms", c->name, (double)c->bytes / 1048576.0,
             c->last_load_ms);
    }
    return st;
}

/* A PoRep set's parameters from <srs.param_cache>/<name>.params (bellperson layout, e.g. written by
 * `cuzk setup --circuit porep:2KiB`). Trusted local files: the subgroup checks of the bases are skipped (they
 * dominate the load time of 32 GiB parameters); the verifying key is checked in full. */
static cuzk_status porep_load(void *ctx, groth16_params *out, cuzk_error *err)
{
    circuit_entry *c = ctx;
    char path[sizeof(c->svc->cfg.param_cache) + 160], cache[sizeof(path) + 16];
    snprintf(path, sizeof(path), "%s/%s.params", c->svc->cfg.param_cache, c->name);
    snprintf(cache, sizeof(cache), "%s.cuzk-map", path);
    double t0 = now_s();
    int remade = 0, mapped = c->svc->cfg.srs_mapped;
    cuzk_status st = mapped ? groth16_params_load_mapped(c->svc->prove_pool, out, path, cache,
                                                         GROTH16_LOAD_SKIP_SUBGROUP_CHECK, &remade, err)
                            : groth16_params_read(c->svc->prove_pool, out, path, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "srs.param_cache: ");
    c->loads++;
    c->last_load_ms = (now_s() - t0) * 1e3;
    c->bytes = engine_params_bytes(out);
    if (mapped)
        LOGI("parameters of %s mapped from %s%s: %.1f MiB in %.0f ms", c->name, cache,
             remade ? " (made from the .params first)" : "", (double)c->bytes / 1048576.0, c->last_load_ms);
    else
        LOGI("parameters of %s read from %s: %.1f MiB in %.0f ms", c->name, path, (double)c->bytes / 1048576.0,
             c->last_load_ms);
    return CUZK_OK;
}

/* The residency frees a set (EvictSRS, a load that needs room, the idle sweep, shutdown): its bases on the
 * devices go with it. Device copies are keyed by the params' address, which a later load of the same set
 * reuses, so a copy left behind would be taken for the new parameters. No set is in use then, so no
 * partition is on a device with it. Runs under the residency's lock. */
static void on_params_evicted(void *ctx, const char *name, const groth16_params *p)
{
    daemon_service *s = ctx;
    engine_backend_gpu_drop_params(s->backend, p);
    LOGD("parameters of %s freed", name);
}

/* The residency's pinned tier on the GPU backend: a set in use is page-locked so that its uploads to the
 * devices run as direct DMA. A failure leaves the set pageable (slower uploads, same proofs). Runs under the
 * residency's lock, like a load: page-locking costs about as much as touching every page once. */
static cuzk_status on_params_pin(void *ctx, const groth16_params *p, cuzk_error *err)
{
    daemon_service *s = ctx;
    double t0 = now_s();
    double mib = (double)engine_params_bytes(p) / 1048576.0;
    cuzk_status st = engine_backend_gpu_pin_params(s->backend, p, err);
    if (st == CUZK_OK)
        LOGI("parameters pinned: %.1f MiB in %.0f ms", mib, (now_s() - t0) * 1e3);
    else
        LOGW("pinning %.1f MiB of parameters failed (they stay pageable): %s", mib, err->msg);
    return st;
}

static void on_params_unpin(void *ctx, const groth16_params *p)
{
    daemon_service *s = ctx;
    engine_backend_gpu_unpin_params(s->backend, p);
}

/* Whether page-locking works here at all (a driver or a container may refuse it): probed once at start, so
 * that the pinned tier is off with one warning instead of a failed pin for every set. */
static int host_registration_works(cuzk_error *err)
{
    size_t n = 1 << 16;
    void *probe = malloc(n);
    if (!probe) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory"), 0;
    cuzk_status st = gpu_host_register(probe, n, err);
    if (st == CUZK_OK) gpu_host_unregister(probe, NULL);
    free(probe);
    return st == CUZK_OK;
}

/* The parameter-set name of a PoRep size: porep-2k, porep-8m, porep-512m, porep-32g, porep-64g (the Rust
 * daemon's ids for the published sizes), with -ni for non-interactive PoRep. */
static void porep_set_name(const porep_geometry *g, int ni, char *out, size_t n)
{
    uint64_t b = g->sector_size;
    if (b % (1ull << 30) == 0)
        snprintf(out, n, "porep-%" PRIu64 "g%s", b >> 30, ni ? "-ni" : "");
    else if (b % (1ull << 20) == 0)
        snprintf(out, n, "porep-%" PRIu64 "m%s", b >> 20, ni ? "-ni" : "");
    else
        snprintf(out, n, "porep-%" PRIu64 "k%s", b >> 10, ni ? "-ni" : "");
}

/* The size of a PoRep set name, or NULL when id names none. */
static const porep_geometry *porep_set_parse(const char *id, int *ni)
{
    size_t count;
    const porep_geometry *gs = porep_geometries(&count);
    for (size_t i = 0; i < count; i++) {
        for (int k = 0; k < 2; k++) {
            char name[64];
            porep_set_name(&gs[i], k, name, sizeof(name));
            if (!strcmp(name, id)) {
                *ni = k;
                return &gs[i];
            }
        }
    }
    return NULL;
}

/* Finds or registers the entry of a PoRep parameter set. Under reg_mu. */
static cuzk_status porep_get(daemon_service *s, const porep_geometry *g, int ni, circuit_entry **out, cuzk_error *err)
{
    char name[64];
    porep_set_name(g, ni, name, sizeof(name));
    circuit_entry *c = s->circuits;
    while (c && strcmp(c->name, name)) c = c->next;
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory registering %s", name);
        snprintf(c->name, sizeof(c->name), "%s", name);
        c->geometry = g;
        c->ni = ni;
        c->svc = s;
        cuzk_status st = engine_residency_add(s->res, c->name, porep_load, c, err);
        if (st != CUZK_OK) {
            free(c);
            return st;
        }
        c->next = s->circuits;
        s->circuits = c;
    }
    *out = c;
    return CUZK_OK;
}

/* Finds or registers the entry of a canonical spec and builds its shape. Under reg_mu. */
static cuzk_status circuit_get(daemon_service *s, const circuit_spec *spec, circuit_entry **out, cuzk_error *err)
{
    char name[128];
    circuit_spec_format(spec, name, sizeof(name));
    circuit_entry *c = s->circuits;
    while (c && strcmp(c->name, name)) c = c->next;
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory registering %s", name);
        snprintf(c->name, sizeof(c->name), "%s", name);
        c->spec = *spec;
        c->svc = s;
        cuzk_status st = engine_residency_add(s->res, c->name, circuit_load, c, err);
        if (st != CUZK_OK) {
            free(c);
            return st;
        }
        c->next = s->circuits;
        s->circuits = c;
    }
    if (!c->shape_built) {
        double t0 = now_s();
        cuzk_status st = circuit_spec_build(s->prove_pool, spec, R1CS_MATRICES, &c->shape, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", name);
        c->shape_built = 1;
        LOGI("circuit %s built: %zu constraints in %.0f ms", name, c->shape.num_constraints, (now_s() - t0) * 1e3);
    }
    *out = c;
    return CUZK_OK;
}

/* Takes a residency reference and makes sure the engine circuit matches the parameters in memory (a set
 * evicted and loaded again is a new set, maybe at the same address; it can only change while no job uses it).
 * A PoRep entry gives the circuit of proof type `type` in *pc. Under reg_mu. */
static cuzk_status circuit_acquire(daemon_service *s, circuit_entry *c, const porep_proof_type *type,
                                   engine_porep_circuit **pc, cuzk_error *err)
{
    const groth16_params *params;
    cuzk_status st = engine_residency_acquire(s->res, c->name, &params, err);
    if (st != CUZK_OK) return st;
    if (c->geometry) {
        porep_variant *v = c->variants;
        while (v && v->type != type) v = v->next;
        if (!v) {
            v = calloc(1, sizeof(*v));
            if (!v) {
                engine_residency_release(s->res, c->name);
                return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory registering %s", type->name);
            }
            v->type = type;
            v->next = c->variants;
            c->variants = v;
        }
        if (!v->pc || v->loads != c->loads) {
            engine_porep_circuit_free(v->pc);
            v->pc = NULL;
            double t0 = now_s();
            st = engine_porep_circuit_create(type, params, s->prove_pool, &v->pc, err);
            if (st != CUZK_OK) {
                engine_residency_release(s->res, c->name);
                return cuzk_error_prefix(err, "%s (%s): ", c->name, type->name);
            }
            v->loads = c->loads;
            LOGI("circuit %s compiled for %s in %.0f ms", type->name, c->name, (now_s() - t0) * 1e3);
        }
        c->circuit_params = params;
        c->active++;
        *pc = v->pc;
        return CUZK_OK;
    }
    if (c->circuit_params != params || c->circuit_loads != c->loads) {
        if (c->circuit_params) engine_circuit_free(&c->circuit);
        c->circuit_params = NULL;
        st = engine_circuit_init(&c->circuit, c->name, params, &c->shape, circuit_synth, c, err);
        if (st != CUZK_OK) {
            engine_residency_release(s->res, c->name);
            return st;
        }
        c->circuit_params = params;
        c->circuit_loads = c->loads;
    }
    c->active++;
    return CUZK_OK;
}

static void circuit_release(daemon_service *s, circuit_entry *c)
{
    pthread_mutex_lock(&s->reg_mu);
    c->active--;
    engine_residency_release(s->res, c->name);
    pthread_mutex_unlock(&s->reg_mu);
}

/* ---- job table (under mu) ---- */

/* The whole digest of j, from its C1 while it still holds it (under mu). 0 when it cannot be had any more. */
static int job_digest(job *j)
{
    if (!j->digest_ready && j->input) {
        daemon_request_digest_finish(j->digest_head, j->input, j->input_len, j->digest);
        j->digest_ready = 1;
    }
    return j->digest_ready;
}

static job *job_find(daemon_service *s, const char *id)
{
    for (job *j = s->jobs; j; j = j->next)
        if (!j->superseded && !strcmp(j->id, id)) return j;
    return NULL;
}

static void job_free(job *j)
{
    free(j->input);
    free(j->proof);
    free(j);
}

static void job_unlink(daemon_service *s, job *j)
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
        job_unlink(s, oldest);
        job_free(oldest);
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

static void reply_for(service_reply *out, const job *j, int prove)
{
    Cuzk__V1__AwaitProofResponse ar;
    fill_await(&ar, j);
    if (!prove) {
        reply_pack(out, &ar.base);
        return;
    }
    Cuzk__V1__ProveResponse pr;
    cuzk__v1__prove_response__init(&pr);
    pr.result = &ar;
    reply_pack(out, &pr.base);
}

/* Marks j ended (under mu) and collects the replies of its waiters into *out (malloc'd, *n entries). */
static void job_end_locked(daemon_service *s, job *j, int status, const char *error, pending_delivery **out,
                           size_t *n)
{
    j->state = JOB_DONE;
    j->status = status;
    if (error) snprintf(j->error, sizeof(j->error), "%s", error);
    j->t_end = now_s();
    j->total_ms = ms_of(j->t_end - j->t_submit);
    int ki = kind_index(j->kind);
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
        reply_for(&(*out)[(*n)++].reply, j, w->prove);
        free(w);
    }
    jobs_trim(s);
}

static void deliver_all(daemon_service *s, pending_delivery *d, size_t n)
{
    for (size_t i = 0; i < n; i++) s->deliver(s->deliver_ctx, d[i].call, &d[i].reply);
    free(d);
}

static void thread_done(daemon_service *s)
{
    pthread_mutex_lock(&s->mu);
    s->threads--;
    pthread_cond_broadcast(&s->threads_cv);
    pthread_mutex_unlock(&s->mu);
}

/* ---- the job thread (CIRCUIT_SPEC) ---- */

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
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    int status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
    engine_result res;
    memset(&res, 0, sizeof(res));
    int have_res = 0, acquired = 0;
    double t_prep = now_s();
    porep_c1 c1;
    memset(&c1, 0, sizeof(c1));
    int have_c1 = 0;
    cuzk_status st = CUZK_OK;
    engine_request rq = {.partitions = j->partitions, .priority = j->prio};

    if (j->kind == KIND_POREP) {
        /* The digest's pass over the C1, here rather than on the server loop (only this thread frees input). */
        pthread_mutex_lock(&s->mu);
        int ready = j->digest_ready;
        pthread_mutex_unlock(&s->mu);
        uint8_t digest[DAEMON_REQUEST_DIGEST_BYTES];
        if (!ready) daemon_request_digest_finish(j->digest_head, j->input, j->input_len, digest);
        pthread_mutex_lock(&s->mu);
        if (!j->digest_ready) memcpy(j->digest, digest, sizeof(digest));
        j->digest_ready = 1;
        pthread_mutex_unlock(&s->mu);
        /* The C1 is parsed here, not in the handler: 50 MB of JSON must not hold up the server loop. */
        st = porep_c1_parse(&c1, (const char *)j->input, j->input_len, NULL, &err);
        if (st != CUZK_OK) {
            cuzk_error_prefix(&err, "invalid C1 (vanilla_proof): ");
        } else {
            have_c1 = 1;
            if (j->sector_size && j->sector_size != c1.type->sector_size)
                st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                                    "sector_size %" PRIu64 " does not match the C1's proof type %s (%" PRIu64 " bytes)",
                                    j->sector_size, c1.type->name, c1.type->sector_size);
        }
        pthread_mutex_lock(&s->mu);
        free(j->input);
        j->input = NULL;
        if (have_c1) j->partitions = c1.partitions;
        pthread_mutex_unlock(&s->mu);
    }
    if (st == CUZK_OK) {
        engine_porep_circuit *pc = NULL;
        pthread_mutex_lock(&s->reg_mu);
        if (have_c1)
            st = porep_get(s, c1.geometry, c1.type->kind == POREP_NON_INTERACTIVE, &j->entry, &err);
        else
            st = circuit_get(s, &j->spec, &j->entry, &err);
        if (st == CUZK_OK) {
            st = circuit_acquire(s, j->entry, have_c1 ? c1.type : NULL, &pc, &err);
            acquired = st == CUZK_OK;
        }
        uint64_t need = st == CUZK_ERR_NOMEM && j->entry ? j->entry->bytes : 0;
        pthread_mutex_unlock(&s->reg_mu);
        for (int w; st == CUZK_ERR_NOMEM && (w = params_wait(s, j, need)) != 0;) {
            if (w < 0) {
                st = CUZK_ERR_CANCELLED;
                break;
            }
            pthread_mutex_lock(&s->reg_mu);
            st = circuit_acquire(s, j->entry, have_c1 ? c1.type : NULL, &pc, &err);
            acquired = st == CUZK_OK;
            need = st == CUZK_ERR_NOMEM ? j->entry->bytes : 0;
            pthread_mutex_unlock(&s->reg_mu);
        }
        if (st == CUZK_OK && have_c1)
            st = engine_porep_request(pc, &c1, j->prio, &rq, &err);
        else if (st == CUZK_OK)
            rq.circuit = &j->entry->circuit;
    }
    j->srs_ms = ms_of(now_s() - t_prep);

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
                started_take(s, eid, 1);
            }
        }
    }
    if (acquired) circuit_release(s, j->entry);
    if (have_c1) porep_c1_free(&c1);

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
        j->queue_ms = ms_of(res.queue_ms / 1e3);
        j->synth_ms = ms_of(res.synth_ms / 1e3);
        j->gpu_ms = ms_of(res.gpu_ms / 1e3);
    }
    pending_delivery *d;
    size_t nd;
    char msg[sizeof(err.msg) + 64];
    snprintf(msg, sizeof(msg), "%s", status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? "" : err.msg);
    if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED && j->superseded)
        snprintf(msg, sizeof(msg), "cancelled: superseded by a newer request with the same request_id and other "
                                   "inputs");
    job_end_locked(s, j, status, msg, &d, &nd);
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
    deliver_all(s, d, nd);
    thread_done(s);
    return NULL;
}

static int spawn_detached(daemon_service *s, void *(*fn)(void *), void *arg)
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

/* ---- handlers ---- */

static int valid_request_id(const char *id)
{
    size_t n = strlen(id);
    if (n > MAX_REQUEST_ID) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)id[i] < 0x20 || (unsigned char)id[i] > 0x7e) return 0;
    return 1;
}

static engine_priority priority_of(int kind, int prio)
{
    if (prio >= 1 && prio <= 4) return (engine_priority)prio;
    if (prio == 0) {
        if (kind == KIND_WINNING) return ENGINE_PRIO_CRITICAL;
        if (kind == KIND_WPOST) return ENGINE_PRIO_HIGH;
    }
    return ENGINE_PRIO_NORMAL; /* unknown values too, as the Rust daemon */
}

/* Jobs not started ahead of a job of priority prio (under mu). */
static uint32_t queue_position(daemon_service *s, const job *self)
{
    uint32_t pos = 0;
    for (const job *j = s->jobs; j; j = j->next)
        if (j != self && j->state != JOB_DONE && j->prio >= self->prio && j->t_submit <= self->t_submit &&
            !(j->submitted && started_take(s, j->engine_id, 0)))
            pos++;
    return pos;
}

/* Creates (or finds) the job of a SubmitProofRequest. Returns the job under mu (locked on success), or
 * fills *reply with an error and returns NULL with mu unlocked. */
static job *submit_locked(daemon_service *s, const Cuzk__V1__SubmitProofRequest *rq, service_reply *reply,
                          int *is_new)
{
    *is_new = 0;
    int kind = (int)rq->proof_kind;
    int ki = kind_index(kind);
    if (ki < 0) {
        reply_error(reply, RPC_INVALID_ARGUMENT, "invalid proof_kind: %d", kind);
        return NULL;
    }
    if (!valid_request_id(rq->request_id)) {
        reply_error(reply, RPC_INVALID_ARGUMENT, "request_id must be at most %d printable ASCII characters",
                    MAX_REQUEST_ID);
        return NULL;
    }
    circuit_spec spec;
    memset(&spec, 0, sizeof(spec));
    unsigned partitions = rq->partitions ? rq->partitions : 1;
    if (kind == KIND_CIRCUIT) {
        cuzk_error err;
        if (!rq->circuit[0]) {
            reply_error(reply, RPC_INVALID_ARGUMENT, "CIRCUIT_SPEC needs the circuit field, e.g. \"synthetic:k=8\"");
            return NULL;
        }
        if (circuit_spec_parse(rq->circuit, &spec, &err) != CUZK_OK) {
            reply_error(reply, RPC_INVALID_ARGUMENT, "circuit: %s", err.msg);
            return NULL;
        }
        if (spec.kind != CIRCUIT_SYNTHETIC) {
            reply_error(reply, RPC_INVALID_ARGUMENT,
                        "circuit: CIRCUIT_SPEC proves synthetic:k=N circuits; a PoRep C2 is POREP_SEAL_COMMIT with "
                        "the C1 in vanilla_proof");
            return NULL;
        }
        if (!rq->partitions && spec.partitions) partitions = spec.partitions;
        if (partitions > MAX_PARTITIONS) {
            reply_error(reply, RPC_INVALID_ARGUMENT, "partitions: %u is more than %d", partitions, MAX_PARTITIONS);
            return NULL;
        }
    }

    /* A known request_id joins its job only for the same request; other inputs under the same id (Curio
     * retrying a sector with a new seed, a redone snap) make a new job that the id names from then on, and
     * the older one, now useless, is cancelled: its waiters get CANCELLED, saying why (docs/DAEMON.md). */
    uint8_t head[DAEMON_REQUEST_DIGEST_BYTES] = {0}, digest[DAEMON_REQUEST_DIGEST_BYTES];
    int have_digest = 0; /* the pass over a C1 (~4 ms/MB) only when a known id needs it */
    if (rq->request_id[0]) daemon_request_digest_head(rq, head);
    pthread_mutex_lock(&s->mu);
    for (job *old; !s->shutting_down && rq->request_id[0] && (old = job_find(s, rq->request_id));) {
        int waited = 0;
        for (waiter *w = s->waiters; w && !waited; w = w->next) waited = w->j == old;
        int same = !memcmp(old->digest_head, head, sizeof(head));
        if (same && !have_digest) {
            daemon_request_digest_finish(head, rq->vanilla_proof.data, rq->vanilla_proof.len, digest);
            have_digest = 1;
        }
        if (same && job_digest(old) && !memcmp(old->digest, digest, sizeof(digest))) {
            int retry = old->state == JOB_DONE && old->status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
            if (!retry || waited) {
                LOGD("SubmitProof %s: already known, same request, same job", old->id);
                return old;
            }
        } else if (old->state != JOB_DONE || waited) {
            LOGI("job %s: superseded by a request with the same id and other inputs%s", old->id,
                 old->state != JOB_DONE ? ", cancelling it" : "");
            old->superseded = 1;
            old->cancel_requested = 1;
            if (old->state != JOB_DONE && old->submitted) {
                /* Outside mu, as handle_cancel; the loop looks again afterwards. */
                uint64_t eid = old->engine_id;
                pthread_mutex_unlock(&s->mu);
                engine_cancel(s->eng, eid);
                pthread_mutex_lock(&s->mu);
            }
            continue;
        }
        job_unlink(s, old);
        job_free(old);
        s->n_finished--;
    }
    if (s->shutting_down) {
        pthread_mutex_unlock(&s->mu);
        reply_error(reply, RPC_UNAVAILABLE, "cuzk-daemon is shutting down");
        return NULL;
    }
    if (s->n_active >= MAX_ACTIVE_JOBS) {
        pthread_mutex_unlock(&s->mu);
        reply_error(reply, RPC_RESOURCE_EXHAUSTED, "%d jobs are already queued or running", MAX_ACTIVE_JOBS);
        return NULL;
    }
    job *j = calloc(1, sizeof(*j));
    if (!j) {
        pthread_mutex_unlock(&s->mu);
        reply_error(reply, RPC_RESOURCE_EXHAUSTED, "out of memory creating the job");
        return NULL;
    }
    if (rq->request_id[0])
        snprintf(j->id, sizeof(j->id), "%s", rq->request_id);
    else
        snprintf(j->id, sizeof(j->id), "cuzk-%" PRIu64 "-%" PRIu64, (uint64_t)time(NULL), ++s->next_anon);
    memcpy(j->digest_head, head, sizeof(head));
    if (!rq->request_id[0]) {
        j->digest_ready = 1; /* a made-up id: no request of the same id to compare with */
    } else if (have_digest || kind != KIND_POREP) {
        /* Without a C1 the pass is short. */
        if (!have_digest) daemon_request_digest_finish(head, rq->vanilla_proof.data, rq->vanilla_proof.len, digest);
        memcpy(j->digest, digest, sizeof(digest));
        j->digest_ready = 1;
    }
    j->kind = kind;
    j->partitions = partitions;
    j->prio = priority_of(kind, (int)rq->priority);
    j->t_submit = now_s();
    j->state = JOB_PREPARING;
    j->next = s->jobs;
    s->jobs = j;
    s->n_active++;
    *is_new = 1;

    if (kind == KIND_POREP) {
        /* A copy: the request message is freed when the handler returns; the job thread parses it. */
        j->input = malloc(rq->vanilla_proof.len ? rq->vanilla_proof.len : 1);
        if (!j->input) {
            pending_delivery *d;
            size_t nd;
            job_end_locked(s, j, CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED, "out of memory copying the C1", &d,
                           &nd);
            free(d);
            return j;
        }
        if (rq->vanilla_proof.len) memcpy(j->input, rq->vanilla_proof.data, rq->vanilla_proof.len);
        j->input_len = rq->vanilla_proof.len;
        j->sector_size = rq->sector_size;
    } else if (kind != KIND_CIRCUIT) {
        char msg[256];
        snprintf(msg, sizeof(msg),
                 "%s proofs are not implemented yet in cuzk (their circuits are still being written); "
                 "POREP_SEAL_COMMIT and CIRCUIT_SPEC are the kinds cuzk proves today",
                 KINDS[ki].what);
        pending_delivery *d;
        size_t nd;
        job_end_locked(s, j, CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED, msg, &d, &nd);
        free(d); /* a new job has no waiters */
        LOGI("job %s: %s", j->id, msg);
        return j;
    }
    j->svc = s;
    j->spec = spec;
    if (spawn_detached(s, job_main, j)) {
        pending_delivery *d;
        size_t nd;
        job_end_locked(s, j, CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED, "cannot start the job's thread", &d, &nd);
        free(d);
        return j;
    }
    if (kind == KIND_POREP)
        LOGI("job %s queued: PoRep C2, C1 of %zu bytes, priority %d", j->id, j->input_len, (int)j->prio);
    else
        LOGI("job %s queued: %s, %u partition(s), priority %d", j->id, rq->circuit, partitions, (int)j->prio);
    return j;
}

static void handle_submit(daemon_service *s, const uint8_t *req, size_t len, service_reply *reply)
{
    Cuzk__V1__SubmitProofRequest *rq = cuzk__v1__submit_proof_request__unpack(NULL, len, req);
    if (!rq) {
        reply_error(reply, RPC_INVALID_ARGUMENT, "malformed SubmitProofRequest");
        return;
    }
    int is_new;
    job *j = submit_locked(s, rq, reply, &is_new);
    if (j) {
        Cuzk__V1__SubmitProofResponse r;
        cuzk__v1__submit_proof_response__init(&r);
        r.job_id = j->id;
        r.queue_position = j->state == JOB_DONE ? 0 : queue_position(s, j);
        reply_pack(reply, &r.base);
        pthread_mutex_unlock(&s->mu);
    }
    cuzk__v1__submit_proof_request__free_unpacked(rq, NULL);
}

/* Answers now if j has ended, else registers a waiter (under mu). Returns 1 when reply is filled. */
static int await_locked(daemon_service *s, job *j, uint64_t timeout_ms, int prove, void *call, service_reply *reply)
{
    if (j->state == JOB_DONE) {
        reply_for(reply, j, prove);
        return 1;
    }
    waiter *w = calloc(1, sizeof(*w));
    if (!w) {
        reply_error(reply, RPC_RESOURCE_EXHAUSTED, "out of memory registering the waiter");
        return 1;
    }
    w->call = call;
    w->j = j;
    w->prove = prove;
    w->deadline = timeout_ms ? now_s() + (double)timeout_ms / 1e3 : 0;
    w->next = s->waiters;
    s->waiters = w;
    return 0;
}

static int handle_await(daemon_service *s, const uint8_t *req, size_t len, void *call, service_reply *reply)
{
    Cuzk__V1__AwaitProofRequest *rq = cuzk__v1__await_proof_request__unpack(NULL, len, req);
    if (!rq) {
        reply_error(reply, RPC_INVALID_ARGUMENT, "malformed AwaitProofRequest");
        return 1;
    }
    int done = 1;
    pthread_mutex_lock(&s->mu);
    job *j = job_find(s, rq->job_id);
    if (!j)
        reply_error(reply, RPC_NOT_FOUND, "job not found: %.200s", rq->job_id);
    else
        done = await_locked(s, j, rq->timeout_ms, 0, call, reply);
    pthread_mutex_unlock(&s->mu);
    cuzk__v1__await_proof_request__free_unpacked(rq, NULL);
    return done;
}

static int handle_prove(daemon_service *s, const uint8_t *req, size_t len, void *call, service_reply *reply)
{
    Cuzk__V1__ProveRequest *rq = cuzk__v1__prove_request__unpack(NULL, len, req);
    if (!rq) {
        reply_error(reply, RPC_INVALID_ARGUMENT, "malformed ProveRequest");
        return 1;
    }
    int done = 1;
    if (!rq->submit) {
        reply_error(reply, RPC_INVALID_ARGUMENT, "missing submit field");
    } else {
        int is_new;
        job *j = submit_locked(s, rq->submit, reply, &is_new);
        if (j) {
            done = await_locked(s, j, 0, 1, call, reply);
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
        reply_error(reply, RPC_INVALID_ARGUMENT, "malformed CancelProofRequest");
        return;
    }
    int was_running = 0, have_eid = 0;
    uint64_t eid = 0;
    pthread_mutex_lock(&s->mu);
    job *j = job_find(s, rq->job_id);
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
    reply_pack(reply, &r.base);
    cuzk__v1__cancel_proof_request__free_unpacked(rq, NULL);
}

/* The residency's counters. A load holds the residency's lock (and reg_mu) for as long as it takes, and the
 * server loop must not wait for that: then the previous figures are reported. */
static void residency_stats(daemon_service *s, engine_residency_stats *out)
{
    engine_residency_stats fresh;
    int have = pthread_mutex_trylock(&s->reg_mu) == 0;
    if (have) {
        engine_residency_get_stats(s->res, &fresh);
        pthread_mutex_unlock(&s->reg_mu);
    }
    pthread_mutex_lock(&s->mu);
    if (have) s->res_stats = fresh;
    *out = s->res_stats;
    pthread_mutex_unlock(&s->mu);
}

void service_snapshot_get(daemon_service *s, service_snapshot *out)
{
    memset(out, 0, sizeof(*out));
    double now = now_s();
    pthread_mutex_lock(&s->mu);
    for (size_t k = 0; k < NKINDS && k < SERVICE_SNAPSHOT_MAX_KINDS; k++) {
        out->kinds[k].label = KINDS[k].label;
        out->kinds[k].completed = s->completed[k];
        out->kinds[k].failed = s->failed[k];
        out->kinds[k].cancelled = s->cancelled[k];
        out->n_kinds = k + 1;
    }
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        size_t ki = (size_t)kind_index(j->kind);
        int running = j->submitted && started_take(s, j->engine_id, 0);
        if (ki < out->n_kinds) {
            if (running) out->kinds[ki].in_progress++;
            else out->kinds[ki].pending++;
        }
        if (out->n_jobs == SERVICE_SNAPSHOT_MAX_JOBS) {
            out->jobs_not_listed++;
            continue;
        }
        snprintf(out->jobs[out->n_jobs].id, sizeof(out->jobs[0].id), "%s", j->id);
        out->jobs[out->n_jobs].kind = KINDS[ki].label;
        out->jobs[out->n_jobs].age_s = now - j->t_submit;
        out->jobs[out->n_jobs].partitions = j->partitions;
        out->jobs[out->n_jobs].in_progress = running;
        out->n_jobs++;
    }
    pthread_mutex_unlock(&s->mu);
}

static void handle_status(daemon_service *s, service_reply *reply)
{
    engine_stats es;
    engine_get_stats(s->eng, &es);

    /* Parameter sets in memory. reg_mu is held while a set is being set up, which may take long; the server
     * loop must not wait for that, so then the previous listing is reported. */
    srs_snap fresh[MAX_SRS_SNAP];
    size_t n_fresh = 0;
    int have_fresh = 0;
    if (pthread_mutex_trylock(&s->reg_mu) == 0) {
        for (circuit_entry *c = s->circuits; c && n_fresh < MAX_SRS_SNAP; c = c->next) {
            engine_residency_state st = engine_residency_state_of(s->res, c->name);
            if (st != ENGINE_PARAMS_HOT && st != ENGINE_PARAMS_WARM) continue;
            srs_snap *e = &fresh[n_fresh++];
            snprintf(e->name, sizeof(e->name), "%s", c->name);
            e->hot = st == ENGINE_PARAMS_HOT;
            e->bytes = c->bytes;
            e->refs = c->active;
        }
        pthread_mutex_unlock(&s->reg_mu);
        have_fresh = 1;
    }

    /* The GPUs (none on the CPU backend), with the job each is proving. */
    Cuzk__V1__GPUStatus gpu_store[DAEMON_MAX_DEVICES];
    Cuzk__V1__GPUStatus *gpu_ptrs[DAEMON_MAX_DEVICES];
    char gpu_names[DAEMON_MAX_DEVICES][256], gpu_jobs[DAEMON_MAX_DEVICES][MAX_REQUEST_ID + 1];
    uint64_t gpu_eid[DAEMON_MAX_DEVICES];
    size_t n_gpus = s->gpu ? s->n_devices : 0;
    pthread_mutex_lock(&s->tl_mu);
    memcpy(gpu_eid, s->gpu_job, sizeof(gpu_eid));
    pthread_mutex_unlock(&s->tl_mu);
    for (size_t i = 0; i < n_gpus; i++) {
        Cuzk__V1__GPUStatus *g = &gpu_store[i];
        cuzk__v1__gpustatus__init(g);
        g->ordinal = (uint32_t)s->devices[i];
        gpu_device_info info;
        cuzk_error gerr;
        if (gpu_device_get_info(s->devices[i], &info, &gerr) == CUZK_OK) {
            snprintf(gpu_names[i], sizeof(gpu_names[i]), "%s", info.name);
            g->vram_total_bytes = info.total_mem;
            g->vram_free_bytes = info.free_mem;
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
    Cuzk__V1__QueueStatus q_store[NKINDS], *q_ptrs[NKINDS];
    uint64_t completed = 0, failed = 0, cancelled = 0;
    pthread_mutex_lock(&s->mu);
    if (have_fresh) {
        memcpy(s->srs, fresh, n_fresh * sizeof(fresh[0]));
        s->n_srs = n_fresh;
    }
    size_t n_srs = s->n_srs;
    memcpy(snap, s->srs, n_srs * sizeof(snap[0]));
    for (size_t k = 0; k < NKINDS; k++) {
        cuzk__v1__queue_status__init(&q_store[k]);
        q_store[k].proof_kind = (char *)KINDS[k].label;
        q_ptrs[k] = &q_store[k];
        completed += s->completed[k];
        failed += s->failed[k];
        cancelled += s->cancelled[k];
    }
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        int ki = kind_index(j->kind);
        for (size_t i = 0; i < n_gpus; i++) {
            if (j->submitted && gpu_eid[i] == j->engine_id) {
                snprintf(gpu_jobs[i], sizeof(gpu_jobs[i]), "%s", j->id);
                gpu_store[i].current_proof_kind = (char *)KINDS[ki].label;
            }
        }
        if (j->submitted && started_take(s, j->engine_id, 0))
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
    r.n_queues = NKINDS;
    r.queues = q_ptrs;
    r.total_proofs_completed = completed;
    r.total_proofs_failed = failed;
    r.total_proofs_cancelled = cancelled;
    r.uptime_seconds = (uint64_t)(now_s() - s->t_start);
    engine_residency_stats rs;
    residency_stats(s, &rs);
    /* With a pinned tier: its parameter sets against its budget. Without: every page-locked byte (parameters and
     * the engine's a, b, c sets), bounded only by the one budget. */
    r.pinned_memory_bytes = rs.pinned_budget ? rs.pinned_bytes : es.mem.in_use[ENGINE_MEM_PINNED];
    r.pinned_memory_limit_bytes = rs.pinned_budget ? rs.pinned_budget : es.mem.host_limit;
    r.memory_budget_bytes = es.mem.host_limit;
    r.memory_in_use_bytes = es.mem.host_in_use;
    r.memory_peak_bytes = es.mem.host_peak;
    reply_pack(reply, &r.base);
}

/* Per GPU: the device's total and free memory (every process and context, the provers' cached pools
 * included) and the parameter bases resident there. Nothing on the CPU backend. */
static void gpu_memory_metrics(daemon_service *s, FILE *f)
{
    if (!s->gpu) return;
    engine_gpu_memory m[DAEMON_MAX_DEVICES];
    int ok[DAEMON_MAX_DEVICES];
    for (size_t i = 0; i < s->n_devices; i++) {
        cuzk_error err;
        ok[i] = engine_backend_gpu_device_memory(s->backend, s->devices[i], &m[i], &err) == CUZK_OK;
        if (!ok[i]) LOGD("device %d memory: %s", s->devices[i], err.msg);
    }
    fprintf(f, "# HELP cuzk_gpu_memory_bytes Device memory per GPU: total and free (the device's figures, every "
               "process included), and resident (parameter bases kept there).\n"
               "# TYPE cuzk_gpu_memory_bytes gauge\n");
    for (size_t i = 0; i < s->n_devices; i++)
        if (ok[i])
            fprintf(f, "cuzk_gpu_memory_bytes{device=\"%d\",kind=\"total\"} %" PRIu64 "\n"
                       "cuzk_gpu_memory_bytes{device=\"%d\",kind=\"free\"} %" PRIu64 "\n"
                       "cuzk_gpu_memory_bytes{device=\"%d\",kind=\"resident\"} %" PRIu64 "\n",
                    m[i].device, m[i].total_bytes, m[i].device, m[i].free_bytes, m[i].device, m[i].resident_bytes);
    fprintf(f, "# HELP cuzk_gpu_resident_sets Parameter sets whose bases are kept on each GPU.\n"
               "# TYPE cuzk_gpu_resident_sets gauge\n");
    for (size_t i = 0; i < s->n_devices; i++)
        if (ok[i]) fprintf(f, "cuzk_gpu_resident_sets{device=\"%d\"} %u\n", m[i].device, m[i].resident_sets);
}

static void handle_metrics(daemon_service *s, service_reply *reply)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f) {
        reply_error(reply, RPC_INTERNAL, "out of memory writing the metrics");
        return;
    }
    engine_stats es;
    engine_get_stats(s->eng, &es);
    uint64_t completed = 0, failed = 0, c_k[NKINDS], f_k[NKINDS], cancelled = 0;
    double d_sum[NKINDS];
    uint32_t queued = 0;
    pthread_mutex_lock(&s->mu);
    for (size_t k = 0; k < NKINDS; k++) {
        c_k[k] = s->completed[k];
        f_k[k] = s->failed[k];
        d_sum[k] = s->duration_sum[k];
        completed += c_k[k];
        failed += f_k[k];
        cancelled += s->cancelled[k];
    }
    uint32_t running = 0;
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        if (j->submitted && started_take(s, j->engine_id, 0))
            running++;
        else
            queued++;
    }
    pthread_mutex_unlock(&s->mu);
    /* The Rust daemon's names first (dashboards built for it keep working), then cuzk's engine metrics. */
    fprintf(f, "# HELP cuzk_proofs_completed_total Total proofs completed\n# TYPE cuzk_proofs_completed_total counter\n"
               "cuzk_proofs_completed_total %" PRIu64 "\n", completed);
    fprintf(f, "# HELP cuzk_proofs_failed_total Total proofs failed\n# TYPE cuzk_proofs_failed_total counter\n"
               "cuzk_proofs_failed_total %" PRIu64 "\n", failed);
    fprintf(f, "# HELP cuzk_proofs_cancelled_total Total proofs cancelled\n"
               "# TYPE cuzk_proofs_cancelled_total counter\ncuzk_proofs_cancelled_total %" PRIu64 "\n", cancelled);
    fprintf(f, "# HELP cuzk_uptime_seconds Daemon uptime\n# TYPE cuzk_uptime_seconds gauge\n"
               "cuzk_uptime_seconds %" PRIu64 "\n", (uint64_t)(now_s() - s->t_start));
    fprintf(f, "# HELP cuzk_queue_depth Jobs waiting to start\n# TYPE cuzk_queue_depth gauge\n"
               "cuzk_queue_depth %" PRIu32 "\n", queued);
    fprintf(f, "# HELP cuzk_proofs_completed Per proof-kind completions\n# TYPE cuzk_proofs_completed counter\n");
    for (size_t k = 0; k < NKINDS; k++)
        fprintf(f, "cuzk_proofs_completed{proof_kind=\"%s\"} %" PRIu64 "\n", KINDS[k].metric, c_k[k]);
    fprintf(f, "# HELP cuzk_proofs_failed Per proof-kind failures\n# TYPE cuzk_proofs_failed counter\n");
    for (size_t k = 0; k < NKINDS; k++)
        fprintf(f, "cuzk_proofs_failed{proof_kind=\"%s\"} %" PRIu64 "\n", KINDS[k].metric, f_k[k]);
    fprintf(f, "# HELP cuzk_proof_duration_seconds Proof duration, submit to end\n"
               "# TYPE cuzk_proof_duration_seconds summary\n");
    for (size_t k = 0; k < NKINDS; k++) {
        fprintf(f, "cuzk_proof_duration_seconds_count{proof_kind=\"%s\"} %" PRIu64 "\n", KINDS[k].metric, c_k[k]);
        fprintf(f, "cuzk_proof_duration_seconds_sum{proof_kind=\"%s\"} %.3f\n", KINDS[k].metric, d_sum[k]);
    }
    fprintf(f, "# HELP cuzk_running_jobs Currently running proofs\n# TYPE cuzk_running_jobs gauge\n"
               "cuzk_running_jobs %" PRIu32 "\n", running);
    fprintf(f, "# HELP cuzk_gpu_workers Number of prover workers\n# TYPE cuzk_gpu_workers gauge\n"
               "cuzk_gpu_workers %u\n", (unsigned)s->n_devices * s->cfg.gpu_workers_per_device);
    fprintf(f, "# HELP cuzk_backend The prover backend in use (1 for the one in use)\n# TYPE cuzk_backend gauge\n"
               "cuzk_backend{backend=\"%s\",devices=\"%zu\"} 1\n", s->backend->name, s->gpu ? s->n_devices : 0);
    gpu_memory_metrics(s, f);
    engine_residency_stats rs;
    residency_stats(s, &rs);
    fprintf(f, "# HELP cuzk_srs_loads_total Parameter set loads (setup or file read): done, or failed (also when "
               "the set did not fit the budget).\n# TYPE cuzk_srs_loads_total counter\n"
               "cuzk_srs_loads_total{outcome=\"ok\"} %" PRIu64 "\ncuzk_srs_loads_total{outcome=\"failed\"} %" PRIu64
               "\n", rs.loads, rs.load_failures);
    fprintf(f, "# HELP cuzk_srs_evictions_total Parameter sets freed: by EvictSRS, to make room for a load, or idle "
               "for srs.idle_evict.\n# TYPE cuzk_srs_evictions_total counter\n"
               "cuzk_srs_evictions_total{reason=\"explicit\"} %" PRIu64 "\n"
               "cuzk_srs_evictions_total{reason=\"pressure\"} %" PRIu64 "\n"
               "cuzk_srs_evictions_total{reason=\"idle\"} %" PRIu64 "\n",
            rs.evictions - rs.pressure_evictions - rs.idle_evictions, rs.pressure_evictions, rs.idle_evictions);
    fprintf(f, "# HELP cuzk_srs_sets Parameter sets in memory: hot (in use), warm (idle), pinned (of either).\n"
               "# TYPE cuzk_srs_sets gauge\ncuzk_srs_sets{state=\"hot\"} %u\ncuzk_srs_sets{state=\"warm\"} %u\n"
               "cuzk_srs_sets{state=\"pinned\"} %u\n", rs.hot, rs.loaded - rs.hot, rs.pinned);
    fprintf(f, "# HELP cuzk_srs_bytes Bytes of parameter sets in memory, and of those pinned.\n"
               "# TYPE cuzk_srs_bytes gauge\ncuzk_srs_bytes{kind=\"loaded\"} %" PRIu64 "\n"
               "cuzk_srs_bytes{kind=\"pinned\"} %" PRIu64 "\n", rs.loaded_bytes, rs.pinned_bytes);
    fprintf(f, "# HELP cuzk_srs_pinned_budget_bytes Bytes of parameters that may be pinned (0: no pinned tier).\n"
               "# TYPE cuzk_srs_pinned_budget_bytes gauge\ncuzk_srs_pinned_budget_bytes %" PRIu64 "\n",
            rs.pinned_budget);
    fprintf(f, "# HELP cuzk_srs_pins_total Parameter sets pinned, and pins that failed.\n"
               "# TYPE cuzk_srs_pins_total counter\ncuzk_srs_pins_total{outcome=\"ok\"} %" PRIu64 "\n"
               "cuzk_srs_pins_total{outcome=\"failed\"} %" PRIu64 "\n", rs.pins, rs.pin_failures);
    fprintf(f, "# HELP cuzk_srs_unpins_total Parameter sets unpinned (for room, or freed).\n"
               "# TYPE cuzk_srs_unpins_total counter\ncuzk_srs_unpins_total %" PRIu64 "\n", rs.unpins);
    engine_metrics_write(s->eng, f);
    if (fclose(f) != 0 || !text) {
        free(text);
        reply_error(reply, RPC_INTERNAL, "out of memory writing the metrics");
        return;
    }
    Cuzk__V1__GetMetricsResponse r;
    cuzk__v1__get_metrics_response__init(&r);
    r.prometheus_text = text;
    reply_pack(reply, &r.base);
    free(text);
}

/* PreloadSRS and EvictSRS run on a helper thread: a load may take long and holds the residency's lock. */
typedef struct srs_op {
    daemon_service *s;
    void *call;
    int evict;
    circuit_spec spec;
    const porep_geometry *geometry; /* a PoRep set instead of the spec */
    int ni;
} srs_op;

static void *srs_main(void *arg)
{
    srs_op *op = arg;
    daemon_service *s = op->s;
    service_reply reply;
    cuzk_error err;
    char name[128];
    if (op->geometry)
        porep_set_name(op->geometry, op->ni, name, sizeof(name));
    else
        circuit_spec_format(&op->spec, name, sizeof(name));
    if (!op->evict) {
        double t0 = now_s();
        pthread_mutex_lock(&s->reg_mu);
        circuit_entry *c = NULL;
        cuzk_status st = op->geometry ? porep_get(s, op->geometry, op->ni, &c, &err)
                                      : circuit_get(s, &op->spec, &c, &err);
        int already = 0;
        if (st == CUZK_OK) {
            engine_residency_state rs = engine_residency_state_of(s->res, c->name);
            already = rs == ENGINE_PARAMS_HOT || rs == ENGINE_PARAMS_WARM;
            if (!already) st = engine_residency_preload(s->res, c->name, &err);
        }
        pthread_mutex_unlock(&s->reg_mu);
        if (st != CUZK_OK) {
            reply_error(&reply,
                        st == CUZK_ERR_NOMEM ? RPC_RESOURCE_EXHAUSTED
                        : st == CUZK_ERR_IO  ? RPC_FAILED_PRECONDITION
                                             : RPC_INTERNAL,
                        "%s: %s", name, err.msg);
        } else {
            Cuzk__V1__PreloadSrsResponse r;
            cuzk__v1__preload_srs_response__init(&r);
            r.already_loaded = already;
            r.load_time_ms = already ? 0 : ms_of(now_s() - t0);
            reply_pack(&reply, &r.base);
            LOGI("PreloadSRS %s: %s", name, already ? "already loaded" : "loaded");
        }
    } else {
        pthread_mutex_lock(&s->reg_mu);
        circuit_entry *c = s->circuits;
        while (c && strcmp(c->name, name)) c = c->next;
        int freed = c ? engine_residency_evict(s->res, c->name) : 0;
        uint64_t bytes = freed ? c->bytes : 0;
        int hot = c && !freed && engine_residency_state_of(s->res, c->name) == ENGINE_PARAMS_HOT;
        pthread_mutex_unlock(&s->reg_mu);
        if (hot) {
            reply_error(&reply, RPC_FAILED_PRECONDITION, "%s is in use by running proofs", name);
        } else {
            Cuzk__V1__EvictSrsResponse r;
            cuzk__v1__evict_srs_response__init(&r);
            r.was_loaded = freed;
            r.freed_bytes = bytes;
            reply_pack(&reply, &r.base);
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
    thread_done(s);
    return NULL;
}

static int handle_srs(daemon_service *s, int evict, const uint8_t *req, size_t len, void *call,
                      service_reply *reply)
{
    char id[160];
    if (evict) {
        Cuzk__V1__EvictSrsRequest *rq = cuzk__v1__evict_srs_request__unpack(NULL, len, req);
        if (!rq) {
            reply_error(reply, RPC_INVALID_ARGUMENT, "malformed EvictSrsRequest");
            return 1;
        }
        snprintf(id, sizeof(id), "%s", rq->circuit_id);
        cuzk__v1__evict_srs_request__free_unpacked(rq, NULL);
    } else {
        Cuzk__V1__PreloadSrsRequest *rq = cuzk__v1__preload_srs_request__unpack(NULL, len, req);
        if (!rq) {
            reply_error(reply, RPC_INVALID_ARGUMENT, "malformed PreloadSrsRequest");
            return 1;
        }
        snprintf(id, sizeof(id), "%s", rq->circuit_id);
        cuzk__v1__preload_srs_request__free_unpacked(rq, NULL);
    }
    for (size_t i = 0; i < sizeof(FILECOIN_SRS) / sizeof(FILECOIN_SRS[0]); i++) {
        if (!strcmp(id, FILECOIN_SRS[i])) {
            if (evict) {
                /* Never loaded here: nothing to free (the Rust daemon answers the same way). */
                Cuzk__V1__EvictSrsResponse r;
                cuzk__v1__evict_srs_response__init(&r);
                reply_pack(reply, &r.base);
            } else {
                reply_error(reply, RPC_UNIMPLEMENTED,
                            "%s: this Filecoin parameter set is not implemented yet in cuzk (its circuit is still "
                            "being written)", id);
            }
            return 1;
        }
    }
    srs_op *op = calloc(1, sizeof(*op));
    if (!op) {
        reply_error(reply, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return 1;
    }
    cuzk_error err;
    op->geometry = porep_set_parse(id, &op->ni);
    if (!op->geometry && (circuit_spec_parse(id, &op->spec, &err) != CUZK_OK || op->spec.kind != CIRCUIT_SYNTHETIC)) {
        free(op);
        reply_error(reply, RPC_INVALID_ARGUMENT,
                    "unknown circuit_id '%.100s' (a PoRep set such as porep-32g or porep-2k, or a circuit spec such "
                    "as synthetic:k=8)", id);
        return 1;
    }
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
        if (spawn_detached(s, srs_main, op)) {
            s->waiters = w->next;
            refused = 1;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (refused) {
        free(w);
        free(op);
        reply_error(reply, RPC_UNAVAILABLE, "cannot start the request (shutting down or out of resources)");
        return 1;
    }
    return 0;
}

int service_handle(daemon_service *s, const char *method, const uint8_t *req, size_t len, void *call,
                   service_reply *reply)
{
    memset(reply, 0, sizeof(*reply));
    size_t pl = strlen(METHOD_PREFIX);
    const char *m = strncmp(method, METHOD_PREFIX, pl) == 0 ? method + pl : NULL;
    if (!m) {
        reply_error(reply, RPC_UNIMPLEMENTED, "unknown service or method %.200s", method);
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
        ProtobufCMessage *rq = protobuf_c_message_unpack(
            !strcmp(m, "GetStatus") ? &cuzk__v1__get_status_request__descriptor : &cuzk__v1__get_metrics_request__descriptor,
            NULL, len, req);
        if (!rq) {
            reply_error(reply, RPC_INVALID_ARGUMENT, "malformed %sRequest", m);
            return 1;
        }
        protobuf_c_message_free_unpacked(rq, NULL);
        if (!strcmp(m, "GetStatus"))
            handle_status(s, reply);
        else
            handle_metrics(s, reply);
        return 1;
    }
    if (!strcmp(m, "PreloadSRS")) return handle_srs(s, 0, req, len, call, reply);
    if (!strcmp(m, "EvictSRS")) return handle_srs(s, 1, req, len, call, reply);
    reply_error(reply, RPC_UNIMPLEMENTED, "unknown method %.200s", method);
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
    thread_done(s);
    return NULL;
}

void service_tick(daemon_service *s)
{
    double now = now_s();
    pending_delivery *d = NULL;
    size_t nd = 0, cap = 0;
    pthread_mutex_lock(&s->mu);
    if (s->cfg.idle_evict_s && !s->sweeping && !s->shutting_down && now >= s->next_sweep) {
        /* A set goes at most a quarter of idle_evict late (within 1..30 s). */
        double period = (double)s->cfg.idle_evict_s / 4;
        s->next_sweep = now + (period < 1 ? 1 : period > 30 ? 30 : period);
        s->sweeping = spawn_detached(s, sweep_main, s) == 0;
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
        reply_for(&d[nd].reply, w->j, w->prove); /* the job has not ended: TIMEOUT */
        nd++;
        free(w);
    }
    pthread_mutex_unlock(&s->mu);
    deliver_all(s, d, nd);
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
    s->t_start = now_s();
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
            .timeline_cb = on_timeline,
            .timeline_ctx = s,
        };
        st = engine_create(&s->eng, &ec, err);
        if (st == CUZK_OK)
            LOGI("engine: %s backend, %zu device(s), %u prover worker(s) per device, %u synthesis worker(s), "
                 "budget %.1f GiB", s->backend->name, s->n_devices, cfg->gpu_workers_per_device,
                 cfg->max_parallel_synthesis, (double)budget / (1 << 30));
    }
    if (st == CUZK_OK) st = engine_residency_create(&s->res, engine_memory(s->eng), err);
    if (st == CUZK_OK) {
        engine_residency_options ro = {
            .idle_evict_s = (double)cfg->idle_evict_s,
            .evicted = on_params_evicted,
            .hook_ctx = s,
        };
        /* Page-locked memory only speeds up copies to a device: nothing to pin for on the CPU backend. */
        cuzk_error perr = {0};
        if (cfg->pinned_budget && !s->gpu)
            LOGW("srs.pinned_budget has no effect on the CPU backend: parameters stay pageable");
        else if (cfg->pinned_budget && !host_registration_works(&perr))
            LOGW("srs.pinned_budget: page-locking is refused here (%s): parameters stay pageable", perr.msg);
        else if (cfg->pinned_budget) {
            ro.pinned_budget = cfg->pinned_budget;
            ro.pin = on_params_pin;
            ro.unpin = on_params_unpin;
        }
        st = engine_residency_configure(s->res, &ro, err);
        if (st == CUZK_OK && cfg->idle_evict_s)
            LOGI("parameter sets idle for %" PRIu64 " s are freed", cfg->idle_evict_s);
        if (st == CUZK_OK && ro.pin)
            LOGI("parameter sets in use are pinned within %.1f GiB", (double)cfg->pinned_budget / (1 << 30));
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
        job_free(j);
    }
    /* Every job thread has returned from engine_wait, so the engine holds no job: the parameters can go
     * before the engine, and must, since the residency returns their bytes to the engine's accounting. */
    if (s->res) engine_residency_destroy(s->res);
    while (s->circuits) {
        circuit_entry *c = s->circuits;
        s->circuits = c->next;
        if (!c->geometry && c->circuit_params) engine_circuit_free(&c->circuit);
        if (c->shape_built) r1cs_free(&c->shape);
        while (c->variants) {
            porep_variant *v = c->variants;
            c->variants = v->next;
            engine_porep_circuit_free(v->pc);
            free(v);
        }
        free(c);
    }
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
