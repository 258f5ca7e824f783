/* The proving engine: requests of N partitions, proved independently through a pipeline and reassembled in
 * order.
 *
 *   submit ──► scheduler (priority, then age; lowest partition first)
 *          ──► synthesis workers (partition_workers threads): witness, then a, b, c = A·w, B·w, C·w;
 *              a worker starts a partition only when its working set (witness + a/b/c) fits the memory
 *              budget and fewer partitions than the hand-off's capacity are synthesizing or waiting in it, and
 *              holds its permit (the worker itself) until the hand-off succeeds; one more worker, with a slot
 *              of its own in the hand-off, serves CRITICAL jobs only (see "Priorities" for the bound)
 *          ──► bounded hand-off channel, capacity max(synthesis_lookahead, partition_workers)
 *          ──► prover workers (gpu_workers per device): backend prove_start; a, b, c back to the engine's
 *              cache as soon as the backend lets go of them (engine_partition.abc_release) or prove_start
 *              returns (engine_config.abc_cache)
 *
 * So at most capacity + 1 + prover workers partitions hold a, b, c at once (partition_workers + 3 by default).
 * A backend that evaluates a, b, c itself (engine_backend.evaluates_abc: the GPU backend, from the circuit's
 * matrices on the device) gets the witness alone: synthesis stops after the witness, and when the backend offers
 * page-locked memory (host_alloc) the witness is copied into a buffer set of the cache (the synthesized arrays
 * are freed at once), which it keeps until prove_finish so that the device reads it by direct DMA.
 *          ──► finish workers: backend prove_finish (B_G2, blinding, assembly), self-verification
 *          ──► the job's proofs, in partition order
 *
 * The engine never knows which hardware runs a partition: a backend is the small table of functions below
 * (the seam of DESIGN.md). engine_backend_cpu is the reference backend.
 *
 * Memory: every large buffer the engine holds is reserved in one engine_mem (mem.h) before it exists; the
 * peak of the accounting never exceeds the budget. A partition that can never fit fails its job with
 * CUZK_ERR_NOMEM instead of waiting forever.
 *
 * Failures are per job: a synthesis error, a backend error or an allocation failure in one partition fails
 * that job (its other partitions are dropped and their memory released) and the engine keeps serving.
 *
 * Observability: one event per step, as a struct (engine_config.event_cb) and/or a TIMELINE line
 * (engine_config.timeline), and Prometheus text metrics (engine_metrics_write).
 *
 * Threads: every function may be called from any thread, except that engine_destroy must not race with
 * the others, and timeline/fault callbacks must not call back into the engine. */
#ifndef CUZK_ENGINE_ENGINE_H
#define CUZK_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "engine/mem.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

/* ---- circuits ---- */

/* Synthesis of one partition: fill *witness with a finalized system holding the values (witness-only mode
 * is the intended one: no matrices) for partition `partition` of a request whose payload is `payload`.
 * Called on a synthesis worker, concurrently for different partitions; must be thread-safe. On failure
 * *witness must be left empty (r1cs_free-safe) and err filled. */
typedef cuzk_status (*engine_synth_fn)(void *synth_ctx, const void *payload, unsigned partition, r1cs *witness,
                                       cuzk_error *err);

/* A circuit the engine can prove: parameters, the compiled shape (a/b/c are evaluated against it), the
 * synthesis function and what engine_circuit_init derives from them. Must outlive every job using it. */
typedef struct engine_circuit {
    char name[64];
    const groth16_params *params; /* borrowed */
    const r1cs *shape;            /* borrowed: finalized, with matrices */
    engine_synth_fn synthesize;
    void *synth_ctx;
    /* derived */
    r1cs_density density;
    groth16_pvk pvk;
    size_t m;               /* FFT domain size */
    uint64_t witness_bytes; /* accounted per partition from synthesis to prove_finish (or to its copy in a set) */
    uint64_t abc_bytes;     /* accounted per partition from synthesis to the end of prove_start */
} engine_circuit;

cuzk_status engine_circuit_init(engine_circuit *c, const char *name, const groth16_params *params, const r1cs *shape,
                                engine_synth_fn synthesize, void *synth_ctx, cuzk_error *err);
void engine_circuit_free(engine_circuit *c);
/* Whether params are a circuit's of shape (a finalized system with matrices): section lengths against its domain and
 * densities (groth16_check_shapes) and the verifying key's input count. CUZK_ERR_INVALID_ARG naming what differs. */
cuzk_status engine_params_fit(const groth16_params *params, const r1cs *shape, cuzk_error *err);

/* ---- the backend seam ---- */

/* What prove_start receives. inputs/aux stay valid until prove_finish (or discard) returns; a, b, c (m
 * elements each; NULL when the backend evaluates_abc) are scratch the backend may overwrite, taken back by
 * the engine as soon as prove_start returns. Only the first num_constraints elements are meaningful: the rest is unspecified (the engine reuses
 * buffers, so it holds an earlier partition's values), and a backend must not read it (the CPU and GPU H
 * computations zero-extend from num_constraints themselves). */
typedef struct engine_partition {
    uint64_t job_id;
    unsigned index;
    const engine_circuit *circuit;
    const fr_t *inputs, *aux;
    size_t num_inputs, num_aux, num_constraints;
    fr_t *a, *b, *c;
    /* A backend may call abc_release(abc_release_ctx) once during prove_start, from the thread that runs it, as
     * soon as it will not read a, b, c again (the GPU: once they are on the device): the engine then gives their
     * memory to the next synthesis while prove_start goes on. */
    void (*abc_release)(void *ctx);
    void *abc_release_ctx;
    /* The job's engine_priority. The GPU backend proves a CRITICAL partition on a prover of its own per device
     * whose streams have the device's greatest priority and which does not wait for the device's turn, so it
     * runs beside the partition computing there instead of after it. */
    int priority;
} engine_partition;

/* One device's memory as a backend sees it: its name, the bytes of parameter sets (and circuits' matrices) the
 * backend keeps there, and the device's own free and total figures (every process and context included). */
typedef struct engine_device_memory {
    int device;
    char name[256];
    uint64_t resident_bytes; /* bases of parameter sets (and circuits' matrices) uploaded to this device */
    unsigned resident_sets;
    uint64_t free_bytes, total_bytes;
} engine_device_memory;

typedef struct engine_backend engine_backend;
struct engine_backend {
    const char *name;
    void *ctx;
    /* Non-zero: prove_start evaluates a, b, c itself from p->circuit->shape and the witness, so the engine
     * neither evaluates nor holds them (p->a, p->b, p->c are NULL) and accounts only the witness. Read once
     * by engine_create. */
    int evaluates_abc;
    /* Everything that needs the accelerator (H and the G1 MSMs); returns once a, b, c are no longer needed.
     * device: an entry of engine_config.devices; worker: the prover worker's global index. On success
     * *handle carries what prove_finish needs. */
    cuzk_status (*prove_start)(engine_backend *be, int device, unsigned worker, const engine_partition *p,
                               void **handle, cuzk_error *err);
    /* The CPU remainder (B_G2, blinding with fresh r, s, assembly). Consumes handle, success or not. */
    cuzk_status (*prove_finish)(engine_backend *be, void *handle, groth16_proof *proof, cuzk_error *err);
    /* Drops a handle without finishing it (cancelled or failed job). */
    void (*discard)(engine_backend *be, void *handle);
    void (*destroy)(engine_backend *be);
    /* Optional (both or neither): host memory for a, b, c that prove_start reads faster than malloc'd memory
     * (the GPU backend: page-locked, so the device copies it by direct DMA). host_alloc fills *out with bytes
     * (uninitialized) or fails (CUZK_ERR_NOMEM when the memory cannot be had; the engine then uses malloc);
     * host_free(be, p, bytes) gives back what host_alloc gave. Called from any engine thread. NULL: malloc. */
    cuzk_status (*host_alloc)(engine_backend *be, size_t bytes, void **out, cuzk_error *err);
    void (*host_free)(engine_backend *be, void *p, size_t bytes);

    /* Optional: a parameter set's life, told by the residency (residency.h) itself, never by its owner. Run under
     * the residency's lock. params_pin / params_unpin (both or neither): page-lock the set's arrays, all or
     * nothing, so that uploads to a device run as direct DMA; a failure leaves the set pageable. params_evict:
     * the set is about to be freed (no partition uses it): drop every copy of it (e.g. its bases on the
     * devices), since a later set may be loaded at the same address. pin_probe (may be NULL: pinning works):
     * whether params_pin can work here at all (a driver or a container may refuse it), for the owner to decide
     * on a pinned tier once. */
    cuzk_status (*params_pin)(engine_backend *be, const groth16_params *p, cuzk_error *err);
    void (*params_unpin)(engine_backend *be, const groth16_params *p);
    void (*params_evict)(engine_backend *be, const groth16_params *p);
    cuzk_status (*pin_probe)(engine_backend *be, cuzk_error *err);
    /* Optional: a preloaded set (engine_residency_preload) goes to a device before its first partition needs it
     * (the GPU backend: its bases, as that partition would upload them), so that the first proof after a
     * PreloadSRS does not wait for the upload. Called by the residency without its lock, on a set it holds a
     * reference to (it cannot be evicted meanwhile), once per device of the residency's options. A failure (e.g.
     * the device's memory is taken) leaves the upload to the first partition. */
    cuzk_status (*params_upload)(engine_backend *be, const groth16_params *p, int device, cuzk_error *err);
    /* Optional (NULL: a backend without devices): one device's figures (GetStatus, metrics). Never waits for an
     * upload in progress. CUZK_ERR_INVALID_ARG for a device that does not exist. */
    cuzk_status (*device_memory)(engine_backend *be, int device, engine_device_memory *out, cuzk_error *err);
};

/* The reference backend: groth16_prove_start_abc on start_pool, groth16_prove_finish on finish_pool (either
 * may be NULL: the calling worker's thread). Pools are borrowed. */
cuzk_status engine_backend_cpu_create(pool_t *start_pool, pool_t *finish_pool, engine_backend **out, cuzk_error *err);
/* Calls be->destroy; NULL is allowed. */
void engine_backend_destroy(engine_backend *be);

/* ---- events ---- */

/* What the engine reports of each step, in the order it happened (one lock keeps them in order). */
typedef enum engine_event_type {
    ENGINE_EV_QUEUE = 0,   /* submitted: parts, priority */
    ENGINE_EV_SYNTH_START, /* bytes: accounted host bytes after its reservation (the largest is the peak) */
    ENGINE_EV_SYNTH_END,   /* ms: synthesis */
    ENGINE_EV_HANDOFF,     /* ms: time blocked on a full hand-off channel */
    ENGINE_EV_GPU_PICKUP,  /* device */
    ENGINE_EV_GPU_START,   /* device */
    ENGINE_EV_GPU_END,     /* device; ms: prove_start */
    ENGINE_EV_FINISH_START,
    ENGINE_EV_FINISH_END,   /* ms: prove_finish and verification */
    ENGINE_EV_JOB_END,      /* status: CUZK_OK, CUZK_ERR_CANCELLED or the job's failure; verified; ms: total */
    ENGINE_EV_FAIL,         /* a partition's failure: status */
    ENGINE_EV_ABC_RELEASE,  /* the backend let go of a, b, c before the end of prove_start */
    ENGINE_EV_ABC_FALLBACK, /* the backend's host_alloc failed (status); malloc from now on; bytes: the set */
    ENGINE_EV_COUNT
} engine_event_type;

typedef struct engine_event {
    engine_event_type type;
    double t_ms; /* engine_now_ms when it happened */
    uint64_t job_id;
    int partition;      /* -1: the job as a whole (QUEUE, JOB_END) */
    int worker;         /* the stage's worker: synthesis, prover (global index) or finish worker id; -1: none */
    int device;         /* GPU_PICKUP, GPU_START, GPU_END: the device id; else -1 */
    unsigned parts;     /* QUEUE */
    int priority;       /* QUEUE: an engine_priority */
    uint64_t bytes;     /* SYNTH_START, ABC_FALLBACK */
    double ms;          /* SYNTH_END, HANDOFF, GPU_END, FINISH_END, JOB_END */
    cuzk_status status; /* JOB_END, FAIL, ABC_FALLBACK; else CUZK_OK */
    int verified;       /* JOB_END: every proof self-verified */
} engine_event;

/* One event; ev is valid only during the call. Called from engine threads, one at a time. */
typedef void (*engine_event_fn)(void *ctx, const engine_event *ev);

/* "QUEUE", "SYNTH_START", ...; "?" outside the enum. */
const char *engine_event_name(engine_event_type type);

/* The event's TIMELINE line (engine_config.timeline), newline included, into buf (truncated to size, always
 * terminated when size > 0); returns the line's length. ENGINE_EVENT_LINE_MAX holds any line. */
#define ENGINE_EVENT_LINE_MAX 256
size_t engine_event_format(const engine_event *ev, char *buf, size_t size);

/* Reads a TIMELINE line back (a saved log): the fields engine_event_format writes, in its order; the fields of
 * other events stay at their defaults (-1 device, 0 or CUZK_OK). A JOB_END's text has only the outcome: a
 * failed job reads back with status CUZK_ERR_INTERNAL. CUZK_ERR_FORMAT naming what is wrong and where (err may
 * be NULL) for anything else, including lines that are not TIMELINE lines. */
cuzk_status engine_event_parse(const char *line, engine_event *out, cuzk_error *err);

/* ---- configuration ---- */

/* One TIMELINE line (with its newline) per event; see engine_config.timeline. */
typedef void (*engine_timeline_fn)(void *ctx, const char *line);

/* Test hook: return non-zero to make the operation fail as if out of memory. */
typedef enum engine_fault_point { ENGINE_FAULT_ALLOC_ABC = 1 } engine_fault_point;
typedef int (*engine_fault_fn)(void *ctx, engine_fault_point point, uint64_t job_id, unsigned partition);

/* engine_config.abc_pinned when 0. */
#define ENGINE_ABC_PINNED_DEFAULT 1

typedef struct engine_config {
    engine_backend *backend; /* borrowed; required */
    const int *devices;      /* device ids; NULL: one device, id 0 */
    size_t num_devices;
    unsigned gpu_workers;         /* prover workers per device; 0: 2 */
    unsigned partition_workers;   /* synthesis workers (and permits); 0: 2 */
    unsigned synthesis_lookahead; /* 0: 1; the hand-off holds max(this, partition_workers) partitions */
    unsigned finish_workers;      /* 0: 1 */
    uint64_t host_budget;         /* bytes of host + pinned memory; 0: unlimited */
    pool_t *synth_pool;           /* for the a/b/c evaluation; NULL: the synthesis worker's thread */
    int no_verify;                /* skip self-verification (benchmarks only) */
    /* a, b, c of a partition (or, for a backend that evaluates them itself, a page-locked copy of its witness)
     * live in a buffer set that the engine keeps for the next partition of the same size instead of freeing
     * it (it stays accounted while idle; idle sets are freed first when a reservation does not fit, and at
     * engine_destroy).
     * abc_pinned: 1: sets from the backend's host_alloc when it has one (ENGINE_MEM_PINNED), else malloc
     * (ENGINE_MEM_HOST); -1: always malloc; 0: the default, ENGINE_ABC_PINNED_DEFAULT. If host_alloc fails the
     * engine uses malloc from then on (one ABC_FALLBACK timeline event).
     * abc_cache: idle sets kept; 0: hand-off capacity + 1 + prover workers (every set that can be in use at
     * once), of page-locked sets only: malloc'd ones are freed as soon as they are given back, as before (on
     * the H200 the GPU backend's staged prove_start from reused malloc'd sets took ~750 ms per 2^24 partition
     * against ~530 from fresh ones, cause not found); N > 0: N sets of either kind; < 0: none (each set is
     * freed when its partition leaves prove_start). */
    int abc_pinned;
    int abc_cache;
    /* Timeline: each event as one line
     *   TIMELINE t_ms=<since engine start> ev=<EVENT> job=<id> part=<index or -1> worker=<id or -1> [k=v ...]
     * EVENT: QUEUE (parts= prio=), SYNTH_START (mem=: accounted host bytes after its reservation), SYNTH_END
     * (synth_ms=), HANDOFF (wait_ms=: time blocked on a full channel), GPU_PICKUP (gpu=), GPU_START (gpu=),
     * GPU_END (gpu= gpu_ms=), FINISH_START, FINISH_END (finish_ms=, verification included), JOB_END
     * (status=ok|failed|cancelled verified=0|1 total_ms=), FAIL (a partition's failure, status=), ABC_RELEASE
     * (the backend let go of a, b, c before the end of prove_start), ABC_FALLBACK
     * (the backend's host_alloc failed, status=; malloc from now on; at most once).
     * Written to the FILE and/or passed to the callback: engine_event_format of each event. */
    FILE *timeline;
    engine_timeline_fn timeline_cb;
    void *timeline_ctx;
    /* Each event as a struct (before its line, when there are both). */
    engine_event_fn event_cb;
    void *event_ctx;
    engine_fault_fn fault;
    void *fault_ctx;
    /* Bytes of host_budget that only CRITICAL partitions may take (see "Priorities" below); 0: none; must be
     * less than host_budget; ignored without a budget. At least one CRITICAL partition's working set:
     * witness_bytes + abc_bytes of its circuit (witness_bytes twice when the backend evaluates a, b, c). */
    uint64_t critical_reserve;
} engine_config;

typedef struct engine engine;

cuzk_status engine_create(engine **out, const engine_config *cfg, cuzk_error *err);
/* Cancels every job, waits for the workers to stop and frees everything (including unclaimed results). */
void engine_destroy(engine *e);

/* ---- jobs ---- */

typedef enum engine_priority {
    ENGINE_PRIO_LOW = 1,
    ENGINE_PRIO_NORMAL = 2,
    ENGINE_PRIO_HIGH = 3,
    ENGINE_PRIO_CRITICAL = 4
} engine_priority;

/* Priorities. Every stage takes the highest priority first, then the oldest job, then the lowest partition:
 * synthesis starts, the hand-off channel, prove_finish. CRITICAL (WinningPoSt) has three more things:
 *   - a synthesis worker of its own (worker id partition_workers in the timeline) with a hand-off slot of its
 *     own, so it never waits for a synthesis slot or for room in the channel;
 *   - engine_config.critical_reserve: memory the other priorities leave free, so its working set is admitted
 *     while big partitions hold the rest of the budget (idle buffer sets are freed for it as for anyone);
 *   - a prover worker of its own per device (worker ids gpu_workers * devices + device in the timeline), which
 *     takes nothing else, so its prove_start starts at its hand-off; the GPU backend then proves it on a
 *     prover of its own with high-priority streams that does not wait for the device's turn (backend_gpu.c);
 *   - while a CRITICAL partition synthesizes, a prover worker that comes free takes no other partition as long
 *     as another worker keeps its device busy (a device is never left idle for it).
 * The bound, for one CRITICAL partition at a time (more wait for each other in order) whose working set fits the
 * reserve: its synthesis starts at submit (no partition of any other job starts before it), its prove_start at
 * its hand-off (on the reserved worker, or on an ordinary one that was free first), before every queued
 * partition; its prove_finish then waits at most for the prove_finish calls in progress (finish_workers of
 * them). On the GPU its kernels share the device with the partition computing there, scheduled ahead of it.
 * HIGH (WindowPoSt) gets the priority order in every stage, but no reserved worker, reserve or kept turn: it
 * waits for a synthesis slot, memory and a prover worker like the others, ahead of them. */
typedef struct engine_request {
    const engine_circuit *circuit;
    const void *payload; /* passed to circuit->synthesize; borrowed until engine_wait returns */
    unsigned partitions; /* >= 1 */
    engine_priority priority;
} engine_request;

cuzk_status engine_submit(engine *e, const engine_request *req, uint64_t *job_id, cuzk_error *err);

/* Cancels a queued or running job: its queued partitions never start, those in the hand-off channel or
 * waiting for prove_finish are dropped at once, those in synthesis or prove_start are dropped when that
 * step returns; memory is released as each is dropped. Returns 1 if the job was found and not yet over. */
int engine_cancel(engine *e, uint64_t job_id);

typedef struct engine_result {
    cuzk_status status; /* CUZK_OK, CUZK_ERR_CANCELLED, or the first failure of a partition */
    cuzk_error error;
    unsigned partitions;
    groth16_proof *proofs;              /* partitions entries, in order; NULL unless status is CUZK_OK */
    int verified;                       /* every proof passed self-verification (0 when it was switched off) */
    double queue_ms;                    /* submit to the first synthesis start */
    double total_ms;                    /* submit to the end */
    double synth_ms, gpu_ms, finish_ms; /* sums over partitions */
} engine_result;

/* Blocks until the job is over (and every partition of it has left the pipeline, so its memory is
 * released), fills *out and forgets the job (one waiter per job). Returns out->status, with err filled
 * like out->error; CUZK_ERR_INVALID_ARG for an unknown id. */
cuzk_status engine_wait(engine *e, uint64_t job_id, engine_result *out, cuzk_error *err);
void engine_result_free(engine_result *r);

/* ---- observability ---- */

typedef struct engine_stats {
    uint64_t jobs_submitted, jobs_completed, jobs_failed, jobs_cancelled;
    uint64_t partitions_proved, partitions_failed;
    unsigned jobs_active, synth_active, handoff_len, provers_active, finish_pending;
    engine_mem_stats mem;
    /* a, b, c buffer sets: allocated (pinned of them: from host_alloc), taken from the cache, freed; idle now;
     * microseconds spent allocating them (page-locking many GiB takes a while), over all allocations */
    uint64_t abc_allocated, abc_pinned, abc_reused, abc_freed, abc_alloc_us;
    unsigned abc_idle;
    int abc_fallback; /* host_alloc failed once: malloc since */
} engine_stats;

void engine_get_stats(engine *e, engine_stats *out);
/* Counters, gauges and histograms (synthesis, prover, finish and job milliseconds) in Prometheus text format. */
void engine_metrics_write(engine *e, FILE *f);
/* The engine's memory accounting, for other holders of large buffers that share its budget (residency.h). */
engine_mem *engine_memory(engine *e);
/* Milliseconds since the engine was created (the timeline's clock). */
double engine_now_ms(const engine *e);

/* ---- the GPU backend (engineer gpuprove; implemented in backend_gpu.c) ---- */

/* prove_start on the device (src/gpu/gpu_prove.h): H, and L, A, B_G1 as batch additions of the witness's ones
 * plus tail MSMs; one GPU context per prover worker, created lazily on the worker's thread. The h, l, a, b_g1
 * bases of a circuit's params are uploaded to a device by its first partition there and stay resident until
 * its params_evict hook or destroy. A device out-of-memory in prove_start is retried once, then
 * reported as CUZK_ERR_NOMEM; other CUDA failures as CUZK_ERR_GPU. prove_finish is groth16_prove_finish (B_G2
 * on CPU threads, blinding, assembly) on finish_pool. host_pool runs the witness classification (either pool
 * may be NULL: the calling worker's thread). CUZK_ERR_UNSUPPORTED when cuzk was built without CUDA or no
 * device is visible. */
cuzk_status engine_backend_gpu_create(pool_t *host_pool, pool_t *finish_pool, engine_backend **out, cuzk_error *err);
/* engine_backend.evaluates_abc of a new GPU backend. */
#define ENGINE_GPU_ABC_ON_DEVICE_DEFAULT 1
/* on: prove_start evaluates a, b, c on the device (gpu_prove_start_shape) from the circuit's matrices, uploaded
 * to a device by its first partition there and kept while partitions use them (a device keeps at most one
 * shape nobody uses), so the engine holds only the witness; off: the engine evaluates them on the host and
 * prove_start uploads them. Call before engine_create. CUZK_ERR_INVALID_ARG for another backend. */
cuzk_status engine_backend_gpu_set_abc_on_device(engine_backend *be, int on, cuzk_error *err);
/* Device bytes of resident bases and matrices, over all params, shapes and devices (never waits for an upload);
 * 0 for another backend. */
size_t engine_backend_gpu_resident_bytes(engine_backend *be);

/* The GPU backend's params_* hooks: params_evict frees the device copies of the set's bases on every device, and
 * the circuits' matrices no partition is using (they are uploaded again when needed); params_pin page-locks
 * (gpu_host_register) the set's h, l, a, b_g1 and b_g2 arrays, all or nothing (a CUDA refusal, e.g. memory
 * already registered, leaves nothing registered). device_memory: cudaMemGetInfo's figures (the provers' cached
 * pools included) and the bases it holds there. */

#endif
