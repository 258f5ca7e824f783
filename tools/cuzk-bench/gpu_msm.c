/* cuzk-bench gpu-msm: G1 MSM on the GPU for 2^lo .. 2^hi points, medians of CUDA-event times.
 * "device": bases and scalars already on the device; "host": scalars copied from pageable host memory each
 * call (bases resident, as the prover keeps them). Bases are 2^20 distinct random points (a random walk)
 * tiled to n; scalars are uniform. Results up to 2^18 points are checked against the CPU MSM (--check: up to
 * 2^20, and against the GPU's XYZZ variant above). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu/gpu.h"
#include "gpu/tune.h"
#include "msm/msm.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench gpu-msm [--log N] [--from N] [--runs R] [--window C] [--seed S]\n"
            "                          [--variant V[,V...]] [--check] [--prepared | --glv] [--device-only] [--step S]\n"
            "  times the GPU G1 MSM for 2^from, 2^(from+S), ... 2^log points (default 16..26, S 2, 5 runs)\n"
            "  --variant: default, xyzz, affine, affine-warp; several (comma-separated) run on the same inputs;\n"
            "             a variant may set CUZK_GPU_MSM_* knobs for its runs: affine-warp:tail=2:inv=fermat\n"
            "             (tail=0..8, inv=by|fermat, early=0|1, share=1..16: see src/gpu/msm.cu)\n"
            "  --device-only: skip the runs with scalars copied from host memory\n"
            "  --check: compare with the CPU MSM up to 2^20 points, with the GPU's XYZZ variant above\n"
            "  --prepared: bases prepared per size (gpu_msm_bases_prepare: shifted copies), gpu_msm_g1_prepared\n"
            "  --glv: the bases uploaded with their images under the endomorphism (gpu_msm_glv_upload, twice the\n"
            "         device memory), gpu_msm_g1_glv (the default variant only; --window is ignored)\n");
}

static void make_bases(g1_affine_t *out, size_t n, rng_t *rng)
{
    g1_jac_t step[8], cur;
    g1_jac_t *tmp = malloc(n * sizeof *tmp);
    if (tmp == NULL) return;
    for (int i = 0; i < 8; i++) g1_random(&step[i], rng);
    g1_random(&cur, rng);
    for (size_t i = 0; i < n; i++) {
        g1_jac_add(&cur, &cur, &step[rng_next(rng) % 8]);
        tmp[i] = cur;
    }
    g1_batch_to_affine(out, tmp, n);
    free(tmp);
}

static const char *const vnames[] = {"default", "xyzz", "affine", "affine-warp"};

/* A variant to time and the CUZK_GPU_MSM_<KEY>=value knobs set during its runs (its text as given). */
typedef struct bench_variant {
    gpu_msm_variant v;
    char text[96];
} bench_variant;

/* Parses a comma-separated list of variants (name[:key=value...]) into v (at most 8); returns the count, 0 on a bad
 * name or a token too long. */
static int parse_variants(const char *arg, bench_variant *v)
{
    int nv = 0;
    while (*arg && nv < 8) {
        size_t len = strcspn(arg, ","), nlen = strcspn(arg, ",:");
        int found = -1;
        for (int k = 0; k < 4; k++)
            if (strlen(vnames[k]) == nlen && strncmp(arg, vnames[k], nlen) == 0) found = k;
        if (found < 0 || len >= sizeof v[nv].text) return 0;
        v[nv].v = (gpu_msm_variant)found;
        memcpy(v[nv].text, arg, len);
        v[nv].text[len] = 0;
        nv++;
        arg += len;
        if (*arg == ',') arg++;
    }
    return nv;
}

/* Sets (on) or unsets the knobs of variant text "name:key=value:...": CUZK_GPU_MSM_<KEY in upper case>. */
static void variant_env(const char *text, int on)
{
    const char *p = strchr(text, ':');
    while (p != NULL) {
        char name[64] = "CUZK_GPU_MSM_", val[32];
        size_t nl = strlen(name);
        p++;
        while (*p && *p != '=' && *p != ':' && nl + 1 < sizeof name) {
            char ch = *p++;
            name[nl++] = (char)(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
        }
        name[nl] = 0;
        size_t vl = 0;
        if (*p == '=') {
            p++;
            while (*p && *p != ':' && vl + 1 < sizeof val) val[vl++] = *p++;
        }
        val[vl] = 0;
        if (on)
            setenv(name, val, 1);
        else
            unsetenv(name);
        gpu_tune_reload_env();
        p = strchr(p, ':');
    }
}

static cuzk_status run_one(gpu_ctx *ctx, const gpu_msm_bases *pb, size_t glv_at, g1_jac_t *out,
                           const g1_affine_t *bases, const fr_t *scalars, size_t n, unsigned window,
                           gpu_msm_variant variant, cuzk_error *err)
{
    if (pb) return gpu_msm_g1_prepared(ctx, out, pb, scalars, n, variant, err);
    if (glv_at) return gpu_msm_g1_glv(ctx, out, bases, glv_at, scalars, n, err);
    return gpu_msm_g1_variant(ctx, out, bases, scalars, n, window, variant, err);
}

int bench_gpu_msm(int argc, char **argv)
{
    uint64_t hi = 26, lo = 16, runs = 5, window = 0, seed = 1, step = 2;
    bench_variant vlist[8] = {{GPU_MSM_DEFAULT, "default"}};
    int check_all = 0, prepared = 0, device_only = 0, glv = 0, nv = 1;
    size_t glv_at = 0;
    for (int i = 1; i < argc; i++) {
        uint64_t *dst = NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--check") == 0) {
            check_all = 1;
            continue;
        } else if (strcmp(argv[i], "--prepared") == 0) {
            prepared = 1;
            continue;
        } else if (strcmp(argv[i], "--glv") == 0) {
            glv = 1;
            continue;
        } else if (strcmp(argv[i], "--device-only") == 0) {
            device_only = 1;
            continue;
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            nv = parse_variants(v, vlist);
            if (nv == 0) {
                fprintf(stderr, "gpu-msm: unknown variant in '%s'\n", v);
                usage(stderr);
                return 2;
            }
            continue;
        } else if (strcmp(argv[i], "--log") == 0)
            dst = &hi;
        else if (strcmp(argv[i], "--from") == 0)
            dst = &lo;
        else if (strcmp(argv[i], "--runs") == 0)
            dst = &runs;
        else if (strcmp(argv[i], "--window") == 0)
            dst = &window;
        else if (strcmp(argv[i], "--seed") == 0)
            dst = &seed;
        else if (strcmp(argv[i], "--step") == 0)
            dst = &step;
        if (dst == NULL || i + 1 >= argc || bench_parse_u64(argv[++i], dst) != 0) {
            fprintf(stderr, "gpu-msm: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (hi > 30 || lo > hi || runs == 0 || runs > 100 || window > 24 || step == 0) {
        fprintf(stderr, "gpu-msm: need from <= log <= 30, 1..100 runs, window <= 24, step >= 1\n");
        return 2;
    }
    if (glv && (prepared || nv != 1 || vlist[0].v != GPU_MSM_DEFAULT)) {
        fprintf(stderr, "gpu-msm: --glv runs the default variant only, without --prepared\n");
        return 2;
    }
    gpu_device_info info;
    gpu_ctx *ctx;
    int open = bench_gpu_open("gpu-msm", &info, &ctx);
    if (open <= 0) return open < 0;
    cuzk_error err = {0};
    pool_t *pool = NULL;
    if (pool_create(&pool, 0, &err) != CUZK_OK) {
        fprintf(stderr, "gpu-msm: %s\n", err.msg);
        gpu_ctx_destroy(ctx);
        return 1;
    }
    printf("gpu-msm: %s, %d SMs, %.1f GiB; seed %llu; %d variant(s)%s\n", info.name, info.sm_count,
           (double)info.total_mem / (1u << 30), (unsigned long long)seed, nv, prepared ? ", prepared bases" : "");

    size_t nmax = (size_t)1 << hi, ndistinct = nmax < ((size_t)1 << 20) ? nmax : (size_t)1 << 20;
    g1_affine_t *bases = malloc(nmax * sizeof *bases);
    fr_t *scalars = malloc(nmax * sizeof *scalars);
    double *t_dev = malloc(runs * sizeof *t_dev), *t_host = malloc(runs * sizeof *t_host);
    int rc = 0;
    gpu_buf *d_bases = NULL, *d_scalars = NULL;
    gpu_msm_bases *pb = NULL;
    if (bases == NULL || scalars == NULL || t_dev == NULL || t_host == NULL) {
        fprintf(stderr, "gpu-msm: out of host memory for 2^%llu points\n", (unsigned long long)hi);
        rc = 1;
        goto out;
    }
    rng_t rng;
    rng_seed(&rng, seed);
    uint64_t t0 = bench_now_ns();
    make_bases(bases, ndistinct, &rng);
    for (size_t i = ndistinct; i < nmax; i++) bases[i] = bases[i % ndistinct];
    for (size_t i = 0; i < nmax; i++) fr_random(&scalars[i], &rng);
    printf("inputs generated in %.1f s\n", (double)(bench_now_ns() - t0) / 1e9);
    if ((glv ? gpu_msm_glv_upload(ctx, &d_bases, bases, nmax, &err)
             : gpu_buf_upload(ctx, &d_bases, bases, nmax * sizeof *bases, &err)) != CUZK_OK) {
        fprintf(stderr, "gpu-msm: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    if (glv) glv_at = nmax;

    printf("\n%6s %4s %12s %12s %10s %6s %s\n", "points", "c", "device_ms", "host_ms", "Mpts/s", "check", "variant");
    for (uint64_t lg = lo; lg <= hi; lg += step) {
        size_t n = (size_t)1 << lg;
        const g1_affine_t *b = gpu_buf_ptr(d_bases);
        g1_jac_t r_dev, r_host, want;
        int have_want = 0;
        gpu_buf_free(d_scalars);
        d_scalars = NULL;
        if (gpu_buf_upload(ctx, &d_scalars, scalars, n * sizeof *scalars, &err) != CUZK_OK) goto fail;
        const fr_t *s = gpu_buf_ptr(d_scalars);
        if (prepared) {
            uint64_t tp = bench_now_ns();
            gpu_msm_bases_free(pb);
            pb = NULL;
            if (gpu_msm_bases_prepare(ctx, &pb, b, n, (unsigned)window, &err) != CUZK_OK) goto fail;
            printf("2^%llu: bases prepared for c = %u in %.1f ms\n", (unsigned long long)lg, gpu_msm_bases_window(pb),
                   (double)(bench_now_ns() - tp) / 1e6);
        }
        for (int vi = 0; vi < nv; vi++) {
            gpu_msm_variant variant = vlist[vi].v;
            variant_env(vlist[vi].text, 1);
            /* Warm-up: pool growth, module load. */
            if (run_one(ctx, pb, glv_at, &r_dev, b, s, n, (unsigned)window, variant, &err) != CUZK_OK) goto fail;
            r_host = r_dev;
            for (uint64_t k = 0; k < runs; k++) {
                if (run_one(ctx, pb, glv_at, &r_dev, b, s, n, (unsigned)window, variant, &err) != CUZK_OK) goto fail;
                t_dev[k] = gpu_ctx_last_ms(ctx);
                t_host[k] = 0;
                if (device_only) continue;
                if (run_one(ctx, pb, glv_at, &r_host, b, scalars, n, (unsigned)window, variant, &err) != CUZK_OK)
                    goto fail;
                t_host[k] = gpu_ctx_last_ms(ctx);
            }
            const char *check = "-";
            if (!g1_jac_eq(&r_dev, &r_host)) {
                check = "FAIL";
                rc = 1;
            } else if (lg <= 18 || (check_all && lg <= 20)) {
                if (!have_want) msm_g1(pool, &want, bases, scalars, NULL, n);
                have_want = 1;
                check = g1_jac_eq(&want, &r_dev) ? "ok" : "FAIL";
                if (!g1_jac_eq(&want, &r_dev)) rc = 1;
            } else if (check_all) {
                if (!have_want &&
                    gpu_msm_g1_variant(ctx, &want, b, s, n, (unsigned)window, GPU_MSM_XYZZ, &err) != CUZK_OK)
                    goto fail;
                have_want = 1;
                check = g1_jac_eq(&want, &r_dev) ? "ok-gpu" : "FAIL";
                if (!g1_jac_eq(&want, &r_dev)) rc = 1;
            }
            double md = bench_median(t_dev, runs), mh = bench_median(t_host, runs);
            printf("2^%-4llu %4u %12.2f %12.2f %10.1f %6s %s\n", (unsigned long long)lg,
                   pb       ? gpu_msm_bases_window(pb)
                   : glv    ? gpu_msm_glv_window_bits(ctx, n)
                   : window ? (unsigned)window
                            : gpu_msm_window_bits(ctx, n),
                   md, mh, (double)n / md / 1e3, check, glv ? "glv" : vlist[vi].text);
            fflush(stdout);
            variant_env(vlist[vi].text, 0);
        }
        continue;
    fail:
        fprintf(stderr, "gpu-msm 2^%llu: %s\n", (unsigned long long)lg, err.msg);
        rc = 1;
        break;
    }
out:
    gpu_msm_bases_free(pb);
    gpu_buf_free(d_scalars);
    gpu_buf_free(d_bases);
    gpu_ctx_destroy(ctx);
    pool_destroy(pool);
    free(bases);
    free(scalars);
    free(t_dev);
    free(t_host);
    return rc;
}
