/* Fixed-base multiplications by the generators on the GPU, for Groth16 setup (groth16_fixed_base of
 * groth16/groth16.h): out[i] = s[i] * G from a window table of G, the affine results converted on the device
 * (one field inversion per thread and batch, Montgomery's trick). Scalars and points are in the CPU layouts,
 * in host memory (pageable is fine: they go through pinned staging buffers, copied by the pool's threads); the
 * work runs in chunks, so n is bounded only by host memory. */
#ifndef CUZK_GPU_GPU_SETUP_H
#define CUZK_GPU_GPU_SETUP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cuzk/status.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "util/pool.h"

/* Window bits of the tables the GPU functions want (2^16 - 1 entries per window, 16 windows). */
#define GPU_FIXED_BASE_WINDOW 16

/* A fixed-base engine on ctx's device (borrowed: it must outlive the engine), with pinned staging buffers for
 * the scalars and points (allocated on first use). Used by one thread at a time. */
typedef struct gpu_fixed_base gpu_fixed_base;
cuzk_status gpu_fixed_base_create(gpu_ctx *ctx, gpu_fixed_base **out, cuzk_error *err);
/* NULL is allowed. */
void gpu_fixed_base_destroy(gpu_fixed_base *fb);

/* table as groth16_generator_table_g1/_g2 make it for w bits (1 <= w <= 20). pool (may be NULL) copies between the
 * caller's memory and the staging buffers. CUZK_ERR_NOMEM when device or pinned memory runs out, CUZK_ERR_GPU for
 * another CUDA failure. */
cuzk_status gpu_fixed_base_g1(gpu_fixed_base *fb, pool_t *pool, const g1_affine_t *table, unsigned w, const fr_t *s,
                              size_t n, g1_affine_t *out, cuzk_error *err);
cuzk_status gpu_fixed_base_g2(gpu_fixed_base *fb, pool_t *pool, const g2_affine_t *table, unsigned w, const fr_t *s,
                              size_t n, g2_affine_t *out, cuzk_error *err);

/* A groth16_fixed_base running on fb. */
void gpu_fixed_base_engine(gpu_fixed_base *fb, groth16_fixed_base *out);

#ifdef __cplusplus
}
#endif
#endif
