/* gpu_setup.h without a CUDA compiler. */
#include "gpu/gpu_setup.h"

#include <string.h>

cuzk_status gpu_fixed_base_g1(gpu_ctx *ctx, const g1_affine_t *table, unsigned w, const fr_t *s, size_t n,
                              g1_affine_t *out, cuzk_error *err)
{
    (void)ctx, (void)table, (void)w, (void)s, (void)n, (void)out;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

cuzk_status gpu_fixed_base_g2(gpu_ctx *ctx, const g2_affine_t *table, unsigned w, const fr_t *s, size_t n,
                              g2_affine_t *out, cuzk_error *err)
{
    (void)ctx, (void)table, (void)w, (void)s, (void)n, (void)out;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

static cuzk_status stub_g1(void *ctx, const g1_affine_t *table, unsigned w, const fr_t *s, size_t n,
                           g1_affine_t *out, cuzk_error *err)
{
    return gpu_fixed_base_g1(ctx, table, w, s, n, out, err);
}

static cuzk_status stub_g2(void *ctx, const g2_affine_t *table, unsigned w, const fr_t *s, size_t n,
                           g2_affine_t *out, cuzk_error *err)
{
    return gpu_fixed_base_g2(ctx, table, w, s, n, out, err);
}

void gpu_fixed_base_engine(gpu_ctx *ctx, groth16_fixed_base *out)
{
    memset(out, 0, sizeof(*out));
    out->ctx = ctx;
    out->w = GPU_FIXED_BASE_WINDOW;
    out->g1 = stub_g1;
    out->g2 = stub_g2;
}
