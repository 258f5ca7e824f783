/* NTT over Fr and the Groth16 quotient H on the device (plain C API).
 *
 * Same functions as src/poly/poly.h, same results bit for bit: ntt_forward, ntt_inverse, ntt_coset_forward,
 * ntt_coset_inverse (natural order in and out) and poly_compute_h in both forms. Vectors are fr_t arrays
 * (Montgomery form, the CPU layout).
 *
 * A plan holds the device tables of one domain size and one chain of roots (twiddles for the forward and the
 * inverse transform, coset power tables built on first use). Create it once per size, reuse it for every
 * partition: the calls then allocate only stream-ordered scratch from the device's pool. A plan belongs to one
 * context and, like it, is used by one thread at a time. All work runs on the context's stream (plus a copy
 * stream of the plan's own for uploads, ordered by events).
 *
 * Device pointers: every vector argument may be host memory (pageable or pinned) or device memory of the
 * context's device; the backend asks CUDA which it is. Host vectors are copied in and the results copied back
 * before the call returns; device vectors are transformed where they are, in stream order on the context's
 * stream (the call still waits for the result, so the timings below are complete).
 *
 * Sizes: 3 <= log_m <= 28. A transform of a host vector of 2^log_m elements needs two such buffers on the
 * device, a device vector one more; H needs four (16 GiB at 2^27). */
#ifndef CUZK_GPU_NTT_H
#define CUZK_GPU_NTT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "gpu/gpu.h"
#include "poly/poly.h"

typedef struct gpu_ntt_plan gpu_ntt_plan;

typedef enum gpu_ntt_kind {
    GPU_NTT_FORWARD,       /* ntt_forward: coefficients -> values at psi^i */
    GPU_NTT_INVERSE,       /* ntt_inverse: values at psi^i -> coefficients (with 1/m) */
    GPU_NTT_COSET_FORWARD, /* ntt_coset_forward: coefficients -> values at shift * psi^i */
    GPU_NTT_COSET_INVERSE  /* ntt_coset_inverse: values at shift * psi^i -> coefficients */
} gpu_ntt_kind;

/* A plan for domains of 2^log_m points with the roots of the chain `roots` (POLY_ROOTS_CUZK for ntt_* and the
 * bellperson H, POLY_ROOTS_SNARKJS for the snarkjs H). Builds its tables on the host and uploads them
 * (milliseconds; not for the hot path). */
cuzk_status gpu_ntt_plan_create(gpu_ctx *ctx, unsigned log_m, poly_roots roots, gpu_ntt_plan **out, cuzk_error *err);
/* Waits for the plan's queued work and frees its tables. NULL is allowed. */
void gpu_ntt_plan_destroy(gpu_ntt_plan *plan);

/* One transform of data (2^log_m elements, host or device, in place). shift: the coset generator for the
 * coset kinds (ignored otherwise). */
cuzk_status gpu_ntt(gpu_ntt_plan *plan, gpu_ntt_kind kind, const fr_t *shift, fr_t *data, cuzk_error *err);

/* poly_compute_h on the device. a, b, c: n <= m per-constraint evaluations each (host or device, read only;
 * form H_FORM_SNARKJS ignores c, which may be NULL). The plan's roots must be POLY_ROOTS_CUZK for
 * H_FORM_BELLPERSON and POLY_ROOTS_SNARKJS for H_FORM_SNARKJS.
 * gpu_ntt_h writes the H scalars to h (host or device): m - 1 of them for H_FORM_BELLPERSON, m for
 * H_FORM_SNARKJS, exactly poly_compute_h's first m - 1 or m elements of a. */
cuzk_status gpu_ntt_h(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n, fr_t *h,
                      cuzk_error *err);

/* The hand-off to the H MSM: as gpu_ntt_h, but H stays on the device. On success *h_dev points at m elements
 * of device memory (the H scalars are the first m - 1 or m of them, as above), allocated stream-ordered from
 * the device's pool on the context's stream and already complete. Pass it as the scalars of gpu_msm_g1 on the
 * same context (n = m - 1 or m); release it with gpu_ntt_h_free once the MSM is queued: the free is
 * stream-ordered too, so it waits for the MSM. */
cuzk_status gpu_ntt_h_device(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                             fr_t **h_dev, cuzk_error *err);
void gpu_ntt_h_free(gpu_ctx *ctx, fr_t *h_dev);
/* gpu_ntt_h_device in the caller's device buffers a, b, c (c may be NULL for the snarkjs form) of 2^L elements each
 * (the first n the values; the rest is zeroed here), which it takes over in every case: the transforms run in them
 * instead of in copies (3 vectors less at the peak, the prover's plan under a memory cap), *h_dev is one of them
 * (gpu_ntt_h_free) and the others are freed, on failure all of them. */
/* gpu_ntt_h_device (bellperson form only) in three device buffers of 2^L elements instead of four: a and b on the
 * coset, their product, then c in b's buffer (c is copied only after a and b are done). For a memory cap. */
cuzk_status gpu_ntt_h_device_3(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                               fr_t **h_dev, cuzk_error *err);
cuzk_status gpu_ntt_h_device_own(gpu_ntt_plan *plan, h_form form, fr_t *a, fr_t *b, fr_t *c, size_t n, fr_t **h_dev,
                                 cuzk_error *err);

/* Copies bytes between host and device memory (either side either kind), on ctx's stream, and waits. */
cuzk_status gpu_ntt_copy(gpu_ctx *ctx, void *dst, const void *src, size_t bytes, cuzk_error *err);

/* Device milliseconds of the plan's last successful gpu_ntt / gpu_ntt_h / gpu_ntt_h_device, measured with CUDA
 * events on the context's stream: total from the first copy in to the last copy out, and compute alone (the
 * kernels, from the moment the inputs are on the device). */
void gpu_ntt_last_ms(const gpu_ntt_plan *plan, double *total_ms, double *compute_ms);

/* Fr Montgomery multiplications per second that ctx's device sustains in a plain throughput kernel (the
 * arithmetic ceiling benchmarks quote next to the NTT times). */
cuzk_status gpu_ntt_mul_rate(gpu_ctx *ctx, double *muls_per_s, cuzk_error *err);

/* Kernel variants (tuning): the environment variable CUZK_NTT_VARIANT, read by gpu_ntt_plan_create, picks one by
 * index or name (default gpu_ntt_variant_default(); an unknown value fails the plan with CUZK_ERR_INVALID_ARG).
 * Every variant computes the same results. gpu_ntt_variant_name returns NULL outside 0 .. count - 1. */
int gpu_ntt_variant_count(void);
int gpu_ntt_variant_default(void);
const char *gpu_ntt_variant_name(int variant);
int gpu_ntt_plan_variant(const gpu_ntt_plan *plan);

/* Fr multiplications one transform of 2^log_m points performs (twiddles and coset powers included). */
double gpu_ntt_mul_count(unsigned log_m, gpu_ntt_kind kind);
/* Device passes (each reads and writes every element once) of one transform of 2^log_m points. */
unsigned gpu_ntt_pass_count(unsigned log_m);

#ifdef __cplusplus
}
#endif
#endif
