/* The Groth16 partition on the GPU: everything groth16_prove_start_abc does (H and the H, L, A, B_G1 MSMs),
 * with the same contract and bit-identical results, so that groth16_prove_finish (B_G2 on CPU threads,
 * blinding, assembly) completes the proof exactly as it does for the CPU prover.
 *
 * The path of one partition (gpu_prove_start_abc):
 *   1. H: a, b, c uploaded, 7 NTTs and the pointwise step on the device (gpu_ntt_h_device, in params->h_form);
 *      the H MSM reads the device-resident H scalars and h bases.
 *   2. Host (pool threads): the witness is classified per query (L: all aux; A: inputs, then aux with the A
 *      density; B_G1: inputs and aux with the B densities, as the CPU prover selects bases). Values 0 are
 *      dropped, values 1 set a bit in a mask over the query's bases, the rest (and every input) go to a tail
 *      of (scalar, base index) pairs. This runs on a helper thread while the device computes H.
 *   3. Per query: the ones are one batch addition of the masked resident bases; the tail is one MSM over the
 *      tail bases gathered on the device. When more than half of a query's bases have a tail scalar the split
 *      does not pay: one plain MSM over all of the query's bases instead.
 *
 *   4. B_G2 has B_G1's scalars and selection: when b_g2 fits on the device it is computed the same way (G2
 *      batch addition + tail MSM, or one MSM) and handed over in pending->b_g2 (b_g2_done), so
 *      groth16_prove_finish only blinds and assembles; otherwise prove_finish runs the B_G2 MSM on the CPU.
 *
 * Bases stay on the device across partitions: a gpu_params holds h, l, a, b_g1 (and b_g2 when it fits) of one
 * groth16_params on one device (uploaded once). It must not outlive the params.
 *
 * Errors: every CUDA failure is a status (CUZK_ERR_GPU with the failing call; CUZK_ERR_NOMEM when device or
 * host memory runs out), never a crash; a failed call leaves nothing allocated and may simply be retried.
 *
 * Threads: a gpu_prover (one context and its NTT plan) is used by one thread at a time; several provers may
 * share a device and one gpu_params concurrently (the params are only read). */
#ifndef CUZK_GPU_GPU_PROVE_H
#define CUZK_GPU_GPU_PROVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cuzk/status.h"
#include "gpu/gpu.h"
#include "gpu/gpu_abc.h"
#include "groth16/groth16.h"
#include "util/pool.h"

/* ---- device-resident proving bases ---- */

typedef struct gpu_params gpu_params;

/* Uploads params' bases to device `device`: the G1 sections h, l, a, b_g1 in that order while they hold at most 3/4
 * of the device's memory (the others stay on the host and are streamed in pieces when proving; CUZK_GPU_BASES=stream
 * keeps all of them there), CUZK_ERR_NOMEM when a section that should fit does not; B_G2's bases when they fit. */
cuzk_status gpu_params_upload(int device, const groth16_params *params, gpu_params **out, cuzk_error *err);
/* Frees the device copies. NULL is allowed. No prover may be using them. */
void gpu_params_free(gpu_params *gp);
/* Device bytes held. */
size_t gpu_params_bytes(const gpu_params *gp);
int gpu_params_device(const gpu_params *gp);

/* ---- the per-worker prover ---- */

typedef struct gpu_prover gpu_prover;

/* A context on `device` plus the NTT plan of the last domain used (rebuilt when the size or form changes). */
cuzk_status gpu_prover_create(int device, gpu_prover **out, cuzk_error *err);
/* A prover for latency-critical partitions (WinningPoSt): its streams have the device's greatest priority and it
 * never takes the device's turn, so its kernels run beside (and are scheduled ahead of) a partition computing
 * there rather than after it. Its working set must still fit beside the other's: an out-of-memory step is
 * retried alone, as for any prover. */
cuzk_status gpu_prover_create_urgent(int device, gpu_prover **out, cuzk_error *err);
void gpu_prover_destroy(gpu_prover *pv);

/* How L, A and B_G1 are computed: AUTO splits a query into batch addition + tail MSM when at most half of its
 * bases have a tail scalar (the default); ALWAYS and NEVER force one path (tests reach both with any witness). */
typedef enum gpu_prove_split { GPU_SPLIT_AUTO = 0, GPU_SPLIT_ALWAYS = 1, GPU_SPLIT_NEVER = 2 } gpu_prove_split;
void gpu_prover_set_split(gpu_prover *pv, gpu_prove_split mode);

/* on (the default; environment CUZK_GPU_OVERLAP=0 turns it off for new provers): the H MSM runs on a stream and
 * thread of its own while B_G2, L, A and B_G1 run on the prover's stream, so that the device fills the gaps of one
 * with the other (a 2^27 partition on the H200: prove_start 2201 -> 1938 ms). Results are the same either way. */
void gpu_prover_set_overlap(gpu_prover *pv, int on);

/* For the next gpu_prove_start_abc on pv only: fn(ctx) is called on the calling thread, at most once, as soon as
 * a, b and c will no longer be read (once they are on the device, before the MSMs), so that the caller may reuse
 * their memory while the call goes on. Not called when the call fails before reaching that point. */
void gpu_prover_on_abc_done(gpu_prover *pv, void (*fn)(void *ctx), void *ctx);

/* Where the time of one gpu_prove_start_abc went (milliseconds; device times from CUDA events, host times from
 * the wall clock). The query fields are indexed GPU_Q_L, GPU_Q_A, GPU_Q_B. */
enum { GPU_Q_L = 0, GPU_Q_A = 1, GPU_Q_B = 2, GPU_Q_COUNT = 3 };
typedef struct gpu_prove_timings {
    double abc_upload_ms;    /* a, b, c host -> device (inside the H call); gpu_prove_start_shape: the witness */
    double abc_eval_ms;      /* gpu_prove_start_shape: device time of the a, b, c evaluation kernels (0 otherwise) */
    double ntt_ms;           /* the 7 NTTs and pointwise steps of H on the device */
    double msm_h_ms;         /* the H MSM (its device time; with overlap it runs beside the queries below) */
    double classify_ms;      /* host classification, overlapped with H (its wall time, on the helper thread) */
    double classify_wait_ms; /* how long the device path waited for the classification after H */
    double batch_add_ms[GPU_Q_COUNT]; /* device time of each query's batch addition (0 if none) */
    double tail_ms[GPU_Q_COUNT];      /* each query's tail (or full) MSM, gather and scalar copy included */
    double b_g2_ms;      /* device time of B_G2 (batch addition + tail MSM, or one MSM; 0: left to the CPU) */
    double b_g2_wall_ms; /* wall time of B_G2 (copies of streamed bases included) */
    double query_wall_ms[GPU_Q_COUNT]; /* wall time of each query (batch addition, tail, copies, gathers) */
    double total_ms;                   /* wall time of the whole call */
    size_t bases[GPU_Q_COUNT], ones[GPU_Q_COUNT], tail[GPU_Q_COUNT];
    int split[GPU_Q_COUNT]; /* 1: batch addition + tail MSM; 0: one MSM over all bases */
    int witness_packed;     /* 1: the witness went up packed before the turn (gpu_tune.witness_pack) */
} gpu_prove_timings;

/* groth16_prove_start_abc on the GPU: same arguments and checks (sizes of params against the witness and the
 * density, CUZK_ERR_INVALID_ARG naming the mismatch), same pending (h, l, a, b_g1 are the same group elements;
 * groth16_prove_finish then gives the same proof bytes for the same r, s). gp must hold params' bases on
 * pv's device. a, b, c are only read (so a failed call can be retried with them). pool (may be NULL) runs the
 * host classification. timings and gt may be NULL; timings gets h_ms (NTT, uploads included), msm_h_ms,
 * msm_l_ms, msm_a_ms and msm_b_g1_ms, like the CPU prover. */
cuzk_status gpu_prove_start_abc(gpu_prover *pv, const gpu_params *gp, pool_t *pool, const groth16_params *params,
                                size_t num_constraints, const fr_t *a, const fr_t *b, const fr_t *c, const fr_t *inputs,
                                size_t num_inputs, const fr_t *aux, size_t num_aux, const r1cs_density *density,
                                groth16_pending *pending, groth16_timings *timings, gpu_prove_timings *gt,
                                cuzk_error *err);

/* gpu_prove_start_abc with a, b, c evaluated on the device from `shape` (the gpu_shape of the circuit's
 * compiled r1cs, on pv's device) and the witness (inputs, aux: host memory, pageable or page-locked), so the
 * host never holds a, b, c. num_constraints is the shape's. Same pending, bit for bit, as
 * gpu_prove_start_abc with a, b, c = r1cs_eval_abc(shape, inputs, aux). The abc_done hook is not called on this
 * path (there is nothing to release). */
cuzk_status gpu_prove_start_shape(gpu_prover *pv, const gpu_params *gp, const gpu_shape *shape, pool_t *pool,
                                  const groth16_params *params, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                                  size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                  groth16_timings *timings, gpu_prove_timings *gt, cuzk_error *err);

/* One partition on `device` from scratch: uploads params' bases, runs gpu_prove_start_abc on a new prover and
 * frees both (for one-off proofs; the engine keeps bases and provers across partitions). */
cuzk_status gpu_prove_start_once(int device, pool_t *pool, const groth16_params *params, size_t num_constraints,
                                 const fr_t *a, const fr_t *b, const fr_t *c, const fr_t *inputs, size_t num_inputs,
                                 const fr_t *aux, size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                 cuzk_error *err);

/* Test hook: the next `count` H steps (a, b, c onto the device and the NTTs, under the device gate) of any prover
 * fail once as if the device had run out of memory after a, b, c were there, so that the step's retry runs.
 * Returns the count still pending before this call. */
unsigned gpu_debug_fail_h_steps(unsigned count);
/* Test hook: the next `count` G1 MSMs of the prover over more than 4096 points fail once as if the device were out of
 * memory, so that they are done in halves. Returns the count still pending before this call. */
unsigned gpu_debug_fail_msm_pieces(unsigned count);
/* Test hook: the same for the next `count` pieces of B_G2 MSMs over resident bases. */
unsigned gpu_debug_fail_g2_pieces(unsigned count);

#ifdef __cplusplus
}
#endif
#endif
