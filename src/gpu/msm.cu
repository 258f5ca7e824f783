/* G1 multi-scalar multiplication (Pippenger) and batch addition on the device.
 *
 * MSM, for c-bit windows (nwin = ceil(255/c) of them):
 *  1. digits: each scalar leaves Montgomery form; if s > (r-1)/2 it becomes r - s with the point negated, so
 *     s < 2^254 and signed digits in [-2^(c-1), 2^(c-1)] need no extra window. Per window: key = |digit|
 *     (the bucket), val = point index | sign << 31.
 *  2. all windows at once (key = window * nb + bucket): one radix sort of (key, val) (CUB), then a
 *     load-balanced segmented sum: every
 *     thread adds a fixed run of K sorted entries, whatever buckets they belong to. Runs wholly inside a chunk
 *     go straight to their bucket; each chunk's first and last run go to a list (2 slots per chunk, still
 *     sorted by bucket) that the same kernel sums again, K to 1, until one thread holds the rest. A bucket of
 *     any length thus costs log_K(length) levels, never length serial additions on one thread.
 *  3. per window, sum_v v*B_v: segments of M buckets each give (running sum, sum of running sums) plus a small
 *     scalar multiple; segment results are summed 16 to 1.
 *  4. host: the nwin window sums are combined by Horner (255 doublings are ~0.1 ms on a CPU core but several ms
 *     on one GPU thread).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "g1.cuh"
#include "gpu_impl.cuh"

#define MSM_CHUNK 64     /* entries per thread in the segmented sum: the 2 slots per chunk cost 2/64 extra adds */
#define REDUCE_FANIN 16  /* inputs per thread in tree reductions */
#define BATCH_CHUNK 64   /* bases per thread in batch addition */
#define THREADS 128

__global__ void msm_digits(const fr_d *scalars, size_t n, unsigned c, unsigned nwin, uint32_t nb, uint32_t *keys,
                           uint32_t *vals)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d s;
    uint32_t neg = fr_fold_half(s, scalars[i]);
    uint32_t limbs[9];
#pragma unroll
    for (int j = 0; j < 8; j++) limbs[j] = s.v[j];
    limbs[8] = 0;
    const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1;
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
        unsigned bit = w * c, li = bit / 32, sh = bit % 32;
        uint64_t two = li < 8 ? ((uint64_t)limbs[li + 1] << 32 | limbs[li]) : 0;
        uint32_t raw = (uint32_t)(two >> sh) & mask;
        raw += carry;
        uint32_t key, sign;
        if (raw > half) {
            key = (1u << c) - raw;
            sign = 1;
            carry = 1;
        } else {
            key = raw;
            sign = 0;
            carry = 0;
        }
        keys[(size_t)w * n + i] = w * nb + key;
        vals[(size_t)w * n + i] = (uint32_t)i | ((sign ^ neg) << 31);
    }
}

/* One level of the segmented bucket sum (see the file comment). Keys are w * nb + v (window w, bucket v;
 * v = 0 is the zero digit, whose bucket nobody reads). Level 0 reads sorted (key, val) and gathers affine bases;
 * later levels read (key, XYZZ) slots. In final mode (one chunk) every run is complete. */
template <bool FIRST>
__global__ void __launch_bounds__(THREADS) msm_bucket_sum(const uint32_t *keys, const uint32_t *vals,
                                                          const g1_aff_d *bases, const g1_xyzz_d *pts, size_t len,
                                                          uint32_t nb, bool final_level, g1_xyzz_d *buckets,
                                                          uint32_t *out_keys, g1_xyzz_d *out_pts)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t begin = t * MSM_CHUNK;
    if (begin >= len) return;
    size_t end = begin + MSM_CHUNK < len ? begin + MSM_CHUNK : len;
    g1_xyzz_d acc;
    g1_xyzz_inf(acc);
    uint32_t cur = keys[begin];
    bool first_run = true;
    for (size_t i = begin; i < end; i++) {
        uint32_t k = keys[i];
        if (k != cur) {
            if (first_run && !final_level) {
                out_keys[2 * t] = cur;
                out_pts[2 * t] = acc;
            } else {
                buckets[cur] = acc;
            }
            first_run = false;
            cur = k;
            g1_xyzz_inf(acc);
        }
        if (FIRST) {
            if (k % nb == 0) continue;
            uint32_t v = vals[i];
            g1_xyzz_madd(acc, bases[v & 0x7fffffffu], (v >> 31) != 0);
        } else {
            g1_xyzz_add(acc, pts[i]);
        }
    }
    if (final_level) {
        buckets[cur] = acc;
    } else if (first_run) {
        out_keys[2 * t] = cur;
        out_pts[2 * t] = acc;
        out_keys[2 * t + 1] = cur;
        g1_xyzz_inf(out_pts[2 * t + 1]);
    } else {
        out_keys[2 * t + 1] = cur;
        out_pts[2 * t + 1] = acc;
    }
}

/* Thread (w, s): segment s of window w's buckets v in [lo, hi), lo = 1 + s*M; out = sum_v v*B_v over the segment,
 * computed as sum (v - lo + 1)*B_v by running sums plus (lo - 1) * sum B_v by double-and-add. */
__global__ void __launch_bounds__(THREADS) msm_bucket_reduce(const g1_xyzz_d *buckets, size_t nb, unsigned M,
                                                             unsigned nseg, unsigned nwin, g1_xyzz_d *out)
{
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= (size_t)nseg * nwin) return;
    unsigned w = (unsigned)(id / nseg), s = (unsigned)(id % nseg);
    const g1_xyzz_d *b = buckets + (size_t)w * nb;
    size_t lo = 1 + (size_t)s * M, hi = lo + M < nb ? lo + M : nb;
    g1_xyzz_d run, sum;
    g1_xyzz_inf(run);
    g1_xyzz_inf(sum);
    for (size_t v = hi; v-- > lo;) {
        g1_xyzz_add(run, b[v]);
        g1_xyzz_add(sum, run);
    }
    uint32_t k = (uint32_t)(lo - 1);
    if (k != 0) {
        g1_xyzz_d m;
        g1_xyzz_inf(m);
        for (int bit = 31 - __clz(k); bit >= 0; bit--) {
            g1_xyzz_dbl(m, m);
            if ((k >> bit) & 1) g1_xyzz_add(m, run);
        }
        g1_xyzz_add(sum, m);
    }
    out[id] = sum;
}

/* out[g][j] = sum of in[g][j*F .. min(count, (j+1)*F)) for ngroups groups of count points. */
__global__ void __launch_bounds__(THREADS) xyzz_reduce(const g1_xyzz_d *in, size_t count, size_t ngroups,
                                                       g1_xyzz_d *out)
{
    size_t outc = (count + REDUCE_FANIN - 1) / REDUCE_FANIN;
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= outc * ngroups) return;
    size_t g = id / outc, j = id % outc;
    size_t lo = j * REDUCE_FANIN, hi = lo + REDUCE_FANIN < count ? lo + REDUCE_FANIN : count;
    g1_xyzz_d acc;
    g1_xyzz_inf(acc);
    for (size_t i = lo; i < hi; i++) g1_xyzz_add(acc, in[g * count + i]);
    out[id] = acc;
}

__global__ void __launch_bounds__(THREADS) batch_add_chunks(const g1_aff_d *bases, const uint64_t *mask, size_t n,
                                                            g1_xyzz_d *out)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t begin = t * BATCH_CHUNK;
    if (begin >= n) return;
    size_t end = begin + BATCH_CHUNK < n ? begin + BATCH_CHUNK : n;
    g1_xyzz_d acc;
    g1_xyzz_inf(acc);
    /* BATCH_CHUNK is a multiple of 64, so a chunk reads whole mask words. */
    for (size_t i = begin; i < end; i += 64) {
        uint64_t word = mask[i / 64];
        if (end - i < 64) word &= (1ull << (end - i)) - 1;
        while (word) {
            int b = __ffsll((long long)word) - 1;
            word &= word - 1;
            g1_xyzz_madd(acc, bases[i + b], false);
        }
    }
    out[t] = acc;
}

static unsigned blocks_for(size_t threads)
{
    return (unsigned)((threads + THREADS - 1) / THREADS);
}

/* Reduces ngroups groups of count XYZZ points (in, consumed) to one point per group, into a buffer the caller
 * frees with cudaFreeAsync (*res). Ping-pongs between in and a scratch buffer. */
static cuzk_status reduce_groups(gpu_ctx *ctx, g1_xyzz_d *in, size_t count, size_t ngroups, g1_xyzz_d **res,
                                 cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    g1_xyzz_d *scratch = NULL, *a = in, *b;
    size_t outc = (count + REDUCE_FANIN - 1) / REDUCE_FANIN;
    *res = NULL;
    GPU_TRY(cudaMallocAsync((void **)&scratch, (outc ? outc : 1) * ngroups * sizeof(g1_xyzz_d), ctx->stream));
    b = scratch;
    while (count > 1) {
        outc = (count + REDUCE_FANIN - 1) / REDUCE_FANIN;
        xyzz_reduce<<<blocks_for(outc * ngroups), THREADS, 0, ctx->stream>>>(a, count, ngroups, b);
        GPU_LAUNCHED("xyzz_reduce");
        g1_xyzz_d *t = a;
        a = b;
        b = t;
        count = outc;
    }
    *res = a;
    /* Whichever of the two buffers does not hold the result is freed; the caller frees the other one. */
    if (a == scratch) {
        scratch = NULL;
    }
done:
    if (scratch) cudaFreeAsync(scratch, ctx->stream);
    return st;
}

extern "C" unsigned gpu_msm_window_bits(const gpu_ctx *ctx, size_t n)
{
    (void)ctx;
    /* Cost model in mixed additions: nwin * (n + 3 * 2^(c-1)), the bucket sums plus their reduction. Capped at
     * 20 bits: wider windows save little and the buckets grow past a few GiB. */
    unsigned best = 4;
    double best_cost = 1e300;
    for (unsigned c = 4; c <= 20; c++) {
        unsigned nwin = (255 + c - 1) / c;
        double cost = (double)nwin * ((double)n + 3.0 * (double)(1u << (c - 1)));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

/* Phase timing, printed to stderr when CUZK_GPU_PROFILE is set (events on the context's stream). */
#define PROF_MAX 12
typedef struct prof {
    int on, count;
    cudaEvent_t ev[PROF_MAX];
    const char *name[PROF_MAX];
} prof_t;

static void prof_begin(prof_t *p, gpu_ctx *ctx)
{
    memset(p, 0, sizeof *p);
    p->on = getenv("CUZK_GPU_PROFILE") != NULL;
    if (!p->on) return;
    for (int i = 0; i < PROF_MAX; i++)
        if (cudaEventCreate(&p->ev[i]) != cudaSuccess) p->on = 0;
    (void)cudaGetLastError();
    if (p->on && cudaEventRecord(p->ev[0], ctx->stream) == cudaSuccess) p->count = 1;
}

static void prof_mark(prof_t *p, gpu_ctx *ctx, const char *name)
{
    if (!p->on || p->count >= PROF_MAX) return;
    p->name[p->count] = name;
    if (cudaEventRecord(p->ev[p->count], ctx->stream) == cudaSuccess) p->count++;
}

static void prof_report(prof_t *p, size_t n, unsigned c)
{
    if (!p->on || p->count < 2) return;
    cudaEventSynchronize(p->ev[p->count - 1]);
    fprintf(stderr, "gpu_msm_g1 n=%zu c=%u:", n, c);
    for (int i = 1; i < p->count; i++) {
        float ms = 0;
        cudaEventElapsedTime(&ms, p->ev[i - 1], p->ev[i]);
        fprintf(stderr, " %s %.2f ms;", p->name[i], ms);
    }
    fputc('\n', stderr);
}

static void prof_end(prof_t *p)
{
    if (!p->on) return;
    for (int i = 0; i < PROF_MAX; i++)
        if (p->ev[i]) cudaEventDestroy(p->ev[i]);
    (void)cudaGetLastError();
}

static void host_finish(g1_jac_t *out, const g1_xyzz_t *win, unsigned nwin, unsigned c)
{
    g1_jac_t acc, t;
    g1_jac_set_inf(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        for (unsigned k = 0; k < c; k++) g1_jac_dbl(&acc, &acc);
        g1_xyzz_to_jac(&t, &win[w]);
        g1_jac_add(&acc, &acc, &t);
    }
    *out = acc;
}

extern "C" cuzk_status gpu_msm_g1_window(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases,
                                         const fr_t *scalars, size_t n, unsigned c, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_scalars = NULL;
    void *own_bases = NULL, *own_scalars = NULL, *cub_tmp = NULL;
    uint32_t *keys = NULL, *vals = NULL, *skeys = NULL, *svals = NULL, *lk[2] = {NULL, NULL};
    g1_xyzz_d *buckets = NULL, *lp[2] = {NULL, NULL}, *segs = NULL, *wins = NULL;
    g1_xyzz_t *h_wins = NULL;
    unsigned nwin = 0, M = 1, nseg = 0;
    size_t nb = 0, cub_bytes = 0, slots = 0, total = 0;
    int key_bits = 1;
    float ms = 0;
    prof_t prof;

    if (out == NULL || (n > 0 && (bases == NULL || scalars == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: NULL argument");
    if (n >= (1ull << 31)) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: n = %zu >= 2^31", n);
    if (c != 0 && (c < 2 || c > 24))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: window of %u bits outside 2..24", c);
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (n == 0) {
        g1_jac_set_inf(out);
        ctx->last_ms = 0;
        return CUZK_OK;
    }
    if (c == 0) c = gpu_msm_window_bits(ctx, n);
    nwin = (255 + c - 1) / c;
    nb = ((size_t)1 << (c - 1)) + 1;
    M = 1;
    while ((size_t)nwin * ((nb - 1) / (2 * M)) >= 65536 && M < 32) M *= 2;
    nseg = (unsigned)((nb - 1 + M - 1) / M);
    slots = 2 * (((size_t)nwin * n + MSM_CHUNK - 1) / MSM_CHUNK);
    h_wins = (g1_xyzz_t *)malloc(nwin * sizeof *h_wins);
    if (h_wins == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_msm_g1: out of host memory");

    prof_begin(&prof, ctx);
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    st = gpu_stage_in(ctx, scalars, n * sizeof(fr_t), &d_scalars, &own_scalars, err);
    if (st != CUZK_OK) goto done;
    st = gpu_stage_in(ctx, bases, n * sizeof(g1_affine_t), &d_bases, &own_bases, err);
    if (st != CUZK_OK) goto done;

    total = (size_t)nwin * n;
    GPU_TRY(cudaMallocAsync((void **)&keys, total * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&vals, total * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&skeys, total * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&svals, total * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&buckets, (size_t)nwin * nb * sizeof(g1_xyzz_d), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&segs, (size_t)nwin * nseg * sizeof(g1_xyzz_d), ctx->stream));
    for (int k = 0; k < 2; k++) {
        GPU_TRY(cudaMallocAsync((void **)&lk[k], slots * 4, ctx->stream));
        GPU_TRY(cudaMallocAsync((void **)&lp[k], slots * sizeof(g1_xyzz_d), ctx->stream));
    }
    while (((size_t)1 << key_bits) < (size_t)nwin * nb) key_bits++;
    GPU_TRY(cub::DeviceRadixSort::SortPairs(NULL, cub_bytes, keys, skeys, vals, svals, (int64_t)total, 0, key_bits,
                                            ctx->stream));
    GPU_TRY(cudaMallocAsync(&cub_tmp, cub_bytes, ctx->stream));
    /* All-zero bytes are XYZZ infinity (ZZ = 0): buckets no digit reaches read as empty. */
    GPU_TRY(cudaMemsetAsync(buckets, 0, (size_t)nwin * nb * sizeof(g1_xyzz_d), ctx->stream));
    prof_mark(&prof, ctx, "alloc+upload");

    msm_digits<<<blocks_for(n), THREADS, 0, ctx->stream>>>((const fr_d *)d_scalars, n, c, nwin, (uint32_t)nb, keys,
                                                           vals);
    GPU_LAUNCHED("msm_digits");
    prof_mark(&prof, ctx, "digits");
    GPU_TRY(cub::DeviceRadixSort::SortPairs(cub_tmp, cub_bytes, keys, skeys, vals, svals, (int64_t)total, 0, key_bits,
                                            ctx->stream));
    prof_mark(&prof, ctx, "sort");
    {
        size_t len = total;
        bool fin = len <= MSM_CHUNK;
        size_t threads = (len + MSM_CHUNK - 1) / MSM_CHUNK;
        msm_bucket_sum<true><<<blocks_for(threads), THREADS, 0, ctx->stream>>>(
            skeys, svals, (const g1_aff_d *)d_bases, NULL, len, (uint32_t)nb, fin, buckets, lk[0], lp[0]);
        GPU_LAUNCHED("msm_bucket_sum<level 0>");
        prof_mark(&prof, ctx, "bucket sum level 0");
        int cur = 0;
        len = 2 * threads;
        while (!fin) {
            fin = len <= MSM_CHUNK;
            threads = (len + MSM_CHUNK - 1) / MSM_CHUNK;
            msm_bucket_sum<false><<<blocks_for(threads), THREADS, 0, ctx->stream>>>(
                lk[cur], NULL, NULL, lp[cur], len, (uint32_t)nb, fin, buckets, lk[cur ^ 1], lp[cur ^ 1]);
            GPU_LAUNCHED("msm_bucket_sum<level n>");
            cur ^= 1;
            len = 2 * threads;
        }
        prof_mark(&prof, ctx, "bucket sum levels 1+");
    }

    msm_bucket_reduce<<<blocks_for((size_t)nseg * nwin), THREADS, 0, ctx->stream>>>(buckets, nb, M, nseg, nwin,
                                                                                     segs);
    GPU_LAUNCHED("msm_bucket_reduce");
    prof_mark(&prof, ctx, "bucket reduce");
    st = reduce_groups(ctx, segs, nseg, nwin, &wins, err);
    if (st != CUZK_OK) goto done;
    if (wins != segs) {
        GPU_TRY(cudaFreeAsync(segs, ctx->stream));
        segs = wins;
    }
    prof_mark(&prof, ctx, "segment reduce");
    GPU_TRY(cudaMemcpyAsync(h_wins, wins, nwin * sizeof *h_wins, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    host_finish(out, h_wins, nwin, c);
    prof_report(&prof, n, c);

done:
    if (own_bases) cudaFreeAsync(own_bases, ctx->stream);
    if (own_scalars) cudaFreeAsync(own_scalars, ctx->stream);
    if (keys) cudaFreeAsync(keys, ctx->stream);
    if (vals) cudaFreeAsync(vals, ctx->stream);
    if (skeys) cudaFreeAsync(skeys, ctx->stream);
    if (svals) cudaFreeAsync(svals, ctx->stream);
    if (buckets) cudaFreeAsync(buckets, ctx->stream);
    if (segs) cudaFreeAsync(segs, ctx->stream);
    for (int k = 0; k < 2; k++) {
        if (lk[k]) cudaFreeAsync(lk[k], ctx->stream);
        if (lp[k]) cudaFreeAsync(lp[k], ctx->stream);
    }
    if (cub_tmp) cudaFreeAsync(cub_tmp, ctx->stream);
    if (st != CUZK_OK) {
        /* Let queued work finish before the caller reuses its inputs. */
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_msm_g1(n=%zu, c=%u): ", n, c);
    }
    free(h_wins);
    prof_end(&prof);
    return st;
}

extern "C" cuzk_status gpu_msm_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars,
                                  size_t n, cuzk_error *err)
{
    return gpu_msm_g1_window(ctx, out, bases, scalars, n, 0, err);
}

extern "C" cuzk_status gpu_batch_add_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask,
                                        size_t n, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_mask = NULL;
    void *own_bases = NULL, *own_mask = NULL;
    g1_xyzz_d *parts = NULL, *res = NULL;
    g1_xyzz_t h_res;
    size_t chunks = (n + BATCH_CHUNK - 1) / BATCH_CHUNK;
    float ms = 0;

    if (out == NULL || (n > 0 && (bases == NULL || mask == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_batch_add_g1: NULL argument");
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (n == 0) {
        g1_jac_set_inf(out);
        ctx->last_ms = 0;
        return CUZK_OK;
    }
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    st = gpu_stage_in(ctx, mask, (n + 63) / 64 * 8, &d_mask, &own_mask, err);
    if (st != CUZK_OK) goto done;
    st = gpu_stage_in(ctx, bases, n * sizeof(g1_affine_t), &d_bases, &own_bases, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaMallocAsync((void **)&parts, chunks * sizeof(g1_xyzz_d), ctx->stream));
    batch_add_chunks<<<blocks_for(chunks), THREADS, 0, ctx->stream>>>((const g1_aff_d *)d_bases,
                                                                       (const uint64_t *)d_mask, n, parts);
    GPU_LAUNCHED("batch_add_chunks");
    st = reduce_groups(ctx, parts, chunks, 1, &res, err);
    if (st != CUZK_OK) goto done;
    if (res != parts) {
        GPU_TRY(cudaFreeAsync(parts, ctx->stream));
        parts = res;
    }
    GPU_TRY(cudaMemcpyAsync(&h_res, res, sizeof h_res, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    g1_xyzz_to_jac(out, &h_res);
done:
    if (own_bases) cudaFreeAsync(own_bases, ctx->stream);
    if (own_mask) cudaFreeAsync(own_mask, ctx->stream);
    if (parts) cudaFreeAsync(parts, ctx->stream);
    if (st != CUZK_OK) {
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_batch_add_g1(n=%zu): ", n);
    }
    return st;
}
