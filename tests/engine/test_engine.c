/* The proving engine: the memory budget, prove_start from precomputed a/b/c against the one-shot prover,
 * many jobs of mixed priorities with random cancellation (every proof verifies against its own job's and
 * partition's public inputs), scheduling order, backpressure under a small budget, fault isolation, and the
 * cache of a, b, c buffer sets (reuse, stale data past num_constraints, budget pressure, pinned fallback). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/residency.h"
#include "testutil.h"

/* ---- a small circuit whose public inputs depend on (job tag, partition) ----
 * inputs x, y; aux w_0 .. w_L:  x * 1 = w_0,  w_i * w_i = w_{i+1},  w_L * 1 = y,  so y = x^(2^L).
 * L = CHAIN_LEN (domain 128) for the main circuit, CHAIN_LEN2 (domain 256) for a second one. */
#define CHAIN_LEN 120
#define CHAIN_LEN2 200

static void partition_x(fr_t *x, uint64_t tag, unsigned part)
{
    fr_from_u64(x, tag * 1000 + part + 2);
}

static void expected_inputs(fr_t pub[2], uint64_t tag, unsigned part)
{
    partition_x(&pub[0], tag, part);
    pub[1] = pub[0];
    for (int i = 0; i <= CHAIN_LEN - 1; i++) fr_sqr(&pub[1], &pub[1]);
}

/* Builds the chain of `len` into cs (created by the caller in shape-only or witness-only mode), then
 * finalizes. */
static cuzk_status chain_build_len(r1cs *cs, const fr_t *x, int len, cuzk_error *err)
{
    int vals = cs->has_witness;
    fr_t w, y;
    if (vals) {
        w = *x;
        y = *x;
        for (int i = 0; i < len; i++) fr_sqr(&y, &y);
    }
    r1cs_var vx, vy, cur, nxt;
    r1cs_lc a, b, c;
    r1cs_lc_init(&a);
    r1cs_lc_init(&b);
    r1cs_lc_init(&c);
    cuzk_status st = r1cs_alloc_input(cs, vals ? x : NULL, &vx, err);
    if (st == CUZK_OK) st = r1cs_alloc_input(cs, vals ? &y : NULL, &vy, err);
    if (st == CUZK_OK) st = r1cs_alloc_aux(cs, vals ? &w : NULL, &cur, err);
    if (st == CUZK_OK) st = r1cs_lc_add(&a, vx, NULL, err);
    if (st == CUZK_OK) st = r1cs_lc_add(&b, r1cs_one(), NULL, err);
    if (st == CUZK_OK) st = r1cs_lc_add(&c, cur, NULL, err);
    if (st == CUZK_OK) st = r1cs_enforce(cs, &a, &b, &c, err);
    for (int i = 0; i < len && st == CUZK_OK; i++) {
        if (vals) fr_sqr(&w, &w);
        st = r1cs_alloc_aux(cs, vals ? &w : NULL, &nxt, err);
        r1cs_lc_clear(&a);
        r1cs_lc_clear(&b);
        r1cs_lc_clear(&c);
        if (st == CUZK_OK) st = r1cs_lc_add(&a, cur, NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&b, cur, NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&c, nxt, NULL, err);
        if (st == CUZK_OK) st = r1cs_enforce(cs, &a, &b, &c, err);
        cur = nxt;
    }
    r1cs_lc_clear(&a);
    r1cs_lc_clear(&b);
    r1cs_lc_clear(&c);
    if (st == CUZK_OK) st = r1cs_lc_add(&a, cur, NULL, err);
    if (st == CUZK_OK) st = r1cs_lc_add(&b, r1cs_one(), NULL, err);
    if (st == CUZK_OK) st = r1cs_lc_add(&c, vy, NULL, err);
    if (st == CUZK_OK) st = r1cs_enforce(cs, &a, &b, &c, err);
    r1cs_lc_free(&a);
    r1cs_lc_free(&b);
    r1cs_lc_free(&c);
    if (st == CUZK_OK) st = r1cs_finalize(cs, err);
    return st;
}

static cuzk_status chain_build(r1cs *cs, const fr_t *x, cuzk_error *err)
{
    return chain_build_len(cs, x, CHAIN_LEN, err);
}

/* What a test job carries to its synthesis. */
typedef struct payload {
    uint64_t tag;
    int fail_part; /* synthesis of this partition fails (-1: none) */
    int gate;      /* partition 0 waits until the gate opens */
    int len;       /* chain length; 0: CHAIN_LEN */
} payload;

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open, gate_reached;

static void gate_set(int open)
{
    pthread_mutex_lock(&gate_mu);
    gate_open = open;
    if (!open) gate_reached = 0;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

static void gate_wait_reached(void)
{
    pthread_mutex_lock(&gate_mu);
    while (!gate_reached) pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
}

static cuzk_status chain_synth(void *ctx, const void *pl, unsigned part, r1cs *wit, cuzk_error *err)
{
    (void)ctx;
    const payload *p = pl;
    if (p->gate && part == 0) {
        pthread_mutex_lock(&gate_mu);
        gate_reached = 1;
        pthread_cond_broadcast(&gate_cv);
        while (!gate_open) pthread_cond_wait(&gate_cv, &gate_mu);
        pthread_mutex_unlock(&gate_mu);
    }
    if ((int)part == p->fail_part) {
        memset(wit, 0, sizeof(*wit));
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "test: vanilla proof of partition %u is malformed", part);
    }
    fr_t x;
    partition_x(&x, p->tag, part);
    cuzk_status st = r1cs_create_witness_only(wit, err);
    if (st == CUZK_OK) st = chain_build_len(wit, &x, p->len ? p->len : CHAIN_LEN, err);
    if (st != CUZK_OK) r1cs_free(wit);
    return st;
}

/* ---- fixture ---- */

static r1cs g_shape, g_shape2;
static groth16_params g_params, g_params2;
static engine_circuit g_circuit, g_circuit2; /* chains of CHAIN_LEN and CHAIN_LEN2 */
static pool_t *g_pool;

static int fixture_init(void)
{
    cuzk_error err;
    if (pool_create(&g_pool, 2, &err) != CUZK_OK) return -1;
    if (r1cs_create(&g_shape, 0, &err) != CUZK_OK || chain_build(&g_shape, NULL, &err) != CUZK_OK ||
        groth16_setup(g_pool, &g_shape, &g_params, &err) != CUZK_OK ||
        engine_circuit_init(&g_circuit, "chain", &g_params, &g_shape, chain_synth, NULL, &err) != CUZK_OK ||
        r1cs_create(&g_shape2, 0, &err) != CUZK_OK || chain_build_len(&g_shape2, NULL, CHAIN_LEN2, &err) != CUZK_OK ||
        groth16_setup(g_pool, &g_shape2, &g_params2, &err) != CUZK_OK ||
        engine_circuit_init(&g_circuit2, "chain2", &g_params2, &g_shape2, chain_synth, NULL, &err) != CUZK_OK) {
        fprintf(stderr, "fixture: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static void fixture_free(void)
{
    engine_circuit_free(&g_circuit);
    groth16_params_free(&g_params);
    r1cs_free(&g_shape);
    engine_circuit_free(&g_circuit2);
    groth16_params_free(&g_params2);
    r1cs_free(&g_shape2);
    pool_destroy(g_pool);
}

static int verify_part(const groth16_proof *proof, uint64_t tag, unsigned part)
{
    fr_t pub[2];
    expected_inputs(pub, tag, part);
    cuzk_error err;
    return groth16_verify(NULL, &g_circuit.pvk, proof, pub, 2, &err) == CUZK_OK;
}

/* Events collected in memory (and, for the text check, their lines); the condition variable lets a test wait
 * for what the engine did, never for time (a deadline only turns a hang into a failure). */
typedef struct tl_log {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    engine_event *v;
    size_t n, cap;
    char **lines;
    size_t n_lines, cap_lines;
} tl_log;

static void tl_init(tl_log *l)
{
    memset(l, 0, sizeof(*l));
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
}

static void tl_event(void *ctx, const engine_event *ev)
{
    tl_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        engine_event *nv = realloc(l->v, cap * sizeof(*nv));
        if (!nv) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = *ev;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

static void tl_line(void *ctx, const char *line)
{
    tl_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    if (l->n_lines == l->cap_lines) {
        size_t cap = l->cap_lines ? 2 * l->cap_lines : 256;
        char **nl = realloc(l->lines, cap * sizeof(*nl));
        if (!nl) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
        l->lines = nl;
        l->cap_lines = cap;
    }
    l->lines[l->n_lines] = strdup(line);
    if (l->lines[l->n_lines]) l->n_lines++;
    pthread_mutex_unlock(&l->mu);
}

static void tl_free(tl_log *l)
{
    for (size_t i = 0; i < l->n_lines; i++) free(l->lines[i]);
    free(l->lines);
    free(l->v);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
}

/* With l->mu held (or the engine gone): the index of the first event t of job (part -1: any) at or after from;
 * l->n if none. */
static size_t tl_find(const tl_log *l, size_t from, engine_event_type t, uint64_t job, int part)
{
    for (size_t i = from; i < l->n; i++)
        if (l->v[i].type == t && l->v[i].job_id == job && (part < 0 || l->v[i].partition == part)) return i;
    return l->n;
}

/* With l->mu held (or the engine gone): events t of job in [from, to). */
static unsigned tl_count_in(const tl_log *l, size_t from, size_t to, engine_event_type t, uint64_t job)
{
    unsigned c = 0;
    for (size_t i = from; i < to && i < l->n; i++) c += l->v[i].type == t && l->v[i].job_id == job;
    return c;
}

static size_t tl_count(tl_log *l, engine_event_type t)
{
    size_t c = 0;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n; i++) c += l->v[i].type == t;
    pthread_mutex_unlock(&l->mu);
    return c;
}

/* Waits (up to 30 s) until event t of job, partition part (-1: any), has happened; 0 on time-out. */
static int tl_wait(tl_log *l, engine_event_type t, uint64_t job, int part)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&l->mu);
    int waiting = 1;
    while (tl_find(l, 0, t, job, part) == l->n && waiting)
        waiting = pthread_cond_timedwait(&l->cv, &l->mu, &until) == 0;
    int ok = tl_find(l, 0, t, job, part) < l->n;
    pthread_mutex_unlock(&l->mu);
    return ok;
}

/* Waits (up to 30 s) until n events t of job have happened; 0 on time-out. */
static int tl_wait_count(tl_log *l, engine_event_type t, uint64_t job, unsigned n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&l->mu);
    int waiting = 1;
    while (tl_count_in(l, 0, l->n, t, job) < n && waiting)
        waiting = pthread_cond_timedwait(&l->cv, &l->mu, &until) == 0;
    int ok = tl_count_in(l, 0, l->n, t, job) >= n;
    pthread_mutex_unlock(&l->mu);
    return ok;
}

static int ms_close(double a, double b)
{
    return a - b < 0.0006 && b - a < 0.0006;
}

/* Each TIMELINE line is engine_event_format of the struct reported with it, and reads back to it (the text has
 * milliseconds to 3 decimals, and a failed JOB_END only its outcome). */
static void check_lines(tl_log *l)
{
    CHECK_MSG(l->n_lines == l->n && l->n > 0, "%zu lines for %zu events", l->n_lines, l->n);
    unsigned bad = 0;
    for (size_t i = 0; i < l->n && i < l->n_lines; i++) {
        const engine_event *ev = &l->v[i];
        char line[ENGINE_EVENT_LINE_MAX];
        size_t len = engine_event_format(ev, line, sizeof line);
        engine_event back;
        cuzk_error err;
        int ok = len == strlen(l->lines[i]) && !strcmp(line, l->lines[i]) &&
                 engine_event_parse(l->lines[i], &back, &err) == CUZK_OK && back.type == ev->type &&
                 ms_close(back.t_ms, ev->t_ms) && back.job_id == ev->job_id && back.partition == ev->partition &&
                 back.worker == ev->worker && back.device == ev->device && back.parts == ev->parts &&
                 back.priority == ev->priority && back.bytes == ev->bytes && ms_close(back.ms, ev->ms) &&
                 (back.status == ev->status ||
                  (ev->type == ENGINE_EV_JOB_END && ev->status != CUZK_OK && ev->status != CUZK_ERR_CANCELLED)) &&
                 back.verified == ev->verified;
        if (!ok && bad++ < 5) CHECK_MSG(ok, "event %zu: line %s", i, l->lines[i]);
    }
    CHECK(bad == 0);
}

/* The text of events as the daemon's and cuzk-bench's readers know it, and lines that do not read. */
static void test_event_text(void)
{
    static const struct {
        engine_event ev;
        const char *line;
    } golden[] = {
        {{.type = ENGINE_EV_QUEUE,
          .t_ms = 0.5,
          .job_id = 7,
          .partition = -1,
          .worker = -1,
          .device = -1,
          .parts = 10,
          .priority = 4},
         "TIMELINE t_ms=0.500 ev=QUEUE job=7 part=-1 worker=-1 parts=10 prio=4\n"},
        {{.type = ENGINE_EV_SYNTH_START,
          .t_ms = 1,
          .job_id = 7,
          .partition = 3,
          .worker = 2,
          .device = -1,
          .bytes = 123456789012ull},
         "TIMELINE t_ms=1.000 ev=SYNTH_START job=7 part=3 worker=2 mem=123456789012\n"},
        {{.type = ENGINE_EV_GPU_END, .t_ms = 2.25, .job_id = 7, .partition = 3, .worker = 1, .device = 4, .ms = 12.5},
         "TIMELINE t_ms=2.250 ev=GPU_END job=7 part=3 worker=1 gpu=4 gpu_ms=12.500\n"},
        {{.type = ENGINE_EV_FINISH_START, .t_ms = 3, .job_id = 7, .partition = 3, .worker = 0, .device = -1},
         "TIMELINE t_ms=3.000 ev=FINISH_START job=7 part=3 worker=0\n"},
        {{.type = ENGINE_EV_JOB_END,
          .t_ms = 4,
          .job_id = 7,
          .partition = -1,
          .worker = -1,
          .device = -1,
          .status = CUZK_ERR_CANCELLED,
          .ms = 3.5},
         "TIMELINE t_ms=4.000 ev=JOB_END job=7 part=-1 worker=-1 status=cancelled verified=0 total_ms=3.500\n"},
        {{.type = ENGINE_EV_FAIL,
          .t_ms = 5,
          .job_id = 8,
          .partition = 0,
          .worker = 1,
          .device = -1,
          .status = CUZK_ERR_GPU},
         "TIMELINE t_ms=5.000 ev=FAIL job=8 part=0 worker=1 status=gpu-error\n"},
        {{.type = ENGINE_EV_ABC_FALLBACK,
          .t_ms = 6,
          .job_id = 8,
          .partition = 1,
          .worker = -1,
          .device = -1,
          .status = CUZK_ERR_NOMEM,
          .bytes = 4096},
         "TIMELINE t_ms=6.000 ev=ABC_FALLBACK job=8 part=1 worker=-1 status=out-of-memory bytes=4096\n"},
    };
    cuzk_error err;
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        char line[ENGINE_EVENT_LINE_MAX];
        engine_event_format(&golden[i].ev, line, sizeof line);
        CHECK_MSG(!strcmp(line, golden[i].line), "format %zu: %s", i, line);
        engine_event back;
        CHECK(engine_event_parse(golden[i].line, &back, &err) == CUZK_OK && !memcmp(&back, &golden[i].ev, sizeof back));
    }
    char small[16];
    CHECK(engine_event_format(&golden[0].ev, small, sizeof small) == strlen(golden[0].line) && strlen(small) == 15);
    static const struct {
        const char *line, *why;
    } bad[] = {
        {"", "TIMELINE"},
        {"TIMELINE t_ms=1.000 ev=NOPE job=1 part=0 worker=0\n", "NOPE"},
        {"TIMELINE t_ms=1.000 ev=GPU_END job=1 part=0 worker=0 gpu=0\n", "gpu_ms"},
        {"TIMELINE t_ms=1.000 ev=SYNTH_START job=1 part=0 worker=0 mem=-5\n", "mem=-5"},
        {"TIMELINE t_ms=nan ev=QUEUE job=1 part=-1 worker=-1 parts=1 prio=2\n", "t_ms"},
        {"TIMELINE t_ms=1.000 ev=QUEUE job=1 part=-1 worker=-1 parts=1 prio=2 extra=1\n", "extra"},
        {"TIMELINE t_ms=1.000 ev=FAIL job=1 part=0 worker=0 status=weird\n", "weird"},
        {"TIMELINE t_ms=1.000 ev=JOB_END job=1 part=-1 worker=-1 status=ok verified=2 total_ms=1\n", "verified"},
        {"TIMELINE t_ms=1.000 ev=HANDOFF job=1 part=99999999999 worker=0 wait_ms=0\n", "part"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        engine_event ev;
        cuzk_status st = engine_event_parse(bad[i].line, &ev, &err);
        CHECK_MSG(st == CUZK_ERR_FORMAT && strstr(err.msg, bad[i].why), "bad %zu: %s", i, err.msg);
    }
    CHECK(!strcmp(engine_event_name(ENGINE_EV_COUNT), "?") && !strcmp(engine_event_name(ENGINE_EV_HANDOFF), "HANDOFF"));
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- tests ---- */

/* host_alloc/host_free for the CPU backend that count what they give out, fill new memory with a pattern that
 * is no field element (a backend reading past num_constraints would then prove wrong), and can refuse. */
typedef struct abc_hooks {
    uint64_t allocs, frees, live_bytes, refusals;
    int refuse; /* fail every host_alloc with CUZK_ERR_NOMEM */
} abc_hooks;
static abc_hooks g_hooks;

static cuzk_status hook_alloc(engine_backend *be, size_t bytes, void **out, cuzk_error *err)
{
    (void)be;
    if (__atomic_load_n(&g_hooks.refuse, __ATOMIC_RELAXED)) {
        __atomic_add_fetch(&g_hooks.refusals, 1, __ATOMIC_RELAXED);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "test: page-locking refused");
    }
    void *p = malloc(bytes);
    if (!p) return cuzk_error_set(err, CUZK_ERR_NOMEM, "test: out of memory");
    memset(p, 0xA5, bytes);
    __atomic_add_fetch(&g_hooks.allocs, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_hooks.live_bytes, bytes, __ATOMIC_RELAXED);
    *out = p;
    return CUZK_OK;
}

static void hook_free(engine_backend *be, void *p, size_t bytes)
{
    (void)be;
    __atomic_add_fetch(&g_hooks.frees, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&g_hooks.live_bytes, bytes, __ATOMIC_RELAXED);
    free(p);
}

static void hooks_reset(int refuse)
{
    memset(&g_hooks, 0, sizeof(g_hooks));
    g_hooks.refuse = refuse;
}

static void test_mem(void)
{
    engine_mem m;
    cuzk_error err;
    CHECK(engine_mem_init(&m, 1000, 0, &err) == CUZK_OK);
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 600));
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_PINNED, 400));
    CHECK(!engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 1));         /* host and pinned share the budget */
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_DEVICE, 1u << 30)); /* device: no limit given */
    engine_mem_release(&m, ENGINE_MEM_HOST, 250);
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 250));
    CHECK(!engine_mem_try_reserve(&m, ENGINE_MEM_HOST, UINT64_MAX)); /* no overflow */
    CHECK(!engine_mem_fits_at_all(&m, ENGINE_MEM_HOST, 1001));
    CHECK(engine_mem_fits_at_all(&m, ENGINE_MEM_HOST, 1000));
    engine_mem_stats s;
    engine_mem_get_stats(&m, &s);
    CHECK(s.host_in_use == 1000 && s.host_peak == 1000 && s.peak[ENGINE_MEM_HOST] == 600);
    CHECK(s.refused == 2);
    engine_mem_destroy(&m);
}

/* A reclaimer that frees `cached` bytes it holds as host memory when asked. */
typedef struct fake_cache {
    engine_mem *m;
    uint64_t cached, asked;
    int calls;
} fake_cache;

static uint64_t fake_reclaim(void *ctx, uint64_t bytes)
{
    fake_cache *c = ctx;
    c->calls++;
    c->asked = bytes;
    uint64_t n = c->cached;
    engine_mem_release(c->m, ENGINE_MEM_HOST, n);
    c->cached = 0;
    return n;
}

static void test_mem_reclaim(void)
{
    engine_mem m;
    cuzk_error err;
    CHECK(engine_mem_init(&m, 1000, 0, &err) == CUZK_OK);
    fake_cache c = {.m = &m, .cached = 300};
    engine_mem_set_reclaim(&m, fake_reclaim, &c);
    CHECK(engine_mem_try_reserve_direct(&m, ENGINE_MEM_HOST, 300));            /* the cache's own, taken directly */
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_PINNED, 600) && c.calls == 0); /* fits: not asked */
    CHECK(!engine_mem_try_reserve_direct(&m, ENGINE_MEM_HOST, 200) && c.calls == 0);
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 200)); /* 100 short: the cache is asked */
    CHECK(c.calls == 1 && c.asked == 100 && c.cached == 0);
    CHECK(!engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 300) && c.calls == 2);  /* nothing left to reclaim */
    CHECK(!engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 1001) && c.calls == 2); /* never fits: not asked */
    engine_mem_stats s;
    engine_mem_get_stats(&m, &s);
    CHECK(s.host_in_use == 800 && s.host_peak <= 1000);
    engine_mem_destroy(&m);
}

/* prove_start_abc + prove_finish with fixed r, s gives the one-shot prover's exact proof. */
static void test_prove_start_abc(rng_t *rng)
{
    cuzk_error err;
    r1cs full;
    fr_t x, r, s;
    fr_from_u64(&x, rng_next(rng));
    fr_random(&r, rng);
    fr_random(&s, rng);
    CHECK(r1cs_create(&full, 1, &err) == CUZK_OK);
    CHECK(chain_build(&full, &x, &err) == CUZK_OK);
    groth16_proof p1, p2;
    CHECK(groth16_prove(g_pool, &g_params, &full, NULL, NULL, &r, &s, &p1, NULL, &err) == CUZK_OK);

    size_t m = g_circuit.m;
    fr_t *a = calloc(m, sizeof(fr_t)), *b = calloc(m, sizeof(fr_t)), *c = calloc(m, sizeof(fr_t));
    CHECK(a && b && c);
    CHECK(r1cs_eval_abc(NULL, &g_shape, full.inputs, full.aux, a, b, c, &err) == CUZK_OK);
    groth16_pending pend;
    CHECK(groth16_prove_start_abc(g_pool, &g_params, g_shape.num_constraints, a, b, c, full.inputs, full.num_inputs,
                                  full.aux, full.num_aux, &g_circuit.density, &pend, NULL, &err) == CUZK_OK);
    free(a);
    free(b);
    free(c);
    CHECK(groth16_prove_finish(g_pool, &pend, &r, &s, &p2, NULL, &err) == CUZK_OK);
    uint8_t e1[GROTH16_PROOF_BYTES], e2[GROTH16_PROOF_BYTES];
    groth16_proof_write(e1, &p1);
    groth16_proof_write(e2, &p2);
    CHECK_MSG(memcmp(e1, e2, sizeof(e1)) == 0, "prove_start_abc differs from groth16_prove");
    fr_t pub[2] = {full.inputs[1], full.inputs[2]};
    CHECK(groth16_verify(NULL, &g_circuit.pvk, &p2, pub, 2, &err) == CUZK_OK);

    /* A shape mismatch is reported, not crashed on. */
    fr_t one;
    fr_set_one(&one);
    fr_t buf[4] = {0};
    CHECK(groth16_prove_start_abc(NULL, &g_params, 3, buf, buf, buf, &one, 1, NULL, 0, &g_circuit.density, &pend, NULL,
                                  &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&full);
}

#define MANY_JOBS 14

static void test_many_jobs(rng_t *rng)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    be->host_alloc = hook_alloc; /* cancelled partitions must give their sets back too */
    be->host_free = hook_free;
    hooks_reset(0);
    tl_log tl;
    tl_init(&tl);
    /* Both forms of the events: each line must be its struct's (check_lines). */
    engine_config cfg = {.backend = be,
                         .partition_workers = 3,
                         .gpu_workers = 2,
                         .synthesis_lookahead = 2,
                         .finish_workers = 2,
                         .event_cb = tl_event,
                         .event_ctx = &tl,
                         .timeline_cb = tl_line,
                         .timeline_ctx = &tl,
                         .abc_pinned = 1};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);

    payload pl[MANY_JOBS];
    uint64_t ids[MANY_JOBS];
    unsigned nparts[MANY_JOBS];
    int cancel_asked[MANY_JOBS];
    for (int i = 0; i < MANY_JOBS; i++) {
        pl[i] = (payload){.tag = 100 + (uint64_t)i, .fail_part = -1};
        nparts[i] = 1 + (unsigned)(rng_next(rng) % 4);
        engine_request rq = {.circuit = &g_circuit,
                             .payload = &pl[i],
                             .partitions = nparts[i],
                             .priority = (engine_priority)(1 + rng_next(rng) % 4)};
        CHECK(engine_submit(e, &rq, &ids[i], &err) == CUZK_OK);
        cancel_asked[i] = 0;
        if (rng_next(rng) % 4 == 0) {
            if (rng_next(rng) % 2) sleep_ms((unsigned)(rng_next(rng) % 30));
            cancel_asked[i] = engine_cancel(e, ids[i]);
        }
    }
    unsigned ok_jobs = 0, cancelled = 0;
    /* Waiting in reverse order: completion order is not submission order. */
    for (int i = MANY_JOBS - 1; i >= 0; i--) {
        engine_result res;
        cuzk_status st = engine_wait(e, ids[i], &res, &err);
        if (cancel_asked[i]) {
            CHECK_MSG(st == CUZK_ERR_CANCELLED, "job %d: %s", i, res.error.msg);
            CHECK(res.proofs == NULL);
            cancelled++;
        } else {
            CHECK_MSG(st == CUZK_OK, "job %d: %s", i, res.error.msg);
            if (st != CUZK_OK) continue;
            ok_jobs++;
            CHECK(res.partitions == nparts[i] && res.verified);
            for (unsigned p = 0; p < nparts[i]; p++) {
                CHECK_MSG(verify_part(&res.proofs[p], pl[i].tag, p), "job %d partition %u", i, p);
                /* Not another partition's or job's proof. */
                if (p + 1 < nparts[i]) CHECK(!verify_part(&res.proofs[p], pl[i].tag, p + 1));
                CHECK(!verify_part(&res.proofs[p], pl[i].tag + 1, p));
            }
        }
        engine_result_free(&res);
    }
    engine_result res;
    CHECK(engine_wait(e, ids[0], &res, &err) == CUZK_ERR_INVALID_ARG); /* already claimed */
    engine_stats s;
    engine_get_stats(e, &s);
    CHECK(s.mem.host_in_use == s.abc_idle * g_circuit.abc_bytes); /* only the cache's idle sets remain */
    CHECK(s.jobs_completed == ok_jobs && s.jobs_cancelled == cancelled && s.jobs_failed == 0);
    CHECK(s.jobs_active == 0 && s.handoff_len == 0 && s.finish_pending == 0);
    CHECK(tl_count(&tl, ENGINE_EV_QUEUE) == MANY_JOBS && tl_count(&tl, ENGINE_EV_JOB_END) == MANY_JOBS);
    CHECK(tl_count(&tl, ENGINE_EV_FINISH_END) >= s.partitions_proved);
    CHECK(tl_count(&tl, ENGINE_EV_GPU_END) == tl_count(&tl, ENGINE_EV_GPU_START));
    printf("many jobs: %u ok, %u cancelled, %llu partitions proved, peak accounted %llu bytes\n", ok_jobs, cancelled,
           (unsigned long long)s.partitions_proved, (unsigned long long)s.mem.host_peak);

    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    CHECK(mf != NULL);
    if (mf) {
        engine_metrics_write(e, mf);
        fclose(mf);
        char want[128];
        snprintf(want, sizeof(want), "cuzk_engine_jobs_total{outcome=\"completed\"} %u\n", ok_jobs);
        CHECK(strstr(buf, want) != NULL);
        CHECK(strstr(buf, "cuzk_engine_prove_start_ms_bucket{le=\"+Inf\"}") != NULL);
        CHECK(strstr(buf, "# TYPE cuzk_engine_job_ms histogram") != NULL);
        snprintf(want, sizeof(want), "cuzk_engine_abc_sets_idle %u\n", s.abc_idle);
        CHECK(strstr(buf, want) != NULL);
        free(buf);
    }
    CHECK(s.abc_pinned == s.abc_allocated && g_hooks.live_bytes == s.mem.in_use[ENGINE_MEM_PINNED]);
    engine_destroy(e);
    CHECK(g_hooks.frees == g_hooks.allocs && g_hooks.live_bytes == 0);
    be->host_alloc = NULL;
    be->host_free = NULL;
    engine_backend_destroy(be);
    check_lines(&tl);
    tl_free(&tl);
}

/* Order of synthesis starts with one synthesis worker: priority, then age, lowest partition first. */
static void test_order(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    tl_log tl;
    tl_init(&tl);
    engine_config cfg = {.backend = be,
                         .partition_workers = 1,
                         .gpu_workers = 1,
                         .no_verify = 1,
                         .event_cb = tl_event,
                         .event_ctx = &tl};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    gate_set(0);
    payload gate = {.tag = 1, .fail_part = -1, .gate = 1};
    engine_request rq = {.circuit = &g_circuit, .payload = &gate, .partitions = 1, .priority = ENGINE_PRIO_LOW};
    uint64_t gid, ids[5];
    CHECK(engine_submit(e, &rq, &gid, &err) == CUZK_OK);
    gate_wait_reached(); /* the only synthesis worker is now busy */
    static const engine_priority prio[5] = {ENGINE_PRIO_LOW, ENGINE_PRIO_NORMAL, ENGINE_PRIO_CRITICAL, ENGINE_PRIO_HIGH,
                                            ENGINE_PRIO_NORMAL};
    payload pl[5];
    for (int i = 0; i < 5; i++) {
        pl[i] = (payload){.tag = 10 + (uint64_t)i, .fail_part = -1};
        rq = (engine_request){.circuit = &g_circuit, .payload = &pl[i], .partitions = 2, .priority = prio[i]};
        CHECK(engine_submit(e, &rq, &ids[i], &err) == CUZK_OK);
    }
    gate_set(1);
    engine_result res;
    CHECK(engine_wait(e, gid, &res, &err) == CUZK_OK);
    engine_result_free(&res);
    for (int i = 0; i < 5; i++) {
        CHECK(engine_wait(e, ids[i], &res, &err) == CUZK_OK);
        engine_result_free(&res);
    }
    /* Expected: critical (2), high (3), normal (1 then 4), low (0); partitions 0 then 1. */
    static const int order[5] = {2, 3, 1, 4, 0};
    size_t got = 0;
    pthread_mutex_lock(&tl.mu);
    for (size_t i = 0; i < tl.n && got < 10; i++) {
        const engine_event *ev = &tl.v[i];
        if (ev->type != ENGINE_EV_SYNTH_START || ev->job_id == gid) continue;
        uint64_t want_job = ids[order[got / 2]];
        int want_part = (int)(got % 2);
        CHECK_MSG(ev->job_id == want_job && ev->partition == want_part, "start %zu: job %llu part %d, wanted %llu %d",
                  got, (unsigned long long)ev->job_id, ev->partition, (unsigned long long)want_job, want_part);
        got++;
    }
    pthread_mutex_unlock(&tl.mu);
    CHECK(got == 10);
    engine_destroy(e);
    engine_backend_destroy(be);
    tl_free(&tl);
}

/* A small budget: peak accounted memory stays within it, and everything still completes. */
static void test_backpressure(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    uint64_t per_part = g_circuit.witness_bytes + g_circuit.abc_bytes;
    uint64_t budget = per_part * 2 + per_part / 2;
    engine_config cfg = {
        .backend = be, .partition_workers = 4, .gpu_workers = 2, .synthesis_lookahead = 4, .host_budget = budget};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pl[4];
    uint64_t ids[4];
    for (int i = 0; i < 4; i++) {
        pl[i] = (payload){.tag = 500 + (uint64_t)i, .fail_part = -1};
        engine_request rq = {.circuit = &g_circuit, .payload = &pl[i], .partitions = 3, .priority = ENGINE_PRIO_NORMAL};
        CHECK(engine_submit(e, &rq, &ids[i], &err) == CUZK_OK);
    }
    for (int i = 0; i < 4; i++) {
        engine_result res;
        CHECK_MSG(engine_wait(e, ids[i], &res, &err) == CUZK_OK, "%s", res.error.msg);
        for (unsigned p = 0; res.proofs && p < 3; p++) CHECK(verify_part(&res.proofs[p], pl[i].tag, p));
        engine_result_free(&res);
    }
    engine_stats s;
    engine_get_stats(e, &s);
    CHECK_MSG(s.mem.host_peak <= budget, "peak %llu > budget %llu", (unsigned long long)s.mem.host_peak,
              (unsigned long long)budget);
    CHECK(s.mem.host_peak >= per_part);
    CHECK(s.mem.refused > 0); /* the budget did push back */
    CHECK(s.mem.host_in_use == s.abc_idle * g_circuit.abc_bytes);
    printf("backpressure: budget %llu, peak accounted %llu, %llu refusals\n", (unsigned long long)budget,
           (unsigned long long)s.mem.host_peak, (unsigned long long)s.mem.refused);
    engine_destroy(e);

    /* A budget smaller than one partition fails the job at once; the engine keeps serving. */
    cfg.host_budget = per_part - 1;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    engine_request rq = {.circuit = &g_circuit, .payload = &pl[0], .partitions = 2, .priority = ENGINE_PRIO_HIGH};
    CHECK(engine_submit(e, &rq, &ids[0], &err) == CUZK_OK);
    engine_result res;
    CHECK(engine_wait(e, ids[0], &res, &err) == CUZK_ERR_NOMEM);
    CHECK(strstr(res.error.msg, "budget") != NULL);
    engine_destroy(e);
    engine_backend_destroy(be);
}

/* A backend that fails prove_start for one job and partition. */
typedef struct fault_backend {
    engine_backend be;
    engine_backend *inner;
    uint64_t job;
    unsigned part;
} fault_backend;

static cuzk_status fb_start(engine_backend *be, int device, unsigned worker, const engine_partition *p, void **handle,
                            cuzk_error *err)
{
    fault_backend *fb = be->ctx;
    if (p->job_id == fb->job && p->index == fb->part)
        return cuzk_error_set(err, CUZK_ERR_GPU, "test: device fault on job %llu", (unsigned long long)p->job_id);
    return fb->inner->prove_start(fb->inner, device, worker, p, handle, err);
}
static cuzk_status fb_finish(engine_backend *be, void *h, groth16_proof *proof, cuzk_error *err)
{
    fault_backend *fb = be->ctx;
    return fb->inner->prove_finish(fb->inner, h, proof, err);
}
static void fb_discard(engine_backend *be, void *h)
{
    fault_backend *fb = be->ctx;
    fb->inner->discard(fb->inner, h);
}

typedef struct fault_target {
    uint64_t job;
    unsigned part;
} fault_target;

static int alloc_fault(void *ctx, engine_fault_point pt, uint64_t job, unsigned part)
{
    const fault_target *t = ctx;
    return pt == ENGINE_FAULT_ALLOC_ABC && job == t->job && part == t->part;
}

static void test_faults(void)
{
    cuzk_error err;
    engine_backend *cpu;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &cpu, &err) == CUZK_OK);
    /* Job ids are 1, 2, 3, ... in submission order on a fresh engine. */
    fault_backend fb = {.be = {.name = "faulty",
                               .prove_start = fb_start,
                               .prove_finish = fb_finish,
                               .discard = fb_discard,
                               .host_alloc = hook_alloc,
                               .host_free = hook_free},
                        .inner = cpu,
                        .job = 3,
                        .part = 1};
    fb.be.ctx = &fb;
    hooks_reset(0);
    fault_target ft = {.job = 5, .part = 2};
    engine_config cfg = {.backend = &fb.be,
                         .partition_workers = 2,
                         .gpu_workers = 2,
                         .fault = alloc_fault,
                         .fault_ctx = &ft,
                         .abc_pinned = 1};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pl[6];
    uint64_t ids[6];
    for (int i = 0; i < 6; i++) {
        pl[i] = (payload){.tag = 900 + (uint64_t)i, .fail_part = i == 1 ? 2 : -1};
        engine_request rq = {
            .circuit = &g_circuit, .payload = &pl[i], .partitions = 3, .priority = (engine_priority)(1 + i % 4)};
        CHECK(engine_submit(e, &rq, &ids[i], &err) == CUZK_OK);
        CHECK(ids[i] == (uint64_t)i + 1);
    }
    for (int i = 0; i < 6; i++) {
        engine_result res;
        cuzk_status st = engine_wait(e, ids[i], &res, &err);
        if (i == 1) {
            CHECK_MSG(st == CUZK_ERR_FORMAT && strstr(res.error.msg, "partition 2") &&
                          strstr(res.error.msg, "malformed"),
                      "synthesis fault: %s", res.error.msg);
        } else if (i == 2) {
            CHECK_MSG(st == CUZK_ERR_GPU && strstr(res.error.msg, "partition 1") && strstr(res.error.msg, "device"),
                      "backend fault: %s", res.error.msg);
        } else if (i == 4) {
            CHECK_MSG(st == CUZK_ERR_NOMEM && strstr(res.error.msg, "partition 2"), "alloc fault: %s", res.error.msg);
        } else {
            CHECK_MSG(st == CUZK_OK, "job %d: %s", i, res.error.msg);
            for (unsigned p = 0; res.proofs && p < 3; p++) CHECK(verify_part(&res.proofs[p], pl[i].tag, p));
        }
        CHECK((st == CUZK_OK) == (res.proofs != NULL));
        engine_result_free(&res);
    }
    /* Still serving after the faults. */
    payload after = {.tag = 77, .fail_part = -1};
    engine_request rq = {.circuit = &g_circuit, .payload = &after, .partitions = 2, .priority = ENGINE_PRIO_LOW};
    uint64_t id;
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    engine_result res;
    CHECK(engine_wait(e, id, &res, &err) == CUZK_OK);
    for (unsigned p = 0; res.proofs && p < 2; p++) CHECK(verify_part(&res.proofs[p], 77, p));
    engine_result_free(&res);
    engine_stats s;
    engine_get_stats(e, &s);
    CHECK(s.jobs_failed == 3 && s.jobs_completed == 4 && s.mem.host_in_use == s.abc_idle * g_circuit.abc_bytes);
    /* Failed partitions gave their sets back: no more sets than permits (2 + 1 reserved + 2 + 2) ever existed. */
    CHECK(s.abc_allocated <= 7 && s.abc_reused > 0 && g_hooks.live_bytes == s.mem.in_use[ENGINE_MEM_PINNED]);
    engine_destroy(e);
    CHECK(g_hooks.frees == g_hooks.allocs && g_hooks.live_bytes == 0);
    engine_backend_destroy(cpu);
}

/* Destroying an engine with work in every stage releases everything (ASan checks the leaks). */
static void test_destroy_busy(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    be->host_alloc = hook_alloc;
    be->host_free = hook_free;
    hooks_reset(0);
    engine_config cfg = {.backend = be, .partition_workers = 2, .gpu_workers = 1, .abc_pinned = 1};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pl = {.tag = 3, .fail_part = -1};
    for (int i = 0; i < 4; i++) {
        engine_request rq = {.circuit = &g_circuit, .payload = &pl, .partitions = 4, .priority = ENGINE_PRIO_NORMAL};
        uint64_t id;
        CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    }
    sleep_ms(20);
    engine_destroy(e);
    CHECK(g_hooks.frees == g_hooks.allocs && g_hooks.live_bytes == 0);
    be->host_alloc = NULL;
    be->host_free = NULL;
    engine_backend_destroy(be);
}

/* ---- the a, b, c cache ---- */

/* A backend proving with r, s fixed by (job, partition), so that its proofs can be compared byte for byte with
 * the one-shot prover's (groth16_prove evaluates a, b, c itself, in buffers of its own). */
typedef struct fixed_handle {
    groth16_pending pending;
    uint64_t job;
    unsigned part;
} fixed_handle;

static void fixed_rs(uint64_t job, unsigned part, fr_t *r, fr_t *s)
{
    fr_from_u64(r, job * 7919 + part + 11);
    fr_from_u64(s, job * 104729 + part + 13);
}

static cuzk_status fixed_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                               void **handle, cuzk_error *err)
{
    (void)be;
    (void)device;
    (void)worker;
    fixed_handle *h = malloc(sizeof(*h));
    if (!h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "test: handle");
    h->job = p->job_id;
    h->part = p->index;
    cuzk_status st =
        groth16_prove_start_abc(NULL, p->circuit->params, p->num_constraints, p->a, p->b, p->c, p->inputs,
                                p->num_inputs, p->aux, p->num_aux, &p->circuit->density, &h->pending, NULL, err);
    if (st != CUZK_OK) {
        free(h);
        return st;
    }
    *handle = h;
    return CUZK_OK;
}

static cuzk_status fixed_finish(engine_backend *be, void *handle, groth16_proof *proof, cuzk_error *err)
{
    (void)be;
    fixed_handle *h = handle;
    fr_t r, s;
    fixed_rs(h->job, h->part, &r, &s);
    cuzk_status st = groth16_prove_finish(NULL, &h->pending, &r, &s, proof, NULL, err);
    free(h);
    return st;
}

static void fixed_discard(engine_backend *be, void *handle)
{
    (void)be;
    free(handle);
}

/* fixed_start, then a, b, c handed back early (engine_partition.abc_release), then 100 ms more "device work". */
static cuzk_status early_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                               void **handle, cuzk_error *err)
{
    cuzk_status st = fixed_start(be, device, worker, p, handle, err);
    if (st != CUZK_OK) return st;
    CHECK(p->abc_release != NULL);
    if (p->abc_release) p->abc_release(p->abc_release_ctx);
    sleep_ms(100);
    return CUZK_OK;
}

/* The one-shot prover's proof of partition `part` of a job tagged `tag` with engine job id `job`. */
static int oneshot_matches(const groth16_proof *got, uint64_t tag, uint64_t job, unsigned part)
{
    cuzk_error err;
    r1cs full;
    fr_t x, r, s;
    partition_x(&x, tag, part);
    fixed_rs(job, part, &r, &s);
    groth16_proof want;
    int ok = r1cs_create(&full, 1, &err) == CUZK_OK && chain_build(&full, &x, &err) == CUZK_OK &&
             groth16_prove(NULL, &g_params, &full, NULL, NULL, &r, &s, &want, NULL, &err) == CUZK_OK;
    r1cs_free(&full);
    uint8_t e1[GROTH16_PROOF_BYTES], e2[GROTH16_PROOF_BYTES];
    if (!ok) return 0;
    groth16_proof_write(e1, &want);
    groth16_proof_write(e2, got);
    return memcmp(e1, e2, sizeof(e1)) == 0;
}

/* ---- several devices ---- */

/* Records which (worker, device) pairs prove_start sees; a call waits (up to 5 s) until both devices have had one,
 * so the test does not depend on which idle worker the scheduler wakes. */
typedef struct dev_log {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls[8][2]; /* [worker][index of the device in DEVS] */
    int bad;         /* a call with a worker or device outside the configuration */
    int seen[2];
} dev_log;

static const int DEVS[2] = {4, 9};

static cuzk_status devlog_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                                void **handle, cuzk_error *err)
{
    dev_log *dl = be->ctx;
    int d = device == DEVS[0] ? 0 : device == DEVS[1] ? 1 : -1;
    pthread_mutex_lock(&dl->mu);
    if (d < 0 || worker >= 8) {
        dl->bad++;
    } else {
        dl->calls[worker][d]++;
        dl->seen[d] = 1;
        pthread_cond_broadcast(&dl->cv);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 5;
        while (!(dl->seen[0] && dl->seen[1]))
            if (pthread_cond_timedwait(&dl->cv, &dl->mu, &until) != 0) break;
    }
    pthread_mutex_unlock(&dl->mu);
    return fixed_start(be, device, worker, p, handle, err);
}

/* Two devices, two prover workers each: worker w proves only on devices[w / 2], both devices prove, and every
 * proof is the one-shot prover's for its job and partition. */
static void test_devices(void)
{
    cuzk_error err;
    dev_log dl;
    memset(&dl, 0, sizeof dl);
    pthread_mutex_init(&dl.mu, NULL);
    pthread_cond_init(&dl.cv, NULL);
    engine_backend be = {.name = "devices",
                         .ctx = &dl,
                         .prove_start = devlog_start,
                         .prove_finish = fixed_finish,
                         .discard = fixed_discard};
    /* Three partition workers: with two partitions held by the workers of one device, a third can only go to
     * the other's. */
    engine_config cfg = {.backend = &be, .devices = DEVS, .num_devices = 2, .gpu_workers = 2, .partition_workers = 3};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    uint64_t ids[3];
    payload pl[3];
    for (int i = 0; i < 3; i++) {
        pl[i] = (payload){.tag = 60 + (uint64_t)i, .fail_part = -1};
        engine_request rq = {.circuit = &g_circuit, .payload = &pl[i], .partitions = 4, .priority = ENGINE_PRIO_NORMAL};
        CHECK(engine_submit(e, &rq, &ids[i], &err) == CUZK_OK);
    }
    for (int i = 0; i < 3; i++) {
        engine_result res;
        CHECK_MSG(engine_wait(e, ids[i], &res, &err) == CUZK_OK && res.status == CUZK_OK, "devices: job %d: %s", i,
                  res.error.msg);
        CHECK(res.status != CUZK_OK || res.partitions == 4);
        for (unsigned k = 0; res.status == CUZK_OK && k < res.partitions; k++)
            CHECK_MSG(oneshot_matches(&res.proofs[k], pl[i].tag, ids[i], k), "devices: job %d partition %u", i, k);
        engine_result_free(&res);
    }
    engine_destroy(e);
    int total = 0;
    CHECK_MSG(dl.bad == 0, "devices: %d calls outside the configured workers and devices", dl.bad);
    for (int w = 0; w < 8; w++)
        for (int d = 0; d < 2; d++) {
            total += dl.calls[w][d];
            if (dl.calls[w][d]) CHECK_MSG(w < 4 && d == w / 2, "devices: worker %d proved on device %d", w, DEVS[d]);
        }
    CHECK_MSG(total == 12, "devices: %d prove_start calls for 12 partitions", total);
    CHECK_MSG(dl.seen[0] && dl.seen[1], "devices: device %d proved nothing", dl.seen[0] ? DEVS[1] : DEVS[0]);
    pthread_cond_destroy(&dl.cv);
    pthread_mutex_destroy(&dl.mu);
}

/* ---- CRITICAL work under load ---- */

/* fixed_start, in the order of the calls; the partitions of one job wait for a turn the test grants. */
typedef struct turn_backend {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t gated_job;
    unsigned turns;
    uint64_t calls[32]; /* job ids, in call order */
    unsigned n_calls;
} turn_backend;

static cuzk_status turn_start(engine_backend *be, int device, unsigned worker, const engine_partition *p, void **handle,
                              cuzk_error *err)
{
    turn_backend *tb = be->ctx;
    pthread_mutex_lock(&tb->mu);
    if (tb->n_calls < 32) tb->calls[tb->n_calls++] = p->job_id;
    pthread_cond_broadcast(&tb->cv);
    if (p->job_id == tb->gated_job) {
        while (!tb->turns) pthread_cond_wait(&tb->cv, &tb->mu);
        tb->turns--;
    }
    pthread_mutex_unlock(&tb->mu);
    return fixed_start(be, device, worker, p, handle, err);
}

/* The engine emits GPU_START before it calls prove_start: waits (up to 30 s) for n calls themselves; 0 on
 * time-out. */
static int turn_wait_calls(turn_backend *tb, unsigned n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&tb->mu);
    int waiting = 1;
    while (tb->n_calls < n && waiting) waiting = pthread_cond_timedwait(&tb->cv, &tb->mu, &until) == 0;
    int ok = tb->n_calls >= n;
    pthread_mutex_unlock(&tb->mu);
    return ok;
}

static void turn_grant(turn_backend *tb, unsigned n)
{
    pthread_mutex_lock(&tb->mu);
    tb->turns += n;
    pthread_cond_broadcast(&tb->cv);
    pthread_mutex_unlock(&tb->mu);
}

/* A CRITICAL one-partition job submitted while a job of 8 larger partitions (the second circuit: twice the
 * domain) fills the pipeline, its prove_start calls held until the test grants them turns. Two loads:
 *   memory: the budget less the reserve holds three large partitions (one in prove_start, two handed off) and
 *     the reserve one more, so without a reserve a fourth large one would have taken the room;
 *   capacity: no budget, two prover workers both in prove_start and the hand-off full (its capacity 2); the
 *     CRITICAL synthesis is gated so that one worker comes free while it synthesizes.
 * In both its synthesis starts before any large partition's prove_start ends and no large synthesis starts
 * before it; its prove_start is the next call after the one that ended (the memory load) or before any queued
 * partition although a worker came free meanwhile (capacity); it ends before a second large prove_start has.
 * The engine as it was (no reserved worker or reserve, no kept turn) fails each load at its first wait. */
static void test_critical_latency(void)
{
    cuzk_error err;
    uint64_t big = g_circuit2.witness_bytes + g_circuit2.abc_bytes;
    uint64_t small = g_circuit.witness_bytes + g_circuit.abc_bytes;
    CHECK(small <= big);
    for (int load = 0; load < 2; load++) {
        const int mem_load = load == 0;
        turn_backend tb;
        memset(&tb, 0, sizeof tb);
        pthread_mutex_init(&tb.mu, NULL);
        pthread_cond_init(&tb.cv, NULL);
        tb.gated_job = 1; /* ids are 1, 2, ... in submission order on a fresh engine */
        engine_backend be = {.name = "turns",
                             .ctx = &tb,
                             .prove_start = turn_start,
                             .prove_finish = fixed_finish,
                             .discard = fixed_discard};
        tl_log l;
        tl_init(&l);
        engine_config cfg = {.backend = &be,
                             .partition_workers = 2,
                             .gpu_workers = mem_load ? 1 : 2,
                             .synthesis_lookahead = mem_load ? 8 : 2,
                             .host_budget = mem_load ? 4 * big : 0,
                             .critical_reserve = mem_load ? big : 0,
                             .event_cb = tl_event,
                             .event_ctx = &l};
        engine *e;
        CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
        payload pb = {.tag = 300 + (uint64_t)load, .fail_part = -1, .len = CHAIN_LEN2};
        payload pc = {.tag = 310 + (uint64_t)load, .fail_part = -1, .gate = !mem_load};
        engine_request rb = {.circuit = &g_circuit2, .payload = &pb, .partitions = 8, .priority = ENGINE_PRIO_NORMAL};
        engine_request rc = {.circuit = &g_circuit, .payload = &pc, .partitions = 1, .priority = ENGINE_PRIO_CRITICAL};
        uint64_t idb, idc;
        CHECK(engine_submit(e, &rb, &idb, &err) == CUZK_OK && idb == 1);
        /* The load in place: every large partition that can start has (counted: which partition a worker
         * takes first depends on which synthesis ends first). Memory: one in prove_start and two handed off
         * fill the budget less the reserve; capacity: both provers busy and the hand-off (2) full. */
        unsigned provers = mem_load ? 1 : 2;
        CHECK(tl_wait_count(&l, ENGINE_EV_GPU_START, idb, provers) &&
              tl_wait_count(&l, ENGINE_EV_HANDOFF, idb, provers + 2));
        CHECK_MSG(turn_wait_calls(&tb, provers), "load %d: the large prove_start calls were not made", load);
        if (!mem_load) gate_set(0);
        CHECK(engine_submit(e, &rc, &idc, &err) == CUZK_OK && idc == 2);
        CHECK_MSG(tl_wait(&l, ENGINE_EV_SYNTH_START, idc, 0), "load %d: the CRITICAL synthesis did not start", load);
        if (!mem_load) {
            /* One large prove_start ends while the CRITICAL partition synthesizes: its worker must wait. Its
             * partition's FINISH_START comes after the worker chose (it queues the partition for prove_finish and
             * looks at the channel under one hold of the engine's lock). */
            turn_grant(&tb, 1);
            CHECK(tl_wait(&l, ENGINE_EV_FINISH_START, idb, -1));
            gate_set(1);
        }
        CHECK_MSG(tl_wait(&l, ENGINE_EV_HANDOFF, idc, 0), "load %d: the CRITICAL partition was not handed off", load);
        if (mem_load) turn_grant(&tb, 1);
        CHECK_MSG(tl_wait(&l, ENGINE_EV_JOB_END, idc, -1), "load %d: the CRITICAL job did not end", load);
        turn_grant(&tb, 100);
        engine_result res;
        CHECK_MSG(engine_wait(e, idc, &res, &err) == CUZK_OK, "%s", res.error.msg);
        CHECK(res.proofs && verify_part(&res.proofs[0], pc.tag, 0));
        engine_result_free(&res);
        CHECK_MSG(engine_wait(e, idb, &res, &err) == CUZK_OK && res.verified, "%s", res.error.msg);
        engine_result_free(&res);
        engine_stats s;
        engine_get_stats(e, &s);
        CHECK(!mem_load || s.mem.host_peak <= cfg.host_budget);
        engine_destroy(e);

        pthread_mutex_lock(&l.mu);
        size_t queued = tl_find(&l, 0, ENGINE_EV_QUEUE, idc, -1),
               started = tl_find(&l, 0, ENGINE_EV_SYNTH_START, idc, 0);
        size_t ended = tl_find(&l, 0, ENGINE_EV_JOB_END, idc, -1);
        CHECK(queued < started && started < ended && ended < l.n);
        CHECK_MSG(tl_count_in(&l, queued, started, ENGINE_EV_SYNTH_START, idb) == 0 &&
                      tl_count_in(&l, queued, started, ENGINE_EV_GPU_END, idb) == 0,
                  "load %d: the CRITICAL synthesis waited for the large job", load);
        /* The reserved prover worker may run the CRITICAL partition before the granted large call ends. */
        CHECK_MSG(tl_count_in(&l, 0, ended, ENGINE_EV_GPU_END, idb) <= 1,
                  "load %d: %u large prove_start calls ended first", load,
                  tl_count_in(&l, 0, ended, ENGINE_EV_GPU_END, idb));
        pthread_mutex_unlock(&l.mu);
        /* The CRITICAL prove_start came right after those in progress when it was handed off. A worker that
         * came free (capacity: the granted one; memory: the granted one too, once the reserved prover worker has
         * popped the CRITICAL partition but not yet called) may start a queued partition at the same moment,
         * so either of the next two calls may be it. */
        unsigned at = mem_load ? 1 : 2, pos = 0;
        while (pos < tb.n_calls && tb.calls[pos] != idc) pos++;
        CHECK_MSG(pos < tb.n_calls && pos >= at && pos <= at + 1,
                  "load %d: the CRITICAL prove_start was call %u of %u (expected %u or the next)", load, pos,
                  tb.n_calls, at);
        tl_free(&l);
        pthread_cond_destroy(&tb.cv);
        pthread_mutex_destroy(&tb.mu);
    }
}

/* Every ordinary prover worker stuck in a long prove_start (the large job's calls wait for turns the test does
 * not grant): a CRITICAL job still goes through, on the reserved prover worker of the device, with its own worker
 * id (gpu_workers * devices + device), while every large call is still waiting. The engine without a reserved
 * prover worker waits here for a turn that never comes. */
static void test_critical_reserved_worker(void)
{
    cuzk_error err;
    turn_backend tb;
    memset(&tb, 0, sizeof tb);
    pthread_mutex_init(&tb.mu, NULL);
    pthread_cond_init(&tb.cv, NULL);
    tb.gated_job = 1;
    engine_backend be = {
        .name = "turns", .ctx = &tb, .prove_start = turn_start, .prove_finish = fixed_finish, .discard = fixed_discard};
    tl_log l;
    tl_init(&l);
    engine_config cfg = {.backend = &be,
                         .partition_workers = 2,
                         .gpu_workers = 2,
                         .synthesis_lookahead = 2,
                         .event_cb = tl_event,
                         .event_ctx = &l};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pb = {.tag = 320, .fail_part = -1, .len = CHAIN_LEN2};
    payload pc = {.tag = 321, .fail_part = -1};
    engine_request rb = {.circuit = &g_circuit2, .payload = &pb, .partitions = 6, .priority = ENGINE_PRIO_NORMAL};
    engine_request rc = {.circuit = &g_circuit, .payload = &pc, .partitions = 1, .priority = ENGINE_PRIO_CRITICAL};
    uint64_t idb, idc;
    CHECK(engine_submit(e, &rb, &idb, &err) == CUZK_OK && idb == 1);
    CHECK(tl_wait_count(&l, ENGINE_EV_GPU_START, idb, 2) && tl_wait_count(&l, ENGINE_EV_HANDOFF, idb, 4));
    CHECK(engine_submit(e, &rc, &idc, &err) == CUZK_OK);
    CHECK_MSG(tl_wait(&l, ENGINE_EV_JOB_END, idc, -1), "the CRITICAL job waited for the stuck workers");
    pthread_mutex_lock(&l.mu);
    size_t start = tl_find(&l, 0, ENGINE_EV_GPU_START, idc, 0);
    CHECK(start < l.n && l.v[start].worker == 2);
    CHECK_MSG(tl_count_in(&l, 0, l.n, ENGINE_EV_GPU_END, idb) == 0, "a large prove_start ended without a turn");
    pthread_mutex_unlock(&l.mu);
    turn_grant(&tb, 100);
    engine_result res;
    CHECK_MSG(engine_wait(e, idc, &res, &err) == CUZK_OK && res.verified, "%s", res.error.msg);
    CHECK(res.proofs && verify_part(&res.proofs[0], pc.tag, 0));
    engine_result_free(&res);
    CHECK_MSG(engine_wait(e, idb, &res, &err) == CUZK_OK && res.verified, "%s", res.error.msg);
    engine_result_free(&res);
    engine_destroy(e);
    tl_free(&l);
    pthread_cond_destroy(&tb.cv);
    pthread_mutex_destroy(&tb.mu);
}

/* A budget held by what no partition frees (here an outside reservation, as the daemon's parameter sets of queued
 * jobs are): with nothing in flight the waiting job fails with CUZK_ERR_NOMEM and a reason within a few seconds
 * instead of every job waiting for ever (the soak's deadlock at a 68 MiB budget); with the room back the engine
 * proves again. */
static void test_budget_stall_fails(void)
{
    cuzk_error err;
    engine_backend be = {
        .name = "fixed", .prove_start = fixed_start, .prove_finish = fixed_finish, .discard = fixed_discard};
    uint64_t part = g_circuit.witness_bytes + g_circuit.abc_bytes;
    tl_log l;
    tl_init(&l);
    engine_config cfg = {.backend = &be,
                         .partition_workers = 1,
                         .gpu_workers = 1,
                         .host_budget = 4 * part,
                         .event_cb = tl_event,
                         .event_ctx = &l};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    uint64_t held = 4 * part - part / 2; /* leaves half a partition */
    CHECK(engine_mem_try_reserve(engine_memory(e), ENGINE_MEM_HOST, held));
    payload pl = {.tag = 330, .fail_part = -1};
    engine_request rq = {.circuit = &g_circuit, .payload = &pl, .partitions = 2, .priority = ENGINE_PRIO_NORMAL};
    uint64_t id;
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    int ended = tl_wait(&l, ENGINE_EV_JOB_END, id, -1);
    CHECK_MSG(ended, "a job that cannot get room with nothing in flight waited for ever");
    if (!ended) engine_cancel(e, id);
    engine_result res;
    cuzk_status st = engine_wait(e, id, &res, &err);
    CHECK_MSG(st == CUZK_ERR_NOMEM && strstr(res.error.msg, "no partition in flight") != NULL, "status %d: %s", st,
              res.error.msg);
    engine_result_free(&res);
    engine_mem_release(engine_memory(e), ENGINE_MEM_HOST, held);
    pl.tag = 331;
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK && res.verified, "after the room came back: %s", res.error.msg);
    CHECK(res.proofs && verify_part(&res.proofs[0], pl.tag, 0) && verify_part(&res.proofs[1], pl.tag, 1));
    engine_result_free(&res);
    engine_destroy(e);
    tl_free(&l);
}

/* Sets come from the hooks, are reused across partitions and jobs, hold stale data past num_constraints (the
 * hooks' pattern, then an earlier partition's values) without changing a proof, stay accounted while idle, and
 * are all freed by engine_destroy. The same jobs without a cache (abc_cache < 0) give the same proofs. */
static void test_abc_cache(void)
{
    cuzk_error err;
    engine_backend be = {.name = "fixed",
                         .prove_start = fixed_start,
                         .prove_finish = fixed_finish,
                         .discard = fixed_discard,
                         .host_alloc = hook_alloc,
                         .host_free = hook_free};
    groth16_proof first[2][3];
    for (int cached = 1; cached >= 0; cached--) {
        hooks_reset(0);
        engine_config cfg = {
            .backend = &be, .partition_workers = 2, .gpu_workers = 1, .abc_pinned = 1, .abc_cache = cached ? 0 : -1};
        engine *e;
        CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
        payload pl[4];
        for (int i = 0; i < 4; i++) {
            pl[i] = (payload){.tag = 40 + (uint64_t)i, .fail_part = -1};
            engine_request rq = {
                .circuit = &g_circuit, .payload = &pl[i], .partitions = 3, .priority = ENGINE_PRIO_NORMAL};
            uint64_t id;
            CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
            engine_result res;
            CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
            for (unsigned p = 0; res.proofs && p < 3; p++) {
                CHECK_MSG(oneshot_matches(&res.proofs[p], pl[i].tag, id, p), "job %d partition %u (cache %d)", i, p,
                          cached);
                if (i < 2 && cached) first[i][p] = res.proofs[p];
                if (i < 2 && !cached) {
                    uint8_t e1[GROTH16_PROOF_BYTES], e2[GROTH16_PROOF_BYTES];
                    groth16_proof_write(e1, &first[i][p]);
                    groth16_proof_write(e2, &res.proofs[p]);
                    CHECK(memcmp(e1, e2, sizeof(e1)) == 0);
                }
            }
            engine_result_free(&res);
        }
        engine_stats s;
        engine_get_stats(e, &s);
        /* Synthesizing or handed off: at most the hand-off's capacity (2), plus 1 prover: never more sets than
         * that at once. */
        if (cached) {
            CHECK_MSG(s.abc_allocated <= 3 && s.abc_reused + s.abc_allocated == 12 && s.abc_reused >= 7,
                      "allocated %llu reused %llu", (unsigned long long)s.abc_allocated,
                      (unsigned long long)s.abc_reused);
            CHECK(s.abc_freed == 0 && s.abc_idle == s.abc_allocated);
        } else {
            CHECK(s.abc_allocated == 12 && s.abc_reused == 0 && s.abc_freed == 12 && s.abc_idle == 0);
        }
        CHECK(s.abc_pinned == s.abc_allocated && g_hooks.allocs == s.abc_allocated && !s.abc_fallback);
        CHECK(s.mem.in_use[ENGINE_MEM_PINNED] == s.abc_idle * g_circuit.abc_bytes);
        CHECK(s.mem.in_use[ENGINE_MEM_HOST] == 0);
        CHECK(g_hooks.live_bytes == s.mem.in_use[ENGINE_MEM_PINNED]);
        CHECK(s.mem.peak[ENGINE_MEM_PINNED] >= g_circuit.abc_bytes);
        engine_destroy(e);
        CHECK(g_hooks.frees == g_hooks.allocs && g_hooks.live_bytes == 0);
    }
}

/* A backend that hands a, b, c back before prove_start returns lets the next synthesis start meanwhile: with a
 * budget that holds two partitions' witnesses but only one set of a, b, c, partition k+1 starts before
 * partition k leaves prove_start (impossible if the set were held to the end), within the budget, and the proofs
 * are the one-shot prover's. */
static void test_abc_early_release(void)
{
    cuzk_error err;
    engine_backend be = {
        .name = "early", .prove_start = early_start, .prove_finish = fixed_finish, .discard = fixed_discard};
    uint64_t w = g_circuit.witness_bytes, abc = g_circuit.abc_bytes;
    uint64_t budget = 3 * w + abc + w / 2;
    CHECK_MSG(2 * (w + abc) > budget, "the test needs a, b, c larger than 3/4 of a witness");
    tl_log tl;
    tl_init(&tl);
    /* malloc'd sets (no host hooks) are kept only with an explicit cache size: 2 is the default's count here. */
    engine_config cfg = {.backend = &be,
                         .partition_workers = 1,
                         .gpu_workers = 1,
                         .host_budget = budget,
                         .event_cb = tl_event,
                         .event_ctx = &tl,
                         .abc_cache = 2};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pl = {.tag = 77, .fail_part = -1};
    const unsigned parts = 4;
    engine_request rq = {.circuit = &g_circuit, .payload = &pl, .partitions = parts, .priority = ENGINE_PRIO_NORMAL};
    uint64_t id;
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    engine_result res;
    CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
    for (unsigned p = 0; res.proofs && p < parts; p++) CHECK(oneshot_matches(&res.proofs[p], pl.tag, id, p));
    engine_result_free(&res);
    engine_stats s;
    engine_get_stats(e, &s);
    CHECK_MSG(s.mem.host_peak <= budget, "peak %llu > budget %llu", (unsigned long long)s.mem.host_peak,
              (unsigned long long)budget);
    CHECK(s.abc_allocated == 1 && s.abc_reused == parts - 1);
    engine_destroy(e);
    CHECK(tl_count(&tl, ENGINE_EV_ABC_RELEASE) == parts);
    unsigned early = 0;
    for (unsigned k = 0; k + 1 < parts; k++) {
        size_t i_start = tl_find(&tl, 0, ENGINE_EV_SYNTH_START, id, (int)k + 1);
        size_t i_end = tl_find(&tl, 0, ENGINE_EV_GPU_END, id, (int)k);
        CHECK(i_start < tl.n && i_end < tl.n);
        early += i_start < i_end;
    }
    CHECK_MSG(early == parts - 1, "the next synthesis started during prove_start %u of %u times", early, parts - 1);
    tl_free(&tl);
}

/* fixed_start for a backend that evaluates a, b, c itself: the engine must pass none, and the witness must be
 * the circuit's shape's (this backend evaluates against it, as the GPU backend does on the device). */
static cuzk_status selfabc_start(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                                 void **handle, cuzk_error *err)
{
    CHECK(p->a == NULL && p->b == NULL && p->c == NULL);
    const engine_circuit *c = p->circuit;
    size_t m = c->m;
    fr_t *abc = malloc(3 * m * sizeof(fr_t));
    if (!abc) return cuzk_error_set(err, CUZK_ERR_NOMEM, "test: a, b, c");
    cuzk_status st = r1cs_eval_abc(NULL, c->shape, p->inputs, p->aux, abc, abc + m, abc + 2 * m, err);
    if (st == CUZK_OK) {
        engine_partition q = *p;
        q.a = abc;
        q.b = abc + m;
        q.c = abc + 2 * m;
        st = fixed_start(be, device, worker, &q, handle, err);
    }
    free(abc);
    return st;
}

/* A backend with evaluates_abc: synthesis stops at the witness and no a, b, c exist. Without host hooks the
 * backend reads the synthesized witness itself and only witnesses are accounted; with them (page-locked memory
 * on offer) the witness is copied into a set from the hooks, reused across partitions, and the synthesized arrays
 * are released at once. The budget (two and a half witnesses) is below one witness plus one a, b, c set, so a
 * backend that needs a, b, c would fail every job; the proofs are the one-shot prover's. */
static void test_backend_evaluates_abc(void)
{
    cuzk_error err;
    uint64_t w = g_circuit.witness_bytes;
    uint64_t budget = 2 * w + w / 2;
    CHECK_MSG(budget < w + g_circuit.abc_bytes, "the test needs a, b, c larger than 1.5 witnesses");
    for (int hooks = 0; hooks < 2; hooks++) {
        engine_backend be = {.name = "selfabc",
                             .prove_start = selfabc_start,
                             .prove_finish = fixed_finish,
                             .discard = fixed_discard,
                             .evaluates_abc = 1};
        if (hooks) {
            be.host_alloc = hook_alloc;
            be.host_free = hook_free;
        }
        hooks_reset(0);
        engine_config cfg = {.backend = &be, .partition_workers = 2, .gpu_workers = 1, .host_budget = budget};
        engine *e;
        CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
        payload pl = {.tag = 91 + (uint64_t)hooks, .fail_part = -1};
        const unsigned parts = 4;
        engine_request rq = {
            .circuit = &g_circuit, .payload = &pl, .partitions = parts, .priority = ENGINE_PRIO_NORMAL};
        uint64_t id;
        CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
        engine_result res;
        CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
        for (unsigned p = 0; res.proofs && p < parts; p++)
            CHECK_MSG(oneshot_matches(&res.proofs[p], pl.tag, id, p), "partition %u (hooks %d)", p, hooks);
        engine_result_free(&res);
        engine_stats s;
        engine_get_stats(e, &s);
        CHECK_MSG(s.mem.host_peak <= budget && s.mem.host_peak >= w, "peak %llu (hooks %d)",
                  (unsigned long long)s.mem.host_peak, hooks);
        if (hooks) {
            CHECK_MSG(s.abc_allocated >= 1 && s.abc_allocated <= 2 && s.abc_allocated + s.abc_reused == parts,
                      "allocated %llu reused %llu", (unsigned long long)s.abc_allocated,
                      (unsigned long long)s.abc_reused);
            CHECK(s.abc_pinned == s.abc_allocated && g_hooks.allocs == s.abc_allocated);
            CHECK(s.mem.in_use[ENGINE_MEM_HOST] == 0 && s.mem.in_use[ENGINE_MEM_PINNED] == s.abc_idle * w);
            CHECK(g_hooks.live_bytes == s.mem.in_use[ENGINE_MEM_PINNED]);
        } else {
            CHECK(s.abc_allocated == 0 && s.abc_reused == 0 && g_hooks.allocs == 0);
            CHECK(s.mem.peak[ENGINE_MEM_PINNED] == 0);
        }
        engine_destroy(e);
        CHECK(g_hooks.frees == g_hooks.allocs && g_hooks.live_bytes == 0);
    }
}

/* Under a budget the idle sets count, and a reservation that does not fit frees them instead of waiting (the
 * second circuit's domain is twice the first's: its sets are new, the first's are freed). Peak within budget. */
static void test_abc_pressure(void)
{
    cuzk_error err;
    CHECK(g_circuit2.m == 2 * g_circuit.m);
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    be->host_alloc = hook_alloc;
    be->host_free = hook_free;
    hooks_reset(0);
    uint64_t part1 = g_circuit.witness_bytes + g_circuit.abc_bytes;
    uint64_t part2 = g_circuit2.witness_bytes + g_circuit2.abc_bytes;
    /* Two partitions of the first circuit fit, and leave two idle sets; then one of the second fits only once
     * both are freed (without freeing it would wait forever). */
    uint64_t budget = 2 * part1 > part2 ? 2 * part1 : part2;
    CHECK(2 * g_circuit.abc_bytes + part2 > budget);
    engine_config cfg = {
        .backend = be, .partition_workers = 2, .gpu_workers = 1, .abc_pinned = 1, .host_budget = budget};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload p1 = {.tag = 61, .fail_part = -1}, p2 = {.tag = 62, .fail_part = -1, .len = CHAIN_LEN2};
    engine_request rq = {.circuit = &g_circuit, .payload = &p1, .partitions = 4, .priority = ENGINE_PRIO_NORMAL};
    uint64_t id;
    engine_result res;
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
    for (unsigned p = 0; res.proofs && p < 4; p++) CHECK(verify_part(&res.proofs[p], p1.tag, p));
    engine_result_free(&res);
    engine_stats s;
    engine_get_stats(e, &s);
    CHECK_MSG(s.abc_idle >= 1 && s.mem.host_in_use == s.abc_idle * g_circuit.abc_bytes, "idle %u in use %llu",
              s.abc_idle, (unsigned long long)s.mem.host_in_use);
    unsigned idle_before = s.abc_idle;
    rq = (engine_request){.circuit = &g_circuit2, .payload = &p2, .partitions = 2, .priority = ENGINE_PRIO_NORMAL};
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
    for (unsigned p = 0; res.proofs && p < 2; p++) {
        fr_t pub[2];
        partition_x(&pub[0], p2.tag, p);
        pub[1] = pub[0];
        for (int i = 0; i < CHAIN_LEN2; i++) fr_sqr(&pub[1], &pub[1]);
        CHECK(groth16_verify(NULL, &g_circuit2.pvk, &res.proofs[p], pub, 2, &err) == CUZK_OK);
    }
    engine_result_free(&res);
    engine_get_stats(e, &s);
    CHECK_MSG(s.mem.host_peak <= budget, "peak %llu > budget %llu", (unsigned long long)s.mem.host_peak,
              (unsigned long long)budget);
    CHECK_MSG(s.abc_freed >= idle_before, "freed %llu of %u idle", (unsigned long long)s.abc_freed, idle_before);
    CHECK(s.mem.host_in_use == s.abc_idle * g_circuit2.abc_bytes); /* what is left: sets of the second size */
    CHECK(g_hooks.live_bytes == s.mem.in_use[ENGINE_MEM_PINNED]);
    /* Another holder of the budget (the residency) gets the whole of it: the idle sets are reclaimed for it. */
    CHECK(s.abc_idle > 0);
    CHECK(!engine_mem_try_reserve_direct(engine_memory(e), ENGINE_MEM_HOST, budget));
    CHECK(engine_mem_try_reserve(engine_memory(e), ENGINE_MEM_HOST, budget));
    engine_get_stats(e, &s);
    CHECK(s.abc_idle == 0 && g_hooks.live_bytes == 0 && s.mem.host_in_use == budget);
    engine_mem_release(engine_memory(e), ENGINE_MEM_HOST, budget);
    engine_destroy(e);
    CHECK(g_hooks.frees == g_hooks.allocs && g_hooks.live_bytes == 0);
    be->host_alloc = NULL;
    be->host_free = NULL;
    engine_backend_destroy(be);
}

/* A full cache keeps the set just used rather than an idle one of another size. */
static void test_abc_swap(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    engine_config cfg = {.backend = be, .partition_workers = 1, .gpu_workers = 1, .abc_cache = 1};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload p1 = {.tag = 81, .fail_part = -1}, p2 = {.tag = 82, .fail_part = -1, .len = CHAIN_LEN2};
    const engine_circuit *order[3] = {&g_circuit2, &g_circuit, &g_circuit};
    engine_stats s;
    for (int i = 0; i < 3; i++) {
        engine_request rq = {.circuit = order[i],
                             .payload = order[i] == &g_circuit ? &p1 : &p2,
                             .partitions = 2,
                             .priority = ENGINE_PRIO_NORMAL};
        uint64_t id;
        engine_result res;
        CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
        CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
        engine_result_free(&res);
        engine_get_stats(e, &s);
        CHECK_MSG(s.abc_idle == 1 && s.mem.host_in_use == order[i]->abc_bytes, "job %d: %u idle, %llu bytes", i,
                  s.abc_idle, (unsigned long long)s.mem.host_in_use);
    }
    /* The last job reused the set its predecessor kept. */
    CHECK(s.abc_reused >= 1);
    engine_destroy(e);
    engine_backend_destroy(be);
}

/* host_alloc refusing page-locked memory: the engine falls back to malloc (asked once, one ABC_FALLBACK
 * event), and proves as before. */
static void test_abc_fallback(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    be->host_alloc = hook_alloc;
    be->host_free = hook_free;
    hooks_reset(1);
    tl_log tl;
    tl_init(&tl);
    engine_config cfg = {.backend = be,
                         .partition_workers = 2,
                         .gpu_workers = 2,
                         .abc_pinned = 1,
                         .event_cb = tl_event,
                         .event_ctx = &tl};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pl = {.tag = 71, .fail_part = -1};
    engine_request rq = {.circuit = &g_circuit, .payload = &pl, .partitions = 5, .priority = ENGINE_PRIO_NORMAL};
    uint64_t id;
    engine_result res;
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
    for (unsigned p = 0; res.proofs && p < 5; p++) CHECK(verify_part(&res.proofs[p], pl.tag, p));
    engine_result_free(&res);
    engine_stats s;
    engine_get_stats(e, &s);
    CHECK(s.abc_fallback && s.abc_pinned == 0 && s.abc_allocated >= 1);
    /* Workers that started before the refusal was seen may each have asked once. */
    CHECK(g_hooks.refusals >= 1 && g_hooks.refusals <= 2 && g_hooks.allocs == 0);
    CHECK(tl_count(&tl, ENGINE_EV_ABC_FALLBACK) == 1);
    pthread_mutex_lock(&tl.mu);
    size_t fb = tl_find(&tl, 0, ENGINE_EV_ABC_FALLBACK, id, -1);
    CHECK(fb < tl.n && tl.v[fb].status == CUZK_ERR_NOMEM && tl.v[fb].bytes == g_circuit.abc_bytes);
    pthread_mutex_unlock(&tl.mu);
    CHECK(s.mem.in_use[ENGINE_MEM_PINNED] == 0 && s.mem.in_use[ENGINE_MEM_HOST] == s.abc_idle * g_circuit.abc_bytes);
    engine_destroy(e);
    /* abc_pinned -1: the hooks are never asked. */
    hooks_reset(0);
    cfg.abc_pinned = -1;
    cfg.event_cb = NULL;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    CHECK(engine_submit(e, &rq, &id, &err) == CUZK_OK);
    CHECK_MSG(engine_wait(e, id, &res, &err) == CUZK_OK, "%s", res.error.msg);
    engine_result_free(&res);
    engine_get_stats(e, &s);
    CHECK(g_hooks.allocs == 0 && s.abc_pinned == 0 && s.abc_allocated >= 1 && !s.abc_fallback);
    /* The default cache keeps page-locked sets only: malloc'd ones are freed as they come back. */
    CHECK(s.abc_idle == 0 && s.abc_reused == 0 && s.abc_freed == s.abc_allocated && s.mem.host_in_use == 0);
    engine_destroy(e);
    be->host_alloc = NULL;
    be->host_free = NULL;
    engine_backend_destroy(be);
    tl_free(&tl);
}

/* Residency: hot sets are never evicted, warm ones go least recently used first, all within the budget. */
static int g_loads;
static cuzk_status load_chain_params(void *ctx, groth16_params *out, cuzk_error *err)
{
    (void)ctx;
    __atomic_add_fetch(&g_loads, 1, __ATOMIC_RELAXED);
    return groth16_setup(NULL, &g_shape, out, err);
}

static void test_residency(void)
{
    cuzk_error err;
    uint64_t one = engine_params_bytes(&g_params);
    engine_mem mem;
    CHECK(engine_mem_init(&mem, one * 2 + one / 2, 0, &err) == CUZK_OK);
    engine_residency *r;
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "a", load_chain_params, NULL, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "b", load_chain_params, NULL, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "c", load_chain_params, NULL, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "a", load_chain_params, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_COLD);
    CHECK(engine_residency_state_of(r, "zz") == ENGINE_PARAMS_UNKNOWN);
    engine_params *pa, *pb, *pc;
    CHECK(engine_residency_acquire(r, "a", &pa, &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK);
    CHECK(engine_params_get(pa)->h_len == g_params.h_len && engine_params_get(pb)->l_len == g_params.l_len);
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_HOT);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_ERR_NOMEM); /* both others are in use */
    CHECK(engine_residency_evict(r, "a", NULL) == 0);
    engine_residency_release(r, pa);
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_WARM);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_OK); /* evicts a */
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_COLD);
    engine_residency_release(r, pb);
    engine_residency_release(r, pc);
    CHECK(engine_residency_preload(r, "a", &err) == CUZK_OK); /* evicts b, the least recently used */
    CHECK(engine_residency_state_of(r, "b") == ENGINE_PARAMS_COLD);
    CHECK(engine_residency_state_of(r, "c") == ENGINE_PARAMS_WARM);
    CHECK(engine_residency_evict(r, "c", NULL) == 1);
    engine_mem_stats s;
    engine_mem_get_stats(&mem, &s);
    CHECK(s.host_in_use == one && s.host_peak <= s.host_limit);
    CHECK(g_loads == 5); /* a, b, c (refused after loading: its size is known only then), c, a */
    engine_residency_destroy(r);
    engine_mem_get_stats(&mem, &s);
    CHECK(s.host_in_use == 0);
    engine_mem_destroy(&mem);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_engine");
    if (fixture_init() != 0) {
        CHECK(0);
        return test_finish("test_engine");
    }
    test_event_text();
    test_mem();
    test_mem_reclaim();
    test_prove_start_abc(&rng);
    test_many_jobs(&rng);
    test_order();
    test_backpressure();
    test_faults();
    test_destroy_busy();
    test_abc_cache();
    test_abc_pressure();
    test_abc_swap();
    test_abc_fallback();
    test_abc_early_release();
    test_backend_evaluates_abc();
    test_devices();
    test_critical_latency();
    test_critical_reserved_worker();
    test_budget_stall_fails();
    test_residency();
    fixture_free();
    return test_finish("test_engine");
}
