/* gpu_host.h without a CUDA compiler. */
#include "gpu/gpu_host.h"

cuzk_status gpu_host_register(void *p, size_t bytes, cuzk_error *err)
{
    (void)p, (void)bytes;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu_host_register: cuzk was built without CUDA");
}

cuzk_status gpu_host_unregister(void *p, cuzk_error *err)
{
    (void)p;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu_host_unregister: cuzk was built without CUDA");
}

int gpu_host_is_registered(const void *p)
{
    (void)p;
    return 0;
}

cuzk_status gpu_host_alloc(size_t bytes, void **out, cuzk_error *err)
{
    (void)bytes;
    if (out) *out = NULL;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu_host_alloc: cuzk was built without CUDA");
}

void gpu_host_free(void *p) { (void)p; }
