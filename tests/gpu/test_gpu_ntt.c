/* GPU NTT and H (src/gpu/ntt.cu) against the CPU (src/poly): forward, inverse and coset transforms and H in
 * both forms, bit for bit, on fresh random data at sizes 2^10 .. 2^23 (one, two and three device passes),
 * through host and device pointers, and every kernel variant. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef CUZK_HAVE_GPU
#include "gpu/gpu_ntt.h"
#include "gpu/tune.h"

static rng_t rng;
static pool_t *pool;
static gpu_ctx *ctx;

static fr_t *vec(size_t n)
{
    fr_t *v = malloc((n ? n : 1) * sizeof *v);
    CHECK(v != NULL);
    if (v == NULL) exit(1);
    return v;
}

static void rand_vec(fr_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) fr_random(&v[i], &rng);
}

/* Index of the first difference, or n. */
static size_t first_diff(const fr_t *a, const fr_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!fr_eq(&a[i], &b[i])) return i;
    return n;
}

static const char *KIND_NAME[] = {"forward", "inverse", "coset forward", "coset inverse"};

static void cpu_ntt(const domain_t *d, gpu_ntt_kind kind, const fr_t *shift, fr_t *v)
{
    switch (kind) {
    case GPU_NTT_FORWARD: ntt_forward(pool, d, v); break;
    case GPU_NTT_INVERSE: ntt_inverse(pool, d, v); break;
    case GPU_NTT_COSET_FORWARD: ntt_coset_forward(pool, d, shift, v); break;
    case GPU_NTT_COSET_INVERSE: ntt_coset_inverse(pool, d, shift, v); break;
    }
}

static void test_transforms(unsigned log_m, int device_ptr)
{
    domain_t d;
    cuzk_error err = {0};
    gpu_ntt_plan *plan = NULL;
    size_t m = (size_t)1 << log_m;
    CHECK(domain_for_size(&d, m, &err) == CUZK_OK);
    cuzk_status st = gpu_ntt_plan_create(ctx, log_m, POLY_ROOTS_CUZK, &plan, &err);
    CHECK_MSG(st == CUZK_OK, "plan 2^%u: %s", log_m, err.msg);
    if (st != CUZK_OK) return;
    fr_t *x = vec(m), *want = vec(m), *got = vec(m), shift;
    for (int k = 0; k < 4; k++) {
        gpu_ntt_kind kind = (gpu_ntt_kind)k;
        rand_vec(x, m);
        fr_random(&shift, &rng);
        memcpy(want, x, m * sizeof *x);
        cpu_ntt(&d, kind, &shift, want);
        memcpy(got, x, m * sizeof *x);
        gpu_buf *buf = NULL;
        fr_t *target = got;
        if (device_ptr) {
            st = gpu_buf_upload(ctx, &buf, x, m * sizeof *x, &err);
            CHECK_MSG(st == CUZK_OK, "upload: %s", err.msg);
            if (st != CUZK_OK) continue;
            target = (fr_t *)gpu_buf_ptr(buf);
            memset(got, 0x5a, m * sizeof *got); /* poison */
        }
        st = gpu_ntt(plan, kind, &shift, target, &err);
        CHECK_MSG(st == CUZK_OK, "2^%u %s: %s", log_m, KIND_NAME[k], err.msg);
        if (device_ptr && st == CUZK_OK) {
            st = gpu_ntt_copy(ctx, got, target, m * sizeof *got, &err);
            CHECK_MSG(st == CUZK_OK, "download: %s", err.msg);
        }
        gpu_buf_free(buf);
        size_t i = first_diff(got, want, m);
        CHECK_MSG(i == m, "2^%u %s (%s pointer): GPU differs from the CPU at index %zu", log_m, KIND_NAME[k],
                  device_ptr ? "device" : "host", i);
    }
    free(x);
    free(want);
    free(got);
    gpu_ntt_plan_destroy(plan);
}

/* mode 0: host pointers in and out; 1: device inputs, gpu_ntt_h_device; 2: three device buffers,
 * gpu_ntt_h_device_3 (bellperson only). */
static void test_h(unsigned log_m, h_form form, int mode)
{
    domain_t d;
    cuzk_error err = {0};
    gpu_ntt_plan *plan = NULL;
    size_t m = (size_t)1 << log_m;
    /* Between half the domain and all of it (the padding must be zeroed on the device). */
    size_t n = m / 2 + 1 + (size_t)(rng_next(&rng) % (m / 2));
    size_t keep = form == H_FORM_BELLPERSON ? m - 1 : m;
    const char *fname = form == H_FORM_BELLPERSON ? "bellperson" : "snarkjs";
    CHECK(domain_for_size(&d, m, &err) == CUZK_OK);
    cuzk_status st =
        gpu_ntt_plan_create(ctx, log_m, form == H_FORM_BELLPERSON ? POLY_ROOTS_CUZK : POLY_ROOTS_SNARKJS, &plan, &err);
    CHECK_MSG(st == CUZK_OK, "plan 2^%u: %s", log_m, err.msg);
    if (st != CUZK_OK) return;
    fr_t *a = vec(m), *b = vec(m), *c = vec(m), *ca = vec(m), *cb = vec(m), *cc = vec(m), *h = vec(m);
    rand_vec(a, n);
    rand_vec(b, n);
    rand_vec(c, n);
    memcpy(ca, a, n * sizeof *a);
    memcpy(cb, b, n * sizeof *b);
    memcpy(cc, c, n * sizeof *c);
    st = poly_compute_h(pool, &d, form, ca, cb, cc, n, &err);
    CHECK_MSG(st == CUZK_OK, "CPU H: %s", err.msg);
    memset(h, 0x5a, m * sizeof *h); /* poison */
    if (mode == 0) {
        st = gpu_ntt_h(plan, form, a, b, c, n, h, &err);
        CHECK_MSG(st == CUZK_OK, "2^%u %s H: %s", log_m, fname, err.msg);
    } else if (mode == 2) {
        fr_t *hd = NULL;
        st = gpu_ntt_h_device_3(plan, form, a, b, c, n, &hd, &err);
        CHECK_MSG(st == CUZK_OK, "2^%u %s H in three buffers: %s", log_m, fname, err.msg);
        if (st == CUZK_OK) {
            st = gpu_ntt_copy(ctx, h, hd, keep * sizeof *h, &err);
            CHECK_MSG(st == CUZK_OK, "download: %s", err.msg);
        }
        gpu_ntt_h_free(ctx, hd);
    } else {
        gpu_buf *da = NULL, *db = NULL, *dc = NULL;
        fr_t *hd = NULL;
        st = gpu_buf_upload(ctx, &da, a, n * sizeof *a, &err);
        if (st == CUZK_OK) st = gpu_buf_upload(ctx, &db, b, n * sizeof *b, &err);
        if (st == CUZK_OK) st = gpu_buf_upload(ctx, &dc, c, n * sizeof *c, &err);
        CHECK_MSG(st == CUZK_OK, "upload: %s", err.msg);
        if (st == CUZK_OK) {
            st = gpu_ntt_h_device(plan, form, gpu_buf_ptr(da), gpu_buf_ptr(db), gpu_buf_ptr(dc), n, &hd, &err);
            CHECK_MSG(st == CUZK_OK, "2^%u %s H on the device: %s", log_m, fname, err.msg);
        }
        if (st == CUZK_OK) {
            st = gpu_ntt_copy(ctx, h, hd, keep * sizeof *h, &err);
            CHECK_MSG(st == CUZK_OK, "download: %s", err.msg);
        }
        gpu_ntt_h_free(ctx, hd);
        gpu_buf_free(da);
        gpu_buf_free(db);
        gpu_buf_free(dc);
    }
    size_t i = first_diff(h, ca, keep);
    static const char *const mode_name[] = {"host", "device", "three buffers"};
    CHECK_MSG(i == keep, "2^%u %s H (n=%zu, %s): GPU differs from poly_compute_h at index %zu", log_m, fname, n,
              mode_name[mode], i);
    free(a);
    free(b);
    free(c);
    free(ca);
    free(cb);
    free(cc);
    free(h);
    gpu_ntt_plan_destroy(plan);
}

/* Every kernel variant (CUZK_NTT_VARIANT) against the CPU at sizes whose passes it covers: 2^16 = 8+8,
 * 2^17 = 9+8, 2^18 = 9+9 (host pointers; cuzk-bench gpu-ntt --variants all --check covers three passes); an
 * unknown variant fails the plan. */
static void test_variants(void)
{
    static const unsigned sizes[] = {16, 17, 18};
    cuzk_error err = {0};
    gpu_ntt_plan *plan = NULL;
    gpu_tune saved = gpu_tune_get(), t = saved;
    int keep = saved.ntt_variant[0] != '\0';
    CHECK(gpu_ntt_variant_count() >= 1 && gpu_ntt_variant_name(gpu_ntt_variant_count()) == NULL);
    int def = gpu_ntt_variant_default();
    CHECK(def >= 0 && def < gpu_ntt_variant_count());
    for (int v = 0; v < gpu_ntt_variant_count(); v++) {
        if (v == def && !keep) continue; /* the tests above ran it */
        const char *name = gpu_ntt_variant_name(v);
        CHECK(name != NULL);
        if (name == NULL) continue;
        snprintf(t.ntt_variant, sizeof t.ntt_variant, "%s", name);
        gpu_tune_set(&t);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            test_transforms(sizes[i], 0);
            printf("variant %s 2^%u done\n", name, sizes[i]);
            fflush(stdout);
        }
        CHECK(gpu_ntt_plan_create(ctx, 10, POLY_ROOTS_CUZK, &plan, &err) == CUZK_OK);
        CHECK(gpu_ntt_plan_variant(plan) == v);
        gpu_ntt_plan_destroy(plan);
        plan = NULL;
    }
    t.ntt_variant[0] = '\0';
    gpu_tune_set(&t);
    CHECK(gpu_ntt_plan_create(ctx, 10, POLY_ROOTS_CUZK, &plan, &err) == CUZK_OK);
    CHECK(gpu_ntt_plan_variant(plan) == def);
    gpu_ntt_plan_destroy(plan);
    plan = NULL;
    snprintf(t.ntt_variant, sizeof t.ntt_variant, "%s", "no-such-variant");
    gpu_tune_set(&t);
    CHECK(gpu_ntt_plan_create(ctx, 10, POLY_ROOTS_CUZK, &plan, &err) == CUZK_ERR_INVALID_ARG && plan == NULL);
    gpu_tune_set(&saved);
}

static void test_errors(void)
{
    cuzk_error err = {0};
    gpu_ntt_plan *plan = NULL;
    fr_t v[8];
    CHECK(gpu_ntt_plan_create(ctx, 2, POLY_ROOTS_CUZK, &plan, &err) == CUZK_ERR_INVALID_ARG && plan == NULL);
    CHECK(gpu_ntt_plan_create(ctx, 29, POLY_ROOTS_CUZK, &plan, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_ntt_plan_create(ctx, 3, POLY_ROOTS_SNARKJS, &plan, &err) == CUZK_OK);
    rand_vec(v, 8);
    CHECK(gpu_ntt_h(plan, H_FORM_BELLPERSON, v, v, v, 8, v, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_ntt_h(plan, H_FORM_SNARKJS, v, v, v, 9, v, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_ntt(plan, GPU_NTT_COSET_FORWARD, NULL, v, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_ntt(plan, (gpu_ntt_kind)7, NULL, v, &err) == CUZK_ERR_INVALID_ARG);
    gpu_ntt_plan_destroy(plan);
}

int main(void)
{
    if (gpu_device_count() == 0) {
        printf("SKIP test_gpu_ntt: no CUDA device\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_ntt");
    cuzk_error err = {0};
    if (pool_create(&pool, 0, &err) != CUZK_OK || gpu_ctx_create(&ctx, 0, &err) != CUZK_OK) {
        fprintf(stderr, "set-up failed: %s\n", err.msg);
        return 1;
    }
    test_errors();
    /* One pass (<= 11 bits), two (12..22), three (23..). */
    static const unsigned sizes[] = {3, 5, 10, 11, 12, 13, 16, 17, 20, 22, 23};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        test_transforms(sizes[i], 0);
        test_h(sizes[i], H_FORM_BELLPERSON, 0);
        test_h(sizes[i], H_FORM_SNARKJS, 0);
        printf("2^%u done\n", sizes[i]);
        fflush(stdout);
    }
    test_transforms(12, 1);
    test_transforms(23, 1);
    test_h(13, H_FORM_BELLPERSON, 1);
    test_h(20, H_FORM_SNARKJS, 1);
    test_h(13, H_FORM_BELLPERSON, 2);
    test_variants();
    gpu_ctx_destroy(ctx);
    pool_destroy(pool);
    return test_finish("test_gpu_ntt");
}
#else
int main(void)
{
    printf("SKIP test_gpu_ntt: built without CUDA\n");
    return 77;
}
#endif
