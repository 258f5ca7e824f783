/* G1 MSM and batch addition against naive sums (one scalar multiplication per point), on pools of 1 and 2
 * threads and on the caller (NULL pool). */
#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
#include "testutil.h"

static rng_t rng;
static pool_t *pools[3]; /* NULL, 1 thread, 2 threads */
static const char *pool_names[3] = {"NULL", "1 thread", "2 threads"};

/* Distinct-looking bases without one scalar multiplication each: a walk with random steps. */
static void make_bases(g1_affine_t *out, size_t n)
{
    g1_jac_t step[8], cur;
    for (int i = 0; i < 8; i++) g1_random(&step[i], &rng);
    g1_random(&cur, &rng);
    g1_jac_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    CHECK(tmp != NULL);
    if (tmp == NULL) return;
    for (size_t i = 0; i < n; i++) {
        g1_jac_add(&cur, &cur, &step[rng_next(&rng) % 8]);
        tmp[i] = cur;
    }
    g1_batch_to_affine(out, tmp, n);
    free(tmp);
}

/* The scalar kinds the MSM treats differently: 0, 1, r-1, small, full width. */
static void mixed_scalar(fr_t *s)
{
    switch (rng_next(&rng) % 8) {
    case 0:
    case 1: fr_set_zero(s); break;
    case 2:
    case 3: fr_set_one(s); break;
    case 4:
        fr_set_one(s);
        fr_neg(s, s);
        break;
    case 5: fr_from_u64(s, rng_next(&rng) % 1000); break;
    default: fr_random(s, &rng);
    }
}

static void naive(g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, const uint64_t *density, size_t n)
{
    g1_jac_set_inf(r);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (density && !((density[i / 64] >> (i % 64)) & 1)) continue;
        g1_jac_t p;
        g1_jac_from_affine(&p, &bases[k++]);
        g1_jac_mul_fr(&p, &p, &scalars[i]);
        g1_jac_add(r, r, &p);
    }
}

/* Runs the MSM on every pool (and with the window forced to c when c != 0) and compares with want. */
static void check_all_pools(const char *what, const g1_jac_t *want, const g1_affine_t *bases, const fr_t *scalars,
                            const uint64_t *density, size_t n, unsigned c)
{
    for (int p = 0; p < 3; p++) {
        g1_jac_t got;
        if (c)
            msm_g1_window(pools[p], &got, bases, scalars, density, n, c);
        else
            msm_g1(pools[p], &got, bases, scalars, density, n);
        CHECK_MSG(g1_jac_eq(&got, want), "%s: n=%zu c=%u pool %s", what, n, c, pool_names[p]);
        CHECK_MSG(g1_jac_is_on_curve(&got), "%s: n=%zu result off the curve", what, n);
    }
}

static void test_sizes(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 13, 31, 63, 64, 65, 100, 129, 257, 500, 1001, 2999};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        size_t n = sizes[t];
        g1_affine_t *bases = malloc((n + 1) * sizeof *bases);
        fr_t *scalars = malloc((n + 1) * sizeof *scalars);
        CHECK(bases && scalars);
        if (!bases || !scalars) return;
        make_bases(bases, n);
        /* Small sizes with full-width scalars only, larger ones with the mix of kinds. */
        for (size_t i = 0; i < n; i++) {
            if (n < 50)
                fr_random(&scalars[i], &rng);
            else
                mixed_scalar(&scalars[i]);
        }
        g1_jac_t want;
        naive(&want, bases, scalars, NULL, n);
        check_all_pools("sizes", &want, bases, scalars, NULL, n, 0);
        free(bases);
        free(scalars);
    }
}

static void test_special_scalars(void)
{
    enum { N = 150 };
    g1_affine_t bases[N];
    fr_t scalars[N];
    g1_jac_t want, got;
    make_bases(bases, N);

    for (size_t i = 0; i < N; i++) fr_set_zero(&scalars[i]);
    g1_jac_set_inf(&want);
    check_all_pools("all zero", &want, bases, scalars, NULL, N, 0);

    for (size_t i = 0; i < N; i++) fr_set_one(&scalars[i]);
    g1_jac_set_inf(&want);
    for (size_t i = 0; i < N; i++) g1_jac_add_affine(&want, &want, &bases[i]);
    check_all_pools("all one", &want, bases, scalars, NULL, N, 0);

    /* r-1 is -1: the negated sum. Its top window digits are the largest the scalar field allows. */
    for (size_t i = 0; i < N; i++) fr_neg(&scalars[i], &scalars[i]);
    g1_jac_neg(&want, &want);
    check_all_pools("all r-1", &want, bases, scalars, NULL, N, 0);

    /* One non-trivial scalar among many ones: the bucket part and the ones part must both count. */
    fr_from_u64(&scalars[N / 2], 5);
    for (size_t i = 0; i < N; i++)
        if (i != N / 2) fr_set_one(&scalars[i]);
    naive(&want, bases, scalars, NULL, N);
    check_all_pools("ones and one five", &want, bases, scalars, NULL, N, 0);

    /* A single point: k*P == jac_mul_fr for every window size. */
    fr_random(&scalars[0], &rng);
    naive(&want, bases, scalars, NULL, 1);
    for (unsigned c = 1; c <= 16; c++) {
        msm_g1_window(pools[2], &got, bases, scalars, NULL, 1, c);
        CHECK_MSG(g1_jac_eq(&got, &want), "single point c=%u", c);
    }
}

/* Equal bases land in the same bucket (a doubling), P and -P with equal digits cancel to infinity, and
 * infinity among the bases is allowed. */
static void test_special_bases(void)
{
    enum { N = 300 };
    g1_affine_t bases[N];
    fr_t scalars[N];
    g1_jac_t want;
    make_bases(bases, N);
    for (size_t i = 0; i < N; i++) mixed_scalar(&scalars[i]);

    g1_affine_t same[N];
    for (size_t i = 0; i < N; i++) same[i] = bases[0];
    naive(&want, same, scalars, NULL, N);
    /* Windows of 11 bits and up take the affine path, whose bucket reduction then meets equal and opposite sums. */
    static const unsigned cs[] = {0, 11, 13};
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        check_all_pools("one base repeated", &want, same, scalars, NULL, N, cs[k]);

    fr_t equal[N];
    for (size_t i = 0; i < N; i++) equal[i] = scalars[i % 3];
    naive(&want, same, equal, NULL, N);
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        check_all_pools("one base, three scalars", &want, same, equal, NULL, N, cs[k]);

    /* bases[2i+1] = -bases[2i] with equal scalars: everything cancels. */
    g1_affine_t pm[N];
    for (size_t i = 0; i < N; i += 2) {
        pm[i] = bases[i];
        g1_affine_neg(&pm[i + 1], &bases[i]);
        equal[i + 1] = equal[i];
    }
    g1_jac_set_inf(&want);
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) check_all_pools("P and -P", &want, pm, equal, NULL, N, cs[k]);

    g1_affine_t withinf[N];
    for (size_t i = 0; i < N; i++) {
        withinf[i] = bases[i];
        if (i % 3 == 1) g1_affine_set_inf(&withinf[i]);
    }
    naive(&want, withinf, scalars, NULL, N);
    check_all_pools("infinity among bases", &want, withinf, scalars, NULL, N, 0);
}

static void test_density(void)
{
    enum { N = 1000, WORDS = (N + 63) / 64 };
    g1_affine_t bases[N];
    fr_t scalars[N];
    uint64_t density[WORDS];
    g1_jac_t want;
    make_bases(bases, N);
    for (size_t i = 0; i < N; i++) mixed_scalar(&scalars[i]);

    /* Random mask; the bits past n are set to show they are ignored. */
    for (size_t j = 0; j < WORDS; j++) density[j] = rng_next(&rng);
    density[WORDS - 1] |= ~0ULL << (N % 64);
    size_t m = 0;
    for (size_t i = 0; i < N; i++) m += (density[i / 64] >> (i % 64)) & 1;
    CHECK(density_popcount(density, N) == m);
    naive(&want, bases, scalars, density, N);
    check_all_pools("random density", &want, bases, scalars, density, N, 0);

    memset(density, 0, sizeof density);
    CHECK(density_popcount(density, N) == 0);
    g1_jac_set_inf(&want);
    check_all_pools("empty density", &want, bases, scalars, density, N, 0);

    memset(density, 0xff, sizeof density);
    CHECK(density_popcount(density, N) == N);
    naive(&want, bases, scalars, NULL, N);
    check_all_pools("full density", &want, bases, scalars, density, N, 0);
}

/* Every window size, including those only large MSMs choose, on few points. */
static void test_windows(void)
{
    enum { N = 120 };
    g1_affine_t bases[N];
    fr_t scalars[N];
    uint64_t density[2] = {rng_next(&rng), rng_next(&rng)};
    g1_jac_t want, want_d;
    make_bases(bases, N);
    for (size_t i = 0; i < N; i++) fr_random(&scalars[i], &rng);
    naive(&want, bases, scalars, NULL, N);
    naive(&want_d, bases, scalars, density, N);
    for (unsigned c = 1; c <= 16; c++) {
        g1_jac_t got;
        msm_g1_window(pools[c % 3], &got, bases, scalars, NULL, N, c);
        CHECK_MSG(g1_jac_eq(&got, &want), "window c=%u", c);
        msm_g1_window(pools[(c + 1) % 3], &got, bases, scalars, density, N, c);
        CHECK_MSG(g1_jac_eq(&got, &want_d), "window c=%u with density", c);
    }
    for (unsigned t = 1; t <= 64; t *= 2) {
        unsigned c_small = msm_window_bits(100, t), c_big = msm_window_bits((size_t)1 << 20, t);
        CHECK_MSG(c_small >= 1 && c_small <= c_big && c_big <= 16, "window bits %u, %u at %u threads", c_small, c_big,
                  t);
    }
}

/* Windows of 11 bits and more keep affine buckets and add in batches that share one inversion; a point whose bucket
 * already waits in the batch is retried in the next batch, or goes to an XYZZ overflow bucket when the retry queue
 * is full (256 entries at c = 11). Equal scalars put equal digits into one bucket in every window: with one base
 * that is a doubling, then collisions, queue and overflow; with P and -P the bucket goes through infinity. */
static void test_affine_corners(void)
{
    enum { N = 700 };
    static const unsigned windows[] = {11, 13};
    g1_affine_t *bases = malloc(N * sizeof *bases), *pts = malloc(N * sizeof *pts);
    fr_t *scalars = malloc(N * sizeof *scalars);
    CHECK(bases && pts && scalars);
    if (!bases || !pts || !scalars) goto done;
    make_bases(bases, N);
    fr_t s[3];
    for (int j = 0; j < 3; j++) fr_random(&s[j], &rng);

    for (int kind = 0; kind < 6; kind++) {
        const char *what = "";
        for (size_t i = 0; i < N; i++) {
            switch (kind) {
            case 0: /* one base, one scalar: every point into the same bucket of each window */
                what = "one base, one scalar";
                pts[i] = bases[0];
                scalars[i] = s[0];
                break;
            case 1: /* one base, three scalars */
                what = "one base, three scalars";
                pts[i] = bases[0];
                scalars[i] = s[rng_next(&rng) % 3];
                break;
            case 2: /* P, -P, P, -P, ...: each bucket alternates between P and infinity */
                what = "P and -P alternating";
                if (i % 2)
                    g1_affine_neg(&pts[i], &bases[0]);
                else
                    pts[i] = bases[0];
                scalars[i] = s[0];
                break;
            case 3: /* P, P, -P, -P, -P, P, ... at random, with infinity among them */
                what = "P and -P at random, with infinity";
                if (rng_next(&rng) % 2)
                    g1_affine_neg(&pts[i], &bases[i % 4]);
                else
                    pts[i] = bases[i % 4];
                if (i % 37 == 5) g1_affine_set_inf(&pts[i]);
                scalars[i] = s[i % 4 == 3 ? 1 : 0];
                break;
            case 4: /* distinct bases, small scalars: all in window 0, crowding a few buckets */
                what = "small scalars";
                pts[i] = bases[i];
                fr_from_u64(&scalars[i], 2 + rng_next(&rng) % 6);
                break;
            default: /* pairs (Q, -Q) of distinct bases with equal scalars among random ones: the total is the rest */
                what = "pairs cancelling among random points";
                if (i % 4 == 1)
                    g1_affine_neg(&pts[i], &pts[i - 1]);
                else
                    pts[i] = bases[i];
                if (i % 4 == 1)
                    scalars[i] = scalars[i - 1];
                else
                    fr_random(&scalars[i], &rng);
                break;
            }
        }
        g1_jac_t want, got;
        naive(&want, pts, scalars, NULL, N);
        for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
            for (int p = 0; p < 3; p++) {
                msm_g1_window(pools[p], &got, pts, scalars, NULL, N, windows[wi]);
                CHECK_MSG(g1_jac_eq(&got, &want), "%s: c=%u pool %s", what, windows[wi], pool_names[p]);
            }
        }
    }
done:
    free(bases);
    free(pts);
    free(scalars);
}

static void test_batch_add(void)
{
    enum { N = 777, WORDS = (N + 63) / 64 };
    g1_affine_t bases[N];
    uint64_t mask[WORDS];
    g1_jac_t want, got;
    make_bases(bases, N);
    g1_affine_set_inf(&bases[5]);
    for (int kind = 0; kind < 3; kind++) {
        for (size_t j = 0; j < WORDS; j++) mask[j] = kind == 0 ? rng_next(&rng) : kind == 1 ? 0 : ~0ULL;
        g1_jac_set_inf(&want);
        for (size_t i = 0; i < N; i++)
            if ((mask[i / 64] >> (i % 64)) & 1) g1_jac_add_affine(&want, &want, &bases[i]);
        for (int p = 0; p < 3; p++) {
            batch_add_g1(pools[p], &got, bases, mask, N);
            CHECK_MSG(g1_jac_eq(&got, &want), "batch add mask kind %d pool %s", kind, pool_names[p]);
        }
    }
    batch_add_g1(pools[2], &got, bases, mask, 0);
    CHECK(g1_jac_is_inf(&got));
}

/* Scalars are converted in chunks of 2^22: a sparse density over several chunks, with set bits on both sides of
 * each chunk boundary, exercises the chunk walk without gigabytes of points. The scalar array is mostly
 * untouched zero pages. */
static void test_chunks(void)
{
    const size_t chunk = (size_t)1 << 22, n = 3 * chunk + 77, words = (n + 63) / 64;
    fr_t *scalars = calloc(n, sizeof *scalars);
    uint64_t *density = calloc(words, sizeof *density);
    g1_affine_t *bases = malloc(600 * sizeof *bases);
    CHECK(scalars && density && bases);
    if (!scalars || !density || !bases) goto done;
    size_t m = 0;
    for (size_t t = 0; m < 600 && t < 2000; t++) {
        size_t i = t < 16 ? (t / 4 + 1) * chunk - 2 + t % 4 : rng_next(&rng) % n;
        if (i >= n || ((density[i / 64] >> (i % 64)) & 1)) continue;
        density[i / 64] |= 1ULL << (i % 64);
        mixed_scalar(&scalars[i]);
        m++;
    }
    CHECK(density_popcount(density, n) == m);
    make_bases(bases, m);
    g1_jac_t want;
    naive(&want, bases, scalars, density, n);
    check_all_pools("chunks", &want, bases, scalars, density, n, 0);
done:
    free(scalars);
    free(density);
    free(bases);
}

/* Many threads split each window into slices of the points (the plan picks 3 slices of 19 windows at c = 14 on
 * 64 threads), which 1 or 2 threads never do. */
static void test_slices(void)
{
    enum { N = 1000 };
    pool_t *big;
    cuzk_error err;
    if (pool_create(&big, 64, &err) != CUZK_OK) {
        CHECK_MSG(0, "pool_create(64): %s", err.msg);
        return;
    }
    g1_affine_t bases[N];
    fr_t scalars[N];
    uint64_t density[(N + 63) / 64];
    g1_jac_t want, got;
    make_bases(bases, N);
    for (size_t i = 0; i < N; i++) mixed_scalar(&scalars[i]);
    for (size_t j = 0; j < (N + 63) / 64; j++) density[j] = rng_next(&rng) | rng_next(&rng);
    naive(&want, bases, scalars, density, N);
    msm_g1_window(big, &got, bases, scalars, density, N, 14);
    CHECK_MSG(g1_jac_eq(&got, &want), "64 threads, c=14");
    msm_g1(big, &got, bases, scalars, density, N);
    CHECK_MSG(g1_jac_eq(&got, &want), "64 threads");
    pool_destroy(big);
}

int main(void)
{
    test_seed(&rng, "test_msm_g1");
    cuzk_error err;
    pools[0] = NULL;
    if (pool_create(&pools[1], 1, &err) != CUZK_OK || pool_create(&pools[2], 2, &err) != CUZK_OK) {
        fprintf(stderr, "pool_create: %s\n", err.msg);
        return 1;
    }
    test_sizes();
    test_special_scalars();
    test_special_bases();
    test_density();
    test_windows();
    test_affine_corners();
    test_batch_add();
    test_chunks();
    test_slices();
    pool_destroy(pools[1]);
    pool_destroy(pools[2]);
    return test_finish("test_msm_g1");
}
