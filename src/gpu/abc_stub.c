/* gpu_abc.h without a CUDA compiler: every operation reports CUZK_ERR_UNSUPPORTED (as stub.c does for gpu.h). */
#include "gpu/gpu_abc.h"

#define NO_CUDA(err) cuzk_error_set((err), CUZK_ERR_UNSUPPORTED, "gpu abc: cuzk was built without CUDA")

cuzk_status gpu_shape_upload(int device, const r1cs *shape, gpu_shape **out, cuzk_error *err)
{
    (void)device;
    (void)shape;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_shape_free(gpu_shape *s)
{
    (void)s;
}

size_t gpu_shape_bytes(const gpu_shape *s)
{
    (void)s;
    return 0;
}

int gpu_shape_device(const gpu_shape *s)
{
    (void)s;
    return -1;
}

size_t gpu_shape_num_constraints(const gpu_shape *s)
{
    (void)s;
    return 0;
}

size_t gpu_shape_num_inputs(const gpu_shape *s)
{
    (void)s;
    return 0;
}

size_t gpu_shape_num_aux(const gpu_shape *s)
{
    (void)s;
    return 0;
}

cuzk_status gpu_shape_eval(gpu_ctx *ctx, const gpu_shape *s, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                           size_t num_aux, fr_t *a, fr_t *b, fr_t *c, gpu_abc_timings *t, cuzk_error *err)
{
    (void)ctx, (void)s, (void)inputs, (void)num_inputs, (void)aux, (void)num_aux, (void)a, (void)b, (void)c;
    if (t) t->upload_ms = t->eval_ms = t->download_ms = 0;
    return NO_CUDA(err);
}

cuzk_status gpu_shape_eval_device(gpu_ctx *ctx, const gpu_shape *s, const fr_t *w, fr_t *a, fr_t *b, fr_t *c,
                                  double *ms, cuzk_error *err)
{
    (void)ctx, (void)s, (void)w, (void)a, (void)b, (void)c;
    if (ms) *ms = 0;
    return NO_CUDA(err);
}

int gpu_abc_variant_count(void)
{
    return 0;
}

int gpu_abc_variant_default(void)
{
    return 0;
}

const char *gpu_abc_variant_name(int variant)
{
    (void)variant;
    return NULL;
}
