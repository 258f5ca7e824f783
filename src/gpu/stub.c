/* cuzk_gpu without a CUDA compiler: no devices, and every operation says so. */
#include "gpu/gpu.h"

#define NO_CUDA(err) cuzk_error_set((err), CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA")

int gpu_device_count(void)
{
    return 0;
}

cuzk_status gpu_device_get_info(int device, gpu_device_info *info, cuzk_error *err)
{
    (void)device;
    (void)info;
    return NO_CUDA(err);
}

cuzk_status gpu_ctx_create(gpu_ctx **out, int device, cuzk_error *err)
{
    (void)device;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_ctx_destroy(gpu_ctx *ctx)
{
    (void)ctx;
}

double gpu_ctx_last_ms(const gpu_ctx *ctx)
{
    (void)ctx;
    return 0.0;
}

cuzk_status gpu_buf_upload(gpu_ctx *ctx, gpu_buf **out, const void *host, size_t bytes, cuzk_error *err)
{
    (void)ctx;
    (void)host;
    (void)bytes;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_buf_free(gpu_buf *buf)
{
    (void)buf;
}

const void *gpu_buf_ptr(const gpu_buf *buf)
{
    (void)buf;
    return NULL;
}

size_t gpu_buf_size(const gpu_buf *buf)
{
    (void)buf;
    return 0;
}

cuzk_status gpu_msm_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                       cuzk_error *err)
{
    return gpu_msm_g1_window(ctx, out, bases, scalars, n, 0, err);
}

cuzk_status gpu_msm_g1_window(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars,
                              size_t n, unsigned c, cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)bases;
    (void)scalars;
    (void)n;
    (void)c;
    return NO_CUDA(err);
}

cuzk_status gpu_msm_g1_variant(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars,
                               size_t n, unsigned c, gpu_msm_variant variant, cuzk_error *err)
{
    (void)variant;
    return gpu_msm_g1_window(ctx, out, bases, scalars, n, c, err);
}

cuzk_status gpu_msm_bases_prepare(gpu_ctx *ctx, gpu_msm_bases **out, const g1_affine_t *bases, size_t n,
                                  unsigned c, cuzk_error *err)
{
    (void)ctx;
    (void)bases;
    (void)n;
    (void)c;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_msm_bases_free(gpu_msm_bases *pb)
{
    (void)pb;
}

unsigned gpu_msm_bases_window(const gpu_msm_bases *pb)
{
    (void)pb;
    return 0;
}

unsigned gpu_msm_prepared_window_bits(const gpu_ctx *ctx, size_t n)
{
    (void)ctx;
    (void)n;
    return 0;
}

cuzk_status gpu_msm_g1_prepared(gpu_ctx *ctx, g1_jac_t *out, const gpu_msm_bases *pb, const fr_t *scalars, size_t n,
                                gpu_msm_variant variant, cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)pb;
    (void)scalars;
    (void)n;
    (void)variant;
    return NO_CUDA(err);
}

unsigned gpu_msm_window_bits(const gpu_ctx *ctx, size_t n)
{
    (void)ctx;
    (void)n;
    return 0;
}

cuzk_status gpu_batch_add_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask, size_t n,
                             cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)bases;
    (void)mask;
    (void)n;
    return NO_CUDA(err);
}

cuzk_status gpu_debug_fp_mul(gpu_ctx *ctx, fp_t *out, const fp_t *a, const fp_t *b, size_t n, cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)a;
    (void)b;
    (void)n;
    return NO_CUDA(err);
}

cuzk_status gpu_debug_fr_mul(gpu_ctx *ctx, fr_t *out, const fr_t *a, const fr_t *b, size_t n, cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)a;
    (void)b;
    (void)n;
    return NO_CUDA(err);
}

cuzk_status gpu_debug_g1_add(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *a, const g1_affine_t *b, size_t n,
                             cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)a;
    (void)b;
    (void)n;
    return NO_CUDA(err);
}

cuzk_status gpu_fp_chain(gpu_ctx *ctx, fp_t *out, const fp_t *x, const fp_t *y, size_t n, unsigned iters,
                         double *kernel_ms, cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)x;
    (void)y;
    (void)n;
    (void)iters;
    (void)kernel_ms;
    return NO_CUDA(err);
}
