#include "engine/residency.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct engine_params {
    groth16_params params;
    uint64_t id;
    unsigned refs; /* acquire references (under the residency's lock) */
    struct entry *entry;
};

typedef struct entry {
    char name[64];
    engine_params_load_fn load;
    void *ctx;
    engine_params *set; /* NULL: cold */
    int pinning;        /* its registration is running (without the lock; its room is taken) */
    int pinned;
    uint64_t bytes, last_use; /* last_use: the use counter, for LRU (clock ticks may tie) */
    double idle_since;        /* clock seconds when the set last became unreferenced */
    struct entry *next;
} entry;

/* Ids of every load in the process: a set loaded again is never taken for its earlier load. */
static uint64_t params_next_id;

const groth16_params *engine_params_get(const engine_params *p)
{
    return &p->params;
}
uint64_t engine_params_id(const engine_params *p)
{
    return p->id;
}
const char *engine_params_name(const engine_params *p)
{
    return p->entry->name;
}

struct engine_residency {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a load ended */
    int loading;       /* a load is running: loads run one at a time */
    engine_mem *mem;
    engine_residency_options opt;
    entry *head;
    uint64_t uses;
    uint64_t pinned_bytes;
    int devices[ENGINE_RESIDENCY_MAX_DEVICES]; /* opt.devices, copied */
    engine_residency_stats st;                 /* the counters; the gauges are computed by get_stats */
};

uint64_t engine_params_bytes(const groth16_params *p)
{
    return (uint64_t)(p->vk.ic_len + p->h_len + p->l_len + p->a_len + p->b_g1_len) * sizeof(g1_affine_t) +
           (uint64_t)p->b_g2_len * sizeof(g2_affine_t);
}

cuzk_status engine_residency_create(engine_residency **out, engine_mem *mem, cuzk_error *err)
{
    engine_residency *r = calloc(1, sizeof(*r));
    if (!r) return cuzk_error_set(err, CUZK_ERR_NOMEM, "residency: cannot allocate");
    if (pthread_mutex_init(&r->mu, NULL) != 0) {
        free(r);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "residency: cannot create a mutex");
    }
    if (pthread_cond_init(&r->cv, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        free(r);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "residency: cannot create a condition variable");
    }
    r->mem = mem;
    *out = r;
    return CUZK_OK;
}

cuzk_status engine_residency_configure(engine_residency *r, const engine_residency_options *o, cuzk_error *err)
{
    if (o->backend && !o->backend->params_pin != !o->backend->params_unpin)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: the backend's params_pin needs params_unpin");
    if (!(o->idle_evict_s >= 0))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: idle_evict_s must be 0 or more");
    if (o->num_devices > ENGINE_RESIDENCY_MAX_DEVICES || (o->num_devices && !o->devices))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: %zu devices (at most %d, and a list)",
                              o->num_devices, ENGINE_RESIDENCY_MAX_DEVICES);
    pthread_mutex_lock(&r->mu);
    int loaded = r->loading;
    for (entry *e = r->head; e; e = e->next) loaded |= e->set != NULL;
    if (!loaded) {
        r->opt = *o;
        for (size_t i = 0; i < o->num_devices; i++) r->devices[i] = o->devices[i];
        r->opt.devices = r->devices;
    }
    pthread_mutex_unlock(&r->mu);
    if (loaded)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: configure before any parameter set is loaded");
    return CUZK_OK;
}

static double clock_now(const engine_residency *r)
{
    if (r->opt.clock) return r->opt.clock(r->opt.clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* With r->mu held, for the functions below. */

static int tier_on(const engine_residency *r)
{
    return r->opt.pinned_budget && r->opt.backend && r->opt.backend->params_pin;
}

static void notify(engine_residency *r, engine_residency_event ev, const entry *e, double ms, const char *error)
{
    if (r->opt.notify) r->opt.notify(r->opt.notify_ctx, ev, e->name, e->bytes, ms, error);
}

static void entry_unpin(engine_residency *r, entry *e)
{
    r->opt.backend->params_unpin(r->opt.backend, &e->set->params);
    engine_mem_move(r->mem, ENGINE_MEM_PINNED, ENGINE_MEM_HOST, e->bytes);
    r->pinned_bytes -= e->bytes;
    e->pinned = 0;
    r->st.unpins++;
}

/* Frees e's memory: the backend drops its copies first, then the registration goes, then the arrays. */
static void entry_free(engine_residency *r, entry *e)
{
    engine_backend *be = r->opt.backend;
    if (be && be->params_evict) be->params_evict(be, &e->set->params);
    notify(r, ENGINE_RESIDENCY_FREED, e, 0, NULL);
    engine_mem_kind kind = ENGINE_MEM_HOST;
    if (e->pinned) {
        be->params_unpin(be, &e->set->params);
        r->pinned_bytes -= e->bytes;
        e->pinned = 0;
        r->st.unpins++;
        kind = ENGINE_MEM_PINNED;
    }
    groth16_params_free(&e->set->params);
    free(e->set);
    e->set = NULL;
    engine_mem_release(r->mem, kind, e->bytes);
    e->bytes = 0;
}

static void entry_evict(engine_residency *r, entry *e, uint64_t *reason)
{
    entry_free(r, e);
    r->st.evictions++;
    if (reason) (*reason)++;
}

/* The least recently used loaded, unreferenced set other than except (pinned ones only if pinned). */
static entry *lru_idle(engine_residency *r, const entry *except, int pinned)
{
    entry *victim = NULL;
    for (entry *x = r->head; x; x = x->next) {
        if (x == except || !x->set || x->set->refs || (pinned && !x->pinned)) continue;
        if (!victim || x->last_use < victim->last_use) victim = x;
    }
    return victim;
}

void engine_residency_destroy(engine_residency *r)
{
    if (!r) return;
    while (r->head) {
        entry *e = r->head;
        r->head = e->next;
        if (e->set) entry_free(r, e);
        free(e);
    }
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static entry *find(engine_residency *r, const char *name)
{
    for (entry *e = r->head; e; e = e->next)
        if (strcmp(e->name, name) == 0) return e;
    return NULL;
}

cuzk_status engine_residency_add(engine_residency *r, const char *name, engine_params_load_fn load, void *ctx,
                                 cuzk_error *err)
{
    if (!name || !load || strlen(name) >= sizeof(((entry *)0)->name))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: a name of 1..63 bytes and a loader are needed");
    entry *e = calloc(1, sizeof(*e));
    if (!e) return cuzk_error_set(err, CUZK_ERR_NOMEM, "residency: cannot allocate");
    strcpy(e->name, name);
    e->load = load;
    e->ctx = ctx;
    pthread_mutex_lock(&r->mu);
    if (find(r, name)) {
        pthread_mutex_unlock(&r->mu);
        free(e);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: %s is already registered", name);
    }
    e->next = r->head;
    r->head = e;
    pthread_mutex_unlock(&r->mu);
    return CUZK_OK;
}

/* With r->mu held, which it gives up while the load runs: a caller of a loaded set never waits for another set's
 * load (reading tens of GB). Callers of a set being loaded wait for that load; loads run one at a time, so that
 * at most one set's memory is outside the accounting (a set is reserved once it is in and its size known), as
 * when loads held the lock. */
static cuzk_status ensure_loaded(engine_residency *r, entry *e, cuzk_error *err)
{
    while (!e->set && r->loading) pthread_cond_wait(&r->cv, &r->mu);
    if (e->set) return CUZK_OK;
    r->loading = 1;
    pthread_mutex_unlock(&r->mu);
    engine_params *set = calloc(1, sizeof(*set));
    groth16_params p;
    memset(&p, 0, sizeof(p));
    cuzk_status st = set ? e->load(e->ctx, &p, err) : CUZK_ERR_NOMEM;
    pthread_mutex_lock(&r->mu);
    r->loading = 0;
    pthread_cond_broadcast(&r->cv);
    if (!set) {
        r->st.load_failures++;
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "residency: loading %s: out of memory", e->name);
    }
    if (st != CUZK_OK) {
        free(set);
        r->st.load_failures++;
        return cuzk_error_prefix(err, "residency: loading %s: ", e->name);
    }
    uint64_t bytes = engine_params_bytes(&p);
    while (!engine_mem_try_reserve(r->mem, ENGINE_MEM_HOST, bytes)) {
        entry *victim = lru_idle(r, NULL, 0);
        if (!victim) {
            groth16_params_free(&p);
            free(set);
            r->st.load_failures++;
            return cuzk_error_set(err, CUZK_ERR_NOMEM,
                                  "residency: %s needs %llu bytes and nothing idle is left to evict", e->name,
                                  (unsigned long long)bytes);
        }
        entry_evict(r, victim, &r->st.pressure_evictions);
    }
    set->params = p;
    set->id = __atomic_add_fetch(&params_next_id, 1, __ATOMIC_RELAXED);
    set->entry = e;
    e->set = set;
    e->bytes = bytes;
    e->idle_since = clock_now(r);
    r->st.loads++;
    return CUZK_OK;
}

/* With r->mu held, which it gives up while the backend registers the set. Pins a hot set if the pinned tier can
 * hold it, unpinning idle pinned sets (least recently used first) for room. A set that does not get pinned works as well, only its transfers are slower. A memory-mapped set
 * (groth16_params_map: read-only, shared with the page cache) is never pinned. */
static void try_pin(engine_residency *r, entry *e)
{
    if (!tier_on(r) || e->pinned || e->pinning || e->set->params.map || e->bytes > r->opt.pinned_budget) return;
    while (r->pinned_bytes + e->bytes > r->opt.pinned_budget) {
        entry *victim = lru_idle(r, e, 1);
        if (!victim) return;
        entry_unpin(r, victim);
    }
    /* The registration (seconds for tens of GB) runs without the lock: the room is taken first, and the set is
     * referenced by the caller, so it stays loaded meanwhile. */
    r->pinned_bytes += e->bytes;
    e->pinning = 1;
    pthread_mutex_unlock(&r->mu);
    cuzk_error err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cuzk_status st = r->opt.backend->params_pin(r->opt.backend, &e->set->params, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_mutex_lock(&r->mu);
    e->pinning = 0;
    if (st != CUZK_OK) {
        r->pinned_bytes -= e->bytes;
        r->st.pin_failures++;
        notify(r, ENGINE_RESIDENCY_PIN_FAILED, e, 0, err.msg);
        return;
    }
    notify(r, ENGINE_RESIDENCY_PINNED, e,
           (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, NULL);
    engine_mem_move(r->mem, ENGINE_MEM_HOST, ENGINE_MEM_PINNED, e->bytes);
    e->pinned = 1;
    r->st.pins++;
}

static cuzk_status no_set(const char *name, cuzk_error *err)
{
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: no parameter set %s", name);
}

cuzk_status engine_residency_acquire(engine_residency *r, const char *name, engine_params **out, cuzk_error *err)
{
    *out = NULL;
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    cuzk_status st = e ? ensure_loaded(r, e, err) : no_set(name, err);
    if (st == CUZK_OK) {
        e->set->refs++;
        e->last_use = ++r->uses;
        try_pin(r, e);
        *out = e->set;
    }
    pthread_mutex_unlock(&r->mu);
    return st;
}

void engine_residency_release(engine_residency *r, engine_params *p)
{
    if (!p) return;
    pthread_mutex_lock(&r->mu);
    entry *e = p->entry;
    if (p->refs) {
        e->last_use = ++r->uses;
        if (--p->refs == 0) e->idle_since = clock_now(r);
    }
    pthread_mutex_unlock(&r->mu);
}

/* A preloaded set onto the devices (params_upload), without the lock: the reference taken keeps it from being
 * evicted meanwhile, and an upload of tens of GB must not hold up every other set's calls. Pinned first when the
 * tier has room, so the upload runs as direct DMA. A failed upload is noted, not returned: the first partition
 * on that device uploads the set as it would have without the preload. */
static void preload_upload(engine_residency *r, entry *e)
{
    engine_backend *be = r->opt.backend;
    engine_params *set = e->set;
    set->refs++;
    try_pin(r, e);
    pthread_mutex_unlock(&r->mu);
    for (size_t i = 0; i < r->opt.num_devices; i++) {
        cuzk_error uerr = {0};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        cuzk_status st = be->params_upload(be, &set->params, r->devices[i], &uerr);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        pthread_mutex_lock(&r->mu);
        if (st == CUZK_OK)
            r->st.uploads++;
        else
            r->st.upload_failures++;
        notify(r, st == CUZK_OK ? ENGINE_RESIDENCY_UPLOADED : ENGINE_RESIDENCY_UPLOAD_FAILED, e, ms,
               st == CUZK_OK ? NULL : uerr.msg);
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    set->refs--;
}

cuzk_status engine_residency_preload(engine_residency *r, const char *name, cuzk_error *err)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    cuzk_status st = e ? ensure_loaded(r, e, err) : no_set(name, err);
    if (st == CUZK_OK && r->opt.backend && r->opt.backend->params_upload && r->opt.num_devices) preload_upload(r, e);
    if (st == CUZK_OK) {
        e->last_use = ++r->uses;
        if (!e->set->refs) e->idle_since = clock_now(r);
    }
    pthread_mutex_unlock(&r->mu);
    return st;
}

int engine_residency_evict(engine_residency *r, const char *name, uint64_t *bytes)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    int ok = e && e->set && !e->set->refs;
    if (bytes) *bytes = ok ? e->bytes : 0;
    if (ok) entry_evict(r, e, NULL);
    pthread_mutex_unlock(&r->mu);
    return ok;
}

unsigned engine_residency_sweep(engine_residency *r)
{
    unsigned n = 0;
    pthread_mutex_lock(&r->mu);
    if (r->opt.idle_evict_s > 0) {
        double now = clock_now(r);
        for (entry *e = r->head; e; e = e->next) {
            if (e->set && !e->set->refs && now - e->idle_since >= r->opt.idle_evict_s) {
                entry_evict(r, e, &r->st.idle_evictions);
                n++;
            }
        }
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

/* With r->mu held. */
static engine_residency_state state_locked(engine_residency *r, const char *name)
{
    entry *e = find(r, name);
    return !e             ? ENGINE_PARAMS_UNKNOWN
           : !e->set      ? ENGINE_PARAMS_COLD
           : e->set->refs ? ENGINE_PARAMS_HOT
                          : ENGINE_PARAMS_WARM;
}

engine_residency_state engine_residency_state_of(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    engine_residency_state s = state_locked(r, name);
    pthread_mutex_unlock(&r->mu);
    return s;
}

int engine_residency_try_state_of(engine_residency *r, const char *name, engine_residency_state *out)
{
    if (pthread_mutex_trylock(&r->mu) != 0) return 0;
    *out = state_locked(r, name);
    pthread_mutex_unlock(&r->mu);
    return 1;
}

int engine_residency_pinned(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    int pinned = e && e->pinned;
    pthread_mutex_unlock(&r->mu);
    return pinned;
}

/* With r->mu held. */
static void stats_locked(engine_residency *r, engine_residency_stats *out)
{
    *out = r->st;
    out->pinned_bytes = r->pinned_bytes;
    out->pinned_budget = tier_on(r) ? r->opt.pinned_budget : 0;
    for (entry *e = r->head; e; e = e->next) {
        out->sets++;
        out->loaded += e->set != NULL;
        out->hot += e->set && e->set->refs;
        out->pinned += e->pinned != 0;
        if (e->set) out->loaded_bytes += e->bytes;
    }
}

void engine_residency_get_stats(engine_residency *r, engine_residency_stats *out)
{
    pthread_mutex_lock(&r->mu);
    stats_locked(r, out);
    pthread_mutex_unlock(&r->mu);
}

int engine_residency_try_get_stats(engine_residency *r, engine_residency_stats *out)
{
    if (pthread_mutex_trylock(&r->mu) != 0) return 0;
    stats_locked(r, out);
    pthread_mutex_unlock(&r->mu);
    return 1;
}
