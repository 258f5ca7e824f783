/* cuzk-bench against a running cuzk-daemon (or the Rust cuzk daemon: the same cuzk.v1.ProvingEngine service):
 * single, batch --addr, status, preload, metrics, with the Rust cuzk-bench's output. The gRPC client is
 * src/daemon/client.c; without gRPC at build time these subcommands say so and exit 2. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

#ifndef CUZK_BENCH_GRPC

static int no_grpc(const char *name)
{
    fprintf(stderr,
            "cuzk-bench %s: cuzk-bench was built without gRPC (install libgrpc-dev, libprotobuf-c-dev and "
            "protobuf-c-compiler, then reconfigure)\n",
            name);
    return 2;
}

int bench_single(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_grpc("single");
}
int bench_status(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_grpc("status");
}
int bench_preload(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_grpc("preload");
}
int bench_metrics(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_grpc("metrics");
}
int bench_remote_batch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return no_grpc("batch --addr");
}

#else

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/v1/proving.pb-c.h"
#include "daemon/client.h"

#define DEFAULT_ADDR "http://127.0.0.1:9820" /* the Rust cuzk-bench's default */

/* ---- the proof request, shared by single and batch ---- */

typedef struct request_opts {
    const char *addr;
    const char *type;    /* porep | snap | wpost | winning | circuit */
    const char *c1_path; /* --c1 / --vanilla */
    const char *circuit; /* --circuit SPEC (type circuit) */
    uint64_t partitions, sector_size, priority;
    double timeout_s;
    uint8_t *vanilla;
    size_t vanilla_len;
} request_opts;

static const struct {
    const char *name;
    Cuzk__V1__ProofKind kind;
} TYPES[] = {
    {"porep", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT},     {"snap", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE},
    {"wpost", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION}, {"winning", CUZK__V1__PROOF_KIND__WINNING_POST},
    {"circuit", CUZK__V1__PROOF_KIND__CIRCUIT_SPEC},
};

static int read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read (or larger than 1 GiB)\n", path);
        free(buf);
        return -1;
    }
    *out = buf;
    *len = n;
    return 0;
}

/* Parses one of the request options at argv[*i]. Returns 1 if consumed, 0 if not a request option, -1 on
 * a bad value (printed). */
static int request_opt(request_opts *o, int argc, char **argv, int *i, const char *cmd)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    const char **str = NULL;
    uint64_t *num = NULL;
    if (!strcmp(a, "--addr"))
        str = &o->addr;
    else if (!strcmp(a, "-t") || !strcmp(a, "--type"))
        str = &o->type;
    else if (!strcmp(a, "--c1") || !strcmp(a, "--vanilla"))
        str = &o->c1_path;
    else if (!strcmp(a, "--circuit"))
        str = &o->circuit;
    else if (!strcmp(a, "--partitions"))
        num = &o->partitions;
    else if (!strcmp(a, "--sector-size"))
        num = &o->sector_size;
    else if (!strcmp(a, "--priority"))
        num = &o->priority;
    else if (!strcmp(a, "--timeout")) {
        uint64_t t;
        if (bench_parse_u64(v, &t)) {
            fprintf(stderr, "%s: --timeout needs a number of seconds\n", cmd);
            return -1;
        }
        o->timeout_s = (double)t;
        (*i)++;
        return 1;
    } else
        return 0;
    if (!v) {
        fprintf(stderr, "%s: %s needs a value\n", cmd, a);
        return -1;
    }
    if (str) *str = v;
    if (num && bench_parse_u64(v, num)) {
        fprintf(stderr, "%s: %s needs a number, not '%s'\n", cmd, a, v);
        return -1;
    }
    (*i)++;
    return 1;
}

/* Checks the options and reads the vanilla proof file. Returns the proof kind, or -1 (printed). */
static int request_prepare(request_opts *o, const char *cmd)
{
    int kind = -1;
    for (size_t k = 0; k < sizeof(TYPES) / sizeof(TYPES[0]); k++)
        if (o->type && !strcmp(o->type, TYPES[k].name)) kind = (int)TYPES[k].kind;
    if (kind < 0) {
        fprintf(stderr, "%s: -t must be porep, snap, wpost, winning or circuit\n", cmd);
        return -1;
    }
    if (kind == CUZK__V1__PROOF_KIND__CIRCUIT_SPEC && !o->circuit) {
        fprintf(stderr, "%s: -t circuit needs --circuit SPEC (e.g. synthetic:k=10)\n", cmd);
        return -1;
    }
    if (kind != CUZK__V1__PROOF_KIND__CIRCUIT_SPEC) {
        if (!o->c1_path) {
            fprintf(stderr, "%s: -t %s needs --c1 FILE (the C1 output or vanilla proof)\n", cmd, o->type);
            return -1;
        }
        if (read_file(o->c1_path, &o->vanilla, &o->vanilla_len)) return -1;
    }
    return kind;
}

static void request_fill(const request_opts *o, int kind, const char *id, Cuzk__V1__SubmitProofRequest *rq,
                         ProtobufCBinaryData *vp)
{
    cuzk__v1__submit_proof_request__init(rq);
    rq->request_id = (char *)id;
    rq->proof_kind = (Cuzk__V1__ProofKind)kind;
    rq->priority = (Cuzk__V1__Priority)o->priority;
    rq->sector_size = o->sector_size;
    rq->partitions = (uint32_t)o->partitions;
    if (o->circuit) rq->circuit = (char *)o->circuit;
    if (kind == CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT) {
        rq->vanilla_proof.data = o->vanilla;
        rq->vanilla_proof.len = o->vanilla_len;
    } else if (kind != CUZK__V1__PROOF_KIND__CIRCUIT_SPEC) {
        vp->data = o->vanilla;
        vp->len = o->vanilla_len;
        rq->n_vanilla_proofs = 1;
        rq->vanilla_proofs = vp;
    }
}

static const char *status_name(int s)
{
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&cuzk__v1__await_proof_response__status__descriptor, s);
    return v ? v->name : "?";
}

static void make_id(char *out, size_t n, const char *what, unsigned i)
{
    snprintf(out, n, "bench-%s-%ld-%ld-%u", what, (long)getpid(), (long)time(NULL), i);
}

static double now_s(void)
{
    return (double)bench_now_ns() / 1e9;
}

/* ---- single ---- */

static void single_usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench single [--addr ADDR] -t porep|snap|wpost|winning|circuit\n"
            "                        (--c1 FILE | --circuit SPEC) [--partitions N] [--sector-size BYTES]\n"
            "                        [--priority 1-4] [--timeout SECONDS]\n"
            "One proof through a running daemon (Prove): prints the Rust cuzk-bench's '=== Proof Result ===' block.\n"
            "ADDR: unix:///path, host:port or http://host:port (default " DEFAULT_ADDR ").\n"
            "--c1: the C1 output for porep (raw JSON or the Lotus/Curio envelope), the vanilla proof otherwise.\n"
            "--circuit: a cuzk circuit spec for -t circuit (e.g. synthetic:k=10).\n"
            "Exit status: 0 proof COMPLETED, 1 any other outcome or an RPC error, 2 usage.\n");
}

int bench_single(int argc, char **argv)
{
    request_opts o = {.addr = DEFAULT_ADDR};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            single_usage(stdout);
            return 0;
        }
        int r = request_opt(&o, argc, argv, &i, "single");
        if (r < 0) return 2;
        if (r == 0) {
            fprintf(stderr, "single: unknown option '%s'\n", argv[i]);
            single_usage(stderr);
            return 2;
        }
    }
    int kind = request_prepare(&o, "single");
    if (kind < 0) return 2;
    cuzk_error err;
    rpc_client *c;
    if (rpc_client_create(o.addr, &c, &err) != CUZK_OK) {
        fprintf(stderr, "single: %s\n", err.msg);
        free(o.vanilla);
        return 1;
    }
    char id[128];
    make_id(id, sizeof(id), "single", 0);
    Cuzk__V1__SubmitProofRequest sub;
    ProtobufCBinaryData vp;
    request_fill(&o, kind, id, &sub, &vp);
    Cuzk__V1__ProveRequest rq;
    cuzk__v1__prove_request__init(&rq);
    rq.submit = &sub;
    Cuzk__V1__ProveResponse *resp = NULL;
    double t0 = now_s();
    cuzk_status st = rpc_call(c, "Prove", &rq.base, &cuzk__v1__prove_response__descriptor, (ProtobufCMessage **)&resp,
                              o.timeout_s, NULL, &err);
    double wall = now_s() - t0;
    int rc = 1;
    if (st != CUZK_OK) {
        fprintf(stderr, "single: %s\n", err.msg);
    } else if (!resp->result) {
        fprintf(stderr, "single: Prove answered without a result\n");
    } else {
        const Cuzk__V1__AwaitProofResponse *r = resp->result;
        printf("=== Proof Result ===\n");
        printf("job_id: %s\n", r->job_id);
        printf("status: %s\n", status_name(r->status));
        if (r->error_message && r->error_message[0]) printf("error: %s\n", r->error_message);
        printf("proof: %zu bytes%s\n", r->proof.len, r->verified ? " (verified by the daemon)" : "");
        printf("timings: total=%" PRIu64 " ms (queue=%" PRIu64 " ms, srs=%" PRIu64 " ms, synth=%" PRIu64
               " ms, gpu=%" PRIu64 " ms)\n",
               r->total_ms, r->queue_wait_ms, r->srs_load_ms, r->synthesis_ms, r->gpu_compute_ms);
        printf("wall time: %.3f s\n", wall);
        if (r->proof.len) {
            printf("proof hex: ");
            for (size_t i = 0; i < r->proof.len; i++) printf("%02x", r->proof.data[i]);
            printf("\n");
        }
        rc = r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? 0 : 1;
    }
    if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
    rpc_client_destroy(c);
    free(o.vanilla);
    return rc;
}

/* ---- batch --addr ---- */

typedef struct batch_run {
    rpc_client *c;
    const request_opts *o;
    int kind;
    unsigned n;
    char tag[64];
    pthread_mutex_t mu;
    unsigned next, done, ok;
    double t0;
    double *wall, *prove, *queue; /* per proof, seconds / ms */
    int *status;
} batch_run;

static void *batch_worker(void *arg)
{
    batch_run *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        unsigned i = b->next < b->n ? b->next++ : b->n;
        pthread_mutex_unlock(&b->mu);
        if (i >= b->n) return NULL;
        char id[128];
        make_id(id, sizeof(id), b->tag, i);
        Cuzk__V1__SubmitProofRequest sub;
        ProtobufCBinaryData vp;
        request_fill(b->o, b->kind, id, &sub, &vp);
        Cuzk__V1__ProveRequest rq;
        cuzk__v1__prove_request__init(&rq);
        rq.submit = &sub;
        Cuzk__V1__ProveResponse *resp = NULL;
        cuzk_error err;
        double t0 = now_s();
        cuzk_status st = rpc_call(b->c, "Prove", &rq.base, &cuzk__v1__prove_response__descriptor,
                                  (ProtobufCMessage **)&resp, b->o->timeout_s, NULL, &err);
        double wall = now_s() - t0;
        int status = -1;
        uint64_t prove_ms = 0, queue_ms = 0;
        char msg[sizeof(err.msg)];
        msg[0] = 0;
        if (st != CUZK_OK) {
            snprintf(msg, sizeof(msg), "%s", err.msg);
        } else if (resp->result) {
            status = resp->result->status;
            prove_ms = resp->result->total_ms;
            queue_ms = resp->result->queue_wait_ms;
            if (resp->result->error_message) snprintf(msg, sizeof(msg), "%s", resp->result->error_message);
        }
        if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
        pthread_mutex_lock(&b->mu);
        unsigned k = ++b->done;
        b->wall[i] = wall;
        b->prove[i] = (double)prove_ms;
        b->queue[i] = (double)queue_ms;
        b->status[i] = status;
        if (status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) b->ok++;
        printf("[%u/%u] %s — %.1fs (prove=%" PRIu64 " ms, queue=%" PRIu64 " ms)%s%s\n", k, b->n,
               status < 0 ? "RPC_ERROR" : status_name(status), wall, prove_ms, queue_ms, msg[0] ? ": " : "", msg);
        fflush(stdout);
        pthread_mutex_unlock(&b->mu);
    }
}

static void remote_batch_usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench batch --addr ADDR -n N [-j J] -t TYPE (--c1 FILE | --circuit SPEC)\n"
               "                        [--partitions N] [--sector-size BYTES] [--priority 1-4] [--timeout S]\n"
               "N proofs (Prove) through a running daemon, J at a time (default 1; -c is the same as -n):\n"
               "one line per proof, then wall and prove time statistics and the throughput.\n"
               "Exit status: 0 every proof COMPLETED, 1 otherwise, 2 usage.\n");
}

static void stats_line(const char *what, double *v, unsigned n, const char *unit, double scale)
{
    double sum = 0, mn = v[0], mx = v[0];
    for (unsigned i = 0; i < n; i++) {
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    printf("%s: avg=%.2f%s min=%.2f%s max=%.2f%s median=%.2f%s\n", what, sum / n * scale, unit, mn * scale, unit,
           mx * scale, unit, bench_median(v, n) * scale, unit);
}

int bench_remote_batch(int argc, char **argv)
{
    request_opts o = {.addr = NULL};
    uint64_t n = 0, j = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            remote_batch_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-n") || !strcmp(a, "-c") || !strcmp(a, "-j")) {
            if (bench_parse_u64(i + 1 < argc ? argv[i + 1] : NULL, a[1] == 'j' ? &j : &n)) {
                fprintf(stderr, "batch: %s needs a number\n", a);
                return 2;
            }
            i++;
            continue;
        }
        int r = request_opt(&o, argc, argv, &i, "batch");
        if (r < 0) return 2;
        if (r == 0) {
            fprintf(stderr, "batch: unknown option '%s' with --addr\n", a);
            remote_batch_usage(stderr);
            return 2;
        }
    }
    if (!o.addr || n == 0 || n > 1000000 || j == 0 || j > 1024) {
        fprintf(stderr, "batch: --addr and -n 1..1000000 are required; -j is 1..1024\n");
        return 2;
    }
    int kind = request_prepare(&o, "batch");
    if (kind < 0) return 2;
    batch_run b = {.o = &o, .kind = kind, .n = (unsigned)n};
    make_id(b.tag, sizeof(b.tag), "batch", 0);
    b.wall = calloc(n, sizeof(double));
    b.prove = calloc(n, sizeof(double));
    b.queue = calloc(n, sizeof(double));
    b.status = calloc(n, sizeof(int));
    pthread_t *th = calloc(j, sizeof(*th));
    cuzk_error err;
    int rc = 1;
    if (!b.wall || !b.prove || !b.queue || !b.status || !th) {
        fprintf(stderr, "batch: out of memory\n");
        goto out;
    }
    if (rpc_client_create(o.addr, &b.c, &err) != CUZK_OK) {
        fprintf(stderr, "batch: %s\n", err.msg);
        goto out;
    }
    pthread_mutex_init(&b.mu, NULL);
    printf("batch: %u proofs of %s, %u at a time, against %s\n", b.n, o.circuit ? o.circuit : o.type, (unsigned)j,
           o.addr);
    double t0 = now_s();
    unsigned started = 0;
    for (; started < j; started++)
        if (pthread_create(&th[started], NULL, batch_worker, &b)) break;
    if (started == 0) batch_worker(&b);
    for (unsigned t = 0; t < started; t++) pthread_join(th[t], NULL);
    double total = now_s() - t0;
    printf("\n=== Batch Result ===\n");
    printf("proofs: %u completed, %u not, of %u\n", b.ok, b.n - b.ok, b.n);
    printf("total time: %.2f s\n", total);
    stats_line("wall time", b.wall, b.n, " s", 1.0);
    stats_line("prove time", b.prove, b.n, " ms", 1.0);
    stats_line("queue time", b.queue, b.n, " ms", 1.0);
    printf("throughput: %.2f proofs/min (%.3f s/proof)\n", b.n / total * 60.0, total / b.n);
    rc = b.ok == b.n ? 0 : 1;
    pthread_mutex_destroy(&b.mu);
    rpc_client_destroy(b.c);
out:
    free(th);
    free(b.wall);
    free(b.prove);
    free(b.queue);
    free(b.status);
    free(o.vanilla);
    return rc;
}

/* ---- status, preload, metrics ---- */

/* Parses --addr (and, for preload, -c ID) for the small commands. Returns 0, 1 for --help, 2 on error. */
static int simple_args(int argc, char **argv, const char *cmd, const char **addr, const char **id)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: cuzk-bench %s [--addr ADDR]%s\n(ADDR: unix:///path, host:port or http://host:port; "
                   "default " DEFAULT_ADDR ")\n",
                   cmd, id ? " -c CIRCUIT_ID   (porep-32g, porep-2k, ... or a circuit spec)" : "");
            return 1;
        }
        if (!strcmp(a, "--addr") && v) {
            *addr = v;
            i++;
        } else if (id && (!strcmp(a, "-c") || !strcmp(a, "--circuit-id")) && v) {
            *id = v;
            i++;
        } else {
            fprintf(stderr, "%s: unknown option or missing value '%s'\n", cmd, a);
            return 2;
        }
    }
    if (id && !*id) {
        fprintf(stderr, "%s: -c CIRCUIT_ID is required\n", cmd);
        return 2;
    }
    return 0;
}

static int simple_call(const char *cmd, const char *addr, const char *method, const ProtobufCMessage *req,
                       const ProtobufCMessageDescriptor *desc, ProtobufCMessage **resp, rpc_client **c)
{
    cuzk_error err;
    if (rpc_client_create(addr, c, &err) != CUZK_OK) {
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
        return 1;
    }
    if (rpc_call(*c, method, req, desc, resp, 60, NULL, &err) != CUZK_OK) {
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
        rpc_client_destroy(*c);
        *c = NULL;
        return 1;
    }
    return 0;
}

int bench_status(int argc, char **argv)
{
    const char *addr = DEFAULT_ADDR;
    int a = simple_args(argc, argv, "status", &addr, NULL);
    if (a) return a == 1 ? 0 : 2;
    Cuzk__V1__GetStatusRequest rq;
    cuzk__v1__get_status_request__init(&rq);
    Cuzk__V1__GetStatusResponse *r = NULL;
    rpc_client *c;
    if (simple_call("status", addr, "GetStatus", &rq.base, &cuzk__v1__get_status_response__descriptor,
                    (ProtobufCMessage **)&r, &c))
        return 1;
    printf("=== Daemon Status ===\n");
    printf("uptime: %" PRIu64 " s\n", r->uptime_seconds);
    printf("proofs: %" PRIu64 " completed, %" PRIu64 " failed, %" PRIu64 " cancelled\n", r->total_proofs_completed,
           r->total_proofs_failed, r->total_proofs_cancelled);
    printf("memory: budget %.2f GiB, in use %.2f GiB, peak %.2f GiB\n", r->memory_budget_bytes / 1073741824.0,
           r->memory_in_use_bytes / 1073741824.0, r->memory_peak_bytes / 1073741824.0);
    printf("gpus: %zu%s\n", r->n_gpus, r->n_gpus ? "" : " (CPU backend)");
    for (size_t i = 0; i < r->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = r->gpus[i];
        printf("  gpu %u: %s, %.1f GiB (%.1f GiB free)%s%s\n", g->ordinal, g->name, g->vram_total_bytes / 1073741824.0,
               g->vram_free_bytes / 1073741824.0, g->current_job_id[0] ? ", proving " : "", g->current_job_id);
    }
    printf("queues:\n");
    for (size_t i = 0; i < r->n_queues; i++)
        printf("  %-14s pending %u, in progress %u\n", r->queues[i]->proof_kind, r->queues[i]->pending,
               r->queues[i]->in_progress);
    printf("loaded srs: %zu\n", r->n_loaded_srs);
    for (size_t i = 0; i < r->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *e = r->loaded_srs[i];
        const ProtobufCEnumValue *t =
            protobuf_c_enum_descriptor_get_value(&cuzk__v1__srsstatus__tier__descriptor, e->tier);
        printf("  %s: %s, %.1f MiB, %u reference(s)\n", e->circuit_id, t ? t->name : "?", e->size_bytes / 1048576.0,
               e->ref_count);
    }
    protobuf_c_message_free_unpacked(&r->base, NULL);
    rpc_client_destroy(c);
    return 0;
}

int bench_preload(int argc, char **argv)
{
    const char *addr = DEFAULT_ADDR, *id = NULL;
    int a = simple_args(argc, argv, "preload", &addr, &id);
    if (a) return a == 1 ? 0 : 2;
    Cuzk__V1__PreloadSrsRequest rq;
    cuzk__v1__preload_srs_request__init(&rq);
    rq.circuit_id = (char *)id;
    Cuzk__V1__PreloadSrsResponse *r = NULL;
    rpc_client *c;
    if (simple_call("preload", addr, "PreloadSRS", &rq.base, &cuzk__v1__preload_srs_response__descriptor,
                    (ProtobufCMessage **)&r, &c))
        return 1;
    if (r->already_loaded)
        printf("%s: already loaded\n", id);
    else
        printf("%s: loaded in %" PRIu64 " ms\n", id, r->load_time_ms);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    rpc_client_destroy(c);
    return 0;
}

int bench_metrics(int argc, char **argv)
{
    const char *addr = DEFAULT_ADDR;
    int a = simple_args(argc, argv, "metrics", &addr, NULL);
    if (a) return a == 1 ? 0 : 2;
    Cuzk__V1__GetMetricsRequest rq;
    cuzk__v1__get_metrics_request__init(&rq);
    Cuzk__V1__GetMetricsResponse *r = NULL;
    rpc_client *c;
    if (simple_call("metrics", addr, "GetMetrics", &rq.base, &cuzk__v1__get_metrics_response__descriptor,
                    (ProtobufCMessage **)&r, &c))
        return 1;
    fputs(r->prometheus_text, stdout);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    rpc_client_destroy(c);
    return 0;
}

#endif
