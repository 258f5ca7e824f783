/* The device-memory cap (src/gpu/mem.cu, gpu_tune.memory_limit) and the prover's plan under it (plan.h): an
 * allocation beyond the cap fails with CUZK_ERR_NOMEM (no crash), the device's figures are the capped ones, and a
 * synthetic partition (2^CUZK_TEST_MEM_K constraints, default 20) proves byte for byte as without a cap, from the
 * device's matrices (NTTs in place) and from host a, b, c (the three-vector H), under a cap of 1.5 GiB and one of the
 * plan's work + the matrices + 96 MiB (B_G2 and most bases streamed in pieces) while the bytes the backend holds
 * never pass the cap (gpu_mem_peak); CUZK_GPU_TRACE's file for such a partition. A cap below the partition's H
 * step fails before any work with CUZK_ERR_NOMEM. Prints the seam's cost per allocation. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#ifdef CUZK_HAVE_GPU
#include "circuits/synthetic.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_ntt.h"
#include "gpu/gpu_prove.h"
#include "gpu/gpu_setup.h"
#include "gpu/tune.h"

static pool_t *pool;
static rng_t rng;

static void set_cap(size_t cap)
{
    gpu_tune t = gpu_tune_get();
    t.memory_limit = cap;
    gpu_tune_set(&t);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_alloc_cap(void)
{
    cuzk_error err = {0};
    size_t base = gpu_mem_live(0);
    set_cap(base + ((size_t)256 << 20));
    cuzk_status st = gpu_mem_try_alloc(0, (size_t)512 << 20, &err);
    CHECK_MSG(st == CUZK_ERR_NOMEM, "512 MiB under a 256 MiB cap gave %s (%s)", cuzk_status_name(st), err.msg);
    CHECK_MSG(strstr(err.msg, "cap") != NULL, "the error does not name the cap: %s", err.msg);
    st = gpu_mem_try_alloc(0, (size_t)128 << 20, &err);
    CHECK_MSG(st == CUZK_OK, "128 MiB under a 256 MiB cap: %s", err.msg);
    CHECK(gpu_mem_live(0) == base);
    gpu_device_info info;
    st = gpu_device_get_info(0, &info, &err);
    CHECK_MSG(st == CUZK_OK && info.total_mem == base + ((size_t)256 << 20) && info.free_mem <= (size_t)256 << 20,
              "capped device info: total %zu free %zu", info.total_mem, info.free_mem);
    /* A context under the cap works (the pool's release threshold is the cap). */
    gpu_ctx *ctx = NULL;
    CHECK(gpu_ctx_create(&ctx, 0, &err) == CUZK_OK);
    gpu_ctx_destroy(ctx);
    set_cap(0);
    st = gpu_mem_try_alloc(0, (size_t)512 << 20, &err);
    CHECK_MSG(st == CUZK_OK, "512 MiB without a cap: %s", err.msg);
}

/* The seam's cost: ns per stream-ordered allocation + free through it (the map and its mutex) and raw. */
static void seam_cost(void)
{
    cuzk_error err = {0};
    double seam = 0, raw = 0;
    for (int rep = 0; rep < 3; rep++) {
        cuzk_status st = gpu_debug_mem_cost(0, 20000, &seam, &raw, &err);
        CHECK_MSG(st == CUZK_OK, "seam cost: %s", err.msg);
        printf("  seam: %.0f ns per 4 KiB gpu_malloc_async + gpu_free_async, %.0f ns through CUDA directly\n", seam,
               raw);
    }
}

/* The three-vector H (gpu_ntt_h_device_3) against the four-vector one on random a, b, c (n < m values each, from
 * the host), at sizes of one and several passes: the same m values, and its device peak 3 vectors + the tables. */
static void test_ntt_three(void)
{
    static const unsigned logs[] = {4, 10, 15, 18, 21};
    cuzk_error err = {0};
    gpu_ctx *ctx = NULL;
    CHECK(gpu_ctx_create(&ctx, 0, &err) == CUZK_OK);
    for (size_t li = 0; ctx && li < sizeof logs / sizeof logs[0]; li++) {
        unsigned L = logs[li];
        size_t m = (size_t)1 << L, n = m - 1 - (size_t)(rng_next(&rng) % (m / 4));
        fr_t *abc = malloc(3 * n * sizeof(fr_t)), *h4 = malloc(m * sizeof(fr_t)), *h3 = malloc(m * sizeof(fr_t));
        gpu_ntt_plan *pl = NULL;
        CHECK(abc && h4 && h3);
        if (!abc || !h4 || !h3) exit(1);
        for (size_t i = 0; i < 3 * n; i++) fr_random(&abc[i], &rng);
        cuzk_status st = gpu_ntt_plan_create(ctx, L, POLY_ROOTS_CUZK, &pl, &err);
        fr_t *d4 = NULL, *d3 = NULL;
        if (st == CUZK_OK) st = gpu_ntt_h_device(pl, H_FORM_BELLPERSON, abc, abc + n, abc + 2 * n, n, &d4, &err);
        if (st == CUZK_OK) st = gpu_ntt_copy(ctx, h4, d4, m * sizeof(fr_t), &err);
        size_t base = gpu_mem_live(0);
        gpu_mem_reset_peak(0);
        if (st == CUZK_OK) st = gpu_ntt_h_device_3(pl, H_FORM_BELLPERSON, abc, abc + n, abc + 2 * n, n, &d3, &err);
        size_t peak = gpu_mem_peak(0) - base;
        if (st == CUZK_OK) st = gpu_ntt_copy(ctx, h3, d3, m * sizeof(fr_t), &err);
        CHECK_MSG(st == CUZK_OK, "2^%u: %s", L, err.msg);
        CHECK_MSG(st != CUZK_OK || memcmp(h3, h4, m * sizeof(fr_t)) == 0, "2^%u: the three-vector H differs", L);
        /* 3 vectors, and the two scale tables of at most 2 * 2^ceil(L/2) entries each. */
        CHECK_MSG(peak <= 3 * m * sizeof(fr_t) + 8 * ((size_t)1 << ((L + 1) / 2)) * sizeof(fr_t) + 4096,
                  "2^%u: the three-vector H held %zu bytes at its peak", L, peak);
        gpu_ntt_h_free(ctx, d4);
        gpu_ntt_h_free(ctx, d3);
        gpu_ntt_plan_destroy(pl);
        free(abc);
        free(h4);
        free(h3);
    }
    /* The snarkjs form has no three-vector path. */
    gpu_ntt_plan *ps = NULL;
    fr_t x[8], *dx = NULL;
    memset(x, 0, sizeof x);
    if (ctx && gpu_ntt_plan_create(ctx, 3, POLY_ROOTS_SNARKJS, &ps, &err) == CUZK_OK)
        CHECK(gpu_ntt_h_device_3(ps, H_FORM_SNARKJS, x, x, NULL, 8, &dx, &err) == CUZK_ERR_INVALID_ARG && !dx);
    gpu_ntt_plan_destroy(ps);
    gpu_ctx_destroy(ctx);
}

typedef struct run_out {
    uint8_t proof[GROTH16_PROOF_BYTES];
    int ok;
    size_t resident; /* bytes of bases on the device */
} run_out;

/* prove_once's prover split and the last call's timings. */
static gpu_prove_split once_split = GPU_SPLIT_AUTO;
static gpu_prove_timings once_gt;

/* One partition with the GPU prover (from the device shape, or from a, b, c), then the CPU's finish with r, s. */
static void prove_once(const char *what, const groth16_params *params, const r1cs *cs, const r1cs_density *dn,
                       const fr_t *abc, size_t m, int from_shape, const fr_t *r, const fr_t *s, run_out *out)
{
    cuzk_error err = {0};
    gpu_params *gp = NULL;
    gpu_prover *pv = NULL;
    gpu_shape *sh = NULL;
    groth16_pending pd;
    groth16_proof proof;
    out->ok = 0;
    memset(&once_gt, 0, sizeof once_gt);
    cuzk_status st = gpu_prover_create(0, &pv, &err);
    if (st == CUZK_OK) gpu_prover_set_split(pv, once_split);
    if (st == CUZK_OK && from_shape) st = gpu_shape_upload(0, cs, &sh, &err);
    if (st == CUZK_OK) st = gpu_params_upload(0, params, &gp, &err);
    out->resident = gpu_params_bytes(gp);
    if (st == CUZK_OK && from_shape)
        st = gpu_prove_start_shape(pv, gp, sh, pool, params, cs->inputs, cs->num_inputs, cs->aux, cs->num_aux, dn, &pd,
                                   NULL, &once_gt, &err);
    else if (st == CUZK_OK)
        st = gpu_prove_start_abc(pv, gp, pool, params, cs->num_constraints, abc, abc + m, abc + 2 * m, cs->inputs,
                                 cs->num_inputs, cs->aux, cs->num_aux, dn, &pd, NULL, &once_gt, &err);
    if (st == CUZK_OK) st = groth16_prove_finish(pool, &pd, r, s, &proof, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", what, err.msg);
    if (st == CUZK_OK) {
        groth16_proof_write(out->proof, &proof);
        out->ok = 1;
    }
    gpu_params_free(gp);
    gpu_shape_free(sh);
    gpu_prover_destroy(pv);
}

static void test_prove_capped(unsigned k)
{
    cuzk_error err = {0};
    r1cs cs;
    groth16_params params;
    r1cs_density dn;
    domain_t d;
    gpu_ctx *ctx = NULL;
    gpu_fixed_base *gfb = NULL;
    groth16_fixed_base fb;
    memset(&params, 0, sizeof params);
    double t0 = now_s();
    cuzk_status st = synthetic_build(pool, k, 5, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
    CHECK_MSG(st == CUZK_OK, "synthetic 2^%u: %s", k, err.msg);
    if (st != CUZK_OK) return;
    if ((st = gpu_ctx_create(&ctx, 0, &err)) == CUZK_OK) st = gpu_fixed_base_create(ctx, &gfb, &err);
    if (st == CUZK_OK) {
        gpu_fixed_base_engine(gfb, &fb);
        groth16_setup_options opts = {&fb, NULL, NULL};
        st = groth16_setup_opts(pool, &cs, &opts, &params, &err);
    }
    gpu_fixed_base_destroy(gfb);
    gpu_ctx_destroy(ctx);
    CHECK_MSG(st == CUZK_OK, "setup: %s", err.msg);
    if (st == CUZK_OK) st = r1cs_compute_density(&cs, &dn, &err);
    if (st == CUZK_OK) st = domain_for_size(&d, cs.num_constraints, &err);
    fr_t *abc = st == CUZK_OK ? calloc(3 * d.m, sizeof(fr_t)) : NULL;
    if (abc) st = r1cs_eval_abc(pool, &cs, cs.inputs, cs.aux, abc, abc + d.m, abc + 2 * d.m, &err);
    CHECK_MSG(st == CUZK_OK && abc, "fixture: %s", err.msg);
    if (st != CUZK_OK || !abc) goto out;
    printf("  2^%u: %zu constraints, fixture %.1f s\n", k, cs.num_constraints, now_s() - t0);

    fr_t r, s;
    fr_random(&r, &rng);
    fr_random(&s, &rng);
    run_out ref[2];
    set_cap(0);
    for (int sh = 0; sh < 2; sh++)
        prove_once(sh ? "uncapped, from the shape" : "uncapped, a b c", &params, &cs, &dn, abc, d.m, sh, &r, &s,
                   &ref[sh]);
    CHECK_MSG(ref[0].ok && ref[1].ok && memcmp(ref[0].proof, ref[1].proof, GROTH16_PROOF_BYTES) == 0,
              "uncapped: the two entries disagree");

    /* 1.5 GiB (every section fits), and the plan's work (5 domain vectors) + the matrices + 96 MiB: B_G2 and most
     * G1 sections streamed, in pieces sized to what is left. */
    size_t shape_b = 0;
    {
        gpu_shape *gs = NULL;
        if (gpu_shape_upload(0, &cs, &gs, &err) == CUZK_OK) shape_b = gpu_shape_bytes(gs);
        gpu_shape_free(gs);
    }
    const size_t caps[2] = {(size_t)3 << 29, 5 * d.m * sizeof(fr_t) + shape_b + ((size_t)96 << 20)};
    for (int c = 0; c < 2; c++) {
        /* The cap counts what the backend holds beyond what this test already holds (nothing, normally). */
        size_t base = gpu_mem_live(0), cap = base + caps[c];
        for (int sh = 0; sh < 2; sh++) {
            char what[96];
            snprintf(what, sizeof what, "cap %zu MiB, %s", caps[c] >> 20, sh ? "from the shape" : "a b c");
            set_cap(cap);
            gpu_mem_reset_peak(0);
            double t1 = now_s();
            run_out got;
            prove_once(what, &params, &cs, &dn, abc, d.m, sh, &r, &s, &got);
            size_t peak = gpu_mem_peak(0);
            set_cap(0);
            printf("  %-32s peak %.1f MiB of %.1f MiB, bases resident %.1f of %.1f MiB, %.2f s\n", what,
                   (double)(peak - base) / (1 << 20), (double)caps[c] / (1 << 20), (double)got.resident / (1 << 20),
                   (double)ref[sh].resident / (1 << 20), now_s() - t1);
            CHECK_MSG(peak <= cap, "%s: the backend held %zu bytes, past the cap of %zu", what, peak, cap);
            CHECK_MSG(got.ok && memcmp(got.proof, ref[sh].proof, GROTH16_PROOF_BYTES) == 0,
                      "%s: proof bytes differ from the uncapped run", what);
        }
    }

    /* The witness packed before the turn (gpu_tune.witness_pack = 1; every query split, so that L's is), and
     * the streamed MSM stage's other switches on (B_G2's pieces overlapped, the queries above the H MSM, the H
     * MSM's first copy first): the same proofs under the cap. */
    for (int v = 0; v < 2; v++) {
        const char *what = v ? "B_G2 overlapped, queries above, H first" : "packed witness";
        gpu_tune saved = gpu_tune_get(), t = saved;
        size_t base = gpu_mem_live(0);
        if (v)
            t.b_g2_overlap = t.queries_above = t.h_first = 1;
        else
            t.witness_pack = 1;
        t.memory_limit = base + caps[1];
        gpu_tune_set(&t);
        gpu_mem_reset_peak(0);
        once_split = v ? GPU_SPLIT_AUTO : GPU_SPLIT_ALWAYS;
        run_out got;
        prove_once(what, &params, &cs, &dn, abc, d.m, !v, &r, &s, &got);
        once_split = GPU_SPLIT_AUTO;
        size_t peak = gpu_mem_peak(0);
        gpu_tune_set(&saved);
        if (!v) {
            printf("  packed witness: %s, upload %.2f ms\n", once_gt.witness_packed ? "packed" : "NOT packed",
                   once_gt.abc_upload_ms);
            CHECK_MSG(once_gt.witness_packed, "packed witness: the witness was not packed");
        }
        CHECK_MSG(peak <= base + caps[1], "%s: past the cap", what);
        CHECK_MSG(got.ok && memcmp(got.proof, ref[!v].proof, GROTH16_PROOF_BYTES) == 0, "%s: proof bytes differ", what);
    }

    /* B_G2 resident (the 1.5 GiB cap) and its MSMs in pieces: the first two pieces fail as if out of memory, so
     * that the rest is done in halves, split (the tail MSM over indexed bases) and not (one MSM over all of them):
     * the same proofs. The pieces' sizing from the memory free: gpu_msm_g2_piece, test_gpu_g2. */
    for (int v = 0; v < 2; v++) {
        const char *what = v ? "B_G2 in pieces, one MSM" : "B_G2 in pieces, split";
        set_cap(gpu_mem_live(0) + caps[0]);
        once_split = v ? GPU_SPLIT_NEVER : GPU_SPLIT_ALWAYS;
        gpu_debug_fail_g2_pieces(2);
        run_out got;
        prove_once(what, &params, &cs, &dn, abc, d.m, v, &r, &s, &got);
        unsigned left = gpu_debug_fail_g2_pieces(0);
        once_split = GPU_SPLIT_AUTO;
        set_cap(0);
        CHECK_MSG(left == 0, "%s: %u of the 2 failures were not injected (B_G2 not resident?)", what, left);
        CHECK_MSG(got.ok && memcmp(got.proof, ref[v].proof, GROTH16_PROOF_BYTES) == 0, "%s: proof bytes differ", what);
    }

    /* Host-to-device copies in slices of an odd size (gpu_tune.copy_slice: many a piece, slices ending inside a
     * point, each piece's last slice shorter) and in whole copies (0): the same proofs under the cap. */
    for (int v = 0; v < 2; v++) {
        const char *what = v ? "whole copies" : "copies in odd slices";
        gpu_tune saved = gpu_tune_get(), t = saved;
        size_t base = gpu_mem_live(0);
        t.copy_slice = v ? 0 : ((size_t)1 << 20) + 24;
        t.memory_limit = base + caps[1];
        gpu_tune_set(&t);
        run_out got;
        prove_once(what, &params, &cs, &dn, abc, d.m, v, &r, &s, &got);
        gpu_tune_set(&saved);
        CHECK_MSG(got.ok && memcmp(got.proof, ref[v].proof, GROTH16_PROOF_BYTES) == 0, "%s: proof bytes differ", what);
    }

    /* The trace (CUZK_GPU_TRACE) of a partition with streamed pieces: its spans' lines (each ending after it
     * begins) and a summary, and the same proof. */
    {
        char path[] = "/tmp/cuzk-test-trace-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd >= 0) close(fd);
        gpu_tune t = gpu_tune_get();
        snprintf(t.trace, sizeof t.trace, "%s", path);
        t.memory_limit = gpu_mem_live(0) + caps[1];
        gpu_tune_set(&t);
        run_out got;
        prove_once("traced", &params, &cs, &dn, abc, d.m, 0, &r, &s, &got);
        t.trace[0] = '\0';
        t.memory_limit = 0;
        gpu_tune_set(&t);
        CHECK_MSG(got.ok && memcmp(got.proof, ref[0].proof, GROTH16_PROOF_BYTES) == 0, "traced: proof bytes differ");
        FILE *f = fopen(path, "r");
        char line[512];
        unsigned spans = 0, pieces = 0, summaries = 0, bad = 0;
        while (f && fgets(line, sizeof line, f)) {
            double b0 = 0, b1 = 0;
            char name[64];
            if (strstr(line, " summary: window ")) {
                summaries++;
            } else if (sscanf(line, "partition %*u device %*d stream %*u %63s n=%*u %lf %lf", name, &b0, &b1) == 3) {
                spans++;
                pieces += strcmp(name, "copy-piece") == 0;
                bad += !(b1 >= b0 && b0 >= 0);
            } else {
                bad++;
            }
        }
        if (f) fclose(f);
        unlink(path);
        printf("  trace: %u spans (%u piece copies), %u summaries, %u malformed\n", spans, pieces, summaries, bad);
        CHECK_MSG(spans > 0 && pieces > 0 && summaries == 1 && bad == 0,
                  "trace: %u spans, %u copies, %u summaries, %u bad", spans, pieces, summaries, bad);
    }

    /* Below the H step (a, b, c from the host: 3 vectors of the domain): planned away as an error, before any work. */
    {
        set_cap(gpu_mem_live(0) + 2 * d.m * sizeof(fr_t));
        run_out got;
        gpu_prover *pv = NULL;
        gpu_params *gp = NULL;
        groth16_pending pd;
        st = gpu_prover_create(0, &pv, &err);
        if (st == CUZK_OK) st = gpu_params_upload(0, &params, &gp, &err);
        if (st == CUZK_OK)
            st = gpu_prove_start_abc(pv, gp, pool, &params, cs.num_constraints, abc, abc + d.m, abc + 2 * d.m,
                                     cs.inputs, cs.num_inputs, cs.aux, cs.num_aux, &dn, &pd, NULL, NULL, &err);
        CHECK_MSG(st == CUZK_ERR_NOMEM && strstr(err.msg, "H step") != NULL, "a cap below the H step gave %s: %s",
                  cuzk_status_name(st), err.msg);
        (void)got;
        gpu_params_free(gp);
        gpu_prover_destroy(pv);
        set_cap(0);
    }
    r1cs_density_free(&dn);
out:
    free(abc);
    groth16_params_free(&params);
    r1cs_free(&cs);
}

int main(void)
{
    if (gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device visible\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_mem");
    cuzk_error err = {0};
    if (pool_create(&pool, 0, &err) != CUZK_OK) {
        fprintf(stderr, "fixture: %s\n", err.msg);
        return 1;
    }
    const char *ke = getenv("CUZK_TEST_MEM_K");
    unsigned k = ke ? (unsigned)atoi(ke) : 20;
    if (k < 10 || k > 22) k = 20;
    test_alloc_cap();
    seam_cost();
    test_ntt_three();
    test_prove_capped(k);
    pool_destroy(pool);
    return test_finish("test_gpu_mem");
}

#else

int main(void)
{
    printf("SKIP: cuzk was built without CUDA\n");
    return 77;
}

#endif
