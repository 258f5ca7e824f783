/* Objects built once per (key, tag, device) (device_cache.h). */
#include "engine/device_cache.h"

#include <pthread.h>
#include <stdlib.h>

struct device_cache_entry {
    const void *key;
    uint64_t tag;
    int device;
    int built;   /* 0: its build is in progress (the builder is its first user) */
    int dropped; /* out of the list; freed at its last release */
    unsigned users;
    void *obj;
    uint64_t bytes;
    device_cache_entry *next;
};

typedef struct device_count {
    uint64_t bytes;
    unsigned count;
} device_count;

struct device_cache {
    device_cache_config cfg;
    pthread_mutex_t mu; /* the list and every entry's fields but obj, which only its builder writes */
    pthread_cond_t cv;  /* a build ended */
    device_cache_entry *list;
    device_count *counts; /* per device; written under mu, read without it (atomics) */
};

cuzk_status device_cache_create(const device_cache_config *cfg, device_cache **out, cuzk_error *err)
{
    if (!out || !cfg || !cfg->build || !cfg->free_obj || cfg->devices < 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "device cache: NULL out, no build or free, or no devices");
    *out = NULL;
    device_cache *c = calloc(1, sizeof(*c));
    if (!c) return cuzk_error_set(err, CUZK_ERR_NOMEM, "device cache: cannot allocate");
    c->counts = calloc((size_t)cfg->devices, sizeof(*c->counts));
    if (!c->counts) {
        free(c);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "device cache: cannot allocate");
    }
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c->counts);
        free(c);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "device cache: cannot create a mutex");
    }
    if (pthread_cond_init(&c->cv, NULL) != 0) {
        pthread_mutex_destroy(&c->mu);
        free(c->counts);
        free(c);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "device cache: cannot create a condition variable");
    }
    c->cfg = *cfg;
    *out = c;
    return CUZK_OK;
}

/* With mu held: e's object joins (sign 1) or leaves (sign -1) its device's counts. */
static void count_add(device_cache *c, const device_cache_entry *e, int sign)
{
    device_count *d = &c->counts[e->device];
    if (sign > 0) {
        __atomic_add_fetch(&d->bytes, e->bytes, __ATOMIC_RELAXED);
        __atomic_add_fetch(&d->count, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_sub_fetch(&d->bytes, e->bytes, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&d->count, 1, __ATOMIC_RELAXED);
    }
}

/* With mu held: unlinks e from the list. */
static void unlink_entry(device_cache *c, device_cache_entry *e)
{
    for (device_cache_entry **pp = &c->list; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            e->next = NULL;
            return;
        }
}

/* Frees a chain of built entries taken off the list (next-linked), without mu. */
static void free_chain(device_cache *c, device_cache_entry *e)
{
    while (e) {
        device_cache_entry *next = e->next;
        c->cfg.free_obj(c->cfg.ctx, e->obj);
        free(e);
        e = next;
    }
}

/* With mu held: takes the built entries without users on device (-1: every one) off the list and their counts,
 * and returns them as a chain for free_chain. */
static device_cache_entry *take_unused(device_cache *c, int device)
{
    device_cache_entry *chain = NULL;
    for (device_cache_entry **pp = &c->list; *pp;) {
        device_cache_entry *e = *pp;
        if (e->built && e->users == 0 && (device < 0 || e->device == device)) {
            *pp = e->next;
            count_add(c, e, -1);
            e->next = chain;
            chain = e;
        } else {
            pp = &e->next;
        }
    }
    return chain;
}

cuzk_status device_cache_acquire(device_cache *c, const void *key, uint64_t tag, int device, device_cache_entry **out,
                                 cuzk_error *err)
{
    if (!c || !out) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "device cache: NULL cache or out");
    *out = NULL;
    if (device < 0 || device >= c->cfg.devices)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "device cache: no device %d (%d)", device, c->cfg.devices);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        device_cache_entry *e = c->list;
        while (e && !(e->key == key && e->tag == tag && e->device == device)) e = e->next;
        if (!e) break;
        if (e->built) {
            e->users++;
            pthread_mutex_unlock(&c->mu);
            *out = e;
            return CUZK_OK;
        }
        /* Another caller is building it: its end (done or failed) is broadcast. */
        pthread_cond_wait(&c->cv, &c->mu);
    }
    device_cache_entry *e = calloc(1, sizeof(*e));
    if (!e) {
        pthread_mutex_unlock(&c->mu);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "device cache: cannot allocate an entry");
    }
    e->key = key;
    e->tag = tag;
    e->device = device;
    e->users = 1;
    e->next = c->list;
    c->list = e;
    device_cache_entry *unused = c->cfg.free_unused_before_build ? take_unused(c, device) : NULL;
    pthread_mutex_unlock(&c->mu);

    free_chain(c, unused);
    void *obj = NULL;
    uint64_t bytes = 0;
    cuzk_status st = c->cfg.build(c->cfg.ctx, key, device, &obj, &bytes, err);

    pthread_mutex_lock(&c->mu);
    if (st == CUZK_OK) {
        e->obj = obj;
        e->bytes = bytes;
        e->built = 1;
        count_add(c, e, 1);
    } else {
        unlink_entry(c, e);
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (st != CUZK_OK) {
        free(e);
        return st;
    }
    *out = e;
    return CUZK_OK;
}

void *device_cache_object(const device_cache_entry *e)
{
    return e ? e->obj : NULL;
}

void device_cache_release(device_cache *c, device_cache_entry *e)
{
    if (!c || !e) return;
    pthread_mutex_lock(&c->mu);
    int last = --e->users == 0 && e->dropped;
    if (last) count_add(c, e, -1);
    pthread_mutex_unlock(&c->mu);
    if (last) free_chain(c, e);
}

void device_cache_drop(device_cache *c, const void *key)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        int building = 0;
        for (device_cache_entry *e = c->list; e; e = e->next) building |= e->key == key && !e->built;
        if (!building) break;
        pthread_cond_wait(&c->cv, &c->mu);
    }
    device_cache_entry *chain = NULL;
    for (device_cache_entry **pp = &c->list; *pp;) {
        device_cache_entry *e = *pp;
        if (e->key != key) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        e->next = NULL;
        if (e->users) {
            e->dropped = 1; /* freed by its last release */
        } else {
            count_add(c, e, -1);
            e->next = chain;
            chain = e;
        }
    }
    pthread_mutex_unlock(&c->mu);
    free_chain(c, chain);
}

void device_cache_free_unused(device_cache *c, int device)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    device_cache_entry *chain = take_unused(c, device);
    pthread_mutex_unlock(&c->mu);
    free_chain(c, chain);
}

uint64_t device_cache_bytes(const device_cache *c, int device)
{
    if (!c || device < 0 || device >= c->cfg.devices) return 0;
    return __atomic_load_n(&c->counts[device].bytes, __ATOMIC_RELAXED);
}

unsigned device_cache_count(const device_cache *c, int device)
{
    if (!c || device < 0 || device >= c->cfg.devices) return 0;
    return __atomic_load_n(&c->counts[device].count, __ATOMIC_RELAXED);
}

void device_cache_destroy(device_cache *c)
{
    if (!c) return;
    free_chain(c, c->list);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c->counts);
    free(c);
}
