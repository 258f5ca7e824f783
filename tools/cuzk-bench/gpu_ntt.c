/* cuzk-bench gpu-ntt: the device NTT and the Groth16 H computation (src/gpu/ntt.cu), timed with CUDA events.
 *
 * Per size: the forward and inverse NTT of a vector already on the device, H (bellperson form) from a, b, c
 * already on the device (kernels alone, then including the device copies of the inputs) and from pageable host
 * memory (copies in and out included). Each line states its floors: bytes moved (every pass reads and writes
 * every element once) over the copy bandwidth, and Fr multiplications over the device's measured rate.
 * --check compares the forward NTT with the CPU's ntt_forward, the inverse of its result with the input, and (up to
 * --check-h-max) H with poly_compute_h. --variants times and checks the NTT of several kernel variants
 * (CUZK_NTT_VARIANT) on the same data in one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu/gpu_ntt.h"
#include "gpu/tune.h"

#define COPY_BW 4.3e12 /* bytes/s, device-to-device copy measured on the H200 (read + write) */

#define MAX_VARIANTS 32

typedef struct opts {
    unsigned from, to, reps, check, check_h_max, ntt_only;
    uint64_t seed;
    int nvar, var[MAX_VARIANTS]; /* nvar 0: the variant CUZK_NTT_VARIANT names, else the default */
} opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench gpu-ntt [--log N | --from A --to B] [--reps R] [--check] [--check-h-max N]\n"
               "                          [--ntt-only] [--variants all|V,V,...] [--seed S]\n"
               "  sizes 2^A .. 2^B (default 20 .. 27), R timed runs each after a warm-up (default 7);\n"
               "  --check compares with the CPU (NTT at every size, H up to 2^N, default 24)\n"
               "  --ntt-only times the forward and inverse NTT alone (no H)\n"
               "  --variants times (and with --check checks) each kernel variant, by index or name\n");
}

/* Fresh random values without 2^27 calls of fr_random: 2^16 random elements spread by a per-vector stride. */
static void fill(fr_t *v, size_t n, const fr_t *src, size_t nsrc, uint64_t salt)
{
    size_t stride = 2 * (size_t)(salt % 1000) + 1;
    for (size_t i = 0; i < n; i++) {
        v[i] = src[(i * stride + salt) & (nsrc - 1)];
        /* Perturb the limb of lowest weight (stays < r: r's low limb is odd and the values are random). */
        v[i].l[0] ^= (uint64_t)i << 1;
        if (v[i].l[3] >= 0x73eda753299d7d48ull) v[i].l[3] = 0x1234;
    }
}

static double med(double *v, unsigned n)
{
    return bench_median(v, n);
}

/* Creates *plan (the variant CUZK_NTT_VARIANT names) and times its forward and inverse NTT of the device vector
 * dx; with o->check, compares its forward NTT of a with want (the CPU's) and its inverse of that with a.
 * 0 on success. */
static int time_variant(gpu_ctx *ctx, unsigned L, const opts *o, const fr_t *a, const fr_t *want, fr_t *h, gpu_buf *dx,
                        double *t, double mul_rate, gpu_ntt_plan **plan, cuzk_error *err)
{
    static const gpu_ntt_kind kinds[2] = {GPU_NTT_FORWARD, GPU_NTT_INVERSE};
    static const char *names[2] = {"forward NTT", "inverse NTT"};
    size_t bytes = ((size_t)1 << L) * sizeof(fr_t);
    unsigned passes = gpu_ntt_pass_count(L);
    double ntt_bytes = 2.0 * passes * (double)bytes;
    if (gpu_ntt_plan_create(ctx, L, POLY_ROOTS_CUZK, plan, err) != CUZK_OK) return -1;
    const char *vname = gpu_ntt_variant_name(gpu_ntt_plan_variant(*plan));
    for (int k = 0; k < 2; k++) {
        for (unsigned r = 0; r <= o->reps; r++) {
            if (gpu_ntt(*plan, kinds[k], NULL, (fr_t *)gpu_buf_ptr(dx), err) != CUZK_OK) return -1;
            if (r) gpu_ntt_last_ms(*plan, NULL, &t[r - 1]);
        }
        double muls = gpu_ntt_mul_count(L, kinds[k]);
        printf("2^%-2u %-12s %-10s device  median %9.3f ms   floors: %u passes, %6.2f GiB -> %7.3f ms at %.1f "
               "TB/s; %.3g Fr muls -> %7.3f ms\n",
               L, names[k], vname, med(t, o->reps), passes, ntt_bytes / (1u << 30), ntt_bytes / COPY_BW * 1e3,
               COPY_BW / 1e12, muls, muls / mul_rate * 1e3);
    }
    if (o->check) {
        memcpy(h, a, bytes);
        if (gpu_ntt(*plan, GPU_NTT_FORWARD, NULL, h, err) != CUZK_OK) return -1;
        int fwd = memcmp(h, want, bytes) == 0, inv = 0;
        memcpy(h, want, bytes); /* the inverse of the CPU's forward result is the input again */
        if (gpu_ntt(*plan, GPU_NTT_INVERSE, NULL, h, err) != CUZK_OK) return -1;
        inv = memcmp(h, a, bytes) == 0;
        printf("2^%-2u check %-10s forward NTT against the CPU: %s, inverse of it against the input: %s\n", L, vname,
               fwd ? "equal" : "DIFFERENT", inv ? "equal" : "DIFFERENT");
        if (!fwd || !inv) return -1;
    }
    return 0;
}

static int run_size(gpu_ctx *ctx, pool_t *pool, unsigned L, const opts *o, const fr_t *src, size_t nsrc,
                    double mul_rate)
{
    cuzk_error err = {0};
    gpu_ntt_plan *plan = NULL;
    size_t m = (size_t)1 << L, bytes = m * sizeof(fr_t);
    double *t = calloc(o->reps, sizeof *t), *t2 = calloc(o->reps, sizeof *t2);
    fr_t *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *h = malloc(bytes);
    gpu_buf *dx = NULL, *da = NULL, *db = NULL, *dc = NULL;
    char *env_keep = NULL; /* CUZK_NTT_VARIANT as it was before --variants */
    int rc = 1;
    if (!t || !t2 || !a || !b || !c || !h) {
        fprintf(stderr, "gpu-ntt: out of host memory at 2^%u\n", L);
        goto out;
    }
    fill(a, m, src, nsrc, L * 3 + 1);
    if (o->check) { /* the CPU's forward NTT of a, once for every variant */
        domain_t d;
        if (domain_for_size(&d, m, &err) != CUZK_OK) goto fail;
        memcpy(c, a, bytes);
        ntt_forward(pool, &d, c);
    }

    /* NTTs of a device-resident vector, per variant. */
    const char *env = getenv("CUZK_NTT_VARIANT");
    if (env && (env_keep = strdup(env)) == NULL) goto fail;
    if (gpu_buf_upload(ctx, &dx, a, bytes, &err) != CUZK_OK) goto fail;
    int bad = 0; /* a variant failed: the others still run, the size fails at the end */
    for (int vi = 0; vi < (o->nvar ? o->nvar : 1); vi++) {
        if (o->nvar) {
            setenv("CUZK_NTT_VARIANT", gpu_ntt_variant_name(o->var[vi]), 1);
            gpu_tune_reload_env();
        }
        gpu_ntt_plan_destroy(plan);
        plan = NULL;
        if (time_variant(ctx, L, o, a, c, h, dx, t, mul_rate, &plan, &err) != 0) {
            fprintf(stderr, "gpu-ntt 2^%u variant %s: %s\n", L, o->nvar ? gpu_ntt_variant_name(o->var[vi]) : "(env)",
                    err.msg[0] ? err.msg : "results differ");
            printf("2^%-2u variant %s FAILED\n", L, o->nvar ? gpu_ntt_variant_name(o->var[vi]) : "(env)");
            err.msg[0] = 0;
            bad = 1;
        }
        fflush(stdout);
    }
    if (o->nvar) {
        if (env_keep)
            setenv("CUZK_NTT_VARIANT", env_keep, 1);
        else
            unsetenv("CUZK_NTT_VARIANT");
        gpu_tune_reload_env();
    }
    gpu_buf_free(dx);
    dx = NULL;
    if (bad || plan == NULL) goto out;

    if (!o->ntt_only) {
        fill(b, m, src, nsrc, L * 3 + 2);
        fill(c, m, src, nsrc, L * 3 + 3);
        /* H, bellperson form: 7 transforms, the pointwise step fused into c's last pass. */
        unsigned passes = gpu_ntt_pass_count(L);
        double h_bytes = (7.0 * 2 * passes + 2) * (double)bytes;
        double h_muls = 4 * gpu_ntt_mul_count(L, GPU_NTT_COSET_INVERSE) + 3 * gpu_ntt_mul_count(L, GPU_NTT_FORWARD) +
                        2.0 * (double)m;
        if (gpu_buf_upload(ctx, &da, a, bytes, &err) != CUZK_OK ||
            gpu_buf_upload(ctx, &db, b, bytes, &err) != CUZK_OK || gpu_buf_upload(ctx, &dc, c, bytes, &err) != CUZK_OK)
            goto fail;
        for (unsigned r = 0; r <= o->reps; r++) {
            fr_t *hd = NULL;
            if (gpu_ntt_h_device(plan, H_FORM_BELLPERSON, gpu_buf_ptr(da), gpu_buf_ptr(db), gpu_buf_ptr(dc), m, &hd,
                                 &err) != CUZK_OK)
                goto fail;
            gpu_ntt_h_free(ctx, hd);
            if (r) gpu_ntt_last_ms(plan, &t2[r - 1], &t[r - 1]);
        }
        printf("2^%-2u %-22s device  median %9.3f ms   floors: %6.2f GiB -> %7.3f ms; %.3g Fr muls -> %7.3f ms\n", L,
               "H (kernels)", med(t, o->reps), h_bytes / (1u << 30), h_bytes / COPY_BW * 1e3, h_muls,
               h_muls / mul_rate * 1e3);
        printf("2^%-2u %-22s device  median %9.3f ms   (a, b, c copied device to device first)\n", L,
               "H (with input copies)", med(t2, o->reps));
        gpu_buf_free(da);
        gpu_buf_free(db);
        gpu_buf_free(dc);
        da = db = dc = NULL;
        unsigned hreps = o->reps < 3 ? o->reps : 3;
        for (unsigned r = 0; r < hreps; r++) {
            if (gpu_ntt_h(plan, H_FORM_BELLPERSON, a, b, c, m, h, &err) != CUZK_OK) goto fail;
            gpu_ntt_last_ms(plan, &t[r], NULL);
        }
        printf("2^%-2u %-22s host    median %9.3f ms   (pageable a, b, c in and H out, %u runs)\n", L, "H (from host)",
               med(t, hreps), hreps);
    }

    if (o->check && L <= o->check_h_max && !o->ntt_only) {
        domain_t d;
        if (domain_for_size(&d, m, &err) != CUZK_OK) goto fail;
        fill(c, m, src, nsrc, L * 3 + 3);
        if (gpu_ntt_h(plan, H_FORM_BELLPERSON, a, b, c, m, h, &err) != CUZK_OK) goto fail;
        if (poly_compute_h(pool, &d, H_FORM_BELLPERSON, a, b, c, m, &err) != CUZK_OK) goto fail;
        int ok = memcmp(h, a, (m - 1) * sizeof(fr_t)) == 0;
        printf("2^%-2u check H (bellperson) against the CPU: %s\n", L, ok ? "equal" : "DIFFERENT");
        if (!ok) goto out;
    }
    fflush(stdout);
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "gpu-ntt 2^%u: %s\n", L, err.msg);
out:
    free(env_keep);
    gpu_buf_free(dx);
    gpu_buf_free(da);
    gpu_buf_free(db);
    gpu_buf_free(dc);
    gpu_ntt_plan_destroy(plan);
    free(t);
    free(t2);
    free(a);
    free(b);
    free(c);
    free(h);
    return rc;
}

/* "all" or a comma-separated list of variant indices or names. */
static int parse_variants(const char *arg, opts *o)
{
    int n = gpu_ntt_variant_count();
    o->nvar = 0;
    if (strcmp(arg, "all") == 0) {
        for (int v = 0; v < n && v < MAX_VARIANTS; v++) o->var[o->nvar++] = v;
        return n > 0 ? 0 : -1;
    }
    while (*arg) {
        size_t len = strcspn(arg, ",");
        int found = -1;
        for (int v = 0; v < n && found < 0; v++) {
            const char *name = gpu_ntt_variant_name(v);
            char idx[16];
            snprintf(idx, sizeof idx, "%d", v);
            if ((strlen(name) == len && strncmp(arg, name, len) == 0) ||
                (strlen(idx) == len && strncmp(arg, idx, len) == 0))
                found = v;
        }
        if (found < 0 || o->nvar == MAX_VARIANTS) return -1;
        o->var[o->nvar++] = found;
        arg += len + (arg[len] == ',');
    }
    return o->nvar > 0 ? 0 : -1;
}

int bench_gpu_ntt(int argc, char **argv)
{
    opts o = {.from = 20, .to = 27, .reps = 7, .check = 0, .check_h_max = 24, .ntt_only = 0, .seed = 0};
    for (int i = 1; i < argc; i++) {
        uint64_t v = 0;
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--check") == 0) {
            o.check = 1;
            continue;
        } else if (strcmp(arg, "--ntt-only") == 0) {
            o.ntt_only = 1;
            continue;
        } else if (strcmp(arg, "--variants") == 0) {
            if (i + 1 >= argc || parse_variants(argv[++i], &o) != 0) {
                fprintf(stderr, "gpu-ntt: --variants needs all or a list of variants (0..%d or names)\n",
                        gpu_ntt_variant_count() - 1);
                return 2;
            }
            continue;
        }
        if (i + 1 >= argc || bench_parse_u64(argv[i + 1], &v) != 0) {
            fprintf(stderr, "gpu-ntt: %s needs a number\n", arg);
            usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(arg, "--log") == 0)
            o.from = o.to = (unsigned)v;
        else if (strcmp(arg, "--from") == 0)
            o.from = (unsigned)v;
        else if (strcmp(arg, "--to") == 0)
            o.to = (unsigned)v;
        else if (strcmp(arg, "--reps") == 0)
            o.reps = (unsigned)v;
        else if (strcmp(arg, "--check-h-max") == 0)
            o.check_h_max = (unsigned)v;
        else if (strcmp(arg, "--seed") == 0)
            o.seed = v;
        else {
            fprintf(stderr, "gpu-ntt: unknown option %s\n", arg);
            usage(stderr);
            return 2;
        }
    }
    if (o.from < 3 || o.to > 28 || o.from > o.to || o.reps == 0 || o.reps > 1000) {
        fprintf(stderr, "gpu-ntt: sizes must satisfy 3 <= from <= to <= 28, reps 1..1000\n");
        return 2;
    }
    gpu_device_info info;
    gpu_ctx *ctx;
    int open = bench_gpu_open("gpu-ntt", &info, &ctx);
    if (open <= 0) return open < 0;
    cuzk_error err = {0};
    pool_t *pool = NULL;
    rng_t rng;
    enum { NSRC = 1 << 16 };
    fr_t *src = malloc(NSRC * sizeof *src);
    int rc = 1;
    double rate = 0;
    if (src == NULL) goto out;
    if (o.seed == 0) o.seed = rng_fresh_seed();
    rng_seed(&rng, o.seed);
    for (size_t i = 0; i < NSRC; i++) fr_random(&src[i], &rng);
    if (pool_create(&pool, 0, &err) != CUZK_OK || gpu_ntt_mul_rate(ctx, &rate, &err) != CUZK_OK) {
        fprintf(stderr, "gpu-ntt: %s\n", err.msg);
        goto out;
    }
    printf("gpu-ntt: %s, %d SMs, seed %llu, %u runs per median; Fr mul rate %.3g/s (measured)\n", info.name,
           info.sm_count, (unsigned long long)o.seed, o.reps, rate);
    rc = 0;
    for (unsigned L = o.from; L <= o.to && rc == 0; L++) rc = run_size(ctx, pool, L, &o, src, NSRC, rate);
out:
    pool_destroy(pool);
    gpu_ctx_destroy(ctx);
    free(src);
    return rc;
}
