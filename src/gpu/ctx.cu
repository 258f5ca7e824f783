/* Device discovery, contexts, resident buffers, error mapping, and the
 * arithmetic test hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec_g1.cuh"
#include "ctx_impl.cuh"
#include "trace.cuh"

cuzk_status gpu_fail(cuzk_error *err, cudaError_t e, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();
    cuzk_status code = e == cudaErrorMemoryAllocation ? CUZK_ERR_NOMEM : CUZK_ERR_GPU;
    size_t cap = gpu_mem_cap();
    int device = -1;
    if (code == CUZK_ERR_NOMEM && cap && cudaGetDevice(&device) == cudaSuccess)
        return cuzk_error_set(err, code,
                              "gpu: %s failed at %s:%d: out of device memory under the cap of %zu bytes "
                              "(gpu.memory_limit; %zu held on device %d)",
                              what, file, line, cap, gpu_mem_live(device), device);
    return cuzk_error_set(err, code, "gpu: %s failed at %s:%d: %s (%s)", what, file, line, cudaGetErrorString(e),
                          cudaGetErrorName(e));
}

extern "C" int gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" cuzk_status gpu_device_get_info(int device, gpu_device_info *info, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    cudaDeviceProp prop;
    size_t free_b = 0, total_b = 0;
    if (info == NULL || device < 0 || device >= gpu_device_count())
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu: no device %d (found %d)", device, gpu_device_count());
    GPU_TRY(cudaGetDeviceProperties(&prop, device));
    GPU_TRY(cudaSetDevice(device));
    GPU_TRY(gpu_mem_get_info(&free_b, &total_b));
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->sm_count = prop.multiProcessorCount;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->total_mem = total_b;
    info->free_mem = free_b;
    info->l2_bytes = (size_t)prop.l2CacheSize;
done:
    return st;
}

cuzk_status gpu_ctx_enter(gpu_ctx *ctx, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    if (ctx == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu: NULL context");
    GPU_TRY(cudaSetDevice(ctx->device));
done:
    return st;
}

extern "C" cuzk_status gpu_ctx_create(gpu_ctx **out, int device, cuzk_error *err)
{
    return gpu_ctx_create_prio(out, device, GPU_PRIO_LOW, err);
}

extern "C" cuzk_status gpu_ctx_create_prio(gpu_ctx **out, int device, int prio, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    gpu_ctx *ctx = NULL;
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    int count = gpu_device_count();
    if (out == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ctx_create: NULL out");
    *out = NULL;
    if (device < 0 || device >= count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ctx_create: no device %d (found %d)", device, count);
    ctx = (gpu_ctx *)calloc(1, sizeof *ctx);
    if (ctx == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_ctx_create: out of host memory");
    ctx->device = device;
    GPU_TRY(cudaSetDevice(device));
    GPU_TRY(cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device));
    if (prio == GPU_PRIO_URGENT || prio == GPU_PRIO_ABOVE) {
        /* Greater priorities are smaller numbers. */
        int least = 0, greatest = 0;
        GPU_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        int p = prio == GPU_PRIO_URGENT || greatest > least - 1 ? greatest : least - 1;
        GPU_TRY(cudaStreamCreateWithPriority(&ctx->stream, cudaStreamNonBlocking, p));
        ctx->urgent = prio == GPU_PRIO_URGENT;
    } else {
        GPU_TRY(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    }
    GPU_TRY(cudaEventCreate(&ctx->ev_start));
    GPU_TRY(cudaEventCreate(&ctx->ev_stop));
    /* Keep freed pool memory cached: later calls then allocate without touching the driver. Under a cap the pool
     * keeps at most the cap (it trims down to it at each synchronization), as a card of that size would. */
    if (gpu_mem_cap()) keep = gpu_mem_cap();
    GPU_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
    GPU_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    *out = ctx;
    return CUZK_OK;
done:
    gpu_ctx_destroy(ctx);
    return st;
}

extern "C" void gpu_ctx_destroy(gpu_ctx *ctx)
{
    if (ctx == NULL) return;
    if (cudaSetDevice(ctx->device) == cudaSuccess) {
        if (ctx->stream) cudaStreamSynchronize(ctx->stream);
        for (int i = 0; i < 2; i++) {
            if (ctx->stage_ev[i]) cudaEventDestroy(ctx->stage_ev[i]);
            if (ctx->stage[i]) cudaFreeHost(ctx->stage[i]);
        }
        if (ctx->ev_start) cudaEventDestroy(ctx->ev_start);
        if (ctx->ev_stop) cudaEventDestroy(ctx->ev_stop);
        if (ctx->stream) cudaStreamDestroy(ctx->stream);
    }
    (void)cudaGetLastError();
    free(ctx);
}

extern "C" double gpu_ctx_last_ms(const gpu_ctx *ctx)
{
    return ctx ? ctx->last_ms : 0.0;
}

int gpu_is_device_ptr(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

cudaError_t gpu_copy_h2d_sliced(void *dst, const void *src, size_t bytes, cudaStream_t stream)
{
    size_t slice = gpu_tune_get().copy_slice;
    if (slice == 0 || slice > bytes) slice = bytes;
    cudaError_t e = cudaSuccess;
    for (size_t off = 0; off < bytes && e == cudaSuccess; off += slice) {
        size_t len = bytes - off < slice ? bytes - off : slice;
        e = cudaMemcpyAsync((char *)dst + off, (const char *)src + off, len, cudaMemcpyHostToDevice, stream);
    }
    return e;
}

int gpu_is_pageable(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    return a.type == cudaMemoryTypeUnregistered;
}

/* ctx's staging buffers, at least want bytes each (up to GPU_STAGE_MAX): (re)allocated once the DMA out of the
 * old ones has ended. */
static cuzk_status stage_reserve(gpu_ctx *ctx, size_t want, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t bytes = (size_t)1 << 20;
    if (want > GPU_STAGE_MAX) want = GPU_STAGE_MAX;
    if (ctx->stage_bytes >= want) return CUZK_OK;
    while (bytes < want) bytes *= 2;
    for (int i = 0; i < 2; i++) {
        if (ctx->stage_ev[i] == NULL) GPU_TRY(cudaEventCreateWithFlags(&ctx->stage_ev[i], cudaEventDisableTiming));
        GPU_TRY(cudaEventSynchronize(ctx->stage_ev[i]));
    }
    ctx->stage_bytes = 0;
    for (int i = 0; i < 2; i++) {
        if (ctx->stage[i]) cudaFreeHost(ctx->stage[i]);
        ctx->stage[i] = NULL;
        GPU_TRY(cudaMallocHost(&ctx->stage[i], bytes));
    }
    ctx->stage_bytes = bytes;
done:
    return st;
}

cuzk_status gpu_upload_filled(gpu_ctx *ctx, void *dst, size_t bytes, size_t unit, gpu_fill_fn fill, void *arg,
                              const char *trace_name, cuzk_error *err)
{
    cuzk_status st = bytes ? stage_reserve(ctx, bytes, err) : CUZK_OK;
    if (st != CUZK_OK || bytes == 0) return st;
    if (unit == 0 || unit > ctx->stage_bytes) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu: bad upload unit");
    size_t per = ctx->stage_bytes / unit * unit;
    for (size_t off = 0; off < bytes; off += per) {
        unsigned i = ctx->stage_next++ & 1;
        size_t len = bytes - off < per ? bytes - off : per;
        GPU_TRY(cudaEventSynchronize(ctx->stage_ev[i]));
        fill(arg, ctx->stage[i], off, len);
        int span = trace_name ? gpu_trace_begin(ctx->stream, trace_name, len / unit) : -1;
        cudaError_t e = cudaMemcpyAsync((char *)dst + off, ctx->stage[i], len, cudaMemcpyHostToDevice, ctx->stream);
        gpu_trace_end(span, ctx->stream); /* before a failure's goto: no span left open */
        GPU_TRY(e);
        GPU_TRY(cudaEventRecord(ctx->stage_ev[i], ctx->stream));
    }
done:
    return st;
}

/* A copy's source (copy_fill): src, by pool's threads. */
typedef struct copy_job {
    pool_t *pool;
    const char *src;
} copy_job;

static void copy_fill(void *arg, void *stage, size_t off, size_t len)
{
    const copy_job *c = (const copy_job *)arg;
    pool_memcpy(c->pool, stage, c->src + off, len);
}

cuzk_status gpu_copy_h2d(gpu_ctx *ctx, pool_t *pool, void *dst, const void *src, size_t bytes, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    if (bytes == 0) return CUZK_OK;
    if (gpu_is_device_ptr(src)) {
        GPU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx->stream));
    } else if (gpu_is_pageable(src)) {
        copy_job c = {pool, (const char *)src};
        st = gpu_upload_filled(ctx, dst, bytes, 1, copy_fill, &c, NULL, err);
    } else {
        GPU_TRY(gpu_copy_h2d_sliced(dst, src, bytes, ctx->stream));
    }
done:
    return st;
}

cuzk_status gpu_stage_in(gpu_ctx *ctx, const void *p, size_t bytes, const void **dev, void **owned, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    void *d = NULL;
    *owned = NULL;
    if (bytes == 0 || gpu_is_device_ptr(p)) {
        *dev = p;
        return CUZK_OK;
    }
    GPU_TRY(gpu_malloc_async(&d, bytes, ctx->stream));
    if ((st = gpu_copy_h2d(ctx, NULL, d, p, bytes, err)) != CUZK_OK) goto done;
    *dev = d;
    *owned = d;
    return CUZK_OK;
done:
    if (d) gpu_free_async(d, ctx->stream);
    return st;
}

extern "C" cuzk_status gpu_buf_upload(gpu_ctx *ctx, gpu_buf **out, const void *host, size_t bytes, cuzk_error *err)
{
    cuzk_status st = gpu_ctx_enter(ctx, err);
    gpu_buf *b = NULL;
    if (st != CUZK_OK) return st;
    if (out == NULL || (host == NULL && bytes > 0))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_buf_upload: NULL argument");
    *out = NULL;
    b = (gpu_buf *)calloc(1, sizeof *b);
    if (b == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_buf_upload: out of host memory");
    b->ctx = ctx;
    b->bytes = bytes;
    /* A long-lived buffer: plain allocation, outside the pool the per-call temporaries cycle through. */
    GPU_TRY(gpu_malloc(&b->ptr, bytes ? bytes : 1));
    if (bytes) GPU_TRY(cudaMemcpyAsync(b->ptr, host, bytes, cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    *out = b;
    return CUZK_OK;
done:
    if (st == CUZK_ERR_NOMEM) cuzk_error_prefix(err, "gpu_buf_upload of %zu bytes: ", bytes);
    gpu_buf_free(b);
    return st;
}

extern "C" void gpu_buf_free(gpu_buf *buf)
{
    if (buf == NULL) return;
    if (buf->ptr && cudaSetDevice(buf->ctx->device) == cudaSuccess) {
        cudaStreamSynchronize(buf->ctx->stream);
        gpu_free(buf->ptr);
    }
    (void)cudaGetLastError();
    free(buf);
}

extern "C" const void *gpu_buf_ptr(const gpu_buf *buf)
{
    return buf ? buf->ptr : NULL;
}

extern "C" size_t gpu_buf_size(const gpu_buf *buf)
{
    return buf ? buf->bytes : 0;
}

/* ---- test hooks ---- */

template <class C> __global__ void debug_mul_kernel(mont_t<C> *out, const mont_t<C> *a, const mont_t<C> *b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    mont_t<C> r;
    mont_mul<C>(r, a[i], b[i]);
    out[i] = r;
}

__global__ void debug_g1_add_kernel(g1_xyzz_d *out, const g1_aff_d *a, const g1_aff_d *b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    /* Odd i through the full XYZZ addition, even i through the mixed one, so one call checks both. */
    g1_xyzz_d r, t;
    g1_xyzz_from_aff(r, a[i]);
    if (i & 1) {
        g1_xyzz_from_aff(t, b[i]);
        g1_xyzz_add(r, t);
    } else {
        g1_xyzz_madd(r, b[i], false);
    }
    out[i] = r;
}

/* Runs one elementwise kernel over host arrays: in0, in1 (elem_in bytes each) -> out (elem_out bytes). */
template <class Launch>
static cuzk_status debug_run(gpu_ctx *ctx, void *out, size_t elem_out, const void *in0, const void *in1, size_t elem_in,
                             size_t n, Launch launch, cuzk_error *err)
{
    cuzk_status st = gpu_ctx_enter(ctx, err);
    void *d_out = NULL, *d_a = NULL, *d_b = NULL;
    if (st != CUZK_OK) return st;
    if (n == 0) return CUZK_OK;
    GPU_TRY(gpu_malloc_async(&d_out, n * elem_out, ctx->stream));
    GPU_TRY(gpu_malloc_async(&d_a, n * elem_in, ctx->stream));
    GPU_TRY(gpu_malloc_async(&d_b, n * elem_in, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_a, in0, n * elem_in, cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_b, in1, n * elem_in, cudaMemcpyHostToDevice, ctx->stream));
    launch(d_out, d_a, d_b, (unsigned)((n + 127) / 128), ctx->stream);
    GPU_LAUNCHED("debug kernel");
    GPU_TRY(cudaMemcpyAsync(out, d_out, n * elem_out, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
done:
    if (d_out) gpu_free_async(d_out, ctx->stream);
    if (d_a) gpu_free_async(d_a, ctx->stream);
    if (d_b) gpu_free_async(d_b, ctx->stream);
    return st;
}

extern "C" cuzk_status gpu_debug_fp_mul(gpu_ctx *ctx, fp_t *out, const fp_t *a, const fp_t *b, size_t n,
                                        cuzk_error *err)
{
    return debug_run(
        ctx, out, sizeof *out, a, b, sizeof *a, n,
        [n](void *o, void *x, void *y, unsigned blocks, cudaStream_t s) {
            debug_mul_kernel<fp_cfg><<<blocks, 128, 0, s>>>((fp_d *)o, (const fp_d *)x, (const fp_d *)y, n);
        },
        err);
}

extern "C" cuzk_status gpu_debug_fr_mul(gpu_ctx *ctx, fr_t *out, const fr_t *a, const fr_t *b, size_t n,
                                        cuzk_error *err)
{
    return debug_run(
        ctx, out, sizeof *out, a, b, sizeof *a, n,
        [n](void *o, void *x, void *y, unsigned blocks, cudaStream_t s) {
            debug_mul_kernel<fr_cfg><<<blocks, 128, 0, s>>>((fr_d *)o, (const fr_d *)x, (const fr_d *)y, n);
        },
        err);
}

extern "C" cuzk_status gpu_debug_g1_add(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *a, const g1_affine_t *b,
                                        size_t n, cuzk_error *err)
{
    cuzk_status st;
    g1_xyzz_t *tmp = (g1_xyzz_t *)malloc(n ? n * sizeof *tmp : 1);
    if (tmp == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_debug_g1_add: out of host memory");
    st = debug_run(
        ctx, tmp, sizeof *tmp, a, b, sizeof *a, n,
        [n](void *o, void *x, void *y, unsigned blocks, cudaStream_t s) {
            debug_g1_add_kernel<<<blocks, 128, 0, s>>>((g1_xyzz_d *)o, (const g1_aff_d *)x, (const g1_aff_d *)y, n);
        },
        err);
    if (st == CUZK_OK)
        for (size_t i = 0; i < n; i++) g1_xyzz_to_jac(&out[i], &tmp[i]);
    free(tmp);
    return st;
}
