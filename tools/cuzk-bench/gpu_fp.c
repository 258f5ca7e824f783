/* cuzk-bench gpu-fp: the device's Fp product rate by the 32-bit integer multiply-adds of the MSM and NTT
 * (gpu_fp_chain): N chains of K products each, median kernel time over R runs, products per second. Every run's
 * results are checked against the CPU on the first chains. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ff/fp.h"
#include "gpu/gpu.h"

#define FPB_CHECKED 1024 /* chains recomputed on the CPU after every run */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench gpu-fp [--n N] [--iters K] [--runs R] [--seed S]\n"
            "  times N independent chains of K Montgomery products in Fp (x <- x * y) on device 0, by the 32-bit\n"
            "  integer multiply-adds of the MSM and NTT, and prints the median kernel ms over R runs (after one\n"
            "  warm-up run) and the products per second\n"
            "  defaults: --n 1048576 --iters 256 --runs 5 --seed 1\n"
            "  the first %d chains of every run are recomputed on the CPU; exit status 1 when one differs\n",
            FPB_CHECKED);
}

/* Whether the first k chains of out equal the CPU's. */
static int check_chains(const fp_t *out, const fp_t *x, const fp_t *y, size_t k, unsigned iters)
{
    for (size_t i = 0; i < k; i++) {
        fp_t a = x[i];
        for (unsigned j = 0; j < iters; j++) fp_mul(&a, &a, &y[i]);
        if (!fp_eq(&a, &out[i])) return 0;
    }
    return 1;
}

int bench_gpu_fp(int argc, char **argv)
{
    uint64_t n = 1u << 20, iters = 256, runs = 5, seed = 1;
    for (int i = 1; i < argc; i++) {
        uint64_t *dst = NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--n") == 0)
            dst = &n;
        else if (strcmp(argv[i], "--iters") == 0)
            dst = &iters;
        else if (strcmp(argv[i], "--runs") == 0)
            dst = &runs;
        else if (strcmp(argv[i], "--seed") == 0)
            dst = &seed;
        if (dst == NULL || i + 1 >= argc || bench_parse_u64(argv[++i], dst) != 0) {
            fprintf(stderr, "gpu-fp: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (n == 0 || n >= ((uint64_t)1 << 28) || iters == 0 || iters > 100000 || runs == 0 || runs > 100) {
        fprintf(stderr, "gpu-fp: need 1 <= n < 2^28, 1..100000 iters, 1..100 runs\n");
        return 2;
    }
    gpu_device_info info;
    gpu_ctx *ctx;
    int open = bench_gpu_open("gpu-fp", &info, &ctx);
    if (open <= 0) return open < 0;
    cuzk_error err = {0};
    printf("gpu-fp: %s, %d SMs; seed %llu; %llu chains of %llu products\n", info.name, info.sm_count,
           (unsigned long long)seed, (unsigned long long)n, (unsigned long long)iters);
    fp_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *out);
    double *ms = malloc(runs * sizeof *ms);
    int rc = 0;
    if (!x || !y || !out || !ms) {
        fprintf(stderr, "gpu-fp: out of host memory for %llu chains\n", (unsigned long long)n);
        rc = 1;
        goto out;
    }
    rng_t rng;
    rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        fp_random(&x[i], &rng);
        fp_random(&y[i], &rng);
    }
    size_t checked = n < FPB_CHECKED ? (size_t)n : FPB_CHECKED;
    int ok = 1;
    for (uint64_t r = 0; r <= runs; r++) { /* run 0 warms up */
        double t = 0;
        if (gpu_fp_chain(ctx, out, x, y, (size_t)n, (unsigned)iters, &t, &err) != CUZK_OK) {
            fprintf(stderr, "gpu-fp: %s\n", err.msg);
            rc = 1;
            goto out;
        }
        if (r > 0) ms[r - 1] = t;
        if (!check_chains(out, x, y, checked, (unsigned)iters)) ok = 0;
    }
    double med = bench_median(ms, runs);
    printf("%-8s %12s %16s %8s\n", "arith", "median ms", "products/s", "checked");
    printf("%-8s %12.3f %16.4g %8s\n", "int32", med, (double)n * (double)iters / (med * 1e-3), ok ? "ok" : "WRONG");
    if (!ok) rc = 1;
out:
    free(x);
    free(y);
    free(out);
    free(ms);
    gpu_ctx_destroy(ctx);
    return rc;
}
