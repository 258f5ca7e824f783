/* gpu_fp_chain (gpu.h): chains of Fp Montgomery products by the 32-bit integer arithmetic of the MSM and NTT
 * (ff_mont.cuh), one chain a thread. */
#include "gpu/ctx_impl.cuh"
#include "gpu/ff_mont.cuh"

#define CHAIN_THREADS 256

__global__ void chain_kernel(fp_d *out, const fp_d *x, const fp_d *y, size_t n, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fp_d a = x[i], b = y[i];
#pragma unroll 1
    for (unsigned k = 0; k < iters; k++) mont_mul<fp_cfg>(a, a, b);
    out[i] = a;
}

extern "C" cuzk_status gpu_fp_chain(gpu_ctx *ctx, fp_t *out, const fp_t *x, const fp_t *y, size_t n, unsigned iters,
                                    double *kernel_ms, cuzk_error *err)
{
    if (!ctx || (n && (!out || !x || !y)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_fp_chain: NULL context or array");
    if (n >= ((size_t)1 << 31)) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_fp_chain: n >= 2^31");
    cuzk_status st = gpu_ctx_enter(ctx, err);
    fp_t *d_out = NULL, *d_x = NULL, *d_y = NULL;
    if (st != CUZK_OK) return st;
    if (kernel_ms) *kernel_ms = 0;
    if (n == 0) return CUZK_OK;
    size_t bytes = n * sizeof(fp_t);
    unsigned blocks = (unsigned)((n + CHAIN_THREADS - 1) / CHAIN_THREADS);
    float ms = 0;
    GPU_TRY(gpu_malloc_async(&d_out, bytes, ctx->stream));
    GPU_TRY(gpu_malloc_async(&d_x, bytes, ctx->stream));
    GPU_TRY(gpu_malloc_async(&d_y, bytes, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_x, x, bytes, cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_y, y, bytes, cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    chain_kernel<<<blocks, CHAIN_THREADS, 0, ctx->stream>>>((fp_d *)d_out, (const fp_d *)d_x, (const fp_d *)d_y, n,
                                                            iters);
    GPU_LAUNCHED("chain_kernel");
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(out, d_out, bytes, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    if (kernel_ms) *kernel_ms = ms;
done:
    if (d_out) gpu_free_async(d_out, ctx->stream);
    if (d_x) gpu_free_async(d_x, ctx->stream);
    if (d_y) gpu_free_async(d_y, ctx->stream);
    return st;
}
