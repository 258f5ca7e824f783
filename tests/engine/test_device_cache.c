/* The device cache (engine/device_cache.h): one build per (key, tag, device) however many callers race for it;
 * a caller of a built entry never waits behind another key's build in progress (the reason the cache exists: a
 * CRITICAL partition whose bases are resident while another set uploads); a failed build leaves no entry and the
 * next caller builds again; drop waits for its key's build and frees an entry at its last release; the unused
 * entries of a device freed before a build there when asked; the counters; a seeded multi-threaded stress (run
 * under TSan and ASan) in which no caller ever sees another key's or a freed object. The fake build can be held
 * at a gate per key, so the waits are ordered by the test, not by sleeps. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/device_cache.h"
#include "testutil.h"

#define KEYS 8

typedef struct fake_obj {
    int key;
    int device;
    int alive; /* 0 once freed (read before the free by the stress's holders) */
} fake_obj;

typedef struct fake {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int closed[KEYS];  /* the build of this key waits while set */
    int started[KEYS]; /* builds begun, per key */
    int ended[KEYS];   /* builds ended (done or failed) */
    int fail_next[KEYS];
    int frees;
    int frees_at_start[KEYS]; /* frees when the last build of the key began */
    int builds;
} fake;

/* Keys are small integers dressed as pointers: key k is (const void *)(k + 1). */
static const void *K(int k)
{
    return (const char *)0 + k + 1;
}

static cuzk_status fake_build(void *ctx, const void *key, int device, void **obj, uint64_t *bytes, cuzk_error *err)
{
    fake *f = ctx;
    int k = (int)((const char *)key - (const char *)0) - 1;
    if (k < 0 || k >= KEYS) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "fake: key %d", k);
    pthread_mutex_lock(&f->mu);
    f->started[k]++;
    f->builds++;
    f->frees_at_start[k] = f->frees;
    pthread_cond_broadcast(&f->cv);
    while (f->closed[k]) pthread_cond_wait(&f->cv, &f->mu);
    int fail = f->fail_next[k];
    if (fail) f->fail_next[k]--;
    f->ended[k]++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    if (fail) return cuzk_error_set(err, CUZK_ERR_NOMEM, "fake: key %d failed as told", k);
    fake_obj *o = malloc(sizeof(*o));
    if (!o) return cuzk_error_set(err, CUZK_ERR_NOMEM, "fake: out of memory");
    *o = (fake_obj){.key = k, .device = device, .alive = 1};
    *obj = o;
    *bytes = 100 * (uint64_t)(k + 1);
    return CUZK_OK;
}

static void fake_free(void *ctx, void *obj)
{
    fake *f = ctx;
    fake_obj *o = obj;
    __atomic_store_n(&o->alive, 0, __ATOMIC_RELAXED);
    free(o);
    pthread_mutex_lock(&f->mu);
    f->frees++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

static void fake_init(fake *f)
{
    memset(f, 0, sizeof(*f));
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
}

static void fake_fini(fake *f)
{
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
}

static void gate(fake *f, int k, int closed)
{
    pthread_mutex_lock(&f->mu);
    f->closed[k] = closed;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* Waits (up to 30 s) until *field reaches n; 0 on time-out. */
static int wait_at_least(fake *f, const int *field, int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&f->mu);
    int waiting = 1;
    while (*field < n && waiting) waiting = pthread_cond_timedwait(&f->cv, &f->mu, &until) == 0;
    int ok = *field >= n;
    pthread_mutex_unlock(&f->mu);
    return ok;
}

static device_cache *make_cache(fake *f, int devices, int free_unused)
{
    device_cache_config cfg = {.devices = devices,
                               .build = fake_build,
                               .free_obj = fake_free,
                               .ctx = f,
                               .free_unused_before_build = free_unused};
    device_cache *c = NULL;
    cuzk_error err;
    CHECK(device_cache_create(&cfg, &c, &err) == CUZK_OK && c);
    return c;
}

/* ---- a caller on its own thread, and a flag set when its call returned ---- */

typedef struct caller {
    device_cache *c;
    fake *f;
    int key, device;
    int drop; /* 1: device_cache_drop(key) instead of an acquire */
    pthread_t th;
    cuzk_status st;
    device_cache_entry *e;
    int done;
    int ended_when_done; /* the key's builds ended when the call returned */
} caller;

static void *caller_main(void *arg)
{
    caller *cl = arg;
    cuzk_error err;
    if (cl->drop) {
        device_cache_drop(cl->c, K(cl->key));
        cl->st = CUZK_OK;
    } else {
        cl->st = device_cache_acquire(cl->c, K(cl->key), 0, cl->device, &cl->e, &err);
    }
    pthread_mutex_lock(&cl->f->mu);
    cl->ended_when_done = cl->f->ended[cl->key];
    cl->done = 1;
    pthread_cond_broadcast(&cl->f->cv);
    pthread_mutex_unlock(&cl->f->mu);
    return NULL;
}

static void caller_start(caller *cl, device_cache *c, fake *f, int key, int device, int drop)
{
    *cl = (caller){.c = c, .f = f, .key = key, .device = device, .drop = drop};
    CHECK(pthread_create(&cl->th, NULL, caller_main, cl) == 0);
}

static int caller_is_done(caller *cl)
{
    pthread_mutex_lock(&cl->f->mu);
    int d = cl->done;
    pthread_mutex_unlock(&cl->f->mu);
    return d;
}

static void test_args(void)
{
    fake f;
    fake_init(&f);
    cuzk_error err;
    device_cache *c = NULL;
    device_cache_config bad = {.devices = 0, .build = fake_build, .free_obj = fake_free, .ctx = &f};
    CHECK(device_cache_create(&bad, &c, &err) == CUZK_ERR_INVALID_ARG && !c);
    bad.devices = 1;
    bad.build = NULL;
    CHECK(device_cache_create(&bad, &c, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(device_cache_create(NULL, &c, &err) == CUZK_ERR_INVALID_ARG);
    c = make_cache(&f, 2, 0);
    device_cache_entry *e = (device_cache_entry *)&f;
    CHECK(device_cache_acquire(c, K(0), 0, 2, &e, &err) == CUZK_ERR_INVALID_ARG && e == NULL);
    CHECK(device_cache_acquire(c, K(0), 0, -1, &e, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(device_cache_acquire(c, K(0), 0, 0, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(device_cache_bytes(c, 5) == 0 && device_cache_count(c, -1) == 0 && f.builds == 0);
    device_cache_release(c, NULL);
    device_cache_destroy(c);
    device_cache_destroy(NULL);
    fake_fini(&f);
}

/* One build per (key, tag, device); the entry stays after its release; the counters follow. */
static void test_once(void)
{
    fake f;
    fake_init(&f);
    cuzk_error err;
    device_cache *c = make_cache(&f, 2, 0);
    device_cache_entry *a = NULL, *a2 = NULL, *a_dev1 = NULL, *a_tag = NULL;
    CHECK(device_cache_acquire(c, K(0), 0, 0, &a, &err) == CUZK_OK && a);
    CHECK(device_cache_acquire(c, K(0), 0, 0, &a2, &err) == CUZK_OK && a2 == a && f.builds == 1);
    fake_obj *o = device_cache_object(a);
    CHECK(o && o->key == 0 && o->device == 0);
    CHECK(device_cache_bytes(c, 0) == 100 && device_cache_count(c, 0) == 1 && device_cache_count(c, 1) == 0);
    device_cache_release(c, a);
    device_cache_release(c, a2);
    CHECK(device_cache_count(c, 0) == 1 && f.frees == 0);
    CHECK(device_cache_acquire(c, K(0), 0, 0, &a, &err) == CUZK_OK && f.builds == 1);
    CHECK(device_cache_acquire(c, K(0), 0, 1, &a_dev1, &err) == CUZK_OK && a_dev1 != a && f.builds == 2);
    CHECK(device_cache_acquire(c, K(0), 7, 0, &a_tag, &err) == CUZK_OK && a_tag != a && f.builds == 3);
    CHECK(device_cache_bytes(c, 0) == 200 && device_cache_count(c, 0) == 2 && device_cache_bytes(c, 1) == 100);
    device_cache_release(c, a);
    device_cache_release(c, a_dev1);
    device_cache_release(c, a_tag);
    device_cache_free_unused(c, 1);
    CHECK(f.frees == 1 && device_cache_count(c, 1) == 0 && device_cache_count(c, 0) == 2);
    device_cache_free_unused(c, -1);
    CHECK(f.frees == 3 && device_cache_bytes(c, 0) == 0 && device_cache_count(c, 0) == 0);
    device_cache_destroy(c);
    fake_fini(&f);
}

/* A build in progress holds up only the callers of its key: another key's built entry is handed out, another
 * key's build (same device) runs, the counters are read; the callers of the key get the one object. The cache as
 * the GPU backend had it (its lock held through an upload) fails at the first wait. */
static void test_no_wait_behind_build(void)
{
    fake f;
    fake_init(&f);
    cuzk_error err;
    device_cache *c = make_cache(&f, 1, 0);
    device_cache_entry *b = NULL;
    CHECK(device_cache_acquire(c, K(1), 0, 0, &b, &err) == CUZK_OK);
    device_cache_release(c, b);
    gate(&f, 0, 1);
    caller t1, t2, tb, tc;
    caller_start(&t1, c, &f, 0, 0, 0);
    CHECK(wait_at_least(&f, &f.started[0], 1));
    caller_start(&t2, c, &f, 0, 0, 0);
    caller_start(&tb, c, &f, 1, 0, 0);
    caller_start(&tc, c, &f, 2, 0, 0);
    CHECK_MSG(wait_at_least(&f, &tb.done, 1), "a built entry waited behind another key's build");
    CHECK_MSG(wait_at_least(&f, &tc.done, 1), "a build waited behind another key's build");
    CHECK(tb.st == CUZK_OK && tb.e == b && tc.st == CUZK_OK && tc.e && device_cache_count(c, 0) == 2);
    CHECK(!caller_is_done(&t1) && !caller_is_done(&t2) && f.started[0] == 1);
    gate(&f, 0, 0);
    pthread_join(t1.th, NULL);
    pthread_join(t2.th, NULL);
    pthread_join(tb.th, NULL);
    pthread_join(tc.th, NULL);
    CHECK(t1.st == CUZK_OK && t2.st == CUZK_OK && t1.e && t1.e == t2.e && f.started[0] == 1);
    CHECK(device_cache_count(c, 0) == 3 && device_cache_bytes(c, 0) == 100 + 200 + 300);
    device_cache_release(c, t1.e);
    device_cache_release(c, t2.e);
    device_cache_release(c, tb.e);
    device_cache_release(c, tc.e);
    device_cache_destroy(c);
    CHECK(f.frees == 3);
    fake_fini(&f);
}

/* A failed build: its caller gets the error, nothing is cached, a caller waiting for it builds again. */
static void test_failed_build(void)
{
    fake f;
    fake_init(&f);
    cuzk_error err;
    device_cache *c = make_cache(&f, 1, 0);
    device_cache_entry *e = NULL;
    f.fail_next[3] = 1;
    CHECK(device_cache_acquire(c, K(3), 0, 0, &e, &err) == CUZK_ERR_NOMEM && !e && strstr(err.msg, "failed as told"));
    CHECK(device_cache_count(c, 0) == 0 && device_cache_bytes(c, 0) == 0);
    CHECK(device_cache_acquire(c, K(3), 0, 0, &e, &err) == CUZK_OK && e && f.started[3] == 2);
    device_cache_release(c, e);
    device_cache_drop(c, K(3));
    CHECK(f.frees == 1);

    f.fail_next[3] = 1;
    gate(&f, 3, 1);
    caller t1, t2;
    caller_start(&t1, c, &f, 3, 0, 0);
    CHECK(wait_at_least(&f, &f.started[3], 3));
    caller_start(&t2, c, &f, 3, 0, 0);
    gate(&f, 3, 0);
    pthread_join(t1.th, NULL);
    pthread_join(t2.th, NULL);
    /* t1's build took the failure; t2, waiting for it (or come after it), built again. */
    CHECK(t1.st == CUZK_ERR_NOMEM && !t1.e && t2.st == CUZK_OK && t2.e && f.started[3] == 4);
    device_cache_release(c, t2.e);
    CHECK(device_cache_count(c, 0) == 1);
    device_cache_destroy(c);
    CHECK(f.frees == 2);
    fake_fini(&f);
}

/* drop: an entry in use stays until its release (a new acquire builds anew); a drop waits for its key's build. */
static void test_drop(void)
{
    fake f;
    fake_init(&f);
    cuzk_error err;
    device_cache *c = make_cache(&f, 2, 0);
    device_cache_entry *old = NULL, *fresh = NULL, *other = NULL;
    CHECK(device_cache_acquire(c, K(0), 0, 0, &old, &err) == CUZK_OK);
    CHECK(device_cache_acquire(c, K(1), 0, 1, &other, &err) == CUZK_OK);
    device_cache_drop(c, K(0));
    CHECK(f.frees == 0 && device_cache_count(c, 0) == 1 && ((fake_obj *)device_cache_object(old))->alive);
    CHECK(device_cache_acquire(c, K(0), 0, 0, &fresh, &err) == CUZK_OK && fresh != old && f.started[0] == 2);
    CHECK(device_cache_count(c, 0) == 2);
    device_cache_release(c, old);
    CHECK(f.frees == 1 && device_cache_count(c, 0) == 1);
    device_cache_release(c, fresh);
    device_cache_release(c, other);
    device_cache_drop(c, K(0));
    CHECK(f.frees == 2 && device_cache_count(c, 0) == 0 && device_cache_count(c, 1) == 1);

    gate(&f, 0, 1);
    caller t1, td;
    caller_start(&t1, c, &f, 0, 1, 0);
    CHECK(wait_at_least(&f, &f.started[0], 3));
    caller_start(&td, c, &f, 0, 0, 1);
    gate(&f, 0, 0);
    pthread_join(t1.th, NULL);
    pthread_join(td.th, NULL);
    CHECK_MSG(td.ended_when_done == 3, "the drop returned before the build it had to wait for ended");
    CHECK(t1.st == CUZK_OK && t1.e && f.frees == 2);
    device_cache_entry *again = NULL;
    CHECK(device_cache_acquire(c, K(0), 0, 1, &again, &err) == CUZK_OK && again != t1.e && f.started[0] == 4);
    device_cache_release(c, t1.e);
    CHECK(f.frees == 3);
    device_cache_release(c, again);
    device_cache_destroy(c);
    CHECK(f.frees == 5);
    fake_fini(&f);
}

/* free_unused_before_build: the unused entries of the device are freed before its build starts; those in use,
 * and other devices', are kept. */
static void test_free_unused_before_build(void)
{
    fake f;
    fake_init(&f);
    cuzk_error err;
    device_cache *c = make_cache(&f, 2, 1);
    device_cache_entry *s1 = NULL, *s2 = NULL, *s3 = NULL, *d1 = NULL;
    CHECK(device_cache_acquire(c, K(1), 0, 0, &s1, &err) == CUZK_OK);
    CHECK(device_cache_acquire(c, K(4), 0, 1, &d1, &err) == CUZK_OK);
    device_cache_release(c, s1);
    device_cache_release(c, d1);
    CHECK(device_cache_acquire(c, K(2), 0, 0, &s2, &err) == CUZK_OK);
    CHECK_MSG(f.frees_at_start[2] == 1, "the unused entry was not freed before the build");
    CHECK(device_cache_count(c, 0) == 1 && device_cache_count(c, 1) == 1);
    CHECK(device_cache_acquire(c, K(3), 0, 0, &s3, &err) == CUZK_OK);
    CHECK(f.frees_at_start[3] == 1 && device_cache_count(c, 0) == 2 && ((fake_obj *)device_cache_object(s2))->alive);
    device_cache_release(c, s2);
    device_cache_release(c, s3);
    device_cache_destroy(c);
    CHECK(f.frees == 4);
    fake_fini(&f);
}

/* ---- stress: acquire, hold, release, drop and free_unused from several threads ---- */

typedef struct stress_ctx {
    device_cache *c;
    uint64_t seed;
    int bad;
} stress_ctx;

static void *stress_main(void *arg)
{
    stress_ctx *s = arg;
    rng_t rng;
    rng_seed(&rng, s->seed);
    cuzk_error err;
    for (int i = 0; i < 3000; i++) {
        uint64_t r = rng_next(&rng);
        int k = (int)(r % 4), d = (int)((r >> 8) % 2), op = (int)((r >> 16) % 16);
        if (op == 0) {
            device_cache_drop(s->c, K(k));
        } else if (op == 1) {
            device_cache_free_unused(s->c, (int)((r >> 24) % 3) - 1);
        } else {
            device_cache_entry *e = NULL;
            if (device_cache_acquire(s->c, K(k), 0, d, &e, &err) != CUZK_OK) {
                s->bad++;
                continue;
            }
            fake_obj *o = device_cache_object(e);
            if (!o || o->key != k || o->device != d || !__atomic_load_n(&o->alive, __ATOMIC_RELAXED)) s->bad++;
            if (op == 2) sched_yield();
            device_cache_release(s->c, e);
        }
    }
    return NULL;
}

static void test_stress(void)
{
    fake f;
    fake_init(&f);
    rng_t rng;
    test_seed(&rng, "test_device_cache stress");
    for (int pass = 0; pass < 2; pass++) {
        device_cache *c = make_cache(&f, 2, pass);
        int builds0 = f.builds, frees0 = f.frees;
        enum { N = 6 };
        stress_ctx s[N];
        pthread_t th[N];
        for (int i = 0; i < N; i++) {
            s[i] = (stress_ctx){.c = c, .seed = rng_next(&rng)};
            CHECK(pthread_create(&th[i], NULL, stress_main, &s[i]) == 0);
        }
        int bad = 0;
        for (int i = 0; i < N; i++) {
            pthread_join(th[i], NULL);
            bad += s[i].bad;
        }
        CHECK_MSG(bad == 0, "pass %d: %d acquires failed or saw a wrong or freed object", pass, bad);
        unsigned cached = device_cache_count(c, 0) + device_cache_count(c, 1);
        CHECK_MSG(cached <= 8 && (int)cached == (f.builds - builds0) - (f.frees - frees0),
                  "pass %d: %u cached, %d built, %d freed", pass, cached, f.builds - builds0, f.frees - frees0);
        device_cache_destroy(c);
        CHECK_MSG(f.builds - builds0 == f.frees - frees0, "pass %d: %d built, %d freed", pass, f.builds - builds0,
                  f.frees - frees0);
    }
    fake_fini(&f);
}

int main(void)
{
    test_args();
    test_once();
    test_no_wait_behind_build();
    test_failed_build();
    test_drop();
    test_free_unused_before_build();
    test_stress();
    return test_finish("test_device_cache");
}
