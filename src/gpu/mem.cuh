/* The backend's one allocation seam (mem.cu): every device allocation of src/gpu goes through these, so that the
 * device-memory cap (gpu_tune.memory_limit, CUZK_GPU_MEMORY_LIMIT) holds for all of them and the bytes this process
 * holds on each device are known. Each has exactly the signature of the CUDA call it replaces (a file is converted
 * by renaming cudaMallocAsync -> gpu_malloc_async, cudaFreeAsync -> gpu_free_async, cudaMalloc -> gpu_malloc,
 * cudaFree -> gpu_free, cudaMemGetInfo -> gpu_mem_get_info). An allocation that would take the device past the cap
 * returns cudaErrorMemoryAllocation, as the real call does when the device is full (gpu_fail maps it to
 * CUZK_ERR_NOMEM). Without a cap the calls only count (a mutex-protected pointer -> size map). */
#ifndef CUZK_GPU_MEM_CUH
#define CUZK_GPU_MEM_CUH

#include <cuda_runtime.h>
#include <stddef.h>

cudaError_t gpu_malloc_async_v(void **p, size_t bytes, cudaStream_t s);
cudaError_t gpu_malloc_v(void **p, size_t bytes);

/* cudaMallocAsync on the current device's default pool, counted against the cap. */
template <class T> static inline cudaError_t gpu_malloc_async(T **p, size_t bytes, cudaStream_t s)
{
    return gpu_malloc_async_v((void **)p, bytes, s);
}
/* cudaFreeAsync; the bytes stop counting at the call (the pool reuses them in stream order). */
cudaError_t gpu_free_async(void *p, cudaStream_t s);
/* cudaMalloc (long-lived buffers outside the pool), counted against the cap. */
template <class T> static inline cudaError_t gpu_malloc(T **p, size_t bytes)
{
    return gpu_malloc_v((void **)p, bytes);
}
cudaError_t gpu_free(void *p);

/* cudaMemGetInfo for the current device, as the cap sees it: *total = min(real total, cap); *free = min(real free +
 * what the default pool holds reserved but unused (it keeps freed blocks, see gpu_ctx_create), cap - bytes this
 * process holds on the device). */
cudaError_t gpu_mem_get_info(size_t *free_b, size_t *total_b);

/* The free figure an MSM sizes its scratch from, for device (made current): gpu_mem_get_info's *free (the pool's
 * reserved-but-unused bytes are already in it: do not add them again). The one home of the MSMs' free-memory
 * query (msm.cu's scratch_free_bytes, for the affine bucket sums of both groups). */
cudaError_t gpu_mem_free_for_scratch(int device, size_t *free_b);

/* The cap in bytes for every device (0: none): gpu_tune_get().memory_limit. */
size_t gpu_mem_cap(void);

#endif
