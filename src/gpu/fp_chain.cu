/* gpu_fp_chain (gpu.h): chains of Fp Montgomery products by the 32-bit integer arithmetic (mont.cuh), the FP64 ones
 * (fp_dfma.h: fpd_mul, fpd_mul_ia), or int32 and an FP64 one in one kernel (even warps integer and odd warps FP64, or
 * int32 and fpd_mul in every thread). */
#include "gpu/fp_dfma.h"
#include "gpu/gpu_impl.cuh"
#include "gpu/mont.cuh"

#define CHAIN_THREADS 256

__device__ __forceinline__ void chain_int32(fp_d *out, const fp_d *x, const fp_d *y, unsigned iters)
{
    fp_d a = *x, b = *y;
#pragma unroll 1
    for (unsigned k = 0; k < iters; k++) mont_mul<fp_cfg>(a, a, b);
    *out = a;
}

template <bool IA> __device__ __forceinline__ void chain_dfma(fp_t *out, const fp_t *x, const fp_t *y, unsigned iters)
{
    fpd_t a, b;
    fpd_from_limbs(&a, x->l);
    fpd_from_limbs(&b, y->l);
#pragma unroll 1
    for (unsigned k = 0; k < iters; k++) {
        if (IA) fpd_mul_ia(&a, &a, &b);
        else fpd_mul(&a, &a, &b);
    }
    uint64_t l[6];
    fpd_to_limbs(l, &a);
#pragma unroll
    for (int i = 0; i < 6; i++) out->l[i] = l[i];
}

template <int ARITH> __global__ void chain_kernel(fp_t *out, const fp_t *x, const fp_t *y, size_t n, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool odd_warp = (threadIdx.x >> 5) & 1;
    bool ia = ARITH == GPU_FP_DFMA_IA || (ARITH == GPU_FP_MIXED_IA && odd_warp);
    bool dfma = ARITH == GPU_FP_DFMA || (ARITH == GPU_FP_MIXED && odd_warp);
    if (ia) chain_dfma<true>(&out[i], &x[i], &y[i], iters);
    else if (dfma) chain_dfma<false>(&out[i], &x[i], &y[i], iters);
    else chain_int32((fp_d *)&out[i], (const fp_d *)&x[i], (const fp_d *)&y[i], iters);
}

/* Thread t: element 2t by the integer product, element 2t + 1 (when there is one) by the FP64 product, in one loop
 * so that every warp has work for both pipes. */
__global__ void chain_paired_kernel(fp_t *out, const fp_t *x, const fp_t *y, size_t n, unsigned iters)
{
    size_t i = 2 * (blockIdx.x * (size_t)blockDim.x + threadIdx.x);
    if (i >= n) return;
    if (i + 1 == n) {
        chain_int32((fp_d *)&out[i], (const fp_d *)&x[i], (const fp_d *)&y[i], iters);
        return;
    }
    fp_d a = *(const fp_d *)&x[i], b = *(const fp_d *)&y[i];
    fpd_t c, d;
    fpd_from_limbs(&c, x[i + 1].l);
    fpd_from_limbs(&d, y[i + 1].l);
#pragma unroll 1
    for (unsigned k = 0; k < iters; k++) {
        mont_mul<fp_cfg>(a, a, b);
        fpd_mul(&c, &c, &d);
    }
    *(fp_d *)&out[i] = a;
    uint64_t l[6];
    fpd_to_limbs(l, &c);
#pragma unroll
    for (int j = 0; j < 6; j++) out[i + 1].l[j] = l[j];
}

/* chain_kernel by arithmetic (PAIRED has a kernel of its own). */
typedef void (*chain_kernel_fn)(fp_t *, const fp_t *, const fp_t *, size_t, unsigned);
static const chain_kernel_fn CHAIN_KERNELS[] = {chain_kernel<GPU_FP_INT32>,  chain_kernel<GPU_FP_DFMA>,
                                                chain_kernel<GPU_FP_MIXED>,  NULL,
                                                chain_kernel<GPU_FP_DFMA_IA>, chain_kernel<GPU_FP_MIXED_IA>};
static_assert(sizeof CHAIN_KERNELS / sizeof CHAIN_KERNELS[0] == GPU_FP_MIXED_IA + 1, "one entry per gpu_fp_arith");

extern "C" cuzk_status gpu_fp_chain(gpu_ctx *ctx, gpu_fp_arith arith, fp_t *out, const fp_t *x, const fp_t *y,
                                    size_t n, unsigned iters, double *kernel_ms, cuzk_error *err)
{
    if (!ctx || (n && (!out || !x || !y)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_fp_chain: NULL context or array");
    if (arith < GPU_FP_INT32 || arith > GPU_FP_MIXED_IA)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_fp_chain: unknown arithmetic %d", (int)arith);
    if (n >= ((size_t)1 << 31)) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_fp_chain: n >= 2^31");
    cuzk_status st = gpu_ctx_enter(ctx, err);
    fp_t *d_out = NULL, *d_x = NULL, *d_y = NULL;
    if (st != CUZK_OK) return st;
    if (kernel_ms) *kernel_ms = 0;
    if (n == 0) return CUZK_OK;
    size_t bytes = n * sizeof(fp_t);
    unsigned blocks = (unsigned)((n + CHAIN_THREADS - 1) / CHAIN_THREADS);
    float ms = 0;
    GPU_TRY(cudaMallocAsync(&d_out, bytes, ctx->stream));
    GPU_TRY(cudaMallocAsync(&d_x, bytes, ctx->stream));
    GPU_TRY(cudaMallocAsync(&d_y, bytes, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_x, x, bytes, cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_y, y, bytes, cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    if (arith == GPU_FP_PAIRED)
        chain_paired_kernel<<<(blocks + 1) / 2, CHAIN_THREADS, 0, ctx->stream>>>(d_out, d_x, d_y, n, iters);
    else
        CHAIN_KERNELS[arith]<<<blocks, CHAIN_THREADS, 0, ctx->stream>>>(d_out, d_x, d_y, n, iters);
    GPU_LAUNCHED("chain_kernel");
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(out, d_out, bytes, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    if (kernel_ms) *kernel_ms = ms;
done:
    if (d_out) cudaFreeAsync(d_out, ctx->stream);
    if (d_x) cudaFreeAsync(d_x, ctx->stream);
    if (d_y) cudaFreeAsync(d_y, ctx->stream);
    return st;
}
