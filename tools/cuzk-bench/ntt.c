/* cuzk-bench ntt: forward NTT and the H computation (both forms) over random
 * inputs, median of several runs, at one or more domain sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "poly/poly.h"
#include "util/pool.h"
#include "util/rng.h"

int bench_ntt(int argc, char **argv);

static void ntt_usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench ntt [--log N]... [--threads T] [--reps R] [--seed S] [--json]\n\n"
            "Times the forward NTT (natural order in and out) and poly_compute_h in the\n"
            "bellperson and snarkjs forms on random inputs of 2^N elements; reports the\n"
            "median of R runs (default 5). Without --log: N = 16, 18, 20.\n\n"
            "  --log N      domain size 2^N, 1 <= N <= %d; repeatable\n"
            "  --threads T  pool threads (default: one per CPU)\n"
            "  --reps R     timed runs per figure (default 5)\n"
            "  --seed S     input seed (default: fresh, printed)\n"
            "  --json       one JSON object per size instead of the table\n",
            POLY_MAX_LOG);
}

static void random_vec(fr_t *v, size_t n, rng_t *rng)
{
    for (size_t i = 0; i < n; i++) fr_random(&v[i], rng);
}

int bench_ntt(int argc, char **argv)
{
    unsigned logs[POLY_MAX_LOG + 1];
    size_t nlogs = 0;
    uint64_t threads = 0, reps = 5, seed = 0;
    int have_seed = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            ntt_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        uint64_t v;
        if (strcmp(a, "--log") && strcmp(a, "--threads") && strcmp(a, "--reps") && strcmp(a, "--seed")) {
            fprintf(stderr, "cuzk-bench ntt: unknown option '%s'\n", a);
            return 2;
        }
        if (i + 1 >= argc || bench_parse_u64(argv[i + 1], &v) != 0) {
            fprintf(stderr, "cuzk-bench ntt: %s needs a number\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--log") == 0) {
            if (v < 1 || v > POLY_MAX_LOG || nlogs == sizeof logs / sizeof *logs) {
                fprintf(stderr, "cuzk-bench ntt: --log %llu is outside 1..%d\n", (unsigned long long)v, POLY_MAX_LOG);
                return 2;
            }
            logs[nlogs++] = (unsigned)v;
        } else if (strcmp(a, "--threads") == 0) {
            if (v > 4096) {
                fprintf(stderr, "cuzk-bench ntt: --threads %llu is too many\n", (unsigned long long)v);
                return 2;
            }
            threads = v;
        } else if (strcmp(a, "--reps") == 0) {
            if (v < 1 || v > 1000) {
                fprintf(stderr, "cuzk-bench ntt: --reps must be 1..1000\n");
                return 2;
            }
            reps = v;
        } else {
            seed = v;
            have_seed = 1;
        }
    }
    if (nlogs == 0) {
        logs[nlogs++] = 16;
        logs[nlogs++] = 18;
        logs[nlogs++] = 20;
    }
    if (!have_seed) seed = rng_fresh_seed();

    cuzk_error err;
    pool_t *pool = NULL;
    if (pool_create(&pool, (unsigned)threads, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench ntt: %s\n", err.msg);
        return 1;
    }
    rng_t rng;
    rng_seed(&rng, seed);
    if (!json) {
        printf("cuzk-bench ntt: %u threads, median of %llu runs, seed %llu\n", pool_size(pool),
               (unsigned long long)reps, (unsigned long long)seed);
        printf("%5s %12s %12s %12s %14s\n", "log", "ntt_ms", "h_bell_ms", "h_snarkjs_ms", "ns/butterfly");
    }
    int rc = 0;
    double *t = malloc(reps * sizeof *t);
    for (size_t li = 0; li < nlogs && rc == 0; li++) {
        domain_t d;
        if (domain_for_size(&d, (size_t)1 << logs[li], &err) != CUZK_OK) {
            fprintf(stderr, "cuzk-bench ntt: %s\n", err.msg);
            rc = 1;
            break;
        }
        size_t m = d.m;
        fr_t *src[3], *buf[3];
        int ok = t != NULL;
        for (int k = 0; k < 3; k++) {
            src[k] = malloc(m * sizeof(fr_t));
            buf[k] = malloc(m * sizeof(fr_t));
            ok = ok && src[k] && buf[k];
        }
        if (!ok) {
            fprintf(stderr, "cuzk-bench ntt: cannot allocate 6 vectors of 2^%u elements\n", logs[li]);
            rc = 1;
        } else {
            for (int k = 0; k < 2; k++) random_vec(src[k], m, &rng);
            for (size_t i = 0; i < m; i++) fr_mul(&src[2][i], &src[0][i], &src[1][i]);
            double med[3];
            for (int what = 0; what < 3 && rc == 0; what++) {
                for (uint64_t r = 0; r <= reps; r++) { /* run 0 warms up */
                    for (int k = 0; k < 3; k++) memcpy(buf[k], src[k], m * sizeof(fr_t));
                    uint64_t t0 = bench_now_ns();
                    if (what == 0)
                        ntt_forward(pool, &d, buf[0]);
                    else if (poly_compute_h(pool, &d, what == 1 ? H_FORM_BELLPERSON : H_FORM_SNARKJS, buf[0], buf[1],
                                            buf[2], m, &err) != CUZK_OK) {
                        fprintf(stderr, "cuzk-bench ntt: %s\n", err.msg);
                        rc = 1;
                        break;
                    }
                    if (r > 0) t[r - 1] = (double)(bench_now_ns() - t0) / 1e6;
                }
                if (rc == 0) med[what] = bench_median(t, reps);
            }
            if (rc == 0) {
                double bfly_ns = med[0] * 1e6 / ((double)(m / 2) * logs[li]);
                if (json)
                    printf("{\"bench\":\"ntt\",\"log\":%u,\"threads\":%u,\"reps\":%llu,\"seed\":%llu,"
                           "\"ntt_ms\":%.3f,\"h_bellperson_ms\":%.3f,\"h_snarkjs_ms\":%.3f}\n",
                           logs[li], pool_size(pool), (unsigned long long)reps, (unsigned long long)seed, med[0],
                           med[1], med[2]);
                else
                    printf("%5u %12.2f %12.2f %12.2f %14.1f\n", logs[li], med[0], med[1], med[2], bfly_ns);
                fflush(stdout);
            }
        }
        for (int k = 0; k < 3; k++) {
            free(src[k]);
            free(buf[k]);
        }
    }
    free(t);
    pool_destroy(pool);
    return rc;
}
