/* cuzk-bench prove: one whole Groth16 proof on CPU threads, per stage, for the
 * synthetic PoRep-shaped circuit at several sizes. Setup runs once per size (in
 * memory, not timed); each proof uses a fresh witness-independent r, s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "circuits/spec.h"
#include "groth16/groth16.h"

#define MAX_LOGS 16
#define N_STAGES 9

static const char *STAGE_NAMES[N_STAGES] = {"a/b/c", "H (NTTs)", "MSM H", "MSM L", "MSM A",
                                             "MSM B_G1", "MSM B_G2", "assembly", "total"};

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench prove [--log K]... [--threads T] [--reps R] [--seed S] [--json]\n"
               "  Times a whole CPU proof of the synthetic circuit of 2^K constraints (default K = 16),\n"
               "  per stage, median of R proofs (default 3) after one warm-up proof.\n");
}

int bench_prove(int argc, char **argv)
{
    unsigned logs[MAX_LOGS], n_logs = 0, threads = 0, reps = 3;
    uint64_t seed = 1;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (i + 1 < argc && strcmp(argv[i], "--log") == 0 && bench_parse_u64(argv[i + 1], &v) == 0 && v >= 1 &&
                   v <= 27 && n_logs < MAX_LOGS) {
            logs[n_logs++] = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0 && bench_parse_u64(argv[i + 1], &v) == 0 &&
                   v >= 1 && v <= 4096) {
            threads = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0 && bench_parse_u64(argv[i + 1], &v) == 0 && v >= 1 &&
                   v <= 1000) {
            reps = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0 && bench_parse_u64(argv[i + 1], &v) == 0) {
            seed = v;
            i++;
        } else {
            fprintf(stderr, "cuzk-bench prove: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (n_logs == 0) logs[n_logs++] = 16;
    cuzk_error err;
    pool_t *pool;
    if (pool_create(&pool, threads, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench prove: %s\n", err.msg);
        return 1;
    }
    double *samples = malloc((size_t)reps * N_STAGES * sizeof *samples);
    if (!samples) {
        pool_destroy(pool);
        fprintf(stderr, "cuzk-bench prove: out of memory\n");
        return 1;
    }
    int rc = 0;
    if (json) printf("{\"threads\": %u, \"reps\": %u, \"sizes\": [", pool_size(pool), reps);
    else printf("CPU prover, %u threads, median of %u proofs (ms)\n%-4s %-12s", pool_size(pool), reps, "k", "constraints");
    if (!json)
        for (int s = 0; s < N_STAGES; s++) printf(" %9s", STAGE_NAMES[s]);
    if (!json) printf("\n");
    for (unsigned li = 0; li < n_logs && rc == 0; li++) {
        circuit_spec spec = {.kind = CIRCUIT_SYNTHETIC, .k = logs[li], .seed = seed};
        r1cs cs;
        groth16_params params;
        cuzk_status st = circuit_spec_build(pool, &spec, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        if (st == CUZK_OK) {
            fprintf(stderr, "cuzk-bench prove: k=%u: setup...\n", spec.k);
            st = groth16_setup(pool, &cs, &params, &err);
            if (st != CUZK_OK) r1cs_free(&cs);
        }
        if (st != CUZK_OK) {
            fprintf(stderr, "cuzk-bench prove: k=%u: %s\n", spec.k, err.msg);
            rc = 1;
            break;
        }
        for (unsigned r = 0; r <= reps && st == CUZK_OK; r++) { /* r == 0 is the warm-up */
            groth16_proof proof;
            groth16_timings t;
            uint64_t t0 = bench_now_ns();
            st = groth16_prove(pool, &params, &cs, NULL, NULL, NULL, NULL, &proof, &t, &err);
            double total = (double)(bench_now_ns() - t0) / 1e6;
            if (r == 0) continue;
            double *row = samples + (size_t)(r - 1) * N_STAGES;
            double v[N_STAGES] = {t.eval_abc_ms, t.h_ms,        t.msm_h_ms,    t.msm_l_ms, t.msm_a_ms,
                                  t.msm_b_g1_ms, t.msm_b_g2_ms, t.assembly_ms, total};
            memcpy(row, v, sizeof v);
        }
        if (st != CUZK_OK) {
            fprintf(stderr, "cuzk-bench prove: k=%u: %s\n", spec.k, err.msg);
            rc = 1;
        } else {
            double med[N_STAGES], col[1000];
            for (int s = 0; s < N_STAGES; s++) {
                for (unsigned r = 0; r < reps; r++) col[r] = samples[(size_t)r * N_STAGES + s];
                med[s] = bench_median(col, reps);
            }
            if (json) {
                printf("%s{\"k\": %u, \"constraints\": %zu", li ? ", " : "", spec.k, cs.num_constraints);
                static const char *keys[N_STAGES] = {"abc_ms",    "h_ms",      "msm_h_ms",    "msm_l_ms", "msm_a_ms",
                                                     "msm_b_g1_ms", "msm_b_g2_ms", "assembly_ms", "total_ms"};
                for (int s = 0; s < N_STAGES; s++) printf(", \"%s\": %.3f", keys[s], med[s]);
                printf("}");
            } else {
                printf("%-4u %-12zu", spec.k, cs.num_constraints);
                for (int s = 0; s < N_STAGES; s++) printf(" %9.1f", med[s]);
                printf("\n");
            }
            fflush(stdout);
        }
        groth16_params_free(&params);
        r1cs_free(&cs);
    }
    if (json) printf("]}\n");
    free(samples);
    pool_destroy(pool);
    return rc;
}
