/* cuzk-bench batch: the proving engine in-process, N proofs of P partitions with J requests in flight; and
 * cuzk-bench timeline: the same statistics recomputed from a saved TIMELINE log.
 *
 * Both compute their statistics from the engine's events (a live run's structs, a saved log's lines read back with
 * engine_event_parse), so a live run and a saved log of it give the same numbers (peak RSS excepted, which only a
 * live run can know). */
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
#include "circuits/porep/c1.h"
#include "circuits/porep/synth_c1.h"
#include "engine/engine.h"
#include "engine/open.h"
#include "engine/porep.h"
#include "engine/post.h"
#include "engine/snap.h"
#include "formats/post_vanilla_gen.h"
#include "formats/porep_c1.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "gpu/gpu.h"
#include "gpu/gpu_setup.h"
#include "gpu/plan.h"
#include "gpu/tune.h"
#ifdef CUZK_HAVE_GPU
#include "gpu/gpu_abc.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_prove.h"
#endif

int bench_batch(int argc, char **argv);
int bench_timeline(int argc, char **argv);

/* ---- statistics from events ---- */

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
    dvec gpu_end; /* when each prove_start ended (ms) */
    interval *iv; /* prover busy intervals */
    size_t n_iv, cap_iv;
    double *open_start; /* per prover worker: start of its running prove_start, or -1 */
    size_t n_workers;
    uint64_t peak_mem;
    int have_any;
} tl_stats;

/* Feeds one event. Returns -1 on allocation failure. */
static int tl_stats_add(tl_stats *s, const engine_event *ev)
{
    double t = ev->t_ms;
    if (!s->have_any) {
        s->t_first = t;
        s->t_last = t;
        s->have_any = 1;
    }
    if (ev->type == ENGINE_EV_QUEUE && t < s->t_first) s->t_first = t;
    if (ev->type == ENGINE_EV_SYNTH_START) {
        if (ev->bytes > s->peak_mem) s->peak_mem = ev->bytes;
    } else if (ev->type == ENGINE_EV_SYNTH_END) {
        if (dvec_push(&s->synth, ev->ms)) return -1;
    } else if (ev->type == ENGINE_EV_GPU_START || ev->type == ENGINE_EV_GPU_END) {
        if (ev->worker < 0 || ev->worker > 1000000) return 0;
        size_t wi = (size_t)ev->worker;
        if (wi >= s->n_workers) {
            double *ns = realloc(s->open_start, (wi + 1) * sizeof(*ns));
            if (!ns) return -1;
            for (size_t i = s->n_workers; i <= wi; i++) ns[i] = -1;
            s->open_start = ns;
            s->n_workers = wi + 1;
        }
        if (ev->type == ENGINE_EV_GPU_START) {
            s->open_start[wi] = t;
        } else {
            if (dvec_push(&s->gpu, ev->ms) || dvec_push(&s->gpu_end, t)) return -1;
            if (s->open_start[wi] >= 0) {
                if (s->n_iv == s->cap_iv) {
                    size_t cap = s->cap_iv ? 2 * s->cap_iv : 64;
                    interval *ni = realloc(s->iv, cap * sizeof(*ni));
                    if (!ni) return -1;
                    s->iv = ni;
                    s->cap_iv = cap;
                }
                s->iv[s->n_iv++] = (interval){s->open_start[wi], t, ev->device};
                s->open_start[wi] = -1;
            }
        }
    } else if (ev->type == ENGINE_EV_JOB_END) {
        s->jobs++;
        if (t > s->t_last) s->t_last = t;
        if (ev->status == CUZK_OK) {
            s->proofs++;
            s->verified += ev->verified != 0;
        } else if (ev->status == CUZK_ERR_CANCELLED) {
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
    free(s->gpu_end.v);
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

/* The steady state: ms between partitions' prove_start ends, from the (lo+1)th to the (hi+1)th (a tenth of them,
 * at least 2, left out at each end: the start's uploads and the last proofs' drain). -1 when fewer than 8 ended.
 * Sorts gpu_end. */
static double steady_ms(tl_stats *s, size_t *lo, size_t *hi)
{
    size_t n = s->gpu_end.n;
    *lo = *hi = 0;
    if (n < 8) return -1;
    qsort(s->gpu_end.v, n, sizeof(double), cmp_d);
    *lo = n / 10 < 2 ? 2 : n / 10;
    *hi = n - 1 - *lo;
    return (s->gpu_end.v[*hi] - s->gpu_end.v[*lo]) / (double)(*hi - *lo);
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

/* peak_rss < 0: unknown. es: the engine's a, b, c buffer counts and pinned peak (NULL: no engine). json_round:
 * members put first in the JSON object (--rounds), or NULL. */
static void report(tl_stats *s, int json, const char *json_round, long long peak_rss, const engine_stats *es,
                   bench_critical *crit)
{
    summary g = summarize(&s->gpu), sy = summarize(&s->synth);
    double span_s = (s->t_last - s->t_first) / 1e3;
    double spp = s->proofs ? span_s / (double)s->proofs : 0;
    double busy = busy_fraction(s);
    size_t lo, hi;
    double steady = steady_ms(s, &lo, &hi);
    /* Partitions a proof: every job's partitions reach prove_start, failed jobs' too (cancelled ones may not). */
    double per_proof = s->jobs ? (double)s->gpu_end.n / (double)s->jobs : 0;
    if (json) {
        printf("{%s\"proofs\":%zu,\"verified\":%zu,\"failed\":%zu,\"cancelled\":%zu,", json_round ? json_round : "",
               s->proofs, s->verified, s->failed, s->cancelled);
        printf("\"wall_s\":%.3f,\"s_per_proof\":%.4f,", span_s, spp);
        print_summary_json("gpu_ms", &g);
        putchar(',');
        print_summary_json("synth_ms", &sy);
        printf(",\"gpu_busy\":%.4f,", busy);
        if (steady >= 0)
            printf("\"steady_s_per_partition\":%.4f,\"steady_s_per_proof\":%.4f,", steady / 1e3,
                   steady / 1e3 * per_proof);
        else
            printf("\"steady_s_per_partition\":null,\"steady_s_per_proof\":null,");
        if (peak_rss >= 0)
            printf("\"peak_rss_bytes\":%lld,", peak_rss);
        else
            printf("\"peak_rss_bytes\":null,");
        if (es)
            printf("\"abc_sets_allocated\":%llu,\"abc_sets_pinned\":%llu,\"abc_sets_reused\":%llu,"
                   "\"abc_fallback\":%d,\"abc_alloc_ms\":%.3f,\"peak_pinned_bytes\":%llu,",
                   (unsigned long long)es->abc_allocated, (unsigned long long)es->abc_pinned,
                   (unsigned long long)es->abc_reused, es->abc_fallback, (double)es->abc_alloc_us / 1e3,
                   (unsigned long long)es->mem.peak[ENGINE_MEM_PINNED]);
        printf("\"peak_accounted_bytes\":%llu", (unsigned long long)s->peak_mem);
        if (crit) {
            putchar(',');
            bench_critical_report(crit, 1);
        }
        printf("}\n");
        return;
    }
    printf("throughput       %.3f s/proof  (%zu proofs in %.2f s; %zu verified, %zu failed, %zu cancelled)\n", spp,
           s->proofs, span_s, s->verified, s->failed, s->cancelled);
    if (steady >= 0)
        printf("steady           %.3f s/partition, %.3f s/proof  (prove_start ends %zu to %zu of %zu; %.1f partitions "
               "a proof)\n",
               steady / 1e3, steady / 1e3 * per_proof, lo + 1, hi + 1, s->gpu_end.n, per_proof);
    else
        printf("steady           n/a (%zu partitions; 8 needed)\n", s->gpu_end.n);
    print_summary_text("prover/partition", &g);
    print_summary_text("synth/partition", &sy);
    printf("prover busy      %.1f%%\n", 100 * busy);
    if (peak_rss >= 0) printf("peak RSS         %.1f MiB\n", (double)peak_rss / 1048576.0);
    printf("peak accounted   %.1f MiB\n", (double)s->peak_mem / 1048576.0);
    if (es)
        printf("buffer sets      %llu allocated in %.1f ms (%llu page-locked%s, peak %.1f MiB), %llu reused\n",
               (unsigned long long)es->abc_allocated, (double)es->abc_alloc_us / 1e3,
               (unsigned long long)es->abc_pinned, es->abc_fallback ? "; page-locking refused once, malloc since" : "",
               (double)es->mem.peak[ENGINE_MEM_PINNED] / 1048576.0, (unsigned long long)es->abc_reused);
    if (crit) bench_critical_report(crit, 0);
}

/* ---- batch ---- */

typedef struct batch_ctx {
    engine *e;
    const engine_circuit *circuit;
    const engine_porep_circuit *porep; /* PoRep: requests for c1 */
    const porep_c1 *c1;
    const engine_post_circuit *post; /* PoSt: requests for post_job */
    const engine_post_job *post_job;
    const engine_snap_circuit *snap; /* SnapDeals: requests for snap_job */
    const engine_snap_job *snap_job;
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
    bench_critical *crit; /* --critical: its jobs' events go to it, not to the batch's statistics */
} batch_ctx;

static void batch_event(void *ctx, const engine_event *ev)
{
    batch_ctx *b = ctx;
    if (b->crit && bench_critical_event(b->crit, ev)) return;
    pthread_mutex_lock(&b->tl_mu);
    if (tl_stats_add(&b->stats, ev)) b->stats_oom = 1;
    pthread_mutex_unlock(&b->tl_mu);
}

typedef struct synth_ctx {
    unsigned k;
    uint64_t seed;
    pool_t *pool; /* the synthesis pool: the circuit's units are generated over it */
} synth_ctx;

/* The synthetic circuit's witness is fixed by (k, seed), which also fixes its shape: every partition proves
 * the same statement. That costs the same as distinct witnesses would. */
static cuzk_status synth_synthetic(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const synth_ctx *sc = ctx;
    return synthetic_build(sc->pool, sc->k, sc->seed, R1CS_WITNESS, wit, err);
}

/* SPEC zkey:ZKEY,wtns:WTNS: a snarkjs circuit whose every partition proves the .wtns file's witness. */
typedef struct zkey_ctx {
    zkey z;
    wtns w;
} zkey_ctx;

static cuzk_status synth_zkey(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload;
    (void)partition;
    const zkey_ctx *zc = ctx;
    return zkey_witness(&zc->z, zc->w.values, zc->w.n, wit, err);
}

/* The two paths of "zkey:ZKEY,wtns:WTNS" (cap bytes each); 0 when text does not have that form. */
static int zkey_spec_paths(const char *text, char *zkey_path, char *wtns_path, size_t cap)
{
    const char *sep = strstr(text, ",wtns:");
    if (strncmp(text, "zkey:", 5) != 0 || sep == NULL) return 0;
    size_t zl = (size_t)(sep - (text + 5)), wl = strlen(sep + 6);
    if (zl == 0 || wl == 0 || zl >= cap || wl >= cap) return 0;
    memcpy(zkey_path, text + 5, zl);
    zkey_path[zl] = '\0';
    memcpy(wtns_path, sep + 6, wl + 1);
    return 1;
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
        cuzk_status st = b->porep  ? engine_porep_request(b->porep, b->c1, ENGINE_PRIO_NORMAL, &rq, &err)
                         : b->post ? engine_post_request(b->post, b->post_job, ENGINE_PRIO_NORMAL, &rq, &err)
                         : b->snap ? engine_snap_request(b->snap, b->snap_job, ENGINE_PRIO_NORMAL, &rq, &err)
                                   : CUZK_OK;
        if (st == CUZK_OK) st = engine_submit(b->e, &rq, &id, &err);
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

/* One batch: b->n proofs from j clients, progress on stderr, then the report (json_round: as report's). 0 when every
 * proof was proved, 1 when one was not, -1 (err set) when no client could start. */
static int batch_run(batch_ctx *b, unsigned j, int json, const char *json_round, cuzk_error *err)
{
    pthread_t *clients = calloc(j, sizeof(*clients));
    if (!clients) {
        cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate client threads");
        return -1;
    }
    unsigned started = 0;
    for (; started < j; started++)
        if (pthread_create(&clients[started], NULL, client_main, b) != 0) break;
    if (!started) {
        free(clients);
        cuzk_error_set(err, CUZK_ERR_INTERNAL, "cannot start client threads");
        return -1;
    }
    /* Progress: one line on stderr, rewritten about once a second. */
    uint64_t t_run = bench_now_ns(), last = 0;
    while (atomic_load(&b->done) < b->n) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        uint64_t now = bench_now_ns();
        if (now - last >= 1000000000ull) {
            last = now;
            engine_stats es;
            engine_get_stats(b->e, &es);
            if (!json)
                fprintf(stderr, "\r[%u/%u] %.1f s  partitions %llu  synth %u handoff %u proving %u  mem %.1f MiB%s",
                        atomic_load(&b->done), b->n, (double)(now - t_run) / 1e9,
                        (unsigned long long)es.partitions_proved, es.synth_active, es.handoff_len, es.provers_active,
                        (double)es.mem.host_in_use / 1048576.0, b->crit ? "" : " ");
            if (!json && b->crit) fprintf(stderr, "  critical %u ", bench_critical_done(b->crit));
        }
    }
    for (unsigned i = 0; i < started; i++) pthread_join(clients[i], NULL);
    free(clients);
    /* The batch is over: the proof in progress ends, no other starts. */
    bench_critical_join(b->crit, 1);
    if (!json) fprintf(stderr, "\n");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (b->have_err) fprintf(stderr, "batch: a proof failed: %s\n", b->first_err.msg);
    /* The engine's lock before tl_mu, never inside it: events are emitted under the engine's lock and take tl_mu. */
    engine_stats fin;
    engine_get_stats(b->e, &fin);
    pthread_mutex_lock(&b->tl_mu);
    if (b->stats_oom) fprintf(stderr, "batch: out of memory while collecting the timeline; statistics are partial\n");
    report(&b->stats, json, json_round, (long long)ru.ru_maxrss * 1024, &fin, b->crit);
    pthread_mutex_unlock(&b->tl_mu);
    fflush(stdout);
    return b->have_err || atomic_load(&b->ok) != b->n ? 1 : 0;
}

/* Counters and statistics back to a fresh batch's, for the next round on the same engine (idle: every client
 * joined). */
static void batch_reset(batch_ctx *b)
{
    atomic_store(&b->next, 0);
    atomic_store(&b->done, 0);
    atomic_store(&b->ok, 0);
    atomic_store(&b->verified, 0);
    pthread_mutex_lock(&b->tl_mu);
    tl_stats_free(&b->stats);
    memset(&b->stats, 0, sizeof b->stats);
    b->stats_oom = 0;
    pthread_mutex_unlock(&b->tl_mu);
    b->have_err = 0;
}

/* The critical stream runs while the batch has jobs in flight. */
static int batch_running(void *ctx)
{
    batch_ctx *b = ctx;
    return atomic_load(&b->done) < b->n;
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

static void setup_progress(void *ctx, const char *step)
{
    fprintf(stderr, "setup: %s (%.2f s)\n", step, (double)(bench_now_ns() - *(const uint64_t *)ctx) / 1e9);
}

/* Declared in bench.h. */
cuzk_status bench_setup(pool_t *pool, const r1cs *cs, int want_gpu, int device, groth16_params *out, cuzk_error *err)
{
    uint64_t t0 = bench_now_ns();
    groth16_fixed_base fb;
    groth16_setup_options opts = {NULL, setup_progress, &t0};
    gpu_ctx *ctx = NULL;
    gpu_fixed_base *gfb = NULL;
    if (want_gpu && gpu_device_count() > 0) {
        cuzk_status st = gpu_ctx_create(&ctx, device, err);
        if (st == CUZK_OK) st = gpu_fixed_base_create(ctx, &gfb, err);
        if (st != CUZK_OK) {
            gpu_ctx_destroy(ctx);
            return st;
        }
        gpu_fixed_base_engine(gfb, &fb);
        opts.fixed_base = &fb;
    }
    fprintf(stderr, "setup: %zu constraints, %zu inputs, %zu aux; fixed-base multiplications on the %s\n",
            cs->num_constraints, cs->num_inputs, cs->num_aux, ctx ? "GPU" : "CPU");
    cuzk_status st = groth16_setup_opts(pool, cs, &opts, out, err);
    gpu_fixed_base_destroy(gfb);
    gpu_ctx_destroy(ctx);
    return st;
}

/* "0,1,3": distinct device ordinals, each visible; 1 (after a message) when the list is malformed or names a
 * missing device. */
#define BATCH_MAX_DEVICES 16
static int parse_devices(const char *v, int *out, size_t *n)
{
    int visible = gpu_device_count();
    *n = 0;
    if (v == NULL || *v == '\0') {
        fprintf(stderr, "batch: --devices needs a list, e.g. 0,1\n");
        return 1;
    }
    for (const char *p = v;;) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 0 || d >= visible || *n == BATCH_MAX_DEVICES) {
            fprintf(stderr, "batch: --devices %s: '%.*s' is not one of the %d visible devices\n", v,
                    (int)strcspn(p, ","), p, visible > 0 ? visible : 0);
            return 1;
        }
        for (size_t k = 0; k < *n; k++)
            if (out[k] == (int)d) {
                fprintf(stderr, "batch: --devices %s: device %ld twice\n", v, d);
                return 1;
            }
        out[(*n)++] = (int)d;
        if (*end == '\0') return 0;
        if (*end != ',') {
            fprintf(stderr, "batch: --devices %s: expected device numbers separated by commas\n", v);
            return 1;
        }
        p = end + 1;
    }
}

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
static uint64_t mem_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    if (f) fclose(f);
    return (uint64_t)kib * 1024;
}

/* ---- stages: one partition, GPU and CPU provers, per stage ---- */

#ifdef CUZK_HAVE_GPU
enum {
    ST_UPLOAD,
    ST_ABC_EVAL,
    ST_NTT,
    ST_MSM_H,
    ST_CLASSIFY,
    ST_CLASSIFY_WAIT,
    ST_BA_L,
    ST_BA_A,
    ST_BA_B,
    ST_TAIL_L,
    ST_TAIL_A,
    ST_TAIL_B,
    ST_BA_B2,
    ST_START,
    ST_B_G2,
    ST_ASSEMBLY,
    ST_GPU_TOTAL,
    ST_N
};
static const char *const ST_NAME[ST_N] = {"a/b/c (or witness) upload",
                                          "a/b/c evaluation (device)",
                                          "H: 7 NTTs + pointwise",
                                          "MSM H",
                                          "classify 0/1 (host, overlapped)",
                                          "  wait for classify",
                                          "batch add L",
                                          "batch add A",
                                          "batch add B_G1",
                                          "tail MSM L",
                                          "tail MSM A",
                                          "tail MSM B_G1",
                                          "B_G2 (GPU)",
                                          "prove_start total",
                                          "B_G2 MSM (CPU, when not on the GPU)",
                                          "assembly (CPU)",
                                          "partition total"};

static int batch_stages(const char *spec_text, unsigned reps, unsigned cpu_reps, int fake, unsigned threads,
                        int abc_pinned, int abc_device)
{
    cuzk_error err;
    circuit_spec spec;
    if (circuit_spec_parse(spec_text, &spec, &err) != CUZK_OK) {
        fprintf(stderr, "batch: %s\n", err.msg);
        return 2;
    }
    if (spec.kind == CIRCUIT_SNAP) {
        fprintf(stderr, "batch: %s: SnapDeals stages are not measured by batch yet\n", spec_text);
        return 2;
    }
    if (abc_device < 0) {
        gpu_device_info dev0;
        abc_device = gpu_device_get_info(0, &dev0, &err) != CUZK_OK || gpu_plan_abc_on_device(dev0.total_mem);
    }
    int rc = 1;
    pool_t *pool = NULL;
    r1cs shape;
    memset(&shape, 0, sizeof(shape));
    groth16_params params;
    memset(&params, 0, sizeof(params));
    r1cs_density dn;
    memset(&dn, 0, sizeof(dn));
    fr_t *abc = NULL, *scratch = NULL, *wit = NULL;
    double *t = NULL, *tc = NULL;
    gpu_params *gp = NULL;
    gpu_shape *gs = NULL;
    gpu_prover *pv = NULL;
    domain_t d;
    char canon[128];
    circuit_spec_format(&spec, canon, sizeof(canon));
    if (pool_create(&pool, threads, &err) != CUZK_OK) goto fail;
    uint64_t t0 = bench_now_ns();
    if (circuit_spec_build(pool, &spec, R1CS_MATRICES | R1CS_WITNESS, &shape, &err) != CUZK_OK) goto fail;
    if (r1cs_compute_density(&shape, &dn, &err) != CUZK_OK) goto fail;
    if (domain_for_size(&d, shape.num_constraints, &err) != CUZK_OK) goto fail;
    if (fake ? bench_fake_params(pool, &shape, &dn, d.m, &params, &err) != CUZK_OK
             : bench_setup(pool, &shape, 1, 0, &params, &err) != CUZK_OK)
        goto fail;
    double setup_s = (double)(bench_now_ns() - t0) / 1e9;
    /* Page-locked a, b, c go to the device by direct DMA (what the engine's cache gives the GPU backend). */
    double pin_ms = 0;
    if (abc_pinned) {
        uint64_t p0 = bench_now_ns();
        void *mem = NULL;
        if (gpu_host_alloc(3 * d.m * sizeof(fr_t), &mem, &err) != CUZK_OK) goto fail;
        abc = mem;
        memset(abc, 0, 3 * d.m * sizeof(fr_t)); /* what the first partition's evaluation pays: the page touch */
        pin_ms = (double)(bench_now_ns() - p0) / 1e6;
    } else {
        abc = malloc(3 * d.m * sizeof(fr_t));
    }
    scratch = malloc(3 * d.m * sizeof(fr_t));
    t = calloc((size_t)reps * ST_N, sizeof(double));
    tc = calloc((size_t)(cpu_reps ? cpu_reps : 1) * 8, sizeof(double));
    if (!abc || !scratch || !t || !tc) {
        cuzk_error_set(&err, CUZK_ERR_NOMEM, "stages: out of memory");
        goto fail;
    }
    memset(abc, 0, 3 * d.m * sizeof(fr_t));
    if (r1cs_eval_abc(pool, &shape, shape.inputs, shape.aux, abc, abc + d.m, abc + 2 * d.m, &err) != CUZK_OK) goto fail;
    printf("stages: %s: %zu constraints, domain 2^%u, %zu inputs, %zu aux; %s %.1f s; %u threads\n", canon,
           shape.num_constraints, d.log_m, shape.num_inputs, shape.num_aux, fake ? "fake setup" : "setup", setup_s,
           pool_size(pool));
    if (abc_device)
        printf("stages: a, b, c evaluated on the device from the matrices (the witness uploaded)\n");
    else if (abc_pinned)
        printf("stages: a, b, c page-locked (gpu_host_alloc of %.2f GiB and first touch: %.1f ms)\n",
               (double)(3 * d.m * sizeof(fr_t)) / 1073741824.0, pin_ms);
    else
        printf("stages: a, b, c in pageable memory (malloc)\n");
    gpu_device_info info;
    if (gpu_device_get_info(0, &info, &err) != CUZK_OK) goto fail;
    t0 = bench_now_ns();
    if (gpu_params_upload(0, &params, &gp, &err) != CUZK_OK) goto fail;
    printf("stages: device %s; bases upload (once per params) %.1f ms, %.2f GiB resident\n", info.name,
           (double)(bench_now_ns() - t0) / 1e6, (double)gpu_params_bytes(gp) / 1073741824.0);
    if (abc_device) {
        /* The witness as the engine hands it over: copied into a page-locked set (--abc-pinned) or as synthesized. */
        if (abc_pinned) {
            void *mem = NULL;
            if (gpu_host_alloc((shape.num_inputs + shape.num_aux) * sizeof(fr_t), &mem, &err) != CUZK_OK) goto fail;
            wit = mem;
            memcpy(wit, shape.inputs, shape.num_inputs * sizeof(fr_t));
            memcpy(wit + shape.num_inputs, shape.aux, shape.num_aux * sizeof(fr_t));
        }
        printf("stages: the witness in %s memory\n", abc_pinned ? "page-locked" : "pageable");
        t0 = bench_now_ns();
        if (gpu_shape_upload(0, &shape, &gs, &err) != CUZK_OK) goto fail;
        printf("stages: matrices upload (once per circuit) %.1f ms, %.2f GiB resident\n",
               (double)(bench_now_ns() - t0) / 1e6, (double)gpu_shape_bytes(gs) / 1073741824.0);
    }
    if (gpu_prover_create(0, &pv, &err) != CUZK_OK) goto fail;

    fr_t r, s;
    fr_from_u64(&r, 0x1234567);
    fr_from_u64(&s, 0x7654321);
    groth16_proof pg, pc;
    uint8_t bg[GROTH16_PROOF_BYTES], bc[GROTH16_PROOF_BYTES];
    gpu_prove_timings gt;
    groth16_timings tm;
    groth16_pending pd_gpu, pd_cpu;
    memset(&pd_gpu, 0, sizeof(pd_gpu));
    memset(&pd_cpu, 0, sizeof(pd_cpu));
    int same = 1;
    for (unsigned i = 0; i <= reps; i++) { /* i == 0: warm-up (plan, pools), not counted */
        groth16_pending pd;
        memset(&tm, 0, sizeof(tm));
        uint64_t a0 = bench_now_ns();
        cuzk_status st = abc_device ? gpu_prove_start_shape(pv, gp, gs, pool, &params, wit ? wit : shape.inputs,
                                                            shape.num_inputs, wit ? wit + shape.num_inputs : shape.aux,
                                                            shape.num_aux, &dn, &pd, NULL, &gt, &err)
                                    : gpu_prove_start_abc(pv, gp, pool, &params, shape.num_constraints, abc, abc + d.m,
                                                          abc + 2 * d.m, shape.inputs, shape.num_inputs, shape.aux,
                                                          shape.num_aux, &dn, &pd, NULL, &gt, &err);
        if (st != CUZK_OK) goto fail;
        if (groth16_prove_finish(pool, &pd, &r, &s, &pg, &tm, &err) != CUZK_OK) goto fail;
        double total = (double)(bench_now_ns() - a0) / 1e6;
        pd_gpu = pd;
        if (!i) continue;
        double *row = &t[(size_t)(i - 1) * ST_N];
        row[ST_UPLOAD] = gt.abc_upload_ms;
        row[ST_ABC_EVAL] = gt.abc_eval_ms;
        row[ST_NTT] = gt.ntt_ms;
        row[ST_MSM_H] = gt.msm_h_ms;
        row[ST_CLASSIFY] = gt.classify_ms;
        row[ST_CLASSIFY_WAIT] = gt.classify_wait_ms;
        for (int q = 0; q < 3; q++) {
            row[ST_BA_L + q] = gt.batch_add_ms[q];
            row[ST_TAIL_L + q] = gt.tail_ms[q];
        }
        row[ST_BA_B2] = gt.b_g2_ms;
        row[ST_START] = gt.total_ms;
        row[ST_B_G2] = tm.msm_b_g2_ms;
        row[ST_ASSEMBLY] = tm.assembly_ms;
        row[ST_GPU_TOTAL] = total;
    }
    groth16_proof_write(bg, &pg);
    static const char *const QN[3] = {"L", "A", "B_G1"};
    for (int q = 0; q < 3; q++)
        printf("stages: %-4s %10zu bases: %s, %zu ones, %zu tail\n", QN[q], gt.bases[q],
               gt.split[q] ? "split" : "one full MSM", gt.ones[q], gt.tail[q]);

    for (unsigned i = 0; i < cpu_reps; i++) {
        groth16_pending pd;
        memset(&tm, 0, sizeof(tm));
        memcpy(scratch, abc, 3 * d.m * sizeof(fr_t));
        uint64_t a0 = bench_now_ns();
        if (groth16_prove_start_abc(pool, &params, shape.num_constraints, scratch, scratch + d.m, scratch + 2 * d.m,
                                    shape.inputs, shape.num_inputs, shape.aux, shape.num_aux, &dn, &pd, &tm,
                                    &err) != CUZK_OK)
            goto fail;
        if (groth16_prove_finish(pool, &pd, &r, &s, &pc, &tm, &err) != CUZK_OK) goto fail;
        pd_cpu = pd;
        double *row = &tc[(size_t)i * 8];
        row[0] = tm.h_ms;
        row[1] = tm.msm_h_ms;
        row[2] = tm.msm_l_ms;
        row[3] = tm.msm_a_ms;
        row[4] = tm.msm_b_g1_ms;
        row[5] = tm.msm_b_g2_ms;
        row[6] = tm.assembly_ms;
        row[7] = (double)(bench_now_ns() - a0) / 1e6;
    }
    if (cpu_reps) {
        groth16_proof_write(bc, &pc);
        same = memcmp(bg, bc, sizeof(bg)) == 0;
        printf("stages: GPU and CPU proofs %s", same ? "byte-identical" : "DIFFER in");
        const g1_jac_t *pgs[4] = {&pd_gpu.h, &pd_gpu.l, &pd_gpu.a, &pd_gpu.b_g1};
        const g1_jac_t *pcs[4] = {&pd_cpu.h, &pd_cpu.l, &pd_cpu.a, &pd_cpu.b_g1};
        static const char *const PN[4] = {"H", "L", "A", "B_G1"};
        for (int k = 0; k < 4; k++)
            if (!g1_jac_eq(pgs[k], pcs[k])) printf(" %s", PN[k]);
        printf("\n");
    }
    printf("\n%-34s %12s   (median of %u GPU runs after a warm-up)\n", "stage (GPU backend)", "ms", reps);
    double col[1000];
    for (int k = 0; k < ST_N; k++) {
        for (unsigned i = 0; i < reps; i++) col[i] = t[(size_t)i * ST_N + k];
        printf("%-34s %12.2f\n", ST_NAME[k], bench_median(col, reps));
    }
    if (cpu_reps) {
        static const char *const CN[8] = {"H: NTTs",  "MSM H",    "MSM L",    "MSM A",
                                          "MSM B_G1", "MSM B_G2", "assembly", "partition total"};
        printf("\n%-34s %12s   (median of %u CPU runs, %u threads)\n", "stage (CPU backend)", "ms", cpu_reps,
               pool_size(pool));
        for (int k = 0; k < 8; k++) {
            for (unsigned i = 0; i < cpu_reps; i++) col[i] = tc[(size_t)i * 8 + k];
            printf("%-34s %12.2f\n", CN[k], bench_median(col, cpu_reps));
        }
    }
    rc = same ? 0 : 1;
    goto done;
fail:
    fprintf(stderr, "batch: stages: %s\n", err.msg);
    rc = 1;
done:
    gpu_prover_destroy(pv);
    gpu_shape_free(gs);
    gpu_host_free(wit);
    gpu_params_free(gp);
    if (abc_pinned)
        gpu_host_free(abc);
    else
        free(abc);
    free(scratch);
    free(t);
    free(tc);
    r1cs_density_free(&dn);
    groth16_params_free(&params);
    r1cs_free(&shape);
    pool_destroy(pool);
    return rc;
}
#else
static int batch_stages(const char *spec_text, unsigned reps, unsigned cpu_reps, int fake, unsigned threads,
                        int abc_pinned, int abc_device)
{
    (void)abc_pinned;
    (void)abc_device;
    (void)spec_text;
    (void)reps;
    (void)cpu_reps;
    (void)fake;
    (void)threads;
    fprintf(stderr, "batch: --stages needs the GPU prover, and cuzk was built without CUDA\n");
    return 1;
}
#endif

/* A SnapDeals request as Curio sends it, of a synthetic encoded sector of g's size: every partition's bincode
 * PartitionProof and the three commitments, parsed and validated as the daemon does. */
static cuzk_status batch_snap_job(const update_geometry *g, engine_snap_job *job, cuzk_error *err)
{
    update_circuit c;
    update_encoded e;
    memset(&e, 0, sizeof e);
    cuzk_status st = update_circuit_init(&c, g, err);
    if (st != CUZK_OK) return st;
    uint8_t **bins = calloc(c.partitions, sizeof *bins);
    size_t *lens = calloc(c.partitions, sizeof *lens);
    if (!bins || !lens) st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    if (st == CUZK_OK) st = snap_synth_encoded(&e, &c, 1, err);
    for (unsigned k = 0; st == CUZK_OK && k < c.partitions; k++) {
        snap_partition_proof p;
        st = snap_partition_proof_from_encoded(&p, &c, &e, k, err);
        if (st == CUZK_OK) st = snap_partition_proof_encode(&p, &c, &bins[k], &lens[k], err);
        snap_partition_proof_free(&p);
    }
    uint8_t cro[32], crn[32], cdn[32];
    fr_to_bytes_le(cro, &e.comm_r_old);
    fr_to_bytes_le(crn, &e.comm_r_new);
    fr_to_bytes_le(cdn, &e.comm_d_new);
    if (st == CUZK_OK)
        st = engine_snap_job_parse(job, g, (const uint8_t *const *)bins, lens, c.partitions, cro, 32, crn, 32, cdn, 32,
                                   err);
    for (unsigned k = 0; bins && k < c.partitions; k++) free(bins[k]);
    free(bins);
    free(lens);
    update_encoded_free(&e);
    update_circuit_free(&c);
    return st;
}

/* --rounds LIST: the rounds' settings (gpu_tune_apply_settings' form), LIST cut at each ';'. */
#define BATCH_MAX_ROUNDS 64
typedef struct batch_rounds {
    char *text; /* a copy of LIST, cut at each ';' */
    const char *set[BATCH_MAX_ROUNDS];
    unsigned n;
} batch_rounds;

/* Each round checked against the tuning now, so that a bad one is told before the setup. Returns 0, or 2 with a
 * message on stderr. */
static int rounds_parse(const char *list, batch_rounds *r)
{
    memset(r, 0, sizeof *r);
    if (!(r->text = strdup(list))) {
        fprintf(stderr, "batch: --rounds: out of memory\n");
        return 2;
    }
    for (char *p = r->text;;) {
        char *end = strchr(p, ';');
        if (end) *end = '\0';
        cuzk_error err;
        gpu_tune t = gpu_tune_get();
        if (r->n == BATCH_MAX_ROUNDS) {
            fprintf(stderr, "batch: --rounds: more than %d rounds\n", BATCH_MAX_ROUNDS);
            return 2;
        }
        if (strspn(p, " \t,") == strlen(p)) {
            fprintf(stderr, "batch: --rounds: round %u is empty ('-' for the environment's tuning alone)\n", r->n + 1);
            return 2;
        }
        if (gpu_tune_apply_settings(&t, p, &err) != CUZK_OK) {
            fprintf(stderr, "batch: --rounds: round %u: %s\n", r->n + 1, err.msg);
            return 2;
        }
        r->set[r->n++] = p;
        if (!end) return 0;
        p = end + 1;
    }
}

static void batch_usage(FILE *f)
{
    fprintf(
        f,
        "usage: cuzk-bench batch --circuit SPEC -n PROOFS -j CONCURRENCY [--partitions P] [--backend cpu|gpu]\n"
        "                        [--partition-workers N] [--gpu-workers N] [--lookahead N] [--params FILE]\n"
        "                        [--c1 FILE] [--budget BYTES[K|M|G]] [--threads T] [--timeline FILE] [--json]\n"
        "                        [--no-verify] [--abc device|host|auto] [--abc-pinned on|off] [--abc-cache N]\n"
        "                        [--devices LIST] [--gpu-memory-limit SIZE] [--rounds LIST]\n"
        "                        [--critical CSPEC [--critical-every S] [--critical-count K]]\n"
        "       cuzk-bench batch --critical CSPEC [--critical-every S] [--critical-count K] [--backend cpu|gpu]\n"
        "                        [--json] [--no-verify] [...]\n"
        "       cuzk-bench batch --circuit SPEC --stages R [--cpu-reps R] [--fake-setup] [--threads T]\n"
        "                        [--abc device|host|auto] [--abc-pinned on|off]\n"
        "Sets up SPEC in memory once (the fixed-base multiplications on the GPU when the backend is gpu; or reads\n"
        "--params FILE), then proves PROOFS requests through the engine with CONCURRENCY requests in flight, and\n"
        "reports s/proof, the steady state (s between prove_start ends, a tenth of them left out at each end,\n"
        "at least 2; from 8 partitions), per-partition prover and synthesis times, prover busy fraction, peak\n"
        "RSS and peak accounted memory. SPEC synthetic:k=K[,partitions=P]: P partitions (default 2, or\n"
        "--partitions P) of the synthetic circuit;\n"
        "zkey:ZKEY,wtns:WTNS: a snarkjs circuit (BLS12-381 .zkey and .wtns files), each of the P partitions\n"
        "proving that witness (no --stages).\n"
        "--budget: bytes for the partitions in flight (default: 80%% of the memory available after setup; 0:\n"
        "unlimited).\n"
        "SPEC porep:SIZE (e.g. porep:32GiB): PoRep C2 of one sector, every partition of its C1 (--c1 FILE, else\n"
        "a synthetic C1 from `cuzk porep synth-c1`'s generator); a 32GiB sector needs ~110 GiB of memory.\n"
        "SPEC wpost:SIZE / winning:SIZE: a WindowPoSt partition of the size's full sector count / a WinningPoSt,\n"
        "one request of synthetic vanilla proofs (`cuzk post synth-vanilla`'s generator) proved n times.\n"
        "SPEC snap:SIZE: a SnapDeals proof (every partition) of a synthetic encoded sector (`cuzk snap\n"
        "synth-vanilla`'s generator) proved n times.\n"
        "--threads: the prover's thread pool (default: all CPUs); synthesis runs on the partition workers' own\n"
        "threads. --backend: default gpu when a CUDA device is visible, else cpu.\n"
        "--devices LIST: the GPUs to prove on, e.g. 0,1 (default: every visible one), --gpu-workers on each;\n"
        "a partition stays on its worker's device; GPU busy is the mean over the devices.\n"
        "--gpu-memory-limit SIZE: the GPU backend holds at most SIZE bytes on each device (e.g. 16G, 24GiB;\n"
        "K/M/G/T powers of 1024), as on a card of that size (default: CUZK_GPU_MEMORY_LIMIT, else none on\n"
        "devices of %.0f GiB or more, else the memory free on the smallest device: the uncapped plan needs more).\n"
        "--rounds LIST: the batch once a round on the one setup, each round with its own GPU tuning: LIST is\n"
        "rounds separated by ';', each NAME=VALUE settings of the CUZK_GPU_* variables (docs/GPU-NOTES.md,\n"
        "\"Tuning\"), separated by spaces or commas, on top of the environment's; '-' for the environment's\n"
        "alone. E.g. --rounds 'CUZK_GPU_BATCH=xyzz;-;-;CUZK_GPU_BATCH=xyzz' alternates two settings (an A/B\n"
        "without a second setup). Each round prints 'round R/N: SETTINGS' and its report (--json: one object a\n"
        "round, a line each, with round, rounds and settings); peak RSS is the process's so far. Variables read\n"
        "only at setup (the cap, GLV, the bases' placement, the provers' streams, the NTT variant) are refused:\n"
        "set them in the environment. Not with --critical, --stages or --timeline.\n"
        "--stages R: no engine; one partition proved R times by the GPU prover and --cpu-reps times (default 1)\n"
        "by the CPU prover on the same witness, r and s (proof bytes compared), per-stage medians.\n"
        "--abc device|host|auto: where a, b, c are evaluated with the gpu backend: on the device from the\n"
        "circuit's matrices (uploaded once; only the witness travels) or by the engine on the host and uploaded;\n"
        "auto (the default): on the device unless a device holds (as capped) less than %.0f GiB.\n"
        "--abc-pinned: a, b, c (--abc host) or a copy of the witness (--abc device) of each partition in\n"
        "page-locked memory when the backend offers it (gpu; the device then reads them by direct DMA), or in\n"
        "malloc'd memory (default: the engine's, now on; with --stages, for the one partition).\n"
        "--abc-cache N: idle buffer sets the engine keeps for the next partitions (default: hand-off capacity\n"
        "+ prover workers, page-locked sets only; N: N sets of either kind; 0: none, each set freed).\n"
        "--fake-setup: bases tiled from 4096 random points instead of a real setup (timing only; the proofs do\n"
        "not verify, but both provers must still agree byte for byte).\n"
        "--critical CSPEC (winning:SIZE, e.g. winning:32GiB; also wpost:SIZE or synthetic:k=K): a stream of\n"
        "CRITICAL proofs in the same engine, with a parameter set of its own set up in memory; a PoSt proof starts\n"
        "from one request of synthetic vanilla proofs in bincode, checked, decoded and validated for every proof as\n"
        "the daemon does. One proof at a time, one every --critical-every S seconds (default 2; a proof slower than\n"
        "that delays the next), from the batch's first prove_start for as long as its jobs are in flight, at most\n"
        "--critical-count K (default: no limit). Without -n (and without --circuit, -j): an idle engine, K proofs\n"
        "(default 10). Prints per proof the latency from the request to the verified proof's bytes, split into\n"
        "validation, queue, synthesis, wait for a prover, prove_start (the device's turn included), wait for\n"
        "prove_finish and prove_finish with verification (from the engine's events), and the load at its submit;\n"
        "then 'critical: N proofs, latency median X ms, p90 Y ms, max Z ms' (--json: a \"critical\" member). The\n"
        "batch's own figures leave the critical jobs out. With a budget, the engine's critical_reserve is set as\n"
        "the daemon sets it (a sixteenth of the budget, at most 256 MiB, at least one critical partition). Exit 1\n"
        "when a critical proof failed or was not verified, or none ran.\n",
        (double)GPU_PLAN_UNCAPPED_MIN / (1 << 30), (double)GPU_PLAN_ABC_DEVICE_MIN / (1 << 30));
}

int bench_batch(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--addr")) return bench_remote_batch(argc, argv); /* against a daemon: remote.c */
    const char *spec_text = NULL, *tl_path = NULL, *backend = gpu_device_count() > 0 ? "gpu" : "cpu";
    const char *params_path = NULL, *c1_path = NULL;
    uint64_t n = 0, j = 0, parts = 2, pw = 2, gw = 2, lookahead = 1, budget = 0, threads = 0, stages = 0;
    int budget_given = 0, parts_given = 0;
    uint64_t cpu_reps = 1;
    int json = 0, no_verify = 0, fake_setup = 0, abc_pinned = 0; /* 0: the engine's default */
    uint64_t abc_cache = 0;
    int abc_cache_given = 0;
    int abc_device = -1; /* auto */
    size_t gpu_mem_limit = 0;
    int devices[BATCH_MAX_DEVICES];
    size_t num_devices = 0;
    const char *crit_text = NULL, *rounds_text = NULL;
    double crit_every = 2.0;
    uint64_t crit_count = 0;
    int crit_every_given = 0, crit_count_given = 0;
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
        } else if (!strcmp(a, "--fake-setup")) {
            fake_setup = 1;
        } else if (!v) {
            fprintf(stderr, "batch: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--circuit")) {
            spec_text = v;
        } else if (!strcmp(a, "--timeline")) {
            tl_path = v;
        } else if (!strcmp(a, "--params")) {
            params_path = v;
        } else if (!strcmp(a, "--c1")) {
            c1_path = v;
        } else if (!strcmp(a, "--backend")) {
            backend = v;
        } else if (!strcmp(a, "-n")) {
            bad = bench_parse_u64(v, &n);
        } else if (!strcmp(a, "-j")) {
            bad = bench_parse_u64(v, &j);
        } else if (!strcmp(a, "--partitions")) {
            bad = bench_parse_u64(v, &parts);
            parts_given = 1;
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
            budget_given = 1;
        } else if (!strcmp(a, "--stages")) {
            bad = bench_parse_u64(v, &stages) || stages == 0 || stages > 1000;
        } else if (!strcmp(a, "--abc-pinned")) {
            bad = strcmp(v, "on") && strcmp(v, "off");
            abc_pinned = !strcmp(v, "on") ? 1 : -1;
        } else if (!strcmp(a, "--abc")) {
            bad = strcmp(v, "device") && strcmp(v, "host") && strcmp(v, "auto");
            abc_device = !strcmp(v, "auto") ? -1 : !strcmp(v, "device");
        } else if (!strcmp(a, "--abc-cache")) {
            bad = bench_parse_u64(v, &abc_cache) || abc_cache > 1024;
            abc_cache_given = 1;
        } else if (!strcmp(a, "--devices")) {
            if (parse_devices(v, devices, &num_devices) != 0) return 2;
        } else if (!strcmp(a, "--gpu-memory-limit")) {
            bad = gpu_tune_parse_size(v, &gpu_mem_limit) != 0 || gpu_mem_limit == 0;
            if (!bad) {
                /* Now, so that the setup's device work (before the engine opens) runs under the cap too. */
                gpu_tune t = gpu_tune_get();
                t.memory_limit = gpu_mem_limit;
                gpu_tune_set(&t);
            }
        } else if (!strcmp(a, "--rounds")) {
            rounds_text = v;
        } else if (!strcmp(a, "--cpu-reps")) {
            bad = bench_parse_u64(v, &cpu_reps) || cpu_reps > 1000;
        } else if (!strcmp(a, "--critical")) {
            crit_text = v;
        } else if (!strcmp(a, "--critical-every")) {
            char *end;
            crit_every = strtod(v, &end);
            bad = end == v || *end != '\0' || !(crit_every >= 0 && crit_every <= 3600);
            crit_every_given = 1;
        } else if (!strcmp(a, "--critical-count")) {
            bad = bench_parse_u64(v, &crit_count) || crit_count == 0 || crit_count > 1000000;
            crit_count_given = 1;
        } else {
            fprintf(stderr, "batch: unknown option '%s' (try --help)\n", a);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "batch: bad value '%s' for %s\n", v, a);
            return 2;
        }
        if (strcmp(a, "--json") && strcmp(a, "--no-verify") && strcmp(a, "--fake-setup")) i++;
    }
    circuit_spec crit_spec;
    if ((crit_every_given || crit_count_given) && !crit_text) {
        fprintf(stderr, "batch: --critical-every and --critical-count need --critical\n");
        return 2;
    }
    if (crit_text && stages) {
        fprintf(stderr, "batch: --critical does not go with --stages\n");
        return 2;
    }
    if (crit_text && bench_critical_spec(crit_text, &crit_spec) != 0) return 2;
    if (rounds_text && (crit_text || stages || tl_path)) {
        fprintf(stderr, "batch: --rounds does not go with --critical, --stages or --timeline\n");
        return 2;
    }
    /* --critical without -n: the stream alone, on an idle engine. */
    int crit_idle = crit_text && !n;
    if (crit_idle && (spec_text || j)) {
        fprintf(stderr, "batch: --circuit and -j need -n (--critical without -n runs on an idle engine)\n");
        return 2;
    }
    if (crit_idle && !crit_count) crit_count = 10;
    if (spec_text && stages)
        return batch_stages(spec_text, (unsigned)stages, (unsigned)cpu_reps, fake_setup, (unsigned)threads,
                            (abc_pinned ? abc_pinned : ENGINE_ABC_PINNED_DEFAULT) > 0, abc_device);
    if (!crit_idle && (!spec_text || !n || !j)) {
        fprintf(stderr, "batch: --circuit, -n and -j are required (try --help)\n");
        return 2;
    }
    if (!parts || parts > 1024 || !pw || pw > 256 || !gw || gw > 64 || !lookahead || lookahead > 1024 || j > 1024 ||
        n > 1000000 || threads > 1024) {
        fprintf(stderr, "batch: a count is out of range\n");
        return 2;
    }
    if (strcmp(backend, "cpu") != 0 && strcmp(backend, "gpu") != 0) {
        fprintf(stderr, "batch: unknown backend '%s' (cpu or gpu)\n", backend);
        return 2;
    }
    if (num_devices && strcmp(backend, "gpu") != 0) {
        fprintf(stderr, "batch: --devices needs the gpu backend\n");
        return 2;
    }
    cuzk_error err;
    circuit_spec spec;
    memset(&spec, 0, sizeof spec);
    char zkey_path[1024], wtns_path[1024];
    int is_zkey = spec_text && strncmp(spec_text, "zkey:", 5) == 0;
    if (is_zkey && !zkey_spec_paths(spec_text, zkey_path, wtns_path, sizeof zkey_path)) {
        fprintf(stderr, "batch: circuit spec '%s': expected zkey:ZKEY_FILE,wtns:WTNS_FILE\n", spec_text);
        return 2;
    }
    if (is_zkey && (params_path || c1_path)) {
        fprintf(stderr, "batch: --params and --c1 do not apply to a zkey circuit (the .zkey holds its parameters)\n");
        return 2;
    }
    if (spec_text && !is_zkey && circuit_spec_parse(spec_text, &spec, &err) != CUZK_OK) {
        fprintf(stderr, "batch: %s\n", err.msg);
        return 2;
    }
    if (spec.partitions && parts_given && spec.partitions != parts) {
        fprintf(stderr, "batch: the spec says partitions=%u and --partitions %llu\n", spec.partitions,
                (unsigned long long)parts);
        return 2;
    }
    if (spec.partitions) parts = spec.partitions;
    batch_rounds rounds;
    memset(&rounds, 0, sizeof rounds);
    if (rounds_text && rounds_parse(rounds_text, &rounds) != 0) {
        free(rounds.text);
        return 2;
    }

    int rc = 1;
    zkey_ctx zc;
    memset(&zc, 0, sizeof zc);
    pool_t *pool = NULL, *synth_pool = NULL;
    r1cs shape;
    memset(&shape, 0, sizeof(shape));
    groth16_params params;
    memset(&params, 0, sizeof(params));
    engine_circuit circuit;
    memset(&circuit, 0, sizeof(circuit));
    engine_porep_circuit *porep = NULL;
    porep_c1 c1;
    memset(&c1, 0, sizeof(c1));
    int have_c1 = 0;
    engine_post_circuit *post = NULL;
    engine_post_job *post_job = NULL;
    engine_snap_circuit *snapc = NULL;
    engine_snap_job snap_job;
    memset(&snap_job, 0, sizeof snap_job);
    engine_backend *be = NULL; /* host's */
    engine_host *host = NULL;
    batch_ctx b;
    memset(&b, 0, sizeof(b));
    pthread_mutex_init(&b.tl_mu, NULL);
    pthread_mutex_init(&b.err_mu, NULL);
    synth_ctx sc = {spec.k, spec.seed, NULL};
    char spec_canon[128] = "";
    bench_critical *crit = NULL;
    if (is_zkey) {
        const char *base = strrchr(zkey_path, '/');
        snprintf(spec_canon, sizeof spec_canon, "zkey:%.100s", base ? base + 1 : zkey_path);
    } else if (spec_text) {
        circuit_spec_format(&spec, spec_canon, sizeof(spec_canon));
    }

    /* Synthesis (the parallel parts of a PoRep witness, every a/b/c evaluation) on a pool of its own, so that it
     * does not queue behind the prover's host work. */
    if (pool_create(&pool, (unsigned)threads, &err) != CUZK_OK ||
        pool_create(&synth_pool, (unsigned)threads, &err) != CUZK_OK)
        goto fail;
    sc.pool = synth_pool;
    if (spec_text) {
        uint64_t t0 = bench_now_ns();
        if (is_zkey) {
            r1cs_density dn;
            if (zkey_read(pool, &zc.z, zkey_path, 0, &err) != CUZK_OK || wtns_read(&zc.w, wtns_path, &err) != CUZK_OK ||
                zkey_shape(&zc.z, &shape, &err) != CUZK_OK || r1cs_compute_density(&shape, &dn, &err) != CUZK_OK)
                goto fail;
            if (zc.w.n != zc.z.n_vars) {
                r1cs_density_free(&dn);
                cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "%s has %zu values, %s %u variables", wtns_path, zc.w.n,
                               zkey_path, zc.z.n_vars);
                goto fail;
            }
            cuzk_status st = zkey_params(&zc.z, &dn, &params, &err);
            r1cs_density_free(&dn);
            if (st != CUZK_OK) goto fail;
        } else if (params_path) {
            if (groth16_params_read(pool, &params, params_path, 0, &err) != CUZK_OK) goto fail;
        } else {
            if (circuit_spec_build(pool, &spec, R1CS_MATRICES, &shape, &err) != CUZK_OK) goto fail;
            int setup_device = num_devices ? devices[0] : 0;
            if (bench_setup(pool, &shape, !strcmp(backend, "gpu"), setup_device, &params, &err) != CUZK_OK) goto fail;
        }
        double setup_s = (double)(bench_now_ns() - t0) / 1e9;
        if (spec.kind == CIRCUIT_POREP) {
            /* The engine's PoRep circuit compiles its own shape; the C1 is one sector's, proved n times. */
            r1cs_free(&shape);
            cuzk_status st = c1_path ? porep_c1_read_file(&c1, c1_path, NULL, &err)
                                     : porep_synth_c1(&c1, spec.porep, spec.seed ? spec.seed : 1, &err);
            if (st != CUZK_OK) goto fail;
            have_c1 = 1;
            if (engine_porep_circuit_create(spec.porep, &params, synth_pool, &porep, &err) != CUZK_OK) goto fail;
            b.porep = porep;
            b.c1 = &c1;
            b.circuit = engine_porep_circuit_get(porep);
            parts = c1.partitions;
        } else if (spec.kind == CIRCUIT_POST) {
            /* One request of synthetic sectors, validated as a daemon request is, proved n times. */
            r1cs_free(&shape);
            const post_proof_type *t = spec.post;
            uint8_t rnd[32];
            for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(i * 7 + 1);
            rnd[31] &= 0x3f;
            post_vanilla v;
            uint64_t tv = bench_now_ns();
            if (post_vanilla_synth(&v, t, t->kind == POST_WINDOW ? t->sector_count : 1, 1, rnd, 1, synth_pool, &err) !=
                CUZK_OK)
                goto fail;
            uint64_t tj = bench_now_ns();
            cuzk_status st = engine_post_job_create(&post_job, &v, rnd, synth_pool, &err);
            post_vanilla_free(&v);
            if (st != CUZK_OK) goto fail;
            if (!json)
                fprintf(stderr, "batch: %s: synthetic vanilla proofs in %.2f s, checked in %.2f s\n", t->name,
                        (double)(tj - tv) / 1e9, (double)(bench_now_ns() - tj) / 1e9);
            if (engine_post_circuit_create(t, &params, synth_pool, &post, &err) != CUZK_OK) goto fail;
            b.post = post;
            b.post_job = post_job;
            b.circuit = engine_post_circuit_get(post);
            parts = 1;
        } else if (spec.kind == CIRCUIT_SNAP) {
            /* One request of a synthetic encoded sector (`cuzk snap synth-vanilla`'s generator), every partition's
             * vanilla proof through bincode and the daemon's validation, proved n times. */
            r1cs_free(&shape);
            uint64_t tv = bench_now_ns();
            if (batch_snap_job(spec.snap, &snap_job, &err) != CUZK_OK) goto fail;
            if (!json)
                fprintf(stderr,
                        "batch: snap:%s: synthetic vanilla proofs of %u partitions made and checked in %.2f s\n",
                        spec.snap->name, snap_job.partitions, (double)(bench_now_ns() - tv) / 1e9);
            if (engine_snap_circuit_create(spec.snap, &params, synth_pool, &snapc, &err) != CUZK_OK) goto fail;
            b.snap = snapc;
            b.snap_job = &snap_job;
            b.circuit = engine_snap_circuit_get(snapc);
            parts = snap_job.partitions;
        } else {
            if (params_path && circuit_spec_build(pool, &spec, R1CS_MATRICES, &shape, &err) != CUZK_OK) goto fail;
            if (engine_circuit_init(&circuit, spec_canon, &params, &shape, is_zkey ? synth_zkey : synth_synthetic,
                                    is_zkey ? (void *)&zc : (void *)&sc, &err) != CUZK_OK)
                goto fail;
            b.circuit = &circuit;
        }
        if (!json)
            fprintf(stderr, "batch: %s: %zu constraints, domain %zu; %s %.2f s, ready after %.2f s\n", spec_canon,
                    b.circuit->shape->num_constraints, b.circuit->m,
                    params_path || is_zkey ? "parameters read in" : "setup in memory", setup_s,
                    (double)(bench_now_ns() - t0) / 1e9);
    }
    /* The critical stream's own parameter set and circuit; its synthesis shares the batch circuit's pool, as the
     * daemon's circuits share one pool. */
    if (crit_text && bench_critical_create(&crit, &crit_spec, pool, synth_pool, !strcmp(backend, "gpu"),
                                           num_devices ? devices[0] : 0, json, &err) != CUZK_OK)
        goto fail;
    /* Without --budget the partitions in flight get 80% of the memory available once the parameters and the
     * circuit are in memory: fast synthesis would otherwise run ahead until the machine runs out (a 32GiB
     * partition holds ~17 GB from synthesis to prove_start). */
    if (!budget_given) budget = (uint64_t)(0.8 * (double)mem_available_bytes());
    /* Room only the critical stream may take, as the daemon keeps it (service_setup.c: a sixteenth of the budget,
     * at most 256 MiB), and at least one of its partitions' working set. */
    uint64_t crit_reserve = 0;
    if (crit && budget) {
        uint64_t ws = bench_critical_working_set(crit);
        crit_reserve = budget / 16 < (256ull << 20) ? budget / 16 : 256ull << 20;
        if (crit_reserve < ws) crit_reserve = ws;
        if (crit_reserve >= budget) {
            cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                           "--budget %llu bytes leaves no room for the critical stream's reserve of %llu bytes",
                           (unsigned long long)budget, (unsigned long long)crit_reserve);
            goto fail;
        }
    }
    b.crit = crit;
    if (tl_path && !(b.tl_file = fopen(tl_path, "w"))) {
        cuzk_error_set(&err, CUZK_ERR_IO, "cannot open %s for writing", tl_path);
        goto fail;
    }
    /* GPU: B_G2 and assembly on a pool of their own, so that they overlap the next partition's witness
     * classification (pool calls from several threads are serialised). */
    engine_open_config oc = {.backend = !strcmp(backend, "gpu") ? ENGINE_BACKEND_GPU : ENGINE_BACKEND_CPU,
                             .devices = devices,
                             .num_devices = num_devices,
                             .pool = pool,
                             .finish_threads = (unsigned)threads,
                             .abc_on_device = abc_device,
                             .gpu_memory_limit = gpu_mem_limit,
                             .engine = {.synth_pool = synth_pool,
                                        .gpu_workers = (unsigned)gw,
                                        .partition_workers = (unsigned)pw,
                                        .synthesis_lookahead = (unsigned)lookahead,
                                        .host_budget = budget,
                                        .no_verify = no_verify,
                                        .event_cb = batch_event,
                                        .event_ctx = &b,
                                        .timeline = b.tl_file,
                                        .abc_pinned = abc_pinned,
                                        .abc_cache = !abc_cache_given ? 0
                                                     : abc_cache      ? (int)abc_cache
                                                                      : -1,
                                        .critical_reserve = crit_reserve}};
    if (engine_open(&oc, &host, &err) != CUZK_OK) goto fail;
    b.e = host->eng;
    be = host->backend;
    if (host->cap_note[0] && !json) fprintf(stderr, "batch: %s\n", host->cap_note);
    if (host->abc_note[0] && !json) fprintf(stderr, "batch: --abc auto: %s\n", host->abc_note);
    if (host->on_devices) /* every visible device when --devices is not given */
        for (num_devices = 0; num_devices < host->num_devices && num_devices < BATCH_MAX_DEVICES; num_devices++)
            devices[num_devices] = host->devices[num_devices];
    b.partitions = (unsigned)parts;
    b.n = (unsigned)n;
    char budget_text[32] = "unlimited", devices_text[BATCH_MAX_DEVICES * 4 + 16] = "";
    for (size_t k = 0; k < num_devices; k++)
        snprintf(devices_text + strlen(devices_text), sizeof devices_text - strlen(devices_text), "%s%d",
                 k ? "," : " on devices ", devices[k]);
    if (budget) snprintf(budget_text, sizeof(budget_text), "%.1f MiB", (double)budget / 1048576.0);
    if (!json)
        fprintf(stderr,
                "batch: %s%llu proofs x %llu partitions, -j %llu, backend %s%s, partition workers %llu, "
                "gpu workers %llu, budget %s%s, a/b/c %s\n",
                crit_idle ? "no batch: " : "", (unsigned long long)n, (unsigned long long)parts, (unsigned long long)j,
                backend, devices_text, (unsigned long long)pw, (unsigned long long)gw, budget_text,
                no_verify ? ", no verification" : "",
                be->evaluates_abc                                           ? "on the device"
                : (abc_pinned ? abc_pinned : ENGINE_ABC_PINNED_DEFAULT) > 0 ? "pinned"
                                                                            : "pageable");
    if (crit && !json) {
        char count_text[32] = "";
        if (crit_count) snprintf(count_text, sizeof count_text, ", at most %llu", (unsigned long long)crit_count);
        fprintf(stderr, "batch: critical %s every %.2f s%s, %s; reserve %.1f MiB\n", bench_critical_name(crit),
                crit_every, count_text,
                crit_idle ? "on an idle engine" : "while the batch runs, from its first prove_start",
                (double)crit_reserve / 1048576.0);
    }
    /* The stream first: it waits for the batch's first prove_start (and is stopped at `done` if the clients do
     * not start). */
    if (crit &&
        bench_critical_start(crit, b.e, crit_every, crit_count, crit_idle ? NULL : batch_running, &b, &err) != CUZK_OK)
        goto fail;
    if (crit_idle) {
        bench_critical_join(crit, 0);
        if (json) printf("{");
        bench_critical_report(crit, json);
        if (json) printf("}\n");
        rc = bench_critical_ok(crit, !no_verify) ? 0 : 1;
        goto done;
    }
    /* One batch, or one a round on the same setup (--rounds: each round's settings on the tuning as it was when
     * the engine opened). */
    gpu_tune tune_open = gpu_tune_get();
    rc = 0;
    for (unsigned r = 0; r < (rounds.n ? rounds.n : 1); r++) {
        char json_round[GPU_TUNE_SETTINGS_MAX + 64] = "";
        if (rounds.n) {
            gpu_tune t = tune_open;
            if (gpu_tune_apply_settings(&t, rounds.set[r], &err) != CUZK_OK) goto fail; /* checked before setup */
            gpu_tune_set(&t);
            const char *shown = strcmp(rounds.set[r], "-") ? rounds.set[r] : "";
            if (json) {
                snprintf(json_round, sizeof json_round, "\"round\":%u,\"rounds\":%u,\"settings\":\"%s\",", r + 1,
                         rounds.n, shown);
            } else {
                printf("round %u/%u: %s\n", r + 1, rounds.n, *shown ? shown : "(the environment's tuning)");
                fflush(stdout);
            }
            if (r) batch_reset(&b);
        }
        int rr = batch_run(&b, (unsigned)j, json, rounds.n ? json_round : NULL, &err);
        if (rr < 0) goto fail;
        if (rr) rc = 1;
    }
    if (crit && !bench_critical_ok(crit, !no_verify)) {
        if (!bench_critical_done(crit))
            fprintf(stderr, "batch: the batch ended before the first critical proof (more proofs with -n, or a "
                            "shorter --critical-every)\n");
        rc = 1;
    }
    goto done;
fail:
    fprintf(stderr, "batch: %s\n", err.msg);
    rc = 1;
done:
    bench_critical_join(crit, 1); /* before the engine closes */
    engine_close(host);
    bench_critical_free(crit);
    free(rounds.text);
    if (b.tl_file) fclose(b.tl_file);
    engine_porep_circuit_free(porep);
    if (have_c1) porep_c1_free(&c1);
    engine_post_circuit_free(post);
    engine_post_job_free(post_job);
    engine_snap_circuit_free(snapc);
    engine_snap_job_free(&snap_job);
    engine_circuit_free(&circuit);
    groth16_params_free(&params);
    r1cs_free(&shape);
    zkey_free(&zc.z);
    wtns_free(&zc.w);
    pool_destroy(synth_pool);
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
    size_t n_lines = 0, n_bad = 0, line_no = 0;
    while (fgets(line, sizeof(line), f)) {
        line_no++;
        if (strncmp(line, "TIMELINE ", 9) != 0) continue;
        engine_event ev;
        cuzk_error err;
        if (engine_event_parse(line, &ev, &err) != CUZK_OK) {
            /* A log cut off mid-line still gives the statistics of the rest. */
            if (n_bad++ < 5) fprintf(stderr, "timeline: %s:%zu: skipped: %s\n", path, line_no, err.msg);
            continue;
        }
        n_lines++;
        if (tl_stats_add(&s, &ev)) {
            fprintf(stderr, "timeline: out of memory\n");
            rc = 1;
            break;
        }
    }
    if (n_bad) fprintf(stderr, "timeline: %zu malformed TIMELINE lines skipped\n", n_bad);
    if (f != stdin) fclose(f);
    if (!rc && !n_lines) {
        fprintf(stderr, "timeline: no TIMELINE lines in %s\n", path);
        rc = 1;
    }
    if (!rc) report(&s, json, NULL, -1, NULL, NULL);
    tl_stats_free(&s);
    return rc;
}
