/* engine_mem_move (counts, limits, and atomicity: bytes moving between host and pinned never free room for
 * another reservation in between), then the parameter residency: idle eviction against a fake clock, the pinned tier within its budget (checked from
 * the memory accounting), hot sets never evicted, the eviction hook called exactly once per freed set, and a
 * multi-threaded stress of acquire/release/preload/evict/sweep (run under TSan and ASan), preloads' uploads to
 * the devices. The loader makes
 * small fake parameter sets (only h is filled) whose bytes carry a tag, so a holder can tell a freed or
 * swapped set from its own. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/residency.h"
#include "testutil.h"

#define MAX_SETS 8

typedef struct fake_set {
    const char *name;
    size_t points; /* h_len */
    uint8_t tag;
    int holders; /* test threads holding a reference (atomic) */
    int loads;   /* atomic */
    int fail_load;
} fake_set;

static uint64_t set_bytes(const fake_set *f)
{
    return (uint64_t)f->points * sizeof(g1_affine_t);
}

static cuzk_status fake_load(void *ctx, groth16_params *out, cuzk_error *err)
{
    fake_set *f = ctx;
    if (f->fail_load) return cuzk_error_set(err, CUZK_ERR_IO, "fake: %s cannot be read", f->name);
    out->h = malloc(f->points * sizeof(g1_affine_t));
    if (!out->h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "fake: out of memory");
    memset(out->h, f->tag, f->points * sizeof(g1_affine_t));
    out->h_len = f->points;
    __atomic_add_fetch(&f->loads, 1, __ATOMIC_RELAXED);
    return CUZK_OK;
}

/* ---- fake hooks: they keep their own record of what is pinned and what was freed ---- */

typedef struct hooks {
    engine_backend be; /* a fake backend with the residency's hooks; be.ctx is the hooks */
    pthread_mutex_t mu;
    fake_set *sets;
    size_t n_sets;
    const groth16_params *pinned[MAX_SETS];
    int n_pinned;
    int pins, unpins, evicted[MAX_SETS], fail_pins;
    int bad;           /* double pin, unpin of an unpinned set, eviction of a held set, unknown name or empty set */
    pthread_cond_t cv; /* pin_gate or pins_started changed */
    int pin_gate;      /* a pin waits while set */
    int pins_started;
} hooks;

/* The set a loaded params belongs to, by the tag its loader wrote. */
static int set_index(hooks *h, const groth16_params *p)
{
    if (!p->h || !p->h_len) return -1;
    for (size_t i = 0; i < h->n_sets; i++)
        if (h->sets[i].tag == ((const uint8_t *)p->h)[0]) return (int)i;
    return -1;
}

static cuzk_status hook_pin(engine_backend *be, const groth16_params *p, cuzk_error *err)
{
    hooks *h = be->ctx;
    pthread_mutex_lock(&h->mu);
    h->pins_started++;
    pthread_cond_broadcast(&h->cv);
    while (h->pin_gate) pthread_cond_wait(&h->cv, &h->mu);
    cuzk_status st = CUZK_OK;
    if (h->fail_pins) {
        h->fail_pins--;
        st = cuzk_error_set(err, CUZK_ERR_GPU, "fake: cannot register");
    } else {
        for (int i = 0; i < h->n_pinned; i++) h->bad += h->pinned[i] == p;
        if (h->n_pinned < MAX_SETS) h->pinned[h->n_pinned++] = p;
        h->pins++;
    }
    pthread_mutex_unlock(&h->mu);
    return st;
}

static void hook_unpin(engine_backend *be, const groth16_params *p)
{
    hooks *h = be->ctx;
    pthread_mutex_lock(&h->mu);
    int found = 0;
    for (int i = 0; i < h->n_pinned && !found; i++) {
        if (h->pinned[i] == p) {
            h->pinned[i] = h->pinned[--h->n_pinned];
            found = 1;
        }
    }
    h->bad += !found;
    h->unpins++;
    pthread_mutex_unlock(&h->mu);
}

static void hook_evicted(engine_backend *be, const groth16_params *p)
{
    hooks *h = be->ctx;
    pthread_mutex_lock(&h->mu);
    int i = set_index(h, p);
    if (i < 0 || !p->h || p->h_len != h->sets[i].points || __atomic_load_n(&h->sets[i].holders, __ATOMIC_ACQUIRE) != 0)
        h->bad++;
    else
        h->evicted[i]++;
    pthread_mutex_unlock(&h->mu);
}

static void hooks_init(hooks *h, fake_set *sets, size_t n)
{
    memset(h, 0, sizeof(*h));
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->sets = sets;
    h->n_sets = n;
    h->be.name = "fake";
    h->be.ctx = h;
    h->be.params_pin = hook_pin;
    h->be.params_unpin = hook_unpin;
    h->be.params_evict = hook_evicted;
}

/* The fake clock, in microseconds. */
static uint64_t g_now_us;
static double fake_clock(void *ctx)
{
    (void)ctx;
    return (double)__atomic_load_n(&g_now_us, __ATOMIC_RELAXED) / 1e6;
}
static void clock_set(double s)
{
    __atomic_store_n(&g_now_us, (uint64_t)(s * 1e6 + 0.5), __ATOMIC_RELAXED);
}

static engine_residency *make(engine_mem *mem, hooks *h, fake_set *sets, size_t n, double idle, uint64_t pinned)
{
    cuzk_error err;
    engine_residency *r = NULL;
    CHECK(engine_residency_create(&r, mem, &err) == CUZK_OK);
    engine_residency_options o = {
        .idle_evict_s = idle, .backend = &h->be, .pinned_budget = pinned, .clock = fake_clock};
    CHECK(engine_residency_configure(r, &o, &err) == CUZK_OK);
    for (size_t i = 0; i < n; i++) CHECK(engine_residency_add(r, sets[i].name, fake_load, &sets[i], &err) == CUZK_OK);
    return r;
}

/* Sets unused for idle_evict_s go at the sweep, not before; hot ones never; 0 turns it off. */
static void test_idle_eviction(void)
{
    fake_set sets[3] = {{.name = "a", .points = 100, .tag = 1},
                        {.name = "b", .points = 200, .tag = 2},
                        {.name = "c", .points = 300, .tag = 3}};
    hooks h;
    hooks_init(&h, sets, 3);
    engine_mem mem;
    cuzk_error err;
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    clock_set(1000);
    engine_residency *r = make(&mem, &h, sets, 3, 10, 0);
    engine_params *pb;
    CHECK(engine_residency_preload(r, "a", &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK);
    engine_residency_options late = {.idle_evict_s = 1};
    CHECK(engine_residency_configure(r, &late, &err) == CUZK_ERR_INVALID_ARG); /* sets are loaded */
    clock_set(1005);
    CHECK(engine_residency_preload(r, "c", &err) == CUZK_OK);
    clock_set(1009.99);
    CHECK(engine_residency_sweep(r) == 0);
    clock_set(1010);
    CHECK(engine_residency_sweep(r) == 1);
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_COLD);
    CHECK(engine_residency_state_of(r, "b") == ENGINE_PARAMS_HOT);
    CHECK(engine_residency_state_of(r, "c") == ENGINE_PARAMS_WARM);
    clock_set(1012);
    engine_residency_release(r, pb); /* idle from now */
    clock_set(1021);
    CHECK(engine_residency_sweep(r) == 1); /* c, idle 16 s; b only 9 s */
    CHECK(engine_residency_state_of(r, "c") == ENGINE_PARAMS_COLD);
    CHECK(engine_residency_state_of(r, "b") == ENGINE_PARAMS_WARM);
    clock_set(1500);
    uint64_t first_id = engine_params_id(pb);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK); /* used again: no longer idle */
    CHECK(engine_params_id(pb) == first_id && !strcmp(engine_params_name(pb), "b"));
    CHECK(engine_residency_sweep(r) == 0);
    engine_residency_release(r, pb);
    clock_set(1509);
    CHECK(engine_residency_preload(r, "b", &err) == CUZK_OK); /* a preload of a warm set is a use too */
    clock_set(1518);
    CHECK(engine_residency_sweep(r) == 0);
    clock_set(1519);
    CHECK(engine_residency_sweep(r) == 1);
    CHECK(h.evicted[0] == 1 && h.evicted[1] == 1 && h.evicted[2] == 1 && h.bad == 0);
    engine_residency_stats st;
    engine_residency_get_stats(r, &st);
    CHECK(st.loads == 3 && st.evictions == 3 && st.idle_evictions == 3 && st.pressure_evictions == 0);
    CHECK(st.loaded == 0 && st.loaded_bytes == 0 && st.sets == 3);
    CHECK(engine_mem_host_in_use(&mem) == 0);
    engine_residency_destroy(r);
    CHECK(h.evicted[0] == 1 && h.evicted[1] == 1 && h.evicted[2] == 1); /* nothing left to free */

    /* idle_evict_s = 0: never */
    hooks_init(&h, sets, 3);
    r = make(&mem, &h, sets, 3, 0, 0);
    CHECK(engine_residency_preload(r, "a", &err) == CUZK_OK);
    clock_set(1e9);
    CHECK(engine_residency_sweep(r) == 0);
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_WARM);
    engine_residency_destroy(r);
    CHECK(h.evicted[0] == 1 && h.bad == 0); /* destroy reports it */
    CHECK(engine_mem_host_in_use(&mem) == 0);

    /* The real clock (what the daemon uses). */
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    engine_residency_options real = {.idle_evict_s = 0.001};
    CHECK(engine_residency_configure(r, &real, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "a", fake_load, &sets[0], &err) == CUZK_OK);
    CHECK(engine_residency_preload(r, "a", &err) == CUZK_OK);
    struct timespec pause = {0, 5000000};
    nanosleep(&pause, NULL);
    CHECK(engine_residency_sweep(r) == 1 && engine_residency_state_of(r, "a") == ENGINE_PARAMS_COLD);
    engine_residency_destroy(r);
    engine_mem_destroy(&mem);
}

/* Hot sets are pinned while the budget allows; their bytes move to the pinned kind; warm pinned sets give way
 * to hot ones; a failed pin leaves the set working and unpinned. */
static void test_pinned(void)
{
    fake_set sets[5] = {{.name = "a", .points = 100, .tag = 1},
                        {.name = "b", .points = 100, .tag = 2},
                        {.name = "c", .points = 100, .tag = 3},
                        {.name = "d", .points = 100, .tag = 4},
                        {.name = "big", .points = 300, .tag = 5}};
    uint64_t one = set_bytes(&sets[0]);
    hooks h;
    hooks_init(&h, sets, 5);
    engine_mem mem;
    cuzk_error err;
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    clock_set(0);
    engine_residency *r = make(&mem, &h, sets, 5, 0, 2 * one + one / 2);
    engine_params *pa, *pb, *pc, *pc2, *pbig, *pd, *p;
    engine_mem_stats ms;
    CHECK(engine_residency_preload(r, "a", &err) == CUZK_OK);
    CHECK(!engine_residency_pinned(r, "a")); /* warm sets are not pinned by a preload */
    CHECK(engine_residency_acquire(r, "a", &pa, &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_OK);
    CHECK(engine_params_id(pa) != engine_params_id(pb) && engine_params_id(pb) != engine_params_id(pc));
    CHECK(engine_residency_pinned(r, "a") && engine_residency_pinned(r, "b") && !engine_residency_pinned(r, "c"));
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.in_use[ENGINE_MEM_PINNED] == 2 * one && ms.in_use[ENGINE_MEM_HOST] == one);
    engine_residency_release(r, pa);
    CHECK(engine_residency_pinned(r, "a"));                         /* warm, still pinned while nobody needs the room */
    CHECK(engine_residency_acquire(r, "c", &pc2, &err) == CUZK_OK); /* c is hot again: a gives way */
    CHECK(pc2 == pc);
    CHECK(!engine_residency_pinned(r, "a") && engine_residency_pinned(r, "c"));
    CHECK(engine_params_get(pc)->h_len == 100 && ((const uint8_t *)engine_params_get(pc)->h)[0] == 3);
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.in_use[ENGINE_MEM_PINNED] == 2 * one && ms.in_use[ENGINE_MEM_HOST] == one);
    CHECK(engine_residency_acquire(r, "big", &pbig, &err) == CUZK_OK); /* larger than the budget: never pinned */
    CHECK(!engine_residency_pinned(r, "big"));
    engine_residency_release(r, pbig);
    engine_residency_release(r, pb);
    h.fail_pins = 1;
    CHECK(engine_residency_acquire(r, "d", &pd, &err) == CUZK_OK); /* b gives way, then the pin fails */
    CHECK(!engine_residency_pinned(r, "d") && !engine_residency_pinned(r, "b"));
    engine_residency_release(r, pd);
    uint64_t freed_bytes = 7;
    CHECK(engine_residency_evict(r, "c", &freed_bytes) == 0 && freed_bytes == 0); /* hot */
    engine_residency_release(r, pc);
    engine_residency_release(r, pc2);
    CHECK(engine_residency_evict(r, "c", &freed_bytes) == 1); /* pinned: unpinned, and its pinned bytes returned */
    CHECK(freed_bytes == one);
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.in_use[ENGINE_MEM_PINNED] == 0 && ms.in_use[ENGINE_MEM_HOST] == 3 * one + 3 * one);
    CHECK(ms.peak[ENGINE_MEM_PINNED] <= 2 * one + one / 2);
    engine_residency_stats st;
    engine_residency_get_stats(r, &st);
    CHECK(st.pins == 3 && st.unpins == 3 && st.pin_failures == 1 && st.pinned_bytes == 0 && st.pinned == 0);
    CHECK(st.pinned_budget == 2 * one + one / 2 && st.loaded == 4 && st.hot == 0);
    CHECK(h.pins == 3 && h.unpins == 3 && h.n_pinned == 0 && h.bad == 0);
    engine_residency_destroy(r);
    CHECK(h.evicted[0] == 1 && h.evicted[1] == 1 && h.evicted[2] == 1 && h.evicted[3] == 1 && h.evicted[4] == 1);
    CHECK(engine_mem_host_in_use(&mem) == 0 && h.bad == 0);

    /* Destroy unpins the sets still pinned (and accounts them back to nothing). */
    hooks_init(&h, sets, 5);
    r = make(&mem, &h, sets, 5, 0, 10 * one);
    CHECK(engine_residency_acquire(r, "a", &p, &err) == CUZK_OK);
    engine_residency_release(r, p);
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.in_use[ENGINE_MEM_PINNED] == one);
    engine_residency_destroy(r);
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.in_use[ENGINE_MEM_PINNED] == 0 && ms.in_use[ENGINE_MEM_HOST] == 0);
    CHECK(h.pins == 1 && h.unpins == 1 && h.evicted[0] == 1 && h.bad == 0);
    engine_mem_destroy(&mem);

    /* A backend with params_pin but not params_unpin is refused. */
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    engine_backend half = {.name = "half", .params_pin = hook_pin};
    engine_residency_options o = {.pinned_budget = one, .backend = &half};
    CHECK(engine_residency_configure(r, &o, &err) == CUZK_ERR_INVALID_ARG);
    engine_residency_destroy(r);
    engine_mem_destroy(&mem);
}

/* Under a budget: hot sets never go, the least recently used warm one does, each freed set is reported once,
 * and a failed load changes nothing. */
static void test_pressure(void)
{
    fake_set sets[4] = {{.name = "a", .points = 100, .tag = 1},
                        {.name = "b", .points = 100, .tag = 2},
                        {.name = "c", .points = 100, .tag = 3},
                        {.name = "bad", .points = 100, .fail_load = 1}};
    uint64_t one = set_bytes(&sets[0]);
    hooks h;
    hooks_init(&h, sets, 4);
    engine_mem mem;
    cuzk_error err;
    CHECK(engine_mem_init(&mem, 2 * one + one / 2, 0, &err) == CUZK_OK);
    clock_set(0);
    engine_residency *r = make(&mem, &h, sets, 4, 1, 0);
    engine_params *pa, *pb, *pc;
    CHECK(engine_residency_acquire(r, "a", &pa, &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_ERR_NOMEM);
    CHECK(engine_residency_acquire(r, "bad", &pc, &err) == CUZK_ERR_IO && strstr(err.msg, "bad"));
    CHECK(engine_residency_acquire(r, "zz", &pc, &err) == CUZK_ERR_INVALID_ARG && pc == NULL);
    clock_set(1e6);
    CHECK(engine_residency_sweep(r) == 0);
    CHECK(engine_residency_evict(r, "a", NULL) == 0);
    CHECK(h.evicted[0] == 0 && h.evicted[1] == 0);
    CHECK(((const uint8_t *)engine_params_get(pa)->h)[one - 1] == 1 &&
          ((const uint8_t *)engine_params_get(pb)->h)[0] == 2);
    uint64_t a_id = engine_params_id(pa);
    engine_residency_release(r, pa);
    engine_residency_release(r, pb);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK); /* b is now the most recently used */
    engine_residency_release(r, pb);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_OK); /* evicts a */
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_COLD);
    CHECK(engine_residency_state_of(r, "b") == ENGINE_PARAMS_WARM);
    CHECK(h.evicted[0] == 1 && h.evicted[1] == 0 && h.evicted[2] == 0);
    CHECK(engine_residency_evict(r, "b", NULL) == 1 && engine_residency_evict(r, "b", NULL) == 0);
    CHECK(h.evicted[1] == 1);
    /* a loaded again (in place of c, released) is a new set: a new id. */
    engine_residency_release(r, pc);
    CHECK(engine_residency_acquire(r, "a", &pa, &err) == CUZK_OK);
    CHECK(engine_params_id(pa) != a_id && engine_params_id(pa) > a_id);
    CHECK(engine_residency_state_of(r, "c") == ENGINE_PARAMS_WARM);
    engine_residency_stats st;
    engine_residency_get_stats(r, &st);
    CHECK(st.load_failures == 2 && st.evictions == 2 && st.pressure_evictions == 1);
    CHECK(st.loads == 4 && st.idle_evictions == 0 && st.hot == 1 && st.loaded_bytes == 2 * one);
    engine_residency_destroy(r); /* a, still referenced, is freed and reported too */
    CHECK(h.evicted[0] == 2 && h.evicted[1] == 1 && h.evicted[2] == 1 && h.evicted[3] == 0 && h.bad == 0);
    engine_mem_stats ms;
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.host_in_use == 0 && ms.host_peak <= ms.host_limit);
    engine_mem_destroy(&mem);
}

/* ---- stress ---- */

#define STRESS_THREADS 4
#define STRESS_OPS 3000
#define STRESS_SETS 5

typedef struct stress_ctx {
    engine_residency *r;
    fake_set *sets;
    hooks *h;
    uint64_t seed;
    int bad; /* wrong contents, unexpected errors */
} stress_ctx;

static void *stress_main(void *arg)
{
    stress_ctx *c = arg;
    rng_t rng;
    rng_seed(&rng, c->seed);
    int held[STRESS_SETS] = {0};
    engine_params *hp[STRESS_SETS] = {0};
    cuzk_error err;
    for (int op = 0; op < STRESS_OPS; op++) {
        __atomic_add_fetch(&g_now_us, 1000, __ATOMIC_RELAXED);
        int i = (int)(rng_next(&rng) % STRESS_SETS);
        fake_set *f = &c->sets[i];
        /* Releases outnumber acquires, so that sets are idle often enough for the sweep and for pressure. */
        switch (rng_next(&rng) % 8) {
        case 0:
        case 1:
            if (held[i] < 2) {
                engine_params *p;
                cuzk_status st = engine_residency_acquire(c->r, f->name, &p, &err);
                if (st == CUZK_OK) {
                    __atomic_add_fetch(&f->holders, 1, __ATOMIC_ACQ_REL);
                    if (held[i] && p != hp[i]) c->bad++;
                    hp[i] = p;
                    held[i]++;
                } else if (st != CUZK_ERR_NOMEM) {
                    c->bad++;
                }
            }
            break;
        case 2:
        case 3:
        case 4:
            if (held[i]) {
                /* Still ours: the contents are intact while the reference is held. */
                const groth16_params *gp = engine_params_get(hp[i]);
                const uint8_t *b = (const uint8_t *)gp->h;
                if (gp->h_len != f->points || b[0] != f->tag || b[f->points * sizeof(g1_affine_t) - 1] != f->tag ||
                    strcmp(engine_params_name(hp[i]), f->name))
                    c->bad++;
                held[i]--;
                __atomic_sub_fetch(&f->holders, 1, __ATOMIC_ACQ_REL);
                engine_residency_release(c->r, hp[i]);
            }
            break;
        case 5: {
            cuzk_status st = engine_residency_preload(c->r, f->name, &err);
            if (st != CUZK_OK && st != CUZK_ERR_NOMEM) c->bad++;
            break;
        }
        case 6:
            if (engine_residency_evict(c->r, f->name, NULL) && held[i]) c->bad++;
            break;
        default:
            if (rng_next(&rng) & 1) {
                /* Now and then a quiet spell, so that the sweep finds idle sets as often as pressure does. */
                if (rng_next(&rng) % 4 == 0) __atomic_add_fetch(&g_now_us, 20000, __ATOMIC_RELAXED);
                engine_residency_sweep(c->r);
            } else {
                engine_residency_state_of(c->r, f->name);
                engine_residency_stats st;
                engine_residency_get_stats(c->r, &st);
            }
        }
    }
    for (int i = 0; i < STRESS_SETS; i++) {
        while (held[i]--) {
            __atomic_sub_fetch(&c->sets[i].holders, 1, __ATOMIC_ACQ_REL);
            engine_residency_release(c->r, hp[i]);
        }
    }
    return NULL;
}

static void test_stress(void)
{
    rng_t rng;
    test_seed(&rng, "test_residency stress");
    fake_set sets[STRESS_SETS] = {{.name = "s0", .points = 50, .tag = 10},
                                  {.name = "s1", .points = 80, .tag = 11},
                                  {.name = "s2", .points = 120, .tag = 12},
                                  {.name = "s3", .points = 60, .tag = 13},
                                  {.name = "s4", .points = 100, .tag = 14}};
    uint64_t total = 0;
    for (int i = 0; i < STRESS_SETS; i++) total += set_bytes(&sets[i]);
    hooks h;
    hooks_init(&h, sets, STRESS_SETS);
    engine_mem mem;
    cuzk_error err;
    uint64_t limit = total * 3 / 5, pinned = total / 3;
    CHECK(engine_mem_init(&mem, limit, 0, &err) == CUZK_OK);
    clock_set(0);
    engine_residency *r = make(&mem, &h, sets, STRESS_SETS, 0.01, pinned);
    h.fail_pins = 5;
    pthread_t t[STRESS_THREADS];
    stress_ctx c[STRESS_THREADS];
    for (int i = 0; i < STRESS_THREADS; i++) {
        c[i] = (stress_ctx){.r = r, .sets = sets, .h = &h, .seed = rng_next(&rng)};
        CHECK(pthread_create(&t[i], NULL, stress_main, &c[i]) == 0);
    }
    for (int i = 0; i < STRESS_THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_MSG(c[i].bad == 0, "thread %d saw %d bad results", i, c[i].bad);
    }
    engine_residency_stats st;
    engine_residency_get_stats(r, &st);
    engine_mem_stats ms;
    engine_mem_get_stats(&mem, &ms);
    CHECK(st.hot == 0);
    CHECK(ms.host_in_use == st.loaded_bytes && ms.in_use[ENGINE_MEM_PINNED] == st.pinned_bytes);
    CHECK(ms.host_peak <= limit && ms.peak[ENGINE_MEM_PINNED] <= pinned);
    CHECK_MSG(st.pins > 0 && st.pressure_evictions > 0, "%llu pins, %llu pressure evictions",
              (unsigned long long)st.pins, (unsigned long long)st.pressure_evictions);
    uint64_t loads = 0;
    for (int i = 0; i < STRESS_SETS; i++) loads += (uint64_t)sets[i].loads;
    CHECK(st.loads + st.load_failures == loads); /* the loader ran, then the set did not fit */
    /* Nothing is held now: a long quiet spell frees everything. */
    __atomic_add_fetch(&g_now_us, 1000000, __ATOMIC_RELAXED);
    CHECK(engine_residency_sweep(r) == st.loaded);
    engine_residency_stats after;
    engine_residency_get_stats(r, &after);
    CHECK(after.loaded == 0 && after.idle_evictions == st.idle_evictions + st.loaded && after.pinned_bytes == 0);
    engine_mem_get_stats(&mem, &ms);
    CHECK(ms.host_in_use == 0);
    engine_residency_destroy(r);
    /* Every load was freed exactly once, and every pin undone. */
    uint64_t freed = 0;
    for (int i = 0; i < STRESS_SETS; i++) freed += (uint64_t)h.evicted[i];
    CHECK_MSG(freed == st.loads, "%llu loads, %llu freed", (unsigned long long)st.loads, (unsigned long long)freed);
    CHECK(h.pins == h.unpins && h.n_pinned == 0 && h.bad == 0 && (uint64_t)h.pins == st.pins);
    printf("stress: %llu loads, %llu evictions (%llu idle, %llu pressure), %llu pins, %llu pin failures\n",
           (unsigned long long)st.loads, (unsigned long long)st.evictions, (unsigned long long)st.idle_evictions,
           (unsigned long long)st.pressure_evictions, (unsigned long long)st.pins, (unsigned long long)st.pin_failures);
    engine_mem_destroy(&mem);
}

static void test_mem_move_counts(void)
{
    engine_mem m;
    cuzk_error err;
    CHECK(engine_mem_init(&m, 1000, 500, &err) == CUZK_OK);
    engine_mem_stats st;
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 600));
    CHECK(engine_mem_move(&m, ENGINE_MEM_HOST, ENGINE_MEM_PINNED, 400));
    engine_mem_get_stats(&m, &st);
    CHECK(st.in_use[ENGINE_MEM_HOST] == 200 && st.in_use[ENGINE_MEM_PINNED] == 400 && st.host_in_use == 600);
    CHECK(st.peak[ENGINE_MEM_PINNED] == 400 && st.host_peak == 600 && st.peak[ENGINE_MEM_HOST] == 600);
    /* Full budget: moving within host + pinned still works, a new byte does not fit. */
    CHECK(!engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 401));
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_PINNED, 400));
    CHECK(engine_mem_move(&m, ENGINE_MEM_PINNED, ENGINE_MEM_HOST, 800));
    engine_mem_get_stats(&m, &st);
    CHECK(st.in_use[ENGINE_MEM_HOST] == 1000 && st.in_use[ENGINE_MEM_PINNED] == 0 && st.host_peak == 1000);
    CHECK(st.refused == 1);
    /* Into and out of device memory the other limit applies; a refused move changes nothing. */
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_DEVICE, 300));
    CHECK(!engine_mem_move(&m, ENGINE_MEM_HOST, ENGINE_MEM_DEVICE, 201));
    CHECK(engine_mem_move(&m, ENGINE_MEM_HOST, ENGINE_MEM_DEVICE, 200));
    CHECK(!engine_mem_move(&m, ENGINE_MEM_DEVICE, ENGINE_MEM_HOST, 201));
    CHECK(engine_mem_move(&m, ENGINE_MEM_DEVICE, ENGINE_MEM_HOST, 150));
    CHECK(engine_mem_move(&m, ENGINE_MEM_DEVICE, ENGINE_MEM_DEVICE, 50));
    engine_mem_get_stats(&m, &st);
    CHECK(st.in_use[ENGINE_MEM_HOST] == 950 && st.in_use[ENGINE_MEM_DEVICE] == 350 &&
          st.peak[ENGINE_MEM_DEVICE] == 500);
    CHECK(st.refused == 3);
    engine_mem_destroy(&m);
}

typedef struct mover {
    engine_mem *m;
    int stop;       /* atomic */
    unsigned moves; /* atomic */
} mover;

static void *mover_main(void *arg)
{
    mover *mv = arg;
    while (!__atomic_load_n(&mv->stop, __ATOMIC_RELAXED)) {
        engine_mem_move(mv->m, ENGINE_MEM_HOST, ENGINE_MEM_PINNED, 150);
        engine_mem_move(mv->m, ENGINE_MEM_PINNED, ENGINE_MEM_HOST, 150);
        __atomic_add_fetch(&mv->moves, 2, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* 600 of 1000 bytes keep moving between host and pinned on 4 threads: 400 more must always fit and 401 never
 * (a move made of a release and a reserve would open room in between). */
static void test_mem_move_atomic(void)
{
    engine_mem m;
    cuzk_error err;
    CHECK(engine_mem_init(&m, 1000, 0, &err) == CUZK_OK);
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 600));
    mover mv = {&m, 0, 0};
    pthread_t th[4];
    int started = 0;
    for (int i = 0; i < 4; i++) started += pthread_create(&th[i], NULL, mover_main, &mv) == 0;
    CHECK(started == 4);
    int bad_fit = 0, bad_over = 0;
    /* Until the movers have moved many times (they may start late on a busy machine), within 10 s. */
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    for (int i = 0; started && (i < 20000 || __atomic_load_n(&mv.moves, __ATOMIC_RELAXED) < 200000); i++) {
        if (i % 1024 == 0 && (double)clock() / CLOCKS_PER_SEC - t0 > 10) break;
        if (engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 401)) {
            bad_over++;
            engine_mem_release(&m, ENGINE_MEM_HOST, 401);
        }
        if (engine_mem_try_reserve(&m, ENGINE_MEM_PINNED, 400))
            engine_mem_release(&m, ENGINE_MEM_PINNED, 400);
        else
            bad_fit++;
    }
    __atomic_store_n(&mv.stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    CHECK_MSG(bad_over == 0 && bad_fit == 0, "401 bytes fit %d times, 400 did not %d times", bad_over, bad_fit);
    engine_mem_stats st;
    engine_mem_get_stats(&m, &st);
    CHECK(st.host_in_use == 600 && st.host_peak <= 1000);
    engine_mem_destroy(&m);
}

/* ---- preloads onto the devices (params_upload) ---- */

typedef struct upload_rec {
    engine_residency *r;
    const char *name;
    int calls, devices[4], evictable_during, fail_device;
    int uploaded_events, failed_events;
} upload_rec;
static upload_rec g_up;

static cuzk_status hook_upload(engine_backend *be, const groth16_params *p, int device, cuzk_error *err)
{
    (void)be;
    if (!p->h || !p->h_len) return cuzk_error_set(err, CUZK_ERR_INTERNAL, "fake: an empty set");
    if (g_up.calls < 4) g_up.devices[g_up.calls] = device;
    g_up.calls++;
    /* Called without the residency's lock and with a reference held: an eviction now must be refused. */
    uint64_t bytes = 0;
    g_up.evictable_during += engine_residency_evict(g_up.r, g_up.name, &bytes);
    if (device == g_up.fail_device) return cuzk_error_set(err, CUZK_ERR_NOMEM, "fake: device %d is full", device);
    return CUZK_OK;
}

static void upload_notify(void *ctx, engine_residency_event ev, const char *name, uint64_t bytes, double ms,
                          const char *error)
{
    (void)ctx, (void)name, (void)bytes, (void)ms;
    if (ev == ENGINE_RESIDENCY_UPLOADED) g_up.uploaded_events += error == NULL;
    if (ev == ENGINE_RESIDENCY_UPLOAD_FAILED) g_up.failed_events += error != NULL && strstr(error, "full") != NULL;
}

/* A preload uploads the set to each configured device, in order, outside the lock, while holding it against
 * eviction; a failed device is counted and noted, not returned; acquire never uploads; no devices, no upload. */
static void test_preload_upload(void)
{
    fake_set sets[1] = {{.name = "u", .points = 100, .tag = 9}};
    hooks h;
    hooks_init(&h, sets, 1);
    h.be.params_upload = hook_upload;
    engine_mem mem;
    cuzk_error err;
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    engine_residency *r = NULL;
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    int devices[2] = {3, 7};
    engine_residency_options o = {.backend = &h.be,
                                  .pinned_budget = 1000 * sizeof(g1_affine_t),
                                  .devices = devices,
                                  .num_devices = 2,
                                  .notify = upload_notify};
    engine_residency_options too_many = o;
    too_many.num_devices = ENGINE_RESIDENCY_MAX_DEVICES + 1;
    CHECK(engine_residency_configure(r, &too_many, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(engine_residency_configure(r, &o, &err) == CUZK_OK);
    devices[0] = -5; /* the residency keeps its own copy */
    CHECK(engine_residency_add(r, "u", fake_load, &sets[0], &err) == CUZK_OK);
    memset(&g_up, 0, sizeof g_up);
    g_up.r = r;
    g_up.name = "u";
    g_up.fail_device = 7;
    CHECK(engine_residency_preload(r, "u", &err) == CUZK_OK);
    CHECK(g_up.calls == 2);
    CHECK(g_up.devices[0] == 3 && g_up.devices[1] == 7);
    CHECK(g_up.evictable_during == 0);
    CHECK(g_up.uploaded_events == 1 && g_up.failed_events == 1);
    CHECK(engine_residency_pinned(r, "u")); /* pinned for the upload's DMA, and stays so while warm */
    engine_residency_stats rs;
    engine_residency_get_stats(r, &rs);
    CHECK(rs.uploads == 1 && rs.upload_failures == 1 && rs.hot == 0 && rs.loaded == 1);
    engine_params *p = NULL;
    CHECK(engine_residency_acquire(r, "u", &p, &err) == CUZK_OK);
    CHECK(g_up.calls == 2);
    engine_residency_release(r, p);
    uint64_t bytes = 0;
    CHECK(engine_residency_evict(r, "u", &bytes) == 1 && bytes == set_bytes(&sets[0]));
    CHECK(h.evicted[0] == 1 && h.bad == 0);
    engine_residency_destroy(r);

    /* Without devices in the options a preload uploads nothing. */
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    o.num_devices = 0;
    o.devices = NULL;
    CHECK(engine_residency_configure(r, &o, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "u", fake_load, &sets[0], &err) == CUZK_OK);
    g_up.calls = 0;
    g_up.r = r;
    CHECK(engine_residency_preload(r, "u", &err) == CUZK_OK);
    CHECK(g_up.calls == 0);
    engine_residency_destroy(r);
    pthread_mutex_destroy(&h.mu);
}

/* ---- loads without the lock: a gated loader ---- */

typedef struct gated_load {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int closed, started, ended, fail_next;
    fake_set set;
} gated_load;

static cuzk_status gated_load_fn(void *ctx, groth16_params *out, cuzk_error *err)
{
    gated_load *g = ctx;
    pthread_mutex_lock(&g->mu);
    g->started++;
    pthread_cond_broadcast(&g->cv);
    while (g->closed) pthread_cond_wait(&g->cv, &g->mu);
    int fail = g->fail_next;
    if (fail) g->fail_next--;
    g->ended++;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (fail) return cuzk_error_set(err, CUZK_ERR_IO, "fake: %s failed as told", g->set.name);
    return fake_load(&g->set, out, err);
}

static void gated_init(gated_load *g, const char *name, uint8_t tag)
{
    memset(g, 0, sizeof(*g));
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->set = (fake_set){.name = name, .points = 64, .tag = tag};
}

static void gated_set(gated_load *g, int closed)
{
    pthread_mutex_lock(&g->mu);
    g->closed = closed;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Waits (up to ms milliseconds) until *field of g reaches n; 0 on time-out. */
static int gated_wait_ms(gated_load *g, const int *field, int n, long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g->mu);
    int waiting = 1;
    while (*field < n && waiting) waiting = pthread_cond_timedwait(&g->cv, &g->mu, &until) == 0;
    int ok = *field >= n;
    pthread_mutex_unlock(&g->mu);
    return ok;
}

static int gated_wait(gated_load *g, const int *field, int n)
{
    return gated_wait_ms(g, field, n, 30000);
}

typedef struct acquirer {
    engine_residency *r;
    const char *name;
    gated_load *note; /* done is set under its lock and broadcast on its cv */
    pthread_t th;
    cuzk_status st;
    engine_params *p;
    int done;
} acquirer;

static void *acquirer_main(void *arg)
{
    acquirer *a = arg;
    cuzk_error err;
    a->st = engine_residency_acquire(a->r, a->name, &a->p, &err);
    pthread_mutex_lock(&a->note->mu);
    a->done = 1;
    pthread_cond_broadcast(&a->note->cv);
    pthread_mutex_unlock(&a->note->mu);
    return NULL;
}

static int caller_done(gated_load *note, acquirer *a)
{
    pthread_mutex_lock(&note->mu);
    int d = a->done;
    pthread_mutex_unlock(&note->mu);
    return d;
}

static void acquirer_start(acquirer *a, engine_residency *r, const char *name, gated_load *note)
{
    *a = (acquirer){.r = r, .name = name, .note = note};
    CHECK(pthread_create(&a->th, NULL, acquirer_main, a) == 0);
}

/* A set loading (its loader held at a gate) holds up only the calls that need a load: a loaded set is acquired
 * and released, states and counters are read; a second caller of the loading set waits and shares its one load;
 * another cold set waits for the running load (one at a time). A failed load leaves the set cold and its waiter
 * loads it again. The residency as it was (loads under its lock) fails at the first wait. */
static void test_load_outside_lock(void)
{
    gated_load slow, other, fast;
    gated_init(&slow, "slow", 21);
    gated_init(&other, "other", 22);
    gated_init(&fast, "fast", 23);
    engine_mem mem;
    cuzk_error err;
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    engine_residency *r = NULL;
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "slow", gated_load_fn, &slow, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "other", gated_load_fn, &other, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "fast", gated_load_fn, &fast, &err) == CUZK_OK);
    engine_params *pf = NULL;
    CHECK(engine_residency_acquire(r, "fast", &pf, &err) == CUZK_OK);
    engine_residency_release(r, pf);

    gated_set(&slow, 1);
    acquirer a1, a2, a3, af;
    acquirer_start(&a1, r, "slow", &slow);
    CHECK(gated_wait(&slow, &slow.started, 1));
    acquirer_start(&af, r, "fast", &slow);
    CHECK_MSG(gated_wait(&slow, &af.done, 1), "a loaded set waited for another set's load");
    CHECK(af.st == CUZK_OK && af.p == pf && fast.started == 1);
    engine_residency_state rs = ENGINE_PARAMS_UNKNOWN;
    CHECK(engine_residency_state_of(r, "fast") == ENGINE_PARAMS_HOT);
    CHECK(engine_residency_try_state_of(r, "slow", &rs) == 1 && rs == ENGINE_PARAMS_COLD);
    engine_residency_stats st;
    CHECK(engine_residency_try_get_stats(r, &st) == 1 && st.loaded == 1 && st.hot == 1);
    engine_residency_release(r, af.p);
    pthread_join(af.th, NULL);
    CHECK(engine_residency_evict(r, "slow", NULL) == 0); /* not loaded yet: nothing to free */
    acquirer_start(&a2, r, "slow", &slow);
    acquirer_start(&a3, r, "other", &slow);
    /* One load at a time: the other cold set's load does not start while this one runs (200 ms without it). */
    CHECK_MSG(!gated_wait_ms(&other, &other.started, 1, 200), "two loads ran at once");
    gated_set(&slow, 0);
    pthread_join(a1.th, NULL);
    pthread_join(a2.th, NULL);
    pthread_join(a3.th, NULL);
    CHECK(a1.st == CUZK_OK && a2.st == CUZK_OK && a1.p && a1.p == a2.p && slow.started == 1);
    CHECK(a3.st == CUZK_OK && a3.p && other.started == 1);
    engine_residency_release(r, a1.p);
    engine_residency_release(r, a2.p);
    engine_residency_release(r, a3.p);

    /* A failed load: its caller gets the error, the set stays cold, the waiter loads it again. */
    CHECK(engine_residency_evict(r, "slow", NULL) == 1);
    slow.fail_next = 1;
    gated_set(&slow, 1);
    acquirer_start(&a1, r, "slow", &slow);
    CHECK(gated_wait(&slow, &slow.started, 2));
    acquirer_start(&a2, r, "slow", &slow);
    gated_set(&slow, 0);
    pthread_join(a1.th, NULL);
    pthread_join(a2.th, NULL);
    CHECK(a1.st == CUZK_ERR_IO && !a1.p && a2.st == CUZK_OK && a2.p && slow.started == 3);
    engine_residency_release(r, a2.p);
    engine_residency_destroy(r);
    engine_mem_destroy(&mem);
}

/* A pin (the backend's registration, seconds for tens of GB) holds up no other set: with one set's pin held at a
 * gate, another loaded set is acquired and released, and the counters are read without waiting. */
static void test_pin_outside_lock(void)
{
    fake_set sets[2] = {{.name = "p", .points = 100, .tag = 31}, {.name = "q", .points = 100, .tag = 32}};
    hooks h;
    hooks_init(&h, sets, 2);
    engine_mem mem;
    cuzk_error err;
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    engine_residency *r = make(&mem, &h, sets, 2, 0, 1 << 20);
    engine_params *pq = NULL;
    CHECK(engine_residency_acquire(r, "q", &pq, &err) == CUZK_OK);
    engine_residency_release(r, pq);
    pthread_mutex_lock(&h.mu);
    h.pin_gate = 1;
    pthread_mutex_unlock(&h.mu);
    gated_load note;
    gated_init(&note, "note", 0);
    acquirer ap, aq;
    acquirer_start(&ap, r, "p", &note);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&h.mu);
    while (h.pins_started < 2 && pthread_cond_timedwait(&h.cv, &h.mu, &until) == 0) {
    }
    int started = h.pins_started;
    pthread_mutex_unlock(&h.mu);
    CHECK_MSG(started == 2, "the second set's pin did not start (%d)", started);
    acquirer_start(&aq, r, "q", &note);
    CHECK_MSG(gated_wait(&note, &aq.done, 1), "a pinned set's acquire waited for another set's pin");
    engine_residency_stats st;
    CHECK(engine_residency_try_get_stats(r, &st) == 1 && st.hot == 2 && st.pinned == 1);
    CHECK(aq.st == CUZK_OK && aq.p == pq && !caller_done(&note, &ap));
    engine_residency_release(r, aq.p);
    pthread_join(aq.th, NULL);
    pthread_mutex_lock(&h.mu);
    h.pin_gate = 0;
    pthread_cond_broadcast(&h.cv);
    pthread_mutex_unlock(&h.mu);
    pthread_join(ap.th, NULL);
    CHECK(ap.st == CUZK_OK && ap.p && engine_residency_pinned(r, "p") && h.bad == 0);
    engine_residency_release(r, ap.p);
    engine_residency_destroy(r);
    engine_mem_destroy(&mem);
}

int main(void)
{
    test_mem_move_counts();
    test_mem_move_atomic();
    test_idle_eviction();
    test_pinned();
    test_pressure();
    test_stress();
    test_preload_upload();
    test_load_outside_lock();
    test_pin_outside_lock();
    return test_finish("test_residency");
}
