/* GPU backend: device field and curve arithmetic, G1 MSM and batch addition against the CPU (msm_g1,
 * batch_add_g1, and naive sums of scalar multiplications), on fresh random data. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/tune.h"
#include "msm/msm.h"
#include "testutil.h"

static rng_t rng;
static pool_t *pool;
static gpu_ctx *ctx;

/* Distinct bases without one scalar multiplication each: a walk with random steps. */
static void make_bases(g1_affine_t *out, size_t n)
{
    g1_jac_t step[8], cur;
    g1_jac_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    CHECK(tmp != NULL);
    if (tmp == NULL) return;
    for (int i = 0; i < 8; i++) g1_random(&step[i], &rng);
    g1_random(&cur, &rng);
    for (size_t i = 0; i < n; i++) {
        g1_jac_add(&cur, &cur, &step[rng_next(&rng) % 8]);
        tmp[i] = cur;
    }
    g1_batch_to_affine(out, tmp, n);
    free(tmp);
}

static void naive(g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, size_t n)
{
    g1_jac_set_inf(r);
    for (size_t i = 0; i < n; i++) {
        g1_jac_t p;
        g1_jac_from_affine(&p, &bases[i]);
        g1_jac_mul_fr(&p, &p, &scalars[i]);
        g1_jac_add(r, r, &p);
    }
}

/* The variants with their knobs (gpu_tune fields read per call: msm_tail, the buckets of at most 2^tail points that
 * leave the affine rounds for XYZZ additions; msm_inv_by, the inversion; msm_early, buckets leave before each
 * round rather than after the last): both affine round-1 kernels with
 * both inversions, tails of 1, 4 and 8 points, leaving early or late. */
typedef struct msm_cfg {
    const char *name;
    gpu_msm_variant v;
    const char *tail, *inv, *early;
} msm_cfg;
static const msm_cfg cfgs[] = {
    {"xyzz", GPU_MSM_XYZZ, "2", "by", "1"},
    {"affine, tail 1, fermat", GPU_MSM_AFFINE, "0", "fermat", "0"},
    {"affine, tail 8, by, early", GPU_MSM_AFFINE, "3", "by", "1"},
    {"affine-warp, tail 1, by, early", GPU_MSM_AFFINE_WARP, "0", "by", "1"},
    {"affine-warp, tail 4, fermat", GPU_MSM_AFFINE_WARP, "2", "fermat", "0"},
    {"affine-warp, tail 8, by", GPU_MSM_AFFINE_WARP, "3", "by", "0"},
    {"affine-warp, tail 4, by, early (default)", GPU_MSM_AFFINE_WARP, "2", "by", "1"},
};
#define NCFG (sizeof cfgs / sizeof cfgs[0])

static cuzk_status run_cfg(g1_jac_t *got, const g1_affine_t *bases, const fr_t *scalars, size_t n, unsigned c,
                           const gpu_msm_bases *pb, const msm_cfg *cfg, cuzk_error *err)
{
    gpu_tune saved = gpu_tune_get(), t = saved;
    t.msm_tail = (unsigned)atoi(cfg->tail);
    t.msm_inv_by = strcmp(cfg->inv, "fermat") != 0;
    t.msm_early = strcmp(cfg->early, "1") == 0;
    gpu_tune_set(&t);
    memset(got, 0x5a, sizeof *got); /* poison: a result that was never written cannot pass */
    cuzk_status st = pb ? gpu_msm_g1_prepared(ctx, got, pb, scalars, n, cfg->v, err)
                        : gpu_msm_g1_variant(ctx, got, bases, scalars, n, c, cfg->v, err);
    gpu_tune_set(&saved);
    return st;
}

/* Compares the GPU MSM (window c, 0 = default) with want, with each bucket-sum variant. */
static void check_msm(const char *what, const g1_affine_t *bases, const fr_t *scalars, size_t n, unsigned c,
                      const g1_jac_t *want)
{
    for (size_t v = 0; v < NCFG; v++) {
        g1_jac_t got;
        cuzk_error err = {0};
        cuzk_status st = run_cfg(&got, bases, scalars, n, c, NULL, &cfgs[v], &err);
        CHECK_MSG(st == CUZK_OK, "%s n=%zu c=%u %s: %s", what, n, c, cfgs[v].name, err.msg);
        if (st == CUZK_OK)
            CHECK_MSG(g1_jac_eq(&got, want), "%s: n=%zu c=%u %s: GPU MSM differs from the CPU", what, n, c,
                      cfgs[v].name);
    }
}

/* Bases prepared once (shifted copies per window, one set of buckets), used for several scalar vectors and
 * prefixes, with each variant, against the CPU. */
static void test_msm_prepared(void)
{
    size_t nmax = 3000;
    g1_affine_t *bases = malloc(nmax * sizeof *bases);
    fr_t *scalars = malloc(nmax * sizeof *scalars);
    CHECK(bases && scalars);
    if (bases && scalars) {
        make_bases(bases, nmax);
        g1_affine_set_inf(&bases[5]);
        static const unsigned widths[] = {0, 3, 8, 13};
        for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
            gpu_msm_bases *pb = NULL;
            cuzk_error err = {0};
            cuzk_status st = gpu_msm_bases_prepare(ctx, &pb, bases, nmax, widths[k], &err);
            CHECK_MSG(st == CUZK_OK, "prepare c=%u: %s", widths[k], err.msg);
            if (st != CUZK_OK) continue;
            CHECK(widths[k] == 0 || gpu_msm_bases_window(pb) == widths[k]);
            static const size_t sizes[] = {1, 100, 3000};
            for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
                size_t n = sizes[j];
                g1_jac_t want;
                for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
                if (j == 1) fr_set_one(&scalars[3]);
                msm_g1(pool, &want, bases, scalars, NULL, n);
                for (size_t v = 0; v < NCFG; v++) {
                    g1_jac_t got;
                    st = run_cfg(&got, NULL, scalars, n, 0, pb, &cfgs[v], &err);
                    CHECK_MSG(st == CUZK_OK, "prepared c=%u n=%zu %s: %s", gpu_msm_bases_window(pb), n, cfgs[v].name,
                              err.msg);
                    if (st == CUZK_OK)
                        CHECK_MSG(g1_jac_eq(&got, &want), "prepared c=%u n=%zu %s differs from the CPU",
                                  gpu_msm_bases_window(pb), n, cfgs[v].name);
                }
            }
            g1_jac_t got;
            CHECK(gpu_msm_g1_prepared(ctx, &got, pb, scalars, nmax + 1, GPU_MSM_DEFAULT, &err) == CUZK_ERR_INVALID_ARG);
            gpu_msm_bases_free(pb);
        }
    }
    free(bases);
    free(scalars);
}

static void test_field(void)
{
    enum { N = 1000 };
    fp_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *o = malloc(N * sizeof *o);
    fr_t *ra = malloc(N * sizeof *ra), *rb = malloc(N * sizeof *rb), *ro = malloc(N * sizeof *ro);
    cuzk_error err = {0};
    CHECK(a && b && o && ra && rb && ro);
    if (a && b && o && ra && rb && ro) {
        for (int i = 0; i < N; i++) {
            fp_random(&a[i], &rng);
            fp_random(&b[i], &rng);
            fr_random(&ra[i], &rng);
            fr_random(&rb[i], &rng);
        }
        /* Edges: 0, 1, p-1 (and r-1) as operands. */
        fp_set_zero(&a[0]);
        fp_set_one(&a[1]);
        fp_set_one(&a[2]);
        fp_neg(&a[2], &a[2]);
        fp_set_one(&b[3]);
        fp_neg(&b[3], &b[3]);
        a[3] = b[3];
        fr_set_zero(&ra[0]);
        fr_set_one(&ra[1]);
        fr_set_one(&ra[2]);
        fr_neg(&ra[2], &ra[2]);
        rb[2] = ra[2];
        CHECK_MSG(gpu_debug_fp_mul(ctx, o, a, b, N, &err) == CUZK_OK, "fp mul: %s", err.msg);
        CHECK_MSG(gpu_debug_fr_mul(ctx, ro, ra, rb, N, &err) == CUZK_OK, "fr mul: %s", err.msg);
        int bad_fp = 0, bad_fr = 0;
        for (int i = 0; i < N; i++) {
            fp_t w;
            fr_t v;
            fp_mul(&w, &a[i], &b[i]);
            fr_mul(&v, &ra[i], &rb[i]);
            bad_fp += !fp_eq(&w, &o[i]);
            bad_fr += !fr_eq(&v, &ro[i]);
        }
        CHECK_MSG(bad_fp == 0, "%d of %d device Fp products differ", bad_fp, N);
        CHECK_MSG(bad_fr == 0, "%d of %d device Fr products differ", bad_fr, N);
    }
    free(a);
    free(b);
    free(o);
    free(ra);
    free(rb);
    free(ro);
}

static void test_point_add(void)
{
    enum { N = 64 };
    g1_affine_t a[N], b[N];
    g1_jac_t out[N];
    cuzk_error err = {0};
    make_bases(a, N);
    make_bases(b, N);
    /* Edges: doubling, P + (-P), infinity on either side, both infinity. */
    for (int i = 0; i < 8; i++) {
        b[i] = a[i]; /* i = 0..7: doubling (even: mixed, odd: full) */
        g1_affine_neg(&b[8 + i], &a[8 + i]);
    }
    g1_affine_set_inf(&a[16]);
    g1_affine_set_inf(&a[17]);
    g1_affine_set_inf(&b[18]);
    g1_affine_set_inf(&b[19]);
    g1_affine_set_inf(&a[20]);
    g1_affine_set_inf(&b[20]);
    g1_affine_set_inf(&a[21]);
    g1_affine_set_inf(&b[21]);
    CHECK_MSG(gpu_debug_g1_add(ctx, out, a, b, N, &err) == CUZK_OK, "g1 add: %s", err.msg);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        g1_jac_t pa, want;
        g1_jac_from_affine(&pa, &a[i]);
        g1_jac_add_affine(&want, &pa, &b[i]);
        if (!g1_jac_eq(&want, &out[i])) {
            if (bad < 5) fprintf(stderr, "device G1 addition wrong at case %d\n", i);
            bad++;
        }
    }
    CHECK_MSG(bad == 0, "%d of %d device G1 additions differ", bad, N);
}

static void test_msm_random(void)
{
    static const size_t sizes[] = {1, 2, 3, 31, 32, 33, 100, 1000, 4097, 20000, 65536 + 3};
    size_t nmax = 65536 + 3;
    g1_affine_t *bases = malloc(nmax * sizeof *bases);
    fr_t *scalars = malloc(nmax * sizeof *scalars);
    CHECK(bases && scalars);
    if (bases && scalars) {
        make_bases(bases, nmax);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            g1_jac_t want;
            for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
            if (n <= 100)
                naive(&want, bases, scalars, n);
            else
                msm_g1(pool, &want, bases, scalars, NULL, n);
            check_msm("random", bases, scalars, n, 0, &want);
        }
        /* Every window width, including ones far from the default, on one input. */
        size_t n = 777;
        g1_jac_t want;
        for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
        msm_g1(pool, &want, bases, scalars, NULL, n);
        static const unsigned widths[] = {2, 3, 5, 7, 8, 11, 13, 16, 17, 21};
        for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++)
            check_msm("window sweep", bases, scalars, n, widths[k], &want);

        /* Bases kept on the device: same answer, and twice in a row. */
        gpu_buf *buf = NULL;
        cuzk_error err = {0};
        n = 20000;
        for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
        msm_g1(pool, &want, bases, scalars, NULL, n);
        CHECK_MSG(gpu_buf_upload(ctx, &buf, bases, n * sizeof *bases, &err) == CUZK_OK, "upload: %s", err.msg);
        if (buf) {
            check_msm("resident bases", (const g1_affine_t *)gpu_buf_ptr(buf), scalars, n, 0, &want);
            check_msm("resident bases again", (const g1_affine_t *)gpu_buf_ptr(buf), scalars, n, 0, &want);
        }
        gpu_buf_free(buf);
    }
    free(bases);
    free(scalars);
}

static void test_msm_edges(void)
{
    size_t n = 5000, big = 1 << 17;
    g1_affine_t *bases = malloc(big * sizeof *bases);
    fr_t *scalars = malloc(big * sizeof *scalars);
    uint64_t *ones = malloc((big + 63) / 64 * 8);
    g1_jac_t want, sum;
    CHECK(bases && scalars && ones);
    if (bases && scalars && ones) {
        make_bases(bases, big);
        memset(ones, 0xff, (big + 63) / 64 * 8);

        for (size_t i = 0; i < n; i++) fr_set_zero(&scalars[i]);
        g1_jac_set_inf(&want);
        check_msm("all-zero scalars", bases, scalars, n, 0, &want);

        batch_add_g1(pool, &sum, bases, ones, n);
        for (size_t i = 0; i < n; i++) fr_set_one(&scalars[i]);
        check_msm("all-one scalars", bases, scalars, n, 0, &sum);

        for (size_t i = 0; i < n; i++) fr_neg(&scalars[i], &scalars[i]);
        g1_jac_neg(&want, &sum);
        check_msm("all r-1 scalars", bases, scalars, n, 0, &want);

        /* One bucket of 2^17 entries: the segmented sum must take several levels. */
        batch_add_g1(pool, &sum, bases, ones, big);
        fr_t seven;
        fr_from_u64(&seven, 7);
        for (size_t i = 0; i < big; i++) scalars[i] = seven;
        g1_jac_mul_fr(&want, &sum, &seven);
        check_msm("one huge bucket", bases, scalars, big, 0, &want);
        check_msm("one huge bucket, c=9", bases, scalars, big, 9, &want);

        /* A few heavy buckets among light ones: 7 of 8 scalars random (buckets of ~30 points at this size), 1 of 8
         * one of 3 values (buckets of ~5500 points in every window). Once the light buckets have left the affine
         * rounds (early), long runs of empty buckets separate the heavy ones, and the rounds' lanes must cross them
         * in both directions. */
        {
            fr_t heavy[3];
            for (int k = 0; k < 3; k++) fr_random(&heavy[k], &rng);
            for (size_t i = 0; i < big; i++) {
                if (rng_next(&rng) % 8 == 0)
                    scalars[i] = heavy[rng_next(&rng) % 3];
                else
                    fr_random(&scalars[i], &rng);
            }
            msm_g1(pool, &want, bases, scalars, NULL, big);
            check_msm("heavy buckets among light ones", bases, scalars, big, 0, &want);
        }

        /* Mixed kinds of scalars: 0, 1, r-1, small, full width. */
        for (size_t i = 0; i < n; i++) {
            switch (rng_next(&rng) % 6) {
            case 0: fr_set_zero(&scalars[i]); break;
            case 1: fr_set_one(&scalars[i]); break;
            case 2:
                fr_set_one(&scalars[i]);
                fr_neg(&scalars[i], &scalars[i]);
                break;
            case 3: fr_from_u64(&scalars[i], rng_next(&rng) % 1000); break;
            default: fr_random(&scalars[i], &rng);
            }
        }
        msm_g1(pool, &want, bases, scalars, NULL, n);
        check_msm("mixed scalars", bases, scalars, n, 0, &want);

        /* Repeated bases: one point everywhere, so equal points meet in buckets (doubling inside madd). */
        g1_affine_t *rep = malloc(n * sizeof *rep);
        CHECK(rep != NULL);
        if (rep) {
            fr_t total;
            fr_set_zero(&total);
            for (size_t i = 0; i < n; i++) {
                rep[i] = bases[7];
                fr_from_u64(&scalars[i], 1 + rng_next(&rng) % 50);
                fr_add(&total, &total, &scalars[i]);
            }
            g1_jac_from_affine(&want, &bases[7]);
            g1_jac_mul_fr(&want, &want, &total);
            check_msm("repeated bases", rep, scalars, n, 0, &want);
            for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
            for (size_t i = 0; i < n; i++) rep[i] = bases[i % 3];
            msm_g1(pool, &want, rep, scalars, NULL, n);
            check_msm("three repeated bases", rep, scalars, n, 0, &want);
            /* P and -P side by side with equal scalars (P + (-P) inside a bucket), plus one lone base. */
            for (size_t i = 0; i + 1 < n; i += 2) {
                rep[i] = bases[i];
                g1_affine_neg(&rep[i + 1], &bases[i]);
                fr_from_u64(&scalars[i], 1 + rng_next(&rng) % 4);
                scalars[i + 1] = scalars[i];
            }
            rep[n - 1] = bases[1];
            fr_random(&scalars[n - 1], &rng);
            msm_g1(pool, &want, rep, scalars, NULL, n);
            check_msm("opposite pairs", rep, scalars, n, 0, &want);
            free(rep);
        }

        /* Infinity among the bases. */
        for (size_t i = 0; i < n; i++) {
            fr_random(&scalars[i], &rng);
            if (i % 7 == 3) g1_affine_set_inf(&bases[i]);
        }
        msm_g1(pool, &want, bases, scalars, NULL, n);
        check_msm("infinity among bases", bases, scalars, n, 0, &want);
    }
    free(bases);
    free(scalars);
    free(ones);
}

static void check_batch(const char *what, const g1_affine_t *bases, const uint64_t *mask, size_t n)
{
    g1_jac_t want, got;
    cuzk_error err = {0};
    batch_add_g1(pool, &want, bases, mask, n);
    memset(&got, 0x5a, sizeof got); /* a result that was never written cannot pass */
    cuzk_status st = gpu_batch_add_g1(ctx, &got, bases, mask, n, &err);
    CHECK_MSG(st == CUZK_OK, "batch add %s n=%zu: %s", what, n, err.msg);
    if (st == CUZK_OK) CHECK_MSG(g1_jac_eq(&got, &want), "batch add %s n=%zu differs from the CPU", what, n);
    /* The streamed pieces' entry, XYZZ whatever the knob says. */
    memset(&got, 0x5a, sizeof got);
    st = gpu_batch_add_g1_xyzz(ctx, &got, bases, mask, n, &err);
    CHECK_MSG(st == CUZK_OK, "batch add (xyzz entry) %s n=%zu: %s", what, n, err.msg);
    if (st == CUZK_OK)
        CHECK_MSG(g1_jac_eq(&got, &want), "batch add (xyzz entry) %s n=%zu differs from the CPU", what, n);
}

/* Every case with the XYZZ chunks, the affine rounds (forced, also for a handful of bases) and the default (which
 * takes the rounds from 2^20 selected bases: the largest case). */
static void test_batch_add(void)
{
    static const size_t sizes[] = {1, 2, 5, 63, 64, 65, 1000, 100003};
    static const char *const variants[] = {"xyzz", "affine", NULL};
    size_t nbig = (size_t)5 << 19, nmax = nbig;
    g1_affine_t *bases = malloc(nmax * sizeof *bases);
    uint64_t *mask = malloc((nmax + 63) / 64 * 8);
    CHECK(bases && mask);
    if (bases && mask) {
        make_bases(bases, nmax);
        g1_affine_set_inf(&bases[10]);
        for (int v = 0; v < 3; v++) {
            gpu_tune t = gpu_tune_get();
            t.batch = !variants[v] ? GPU_TUNE_AUTO : strcmp(variants[v], "xyzz") == 0 ? GPU_TUNE_XYZZ : GPU_TUNE_AFFINE;
            gpu_tune_set(&t);
            const char *name = variants[v] ? variants[v] : "default";
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                size_t n = sizes[k];
                for (size_t w = 0; w < (n + 63) / 64; w++) mask[w] = rng_next(&rng);
                if (k == 0) mask[0] = 1;
                check_batch(name, bases, mask, n);
            }
            /* Empty and full masks; one base repeated (doublings inside the rounds) and P next to -P (infinity
             * inside the rounds), with the point at infinity among them. */
            size_t n = 100003;
            memset(mask, 0, (n + 63) / 64 * 8);
            check_batch(name, bases, mask, n);
            memset(mask, 0xff, (n + 63) / 64 * 8);
            check_batch(name, bases, mask, n);
            g1_affine_t *rep = malloc(4099 * sizeof *rep);
            CHECK(rep != NULL);
            if (rep) {
                for (size_t i = 0; i < 4099; i++) {
                    rep[i] = bases[i % 3];
                    if (i % 7 == 3) fp_neg(&rep[i].y, &rep[i].y);
                }
                g1_affine_set_inf(&rep[100]);
                rep[200] = bases[5];
                rep[201] = bases[5];
                fp_neg(&rep[201].y, &rep[201].y);
                check_batch(name, rep, mask, 4099);
                for (size_t i = 0; i < 4099; i++) rep[i] = bases[7];
                check_batch(name, rep, mask, 4099);
                free(rep);
            }
            /* Above the default's switch-over: 2.5 M bases, about half of them selected. */
            for (size_t w = 0; w < (nbig + 63) / 64; w++) mask[w] = rng_next(&rng);
            check_batch(name, bases, mask, nbig);
        }
        gpu_tune t = gpu_tune_get();
        t.batch = GPU_TUNE_AUTO;
        gpu_tune_set(&t);
    }
    free(bases);
    free(mask);
}

/* GLV (gpu_msm_glv_upload, gpu_msm_g1_glv) against the CPU MSM: random scalars at sizes across the window choice,
 * the scalars where the split is at its edges (0, 1, lambda - 1, lambda, lambda + 1, (r - 1) / 2 and one above, r - 1),
 * an infinite base, a piece of the table from an offset, each bucket-sum path forced; then its argument errors. */
static cuzk_status glv_run(g1_jac_t *got, const g1_affine_t *bases, size_t phi_at, const fr_t *scalars, size_t n,
                           gpu_tune_path path, cuzk_error *err)
{
    gpu_tune saved = gpu_tune_get(), t = saved;
    t.msm = path;
    t.msm_forced = path != GPU_TUNE_AUTO;
    gpu_tune_set(&t);
    memset(got, 0x5a, sizeof *got);
    cuzk_status st = gpu_msm_g1_glv(ctx, got, bases, phi_at, scalars, n, err);
    gpu_tune_set(&saved);
    return st;
}

static void test_msm_glv(void)
{
    static const gpu_tune_path paths[] = {GPU_TUNE_AUTO, GPU_TUNE_XYZZ, GPU_TUNE_AFFINE, GPU_TUNE_AFFINE_WARP};
    static const char *const names[] = {"default", "xyzz", "affine", "affine-warp"};
    const size_t nmax = ((size_t)1 << 17) + 5;
    g1_affine_t *bases = malloc(nmax * sizeof *bases);
    fr_t *scalars = malloc(nmax * sizeof *scalars);
    gpu_buf *buf = NULL;
    cuzk_error err = {0};
    CHECK(bases && scalars);
    if (!bases || !scalars) goto out;
    make_bases(bases, nmax);
    g1_affine_set_inf(&bases[7]);
    CHECK_MSG(gpu_msm_glv_upload(ctx, &buf, bases, nmax, &err) == CUZK_OK, "glv upload: %s", err.msg);
    if (buf == NULL) goto out;
    CHECK(gpu_buf_size(buf) == 2 * nmax * sizeof *bases);
    const g1_affine_t *d = (const g1_affine_t *)gpu_buf_ptr(buf);
    /* Canonical little-endian 64-bit limbs of the split's edge scalars. */
    static const uint64_t edges[][4] = {
        {0, 0, 0, 0},
        {1, 0, 0, 0},
        {0x00000000fffffffeull, 0xac45a4010001a402ull, 0, 0},
        {0x00000000ffffffffull, 0xac45a4010001a402ull, 0, 0},
        {0x0000000100000000ull, 0xac45a4010001a402ull, 0, 0},
        {0x7fffffff80000000ull, 0xa9ded2017fff2dffull, 0x199cec0404d0ec02ull, 0x39f6d3a994cebea4ull},
        {0x7fffffff80000001ull, 0xa9ded2017fff2dffull, 0x199cec0404d0ec02ull, 0x39f6d3a994cebea4ull},
        {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull},
    };
    static const size_t sizes[] = {1, 2, 33, 1000, 4097, ((size_t)1 << 17) + 5};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
        if (n >= 1000)
            for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
                CHECK(fr_to_mont(&scalars[3 * e + 1], edges[e]) == 0);
        g1_jac_t want;
        msm_g1(pool, &want, bases, scalars, NULL, n);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            if (n > 5000 && p != 0 && p != 3) continue; /* the big size: the default and the production path */
            g1_jac_t got;
            cuzk_status st = glv_run(&got, d, nmax, scalars, n, paths[p], &err);
            CHECK_MSG(st == CUZK_OK, "glv n=%zu %s: %s", n, names[p], err.msg);
            if (st == CUZK_OK) CHECK_MSG(g1_jac_eq(&got, &want), "glv n=%zu %s: differs from the CPU", n, names[p]);
        }
    }
    /* A piece from base 640: its images are still nmax after it. */
    {
        size_t o = 640, n = 3000;
        for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
        g1_jac_t want, got;
        msm_g1(pool, &want, bases + o, scalars, NULL, n);
        cuzk_status st = glv_run(&got, d + o, nmax, scalars, n, GPU_TUNE_AUTO, &err);
        CHECK_MSG(st == CUZK_OK && g1_jac_eq(&got, &want), "glv piece from %zu: %s", o, st ? err.msg : "differs");
        /* n = 0: infinity. */
        CHECK(gpu_msm_g1_glv(ctx, &got, d, nmax, scalars, 0, &err) == CUZK_OK && g1_jac_is_inf(&got));
    }
    /* Errors: host bases, more scalars than images, NULLs, a bad upload. */
    {
        g1_jac_t got;
        CHECK(gpu_msm_g1_glv(ctx, &got, bases, nmax, scalars, 10, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_msm_g1_glv(ctx, &got, d, 10, scalars, 11, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_msm_g1_glv(ctx, &got, d, (size_t)1 << 31, scalars, 1, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_msm_g1_glv(ctx, NULL, d, nmax, scalars, 1, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(gpu_msm_g1_glv(ctx, &got, d, nmax, NULL, 1, &err) == CUZK_ERR_INVALID_ARG);
        gpu_buf *none = (gpu_buf *)1;
        CHECK(gpu_msm_glv_upload(ctx, &none, NULL, 5, &err) == CUZK_ERR_INVALID_ARG && none == NULL);
        none = (gpu_buf *)1;
        CHECK(gpu_msm_glv_upload(ctx, &none, bases, 0, &err) == CUZK_ERR_INVALID_ARG && none == NULL);
    }
out:
    gpu_buf_free(buf);
    free(bases);
    free(scalars);
}

static void test_errors(void)
{
    cuzk_error err = {0};
    g1_jac_t out;
    fr_t s;
    fr_set_one(&s);
    CHECK(gpu_msm_g1(ctx, &out, NULL, &s, 1, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_msm_g1_window(ctx, &out, &G1_GENERATOR, &s, 1, 30, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_msm_g1(ctx, &out, NULL, NULL, 0, &err) == CUZK_OK && g1_jac_is_inf(&out));
    CHECK(gpu_msm_g1_variant(ctx, &out, &G1_GENERATOR, &s, 1, 0, (gpu_msm_variant)7, &err) == CUZK_ERR_INVALID_ARG);
    gpu_ctx *none = NULL;
    CHECK(gpu_ctx_create(&none, gpu_device_count(), &err) == CUZK_ERR_INVALID_ARG && none == NULL);
}

int main(void)
{
    int ndev = gpu_device_count();
    if (ndev == 0) {
        printf("SKIP test_gpu_msm: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_msm");
    cuzk_error err = {0};
    gpu_device_info info;
    if (gpu_device_get_info(0, &info, &err) == CUZK_OK)
        printf("device 0: %s, %d SMs, cc %d.%d, %.1f GiB\n", info.name, info.sm_count, info.cc_major, info.cc_minor,
               (double)info.total_mem / (1u << 30));
    if (pool_create(&pool, 2, &err) != CUZK_OK || gpu_ctx_create(&ctx, 0, &err) != CUZK_OK) {
        fprintf(stderr, "set-up failed: %s\n", err.msg);
        return 1;
    }
    test_field();
    test_point_add();
    test_msm_random();
    test_msm_edges();
    test_msm_prepared();
    test_batch_add();
    test_msm_glv();
    test_errors();
    gpu_ctx_destroy(ctx);
    pool_destroy(pool);
    return test_finish("test_gpu_msm");
}
