/* cuzk-bench micro: single-thread cost of the arithmetic everything else is built from.
 *
 * Each operation runs in a loop whose next input depends on the previous output (a dependency chain), so the
 * figure is latency, the compiler cannot hoist or drop work, and the second operand rotates through a small table
 * of random non-zero values. Each operation gets a warm-up run and then REPS timed runs; the median is reported
 * with the minimum and maximum to show the noise. Runs are timed with the thread's CPU clock rather than the wall
 * clock: on a shared machine the wall clock also counts the time other processes hold the core, which no code
 * change here can affect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ec/pairing.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "util/rng.h"

#define REPS 7
#define NIN 64 /* rotating inputs; a power of two */
#define MIN_ITERS 3
#define DEFAULT_ITERS 200000

typedef struct micro_ctx {
    fp_t fp[NIN];
    fr_t fr[NIN];
    g1_jac_t g1[NIN];
    g1_affine_t g1a[NIN];
    g2_jac_t g2[NIN];
    g2_affine_t g2a[NIN];
} micro_ctx;

typedef struct micro_bench {
    const char *key;   /* JSON name */
    const char *label; /* table name */
    const char *unit;
    double ns_per_unit;
    uint64_t cost; /* relative to one Fp mul: runs iters / cost iterations */
    double target; /* in unit; 0 = none */
    void (*run)(const micro_ctx *c, uint64_t n);
} micro_bench;

/* Results land here so that no loop is dead code. */
static volatile uint64_t micro_sink;

static void run_fp_mul(const micro_ctx *c, uint64_t n)
{
    fp_t x = c->fp[0];
    for (uint64_t i = 0; i < n; i++) fp_mul(&x, &x, &c->fp[i & (NIN - 1)]);
    micro_sink ^= x.l[0];
}

static void run_fp_sqr(const micro_ctx *c, uint64_t n)
{
    fp_t x = c->fp[1];
    for (uint64_t i = 0; i < n; i++) fp_sqr(&x, &x);
    micro_sink ^= x.l[0];
}

static void run_fp_inv(const micro_ctx *c, uint64_t n)
{
    fp_t x = c->fp[2];
    for (uint64_t i = 0; i < n; i++) {
        fp_inv(&x, &x);
        /* Without this the chain would alternate between two values. */
        fp_add(&x, &x, &c->fp[i & (NIN - 1)]);
    }
    micro_sink ^= x.l[0];
}

static void run_fr_mul(const micro_ctx *c, uint64_t n)
{
    fr_t x = c->fr[0];
    for (uint64_t i = 0; i < n; i++) fr_mul(&x, &x, &c->fr[i & (NIN - 1)]);
    micro_sink ^= x.l[0];
}

static void run_g1_add_affine(const micro_ctx *c, uint64_t n)
{
    g1_jac_t x = c->g1[0];
    for (uint64_t i = 0; i < n; i++) g1_jac_add_affine(&x, &x, &c->g1a[i & (NIN - 1)]);
    micro_sink ^= x.x.l[0];
}

static void run_g1_dbl(const micro_ctx *c, uint64_t n)
{
    g1_jac_t x = c->g1[1];
    for (uint64_t i = 0; i < n; i++) g1_jac_dbl(&x, &x);
    micro_sink ^= x.x.l[0];
}

static void run_g2_add(const micro_ctx *c, uint64_t n)
{
    g2_jac_t x = c->g2[0];
    for (uint64_t i = 0; i < n; i++) g2_jac_add(&x, &x, &c->g2[i & (NIN - 1)]);
    micro_sink ^= x.x.c0.l[0];
}

static void run_g1_mul(const micro_ctx *c, uint64_t n)
{
    g1_jac_t x = c->g1[2];
    for (uint64_t i = 0; i < n; i++) g1_jac_mul_fr(&x, &x, &c->fr[i & (NIN - 1)]);
    micro_sink ^= x.x.l[0];
}

static void run_g2_mul(const micro_ctx *c, uint64_t n)
{
    g2_jac_t x = c->g2[2];
    for (uint64_t i = 0; i < n; i++) g2_jac_mul_fr(&x, &x, &c->fr[i & (NIN - 1)]);
    micro_sink ^= x.x.c0.l[0];
}

static void run_pairing(const micro_ctx *c, uint64_t n)
{
    fp12_t f;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        pairing(&f, &c->g1a[i & (NIN - 1)], &c->g2a[i & (NIN - 1)]);
        acc ^= f.c0.c0.c0.l[0];
    }
    micro_sink ^= acc;
}

static const micro_bench BENCHES[] = {
    {"fp_mul", "Fp mul", "ns", 1, 1, 35, run_fp_mul},
    {"fp_sqr", "Fp sqr", "ns", 1, 1, 0, run_fp_sqr},
    {"fp_inv", "Fp inv", "us", 1e3, 500, 0, run_fp_inv},
    {"fr_mul", "Fr mul", "ns", 1, 1, 20, run_fr_mul},
    {"g1_add_affine", "G1 add (jac + affine)", "ns", 1, 10, 0, run_g1_add_affine},
    {"g1_dbl", "G1 dbl (jac)", "ns", 1, 10, 0, run_g1_dbl},
    {"g2_add", "G2 add (jac + jac)", "ns", 1, 40, 0, run_g2_add},
    {"g1_mul", "G1 mul (255-bit scalar)", "us", 1e3, 2000, 0, run_g1_mul},
    {"g2_mul", "G2 mul (255-bit scalar)", "us", 1e3, 5000, 0, run_g2_mul},
    {"pairing", "pairing", "ms", 1e6, 20000, 2.5, run_pairing},
};

#define N_BENCHES (sizeof BENCHES / sizeof BENCHES[0])

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

typedef struct micro_result {
    uint64_t iters;
    double median, min, max; /* in the bench's unit per operation */
} micro_result;

static void measure(const micro_bench *b, const micro_ctx *c, uint64_t iters, micro_result *out)
{
    uint64_t n = iters / b->cost;
    if (n < MIN_ITERS) n = MIN_ITERS;
    double t[REPS];
    b->run(c, n); /* warm-up: caches, branch predictors, clock frequency */
    for (int r = 0; r < REPS; r++) {
        uint64_t t0 = thread_cpu_ns();
        b->run(c, n);
        uint64_t t1 = thread_cpu_ns();
        t[r] = (double)(t1 - t0) / (double)n / b->ns_per_unit;
    }
    out->iters = n;
    out->median = bench_median(t, REPS);
    out->min = t[0];
    out->max = t[REPS - 1];
}

/* Scalars for the multiplications are random Fr elements with the top bit (254) set, so that every one is a
 * full 255-bit scalar (r has 255 bits and 2^254 < r). */
static void fill_inputs(micro_ctx *c, rng_t *rng)
{
    for (int i = 0; i < NIN; i++) {
        do fp_random(&c->fp[i], rng);
        while (fp_is_zero(&c->fp[i]));
        uint64_t k[FR_LIMBS];
        do {
            fr_random(&c->fr[i], rng);
            fr_from_mont(k, &c->fr[i]);
        } while (!(k[FR_LIMBS - 1] >> 62 & 1));
        /* Points in the subgroup, none at infinity; Jacobian ones with Z != 1 to time the general addition. */
        do g1_random(&c->g1[i], rng);
        while (g1_jac_is_inf(&c->g1[i]));
        g1_jac_to_affine(&c->g1a[i], &c->g1[i]);
        g1_jac_dbl(&c->g1[i], &c->g1[i]);
        do g2_random(&c->g2[i], rng);
        while (g2_jac_is_inf(&c->g2[i]));
        g2_jac_to_affine(&c->g2a[i], &c->g2[i]);
        g2_jac_dbl(&c->g2[i], &c->g2[i]);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench micro [--iters N] [--json] [--seed S]\n\n"
            "Single-thread CPU time per operation on random non-zero inputs: Fp mul/sqr/inv, Fr mul,\n"
            "G1 add (Jacobian + affine) and double, G2 add (Jacobian + Jacobian), G1 and G2\n"
            "multiplication by a random 255-bit scalar, and one pairing e(P, Q).\n"
            "Each operation: one warm-up run, then %d timed runs; prints the median, min and max\n"
            "per operation, and the target where there is one.\n\n"
            "  --iters N   iterations of the cheapest operation per run (default %d); costlier\n"
            "              operations run proportionally fewer (at least %d)\n"
            "  --json      print one JSON object instead of the table\n"
            "  --seed S    seed of the input generator, decimal or 0x-hex (default: CUZK_SEED, else random)\n"
            "  --help      this text\n",
            REPS, DEFAULT_ITERS, MIN_ITERS);
}

static void print_table(const micro_result *res, uint64_t seed, uint64_t iters)
{
    printf("cuzk-bench micro: 1 thread, thread CPU time, seed 0x%016llx, iters %llu, %d runs per operation\n\n",
           (unsigned long long)seed, (unsigned long long)iters, REPS);
    printf("%-24s %12s %12s %12s  %-4s %10s\n", "operation", "median", "min", "max", "unit", "target");
    for (size_t i = 0; i < N_BENCHES; i++) {
        const micro_bench *b = &BENCHES[i];
        char target[32] = "-";
        if (b->target > 0)
            snprintf(target, sizeof target, "<= %g %s", b->target, res[i].median <= b->target ? "ok" : "MISS");
        printf("%-24s %12.2f %12.2f %12.2f  %-4s %10s\n", b->label, res[i].median, res[i].min, res[i].max, b->unit,
               target);
    }
}

static void print_json(const micro_result *res, uint64_t seed, uint64_t iters)
{
    printf("{\"command\":\"micro\",\"threads\":1,\"clock\":\"thread_cpu\",\"seed\":\"0x%016llx\",\"iters\":%llu,"
           "\"runs\":%d,\"results\":[",
           (unsigned long long)seed, (unsigned long long)iters, REPS);
    for (size_t i = 0; i < N_BENCHES; i++) {
        const micro_bench *b = &BENCHES[i];
        printf("%s{\"op\":\"%s\",\"unit\":\"%s\",\"iters\":%llu,\"median\":%.3f,\"min\":%.3f,\"max\":%.3f,\"target\":",
               i ? "," : "", b->key, b->unit, (unsigned long long)res[i].iters, res[i].median, res[i].min, res[i].max);
        if (b->target > 0)
            printf("%g}", b->target);
        else
            printf("null}");
    }
    printf("]}\n");
}

int bench_micro(int argc, char **argv)
{
    uint64_t iters = DEFAULT_ITERS, seed = 0;
    int json = 0, have_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--iters") == 0 || strcmp(a, "--seed") == 0) {
            int is_iters = a[2] == 'i';
            uint64_t v;
            if (i + 1 >= argc || bench_parse_u64(argv[i + 1], &v) != 0 || (is_iters && v == 0)) {
                fprintf(stderr, "cuzk-bench micro: %s needs %s\n", a,
                        is_iters ? "a positive integer" : "an unsigned integer");
                return 2;
            }
            i++;
            if (is_iters) {
                iters = v;
            } else {
                seed = v;
                have_seed = 1;
            }
        } else {
            fprintf(stderr, "cuzk-bench micro: unknown option '%s' (try 'cuzk-bench micro --help')\n", a);
            return 2;
        }
    }
    if (!have_seed) seed = rng_fresh_seed();

    micro_ctx *c = malloc(sizeof *c);
    if (c == NULL) {
        fprintf(stderr, "cuzk-bench micro: out of memory\n");
        return 1;
    }
    rng_t rng;
    rng_seed(&rng, seed);
    fill_inputs(c, &rng);

    micro_result res[N_BENCHES];
    for (size_t i = 0; i < N_BENCHES; i++) measure(&BENCHES[i], c, iters, &res[i]);
    if (json)
        print_json(res, seed, iters);
    else
        print_table(res, seed, iters);
    free(c);
    return 0;
}
