/* Internals shared by the backend's .cu files: the context, CUDA error
 * mapping, stream-ordered allocation helpers. */
#ifndef CUZK_GPU_IMPL_CUH
#define CUZK_GPU_IMPL_CUH

#include <cuda_runtime.h>

#include "gpu/gpu.h"
#include "gpu/tune.h"
#include "mem.cuh"
extern "C" {
#include "util/pool.h"
}

struct gpu_ctx {
    int device;
    int sm_count;
    cudaStream_t stream;
    int urgent; /* the stream has the device's greatest priority (gpu_ctx_create_prio) */
    cudaEvent_t ev_start, ev_stop;
    double last_ms;
    /* Two page-locked buffers that copies out of pageable host memory go through (gpu_upload_filled), allocated on
     * first use and grown to the largest copy up to GPU_STAGE_MAX; stage_ev[i]: the DMA out of stage[i] has ended. */
    void *stage[2];
    size_t stage_bytes;
    cudaEvent_t stage_ev[2];
    unsigned stage_next; /* the buffer the next chunk goes through */
};

struct gpu_buf {
    gpu_ctx *ctx;
    void *ptr;
    size_t bytes;
};

/* Maps a CUDA error to a status with a message naming the call site; out-of-memory becomes CUZK_ERR_NOMEM.
 * The sticky error state is cleared where CUDA allows (cudaGetLastError). */
cuzk_status gpu_fail(cuzk_error *err, cudaError_t e, const char *what, const char *file, int line);

#define GPU_TRY(call)                                                                                                  \
    do {                                                                                                               \
        cudaError_t gpu_e_ = (call);                                                                                   \
        if (gpu_e_ != cudaSuccess) {                                                                                   \
            st = gpu_fail(err, gpu_e_, #call, __FILE__, __LINE__);                                                     \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)

/* After a kernel launch: launch configuration errors. */
#define GPU_LAUNCHED(name) GPU_TRY(cudaGetLastError())

/* Makes the context's device current for this thread. */
cuzk_status gpu_ctx_enter(gpu_ctx *ctx, cuzk_error *err);

/* Where a pointer lives: 1 device memory usable by ctx, 0 host memory. */
int gpu_is_device_ptr(const void *p);

/* 1 when p is host memory that is not page-locked. */
int gpu_is_pageable(const void *p);

/* A host-to-device copy of bytes queued on stream in slices of at most gpu_tune.copy_slice bytes (0: whole), so
 * that another stream's copy is queued behind one slice, not the whole (the copy engine takes copies in the order
 * they were queued, whatever their streams). */
cudaError_t gpu_copy_h2d_sliced(void *dst, const void *src, size_t bytes, cudaStream_t stream);

/* The largest staging buffer of a context (gpu_upload_filled). */
#define GPU_STAGE_MAX ((size_t)64 << 20)

/* Writes bytes [off, off + len) of the source arg describes into stage. */
typedef void (*gpu_fill_fn)(void *arg, void *stage, size_t off, size_t len);

/* dst (device) = bytes that fill writes, in chunks of whole units (unit bytes each) through ctx's staging buffers,
 * queued on ctx's stream: each chunk's DMA runs beside the next one's fill (the last's may still run on return);
 * trace_name (or NULL) names each chunk's copy in the trace, counted in units. Host memory that is not
 * page-locked goes up this way, never by a copy from pageable memory: after a 4 MiB one, a later wait of the
 * stream on another stream's event ended only once that stream's next copy had ended too (docs/GPU-NOTES.md, the
 * twenty-seventh session). */
cuzk_status gpu_upload_filled(gpu_ctx *ctx, void *dst, size_t bytes, size_t unit, gpu_fill_fn fill, void *arg,
                              const char *trace_name, cuzk_error *err);

/* dst (device) = bytes at src (host or device), queued on ctx's stream: from pageable host memory through the
 * staging buffers (gpu_upload_filled; filled by pool's threads, pool may be NULL), else one DMA in slices
 * (gpu_copy_h2d_sliced). */
cuzk_status gpu_copy_h2d(gpu_ctx *ctx, pool_t *pool, void *dst, const void *src, size_t bytes, cuzk_error *err);

/* Device copy of a host-or-device array: *dev points at the data on the device; *owned is what the caller must
 * gpu_free_async (NULL when p was already device memory). */
cuzk_status gpu_stage_in(gpu_ctx *ctx, const void *p, size_t bytes, const void **dev, void **owned, cuzk_error *err);

/* The positions of the set bits i < n of mask (on the device), in order: *idx (device, gpu_free_async on ctx's
 * stream) and *count. When count is 0 or below min_count only *count is set (*idx = NULL). Waits for the count. */
cuzk_status gpu_mask_compact(gpu_ctx *ctx, const uint64_t *mask, size_t n, size_t min_count, uint32_t **idx,
                             uint32_t *count, cuzk_error *err);

#endif
