/* cuzk-bench prove: one whole Groth16 proof on CPU threads, per stage, for the
 * synthetic PoRep-shaped circuit at several sizes. Setup runs once per size (in
 * memory, not timed); each proof uses a fresh witness-independent r, s.
 *
 * Setup dominates the run at 2^20 and above, so --cache DIR keeps the parameters of each (size, seed) in a
 * .params file and loads them (without the subgroup checks) on the next run. A stale file (the synthetic circuit
 * changed since) would still match the shape checks, so the warm-up proof is always verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "circuits/spec.h"
#include "groth16/groth16.h"

#define MAX_LOGS 16
#define N_STAGES 10

/* Wall milliseconds per stage and in all, then the process CPU milliseconds of the whole proof: on a shared
 * machine the wall times include waiting for a core, the CPU time does not. */
static const char *STAGE_NAMES[N_STAGES] = {"a/b/c",    "H (NTTs)", "MSM H",    "MSM L", "MSM A",
                                            "MSM B_G1", "MSM B_G2", "assembly", "total", "cpu"};

double bench_cpu_seconds(void); /* msm.c */

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench prove [--log K]... [--threads T] [--reps R] [--seed S] [--cache DIR] [--json]\n"
               "  Times a whole CPU proof of the synthetic circuit of 2^K constraints (default K = 16),\n"
               "  per stage, median of R proofs (default 3) after one warm-up proof, which is verified.\n"
               "  --cache DIR  load the parameters from DIR/prove-k<K>-seed<S>.params, or run setup and\n"
               "               write that file (setup at K = 20 takes minutes, loading seconds)\n");
}

/* The parameters for cs: loaded from the cache file when there is one, else from setup (then written to the
 * cache when a directory is given). Prints what it did and how long it took to stderr. */
static cuzk_status prove_params(pool_t *pool, const circuit_spec *spec, const r1cs *cs, const char *cache,
                                groth16_params *params, cuzk_error *err)
{
    char path[4096];
    if (cache) {
        int len =
            snprintf(path, sizeof path, "%s/prove-k%u-seed%llu.params", cache, spec->k, (unsigned long long)spec->seed);
        if (len < 0 || (size_t)len >= sizeof path)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "cache path under '%s' is too long", cache);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            uint64_t t0 = bench_now_ns();
            cuzk_status st = groth16_params_read(pool, params, path, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, err);
            if (st == CUZK_OK)
                fprintf(stderr, "cuzk-bench prove: k=%u: parameters loaded from %s in %.1f s\n", spec->k, path,
                        (double)(bench_now_ns() - t0) / 1e9);
            return st;
        }
    }
    fprintf(stderr, "cuzk-bench prove: k=%u: setup...\n", spec->k);
    uint64_t t0 = bench_now_ns();
    cuzk_status st = groth16_setup(pool, cs, params, err);
    if (st != CUZK_OK) return st;
    fprintf(stderr, "cuzk-bench prove: k=%u: setup took %.1f s\n", spec->k, (double)(bench_now_ns() - t0) / 1e9);
    if (cache) {
        st = groth16_params_write(pool, params, path, err);
        if (st != CUZK_OK) {
            groth16_params_free(params);
            return st;
        }
        fprintf(stderr, "cuzk-bench prove: k=%u: parameters written to %s\n", spec->k, path);
    }
    return CUZK_OK;
}

/* CUZK_OK if proof verifies against the circuit's public inputs (without the constant ONE). */
static cuzk_status prove_verify(pool_t *pool, const groth16_params *params, const r1cs *cs, const groth16_proof *proof,
                                cuzk_error *err)
{
    groth16_pvk pvk;
    cuzk_status st = groth16_pvk_prepare(&pvk, &params->vk, err);
    if (st != CUZK_OK) return st;
    st = groth16_verify(pool, &pvk, proof, cs->inputs + 1, cs->num_inputs - 1, err);
    groth16_pvk_free(&pvk);
    if (st == CUZK_ERR_INVALID_PROOF)
        return cuzk_error_set(err, st, "the warm-up proof does not verify (a stale --cache file?)");
    return st;
}

int bench_prove(int argc, char **argv)
{
    unsigned logs[MAX_LOGS], n_logs = 0, threads = 0, reps = 3;
    uint64_t seed = 1;
    int json = 0;
    const char *cache = NULL;
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
        } else if (i + 1 < argc && strcmp(argv[i], "--cache") == 0) {
            cache = argv[++i];
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
    if (json)
        printf("{\"threads\": %u, \"reps\": %u, \"sizes\": [", pool_size(pool), reps);
    else
        printf("CPU prover, %u threads, median of %u proofs (ms; stages wall, cpu = process CPU time)\n%-4s %-12s",
               pool_size(pool), reps, "k", "constraints");
    if (!json)
        for (int s = 0; s < N_STAGES; s++) printf(" %9s", STAGE_NAMES[s]);
    if (!json) printf("\n");
    for (unsigned li = 0; li < n_logs && rc == 0; li++) {
        circuit_spec spec = {.kind = CIRCUIT_SYNTHETIC, .k = logs[li], .seed = seed};
        r1cs cs;
        groth16_params params;
        cuzk_status st = circuit_spec_build(pool, &spec, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
        if (st == CUZK_OK) {
            st = prove_params(pool, &spec, &cs, cache, &params, &err);
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
            double cpu0 = bench_cpu_seconds();
            st = groth16_prove(pool, &params, &cs, NULL, NULL, NULL, NULL, &proof, &t, &err);
            double total = (double)(bench_now_ns() - t0) / 1e6, cpu = (bench_cpu_seconds() - cpu0) * 1e3;
            if (r == 0) {
                if (st == CUZK_OK) st = prove_verify(pool, &params, &cs, &proof, &err);
                continue;
            }
            double *row = samples + (size_t)(r - 1) * N_STAGES;
            double v[N_STAGES] = {t.eval_abc_ms, t.h_ms,        t.msm_h_ms,    t.msm_l_ms, t.msm_a_ms,
                                  t.msm_b_g1_ms, t.msm_b_g2_ms, t.assembly_ms, total,      cpu};
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
                static const char *keys[N_STAGES] = {"abc_ms",   "h_ms",        "msm_h_ms",    "msm_l_ms",
                                                     "msm_a_ms", "msm_b_g1_ms", "msm_b_g2_ms", "assembly_ms",
                                                     "total_ms", "cpu_ms"};
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
