/* gpu_fp_chain: the device's Fp product by 32-bit integer multiply-adds against the CPU's fp_mul: random chains of
 * several lengths, edge values (0, 1, p - 1, Montgomery one), sizes that leave a block part-full, bad arguments.
 * Without a GPU it checks that the call refuses cleanly and skips (77). */
#include <stdlib.h>
#include <string.h>

#include "ff/fp.h"
#include "gpu/gpu.h"
#include "testutil.h"

static rng_t rng;

static void test_chains(gpu_ctx *ctx, size_t n, unsigned iters)
{
    fp_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *out);
    CHECK(x && y && out);
    if (!x || !y || !out) goto out;
    for (size_t i = 0; i < n; i++) {
        fp_random(&x[i], &rng);
        fp_random(&y[i], &rng);
    }
    /* edges among the first elements: 0, raw 1, raw p - 1, Montgomery one, each times a random y and squared */
    if (n >= 8) {
        fp_t e[TEST_FP_EDGES];
        test_fp_edges(e);
        for (int k = 0; k < 4; k++) {
            x[k] = e[k];
            x[4 + k] = e[k];
            y[4 + k] = e[k];
        }
    }
    cuzk_error err = {0};
    double ms = -1;
    cuzk_status st = gpu_fp_chain(ctx, out, x, y, n, iters, &ms, &err);
    CHECK_MSG(st == CUZK_OK, "gpu_fp_chain(n %zu, iters %u): %s", n, iters, err.msg);
    CHECK(ms >= 0);
    if (st != CUZK_OK) goto out;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        fp_t a = x[i];
        for (unsigned j = 0; j < iters; j++) fp_mul(&a, &a, &y[i]);
        if (!fp_eq(&a, &out[i])) bad++;
    }
    CHECK_MSG(bad == 0, "n %zu, iters %u: %zu of %zu chains differ from the CPU", n, iters, bad, n);
out:
    free(x);
    free(y);
    free(out);
}

static void test_args(gpu_ctx *ctx)
{
    cuzk_error err = {0};
    fp_t one;
    fp_set_one(&one);
    CHECK(gpu_fp_chain(NULL, &one, &one, &one, 1, 1, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_fp_chain(ctx, NULL, &one, &one, 1, 1, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_fp_chain(ctx, &one, &one, &one, (size_t)1 << 31, 1, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_fp_chain(ctx, NULL, NULL, NULL, 0, 1, NULL, &err) == CUZK_OK);
}

int main(void)
{
    if (gpu_device_count() == 0) {
        cuzk_error err = {0};
        fp_t one;
        fp_set_one(&one);
        CHECK(gpu_fp_chain(NULL, &one, &one, &one, 1, 1, NULL, &err) != CUZK_OK);
        if (test_failures) return test_finish("test_gpu_fp");
        printf("SKIP test_gpu_fp: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_fp");
    cuzk_error err = {0};
    gpu_ctx *ctx = NULL;
    if (gpu_ctx_create(&ctx, 0, &err) != CUZK_OK) {
        fprintf(stderr, "set-up failed: %s\n", err.msg);
        return 1;
    }
    test_args(ctx);
    static const unsigned iters[] = {1, 2, 17, 100};
    static const size_t sizes[] = {1, 8, 301, 20000}; /* 301: the last block part-full */
    for (int i = 0; i < 4; i++)
        for (int s = 0; s < 4; s++) test_chains(ctx, sizes[s], iters[i]);
    gpu_ctx_destroy(ctx);
    return test_finish("test_gpu_fp");
}
