/* gpu_setup.h without a CUDA compiler. */
#include "gpu/gpu_setup.h"

#include <string.h>

cuzk_status gpu_fixed_base_create(gpu_ctx *ctx, gpu_fixed_base **out, cuzk_error *err)
{
    (void)ctx;
    *out = NULL;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

void gpu_fixed_base_destroy(gpu_fixed_base *fb)
{
    (void)fb;
}

cuzk_status gpu_fixed_base_g1(gpu_fixed_base *fb, pool_t *pool, const g1_affine_t *table, unsigned w, const fr_t *s,
                              size_t n, g1_affine_t *out, cuzk_error *err)
{
    (void)fb, (void)pool, (void)table, (void)w, (void)s, (void)n, (void)out;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

cuzk_status gpu_fixed_base_g2(gpu_fixed_base *fb, pool_t *pool, const g2_affine_t *table, unsigned w, const fr_t *s,
                              size_t n, g2_affine_t *out, cuzk_error *err)
{
    (void)fb, (void)pool, (void)table, (void)w, (void)s, (void)n, (void)out;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "gpu: cuzk was built without CUDA");
}

static cuzk_status stub_g1(void *ctx, pool_t *pool, const g1_affine_t *table, unsigned w, const fr_t *s, size_t n,
                           g1_affine_t *out, cuzk_error *err)
{
    return gpu_fixed_base_g1(ctx, pool, table, w, s, n, out, err);
}

static cuzk_status stub_g2(void *ctx, pool_t *pool, const g2_affine_t *table, unsigned w, const fr_t *s, size_t n,
                           g2_affine_t *out, cuzk_error *err)
{
    return gpu_fixed_base_g2(ctx, pool, table, w, s, n, out, err);
}

void gpu_fixed_base_engine(gpu_fixed_base *fb, groth16_fixed_base *out)
{
    memset(out, 0, sizeof(*out));
    out->ctx = fb;
    out->w = GPU_FIXED_BASE_WINDOW;
    out->g1 = stub_g1;
    out->g2 = stub_g2;
}
