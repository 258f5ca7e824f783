/* gpu_ntt.h without a CUDA compiler: every operation reports CUZK_ERR_UNSUPPORTED (as stub.c does for gpu.h). */
#include "gpu/gpu_ntt.h"

#define NO_CUDA(err) cuzk_error_set((err), CUZK_ERR_UNSUPPORTED, "gpu_ntt: cuzk was built without CUDA")

cuzk_status gpu_ntt_plan_create(gpu_ctx *ctx, unsigned log_m, poly_roots roots, gpu_ntt_plan **out, cuzk_error *err)
{
    (void)ctx;
    (void)log_m;
    (void)roots;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_ntt_plan_destroy(gpu_ntt_plan *plan)
{
    (void)plan;
}

cuzk_status gpu_ntt(gpu_ntt_plan *plan, gpu_ntt_kind kind, const fr_t *shift, fr_t *data, cuzk_error *err)
{
    (void)plan;
    (void)kind;
    (void)shift;
    (void)data;
    return NO_CUDA(err);
}

cuzk_status gpu_ntt_h(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                      fr_t *h, cuzk_error *err)
{
    (void)plan;
    (void)form;
    (void)a;
    (void)b;
    (void)c;
    (void)n;
    (void)h;
    return NO_CUDA(err);
}

cuzk_status gpu_ntt_h_device(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                             fr_t **h_dev, cuzk_error *err)
{
    (void)plan;
    (void)form;
    (void)a;
    (void)b;
    (void)c;
    (void)n;
    if (h_dev) *h_dev = NULL;
    return NO_CUDA(err);
}

void gpu_ntt_h_free(gpu_ctx *ctx, fr_t *h_dev)
{
    (void)ctx;
    (void)h_dev;
}

cuzk_status gpu_ntt_copy(gpu_ctx *ctx, void *dst, const void *src, size_t bytes, cuzk_error *err)
{
    (void)ctx;
    (void)dst;
    (void)src;
    (void)bytes;
    return NO_CUDA(err);
}

void gpu_ntt_last_ms(const gpu_ntt_plan *plan, double *total_ms, double *compute_ms)
{
    (void)plan;
    if (total_ms) *total_ms = 0;
    if (compute_ms) *compute_ms = 0;
}

cuzk_status gpu_ntt_mul_rate(gpu_ctx *ctx, double *muls_per_s, cuzk_error *err)
{
    (void)ctx;
    if (muls_per_s) *muls_per_s = 0;
    return NO_CUDA(err);
}

double gpu_ntt_mul_count(unsigned log_m, gpu_ntt_kind kind)
{
    (void)log_m;
    (void)kind;
    return 0;
}

unsigned gpu_ntt_pass_count(unsigned log_m)
{
    (void)log_m;
    return 0;
}

int gpu_ntt_variant_count(void)
{
    return 0;
}

int gpu_ntt_variant_default(void)
{
    return -1;
}

const char *gpu_ntt_variant_name(int variant)
{
    (void)variant;
    return NULL;
}

int gpu_ntt_plan_variant(const gpu_ntt_plan *plan)
{
    (void)plan;
    return -1;
}
