/* Pippenger MSM for G1 and G2 on the thread pool; the group-specific part is src/msm/msm_impl.h, included once
 * per group below.
 *
 * Plan of one MSM: (1) in parallel, scalars leave Montgomery form and are sorted into three kinds: 0 (skipped),
 * 1 (summed with plain additions) and the rest (Pippenger). (2) Pippenger with signed (Booth) window digits
 * in [-2^(c-1), 2^(c-1)], so 2^(c-1) buckets per window (affine with batched inversion for large windows, XYZZ
 * for small ones); the work is cut into tasks (window, slice of points), each with its own buckets, reduced to one
 * point per task (a running sum, or on the affine path batched row and column sums). (3) The tasks' points are
 * combined by Horner's rule over the windows, c doublings apart. */
#include "msm/msm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "ff/fp2.h"

/* Density words handled per chunk of a parallel loop: big enough to amortise the scheduling. */
#define MSM_WORDS_GRAIN 64
/* The largest window: its buckets (2^(c-1) per thread, 192 bytes each in G1, 384 in G2) should stay modest. */
#define MSM_MAX_C 16

static unsigned msm_threads(pool_t *pool)
{
    return pool ? pool_size(pool) : 1;
}

static size_t msm_words(size_t n)
{
    return n / 64 + (n % 64 != 0);
}

/* The bits of word j that lie below n. */
static uint64_t msm_word_limit(size_t n, size_t j)
{
    size_t left = n - 64 * j;
    return left >= 64 ? ~0ULL : (1ULL << left) - 1;
}

size_t density_popcount(const uint64_t *density, size_t n)
{
    size_t count = 0;
    for (size_t j = 0; j < msm_words(n); j++) count += (size_t)__builtin_popcountll(density[j] & msm_word_limit(n, j));
    return count;
}

/* Memory for buckets, which are read and written in random order: on Linux in 2 MiB pages where the kernel grants
 * them (transparent huge pages on request), so that a bucket access rarely misses the TLB. Free with free(). */
static void *msm_alloc_buckets(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        void *p = NULL;
        if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge) != 0) return NULL;
        madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE); /* advice only: 4 KiB pages still work */
        return p;
    }
#endif
    return malloc(bytes);
}

/* ---- window size and the split into tasks ---- */

typedef struct msm_plan {
    unsigned c;      /* window bits */
    unsigned nwin;   /* windows: c * nwin >= 256 keeps the top Booth digit's sign bit zero */
    unsigned slices; /* slices of the points per window */
} msm_plan_t;

/* Windows of at least this many bits keep affine buckets and add in batches with one shared inversion (see
 * msm_impl.h); smaller windows have too few buckets to fill a batch without collisions, and keep XYZZ buckets. */
#define MSM_AFFINE_MIN_C 11
/* At 4096 a batch's buckets and points (800 KB) outgrow the L2 cache, but the flush prefetches them, and halving the
 * inversions per point against 2048 still paid (2^20 G1 points, c = 16: 3% less CPU time). */
#define MSM_AFFINE_MAX_BATCH 4096

/* Entries of one affine batch for c-bit windows, 0 for the XYZZ path: a quarter of the buckets keeps collisions
 * (a point whose bucket already waits in the batch) near one in eight. */
static size_t msm_affine_batch(unsigned c)
{
    if (c < MSM_AFFINE_MIN_C) return 0;
    size_t quarter = (size_t)1 << (c - 3);
    return quarter < MSM_AFFINE_MAX_BATCH ? quarter : MSM_AFFINE_MAX_BATCH;
}

/* The affine path's bucket reduction (msm_impl.h, affine_reduce) splits the bucket indices into rows of 2^kbits. */
static unsigned msm_reduce_kbits(unsigned c)
{
    return (c - 1) / 2;
}

/* Row sums and column sums of the affine bucket reduction. */
static size_t msm_reduce_sums(unsigned c)
{
    return ((size_t)1 << (c - 1 - msm_reduce_kbits(c))) + 1 + ((size_t)1 << msm_reduce_kbits(c));
}

/* States of an affine bucket. */
#define MSM_FULL 1 /* the affine bucket holds a point (else it is infinity) */
#define MSM_BUSY 2 /* an addition into the bucket waits in the current batch */
#define MSM_OVER 4 /* the XYZZ overflow bucket holds a point */

/* The affine path computes window digits a block at a time, so that it can prefetch the bucket of a point a few
 * places ahead. */
#define MSM_DIGIT_BLOCK 256
#define MSM_PREFETCH_AHEAD 8

/* Field multiplications: a mixed XYZZ addition costs 10, an affine one 6 plus its share of the batch's inversion
 * (about 160, variable-time); each task also reduces its 2^(c-1) buckets with about 24 per bucket (XYZZ running
 * sums), or 14 on the affine path (row and column sums in batches). */
#define MSM_INV_COST 160.0
static double msm_plan_cost(size_t n, unsigned nthreads, unsigned c, unsigned slices)
{
    unsigned nwin = (256 + c - 1) / c;
    size_t rounds = ((size_t)nwin * slices + nthreads - 1) / nthreads, batch = msm_affine_batch(c);
    double per_point = batch ? 6.0 + MSM_INV_COST / (double)batch : 10.0;
    return (double)rounds * ((double)n / slices * per_point + (batch ? 14.0 : 24.0) * (double)((size_t)1 << (c - 1)));
}

/* The cheapest plan for n points on nthreads threads; c = 0 chooses the window too, else it is forced to c. */
static msm_plan_t msm_plan(size_t n, unsigned nthreads, unsigned c)
{
    if (nthreads == 0) nthreads = 1;
    if (c > MSM_MAX_C) c = MSM_MAX_C;
    unsigned c_lo = c ? c : 1, c_hi = c ? c : MSM_MAX_C;
    msm_plan_t best = {0, 0, 0};
    double best_cost = 0;
    for (unsigned cc = c_lo; cc <= c_hi; cc++) {
        for (unsigned s = 1; s <= 64 && s <= 4 * nthreads; s++) {
            double cost = msm_plan_cost(n, nthreads, cc, s);
            if (best.c == 0 || cost < best_cost) {
                best_cost = cost;
                best = (msm_plan_t){cc, (256 + cc - 1) / cc, s};
            }
        }
    }
    return best;
}

unsigned msm_window_bits(size_t n, unsigned nthreads)
{
    return msm_plan(n, nthreads, 0).c;
}

/* Booth digit of window w: bits [w*c - 1, w*c + c) of k as v, digit = ((v + 1) >> 1) - 2^c * (top bit of v).
 * Digits of all windows sum (weighted by 2^(w*c)) to k, each in [-2^(c-1), 2^(c-1)]. */
static inline int msm_digit(const uint64_t k[FR_LIMBS], unsigned w, unsigned c)
{
    unsigned len = c + 1;
    uint64_t v;
    if (w == 0) {
        v = k[0] << 1;
    } else {
        unsigned pos = w * c - 1, limb = pos / 64, sh = pos % 64;
        if (limb >= FR_LIMBS) return 0;
        v = k[limb] >> sh;
        if (sh + len > 64 && limb + 1 < FR_LIMBS) v |= k[limb + 1] << (64 - sh);
    }
    v &= (1ULL << len) - 1;
    int d = (int)((v + 1) >> 1);
    return (v >> c) ? d - (1 << c) : d;
}

/* ---- scalars: Montgomery -> canonical, sorted by kind ---- */

/* Scalars are converted one chunk of density words at a time, so the canonical copy stays bounded (128 MiB)
 * however long the MSM; each chunk then costs one extra bucket reduction per window, a few percent at most. */
#define MSM_CHUNK_WORDS ((size_t)1 << 16)

typedef struct msm_scalars {
    uint64_t *k;    /* FR_LIMBS canonical limbs per base of the current chunk; zero where the scalar is 0 or 1 */
    uint64_t *ones; /* bit i: scalar i is used and equals 1 (scalar index space, like the density) */
    size_t *offset; /* offset[j]: index of the base of the first used scalar in density word j; offset[nwords] */
    size_t nwords;
    size_t base0; /* the current chunk: bases [base0, base0 + m) */
    size_t m;
    size_t nother; /* scalars of the current chunk other than 0 and 1 */
    size_t *nother_per_worker;
} msm_scalars_t;

typedef struct msm_prep_ctx {
    msm_scalars_t *sc;
    const fr_t *scalars;
    const uint64_t *density;
    size_t n;
    size_t j0;      /* loop index 0 is density word j0 */
    size_t *nother; /* one per worker */
} msm_prep_ctx;

static void msm_prep_body(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const msm_prep_ctx *ctx = vctx;
    size_t nother = 0;
    for (size_t j = ctx->j0 + begin; j < ctx->j0 + end; j++) {
        uint64_t used = (ctx->density ? ctx->density[j] : ~0ULL) & msm_word_limit(ctx->n, j), ones = 0;
        uint64_t *k = ctx->sc->k + FR_LIMBS * (ctx->sc->offset[j] - ctx->sc->base0);
        while (used) {
            unsigned b = (unsigned)__builtin_ctzll(used);
            used &= used - 1;
            const fr_t *s = &ctx->scalars[64 * j + b];
            if (fr_is_zero(s) || fr_is_one(s)) {
                memset(k, 0, FR_LIMBS * sizeof *k);
                if (!fr_is_zero(s)) ones |= 1ULL << b;
            } else {
                fr_from_mont(k, s);
                nother++;
            }
            k += FR_LIMBS;
        }
        ctx->sc->ones[j] = ones;
    }
    ctx->nother[worker] += nother;
}

static void msm_scalars_release(msm_scalars_t *sc)
{
    free(sc->k);
    free(sc->ones);
    free(sc->offset);
    free(sc->nother_per_worker);
}

/* Bases per density word and room for one chunk. Returns 0, or -1 (nothing left allocated) if memory ran out. */
static int msm_scalars_init(pool_t *pool, msm_scalars_t *sc, const uint64_t *density, size_t n)
{
    memset(sc, 0, sizeof *sc);
    sc->nwords = msm_words(n);
    sc->offset = malloc((sc->nwords + 1) * sizeof *sc->offset);
    sc->ones = malloc((sc->nwords ? sc->nwords : 1) * sizeof *sc->ones);
    sc->nother_per_worker = malloc(msm_threads(pool) * sizeof *sc->nother_per_worker);
    if (sc->offset == NULL || sc->ones == NULL || sc->nother_per_worker == NULL) goto fail;
    sc->offset[0] = 0;
    size_t chunk_max = 1;
    for (size_t j = 0; j < sc->nwords; j++) {
        uint64_t used = (density ? density[j] : ~0ULL) & msm_word_limit(n, j);
        sc->offset[j + 1] = sc->offset[j] + (size_t)__builtin_popcountll(used);
        if (j % MSM_CHUNK_WORDS == MSM_CHUNK_WORDS - 1 || j + 1 == sc->nwords) {
            size_t first = j / MSM_CHUNK_WORDS * MSM_CHUNK_WORDS;
            if (sc->offset[j + 1] - sc->offset[first] > chunk_max) chunk_max = sc->offset[j + 1] - sc->offset[first];
        }
    }
    sc->k = malloc(chunk_max * FR_LIMBS * sizeof *sc->k);
    if (sc->k == NULL) goto fail;
    return 0;
fail:
    msm_scalars_release(sc);
    return -1;
}

/* Converts the scalars of the chunk of density words starting at j0 and fills their bits of sc->ones. */
static void msm_scalars_load(pool_t *pool, msm_scalars_t *sc, const fr_t *scalars, const uint64_t *density, size_t n,
                             size_t j0)
{
    unsigned nthreads = msm_threads(pool);
    size_t j1 = sc->nwords - j0 < MSM_CHUNK_WORDS ? sc->nwords : j0 + MSM_CHUNK_WORDS;
    sc->base0 = sc->offset[j0];
    sc->m = sc->offset[j1] - sc->base0;
    sc->nother = 0;
    memset(sc->nother_per_worker, 0, nthreads * sizeof *sc->nother_per_worker);
    msm_prep_ctx ctx = {sc, scalars, density, n, j0, sc->nother_per_worker};
    pool_parallel_for(pool, j1 - j0, MSM_WORDS_GRAIN, msm_prep_body, &ctx);
    for (unsigned t = 0; t < nthreads; t++) sc->nother += sc->nother_per_worker[t];
}

/* ---- the two groups ---- */

/* G1's coordinate arithmetic in the bucket loops: fp's own assembly inlined, where a call to fp_sub costs about as
 * much as the subtraction itself (most of an affine bucket addition's instructions outside its six multiplications
 * are subtractions). The results are fp_*'s; the portable path stays behind fp_*. */
#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
#include "ff/cpu.h"
#include "ff/mont_x86_adx.h"

__attribute__((always_inline)) static inline void msm_fp_add(fp_t *r, const fp_t *a, const fp_t *b)
{
    if (cpu_has_adx)
        mont_add_6(r->l, a->l, b->l, FP_MONT_PZ);
    else
        fp_add(r, a, b);
}

__attribute__((always_inline)) static inline void msm_fp_sub(fp_t *r, const fp_t *a, const fp_t *b)
{
    if (cpu_has_adx)
        mont_sub_6(r->l, a->l, b->l, FP_MONT_PZ);
    else
        fp_sub(r, a, b);
}

__attribute__((always_inline)) static inline void msm_fp_mul(fp_t *r, const fp_t *a, const fp_t *b)
{
    if (cpu_has_adx)
        mont_mul_adx_6(r->l, a->l, b->l, FP_MONT_PM);
    else
        fp_mul(r, a, b);
}

__attribute__((always_inline)) static inline void msm_fp_dbl(fp_t *r, const fp_t *a)
{
    msm_fp_add(r, a, a);
}
__attribute__((always_inline)) static inline void msm_fp_sqr(fp_t *r, const fp_t *a)
{
    msm_fp_mul(r, a, a);
}

static inline int msm_fp_is_zero(const fp_t *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}
#else
#define msm_fp_add fp_add
#define msm_fp_sub fp_sub
#define msm_fp_mul fp_mul
#define msm_fp_dbl fp_dbl
#define msm_fp_sqr fp_sqr
#define msm_fp_is_zero fp_is_zero
#endif
#define msm_fp_neg fp_neg
#define msm_fp_eq fp_eq
/* The inverses are of differences of bucket and point coordinates, whose values the bucket accesses reveal anyway. */
#define msm_fp_inv fp_inv_vartime
#define msm_fp_set_one fp_set_one

#define MSM_G(x) g1_##x
#define MSM_FN(x) msm_g1_##x
#define MSM_F(x) msm_fp_##x
#define MSM_F_T fp_t
#include "msm/msm_impl.h"
#undef MSM_G
#undef MSM_FN
#undef MSM_F
#undef MSM_F_T

#define MSM_G(x) g2_##x
#define MSM_FN(x) msm_g2_##x
#define MSM_F(x) fp2_##x
#define MSM_F_T fp2_t
#include "msm/msm_impl.h"
#undef MSM_G
#undef MSM_FN
#undef MSM_F
#undef MSM_F_T

void msm_g1(pool_t *pool, g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, const uint64_t *density, size_t n)
{
    msm_g1_run(pool, r, bases, scalars, density, n, 0);
}

void msm_g2(pool_t *pool, g2_jac_t *r, const g2_affine_t *bases, const fr_t *scalars, const uint64_t *density, size_t n)
{
    msm_g2_run(pool, r, bases, scalars, density, n, 0);
}

void msm_g1_window(pool_t *pool, g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, const uint64_t *density,
                   size_t n, unsigned c)
{
    msm_g1_run(pool, r, bases, scalars, density, n, c);
}

void msm_g2_window(pool_t *pool, g2_jac_t *r, const g2_affine_t *bases, const fr_t *scalars, const uint64_t *density,
                   size_t n, unsigned c)
{
    msm_g2_run(pool, r, bases, scalars, density, n, c);
}

void batch_add_g1(pool_t *pool, g1_jac_t *r, const g1_affine_t *bases, const uint64_t *mask, size_t n)
{
    g1_xyzz_t acc;
    if (msm_g1_masked_sum(pool, &acc, bases, mask, NULL, NULL, n) != 0) {
        /* Out of memory for the per-thread sums: add serially, allocating nothing. */
        g1_xyzz_set_inf(&acc);
        for (size_t i = 0; i < n; i++)
            if ((mask[i / 64] >> (i % 64)) & 1) msm_g1_acc_affine(&acc, &bases[i], 0);
    }
    g1_xyzz_to_jac(r, &acc);
}
