/* Multi-scalar multiplication (Pippenger) and batch addition on the device, written once over the point type and
 * instantiated for G1 (gpu.h: gpu_msm_g1*, gpu_batch_add_g1) and G2 (gpu_g2.h: gpu_msm_g2_indexed,
 * gpu_batch_add_g2). A point trait (g1_pt, g2_pt below) names the affine and XYZZ types, the field trait, the point
 * operations (G1's inlined for speed; G2's __noinline__ calls, so that the file compiles in seconds: ec_g2.cuh), the
 * host types and the knobs of gpu_tune each group reads.
 *
 * MSM, for c-bit windows (nwin = ceil(255/c) of them):
 *  1. digits: each scalar leaves Montgomery form; if s > (r-1)/2 it becomes r - s with the point negated, so
 *     s < 2^254 and signed digits in [-2^(c-1), 2^(c-1)] need no extra window. Per window: key = |digit|
 *     (the bucket), val = point index (idx[k] for G2's indexed bases) | sign << 31.
 *  2. all windows at once (key = window * nb + bucket): one radix sort of (key, val) (CUB); the unsorted copies
 *     and the sort's scratch are freed before the bucket sums (room for the affine round lists). Then either a
 *     load-balanced segmented sum in XYZZ: every thread adds a fixed run of K sorted entries, whatever buckets they
 *     belong to. Runs wholly inside a chunk go straight to their bucket; each chunk's first and last run go to a
 *     list (2 slots per chunk, still sorted by bucket) that the same kernel sums again, K to 1, until one thread
 *     holds the rest. A bucket of any length thus costs log_K(length) levels, never length serial additions on one
 *     thread. Or batch-affine rounds (below; the default for large MSMs), which fall back to the XYZZ sums in
 *     place when device memory runs out (unless the path was forced).
 *     With prepared bases (G1: 2^(w c) * P_i stored per window) all windows share one set of buckets.
 *  3. per window, sum_v v*B_v: segments of M buckets each give (running sum, sum of running sums) plus a small
 *     scalar multiple; segment results are summed 16 to 1.
 *  4. host: the nwin window sums are combined by Horner (255 doublings are ~0.1 ms on a CPU core but several ms
 *     on one GPU thread).
 * Batch addition (the bases selected by a bit mask): XYZZ mixed additions in fixed chunks of bases per thread, or
 * the selected bases compacted and cut into buckets of BATCH_SEG for the batch-affine rounds; a tree adds the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "ec_g2.cuh"
#include "ctx_impl.cuh"
#include "glv.h"

extern "C" {
#include "gpu/gpu_g2.h"
}

static_assert(sizeof(g1_affine_t) == sizeof(g1_aff_d), "device and host G1 affine layouts agree");
static_assert(sizeof(g1_xyzz_t) == sizeof(g1_xyzz_d), "device and host G1 XYZZ layouts agree");
static_assert(sizeof(g2_affine_t) == sizeof(g2_aff_d), "device and host G2 affine layouts agree");
static_assert(sizeof(g2_xyzz_t) == sizeof(g2_xyzz_d), "device and host G2 XYZZ layouts agree");

#define MSM_CHUNK 64    /* entries per thread in the segmented sum: the 2 slots per chunk cost 2/64 extra adds */
#define REDUCE_FANIN 16 /* inputs per thread in tree reductions */
#define THREADS 128

/* ---- The point traits ---- */

struct g1_pt {
    typedef fp_ops F;
    typedef fp_d fe;
    typedef g1_aff_d aff;
    typedef g1_xyzz_d xyzz;
    typedef g1_affine_t h_aff;
    typedef g1_xyzz_t h_xyzz;
    typedef g1_jac_t h_jac;
    static constexpr const char *NAME = "g1";
    /* Round 1 may gather its bases by whole warps (msm_aff_round1w), and the inversion may be Fermat's. */
    static constexpr bool WARP = true, FERMAT = true;
    /* Blocks per SM the affine rounds are bounded to (msm_aff_round). */
    static constexpr int ROUND_BLOCKS = 4;
    /* Outputs per thread (and inversion) of a round at least: an Fp inversion costs ~ 10 additions. */
    static constexpr unsigned PER_MIN = 64;
    /* Bases per thread of the XYZZ batch addition (a multiple of 64: whole mask words). */
    static constexpr unsigned BATCH_CHUNK = 64;
    /* Window sizes the MSM chooses from. */
    static constexpr unsigned C_MIN = 4, C_MAX = 20;
    /* Selected bases from which the batch addition is affine, and MSM bucket entries from which the MSM is
     * (affine-warp). H200, uniform scalars, msm4's call B, affine-warp leaving early with a tail of 4 points
     * against XYZZ: 2^20 points (c = 16, 16 M entries) 12.45 ms against 13.23, 2^21 20.3 against 22.8, 2^22 32.2
     * against 38.7, 2^23 66.1 against 69.4. (msm3: without early leaving XYZZ won at 2^22, 38.7 against 40.8 ms:
     * the pass-through rounds cost a launch, a scan and a sync each.) */
    static constexpr size_t BATCH_AFF_MIN = (size_t)1 << 20, MSM_AFF_MIN = (size_t)16 << 20;

    static MONT_DEV void madd(xyzz &r, const aff &b, bool neg)
    {
        g1_xyzz_madd(r, b, neg);
    }
    static MONT_DEV void add(xyzz &r, const xyzz &b)
    {
        g1_xyzz_add(r, b);
    }
    static MONT_DEV void dbl(xyzz &r, const xyzz &a)
    {
        g1_xyzz_dbl(r, a);
    }
    static MONT_DEV void inf(xyzz &r)
    {
        g1_xyzz_inf(r);
    }
    static MONT_DEV void ldg16(fe &r, const fe *p)
    {
        fp_ldg16(r, p);
    }
    template <bool BY> static MONT_DEV void inv(fe &r, const fe &a)
    {
        if (BY)
            g1_fp_inv_by(r, a);
        else
            g1_fp_inv(r, a);
    }

    /* The knobs (tune.h): the G1 MSM's and batch addition's own. */
    static unsigned tail(const gpu_tune &t)
    {
        return t.msm_tail;
    }
    static bool early(const gpu_tune &t)
    {
        return t.msm_early != 0;
    }
    static unsigned share(const gpu_tune &t)
    {
        return t.msm_share;
    }
    static bool inv_by(const gpu_tune &t)
    {
        return t.msm_inv_by != 0;
    }
    /* -1 by size, 0 XYZZ, 1 affine. */
    static int batch_path(const gpu_tune &t)
    {
        return t.batch == GPU_TUNE_XYZZ ? 0 : t.batch == GPU_TUNE_AFFINE ? 1 : -1;
    }

    static void h_set_inf(h_jac *r)
    {
        g1_jac_set_inf(r);
    }
    static void h_to_jac(h_jac *r, const h_xyzz *a)
    {
        g1_xyzz_to_jac(r, a);
    }
    static void h_dbl(h_jac *r)
    {
        g1_jac_dbl(r, r);
    }
    static void h_add(h_jac *r, const h_jac *a)
    {
        g1_jac_add(r, r, a);
    }
};

struct g2_pt {
    typedef fp2_ops F;
    typedef fp2_d fe;
    typedef g2_aff_d aff;
    typedef g2_xyzz_d xyzz;
    typedef g2_affine_t h_aff;
    typedef g2_xyzz_t h_xyzz;
    typedef g2_jac_t h_jac;
    static constexpr const char *NAME = "g2";
    /* One kernel of each: round 1 gathers per lane, inversions by Bernstein-Yang (fp2_inv). */
    static constexpr bool WARP = false, FERMAT = false;
    static constexpr int ROUND_BLOCKS = 1;
    /* An Fp2 inversion costs ~70 products, an affine addition 17. */
    static constexpr unsigned PER_MIN = 16;
    static constexpr unsigned BATCH_CHUNK = 128;
    /* Buckets of 144-byte points: wider windows would take more memory than the B_G2 tail saves. */
    static constexpr unsigned C_MIN = 2, C_MAX = 16;
    /* Estimates, not measured on the device: below them the affine path's per-round scan, host sync and launches
     * (~50-100 us a round) cost more than the products it saves. */
    static constexpr size_t BATCH_AFF_MIN = (size_t)1 << 16, MSM_AFF_MIN = (size_t)1 << 20;

    static MONT_DEV void madd(xyzz &r, const aff &b, bool neg)
    {
        g2_xyzz_madd(r, b, neg);
    }
    static MONT_DEV void add(xyzz &r, const xyzz &b)
    {
        g2_xyzz_add(r, b);
    }
    static MONT_DEV void dbl(xyzz &r, const xyzz &a)
    {
        g2_xyzz_dbl(r, a);
    }
    static MONT_DEV void inf(xyzz &r)
    {
        g2_xyzz_inf(r);
    }
    static MONT_DEV void ldg16(fe &r, const fe *p)
    {
        fp2_ops::ldg16(r, p);
    }
    template <bool BY> static MONT_DEV void inv(fe &r, const fe &a)
    {
        fp2_inv(r, a);
    }

    /* G2 has two knobs (g2: the path, g2_tail); it always leaves early and shares a quarter of the memory. */
    static unsigned tail(const gpu_tune &t)
    {
        return t.g2_tail;
    }
    static bool early(const gpu_tune &)
    {
        return true;
    }
    static unsigned share(const gpu_tune &)
    {
        return 4;
    }
    static bool inv_by(const gpu_tune &)
    {
        return true;
    }
    static int batch_path(const gpu_tune &t)
    {
        return t.g2 == GPU_TUNE_XYZZ ? 0 : t.g2 == GPU_TUNE_AFFINE ? 1 : -1;
    }

    static void h_set_inf(h_jac *r)
    {
        g2_jac_set_inf(r);
    }
    static void h_to_jac(h_jac *r, const h_xyzz *a)
    {
        g2_xyzz_to_jac(r, a);
    }
    static void h_dbl(h_jac *r)
    {
        g2_jac_dbl(r, r);
    }
    static void h_add(h_jac *r, const h_jac *a)
    {
        g2_jac_add(r, r, a);
    }
};

/* ---- Digits, XYZZ bucket sums, reductions ---- */

/* Pippenger's signed digits of the value in limbs[0..nl) (limbs[nl] = 0) in nwin windows of c bits: window w's goes
 * to keys[w * wstride + col] and vals[w * wstride + col]. stride = 0: key w * nb + |digit| and value base (per-window
 * buckets); stride > 0 (prepared bases): key |digit| and value w * stride + base, the row of 2^(w c) * P_base in
 * the prepared table (one set of buckets for all windows). The value's top bit: the digit's sign xor neg. */
static __device__ __forceinline__ void msm_emit_digits(const uint32_t *limbs, unsigned nl, unsigned c, unsigned nwin,
                                                       uint32_t nb, uint32_t stride, uint32_t base, uint32_t neg,
                                                       size_t col, size_t wstride, uint32_t *keys, uint32_t *vals)
{
    const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1;
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
        unsigned bit = w * c, li = bit / 32, sh = bit % 32;
        uint64_t two = li < nl ? ((uint64_t)limbs[li + 1] << 32 | limbs[li]) : 0;
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
        keys[(size_t)w * wstride + col] = stride ? key : w * nb + key;
        vals[(size_t)w * wstride + col] = (w * stride + base) | ((sign ^ neg) << 31);
    }
}

/* The digits of scalar i (folded below 2^254, fr_fold_half) for base idx ? idx[i] : i; stride as msm_emit_digits. */
__global__ void msm_digits(const fr_d *scalars, const uint32_t *idx, size_t n, unsigned c, unsigned nwin, uint32_t nb,
                           uint32_t stride, uint32_t *keys, uint32_t *vals)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d s;
    uint32_t neg = fr_fold_half(s, scalars[i]);
    uint32_t limbs[9];
#pragma unroll
    for (int j = 0; j < 8; j++) limbs[j] = s.v[j];
    limbs[8] = 0;
    msm_emit_digits(limbs, 8, c, nwin, nb, stride, idx ? idx[i] : (uint32_t)i, neg, i, n, keys, vals);
}

/* GLV (glv.h): scalar i, folded, split into k1 + k2 lambda; k1's digits go to base i (column i of 2n), k2's to base
 * phi_at + i, its image under phi (column n + i). */
__global__ void msm_digits_glv(const fr_d *scalars, size_t n, uint32_t phi_at, unsigned c, unsigned nwin, uint32_t nb,
                               uint32_t *keys, uint32_t *vals)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d s;
    uint32_t neg = fr_fold_half(s, scalars[i]);
    uint32_t k1[5], k2[5];
    glv_split(s.v, k1, k2);
    k1[4] = k2[4] = 0;
    msm_emit_digits(k1, 4, c, nwin, nb, 0, (uint32_t)i, neg, i, 2 * n, keys, vals);
    msm_emit_digits(k2, 4, c, nwin, nb, 0, phi_at + (uint32_t)i, neg, n + i, 2 * n, keys, vals);
}

/* One level of the segmented bucket sum (see the file comment). Keys are w * nb + v (window w, bucket v;
 * v = 0 is the zero digit, whose bucket nobody reads). Level 0 reads sorted (key, val) and gathers affine bases;
 * later levels read (key, XYZZ) slots. In final mode (one chunk) every run is complete. */
template <class P, bool FIRST>
__global__ void __launch_bounds__(THREADS)
    msm_bucket_sum(const uint32_t *keys, const uint32_t *vals, const typename P::aff *bases,
                   const typename P::xyzz *pts, size_t len, uint32_t nb, bool final_level, typename P::xyzz *buckets,
                   uint32_t *out_keys, typename P::xyzz *out_pts)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t begin = t * MSM_CHUNK;
    if (begin >= len) return;
    size_t end = begin + MSM_CHUNK < len ? begin + MSM_CHUNK : len;
    typename P::xyzz acc;
    P::inf(acc);
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
            P::inf(acc);
        }
        if (FIRST) {
            if (k % nb == 0) continue;
            uint32_t v = vals[i];
            P::madd(acc, bases[v & 0x7fffffffu], (v >> 31) != 0);
        } else {
            P::add(acc, pts[i]);
        }
    }
    if (final_level) {
        buckets[cur] = acc;
    } else if (first_run) {
        out_keys[2 * t] = cur;
        out_pts[2 * t] = acc;
        out_keys[2 * t + 1] = cur;
        P::inf(out_pts[2 * t + 1]);
    } else {
        out_keys[2 * t + 1] = cur;
        out_pts[2 * t + 1] = acc;
    }
}

/* Thread (w, s): segment s of window w's buckets v in [lo, hi), lo = 1 + s*M; out = sum_v v*B_v over the segment,
 * computed as sum (v - lo + 1)*B_v by running sums plus (lo - 1) * sum B_v by double-and-add. */
template <class P>
__global__ void __launch_bounds__(THREADS) msm_bucket_reduce(const typename P::xyzz *buckets, size_t nb, unsigned M,
                                                             unsigned nseg, unsigned nwin, typename P::xyzz *out)
{
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= (size_t)nseg * nwin) return;
    unsigned w = (unsigned)(id / nseg), s = (unsigned)(id % nseg);
    const typename P::xyzz *b = buckets + (size_t)w * nb;
    size_t lo = 1 + (size_t)s * M, hi = lo + M < nb ? lo + M : nb;
    typename P::xyzz run, sum;
    P::inf(run);
    P::inf(sum);
    for (size_t v = hi; v-- > lo;) {
        P::add(run, b[v]);
        P::add(sum, run);
    }
    uint32_t k = (uint32_t)(lo - 1);
    if (k != 0) {
        typename P::xyzz m;
        P::inf(m);
        for (int bit = 31 - __clz(k); bit >= 0; bit--) {
            P::dbl(m, m);
            if ((k >> bit) & 1) P::add(m, run);
        }
        P::add(sum, m);
    }
    out[id] = sum;
}

/* out[g][j] = sum of in[g][j*F .. min(count, (j+1)*F)) for ngroups groups of count points. */
template <class P>
__global__ void __launch_bounds__(THREADS)
    xyzz_reduce(const typename P::xyzz *in, size_t count, size_t ngroups, typename P::xyzz *out)
{
    size_t outc = (count + REDUCE_FANIN - 1) / REDUCE_FANIN;
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= outc * ngroups) return;
    size_t g = id / outc, j = id % outc;
    size_t lo = j * REDUCE_FANIN, hi = lo + REDUCE_FANIN < count ? lo + REDUCE_FANIN : count;
    typename P::xyzz acc;
    P::inf(acc);
    for (size_t i = lo; i < hi; i++) P::add(acc, in[g * count + i]);
    out[id] = acc;
}

template <class P>
__global__ void __launch_bounds__(THREADS)
    batch_add_chunks(const typename P::aff *bases, const uint64_t *mask, size_t n, typename P::xyzz *out)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t begin = t * P::BATCH_CHUNK;
    if (begin >= n) return;
    size_t end = begin + P::BATCH_CHUNK < n ? begin + P::BATCH_CHUNK : n;
    typename P::xyzz acc;
    P::inf(acc);
    /* BATCH_CHUNK is a multiple of 64, so a chunk reads whole mask words. */
    for (size_t i = begin; i < end; i += 64) {
        uint64_t word = mask[i / 64];
        if (end - i < 64) word &= (1ull << (end - i)) - 1;
        while (word) {
            int b = __ffsll((long long)word) - 1;
            word &= word - 1;
            P::madd(acc, bases[i + b], false);
        }
    }
    out[t] = acc;
}

/* Batch-affine bucket sums (variant GPU_MSM_AFFINE). After the sort, every bucket's run of points is halved in
 * rounds: round r adds the pairs (2l, 2l+1) of each bucket's list in affine coordinates (an odd last point passes
 * through), until every bucket holds one point. An affine addition costs 3 products plus 3 for Montgomery's trick
 * (against 10 for an XYZZ mixed addition); each thread inverts the product of its outputs' denominators once.
 * Output lists are compact: bucket b's outputs start at the exclusive prefix sum of ceil(len/2) over the buckets
 * before it, and the forward pass parks its running products in the output slots' x until the backward pass
 * overwrites them.
 * Memory access: a warp owns 32 * per consecutive outputs and lane L takes outputs L, L + 32, ..., and the round
 * lists are planar (word k of x of point j at w[k * stride + j], of y at w[(WORDS + k) * stride + j]), so that the
 * lanes' loads and stores of one word are coalesced: the L1 serves a warp's access once per distinct cache line,
 * and 32 lanes each reading their own point cost 32 times as much. Only round 1's gathers of the bases stay
 * scattered (16-byte loads). */

/* The bucket of output j: out_off[lo] <= j < out_off[hi] at entry, returns the bb in [lo, hi) with out_off[bb] <= j
 * < out_off[bb + 1] (buckets without outputs repeat an offset). */
MONT_DEV uint32_t aff_find(const uint32_t *__restrict__ out_off, uint32_t lo, uint32_t hi, uint32_t j)
{
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (out_off[mid] <= j)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The bucket of output j when it lies beyond a few steps from bb: galloping (steps 1, 2, 4, ...) from bb, then a
 * binary search, in either direction. Out of line: the rounds' registers are spent on the products, and this path
 * is rare (long runs of empty buckets, once most buckets have left early). */
__device__ __noinline__ uint32_t aff_seek_far(const uint32_t *__restrict__ out_off, uint32_t nbk, uint32_t j,
                                              uint32_t bb, bool forward)
{
    uint32_t lo, hi, step = 1;
    if (forward) {
        /* out_off[lo] <= j; out_off[nbk] = the round's total > j. */
        lo = bb + 1;
        for (;;) {
            hi = nbk - lo > step ? lo + step : nbk;
            if (hi == nbk || out_off[hi] > j) break;
            lo = hi;
            step *= 2;
        }
    } else {
        /* j < out_off[hi]; out_off[0] = 0 <= j. */
        hi = bb;
        for (;;) {
            lo = hi > step ? hi - step : 0;
            if (lo == 0 || out_off[lo] <= j) break;
            hi = lo;
            step *= 2;
        }
    }
    return aff_find(out_off, lo, hi, j);
}

/* Moves (bb, cs, ce) = (bucket, out_off[bb], out_off[bb + 1]) forward (FWD, j >= cs) or backward (j < ce) to output
 * j's bucket: up to AFF_SEEK_STEPS buckets one load at a time, then aff_seek_far. Once most buckets have left the
 * rounds (early leaving), a lane's next output can lie millions of empty buckets away, which msm3's unbounded walk
 * crossed one dependent load at a time (one round took 410 ms at 2^24). (The G2 copy of the rounds instead mapped
 * every output to its bucket by a max-scan per round: 8 bytes per output and a scan more.) */
#define AFF_SEEK_STEPS 8
template <bool FWD>
MONT_DEV void aff_seek(const uint32_t *__restrict__ out_off, uint32_t nbk, uint32_t j, uint32_t &bb, uint32_t &cs,
                       uint32_t &ce)
{
    for (int k = 0; FWD ? j >= ce : j < cs; k++) {
        if (k == AFF_SEEK_STEPS) {
            bb = aff_seek_far(out_off, nbk, j, bb, FWD);
            cs = out_off[bb];
            ce = out_off[bb + 1];
            return;
        }
        if (FWD) {
            bb++;
            cs = ce;
            ce = out_off[bb + 1];
        } else {
            bb--;
            ce = cs;
            cs = out_off[bb];
        }
    }
}

/* Input i of a round: round 1 reads sorted value i (a base index and a sign) and gathers the base; later rounds
 * read point i of the planar list. */
template <class P, bool FIRST> struct aff_in {
    const uint32_t *__restrict__ vals;
    const typename P::aff *__restrict__ bases;
    const uint32_t *__restrict__ w;
    size_t stride;

    MONT_DEV void x(typename P::fe &r, uint32_t i, uint32_t &ref) const
    {
        if (FIRST) {
            ref = __ldg(vals + i);
            P::ldg16(r, &bases[ref & 0x7fffffffu].x);
        } else {
            ref = i;
            P::F::pl_ld(r, w, stride, i);
        }
    }
    MONT_DEV void y(typename P::fe &r, uint32_t ref) const
    {
        if (FIRST) {
            typename P::fe t;
            P::ldg16(t, &bases[ref & 0x7fffffffu].y);
            P::F::cneg(r, t, (ref >> 31) != 0);
        } else {
            P::F::pl_ld(r, w + P::F::WORDS * stride, stride, ref);
        }
    }
};

/* Output l of a bucket whose inputs start at ioff (ilen of them): a.x, b.x loaded, the kind of a + b, and den for
 * ADD and DBL. The y coordinates are loaded here only for the rare kinds (equal x, infinity); the decision is the
 * same in both passes. PASS outputs (an odd last input) are kind A. */
template <class P, bool FIRST>
MONT_DEV int aff_item(const aff_in<P, FIRST> &in, uint32_t ioff, uint32_t ilen, uint32_t l, typename P::aff &a,
                      uint32_t &ra, typename P::aff &b, uint32_t &rb, typename P::fe &den, bool &have_y)
{
    typedef typename P::F F;
    uint32_t i = ioff + 2 * l;
    have_y = false;
    in.x(a.x, i, ra);
    if (2 * l + 1 >= ilen) return EC_PAIR_A;
    in.x(b.x, i + 1, rb);
    F::sub(den, b.x, a.x);
    if (!F::is_zero(den) && !F::is_zero(a.x) && !F::is_zero(b.x)) return EC_PAIR_ADD;
    in.y(a.y, ra);
    in.y(b.y, rb);
    have_y = true;
    return ec_aff_pair_den<F>(den, a, b);
}

/* Four blocks per SM for G1 (128 registers): the Bernstein-Yang instantiations would take 142-152 registers and
 * three blocks; bounded, they spill 104-156 bytes (ptxas, sm_90). */
template <class P, bool FIRST, bool BY>
__global__ void __launch_bounds__(THREADS, P::ROUND_BLOCKS)
    msm_aff_round(aff_in<P, FIRST> in, const uint32_t *__restrict__ in_off, const uint32_t *__restrict__ in_len,
                  const uint32_t *__restrict__ out_off, uint32_t nbk, uint32_t total_out, uint32_t per,
                  uint32_t *__restrict__ out, size_t ostride)
{
    typedef typename P::F F;
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, w0 = (t / 32) * 32 * (size_t)per;
    uint32_t lane = (uint32_t)(t % 32);
    if (w0 + lane >= total_out) return;
    /* This lane's outputs: j0, j0 + 32, ..., jlast, all below the warp's end. */
    size_t wend = w0 + 32 * (size_t)per < total_out ? w0 + 32 * (size_t)per : total_out;
    uint32_t j0 = (uint32_t)(w0 + lane), jlast = j0 + (uint32_t)((wend - 1 - j0) / 32 * 32);
    /* The bucket of j0 (out_off[nbk] = total_out). */
    uint32_t bb = aff_find(out_off, 0, nbk, j0), cs = out_off[bb], ce = out_off[bb + 1], ioff, ilen, ra, rb;
    typename P::fe acc, den;
    typename P::aff a, b, r;
    bool have_y;
    F::one(acc);
    for (uint32_t j = j0;; j += 32) {
        aff_seek<true>(out_off, nbk, j, bb, cs, ce);
        ioff = in_off[bb];
        ilen = in_len[bb];
        int kind = aff_item<P, FIRST>(in, ioff, ilen, j - cs, a, ra, b, rb, den, have_y);
        F::pl_st(out, ostride, j, acc);
        if (kind <= EC_PAIR_DBL) F::mul_i(acc, acc, den);
        if (j == jlast) break;
    }
    typename P::fe inv;
    P::template inv<BY>(inv, acc);
    for (uint32_t j = jlast;; j -= 32) {
        aff_seek<false>(out_off, nbk, j, bb, cs, ce);
        ioff = in_off[bb];
        ilen = in_len[bb];
        int kind = aff_item<P, FIRST>(in, ioff, ilen, j - cs, a, ra, b, rb, den, have_y);
        if (!have_y) in.y(a.y, ra);
        if (kind == EC_PAIR_A) {
            r = a;
        } else {
            if (!have_y) in.y(b.y, rb);
            if (kind == EC_PAIR_B) {
                r = b;
            } else if (kind == EC_PAIR_INF) {
                F::zero(r.x);
                F::zero(r.y);
            } else {
                typename P::fe ij, pre;
                F::pl_ld(pre, out, ostride, j);
                F::mul_i(ij, inv, pre);
                F::mul_i(inv, inv, den);
                ec_aff_pair_finish<F>(r, a, b, kind, ij);
            }
        }
        F::pl_st(out, ostride, j, r.x);
        F::pl_st(out + F::WORDS * ostride, ostride, j, r.y);
        if (j == j0) break;
    }
}

/* Round 1 with the bases gathered by the whole warp (variant GPU_MSM_AFFINE_WARP; G1 only). msm_aff_round<g1_pt,
 * true, BY> has every lane load its own two bases: each of the 6 16-byte loads per base touches 32 distinct lines
 * per warp instruction. Here the warp first collects the 64 base references of a step (lane L: inputs 2L, 2L + 1 in
 * shared memory), then lane c of chunk k loads chunk (c + 32 k) of the 64 bases, so consecutive lanes read
 * consecutive 16 bytes of one base, and each lane takes its two points back from shared memory (stored part-major:
 * slot s, part p at [p][s], so that 8 lanes reading slots 2L hit distinct banks but for a 2-way conflict). The
 * forward pass gathers x only (parts 0-2); y of the rare kinds (equal x, infinity) is loaded by the lane itself. All
 * lanes run the same number of steps (a lane past the warp's end takes part in the gathers with no references). */
#define AFF_NONE 0xffffffffu

/* Dynamic shared memory per warp and buffer: 64 points (6 16-byte parts each, part-major) and their references. */
#define AFF_WS_PTS (6 * 64 * 16)
#define AFF_WS_BYTES (AFF_WS_PTS + 64 * 4)

MONT_DEV void cp_async16(void *dst, const void *src)
{
    uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
}

/* Starts the copies of parts 0..PARTS-1 of the bases of this step's references (lane L: ra, rb in slots 2L, 2L + 1)
 * into one buffer, as one cp.async group that the caller waits for one step later. */
template <int PARTS>
MONT_DEV void aff_warp_fill(uint4 (*ws)[64], uint32_t *refs, const g1_aff_d *__restrict__ bases, uint32_t ra,
                            uint32_t rb, uint32_t lane)
{
    __syncwarp(); /* every lane is done with the buffer's previous points and references */
    refs[2 * lane] = ra;
    refs[2 * lane + 1] = rb;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < 2 * PARTS; k++) {
        uint32_t c = lane + 32 * k, slot = c / PARTS, part = c % PARTS, ref = refs[slot];
        if (ref != AFF_NONE)
            cp_async16(&ws[part][slot], reinterpret_cast<const uint4 *>(&bases[ref & 0x7fffffffu]) + part);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Waits until the buffer filled one step earlier has landed (all groups but the latest one). */
MONT_DEV void aff_warp_wait()
{
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncwarp();
}

MONT_DEV void aff_ws_get(fp_d &r, uint4 (*ws)[64], uint32_t slot, int part0)
{
#pragma unroll
    for (int k = 0; k < 3; k++) {
        uint4 t = ws[part0 + k][slot];
        r.v[4 * k] = t.x;
        r.v[4 * k + 1] = t.y;
        r.v[4 * k + 2] = t.z;
        r.v[4 * k + 3] = t.w;
    }
}

MONT_DEV void aff_base_y(fp_d &r, const g1_aff_d *__restrict__ bases, uint32_t ref)
{
    fp_d t;
    fp_ldg16(t, &bases[ref & 0x7fffffffu].y);
    mont_cneg<fp_cfg>(r, t, (ref >> 31) != 0);
}

/* The references of output j's inputs (rb = AFF_NONE for an odd last input), moving (bb, cs, ce) to j's bucket
 * forward (FWD) or backward. */
template <bool FWD>
MONT_DEV void aff_refs(const uint32_t *__restrict__ vals, const uint32_t *__restrict__ in_off,
                       const uint32_t *__restrict__ in_len, const uint32_t *__restrict__ out_off, uint32_t nbk,
                       uint32_t j, uint32_t &bb, uint32_t &cs, uint32_t &ce, uint32_t &ra, uint32_t &rb)
{
    aff_seek<FWD>(out_off, nbk, j, bb, cs, ce);
    uint32_t l = j - cs, i = in_off[bb] + 2 * l;
    ra = __ldg(vals + i);
    rb = 2 * l + 1 < in_len[bb] ? __ldg(vals + i + 1) : AFF_NONE;
}

/* Two buffers per warp: the bases of step s + 1 are copied (cp.async, no registers held) while step s computes, so
 * the gather's latency overlaps the products. Dynamic shared memory: THREADS / 32 * 2 * AFF_WS_BYTES. Three blocks
 * per SM (168 registers, no spills): unbounded, ptxas gave this kernel 196 registers; bounded to four (128
 * registers, spills) round 1 took 15% longer (msm4, H200). */
template <bool BY>
__global__ void __launch_bounds__(THREADS, 3)
    msm_aff_round1w(const uint32_t *__restrict__ vals, const g1_aff_d *__restrict__ bases,
                    const uint32_t *__restrict__ in_off, const uint32_t *__restrict__ in_len,
                    const uint32_t *__restrict__ out_off, uint32_t nbk, uint32_t total_out, uint32_t per,
                    uint32_t *__restrict__ out, size_t ostride)
{
    extern __shared__ uint4 aff_dsm[];
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, w0 = (t / 32) * 32 * (size_t)per;
    uint32_t lane = (uint32_t)(t % 32);
    if (w0 >= total_out) return; /* the whole warp */
    char *wbase = reinterpret_cast<char *>(aff_dsm) + (threadIdx.x / 32) * 2 * AFF_WS_BYTES;
#define AFF_WS(q) reinterpret_cast<uint4(*)[64]>(wbase + (q)*AFF_WS_BYTES)
#define AFF_REFS(q) reinterpret_cast<uint32_t *>(wbase + (q)*AFF_WS_BYTES + AFF_WS_PTS)
    size_t wend = w0 + 32 * (size_t)per < total_out ? w0 + 32 * (size_t)per : total_out;
    uint32_t steps = (uint32_t)((wend - w0 + 31) / 32), j0 = (uint32_t)(w0 + lane), cb = 0;
    bool live = j0 < wend, act, nact;
    /* The bucket of j0 (of the warp's last output for a lane with none). */
    uint32_t jq = live ? j0 : (uint32_t)(wend - 1);
    uint32_t bb = aff_find(out_off, 0, nbk, jq), cs = out_off[bb], ce = out_off[bb + 1], ra, rb, nra = AFF_NONE,
             nrb = AFF_NONE;
    fp_d acc, den;
    g1_aff_d a, b, r;
    mont_set_one<fp_cfg>(acc);
    nact = live;
    if (nact) aff_refs<true>(vals, in_off, in_len, out_off, nbk, j0, bb, cs, ce, nra, nrb);
    aff_warp_fill<3>(AFF_WS(0), AFF_REFS(0), bases, nra, nrb, lane);
    for (uint32_t s = 0; s < steps; s++) {
        uint32_t j = j0 + 32 * s;
        act = nact;
        ra = nra;
        rb = nrb;
        if (s + 1 < steps) {
            nact = j + 32 < wend;
            nra = nrb = AFF_NONE;
            if (nact) aff_refs<true>(vals, in_off, in_len, out_off, nbk, j + 32, bb, cs, ce, nra, nrb);
            aff_warp_fill<3>(AFF_WS(cb ^ 1), AFF_REFS(cb ^ 1), bases, nra, nrb, lane);
        } else {
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        aff_warp_wait();
        uint4(*cw)[64] = AFF_WS(cb);
        cb ^= 1;
        if (!act) continue;
        fp_ops::pl_st(out, ostride, j, acc);
        if (rb == AFF_NONE) continue;
        aff_ws_get(a.x, cw, 2 * lane, 0);
        aff_ws_get(b.x, cw, 2 * lane + 1, 0);
        FP_SUB(den, b.x, a.x);
        int kind = EC_PAIR_ADD;
        if (mont_is_zero<fp_cfg>(den) || mont_is_zero<fp_cfg>(a.x) || mont_is_zero<fp_cfg>(b.x)) {
            aff_base_y(a.y, bases, ra);
            aff_base_y(b.y, bases, rb);
            kind = ec_aff_pair_den<fp_ops>(den, a, b);
        }
        if (kind <= EC_PAIR_DBL) FP_MUL(acc, acc, den);
    }
    fp_d inv;
    g1_pt::inv<BY>(inv, acc);
    {
        uint32_t j = j0 + 32 * (steps - 1);
        nact = j < wend;
        nra = nrb = AFF_NONE;
        if (nact) aff_refs<true>(vals, in_off, in_len, out_off, nbk, j, bb, cs, ce, nra, nrb);
        aff_warp_fill<6>(AFF_WS(cb), AFF_REFS(cb), bases, nra, nrb, lane);
    }
    for (uint32_t s = steps; s-- > 0;) {
        uint32_t j = j0 + 32 * s;
        act = nact;
        ra = nra;
        rb = nrb;
        if (s > 0) {
            nact = j - 32 < wend;
            nra = nrb = AFF_NONE;
            if (nact) aff_refs<false>(vals, in_off, in_len, out_off, nbk, j - 32, bb, cs, ce, nra, nrb);
            aff_warp_fill<6>(AFF_WS(cb ^ 1), AFF_REFS(cb ^ 1), bases, nra, nrb, lane);
        } else {
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        aff_warp_wait();
        uint4(*cw)[64] = AFF_WS(cb);
        cb ^= 1;
        if (!act) continue;
        aff_ws_get(a.x, cw, 2 * lane, 0);
        aff_ws_get(a.y, cw, 2 * lane, 3);
        mont_cneg<fp_cfg>(a.y, a.y, (ra >> 31) != 0);
        int kind = EC_PAIR_A;
        if (rb != AFF_NONE) {
            aff_ws_get(b.x, cw, 2 * lane + 1, 0);
            aff_ws_get(b.y, cw, 2 * lane + 1, 3);
            mont_cneg<fp_cfg>(b.y, b.y, (rb >> 31) != 0);
            FP_SUB(den, b.x, a.x);
            kind = EC_PAIR_ADD;
            if (mont_is_zero<fp_cfg>(den) || mont_is_zero<fp_cfg>(a.x) || mont_is_zero<fp_cfg>(b.x))
                kind = ec_aff_pair_den<fp_ops>(den, a, b);
        }
        if (kind == EC_PAIR_A) {
            r = a;
        } else if (kind == EC_PAIR_B) {
            r = b;
        } else if (kind == EC_PAIR_INF) {
            mont_set_zero<fp_cfg>(r.x);
            mont_set_zero<fp_cfg>(r.y);
        } else {
            fp_d ij, pre;
            fp_ops::pl_ld(pre, out, ostride, j);
            FP_MUL(ij, inv, pre);
            FP_MUL(inv, inv, den);
            ec_aff_pair_finish<fp_ops>(r, a, b, kind, ij);
        }
        fp_ops::pl_st(out, ostride, j, r.x);
        fp_ops::pl_st(out + 12 * ostride, ostride, j, r.y);
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
#undef AFF_WS
#undef AFF_REFS
}

/* Buckets of at most thr points (after the last round all of them; when leaving early, before each round): one
 * thread sums its bucket's points with XYZZ mixed additions, and the rounds skip them (msm_aff_halve). thr > 1 trades
 * the last rounds (few outputs per inversion, a launch, a scan and a host sync each) for 10 instead of ~6.6 products
 * per addition on few additions. */
template <class P, bool FIRST>
__global__ void __launch_bounds__(THREADS)
    msm_aff_tail(aff_in<P, FIRST> in, const uint32_t *in_off, const uint32_t *in_len, size_t nbk, uint32_t thr,
                 typename P::xyzz *buckets)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nbk) return;
    uint32_t len = in_len[k], off = in_off[k];
    if (len == 0 || len > thr) return;
    typename P::xyzz acc;
    P::inf(acc);
    for (uint32_t i = 0; i < len; i++) {
        uint32_t ref;
        typename P::aff a;
        in.x(a.x, off + i, ref);
        in.y(a.y, ref);
        P::madd(acc, a, false);
    }
    buckets[k] = acc;
}

/* start[k], end[k]: the run of key k in the sorted keys (untouched for absent keys). */
__global__ void msm_aff_bounds(const uint32_t *skeys, size_t total, uint32_t *start, uint32_t *end)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= total) return;
    uint32_t k = skeys[i];
    if (i == 0 || skeys[i - 1] != k) start[k] = (uint32_t)i;
    if (i == total - 1 || skeys[i + 1] != k) end[k] = (uint32_t)(i + 1);
}

/* len[k] = end[k] - start[k] in place, 0 for the zero digit's bucket (v = 0). */
__global__ void msm_aff_lengths(const uint32_t *start, uint32_t *len, size_t nbk, uint32_t nb)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= nbk) return;
    len[k] = k % nb == 0 ? 0 : len[k] - start[k];
}

/* out[k] = ceil(in[k] / 2) for k < cnt, 0 for buckets of at most thr points (msm_aff_tail sums them; thr = 0: none),
 * out[cnt] = 0 (so that an exclusive sum over cnt + 1 ends in the total). */
__global__ void msm_aff_halve(const uint32_t *in, uint32_t *out, size_t cnt, uint32_t thr)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < cnt) out[k] = in[k] <= thr ? 0 : (in[k] + 1) / 2;
    if (k == cnt) out[k] = 0;
}

static unsigned blocks_for(size_t threads)
{
    return (unsigned)((threads + THREADS - 1) / THREADS);
}

/* The device memory a call may take for its scratch (the affine round lists): free device memory plus what the
 * default pool holds unused (it keeps freed blocks, so repeated calls group alike). The one place that asks. */
static cuzk_status scratch_free_bytes(gpu_ctx *ctx, size_t *free_b, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    *free_b = 0;
    GPU_TRY(gpu_mem_free_for_scratch(ctx->device, free_b));
done:
    return st;
}

/* After an out-of-memory failure of an affine path: the XYZZ path runs instead (on the same stream, once the
 * affine path's frees have been queued). */
static void forget_nomem(cuzk_error *err)
{
    (void)cudaGetLastError();
    if (err) {
        err->code = CUZK_OK;
        err->msg[0] = 0;
    }
}

/* Reduces ngroups groups of count XYZZ points (in, consumed) to one point per group: *res is in or a scratch buffer
 * (the caller frees in, and *res when it differs from in). Ping-pongs between in and the scratch buffer. */
template <class P>
static cuzk_status reduce_groups(gpu_ctx *ctx, typename P::xyzz *in, size_t count, size_t ngroups,
                                 typename P::xyzz **res, cuzk_error *err)
{
    typedef typename P::xyzz X;
    cuzk_status st = CUZK_OK;
    X *scratch = NULL, *a = in, *b;
    size_t outc = (count + REDUCE_FANIN - 1) / REDUCE_FANIN;
    *res = in;
    if (count <= 1) return CUZK_OK;
    GPU_TRY(gpu_malloc_async((void **)&scratch, outc * ngroups * sizeof(X), ctx->stream));
    b = scratch;
    while (count > 1) {
        outc = (count + REDUCE_FANIN - 1) / REDUCE_FANIN;
        xyzz_reduce<P><<<blocks_for(outc * ngroups), THREADS, 0, ctx->stream>>>(a, count, ngroups, b);
        GPU_LAUNCHED("xyzz_reduce");
        X *t = a;
        a = b;
        b = t;
        count = outc;
    }
    *res = a;
    /* Whichever of the two buffers does not hold the result is freed; the caller frees the other one. */
    if (a == scratch) scratch = NULL;
done:
    if (scratch) gpu_free_async(scratch, ctx->stream);
    return st;
}

/* Outputs per thread (and inversion) in a round: at most AFF_PER_MAX, at least P::PER_MIN even when that leaves
 * SMs idle. A thread's inversion costs the same whatever its share, so a round costs at least its threads'
 * inversions: with 1024 at most, round 1 of a 2^26 group took 3 waves of resident threads, and late rounds with few
 * outputs per thread spent most of their products on inversions. */
#define AFF_PER_MAX 4096

/* Grows a round's planar point list to hold need points of `point` bytes (stream-ordered, so the pool serves it);
 * *cap is its stride. */
static cuzk_status aff_reserve(gpu_ctx *ctx, uint32_t **buf, size_t *cap, size_t need, size_t point, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    if (need <= *cap) return CUZK_OK;
    if (*buf) GPU_TRY(gpu_free_async(*buf, ctx->stream));
    *buf = NULL;
    *cap = 0;
    GPU_TRY(gpu_malloc_async((void **)buf, need * point, ctx->stream));
    *cap = need;
done:
    return st;
}

/* Defaults of the affine rounds' knobs: H200, uniform scalars, msm4's call B (early leaving with aff_seek): tail
 * 2^2 against 2^3: 2^22 32.2 against 33.5 ms, 2^24 112.7 against 123.6, 2^26 358.4 against 365.8, 2^27 673.5
 * against 679.6; tail 2^1 mixed. Early against pass-through (tail 2^3): 2^26 358.4 against 360.6, 2^27 673.5
 * against 680.0, 2^24 112.7 against 110.2. */

/* Device time of the affine bucket sums by phase (CUZK_GPU_PROFILE): setup (bounds, lengths, max), the scans with
 * their host syncs, round r (summed over the groups; the last slot collects rounds >= 15) and the tail kernel. The
 * events sit between the stream's operations, so the sums add up to the phase "bucket sums affine". */
enum { AFF_PROF_SETUP = 0, AFF_PROF_ROUNDS = 16, AFF_PROF_SCANS = 17, AFF_PROF_SLOTS = 18 };
typedef struct aff_prof {
    int on;
    cudaEvent_t ev[2];
    int cur;
    double ms[AFF_PROF_SLOTS];
} aff_prof;

static void aff_prof_begin(aff_prof *p, gpu_ctx *ctx)
{
    memset(p, 0, sizeof *p);
    p->on = gpu_tune_get().profile;
    if (!p->on) return;
    if (cudaEventCreate(&p->ev[0]) != cudaSuccess || cudaEventCreate(&p->ev[1]) != cudaSuccess ||
        cudaEventRecord(p->ev[0], ctx->stream) != cudaSuccess)
        p->on = 0;
    (void)cudaGetLastError();
}

/* Charges the time since the previous mark to slot (synchronizes the stream: profiling only). */
static void aff_prof_mark(aff_prof *p, gpu_ctx *ctx, int slot)
{
    float ms = 0;
    if (!p->on) return;
    cudaEventRecord(p->ev[p->cur ^ 1], ctx->stream);
    cudaEventSynchronize(p->ev[p->cur ^ 1]);
    cudaEventElapsedTime(&ms, p->ev[p->cur], p->ev[p->cur ^ 1]);
    p->ms[slot] += ms;
    p->cur ^= 1;
    (void)cudaGetLastError();
}

static void aff_prof_report(const aff_prof *p, const char *name, unsigned rounds, unsigned run, unsigned tail,
                            unsigned ngroups)
{
    if (!p->on) return;
    fprintf(stderr,
            "msm %s affine: %u rounds (at most %u run, tail 2^%u), %u groups: setup %.2f ms; scans+syncs %.2f ms;",
            name, rounds, run, tail, ngroups, p->ms[AFF_PROF_SETUP], p->ms[AFF_PROF_SCANS]);
    for (unsigned r = 1; r < AFF_PROF_ROUNDS; r++)
        if (p->ms[r] > 0) fprintf(stderr, " r%u %.2f;", r, p->ms[r]);
    fprintf(stderr, " tail %.2f ms\n", p->ms[AFF_PROF_ROUNDS]);
}

static void aff_prof_end(aff_prof *p)
{
    if (!p->on) return;
    cudaEventDestroy(p->ev[0]);
    cudaEventDestroy(p->ev[1]);
    (void)cudaGetLastError();
}

/* Batch-affine bucket sums: fills buckets[0, nbk) (XYZZ, zeroed by the caller) from the total sorted (skeys, svals)
 * whose values index points (bases, or a prepared table); buckets k with k % nb == 0 (the zero digit) are skipped.
 * Buckets are processed in ranges whose round buffers (~0.75 of a point per sorted entry) fit in 1/share of the
 * free device memory. warp_gather (G1): round 1 by msm_aff_round1w. */
template <class P>
static cuzk_status msm_bucket_sums_affine(gpu_ctx *ctx, const uint32_t *skeys, const uint32_t *svals,
                                          const typename P::aff *points, size_t total, size_t nbk, size_t nb,
                                          bool warp_gather, typename P::xyzz *buckets, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t free_b = 0, ngroups = 1, gcnt = nbk, cap[2] = {0, 0};
    uint32_t *start = NULL, *len0 = NULL, *d_max = NULL, *lens[2] = {NULL, NULL}, *offs[2] = {NULL, NULL};
    uint32_t *pts[2] = {NULL, NULL};
    void *tmp = NULL;
    size_t tmp_bytes = 0, scan_bytes = 0;
    uint32_t maxlen = 0;
    gpu_tune tune = gpu_tune_get();
    unsigned rounds = 0, run = 0, tail = P::tail(tune);
    uint32_t thr = 1u << tail;
    /* Early (G1: CUZK_GPU_MSM_EARLY=0 turns it off): buckets leave the rounds as soon as they hold at most thr
     * points, instead of passing through every later round with one output per round. Once most buckets have left,
     * a lane's next output can lie beyond millions of empty buckets: aff_seek jumps there. */
    bool early = P::early(tune);
    /* The kernels of this inversion: round 1 and later rounds (Fermat's only where P offers it). */
    auto k_round1 = msm_aff_round<P, true, true>;
    auto k_round = msm_aff_round<P, false, true>;
    if constexpr (P::FERMAT) {
        if (!P::inv_by(tune)) {
            k_round1 = msm_aff_round<P, true, false>;
            k_round = msm_aff_round<P, false, false>;
        }
    }
    size_t ws_bytes = 0;
    int occ = 0, occ1 = 0;
    aff_in<P, true> in0 = {svals, points, NULL, 0};
    aff_prof ap;
    aff_prof_begin(&ap, ctx);
    (void)warp_gather; /* G1 only */

    st = scratch_free_bytes(ctx, &free_b, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_round, THREADS, 0));
    GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ1, k_round1, THREADS, 0));
    if constexpr (P::WARP) {
        if (warp_gather) {
            auto k_round1w = P::inv_by(tune) ? msm_aff_round1w<true> : msm_aff_round1w<false>;
            ws_bytes = (size_t)(THREADS / 32) * 2 * AFF_WS_BYTES;
            /* Above 48 KiB of dynamic shared memory a kernel must opt in. */
            GPU_TRY(cudaFuncSetAttribute(k_round1w, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)ws_bytes));
            GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ1, k_round1w, THREADS, ws_bytes));
        }
    }
    if (occ < 1) occ = 1;
    if (occ1 < 1) occ1 = 1;
    {
        /* 1/share (G1: CUZK_GPU_MSM_SHARE, default 4; G2: 4): other contexts (partition workers) share the device. */
        unsigned share = P::share(tune);
        double need = (double)total * 0.75 * sizeof(typename P::aff), budget = (double)free_b / share + 1;
        ngroups = need > budget ? (size_t)(need / budget) + 1 : 1;
        if (ngroups > nbk) ngroups = nbk;
        if (ngroups < 1) ngroups = 1;
        gcnt = (nbk + ngroups - 1) / ngroups;
    }

    GPU_TRY(gpu_malloc_async((void **)&start, nbk * 4, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&len0, nbk * 4, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&d_max, 4, ctx->stream));
    for (int k = 0; k < 2; k++) {
        GPU_TRY(gpu_malloc_async((void **)&lens[k], (gcnt + 1) * 4, ctx->stream));
        GPU_TRY(gpu_malloc_async((void **)&offs[k], (gcnt + 1) * 4, ctx->stream));
    }
    st = aff_reserve(ctx, &pts[0], &cap[0], (size_t)((double)total / ngroups * 0.55) + gcnt, sizeof(typename P::aff),
                     err);
    if (st == CUZK_OK)
        st = aff_reserve(ctx, &pts[1], &cap[1], (size_t)((double)total / ngroups * 0.3) + gcnt, sizeof(typename P::aff),
                         err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cub::DeviceReduce::Max(NULL, tmp_bytes, len0, d_max, (int64_t)nbk, ctx->stream));
    GPU_TRY(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, lens[0], offs[0], (int64_t)(gcnt + 1), ctx->stream));
    if (scan_bytes > tmp_bytes) tmp_bytes = scan_bytes;
    GPU_TRY(gpu_malloc_async(&tmp, tmp_bytes, ctx->stream));

    GPU_TRY(cudaMemsetAsync(start, 0, nbk * 4, ctx->stream));
    GPU_TRY(cudaMemsetAsync(len0, 0, nbk * 4, ctx->stream));
    msm_aff_bounds<<<blocks_for(total), THREADS, 0, ctx->stream>>>(skeys, total, start, len0);
    GPU_LAUNCHED("msm_aff_bounds");
    msm_aff_lengths<<<blocks_for(nbk), THREADS, 0, ctx->stream>>>(start, len0, nbk, (uint32_t)nb);
    GPU_LAUNCHED("msm_aff_lengths");
    GPU_TRY(cub::DeviceReduce::Max(tmp, tmp_bytes, len0, d_max, (int64_t)nbk, ctx->stream));
    GPU_TRY(cudaMemcpyAsync(&maxlen, d_max, 4, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    while (rounds < 32 && ((uint64_t)1 << rounds) < maxlen) rounds++;
    run = rounds > tail ? rounds - tail : 0;
    aff_prof_mark(&ap, ctx, AFF_PROF_SETUP);

    for (size_t k0 = 0; k0 < nbk; k0 += gcnt) {
        size_t cnt = k0 + gcnt < nbk ? gcnt : nbk - k0;
        const uint32_t *in_off = start + k0, *in_len = len0 + k0;
        aff_in<P, false> in = {NULL, NULL, NULL, 0};
        /* After the last round every bucket holds at most thr points and leaves; with early, the buckets of at most
         * thr points leave before each round. */
        for (unsigned r = 1;; r++) {
            int o = (r - 1) & 1;
            uint32_t total_out = 0, thr_r = r > run || early ? thr : 0;
            if (thr_r > 0) {
                if (r == 1)
                    msm_aff_tail<P, true>
                        <<<blocks_for(cnt), THREADS, 0, ctx->stream>>>(in0, in_off, in_len, cnt, thr_r, buckets + k0);
                else
                    msm_aff_tail<P, false>
                        <<<blocks_for(cnt), THREADS, 0, ctx->stream>>>(in, in_off, in_len, cnt, thr_r, buckets + k0);
                GPU_LAUNCHED("msm_aff_tail");
                aff_prof_mark(&ap, ctx, AFF_PROF_ROUNDS);
            }
            if (r > run) break;
            msm_aff_halve<<<blocks_for(cnt + 1), THREADS, 0, ctx->stream>>>(in_len, lens[o], cnt, thr_r);
            GPU_LAUNCHED("msm_aff_halve");
            GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp, scan_bytes, lens[o], offs[o], (int64_t)(cnt + 1), ctx->stream));
            GPU_TRY(cudaMemcpyAsync(&total_out, offs[o] + cnt, 4, cudaMemcpyDeviceToHost, ctx->stream));
            GPU_TRY(cudaStreamSynchronize(ctx->stream));
            aff_prof_mark(&ap, ctx, AFF_PROF_SCANS);
            if (total_out == 0) break; /* every bucket of the range is done */
            /* Skewed scalars can put more entries in one range than the estimate. */
            st = aff_reserve(ctx, &pts[o], &cap[o], total_out, sizeof(typename P::aff), err);
            if (st != CUZK_OK) goto done;
            /* Each thread inverts once for `per` outputs: the fewest full waves of resident threads with per <=
             * AFF_PER_MAX, the work spread evenly over them, but per >= P::PER_MIN. */
            size_t resident = (size_t)ctx->sm_count * (r == 1 ? occ1 : occ) * THREADS;
            size_t waves = (total_out + resident * AFF_PER_MAX - 1) / (resident * AFF_PER_MAX);
            if (waves == 0) waves = 1;
            size_t per = (total_out + waves * resident - 1) / (waves * resident);
            if (per < P::PER_MIN) per = P::PER_MIN;
            size_t threads = (total_out + per - 1) / per;
            /* A warp takes 32 * per outputs: whole warps. */
            threads = (threads + 31) / 32 * 32;
            bool launched = false;
            if constexpr (P::WARP) {
                if (r == 1 && warp_gather) {
                    auto k_round1w = P::inv_by(tune) ? msm_aff_round1w<true> : msm_aff_round1w<false>;
                    k_round1w<<<blocks_for(threads), THREADS, ws_bytes, ctx->stream>>>(
                        svals, points, in_off, in_len, offs[o], (uint32_t)cnt, total_out, (uint32_t)per, pts[o],
                        cap[o]);
                    launched = true;
                }
            }
            if (launched)
                ;
            else if (r == 1)
                k_round1<<<blocks_for(threads), THREADS, 0, ctx->stream>>>(in0, in_off, in_len, offs[o], (uint32_t)cnt,
                                                                           total_out, (uint32_t)per, pts[o], cap[o]);
            else
                k_round<<<blocks_for(threads), THREADS, 0, ctx->stream>>>(in, in_off, in_len, offs[o], (uint32_t)cnt,
                                                                          total_out, (uint32_t)per, pts[o], cap[o]);
            GPU_LAUNCHED("msm_aff_round");
            aff_prof_mark(&ap, ctx, r < AFF_PROF_ROUNDS ? r : AFF_PROF_ROUNDS - 1);
            in_off = offs[o];
            in_len = lens[o];
            in.w = pts[o];
            in.stride = cap[o];
        }
    }
    aff_prof_report(&ap, P::NAME, rounds, run, tail, (unsigned)ngroups);
done:
    aff_prof_end(&ap);
    if (start) gpu_free_async(start, ctx->stream);
    if (len0) gpu_free_async(len0, ctx->stream);
    if (d_max) gpu_free_async(d_max, ctx->stream);
    for (int k = 0; k < 2; k++) {
        if (lens[k]) gpu_free_async(lens[k], ctx->stream);
        if (offs[k]) gpu_free_async(offs[k], ctx->stream);
        if (pts[k]) gpu_free_async(pts[k], ctx->stream);
    }
    if (tmp) gpu_free_async(tmp, ctx->stream);
    return st;
}

/* XYZZ bucket sums (the segmented sum of the file comment) of the total sorted (skeys, svals) into buckets (zeroed
 * by the caller). */
template <class P>
static cuzk_status msm_bucket_sums_xyzz(gpu_ctx *ctx, const uint32_t *skeys, const uint32_t *svals,
                                        const typename P::aff *points, size_t total, size_t nb,
                                        typename P::xyzz *buckets, cuzk_error *err)
{
    typedef typename P::xyzz X;
    cuzk_status st = CUZK_OK;
    size_t slots = 2 * ((total + MSM_CHUNK - 1) / MSM_CHUNK), len = total, threads;
    uint32_t *lk[2] = {NULL, NULL};
    X *lp[2] = {NULL, NULL};
    bool fin;
    int cur = 0;
    for (int k = 0; k < 2; k++) {
        GPU_TRY(gpu_malloc_async((void **)&lk[k], slots * 4, ctx->stream));
        GPU_TRY(gpu_malloc_async((void **)&lp[k], slots * sizeof(X), ctx->stream));
    }
    fin = len <= MSM_CHUNK;
    threads = (len + MSM_CHUNK - 1) / MSM_CHUNK;
    msm_bucket_sum<P, true><<<blocks_for(threads), THREADS, 0, ctx->stream>>>(skeys, svals, points, NULL, len,
                                                                              (uint32_t)nb, fin, buckets, lk[0], lp[0]);
    GPU_LAUNCHED("msm_bucket_sum<level 0>");
    len = 2 * threads;
    while (!fin) {
        fin = len <= MSM_CHUNK;
        threads = (len + MSM_CHUNK - 1) / MSM_CHUNK;
        msm_bucket_sum<P, false><<<blocks_for(threads), THREADS, 0, ctx->stream>>>(
            lk[cur], NULL, NULL, lp[cur], len, (uint32_t)nb, fin, buckets, lk[cur ^ 1], lp[cur ^ 1]);
        GPU_LAUNCHED("msm_bucket_sum<level n>");
        cur ^= 1;
        len = 2 * threads;
    }
done:
    for (int k = 0; k < 2; k++) {
        if (lk[k]) gpu_free_async(lk[k], ctx->stream);
        if (lp[k]) gpu_free_async(lp[k], ctx->stream);
    }
    return st;
}

/* Scalar bits the signed-digit windows cover: the folded scalars' 254 plus the top window's carry (GLV_BITS in
 * glv.h: the same for the halves of a split scalar). */
#define MSM_BITS 255

/* The widest GLV window: 6 windows of 2^21 buckets keep the sort's keys within 24 bits (three radix passes). Without
 * GLV, C_MAX: at 2^27 points c = 22 measured slower than 20 (702.75 against 674.17 ms): 25 M buckets and a fourth
 * radix pass. */
#define MSM_GLV_C_MAX 22

/* Window size for n scalars of bits bits (MSM_BITS or GLV_BITS) in [cmin, cmax]: cost model in mixed additions
 * nwin * (n + 3 * 2^(c-1)), the bucket sums plus their reduction. Capped: wider windows save little and the buckets
 * grow past a few GiB. */
static unsigned msm_window_bits(size_t n, unsigned bits, unsigned cmin, unsigned cmax)
{
    unsigned best = cmin;
    double best_cost = 1e300;
    for (unsigned c = cmin; c <= cmax; c++) {
        unsigned nwin = (bits + c - 1) / c;
        double cost = (double)nwin * ((double)n + 3.0 * (double)(1u << (c - 1)));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

extern "C" unsigned gpu_msm_window_bits(const gpu_ctx *ctx, size_t n)
{
    (void)ctx;
    return msm_window_bits(n, MSM_BITS, g1_pt::C_MIN, g1_pt::C_MAX);
}

extern "C" unsigned gpu_msm_glv_window_bits(const gpu_ctx *ctx, size_t n)
{
    (void)ctx;
    return msm_window_bits(2 * n, GLV_BITS, g1_pt::C_MIN, MSM_GLV_C_MAX);
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
    p->on = gpu_tune_get().profile;
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

static void prof_report(prof_t *p, const char *group, size_t n, unsigned c)
{
    if (!p->on || p->count < 2) return;
    cudaEventSynchronize(p->ev[p->count - 1]);
    fprintf(stderr, "gpu_msm_%s n=%zu c=%u:", group, n, c);
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

/* Horner over the window sums, on the host. */
template <class P>
static void host_finish(typename P::h_jac *out, const typename P::h_xyzz *win, unsigned nwin, unsigned c)
{
    typename P::h_jac acc, t;
    P::h_set_inf(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        for (unsigned k = 0; k < c; k++) P::h_dbl(&acc);
        P::h_to_jac(&t, &win[w]);
        P::h_add(&acc, &t);
    }
    *out = acc;
}

/* Where an MSM's points come from: bases (host or device; nbases of them staged, idx[k] naming scalar k's base when
 * idx is not NULL: G2), or a prepared table (G1: table_n rows per window, window c_prep). phi_at > 0 (G1, device
 * bases): GLV, base i's image under phi at bases[phi_at + i]. */
template <class P> struct msm_src {
    const typename P::h_aff *bases;
    size_t nbases;
    const uint32_t *idx;
    const typename P::aff *table;
    size_t table_n;
    unsigned c_prep;
    size_t phi_at;
};

/* The MSM. variant: DEFAULT (by size: affine-warp or affine from P::MSM_AFF_MIN bucket entries), XYZZ, AFFINE or
 * AFFINE_WARP (G1). retry: an affine run out of device memory falls back to the XYZZ bucket sums in place. *affine:
 * whether the bucket sums were affine. */
template <class P>
static cuzk_status msm_run(gpu_ctx *ctx, typename P::h_jac *out, const msm_src<P> &src, const fr_t *scalars, size_t n,
                           unsigned c, gpu_msm_variant variant, bool retry, bool *affine_out, cuzk_error *err)
{
    typedef typename P::xyzz X;
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_scalars = NULL, *d_idx = NULL;
    void *own_bases = NULL, *own_scalars = NULL, *own_idx = NULL, *cub_tmp = NULL;
    uint32_t *keys = NULL, *vals = NULL, *skeys = NULL, *svals = NULL;
    X *buckets = NULL, *segs = NULL, *wins = NULL;
    typename P::h_xyzz *h_wins = NULL;
    unsigned nwin = 0, bw = 1, M = 1, nseg = 0;
    size_t nb = 0, cub_bytes = 0, total = 0;
    int key_bits = 1;
    bool affine = false, prepared = src.table != NULL, glv = src.phi_at != 0;
    /* With GLV each scalar is two of GLV_BITS, over twice the points. */
    const unsigned bits = glv ? GLV_BITS : MSM_BITS;
    const size_t npts = glv ? 2 * n : n;
    float ms = 0;
    prof_t prof;

    *affine_out = false;
    if (prepared) c = src.c_prep;
    if (c == 0) c = glv ? gpu_msm_glv_window_bits(ctx, n) : msm_window_bits(n, bits, P::C_MIN, P::C_MAX);
    nwin = (bits + c - 1) / c;
    bw = prepared ? 1 : nwin; /* sets of buckets */
    nb = ((size_t)1 << (c - 1)) + 1;
    M = 1;
    while ((size_t)bw * ((nb - 1) / (2 * M)) >= 65536 && M < 32) M *= 2;
    nseg = (unsigned)((nb - 1 + M - 1) / M);
    total = (size_t)nwin * npts;
    if (variant == GPU_MSM_DEFAULT)
        variant = total >= P::MSM_AFF_MIN ? (P::WARP ? GPU_MSM_AFFINE_WARP : GPU_MSM_AFFINE) : GPU_MSM_XYZZ;
    if (!P::WARP && variant == GPU_MSM_AFFINE_WARP) variant = GPU_MSM_AFFINE;
    affine = variant == GPU_MSM_AFFINE || variant == GPU_MSM_AFFINE_WARP;
    /* The affine rounds index sorted entries with 32 bits (values carry a sign bit: below 2^31). */
    if (affine && total >= ((size_t)1 << 31)) variant = GPU_MSM_XYZZ;
    /* They load bases 16 bytes at a time: device bases at an odd offset (never from cudaMalloc) take XYZZ. */
    if (affine && !prepared && gpu_is_device_ptr(src.bases) && ((uintptr_t)src.bases & 15) != 0) variant = GPU_MSM_XYZZ;
    affine = variant != GPU_MSM_XYZZ;
    h_wins = (typename P::h_xyzz *)malloc(bw * sizeof *h_wins);
    if (h_wins == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_msm_%s: out of host memory", P::NAME);

    prof_begin(&prof, ctx);
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    st = gpu_stage_in(ctx, scalars, n * sizeof(fr_t), &d_scalars, &own_scalars, err);
    if (st != CUZK_OK) goto done;
    if (prepared) {
        d_bases = src.table;
    } else {
        st = gpu_stage_in(ctx, src.bases, src.nbases * sizeof(typename P::h_aff), &d_bases, &own_bases, err);
        if (st != CUZK_OK) goto done;
    }
    if (src.idx) {
        st = gpu_stage_in(ctx, src.idx, n * sizeof(uint32_t), &d_idx, &own_idx, err);
        if (st != CUZK_OK) goto done;
    }

    GPU_TRY(gpu_malloc_async((void **)&keys, total * 4, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&vals, total * 4, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&skeys, total * 4, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&svals, total * 4, ctx->stream));
    while (((size_t)1 << key_bits) < (size_t)bw * nb) key_bits++;
    GPU_TRY(cub::DeviceRadixSort::SortPairs(NULL, cub_bytes, keys, skeys, vals, svals, (int64_t)total, 0, key_bits,
                                            ctx->stream));
    GPU_TRY(gpu_malloc_async(&cub_tmp, cub_bytes, ctx->stream));
    prof_mark(&prof, ctx, "alloc+upload");

    if (glv)
        msm_digits_glv<<<blocks_for(n), THREADS, 0, ctx->stream>>>((const fr_d *)d_scalars, n, (uint32_t)src.phi_at, c,
                                                                   nwin, (uint32_t)nb, keys, vals);
    else
        msm_digits<<<blocks_for(n), THREADS, 0, ctx->stream>>>((const fr_d *)d_scalars, (const uint32_t *)d_idx, n, c,
                                                               nwin, (uint32_t)nb, prepared ? (uint32_t)src.table_n : 0,
                                                               keys, vals);
    GPU_LAUNCHED("msm_digits");
    prof_mark(&prof, ctx, "digits");
    GPU_TRY(cub::DeviceRadixSort::SortPairs(cub_tmp, cub_bytes, keys, skeys, vals, svals, (int64_t)total, 0, key_bits,
                                            ctx->stream));
    /* The unsorted copies and the sort's scratch are not needed any more: room for the round lists (the G1 copy
     * of this function held them to the end). */
    GPU_TRY(gpu_free_async(keys, ctx->stream));
    keys = NULL;
    GPU_TRY(gpu_free_async(vals, ctx->stream));
    vals = NULL;
    GPU_TRY(gpu_free_async(cub_tmp, ctx->stream));
    cub_tmp = NULL;
    if (own_idx) {
        GPU_TRY(gpu_free_async(own_idx, ctx->stream));
        own_idx = NULL;
    }
    GPU_TRY(gpu_malloc_async((void **)&buckets, (size_t)bw * nb * sizeof(X), ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&segs, (size_t)bw * nseg * sizeof(X), ctx->stream));
    /* All-zero bytes are XYZZ infinity (ZZ = 0): buckets no digit reaches read as empty. */
    GPU_TRY(cudaMemsetAsync(buckets, 0, (size_t)bw * nb * sizeof(X), ctx->stream));
    prof_mark(&prof, ctx, "sort");
    if (affine) {
        st = msm_bucket_sums_affine<P>(ctx, skeys, svals, (const typename P::aff *)d_bases, total, (size_t)bw * nb, nb,
                                       variant == GPU_MSM_AFFINE_WARP, buckets, err);
        if (st == CUZK_ERR_NOMEM && retry) {
            /* XYZZ needs ~5 bytes per bucket entry instead of ~0.75 of a point. */
            forget_nomem(err);
            st = CUZK_OK;
            affine = false;
            GPU_TRY(cudaMemsetAsync(buckets, 0, (size_t)bw * nb * sizeof(X), ctx->stream));
        } else if (st != CUZK_OK) {
            goto done;
        }
        prof_mark(&prof, ctx, "bucket sums affine");
    }
    if (!affine) {
        st = msm_bucket_sums_xyzz<P>(ctx, skeys, svals, (const typename P::aff *)d_bases, total, nb, buckets, err);
        if (st != CUZK_OK) goto done;
        prof_mark(&prof, ctx, "bucket sums xyzz");
    }
    *affine_out = affine;

    msm_bucket_reduce<P><<<blocks_for((size_t)nseg * bw), THREADS, 0, ctx->stream>>>(buckets, nb, M, nseg, bw, segs);
    GPU_LAUNCHED("msm_bucket_reduce");
    prof_mark(&prof, ctx, "bucket reduce");
    st = reduce_groups<P>(ctx, segs, nseg, bw, &wins, err);
    if (st != CUZK_OK) goto done;
    if (wins != segs) {
        GPU_TRY(gpu_free_async(segs, ctx->stream));
        segs = wins;
    }
    prof_mark(&prof, ctx, "segment reduce");
    GPU_TRY(cudaMemcpyAsync(h_wins, wins, bw * sizeof *h_wins, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    host_finish<P>(out, h_wins, bw, c);
    prof_report(&prof, P::NAME, n, c);

done : {
    void *dev[] = {own_bases, own_scalars, own_idx, keys, vals, skeys, svals, buckets, segs, cub_tmp};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) gpu_free_async(dev[i], ctx->stream);
}
    if (st != CUZK_OK) {
        /* Let queued work finish before the caller reuses its inputs. */
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_msm_%s(n=%zu, c=%u, variant %d): ", P::NAME, n, c, (int)variant);
    }
    free(h_wins);
    prof_end(&prof);
    return st;
}

/* ---- G1 MSM entry points ---- */

/* Bases prepared for one set of buckets: table[w * n + i] = 2^(w c) * bases[i] (affine), w < nwin. */
struct gpu_msm_bases {
    gpu_ctx *ctx;
    g1_aff_d *table;
    size_t n;
    unsigned c, nwin;
};

/* The G1 MSM; with pb, bases are pb's table (its first n rows of each window) and c is pb's; phi_at > 0: GLV over
 * device bases with their images at bases + phi_at. When the default chose the affine rounds and device memory ran
 * out, XYZZ runs instead (unless CUZK_GPU_MSM forced a path). */
static cuzk_status msm_g1_any(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const gpu_msm_bases *pb,
                              size_t phi_at, const fr_t *scalars, size_t n, unsigned c, gpu_msm_variant variant,
                              cuzk_error *err)
{
    cuzk_status st;
    bool affine = false;
    msm_src<g1_pt> src = {bases,          phi_at ? phi_at + n : n, NULL,  pb ? pb->table : NULL,
                          pb ? pb->n : 0, pb ? pb->c : 0,          phi_at};
    if (out == NULL || (n > 0 && ((bases == NULL && pb == NULL) || scalars == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: NULL argument");
    if (pb != NULL && n > pb->n)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1_prepared: n = %zu > %zu prepared", n, pb->n);
    if (n >= (1ull << 31)) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: n = %zu >= 2^31", n);
    if (c != 0 && (c < 2 || c > 24))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: window of %u bits outside 2..24", c);
    if (variant != GPU_MSM_DEFAULT && variant != GPU_MSM_XYZZ && variant != GPU_MSM_AFFINE &&
        variant != GPU_MSM_AFFINE_WARP)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1: unknown variant %d", (int)variant);
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (n == 0) {
        g1_jac_set_inf(out);
        ctx->last_ms = 0;
        return CUZK_OK;
    }
    gpu_tune tune = gpu_tune_get();
    /* CUZK_GPU_MSM forces a path for the default variant. */
    if (variant == GPU_MSM_DEFAULT && tune.msm != GPU_TUNE_AUTO)
        return msm_run<g1_pt>(ctx, out, src, scalars, n, c,
                              tune.msm == GPU_TUNE_XYZZ     ? GPU_MSM_XYZZ
                              : tune.msm == GPU_TUNE_AFFINE ? GPU_MSM_AFFINE
                                                            : GPU_MSM_AFFINE_WARP,
                              !tune.msm_forced, &affine, err);
    return msm_run<g1_pt>(ctx, out, src, scalars, n, c, variant, variant == GPU_MSM_DEFAULT && !tune.msm_forced,
                          &affine, err);
}

extern "C" cuzk_status gpu_msm_g1_variant(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars,
                                          size_t n, unsigned c, gpu_msm_variant variant, cuzk_error *err)
{
    return msm_g1_any(ctx, out, bases, NULL, 0, scalars, n, c, variant, err);
}

extern "C" cuzk_status gpu_msm_g1_prepared(gpu_ctx *ctx, g1_jac_t *out, const gpu_msm_bases *pb, const fr_t *scalars,
                                           size_t n, gpu_msm_variant variant, cuzk_error *err)
{
    if (pb == NULL || ctx == NULL)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1_prepared: NULL argument");
    if (pb->ctx->device != ctx->device)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1_prepared: bases prepared on another device");
    return msm_g1_any(ctx, out, NULL, pb, 0, scalars, n, 0, variant, err);
}

/* ---- GLV (glv.h) ---- */

/* out[i] = phi(in[i]) = (beta x, y); infinity (0, 0) stays infinity. */
__global__ void msm_glv_phi(const g1_aff_d *in, size_t n, fp_d beta, g1_aff_d *out)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    g1_aff_d p = in[i];
    FP_MUL(p.x, p.x, beta);
    out[i] = p;
}

extern "C" cuzk_status gpu_msm_glv_upload(gpu_ctx *ctx, gpu_buf **out, const g1_affine_t *bases, size_t n,
                                          cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    gpu_buf *b = NULL;
    fp_t beta_h;
    fp_d beta;
    if (out != NULL) *out = NULL;
    if (out == NULL || ctx == NULL || (bases == NULL && n > 0))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_glv_upload: NULL argument");
    if (n == 0 || n >= (1ull << 30))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_glv_upload: n = %zu outside 1..2^30", n);
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    b = (gpu_buf *)calloc(1, sizeof *b);
    if (b == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_msm_glv_upload: out of host memory");
    b->ctx = ctx;
    b->bytes = 2 * n * sizeof(g1_affine_t);
    g1_glv_beta(&beta_h);
    static_assert(sizeof beta == sizeof beta_h, "fp_d and fp_t differ in size");
    memcpy(&beta, &beta_h, sizeof beta);
    /* Long-lived, like gpu_buf_upload's. */
    GPU_TRY(gpu_malloc(&b->ptr, b->bytes));
    GPU_TRY(cudaMemcpyAsync(b->ptr, bases, n * sizeof(g1_affine_t), cudaMemcpyDefault, ctx->stream));
    msm_glv_phi<<<blocks_for(n), THREADS, 0, ctx->stream>>>((const g1_aff_d *)b->ptr, n, beta, (g1_aff_d *)b->ptr + n);
    GPU_LAUNCHED("msm_glv_phi");
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    *out = b;
    return CUZK_OK;
done:
    if (st == CUZK_ERR_NOMEM) cuzk_error_prefix(err, "gpu_msm_glv_upload of %zu bytes: ", b->bytes);
    gpu_buf_free(b);
    return st;
}

extern "C" cuzk_status gpu_msm_g1_glv(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, size_t phi_at,
                                      const fr_t *scalars, size_t n, cuzk_error *err)
{
    if (ctx == NULL || out == NULL || (n > 0 && (bases == NULL || scalars == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1_glv: NULL argument");
    if (n > phi_at || phi_at + n >= (1ull << 31))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "gpu_msm_g1_glv: n = %zu, images at %zu (need n <= phi_at, "
                              "phi_at + n < 2^31)",
                              n, phi_at);
    cuzk_status st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (n > 0 && !gpu_is_device_ptr(bases))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_g1_glv: the bases must be on the device");
    return msm_g1_any(ctx, out, bases, NULL, phi_at, scalars, n, 0, GPU_MSM_DEFAULT, err);
}
/* Window w + 1 of the table from window w: scratch[i] = 2^c * row[i] (XYZZ). */
__global__ void __launch_bounds__(THREADS)
    msm_prep_double(const g1_aff_d *row, size_t n, unsigned c, g1_xyzz_d *scratch)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    g1_xyzz_d p;
    g1_xyzz_from_aff(p, row[i]);
    for (unsigned k = 0; k < c; k++) g1_xyzz_dbl(p, p);
    scratch[i] = p;
}

/* row[i] = scratch[i] in affine, `per` points per thread with one inversion (of the products ZZ * ZZZ:
 * 1/ZZ = ZZZ / (ZZ ZZZ), 1/ZZZ = ZZ / (ZZ ZZZ)); the running products wait in row[i].x. */
__global__ void __launch_bounds__(THREADS)
    msm_prep_affine(const g1_xyzz_d *scratch, size_t n, unsigned per, g1_aff_d *row)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, i0 = t * per;
    if (i0 >= n) return;
    size_t i1 = n - i0 < per ? n : i0 + per;
    fp_d acc, d;
    mont_set_one<fp_cfg>(acc);
    for (size_t i = i0; i < i1; i++) {
        row[i].x = acc;
        if (g1_xyzz_is_inf(scratch[i])) continue;
        FP_MUL(d, scratch[i].zz, scratch[i].zzz);
        FP_MUL(acc, acc, d);
    }
    fp_d inv;
    g1_fp_inv(inv, acc);
    for (size_t i = i1; i-- > i0;) {
        const g1_xyzz_d &p = scratch[i];
        g1_aff_d r;
        if (g1_xyzz_is_inf(p)) {
            mont_set_zero<fp_cfg>(r.x);
            mont_set_zero<fp_cfg>(r.y);
        } else {
            fp_d t1, u, pre = row[i].x;
            FP_MUL(t1, inv, pre);
            FP_MUL(d, p.zz, p.zzz);
            FP_MUL(inv, inv, d);
            FP_MUL(u, t1, p.zzz);
            FP_MUL(r.x, p.x, u);
            FP_MUL(u, t1, p.zz);
            FP_MUL(r.y, p.y, u);
        }
        row[i] = r;
    }
}

extern "C" unsigned gpu_msm_prepared_window_bits(const gpu_ctx *ctx, size_t n)
{
    (void)ctx;
    /* Cost model in mixed additions: n * nwin bucket entries plus ~3 additions per bucket of the one set. */
    unsigned best = 4;
    double best_cost = 1e300;
    for (unsigned c = 4; c <= 24; c++) {
        unsigned nwin = (MSM_BITS + c - 1) / c;
        double cost = (double)nwin * (double)n + 3.0 * (double)(1u << (c - 1));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

extern "C" cuzk_status gpu_msm_bases_prepare(gpu_ctx *ctx, gpu_msm_bases **out, const g1_affine_t *bases, size_t n,
                                             unsigned c, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    gpu_msm_bases *pb = NULL;
    g1_xyzz_d *scratch = NULL;
    const void *d_bases = NULL;
    void *own_bases = NULL;
    unsigned per = 256;

    if (out == NULL || bases == NULL || n == 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_bases_prepare: NULL argument or n = 0");
    *out = NULL;
    if (c != 0 && (c < 2 || c > 24))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_bases_prepare: window of %u bits outside 2..24", c);
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (c == 0) c = gpu_msm_prepared_window_bits(ctx, n);
    if ((size_t)((MSM_BITS + c - 1) / c) * n >= ((size_t)1 << 31))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_msm_bases_prepare: %u windows of %zu bases >= 2^31",
                              (MSM_BITS + c - 1) / c, n);
    pb = (gpu_msm_bases *)calloc(1, sizeof *pb);
    if (pb == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_msm_bases_prepare: out of host memory");
    pb->ctx = ctx;
    pb->n = n;
    pb->c = c;
    pb->nwin = (MSM_BITS + c - 1) / c;
    /* Long-lived, like gpu_buf: plain allocation outside the pool. */
    GPU_TRY(gpu_malloc((void **)&pb->table, (size_t)pb->nwin * n * sizeof(g1_aff_d)));
    st = gpu_stage_in(ctx, bases, n * sizeof(g1_affine_t), &d_bases, &own_bases, err);
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaMemcpyAsync(pb->table, d_bases, n * sizeof(g1_aff_d), cudaMemcpyDeviceToDevice, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&scratch, n * sizeof(g1_xyzz_d), ctx->stream));
    for (unsigned w = 1; w < pb->nwin; w++) {
        msm_prep_double<<<blocks_for(n), THREADS, 0, ctx->stream>>>(pb->table + (size_t)(w - 1) * n, n, c, scratch);
        GPU_LAUNCHED("msm_prep_double");
        msm_prep_affine<<<blocks_for((n + per - 1) / per), THREADS, 0, ctx->stream>>>(scratch, n, per,
                                                                                      pb->table + (size_t)w * n);
        GPU_LAUNCHED("msm_prep_affine");
    }
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    *out = pb;
    pb = NULL;
done:
    if (scratch) gpu_free_async(scratch, ctx->stream);
    if (own_bases) gpu_free_async(own_bases, ctx->stream);
    if (pb) {
        cudaStreamSynchronize(ctx->stream);
        if (pb->table) gpu_free(pb->table);
        (void)cudaGetLastError();
        free(pb);
        cuzk_error_prefix(err, "gpu_msm_bases_prepare(n=%zu, c=%u): ", n, c);
    }
    return st;
}

extern "C" void gpu_msm_bases_free(gpu_msm_bases *pb)
{
    if (pb == NULL) return;
    if (pb->table && cudaSetDevice(pb->ctx->device) == cudaSuccess) {
        cudaStreamSynchronize(pb->ctx->stream);
        gpu_free(pb->table);
    }
    (void)cudaGetLastError();
    free(pb);
}

extern "C" unsigned gpu_msm_bases_window(const gpu_msm_bases *pb)
{
    return pb ? pb->c : 0;
}

extern "C" cuzk_status gpu_msm_g1_window(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars,
                                         size_t n, unsigned c, cuzk_error *err)
{
    return gpu_msm_g1_variant(ctx, out, bases, scalars, n, c, GPU_MSM_DEFAULT, err);
}

extern "C" cuzk_status gpu_msm_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                                  cuzk_error *err)
{
    return gpu_msm_g1_window(ctx, out, bases, scalars, n, 0, err);
}

/* cnt[w] = the number of selected bases in mask word w (bits at n and above ignored), cnt[nw] = 0. */
__global__ void mask_word_counts(const uint64_t *mask, size_t n, size_t nw, uint32_t *cnt)
{
    size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (w > nw) return;
    if (w == nw) {
        cnt[w] = 0;
        return;
    }
    uint64_t word = mask[w];
    if (n - 64 * w < 64) word &= (1ull << (n - 64 * w)) - 1;
    cnt[w] = (uint32_t)__popcll(word);
}

/* idx[off[w] + k] = the position of word w's k-th set bit. */
__global__ void mask_word_indices(const uint64_t *mask, size_t n, size_t nw, const uint32_t *off, uint32_t *idx)
{
    size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (w >= nw) return;
    uint64_t word = mask[w];
    if (n - 64 * w < 64) word &= (1ull << (n - 64 * w)) - 1;
    uint32_t o = off[w];
    while (word) {
        int b = __ffsll((long long)word) - 1;
        word &= word - 1;
        idx[o++] = (uint32_t)(64 * w + (size_t)b);
    }
}

cuzk_status gpu_mask_compact(gpu_ctx *ctx, const uint64_t *mask, size_t n, size_t min_count, uint32_t **idx,
                             uint32_t *count, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t nw = (n + 63) / 64, scan_bytes = 0;
    uint32_t *cnt = NULL, *off = NULL;
    void *tmp = NULL;
    *idx = NULL;
    *count = 0;
    GPU_TRY(gpu_malloc_async((void **)&cnt, (nw + 1) * 4, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&off, (nw + 1) * 4, ctx->stream));
    mask_word_counts<<<blocks_for(nw + 1), THREADS, 0, ctx->stream>>>(mask, n, nw, cnt);
    GPU_LAUNCHED("mask_word_counts");
    GPU_TRY(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, cnt, off, (int64_t)(nw + 1), ctx->stream));
    GPU_TRY(gpu_malloc_async(&tmp, scan_bytes, ctx->stream));
    GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp, scan_bytes, cnt, off, (int64_t)(nw + 1), ctx->stream));
    GPU_TRY(cudaMemcpyAsync(count, off + nw, 4, cudaMemcpyDeviceToHost, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    if (*count == 0 || *count < min_count) goto done;
    GPU_TRY(gpu_malloc_async((void **)idx, (size_t)*count * 4, ctx->stream));
    mask_word_indices<<<blocks_for(nw), THREADS, 0, ctx->stream>>>(mask, n, nw, off, *idx);
    GPU_LAUNCHED("mask_word_indices");
done:
    if (st != CUZK_OK && *idx) {
        gpu_free_async(*idx, ctx->stream);
        *idx = NULL;
    }
    void *dev[] = {cnt, off, tmp};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) gpu_free_async(dev[i], ctx->stream);
    return st;
}

/* ---- Batch addition ---- */

/* A single bucket would take log2(selected) rounds, the late ones with a handful of outputs (a launch, a scan and
 * a host sync each, and threads that wait on their products' latency): the selected bases are cut into buckets
 * of BATCH_SEG, halved in log2(BATCH_SEG) - tail rounds that all fill the device, and the bucket sums added by a
 * tree. */
#define BATCH_SEG 1024

/* keys[j] = 1 + j / BATCH_SEG for the j-th selected base (bucket 0, the zero digit's in an MSM, is never read). */
__global__ void batch_keys(uint32_t count, uint32_t *keys)
{
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j < count) keys[j] = 1 + (uint32_t)(j / BATCH_SEG);
}

/* The affine batch addition over device bases and mask into *res (host, once the stream reaches it). With
 * min_sel > 0 and fewer selected bases than that, returns CUZK_OK with *done = false (nothing computed). */
template <class P>
static cuzk_status batch_add_affine(gpu_ctx *ctx, typename P::h_xyzz *res, const typename P::aff *bases,
                                    const uint64_t *mask, size_t n, size_t min_sel, bool *done, cuzk_error *err)
{
    typedef typename P::xyzz X;
    cuzk_status st = CUZK_OK;
    uint32_t *keys = NULL, *vals = NULL, sel = 0;
    size_t nbk = 0;
    X *buckets = NULL, *sum = NULL;
    *done = false;
    st = gpu_mask_compact(ctx, mask, n, min_sel, &vals, &sel, err);
    if (st != CUZK_OK || sel < min_sel) goto done;
    nbk = 1 + ((size_t)sel + BATCH_SEG - 1) / BATCH_SEG;
    GPU_TRY(gpu_malloc_async((void **)&buckets, nbk * sizeof(X), ctx->stream));
    GPU_TRY(cudaMemsetAsync(buckets, 0, nbk * sizeof(X), ctx->stream));
    if (sel > 0) {
        GPU_TRY(gpu_malloc_async((void **)&keys, (size_t)sel * 4, ctx->stream));
        batch_keys<<<blocks_for(sel), THREADS, 0, ctx->stream>>>(sel, keys);
        GPU_LAUNCHED("batch_keys");
        st = msm_bucket_sums_affine<P>(ctx, keys, vals, bases, sel, nbk, nbk, true, buckets, err);
        if (st != CUZK_OK) goto done;
    }
    st = reduce_groups<P>(ctx, buckets, nbk, 1, &sum, err);
    if (st != CUZK_OK) goto done;
    if (sum != buckets) {
        GPU_TRY(gpu_free_async(buckets, ctx->stream));
        buckets = sum;
    }
    GPU_TRY(cudaMemcpyAsync(res, buckets, sizeof *res, cudaMemcpyDeviceToHost, ctx->stream));
    *done = true;
done:
    void *dev[] = {keys, vals, buckets};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) gpu_free_async(dev[i], ctx->stream);
    return st;
}

/* Batch addition: XYZZ mixed additions in fixed chunks of bases per thread (every base's mask bit read), or the
 * selected bases compacted into buckets of the batch-affine rounds (~6.6 products an addition instead of 10 in
 * G1). The knob (G1: CUZK_GPU_BATCH, G2: CUZK_GPU_G2) forces one; by default affine from P::BATCH_AFF_MIN
 * selected bases (the G2 copy counted all n bases, selected or not). Out of device memory in the rounds (~0.75 of
 * a point per selected base), XYZZ runs instead, which needs almost none; G1 does not when the path was forced.
 * venv: -1 by size, 0 XYZZ, 1 affine (P::batch_path of the knob, or the caller's choice). *affine: the path taken. */
template <class P>
static cuzk_status batch_add(gpu_ctx *ctx, typename P::h_jac *out, const typename P::h_aff *bases, const uint64_t *mask,
                             size_t n, int venv, bool retry_forced, bool *affine, cuzk_error *err)
{
    typedef typename P::xyzz X;
    cuzk_status st = CUZK_OK;
    const void *d_bases = NULL, *d_mask = NULL;
    void *own_bases = NULL, *own_mask = NULL;
    X *parts = NULL, *res = NULL;
    typename P::h_xyzz h_res;
    size_t chunks = (n + P::BATCH_CHUNK - 1) / P::BATCH_CHUNK;
    float ms = 0;

    *affine = false;
    if (out == NULL || (n > 0 && (bases == NULL || mask == NULL)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_batch_add_%s: NULL argument", P::NAME);
    if (n >= (1ull << 32))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_batch_add_%s: n = %zu >= 2^32", P::NAME, n);
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (n == 0) {
        P::h_set_inf(out);
        ctx->last_ms = 0;
        return CUZK_OK;
    }
    GPU_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
    st = gpu_stage_in(ctx, mask, (n + 63) / 64 * 8, &d_mask, &own_mask, err);
    if (st != CUZK_OK) goto done;
    st = gpu_stage_in(ctx, bases, n * sizeof(typename P::h_aff), &d_bases, &own_bases, err);
    if (st != CUZK_OK) goto done;
    /* The affine rounds load bases 16 bytes at a time: bases at an odd offset take XYZZ. Fewer than min bases
     * cannot select min: no compaction to count them. */
    if (venv != 0 && ((uintptr_t)d_bases & 15) == 0 && (venv == 1 || n >= P::BATCH_AFF_MIN)) {
        bool done_aff = false;
        st = batch_add_affine<P>(ctx, &h_res, (const typename P::aff *)d_bases, (const uint64_t *)d_mask, n,
                                 venv == 1 ? 0 : P::BATCH_AFF_MIN, &done_aff, err);
        if (st == CUZK_ERR_NOMEM && (venv != 1 || retry_forced)) {
            forget_nomem(err);
            st = CUZK_OK;
        }
        if (st != CUZK_OK) goto done;
        if (done_aff) {
            *affine = true;
            goto finish;
        }
    }
    GPU_TRY(gpu_malloc_async((void **)&parts, chunks * sizeof(X), ctx->stream));
    batch_add_chunks<P><<<blocks_for(chunks), THREADS, 0, ctx->stream>>>((const typename P::aff *)d_bases,
                                                                         (const uint64_t *)d_mask, n, parts);
    GPU_LAUNCHED("batch_add_chunks");
    st = reduce_groups<P>(ctx, parts, chunks, 1, &res, err);
    if (st != CUZK_OK) goto done;
    if (res != parts) {
        GPU_TRY(gpu_free_async(parts, ctx->stream));
        parts = res;
    }
    GPU_TRY(cudaMemcpyAsync(&h_res, res, sizeof h_res, cudaMemcpyDeviceToHost, ctx->stream));
finish:
    GPU_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
    GPU_TRY(cudaEventSynchronize(ctx->ev_stop));
    GPU_TRY(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop));
    ctx->last_ms = ms;
    P::h_to_jac(out, &h_res);
done:
    if (own_bases) gpu_free_async(own_bases, ctx->stream);
    if (own_mask) gpu_free_async(own_mask, ctx->stream);
    if (parts) gpu_free_async(parts, ctx->stream);
    if (st != CUZK_OK) {
        *affine = false;
        cudaStreamSynchronize(ctx->stream);
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "gpu_batch_add_%s(n=%zu): ", P::NAME, n);
    }
    return st;
}

extern "C" cuzk_status gpu_batch_add_g1(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases, const uint64_t *mask,
                                        size_t n, cuzk_error *err)
{
    bool affine = false;
    return batch_add<g1_pt>(ctx, out, bases, mask, n, g1_pt::batch_path(gpu_tune_get()), false, &affine, err);
}

extern "C" cuzk_status gpu_batch_add_g1_xyzz(gpu_ctx *ctx, g1_jac_t *out, const g1_affine_t *bases,
                                             const uint64_t *mask, size_t n, cuzk_error *err)
{
    bool affine = false;
    return batch_add<g1_pt>(ctx, out, bases, mask, n, 0, false, &affine, err);
}

/* ---- G2 entry points ---- */

/* Which path the calling thread's last G2 sum took (gpu_g2_last_was_affine). */
static thread_local int g2_last_affine = 0;

extern "C" int gpu_g2_last_was_affine(void)
{
    return g2_last_affine;
}

/* G2 falls back to XYZZ after an out-of-memory affine run even when CUZK_GPU_G2=affine forced it (gpu_g2.h). */
extern "C" cuzk_status gpu_batch_add_g2(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, const uint64_t *mask,
                                        size_t n, cuzk_error *err)
{
    bool affine = false;
    g2_last_affine = 0;
    cuzk_status st = batch_add<g2_pt>(ctx, out, bases, mask, n, g2_pt::batch_path(gpu_tune_get()), true, &affine, err);
    g2_last_affine = affine;
    return st;
}

/* msm_run's peak for n G2 scalars (no GLV, no table), before the bucket sums: the digit lists and their sorted
 * copies (16 bytes an entry), the radix sort's scratch (CUB's alternate key and value buffers, 8 bytes an entry, and
 * its histograms), scalars and indices staged from the host. The affine rounds after it size their lists from the
 * memory then free (msm_bucket_sums_affine). */
extern "C" size_t gpu_msm_g2_peak_bytes(size_t n)
{
    unsigned c = msm_window_bits(n, MSM_BITS, g2_pt::C_MIN, g2_pt::C_MAX);
    size_t nwin = (MSM_BITS + c - 1) / c, nb = ((size_t)1 << (c - 1)) + 1;
    if (n > ((size_t)1 << 40)) return (size_t)-1;
    return nwin * n * 24 + n * (sizeof(fr_t) + 4) + nwin * nb * 2 * sizeof(g2_pt::xyzz) + ((size_t)64 << 20);
}

extern "C" size_t gpu_msm_g2_piece(size_t n, size_t free_b)
{
    size_t piece = n;
    while (piece > GPU_MSM_G2_PIECE_MIN && gpu_msm_g2_peak_bytes(piece) > free_b) {
        piece = piece / 2 / 64 * 64;
        if (piece < GPU_MSM_G2_PIECE_MIN) piece = GPU_MSM_G2_PIECE_MIN;
    }
    return piece;
}

extern "C" cuzk_status gpu_msm_g2_indexed(gpu_ctx *ctx, g2_jac_t *out, const g2_affine_t *bases, size_t nbases,
                                          const uint32_t *idx, const fr_t *scalars, size_t n, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    bool affine = false;
    gpu_msm_variant variant = GPU_MSM_DEFAULT;
    gpu_tune_path forced = gpu_tune_get().g2;
    msm_src<g2_pt> src = {bases, idx ? nbases : n, idx, NULL, 0, 0, 0};

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
    if (forced == GPU_TUNE_XYZZ) variant = GPU_MSM_XYZZ;
    if (forced == GPU_TUNE_AFFINE) variant = GPU_MSM_AFFINE;
    st = msm_run<g2_pt>(ctx, out, src, scalars, n, 0, variant, true, &affine, err);
    g2_last_affine = st == CUZK_OK && affine;
    return st;
}
