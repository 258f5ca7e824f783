/* a, b, c on the device from a compiled r1cs (gpu_abc.h): the sparse matrices times the witness.
 *
 * The evaluation is memory bound (PoRep rows hold ~2.4 / 1.0 / 2.2 terms in A / B / C, 97% of the witness values
 * are 0 or 1), so the device copy is compacted (u32 row offsets, u16 coefficient indices) and a term costs as
 * little as its value allows: a zero value only its load, coefficient index 0 (the value 1) or a value of one an
 * addition, the rest a Montgomery product. One thread computes one row. A few rows are long (bellperson's multieq
 * packings: hundreds of terms) and would hold their warp for all of them: the "hybrid" variant leaves rows above
 * ABC_LONG_ROW terms to a second kernel in which a warp sums one row (lanes over strided terms, then a shuffle
 * reduction). Field addition is exact, so neither the order of the terms nor the split changes a bit. */
#include <stdlib.h>
#include <string.h>

#include "ctx_impl.cuh"
#include "ff_mont.cuh"

extern "C" {
#include "gpu/gpu_abc.h"
}

/* Rows with more terms than this go to the warp kernel (hybrid variant). */
#define ABC_LONG_ROW 32u
/* Host chunk for the compacting conversions during the upload (entries). */
#define CONV_CHUNK ((size_t)1 << 22)

enum { ABC_THREAD = 0, ABC_HYBRID = 1, ABC_VARIANTS = 2 };
static const char *const VARIANT_NAME[ABC_VARIANTS] = {"thread", "hybrid"};

struct gpu_shape {
    int device;
    size_t num_inputs, num_aux, num_constraints, num_coeffs;
    int off64; /* row offsets as u64 (some matrix has 2^32 non-zeros or more), else u32 */
    int ci32;  /* coefficient indices as u32 (more than 65536 coefficients), else u16 */
    void *off[3];
    uint32_t *col[3];
    void *ci[3];
    uint32_t *long_rows[3]; /* rows with more than ABC_LONG_ROW terms */
    size_t n_long[3];
    size_t nnz[3];
    fr_t *coeffs;
    size_t bytes;
};

/* ---- device ---- */

template <class OFF, class CI> struct mat_d {
    const OFF *off;
    const uint32_t *col;
    const CI *ci;
    const uint32_t *long_rows;
    uint32_t n_long;
};

template <class OFF, class CI> struct eval_args {
    mat_d<OFF, CI> m[3];
    fr_d *out[3];
    const fr_d *w;
    const fr_d *coeffs;
    uint32_t rows;
    uint32_t skip_above; /* rows longer than this are left to the warp kernel; UINT32_MAX: none */
};

__device__ __forceinline__ bool abc_is_one(const fr_d &x)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < fr_cfg::N; i++) acc |= x.v[i] ^ fr_cfg::one(i);
    return acc == 0;
}

/* acc += coeffs[ci] * w[j], by the cheapest way the values allow. */
template <class CI>
__device__ __forceinline__ void abc_term(fr_d &acc, const fr_d *w, const fr_d *coeffs, uint32_t j, const CI *cip,
                                         uint64_t k)
{
    fr_d x = fr_ldg(w + j);
    if (mont_is_zero(x)) return;
    uint32_t ci = __ldg(cip + k);
    if (ci == 0) {
        mont_add(acc, acc, x);
        return;
    }
    fr_d c = fr_ldg(coeffs + ci);
    if (abc_is_one(x)) {
        mont_add(acc, acc, c);
    } else {
        fr_d t;
        mont_mul(t, x, c);
        mont_add(acc, acc, t);
    }
}

/* One thread per row; blockIdx.y is the matrix. */
template <class OFF, class CI> __global__ void abc_rows_kernel(eval_args<OFF, CI> args)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= args.rows) return;
    const mat_d<OFF, CI> &m = args.m[blockIdx.y];
    uint64_t k0 = __ldg(m.off + i), k1 = __ldg(m.off + i + 1);
    if (k1 - k0 > args.skip_above) return;
    fr_d acc;
    mont_set_zero(acc);
    for (uint64_t k = k0; k < k1; k++) abc_term(acc, args.w, args.coeffs, __ldg(m.col + k), m.ci, k);
    fr_st(args.out[blockIdx.y] + i, acc);
}

/* One warp per long row (grid-stride over the matrix's list); blockIdx.y is the matrix. */
template <class OFF, class CI> __global__ void abc_long_kernel(eval_args<OFF, CI> args)
{
    const mat_d<OFF, CI> &m = args.m[blockIdx.y];
    uint32_t lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t nwarps = (gridDim.x * blockDim.x) >> 5;
    for (uint32_t r = warp; r < m.n_long; r += nwarps) {
        uint32_t i = __ldg(m.long_rows + r);
        uint64_t k0 = __ldg(m.off + i), k1 = __ldg(m.off + i + 1);
        fr_d acc;
        mont_set_zero(acc);
        for (uint64_t k = k0 + lane; k < k1; k += 32) abc_term(acc, args.w, args.coeffs, __ldg(m.col + k), m.ci, k);
#pragma unroll
        for (int s = 16; s > 0; s >>= 1) {
            fr_d o;
#pragma unroll
            for (int l = 0; l < fr_cfg::N; l++) o.v[l] = __shfl_down_sync(0xffffffffu, acc.v[l], s);
            mont_add(acc, acc, o);
        }
        if (lane == 0) fr_st(args.out[blockIdx.y] + i, acc);
    }
}

/* ---- host ---- */

static cuzk_status variant_get(int *v, cuzk_error *err)
{
    gpu_tune tune = gpu_tune_get();
    const char *e = tune.abc_variant;
    *v = gpu_abc_variant_default();
    if (*e == '\0') return CUZK_OK;
    for (int k = 0; k < ABC_VARIANTS; k++)
        if (strcmp(e, VARIANT_NAME[k]) == 0 || (e[0] == '0' + k && e[1] == '\0')) {
            *v = k;
            return CUZK_OK;
        }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu abc: CUZK_GPU_ABC=%s is not a variant (thread, hybrid)", e);
}

extern "C" int gpu_abc_variant_count(void)
{
    return ABC_VARIANTS;
}

extern "C" int gpu_abc_variant_default(void)
{
    return ABC_HYBRID;
}

extern "C" const char *gpu_abc_variant_name(int variant)
{
    return variant >= 0 && variant < ABC_VARIANTS ? VARIANT_NAME[variant] : NULL;
}

extern "C" void gpu_shape_free(gpu_shape *s)
{
    if (s == NULL) return;
    int prev = -1;
    (void)cudaGetDevice(&prev);
    if (cudaSetDevice(s->device) == cudaSuccess) {
        for (int m = 0; m < 3; m++) {
            gpu_free(s->off[m]);
            gpu_free(s->col[m]);
            gpu_free(s->ci[m]);
            gpu_free(s->long_rows[m]);
        }
        gpu_free(s->coeffs);
    }
    (void)cudaGetLastError();
    if (prev >= 0) (void)cudaSetDevice(prev);
    free(s);
}

extern "C" size_t gpu_shape_bytes(const gpu_shape *s)
{
    return s ? s->bytes : 0;
}

extern "C" int gpu_shape_device(const gpu_shape *s)
{
    return s ? s->device : -1;
}

extern "C" size_t gpu_shape_num_constraints(const gpu_shape *s)
{
    return s ? s->num_constraints : 0;
}

extern "C" size_t gpu_shape_num_inputs(const gpu_shape *s)
{
    return s ? s->num_inputs : 0;
}

extern "C" size_t gpu_shape_num_aux(const gpu_shape *s)
{
    return s ? s->num_aux : 0;
}

/* A long-lived device array of bytes (counted in s->bytes). */
static cuzk_status shape_alloc(gpu_shape *s, void **p, size_t bytes, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    GPU_TRY(gpu_malloc(p, bytes ? bytes : 1));
    s->bytes += bytes;
done:
    return st;
}

/* dst[0..n) (device, elements of dst_size bytes) = src[0..n) (host u32 or u64 per src64) narrowed, converted in
 * chunks through tmp (CONV_CHUNK elements of 8 bytes). */
static cuzk_status upload_narrowed(void *dst, size_t dst_size, const void *src, int src64, size_t n, void *tmp,
                                   cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    for (size_t off = 0; off < n; off += CONV_CHUNK) {
        size_t len = n - off < CONV_CHUNK ? n - off : CONV_CHUNK;
        for (size_t i = 0; i < len; i++) {
            uint64_t v = src64 ? ((const uint64_t *)src)[off + i] : ((const uint32_t *)src)[off + i];
            if (dst_size == 8)
                ((uint64_t *)tmp)[i] = v;
            else if (dst_size == 4)
                ((uint32_t *)tmp)[i] = (uint32_t)v;
            else
                ((uint16_t *)tmp)[i] = (uint16_t)v;
        }
        GPU_TRY(cudaMemcpy((char *)dst + off * dst_size, tmp, len * dst_size, cudaMemcpyHostToDevice));
    }
done:
    return st;
}

extern "C" cuzk_status gpu_shape_upload(int device, const r1cs *cs, gpu_shape **out, cuzk_error *err)
{
    if (out == NULL || cs == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_shape_upload: NULL");
    *out = NULL;
    if (!cs->finalized) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_shape_upload: shape is not finalized");
    const r1cs_matrix *mx[3] = {&cs->A, &cs->B, &cs->C};
    if (cs->witness_only || cs->checker || cs->A.rows != cs->num_constraints || cs->B.rows != cs->num_constraints ||
        cs->C.rows != cs->num_constraints || (cs->num_constraints > 0 && !cs->A.row_start))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_shape_upload: system holds no matrices (witness-only)");
    if (cs->num_constraints >= (1ull << 31) || cs->num_inputs + cs->num_aux >= (1ull << 32))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_shape_upload: %zu constraints / %zu variables: too many",
                              cs->num_constraints, cs->num_inputs + cs->num_aux);
    gpu_shape *s = (gpu_shape *)calloc(1, sizeof *s);
    void *tmp = malloc(CONV_CHUNK * 8);
    uint32_t *lrows = NULL;
    if (s == NULL || tmp == NULL) {
        free(s);
        free(tmp);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_shape_upload: out of host memory");
    }
    s->device = device;
    s->num_inputs = cs->num_inputs;
    s->num_aux = cs->num_aux;
    s->num_constraints = cs->num_constraints;
    s->num_coeffs = cs->num_coeffs;
    s->ci32 = cs->num_coeffs > 65536;
    size_t rows = cs->num_constraints;
    for (int m = 0; m < 3; m++) {
        s->nnz[m] = rows ? (size_t)mx[m]->row_start[rows] : 0;
        if (s->nnz[m] >= (1ull << 32)) s->off64 = 1;
    }
    cuzk_status st = CUZK_OK;
    GPU_TRY(cudaSetDevice(device));
    for (int m = 0; m < 3 && st == CUZK_OK; m++) {
        size_t osz = s->off64 ? 8 : 4, csz = s->ci32 ? 4 : 2, n = s->nnz[m];
        st = shape_alloc(s, &s->off[m], (rows + 1) * osz, err);
        if (st == CUZK_OK) st = shape_alloc(s, (void **)&s->col[m], n * 4, err);
        if (st == CUZK_OK) st = shape_alloc(s, &s->ci[m], n * csz, err);
        if (st != CUZK_OK) break;
        if (rows) {
            st = upload_narrowed(s->off[m], osz, mx[m]->row_start, 1, rows + 1, tmp, err);
            if (st == CUZK_OK) GPU_TRY(cudaMemcpy(s->col[m], mx[m]->col, n * 4, cudaMemcpyHostToDevice));
            if (st == CUZK_OK) st = upload_narrowed(s->ci[m], csz, mx[m]->coeff, 0, n, tmp, err);
        } else {
            GPU_TRY(cudaMemset(s->off[m], 0, osz));
        }
        if (st != CUZK_OK) break;
        /* The long rows, listed once here so that the evaluation never scans for them. */
        size_t nl = 0;
        for (size_t i = 0; i < rows; i++) nl += mx[m]->row_start[i + 1] - mx[m]->row_start[i] > ABC_LONG_ROW;
        free(lrows);
        lrows = (uint32_t *)malloc((nl + 1) * sizeof *lrows);
        if (lrows == NULL) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_shape_upload: out of host memory");
            break;
        }
        nl = 0;
        for (size_t i = 0; i < rows; i++)
            if (mx[m]->row_start[i + 1] - mx[m]->row_start[i] > ABC_LONG_ROW) lrows[nl++] = (uint32_t)i;
        s->n_long[m] = nl;
        st = shape_alloc(s, (void **)&s->long_rows[m], nl * 4, err);
        if (st == CUZK_OK && nl) GPU_TRY(cudaMemcpy(s->long_rows[m], lrows, nl * 4, cudaMemcpyHostToDevice));
    }
    if (st == CUZK_OK) st = shape_alloc(s, (void **)&s->coeffs, cs->num_coeffs * sizeof(fr_t), err);
    if (st == CUZK_OK && cs->num_coeffs)
        GPU_TRY(cudaMemcpy(s->coeffs, cs->coeffs, cs->num_coeffs * sizeof(fr_t), cudaMemcpyHostToDevice));
done:
    free(tmp);
    free(lrows);
    if (st != CUZK_OK) {
        size_t need = s->bytes;
        gpu_shape_free(s);
        return cuzk_error_prefix(err, "gpu_shape_upload (device %d, %zu bytes so far): ", device, need);
    }
    *out = s;
    return CUZK_OK;
}

template <class OFF, class CI>
static cudaError_t launch(const gpu_shape *s, int variant, int sm_count, const fr_d *w, fr_t *const out[3],
                          cudaStream_t stream)
{
    eval_args<OFF, CI> args;
    memset(&args, 0, sizeof args);
    size_t max_long = 0;
    for (int m = 0; m < 3; m++) {
        args.m[m].off = (const OFF *)s->off[m];
        args.m[m].col = s->col[m];
        args.m[m].ci = (const CI *)s->ci[m];
        args.m[m].long_rows = s->long_rows[m];
        args.m[m].n_long = (uint32_t)s->n_long[m];
        args.out[m] = (fr_d *)out[m];
        if (s->n_long[m] > max_long) max_long = s->n_long[m];
    }
    args.w = w;
    args.coeffs = (const fr_d *)s->coeffs;
    args.rows = (uint32_t)s->num_constraints;
    int hybrid = variant == ABC_HYBRID && max_long > 0;
    args.skip_above = hybrid ? ABC_LONG_ROW : UINT32_MAX;
    const unsigned T = 256;
    dim3 grid((unsigned)((s->num_constraints + T - 1) / T), 3);
    abc_rows_kernel<OFF, CI><<<grid, T, 0, stream>>>(args);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || !hybrid) return e;
    /* Enough warps for every long row, up to a few blocks per SM. */
    size_t blocks = (max_long * 32 + T - 1) / T, cap = (size_t)sm_count * 8;
    dim3 lgrid((unsigned)(blocks < cap ? blocks : cap), 3);
    abc_long_kernel<OFF, CI><<<lgrid, T, 0, stream>>>(args);
    return cudaGetLastError();
}

static cuzk_status check_eval(gpu_ctx *ctx, const gpu_shape *s, const char *who, cuzk_error *err)
{
    if (ctx == NULL || s == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: NULL argument", who);
    if (ctx->device != s->device)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: shape on device %d, context on device %d", who, s->device,
                              ctx->device);
    return CUZK_OK;
}

extern "C" cuzk_status gpu_shape_eval_device(gpu_ctx *ctx, const gpu_shape *s, const fr_t *w, fr_t *a, fr_t *b, fr_t *c,
                                             double *ms, cuzk_error *err)
{
    int variant;
    cudaEvent_t ev[2] = {NULL, NULL};
    fr_t *out[3] = {a, b, c};
    if (ms) *ms = 0;
    cuzk_status st = check_eval(ctx, s, "gpu_shape_eval_device", err);
    if (st == CUZK_OK) st = variant_get(&variant, err);
    if (st == CUZK_OK) st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (s->num_constraints == 0) return CUZK_OK;
    if (!a || !b || !c || (!w && s->num_inputs + s->num_aux))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_shape_eval_device: NULL vector");
    GPU_TRY(cudaEventCreate(&ev[0]));
    GPU_TRY(cudaEventCreate(&ev[1]));
    GPU_TRY(cudaEventRecord(ev[0], ctx->stream));
    {
        const fr_d *wd = (const fr_d *)w;
        int sm = ctx->sm_count;
        cudaStream_t q = ctx->stream;
        cudaError_t e = s->off64 ? (s->ci32 ? launch<uint64_t, uint32_t>(s, variant, sm, wd, out, q)
                                            : launch<uint64_t, uint16_t>(s, variant, sm, wd, out, q))
                                 : (s->ci32 ? launch<uint32_t, uint32_t>(s, variant, sm, wd, out, q)
                                            : launch<uint32_t, uint16_t>(s, variant, sm, wd, out, q));
        GPU_TRY(e);
    }
    GPU_TRY(cudaEventRecord(ev[1], ctx->stream));
    GPU_TRY(cudaEventSynchronize(ev[1]));
    if (ms) {
        float f = 0;
        GPU_TRY(cudaEventElapsedTime(&f, ev[0], ev[1]));
        *ms = f;
    }
done:
    for (int i = 0; i < 2; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    if (st != CUZK_OK) cuzk_error_prefix(err, "gpu_shape_eval_device: ");
    return st;
}

static double elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float f = 0;
    if (cudaEventElapsedTime(&f, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return f;
}

extern "C" cuzk_status gpu_shape_eval(gpu_ctx *ctx, const gpu_shape *s, const fr_t *inputs, size_t num_inputs,
                                      const fr_t *aux, size_t num_aux, fr_t *a, fr_t *b, fr_t *c, gpu_abc_timings *t,
                                      cuzk_error *err)
{
    gpu_abc_timings tm = {0, 0, 0};
    if (t) *t = tm;
    cuzk_status st = check_eval(ctx, s, "gpu_shape_eval", err);
    if (st != CUZK_OK) return st;
    if (num_inputs != s->num_inputs || num_aux != s->num_aux)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "gpu_shape_eval: witness of %zu inputs / %zu aux, shape of %zu / %zu", num_inputs,
                              num_aux, s->num_inputs, s->num_aux);
    size_t n = s->num_constraints, nw = num_inputs + num_aux;
    if ((!inputs && num_inputs) || (!aux && num_aux) || (n && (!a || !b || !c)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_shape_eval: NULL vector");
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    fr_t *out[3] = {a, b, c}, *dev[3] = {NULL, NULL, NULL}, *w = NULL;
    int host_out = n && !gpu_is_device_ptr(a);
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) GPU_TRY(cudaEventCreate(&ev[i]));
    GPU_TRY(cudaEventRecord(ev[0], ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&w, (nw ? nw : 1) * sizeof(fr_t), ctx->stream));
    if (num_inputs) GPU_TRY(cudaMemcpyAsync(w, inputs, num_inputs * sizeof(fr_t), cudaMemcpyDefault, ctx->stream));
    if (num_aux) GPU_TRY(cudaMemcpyAsync(w + num_inputs, aux, num_aux * sizeof(fr_t), cudaMemcpyDefault, ctx->stream));
    GPU_TRY(cudaEventRecord(ev[1], ctx->stream));
    for (int k = 0; k < 3; k++) {
        if (host_out)
            GPU_TRY(gpu_malloc_async((void **)&dev[k], (n ? n : 1) * sizeof(fr_t), ctx->stream));
        else
            dev[k] = out[k];
    }
    GPU_TRY(cudaEventSynchronize(ev[1]));
    tm.upload_ms = elapsed(ev[0], ev[1]);
    st = gpu_shape_eval_device(ctx, s, w, dev[0], dev[1], dev[2], &tm.eval_ms, err);
    if (st != CUZK_OK) goto done;
    if (host_out) {
        GPU_TRY(cudaEventRecord(ev[1], ctx->stream));
        for (int k = 0; k < 3; k++)
            GPU_TRY(cudaMemcpyAsync(out[k], dev[k], n * sizeof(fr_t), cudaMemcpyDeviceToHost, ctx->stream));
        GPU_TRY(cudaEventRecord(ev[2], ctx->stream));
        GPU_TRY(cudaEventSynchronize(ev[2]));
        tm.download_ms = elapsed(ev[1], ev[2]);
    }
done:
    if (w) gpu_free_async(w, ctx->stream);
    for (int k = 0; k < 3; k++)
        if (host_out && dev[k]) gpu_free_async(dev[k], ctx->stream);
    {
        cudaError_t e = cudaStreamSynchronize(ctx->stream);
        if (e != cudaSuccess && st == CUZK_OK) st = gpu_fail(err, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    }
    for (int i = 0; i < 3; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    if (st == CUZK_OK && t) *t = tm;
    return st;
}
