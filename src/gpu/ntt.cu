/* NTT over Fr and the Groth16 quotient H on the device.
 *
 * Every transform is one decimation-in-frequency (DIF) NTT: natural order in, and its last pass writes each
 * result straight to its bit-reversed position, so the output is in natural order too and no separate
 * bit-reversal pass exists. The inverse transform is the DIF with the inverse root; 1/m and coset powers are
 * multiplications fused into the first pass's loads (shift^i) or the last pass's stores (c * shift^i).
 *
 * Passes (the "four-step" split of m = 2^L): L = k_0 + k_1 + ... with k_p <= 11. Pass p sees the index as
 * hi | mid | lo with mid its k_p bits (l0 = k_0 + ... + k_{p-1} bits above, s = L - l0 - k_p below). For each
 * (hi, lo) it does a 2^k-point DIF over mid in shared memory (local roots only), leaving position mid with
 * frequency rev_k(mid), then multiplies by w_M^(lo * rev_k(mid)), M = 2^(s + k) the size of the
 * sub-problem (w_M = psi^(2^l0)). That is the standard split X[k1 + N1 k2] = sum_lo w_N2^(lo k2) w_N^(lo k1)
 * (sum_mid a[mid N2 + lo] w_N1^(mid k1)), applied recursively; the last pass (s = 0) has no twiddle and stores
 * rev_L of each index. 2^27 = 9 + 9 + 9: three passes, each reading and writing every element once.
 *
 * A block takes G groups (2^k * G elements; the default kernel variant: 1024 elements, 32 KiB of shared
 * memory, 256 threads with 4 elements each, three blocks per SM; see "kernel variants" below). Groups of a
 * block are consecutive lo values (so global accesses are G * 32 contiguous bytes) or, in the last pass, hi
 * values whose bit reversals are consecutive (so the bit-reversed stores are contiguous too). Inside, the k
 * levels go RB at a time through registers (a radix-2^RB step per thread), with shared memory between steps;
 * the fused variants do the first step on the values loaded from global memory and the last one on the way
 * out. Shared memory is planar (limb-major) with an XOR swizzle: bank conflicts at most 2-way in every access
 * pattern of passes of 8 to 11 bits (enumerated for both kernel shapes).
 *
 * Twiddle tables: the local roots w_2048^t (t < 1024) of the chain serve every k; the pass twiddles w_M^x are a
 * full table of M entries when M <= 2^18 (L2-resident), else two half-width tables whose product is w_M^x
 * (one extra multiplication). Coset tables are built the same way with the constant folded in.
 *
 * H keeps a, b, c on the device: a, b, c are copied in on the plan's copy stream while the previous vector
 * is transformed; the transform of c ends by computing (a*b - c) * 1/Z in the same store (reading the a and b
 * values at the same index), so no separate pointwise pass exists in the bellperson form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx_impl.cuh"
#include "ff_mont.cuh"

extern "C" {
#include "gpu/gpu_ntt.h"
}

#define NTT_KMAX 11      /* largest pass, bits */
#define NTT_FULL_BITS 18 /* tables up to 2^18 entries are kept whole */
#define NTT_MAX_PASSES 3
#define NTT_MAX_LOG 28
#define NTT_SCALE_CACHE 8
#define NTT_PROF_MARKS 12 /* events of one profiled H */

/* value(x) = lo[x & lo_mask] * hi[x >> hi_shift] (hi NULL: lo alone). */
struct ntt_tab {
    const fr_d *lo, *hi;
    uint32_t lo_mask, hi_shift;
};

struct ntt_pass_args {
    const fr_d *src;
    fr_d *dst;
    const fr_d *tw; /* w_2048^t, t < 1024 */
    ntt_tab bound, lscale, sscale;
    /* epilogue: dst[o] = pa[o] * pb[o] - v; without pb: pa[o] - v (ep_sub) or pa[o] * v */
    const fr_d *pa, *pb;
    uint32_t L, s, lg; /* lg = log2 of the groups per block */
    int has_bound, has_lscale, has_sscale, ep_sub;
};

/* ---- device helpers ---- */

__device__ __forceinline__ fr_d ntt_ld(const fr_d *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = q[0], b = q[1];
    fr_d r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
}

__device__ __forceinline__ fr_d ntt_tab_get(const ntt_tab &t, uint32_t x)
{
    fr_d r = fr_ldg(t.lo + (x & t.lo_mask));
    if (t.hi) {
        fr_d h = fr_ldg(t.hi + (x >> t.hi_shift));
        mont_mul<fr_cfg>(r, r, h);
    }
    return r;
}

/* rev of the low n bits of x (n <= 32). */
__device__ __forceinline__ uint32_t ntt_rev(uint32_t x, uint32_t n)
{
    return n == 0 ? 0 : __brev(x) >> (32 - n);
}

/* Shared-memory slot of element e: a bijection on [0, E) that changes only the low 5 bits. */
__device__ __forceinline__ uint32_t ntt_sw(uint32_t e)
{
    return e ^ ((e >> 3) & 31) ^ ((e >> 8) & 31);
}

__device__ __forceinline__ void ntt_sm_put(uint32_t *sm, uint32_t E, uint32_t e, const fr_d &x)
{
    uint32_t a = ntt_sw(e);
#pragma unroll
    for (int p = 0; p < 8; p++) sm[p * E + a] = x.v[p];
}

__device__ __forceinline__ fr_d ntt_sm_get(const uint32_t *sm, uint32_t E, uint32_t e)
{
    uint32_t a = ntt_sw(e);
    fr_d x;
#pragma unroll
    for (int p = 0; p < 8; p++) x.v[p] = sm[p * E + a];
    return x;
}

/* The DIF levels of one radix-2^RB step on the thread's 2^RB elements x[j], which differ in the mid bits
 * [W0, W0+RB) (j is those bits): the levels on the top R of them (R < RB only for the first step of a pass).
 * mlow: the element's mid bits below the window. */
template <int W0, int R, int RB> __device__ __forceinline__ void ntt_bfly(fr_d *x, uint32_t mlow, const fr_d *tw)
{
    constexpr int EPT = 1 << RB;
#pragma unroll
    for (int i = RB - 1; i >= RB - R; i--) {
        const int b = W0 + i; /* the level's bit of mid: butterflies of span 2^b, roots w_(2^(b+1)) */
#pragma unroll
        for (int j = 0; j < EPT; j++) {
            if (j & (1 << i)) continue;
            fr_d u = x[j], v = x[j | (1 << i)], d;
            mont_add<fr_cfg>(x[j], u, v);
            mont_sub<fr_cfg>(d, u, v);
            const uint32_t jl = (uint32_t)(j & ((1 << i) - 1));
            if (W0 > 0 || jl != 0) { /* exponent mid mod 2^b; zero only where known at compile time */
                uint32_t ex = mlow | (jl << W0);
                fr_d w = fr_ldg(tw + (ex << (10 - b)));
                mont_mul<fr_cfg>(d, d, w);
            }
            x[j | (1 << i)] = d;
        }
    }
}

/* One step through shared memory. Element e of the block is mid * G + g. */
template <int W0, int R, int RB>
__device__ __forceinline__ void ntt_step(uint32_t *sm, uint32_t E, uint32_t lg, const fr_d *tw, uint32_t t)
{
    constexpr int EPT = 1 << RB;
    const uint32_t ew0 = W0 + lg;
    const uint32_t ebase = (t & ((1u << ew0) - 1)) | ((t >> ew0) << (ew0 + RB));
    fr_d x[EPT];
#pragma unroll
    for (int j = 0; j < EPT; j++) x[j] = ntt_sm_get(sm, E, ebase | ((uint32_t)j << ew0));
    ntt_bfly<W0, R, RB>(x, (ebase >> lg) & ((1u << W0) - 1), tw);
#pragma unroll
    for (int j = 0; j < EPT; j++) ntt_sm_put(sm, E, ebase | ((uint32_t)j << ew0), x[j]);
}

/* The steps of a pass, top bits first: TOP is the highest mid bit not yet done, R the levels of this step. */
template <int TOP, int R, int RB>
__device__ __forceinline__ void ntt_steps(uint32_t *sm, uint32_t E, uint32_t lg, const fr_d *tw, uint32_t t, uint32_t T)
{
    if (t < T) ntt_step<TOP - RB + 1, R, RB>(sm, E, lg, tw, t);
    __syncthreads();
    if constexpr (TOP - R >= RB - 1) ntt_steps<TOP - R, RB, RB>(sm, E, lg, tw, t, T);
}

/* The middle steps of a fused pass: all but the first (done on the loaded registers) and the last (window
 * [0, RB), done on the way out). */
template <int TOP, int RB>
__device__ __forceinline__ void ntt_steps_mid(uint32_t *sm, uint32_t E, uint32_t lg, const fr_d *tw, uint32_t t,
                                              uint32_t T)
{
    if constexpr (TOP > RB - 1) {
        if (t < T) ntt_step<TOP - RB + 1, RB, RB>(sm, E, lg, tw, t);
        __syncthreads();
        ntt_steps_mid<TOP - RB, RB>(sm, E, lg, tw, t, T);
    }
}

/* Twiddle, scale or epilogue of the value x at (mid m, group g) and its store. */
template <int KB>
__device__ __forceinline__ void ntt_out(const ntt_pass_args &a, fr_d x, uint32_t m, uint32_t g, uint32_t base,
                                        uint32_t lo0, uint32_t b)
{
    uint32_t o;
    if (a.s != 0) {
        o = base + (m << a.s) + g;
        if (a.has_bound) {
            fr_d w = ntt_tab_get(a.bound, (lo0 + g) * ntt_rev(m, KB));
            mont_mul<fr_cfg>(x, x, w);
        }
    } else {
        uint32_t hb = a.L - KB; /* bits of hi */
        o = (ntt_rev(m, KB) << hb) | ntt_rev(b, hb) | ntt_rev(g, a.lg);
        if (a.has_sscale) {
            fr_d w = ntt_tab_get(a.sscale, o);
            mont_mul<fr_cfg>(x, x, w);
        }
        if (a.pa && a.pb) {
            fr_d p = ntt_ld(a.pa + o), q = ntt_ld(a.pb + o);
            mont_mul<fr_cfg>(p, p, q);
            mont_sub<fr_cfg>(x, p, x);
        } else if (a.pa) {
            fr_d p = ntt_ld(a.pa + o);
            if (a.ep_sub)
                mont_sub<fr_cfg>(x, p, x);
            else
                mont_mul<fr_cfg>(x, x, p);
        }
    }
    fr_st(a.dst + o, x);
}

/* One pass of 2^KB points per group. RB: log2 of the elements per thread (radix-2^RB steps through registers);
 * NT, MINB: the launch bounds (threads per block at most, blocks per SM at least), which set the register
 * budget. FUSE: the first step works on the values as loaded from global memory and the last one stores its
 * results to global memory, two shared-memory round trips fewer (else every step goes through shared memory).
 * The kernel variants (ntt_variants below) are instantiations of this template. */
template <int KB, int RB, int NT, int MINB, int FUSE>
__global__ void __launch_bounds__(NT, MINB) ntt_pass_kernel(ntt_pass_args a)
{
    constexpr uint32_t EPT = 1u << RB;
    extern __shared__ uint32_t sm[];
    const uint32_t K = 1u << KB, G = 1u << a.lg, E = K * G, T = E / EPT;
    const uint32_t t = threadIdx.x, b = blockIdx.x;
    const bool last = a.s == 0;
    uint32_t base = 0, lo0 = 0;
    if (!last) {
        uint32_t per_hi = a.s - a.lg; /* log2 of the blocks sharing one hi */
        lo0 = (b & ((1u << per_hi) - 1)) << a.lg;
        base = ((b >> per_hi) << (a.s + KB)) + lo0;
    }
    if constexpr (FUSE) {
        static_assert(KB >= 2 * RB, "a fused pass has a first and a last step");
        constexpr int R0 = ((KB - 1) % RB) + 1;
        fr_d x[EPT];
        if (t < T) {
            /* Element j*T + t: its mid's top RB bits are j, the first step's window. */
#pragma unroll
            for (uint32_t j = 0; j < EPT; j++) {
                uint32_t f = j * T + t, m = f >> a.lg, g = f & (G - 1), idx;
                if (!last)
                    idx = base + (m << a.s) + g;
                else
                    idx = ((b + (g << (a.L - KB - a.lg))) << KB) + m;
                x[j] = ntt_ld(a.src + idx);
                if (a.has_lscale) {
                    fr_d w = ntt_tab_get(a.lscale, idx);
                    mont_mul<fr_cfg>(x[j], x[j], w);
                }
            }
            ntt_bfly<KB - RB, R0, RB>(x, (t >> a.lg) & ((1u << (KB - RB)) - 1), a.tw);
#pragma unroll
            for (uint32_t j = 0; j < EPT; j++) ntt_sm_put(sm, E, j * T + t, x[j]);
        }
        __syncthreads();
        ntt_steps_mid<KB - 1 - R0, RB>(sm, E, a.lg, a.tw, t, T);
        if (t >= T) return;
        /* The last step: mid = mhi | j, the window [0, RB). */
        const uint32_t g = t & (G - 1), mhi = (t >> a.lg) << RB;
#pragma unroll
        for (uint32_t j = 0; j < EPT; j++) x[j] = ntt_sm_get(sm, E, ((mhi | j) << a.lg) | g);
        ntt_bfly<0, RB, RB>(x, 0, a.tw);
#pragma unroll
        for (uint32_t j = 0; j < EPT; j++) ntt_out<KB>(a, x[j], mhi | j, g, base, lo0, b);
    } else {
        if (t < T) {
#pragma unroll
            for (uint32_t j = 0; j < EPT; j++) {
                uint32_t f = j * T + t, idx, e;
                if (!last) { /* g fastest: G contiguous elements per mid */
                    idx = base + ((f >> a.lg) << a.s) + (f & (G - 1));
                    e = f;
                } else { /* each group is 2^k contiguous elements: mid fastest */
                    uint32_t g = f >> KB, m = f & (K - 1);
                    idx = ((b + (g << (a.L - KB - a.lg))) << KB) + m;
                    e = m * G + g;
                }
                fr_d x = ntt_ld(a.src + idx);
                if (a.has_lscale) {
                    fr_d w = ntt_tab_get(a.lscale, idx);
                    mont_mul<fr_cfg>(x, x, w);
                }
                ntt_sm_put(sm, E, e, x);
            }
        }
        __syncthreads();
        ntt_steps<KB - 1, ((KB - 1) % RB) + 1, RB>(sm, E, a.lg, a.tw, t, T);
        if (t >= T) return;
#pragma unroll
        for (uint32_t j = 0; j < EPT; j++) {
            uint32_t f = j * T + t;
            ntt_out<KB>(a, ntt_sm_get(sm, E, f), f >> a.lg, f & (G - 1), base, lo0, b);
        }
    }
}

__global__ void ntt_pointwise_kernel(fr_d *out, const fr_d *a, const fr_d *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        fr_d x = ntt_ld(a + i), y = ntt_ld(b + i);
        mont_mul<fr_cfg>(x, x, y);
        fr_st(out + i, x);
    }
}

/* Throughput probe: independent chains of multiplications, one per thread. */
__global__ void ntt_mul_rate_kernel(fr_d *out, int iters)
{
    fr_d x, y;
    uint32_t s = blockIdx.x * blockDim.x + threadIdx.x + 1;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        s = s * 1664525u + 1013904223u;
        x.v[i] = s;
        s = s * 1664525u + 1013904223u;
        y.v[i] = s;
    }
    x.v[7] &= 0x3fffffff;
    y.v[7] &= 0x3fffffff;
    for (int i = 0; i < iters; i++) mont_mul<fr_cfg>(x, x, y);
    if (mont_is_zero<fr_cfg>(x)) out[0] = x; /* keeps the chain alive */
}

/* ---- host side ---- */

struct ntt_scale_entry {
    fr_t base, c;
    unsigned bits;
    ntt_tab tab;
    void *mem;
    unsigned long long used;
};

struct ntt_dir {
    fr_d *tw;
    ntt_tab bound[NTT_MAX_PASSES];
    void *mem[NTT_MAX_PASSES];
};

struct gpu_ntt_plan {
    gpu_ctx *ctx;
    unsigned L;
    poly_roots roots;
    int npass, variant;
    unsigned kb[NTT_MAX_PASSES];
    fr_t psi, psi_inv, m_inv; /* m-th root of the chain and its inverse, 1/m */
    ntt_dir dir[2];           /* [0] forward (psi), [1] inverse (psi^-1) */
    ntt_scale_entry scale[NTT_SCALE_CACHE];
    unsigned long long tick;
    cudaStream_t copy;
    cudaEvent_t ev_copied[3], ev_t0, ev_t1, ev_t2, ev_t3;
    double total_ms, compute_ms;
    /* CUZK_GPU_PROFILE: H records an event after each step and prints the intervals to stderr. */
    int profile, nmark;
    cudaEvent_t mark[NTT_PROF_MARKS];
    const char *mark_name[NTT_PROF_MARKS];
    double host_ms; /* wall time of H's enqueueing */
};

static void ntt_root(fr_t *r, unsigned log_n, poly_roots roots)
{
    if (roots == POLY_ROOTS_SNARKJS)
        poly_snarkjs_root_of_unity(r, log_n);
    else
        fr_root_of_unity(r, log_n);
}

static void ntt_split(unsigned L, int *npass, unsigned kb[NTT_MAX_PASSES])
{
    int p = L <= NTT_KMAX ? 1 : L <= 2 * NTT_KMAX ? 2 : 3;
    for (int i = 0; i < p; i++) kb[i] = L / p + ((unsigned)i < L % p ? 1 : 0);
    *npass = p;
}

extern "C" unsigned gpu_ntt_pass_count(unsigned log_m)
{
    int p;
    unsigned kb[NTT_MAX_PASSES];
    if (log_m < 3 || log_m > NTT_MAX_LOG) return 0;
    ntt_split(log_m, &p, kb);
    return (unsigned)p;
}

extern "C" double gpu_ntt_mul_count(unsigned log_m, gpu_ntt_kind kind)
{
    int p;
    unsigned kb[NTT_MAX_PASSES], l0 = 0;
    double per = 0; /* per element */
    if (log_m < 3 || log_m > NTT_MAX_LOG) return 0;
    ntt_split(log_m, &p, kb);
    for (int i = 0; i < p; i++) {
        per += 0.5 * (kb[i] - 2); /* radix-8 steps: the last step's roots are 1, w_4, w_8 (4 products per 8) */
        unsigned bits = log_m - l0;
        if (i < p - 1) per += bits <= NTT_FULL_BITS ? 1 : 2;
        l0 += kb[i];
    }
    if (kind == GPU_NTT_INVERSE) per += 1;
    if (kind == GPU_NTT_COSET_FORWARD || kind == GPU_NTT_COSET_INVERSE) per += 2;
    return per * (double)(1ull << log_m);
}

/* Host tables for value(x) = c * base^x, x < 2^bits: *lo_n entries of lo then *hi_n of hi in one array. */
static fr_t *ntt_build_tab(const fr_t *base, const fr_t *c, unsigned bits, size_t *lo_n, size_t *hi_n)
{
    unsigned w = bits <= NTT_FULL_BITS ? bits : (bits + 1) / 2;
    size_t nl = (size_t)1 << w, nh = bits <= NTT_FULL_BITS ? 0 : (size_t)1 << (bits - w);
    fr_t *v = (fr_t *)malloc((nl + nh) * sizeof(fr_t));
    if (v == NULL) return NULL;
    if (nh == 0) {
        v[0] = *c;
        for (size_t i = 1; i < nl; i++) fr_mul(&v[i], &v[i - 1], base);
    } else {
        fr_t step;
        fr_set_one(&v[0]);
        for (size_t i = 1; i < nl; i++) fr_mul(&v[i], &v[i - 1], base);
        fr_mul(&step, &v[nl - 1], base); /* base^(2^w) */
        v[nl] = *c;
        for (size_t i = 1; i < nh; i++) fr_mul(&v[nl + i], &v[nl + i - 1], &step);
    }
    *lo_n = nl;
    *hi_n = nh;
    return v;
}

/* Uploads a table: synchronously at plan creation (sync = 1), stream-ordered from the pool otherwise. */
static cuzk_status ntt_upload_tab(gpu_ntt_plan *pl, const fr_t *base, const fr_t *c, unsigned bits, int sync,
                                  ntt_tab *tab, void **mem, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t nl, nh;
    void *d = NULL;
    fr_t *h = ntt_build_tab(base, c, bits, &nl, &nh);
    if (h == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_ntt: out of host memory for a 2^%u table", bits);
    size_t bytes = (nl + nh) * sizeof(fr_t);
    if (sync) {
        /* Ordered on the context's stream, where the kernels that read the table run: a cudaMemcpy from pageable
         * memory returns once the data is staged, before its DMA ends, and the non-blocking stream would not
         * wait for it: the first kernel could read a table whose copy is still in flight. */
        GPU_TRY(gpu_malloc(&d, bytes));
        GPU_TRY(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, pl->ctx->stream));
        GPU_TRY(cudaStreamSynchronize(pl->ctx->stream));
    } else {
        /* From pageable memory the call returns once h is staged, so h may be freed right after. */
        GPU_TRY(gpu_malloc_async(&d, bytes, pl->ctx->stream));
        GPU_TRY(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, pl->ctx->stream));
    }
    tab->lo = (const fr_d *)d;
    tab->hi = nh ? (const fr_d *)d + nl : NULL;
    tab->lo_mask = (uint32_t)(nl - 1);
    tab->hi_shift = nh ? (uint32_t)__builtin_ctzll(nl) : 0;
    *mem = d;
    free(h);
    return CUZK_OK;
done:
    free(h);
    if (d) {
        if (sync)
            gpu_free(d);
        else
            gpu_free_async(d, pl->ctx->stream);
    }
    return st;
}

/* The table of c * base^x for x < 2^bits, from the plan's cache. */
static cuzk_status ntt_scale(gpu_ntt_plan *pl, const fr_t *base, const fr_t *c, unsigned bits, ntt_tab *out,
                             cuzk_error *err)
{
    ntt_scale_entry *victim = &pl->scale[0];
    for (int i = 0; i < NTT_SCALE_CACHE; i++) {
        ntt_scale_entry *e = &pl->scale[i];
        if (e->mem && e->bits == bits && fr_eq(&e->base, base) && fr_eq(&e->c, c)) {
            e->used = ++pl->tick;
            *out = e->tab;
            return CUZK_OK;
        }
        if (e->mem == NULL || (victim->mem && e->used < victim->used)) victim = e;
    }
    if (victim->mem) {
        gpu_free_async(victim->mem, pl->ctx->stream); /* after the queued work that reads it */
        victim->mem = NULL;
    }
    cuzk_status st = ntt_upload_tab(pl, base, c, bits, 0, &victim->tab, &victim->mem, err);
    if (st != CUZK_OK) return st;
    victim->base = *base;
    victim->c = *c;
    victim->bits = bits;
    victim->used = ++pl->tick;
    *out = victim->tab;
    return CUZK_OK;
}

extern "C" void gpu_ntt_plan_destroy(gpu_ntt_plan *pl)
{
    if (pl == NULL) return;
    if (cudaSetDevice(pl->ctx->device) == cudaSuccess) {
        cudaStreamSynchronize(pl->ctx->stream);
        if (pl->copy) cudaStreamSynchronize(pl->copy);
        for (int d = 0; d < 2; d++) {
            if (pl->dir[d].tw) gpu_free(pl->dir[d].tw);
            for (int p = 0; p < NTT_MAX_PASSES; p++)
                if (pl->dir[d].mem[p]) gpu_free(pl->dir[d].mem[p]);
        }
        for (int i = 0; i < NTT_SCALE_CACHE; i++)
            if (pl->scale[i].mem) gpu_free_async(pl->scale[i].mem, pl->ctx->stream);
        cudaStreamSynchronize(pl->ctx->stream);
        for (int i = 0; i < 3; i++)
            if (pl->ev_copied[i]) cudaEventDestroy(pl->ev_copied[i]);
        cudaEvent_t evs[4] = {pl->ev_t0, pl->ev_t1, pl->ev_t2, pl->ev_t3};
        for (int i = 0; i < 4; i++)
            if (evs[i]) cudaEventDestroy(evs[i]);
        for (int i = 0; i < NTT_PROF_MARKS; i++)
            if (pl->mark[i]) cudaEventDestroy(pl->mark[i]);
        if (pl->copy) cudaStreamDestroy(pl->copy);
    }
    (void)cudaGetLastError();
    free(pl);
}

/* ---- kernel variants ----
 * Instantiations of ntt_pass_kernel that differ in elements per thread, threads per block and register budget,
 * chosen per plan by CUZK_NTT_VARIANT (an index or a name; default NTT_DEFAULT_VARIANT) so that one device run can
 * time them all. A variant covers passes of kmin..kmax bits; other passes use variant 0, which covers all.
 * carveout: ask for the largest shared-memory carveout, without which the driver's choice (100 KiB on the H200)
 * holds one 64 KiB block. */

typedef cudaError_t (*ntt_call_fn)(unsigned kb, int setup, unsigned blocks, unsigned threads, size_t smem,
                                   cudaStream_t s, const ntt_pass_args *a);

template <int KB, int RB, int NT, int MINB, int FUSE>
static cudaError_t ntt_call_one(int setup, int carveout, unsigned blocks, unsigned threads, size_t smem, cudaStream_t s,
                                const ntt_pass_args *a)
{
    if (setup) {
        cudaError_t e =
            cudaFuncSetAttribute(ntt_pass_kernel<KB, RB, NT, MINB, FUSE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)(((size_t)NT << RB) * sizeof(fr_d)));
        if (e == cudaSuccess && carveout)
            e = cudaFuncSetAttribute(ntt_pass_kernel<KB, RB, NT, MINB, FUSE>,
                                     cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
        return e;
    }
    ntt_pass_kernel<KB, RB, NT, MINB, FUSE><<<blocks, threads, smem, s>>>(*a);
    return cudaGetLastError();
}

template <int KLO, int KHI, int RB, int NT, int MINB, int CARVE, int FUSE>
static cudaError_t ntt_call(unsigned kb, int setup, unsigned blocks, unsigned threads, size_t smem, cudaStream_t s,
                            const ntt_pass_args *a)
{
    if (kb == KLO) return ntt_call_one<KLO, RB, NT, MINB, FUSE>(setup, CARVE, blocks, threads, smem, s, a);
    if constexpr (KLO < KHI)
        return ntt_call<KLO + 1, KHI, RB, NT, MINB, CARVE, FUSE>(kb, setup, blocks, threads, smem, s, a);
    return cudaErrorInvalidValue;
}

struct ntt_variant {
    const char *name;
    unsigned rb, nt, kmin, kmax;
    ntt_call_fn call;
};

/* name: r<elements per thread>x<threads>b<min blocks per SM>[c: largest carveout][f: fused first/last step].
 * H200, forward NTT 2^27 (device calls 1 and 2, docs/GPU-NOTES.md "NTT, third pass"): r8x256b1 (HEAD's kernel:
 * 210 registers, one block of 8 warps per SM) 62.5-63.2 ms, r4x256b2cf (112 registers, 2 blocks) 40.7-40.9,
 * r4x256b3cf (80 registers, 3 blocks, 32 KiB of shared memory each) 39.0-39.1. */
static const ntt_variant ntt_variants[] = {
    {"r8x256b1", 3, 256, 3, 11, ntt_call<3, 11, 3, 256, 1, 0, 0>},
    {"r4x256b3cf", 2, 256, 8, 10, ntt_call<8, 10, 2, 256, 3, 1, 1>},
    {"r4x256b2cf", 2, 256, 8, 9, ntt_call<8, 9, 2, 256, 2, 1, 1>},
};
#define NTT_DEFAULT_VARIANT 1 /* r4x256b3cf */
#define NTT_NVARIANTS ((int)(sizeof ntt_variants / sizeof ntt_variants[0]))

static int ntt_variant_from_env(void)
{
    gpu_tune tune = gpu_tune_get();
    const char *v = tune.ntt_variant;
    if (*v == 0) return NTT_DEFAULT_VARIANT;
    for (int i = 0; i < NTT_NVARIANTS; i++)
        if (strcmp(v, ntt_variants[i].name) == 0) return i;
    char *end;
    long i = strtol(v, &end, 10);
    return *end == 0 && i >= 0 && i < NTT_NVARIANTS ? (int)i : -1;
}

extern "C" int gpu_ntt_variant_count(void)
{
    return NTT_NVARIANTS;
}

extern "C" int gpu_ntt_variant_default(void)
{
    return NTT_DEFAULT_VARIANT;
}

extern "C" const char *gpu_ntt_variant_name(int variant)
{
    return variant >= 0 && variant < NTT_NVARIANTS ? ntt_variants[variant].name : NULL;
}

extern "C" int gpu_ntt_plan_variant(const gpu_ntt_plan *pl)
{
    return pl ? pl->variant : -1;
}

extern "C" cuzk_status gpu_ntt_plan_create(gpu_ctx *ctx, unsigned log_m, poly_roots roots, gpu_ntt_plan **out,
                                           cuzk_error *err)
{
    cuzk_status st;
    gpu_ntt_plan *pl = NULL;
    if (out == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_plan_create: NULL out");
    *out = NULL;
    if (log_m < 3 || log_m > NTT_MAX_LOG)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_plan_create: log_m = %u outside 3..%d", log_m,
                              NTT_MAX_LOG);
    if (roots != POLY_ROOTS_CUZK && roots != POLY_ROOTS_SNARKJS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_plan_create: unknown roots %d", (int)roots);
    if ((st = gpu_ctx_enter(ctx, err)) != CUZK_OK) return st;
    pl = (gpu_ntt_plan *)calloc(1, sizeof *pl);
    if (pl == NULL) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_ntt_plan_create: out of host memory");
    pl->ctx = ctx;
    pl->variant = ntt_variant_from_env();
    if (pl->variant < 0) {
        free(pl);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_plan_create: CUZK_NTT_VARIANT=%s is not one of 0..%d",
                              gpu_tune_get().ntt_variant, NTT_NVARIANTS - 1);
    }
    pl->L = log_m;
    pl->roots = roots;
    ntt_split(log_m, &pl->npass, pl->kb);
    ntt_root(&pl->psi, log_m, roots);
    fr_inv(&pl->psi_inv, &pl->psi);
    fr_from_u64(&pl->m_inv, 1ull << log_m);
    fr_inv(&pl->m_inv, &pl->m_inv);

    GPU_TRY(cudaStreamCreateWithFlags(&pl->copy, cudaStreamNonBlocking));
    for (int i = 0; i < 3; i++) GPU_TRY(cudaEventCreateWithFlags(&pl->ev_copied[i], cudaEventDisableTiming));
    GPU_TRY(cudaEventCreate(&pl->ev_t0));
    GPU_TRY(cudaEventCreate(&pl->ev_t1));
    GPU_TRY(cudaEventCreate(&pl->ev_t2));
    GPU_TRY(cudaEventCreate(&pl->ev_t3));
    pl->profile = gpu_tune_get().profile;
    for (int i = 0; i < NTT_PROF_MARKS && pl->profile; i++) GPU_TRY(cudaEventCreate(&pl->mark[i]));
    for (int i = 0; i < (pl->variant ? 2 : 1); i++) { /* variant 0 runs the passes the chosen one lacks */
        const ntt_variant *nv = &ntt_variants[i ? pl->variant : 0];
        for (unsigned kb = nv->kmin; kb <= nv->kmax; kb++) GPU_TRY(nv->call(kb, 1, 0, 0, 0, NULL, NULL));
    }

    for (int d = 0; d < 2; d++) {
        fr_t one, w2048, w;
        fr_set_one(&one);
        ntt_root(&w2048, NTT_KMAX, roots);
        if (d) fr_inv(&w2048, &w2048);
        ntt_tab tw;
        void *mem = NULL;
        /* w_2048^t for t < 1024: a full table of 2^10 entries. */
        st = ntt_upload_tab(pl, &w2048, &one, NTT_KMAX - 1, 1, &tw, &mem, err);
        if (st != CUZK_OK) goto fail;
        pl->dir[d].tw = (fr_d *)mem;
        unsigned l0 = 0;
        for (int p = 0; p + 1 < pl->npass; p++) {
            unsigned bits = log_m - l0; /* M = 2^bits, w_M = psi^(2^l0) */
            ntt_root(&w, bits, roots);
            if (d) fr_inv(&w, &w);
            st = ntt_upload_tab(pl, &w, &one, bits, 1, &pl->dir[d].bound[p], &pl->dir[d].mem[p], err);
            if (st != CUZK_OK) goto fail;
            l0 += pl->kb[p];
        }
    }
    *out = pl;
    return CUZK_OK;
done:
fail:
    gpu_ntt_plan_destroy(pl);
    return st;
}

/* Enqueues one DIF transform src -> dst on the context's stream: the first pass reads src and writes work, the
 * inner passes stay in work, the last one writes dst (bit-reversed positions: dst != work; src may be work or
 * dst). A single pass goes from src to dst, which may be equal. lscale on the first pass's loads, sscale and
 * the epilogue on the last pass's stores. */
static cuzk_status ntt_run(gpu_ntt_plan *pl, int inverse, const fr_d *src, fr_d *work, fr_d *dst, const ntt_tab *lscale,
                           const ntt_tab *sscale, const fr_d *pa, const fr_d *pb, int sub, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const ntt_dir *dir = &pl->dir[inverse ? 1 : 0];
    unsigned l0 = 0;
    for (int p = 0; p < pl->npass; p++) {
        unsigned kb = pl->kb[p], s = pl->L - l0 - kb;
        const ntt_variant *nv = &ntt_variants[pl->variant];
        if (kb < nv->kmin || kb > nv->kmax) nv = &ntt_variants[0];
        unsigned room = (nv->nt << nv->rb) >> kb; /* groups that fit */
        unsigned lg = 0;
        unsigned avail = s > 0 ? s : pl->L - kb; /* groups must be consecutive lo values, or distinct hi */
        while ((1u << (lg + 1)) <= room && lg + 1 <= avail) lg++;
        ntt_pass_args a;
        memset(&a, 0, sizeof a);
        a.src = p == 0 ? src : work;
        a.dst = p == pl->npass - 1 ? dst : work;
        a.tw = dir->tw;
        a.L = pl->L;
        a.s = s;
        a.lg = lg;
        if (p + 1 < pl->npass) {
            a.bound = dir->bound[p];
            a.has_bound = 1;
        }
        if (p == 0 && lscale) {
            a.lscale = *lscale;
            a.has_lscale = 1;
        }
        if (p == pl->npass - 1) {
            if (sscale) {
                a.sscale = *sscale;
                a.has_sscale = 1;
            }
            a.pa = pa;
            a.pb = pb;
            a.ep_sub = sub;
        }
        unsigned threads = ((1u << kb) << lg) >> nv->rb;
        unsigned blocks = 1u << (pl->L - kb - lg);
        size_t smem = ((size_t)1 << (kb + lg)) * sizeof(fr_d);
        GPU_TRY(nv->call(kb, 0, blocks, threads, smem, pl->ctx->stream, &a));
        l0 += kb;
    }
done:
    return st;
}

static double ntt_ev_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return ms;
}

extern "C" cuzk_status gpu_ntt(gpu_ntt_plan *pl, gpu_ntt_kind kind, const fr_t *shift, fr_t *data, cuzk_error *err)
{
    cuzk_status st;
    if (pl == NULL || data == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt: NULL argument");
    if (kind != GPU_NTT_FORWARD && kind != GPU_NTT_INVERSE && kind != GPU_NTT_COSET_FORWARD &&
        kind != GPU_NTT_COSET_INVERSE)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt: unknown kind %d", (int)kind);
    int coset = kind == GPU_NTT_COSET_FORWARD || kind == GPU_NTT_COSET_INVERSE;
    if (coset && shift == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt: coset without a shift");
    if ((st = gpu_ctx_enter(pl->ctx, err)) != CUZK_OK) return st;
    cudaStream_t s = pl->ctx->stream;
    size_t m = (size_t)1 << pl->L, bytes = m * sizeof(fr_t);
    int on_dev = gpu_is_device_ptr(data);
    fr_d *buf = NULL, *tmp = NULL;
    ntt_tab ls, ss;
    const ntt_tab *lsp = NULL, *ssp = NULL;
    int inverse = kind == GPU_NTT_INVERSE || kind == GPU_NTT_COSET_INVERSE;
    fr_t one, sinv;
    fr_set_one(&one);
    if (kind == GPU_NTT_INVERSE) {
        if ((st = ntt_scale(pl, &one, &pl->m_inv, 0, &ss, err)) != CUZK_OK) return st;
        ssp = &ss;
    } else if (kind == GPU_NTT_COSET_FORWARD) {
        if ((st = ntt_scale(pl, shift, &one, pl->L, &ls, err)) != CUZK_OK) return st;
        lsp = &ls;
    } else if (kind == GPU_NTT_COSET_INVERSE) {
        if (fr_is_zero(shift)) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt: coset shift is zero");
        fr_inv(&sinv, shift);
        if ((st = ntt_scale(pl, &sinv, &pl->m_inv, pl->L, &ss, err)) != CUZK_OK) return st;
        ssp = &ss;
    }
    GPU_TRY(cudaEventRecord(pl->ev_t0, s));
    if (on_dev) {
        buf = (fr_d *)data;
    } else {
        GPU_TRY(gpu_malloc_async(&buf, bytes, s));
        GPU_TRY(cudaMemcpyAsync(buf, data, bytes, cudaMemcpyHostToDevice, s));
    }
    GPU_TRY(cudaEventRecord(pl->ev_t1, s));
    if (pl->npass == 1) {
        st = ntt_run(pl, inverse, buf, buf, buf, lsp, ssp, NULL, NULL, 0, err);
    } else {
        /* The last pass cannot write where it reads: the inner passes work in tmp. */
        GPU_TRY(gpu_malloc_async(&tmp, bytes, s));
        st = ntt_run(pl, inverse, buf, tmp, buf, lsp, ssp, NULL, NULL, 0, err);
    }
    if (st != CUZK_OK) goto done;
    GPU_TRY(cudaEventRecord(pl->ev_t2, s));
    if (!on_dev) GPU_TRY(cudaMemcpyAsync(data, buf, bytes, cudaMemcpyDeviceToHost, s));
    GPU_TRY(cudaEventRecord(pl->ev_t3, s));
    GPU_TRY(cudaStreamSynchronize(s));
    pl->total_ms = ntt_ev_ms(pl->ev_t0, pl->ev_t3);
    pl->compute_ms = ntt_ev_ms(pl->ev_t1, pl->ev_t2);
done:
    if (tmp) gpu_free_async(tmp, s);
    if (buf && !on_dev) gpu_free_async(buf, s);
    if (st != CUZK_OK) (void)cudaStreamSynchronize(s);
    return st;
}

static double ntt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Profiling: an event on s named after the step that just ended. */
static void ntt_mark(gpu_ntt_plan *pl, cudaStream_t s, const char *name)
{
    if (!pl->profile || pl->nmark >= NTT_PROF_MARKS) return;
    pl->mark_name[pl->nmark] = name;
    if (cudaEventRecord(pl->mark[pl->nmark], s) == cudaSuccess) pl->nmark++;
    (void)cudaGetLastError();
}

/* After the stream has synchronized: one line per profiled H. */
static void ntt_mark_print(gpu_ntt_plan *pl)
{
    if (!pl->profile || pl->nmark < 2) return;
    fprintf(stderr, "gpu ntt H 2^%u: enqueue %.2f ms (host); device ms:", pl->L, pl->host_ms);
    for (int i = 1; i < pl->nmark; i++)
        fprintf(stderr, " %s %.2f", pl->mark_name[i], ntt_ev_ms(pl->mark[i - 1], pl->mark[i]));
    fprintf(stderr, "\n");
}

/* Copies n elements of v (host or device) into the device buffer d (m elements, zero tail) on the copy
 * stream, then records ev. */
static cuzk_status ntt_stage(gpu_ntt_plan *pl, fr_d *d, const fr_t *v, size_t n, cudaEvent_t ev, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    size_t m = (size_t)1 << pl->L;
    if (n && (const void *)d != (const void *)v)
        GPU_TRY(cudaMemcpyAsync(d, v, n * sizeof(fr_t), cudaMemcpyDefault, pl->copy));
    if (n < m) GPU_TRY(cudaMemsetAsync(d + n, 0, (m - n) * sizeof(fr_t), pl->copy));
    GPU_TRY(cudaEventRecord(ev, pl->copy));
done:
    return st;
}

/* Computes H on the device; *out is one of the four buffers (the others are freed), all on ctx's stream. own
 * (NULL: none): device buffers of m elements holding a, b, c, used as A, B, C (each own[k] set to NULL once taken
 * over; a NULL own[k] is allocated). three (bellperson form, own NULL): three buffers instead of four: a*b is
 * formed on the coset as soon as both are there, and c goes into b's buffer after it. */
static cuzk_status ntt_h(gpu_ntt_plan *pl, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                         fr_d **out, fr_d **own, int three, cuzk_error *err)
{
    cuzk_status st;
    size_t m = (size_t)1 << pl->L, bytes = m * sizeof(fr_t);
    fr_d *A = NULL, *B = NULL, *C = NULL, *T = NULL;
    ntt_tab up, down, cscale;
    fr_t one, g, z;
    cudaStream_t s = pl->ctx->stream;
    *out = NULL;
    if (form != H_FORM_BELLPERSON && form != H_FORM_SNARKJS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: unknown form %d", (int)form);
    if ((form == H_FORM_BELLPERSON) != (pl->roots == POLY_ROOTS_CUZK))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: the %s form needs a plan with the %s roots",
                              form == H_FORM_BELLPERSON ? "bellperson" : "snarkjs",
                              form == H_FORM_BELLPERSON ? "cuzk" : "snarkjs");
    if (a == NULL || b == NULL || (c == NULL && form == H_FORM_BELLPERSON))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: NULL argument");
    if (n > m)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: %zu constraints exceed the domain of %zu", n, m);
    if (three && (form != H_FORM_BELLPERSON || own))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: three buffers only for the bellperson form");
    if ((st = gpu_ctx_enter(pl->ctx, err)) != CUZK_OK) return st;
    fr_set_one(&one);
    if (form == H_FORM_BELLPERSON) {
        fr_from_u64(&g, FR_GENERATOR);
    } else {
        poly_snarkjs_root_of_unity(&g, pl->L + 1); /* inc */
    }
    /* values -> coefficients times g^i (1/m folded in); the bellperson end: times g^-i / m. */
    if ((st = ntt_scale(pl, &g, &pl->m_inv, pl->L, &up, err)) != CUZK_OK) return st;
    if (form == H_FORM_BELLPERSON) {
        fr_t gi, mz;
        uint64_t e = m;
        fr_pow(&z, &g, &e, 1); /* Z(g w^i) = g^m - 1 */
        fr_sub(&z, &z, &one);
        fr_inv(&z, &z);
        fr_mul(&mz, &pl->m_inv, &z);
        fr_inv(&gi, &g);
        /* 1/z on the way back too, and c's coefficients times 1/z (all three tables fetched before any transform
         * is queued: the cache evicts only the least recently used). */
        if ((st = ntt_scale(pl, &gi, &mz, pl->L, &down, err)) != CUZK_OK) return st;
        if ((st = ntt_scale(pl, &one, &mz, 0, &cscale, err)) != CUZK_OK) return st;
    }

    double host0 = ntt_now_ms();
    pl->nmark = 0;
    ntt_mark(pl, s, "start");
    GPU_TRY(cudaEventRecord(pl->ev_t0, s));
    /* The copy stream may start once earlier work on s (which may still read old buffers) is ordered. */
    GPU_TRY(cudaStreamWaitEvent(pl->copy, pl->ev_t0, 0));
    if (own) {
        A = own[0], B = own[1], C = own[2];
        own[0] = own[1] = own[2] = NULL;
    }
    if (!A) GPU_TRY(gpu_malloc_async(&A, bytes, s));
    if (!B) GPU_TRY(gpu_malloc_async(&B, bytes, s));
    if (!C && !three) GPU_TRY(gpu_malloc_async(&C, bytes, s));
    GPU_TRY(gpu_malloc_async(&T, bytes, s));
    ntt_mark(pl, s, "alloc");
    /* The allocations are ordered on s; the copy stream must see them. */
    GPU_TRY(cudaEventRecord(pl->ev_t1, s));
    GPU_TRY(cudaStreamWaitEvent(pl->copy, pl->ev_t1, 0));
    /* Copies and transforms interleave, so that from pageable memory (where a copy call returns only once its
     * data is staged) the copy of b runs while a is transformed. */
    if ((st = ntt_stage(pl, A, a, n, pl->ev_copied[0], err)) != CUZK_OK) goto done;
    GPU_TRY(cudaStreamWaitEvent(s, pl->ev_copied[0], 0));
    ntt_mark(pl, s, "a-in");
    GPU_TRY(cudaEventRecord(pl->ev_t1, s)); /* compute starts when a is in */
    if (form == H_FORM_SNARKJS) {
        /* snarkjs' buildABC1: c = a*b on the constraint values (zero past n, as a and b are). */
        if ((st = ntt_stage(pl, B, b, n, pl->ev_copied[1], err)) != CUZK_OK) goto done;
        GPU_TRY(cudaStreamWaitEvent(s, pl->ev_copied[1], 0));
        ntt_pointwise_kernel<<<pl->ctx->sm_count * 4, 256, 0, s>>>(C, A, B, m);
        GPU_LAUNCHED("ntt_pointwise_kernel");
    }
    /* Each vector: values -> coefficients times g^i (one transform, 1/m and g^i on its stores) -> values on the
     * coset (a second transform). */
    if ((st = ntt_run(pl, 1, A, A, T, NULL, &up, NULL, NULL, 0, err)) != CUZK_OK) goto done;
    ntt_mark(pl, s, "a-inv");
    if ((st = ntt_run(pl, 0, T, T, A, NULL, NULL, NULL, NULL, 0, err)) != CUZK_OK) goto done; /* a in A */
    ntt_mark(pl, s, "a-fwd");
    if (form == H_FORM_BELLPERSON && (st = ntt_stage(pl, B, b, n, pl->ev_copied[1], err)) != CUZK_OK) goto done;
    GPU_TRY(cudaStreamWaitEvent(s, pl->ev_copied[1], 0));
    ntt_mark(pl, s, "b-in");
    if ((st = ntt_run(pl, 1, B, B, T, NULL, &up, NULL, NULL, 0, err)) != CUZK_OK) goto done;
    ntt_mark(pl, s, "b-inv");
    if (form == H_FORM_BELLPERSON) {
        /* bellperson's H in six transforms (poly/h.c says why): b's forward transform stores A = a*b on the coset;
         * back to coefficients, R / z in B; c's inverse transform (times 1/(m z)) subtracted from it in its last
         * store: H in B. In three buffers c comes into A once A is free. */
        if (!three && (st = ntt_stage(pl, C, c, n, pl->ev_copied[2], err)) != CUZK_OK) goto done;
        if ((st = ntt_run(pl, 0, T, T, A, NULL, NULL, A, NULL, 0, err)) != CUZK_OK) goto done;
        ntt_mark(pl, s, "b-fwd-ab");
        if ((st = ntt_run(pl, 1, A, A, B, NULL, &down, NULL, NULL, 0, err)) != CUZK_OK) goto done;
        ntt_mark(pl, s, "ab-inv");
        fr_d *cv = C;
        if (three) {
            cv = A;
            if (n) GPU_TRY(cudaMemcpyAsync(A, c, n * sizeof(fr_t), cudaMemcpyDefault, s));
            if (n < m) GPU_TRY(cudaMemsetAsync(A + n, 0, (m - n) * sizeof(fr_t), s));
        } else {
            GPU_TRY(cudaStreamWaitEvent(s, pl->ev_copied[2], 0));
        }
        ntt_mark(pl, s, "c-in");
        if ((st = ntt_run(pl, 1, cv, cv, B, NULL, &cscale, B, NULL, 1, err)) != CUZK_OK) goto done;
        ntt_mark(pl, s, "c-inv-h");
        GPU_TRY(cudaEventRecord(pl->ev_t2, s));
        pl->host_ms = ntt_now_ms() - host0;
        *out = B;
        B = NULL;
        goto done;
    }
    /* snarkjs: b in B; c's transforms, its last store A = a*b - c, reading A and B at the index it writes. */
    if ((st = ntt_run(pl, 0, T, T, B, NULL, NULL, NULL, NULL, 0, err)) != CUZK_OK) goto done;
    ntt_mark(pl, s, "b-fwd");
    if ((st = ntt_run(pl, 1, C, C, T, NULL, &up, NULL, NULL, 0, err)) != CUZK_OK) goto done;
    ntt_mark(pl, s, "c-inv");
    if ((st = ntt_run(pl, 0, T, T, A, NULL, NULL, A, B, 0, err)) != CUZK_OK) goto done;
    ntt_mark(pl, s, "c-fwd-abc");
    GPU_TRY(cudaEventRecord(pl->ev_t2, s));
    pl->host_ms = ntt_now_ms() - host0;
    *out = A;
    A = NULL;
done:
    if (A) gpu_free_async(A, s);
    if (B) gpu_free_async(B, s);
    if (C) gpu_free_async(C, s);
    if (T) gpu_free_async(T, s);
    return st;
}

/* After ntt_h for the _device entries: waits, times, hands over h (or frees it on failure). */
static cuzk_status ntt_h_device_end(gpu_ntt_plan *pl, cuzk_status st, fr_d *h, fr_t **h_dev, cuzk_error *err)
{
    if (st != CUZK_OK) {
        (void)cudaStreamSynchronize(pl->ctx->stream);
        (void)cudaStreamSynchronize(pl->copy);
        return st;
    }
    GPU_TRY(cudaEventRecord(pl->ev_t3, pl->ctx->stream));
    GPU_TRY(cudaStreamSynchronize(pl->ctx->stream));
    pl->total_ms = ntt_ev_ms(pl->ev_t0, pl->ev_t3);
    pl->compute_ms = ntt_ev_ms(pl->ev_t1, pl->ev_t2);
    ntt_mark_print(pl);
    *h_dev = (fr_t *)h;
    return CUZK_OK;
done:
    gpu_free_async(h, pl->ctx->stream);
    (void)cudaStreamSynchronize(pl->ctx->stream);
    return st;
}

extern "C" cuzk_status gpu_ntt_h_device(gpu_ntt_plan *pl, h_form form, const fr_t *a, const fr_t *b, const fr_t *c,
                                        size_t n, fr_t **h_dev, cuzk_error *err)
{
    fr_d *h = NULL;
    if (pl == NULL || h_dev == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: NULL argument");
    *h_dev = NULL;
    cuzk_status st = ntt_h(pl, form, a, b, c, n, &h, NULL, 0, err);
    return ntt_h_device_end(pl, st, h, h_dev, err);
}

extern "C" cuzk_status gpu_ntt_h_device_3(gpu_ntt_plan *pl, h_form form, const fr_t *a, const fr_t *b, const fr_t *c,
                                          size_t n, fr_t **h_dev, cuzk_error *err)
{
    fr_d *h = NULL;
    if (pl == NULL || h_dev == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: NULL argument");
    *h_dev = NULL;
    cuzk_status st = ntt_h(pl, form, a, b, c, n, &h, NULL, 1, err);
    return ntt_h_device_end(pl, st, h, h_dev, err);
}

extern "C" cuzk_status gpu_ntt_h_device_own(gpu_ntt_plan *pl, h_form form, fr_t *a, fr_t *b, fr_t *c, size_t n,
                                            fr_t **h_dev, cuzk_error *err)
{
    fr_d *h = NULL, *own[3] = {(fr_d *)a, (fr_d *)b, (fr_d *)c};
    cuzk_status st;
    if (pl == NULL || h_dev == NULL) {
        for (int k = 0; k < 3; k++) (void)gpu_free(own[k]);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: NULL argument");
    }
    *h_dev = NULL;
    st = ntt_h(pl, form, a, b, c, n, &h, own, 0, err);
    /* Buffers ntt_h did not take over (it returned before) are freed here: they are this call's in every case. */
    for (int k = 0; k < 3; k++)
        if (own[k]) (void)gpu_free_async(own[k], pl->ctx->stream);
    return ntt_h_device_end(pl, st, h, h_dev, err);
}

extern "C" void gpu_ntt_h_free(gpu_ctx *ctx, fr_t *h_dev)
{
    if (ctx == NULL || h_dev == NULL) return;
    if (cudaSetDevice(ctx->device) == cudaSuccess) gpu_free_async(h_dev, ctx->stream);
    (void)cudaGetLastError();
}

extern "C" cuzk_status gpu_ntt_h(gpu_ntt_plan *pl, h_form form, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                                 fr_t *h, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    fr_d *d = NULL;
    if (pl == NULL || h == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_h: NULL argument");
    size_t m = (size_t)1 << pl->L, keep = form == H_FORM_BELLPERSON ? m - 1 : m;
    if ((st = ntt_h(pl, form, a, b, c, n, &d, NULL, 0, err)) != CUZK_OK) {
        (void)cudaStreamSynchronize(pl->ctx->stream);
        (void)cudaStreamSynchronize(pl->copy);
        return st;
    }
    GPU_TRY(cudaMemcpyAsync(h, d, keep * sizeof(fr_t), cudaMemcpyDefault, pl->ctx->stream));
    GPU_TRY(cudaEventRecord(pl->ev_t3, pl->ctx->stream));
    GPU_TRY(cudaStreamSynchronize(pl->ctx->stream));
    pl->total_ms = ntt_ev_ms(pl->ev_t0, pl->ev_t3);
    pl->compute_ms = ntt_ev_ms(pl->ev_t1, pl->ev_t2);
    ntt_mark_print(pl);
done:
    gpu_free_async(d, pl->ctx->stream);
    if (st != CUZK_OK) (void)cudaStreamSynchronize(pl->ctx->stream);
    return st;
}

extern "C" cuzk_status gpu_ntt_copy(gpu_ctx *ctx, void *dst, const void *src, size_t bytes, cuzk_error *err)
{
    cuzk_status st;
    if ((dst == NULL || src == NULL) && bytes)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_copy: NULL argument");
    if ((st = gpu_ctx_enter(ctx, err)) != CUZK_OK) return st;
    if (bytes) GPU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
done:
    return st;
}

extern "C" void gpu_ntt_last_ms(const gpu_ntt_plan *pl, double *total_ms, double *compute_ms)
{
    if (total_ms) *total_ms = pl ? pl->total_ms : 0;
    if (compute_ms) *compute_ms = pl ? pl->compute_ms : 0;
}

extern "C" cuzk_status gpu_ntt_mul_rate(gpu_ctx *ctx, double *muls_per_s, cuzk_error *err)
{
    cuzk_status st;
    fr_d *out = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    const int iters = 4096, threads = 256;
    int blocks;
    if (muls_per_s == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_ntt_mul_rate: NULL argument");
    if ((st = gpu_ctx_enter(ctx, err)) != CUZK_OK) return st;
    blocks = ctx->sm_count * 8;
    GPU_TRY(cudaEventCreate(&e0));
    GPU_TRY(cudaEventCreate(&e1));
    GPU_TRY(gpu_malloc_async(&out, sizeof(fr_d), ctx->stream));
    ntt_mul_rate_kernel<<<blocks, threads, 0, ctx->stream>>>(out, 64); /* warm-up */
    GPU_LAUNCHED("ntt_mul_rate_kernel");
    GPU_TRY(cudaEventRecord(e0, ctx->stream));
    ntt_mul_rate_kernel<<<blocks, threads, 0, ctx->stream>>>(out, iters);
    GPU_LAUNCHED("ntt_mul_rate_kernel");
    GPU_TRY(cudaEventRecord(e1, ctx->stream));
    GPU_TRY(cudaStreamSynchronize(ctx->stream));
    *muls_per_s = (double)blocks * threads * iters / (ntt_ev_ms(e0, e1) * 1e-3);
done:
    if (out) gpu_free_async(out, ctx->stream);
    (void)cudaStreamSynchronize(ctx->stream);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return st;
}
