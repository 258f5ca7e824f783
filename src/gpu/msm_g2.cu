/* gpu_g2.h on the device.
 *
 * Two ways to sum points, chosen per call (g2_use_affine; CUZK_GPU_G2=affine|xyzz forces one):
 *  - XYZZ: each thread adds a chunk of points with XYZZ mixed additions (28 Fp products each, through the
 *    __noinline__ calls of ec_g2.cuh).
 *  - batch-affine (g2_affine_sums): every bucket's list of points is halved in rounds, pairs (2l, 2l + 1) added in
 *    affine coordinates with one Fp2 inversion per thread for all of its outputs (Montgomery's trick: ~17 Fp
 *    products an addition); buckets of at most 2^t points (CUZK_GPU_G2_TAIL, default 2) leave the rounds and are
 *    summed in XYZZ. The affine path falls back to XYZZ when it runs out of device memory.
 *
 * Masked sum: XYZZ: chunks of 128 bases, then a tree of XYZZ additions. Affine: the selected indices are compacted
 * on the device (popcounts, a scan), cut into buckets of G2A_SUB indices, summed by g2_affine_sums; the tree
 * folds the bucket sums.
 *
 * MSM (Pippenger, signed c-bit windows), for B_G2's tail:
 *  1. digits: scalar k leaves Montgomery form; window w's signed digit d (carry into the next window) gives
 *     key = w * H + |d| - 1 (H = 2^(c-1) buckets a window) and val = base index | sign << 31; zero digits get
 *     the key NB (= nwin * H), which sorts last and is never summed.
 *  2. one radix sort of (key, val) over all windows (CUB).
 *  3. bucket sums: g2_affine_sums over the sorted runs, or (XYZZ) balanced whatever the bucket sizes: thread t
 *     adds the fixed chunk [t*K, (t+1)*K) of sorted entries; the chunk's first run goes to head[t], every later
 *     run (which starts inside the chunk) to part[key]. Then bucket b, whose entries are [lo, hi), is part[b] (or
 *     head[lo/K] when lo starts a chunk) plus head[t] of every later chunk t it reaches.
 *  4. window sums sum_j j * B_j by running sums over segments of M buckets plus a small multiple of each
 *     segment's total; a tree of XYZZ additions per window adds the segments on the device, and the host
 *     combines the nwin window sums by Horner. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

#include "ec_g1.cuh" /* g1_fp_inv_by, fp_ldg16 */
#include "ec_g2.cuh"
#include "ctx_impl.cuh"

extern "C" {
#include "gpu/gpu_g2.h"
}

static_assert(sizeof(g2_affine_t) == sizeof(g2_aff_d), "device and host G2 affine layouts agree");
static_assert(sizeof(g2_xyzz_t) == sizeof(g2_xyzz_d), "device and host G2 XYZZ layouts agree");

#define G2_THREADS 128
#define G2_CHUNK 128 /* bases per thread; a multiple of 64 so a chunk reads whole mask words */
#define G2_FANIN 16  /* inputs per thread in the reduction */

/* Which path the calling thread's last sum took (gpu_g2_last_was_affine). */
static thread_local int g2_last_affine = 0;

extern "C" int gpu_g2_last_was_affine(void)
{
    return g2_last_affine;
}

static unsigned g2_blocks(size_t threads)
{
    return (unsigned)((threads + G2_THREADS - 1) / G2_THREADS);
}

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

/* ngroups groups of count points (group g at in[g * count]): out[g * outc + j] = sum of the group's points
 * j*F .. min(count, (j+1)*F), outc = ceil(count / F). */
__global__ void __launch_bounds__(G2_THREADS) g2_reduce(const g2_xyzz_d *in, size_t count, size_t ngroups,
                                                        g2_xyzz_d *out)
{
    size_t outc = (count + G2_FANIN - 1) / G2_FANIN;
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= outc * ngroups) return;
    size_t g = id / outc, j = id % outc;
    size_t lo = j * G2_FANIN, hi = lo + G2_FANIN < count ? lo + G2_FANIN : count;
    const g2_xyzz_d *src = in + g * count;
    g2_xyzz_d acc;
    g2_xyzz_inf(acc);
    for (size_t i = lo; i < hi; i++) g2_xyzz_add(acc, src[i]);
    out[g * outc + j] = acc;
}

/* Reduces ngroups groups of count points (in, overwritten) to one point per group: *res is in or a scratch buffer
 * (the caller frees in, and *res when it differs from in). */
static cuzk_status g2_reduce_groups(gpu_ctx *ctx, g2_xyzz_d *in, size_t count, size_t ngroups, g2_xyzz_d **res,
                                    cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    g2_xyzz_d *scratch = NULL, *a = in, *b;
    size_t outc = (count + G2_FANIN - 1) / G2_FANIN;
    *res = in;
    if (count <= 1) return CUZK_OK;
    GPU_TRY(cudaMallocAsync((void **)&scratch, outc * ngroups * sizeof(g2_xyzz_d), ctx->stream));
    b = scratch;
    while (count > 1) {
        outc = (count + G2_FANIN - 1) / G2_FANIN;
        g2_reduce<<<g2_blocks(outc * ngroups), G2_THREADS, 0, ctx->stream>>>(a, count, ngroups, b);
        GPU_LAUNCHED("g2_reduce");
        g2_xyzz_d *t = a;
        a = b;
        b = t;
        count = outc;
    }
    *res = a;
    if (a == scratch) scratch = NULL;
done:
    if (scratch) cudaFreeAsync(scratch, ctx->stream);
    return st;
}

/* ---- Batch-affine bucket sums ---- */

/* Round lists are planar: word k (0..47: x.c0, x.c1, y.c0, y.c1, 12 limbs each) of point j at w[k * stride + j]. A
 * lane of a round takes outputs j, j + 32, ...: every load and store but round 1's gathers of the bases is
 * coalesced (the G1 notes: the same kernel on 96-byte structs per lane was bound by L1 wavefronts). */
#define G2A_PLANES 48
#define G2A_Y 24             /* first plane of y */
#define G2A_PER_MAX 4096     /* outputs per thread (and inversion) at most ... */
#define G2A_PER_MIN 16       /* ... and at least: an Fp2 inversion costs ~70 products, an addition 17 */
#define G2A_SUB 1024         /* batch addition: selected bases per bucket */

MONT_DEV void g2a_ld(fp2_d &r, const uint32_t *__restrict__ w, size_t stride, uint32_t j)
{
#pragma unroll
    for (int k = 0; k < 12; k++) r.c0.v[k] = w[k * stride + j];
#pragma unroll
    for (int k = 0; k < 12; k++) r.c1.v[k] = w[(12 + k) * stride + j];
}

MONT_DEV void g2a_st(uint32_t *__restrict__ w, size_t stride, uint32_t j, const fp2_d &a)
{
#pragma unroll
    for (int k = 0; k < 12; k++) w[k * stride + j] = a.c0.v[k];
#pragma unroll
    for (int k = 0; k < 12; k++) w[(12 + k) * stride + j] = a.c1.v[k];
}

/* Input i of a round: round 1 reads value i (base index | sign << 31) and gathers the base (16-byte loads; a
 * base is 192 bytes, so aligned); later rounds read point i of the planar list. */
template <bool FIRST> struct g2a_in {
    const uint32_t *__restrict__ vals;
    const g2_aff_d *__restrict__ bases;
    const uint32_t *__restrict__ w;
    size_t stride;

    MONT_DEV void x(fp2_d &r, uint32_t i, uint32_t &ref) const
    {
        if (FIRST) {
            ref = __ldg(vals + i);
            const g2_aff_d *p = bases + (ref & 0x7fffffffu);
            fp_ldg16(r.c0, &p->x.c0);
            fp_ldg16(r.c1, &p->x.c1);
        } else {
            ref = i;
            g2a_ld(r, w, stride, i);
        }
    }
    MONT_DEV void y(fp2_d &r, uint32_t ref) const
    {
        if (FIRST) {
            const g2_aff_d *p = bases + (ref & 0x7fffffffu);
            fp2_d t;
            fp_ldg16(t.c0, &p->y.c0);
            fp_ldg16(t.c1, &p->y.c1);
            fp2_cneg(r, t, (ref >> 31) != 0);
        } else {
            g2a_ld(r, w + G2A_Y * stride, stride, ref);
        }
    }
};

/* The kinds of a pair's sum: ADD and DBL need an inverse of den; A and B pass one side through (the other is
 * infinity, or a is an odd last point); INF is P + (-P) (and P + P for y = 0). */
enum { G2A_ADD = 0, G2A_DBL = 1, G2A_A = 2, G2A_B = 3, G2A_INF = 4 };

/* The kind of a + b (y with signs applied; infinity is (0, 0)) and den for ADD (x(b) - x(a)) and DBL (2 y(a)):
 * never zero, so it can enter the running product. */
MONT_DEV int g2a_kind(fp2_d &den, const g2_aff_d &a, const g2_aff_d &b)
{
    if (g2_aff_is_inf(a)) return G2A_B;
    if (g2_aff_is_inf(b)) return G2A_A;
    fp2_sub(den, b.x, a.x);
    if (!fp2_is_zero(den)) return G2A_ADD;
    if (!fp2_eq(a.y, b.y) || fp2_is_zero(a.y)) return G2A_INF;
    fp2_dbl(den, a.y);
    return G2A_DBL;
}

/* Output l of a bucket whose inputs start at ioff (ilen of them): a.x, b.x loaded, the kind, den. y is loaded here
 * only when x alone cannot decide (equal x, or an x of 0: infinity is (0, 0)); both passes decide alike. */
template <bool FIRST>
MONT_DEV int g2a_item(const g2a_in<FIRST> &in, uint32_t ioff, uint32_t ilen, uint32_t l, g2_aff_d &a, uint32_t &ra,
                      g2_aff_d &b, uint32_t &rb, fp2_d &den, bool &have_y)
{
    uint32_t i = ioff + 2 * l;
    have_y = false;
    in.x(a.x, i, ra);
    if (2 * l + 1 >= ilen) return G2A_A;
    in.x(b.x, i + 1, rb);
    fp2_sub(den, b.x, a.x);
    if (!fp2_is_zero(den) && !fp2_is_zero(a.x) && !fp2_is_zero(b.x)) return G2A_ADD;
    in.y(a.y, ra);
    in.y(b.y, rb);
    have_y = true;
    return g2a_kind(den, a, b);
}

/* r = a + b for ADD and DBL, inv = 1/den. lambda = (y2 - y1) / (x2 - x1) or 3 x1^2 / 2 y1; x3 = lambda^2 - x1 - x2;
 * y3 = lambda (x1 - x3) - y1. The doubling's square is a call (rare). */
MONT_DEV void g2a_finish(g2_aff_d &r, const g2_aff_d &a, const g2_aff_d &b, int kind, const fp2_d &inv)
{
    fp2_d lam, t, u;
    if (kind == G2A_DBL) {
        fp2_sqr(t, a.x);
        fp2_dbl(lam, t);
        fp2_add(t, lam, t);
    } else {
        fp2_sub(t, b.y, a.y);
    }
    fp2_mul_i(lam, t, inv);
    fp2_sqr_i(t, lam);
    fp2_sub(t, t, a.x);
    fp2_sub(t, t, b.x);
    fp2_sub(u, a.x, t);
    fp2_mul_i(u, lam, u);
    fp2_sub(r.y, u, a.y);
    r.x = t;
}

/* r = 1/a (0 for 0): conj(a) / (a0^2 + a1^2), since u^2 = -1; the norm is 0 only for a = 0 (-1 is not a square
 * in Fp). One call per thread and round. */
__device__ __noinline__ void g2a_inv(fp2_d &r, const fp2_d &a)
{
    fp_d n, t, ni;
    mont_sqr<fp_cfg>(n, a.c0);
    mont_sqr<fp_cfg>(t, a.c1);
    mont_add<fp_cfg>(n, n, t);
    g1_fp_inv_by(ni, n);
    mont_mul<fp_cfg>(r.c0, a.c0, ni);
    mont_mul<fp_cfg>(t, a.c1, ni);
    mont_neg<fp_cfg>(r.c1, t);
}

/* One round: output j (< total_out) of bucket bb = map[j] is the sum of inputs 2l, 2l + 1 of bb (l = j -
 * out_off[bb]), or input 2l alone when it is the odd last one. A warp takes the outputs [w0, w0 + 32 per), lane L
 * the outputs w0 + L + 32 i. Forward, the lane parks the running product of its denominators in the x planes of
 * its outputs; one inversion; backward, each output's inverse is (inverse so far) * (parked prefix). */
template <bool FIRST>
__global__ void __launch_bounds__(G2_THREADS) g2a_round(g2a_in<FIRST> in, const uint32_t *__restrict__ in_off,
                                                        const uint32_t *__restrict__ in_len,
                                                        const uint32_t *__restrict__ out_off,
                                                        const uint32_t *__restrict__ map, uint32_t total_out,
                                                        uint32_t per, uint32_t *__restrict__ out, size_t ostride)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, w0 = (t / 32) * 32 * (size_t)per;
    uint32_t lane = (uint32_t)(t % 32);
    if (w0 + lane >= total_out) return;
    size_t wend = w0 + 32 * (size_t)per < total_out ? w0 + 32 * (size_t)per : total_out;
    uint32_t j0 = (uint32_t)(w0 + lane), jlast = j0 + (uint32_t)((wend - 1 - j0) / 32 * 32);
    fp2_d acc, den;
    g2_aff_d a, b;
    uint32_t ra, rb;
    bool have_y;
    fp2_set_one(acc);
    for (uint32_t j = j0;; j += 32) {
        uint32_t bb = map[j];
        int kind = g2a_item<FIRST>(in, in_off[bb], in_len[bb], j - out_off[bb], a, ra, b, rb, den, have_y);
        g2a_st(out, ostride, j, acc);
        if (kind <= G2A_DBL) fp2_mul_i(acc, acc, den);
        if (j == jlast) break;
    }
    fp2_d inv;
    g2a_inv(inv, acc);
    for (uint32_t j = jlast;; j -= 32) {
        uint32_t bb = map[j];
        int kind = g2a_item<FIRST>(in, in_off[bb], in_len[bb], j - out_off[bb], a, ra, b, rb, den, have_y);
        g2_aff_d r;
        if (!have_y) in.y(a.y, ra);
        if (kind == G2A_A) {
            r = a;
        } else {
            if (!have_y) in.y(b.y, rb);
            if (kind == G2A_B) {
                r = b;
            } else if (kind == G2A_INF) {
                fp2_set_zero(r.x);
                fp2_set_zero(r.y);
            } else {
                fp2_d ij, pre;
                g2a_ld(pre, out, ostride, j);
                fp2_mul_i(ij, inv, pre);
                fp2_mul_i(inv, inv, den);
                g2a_finish(r, a, b, kind, ij);
            }
        }
        g2a_st(out, ostride, j, r.x);
        g2a_st(out + G2A_Y * ostride, ostride, j, r.y);
        if (j == j0) break;
    }
}

/* Buckets k < cnt of 1..thr points: buckets[k] = their XYZZ sum (the others are left as they are). */
template <bool FIRST>
__global__ void __launch_bounds__(G2_THREADS) g2a_tail(g2a_in<FIRST> in, const uint32_t *in_off,
                                                       const uint32_t *in_len, size_t cnt, uint32_t thr,
                                                       g2_xyzz_d *buckets)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= cnt) return;
    uint32_t len = in_len[k], off = in_off[k];
    if (len == 0 || len > thr) return;
    g2_xyzz_d acc;
    g2_xyzz_inf(acc);
    for (uint32_t i = 0; i < len; i++) {
        uint32_t ref;
        g2_aff_d a;
        in.x(a.x, off + i, ref);
        in.y(a.y, ref);
        g2_xyzz_madd(acc, a);
    }
    buckets[k] = acc;
}

/* out[k] = ceil(in[k] / 2) for k < cnt, 0 for buckets of at most thr points (g2a_tail has summed them; thr >= 1),
 * out[cnt] = 0 (so that an exclusive sum over cnt + 1 ends in the round's total). */
__global__ void g2a_halve(const uint32_t *in, uint32_t *out, size_t cnt, uint32_t thr)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < cnt) out[k] = in[k] <= thr ? 0 : (in[k] + 1) / 2;
    if (k == cnt) out[k] = 0;
}

/* marks (zeroed): marks[off[k]] = k for every bucket k with outputs; an inclusive max-scan then gives every output
 * its bucket (offsets grow with k, and empty buckets mark nothing). */
__global__ void g2a_mark(const uint32_t *len, const uint32_t *off, size_t cnt, uint32_t *marks)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < cnt && len[k] > 0) marks[off[k]] = (uint32_t)k;
}

struct g2a_max {
    __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

/* MSM: start[k], end[k] of the run of key k < nbk in the sorted keys (absent keys keep their zeros; keys >= nbk,
 * the zero digits, are skipped). */
__global__ void g2a_bounds(const uint32_t *skeys, size_t total, uint32_t nbk, uint32_t *start, uint32_t *end)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= total) return;
    uint32_t k = skeys[i];
    if (k >= nbk) return;
    if (i == 0 || skeys[i - 1] != k) start[k] = (uint32_t)i;
    if (i + 1 == total || skeys[i + 1] != k) end[k] = (uint32_t)(i + 1);
}

/* len[k] = end[k] - start[k], in place. */
__global__ void g2a_lengths(const uint32_t *start, uint32_t *len, size_t nbk)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < nbk) len[k] -= start[k];
}

/* Grows a device array to hold need elements of elem bytes (stream-ordered: the pool serves it); *cap counts
 * elements (for the planar lists it is their stride). */
static cuzk_status g2a_reserve(gpu_ctx *ctx, void **buf, size_t *cap, size_t need, size_t elem, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    if (need <= *cap) return CUZK_OK;
    if (*buf) GPU_TRY(cudaFreeAsync(*buf, ctx->stream));
    *buf = NULL;
    *cap = 0;
    GPU_TRY(cudaMallocAsync(buf, need * elem, ctx->stream));
    *cap = need;
done:
    return st;
}

static unsigned g2a_tail_bits(void)
{
    return gpu_tune_get().g2_tail;
}

/* Batch-affine bucket sums: buckets[k] (k < nbk; zeroed here, so an empty bucket is infinity) = the sum of the
 * points vals[off0[k] .. off0[k] + len0[k]) (value: base index | sign << 31). entries (< 2^31) counts them all.
 * Bucket ranges are done in groups whose round lists (~0.75 * 192 B an entry) fit in a quarter of the free device
 * memory (partition workers share the device); the lists grow on demand for skewed buckets. */
static cuzk_status g2_affine_sums(gpu_ctx *ctx, const uint32_t *vals, const g2_aff_d *bases, const uint32_t *off0,
                                  const uint32_t *len0, size_t nbk, size_t entries, g2_xyzz_d *buckets,
                                  cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t free_b = 0, total_b = 0, ngroups = 1, gcnt = nbk, cap[2] = {0, 0}, mcap[2] = {0, 0}, tcap = 0, need_tmp = 0;
    uint64_t reserved = 0, used = 0;
    cudaMemPool_t mpool;
    uint32_t *lens[2] = {NULL, NULL}, *offs[2] = {NULL, NULL}, *pts[2] = {NULL, NULL}, *marks = NULL, *map = NULL;
    void *tmp = NULL;
    int occ1 = 0, occ = 0;
    uint32_t thr = 1u << g2a_tail_bits();
    g2a_in<true> in0 = {vals, bases, NULL, 0};

    GPU_TRY(cudaMemsetAsync(buckets, 0, nbk * sizeof(g2_xyzz_d), ctx->stream));
    if (nbk == 0) return CUZK_OK;
    /* Free memory counts what the pool holds unused (it keeps freed blocks), so repeated calls group alike. */
    GPU_TRY(cudaMemGetInfo(&free_b, &total_b));
    GPU_TRY(cudaDeviceGetDefaultMemPool(&mpool, ctx->device));
    GPU_TRY(cudaMemPoolGetAttribute(mpool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    GPU_TRY(cudaMemPoolGetAttribute(mpool, cudaMemPoolAttrUsedMemCurrent, &used));
    free_b += reserved > used ? (size_t)(reserved - used) : 0;
    GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ1, g2a_round<true>, G2_THREADS, 0));
    GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, g2a_round<false>, G2_THREADS, 0));
    if (occ1 < 1) occ1 = 1;
    if (occ < 1) occ = 1;
    {
        double need = (double)entries * (0.75 * sizeof(g2_aff_d) + 4.0), budget = (double)free_b / 4 + 1;
        ngroups = need > budget ? (size_t)(need / budget) + 1 : 1;
        if (ngroups > nbk) ngroups = nbk;
        gcnt = (nbk + ngroups - 1) / ngroups;
    }
    for (int k = 0; k < 2; k++) {
        GPU_TRY(cudaMallocAsync((void **)&lens[k], (gcnt + 1) * 4, ctx->stream));
        GPU_TRY(cudaMallocAsync((void **)&offs[k], (gcnt + 1) * 4, ctx->stream));
    }
    GPU_TRY(cub::DeviceScan::ExclusiveSum(NULL, need_tmp, lens[0], offs[0], (int64_t)(gcnt + 1), ctx->stream));
    st = g2a_reserve(ctx, &tmp, &tcap, need_tmp, 1, err);
    if (st != CUZK_OK) goto done;

    for (size_t k0 = 0; k0 < nbk; k0 += gcnt) {
        size_t cnt = k0 + gcnt < nbk ? gcnt : nbk - k0;
        const uint32_t *in_off = off0 + k0, *in_len = len0 + k0;
        g2a_in<false> in = {NULL, NULL, NULL, 0};
        for (unsigned r = 1;; r++) {
            int o = (r - 1) & 1;
            uint32_t total_out = 0;
            /* Buckets of 1..thr points leave before the round: the last rounds would add few pairs per bucket, each
             * round costing a scan, a host sync and launches. */
            if (r == 1)
                g2a_tail<true><<<g2_blocks(cnt), G2_THREADS, 0, ctx->stream>>>(in0, in_off, in_len, cnt, thr,
                                                                               buckets + k0);
            else
                g2a_tail<false><<<g2_blocks(cnt), G2_THREADS, 0, ctx->stream>>>(in, in_off, in_len, cnt, thr,
                                                                                buckets + k0);
            GPU_LAUNCHED("g2a_tail");
            g2a_halve<<<g2_blocks(cnt + 1), G2_THREADS, 0, ctx->stream>>>(in_len, lens[o], cnt, thr);
            GPU_LAUNCHED("g2a_halve");
            {
                size_t nb = tcap; /* queried for gcnt + 1 >= cnt + 1 items */
                GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp, nb, lens[o], offs[o], (int64_t)(cnt + 1), ctx->stream));
            }
            GPU_TRY(cudaMemcpyAsync(&total_out, offs[o] + cnt, 4, cudaMemcpyDeviceToHost, ctx->stream));
            GPU_TRY(cudaStreamSynchronize(ctx->stream));
            if (total_out == 0) break; /* every bucket of the range has left */
            st = g2a_reserve(ctx, (void **)&pts[o], &cap[o], total_out, sizeof(g2_aff_d), err);
            if (st == CUZK_OK) st = g2a_reserve(ctx, (void **)&marks, &mcap[0], total_out, 4, err);
            if (st == CUZK_OK) st = g2a_reserve(ctx, (void **)&map, &mcap[1], total_out, 4, err);
            if (st != CUZK_OK) goto done;
            GPU_TRY(cudaMemsetAsync(marks, 0, (size_t)total_out * 4, ctx->stream));
            g2a_mark<<<g2_blocks(cnt), G2_THREADS, 0, ctx->stream>>>(lens[o], offs[o], cnt, marks);
            GPU_LAUNCHED("g2a_mark");
            {
                size_t nb = 0;
                GPU_TRY(cub::DeviceScan::InclusiveScan(NULL, nb, marks, map, g2a_max(), (int64_t)total_out,
                                                       ctx->stream));
                if (nb > tcap) {
                    st = g2a_reserve(ctx, &tmp, &tcap, nb, 1, err);
                    if (st != CUZK_OK) goto done;
                }
                GPU_TRY(cub::DeviceScan::InclusiveScan(tmp, nb, marks, map, g2a_max(), (int64_t)total_out,
                                                       ctx->stream));
            }
            /* Each thread inverts once for `per` outputs: the fewest full waves of resident threads with per <=
             * G2A_PER_MAX, the work spread evenly over them, but per >= G2A_PER_MIN. */
            size_t resident = (size_t)ctx->sm_count * (r == 1 ? occ1 : occ) * G2_THREADS;
            size_t waves = (total_out + resident * G2A_PER_MAX - 1) / (resident * G2A_PER_MAX);
            if (waves == 0) waves = 1;
            size_t per = (total_out + waves * resident - 1) / (waves * resident);
            if (per < G2A_PER_MIN) per = G2A_PER_MIN;
            size_t threads = (total_out + per - 1) / per;
            threads = (threads + 31) / 32 * 32; /* a warp takes 32 * per outputs */
            if (r == 1)
                g2a_round<true><<<g2_blocks(threads), G2_THREADS, 0, ctx->stream>>>(
                    in0, in_off, in_len, offs[o], map, total_out, (uint32_t)per, pts[o], cap[o]);
            else
                g2a_round<false><<<g2_blocks(threads), G2_THREADS, 0, ctx->stream>>>(
                    in, in_off, in_len, offs[o], map, total_out, (uint32_t)per, pts[o], cap[o]);
            GPU_LAUNCHED("g2a_round");
            in_off = offs[o];
            in_len = lens[o];
            in.w = pts[o];
            in.stride = cap[o];
        }
    }
done:
    for (int k = 0; k < 2; k++) {
        if (lens[k]) cudaFreeAsync(lens[k], ctx->stream);
        if (offs[k]) cudaFreeAsync(offs[k], ctx->stream);
        if (pts[k]) cudaFreeAsync(pts[k], ctx->stream);
    }
    if (marks) cudaFreeAsync(marks, ctx->stream);
    if (map) cudaFreeAsync(map, ctx->stream);
    if (tmp) cudaFreeAsync(tmp, ctx->stream);
    return st;
}

/* Path choice: CUZK_GPU_G2=xyzz or affine forces one (read per call: the tests switch between calls); otherwise
 * affine from `work` >= min (bases of the mask, or MSM bucket entries). Below that XYZZ: the affine path pays per
 * round a scan, a host sync and ~6 launches (~50-100 us), and its last rounds run with few outputs per inversion,
 * while an XYZZ chunk kernel over so few points is a fraction of one wave. The thresholds are estimates, not
 * measured on the device. Indices carry a sign bit: the affine path needs fewer than 2^31 entries. */
#define G2_BATCH_AFFINE_MIN ((size_t)1 << 16)
#define G2_MSM_AFFINE_MIN ((size_t)1 << 20)

static bool g2_use_affine(size_t work, size_t min)
{
    gpu_tune_path forced = gpu_tune_get().g2;
    if (work >= ((size_t)1 << 31)) return false;
    if (forced == GPU_TUNE_XYZZ) return false;
    if (forced == GPU_TUNE_AFFINE) return true;
    return work >= min;
}

/* After an out-of-memory failure of the affine path: the XYZZ path runs instead (on the same stream, once the
 * affine path's frees have been queued). */
static void g2_forget_nomem(cuzk_error *err)
{
    (void)cudaGetLastError();
    if (err) {
        err->code = CUZK_OK;
        err->msg[0] = 0;
    }
}

/* ---- Masked sum ---- */

/* Bucket k of the masked sum: selected indices [k * G2A_SUB, min(count, (k + 1) * G2A_SUB)). */
__global__ void g2_mask_ranges(uint32_t count, size_t nbk, uint32_t *off, uint32_t *len)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nbk) return;
    uint32_t lo = (uint32_t)(k * G2A_SUB);
    off[k] = lo;
    len[k] = count - lo < G2A_SUB ? count - lo : G2A_SUB;
}

/* XYZZ: *h_res (host) gets the sum once the stream reaches it. */
static cuzk_status g2_batch_xyzz(gpu_ctx *ctx, const g2_aff_d *d_bases, const uint64_t *d_mask, size_t n,
                                 g2_xyzz_t *h_res, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t count = (n + G2_CHUNK - 1) / G2_CHUNK;
    g2_xyzz_d *buf = NULL, *res = NULL;
    GPU_TRY(cudaMallocAsync((void **)&buf, count * sizeof(g2_xyzz_d), ctx->stream));
    g2_sum_chunks<<<g2_blocks(count), G2_THREADS, 0, ctx->stream>>>(d_bases, d_mask, n, buf);
    GPU_LAUNCHED("g2_sum_chunks");
    st = g2_reduce_groups(ctx, buf, count, 1, &res, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaMemcpyAsync(h_res, res, sizeof *h_res, cudaMemcpyDeviceToHost, ctx->stream));
done:
    if (res && res != buf) cudaFreeAsync(res, ctx->stream);
    if (buf) cudaFreeAsync(buf, ctx->stream);
    return st;
}

/* Affine: compaction of the mask, buckets of G2A_SUB selected bases (fewer rounds than one bucket, and the last
 * rounds keep many outputs), g2_affine_sums, a tree over the bucket sums. */
static cuzk_status g2_batch_affine(gpu_ctx *ctx, const g2_aff_d *d_bases, const uint64_t *d_mask, size_t n,
                                   g2_xyzz_t *h_res, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t nbk = 0;
    uint32_t *idx = NULL, *boff = NULL, *blen = NULL, count = 0;
    g2_xyzz_d *buckets = NULL, *res = NULL;
    st = gpu_mask_compact(ctx, d_mask, n, 0, &idx, &count, err);
    if (st != CUZK_OK) goto done;
    if (count == 0) {
        g2_xyzz_set_inf(h_res);
        goto done;
    }
    nbk = (count + G2A_SUB - 1) / G2A_SUB;
    GPU_TRY(cudaMallocAsync((void **)&boff, nbk * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&blen, nbk * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&buckets, nbk * sizeof(g2_xyzz_d), ctx->stream));
    g2_mask_ranges<<<g2_blocks(nbk), G2_THREADS, 0, ctx->stream>>>(count, nbk, boff, blen);
    GPU_LAUNCHED("g2_mask_ranges");
    st = g2_affine_sums(ctx, idx, d_bases, boff, blen, nbk, count, buckets, err);
    if (st != CUZK_OK) goto done;
    st = g2_reduce_groups(ctx, buckets, nbk, 1, &res, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaMemcpyAsync(h_res, res, sizeof *h_res, cudaMemcpyDeviceToHost, ctx->stream));
done:
    if (res && res != buckets) cudaFreeAsync(res, ctx->stream);
    void *dev[] = {idx, boff, blen, buckets};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) cudaFreeAsync(dev[i], ctx->stream);
    return st;
}

extern "C" cuzk_status gpu_batch_add_g2(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const uint64_t *mask,
                                        size_t n, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_mask = NULL;
    void *own_bases = NULL, *own_mask = NULL;
    g2_xyzz_t h_res;
    bool affine = g2_use_affine(n, G2_BATCH_AFFINE_MIN);
    float ms = 0;

    if (out == NULL || (n > 0 && (bases == NULL || mask == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_batch_add_g2: NULL argument");
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    g2_last_affine = 0;
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
    if (affine) {
        st = g2_batch_affine(ctx, (const g2_aff_d *)d_bases, (const uint64_t *)d_mask, n, &h_res, err);
        if (st == CUZK_ERR_NOMEM) {
            g2_forget_nomem(err);
            st = CUZK_OK;
            affine = false;
        } else if (st != CUZK_OK) {
            goto done;
        }
    }
    if (!affine) {
        st = g2_batch_xyzz(ctx, (const g2_aff_d *)d_bases, (const uint64_t *)d_mask, n, &h_res, err);
        if (st != CUZK_OK) goto done;
    }
    g2_last_affine = affine;
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    g2_xyzz_to_jac(out, &h_res);
done:
    if (own_bases) cudaFreeAsync(own_bases, ctx->stream);
    if (own_mask) cudaFreeAsync(own_mask, ctx->stream);
    if (st != CUZK_OK) {
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_batch_add_g2(n=%zu): ", n);
    }
    return st;
}

/* ---- MSM ---- */

#define G2_K 32     /* sorted entries per thread in the XYZZ bucket sums */
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

/* XYZZ bucket sums of the sorted (skeys, svals) into buckets[0, NB). */
static cuzk_status g2_msm_buckets_xyzz(gpu_ctx *ctx, const uint32_t *skeys, const uint32_t *svals,
                                       const g2_aff_d *bases, size_t total, uint32_t NB, g2_xyzz_d *buckets,
                                       cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t nchunks = (total + G2_K - 1) / G2_K;
    g2_xyzz_d *head = NULL, *part = NULL;
    GPU_TRY(cudaMallocAsync((void **)&head, nchunks * sizeof(g2_xyzz_d), ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&part, (size_t)NB * sizeof(g2_xyzz_d), ctx->stream));
    g2_msm_chunks<<<g2_blocks(nchunks), G2_THREADS, 0, ctx->stream>>>(skeys, svals, bases, total, NB, head, part);
    GPU_LAUNCHED("g2_msm_chunks");
    g2_msm_buckets<<<g2_blocks(NB), G2_THREADS, 0, ctx->stream>>>(skeys, total, NB, head, part, buckets);
    GPU_LAUNCHED("g2_msm_buckets");
done:
    if (head) cudaFreeAsync(head, ctx->stream);
    if (part) cudaFreeAsync(part, ctx->stream);
    return st;
}

/* Affine bucket sums of the sorted (skeys, svals) into buckets[0, NB): the runs of keys < NB (the zero digits'
 * key NB sorts last and is skipped). */
static cuzk_status g2_msm_buckets_affine(gpu_ctx *ctx, const uint32_t *skeys, const uint32_t *svals,
                                         const g2_aff_d *bases, size_t total, uint32_t NB, g2_xyzz_d *buckets,
                                         cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    uint32_t *start = NULL, *len = NULL;
    GPU_TRY(cudaMallocAsync((void **)&start, (size_t)NB * 4, ctx->stream));
    GPU_TRY(cudaMallocAsync((void **)&len, (size_t)NB * 4, ctx->stream));
    GPU_TRY(cudaMemsetAsync(start, 0, (size_t)NB * 4, ctx->stream));
    GPU_TRY(cudaMemsetAsync(len, 0, (size_t)NB * 4, ctx->stream));
    g2a_bounds<<<g2_blocks(total), G2_THREADS, 0, ctx->stream>>>(skeys, total, NB, start, len);
    GPU_LAUNCHED("g2a_bounds");
    g2a_lengths<<<g2_blocks(NB), G2_THREADS, 0, ctx->stream>>>(start, len, NB);
    GPU_LAUNCHED("g2a_lengths");
    st = g2_affine_sums(ctx, svals, bases, start, len, NB, total, buckets, err);
done:
    if (start) cudaFreeAsync(start, ctx->stream);
    if (len) cudaFreeAsync(len, ctx->stream);
    return st;
}

extern "C" cuzk_status gpu_msm_g2_indexed(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                                          const uint32_t *idx, const fr_t *scalars, size_t n, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_scalars = NULL, *d_idx = NULL;
    void *own_bases = NULL, *own_scalars = NULL, *own_idx = NULL, *cub_tmp = NULL;
    uint32_t *keys = NULL, *vals = NULL, *skeys = NULL, *svals = NULL;
    g2_xyzz_d *buckets = NULL, *segs = NULL, *wins = NULL;
    g2_xyzz_t *h_win = NULL;
    unsigned c = 0, nwin = 0, nseg = 0;
    uint32_t H = 0, NB = 0;
    size_t total = 0, cub_bytes = 0;
    int key_bits = 1;
    bool affine = false;
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
    g2_last_affine = 0;
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
    affine = g2_use_affine(total, G2_MSM_AFFINE_MIN);
    while ((1ull << key_bits) <= NB) key_bits++;
    h_win = (g2_xyzz_t *)malloc(nwin * sizeof *h_win);
    if (h_win == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_msm_g2: out of host memory");

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
    /* The unsorted copies and the sort's scratch are not needed any more: room for the affine round lists. */
    GPU_TRY(cudaFreeAsync(keys, ctx->stream));
    keys = NULL;
    GPU_TRY(cudaFreeAsync(vals, ctx->stream));
    vals = NULL;
    GPU_TRY(cudaFreeAsync(cub_tmp, ctx->stream));
    cub_tmp = NULL;
    GPU_TRY(cudaMallocAsync((void **)&buckets, (size_t)NB * sizeof(g2_xyzz_d), ctx->stream));
    if (affine) {
        st = g2_msm_buckets_affine(ctx, skeys, svals, (const g2_aff_d *)d_bases, total, NB, buckets, err);
        if (st == CUZK_ERR_NOMEM) {
            g2_forget_nomem(err);
            st = CUZK_OK;
            affine = false;
        } else if (st != CUZK_OK) {
            goto done;
        }
    }
    if (!affine) {
        st = g2_msm_buckets_xyzz(ctx, skeys, svals, (const g2_aff_d *)d_bases, total, NB, buckets, err);
        if (st != CUZK_OK) goto done;
    }
    g2_last_affine = affine;
    GPU_TRY(cudaMallocAsync((void **)&segs, (size_t)nseg * nwin * sizeof(g2_xyzz_d), ctx->stream));
    g2_msm_windows<<<g2_blocks((size_t)nseg * nwin), G2_THREADS, 0, ctx->stream>>>(buckets, H, nseg, nwin, segs);
    GPU_LAUNCHED("g2_msm_windows");
    /* Each window's segments on the device: only nwin points come back. */
    st = g2_reduce_groups(ctx, segs, nseg, nwin, &wins, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaMemcpyAsync(h_win, wins, nwin * sizeof *h_win, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    /* Horner over the windows. */
    for (unsigned w = nwin; w-- > 0;) {
        g2_jac_t t;
        for (unsigned k = 0; k < c; k++) g2_jac_dbl(out, out);
        g2_xyzz_to_jac(&t, &h_win[w]);
        g2_jac_add(out, out, &t);
    }
done:
    free(h_win);
    if (wins && wins != segs) cudaFreeAsync(wins, ctx->stream);
    void *dev[] = {own_bases, own_scalars, own_idx, cub_tmp, keys, vals, skeys, svals, buckets, segs};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) cudaFreeAsync(dev[i], ctx->stream);
    if (st != CUZK_OK) {
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_msm_g2(n=%zu, c=%u): ", n, c);
    }
    return st;
}
