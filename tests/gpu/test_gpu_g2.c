/* GPU G2 batch addition against the CPU's sums of the same selected bases, on fresh random points, with the
 * cases the addition formulas branch on: infinity among the bases, the same point twice (doubling), P then -P
 * (infinity mid-sum), empty and full masks, lengths that are not multiples of 64. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_g2.h"
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
