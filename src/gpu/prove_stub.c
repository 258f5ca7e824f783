/* gpu_prove.h without a CUDA compiler: every operation reports CUZK_ERR_UNSUPPORTED (as stub.c does for gpu.h). */
#include "gpu/gpu_prove.h"

#define NO_CUDA(err) cuzk_error_set((err), CUZK_ERR_UNSUPPORTED, "gpu prove: cuzk was built without CUDA")

cuzk_status gpu_params_upload(int device, const groth16_params *params, gpu_params **out, cuzk_error *err)
{
    (void)device;
    (void)params;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_params_free(gpu_params *gp)
{
    (void)gp;
}

size_t gpu_params_bytes(const gpu_params *gp)
{
    (void)gp;
    return 0;
}

int gpu_params_device(const gpu_params *gp)
{
    (void)gp;
    return -1;
}

cuzk_status gpu_prover_create(int device, gpu_prover **out, cuzk_error *err)
{
    (void)device;
    if (out) *out = NULL;
    return NO_CUDA(err);
}

void gpu_prover_destroy(gpu_prover *pv)
{
    (void)pv;
}

void gpu_prover_set_split(gpu_prover *pv, gpu_prove_split mode)
{
    (void)pv;
    (void)mode;
}

void gpu_prover_set_overlap(gpu_prover *pv, int on)
{
    (void)pv;
    (void)on;
}

void gpu_prover_on_abc_done(gpu_prover *pv, void (*fn)(void *ctx), void *ctx)
{
    (void)pv;
    (void)fn;
    (void)ctx;
}

cuzk_status gpu_prove_start_abc(gpu_prover *pv, const gpu_params *gp, pool_t *pool, const groth16_params *params,
                                size_t num_constraints, const fr_t *a, const fr_t *b, const fr_t *c,
                                const fr_t *inputs, size_t num_inputs, const fr_t *aux, size_t num_aux,
                                const r1cs_density *density, groth16_pending *pending, groth16_timings *timings,
                                gpu_prove_timings *gt, cuzk_error *err)
{
    (void)pv;
    (void)gp;
    (void)pool;
    (void)params;
    (void)num_constraints;
    (void)a;
    (void)b;
    (void)c;
    (void)inputs;
    (void)num_inputs;
    (void)aux;
    (void)num_aux;
    (void)density;
    (void)pending;
    (void)timings;
    (void)gt;
    return NO_CUDA(err);
}

cuzk_status gpu_prove_start_shape(gpu_prover *pv, const gpu_params *gp, const gpu_shape *shape, pool_t *pool,
                                  const groth16_params *params, const fr_t *inputs, size_t num_inputs,
                                  const fr_t *aux, size_t num_aux, const r1cs_density *density,
                                  groth16_pending *pending, groth16_timings *timings, gpu_prove_timings *gt,
                                  cuzk_error *err)
{
    (void)pv, (void)gp, (void)shape, (void)pool, (void)params, (void)inputs, (void)num_inputs, (void)aux;
    (void)num_aux, (void)density, (void)pending, (void)timings, (void)gt;
    return NO_CUDA(err);
}

cuzk_status gpu_prove_start_once(int device, pool_t *pool, const groth16_params *params, size_t num_constraints,
                                 const fr_t *a, const fr_t *b, const fr_t *c, const fr_t *inputs, size_t num_inputs,
                                 const fr_t *aux, size_t num_aux, const r1cs_density *density,
                                 groth16_pending *pending, cuzk_error *err)
{
    (void)device, (void)pool, (void)params, (void)num_constraints, (void)a, (void)b, (void)c, (void)inputs;
    (void)num_inputs, (void)aux, (void)num_aux, (void)density, (void)pending;
    return NO_CUDA(err);
}

unsigned gpu_debug_fail_h_steps(unsigned count)
{
    (void)count;
    return 0;
}

unsigned gpu_debug_fail_msm_pieces(unsigned count)
{
    (void)count;
    return 0;
}
