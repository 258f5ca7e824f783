/* a, b, c of a partition evaluated on the GPU from a compiled r1cs (the sparse matrices A, B, C times the witness),
 * so that only the witness (inputs ++ aux) travels to the device and the host never holds a, b, c.
 *
 * A gpu_shape is the device copy of a finalized r1cs's matrices and coefficient table, compacted: row offsets as
 * u32 per matrix when its nnz < 2^32 (u64 otherwise), coefficient indices as u16 when the table has at most 65536
 * entries (u32 otherwise). It is read-only once uploaded and may be shared by several provers on its device.
 *
 * The evaluation gives exactly r1cs_eval_abc's values (Montgomery fr_t, bit for bit): a row is the sum, in row
 * order, of coeff * w[col] over its terms, where coefficient index 0 (the value 1) is an addition. Field addition
 * and multiplication are exact, so the order of the terms does not change the result.
 *
 * Errors: CUZK_ERR_INVALID_ARG for a shape that is not finalized or has no matrices, or a witness of the wrong
 * size; CUZK_ERR_NOMEM when device memory runs out; CUZK_ERR_GPU for any other CUDA failure. Never a crash. */
#ifndef CUZK_GPU_GPU_ABC_H
#define CUZK_GPU_GPU_ABC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cuzk/status.h"
#include "gpu/gpu.h"
#include "r1cs/r1cs.h"

typedef struct gpu_shape gpu_shape;

/* A finalized r1cs's A, B, C matrices and coefficient table copied to `device` (read-only afterwards; may be
 * shared by several provers on that device). CUZK_ERR_INVALID_ARG if shape is not finalized or has no matrices;
 * CUZK_ERR_NOMEM if it does not fit. */
cuzk_status gpu_shape_upload(int device, const r1cs *shape, gpu_shape **out, cuzk_error *err);
void gpu_shape_free(gpu_shape *s);          /* NULL allowed */
size_t gpu_shape_bytes(const gpu_shape *s); /* device bytes held */
int gpu_shape_device(const gpu_shape *s);
/* The shape's sizes (what a witness and the outputs must have). */
size_t gpu_shape_num_constraints(const gpu_shape *s);
size_t gpu_shape_num_inputs(const gpu_shape *s);
size_t gpu_shape_num_aux(const gpu_shape *s);

/* Where the time of one gpu_shape_eval went (milliseconds, CUDA events on ctx's stream). */
typedef struct gpu_abc_timings {
    double upload_ms;   /* the witness host -> device */
    double eval_ms;     /* the evaluation kernels of A, B and C */
    double download_ms; /* a, b, c device -> host (0 when they are device memory) */
} gpu_abc_timings;

/* a, b, c (num_constraints elements each; host memory, pageable or page-locked, or device memory of ctx's
 * device) = r1cs_eval_abc(shape, inputs, aux). inputs and aux may be host or device memory. ctx must be on the
 * shape's device. t may be NULL. For tests and benchmarks; the prover uses the same kernels through
 * gpu_prove_start_shape. */
cuzk_status gpu_shape_eval(gpu_ctx *ctx, const gpu_shape *s, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                           size_t num_aux, fr_t *a, fr_t *b, fr_t *c, gpu_abc_timings *t, cuzk_error *err);

/* The evaluation alone, every vector device memory of ctx's device: w = inputs ++ aux (num_inputs + num_aux
 * elements, so that a column indexes it directly), a, b, c num_constraints elements each. Queued on ctx's stream;
 * returns when the kernels are done, *ms (may be NULL) their device time. */
cuzk_status gpu_shape_eval_device(gpu_ctx *ctx, const gpu_shape *s, const fr_t *w, fr_t *a, fr_t *b, fr_t *c,
                                  double *ms, cuzk_error *err);

/* Kernel variants (tuning): the environment variable CUZK_GPU_ABC, read by gpu_shape_eval and the prover on each
 * call, picks one by name ("thread": one thread per row; "hybrid": one thread per short row, a warp per long row;
 * default gpu_abc_variant_default()). Every variant computes the same values. */
int gpu_abc_variant_count(void);
int gpu_abc_variant_default(void);
const char *gpu_abc_variant_name(int variant); /* NULL outside 0 .. count - 1 */

#ifdef __cplusplus
}
#endif
#endif
