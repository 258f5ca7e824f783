/* GPU G2 batch addition and MSM against the CPU (sums of the same selected bases; msm_g2), on fresh random
 * points and scalars, with the cases the formulas and the bucket sums branch on: infinity among the bases, the
 * same point twice (doubling), P then -P (infinity mid-sum), empty and full masks, lengths that are not
 * multiples of 64, scalars 0, 1 and r - 1, one scalar repeated (every entry in one bucket), repeated indices.
 * Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_g2.h"
#include "msm/msm.h"
#include "testutil.h"

static rng_t rng;
static gpu_ctx *ctx;

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
    CHECK_MSG(st == CUZK_OK, "%s n=%zu: %s", what, n, err.msg);
    if (st == CUZK_OK) CHECK_MSG(g2_jac_eq(&got, &want), "%s: n=%zu: GPU G2 sum differs from the CPU", what, n);
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
    CHECK_MSG(st == CUZK_OK, "%s n=%zu: %s", what, n, err.msg);
    if (st == CUZK_OK) CHECK_MSG(g2_jac_eq(&got, &want), "%s: n=%zu: GPU G2 MSM differs from the CPU", what, n);
}

static void test_msm(const g2_affine_t *b, size_t nb)
{
    enum { N = 6000 };
    fr_t *s = malloc(N * sizeof *s);
    uint32_t *idx = malloc(N * sizeof *idx);
    CHECK(s && idx);
    if (!s || !idx) goto out;
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
    fr_t one, minus_one;
    fr_set_one(&one);
    fr_neg(&minus_one, &one);
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
    enum { N = 20000 };
    g2_affine_t *b = malloc(N * sizeof *b);
    uint64_t *mask = calloc((N + 63) / 64, sizeof *mask);
    CHECK(b && mask);
    if (!b || !mask) return test_finish("test_gpu_g2");
    random_points(b, N);
    test_msm(b, N);

    for (size_t i = 0; i < N; i++)
        if (rng_next(&rng) & 1) mask[i / 64] |= 1ull << (i % 64);
    check("random half", b, mask, N);
    check("odd length", b, mask, 12345);
    check("one base", b, mask, 1);

    memset(mask, 0xff, (N + 63) / 64 * sizeof *mask);
    check("full mask", b, mask, 777);
    memset(mask, 0, (N + 63) / 64 * sizeof *mask);
    check("empty mask", b, mask, N);

    /* Doubling, cancellation and infinity inside one thread's chunk. */
    memset(mask, 0xff, (N + 63) / 64 * sizeof *mask);
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

    g2_jac_t out;
    CHECK(gpu_batch_add_g2(ctx, &out, NULL, NULL, 0, &err) == CUZK_OK && g2_jac_is_inf(&out));
    CHECK(gpu_batch_add_g2(ctx, &out, NULL, mask, 5, &err) == CUZK_ERR_INVALID_ARG);

    free(b);
    free(mask);
    gpu_ctx_destroy(ctx);
    return test_finish("test_gpu_g2");
}
