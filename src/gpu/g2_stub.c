/* gpu_g2.h without a CUDA compiler. */
#include "gpu/gpu_g2.h"

cuzk_status gpu_batch_add_g2(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const uint64_t *mask, size_t n,
                             cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)bases;
    (void)mask;
    (void)n;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

cuzk_status gpu_msm_g2_indexed(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                               const uint32_t *idx, const fr_t *scalars, size_t n, cuzk_error *err)
{
    (void)ctx;
    (void)out;
    (void)bases;
    (void)nbases;
    (void)idx;
    (void)scalars;
    (void)n;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

int gpu_g2_last_was_affine(void)
{
    return 0;
}
