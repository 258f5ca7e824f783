/* cuzk-bench: dispatches to one benchmark subcommand. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

typedef struct bench_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} bench_command;

/* One line per subcommand. */
static const bench_command COMMANDS[] = {
    {"micro", bench_micro, "single-thread cost of field, curve and pairing operations"},
    {"ntt", bench_ntt, "forward NTT and the H computation (both forms) on CPU threads"},
    {"msm", bench_msm, "multi-scalar multiplication on CPU threads (G1 or G2)"},
    {"prove", bench_prove, "one whole CPU proof of the synthetic circuit, per stage"},
    {"batch", bench_batch, "the proving engine in-process: N proofs, throughput and per-stage statistics"},
    {"timeline", bench_timeline, "the batch statistics recomputed from a saved TIMELINE log"},
    {"gpu-ntt", bench_gpu_ntt, "device NTT and H computation, timed with CUDA events"},
    {"gpu-msm", bench_gpu_msm, "G1 MSM on the GPU, timed with CUDA events"},
    {"gpu-g2", bench_gpu_g2, "B_G2 on the GPU (G2 batch addition and tail MSM), timed with CUDA events"},
    {"gpu-fp", bench_gpu_fp, "Fp products per second on the GPU (32-bit integer Montgomery chains)"},
    {"gpu-abc", bench_gpu_abc, "a, b, c evaluated on the GPU from the compiled shape, timed with CUDA events"},
    {"synth", bench_synth, "PoRep partition synthesis: witness and a/b/c evaluation, per thread count"},
    {"single", bench_single, "one proof through a running cuzk-daemon (--addr)"},
    {"status", bench_status, "a running cuzk-daemon's GetStatus (--addr)"},
    {"preload", bench_preload, "ask a running cuzk-daemon to load a parameter set (--addr)"},
    {"metrics", bench_metrics, "a running cuzk-daemon's Prometheus metrics (--addr)"},
};

#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench <command> [options]\n"
               "       cuzk-bench <command> --help\n\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++) fprintf(f, "  %-9s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "\nExit status: 0 success, 1 a benchmark failed, 2 usage error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cuzk-bench: unknown command '%s' (try 'cuzk-bench --help')\n", argv[1]);
    return 2;
}

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_gpu_open(const char *name, gpu_device_info *info, gpu_ctx **ctx)
{
    *ctx = NULL;
    if (gpu_device_count() == 0) {
        printf("SKIP %s: no CUDA device (or built without CUDA)\n", name);
        return 0;
    }
    cuzk_error err = {0};
    if (gpu_device_get_info(0, info, &err) != CUZK_OK || gpu_ctx_create(ctx, 0, &err) != CUZK_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return -1;
    }
    return 1;
}

int bench_parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL) return -1;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    /* strtoull alone would accept signs and leading blanks. */
    if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits))) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno != 0 || *end != '\0') return -1;
    *out = (uint64_t)v;
    return 0;
}
