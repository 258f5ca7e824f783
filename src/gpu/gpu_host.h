/* Host memory registration: page-locking memory that already exists (e.g. a parameter set's bases) so that
 * copies from it to a device run as direct DMA at the link's speed, instead of through the driver's small
 * staging buffers (H200: 53 GB/s instead of 6-8; registering runs at 16-21 GB/s, so it pays for itself at
 * the first copy). Registered memory is usual host memory to the rest of the backend (gpu_stage_in and
 * gpu_buf_upload copy from it as from any host pointer), only faster.
 *
 * The range registered is exactly [p, p + bytes): the driver accepts any address and size, and disjoint
 * ranges on one page register and unregister independently (tests/gpu/test_gpu_host.c checks both on the
 * device). A range overlapping one already registered is refused. cudaHostRegisterPortable: every device and
 * context sees the memory as pinned. Registering costs about as much as touching every page once (the
 * kernel locks them), so it belongs with loading, not with proving.
 *
 * gpu_host_alloc gives page-locked memory of its own for buffers that are written on the host and copied to a
 * device again and again (the engine's a, b, c): the same direct DMA without the cost of registering each
 * time. It is malloc'd memory registered (portable), or with CUZK_HOST_ALLOC=cuda cudaHostAlloc's (slower to
 * allocate on the H200, and it stalls other threads' CUDA calls meanwhile). Allocating costs at least as much
 * as registering (the pages are faulted in and locked), so such buffers are allocated once and reused.
 *
 * Without a CUDA build every function reports CUZK_ERR_UNSUPPORTED (gpu_host_is_registered finds 0). */
#ifndef CUZK_GPU_GPU_HOST_H
#define CUZK_GPU_GPU_HOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cuzk/status.h"

/* Page-locks [p, p + bytes). CUZK_ERR_INVALID_ARG for a NULL p, 0 bytes, or a range that overlaps a
 * registered one; CUZK_ERR_NOMEM when the pages cannot be locked; CUZK_ERR_GPU for any other CUDA failure
 * (no device included). Nothing stays registered after a failure. */
cuzk_status gpu_host_register(void *p, size_t bytes, cuzk_error *err);
/* Undoes gpu_host_register(p, ...) (p as registered). CUZK_ERR_INVALID_ARG for NULL or a pointer that is
 * not the start of a registration. The memory itself stays the caller's. */
cuzk_status gpu_host_unregister(void *p, cuzk_error *err);
/* Whether p lies in page-locked memory CUDA knows about (registered, or from cudaHostAlloc). */
int gpu_host_is_registered(const void *p);

/* *out = bytes of page-locked host memory (portable: pinned for every device and context), uninitialized.
 * CUZK_ERR_INVALID_ARG for a NULL out or 0 bytes; CUZK_ERR_NOMEM when the memory cannot be allocated or
 * locked (e.g. RLIMIT_MEMLOCK, or the host is short of memory); CUZK_ERR_GPU for any other CUDA failure (no
 * device included). *out is NULL after a failure. */
cuzk_status gpu_host_alloc(size_t bytes, void **out, cuzk_error *err);
/* Frees memory from gpu_host_alloc (either way); NULL is allowed. */
void gpu_host_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
