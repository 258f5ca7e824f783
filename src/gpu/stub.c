/* cuzk_gpu without a CUDA compiler: no devices, and every operation of the gpu_*.h headers reports
 * CUZK_ERR_UNSUPPORTED naming itself (outputs cleared). The parameters are unused by design. */
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_g2.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_ntt.h"
#include "gpu/gpu_prove.h"
#include "gpu/gpu_setup.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NO_CUDA(err) cuzk_error_set((err), CUZK_ERR_UNSUPPORTED, "%s: cuzk was built without CUDA", __func__)

/* gpu.h */
int gpu_device_count(void)
{
    return 0;
}
cuzk_status gpu_device_get_info(int device, gpu_device_info *info, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_ctx_create(gpu_ctx **out, int device, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
cuzk_status gpu_ctx_create_prio(gpu_ctx **out, int device, int prio, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_ctx_destroy(gpu_ctx *ctx)
{}
double gpu_ctx_last_ms(const gpu_ctx *ctx)
{
    return 0.0;
}
size_t gpu_mem_live(int device)
{
    return 0;
}
size_t gpu_mem_peak(int device)
{
    return 0;
}
void gpu_mem_reset_peak(int device)
{}
cuzk_status gpu_mem_try_alloc(int device, size_t bytes, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_debug_mem_cost(int device, unsigned n, double *ns_seam, double *ns_raw, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_buf_upload(gpu_ctx *ctx, gpu_buf **out, const void *host, size_t bytes, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_buf_free(gpu_buf *buf)
{}
const void *gpu_buf_ptr(const gpu_buf *buf)
{
    return NULL;
}
size_t gpu_buf_size(const gpu_buf *buf)
{
    return 0;
}
cuzk_status gpu_msm_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                       cuzk_error *err)
{
    return gpu_msm_g1_window(ctx, out, bases, scalars, n, 0, err);
}
cuzk_status gpu_msm_g1_window(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                              unsigned c, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_msm_g1_variant(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                               unsigned c, gpu_msm_variant variant, cuzk_error *err)
{
    return gpu_msm_g1_window(ctx, out, bases, scalars, n, c, err);
}
cuzk_status gpu_msm_bases_prepare(gpu_ctx *ctx, gpu_msm_bases **out, const g1_affine_t *bases, size_t n, unsigned c,
                                  cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_msm_bases_free(gpu_msm_bases *pb)
{}
unsigned gpu_msm_bases_window(const gpu_msm_bases *pb)
{
    return 0;
}
unsigned gpu_msm_prepared_window_bits(const gpu_ctx *ctx, size_t n)
{
    return 0;
}
cuzk_status gpu_msm_g1_prepared(gpu_ctx *ctx, g1_jac_t *out, const gpu_msm_bases *pb, const fr_t *scalars, size_t n,
                                gpu_msm_variant variant, cuzk_error *err)
{
    return NO_CUDA(err);
}
unsigned gpu_msm_window_bits(const gpu_ctx *ctx, size_t n)
{
    return 0;
}
cuzk_status gpu_msm_glv_upload(gpu_ctx *ctx, gpu_buf **out, const g1_affine_t *bases, size_t n, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
cuzk_status gpu_msm_g1_glv(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, size_t phi_at, const fr_t *scalars,
                           size_t n, cuzk_error *err)
{
    return NO_CUDA(err);
}
unsigned gpu_msm_glv_window_bits(const gpu_ctx *ctx, size_t n)
{
    return 0;
}
cuzk_status gpu_batch_add_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask, size_t n,
                             cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_batch_add_g1_xyzz(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask, size_t n,
                                  cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_debug_fp_mul(gpu_ctx *ctx, fp_t *out, const fp_t *a, const fp_t *b, size_t n, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_debug_fr_mul(gpu_ctx *ctx, fr_t *out, const fr_t *a, const fr_t *b, size_t n, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_debug_g1_add(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *a, const g1_affine_t *b, size_t n,
                             cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_fp_chain(gpu_ctx *ctx, fp_t *out, const fp_t *x, const fp_t *y, size_t n, unsigned iters,
                         double *kernel_ms, cuzk_error *err)
{
    return NO_CUDA(err);
}

/* gpu_abc.h */
cuzk_status gpu_shape_upload(int device, const r1cs *shape, gpu_shape **out, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_shape_free(gpu_shape *s)
{}
size_t gpu_shape_bytes(const gpu_shape *s)
{
    return 0;
}
int gpu_shape_device(const gpu_shape *s)
{
    return -1;
}
size_t gpu_shape_num_constraints(const gpu_shape *s)
{
    return 0;
}
size_t gpu_shape_num_inputs(const gpu_shape *s)
{
    return 0;
}
size_t gpu_shape_num_aux(const gpu_shape *s)
{
    return 0;
}
cuzk_status gpu_shape_eval(gpu_ctx *ctx, const gpu_shape *s, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                           size_t num_aux, fr_t *a, fr_t *b, fr_t *c, gpu_abc_timings *t, cuzk_error *err)
{
    if (t) t->upload_ms = t->eval_ms = t->download_ms = 0;
    return NO_CUDA(err);
}
cuzk_status gpu_shape_eval_device(gpu_ctx *ctx, const gpu_shape *s, const fr_t *w, fr_t *a, fr_t *b, fr_t *c,
                                  double *ms, cuzk_error *err)
{
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
    return NULL;
}

/* gpu_g2.h */
cuzk_status gpu_batch_add_g2(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const uint64_t *mask, size_t n,
                             cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_msm_g2_indexed(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                               const uint32_t *idx, const fr_t *scalars, size_t n, cuzk_error *err)
{
    return NO_CUDA(err);
}
size_t gpu_msm_g2_peak_bytes(size_t n)
{
    return 0;
}
size_t gpu_msm_g2_piece(size_t n, size_t free_b)
{
    return n;
}
int gpu_g2_last_was_affine(void)
{
    return 0;
}

/* gpu_host.h */
cuzk_status gpu_host_register(void *p, size_t bytes, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_host_unregister(void *p, cuzk_error *err)
{
    return NO_CUDA(err);
}
int gpu_host_is_registered(const void *p)
{
    return 0;
}
cuzk_status gpu_host_alloc(size_t bytes, void **out, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_host_free(void *p)
{}

/* gpu_ntt.h */
cuzk_status gpu_ntt_plan_create(gpu_ctx *ctx, unsigned log_m, poly_roots roots, gpu_ntt_plan **out, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_ntt_plan_destroy(gpu_ntt_plan *plan)
{}
cuzk_status gpu_ntt(gpu_ntt_plan *plan, gpu_ntt_kind kind, const fr_t *shift, fr_t *data, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_ntt_h(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n, fr_t *h,
                      cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_ntt_h_device(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                             fr_t **h_dev, cuzk_error *err)
{
    if (h_dev) *h_dev = NULL;
    return NO_CUDA(err);
}
cuzk_status gpu_ntt_h_device_3(gpu_ntt_plan *plan, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                               fr_t **h_dev, cuzk_error *err)
{
    if (h_dev) *h_dev = NULL;
    return NO_CUDA(err);
}
cuzk_status gpu_ntt_h_device_own(gpu_ntt_plan *plan, h_form form, fr_t *a, fr_t *b, fr_t *c, size_t n, fr_t **h_dev,
                                 cuzk_error *err)
{
    if (h_dev) *h_dev = NULL;
    return NO_CUDA(err);
}
void gpu_ntt_h_free(gpu_ctx *ctx, fr_t *h_dev)
{}
cuzk_status gpu_ntt_copy(gpu_ctx *ctx, void *dst, const void *src, size_t bytes, cuzk_error *err)
{
    return NO_CUDA(err);
}
void gpu_ntt_last_ms(const gpu_ntt_plan *plan, double *total_ms, double *compute_ms)
{
    if (total_ms) *total_ms = 0;
    if (compute_ms) *compute_ms = 0;
}
cuzk_status gpu_ntt_mul_rate(gpu_ctx *ctx, double *muls_per_s, cuzk_error *err)
{
    if (muls_per_s) *muls_per_s = 0;
    return NO_CUDA(err);
}
double gpu_ntt_mul_count(unsigned log_m, gpu_ntt_kind kind)
{
    return 0;
}
unsigned gpu_ntt_pass_count(unsigned log_m)
{
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
    return NULL;
}
int gpu_ntt_plan_variant(const gpu_ntt_plan *plan)
{
    return -1;
}

/* gpu_prove.h */
cuzk_status gpu_params_upload(int device, const groth16_params *params, gpu_params **out, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_params_free(gpu_params *gp)
{}
size_t gpu_params_bytes(const gpu_params *gp)
{
    return 0;
}
int gpu_params_device(const gpu_params *gp)
{
    return -1;
}
cuzk_status gpu_prover_create(int device, gpu_prover **out, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
cuzk_status gpu_prover_create_urgent(int device, gpu_prover **out, cuzk_error *err)
{
    if (out) *out = NULL;
    return NO_CUDA(err);
}
void gpu_prover_destroy(gpu_prover *pv)
{}
void gpu_prover_set_split(gpu_prover *pv, gpu_prove_split mode)
{}
void gpu_prover_set_overlap(gpu_prover *pv, int on)
{}
void gpu_prover_on_abc_done(gpu_prover *pv, void (*fn)(void *ctx), void *ctx)
{}
cuzk_status gpu_prove_start_abc(gpu_prover *pv, const gpu_params *gp, pool_t *pool, const groth16_params *params,
                                size_t num_constraints, const fr_t *a, const fr_t *b, const fr_t *c, const fr_t *inputs,
                                size_t num_inputs, const fr_t *aux, size_t num_aux, const r1cs_density *density,
                                groth16_pending *pending, groth16_timings *timings, gpu_prove_timings *gt,
                                cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_prove_start_shape(gpu_prover *pv, const gpu_params *gp, const gpu_shape *shape, pool_t *pool,
                                  const groth16_params *params, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                                  size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                  groth16_timings *timings, gpu_prove_timings *gt, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_prove_start_once(int device, pool_t *pool, const groth16_params *params, size_t num_constraints,
                                 const fr_t *a, const fr_t *b, const fr_t *c, const fr_t *inputs, size_t num_inputs,
                                 const fr_t *aux, size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                 cuzk_error *err)
{
    return NO_CUDA(err);
}
unsigned gpu_debug_fail_h_steps(unsigned count)
{
    return 0;
}
unsigned gpu_debug_fail_msm_pieces(unsigned count)
{
    return 0;
}
unsigned gpu_debug_fail_g2_pieces(unsigned count)
{
    return 0;
}

/* gpu_setup.h */
cuzk_status gpu_fixed_base_create(gpu_ctx *ctx, gpu_fixed_base **out, cuzk_error *err)
{
    *out = NULL;
    return NO_CUDA(err);
}
void gpu_fixed_base_destroy(gpu_fixed_base *fb)
{}
cuzk_status gpu_fixed_base_g1(gpu_fixed_base *fb, pool_t *pool, const g1_affine_t *table, unsigned w, const fr_t *s,
                              size_t n, g1_affine_t *out, cuzk_error *err)
{
    return NO_CUDA(err);
}
cuzk_status gpu_fixed_base_g2(gpu_fixed_base *fb, pool_t *pool, const g2_affine_t *table, unsigned w, const fr_t *s,
                              size_t n, g2_affine_t *out, cuzk_error *err)
{
    return NO_CUDA(err);
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
