/* Host memory registration (gpu_host.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gpu_host.h"
#include "ctx_impl.cuh"

extern "C" cuzk_status gpu_host_register(void *p, size_t bytes, cuzk_error *err)
{
    if (p == NULL || bytes == 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_host_register: NULL pointer or 0 bytes");
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    if (e == cudaSuccess) return CUZK_OK;
    if (e == cudaErrorHostMemoryAlreadyRegistered) {
        (void)cudaGetLastError();
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "gpu_host_register: [%p, +%zu) overlaps memory already registered", p, bytes);
    }
    cuzk_status st = gpu_fail(err, e, "cudaHostRegister", __FILE__, __LINE__);
    if (err) cuzk_error_prefix(err, "gpu_host_register of %zu bytes: ", bytes);
    return st;
}

extern "C" cuzk_status gpu_host_unregister(void *p, cuzk_error *err)
{
    if (p == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_host_unregister: NULL pointer");
    cudaError_t e = cudaHostUnregister(p);
    if (e == cudaSuccess) return CUZK_OK;
    if (e == cudaErrorHostMemoryNotRegistered || e == cudaErrorInvalidValue) {
        (void)cudaGetLastError();
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_host_unregister: %p is not a registered range (%s)", p,
                              cudaGetErrorName(e));
    }
    return gpu_fail(err, e, "cudaHostUnregister", __FILE__, __LINE__);
}

extern "C" int gpu_host_is_registered(const void *p)
{
    cudaPointerAttributes a;
    if (p == NULL) return 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* Page-locked memory two ways. cudaHostAlloc pins at ~2 GB/s on the H200 and holds a driver lock meanwhile
 * (other threads' CUDA calls wait: 1.5 GiB sets stalled a prover for seconds). malloc'd memory registered
 * (huge pages asked for where possible: fewer pages to fault in and lock) is the default; CUZK_HOST_ALLOC=cuda
 * picks cudaHostAlloc (for comparison). */
static int host_alloc_with_cuda(void)
{
    return gpu_tune_get().host_alloc_cuda;
}

extern "C" cuzk_status gpu_host_alloc(size_t bytes, void **out, cuzk_error *err)
{
    if (out != NULL) *out = NULL;
    if (out == NULL || bytes == 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_host_alloc: NULL out or 0 bytes");
    void *p = NULL;
    cudaError_t e;
    const char *what;
    if (host_alloc_with_cuda()) {
        what = "cudaHostAlloc";
        e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    } else {
        const size_t huge = (size_t)2 << 20;
        if (posix_memalign(&p, bytes >= huge ? huge : 4096, bytes) != 0)
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_host_alloc: cannot allocate %zu bytes", bytes);
#ifdef MADV_HUGEPAGE
        if (bytes >= huge) (void)madvise(p, bytes / huge * huge, MADV_HUGEPAGE); /* only a hint */
#endif
        what = "cudaHostRegister";
        e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
        if (e != cudaSuccess) {
            free(p);
            p = NULL;
        }
    }
    if (e == cudaSuccess) {
        *out = p;
        return CUZK_OK;
    }
    cuzk_status st = gpu_fail(err, e, what, __FILE__, __LINE__);
    if (err) cuzk_error_prefix(err, "gpu_host_alloc of %zu bytes: ", bytes);
    return st;
}

extern "C" void gpu_host_free(void *p)
{
    if (p == NULL) return;
    /* Registered malloc'd memory, else cudaHostAlloc's (the environment may have changed since). */
    if (cudaHostUnregister(p) == cudaSuccess) {
        free(p);
        return;
    }
    (void)cudaGetLastError();
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}
