/* NTT over Fr.
 *
 * Two in-place radix-2 transforms, both with one twiddle per segment instead
 * of one per butterfly:
 *   ntt_ct  (Cooley-Tukey, natural order in, bit-reversed out): y[p] = X(psi^rev(p)).
 *   ntt_gs  (Gentleman-Sande, bit-reversed in, natural out): the inverse of
 *           ntt_ct with psi^-1, times m; i.e. natural DFT with psi of the
 *           un-bit-reversed input.
 * Level K (K segments of size m/K) multiplies by Z[s] = psi_{2K}^brv_K(s) in
 * segment s; this value does not depend on K, so one sequence Z[0 .. m/2)
 * serves every level. Z is split as Z[s] = lo[s mod 2^T] * hi[s >> T]; lo does
 * not depend on m either, so it is computed once per root chain and kept.
 *
 * Cache use: the levels whose segments exceed NTT_BLOCK elements are done in
 * passes of up to NTT_PASS levels over tiles (2^k rows of NTT_TILE_W adjacent
 * columns) gathered into a small local buffer, which avoids the power-of-two
 * stride cache conflicts; the remaining levels run block by block inside L2. */
#include <pthread.h>
#include <string.h>

#include "poly/poly.h"

#define NTT_LOG_BLOCK 12 /* 4096 elements, 128 KiB: stays in L2 */
#define NTT_BLOCK ((size_t)1 << NTT_LOG_BLOCK)
#define NTT_PASS 6    /* levels per pass over memory */
#define NTT_TILE_W 8  /* adjacent columns per tile: 256 bytes per row */
#define NTT_LOG_LO 16 /* the shared table lo has 2^16 entries */
#define NTT_LO ((size_t)1 << NTT_LOG_LO)
#define NTT_HI_MAX ((size_t)1 << (POLY_MAX_LOG - 1 - NTT_LOG_LO))

/* ---- roots ---- */

void poly_snarkjs_root_of_unity(fr_t *r, unsigned log_n)
{
    /* (r-1) / 2^32, the odd part of r - 1. */
    static const uint64_t t[FR_LIMBS] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL,
                                         0x0000000073eda753ULL};
    fr_t five, w;
    fr_from_u64(&five, 5);
    fr_pow(&w, &five, t, FR_LIMBS);
    for (unsigned i = log_n; i < FR_TWO_ADICITY; i++) fr_sqr(&w, &w);
    *r = w;
}

/* A root chain: primitive 2^k-th roots for every k, from fr_root_of_unity (ours,
 * from 7) or poly_snarkjs_root_of_unity (from 5), forward or inverted. */
static void chain_root(fr_t *r, int chain, int inverse, unsigned log_n)
{
    if (chain == POLY_ROOTS_SNARKJS)
        poly_snarkjs_root_of_unity(r, log_n);
    else
        fr_root_of_unity(r, log_n);
    if (inverse) fr_inv(r, r);
}

/* lo[chain][inverse][s] = psi_{2^(T+1)}^brv_T(s) for s < 2^T: read-only after its one-time initialisation. */
static fr_t ntt_lo_tables[2][2][NTT_LO];
static pthread_once_t ntt_lo_once[2][2] = {{PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT},
                                           {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT}};

/* z[s] = psi^brv_c(s) for s < count = 2^c, psi a primitive 2^log_root-th root.
 * z[k + i] = z[i] * psi^brv_c(k) for i < k: the new top bit of s becomes bit
 * c-1-log2(k) of brv(s), so the factor is a primitive 2^(log_root-c+1+log2 k)-th root. */
static void fill_brv_powers(fr_t *z, size_t count, int chain, int inverse, unsigned log_root)
{
    unsigned c = (unsigned)__builtin_ctzll(count);
    fr_set_one(&z[0]);
    for (size_t k = 1, logk = 0; k < count; k <<= 1, logk++) {
        fr_t w;
        chain_root(&w, chain, inverse, log_root - c + 1 + (unsigned)logk);
        for (size_t i = 0; i < k; i++) fr_mul(&z[k + i], &z[i], &w);
    }
}

#define DEFINE_LO_INIT(c, inv)                                                                                         \
    static void ntt_lo_init_##c##_##inv(void)                                                                          \
    {                                                                                                                  \
        fill_brv_powers(ntt_lo_tables[c][inv], NTT_LO, c, inv, NTT_LOG_LO + 1);                                        \
    }
DEFINE_LO_INIT(0, 0)
DEFINE_LO_INIT(0, 1)
DEFINE_LO_INIT(1, 0)
DEFINE_LO_INIT(1, 1)

static const fr_t *ntt_lo_table(int chain, int inverse)
{
    static void (*const init[2][2])(void) = {{ntt_lo_init_0_0, ntt_lo_init_0_1}, {ntt_lo_init_1_0, ntt_lo_init_1_1}};
    pthread_once(&ntt_lo_once[chain][inverse], init[chain][inverse]);
    return ntt_lo_tables[chain][inverse];
}

/* The twiddles of one transform of size 2^log_m with one root. */
typedef struct ntt_tw {
    unsigned log_m;
    size_t m;
    const fr_t *lo;
    fr_t hi[NTT_HI_MAX]; /* hi[j] = psi_m^brv_{log_m-1-T}(j), only when m/2 > 2^T */
} ntt_tw;

static void tw_init(ntt_tw *tw, unsigned log_m, int chain, int inverse)
{
    tw->log_m = log_m;
    tw->m = (size_t)1 << log_m;
    tw->lo = ntt_lo_table(chain, inverse);
    if (log_m > NTT_LOG_LO + 1) {
        size_t nhi = tw->m / 2 >> NTT_LOG_LO;
        fill_brv_powers(tw->hi, nhi, chain, inverse, log_m);
    }
}

static inline void tw_get(fr_t *z, const ntt_tw *tw, size_t s)
{
    if (s < NTT_LO)
        *z = tw->lo[s];
    else
        fr_mul(z, &tw->lo[s & (NTT_LO - 1)], &tw->hi[s >> NTT_LOG_LO]);
}

/* ---- butterflies ---- */

static inline void bfly_ct(fr_t *x, fr_t *y, const fr_t *z)
{
    fr_t t;
    fr_mul(&t, y, z);
    fr_sub(y, x, &t);
    fr_add(x, x, &t);
}

static inline void bfly_gs(fr_t *x, fr_t *y, const fr_t *z)
{
    fr_t t;
    fr_sub(&t, x, y);
    fr_add(x, x, y);
    fr_mul(y, &t, z);
}

/* ---- permutation and scaling ---- */

static inline size_t bit_reverse(size_t x, unsigned bits)
{
    uint64_t v = x;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = __builtin_bswap64(v);
    return bits ? (size_t)(v >> (64 - bits)) : 0;
}

/* Index i = (hi, mid, lo) with hi and lo of BITREV_B bits maps to (rev lo, rev mid, rev hi):
 * swapping whole tiles (all hi, lo for one mid and its reverse) reads and writes
 * runs of 2^BITREV_B adjacent elements instead of single scattered ones. */
#define BITREV_B 5

typedef struct bitrev_job {
    fr_t *a;
    unsigned log_m;
    const fr_t *scale;
} bitrev_job;

static inline void swap_scale(fr_t *a, size_t i, size_t j, const fr_t *scale)
{
    /* Each element is scaled by exactly one call: i < j swaps and scales both, i == j scales one. */
    if (i > j) return;
    if (i < j) {
        fr_t t = a[i];
        a[i] = a[j];
        a[j] = t;
        if (scale) fr_mul(&a[j], &a[j], scale);
    }
    if (scale) fr_mul(&a[i], &a[i], scale);
}

static void bitrev_range(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const bitrev_job *job = ctxp;
    unsigned n = job->log_m;
    if (n < 2 * BITREV_B) {
        for (size_t i = begin; i < end; i++) swap_scale(job->a, i, bit_reverse(i, n), job->scale);
        return;
    }
    unsigned nmid = n - 2 * BITREV_B;
    size_t T = (size_t)1 << BITREV_B;
    for (size_t mid = begin; mid < end; mid++) {
        size_t mr = bit_reverse(mid, nmid);
        if (mr < mid) continue; /* the pair of tiles belongs to mr */
        for (size_t hi = 0; hi < T; hi++) {
            size_t rhi = bit_reverse(hi, BITREV_B);
            for (size_t lo = 0; lo < T; lo++) {
                size_t i = hi << (n - BITREV_B) | mid << BITREV_B | lo;
                size_t j = bit_reverse(lo, BITREV_B) << (n - BITREV_B) | mr << BITREV_B | rhi;
                if (mid == mr)
                    swap_scale(job->a, i, j, job->scale);
                else
                    swap_scale(job->a, i < j ? i : j, i < j ? j : i, job->scale);
            }
        }
    }
}

void ntt_bitrev(pool_t *pool, unsigned log_m, fr_t *a, const fr_t *scale)
{
    bitrev_job job = {.a = a, .log_m = log_m, .scale = scale};
    if (log_m < 2 * BITREV_B)
        pool_parallel_for(pool, (size_t)1 << log_m, 4096, bitrev_range, &job);
    else
        pool_parallel_for(pool, (size_t)1 << (log_m - 2 * BITREV_B), 4, bitrev_range, &job);
}

#define SCALE_LOG_L 10

typedef struct scale_job {
    fr_t *a;
    unsigned log_m, log_l;
    int bitrev;
    fr_t c, s;
    fr_t p[(size_t)1 << SCALE_LOG_L]; /* the factor of the low index bits */
} scale_job;

static void scale_range(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const scale_job *job = ctxp;
    size_t L = (size_t)1 << job->log_l;
    for (size_t hi = begin; hi < end; hi++) {
        /* Index hi*L + lo: natural s^(hi L) s^lo; bit-reversed s^rev(hi) (s^(m/L))^rev(lo). */
        uint64_t e = job->bitrev ? bit_reverse(hi, job->log_m - job->log_l) : (uint64_t)hi << job->log_l;
        fr_t f;
        fr_pow(&f, &job->s, &e, 1);
        fr_mul(&f, &f, &job->c);
        fr_t *x = job->a + hi * L;
        for (size_t lo = 0; lo < L; lo++) {
            fr_t t;
            fr_mul(&t, &f, &job->p[lo]);
            fr_mul(&x[lo], &x[lo], &t);
        }
    }
}

static void scale_init(scale_job *job, unsigned log_m, fr_t *a, const fr_t *c, const fr_t *s, int bitrev)
{
    job->a = a;
    job->log_m = log_m;
    job->bitrev = bitrev;
    job->c = *c;
    job->s = *s;
    job->log_l = log_m < SCALE_LOG_L ? log_m : SCALE_LOG_L;
    size_t L = (size_t)1 << job->log_l;
    /* p[k + i] = p[i] * step(k) for powers of two k: step(k) = s^k, or for bit-reversed order
     * u^(L/2k) with u = s^(m/L), since the new bit k of lo lands at bit L/2k of rev(lo). */
    fr_t u = *s;
    for (unsigned i = job->log_l; i < log_m; i++) fr_sqr(&u, &u);
    fr_set_one(&job->p[0]);
    for (size_t k = 1; k < L; k <<= 1) {
        fr_t step;
        uint64_t e = bitrev ? L / (2 * k) : k;
        fr_pow(&step, bitrev ? &u : s, &e, 1);
        for (size_t i = 0; i < k; i++) fr_mul(&job->p[k + i], &job->p[i], &step);
    }
}

void poly_scale_powers(pool_t *pool, unsigned log_m, fr_t *a, const fr_t *c, const fr_t *s, int bitrev)
{
    scale_job job;
    scale_init(&job, log_m, a, c, s, bitrev);
    pool_parallel_for(pool, ((size_t)1 << log_m) >> job.log_l, 4, scale_range, &job);
}

/* ---- levels inside one contiguous block ---- */

typedef struct ntt_job {
    fr_t *a;
    const ntt_tw *ct, *gs; /* block phase: ct levels, then mid, then gs levels; either may be NULL */
    const scale_job *mid;
    size_t block;     /* block phase: elements per block */
    const ntt_tw *tw; /* pass phase: the twiddles of this pass */
    int pass_gs;      /* pass phase: 0 ct, 1 gs */
    unsigned k;       /* pass phase: levels in this pass */
    size_t k0;        /* pass phase: segments at the first (coarsest) level of this pass */
    size_t rstride;   /* pass phase: distance between tile rows */
    size_t ntiles;    /* pass phase: column tiles per segment */
} ntt_job;

static void levels_in_block(fr_t *x, size_t b, size_t B, const ntt_tw *tw, int gs)
{
    for (size_t step = 0; (B >> 1 >> step) >= 1; step++) {
        /* ct: segments shrink from B to 2; gs: they grow from 2 to B. */
        size_t S = gs ? (size_t)2 << step : B >> step;
        size_t h = S / 2, nseg = B / S, s0 = b * nseg;
        for (size_t q = 0; q < nseg; q++) {
            fr_t z;
            tw_get(&z, tw, s0 + q);
            fr_t *u = x + q * S;
            if (gs)
                for (size_t j = 0; j < h; j++) bfly_gs(&u[j], &u[j + h], &z);
            else
                for (size_t j = 0; j < h; j++) bfly_ct(&u[j], &u[j + h], &z);
        }
    }
}

/* One block stays in cache through the fine ct levels, the scaling and the fine gs levels. */
static void block_range(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    const ntt_job *job = ctxp;
    size_t B = job->block;
    for (size_t b = begin; b < end; b++) {
        fr_t *x = job->a + b * B;
        if (job->ct) levels_in_block(x, b, B, job->ct, 0);
        if (job->mid) {
            size_t per = B >> job->mid->log_l;
            scale_range((void *)job->mid, b * per, (b + 1) * per, worker);
        }
        if (job->gs) levels_in_block(x, b, B, job->gs, 1);
    }
}

/* ---- passes of several coarse levels over gathered tiles ---- */

static void pass_tiles(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const ntt_job *job = ctxp;
    unsigned k = job->k;
    size_t rows = (size_t)1 << k, R = job->rstride, S0 = rows * R;
    fr_t buf[(1 << NTT_PASS) * NTT_TILE_W];
    fr_t z[1 << NTT_PASS];
    size_t last_seg = (size_t)-1;
    for (size_t task = begin; task < end; task++) {
        size_t seg = task / job->ntiles, col = (task % job->ntiles) * NTT_TILE_W;
        fr_t *base = job->a + seg * S0 + col;
        if (seg != last_seg) {
            /* z[2^j + q]: level j of this pass, sub-segment q. */
            for (unsigned j = 0; j < k; j++)
                for (size_t q = 0; q < ((size_t)1 << j); q++) tw_get(&z[((size_t)1 << j) + q], job->tw, (seg << j) + q);
            last_seg = seg;
        }
        for (size_t r = 0; r < rows; r++) memcpy(&buf[r * NTT_TILE_W], base + r * R, NTT_TILE_W * sizeof(fr_t));
        for (unsigned step = 0; step < k; step++) {
            unsigned j = job->pass_gs ? k - 1 - step : step;
            size_t hr = rows >> (j + 1); /* half a sub-segment, in rows */
            for (size_t q = 0; q < ((size_t)1 << j); q++) {
                const fr_t *zz = &z[((size_t)1 << j) + q];
                for (size_t r = q * 2 * hr; r < q * 2 * hr + hr; r++) {
                    fr_t *x = &buf[r * NTT_TILE_W], *y = &buf[(r + hr) * NTT_TILE_W];
                    if (job->pass_gs)
                        for (size_t w = 0; w < NTT_TILE_W; w++) bfly_gs(&x[w], &y[w], zz);
                    else
                        for (size_t w = 0; w < NTT_TILE_W; w++) bfly_ct(&x[w], &y[w], zz);
                }
            }
        }
        for (size_t r = 0; r < rows; r++) memcpy(base + r * R, &buf[r * NTT_TILE_W], NTT_TILE_W * sizeof(fr_t));
    }
}

static void coarse_passes(pool_t *pool, ntt_job *job, const ntt_tw *tw, int gs)
{
    unsigned coarse = tw->log_m > NTT_LOG_BLOCK ? tw->log_m - NTT_LOG_BLOCK : 0;
    unsigned npass = (coarse + NTT_PASS - 1) / NTT_PASS;
    job->tw = tw;
    job->pass_gs = gs;
    for (unsigned p = 0; p < npass; p++) {
        unsigned idx = gs ? npass - 1 - p : p;
        /* Split the coarse levels as evenly as possible: pass idx covers [first, first + k). */
        unsigned first = coarse * idx / npass, k = coarse * (idx + 1) / npass - first;
        job->k = k;
        job->k0 = (size_t)1 << first;
        job->rstride = (tw->m >> first) >> k;
        job->ntiles = job->rstride / NTT_TILE_W;
        pool_parallel_for(pool, job->k0 * job->ntiles, 1, pass_tiles, job);
    }
}

/* ct (natural -> bit-reversed), then mid scaling in bit-reversed order, then gs
 * (bit-reversed -> natural); any of the three may be NULL. The coarse levels
 * (segments larger than NTT_BLOCK) run in tiled passes; the fine levels of
 * both transforms and the scaling share one pass over each block. */
static void ntt_run(pool_t *pool, unsigned log_m, fr_t *a, const ntt_tw *ct, const scale_job *mid, const ntt_tw *gs)
{
    size_t m = (size_t)1 << log_m;
    ntt_job job = {.a = a, .ct = ct, .gs = gs, .mid = mid, .block = m < NTT_BLOCK ? m : NTT_BLOCK};
    if (m < 2) {
        if (mid) scale_range((void *)mid, 0, 1, 0);
        return;
    }
    if (ct) coarse_passes(pool, &job, ct, 0);
    pool_parallel_for(pool, m / job.block, 1, block_range, &job);
    if (gs) coarse_passes(pool, &job, gs, 1);
}

void ntt_ct(pool_t *pool, unsigned log_m, poly_roots chain, int inverse, fr_t *a)
{
    ntt_tw tw;
    tw_init(&tw, log_m, chain, inverse);
    ntt_run(pool, log_m, a, &tw, NULL, NULL);
}

void ntt_gs(pool_t *pool, unsigned log_m, poly_roots chain, int inverse, fr_t *a)
{
    ntt_tw tw;
    tw_init(&tw, log_m, chain, inverse);
    ntt_run(pool, log_m, a, NULL, NULL, &tw);
}

void ntt_to_coset(pool_t *pool, unsigned log_m, poly_roots roots, const fr_t *shift, fr_t *v)
{
    /* m * coefficients (bit-reversed); coefficient i times shift^i / m; values at shift * psi^i. */
    ntt_tw ct, gs;
    scale_job mid;
    fr_t m_inv;
    fr_from_u64(&m_inv, (uint64_t)1 << log_m);
    fr_inv(&m_inv, &m_inv);
    tw_init(&ct, log_m, roots, 1);
    tw_init(&gs, log_m, roots, 0);
    scale_init(&mid, log_m, v, &m_inv, shift, 1);
    ntt_run(pool, log_m, v, &ct, &mid, &gs);
}

void ntt_from_coset(pool_t *pool, unsigned log_m, poly_roots roots, const fr_t *shift, const fr_t *c, fr_t *v)
{
    /* m * coefficients of the shifted polynomial (bit-reversed); times c shift^-i / m; natural order. */
    ntt_tw ct;
    scale_job mid;
    fr_t k, shift_inv;
    fr_from_u64(&k, (uint64_t)1 << log_m);
    fr_inv(&k, &k);
    fr_mul(&k, &k, c);
    fr_inv(&shift_inv, shift);
    tw_init(&ct, log_m, roots, 1);
    scale_init(&mid, log_m, v, &k, &shift_inv, 1);
    ntt_run(pool, log_m, v, &ct, &mid, NULL);
    ntt_bitrev(pool, log_m, v, NULL);
}

/* ---- domains and the public transforms ---- */

cuzk_status domain_for_size(domain_t *d, size_t n, cuzk_error *err)
{
    if (n > ((size_t)1 << POLY_MAX_LOG))
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "domain_for_size: %zu points exceed the largest domain 2^%d",
                              n, POLY_MAX_LOG);
    unsigned log_m = 0;
    while (((size_t)1 << log_m) < n) log_m++;
    memset(d, 0, sizeof *d);
    d->log_m = log_m;
    d->m = (size_t)1 << log_m;
    fr_root_of_unity(&d->omega, log_m);
    fr_inv(&d->omega_inv, &d->omega);
    fr_from_u64(&d->m_inv, d->m);
    fr_inv(&d->m_inv, &d->m_inv);
    fr_from_u64(&d->g, FR_GENERATOR);
    fr_inv(&d->g_inv, &d->g);
    return CUZK_OK;
}

void ntt_forward(pool_t *pool, const domain_t *d, fr_t *a)
{
    ntt_ct(pool, d->log_m, POLY_ROOTS_CUZK, 0, a);
    ntt_bitrev(pool, d->log_m, a, NULL);
}

void ntt_inverse(pool_t *pool, const domain_t *d, fr_t *a)
{
    ntt_ct(pool, d->log_m, POLY_ROOTS_CUZK, 1, a);
    ntt_bitrev(pool, d->log_m, a, &d->m_inv);
}

void ntt_coset_forward(pool_t *pool, const domain_t *d, const fr_t *shift, fr_t *a)
{
    fr_t one;
    fr_set_one(&one);
    poly_scale_powers(pool, d->log_m, a, &one, shift, 0);
    ntt_forward(pool, d, a);
}

void ntt_coset_inverse(pool_t *pool, const domain_t *d, const fr_t *shift, fr_t *a)
{
    fr_t one;
    fr_set_one(&one);
    ntt_from_coset(pool, d->log_m, POLY_ROOTS_CUZK, shift, &one, a);
}
