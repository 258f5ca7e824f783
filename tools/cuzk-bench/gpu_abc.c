/* cuzk-bench gpu-abc: a, b, c of one partition evaluated on the GPU from the compiled shape (src/gpu/gpu_abc.h):
 * the shape's upload (once: time and device bytes), then per run the witness upload from pageable host memory
 * (and from page-locked memory) and the evaluation kernels (CUDA events), medians per kernel variant; --check
 * compares the device a, b, c with r1cs_eval_abc's (timed too, on every core). --prove: the partition's
 * prove_start on the GPU both ways, gpu_prove_start_abc (a, b, c from r1cs_eval_abc in pageable memory, as the
 * engine hands them over today) and gpu_prove_start_shape (the witness only), over parameters whose bases are
 * tiled from a few random points (the cost of real ones without a setup): same pending required, medians of
 * the stages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "circuits/porep/synth_c1.h"
#include "circuits/stacked/stacked_fast.h"
#include "circuits/synthetic.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_prove.h"
#include "gpu/tune.h"

#define MAX_RUNS 100

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench gpu-abc --circuit synthetic:k=K|porep:SIZE [--runs R] [--check]\n"
               "                         [--variant V[,V]]\n"
               "  K: 1..27 (the synthetic PoRep-shaped circuit); SIZE: a PoRep sector size (2KiB, 512MiB, 32GiB),\n"
               "  partition 0 of porep_synth_c1's C1. R runs per variant (default 5); variants: thread, hybrid\n"
               "  (default both). --check: every variant's a, b, c against r1cs_eval_abc's, byte for byte.\n"
               "  --prove: gpu_prove_start_abc against gpu_prove_start_shape (fake bases), stage medians.\n");
}

static double ms_since(uint64_t t0)
{
    return (double)(bench_now_ns() - t0) / 1e6;
}

static int pending_same(const groth16_pending *x, const groth16_pending *y)
{
    return g1_jac_eq(&x->h, &y->h) && g1_jac_eq(&x->l, &y->l) && g1_jac_eq(&x->a, &y->a) &&
           g1_jac_eq(&x->b_g1, &y->b_g1) && x->b_g2_done == y->b_g2_done &&
           (!x->b_g2_done || g2_jac_eq(&x->b_g2, &y->b_g2));
}

enum { PS_UPLOAD, PS_EVAL, PS_NTT, PS_MSM_H, PS_WAIT, PS_TOTAL, PS_N };

/* prove_start both ways, runs times each; 0 or an error. */
static cuzk_status bench_prove_start(pool_t *pool, const r1cs *sh, const r1cs *wit, const gpu_shape *s, const fr_t *abc,
                                     uint64_t runs, cuzk_error *err)
{
    static const char *const NAME[PS_N] = {"upload (a/b/c | witness)", "a/b/c eval on the GPU", "H: NTTs", "MSM H",
                                           "wait for classify",        "prove_start total"};
    size_t n = sh->num_constraints;
    domain_t d;
    r1cs_density dn;
    groth16_params params;
    gpu_params *gp = NULL;
    gpu_prover *pv = NULL;
    memset(&params, 0, sizeof params);
    double *t = calloc(2 * PS_N * runs, sizeof(double)), med[2][PS_N];
    if (!t) return cuzk_error_set(err, CUZK_ERR_NOMEM, "prove: out of memory");
    cuzk_status st = domain_for_size(&d, n, err);
    if (st == CUZK_OK) st = r1cs_compute_density(sh, &dn, err);
    if (st != CUZK_OK) {
        free(t);
        return st;
    }
    uint64_t t0 = bench_now_ns();
    st = bench_fake_params(pool, sh, &dn, d.m, &params, err);
    if (st == CUZK_OK) st = gpu_params_upload(0, &params, &gp, err);
    if (st == CUZK_OK) st = gpu_prover_create(0, &pv, err);
    if (st == CUZK_OK) printf("prove: fake params and their upload %.1f s\n", ms_since(t0) / 1e3);
    groth16_pending ref, p;
    for (uint64_t r = 0; r < runs && st == CUZK_OK; r++) {
        for (int way = 0; way < 2 && st == CUZK_OK; way++) {
            gpu_prove_timings gt;
            st = way == 0 ? gpu_prove_start_abc(pv, gp, pool, &params, n, abc, abc + n, abc + 2 * n, wit->inputs,
                                                wit->num_inputs, wit->aux, wit->num_aux, &dn, &ref, NULL, &gt, err)
                          : gpu_prove_start_shape(pv, gp, s, pool, &params, wit->inputs, wit->num_inputs, wit->aux,
                                                  wit->num_aux, &dn, &p, NULL, &gt, err);
            if (st != CUZK_OK) break;
            if (way == 1 && !pending_same(&ref, &p))
                st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "prove: gpu_prove_start_shape's pending differs");
            double *row = &t[(way * PS_N) * runs];
            row[PS_UPLOAD * runs + r] = gt.abc_upload_ms;
            row[PS_EVAL * runs + r] = gt.abc_eval_ms;
            row[PS_NTT * runs + r] = gt.ntt_ms;
            row[PS_MSM_H * runs + r] = gt.msm_h_ms;
            row[PS_WAIT * runs + r] = gt.classify_wait_ms;
            row[PS_TOTAL * runs + r] = gt.total_ms;
        }
    }
    if (st == CUZK_OK) {
        for (int way = 0; way < 2; way++)
            for (int k = 0; k < PS_N; k++) med[way][k] = bench_median(&t[(way * PS_N + k) * runs], runs);
        printf("prove_start (median of %llu ms)            start_abc  start_shape\n", (unsigned long long)runs);
        for (int k = 0; k < PS_N; k++) printf("  %-34s %9.1f  %11.1f\n", NAME[k], med[0][k], med[1][k]);
        printf("pending equal: yes\n");
    }
    gpu_prover_destroy(pv);
    gpu_params_free(gp);
    groth16_params_free(&params);
    r1cs_density_free(&dn);
    free(t);
    return st;
}

/* The circuit: shape (matrices) and witness (inputs, aux). For synthetic both are the same system. */
typedef struct bench_circuit {
    r1cs shape, wit;
    int same;
} bench_circuit;

static cuzk_status build_circuit(pool_t *pool, const char *spec, bench_circuit *bc, cuzk_error *err)
{
    memset(bc, 0, sizeof *bc);
    uint64_t k;
    if (strncmp(spec, "synthetic:k=", 12) == 0 && bench_parse_u64(spec + 12, &k) == 0) {
        if (k < SYNTHETIC_MIN_K || k > SYNTHETIC_MAX_K)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "synthetic k=%llu outside %d..%d", (unsigned long long)k,
                                  SYNTHETIC_MIN_K, SYNTHETIC_MAX_K);
        bc->same = 1;
        return synthetic_build(pool, (unsigned)k, 12345, R1CS_MATRICES | R1CS_WITNESS, &bc->shape, err);
    }
    const porep_geometry *g = NULL;
    if (strncmp(spec, "porep:", 6) != 0 || porep_geometry_parse(spec + 6, &g, err) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "--circuit %s: synthetic:k=K or porep:SIZE", spec);
    const porep_proof_type *t = porep_proof_type_find(g->sector_size, POREP_API_1_1, POREP_INTERACTIVE);
    if (!t) return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "no interactive V1_1 proof type for %s", g->name);
    stacked_circuit c;
    stacked_witness w;
    porep_c1 c1;
    memset(&w, 0, sizeof w);
    cuzk_status st = stacked_circuit_init_geometry(&c, g, POREP_INTERACTIVE, err);
    if (st != CUZK_OK) return st;
    st = porep_synth_c1(&c1, t, 1, err);
    if (st == CUZK_OK) {
        st = stacked_witness_from_c1(&w, &c, &c1, 0, err);
        porep_c1_free(&c1);
    }
    if (st == CUZK_OK) st = stacked_compile_shape(pool, &c, &bc->shape, err);
    if (st == CUZK_OK) st = stacked_synthesize_witness(pool, &c, &w, &bc->wit, err);
    if (st == CUZK_OK) st = r1cs_check_witness(&bc->shape, &bc->wit, err);
    stacked_witness_free(&w);
    stacked_circuit_free(&c);
    return st;
}

static void circuit_free(bench_circuit *bc)
{
    r1cs_free(&bc->shape);
    if (!bc->same) r1cs_free(&bc->wit);
}

int bench_gpu_abc(int argc, char **argv)
{
    const char *circuit = NULL, *variants = NULL;
    uint64_t runs = 5;
    int check = 0, prove = 0;
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (next && strcmp(argv[i], "--circuit") == 0) {
            circuit = argv[++i];
        } else if (next && strcmp(argv[i], "--runs") == 0 && bench_parse_u64(next, &runs) == 0 && runs >= 1 &&
                   runs <= MAX_RUNS) {
            i++;
        } else if (next && strcmp(argv[i], "--variant") == 0) {
            variants = argv[++i];
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--prove") == 0) {
            prove = 1;
        } else {
            fprintf(stderr, "cuzk-bench gpu-abc: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!circuit) {
        fprintf(stderr, "cuzk-bench gpu-abc: --circuit required\n");
        usage(stderr);
        return 2;
    }
    int use[8] = {0}, nvar = gpu_abc_variant_count(); /* 0 without CUDA: gpu_ctx_create then says so */
    for (int v = 0; v < nvar && v < 8; v++) {
        const char *name = gpu_abc_variant_name(v), *p = variants;
        size_t len = strlen(name);
        use[v] = variants == NULL;
        while (p && *p) {
            size_t tl = strcspn(p, ",");
            if (tl == len && strncmp(p, name, len) == 0) use[v] = 1;
            p += tl + (p[tl] == ',');
        }
    }

    int rc = 1;
    cuzk_error err = {0};
    pool_t *pool = NULL;
    gpu_ctx *ctx = NULL;
    gpu_shape *s = NULL;
    gpu_buf *out = NULL;
    bench_circuit bc;
    memset(&bc, 0, sizeof bc);
    bc.same = 1;
    fr_t *host_abc = NULL, *ref = NULL;
    double *t_up = calloc(2 * MAX_RUNS, sizeof(double)), *t_ev = t_up + MAX_RUNS;
    if (!t_up || pool_create(&pool, 0, &err) != CUZK_OK) goto fail;
    uint64_t t0 = bench_now_ns();
    if (build_circuit(pool, circuit, &bc, &err) != CUZK_OK) goto fail;
    const r1cs *sh = &bc.shape, *wit = bc.same ? &bc.shape : &bc.wit;
    size_t n = sh->num_constraints, nnz[3] = {sh->A.row_start[n], sh->B.row_start[n], sh->C.row_start[n]};
    size_t host_bytes = sh->num_coeffs * sizeof(fr_t) + 3 * (n + 1) * sizeof(uint64_t) +
                        (nnz[0] + nnz[1] + nnz[2]) * 2 * sizeof(uint32_t);
    printf("circuit %s: %zu constraints, %zu inputs, %zu aux, nnz A %zu B %zu C %zu, %zu coefficients; built in "
           "%.2f s\n",
           circuit, n, sh->num_inputs, sh->num_aux, nnz[0], nnz[1], nnz[2], sh->num_coeffs, ms_since(t0) / 1e3);

    if (gpu_ctx_create(&ctx, 0, &err) != CUZK_OK) goto fail;
    t0 = bench_now_ns();
    if (gpu_shape_upload(0, sh, &s, &err) != CUZK_OK) goto fail;
    printf("shape upload: %.1f ms, %zu device bytes (%.2f GiB; host CSR %.2f GiB)\n", ms_since(t0), gpu_shape_bytes(s),
           gpu_shape_bytes(s) / 1073741824.0, host_bytes / 1073741824.0);
    /* The outputs stay on the device (as the prover keeps them): one buffer of 3n. */
    host_abc = calloc(3 * n + 1, sizeof(fr_t));
    if (!host_abc) {
        cuzk_error_set(&err, CUZK_ERR_NOMEM, "cannot allocate a/b/c (%zu bytes)", 3 * n * sizeof(fr_t));
        goto fail;
    }
    if (gpu_buf_upload(ctx, &out, host_abc, (3 * n + 1) * sizeof(fr_t), &err) != CUZK_OK) goto fail;
    fr_t *da = (fr_t *)gpu_buf_ptr(out);
    size_t wbytes = (wit->num_inputs + wit->num_aux) * sizeof(fr_t);
    for (int pinned = 0; pinned < 2; pinned++) {
        if (pinned && gpu_host_register(wit->aux, wit->num_aux * sizeof(fr_t), &err) != CUZK_OK) {
            printf("(page-locked witness skipped: %s)\n", err.msg);
            break;
        }
        for (int v = 0; v < nvar; v++) {
            if (!use[v]) continue;
            setenv("CUZK_GPU_ABC", gpu_abc_variant_name(v), 1);
            gpu_tune_reload_env();
            for (uint64_t r = 0; r < runs; r++) {
                gpu_abc_timings t;
                if (gpu_shape_eval(ctx, s, wit->inputs, wit->num_inputs, wit->aux, wit->num_aux, da, da + n, da + 2 * n,
                                   &t, &err) != CUZK_OK)
                    goto fail;
                t_up[r] = t.upload_ms;
                t_ev[r] = t.eval_ms;
            }
            double mu = bench_median(t_up, runs), me = bench_median(t_ev, runs);
            printf("%-7s witness %s: upload %.2f ms (%.1f GB/s), eval %.3f ms (median of %llu; shape + a/b/c "
                   "%.0f GB/s)\n",
                   gpu_abc_variant_name(v), pinned ? "page-locked" : "pageable   ", mu, wbytes / mu / 1e6, me,
                   (unsigned long long)runs, (gpu_shape_bytes(s) + 3 * n * sizeof(fr_t)) / me / 1e6);
            fflush(stdout);
        }
        if (pinned) gpu_host_unregister(wit->aux, &err);
    }
    unsetenv("CUZK_GPU_ABC");
    gpu_tune_reload_env();

    if (check || prove) {
        ref = malloc((3 * n + 1) * sizeof(fr_t));
        if (!ref) {
            cuzk_error_set(&err, CUZK_ERR_NOMEM, "cannot allocate the reference a/b/c");
            goto fail;
        }
        t0 = bench_now_ns();
        if (r1cs_eval_abc(pool, sh, wit->inputs, wit->aux, ref, ref + n, ref + 2 * n, &err) != CUZK_OK) goto fail;
        printf("r1cs_eval_abc (CPU, %u threads): %.1f ms\n", pool_size(pool), ms_since(t0));
        for (int v = 0; v < nvar && check; v++) {
            if (!use[v]) continue;
            setenv("CUZK_GPU_ABC", gpu_abc_variant_name(v), 1);
            gpu_tune_reload_env();
            memset(host_abc, 0x5A, 3 * n * sizeof(fr_t));
            gpu_abc_timings t;
            if (gpu_shape_eval(ctx, s, wit->inputs, wit->num_inputs, wit->aux, wit->num_aux, host_abc, host_abc + n,
                               host_abc + 2 * n, &t, &err) != CUZK_OK)
                goto fail;
            for (int m = 0; m < 3; m++)
                for (size_t i = 0; i < n; i++)
                    if (memcmp(&ref[m * n + i], &host_abc[m * n + i], sizeof(fr_t)) != 0) {
                        cuzk_error_set(&err, CUZK_ERR_INTERNAL, "check (%s): %c differs at row %zu",
                                       gpu_abc_variant_name(v), "abc"[m], i);
                        goto fail;
                    }
            printf("check %s: a, b, c equal r1cs_eval_abc's (download %.1f ms)\n", gpu_abc_variant_name(v),
                   t.download_ms);
        }
        unsetenv("CUZK_GPU_ABC");
        gpu_tune_reload_env();
    }
    if (prove) {
        /* The device buffers of the runs above are not needed any more; the prover wants the memory. */
        gpu_buf_free(out);
        out = NULL;
        free(host_abc);
        host_abc = NULL;
        if (bench_prove_start(pool, sh, wit, s, ref, runs, &err) != CUZK_OK) goto fail;
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cuzk-bench gpu-abc: %s\n", err.msg);
out:
    gpu_buf_free(out);
    gpu_shape_free(s);
    gpu_ctx_destroy(ctx);
    circuit_free(&bc);
    pool_destroy(pool);
    free(host_abc);
    free(ref);
    free(t_up);
    return rc;
}
