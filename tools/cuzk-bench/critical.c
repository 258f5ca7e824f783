/* cuzk-bench batch --critical SPEC: a stream of CRITICAL proofs (WinningPoSt) through the batch's engine, one at a
 * time every --critical-every seconds, while the batch's jobs are in flight (or on an idle engine without -n), each
 * timed from its request to its verified proof's bytes, and split into the engine's steps from its events.
 *
 * A PoSt proof goes the daemon's way (service_jobs.c): the request's small fields checked (engine_kind.check), the
 * bincode vanilla proofs decoded and validated into a job (engine_kind.parse), the engine request made, submitted at
 * CRITICAL, waited for, and the proof encoded. The vanilla proofs are synthetic (`cuzk post synth-vanilla`'s
 * generator), made and encoded once before the run; every proof of the stream parses them again. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "circuits/synthetic.h"
#include "engine/kind.h"
#include "engine/post.h"
#include "formats/post_vanilla_gen.h"

/* One proof of the stream. Engine times (ms on the engine's clock) are -1 until their event arrives. */
typedef struct crit_rec {
    uint64_t job_id;
    int submitted; /* the stream's thread has taken this record (after engine_submit) */
    double t_queue, t_synth_start, t_synth_end, t_gpu_start, t_gpu_end, t_fin_start, t_fin_end;
    double synth_ms, gpu_ms, finish_ms, total_ms;
    /* the stream's thread (bench clock) */
    double validate_ms, latency_ms;
    int ok, verified;
    unsigned load_synth, load_handoff, load_proving; /* engine_get_stats just before the request */
} crit_rec;

typedef struct crit_synth_ctx {
    unsigned k;
    uint64_t seed;
    pool_t *pool;
} crit_synth_ctx;

struct bench_critical {
    char name[128];
    int is_post;
    /* synthetic */
    r1cs shape;
    crit_synth_ctx sctx;
    engine_circuit circuit;
    /* PoSt */
    const engine_kind *kind;
    void *kcircuit;
    uint8_t **vbytes;
    engine_bytes *vb;
    size_t nv;
    uint8_t rnd[32];
    engine_kind_input in;
    groth16_params params;
    const engine_circuit *ec;
    double setup_s, vanilla_s;
    /* the run */
    engine *e;
    double every_s;
    uint64_t count;
    int (*more)(void *);
    void *more_ctx;
    pthread_t th;
    int started;
    atomic_int stop, load_seen;
    atomic_uint n_done;
    pthread_mutex_t mu; /* the records */
    crit_rec *rec;
    size_t n_rec, cap_rec;
    unsigned n_failed;
    cuzk_error first_err;
};

static cuzk_status crit_synthesize(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const crit_synth_ctx *sc = ctx;
    return synthetic_build(sc->pool, sc->k, sc->seed, R1CS_WITNESS, wit, err);
}

int bench_critical_spec(const char *text, circuit_spec *spec)
{
    cuzk_error err;
    if (circuit_spec_parse(text, spec, &err) != CUZK_OK) {
        fprintf(stderr, "batch: --critical: %s\n", err.msg);
        return 2;
    }
    if (spec->kind != CIRCUIT_POST && spec->kind != CIRCUIT_SYNTHETIC) {
        fprintf(stderr, "batch: --critical %s: takes winning:SIZE (or wpost:SIZE, synthetic:k=K)\n", text);
        return 2;
    }
    if (spec->partitions > 1) {
        fprintf(stderr, "batch: --critical %s: one partition a proof\n", text);
        return 2;
    }
    return 0;
}

cuzk_status bench_critical_create(bench_critical **out, const circuit_spec *spec, pool_t *pool, pool_t *synth_pool,
                                  int want_gpu, int device, int quiet, cuzk_error *err)
{
    *out = NULL;
    bench_critical *c = calloc(1, sizeof *c);
    if (!c) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&c->mu, NULL);
    circuit_spec_format(spec, c->name, sizeof c->name);
    c->is_post = spec->kind == CIRCUIT_POST;
    uint64_t t0 = bench_now_ns();
    cuzk_status st = circuit_spec_build(pool, spec, R1CS_MATRICES, &c->shape, err);
    if (st == CUZK_OK) st = bench_setup(pool, &c->shape, want_gpu, device, &c->params, err);
    c->setup_s = (double)(bench_now_ns() - t0) / 1e9;
    if (st != CUZK_OK) goto fail;
    if (!c->is_post) {
        c->sctx = (crit_synth_ctx){spec->k, spec->seed, synth_pool};
        st = engine_circuit_init(&c->circuit, c->name, &c->params, &c->shape, crit_synthesize, &c->sctx, err);
        if (st != CUZK_OK) goto fail;
        c->ec = &c->circuit;
    } else {
        /* The engine's PoSt circuit compiles its own shape. */
        r1cs_free(&c->shape);
        const post_proof_type *t = spec->post;
        c->kind = t->kind == POST_WINNING ? &engine_kind_winning_post : &engine_kind_window_post;
        for (int i = 0; i < 32; i++) c->rnd[i] = (uint8_t)(i * 11 + 5);
        c->rnd[31] &= 0x3f; /* as Curio: a field element */
        uint64_t tv = bench_now_ns();
        post_vanilla v;
        c->nv = t->kind == POST_WINDOW ? t->sector_count : 1;
        st = post_vanilla_synth(&v, t, c->nv, 1, c->rnd, 1, synth_pool, err);
        if (st != CUZK_OK) goto fail;
        c->vbytes = calloc(c->nv, sizeof *c->vbytes);
        c->vb = calloc(c->nv, sizeof *c->vb);
        if (!c->vbytes || !c->vb) st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
        for (size_t i = 0; st == CUZK_OK && i < c->nv; i++) {
            size_t n = post_vanilla_sector_encoded_size(&v, &v.sectors[i]);
            if (!(c->vbytes[i] = malloc(n))) {
                st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory for a vanilla proof");
                break;
            }
            post_vanilla_encode_sector(&v, i, c->vbytes[i]);
            c->vb[i] = (engine_bytes){c->vbytes[i], n};
        }
        post_vanilla_free(&v);
        if (st != CUZK_OK) goto fail;
        c->vanilla_s = (double)(bench_now_ns() - tv) / 1e9;
        c->in = (engine_kind_input){.sector_size = t->sector_size,
                                    .registered_proof = t->id,
                                    .sector_number = 1,
                                    .miner_id = 1000,
                                    .vanilla_proofs = c->vb,
                                    .n_vanilla_proofs = c->nv,
                                    .randomness = {c->rnd, 32}};
        /* One parse for the plan (the set the circuit is made for), as the daemon's first job of a set. */
        void *job = NULL;
        engine_kind_plan plan;
        st = c->kind->parse(&c->in, &job, &plan, err);
        if (st == CUZK_OK) st = c->kind->circuit_create(job, &plan, &c->params, synth_pool, &c->kcircuit, err);
        if (job) c->kind->job_free(job);
        if (st != CUZK_OK) goto fail;
        c->ec = c->kind->circuit_engine(c->kcircuit);
    }
    if (!quiet)
        fprintf(stderr, "batch: critical %s: %zu constraints, setup in memory %.2f s%s\n", c->name,
                c->ec->shape->num_constraints, c->setup_s, c->is_post ? ", synthetic vanilla proofs encoded" : "");
    *out = c;
    return CUZK_OK;
fail:
    cuzk_error_prefix(err, "critical %s: ", c->name);
    bench_critical_free(c);
    return st;
}

uint64_t bench_critical_working_set(const bench_critical *c)
{
    /* The witness twice covers a backend that evaluates a, b, c itself (the witness and its page-locked copy). */
    return 2 * c->ec->witness_bytes + c->ec->abc_bytes;
}

const char *bench_critical_name(const bench_critical *c)
{
    return c->name;
}

static crit_rec *crit_find(bench_critical *c, uint64_t id)
{
    for (size_t i = c->n_rec; i-- > 0;)
        if (c->rec[i].job_id == id) return &c->rec[i];
    return NULL;
}

int bench_critical_event(bench_critical *c, const engine_event *ev)
{
    pthread_mutex_lock(&c->mu);
    crit_rec *r = crit_find(c, ev->job_id);
    if (!r && ev->type == ENGINE_EV_QUEUE && ev->priority == ENGINE_PRIO_CRITICAL) {
        if (c->n_rec == c->cap_rec) {
            size_t cap = c->cap_rec ? 2 * c->cap_rec : 64;
            crit_rec *nr = realloc(c->rec, cap * sizeof *nr);
            if (!nr) {
                pthread_mutex_unlock(&c->mu);
                return 1; /* the proof's thread reports the missing record */
            }
            c->rec = nr;
            c->cap_rec = cap;
        }
        r = &c->rec[c->n_rec++];
        *r = (crit_rec){.job_id = ev->job_id,
                        .t_queue = ev->t_ms,
                        .t_synth_start = -1,
                        .t_synth_end = -1,
                        .t_gpu_start = -1,
                        .t_gpu_end = -1,
                        .t_fin_start = -1,
                        .t_fin_end = -1,
                        .synth_ms = -1,
                        .gpu_ms = -1,
                        .finish_ms = -1,
                        .total_ms = -1};
        pthread_mutex_unlock(&c->mu);
        return 1;
    }
    if (!r) {
        if (ev->type == ENGINE_EV_GPU_START) atomic_store(&c->load_seen, 1);
        pthread_mutex_unlock(&c->mu);
        return 0;
    }
    switch (ev->type) {
    case ENGINE_EV_SYNTH_START: r->t_synth_start = ev->t_ms; break;
    case ENGINE_EV_SYNTH_END:
        r->t_synth_end = ev->t_ms;
        r->synth_ms = ev->ms;
        break;
    case ENGINE_EV_GPU_START: r->t_gpu_start = ev->t_ms; break;
    case ENGINE_EV_GPU_END:
        r->t_gpu_end = ev->t_ms;
        r->gpu_ms = ev->ms;
        break;
    case ENGINE_EV_FINISH_START: r->t_fin_start = ev->t_ms; break;
    case ENGINE_EV_FINISH_END:
        r->t_fin_end = ev->t_ms;
        r->finish_ms = ev->ms;
        break;
    case ENGINE_EV_JOB_END: r->total_ms = ev->ms; break;
    default: break;
    }
    pthread_mutex_unlock(&c->mu);
    return 1;
}

static void crit_fail(bench_critical *c, const cuzk_error *err)
{
    pthread_mutex_lock(&c->mu);
    if (!c->n_failed++) c->first_err = *err;
    pthread_mutex_unlock(&c->mu);
}

static void crit_one(bench_critical *c)
{
    cuzk_error err;
    memset(&err, 0, sizeof err);
    engine_stats es;
    engine_get_stats(c->e, &es);
    void *job = NULL;
    engine_request rq = {.circuit = c->ec, .partitions = 1, .priority = ENGINE_PRIO_CRITICAL};
    uint64_t t0 = bench_now_ns();
    cuzk_status st = CUZK_OK;
    if (c->is_post) {
        engine_kind_plan plan;
        if (c->kind->check) st = c->kind->check(&c->in, &err);
        if (st == CUZK_OK) st = c->kind->parse(&c->in, &job, &plan, &err);
        if (st == CUZK_OK) st = c->kind->request(c->kcircuit, job, ENGINE_PRIO_CRITICAL, &rq, &err);
    }
    uint64_t t1 = bench_now_ns();
    uint64_t id = 0;
    engine_result res;
    memset(&res, 0, sizeof res);
    int have_res = 0;
    if (st == CUZK_OK) st = engine_submit(c->e, &rq, &id, &err);
    if (st == CUZK_OK) {
        st = engine_wait(c->e, id, &res, &err);
        have_res = 1;
    }
    uint8_t proof[GROTH16_PROOF_BYTES];
    if (st == CUZK_OK) groth16_proofs_write(proof, res.proofs, 1); /* the proof's bytes: what the daemon answers */
    uint64_t t2 = bench_now_ns();
    if (job) c->kind->job_free(job);
    if (st == CUZK_OK && (res.partitions != 1 || !res.proofs))
        st = cuzk_error_set(&err, CUZK_ERR_INTERNAL, "critical proof: %u partitions in the result", res.partitions);
    pthread_mutex_lock(&c->mu);
    crit_rec *r = id ? crit_find(c, id) : NULL;
    if (r) {
        r->submitted = 1;
        r->validate_ms = (double)(t1 - t0) / 1e6;
        r->latency_ms = (double)(t2 - t0) / 1e6;
        r->ok = st == CUZK_OK;
        r->verified = st == CUZK_OK && res.verified;
        r->load_synth = es.synth_active;
        r->load_handoff = es.handoff_len;
        r->load_proving = es.provers_active;
    } else if (st == CUZK_OK) {
        st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "critical proof: no record of job %llu (out of memory?)",
                            (unsigned long long)id);
    }
    pthread_mutex_unlock(&c->mu);
    if (have_res) engine_result_free(&res);
    if (st != CUZK_OK) crit_fail(c, &err);
    atomic_fetch_add(&c->n_done, 1);
}

/* Sleeps until the bench clock reaches t_ns; 0 as soon as the stream should stop instead. */
static int crit_sleep_until(bench_critical *c, uint64_t t_ns)
{
    for (;;) {
        if (atomic_load(&c->stop) || (c->more && !c->more(c->more_ctx))) return 0;
        uint64_t now = bench_now_ns();
        if (now >= t_ns) return 1;
        uint64_t d = t_ns - now < 10000000ull ? t_ns - now : 10000000ull;
        struct timespec ts = {0, (long)d};
        nanosleep(&ts, NULL);
    }
}

static void *crit_main(void *arg)
{
    bench_critical *c = arg;
    /* Under a batch: from the first partition's prove_start on, so that the load is real. */
    while (c->more && !atomic_load(&c->load_seen))
        if (!crit_sleep_until(c, bench_now_ns() + 10000000ull)) return NULL;
    uint64_t origin = bench_now_ns(), period = (uint64_t)(c->every_s * 1e9);
    for (uint64_t k = 0; !c->count || k < c->count; k++) {
        /* One at a time: a proof slower than the period delays the next one, which then starts at once. */
        if (!crit_sleep_until(c, origin + k * period)) break;
        crit_one(c);
    }
    return NULL;
}

cuzk_status bench_critical_start(bench_critical *c, engine *e, double every_s, uint64_t count, int (*more)(void *),
                                 void *more_ctx, cuzk_error *err)
{
    c->e = e;
    c->every_s = every_s;
    c->count = count;
    c->more = more;
    c->more_ctx = more_ctx;
    if (pthread_create(&c->th, NULL, crit_main, c) != 0)
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "cannot start the critical stream's thread");
    c->started = 1;
    return CUZK_OK;
}

void bench_critical_join(bench_critical *c, int stop)
{
    if (!c || !c->started) return;
    if (stop) atomic_store(&c->stop, 1);
    pthread_join(c->th, NULL);
    c->started = 0;
}

unsigned bench_critical_done(const bench_critical *c)
{
    return atomic_load(&c->n_done);
}

typedef struct crit_summary {
    double mean, median, p90, max;
    size_t n;
} crit_summary;

static int crit_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Over the proofs that completed; field: a value of a record (negative ones, never seen, left out). Nearest-rank
 * p90, as the batch's figures. */
static crit_summary crit_summarize(const bench_critical *c, double (*field)(const crit_rec *), double *scratch)
{
    crit_summary s = {0};
    for (size_t i = 0; i < c->n_rec; i++) {
        if (!c->rec[i].ok) continue;
        double v = field(&c->rec[i]);
        if (v >= 0) scratch[s.n++] = v;
    }
    if (!s.n) return s;
    qsort(scratch, s.n, sizeof *scratch, crit_cmp);
    double sum = 0;
    for (size_t i = 0; i < s.n; i++) sum += scratch[i];
    s.mean = sum / (double)s.n;
    s.median = s.n % 2 ? scratch[s.n / 2] : (scratch[s.n / 2 - 1] + scratch[s.n / 2]) / 2;
    size_t r90 = (size_t)(0.90 * (double)s.n + 0.999999);
    s.p90 = scratch[(r90 ? r90 : 1) - 1];
    s.max = scratch[s.n - 1];
    return s;
}

/* The steps of a proof; -1 where an event is missing. */
static double diff(double a, double b)
{
    return a >= 0 && b >= 0 ? b - a : -1;
}
static double f_latency(const crit_rec *r)
{
    return r->latency_ms;
}
static double f_validate(const crit_rec *r)
{
    return r->validate_ms;
}
static double f_queue(const crit_rec *r)
{
    return diff(r->t_queue, r->t_synth_start);
}
static double f_synth(const crit_rec *r)
{
    return r->synth_ms;
}
static double f_gpu_wait(const crit_rec *r)
{
    return diff(r->t_synth_end, r->t_gpu_start);
}
static double f_gpu(const crit_rec *r)
{
    return r->gpu_ms;
}
static double f_fin_wait(const crit_rec *r)
{
    return diff(r->t_gpu_end, r->t_fin_start);
}
static double f_finish(const crit_rec *r)
{
    return r->finish_ms;
}

static const struct {
    const char *name, *key;
    double (*f)(const crit_rec *);
} CRIT_STEPS[] = {
    {"latency", "latency_ms", f_latency},
    {"validate", "validate_ms", f_validate},
    {"queue", "queue_ms", f_queue},
    {"synth", "synth_ms", f_synth},
    {"gpu wait", "gpu_wait_ms", f_gpu_wait},
    {"gpu", "gpu_ms", f_gpu},
    {"fin wait", "finish_wait_ms", f_fin_wait},
    {"finish", "finish_ms", f_finish},
};
#define CRIT_N_STEPS (sizeof CRIT_STEPS / sizeof CRIT_STEPS[0])

static size_t crit_count(const bench_critical *c, int verified)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_rec; i++) n += verified ? c->rec[i].verified : c->rec[i].ok;
    return n;
}

void bench_critical_report(bench_critical *c, int json)
{
    pthread_mutex_lock(&c->mu);
    double *scratch = malloc((c->n_rec ? c->n_rec : 1) * sizeof *scratch);
    size_t ok = crit_count(c, 0), verified = crit_count(c, 1);
    crit_summary s[CRIT_N_STEPS];
    memset(s, 0, sizeof s);
    for (size_t k = 0; scratch && k < CRIT_N_STEPS; k++) s[k] = crit_summarize(c, CRIT_STEPS[k].f, scratch);
    if (json) {
        printf("\"critical\":{\"spec\":\"%s\",\"every_s\":%.3f,\"proofs\":%zu,\"verified\":%zu,\"failed\":%u", c->name,
               c->every_s, ok, verified, c->n_failed);
        for (size_t k = 0; k < CRIT_N_STEPS; k++)
            printf(",\"%s\":{\"mean\":%.3f,\"median\":%.3f,\"p90\":%.3f,\"max\":%.3f}", CRIT_STEPS[k].key, s[k].mean,
                   s[k].median, s[k].p90, s[k].max);
        printf(",\"each\":[");
        for (size_t i = 0; i < c->n_rec; i++) {
            const crit_rec *r = &c->rec[i];
            printf("%s{\"ok\":%d,\"verified\":%d", i ? "," : "", r->ok, r->verified);
            for (size_t k = 0; k < CRIT_N_STEPS; k++) printf(",\"%s\":%.3f", CRIT_STEPS[k].key, CRIT_STEPS[k].f(r));
            printf(",\"at_submit\":{\"synthesizing\":%u,\"handoff\":%u,\"proving\":%u}}", r->load_synth,
                   r->load_handoff, r->load_proving);
        }
        printf("]}");
    } else {
        printf(
            "critical %s, CRITICAL, one at a time every %.2f s; ms (validate: check, decode and job as the daemon;\n"
            "queue: to synthesis start; gpu wait: synthesis end to prove_start; gpu: prove_start, the device's turn\n"
            "included; fin wait: to prove_finish; finish: prove_finish and verification; at submit: partitions\n"
            "synthesizing / handed off / proving)\n",
            c->name, c->every_s);
        printf("%4s", "#");
        for (size_t k = 0; k < CRIT_N_STEPS; k++) printf(" %9s", CRIT_STEPS[k].name);
        printf("  verified  at submit\n");
        for (size_t i = 0; i < c->n_rec; i++) {
            const crit_rec *r = &c->rec[i];
            printf("%4zu", i + 1);
            for (size_t k = 0; k < CRIT_N_STEPS; k++) printf(" %9.2f", CRIT_STEPS[k].f(r));
            printf("  %-8s  %u/%u/%u\n",
                   r->verified ? "yes"
                   : r->ok     ? "no"
                               : "FAILED",
                   r->load_synth, r->load_handoff, r->load_proving);
        }
        printf("critical: %zu proofs, latency median %.2f ms, p90 %.2f ms, max %.2f ms\n", ok, s[0].median, s[0].p90,
               s[0].max);
        printf("critical: %zu verified, %u failed; medians:", verified, c->n_failed);
        for (size_t k = 1; k < CRIT_N_STEPS; k++)
            printf(" %s %.2f%s", CRIT_STEPS[k].name, s[k].median, k + 1 < CRIT_N_STEPS ? "," : " ms\n");
    }
    if (c->n_failed) fprintf(stderr, "batch: a critical proof failed: %s\n", c->first_err.msg);
    free(scratch);
    pthread_mutex_unlock(&c->mu);
}

int bench_critical_ok(bench_critical *c, int need_verified)
{
    pthread_mutex_lock(&c->mu);
    size_t ok = crit_count(c, 0), verified = crit_count(c, 1);
    int good = !c->n_failed && ok > 0 && (!need_verified || verified == ok);
    pthread_mutex_unlock(&c->mu);
    return good;
}

void bench_critical_free(bench_critical *c)
{
    if (!c) return;
    bench_critical_join(c, 1);
    if (c->kind && c->kind->circuit_free) c->kind->circuit_free(c->kcircuit);
    engine_circuit_free(&c->circuit);
    for (size_t i = 0; c->vbytes && i < c->nv; i++) free(c->vbytes[i]);
    free(c->vbytes);
    free(c->vb);
    groth16_params_free(&c->params);
    r1cs_free(&c->shape);
    free(c->rec);
    pthread_mutex_destroy(&c->mu);
    free(c);
}
