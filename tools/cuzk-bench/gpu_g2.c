/* cuzk-bench gpu-g2: B_G2 on the GPU as the prover runs it: a batch addition of the bases selected by a mask
 * (gpu_batch_add_g2) and an MSM of tail scalars over indexed bases (gpu_msm_g2_indexed), per path (CUZK_GPU_G2),
 * medians of CUDA-event times. The bases are resident on the device, the mask, scalars and indices are host
 * arrays (as in prove.cu's run_b_g2). Bases are 4096 distinct random points (a random walk) tiled to N: random
 * G2 points cost ~1 ms each on the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu/gpu.h"
#include "gpu/gpu_g2.h"
#include "gpu/tune.h"
#include "msm/msm.h"

#define G2B_DISTINCT 4096
#define G2B_CPU_MAX ((uint64_t)1 << 20) /* --check: the CPU reference up to this many ones and tail scalars */

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench gpu-g2 [--bases N] [--ones K] [--tail M] [--runs R] [--variant V] [--seed S]\n"
               "                         [--check]\n"
               "  times B_G2 on the GPU: the sum of K of N resident bases chosen by a random mask (gpu_batch_add_g2)\n"
               "  and an MSM of M random scalars over random indices into the N bases (gpu_msm_g2_indexed);\n"
               "  prints the median device ms of each over R runs (after one warm-up run), per variant\n"
               "  defaults: the 2^24 partition's shape, --bases 4521302 --ones 2121749 --tail 268969; 5 runs;\n"
               "            variant both (2^27: --bases 36169162 --ones 16964415 --tail 2151745)\n"
               "  --variant: affine, xyzz (CUZK_GPU_G2 forced), default (CUZK_GPU_G2 unset: the path by size),\n"
               "             both (affine then xyzz)\n"
               "  --check: the variants' results must agree with each other, and with the CPU when K and M are at\n"
               "           most 2^20; exit status 1 when they do not\n");
}

/* n points: G2B_DISTINCT (or n if fewer) from a random walk, repeated. */
static int make_bases(g2_affine_t *out, size_t n, rng_t *rng)
{
    size_t d = n < G2B_DISTINCT ? n : G2B_DISTINCT;
    g2_jac_t step[8], cur;
    g2_jac_t *tmp = malloc(d * sizeof *tmp);
    if (tmp == NULL) return -1;
    for (int i = 0; i < 8; i++) g2_random(&step[i], rng);
    g2_random(&cur, rng);
    for (size_t i = 0; i < d; i++) {
        g2_jac_add(&cur, &cur, &step[rng_next(rng) % 8]);
        tmp[i] = cur;
    }
    g2_batch_to_affine(out, tmp, d);
    free(tmp);
    for (size_t i = d; i < n; i++) out[i] = out[i % d];
    return 0;
}

/* Exactly k of n bits, uniformly (selection sampling). */
static void make_mask(uint64_t *mask, size_t n, size_t k, rng_t *rng)
{
    size_t left = k;
    for (size_t i = 0; i < n && left > 0; i++) {
        /* Select i with probability left / (n - i). */
        if ((double)(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0) * (double)(n - i) < (double)left) {
            mask[i / 64] |= 1ull << (i % 64);
            left--;
        }
    }
}

static const char *const vnames[] = {"affine", "xyzz", "default"};

int bench_gpu_g2(int argc, char **argv)
{
    uint64_t nbases = 4521302, ones = 2121749, tail = 268969, runs = 5, seed = 1;
    int check = 0, vlist[3] = {0, 1, 2}, nv = 2;
    for (int i = 1; i < argc; i++) {
        uint64_t *dst = NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
            continue;
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "both") == 0) {
                vlist[0] = 0;
                vlist[1] = 1;
                nv = 2;
            } else if (strcmp(v, "affine") == 0 || strcmp(v, "xyzz") == 0 || strcmp(v, "default") == 0) {
                vlist[0] = v[0] == 'a' ? 0 : v[0] == 'x' ? 1 : 2;
                nv = 1;
            } else {
                fprintf(stderr, "gpu-g2: unknown variant '%s'\n", v);
                usage(stderr);
                return 2;
            }
            continue;
        } else if (strcmp(argv[i], "--bases") == 0)
            dst = &nbases;
        else if (strcmp(argv[i], "--ones") == 0)
            dst = &ones;
        else if (strcmp(argv[i], "--tail") == 0)
            dst = &tail;
        else if (strcmp(argv[i], "--runs") == 0)
            dst = &runs;
        else if (strcmp(argv[i], "--seed") == 0)
            dst = &seed;
        if (dst == NULL || i + 1 >= argc || bench_parse_u64(argv[++i], dst) != 0) {
            fprintf(stderr, "gpu-g2: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (nbases == 0 || nbases >= ((uint64_t)1 << 31) || ones > nbases || tail >= ((uint64_t)1 << 31) || runs == 0 ||
        runs > 100) {
        fprintf(stderr, "gpu-g2: need 1 <= bases < 2^31, ones <= bases, tail < 2^31, 1..100 runs\n");
        return 2;
    }
    gpu_device_info info;
    gpu_ctx *ctx;
    int open = bench_gpu_open("gpu-g2", &info, &ctx);
    if (open <= 0) return open < 0;
    cuzk_error err = {0};
    pool_t *pool = NULL;
    if (pool_create(&pool, 0, &err) != CUZK_OK) {
        fprintf(stderr, "gpu-g2: %s\n", err.msg);
        gpu_ctx_destroy(ctx);
        return 1;
    }
    printf("gpu-g2: %s, %d SMs, %.1f GiB; seed %llu; bases %llu, ones %llu, tail %llu\n", info.name, info.sm_count,
           (double)info.total_mem / (1u << 30), (unsigned long long)seed, (unsigned long long)nbases,
           (unsigned long long)ones, (unsigned long long)tail);

    size_t n = (size_t)nbases, words = (n + 63) / 64;
    g2_affine_t *bases = malloc(n * sizeof *bases);
    uint64_t *mask = calloc(words, sizeof *mask);
    fr_t *scalars = malloc((tail ? tail : 1) * sizeof *scalars);
    uint32_t *idx = malloc((tail ? tail : 1) * sizeof *idx);
    double *t_add = malloc(runs * sizeof *t_add), *t_msm = malloc(runs * sizeof *t_msm);
    gpu_buf *d_bases = NULL;
    g2_jac_t r_add[3], r_msm[3], want_add, want_msm;
    int rc = 0, have_cpu = 0;
    if (!bases || !mask || !scalars || !idx || !t_add || !t_msm) {
        fprintf(stderr, "gpu-g2: out of host memory for %zu bases\n", n);
        rc = 1;
        goto out;
    }
    rng_t rng;
    rng_seed(&rng, seed);
    uint64_t t0 = bench_now_ns();
    if (make_bases(bases, n, &rng) != 0) {
        fprintf(stderr, "gpu-g2: out of host memory\n");
        rc = 1;
        goto out;
    }
    make_mask(mask, n, (size_t)ones, &rng);
    for (size_t i = 0; i < tail; i++) {
        fr_random(&scalars[i], &rng);
        idx[i] = (uint32_t)(rng_next(&rng) % n);
    }
    printf("inputs generated in %.1f s\n", (double)(bench_now_ns() - t0) / 1e9);
    if (gpu_buf_upload(ctx, &d_bases, bases, n * sizeof *bases, &err) != CUZK_OK) {
        fprintf(stderr, "gpu-g2: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    const g2_affine_t *db = gpu_buf_ptr(d_bases);

    if (check && ones <= G2B_CPU_MAX && tail <= G2B_CPU_MAX) {
        g2_affine_t *gathered = malloc((tail ? tail : 1) * sizeof *gathered);
        if (gathered != NULL) {
            g2_jac_set_inf(&want_add);
            for (size_t i = 0; i < n; i++)
                if ((mask[i / 64] >> (i % 64)) & 1) g2_jac_add_affine(&want_add, &want_add, &bases[i]);
            for (size_t i = 0; i < tail; i++) gathered[i] = bases[idx[i]];
            msm_g2(pool, &want_msm, gathered, scalars, NULL, tail);
            free(gathered);
            have_cpu = 1;
        }
    }

    printf("\n%-8s %-6s %10s %10s %10s %s\n", "variant", "path", "batch_ms", "msm_ms", "sum_ms", "check");
    for (int vi = 0; vi < nv; vi++) {
        int v = vlist[vi], path_add = 0, path_msm = 0;
        if (v == 2)
            unsetenv("CUZK_GPU_G2");
        else
            setenv("CUZK_GPU_G2", vnames[v], 1);
        gpu_tune_reload_env();
        for (uint64_t k = 0; k <= runs; k++) { /* run 0: warm-up (pool growth, module load) */
            if (gpu_batch_add_g2(ctx, &r_add[vi], db, mask, n, &err) != CUZK_OK) goto fail;
            double ta = gpu_ctx_last_ms(ctx);
            path_add = gpu_g2_last_was_affine();
            if (gpu_msm_g2_indexed(ctx, &r_msm[vi], db, n, idx, scalars, (size_t)tail, &err) != CUZK_OK) goto fail;
            double tm = gpu_ctx_last_ms(ctx);
            path_msm = gpu_g2_last_was_affine();
            if (k > 0) {
                t_add[k - 1] = ta;
                t_msm[k - 1] = tm;
            }
        }
        const char *verdict = "-";
        if (check) {
            int same = vi == 0 || (g2_jac_eq(&r_add[vi], &r_add[0]) && g2_jac_eq(&r_msm[vi], &r_msm[0]));
            int cpu = !have_cpu || (g2_jac_eq(&r_add[vi], &want_add) && g2_jac_eq(&r_msm[vi], &want_msm));
            verdict = !same ? "FAIL(variants differ)" : !cpu ? "FAIL(cpu)" : have_cpu ? "ok" : vi > 0 ? "ok-gpu" : "-";
            if (!same || !cpu) rc = 1;
        }
        double ma = bench_median(t_add, runs), mm = bench_median(t_msm, runs);
        char path[16];
        snprintf(path, sizeof path, "%s/%s", path_add ? "aff" : "xyzz", path_msm ? "aff" : "xyzz");
        printf("%-8s %-6s %10.2f %10.2f %10.2f %s\n", vnames[v], path, ma, mm, ma + mm, verdict);
        fflush(stdout);
        continue;
    fail:
        fprintf(stderr, "gpu-g2 %s: %s\n", vnames[v], err.msg);
        rc = 1;
        break;
    }
    unsetenv("CUZK_GPU_G2");
    gpu_tune_reload_env();
out:
    gpu_buf_free(d_bases);
    gpu_ctx_destroy(ctx);
    pool_destroy(pool);
    free(bases);
    free(mask);
    free(scalars);
    free(idx);
    free(t_add);
    free(t_msm);
    return rc;
}
