/* cuzk-bench batch: the proving engine in-process, N proofs of P partitions with J requests in flight; and
 * cuzk-bench timeline: the same statistics recomputed from a saved TIMELINE log.
 *
 * Both compute their statistics from the engine's timeline lines, so a live run and a saved log of it give the
 * same numbers (peak RSS excepted, which only a live run can know). */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "circuits/spec.h"
#include "circuits/synthetic.h"
#include "engine/engine.h"

int bench_batch(int argc, char **argv);
int bench_timeline(int argc, char **argv);

/* ---- statistics from timeline lines ---- */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static int dvec_push(dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        double *nv = realloc(d->v, cap * sizeof(*nv));
        if (!nv) return -1;
        d->v = nv;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

typedef struct interval {
    double a, b;
    int gpu;
} interval;

typedef struct tl_stats {
    size_t proofs, verified, failed, cancelled, jobs;
    double t_first, t_last; /* first QUEUE, last JOB_END */
    dvec gpu, synth;
    interval *iv; /* prover busy intervals */
    size_t n_iv, cap_iv;
    double *open_start; /* per prover worker: start of its running prove_start, or -1 */
    size_t n_workers;
    uint64_t peak_mem;
    int have_any;
} tl_stats;

/* The value after " key=" in line, or NULL. */
static const char *tl_field(const char *line, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(line, key); p; p = strstr(p + 1, key))
        if (p > line && p[-1] == ' ' && p[kl] == '=') return p + kl + 1;
    return NULL;
}

static double tl_num(const char *line, const char *key, double dflt)
{
    const char *v = tl_field(line, key);
    return v ? strtod(v, NULL) : dflt;
}

static int tl_is(const char *line, const char *ev)
{
    const char *v = tl_field(line, "ev");
    size_t n = strlen(ev);
    return v && strncmp(v, ev, n) == 0 && (v[n] == ' ' || v[n] == '\n' || v[n] == '\0');
}

/* Feeds one line (others than TIMELINE lines are ignored). Returns -1 on allocation failure. */
static int tl_stats_add(tl_stats *s, const char *line)
{
    if (strncmp(line, "TIMELINE ", 9) != 0) return 0;
    double t = tl_num(line, "t_ms", 0);
    if (!s->have_any) {
        s->t_first = t;
        s->t_last = t;
        s->have_any = 1;
    }
    if (tl_is(line, "QUEUE") && t < s->t_first) s->t_first = t;
    if (tl_is(line, "SYNTH_START")) {
        double m = tl_num(line, "mem", 0);
        if (m > (double)s->peak_mem) s->peak_mem = (uint64_t)m;
    } else if (tl_is(line, "SYNTH_END")) {
        if (dvec_push(&s->synth, tl_num(line, "synth_ms", 0))) return -1;
    } else if (tl_is(line, "GPU_START") || tl_is(line, "GPU_END")) {
        double w = tl_num(line, "worker", -1);
        if (w < 0 || w > 1e6) return 0;
        size_t wi = (size_t)w;
        if (wi >= s->n_workers) {
            double *ns = realloc(s->open_start, (wi + 1) * sizeof(*ns));
            if (!ns) return -1;
            for (size_t i = s->n_workers; i <= wi; i++) ns[i] = -1;
            s->open_start = ns;
            s->n_workers = wi + 1;
        }
        if (tl_is(line, "GPU_START")) {
            s->open_start[wi] = t;
        } else {
            if (dvec_push(&s->gpu, tl_num(line, "gpu_ms", 0))) return -1;
            if (s->open_start[wi] >= 0) {
                if (s->n_iv == s->cap_iv) {
                    size_t cap = s->cap_iv ? 2 * s->cap_iv : 64;
                    interval *ni = realloc(s->iv, cap * sizeof(*ni));
                    if (!ni) return -1;
                    s->iv = ni;
                    s->cap_iv = cap;
                }
                s->iv[s->n_iv++] = (interval){s->open_start[wi], t, (int)tl_num(line, "gpu", 0)};
                s->open_start[wi] = -1;
            }
        }
    } else if (tl_is(line, "JOB_END")) {
        s->jobs++;
        if (t > s->t_last) s->t_last = t;
        const char *st = tl_field(line, "status");
        if (st && strncmp(st, "ok", 2) == 0) {
            s->proofs++;
            s->verified += tl_num(line, "verified", 0) != 0;
        } else if (st && strncmp(st, "cancelled", 9) == 0) {
            s->cancelled++;
        } else {
            s->failed++;
        }
    }
    return 0;
}

static void tl_stats_free(tl_stats *s)
{
    free(s->gpu.v);
    free(s->synth.v);
    free(s->iv);
    free(s->open_start);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_iv(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    if (x->gpu != y->gpu) return x->gpu - y->gpu;
    return (x->a > y->a) - (x->a < y->a);
}

typedef struct summary {
    double mean, median, p90, p99, max;
    size_t n;
} summary;

/* Nearest-rank percentiles; sorts v. */
static summary summarize(dvec *d)
{
    summary s = {0};
    s.n = d->n;
    if (!d->n) return s;
    qsort(d->v, d->n, sizeof(double), cmp_d);
    double sum = 0;
    for (size_t i = 0; i < d->n; i++) sum += d->v[i];
    s.mean = sum / (double)d->n;
    s.median = d->n % 2 ? d->v[d->n / 2] : (d->v[d->n / 2 - 1] + d->v[d->n / 2]) / 2;
    size_t r90 = (size_t)(0.90 * (double)d->n + 0.999999), r99 = (size_t)(0.99 * (double)d->n + 0.999999);
    s.p90 = d->v[(r90 ? r90 : 1) - 1];
    s.p99 = d->v[(r99 ? r99 : 1) - 1];
    s.max = d->v[d->n - 1];
    return s;
}

/* Fraction of the run during which each device had at least one prove_start running, averaged over devices. */
static double busy_fraction(tl_stats *s)
{
    double span = s->t_last - s->t_first;
    if (span <= 0 || !s->n_iv) return 0;
    qsort(s->iv, s->n_iv, sizeof(interval), cmp_iv);
    double busy = 0;
    int devices = 0;
    for (size_t i = 0; i < s->n_iv;) {
        int g = s->iv[i].gpu;
        devices++;
        double a = s->iv[i].a, b = s->iv[i].b;
        for (i++; i < s->n_iv && s->iv[i].gpu == g; i++) {
            if (s->iv[i].a > b) {
                busy += b - a;
                a = s->iv[i].a;
                b = s->iv[i].b;
            } else if (s->iv[i].b > b) {
                b = s->iv[i].b;
            }
        }
        busy += b - a;
    }
    return busy / (span * devices);
}

static void print_summary_text(const char *what, const summary *s)
{
    printf("%-16s mean %9.2f  median %9.2f  p90 %9.2f  p99 %9.2f  max %9.2f  ms  (n=%zu)\n", what, s->mean, s->median,
           s->p90, s->p99, s->max, s->n);
}

static void print_summary_json(const char *key, const summary *s)
{
    printf("\"%s\":{\"mean\":%.3f,\"median\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}", key, s->mean, s->median,
           s->p90, s->p99, s->max);
}

/* peak_rss < 0: unknown. */
static void report(tl_stats *s, int json, long long peak_rss)
{
    summary g = summarize(&s->gpu), sy = summarize(&s->synth);
    double span_s = (s->t_last - s->t_first) / 1e3;
    double spp = s->proofs ? span_s / (double)s->proofs : 0;
    double busy = busy_fraction(s);
    if (json) {
        printf("{\"proofs\":%zu,\"verified\":%zu,\"failed\":%zu,\"cancelled\":%zu,", s->proofs, s->verified,
               s->failed, s->cancelled);
        printf("\"wall_s\":%.3f,\"s_per_proof\":%.4f,", span_s, spp);
        print_summary_json("gpu_ms", &g);
        putchar(',');
        print_summary_json("synth_ms", &sy);
        printf(",\"gpu_busy\":%.4f,", busy);
        if (peak_rss >= 0) printf("\"peak_rss_bytes\":%lld,", peak_rss);
        else printf("\"peak_rss_bytes\":null,");
        printf("\"peak_accounted_bytes\":%llu}\n", (unsigned long long)s->peak_mem);
        return;
    }
    printf("throughput       %.3f s/proof  (%zu proofs in %.2f s; %zu verified, %zu failed, %zu cancelled)\n", spp,
           s->proofs, span_s, s->verified, s->failed, s->cancelled);
    print_summary_text("prover/partition", &g);
    print_summary_text("synth/partition", &sy);
    printf("prover busy      %.1f%%\n", 100 * busy);
    if (peak_rss >= 0) printf("peak RSS         %.1f MiB\n", (double)peak_rss / 1048576.0);
    printf("peak accounted   %.1f MiB\n", (double)s->peak_mem / 1048576.0);
}

/* ---- batch ---- */

typedef struct batch_ctx {
    engine *e;
    const engine_circuit *circuit;
    unsigned partitions;
    unsigned n;
    atomic_uint next, done, ok, verified;
    pthread_mutex_t tl_mu;
    tl_stats stats;
    int stats_oom;
    FILE *tl_file;
    pthread_mutex_t err_mu;
    cuzk_error first_err;
    int have_err;
} batch_ctx;

static void batch_timeline(void *ctx, const char *line)
{
    batch_ctx *b = ctx;
    pthread_mutex_lock(&b->tl_mu);
    if (tl_stats_add(&b->stats, line)) b->stats_oom = 1;
    if (b->tl_file) fputs(line, b->tl_file);
    pthread_mutex_unlock(&b->tl_mu);
}

typedef struct synth_ctx {
    unsigned k;
    uint64_t seed;
} synth_ctx;

/* The synthetic circuit's witness is fixed by (k, seed), which also fixes its shape: every partition proves
 * the same statement. That costs the same as distinct witnesses would. */
static cuzk_status synth_synthetic(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const synth_ctx *sc = ctx;
    return synthetic_build(NULL, sc->k, sc->seed, R1CS_WITNESS, wit, err);
}

static void *client_main(void *arg)
{
    batch_ctx *b = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&b->next, 1);
        if (i >= b->n) break;
        engine_request rq = {.circuit = b->circuit, .partitions = b->partitions, .priority = ENGINE_PRIO_NORMAL};
        uint64_t id;
        engine_result res;
        cuzk_error err;
        cuzk_status st = engine_submit(b->e, &rq, &id, &err);
        if (st == CUZK_OK) st = engine_wait(b->e, id, &res, &err);
        if (st == CUZK_OK) {
            atomic_fetch_add(&b->ok, 1);
            if (res.verified) atomic_fetch_add(&b->verified, 1);
            engine_result_free(&res);
        } else {
            pthread_mutex_lock(&b->err_mu);
            if (!b->have_err) {
                b->first_err = err;
                b->have_err = 1;
            }
            pthread_mutex_unlock(&b->err_mu);
        }
        atomic_fetch_add(&b->done, 1);
    }
    return NULL;
}

/* Bytes with an optional K/M/G/T suffix (powers of 1024). */
static int parse_bytes(const char *s, uint64_t *out)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof(buf)) return -1;
    memcpy(buf, s, n + 1);
    uint64_t mul = 1;
    char c = (char)toupper((unsigned char)buf[n - 1]);
    if (c == 'K' || c == 'M' || c == 'G' || c == 'T') {
        mul = c == 'K' ? 1ull << 10 : c == 'M' ? 1ull << 20 : c == 'G' ? 1ull << 30 : 1ull << 40;
        buf[--n] = '\0';
    }
    uint64_t v;
    if (bench_parse_u64(buf, &v) || (v && mul > UINT64_MAX / v)) return -1;
    *out = v * mul;
    return 0;
}

static void batch_usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench batch --circuit SPEC -n PROOFS -j CONCURRENCY [--partitions P] [--backend cpu|gpu]\n"
            "                        [--partition-workers N] [--gpu-workers N] [--lookahead N]\n"
            "                        [--budget BYTES[K|M|G]] [--threads T] [--timeline FILE] [--json] [--no-verify]\n"
            "Sets up SPEC in memory once, then proves PROOFS requests of P partitions (default 2) through the engine\n"
            "with CONCURRENCY requests in flight, and reports s/proof, per-partition prover and synthesis times,\n"
            "prover busy fraction, peak RSS and peak accounted memory. --threads: the prover's thread pool\n"
            "(default: all CPUs); synthesis runs on the partition workers' own threads.\n");
}

int bench_batch(int argc, char **argv)
{
    const char *spec_text = NULL, *tl_path = NULL, *backend = "cpu";
    uint64_t n = 0, j = 0, parts = 2, pw = 2, gw = 2, lookahead = 1, budget = 0, threads = 0;
    int json = 0, no_verify = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            batch_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--no-verify")) {
            no_verify = 1;
        } else if (!v) {
            fprintf(stderr, "batch: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--circuit")) {
            spec_text = v;
        } else if (!strcmp(a, "--timeline")) {
            tl_path = v;
        } else if (!strcmp(a, "--backend")) {
            backend = v;
        } else if (!strcmp(a, "-n")) {
            bad = bench_parse_u64(v, &n);
        } else if (!strcmp(a, "-j")) {
            bad = bench_parse_u64(v, &j);
        } else if (!strcmp(a, "--partitions")) {
            bad = bench_parse_u64(v, &parts);
        } else if (!strcmp(a, "--partition-workers")) {
            bad = bench_parse_u64(v, &pw);
        } else if (!strcmp(a, "--gpu-workers")) {
            bad = bench_parse_u64(v, &gw);
        } else if (!strcmp(a, "--lookahead")) {
            bad = bench_parse_u64(v, &lookahead);
        } else if (!strcmp(a, "--threads")) {
            bad = bench_parse_u64(v, &threads);
        } else if (!strcmp(a, "--budget")) {
            bad = parse_bytes(v, &budget);
        } else {
            fprintf(stderr, "batch: unknown option '%s' (try --help)\n", a);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "batch: bad value '%s' for %s\n", v, a);
            return 2;
        }
        if (strcmp(a, "--json") && strcmp(a, "--no-verify")) i++;
    }
    if (!spec_text || !n || !j) {
        fprintf(stderr, "batch: --circuit, -n and -j are required (try --help)\n");
        return 2;
    }
    if (!parts || parts > 1024 || !pw || pw > 256 || !gw || gw > 64 || !lookahead || lookahead > 1024 ||
        j > 1024 || n > 1000000 || threads > 1024) {
        fprintf(stderr, "batch: a count is out of range\n");
        return 2;
    }
    if (strcmp(backend, "cpu") != 0) {
        if (!strcmp(backend, "gpu")) {
            fprintf(stderr, "batch: backend gpu: unsupported (the GPU backend is not behind the engine seam yet)\n");
            return 1;
        }
        fprintf(stderr, "batch: unknown backend '%s' (cpu or gpu)\n", backend);
        return 2;
    }
    cuzk_error err;
    circuit_spec spec;
    if (circuit_spec_parse(spec_text, &spec, &err) != CUZK_OK) {
        fprintf(stderr, "batch: %s\n", err.msg);
        return 2;
    }

    int rc = 1;
    pool_t *pool = NULL;
    r1cs shape;
    memset(&shape, 0, sizeof(shape));
    groth16_params params;
    memset(&params, 0, sizeof(params));
    engine_circuit circuit;
    memset(&circuit, 0, sizeof(circuit));
    engine_backend *be = NULL;
    batch_ctx b;
    memset(&b, 0, sizeof(b));
    pthread_mutex_init(&b.tl_mu, NULL);
    pthread_mutex_init(&b.err_mu, NULL);
    pthread_t *clients = NULL;
    unsigned started = 0;
    synth_ctx sc = {spec.k, spec.seed};
    char spec_canon[128];
    circuit_spec_format(&spec, spec_canon, sizeof(spec_canon));

    if (pool_create(&pool, (unsigned)threads, &err) != CUZK_OK) goto fail;
    uint64_t t0 = bench_now_ns();
    if (circuit_spec_build(pool, &spec, R1CS_MATRICES, &shape, &err) != CUZK_OK) goto fail;
    if (groth16_setup(pool, &shape, &params, &err) != CUZK_OK) goto fail;
    if (engine_circuit_init(&circuit, spec_canon, &params, &shape, synth_synthetic, &sc, &err) != CUZK_OK) goto fail;
    if (!json)
        fprintf(stderr, "batch: %s: %zu constraints, domain %zu; setup %.2f s\n", spec_canon, shape.num_constraints,
                circuit.m, (double)(bench_now_ns() - t0) / 1e9);
    if (engine_backend_cpu_create(pool, NULL, &be, &err) != CUZK_OK) goto fail;
    if (tl_path && !(b.tl_file = fopen(tl_path, "w"))) {
        cuzk_error_set(&err, CUZK_ERR_IO, "cannot open %s for writing", tl_path);
        goto fail;
    }
    engine_config cfg = {.backend = be, .gpu_workers = (unsigned)gw, .partition_workers = (unsigned)pw,
                         .synthesis_lookahead = (unsigned)lookahead, .host_budget = budget, .no_verify = no_verify,
                         .timeline_cb = batch_timeline, .timeline_ctx = &b};
    if (engine_create(&b.e, &cfg, &err) != CUZK_OK) goto fail;
    b.circuit = &circuit;
    b.partitions = (unsigned)parts;
    b.n = (unsigned)n;
    char budget_text[32] = "unlimited";
    if (budget) snprintf(budget_text, sizeof(budget_text), "%.1f MiB", (double)budget / 1048576.0);
    if (!json)
        fprintf(stderr, "batch: %llu proofs x %llu partitions, -j %llu, backend %s, partition workers %llu, "
                        "gpu workers %llu, budget %s%s\n",
                (unsigned long long)n, (unsigned long long)parts, (unsigned long long)j, backend,
                (unsigned long long)pw, (unsigned long long)gw, budget_text, no_verify ? ", no verification" : "");
    clients = calloc(j, sizeof(*clients));
    if (!clients) {
        cuzk_error_set(&err, CUZK_ERR_NOMEM, "cannot allocate client threads");
        goto fail;
    }
    for (; started < j; started++)
        if (pthread_create(&clients[started], NULL, client_main, &b) != 0) break;
    if (!started) {
        cuzk_error_set(&err, CUZK_ERR_INTERNAL, "cannot start client threads");
        goto fail;
    }
    /* Progress: one line on stderr, rewritten about once a second. */
    uint64_t t_run = bench_now_ns();
    while (atomic_load(&b.done) < b.n) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        static uint64_t last;
        uint64_t now = bench_now_ns();
        if (now - last >= 1000000000ull) {
            last = now;
            engine_stats es;
            engine_get_stats(b.e, &es);
            if (!json)
                fprintf(stderr, "\r[%u/%u] %.1f s  partitions %llu  synth %u handoff %u proving %u  mem %.1f MiB ",
                        atomic_load(&b.done), b.n, (double)(now - t_run) / 1e9,
                        (unsigned long long)es.partitions_proved, es.synth_active, es.handoff_len, es.provers_active,
                        (double)es.mem.host_in_use / 1048576.0);
        }
    }
    for (unsigned i = 0; i < started; i++) pthread_join(clients[i], NULL);
    if (!json) fprintf(stderr, "\n");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (b.have_err) fprintf(stderr, "batch: a proof failed: %s\n", b.first_err.msg);
    pthread_mutex_lock(&b.tl_mu);
    if (b.stats_oom) fprintf(stderr, "batch: out of memory while collecting the timeline; statistics are partial\n");
    report(&b.stats, json, (long long)ru.ru_maxrss * 1024);
    pthread_mutex_unlock(&b.tl_mu);
    rc = b.have_err || atomic_load(&b.ok) != b.n ? 1 : 0;
    goto done;
fail:
    fprintf(stderr, "batch: %s\n", err.msg);
    rc = 1;
done:
    engine_destroy(b.e);
    free(clients);
    if (b.tl_file) fclose(b.tl_file);
    engine_backend_destroy(be);
    engine_circuit_free(&circuit);
    groth16_params_free(&params);
    r1cs_free(&shape);
    pool_destroy(pool);
    tl_stats_free(&b.stats);
    pthread_mutex_destroy(&b.tl_mu);
    pthread_mutex_destroy(&b.err_mu);
    return rc;
}

/* ---- timeline ---- */

int bench_timeline(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: cuzk-bench timeline FILE [--json]\n"
                   "Recomputes the statistics of cuzk-bench batch from a saved TIMELINE log (other lines are "
                   "ignored).\n");
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "timeline: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "timeline: one file only\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "timeline: a FILE is required (try --help)\n");
        return 2;
    }
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "timeline: cannot open %s\n", path);
        return 1;
    }
    tl_stats s;
    memset(&s, 0, sizeof(s));
    char line[1024];
    int rc = 0;
    size_t n_lines = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "TIMELINE ", 9) == 0) n_lines++;
        if (tl_stats_add(&s, line)) {
            fprintf(stderr, "timeline: out of memory\n");
            rc = 1;
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (!rc && !n_lines) {
        fprintf(stderr, "timeline: no TIMELINE lines in %s\n", path);
        rc = 1;
    }
    if (!rc) report(&s, json, -1);
    tl_stats_free(&s);
    return rc;
}
