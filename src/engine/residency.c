#include "engine/residency.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char name[64];
    engine_params_load_fn load;
    void *ctx;
    int loaded;
    unsigned refs;
    uint64_t bytes, last_use;
    groth16_params params;
    struct entry *next;
} entry;

struct engine_residency {
    pthread_mutex_t mu;
    engine_mem *mem;
    entry *head;
    uint64_t clock; /* use counter for LRU */
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
    pthread_mutex_init(&r->mu, NULL);
    r->mem = mem;
    *out = r;
    return CUZK_OK;
}

static void entry_unload(engine_residency *r, entry *e)
{
    groth16_params_free(&e->params);
    engine_mem_release(r->mem, ENGINE_MEM_HOST, e->bytes);
    e->bytes = 0;
    e->loaded = 0;
}

void engine_residency_destroy(engine_residency *r)
{
    if (!r) return;
    while (r->head) {
        entry *e = r->head;
        r->head = e->next;
        if (e->loaded) entry_unload(r, e);
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

/* Makes e loaded (with r->mu held). */
static cuzk_status ensure_loaded(engine_residency *r, entry *e, cuzk_error *err)
{
    if (e->loaded) return CUZK_OK;
    groth16_params p;
    memset(&p, 0, sizeof(p));
    cuzk_status st = e->load(e->ctx, &p, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "residency: loading %s: ", e->name);
    uint64_t bytes = engine_params_bytes(&p);
    while (!engine_mem_try_reserve(r->mem, ENGINE_MEM_HOST, bytes)) {
        entry *victim = NULL;
        for (entry *x = r->head; x; x = x->next)
            if (x->loaded && !x->refs && (!victim || x->last_use < victim->last_use)) victim = x;
        if (!victim) {
            groth16_params_free(&p);
            return cuzk_error_set(err, CUZK_ERR_NOMEM,
                                  "residency: %s needs %llu bytes and nothing idle is left to evict", e->name,
                                  (unsigned long long)bytes);
        }
        entry_unload(r, victim);
    }
    e->params = p;
    e->bytes = bytes;
    e->loaded = 1;
    return CUZK_OK;
}

cuzk_status engine_residency_acquire(engine_residency *r, const char *name, const groth16_params **params,
                                     cuzk_error *err)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    cuzk_status st = e ? ensure_loaded(r, e, err)
                       : cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: no parameter set %s", name);
    if (st == CUZK_OK) {
        e->refs++;
        e->last_use = ++r->clock;
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
        e->refs--;
        e->last_use = ++r->clock;
    }
    pthread_mutex_unlock(&r->mu);
}

cuzk_status engine_residency_preload(engine_residency *r, const char *name, cuzk_error *err)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    cuzk_status st = e ? ensure_loaded(r, e, err)
                       : cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "residency: no parameter set %s", name);
    if (st == CUZK_OK) e->last_use = ++r->clock;
    pthread_mutex_unlock(&r->mu);
    return st;
}

int engine_residency_evict(engine_residency *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    entry *e = find(r, name);
    int ok = e && e->loaded && !e->refs;
    if (ok) entry_unload(r, e);
    pthread_mutex_unlock(&r->mu);
    return ok;
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
