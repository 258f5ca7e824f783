/* GPU G2 batch addition and MSM against the CPU (sums of the same selected bases; msm_g2), on fresh random
 * points and scalars, with the cases the formulas and the bucket sums branch on: infinity among the bases, the
 * same point twice (doubling), P then -P (infinity mid-sum), empty and full masks, lengths that are not
 * multiples of 64, scalars 0, 1 and r - 1, one scalar repeated (every entry in one bucket), repeated indices.
 * Every check runs three times: CUZK_GPU_G2=affine, =xyzz (each path forced, and the path taken checked), and
 * unset (the default by size). The batch-affine rounds get lists built so that every round meets the special
 * kinds: blocks [P, -P, Q, Q, inf, R, S, T] repeated with signs (+, -, +, +) give P + (-P), Q + Q and infinity in
 * round 1, X + (-X) and X + X (a block's sum X) in round 4, and doublings in every later round.
 * Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_g2.h"
#include "gpu/tune.h"
#include "msm/msm.h"
#include "testutil.h"

static rng_t rng;
static gpu_ctx *ctx;
static const char *mode; /* "affine", "xyzz" or "default" */

static void set_mode(const char *m)
{
    mode = m;
    gpu_tune t = gpu_tune_get();
    t.g2 = strcmp(m, "xyzz") == 0 ? GPU_TUNE_XYZZ : strcmp(m, "affine") == 0 ? GPU_TUNE_AFFINE : GPU_TUNE_AUTO;
    gpu_tune_set(&t);
}

/* The path the last call took must be the forced one. */
static void check_path(const char *what, size_t n)
{
    if (strcmp(mode, "default") == 0) return;
    int want = strcmp(mode, "affine") == 0;
    CHECK_MSG(gpu_g2_last_was_affine() == want, "%s n=%zu: CUZK_GPU_G2=%s but the call took the %s path", what, n, mode,
              gpu_g2_last_was_affine() ? "affine" : "xyzz");
}

static void cpu_sum(g2_jac_t *r, const g2_affine_t *bases, const uint64_t *mask, size_t n)
{
    g2_jac_set_inf(r);
    for (size_t i = 0; i < n; i++)
        if ((mask[i / 64] >> (i % 64)) & 1) g2_jac_add_affine(r, r, &bases[i]);
}

static void check(const char *what, const g2_affine_t *bases, const uint64_t *mask, size_t n)
{
    g2_jac_t want, got;
    cuzk_error err = {0};
    cpu_sum(&want, bases, mask, n);
    memset(&got, 0x5a, sizeof got); /* a result that was never written cannot pass */
    cuzk_status st = gpu_batch_add_g2(ctx, &got, bases, mask, n, &err);
    CHECK_MSG(st == CUZK_OK, "[%s] %s n=%zu: %s", mode, what, n, err.msg);
    if (st != CUZK_OK) return;
    CHECK_MSG(g2_jac_eq(&got, &want), "[%s] %s: n=%zu: GPU G2 sum differs from the CPU", mode, what, n);
    check_path(what, n);
}

static void random_points(g2_affine_t *out, size_t n)
{
    g2_jac_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    CHECK(tmp != NULL);
    if (!tmp) return;
    g2_jac_t step, cur;
    g2_random(&step, &rng);
    g2_random(&cur, &rng);
    for (size_t i = 0; i < n; i++) {
        if (i % 97 == 0) g2_random(&step, &rng);
        g2_jac_add(&cur, &cur, &step);
        tmp[i] = cur;
    }
    g2_batch_to_affine(out, tmp, n);
    free(tmp);
}

/* out[i], i < n: blocks of 8 from pool (at least 64 points): [P, -P, Q, Q, inf, R, S, T], the whole block negated
 * when block % 4 == 1; every 16th block is 8 other points of the pool instead (so that later rounds also add
 * distinct points). */
static void pattern_points(g2_affine_t *out, size_t n, const g2_affine_t *pool)
{
    for (size_t i = 0; i < n; i++) {
        size_t blk = i / 8, pos = i % 8;
        g2_affine_t p;
        if (blk % 16 == 15) {
            p = pool[8 + (blk / 16 * 8 + pos) % 56];
        } else {
            switch (pos) {
            case 0: p = pool[0]; break;
            case 1: g2_affine_neg(&p, &pool[0]); break;
            case 2:
            case 3: p = pool[1]; break;
            case 4: g2_affine_set_inf(&p); break;
            default: p = pool[pos - 3]; break;
            }
            if (blk % 4 == 1) g2_affine_neg(&p, &p);
        }
        out[i] = p;
    }
}

static void check_msm(const char *what, const g2_affine_t *bases, size_t nbases, const uint32_t *idx,
                      const fr_t *scalars, size_t n)
{
    g2_jac_t want, got;
    cuzk_error err = {0};
    g2_affine_t *gathered = malloc((n ? n : 1) * sizeof *gathered);
    CHECK(gathered != NULL);
    if (!gathered) return;
    for (size_t k = 0; k < n; k++) gathered[k] = bases[idx ? idx[k] : k];
    msm_g2(NULL, &want, gathered, scalars, NULL, n);
    free(gathered);
    memset(&got, 0x5a, sizeof got);
    cuzk_status st = gpu_msm_g2_indexed(ctx, &got, bases, nbases, idx, scalars, n, &err);
    CHECK_MSG(st == CUZK_OK, "[%s] %s n=%zu: %s", mode, what, n, err.msg);
    if (st != CUZK_OK) return;
    CHECK_MSG(g2_jac_eq(&got, &want), "[%s] %s: n=%zu: GPU G2 MSM differs from the CPU", mode, what, n);
    if (n > 0) check_path(what, n);
}

static void test_msm(const g2_affine_t *b, size_t nb)
{
    enum { N = 6000, NP = 4099 };
    fr_t *s = malloc(N * sizeof *s);
    uint32_t *idx = malloc(N * sizeof *idx);
    g2_affine_t *pat = malloc(NP * sizeof *pat);
    CHECK(s && idx && pat);
    if (!s || !idx || !pat) goto out;
    for (size_t i = 0; i < N; i++) fr_random(&s[i], &rng);
    check_msm("random", b, nb, NULL, s, N);
    check_msm("one point", b, nb, NULL, s, 1);
    check_msm("odd length", b, nb, NULL, s, 1001);
    g2_affine_t e[64];
    memcpy(e, b, sizeof e);
    g2_affine_set_inf(&e[5]);
    e[7] = e[6];
    g2_affine_neg(&e[8], &e[6]);
    check_msm("infinity, doubles and negatives among the bases", e, 64, NULL, s, 64);
    for (size_t i = 0; i < N; i++) idx[i] = (uint32_t)(rng_next(&rng) % 50); /* many repeats */
    check_msm("indexed, repeated bases", b, nb, idx, s, N);

    /* A heavy bucket among light ones: a quarter of the scalars are one value (one bucket per window with ~1500
     * entries), on bases from the pattern (doublings and cancellations inside it); the rest random. */
    pattern_points(pat, NP, b);
    for (size_t i = 0; i < N; i++) {
        if (i % 4 == 1) {
            s[i] = s[0];
            idx[i] = (uint32_t)(i / 4 % NP);
        } else {
            fr_random(&s[i], &rng);
            idx[i] = (uint32_t)(rng_next(&rng) % NP);
        }
    }
    check_msm("heavy bucket among light ones", pat, NP, idx, s, N);

    /* One bucket per window holding every entry, of the pattern's points in order: the rounds meet P + (-P), Q + Q
     * and infinity first, then sums of whole blocks cancelling and doubling. */
    fr_random(&s[0], &rng);
    for (size_t i = 0; i < NP; i++) s[i] = s[0];
    check_msm("one bucket, pattern of doublings and cancellations", pat, NP, NULL, s, NP);
    check_msm("one bucket, pattern shifted by one", pat + 1, NP - 1, NULL, s, NP - 1);
    /* The same base with s and -s alternating: every pair in every bucket cancels, and an odd last entry stays. */
    fr_neg(&s[1], &s[0]);
    for (size_t i = 0; i < 2001; i++) {
        s[i] = s[i % 2];
        idx[i] = 7;
    }
    check_msm("s and -s alternating on one base", b, nb, idx, s, 2001);
    check_msm("s and -s alternating on one base, even", b, nb, idx, s, 2000);

    fr_t one, minus_one;
    fr_set_one(&one);
    fr_neg(&minus_one, &one);
    for (size_t i = 0; i < N; i++) fr_random(&s[i], &rng);
    for (size_t i = 0; i < N; i++) s[i] = i % 3 == 0 ? one : i % 3 == 1 ? minus_one : s[i];
    memset(&s[10], 0, 20 * sizeof *s);
    check_msm("0, 1, r - 1 mixed in", b, nb, NULL, s, N);
    for (size_t i = 0; i < N; i++) s[i] = s[2];
    check_msm("one scalar everywhere", b, nb, NULL, s, N);
    memset(s, 0, N * sizeof *s);
    check_msm("all zero", b, nb, NULL, s, N);
    g2_jac_t out;
    cuzk_error err = {0};
    idx[0] = (uint32_t)nb;
    CHECK(gpu_msm_g2_indexed(ctx, &out, b, nb, idx, s, 3, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_msm_g2_indexed(ctx, &out, b, 2, NULL, s, 3, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_msm_g2_indexed(ctx, &out, NULL, 0, NULL, NULL, 0, &err) == CUZK_OK && g2_jac_is_inf(&out));
out:
    free(s);
    free(idx);
    free(pat);
}

static void test_batch(const g2_affine_t *b0, size_t N)
{
    size_t words = (N + 63) / 64;
    g2_affine_t *b = malloc(N * sizeof *b);
    uint64_t *mask = calloc(words, sizeof *mask);
    CHECK(b && mask);
    if (!b || !mask) goto out;
    memcpy(b, b0, N * sizeof *b);

    for (size_t i = 0; i < N; i++)
        if (rng_next(&rng) & 1) mask[i / 64] |= 1ull << (i % 64);
    check("random half", b, mask, N);
    check("odd length", b, mask, 12345);
    mask[0] |= 1;
    check("one base", b, mask, 1);
    mask[0] &= ~1ull;
    check("one base, not selected", b, mask, 1);

    memset(mask, 0, words * sizeof *mask);
    for (size_t i = 0; i < N; i += 1 + rng_next(&rng) % 200) mask[i / 64] |= 1ull << (i % 64);
    check("sparse", b, mask, N);

    memset(mask, 0xff, words * sizeof *mask);
    check("full mask", b, mask, 777);
    /* The affine path cuts the selected bases into buckets of 1024. */
    check("full mask, 1024", b, mask, 1024);
    check("full mask, 1025", b, mask, 1025);
    check("full mask, 2051", b, mask, 2051);
    check("full mask, all", b, mask, N);
    memset(mask, 0, words * sizeof *mask);
    check("empty mask", b, mask, N);

    /* The pattern through the rounds, aligned and shifted by one (bit 0 clear). */
    pattern_points(b, 5003, b0);
    memset(mask, 0xff, words * sizeof *mask);
    check("pattern, full", b, mask, 5003);
    mask[0] &= ~1ull;
    check("pattern, shifted by one", b, mask, 5003);
    for (size_t i = 0; i < 5003; i++)
        if (rng_next(&rng) % 8 == 0) mask[i / 64] &= ~(1ull << (i % 64));
    check("pattern, 7/8 selected", b, mask, 5003);
    memcpy(b, b0, N * sizeof *b);

    /* Doubling, cancellation and infinity inside one thread's chunk. */
    memset(mask, 0xff, words * sizeof *mask);
    b[1] = b[0];
    g2_affine_neg(&b[3], &b[2]);
    g2_affine_set_inf(&b[5]);
    b[7] = b[6];
    g2_affine_neg(&b[8], &b[6]);
    check("edges", b, mask, 300);
    /* A chunk whose whole sum is infinity: P, -P. */
    g2_affine_neg(&b[1], &b[0]);
    check("cancelling pair", b, mask, 2);
    for (size_t i = 0; i < 200; i++) b[i] = b[0];
    check("one point 200 times", b, mask, 200);
    for (size_t i = 0; i < 3000; i++) b[i] = b0[0];
    check("one point 3000 times", b, mask, 3000);
    g2_affine_set_inf(&b[0]);
    for (size_t i = 0; i < 100; i++) b[i] = b[0];
    check("infinity only", b, mask, 100);

    g2_jac_t out;
    cuzk_error err = {0};
    CHECK(gpu_batch_add_g2(ctx, &out, NULL, NULL, 0, &err) == CUZK_OK && g2_jac_is_inf(&out));
    CHECK(gpu_batch_add_g2(ctx, &out, NULL, mask, 5, &err) == CUZK_ERR_INVALID_ARG);
out:
    free(b);
    free(mask);
}

/* Above the default's threshold for the affine masked sum (2^16 bases): the bases tiled from b. */
static void test_batch_large(const g2_affine_t *b0, size_t nb)
{
    enum { NL = 70001 };
    g2_affine_t *b = malloc(NL * sizeof *b);
    uint64_t *mask = calloc((NL + 63) / 64, sizeof *mask);
    CHECK(b && mask);
    if (b && mask) {
        for (size_t i = 0; i < NL; i++) b[i] = b0[(i * 7) % nb];
        for (size_t i = 0; i < NL; i++)
            if (rng_next(&rng) % 3 != 0) mask[i / 64] |= 1ull << (i % 64);
        check("70001 bases, 2/3 selected", b, mask, NL);
    }
    free(b);
    free(mask);
}

int main(void)
{
    if (gpu_device_count() == 0) {
        printf("SKIP test_gpu_g2: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_g2");
    cuzk_error err = {0};
    if (gpu_ctx_create(&ctx, 0, &err) != CUZK_OK) {
        fprintf(stderr, "set-up failed: %s\n", err.msg);
        return 1;
    }
    /* The pieces of B_G2's MSM over resident bases (prove.cu): all of it when its peak fits, else the largest
     * halving that does, a multiple of 64 and never below the floor. */
    {
        const size_t n = 91925767; /* a 32 GiB WindowPoSt partition's B_G2 */
        size_t peak = gpu_msm_g2_peak_bytes(n);
        CHECK_MSG(peak > n * 256 && peak < n * 512, "G2 MSM peak of %zu scalars: %zu bytes", n, peak);
        CHECK(gpu_msm_g2_piece(n, peak) == n);
        size_t free_b = (size_t)18 << 30, p = gpu_msm_g2_piece(n, free_b);
        CHECK_MSG(p < n && p % 64 == 0 && gpu_msm_g2_peak_bytes(p) <= free_b && gpu_msm_g2_peak_bytes(2 * p) > free_b,
                  "piece of %zu under 18 GiB: %zu", n, p);
        CHECK(gpu_msm_g2_piece(n, 0) == GPU_MSM_G2_PIECE_MIN && gpu_msm_g2_piece(100, 0) == 100);
        printf("  B_G2 MSM of %zu scalars: peak %.2f GiB, pieces of %zu under 18 GiB\n", n, (double)peak / (1 << 30),
               p);
    }

    enum { N = 20000 };
    g2_affine_t *b = malloc(N * sizeof *b);
    CHECK(b != NULL);
    if (!b) return test_finish("test_gpu_g2");
    random_points(b, N);

    static const char *const modes[] = {"affine", "xyzz", "default"};
    for (int m = 0; m < 3; m++) {
        set_mode(modes[m]);
        printf("CUZK_GPU_G2=%s\n", modes[m]);
        test_msm(b, N);
        test_batch(b, N);
        test_batch_large(b, N);
    }
    set_mode("default");

    free(b);
    gpu_ctx_destroy(ctx);
    return test_finish("test_gpu_g2");
}
