/* G2 on the GPU, for B_G2: the sum of the bases selected by a bit mask (the unit scalars) and an MSM (the
 * rest). Same conventions as gpu.h: arrays may be host or device memory of ctx's device (device arrays of points
 * 16-byte aligned); a call returns when the result is on the host; gpu_ctx_last_ms gives its device time.
 * Both sum their points batch-affine (Montgomery's trick) from a size up, in XYZZ below it or when the affine
 * round lists do not fit in device memory; CUZK_GPU_G2=affine|xyzz forces one path. The code is G1's, instantiated
 * for G2 (src/gpu/msm.cu). */
#ifndef CUZK_GPU_GPU_G2_H
#define CUZK_GPU_GPU_G2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cuzk/status.h"
#include "ec/g2.h"
#include "gpu/gpu.h"

/* out = sum of bases[i] over i < n with bit i of mask set (mask: (n + 63) / 64 words). Infinity among the
 * bases is allowed. */
cuzk_status gpu_batch_add_g2(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const uint64_t *mask, size_t n,
                             cuzk_error *err);
/* out = sum over k < n of scalars[k] · bases[idx[k]] (idx NULL: bases[k]); scalars are Fr in Montgomery form,
 * bases holds nbases points (at least n when idx is NULL); every idx[k] < nbases (CUZK_ERR_INVALID_ARG). */
cuzk_status gpu_msm_g2_indexed(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                               const uint32_t *idx, const fr_t *scalars, size_t n, cuzk_error *err);

/* The device bytes gpu_msm_g2_indexed takes at its peak for n scalars (scalars and indices staged from the host
 * included), and the scalars of the largest piece of n, halved down to GPU_MSM_G2_PIECE_MIN (a multiple of 64),
 * whose peak fits free_b bytes: n when it all fits. B_G2 over resident bases is done in such pieces (prove.cu): a
 * WindowPoSt's 92 M scalars need ~35 GB in one. */
#define GPU_MSM_G2_PIECE_MIN ((size_t)1 << 12)
size_t gpu_msm_g2_peak_bytes(size_t n);
size_t gpu_msm_g2_piece(size_t n, size_t free_b);

/* 1 when the calling thread's last gpu_batch_add_g2 or gpu_msm_g2_indexed summed batch-affine, 0 when in XYZZ
 * (also after the affine path ran out of memory and the call retried in XYZZ) or when it summed nothing (n = 0).
 * For tests and benchmarks. */
int gpu_g2_last_was_affine(void);

#ifdef __cplusplus
}
#endif
#endif
