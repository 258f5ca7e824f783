/* The CUDA backend's C API: device discovery, a per-worker context (one
 * device, one stream, the device's memory pool), device-resident buffers,
 * G1 multi-scalar multiplication and batch addition.
 *
 * Plain C (callable from C11); only the .cu files of src/gpu include CUDA headers. When
 * cuzk is built without a CUDA compiler every function reports
 * CUZK_ERR_UNSUPPORTED ("built without CUDA") and gpu_device_count finds 0.
 *
 * Layouts: points and scalars are exactly the CPU structs of src/ec/g1.h and
 * src/ff/fr.h (Montgomery form, 64-bit little-endian limbs), on the host or
 * already on the device. Every pointer argument named "bases" or "scalars"
 * may be host memory (pageable or pinned) or device memory of the context's
 * device (a gpu_buf's gpu_buf_ptr, or memory another kernel wrote): the
 * backend asks CUDA which it is and copies only host memory.
 *
 * Threads: a context is used by one thread at a time (one per GPU worker);
 * several contexts may share a device and run concurrently. */
#ifndef CUZK_GPU_GPU_H
#define CUZK_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* the cuzk headers below are plain C too */
#endif

#include "cuzk/status.h"
#include "ec/g1.h"
#include "ff/fr.h"

typedef struct gpu_device_info {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    size_t total_mem; /* bytes */
    size_t free_mem;  /* bytes, at the time of the call */
    size_t l2_bytes;
} gpu_device_info;

/* Number of usable CUDA devices; 0 when there are none, no driver, or no CUDA build (never an error). */
int gpu_device_count(void);
cuzk_status gpu_device_get_info(int device, gpu_device_info *info, cuzk_error *err);

typedef struct gpu_ctx gpu_ctx;

/* A context on one device: its own stream and events, allocations from the device's default memory pool
 * (kept cached between calls, so the hot path never calls cudaMalloc/cudaFree). */
cuzk_status gpu_ctx_create(gpu_ctx **out, int device, cuzk_error *err);
/* As gpu_ctx_create, with its stream's priority (the hardware schedules a higher stream's kernels' blocks ahead of
 * waiting blocks of lower streams as SMs come free): GPU_PRIO_LOW the device's least, gpu_ctx_create's;
 * GPU_PRIO_ABOVE one above the least (a prover's queries above its H MSM, gpu_tune.queries_above); GPU_PRIO_URGENT
 * its greatest (CRITICAL work). */
enum { GPU_PRIO_LOW = 0, GPU_PRIO_URGENT = 1, GPU_PRIO_ABOVE = 2 };
cuzk_status gpu_ctx_create_prio(gpu_ctx **out, int device, int prio, cuzk_error *err);
void gpu_ctx_destroy(gpu_ctx *ctx);
/* Device time in milliseconds of the last successful gpu_msm_g1 / gpu_batch_add_g1 on ctx, measured with
 * CUDA events from the first upload to the result being ready (host copies of inputs included). */
double gpu_ctx_last_ms(const gpu_ctx *ctx);

/* A device buffer, e.g. bases kept resident across many MSMs (upload once, prove many partitions). */
typedef struct gpu_buf gpu_buf;
cuzk_status gpu_buf_upload(gpu_ctx *ctx, gpu_buf **out, const void *host, size_t bytes, cuzk_error *err);
/* Frees the buffer (after the context's queued work that uses it). NULL is allowed. */
void gpu_buf_free(gpu_buf *buf);
/* The device address, to pass as "bases" or "scalars". */
const void *gpu_buf_ptr(const gpu_buf *buf);
size_t gpu_buf_size(const gpu_buf *buf);

/* Device memory held by this process through the backend (mem.cu; every allocation of src/gpu), in bytes, on
 * device: now, and the most since the start or the last gpu_mem_reset_peak(device) (which sets it to now). */
size_t gpu_mem_live(int device);
size_t gpu_mem_peak(int device);
void gpu_mem_reset_peak(int device);
/* Allocates bytes on device through the backend's seam and frees them again: CUZK_ERR_NOMEM when they do not fit
 * (the device's memory, or the cap gpu_tune.memory_limit). For tests and checks. */
cuzk_status gpu_mem_try_alloc(int device, size_t bytes, cuzk_error *err);
/* The seam's cost: ns per 4 KiB stream-ordered allocation + free through it and through CUDA directly (n each). */
cuzk_status gpu_debug_mem_cost(int device, unsigned n, double *ns_seam, double *ns_raw, cuzk_error *err);

/* out = sum_{i<n} scalars[i] * bases[i] (Pippenger on the device). n may be 0 (result infinity); n < 2^31.
 * Infinity among the bases is allowed. Returns CUZK_ERR_NOMEM when device memory runs out, CUZK_ERR_GPU
 * for any other CUDA failure, each with a message. */
cuzk_status gpu_msm_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                       cuzk_error *err);
/* gpu_msm_g1 with the window size forced to c bits (2..24; 0 chooses from n and the SM count). */
cuzk_status gpu_msm_g1_window(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                              unsigned c, cuzk_error *err);
/* How the bucket sums are computed: XYZZ mixed additions in fixed chunks per thread, or batch-affine rounds
 * (pairs added in affine coordinates, one inversion per batch, Montgomery's trick; ~0.75 * 96 bytes of device
 * memory per bucket entry, in groups that fit in a quarter of the free memory). AFFINE_WARP is the affine rounds
 * with round 1's bases gathered by whole warps (16-byte chunks of a base on consecutive lanes, cp.async into shared
 * memory one step ahead). In both affine variants, buckets of at most 2^t points leave the rounds for XYZZ additions
 * (CUZK_GPU_MSM_TAIL=t, 0..8, default 2) before each round (CUZK_GPU_MSM_EARLY=0: after the last round), and the
 * inversions are Bernstein-Yang divsteps (CUZK_GPU_MSM_INV=fermat: Fermat). DEFAULT is AFFINE_WARP from 16 M bucket
 * entries (n * ceil(255/c): n >= 2^20 at c = 16; XYZZ when that runs out of memory), XYZZ below, unless the
 * environment variable CUZK_GPU_MSM says "affine", "affine-warp" or "xyzz". Every variant gives the same result. */
typedef enum gpu_msm_variant {
    GPU_MSM_DEFAULT = 0,
    GPU_MSM_XYZZ = 1,
    GPU_MSM_AFFINE = 2,
    GPU_MSM_AFFINE_WARP = 3
} gpu_msm_variant;
/* gpu_msm_g1_window with the bucket-sum variant chosen. */
cuzk_status gpu_msm_g1_variant(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                               unsigned c, gpu_msm_variant variant, cuzk_error *err);
/* Bases prepared for many MSMs (resident, e.g. a parameter file's bases proving every partition): the table
 * 2^(w c) * bases[i] for each of the nwin = ceil(255/c) windows, so that all windows share one set of buckets
 * (one bucket reduction, and wider windows: fewer bucket entries). Device memory: nwin * n * 96 bytes.
 * c = 0 chooses from n (gpu_msm_prepared_window_bits); nwin * n < 2^31. */
typedef struct gpu_msm_bases gpu_msm_bases;
cuzk_status gpu_msm_bases_prepare(gpu_ctx *ctx, gpu_msm_bases **out, const g1_affine_t *bases, size_t n, unsigned c,
                                  cuzk_error *err);
/* Frees the table (after ctx's queued work). NULL is allowed. */
void gpu_msm_bases_free(gpu_msm_bases *pb);
/* The window size pb was prepared for. */
unsigned gpu_msm_bases_window(const gpu_msm_bases *pb);
/* Window size gpu_msm_bases_prepare chooses for n bases. */
unsigned gpu_msm_prepared_window_bits(const gpu_ctx *ctx, size_t n);
/* out = sum_{i<n} scalars[i] * bases[i] over the first n <= prepared count bases of pb, on a context of pb's
 * device. */
cuzk_status gpu_msm_g1_prepared(gpu_ctx *ctx, g1_jac_t *out, const gpu_msm_bases *pb, const fr_t *scalars, size_t n,
                                gpu_msm_variant variant, cuzk_error *err);
/* Window size gpu_msm_g1 uses for n points on ctx's device. */
unsigned gpu_msm_window_bits(const gpu_ctx *ctx, size_t n);

/* GLV (glv.h): each scalar split into two of 128 bits over P and phi(P) = (beta x, y) = lambda P, so the MSM has
 * half the windows over twice the points. gpu_msm_glv_upload: a device buffer of the n bases (host or device)
 * followed by their n images under phi (2n points, 192 bytes a base). gpu_msm_g1_glv: out = sum_{i<n} scalars[i] *
 * bases[i] for device bases whose images are at bases + phi_at (gpu_msm_glv_upload's buffer, or a piece of it
 * from base o: bases + o, phi_at the buffer's n); n <= phi_at, phi_at + n < 2^31; scalars on host or device. */
cuzk_status gpu_msm_glv_upload(gpu_ctx *ctx, gpu_buf **out, const g1_affine_t *bases, size_t n, cuzk_error *err);
cuzk_status gpu_msm_g1_glv(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, size_t phi_at, const fr_t *scalars,
                           size_t n, cuzk_error *err);
/* Window size gpu_msm_g1_glv uses for n scalars (2n points of 128 bits). */
unsigned gpu_msm_glv_window_bits(const gpu_ctx *ctx, size_t n);

/* out = sum of bases[i] over i < n with bit i of mask set (bit i = word i/64, bit i%64; mask on the host). */
cuzk_status gpu_batch_add_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask, size_t n,
                             cuzk_error *err);
/* The same sum by XYZZ mixed additions whatever CUZK_GPU_BATCH says: one pass over the bases and a reduction, no
 * host round trips and almost no scratch memory. For the pieces of streamed bases, which run beside the overlapped
 * H MSM: there the batch-affine rounds (a scan and a host sync each) waited for the device behind it. */
cuzk_status gpu_batch_add_g1_xyzz(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask, size_t n,
                                  cuzk_error *err);

/* Test hooks for the device arithmetic (host arrays of n elements): out[i] = a[i] * b[i] in Fp or Fr, and
 * out[i] = a[i] + b[i] as G1 points (affine inputs, XYZZ device addition incl. doubling and infinity). */
cuzk_status gpu_debug_fp_mul(gpu_ctx *ctx, fp_t *out, const fp_t *a, const fp_t *b, size_t n, cuzk_error *err);
cuzk_status gpu_debug_fr_mul(gpu_ctx *ctx, fr_t *out, const fr_t *a, const fr_t *b, size_t n, cuzk_error *err);
cuzk_status gpu_debug_g1_add(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *a, const g1_affine_t *b, size_t n,
                             cuzk_error *err);

/* The device's Fp product rate, for its benchmark (cuzk-bench gpu-fp) and its check: each of n elements runs iters
 * Montgomery products x <- x * y / 2^384 (out[i] = x[i] * y[i]^iters / 2^(384 iters) mod p) by the 32-bit integer
 * multiply-adds of the MSM and NTT (ff_mont.cuh), one chain a thread. x, y and out are host arrays of raw integers below
 * p (fp_t limbs, as in Montgomery form); *kernel_ms (may be NULL) is the kernel's device time. n < 2^31. */
cuzk_status gpu_fp_chain(gpu_ctx *ctx, fp_t *out, const fp_t *x, const fp_t *y, size_t n, unsigned iters,
                         double *kernel_ms, cuzk_error *err);

#ifdef __cplusplus
}
#endif
#endif
