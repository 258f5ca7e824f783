/* The Groth16 partition on the GPU (gpu_prove.h): H on the device, the witness split into 0 / 1 / other per
 * query on host threads (overlapped with H), batch additions for the ones and tail MSMs over gathered bases. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx_impl.cuh"
#include "trace.cuh"

extern "C" {
#include "gpu/classify.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_g2.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_ntt.h"
#include "gpu/gpu_prove.h"
#include "gpu/plan.h"
}

static_assert(sizeof(g1_affine_t) == 96, "g1_affine_t is two 48-byte coordinates");

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- device memory between provers ----
 * The provers on one device (other workers, and a prover's own overlapped H MSM) share its memory. A step that
 * runs out of it is retried once alone: the retry waits until every other step on the device has finished and
 * keeps new ones out while it runs. Steps hold the device's gate shared, a retry holds it exclusive (writers
 * first, so a retry is not starved); a thread never holds the gate twice. */
#define GATE_DEVICES 64
static pthread_rwlock_t gate[GATE_DEVICES];
/* The device's turn: provers on one device take turns at the compute of their partitions (after their witness
 * upload, up to the end of prove_start), so that one's upload and host work overlap another's compute while the
 * compute itself runs alone (side by side two whole partitions only slow each other down). The turn has two
 * stages, taken in this order: turn (a, b, c and the H NTTs) and turn_msm (the MSMs); with gpu_tune.turn_split
 * and no memory cap a prover lets go of turn once it holds turn_msm, so that the next prover's NTTs (memory
 * bound) run beside its MSMs (compute bound). Taken outside the gate (a prover waiting for its turn holds no gate,
 * so an exclusive retry never waits on it). */
static pthread_mutex_t turn[GATE_DEVICES], turn_msm[GATE_DEVICES];
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;

static void gate_init(void)
{
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    for (int i = 0; i < GATE_DEVICES; i++) {
        pthread_rwlock_init(&gate[i], &attr);
        pthread_mutex_init(&turn[i], NULL);
        pthread_mutex_init(&turn_msm[i], NULL);
    }
    pthread_rwlockattr_destroy(&attr);
}

static void gate_enter(int device, int exclusive)
{
    pthread_once(&gate_once, gate_init);
    if (device < 0 || device >= GATE_DEVICES) return;
    if (exclusive)
        pthread_rwlock_wrlock(&gate[device]);
    else
        pthread_rwlock_rdlock(&gate[device]);
}

static void gate_leave(int device)
{
    if (device >= 0 && device < GATE_DEVICES) pthread_rwlock_unlock(&gate[device]);
}

/* st = call, under the device's gate, retried once alone when the device ran out of memory. */
#define GATED(device, st, call)                                                                                        \
    do {                                                                                                               \
        gate_enter((device), 0);                                                                                       \
        (st) = (call);                                                                                                 \
        gate_leave(device);                                                                                            \
        if ((st) == CUZK_ERR_NOMEM) {                                                                                  \
            gate_enter((device), 1);                                                                                   \
            (st) = (call);                                                                                             \
            gate_leave(device);                                                                                        \
        }                                                                                                              \
    } while (0)

/* ---- resident bases ---- */

struct gpu_params {
    const groth16_params *params;
    gpu_ctx *ctx;              /* owns the buffers (gpu_buf_free waits on its stream) */
    gpu_buf *h, *l, *a, *b_g1; /* NULL: streamed from the host's copy in chunks (see gpu_params_upload) */
    size_t h_phi_at; /* > 0 (gpu_tune.glv): h holds the H bases and then their images under phi, from h_phi_at */
    gpu_buf *b_g2;   /* NULL when it did not fit: B_G2 then stays wholly on the CPU, or streams (b_g2_stream) */
    int b_g2_stream; /* under a memory cap: B_G2's bases not resident are streamed in pieces like the G1 ones */
    void *pinned[5]; /* streamed sections that gpu_params_upload page-locked (and gpu_params_free unlocks); [4]: B_G2 */
};

/* Streamed sections cross the bus at every MSM: page-locked, the DMA reads them directly (pageable memory goes
 * through the driver's staging copies at a fraction of the speed). CUZK_GPU_PIN_STREAMED=0 leaves them pageable. */
static int pin_streamed(void)
{
    return gpu_tune_get().pin_streamed;
}

/* Streamed sections this file page-locked, counted by the gpu_params using them (the same parameters uploaded to
 * several devices share one lock, released when the last of them is freed). */
#define PINS_MAX 64
static struct {
    void *p;
    int refs;
} pins[PINS_MAX];
static pthread_mutex_t pins_mu = PTHREAD_MUTEX_INITIALIZER;

/* Page-locks a streamed section (or takes a reference on this file's lock of it); returns it, or NULL when it stays
 * as it is: page-locked by its owner (e.g. the daemon's residency), or the lock failed (a read-only mapping, a
 * locked-memory limit): it then streams from pageable memory, slower. */
static void *pin_section(const void *p, size_t bytes)
{
    void *q = (void *)p, *got = NULL;
    pthread_mutex_lock(&pins_mu);
    int k, free_k = -1;
    for (k = 0; k < PINS_MAX && pins[k].p != q; k++)
        if (pins[k].p == NULL && free_k < 0) free_k = k;
    if (k < PINS_MAX) {
        pins[k].refs++;
        got = q;
    } else if (free_k >= 0 && !gpu_host_is_registered(p) && gpu_host_register(q, bytes, NULL) == CUZK_OK) {
        pins[free_k].p = q;
        pins[free_k].refs = 1;
        got = q;
    }
    pthread_mutex_unlock(&pins_mu);
    return got;
}

static void unpin_section(void *p)
{
    pthread_mutex_lock(&pins_mu);
    for (int k = 0; k < PINS_MAX; k++)
        if (pins[k].p == p && --pins[k].refs == 0) {
            gpu_host_unregister(p, NULL);
            pins[k].p = NULL;
        }
    pthread_mutex_unlock(&pins_mu);
}

extern "C" void gpu_params_free(gpu_params *gp)
{
    if (gp == NULL) return;
    gpu_buf_free(gp->h);
    gpu_buf_free(gp->l);
    gpu_buf_free(gp->a);
    gpu_buf_free(gp->b_g1);
    gpu_buf_free(gp->b_g2);
    for (int k = 0; k < 5; k++)
        if (gp->pinned[k]) unpin_section(gp->pinned[k]);
    gpu_ctx_destroy(gp->ctx);
    free(gp);
}

/* The smallest L with 2^L >= n: the H domain of n H bases (m - 1 for bellperson's form, m for snarkjs'). */
static unsigned log_at_least(size_t n)
{
    unsigned l = 0;
    while (l < 63 && ((size_t)1 << l) < n) l++;
    return l;
}

/* GLV for the H MSM (gpu_tune.glv): resident H is replaced by H and its n images under phi (made from the resident
 * copy before that is freed) when gpu_plan_glv allows it after every section's upload; else, or when it fails, H
 * stays as it is. */
static void glv_h(gpu_params *gp, int device, size_t cap, size_t n)
{
    size_t free_b = 0, total_b = 0;
    gpu_buf *g = NULL;
    cuzk_error ignored;
    if (gpu_mem_get_info(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (!gpu_plan_glv(total_b, cap, gpu_mem_live(device), n * sizeof(g1_affine_t), free_b)) return;
    if (gpu_msm_glv_upload(gp->ctx, &g, (const g1_affine_t *)gpu_buf_ptr(gp->h), n, &ignored) != CUZK_OK) return;
    gpu_buf_free(gp->h);
    gp->h = g;
    gp->h_phi_at = n;
}

extern "C" cuzk_status gpu_params_upload(int device, const groth16_params *params, gpu_params **out, cuzk_error *err)
{
    if (out == NULL || params == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_params_upload: NULL");
    *out = NULL;
    gpu_params *gp = (gpu_params *)calloc(1, sizeof *gp);
    if (gp == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_params_upload: out of host memory");
    gp->params = params;
    const size_t P = sizeof(g1_affine_t);
    size_t free_b = 0, total_b = 0;
    gpu_tune tune = gpu_tune_get();
    cuzk_status st = gpu_ctx_create(&gp->ctx, device, err);
    if (st == CUZK_OK && gpu_mem_get_info(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        total_b = 0;
    }
    gpu_buf **buf[4] = {&gp->h, &gp->l, &gp->a, &gp->b_g1};
    const g1_affine_t *host[4] = {params->h, params->l, params->a, params->b_g1};
    size_t len[4] = {params->h_len, params->l_len, params->a_len, params->b_g1_len};
    gpu_plan_in pin;
    memset(&pin, 0, sizeof pin);
    pin.total = total_b;
    pin.cap = tune.memory_limit;
    pin.held = gpu_mem_live(device);
    for (int k = 0; k < 4; k++) pin.sect[k] = len[k] * P;
    pin.b_g2 = params->b_g2 ? params->b_g2_len * sizeof(g2_affine_t) : 0;
    pin.log_m = log_at_least(params->h_len);
    pin.stream_all = tune.bases_stream;
    gpu_plan plan;
    gpu_plan_bases(&pin, &plan);
    if (tune.profile) {
        char line[512];
        gpu_plan_describe(&pin, &plan, line, sizeof line);
        fprintf(stderr, "%s (device %d)\n", line, device);
    }
    for (int k = 0; k < 4 && st == CUZK_OK; k++) {
        /* Sections the plan keeps are uploaded (out of memory then is an error, which lets the caller evict
         * another parameter set and retry); the others are streamed. */
        if (!plan.resident[k]) continue;
        st = gpu_buf_upload(gp->ctx, buf[k], host[k], len[k] * P, err);
    }
    for (int k = 0; k < 4 && st == CUZK_OK; k++)
        if (*buf[k] == NULL && host[k] != NULL && len[k] != 0 && pin_streamed())
            gp->pinned[k] = pin_section(host[k], len[k] * P);
    if (st != CUZK_OK) {
        gpu_params_free(gp);
        return cuzk_error_prefix(err, "gpu_params_upload (device %d, %zu bytes of bases): ", device,
                                 (params->h_len + params->l_len + params->a_len + params->b_g1_len) * P);
    }
    /* B_G2's bases are optional: without them the unit scalars of B_G2 are summed on the CPU as well. */
    cuzk_error ignored;
    if (!plan.b_g2_resident ||
        gpu_buf_upload(gp->ctx, &gp->b_g2, params->b_g2, params->b_g2_len * sizeof(g2_affine_t), &ignored) != CUZK_OK)
        gp->b_g2 = NULL;
    /* Under a cap B_G2 streams rather than falling to the CPU (minutes for a 32 GiB PoRep's ~10^8 G2 points);
     * uncapped a B_G2 that does not fit stays on the CPU as before. */
    if (gp->b_g2 == NULL && pin.cap && params->b_g2 != NULL && params->b_g2_len != 0) {
        gp->b_g2_stream = 1;
        if (pin_streamed()) gp->pinned[4] = pin_section(params->b_g2, params->b_g2_len * sizeof(g2_affine_t));
    }
    if (tune.glv && gp->h != NULL) glv_h(gp, device, pin.cap, len[0]);
    *out = gp;
    return CUZK_OK;
}

extern "C" size_t gpu_params_bytes(const gpu_params *gp)
{
    if (gp == NULL) return 0;
    return gpu_buf_size(gp->h) + gpu_buf_size(gp->l) + gpu_buf_size(gp->a) + gpu_buf_size(gp->b_g1) +
           gpu_buf_size(gp->b_g2);
}

extern "C" int gpu_params_device(const gpu_params *gp)
{
    return gp ? gp->ctx->device : -1;
}

/* ---- the prover ---- */

struct gpu_prover {
    gpu_ctx *ctx;
    gpu_ctx *ctx_h;           /* the H MSM's own stream, when it overlaps the other queries; created on first use */
    int overlap;              /* 1: the H MSM runs on ctx_h (another thread) while ctx computes B_G2, L, A, B_G1 */
    void (*abc_done)(void *); /* this call's: called once a, b, c are no longer read */
    void *abc_done_ctx;
    void (*next_abc_done)(void *); /* set by gpu_prover_on_abc_done for the next call */
    void *next_abc_done_ctx;
    gpu_ntt_plan *plan; /* for plan_log / plan_roots */
    unsigned plan_log;
    poly_roots plan_roots;
    gpu_prove_split split;
    int turns;       /* take the device's turn (CUZK_GPU_TURN=0: no) */
    int in_turn;     /* this prover holds its device's turn (the NTTs' stage) */
    int in_turn_msm; /* this prover holds its device's MSM stage of the turn */
};

static void turn_enter(gpu_prover *pv)
{
    int d = pv->ctx->device;
    if (!pv->turns || d < 0 || d >= GATE_DEVICES) return;
    pthread_once(&gate_once, gate_init);
    pthread_mutex_lock(&turn[d]);
    pv->in_turn = 1;
}

/* From the NTTs' stage of the turn to the MSMs': the MSM stage taken, the first let go when the stages may overlap
 * (gpu_tune.turn_split without a memory cap: under one the next prover's H step would not fit beside the MSMs). */
static void turn_to_msms(gpu_prover *pv)
{
    if (!pv->in_turn) return;
    int d = pv->ctx->device;
    pthread_mutex_lock(&turn_msm[d]);
    pv->in_turn_msm = 1;
    gpu_tune tune = gpu_tune_get();
    if (tune.turn_split && !tune.memory_limit) {
        pv->in_turn = 0;
        pthread_mutex_unlock(&turn[d]);
    }
}

static void turn_leave(gpu_prover *pv)
{
    if (pv->in_turn_msm) {
        pv->in_turn_msm = 0;
        pthread_mutex_unlock(&turn_msm[pv->ctx->device]);
    }
    if (pv->in_turn) {
        pv->in_turn = 0;
        pthread_mutex_unlock(&turn[pv->ctx->device]);
    }
}

static cuzk_status prover_create(int device, int urgent, gpu_prover **out, cuzk_error *err)
{
    if (out == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_prover_create: NULL out");
    *out = NULL;
    gpu_prover *pv = (gpu_prover *)calloc(1, sizeof *pv);
    if (pv == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_prover_create: out of host memory");
    gpu_tune tune = gpu_tune_get();
    cuzk_status st = gpu_ctx_create_prio(&pv->ctx, device,
                                         urgent                                    ? GPU_PRIO_URGENT
                                         : tune.queries_above && tune.memory_limit ? GPU_PRIO_ABOVE
                                                                                   : GPU_PRIO_LOW,
                                         err);
    if (st != CUZK_OK) {
        free(pv);
        return st;
    }
    pv->overlap = tune.overlap;
    pv->turns = urgent ? 0 : tune.turns;
    *out = pv;
    return CUZK_OK;
}

extern "C" cuzk_status gpu_prover_create(int device, gpu_prover **out, cuzk_error *err)
{
    return prover_create(device, 0, out, err);
}

extern "C" cuzk_status gpu_prover_create_urgent(int device, gpu_prover **out, cuzk_error *err)
{
    return prover_create(device, 1, out, err);
}

extern "C" void gpu_prover_destroy(gpu_prover *pv)
{
    if (pv == NULL) return;
    gpu_ntt_plan_destroy(pv->plan);
    gpu_ctx_destroy(pv->ctx_h);
    gpu_ctx_destroy(pv->ctx);
    free(pv);
}

extern "C" void gpu_prover_set_split(gpu_prover *pv, gpu_prove_split mode)
{
    if (pv) pv->split = mode;
}

extern "C" void gpu_prover_set_overlap(gpu_prover *pv, int on)
{
    if (pv) pv->overlap = on != 0;
}

extern "C" void gpu_prover_on_abc_done(gpu_prover *pv, void (*fn)(void *ctx), void *ctx)
{
    if (pv == NULL) return;
    pv->next_abc_done = fn;
    pv->next_abc_done_ctx = ctx;
}

/* a, b, c will not be read again in this call: tell the caller (once) so it can reuse their memory. */
static void abc_released(gpu_prover *pv)
{
    if (pv->abc_done) pv->abc_done(pv->abc_done_ctx);
    pv->abc_done = NULL;
}

/* ---- classification (host, classify.c) ---- */

typedef gpu_cls_query query;

static void *classify_main(void *arg)
{
    gpu_classify_run((gpu_classify *)arg);
    return NULL;
}

/* The classification's thread, joined once: by compute_h when it packs the witness, else after the H step. */
typedef struct cls_run {
    gpu_classify *cl;
    pthread_t th;
    int threaded, joined;
} cls_run;

static void cls_join(cls_run *cr)
{
    if (cr->threaded && !cr->joined) pthread_join(cr->th, NULL);
    cr->joined = 1;
}

/* ---- device work ---- */

typedef struct pt96 {
    uint4 v[6];
} pt96;

__global__ void gather_points(pt96 *out, const pt96 *in, const uint32_t *idx, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[idx[i]];
}

typedef struct fr_d {
    uint64_t l[4];
} fr_d;

/* aux[i] = one or zero by bit i of mask (the packed witness's ones; its others are written by witness_others). */
__global__ void witness_ones(fr_d *aux, const uint64_t *mask, size_t n, fr_d one)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d z = {{0, 0, 0, 0}};
    aux[i] = (mask[i / 64] >> (i % 64)) & 1 ? one : z;
}

__global__ void witness_others(fr_d *aux, const fr_d *vals, const uint32_t *idx, size_t n)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < n) aux[idx[k]] = vals[k];
}

/* ---- test hooks: steps made to fail as if the device were out of memory ---- */
static unsigned debug_fail_h;   /* gpu_debug_fail_h_steps */
static unsigned debug_fail_msm; /* gpu_debug_fail_msm_pieces */
static unsigned debug_fail_g2;  /* gpu_debug_fail_g2_pieces */

extern "C" unsigned gpu_debug_fail_h_steps(unsigned count)
{
    return __atomic_exchange_n(&debug_fail_h, count, __ATOMIC_SEQ_CST);
}

extern "C" unsigned gpu_debug_fail_msm_pieces(unsigned count)
{
    return __atomic_exchange_n(&debug_fail_msm, count, __ATOMIC_SEQ_CST);
}

extern "C" unsigned gpu_debug_fail_g2_pieces(unsigned count)
{
    return __atomic_exchange_n(&debug_fail_g2, count, __ATOMIC_SEQ_CST);
}

/* 1 when this step is to fail (and one fewer is left). */
static int debug_take(unsigned *counter)
{
    unsigned c = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
    while (c > 0)
        if (__atomic_compare_exchange_n(counter, &c, c - 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return 1;
    return 0;
}

/* A query's bases: on the device, or the host's copy streamed in chunks. phi_at > 0: resident with their images
 * under phi from p + phi_at (GLV, the H MSM with gpu_tune.glv). */
typedef struct bases_ref {
    const g1_affine_t *p;
    int resident;
    size_t phi_at;
} bases_ref;

static bases_ref bases_of(const gpu_buf *buf, const g1_affine_t *host)
{
    bases_ref b = {(const g1_affine_t *)gpu_buf_ptr(buf), 1, 0};
    if (b.p == NULL) b = {host, 0, 0};
    return b;
}

/* Points per piece when the bases are streamed (CUZK_GPU_STREAM_CHUNK, default 2^24, a multiple of 64), and the
 * smallest piece a call that runs out of device memory is split down to. */
#define SPLIT_MIN ((size_t)1 << 12)

static size_t stream_chunk(void)
{
    return gpu_tune_get().stream_chunk;
}

/* Points per streamed piece on ctx's device: stream_chunk(), and under a memory cap no more than the memory free
 * now holds with the piece's bases and scalars taking a quarter of it (the rest is the MSM's scratch: sort lists,
 * buckets). A multiple of 64, at least SPLIT_MIN (a piece that still does not fit is halved by the caller). */
static size_t stream_piece(gpu_ctx *ctx, size_t point_bytes)
{
    size_t piece = stream_chunk(), free_b = 0, total_b = 0;
    cuzk_error ignored;
    if (!gpu_mem_cap() || gpu_ctx_enter(ctx, &ignored) != CUZK_OK) return piece;
    if (gpu_mem_get_info(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return piece;
    }
    size_t fit = free_b / (4 * (point_bytes + sizeof(fr_t))) / 64 * 64;
    if (fit < SPLIT_MIN) fit = SPLIT_MIN;
    return fit < piece ? fit : piece;
}

/* One piece's sum over the len bases at bases (the piece's first) with arg (scalars or a mask) at offset off. */
typedef cuzk_status (*piece_fn)(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const void *arg, size_t off,
                                size_t len, cuzk_error *err);

/* An MSM's scalars and, for GLV (phi_at > 0), where its bases' images are: phi_at after a piece's bases, wherever
 * the piece starts. */
typedef struct msm_arg {
    const fr_t *scalars;
    size_t phi_at;
} msm_arg;

static cuzk_status msm_piece(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const void *arg, size_t off,
                             size_t len, cuzk_error *err)
{
    const msm_arg *m = (const msm_arg *)arg;
    if (len > SPLIT_MIN && debug_take(&debug_fail_msm))
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "debug: MSM failed as if out of device memory");
    if (m->phi_at) return gpu_msm_g1_glv(ctx, out, bases, m->phi_at, m->scalars + off, len, err);
    return gpu_msm_g1(ctx, out, bases, m->scalars + off, len, err);
}

static cuzk_status batch_piece(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const void *arg, size_t off,
                               size_t len, cuzk_error *err)
{
    return gpu_batch_add_g1(ctx, out, bases, (const uint64_t *)arg + off / 64, len, err);
}

/* A piece of streamed bases, by XYZZ: beside the overlapped H MSM the batch-affine rounds' host syncs waited behind
 * it (24 GiB cap, 32 GiB PoRep: 1.94 -> 1.67 s a partition). */
static cuzk_status batch_piece_streamed(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const void *arg,
                                        size_t off, size_t len, cuzk_error *err)
{
    return gpu_batch_add_g1_xyzz(ctx, out, bases, (const uint64_t *)arg + off / 64, len, err);
}

/* The copy of host's elements [off, off + len) (elem bytes each) into buf on the copy stream, once the compute
 * that last read buf has ended (used; an event never recorded is no wait), and its end recorded in copied. */
static cudaError_t piece_copy(cudaStream_t copy, void *buf, const void *host, size_t elem, size_t off, size_t len,
                              cudaEvent_t used, cudaEvent_t copied)
{
    cudaError_t e = cudaStreamWaitEvent(copy, used, 0);
    int span = gpu_trace_begin(copy, "copy-piece", len);
    if (e == cudaSuccess) e = gpu_copy_h2d_sliced(buf, (const char *)host + off * elem, len * elem, copy);
    gpu_trace_end(span, copy);
    if (e == cudaSuccess) e = cudaEventRecord(copied, copy);
    return e;
}

/* Called on the H MSM's thread once its first streamed piece's copy is queued (h_msm_main sets it). */
static thread_local void (*first_copy_hook)(void *);
static thread_local void *first_copy_arg;

/* The sum of fn's pieces over n streamed bases of type A (host), each piece's copy beside the compute of the piece
 * before: two device buffers of a piece, filled on a copy stream; a piece computes on ctx's stream once its copy
 * has ended, and the copy into a buffer waits for the compute that last read it. The pieces are sized with both
 * buffers counted (stream_piece). A piece that runs out of device memory is done in halves from its offset: its
 * buffer still holds its first half, and the copy in flight (of the piece after) is waited for and issued again
 * for the new offset. J: the sum's type, add its addition (out starts at infinity, set by the caller). */
template <class A, class J>
static cuzk_status
pieces_overlapped(gpu_ctx *ctx, J *out, const A *host,
                  cuzk_status (*fn)(gpu_ctx *, J *, const A *, const void *, size_t, size_t, cuzk_error *),
                  void (*add)(J *, const J *, const J *), const char *name, const void *arg, size_t n, cuzk_error *err)
{
    cuzk_status st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    size_t piece = stream_piece(ctx, 2 * sizeof(A)), len = n < piece ? n : piece;
    cudaStream_t copy = NULL;
    cudaEvent_t ready = NULL, copied[2] = {NULL, NULL}, used[2] = {NULL, NULL};
    A *buf[2] = {NULL, NULL};
    double ms = 0;
    size_t o = 0;
    int slot = 0;
    GPU_TRY(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    GPU_TRY(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    for (int i = 0; i < 2; i++) {
        GPU_TRY(cudaEventCreateWithFlags(&copied[i], cudaEventDisableTiming));
        GPU_TRY(cudaEventCreateWithFlags(&used[i], cudaEventDisableTiming));
        GPU_TRY(gpu_malloc_async((void **)&buf[i], len * sizeof(A), ctx->stream));
    }
    /* The buffers are the copy stream's once their allocations have run on ctx's. */
    GPU_TRY(cudaEventRecord(ready, ctx->stream));
    GPU_TRY(cudaStreamWaitEvent(copy, ready, 0));
    GPU_TRY(piece_copy(copy, buf[0], host, sizeof(A), 0, len, used[0], copied[0]));
    if (first_copy_hook) first_copy_hook(first_copy_arg);
    while (o < n) {
        size_t next = o + len, next_len = n - next < piece ? n - next : piece;
        if (next < n)
            GPU_TRY(piece_copy(copy, buf[slot ^ 1], host, sizeof(A), next, next_len, used[slot ^ 1], copied[slot ^ 1]));
        GPU_TRY(cudaStreamWaitEvent(ctx->stream, copied[slot], 0));
        J part;
        int span = gpu_trace_begin(ctx->stream, name, len);
        st = fn(ctx, &part, buf[slot], arg, o, len, err);
        gpu_trace_end(span, ctx->stream);
        GPU_TRY(cudaEventRecord(used[slot], ctx->stream));
        if (st == CUZK_ERR_NOMEM && len > SPLIT_MIN) {
            GPU_TRY(cudaStreamSynchronize(copy));
            piece = len / 2 / 64 * 64;
            len = piece;
            st = CUZK_OK;
            continue;
        }
        if (st != CUZK_OK) goto done;
        ms += gpu_ctx_last_ms(ctx);
        add(out, out, &part);
        o = next;
        len = next_len;
        slot ^= 1;
    }
    ctx->last_ms = ms;
done:
    /* The buffers go back on ctx's stream after the copy stream's last use of them. */
    if (copy && ready && cudaEventRecord(ready, copy) == cudaSuccess) (void)cudaStreamWaitEvent(ctx->stream, ready, 0);
    for (int i = 0; i < 2; i++) {
        if (buf[i]) gpu_free_async(buf[i], ctx->stream);
        if (copied[i]) cudaEventDestroy(copied[i]);
        if (used[i]) cudaEventDestroy(used[i]);
    }
    if (ready) cudaEventDestroy(ready);
    if (copy) cudaStreamDestroy(copy);
    return st;
}

/* in_pieces over streamed G1 bases (pieces_overlapped). */
static cuzk_status in_pieces_overlapped(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *host, piece_fn fn,
                                        const void *arg, size_t n, cuzk_error *err)
{
    g1_jac_set_inf(out);
    return pieces_overlapped<g1_affine_t, g1_jac_t>(ctx, out, host, fn, g1_jac_add,
                                                    fn == msm_piece ? "msm-piece" : "batch-piece", arg, n, err);
}

/* out = the sum of fn's pieces over n bases: one piece when the bases are resident, pieces of stream_chunk() points
 * when they are streamed (in_pieces_overlapped); a piece (or the whole) that runs out of device memory is done in
 * halves (multiples of 64 points, so a mask's pieces start at whole words), down to SPLIT_MIN points. ctx's
 * last_ms: the pieces' sum. */
static cuzk_status in_pieces(gpu_ctx *ctx, g1_jac_t *out, bases_ref b, piece_fn fn, const void *arg, size_t n,
                             cuzk_error *err)
{
    if (!b.resident && n > 0) return in_pieces_overlapped(ctx, out, b.p, fn, arg, n, err);
    size_t piece = n;
    double ms = 0;
    g1_jac_set_inf(out);
    for (size_t o = 0; o < n;) {
        size_t len = n - o < piece ? n - o : piece;
        g1_jac_t part;
        cuzk_status st = fn(ctx, &part, b.p + o, arg, o, len, err);
        if (st == CUZK_ERR_NOMEM && len > SPLIT_MIN) {
            piece = len / 2 / 64 * 64;
            continue;
        }
        if (st != CUZK_OK) return st;
        ms += gpu_ctx_last_ms(ctx);
        g1_jac_add(out, out, &part);
        o += len;
    }
    ctx->last_ms = ms;
    return CUZK_OK;
}

/* out = sum_{i<n} scalars[i] * b[i] (scalars on the host or the device). */
static cuzk_status msm_pieces(gpu_ctx *ctx, g1_jac_t *out, bases_ref b, const fr_t *scalars, size_t n, cuzk_error *err)
{
    msm_arg m = {scalars, b.resident ? b.phi_at : 0};
    return in_pieces(ctx, out, b, msm_piece, &m, n, err);
}

/* The n-bit mask (host or device) on the device, in one copy before any piece of streamed bases is queued
 * (*owned: to free on ctx's stream). A piece's slice of a host mask, staged by the piece's call, was queued behind
 * the next piece's bases (the copy engine takes copies in the order queued): each piece's copy and compute ran one
 * after the other, 22-66 ms a piece for 20-25 ms copies (the nineteenth session's trace). */
static cuzk_status mask_on_device(gpu_ctx *ctx, const uint64_t *mask, size_t n, const uint64_t **dev, void **owned,
                                  cuzk_error *err)
{
    const void *d = NULL;
    cuzk_status st = gpu_ctx_enter(ctx, err);
    if (st == CUZK_OK) st = gpu_stage_in(ctx, mask, (n + 63) / 64 * sizeof(uint64_t), &d, owned, err);
    *dev = (const uint64_t *)d;
    return st;
}

/* out = sum of b[i] over the set bits i < n of mask (host or device). */
static cuzk_status batch_pieces(gpu_ctx *ctx, g1_jac_t *out, bases_ref b, const uint64_t *mask, size_t n,
                                cuzk_error *err)
{
    if (b.resident) return in_pieces(ctx, out, b, batch_piece, mask, n, err);
    const uint64_t *d_mask = NULL;
    void *owned = NULL;
    cuzk_status st = mask_on_device(ctx, mask, n, &d_mask, &owned, err);
    if (st == CUZK_OK) st = in_pieces(ctx, out, b, batch_piece_streamed, d_mask, n, err);
    if (owned) gpu_free_async(owned, ctx->stream);
    return st;
}

/* A gather's source (gather_fill): the elements of elem bytes of src that idx names, by pool's threads. */
typedef struct gather_job {
    pool_t *pool;
    const char *src;
    const uint32_t *idx;
    size_t elem;
    char *dst; /* the chunk's staging buffer, from its first element */
    size_t first;
} gather_job;

static void gather_range(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const gather_job *g = (const gather_job *)ctx;
    for (size_t k = begin; k < end; k++)
        memcpy(g->dst + k * g->elem, g->src + (size_t)g->idx[g->first + k] * g->elem, g->elem);
}

static void gather_fill(void *arg, void *stage, size_t off, size_t len)
{
    gather_job *g = (gather_job *)arg;
    g->dst = (char *)stage;
    g->first = off / g->elem;
    pool_parallel_for(g->pool, len / g->elem, 4096, gather_range, g);
}

/* dst (device) = the n elements of elem bytes of src (host) that idx names, gathered by the pool's threads into the
 * context's staging buffers, each chunk's DMA running while the next is gathered (one thread gathering a tail of
 * ~10^7 bases out of a 12 GB section into pageable memory, then its pageable copy, took seconds a 32 GiB
 * partition). Queued on the context's stream. */
static cuzk_status gather_staged(gpu_prover *pv, pool_t *pool, void *dst, const void *src, size_t elem,
                                 const uint32_t *idx, size_t n, cuzk_error *err)
{
    gather_job g = {pool, (const char *)src, idx, elem, NULL, 0};
    return gpu_upload_filled(pv->ctx, dst, n * elem, elem, gather_fill, &g, "copy-gathered", err);
}

/* out = sum_k scalars[k] * b[idx[k]]: the bases gathered on the device (resident) or, streamed, by gather_staged
 * in pieces of stream_piece() points. */
static cuzk_status gather_msm(gpu_prover *pv, pool_t *pool, g1_jac_t *out, bases_ref b, const uint32_t *idx,
                              const fr_t *scalars, size_t n, cuzk_error *err)
{
    gpu_ctx *ctx = pv->ctx;
    cuzk_status st = CUZK_OK;
    uint32_t *d_idx = NULL;
    pt96 *d_pts = NULL;
    g1_jac_set_inf(out);
    if (n == 0) return CUZK_OK;
    if (!b.resident) {
        size_t piece = stream_piece(ctx, sizeof(g1_affine_t));
        size_t per = n < piece ? n : piece;
        GPU_TRY(gpu_malloc_async((void **)&d_pts, per * sizeof(pt96), ctx->stream));
        for (size_t o = 0; o < n && st == CUZK_OK; o += per) {
            size_t len = n - o < per ? n - o : per;
            g1_jac_t part;
            st = gather_staged(pv, pool, d_pts, b.p, sizeof(g1_affine_t), idx + o, len, err);
            int span = gpu_trace_begin(ctx->stream, "tail-msm", len);
            if (st == CUZK_OK) st = msm_pieces(ctx, &part, {(const g1_affine_t *)d_pts, 1, 0}, scalars + o, len, err);
            gpu_trace_end(span, ctx->stream);
            if (st == CUZK_OK) g1_jac_add(out, out, &part);
        }
        goto done;
    }
    GPU_TRY(gpu_malloc_async((void **)&d_idx, n * sizeof(uint32_t), ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&d_pts, n * sizeof(pt96), ctx->stream));
    if ((st = gpu_copy_h2d(ctx, pool, d_idx, idx, n * sizeof(uint32_t), err)) != CUZK_OK) goto done;
    gather_points<<<(unsigned)((n + 255) / 256), 256, 0, ctx->stream>>>(d_pts, (const pt96 *)b.p, d_idx, n);
    GPU_LAUNCHED("gather_points");
    st = msm_pieces(ctx, out, {(const g1_affine_t *)d_pts, 1, 0}, scalars, n, err);
done:
    if (d_idx) gpu_free_async(d_idx, ctx->stream);
    if (d_pts) gpu_free_async(d_pts, ctx->stream);
    return st;
}

/* A query's pass over all its bases: the ones' batch addition (split; its tail is query_tail's), or one MSM over
 * every base. *out: that sum. */
static cuzk_status query_bases(gpu_prover *pv, const query *q, bases_ref bases, const fr_t *full, g1_jac_t *out,
                               double *ba_ms, double *tail_ms, cuzk_error *err)
{
    gpu_ctx *ctx = pv->ctx;
    cuzk_status st = CUZK_OK;
    double t0 = now_ms();
    *ba_ms = *tail_ms = 0;
    g1_jac_set_inf(out);
    if (!q->split) {
        st = msm_pieces(ctx, out, bases, full, q->nbases, err);
        *tail_ms = now_ms() - t0;
    } else if (q->ones_n) {
        st = batch_pieces(ctx, out, bases, q->ones, q->nbases, err);
        *ba_ms = gpu_ctx_last_ms(ctx);
    }
    return st;
}

/* A split query's tail MSM, added to *out (query_bases' sum). */
static cuzk_status query_tail(gpu_prover *pv, pool_t *pool, const query *q, bases_ref bases, g1_jac_t *out,
                              double *tail_ms, cuzk_error *err)
{
    g1_jac_t tail;
    double t0 = now_ms();
    cuzk_status st = gather_msm(pv, pool, &tail, bases, q->tail_i, q->tail_s, q->tail_n, err);
    if (st != CUZK_OK) return st;
    *tail_ms = now_ms() - t0;
    g1_jac_add(out, out, &tail);
    return CUZK_OK;
}

/* B_G2's pieces over device bases (pieces_overlapped): the ones' batch addition (arg: the mask), or the MSM over
 * every scalar (arg: the scalars). */
static cuzk_status b_g2_ones_piece(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const void *arg, size_t off,
                                   size_t len, cuzk_error *err)
{
    return gpu_batch_add_g2(ctx, out, bases, (const uint64_t *)arg + off / 64, len, err);
}

static cuzk_status b_g2_full_piece(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const void *arg, size_t off,
                                   size_t len, cuzk_error *err)
{
    return gpu_msm_g2_indexed(ctx, out, bases, len, NULL, (const fr_t *)arg + off, len, err);
}

/* B_G2 over host bases streamed in pieces (stream_piece; a memory cap left them on the host): the same sums as
 * run_b_g2's, each piece's bases staged by the G2 calls (with gpu_tune.b_g2_overlap copied by pieces_overlapped
 * beside the piece before), the tail's gathered by gather_staged; a piece that runs out of device memory is done
 * in halves (multiples of 64 points), down to SPLIT_MIN. */
static cuzk_status run_b_g2_streamed(gpu_prover *pv, pool_t *pool, const query *q, const g2_affine_t *bases,
                                     g2_jac_t *out, double *ms, cuzk_error *err)
{
    gpu_ctx *ctx = pv->ctx;
    g2_affine_t *d_pts = NULL;
    const uint64_t *ones = NULL; /* the ones' mask on the device (mask_on_device) */
    void *ones_owned = NULL;
    cuzk_status st = CUZK_OK;
    *ms = 0;
    g2_jac_set_inf(out);
    if (q->split && q->ones_n && (st = mask_on_device(ctx, q->ones, q->nbases, &ones, &ones_owned, err)) != CUZK_OK)
        return st;
    size_t piece = stream_piece(ctx, sizeof(g2_affine_t));
    /* pass 0: the ones (split) or every scalar (not split), over bases in place; pass 1: the tail, gathered.
     * gpu_tune.b_g2_overlap: pass 0's pieces copied beside the compute of the piece before. */
    if (gpu_tune_get().b_g2_overlap && (!q->split || q->ones_n)) {
        st = pieces_overlapped<g2_affine_t, g2_jac_t>(
            ctx, out, bases, q->split ? b_g2_ones_piece : b_g2_full_piece, g2_jac_add, "b_g2-piece",
            q->split ? (const void *)ones : (const void *)q->full, q->nbases, err);
        if (st != CUZK_OK) goto done;
        *ms += gpu_ctx_last_ms(ctx);
    }
    for (int pass = gpu_tune_get().b_g2_overlap ? 1 : 0; pass < 2 && st == CUZK_OK; pass++) {
        size_t n = pass ? (q->split ? q->tail_n : 0) : (q->split && !q->ones_n ? 0 : q->nbases);
        if (pass && n) GPU_TRY(gpu_malloc_async((void **)&d_pts, (n < piece ? n : piece) * sizeof *d_pts, ctx->stream));
        for (size_t o = 0; o < n;) {
            size_t len = n - o < piece ? n - o : piece;
            g2_jac_t part;
            int span = gpu_trace_begin(ctx->stream, pass ? "b_g2-tail" : "b_g2-piece", len);
            if (pass) {
                st = gather_staged(pv, pool, d_pts, bases, sizeof(g2_affine_t), q->tail_i + o, len, err);
                if (st == CUZK_OK) st = gpu_msm_g2_indexed(ctx, &part, d_pts, len, NULL, q->tail_s + o, len, err);
            } else if (q->split) {
                st = gpu_batch_add_g2(ctx, &part, bases + o, ones + o / 64, len, err);
            } else {
                st = gpu_msm_g2_indexed(ctx, &part, bases + o, len, NULL, q->full + o, len, err);
            }
            gpu_trace_end(span, ctx->stream);
            if (st == CUZK_ERR_NOMEM && len > SPLIT_MIN) {
                piece = len / 2 / 64 * 64;
                st = CUZK_OK;
                continue;
            }
            if (st != CUZK_OK) break;
            g2_jac_add(out, out, &part);
            *ms += gpu_ctx_last_ms(ctx);
            o += len;
        }
    }
done:
    if (d_pts) gpu_free_async(d_pts, ctx->stream);
    if (ones_owned) gpu_free_async(ones_owned, ctx->stream);
    return st;
}

/* sum_k scalars[k] * bases[idx[k]] (idx NULL: bases[k]) over resident B_G2 bases, in pieces of the scalars whose
 * MSM fits the memory free when it starts (gpu_msm_g2_piece): a WindowPoSt's B_G2 beside its resident bases does
 * not fit in one under an H100's 80 GB. A piece that still runs out of memory (another prover took some since) is
 * done in halves, as the G1 pieces are. *ms: the device time. */
static cuzk_status b_g2_msm_pieces(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                                   const uint32_t *idx, const fr_t *scalars, size_t n, double *ms, cuzk_error *err)
{
    size_t free_b = 0, total_b = 0, piece = n;
    cuzk_status st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (gpu_mem_get_info(&free_b, &total_b) == cudaSuccess)
        piece = gpu_msm_g2_piece(n, free_b);
    else
        (void)cudaGetLastError();
    g2_jac_set_inf(out);
    for (size_t o = 0; o < n;) {
        size_t len = n - o < piece ? n - o : piece;
        g2_jac_t part;
        st = len > SPLIT_MIN && debug_take(&debug_fail_g2)
                 ? cuzk_error_set(err, CUZK_ERR_NOMEM, "debug: B_G2 piece failed as if out of device memory")
             : idx ? gpu_msm_g2_indexed(ctx, &part, bases, nbases, idx + o, scalars + o, len, err)
                   : gpu_msm_g2_indexed(ctx, &part, bases + o, len, NULL, scalars + o, len, err);
        if (st == CUZK_ERR_NOMEM && len > SPLIT_MIN) {
            piece = len / 2 / 64 * 64;
            continue;
        }
        if (st != CUZK_OK) return st;
        *ms += gpu_ctx_last_ms(ctx);
        g2_jac_add(out, out, &part);
        o += len;
    }
    return CUZK_OK;
}

/* B_G2 over the device-resident b_g2 bases, with B_G1's classification: batch addition + tail MSM, or one MSM. */
static cuzk_status run_b_g2(gpu_ctx *ctx, const query *q, const g2_affine_t *bases, size_t nbases, g2_jac_t *out,
                            double *ms, cuzk_error *err)
{
    *ms = 0;
    if (!q->split) return b_g2_msm_pieces(ctx, out, bases, nbases, NULL, q->full, q->nbases, ms, err);
    g2_jac_t ones;
    g2_jac_set_inf(&ones);
    if (q->ones_n) {
        cuzk_status st = gpu_batch_add_g2(ctx, &ones, bases, q->ones, q->nbases, err);
        if (st != CUZK_OK) return st;
        *ms = gpu_ctx_last_ms(ctx);
    }
    cuzk_status st = b_g2_msm_pieces(ctx, out, bases, nbases, q->tail_i, q->tail_s, q->tail_n, ms, err);
    if (st != CUZK_OK) return st;
    g2_jac_add(out, out, &ones);
    return CUZK_OK;
}

/* Where a, b, c come from: given (host or device), or evaluated on the device from a shape and the witness. */
typedef struct abc_src {
    const fr_t *a, *b, *c;
    const gpu_shape *shape; /* NULL: a, b, c are given */
    const fr_t *inputs, *aux;
    size_t num_inputs, num_aux;
} abc_src;

static cuzk_status check_args(const gpu_prover *pv, const gpu_params *gp, const groth16_params *p, size_t n,
                              const abc_src *src, const r1cs_density *dn, const groth16_pending *pending, domain_t *d,
                              cuzk_error *err)
{
    const fr_t *inputs = src->inputs, *aux = src->aux;
    size_t n_in = src->num_inputs, n_aux = src->num_aux;
    int have_abc = src->shape ? 1 : src->a && src->b && (src->c || p == NULL || p->h_form != H_FORM_BELLPERSON);
    if (!pv || !gp || !p || !have_abc || !inputs || (!aux && n_aux) || !dn || !pending)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: NULL argument");
    if (src->shape) {
        const gpu_shape *sh = src->shape;
        if (gpu_shape_device(sh) != pv->ctx->device)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: shape on device %d, prover on device %d",
                                  gpu_shape_device(sh), pv->ctx->device);
        if (gpu_shape_num_inputs(sh) != n_in || gpu_shape_num_aux(sh) != n_aux)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                  "gpu prove: witness of %zu inputs / %zu aux, shape of %zu / %zu", n_in, n_aux,
                                  gpu_shape_num_inputs(sh), gpu_shape_num_aux(sh));
    }
    if (gp->params != p)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: the device bases belong to other params");
    if (gp->ctx->device != pv->ctx->device)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: bases on device %d, prover on device %d",
                              gp->ctx->device, pv->ctx->device);
    if (n_in == 0 || !fr_is_one(&inputs[0]))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: input 0 must be the constant one");
    if (n_aux >= (1ull << 31) || n_in >= (1ull << 31))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: %zu inputs / %zu aux: 2^31 or more", n_in, n_aux);
    cuzk_status st = domain_for_size(d, n, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: ");
    if (groth16_check_shapes(p, n_in, n_aux, n, dn, d, err) != CUZK_OK) return cuzk_error_prefix(err, "gpu ");
    return CUZK_OK;
}

/* H scalars and the H MSM. Domains below the device NTT's smallest (2^3) take the CPU's poly_compute_h on a
 * copy (a, b, c are read only here). */
/* 1 when bytes at p are pageable host memory, and more than GPU_STAGE_MAX of them: a, b, c that stage_abc copies to
 * the device before the H step (smaller ones the NTTs copy themselves). */
static int wants_staging(const void *p, size_t bytes)
{
    return bytes > GPU_STAGE_MAX && gpu_is_pageable(p);
}

/* a, b, c (n elements each; c may be NULL) on the device: copied through the staging buffers when they are in
 * pageable host memory and large, else left where they are (*dev[k] = the input). owned[k]: what to free. */
static cuzk_status stage_abc(gpu_prover *pv, pool_t *pool, const fr_t *in[3], size_t n, size_t alloc_n,
                             const fr_t *dev[3], void *owned[3], cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t bytes = n * sizeof(fr_t);
    for (int k = 0; k < 3; k++) {
        dev[k] = in[k];
        owned[k] = NULL;
    }
    if (!wants_staging(in[0], bytes)) return CUZK_OK;
    for (int k = 0; k < 3 && st == CUZK_OK; k++) {
        if (in[k] == NULL) continue;
        GPU_TRY(gpu_malloc_async(&owned[k], alloc_n * sizeof(fr_t), pv->ctx->stream));
        st = gpu_copy_h2d(pv->ctx, pool, owned[k], in[k], bytes, err);
        dev[k] = (const fr_t *)owned[k];
    }
done:
    if (st != CUZK_OK)
        for (int k = 0; k < 3; k++)
            if (owned[k]) gpu_free_async(owned[k], pv->ctx->stream), owned[k] = NULL;
    return st;
}

/* One piece of host (or device) memory to upload. */
typedef struct upload_seg {
    const void *src;
    size_t bytes;
} upload_seg;

/* *dst = a new device buffer holding the segments one after the other (to free with gpu_free_async on pv's
 * stream; each through the staging buffers when pageable); returns once they are there, with *ms the upload's
 * device time. On failure *dst is NULL. */
static cuzk_status upload_segments(gpu_prover *pv, pool_t *pool, const upload_seg *seg, int nseg, void **dst,
                                   double *ms, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    cudaStream_t stream = pv->ctx->stream;
    cudaEvent_t ev[2] = {NULL, NULL};
    size_t total = 0, off = 0;
    float t = 0;
    *dst = NULL;
    for (int i = 0; i < nseg; i++) total += seg[i].bytes;
    GPU_TRY(cudaEventCreate(&ev[0]));
    GPU_TRY(cudaEventCreate(&ev[1]));
    GPU_TRY(cudaEventRecord(ev[0], stream));
    GPU_TRY(gpu_malloc_async(dst, total, stream));
    for (int i = 0; i < nseg && st == CUZK_OK; off += seg[i].bytes, i++)
        st = gpu_copy_h2d(pv->ctx, pool, (char *)*dst + off, seg[i].src, seg[i].bytes, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaEventRecord(ev[1], stream));
    GPU_TRY(cudaEventSynchronize(ev[1]));
    GPU_TRY(cudaEventElapsedTime(&t, ev[0], ev[1]));
    *ms = t;
done:
    if (st != CUZK_OK && *dst) {
        gpu_free_async(*dst, stream);
        *dst = NULL;
    }
    for (int i = 0; i < 2; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    return st;
}

/* The witness inputs ++ aux onto the device (*w, to free with gpu_free_async on pv's stream; aux through the
 * staging buffers when pageable); returns once it is there. gt gets abc_upload_ms. */
static cuzk_status witness_upload(gpu_prover *pv, pool_t *pool, const abc_src *src, fr_t **w, gpu_prove_timings *gt,
                                  cuzk_error *err)
{
    const upload_seg seg[2] = {{src->inputs, src->num_inputs * sizeof(fr_t)}, {src->aux, src->num_aux * sizeof(fr_t)}};
    return upload_segments(pv, pool, seg, 2, (void **)w, &gt->abc_upload_ms, err);
}

/* A witness whose aux are mostly 0 and 1, on the device as the L query's split of it (the classification's): the
 * inputs, the mask of the ones, the others' values and their aux indices (~1.2 of the plain 4.2 GB at 32 GiB PoRep).
 * Under a cap where the plain witness does not fit beside the next H step, this one goes up before the device's
 * turn, beside another prover's MSMs (compute_h); witness_expand writes the plain witness from it in the turn. */
typedef struct packed_witness {
    char *dev; /* NULL: none */
    size_t ni, na, others;
} packed_witness;

static size_t packed_bytes(size_t ni, size_t na, size_t others)
{
    return ni * sizeof(fr_t) + (na + 63) / 64 * sizeof(uint64_t) + others * (sizeof(fr_t) + sizeof(uint32_t));
}

/* The packed witness of src (ql: its L split) onto the device, waited for; gt gets abc_upload_ms. */
static cuzk_status witness_pack_upload(gpu_prover *pv, pool_t *pool, const abc_src *src, const query *ql,
                                       packed_witness *pw, gpu_prove_timings *gt, cuzk_error *err)
{
    size_t ni = src->num_inputs, na = src->num_aux, k = ql->tail_n;
    const upload_seg seg[4] = {{src->inputs, ni * sizeof(fr_t)},
                               {ql->ones, (na + 63) / 64 * sizeof(uint64_t)},
                               {ql->tail_s, k * sizeof(fr_t)},
                               {ql->tail_i, k * sizeof(uint32_t)}};
    pw->ni = ni;
    pw->na = na;
    pw->others = k;
    return upload_segments(pv, pool, seg, 4, (void **)&pw->dev, &gt->abc_upload_ms, err);
}

/* *w = the plain witness (inputs ++ aux) on the device, written from pw, which is freed. */
static cuzk_status witness_expand(gpu_prover *pv, packed_witness *pw, fr_t **w, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    cudaStream_t stream = pv->ctx->stream;
    size_t ni = pw->ni, na = pw->na, k = pw->others, mask = (na + 63) / 64 * sizeof(uint64_t);
    const char *p = pw->dev;
    fr_t one;
    fr_d one_d;
    fr_set_one(&one);
    memcpy(&one_d, &one, sizeof one_d);
    *w = NULL;
    GPU_TRY(gpu_malloc_async((void **)w, (ni + na) * sizeof(fr_t), stream));
    GPU_TRY(cudaMemcpyAsync(*w, p, ni * sizeof(fr_t), cudaMemcpyDeviceToDevice, stream));
    p += ni * sizeof(fr_t);
    if (na) {
        witness_ones<<<(unsigned)((na + 255) / 256), 256, 0, stream>>>((fr_d *)(*w + ni), (const uint64_t *)p, na,
                                                                       one_d);
        GPU_TRY(cudaGetLastError());
    }
    p += mask;
    if (k) {
        witness_others<<<(unsigned)((k + 255) / 256), 256, 0, stream>>>((fr_d *)(*w + ni), (const fr_d *)p,
                                                                        (const uint32_t *)(p + k * sizeof(fr_t)), k);
        GPU_TRY(cudaGetLastError());
    }
done:
    gpu_free_async(pw->dev, stream);
    pw->dev = NULL;
    if (st != CUZK_OK && *w) {
        gpu_free_async(*w, stream);
        *w = NULL;
    }
    return st;
}

/* a, b, c (the shape's constraints each, in buffers of alloc_n elements) evaluated on the device from src's shape
 * and the device witness *w (uploaded here when NULL: a retry after a later step ran out of memory, or the plan
 * kept it for the turn), which is freed (and *w set to NULL) once the evaluation is queued. owned[k] = dev[k]:
 * device memory to free. gt gets abc_eval_ms. */
static cuzk_status shape_abc(gpu_prover *pv, pool_t *pool, const abc_src *src, size_t alloc_n, fr_t **w,
                             packed_witness *pw, const fr_t *dev[3], void *owned[3], gpu_prove_timings *gt,
                             cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    cudaStream_t stream = pv->ctx->stream;
    for (int k = 0; k < 3; k++) dev[k] = NULL, owned[k] = NULL;
    if (*w == NULL && pw->dev) {
        st = witness_expand(pv, pw, w, err);
        if (st != CUZK_OK) return st;
    }
    if (*w == NULL) {
        st = witness_upload(pv, pool, src, w, gt, err);
        if (st != CUZK_OK) return st;
    }
    for (int k = 0; k < 3; k++) {
        GPU_TRY(gpu_malloc_async(&owned[k], alloc_n * sizeof(fr_t), stream));
        dev[k] = (const fr_t *)owned[k];
    }
    st = gpu_shape_eval_device(pv->ctx, src->shape, *w, (fr_t *)owned[0], (fr_t *)owned[1], (fr_t *)owned[2],
                               &gt->abc_eval_ms, err);
    if (st == CUZK_OK) {
        gpu_free_async(*w, stream);
        *w = NULL;
    }
done:
    if (st != CUZK_OK)
        for (int k = 0; k < 3; k++)
            if (owned[k]) gpu_free_async(owned[k], stream), owned[k] = NULL;
    return st;
}

/* a, b, c onto the device (staged when pageable, or evaluated there from a shape) and the H scalars computed there
 * (*h_dev, on pv's stream). in_place: the device copies of a, b, c get the whole domain and the NTTs run in them
 * (the plan under a memory cap). */
static cuzk_status h_scalars(gpu_prover *pv, pool_t *pool, h_form form, const abc_src *src, size_t n, int in_place,
                             int three, fr_t **w, packed_witness *pw, fr_t **h_dev, int *staged, gpu_prove_timings *gt,
                             cuzk_error *err)
{
    const fr_t *in[3] = {src->a, src->b, src->c}, *dev[3];
    void *owned[3];
    if (three && !src->shape) {
        /* a, b, c straight from where they are into the NTT's three buffers (no staged copies beside them). */
        *staged = 0;
        cuzk_status st = debug_take(&debug_fail_h)
                             ? cuzk_error_set(err, CUZK_ERR_NOMEM, "debug: H step failed as if out of device memory")
                             : gpu_ntt_h_device_3(pv->plan, form, in[0], in[1], in[2], n, h_dev, err);
        return st == CUZK_OK ? CUZK_OK : cuzk_error_prefix(err, "gpu prove: H: ");
    }
    size_t alloc_n = in_place ? (size_t)1 << pv->plan_log : n;
    cuzk_status st = src->shape ? shape_abc(pv, pool, src, alloc_n, w, pw, dev, owned, gt, err)
                                : stage_abc(pv, pool, in, n, alloc_n, dev, owned, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: a, b, c %s: ", src->shape ? "evaluation" : "upload");
    *staged = !src->shape && owned[0] != NULL;
    /* In place only when this call owns every buffer the NTTs read (c may be absent in the snarkjs form). */
    in_place = in_place && owned[0] && owned[1] && (owned[2] || !in[2] || src->shape);
    if (debug_take(&debug_fail_h)) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "debug: H step failed as if out of device memory");
    } else if (in_place) {
        st = gpu_ntt_h_device_own(pv->plan, form, (fr_t *)owned[0], (fr_t *)owned[1], (fr_t *)owned[2], n, h_dev, err);
        owned[0] = owned[1] = owned[2] = NULL; /* taken over */
    } else {
        st = gpu_ntt_h_device(pv->plan, form, dev[0], dev[1], dev[2], n, h_dev, err);
    }
    for (int k = 0; k < 3; k++)
        if (owned[k]) gpu_free_async(owned[k], pv->ctx->stream);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: H: ");
    return CUZK_OK;
}

/* The H MSM over the device-resident H scalars: on the calling thread, or on its own thread and stream while
 * the caller goes on with the other queries (the device runs both). */
typedef struct h_msm {
    gpu_ctx *ctx;
    bases_ref bases;
    fr_t *scalars; /* device; allocated on the prover's main context by gpu_ntt_h_device */
    size_t n;
    pthread_t thread;
    int running;
    pthread_mutex_t mu; /* with cv and copying: gpu_tune.h_first */
    pthread_cond_t cv;
    int copying; /* 1: the first piece's copy is queued, or the MSM has returned */
    g1_jac_t out;
    double ms;
    cuzk_status st;
    cuzk_error err;
} h_msm;

static void h_copy_started(void *arg)
{
    h_msm *hm = (h_msm *)arg;
    pthread_mutex_lock(&hm->mu);
    hm->copying = 1;
    pthread_cond_broadcast(&hm->cv);
    pthread_mutex_unlock(&hm->mu);
}

static void *h_msm_main(void *arg)
{
    h_msm *hm = (h_msm *)arg;
    hm->err.code = CUZK_OK;
    hm->err.msg[0] = '\0';
    /* Resident bases queue nothing on the bus: the queries need not wait. */
    if (hm->running && hm->bases.resident) h_copy_started(hm);
    if (hm->running && !hm->bases.resident) first_copy_hook = h_copy_started, first_copy_arg = hm;
    GATED(hm->ctx->device, hm->st, msm_pieces(hm->ctx, &hm->out, hm->bases, hm->scalars, hm->n, &hm->err));
    hm->ms = gpu_ctx_last_ms(hm->ctx);
    first_copy_hook = NULL;
    if (hm->running) h_copy_started(hm);
    return NULL;
}

/* gpu_tune.h_first: returns once the overlapped H MSM has queued its first piece's copy (or returned). */
static void h_msm_wait_copying(h_msm *hm)
{
    if (!hm->running) return;
    pthread_mutex_lock(&hm->mu);
    while (!hm->copying) pthread_cond_wait(&hm->cv, &hm->mu);
    pthread_mutex_unlock(&hm->mu);
}

/* Waits for the H MSM (if it runs on its own thread), frees the H scalars, hands over its result or error. */
static cuzk_status h_msm_end(gpu_prover *pv, h_msm *hm, g1_jac_t *out, gpu_prove_timings *gt, cuzk_error *err)
{
    if (hm->running) {
        pthread_join(hm->thread, NULL);
        pthread_cond_destroy(&hm->cv);
        pthread_mutex_destroy(&hm->mu);
    }
    hm->running = 0;
    /* gpu_msm_g1 has returned, so nothing on ctx_h reads the scalars any more. */
    gpu_ntt_h_free(pv->ctx, hm->scalars);
    hm->scalars = NULL;
    gt->msm_h_ms = hm->ms;
    if (hm->st != CUZK_OK) {
        *err = hm->err;
        return cuzk_error_prefix(err, "gpu prove: H MSM: ");
    }
    *out = hm->out;
    return CUZK_OK;
}

/* The partition's plan (plan.h) from the device's memory as the cap sees it and what this partition's bases and
 * shape hold there. Under a cap a partition whose H step cannot fit fails here, before any work, with
 * CUZK_ERR_NOMEM. */
static cuzk_status plan_partition(gpu_prover *pv, const gpu_params *gp, const abc_src *src, const domain_t *d,
                                  gpu_plan_part *part, cuzk_error *err)
{
    gpu_tune tune = gpu_tune_get();
    size_t free_b = 0, total_b = 0, held = gpu_params_bytes(gp) + (src->shape ? gpu_shape_bytes(src->shape) : 0);
    cuzk_status st = CUZK_OK;
    if (!tune.memory_limit || d->log_m < 3) {
        gpu_plan_partition(0, 0, 0, d->log_m, 0, part);
        return CUZK_OK;
    }
    if ((st = gpu_ctx_enter(pv->ctx, err)) != CUZK_OK) return st;
    GPU_TRY(gpu_mem_get_info(&free_b, &total_b));
    gpu_plan_partition(total_b, tune.memory_limit, held, d->log_m,
                       !src->shape && gp->params->h_form == H_FORM_BELLPERSON, part);
    if (tune.profile)
        fprintf(stderr,
                "gpu plan: partition 2^%u on device %d: H step %.2f GiB beside %.2f GiB held of %.2f GiB: %s; witness "
                "%s; H MSM %s; NTTs %s\n",
                d->log_m, pv->ctx->device, (double)part->need / (1 << 30), (double)held / (1 << 30),
                (double)total_b / (1 << 30), part->fits ? "fits" : "does not fit",
                part->witness_early ? "before the turn" : "in the turn",
                part->overlap && pv->overlap ? "overlapped" : "not overlapped",
                part->ntt_three ? "in three vectors, a, b, c from the host" : "in place in the device a, b, c");
    if (!part->fits)
        return cuzk_error_set(err, CUZK_ERR_NOMEM,
                              "gpu prove: the H step of a 2^%u partition needs %zu bytes on device %d, but under the "
                              "memory cap of %zu bytes its bases and shape leave %zu (gpus.memory_limit)",
                              d->log_m, part->need, pv->ctx->device, total_b, total_b > held ? total_b - held : 0);
done:
    return st;
}

/* Whether another prover holds pv's device's turn now (so that work done before taking it costs no device time). */
static int turn_busy(gpu_prover *pv)
{
    int d = pv->ctx->device;
    if (!pv->turns || d < 0 || d >= GATE_DEVICES) return 0;
    pthread_once(&gate_once, gate_init);
    if (pthread_mutex_trylock(&turn[d]) != 0) return 1;
    pthread_mutex_unlock(&turn[d]);
    return 0;
}

/* The H step, H scalars on the device, then the H MSM started (hm; finished by h_msm_end) or, for the smallest
 * domains, done here (*done = 1, result in *out). cr: the classification, joined here when the witness is packed. */
static cuzk_status compute_h(gpu_prover *pv, const gpu_params *gp, pool_t *pool, const groth16_params *p,
                             const domain_t *d, size_t n, const abc_src *src, cls_run *cr, g1_jac_t *out, h_msm *hm,
                             gpu_prove_timings *gt, cuzk_error *err)
{
    cuzk_status st;
    bases_ref bases = bases_of(gp->h, p->h);
    bases.phi_at = gp->h_phi_at;
    fr_t *w = NULL;
    packed_witness pw;
    memset(&pw, 0, sizeof pw);
    gpu_plan_part part;
    gpu_tune tune = gpu_tune_get();
    if ((st = plan_partition(pv, gp, src, d, &part, err)) != CUZK_OK) return st;
    /* From a shape the witness goes up before the turn (beside another prover's compute): packed (gpu_tune.
     * witness_pack: always, or where the plan leaves no room for it as it is while another prover holds the turn,
     * so that waiting for the classification costs no device time) when its L query is split and that fits beside
     * the H step, else as it is when the plan leaves room; else shape_abc uploads it in the turn. */
    if (src->shape && d->log_m >= 3 &&
        (tune.witness_pack == 1 || (tune.witness_pack == 2 && !part.witness_early && turn_busy(pv)))) {
        cls_join(cr);
        const query *ql = &cr->cl->q[GPU_Q_L];
        if (cr->cl->st == CUZK_OK && ql->split && ql->nbases == src->num_aux &&
            packed_bytes(src->num_inputs, src->num_aux, ql->tail_n) <= part.room - part.need) {
            GATED(pv->ctx->device, st, witness_pack_upload(pv, pool, src, ql, &pw, gt, err));
            /* Out of memory beside the other provers: the witness goes up as it is instead. */
            if (st == CUZK_ERR_NOMEM) st = CUZK_OK;
            if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: packed witness upload: ");
            gt->witness_packed = pw.dev != NULL;
        }
    }
    if (src->shape && d->log_m >= 3 && part.witness_early && pw.dev == NULL) {
        GATED(pv->ctx->device, st, witness_upload(pv, pool, src, &w, gt, err));
        if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: witness upload: ");
    }
    turn_enter(pv);
    if (d->log_m < 3) {
        fr_t tmp[3][8];
        memset(tmp, 0, sizeof tmp);
        if (src->shape) {
            gpu_abc_timings at;
            st = gpu_shape_eval(pv->ctx, src->shape, src->inputs, src->num_inputs, src->aux, src->num_aux, tmp[0],
                                tmp[1], tmp[2], &at, err);
            if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: a, b, c evaluation: ");
            gt->abc_upload_ms = at.upload_ms;
            gt->abc_eval_ms = at.eval_ms;
        } else {
            memcpy(tmp[0], src->a, n * sizeof(fr_t));
            memcpy(tmp[1], src->b, n * sizeof(fr_t));
            if (src->c) memcpy(tmp[2], src->c, n * sizeof(fr_t));
        }
        abc_released(pv);
        double t0 = now_ms();
        st = poly_compute_h(pool, d, p->h_form, tmp[0], tmp[1], tmp[2], n, err);
        gt->ntt_ms = now_ms() - t0;
        if (st != CUZK_OK) return cuzk_error_prefix(err, "gpu prove: ");
        st = msm_pieces(pv->ctx, out, bases, tmp[0], p->h_len, err);
        gt->msm_h_ms = gpu_ctx_last_ms(pv->ctx);
        return st;
    }
    poly_roots roots = p->h_form == H_FORM_BELLPERSON ? POLY_ROOTS_CUZK : POLY_ROOTS_SNARKJS;
    if (pv->plan == NULL || pv->plan_log != d->log_m || pv->plan_roots != roots) {
        gpu_ntt_plan_destroy(pv->plan);
        pv->plan = NULL;
        st = gpu_ntt_plan_create(pv->ctx, d->log_m, roots, &pv->plan, err);
        if (st != CUZK_OK) {
            if (w) gpu_free_async(w, pv->ctx->stream);
            if (pw.dev) gpu_free_async(pw.dev, pv->ctx->stream);
            return cuzk_error_prefix(err, "gpu prove: NTT plan for 2^%u: ", d->log_m);
        }
        pv->plan_log = d->log_m;
        pv->plan_roots = roots;
    }
    fr_t *h_dev = NULL;
    int staged = 0;
    double t_stage = now_ms();
    int span = gpu_trace_begin(pv->ctx->stream, "h-step", n);
    GATED(pv->ctx->device, st,
          h_scalars(pv, pool, p->h_form, src, n, part.ntt_in_place, part.ntt_three, &w, &pw, &h_dev, &staged, gt, err));
    gpu_trace_end(span, pv->ctx->stream);
    if (w) gpu_free_async(w, pv->ctx->stream);
    if (pw.dev) gpu_free_async(pw.dev, pv->ctx->stream);
    /* gpu_ntt_h_device returns after its stream (which waited for the copies of a, b, c) is done. */
    abc_released(pv);
    if (st != CUZK_OK) return st;
    turn_to_msms(pv);
    double total = 0, compute = 0;
    gpu_ntt_last_ms(pv->plan, &total, &compute);
    /* The staged copies end before the plan's first event: their wall time plus the plan's own copies. (From a
     * shape, a, b, c were already on the device: the upload is the witness's, timed by witness_upload.) */
    if (!src->shape) gt->abc_upload_ms = (staged ? now_ms() - t_stage - total : 0) + total - compute;
    gt->ntt_ms = compute;
    hm->ctx = pv->ctx;
    hm->bases = bases;
    hm->scalars = h_dev;
    hm->n = p->h_len;
    if (pv->overlap && part.overlap && pv->ctx_h == NULL) {
        /* Without a second stream the H MSM simply runs before the other queries. */
        if (gpu_ctx_create_prio(&pv->ctx_h, pv->ctx->device, pv->ctx->urgent ? GPU_PRIO_URGENT : GPU_PRIO_LOW, err) !=
            CUZK_OK)
            pv->overlap = 0;
    }
    if (pv->overlap && part.overlap) {
        hm->ctx = pv->ctx_h;
        pthread_mutex_init(&hm->mu, NULL);
        pthread_cond_init(&hm->cv, NULL);
        hm->running = 1;
        if (pthread_create(&hm->thread, NULL, h_msm_main, hm) == 0) return CUZK_OK;
        hm->running = 0;
        pthread_cond_destroy(&hm->cv);
        pthread_mutex_destroy(&hm->mu);
    }
    h_msm_main(hm);
    return h_msm_end(pv, hm, out, gt, err);
}

/* CUZK_GPU_PROFILE: one line per partition with the wall time of each step (copies and gathers of streamed bases
 * included) and which bases were streamed, to set against the floor of the bytes streamed over the bus. */
static void profile_partition(const gpu_prover *pv, const gpu_params *gp, const gpu_prove_timings *gt)
{
    static const char *const name[GPU_Q_COUNT] = {"L", "A", "B_G1"};
    const gpu_buf *const qbuf[GPU_Q_COUNT] = {gp->l, gp->a, gp->b_g1};
    char q[3][128];
    for (int k = 0; k < GPU_Q_COUNT; k++)
        snprintf(q[k], sizeof q[k], "%s %.1f ms (%s; batch %.1f device, tail %zu of %zu in %.1f)", name[k],
                 gt->query_wall_ms[k], qbuf[k] ? "resident" : "streamed", gt->batch_add_ms[k], gt->tail[k],
                 gt->bases[k], gt->tail_ms[k]);
    fprintf(stderr,
            "gpu partition on device %d: %.1f ms: upload %.1f, abc %.1f, ntt %.1f, h msm %.1f (%s, device time), "
            "classify wait %.1f, b_g2 %.1f ms (%s), %s, %s, %s\n",
            pv->ctx->device, gt->total_ms, gt->abc_upload_ms, gt->abc_eval_ms, gt->ntt_ms, gt->msm_h_ms,
            gp->h_phi_at ? "resident, GLV"
            : gp->h      ? "resident"
                         : "streamed",
            gt->classify_wait_ms, gt->b_g2_wall_ms,
            gp->b_g2          ? "resident"
            : gp->b_g2_stream ? "streamed"
                              : "on the CPU",
            q[0], q[1], q[2]);
}

/* The partition, for both entries (a, b, c given or from a shape). */
static cuzk_status prove_start(gpu_prover *pv, const gpu_params *gp, pool_t *pool, const groth16_params *params,
                               size_t num_constraints, const abc_src *src, const r1cs_density *density,
                               groth16_pending *pending, groth16_timings *timings, gpu_prove_timings *gt_out,
                               cuzk_error *err)
{
    const fr_t *inputs = src->inputs, *aux = src->aux;
    size_t num_inputs = src->num_inputs, num_aux = src->num_aux;
    domain_t d;
    cuzk_status st = check_args(pv, gp, params, num_constraints, src, density, pending, &d, err);
    if (st != CUZK_OK) return st;
    double t_begin = now_ms();
    gpu_prove_timings gt;
    memset(&gt, 0, sizeof gt);

    /* The classification runs on a helper thread (fanning out over pool) while this one drives the device. */
    gpu_classify *cl = (gpu_classify *)calloc(1, sizeof *cl);
    if (cl == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu prove: out of host memory");
    cl->inputs = inputs;
    cl->aux = aux;
    cl->num_inputs = num_inputs;
    cl->num_aux = num_aux;
    cl->dn = density;
    cl->mode = pv->split;
    cl->pool = pool;
    cls_run cr = {cl, pthread_t(), 0, 0};
    cr.threaded = pthread_create(&cr.th, NULL, classify_main, cl) == 0;
    if (!cr.threaded) gpu_classify_run(cl);

    g1_jac_t h, res[GPU_Q_COUNT];
    h_msm hm;
    memset(&hm, 0, sizeof hm);
    st = compute_h(pv, gp, pool, params, &d, num_constraints, src, &cr, &h, &hm, &gt, err);
    double t_wait = now_ms();
    cls_join(&cr);
    gt.classify_wait_ms = now_ms() - t_wait;
    gt.classify_ms = cl->ms;
    if (st == CUZK_OK && cl->st != CUZK_OK) {
        *err = cl->err;
        st = cl->st;
    }
    const bases_ref qbases[GPU_Q_COUNT] = {bases_of(gp->l, params->l), bases_of(gp->a, params->a),
                                           bases_of(gp->b_g1, params->b_g1)};
    static const char *const QNAME[GPU_Q_COUNT] = {"L", "A", "B_G1"};
    /* B_G2 has B_G1's scalars and selection. */
    int b2_done = st == CUZK_OK && (gp->b_g2 != NULL || gp->b_g2_stream);
    if (gpu_tune_get().h_first) h_msm_wait_copying(&hm);
    g2_jac_t b2;
    double t_b2 = now_ms();
    if (b2_done && gp->b_g2 == NULL) {
        GATED(pv->ctx->device, st, run_b_g2_streamed(pv, pool, &cl->q[GPU_Q_B], params->b_g2, &b2, &gt.b_g2_ms, err));
        if (st != CUZK_OK) cuzk_error_prefix(err, "gpu prove: B_G2 (streamed): ");
    } else if (b2_done) {
        GATED(pv->ctx->device, st,
              run_b_g2(pv->ctx, &cl->q[GPU_Q_B], (const g2_affine_t *)gpu_buf_ptr(gp->b_g2), params->b_g2_len, &b2,
                       &gt.b_g2_ms, err));
        if (st != CUZK_OK) cuzk_error_prefix(err, "gpu prove: B_G2: ");
    }
    gt.b_g2_wall_ms = now_ms() - t_b2;
    /* Every query's pass over its bases before any tail: streamed, those passes are bus-bound and the tails are
     * compute. With each tail right after its query's pass, the last query's copies (B_G1's, 3.2 GB at 32 GiB
     * PoRep under a 24 GiB cap) ran after the H MSM had ended, the SMs idle; now the tails run beside the H MSM's
     * last pieces and the H MSM ends the partition. */
    for (int pass = 0; pass < 2; pass++)
        for (int q = 0; q < GPU_Q_COUNT && st == CUZK_OK; q++) {
            const query *cq = &cl->q[q];
            double t_q = now_ms();
            if (pass == 0)
                GATED(pv->ctx->device, st,
                      query_bases(pv, cq, qbases[q], q == GPU_Q_L ? aux : cq->full, &res[q], &gt.batch_add_ms[q],
                                  &gt.tail_ms[q], err));
            else if (cq->split)
                GATED(pv->ctx->device, st, query_tail(pv, pool, cq, qbases[q], &res[q], &gt.tail_ms[q], err));
            if (st != CUZK_OK) cuzk_error_prefix(err, "gpu prove: %s: ", QNAME[q]);
            gt.query_wall_ms[q] += now_ms() - t_q;
            gt.bases[q] = cq->nbases;
            gt.ones[q] = cq->ones_n;
            gt.tail[q] = cq->tail_n;
            gt.split[q] = cq->split;
        }
    if (hm.scalars) {
        cuzk_error herr;
        cuzk_status hst = h_msm_end(pv, &hm, &h, &gt, &herr);
        if (st == CUZK_OK && hst != CUZK_OK) {
            st = hst;
            *err = herr;
        }
    }
    turn_leave(pv);
    gpu_classify_free(cl);
    free(cl);
    if (st != CUZK_OK) return st;

    memset(pending, 0, sizeof *pending);
    pending->b_g2_done = b2_done;
    if (b2_done) pending->b_g2 = b2;
    pending->params = params;
    pending->inputs = inputs;
    pending->aux = aux;
    pending->num_inputs = num_inputs;
    pending->num_aux = num_aux;
    pending->density = density;
    pending->h = h;
    pending->l = res[GPU_Q_L];
    pending->a = res[GPU_Q_A];
    pending->b_g1 = res[GPU_Q_B];
    gt.total_ms = now_ms() - t_begin;
    if (timings) {
        timings->h_ms = gt.abc_upload_ms + gt.abc_eval_ms + gt.ntt_ms;
        timings->msm_h_ms = gt.msm_h_ms;
        timings->msm_l_ms = gt.batch_add_ms[GPU_Q_L] + gt.tail_ms[GPU_Q_L];
        timings->msm_a_ms = gt.batch_add_ms[GPU_Q_A] + gt.tail_ms[GPU_Q_A];
        timings->msm_b_g1_ms = gt.batch_add_ms[GPU_Q_B] + gt.tail_ms[GPU_Q_B];
    }
    if (gpu_tune_get().profile) profile_partition(pv, gp, &gt);
    {
        static unsigned partitions;
        char label[48];
        snprintf(label, sizeof label, "partition %u", __atomic_add_fetch(&partitions, 1, __ATOMIC_RELAXED));
        gpu_trace_flush(pv->ctx->device, label);
    }
    if (gt_out) *gt_out = gt;
    return CUZK_OK;
}

extern "C" cuzk_status gpu_prove_start_abc(gpu_prover *pv, const gpu_params *gp, pool_t *pool,
                                           const groth16_params *params, size_t num_constraints, const fr_t *a,
                                           const fr_t *b, const fr_t *c, const fr_t *inputs, size_t num_inputs,
                                           const fr_t *aux, size_t num_aux, const r1cs_density *density,
                                           groth16_pending *pending, groth16_timings *timings,
                                           gpu_prove_timings *gt_out, cuzk_error *err)
{
    if (pv) {
        pv->abc_done = pv->next_abc_done;
        pv->abc_done_ctx = pv->next_abc_done_ctx;
        pv->next_abc_done = NULL;
    }
    abc_src src = {a, b, c, NULL, inputs, aux, num_inputs, num_aux};
    return prove_start(pv, gp, pool, params, num_constraints, &src, density, pending, timings, gt_out, err);
}

extern "C" cuzk_status gpu_prove_start_shape(gpu_prover *pv, const gpu_params *gp, const gpu_shape *shape, pool_t *pool,
                                             const groth16_params *params, const fr_t *inputs, size_t num_inputs,
                                             const fr_t *aux, size_t num_aux, const r1cs_density *density,
                                             groth16_pending *pending, groth16_timings *timings, gpu_prove_timings *gt,
                                             cuzk_error *err)
{
    if (shape == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu prove: NULL shape");
    /* Nothing to release early here: the hook set for the next gpu_prove_start_abc stays for that call. */
    if (pv) pv->abc_done = NULL;
    abc_src src = {NULL, NULL, NULL, shape, inputs, aux, num_inputs, num_aux};
    return prove_start(pv, gp, pool, params, gpu_shape_num_constraints(shape), &src, density, pending, timings, gt,
                       err);
}

extern "C" cuzk_status gpu_prove_start_once(int device, pool_t *pool, const groth16_params *params,
                                            size_t num_constraints, const fr_t *a, const fr_t *b, const fr_t *c,
                                            const fr_t *inputs, size_t num_inputs, const fr_t *aux, size_t num_aux,
                                            const r1cs_density *density, groth16_pending *pending, cuzk_error *err)
{
    gpu_params *gp = NULL;
    gpu_prover *pv = NULL;
    cuzk_status st = gpu_params_upload(device, params, &gp, err);
    if (st == CUZK_OK) st = gpu_prover_create(device, &pv, err);
    if (st == CUZK_OK)
        st = gpu_prove_start_abc(pv, gp, pool, params, num_constraints, a, b, c, inputs, num_inputs, aux, num_aux,
                                 density, pending, NULL, NULL, err);
    gpu_prover_destroy(pv);
    gpu_params_free(gp);
    return st;
}
