/* gpu_g2.h: masked sums of G2 bases. Each thread sums a chunk of the bases selected by the mask in XYZZ, then
 * a tree of XYZZ additions folds the chunk sums into one point. */
#include "g2.cuh"
#include "gpu_impl.cuh"

extern "C" {
#include "gpu/gpu_g2.h"
}

static_assert(sizeof(g2_affine_t) == sizeof(g2_aff_d), "device and host G2 affine layouts agree");
static_assert(sizeof(g2_xyzz_t) == sizeof(g2_xyzz_d), "device and host G2 XYZZ layouts agree");

#define G2_THREADS 128
#define G2_CHUNK 128 /* bases per thread; a multiple of 64 so a chunk reads whole mask words */
#define G2_FANIN 16  /* inputs per thread in the reduction */

__global__ void __launch_bounds__(G2_THREADS) g2_sum_chunks(const g2_aff_d *bases, const uint64_t *mask, size_t n,
                                                            g2_xyzz_d *out)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t begin = t * G2_CHUNK;
    if (begin >= n) return;
    size_t end = begin + G2_CHUNK < n ? begin + G2_CHUNK : n;
    g2_xyzz_d acc;
    g2_xyzz_inf(acc);
    for (size_t i = begin; i < end; i += 64) {
        uint64_t word = mask[i / 64];
        if (end - i < 64) word &= (1ull << (end - i)) - 1;
        while (word) {
            int b = __ffsll((long long)word) - 1;
            word &= word - 1;
            g2_xyzz_madd(acc, bases[i + b]);
        }
    }
    out[t] = acc;
}

/* out[j] = sum of in[j*F .. min(count, (j+1)*F)). */
__global__ void __launch_bounds__(G2_THREADS) g2_reduce(const g2_xyzz_d *in, size_t count, g2_xyzz_d *out)
{
    size_t outc = (count + G2_FANIN - 1) / G2_FANIN;
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= outc) return;
    size_t lo = j * G2_FANIN, hi = lo + G2_FANIN < count ? lo + G2_FANIN : count;
    g2_xyzz_d acc;
    g2_xyzz_inf(acc);
    for (size_t i = lo; i < hi; i++) g2_xyzz_add(acc, in[i]);
    out[j] = acc;
}

static unsigned g2_blocks(size_t threads)
{
    return (unsigned)((threads + G2_THREADS - 1) / G2_THREADS);
}

extern "C" cuzk_status gpu_batch_add_g2(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const uint64_t *mask,
                                        size_t n, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_mask = NULL;
    void *own_bases = NULL, *own_mask = NULL;
    g2_xyzz_d *buf[2] = {NULL, NULL};
    g2_xyzz_t h_res;
    size_t count = (n + G2_CHUNK - 1) / G2_CHUNK;
    int cur = 0;
    float ms = 0;

    if (out == NULL || (n > 0 && (bases == NULL || mask == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_batch_add_g2: NULL argument");
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (n == 0) {
        g2_jac_set_inf(out);
        ctx->last_ms = 0;
        return CUZK_OK;
    }
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    st = gpu_stage_in(ctx, mask, (n + 63) / 64 * 8, &d_mask, &own_mask, err);
    if (st != CUZK_OK) goto done;
    st = gpu_stage_in(ctx, bases, n * sizeof(g2_affine_t), &d_bases, &own_bases, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaMallocAsync((void **)&buf[0], count * sizeof(g2_xyzz_d), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&buf[1], ((count + G2_FANIN - 1) / G2_FANIN) * sizeof(g2_xyzz_d), ctx->stream));
    g2_sum_chunks<<<g2_blocks(count), G2_THREADS, 0, ctx->stream>>>((const g2_aff_d *)d_bases,
                                                                   (const uint64_t *)d_mask, n, buf[0]);
    GPU_LAUNCHED("g2_sum_chunks");
    while (count > 1) {
        size_t outc = (count + G2_FANIN - 1) / G2_FANIN;
        g2_reduce<<<g2_blocks(outc), G2_THREADS, 0, ctx->stream>>>(buf[cur], count, buf[1 - cur]);
        GPU_LAUNCHED("g2_reduce");
        cur = 1 - cur;
        count = outc;
    }
    GPU_TRY(cudaMemcpyAsync(&h_res, buf[cur], sizeof h_res, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    g2_xyzz_to_jac(out, &h_res);
done:
    if (own_bases) cudaFreeAsync(own_bases, ctx->stream);
    if (own_mask) cudaFreeAsync(own_mask, ctx->stream);
    for (int i = 0; i < 2; i++)
        if (buf[i]) cudaFreeAsync(buf[i], ctx->stream);
    if (st != CUZK_OK) {
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_batch_add_g2(n=%zu): ", n);
    }
    return st;
}
