#include "engine/residency.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct entry {
    char name[64];
    engine_params_load_fn load;
    void *ctx;
    int loaded, pinned;
    unsigned refs;
    uint64_t bytes, last_use; /* last_use: the use counter, for LRU (clock ticks may tie) */
    double idle_since;        /* clock seconds when the set last became unreferenced */
    groth16_params params;
    struct entry *next;
} entry;

struct engine_residency {
    pthread_mutex_t mu;
    engine_mem *mem;
    engine_residency_options opt;
    entry *head;
    uint64_t uses;
    uint64_t pinned_bytes;
    engine_residency_stats st; /* the counters; the gauges are computed by get_stats */
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
    r->mem = mem;
    *out = r;
    return CUZK_OK;
}

cuzk_status engine_residency_configure(engine_residency *r, const engine_residency_options *o, cuzk_error *err)
{
    if (o->pin && !o->unpin)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: a pin hook needs its unpin hook");
    if (!(o->idle_evict_s >= 0))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: idle_evict_s must be 0 or more");
    pthread_mutex_lock(&r->mu);
    int loaded = 0;
    for (entry *e = r->head; e; e = e->next) loaded |= e->loaded;
    if (!loaded) r->opt = *o;
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

static void entry_unpin(engine_residency *r, entry *e)
{
    r->opt.unpin(r->opt.hook_ctx, &e->params);
    engine_mem_move(r->mem, ENGINE_MEM_PINNED, ENGINE_MEM_HOST, e->bytes);
    r->pinned_bytes -= e->bytes;
    e->pinned = 0;
    r->st.unpins++;
}

/* Frees e's memory: the owner drops its copies first, then the registration goes, then the arrays. */
static void entry_free(engine_residency *r, entry *e)
{
    if (r->opt.evicted) r->opt.evicted(r->opt.hook_ctx, e->name, &e->params);
    engine_mem_kind kind = ENGINE_MEM_HOST;
    if (e->pinned) {
        r->opt.unpin(r->opt.hook_ctx, &e->params);
        r->pinned_bytes -= e->bytes;
        e->pinned = 0;
        r->st.unpins++;
        kind = ENGINE_MEM_PINNED;
    }
    groth16_params_free(&e->params);
    engine_mem_release(r->mem, kind, e->bytes);
    e->bytes = 0;
    e->loaded = 0;
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
        if (x == except || !x->loaded || x->refs || (pinned && !x->pinned)) continue;
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
        if (e->loaded) entry_free(r, e);
        free(e);
    }
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

static cuzk_status ensure_loaded(engine_residency *r, entry *e, cuzk_error *err)
{
    if (e->loaded) return CUZK_OK;
    groth16_params p;
    memset(&p, 0, sizeof(p));
    cuzk_status st = e->load(e->ctx, &p, err);
    if (st != CUZK_OK) {
        r->st.load_failures++;
        return cuzk_error_prefix(err, "residency: loading %s: ", e->name);
    }
    uint64_t bytes = engine_params_bytes(&p);
    while (!engine_mem_try_reserve(r->mem, ENGINE_MEM_HOST, bytes)) {
        entry *victim = lru_idle(r, NULL, 0);
        if (!victim) {
            groth16_params_free(&p);
            r->st.load_failures++;
            return cuzk_error_set(err, CUZK_ERR_NOMEM,
                                  "residency: %s needs %llu bytes and nothing idle is left to evict", e->name,
                                  (unsigned long long)bytes);
        }
        entry_evict(r, victim, &r->st.pressure_evictions);
    }
    e->params = p;
    e->bytes = bytes;
    e->loaded = 1;
    e->idle_since = clock_now(r);
    r->st.loads++;
    return CUZK_OK;
}

/* Pins a hot set if the pinned tier can hold it, unpinning idle pinned sets (least recently used first)
 * for room. A set that does not get pinned works as well, only its transfers are slower. A memory-mapped set
 * (groth16_params_map: read-only, shared with the page cache) is never pinned. */
static void try_pin(engine_residency *r, entry *e)
{
    if (!r->opt.pin || e->pinned || e->params.map || e->bytes > r->opt.pinned_budget) return;
    while (r->pinned_bytes + e->bytes > r->opt.pinned_budget) {
        entry *victim = lru_idle(r, e, 1);
        if (!victim) return;
        entry_unpin(r, victim);
    }
    cuzk_error err;
    if (r->opt.pin(r->opt.hook_ctx, &e->params, &err) != CUZK_OK) {
        r->st.pin_failures++;
        return;
    }
    engine_mem_move(r->mem, ENGINE_MEM_HOST, ENGINE_MEM_PINNED, e->bytes);
    r->pinned_bytes += e->bytes;
    e->pinned = 1;
    r->st.pins++;
}

static cuzk_status no_set(const char *name, cuzk_error *err)
{
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: no parameter set %s", name);
}

cuzk_status engine_residency_acquire(engine_residency *r, const char *name, const groth16_params **params,
                                     cuzk_error *err)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    cuzk_status st = e ? ensure_loaded(r, e, err) : no_set(name, err);
    if (st == CUZK_OK) {
        e->refs++;
        e->last_use = ++r->uses;
        try_pin(r, e);
        *params = &e->params;
    }
    pthread_mutex_unlock(&r->mu);
    return st;
}

void engine_residency_release(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    if (e && e->refs) {
        e->last_use = ++r->uses;
        if (--e->refs == 0) e->idle_since = clock_now(r);
    }
    pthread_mutex_unlock(&r->mu);
}

cuzk_status engine_residency_preload(engine_residency *r, const char *name, cuzk_error *err)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    cuzk_status st = e ? ensure_loaded(r, e, err) : no_set(name, err);
    if (st == CUZK_OK) {
        e->last_use = ++r->uses;
        if (!e->refs) e->idle_since = clock_now(r);
    }
    pthread_mutex_unlock(&r->mu);
    return st;
}

int engine_residency_evict(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    int ok = e && e->loaded && !e->refs;
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
            if (e->loaded && !e->refs && now - e->idle_since >= r->opt.idle_evict_s) {
                entry_evict(r, e, &r->st.idle_evictions);
                n++;
            }
        }
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

engine_residency_state engine_residency_state_of(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    engine_residency_state s = !e ? ENGINE_PARAMS_UNKNOWN
                               : !e->loaded ? ENGINE_PARAMS_COLD
                               : e->refs ? ENGINE_PARAMS_HOT
                                         : ENGINE_PARAMS_WARM;
    pthread_mutex_unlock(&r->mu);
    return s;
}

int engine_residency_pinned(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    int pinned = e && e->pinned;
    pthread_mutex_unlock(&r->mu);
    return pinned;
}

void engine_residency_get_stats(engine_residency *r, engine_residency_stats *out)
{
    pthread_mutex_lock(&r->mu);
    *out = r->st;
    out->pinned_bytes = r->pinned_bytes;
    out->pinned_budget = r->opt.pin ? r->opt.pinned_budget : 0;
    for (entry *e = r->head; e; e = e->next) {
        out->sets++;
        out->loaded += e->loaded != 0;
        out->hot += e->loaded && e->refs;
        out->pinned += e->pinned != 0;
        if (e->loaded) out->loaded_bytes += e->bytes;
    }
    pthread_mutex_unlock(&r->mu);
}
