/* cuzk-bench msm: wall time of one CPU multi-scalar multiplication (G1 or G2) with random full-width scalars.
 *
 * Bases are random points of the subgroup made cheaply: each chunk of points starts at k*G for a random k and
 * walks by adding random steps, then goes to affine with one inversion per chunk. One warm-up run, then the
 * median of the timed runs. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "msm/msm.h"
#include "util/rng.h"

int bench_msm(int argc, char **argv);

#define MSM_BENCH_CHUNK 1024
#define MSM_BENCH_MAX_REPS 64

typedef struct msm_bench_gen {
    int g2;
    void *bases;
    size_t n;
    uint64_t seed;
    atomic_int failed; /* a chunk could not get its scratch memory */
} msm_bench_gen;

static void gen_g1(msm_bench_gen *g, size_t begin, size_t end, rng_t *rng)
{
    g1_jac_t step[8], cur, *tmp = malloc(MSM_BENCH_CHUNK * sizeof *tmp);
    if (tmp == NULL) {
        atomic_store(&g->failed, 1);
        return;
    }
    g1_affine_t *out = (g1_affine_t *)g->bases + begin;
    for (int i = 0; i < 8; i++) g1_random(&step[i], rng);
    g1_random(&cur, rng);
    for (size_t i = 0; i < end - begin; i++) {
        g1_jac_add(&cur, &cur, &step[rng_next(rng) % 8]);
        tmp[i] = cur;
    }
    g1_batch_to_affine(out, tmp, end - begin);
    free(tmp);
}

static void gen_g2(msm_bench_gen *g, size_t begin, size_t end, rng_t *rng)
{
    g2_jac_t step[8], cur, *tmp = malloc(MSM_BENCH_CHUNK * sizeof *tmp);
    if (tmp == NULL) {
        atomic_store(&g->failed, 1);
        return;
    }
    g2_affine_t *out = (g2_affine_t *)g->bases + begin;
    for (int i = 0; i < 8; i++) g2_random(&step[i], rng);
    g2_random(&cur, rng);
    for (size_t i = 0; i < end - begin; i++) {
        g2_jac_add(&cur, &cur, &step[rng_next(rng) % 8]);
        tmp[i] = cur;
    }
    g2_batch_to_affine(out, tmp, end - begin);
    free(tmp);
}

/* One index per chunk of MSM_BENCH_CHUNK points; each chunk seeds its own generator so the bases do not depend
 * on the thread count. */
static void gen_body(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    msm_bench_gen *g = vctx;
    for (size_t c = begin; c < end; c++) {
        size_t lo = c * MSM_BENCH_CHUNK, hi = lo + MSM_BENCH_CHUNK < g->n ? lo + MSM_BENCH_CHUNK : g->n;
        rng_t rng;
        rng_seed(&rng, g->seed ^ (0x9e3779b97f4a7c15ULL * (c + 1)));
        if (g->g2)
            gen_g2(g, lo, hi, &rng);
        else
            gen_g1(g, lo, hi, &rng);
    }
}

/* CPU seconds of the whole process (all threads): unlike wall time, barely moved by other load on the machine.
 * Also used by prove.c. */
double bench_cpu_seconds(void);
double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench msm [--log N] [--threads T] [--g2] [--window C] [--reps R] [--seed S]\n\n"
            "Wall time of one multi-scalar multiplication of 2^N random points with random 255-bit scalars\n"
            "on a pool of T threads: one warm-up run, then the median of R timed runs.\n\n"
            "  --log N     log2 of the number of points (default 16, at most 26)\n"
            "  --threads T threads, 0 = one per online CPU (default 0)\n"
            "  --g2        G2 instead of G1\n"
            "  --window C  force the window size to C bits, 1..16 (default: chosen by msm_window_bits)\n"
            "  --reps R    timed runs, 1..%d (default 3)\n"
            "  --seed S    seed of the input generator, decimal or 0x-hex (default: CUZK_SEED, else random)\n"
            "  --help      this text\n",
            MSM_BENCH_MAX_REPS);
}

int bench_msm(int argc, char **argv)
{
    uint64_t log_n = 16, threads = 0, window = 0, reps = 3, seed = 0;
    int g2 = 0, have_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        uint64_t *dst = NULL, lo = 0, hi = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--g2") == 0) {
            g2 = 1;
            continue;
        } else if (strcmp(a, "--log") == 0) {
            dst = &log_n, lo = 0, hi = 26;
        } else if (strcmp(a, "--threads") == 0) {
            dst = &threads, lo = 0, hi = 1024;
        } else if (strcmp(a, "--window") == 0) {
            dst = &window, lo = 1, hi = 16;
        } else if (strcmp(a, "--reps") == 0) {
            dst = &reps, lo = 1, hi = MSM_BENCH_MAX_REPS;
        } else if (strcmp(a, "--seed") == 0) {
            dst = &seed, lo = 0, hi = UINT64_MAX;
            have_seed = 1;
        } else {
            fprintf(stderr, "cuzk-bench msm: unknown option '%s' (try 'cuzk-bench msm --help')\n", a);
            return 2;
        }
        if (i + 1 >= argc || bench_parse_u64(argv[i + 1], dst) != 0 || *dst < lo || *dst > hi) {
            fprintf(stderr, "cuzk-bench msm: %s needs an integer in [%llu, %llu]\n", a, (unsigned long long)lo,
                    (unsigned long long)hi);
            return 2;
        }
        i++;
    }
    if (!have_seed) seed = rng_fresh_seed();

    pool_t *pool;
    cuzk_error err;
    if (pool_create(&pool, (unsigned)threads, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench msm: %s\n", err.msg);
        return 1;
    }
    size_t n = (size_t)1 << log_n;
    uint64_t t0 = bench_now_ns();
    msm_bench_gen gen = {g2, malloc(n * (g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t))), n, seed, 0};
    fr_t *scalars = malloc(n * sizeof *scalars);
    if (gen.bases != NULL) pool_parallel_for(pool, (n + MSM_BENCH_CHUNK - 1) / MSM_BENCH_CHUNK, 1, gen_body, &gen);
    if (gen.bases == NULL || scalars == NULL || atomic_load(&gen.failed)) {
        fprintf(stderr, "cuzk-bench msm: out of memory for 2^%llu points\n", (unsigned long long)log_n);
        free(gen.bases);
        free(scalars);
        pool_destroy(pool);
        return 1;
    }
    rng_t rng;
    rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);
    double gen_s = (double)(bench_now_ns() - t0) / 1e9;

    unsigned nthreads = pool_size(pool);
    unsigned c = window ? (unsigned)window : msm_window_bits(n, nthreads);
    printf("cuzk-bench msm: %s, 2^%llu points, %u threads, window %u bits, seed 0x%016llx (inputs in %.2f s)\n",
           g2 ? "G2" : "G1", (unsigned long long)log_n, nthreads, c, (unsigned long long)seed, gen_s);
    double times[MSM_BENCH_MAX_REPS], cpu[MSM_BENCH_MAX_REPS];
    for (uint64_t r = 0; r <= reps; r++) {
        g1_jac_t r1;
        g2_jac_t r2;
        uint64_t start = bench_now_ns();
        double cpu_start = bench_cpu_seconds();
        if (g2)
            msm_g2_window(pool, &r2, gen.bases, scalars, NULL, n, c);
        else
            msm_g1_window(pool, &r1, gen.bases, scalars, NULL, n, c);
        double s = (double)(bench_now_ns() - start) / 1e9, cs = bench_cpu_seconds() - cpu_start;
        if (r > 0) times[r - 1] = s, cpu[r - 1] = cs; /* run 0 warms up */
        printf("  run %llu%s: %.3f s (cpu %.3f s)\n", (unsigned long long)r, r ? "" : " (warm-up)", s, cs);
    }
    double min = times[0], max = times[0];
    for (uint64_t r = 1; r < reps; r++) {
        if (times[r] < min) min = times[r];
        if (times[r] > max) max = times[r];
    }
    double median = bench_median(times, (size_t)reps), cpu_median = bench_median(cpu, (size_t)reps);
    printf("msm %s log=%llu threads=%u window=%u: median %.3f s (min %.3f, max %.3f, %llu runs), %.0f ns/point, "
           "cpu %.3f s\n",
           g2 ? "g2" : "g1", (unsigned long long)log_n, nthreads, c, median, min, max, (unsigned long long)reps,
           median * 1e9 / (double)n, cpu_median);
    free(gen.bases);
    free(scalars);
    pool_destroy(pool);
    return 0;
}
