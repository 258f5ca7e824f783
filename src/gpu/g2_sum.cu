/* gpu_g2.h on the device.
 *
 * Masked sum: each thread sums a chunk of the selected bases in XYZZ; a tree of XYZZ additions folds the chunk
 * sums into one point.
 *
 * MSM (Pippenger, signed c-bit windows), for B_G2's tail, which is small next to the G1 MSMs:
 *  1. digits: scalar k leaves Montgomery form; window w's signed digit d (carry into the next window) gives
 *     key = w * H + |d| - 1 (H = 2^(c-1) buckets a window) and val = base index | sign << 31; zero digits get
 *     the key NB (= nwin * H), which sorts last and is never summed.
 *  2. one radix sort of (key, val) over all windows (CUB).
 *  3. bucket sums, balanced whatever the bucket sizes: thread t adds the fixed chunk [t*K, (t+1)*K) of sorted
 *     entries; the chunk's first run goes to head[t], every later run (which starts inside the chunk) to
 *     part[key]. Then bucket b, whose entries are [lo, hi), is part[b] (or head[lo/K] when lo starts a chunk)
 *     plus head[t] of every later chunk t it reaches.
 *  4. window sums sum_j j * B_j by running sums over segments of M buckets plus a small multiple of each
 *     segment's total; the host adds the segments and combines the windows by Horner. */
#include <cub/device/device_radix_sort.cuh>

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

/* ---- MSM ---- */

#define G2_K 32     /* sorted entries per thread in the bucket sums */
#define G2_SEG 16   /* buckets per thread in the window sums */

__global__ void g2_msm_digits(const fr_d *scalars, const uint32_t *idx, size_t n, unsigned c, unsigned nwin,
                              uint32_t *keys, uint32_t *vals)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d s;
    uint32_t neg = fr_fold_half(s, scalars[i]);
    uint32_t limbs[9];
#pragma unroll
    for (int j = 0; j < 8; j++) limbs[j] = s.v[j];
    limbs[8] = 0;
    const uint32_t H = 1u << (c - 1), mask = (1u << c) - 1, NB = nwin * H;
    const uint32_t base = idx ? idx[i] : (uint32_t)i;
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
        unsigned bit = w * c, li = bit / 32, sh = bit % 32;
        uint64_t two = li < 8 ? ((uint64_t)limbs[li + 1] << 32 | limbs[li]) : 0;
        uint32_t raw = ((uint32_t)(two >> sh) & mask) + carry;
        uint32_t mag, sign;
        if (raw > H) {
            mag = (1u << c) - raw;
            sign = 1;
            carry = 1;
        } else {
            mag = raw;
            sign = 0;
            carry = 0;
        }
        keys[(size_t)w * n + i] = mag ? w * H + mag - 1 : NB;
        vals[(size_t)w * n + i] = base | ((sign ^ neg) << 31);
    }
}

__device__ __forceinline__ void g2_madd_signed(g2_xyzz_d &acc, const g2_aff_d *bases, uint32_t v)
{
    g2_aff_d p = bases[v & 0x7fffffffu];
    fp2_cneg(p.y, p.y, (v >> 31) != 0);
    g2_xyzz_madd(acc, p);
}

__global__ void __launch_bounds__(G2_THREADS) g2_msm_chunks(const uint32_t *keys, const uint32_t *vals,
                                                            const g2_aff_d *bases, size_t len, uint32_t NB,
                                                            g2_xyzz_d *head, g2_xyzz_d *part)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t begin = t * G2_K;
    if (begin >= len) return;
    size_t end = begin + G2_K < len ? begin + G2_K : len;
    g2_xyzz_d acc;
    g2_xyzz_inf(acc);
    uint32_t cur = keys[begin];
    bool first = true;
    for (size_t i = begin; i < end; i++) {
        uint32_t k = keys[i];
        if (k >= NB) break;
        if (k != cur) {
            if (first)
                head[t] = acc;
            else
                part[cur] = acc;
            first = false;
            cur = k;
            g2_xyzz_inf(acc);
        }
        g2_madd_signed(acc, bases, vals[i]);
    }
    if (cur >= NB) return;
    if (first)
        head[t] = acc;
    else
        part[cur] = acc;
}

/* First index in sorted keys[0, len) with keys[i] >= k. */
__device__ __forceinline__ size_t g2_lower_bound(const uint32_t *keys, size_t len, uint32_t k)
{
    size_t lo = 0, hi = len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

__global__ void __launch_bounds__(G2_THREADS) g2_msm_buckets(const uint32_t *keys, size_t len, uint32_t NB,
                                                             const g2_xyzz_d *head, const g2_xyzz_d *part,
                                                             g2_xyzz_d *buckets)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= NB) return;
    size_t lo = g2_lower_bound(keys, len, b), hi = g2_lower_bound(keys, len, b + 1);
    g2_xyzz_d acc;
    g2_xyzz_inf(acc);
    if (lo < hi) {
        acc = lo % G2_K == 0 ? head[lo / G2_K] : part[b];
        for (size_t t = lo / G2_K + 1; t * G2_K < hi; t++) g2_xyzz_add(acc, head[t]);
    }
    buckets[b] = acc;
}

/* Thread (w, s): buckets j in [lo, hi) of window w (bucket j holds digit j + 1); out = sum (j + 1) * B_j over the
 * segment, as running sums (weights j - lo + 1) plus lo * (the segment's total) by double-and-add. */
__global__ void __launch_bounds__(G2_THREADS) g2_msm_windows(const g2_xyzz_d *buckets, uint32_t H, unsigned nseg,
                                                             unsigned nwin, g2_xyzz_d *out)
{
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= (size_t)nseg * nwin) return;
    unsigned w = (unsigned)(id / nseg), s = (unsigned)(id % nseg);
    const g2_xyzz_d *b = buckets + (size_t)w * H;
    uint32_t lo = s * G2_SEG, hi = lo + G2_SEG < H ? lo + G2_SEG : H;
    g2_xyzz_d run, sum;
    g2_xyzz_inf(run);
    g2_xyzz_inf(sum);
    for (uint32_t j = hi; j-- > lo;) {
        g2_xyzz_add(run, b[j]);
        g2_xyzz_add(sum, run);
    }
    if (lo != 0) {
        g2_xyzz_d m;
        g2_xyzz_inf(m);
        for (int bit = 31 - __clz(lo); bit >= 0; bit--) {
            g2_xyzz_dbl(m, m);
            if ((lo >> bit) & 1) g2_xyzz_add(m, run);
        }
        g2_xyzz_add(sum, m);
    }
    out[id] = sum;
}

/* Window size for n scalars: the bucket sums cost about nwin * n additions, the window sums about 3 * nwin * H;
 * capped at 16 bits. */
static unsigned g2_window_bits(size_t n)
{
    unsigned best = 2;
    double best_cost = 1e300;
    for (unsigned c = 2; c <= 16; c++) {
        unsigned nwin = 254 / c + 1;
        double cost = (double)nwin * ((double)n + 3.0 * (double)(1u << (c - 1)));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

extern "C" cuzk_status gpu_msm_g2_indexed(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                                          const uint32_t *idx, const fr_t *scalars, size_t n, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_scalars = NULL, *d_idx = NULL;
    void *own_bases = NULL, *own_scalars = NULL, *own_idx = NULL, *cub_tmp = NULL;
    uint32_t *keys = NULL, *vals = NULL, *skeys = NULL, *svals = NULL;
    g2_xyzz_d *head = NULL, *part = NULL, *buckets = NULL, *segs = NULL;
    g2_xyzz_t *h_segs = NULL;
    unsigned c = 0, nwin = 0, nseg = 0;
    uint32_t H = 0, NB = 0;
    size_t total = 0, nchunks = 0, cub_bytes = 0;
    int key_bits = 1;
    float ms = 0;

    if (out == NULL || (n > 0 && (bases == NULL || scalars == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g2: NULL argument");
    if (n >= (1ull << 31) || nbases >= (1ull << 31))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g2: %zu scalars / %zu bases: 2^31 or more", n,
                              nbases);
    if (idx == NULL && nbases < n)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g2: %zu scalars but %zu bases", n, nbases);
    for (size_t i = 0; idx && i < n; i++)
        if (idx[i] >= nbases)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g2: entry %zu names base %u of %zu", i, idx[i],
                                  nbases);
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    g2_jac_set_inf(out);
    if (n == 0) {
        ctx->last_ms = 0;
        return CUZK_OK;
    }
    c = g2_window_bits(n);
    nwin = 254 / c + 1; /* s < 2^254 plus the last window's carry */
    H = 1u << (c - 1);
    NB = nwin * H;
    nseg = (H + G2_SEG - 1) / G2_SEG;
    total = n * nwin;
    nchunks = (total + G2_K - 1) / G2_K;
    while ((1ull << key_bits) <= NB) key_bits++;
    h_segs = (g2_xyzz_t *)malloc((size_t)nseg * nwin * sizeof *h_segs);
    if (h_segs == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_msm_g2: out of host memory");

    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    st = gpu_stage_in(ctx, bases, (idx ? nbases : n) * sizeof(g2_affine_t), &d_bases, &own_bases, err);
    if (st != CUZK_OK) goto done;
    st = gpu_stage_in(ctx, scalars, n * sizeof(fr_t), &d_scalars, &own_scalars, err);
    if (st != CUZK_OK) goto done;
    if (idx) {
        st = gpu_stage_in(ctx, idx, n * sizeof(uint32_t), &d_idx, &own_idx, err);
        if (st != CUZK_OK) goto done;
    }
    GPU_TRY(cudaMallocAsync((void **)&keys, total * sizeof(uint32_t), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&vals, total * sizeof(uint32_t), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&skeys, total * sizeof(uint32_t), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&svals, total * sizeof(uint32_t), ctx->stream));
    g2_msm_digits<<<g2_blocks(n), G2_THREADS, 0, ctx->stream>>>((const fr_d *)d_scalars, (const uint32_t *)d_idx, n,
                                                                 c, nwin, keys, vals);
    GPU_LAUNCHED("g2_msm_digits");
    GPU_TRY(cub::DeviceRadixSort::SortPairs(NULL, cub_bytes, keys, skeys, vals, svals, (int64_t)total, 0, key_bits,
                                            ctx->stream));
    GPU_TRY(cudaMallocAsync(&cub_tmp, cub_bytes, ctx->stream));
    GPU_TRY(cub::DeviceRadixSort::SortPairs(cub_tmp, cub_bytes, keys, skeys, vals, svals, (int64_t)total, 0, key_bits,
                                            ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&head, nchunks * sizeof(g2_xyzz_d), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&part, (size_t)NB * sizeof(g2_xyzz_d), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&buckets, (size_t)NB * sizeof(g2_xyzz_d), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&segs, (size_t)nseg * nwin * sizeof(g2_xyzz_d), ctx->stream));
    g2_msm_chunks<<<g2_blocks(nchunks), G2_THREADS, 0, ctx->stream>>>(skeys, svals, (const g2_aff_d *)d_bases, total,
                                                                      NB, head, part);
    GPU_LAUNCHED("g2_msm_chunks");
    g2_msm_buckets<<<g2_blocks(NB), G2_THREADS, 0, ctx->stream>>>(skeys, total, NB, head, part, buckets);
    GPU_LAUNCHED("g2_msm_buckets");
    g2_msm_windows<<<g2_blocks((size_t)nseg * nwin), G2_THREADS, 0, ctx->stream>>>(buckets, H, nseg, nwin, segs);
    GPU_LAUNCHED("g2_msm_windows");
    GPU_TRY(cudaMemcpyAsync(h_segs, segs, (size_t)nseg * nwin * sizeof *h_segs, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    /* Horner over the windows; each window is the sum of its segments. */
    for (unsigned w = nwin; w-- > 0;) {
        for (unsigned k = 0; k < c; k++) g2_jac_dbl(out, out);
        for (unsigned s = 0; s < nseg; s++) {
            g2_jac_t t;
            g2_xyzz_to_jac(&t, &h_segs[(size_t)w * nseg + s]);
            g2_jac_add(out, out, &t);
        }
    }
done:
    free(h_segs);
    void *dev[] = {own_bases, own_scalars, own_idx, cub_tmp, keys, vals, skeys, svals, head, part, buckets, segs};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) cudaFreeAsync(dev[i], ctx->stream);
    if (st != CUZK_OK) {
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_msm_g2(n=%zu, c=%u): ", n, c);
    }
    return st;
}
