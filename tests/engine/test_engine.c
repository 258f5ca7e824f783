/* The proving engine: the memory budget, prove_start from precomputed a/b/c against the one-shot prover,
 * many jobs of mixed priorities with random cancellation (every proof verifies against its own job's and
 * partition's public inputs), scheduling order, backpressure under a small budget, and fault isolation. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/residency.h"
#include "testutil.h"

/* ---- a small circuit whose public inputs depend on (job tag, partition) ----
 * inputs x, y; aux w_0 .. w_L:  x * 1 = w_0,  w_i * w_i = w_{i+1},  w_L * 1 = y,  so y = x^(2^L). */
#define CHAIN_LEN 120

static void partition_x(fr_t *x, uint64_t tag, unsigned part) { fr_from_u64(x, tag * 1000 + part + 2); }

static void expected_inputs(fr_t pub[2], uint64_t tag, unsigned part)
{
    partition_x(&pub[0], tag, part);
    pub[1] = pub[0];
    for (int i = 0; i <= CHAIN_LEN - 1; i++) fr_sqr(&pub[1], &pub[1]);
}

/* Builds the chain into cs (created by the caller in shape-only or witness-only mode), then finalizes. */
static cuzk_status chain_build(r1cs *cs, const fr_t *x, cuzk_error *err)
{
    int vals = cs->has_witness;
    fr_t w, y;
    if (vals) {
        w = *x;
        y = *x;
        for (int i = 0; i < CHAIN_LEN; i++) fr_sqr(&y, &y);
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
    for (int i = 0; i < CHAIN_LEN && st == CUZK_OK; i++) {
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

/* What a test job carries to its synthesis. */
typedef struct payload {
    uint64_t tag;
    int fail_part;  /* synthesis of this partition fails (-1: none) */
    int gate;       /* partition 0 waits until the gate opens */
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
    if (st == CUZK_OK) st = chain_build(wit, &x, err);
    if (st != CUZK_OK) r1cs_free(wit);
    return st;
}

/* ---- fixture ---- */

static r1cs g_shape;
static groth16_params g_params;
static engine_circuit g_circuit;
static pool_t *g_pool;

static int fixture_init(void)
{
    cuzk_error err;
    if (pool_create(&g_pool, 2, &err) != CUZK_OK) return -1;
    if (r1cs_create(&g_shape, 0, &err) != CUZK_OK || chain_build(&g_shape, NULL, &err) != CUZK_OK ||
        groth16_setup(g_pool, &g_shape, &g_params, &err) != CUZK_OK ||
        engine_circuit_init(&g_circuit, "chain", &g_params, &g_shape, chain_synth, NULL, &err) != CUZK_OK) {
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
    pool_destroy(g_pool);
}

static int verify_part(const groth16_proof *proof, uint64_t tag, unsigned part)
{
    fr_t pub[2];
    expected_inputs(pub, tag, part);
    cuzk_error err;
    return groth16_verify(NULL, &g_circuit.pvk, proof, pub, 2, &err) == CUZK_OK;
}

/* Timeline lines collected in memory. */
typedef struct tl_log {
    pthread_mutex_t mu;
    char **lines;
    size_t n, cap;
} tl_log;

static void tl_collect(void *ctx, const char *line)
{
    tl_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        char **nl = realloc(l->lines, cap * sizeof(*nl));
        if (!nl) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
        l->lines = nl;
        l->cap = cap;
    }
    l->lines[l->n] = strdup(line);
    if (l->lines[l->n]) l->n++;
    pthread_mutex_unlock(&l->mu);
}

static void tl_free(tl_log *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->lines[i]);
    free(l->lines);
    pthread_mutex_destroy(&l->mu);
}

static size_t tl_count(tl_log *l, const char *ev)
{
    char key[64];
    snprintf(key, sizeof(key), " ev=%s ", ev);
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++) c += strstr(l->lines[i], key) != NULL;
    return c;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- tests ---- */

static void test_mem(void)
{
    engine_mem m;
    cuzk_error err;
    CHECK(engine_mem_init(&m, 1000, 0, &err) == CUZK_OK);
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 600));
    CHECK(engine_mem_try_reserve(&m, ENGINE_MEM_PINNED, 400));
    CHECK(!engine_mem_try_reserve(&m, ENGINE_MEM_HOST, 1)); /* host and pinned share the budget */
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
    CHECK(groth16_prove_start_abc(NULL, &g_params, 3, buf, buf, buf, &one, 1, NULL, 0, &g_circuit.density, &pend,
                                  NULL, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&full);
}

#define MANY_JOBS 14

static void test_many_jobs(rng_t *rng)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    tl_log tl = {.n = 0};
    pthread_mutex_init(&tl.mu, NULL);
    engine_config cfg = {.backend = be, .partition_workers = 3, .gpu_workers = 2, .synthesis_lookahead = 2,
                         .finish_workers = 2, .timeline_cb = tl_collect, .timeline_ctx = &tl};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);

    payload pl[MANY_JOBS];
    uint64_t ids[MANY_JOBS];
    unsigned nparts[MANY_JOBS];
    int cancel_asked[MANY_JOBS];
    for (int i = 0; i < MANY_JOBS; i++) {
        pl[i] = (payload){.tag = 100 + (uint64_t)i, .fail_part = -1};
        nparts[i] = 1 + (unsigned)(rng_next(rng) % 4);
        engine_request rq = {.circuit = &g_circuit, .payload = &pl[i], .partitions = nparts[i],
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
    CHECK(s.mem.host_in_use == 0);
    CHECK(s.jobs_completed == ok_jobs && s.jobs_cancelled == cancelled && s.jobs_failed == 0);
    CHECK(s.jobs_active == 0 && s.handoff_len == 0 && s.finish_pending == 0);
    CHECK(tl_count(&tl, "QUEUE") == MANY_JOBS && tl_count(&tl, "JOB_END") == MANY_JOBS);
    CHECK(tl_count(&tl, "FINISH_END") >= s.partitions_proved);
    CHECK(tl_count(&tl, "GPU_END") == tl_count(&tl, "GPU_START"));
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
        free(buf);
    }
    engine_destroy(e);
    engine_backend_destroy(be);
    tl_free(&tl);
}

/* Order of synthesis starts with one synthesis worker: priority, then age, lowest partition first. */
static void test_order(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    tl_log tl = {.n = 0};
    pthread_mutex_init(&tl.mu, NULL);
    engine_config cfg = {.backend = be, .partition_workers = 1, .gpu_workers = 1, .no_verify = 1,
                         .timeline_cb = tl_collect, .timeline_ctx = &tl};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    gate_set(0);
    payload gate = {.tag = 1, .fail_part = -1, .gate = 1};
    engine_request rq = {.circuit = &g_circuit, .payload = &gate, .partitions = 1, .priority = ENGINE_PRIO_LOW};
    uint64_t gid, ids[5];
    CHECK(engine_submit(e, &rq, &gid, &err) == CUZK_OK);
    gate_wait_reached(); /* the only synthesis worker is now busy */
    static const engine_priority prio[5] = {ENGINE_PRIO_LOW, ENGINE_PRIO_NORMAL, ENGINE_PRIO_CRITICAL,
                                            ENGINE_PRIO_HIGH, ENGINE_PRIO_NORMAL};
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
    char want[10][64];
    for (int k = 0; k < 5; k++)
        for (int p = 0; p < 2; p++)
            snprintf(want[2 * k + p], sizeof(want[0]), " ev=SYNTH_START job=%llu part=%d ",
                     (unsigned long long)ids[order[k]], p);
    size_t got = 0;
    pthread_mutex_lock(&tl.mu);
    for (size_t i = 0; i < tl.n && got < 10; i++) {
        if (!strstr(tl.lines[i], " ev=SYNTH_START ")) continue;
        char gate_key[64];
        snprintf(gate_key, sizeof(gate_key), " job=%llu ", (unsigned long long)gid);
        if (strstr(tl.lines[i], gate_key)) continue;
        CHECK_MSG(strstr(tl.lines[i], want[got]) != NULL, "start %zu: got %s wanted%s", got, tl.lines[i], want[got]);
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
    engine_config cfg = {.backend = be, .partition_workers = 4, .gpu_workers = 2, .synthesis_lookahead = 4,
                         .host_budget = budget};
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
    CHECK(s.mem.host_in_use == 0);
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
    fault_backend fb = {.be = {.name = "faulty", .prove_start = fb_start, .prove_finish = fb_finish,
                               .discard = fb_discard},
                        .inner = cpu, .job = 3, .part = 1};
    fb.be.ctx = &fb;
    fault_target ft = {.job = 5, .part = 2};
    engine_config cfg = {.backend = &fb.be, .partition_workers = 2, .gpu_workers = 2, .fault = alloc_fault,
                         .fault_ctx = &ft};
    engine *e;
    CHECK(engine_create(&e, &cfg, &err) == CUZK_OK);
    payload pl[6];
    uint64_t ids[6];
    for (int i = 0; i < 6; i++) {
        pl[i] = (payload){.tag = 900 + (uint64_t)i, .fail_part = i == 1 ? 2 : -1};
        engine_request rq = {.circuit = &g_circuit, .payload = &pl[i], .partitions = 3,
                             .priority = (engine_priority)(1 + i % 4)};
        CHECK(engine_submit(e, &rq, &ids[i], &err) == CUZK_OK);
        CHECK(ids[i] == (uint64_t)i + 1);
    }
    for (int i = 0; i < 6; i++) {
        engine_result res;
        cuzk_status st = engine_wait(e, ids[i], &res, &err);
        if (i == 1) {
            CHECK_MSG(st == CUZK_ERR_FORMAT && strstr(res.error.msg, "partition 2") &&
                          strstr(res.error.msg, "malformed"), "synthesis fault: %s", res.error.msg);
        } else if (i == 2) {
            CHECK_MSG(st == CUZK_ERR_GPU && strstr(res.error.msg, "partition 1") && strstr(res.error.msg, "device"),
                      "backend fault: %s", res.error.msg);
        } else if (i == 4) {
            CHECK_MSG(st == CUZK_ERR_NOMEM && strstr(res.error.msg, "partition 2"), "alloc fault: %s",
                      res.error.msg);
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
    CHECK(s.jobs_failed == 3 && s.jobs_completed == 4 && s.mem.host_in_use == 0);
    engine_destroy(e);
    engine_backend_destroy(cpu);
}

/* Destroying an engine with work in every stage releases everything (ASan checks the leaks). */
static void test_destroy_busy(void)
{
    cuzk_error err;
    engine_backend *be;
    CHECK(engine_backend_cpu_create(g_pool, NULL, &be, &err) == CUZK_OK);
    engine_config cfg = {.backend = be, .partition_workers = 2, .gpu_workers = 1};
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
    engine_backend_destroy(be);
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
    const groth16_params *pa, *pb, *pc;
    CHECK(engine_residency_acquire(r, "a", &pa, &err) == CUZK_OK);
    CHECK(engine_residency_acquire(r, "b", &pb, &err) == CUZK_OK);
    CHECK(pa->h_len == g_params.h_len && pb->l_len == g_params.l_len);
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_HOT);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_ERR_NOMEM); /* both others are in use */
    CHECK(engine_residency_evict(r, "a") == 0);
    engine_residency_release(r, "a");
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_WARM);
    CHECK(engine_residency_acquire(r, "c", &pc, &err) == CUZK_OK); /* evicts a */
    CHECK(engine_residency_state_of(r, "a") == ENGINE_PARAMS_COLD);
    engine_residency_release(r, "b");
    engine_residency_release(r, "c");
    CHECK(engine_residency_preload(r, "a", &err) == CUZK_OK); /* evicts b, the least recently used */
    CHECK(engine_residency_state_of(r, "b") == ENGINE_PARAMS_COLD);
    CHECK(engine_residency_state_of(r, "c") == ENGINE_PARAMS_WARM);
    CHECK(engine_residency_evict(r, "c") == 1);
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
    test_mem();
    test_prove_start_abc(&rng);
    test_many_jobs(&rng);
    test_order();
    test_backpressure();
    test_faults();
    test_destroy_busy();
    test_residency();
    fixture_free();
    return test_finish("test_engine");
}
