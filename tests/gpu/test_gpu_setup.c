/* GPU fixed-base multiplications and Groth16 setup against the CPU: s * G from the window tables on fresh random
 * scalars and the edges (0, 1, 2, r - 1, single bits at window boundaries, digits of all ones), windows that
 * cross 32-bit limbs (w = 7, 13) and the setup's own (w = 16), a run longer than one device chunk (sampled), and
 * whole setups of random circuits of many shapes: the same toxic waste must give the same parameters on both
 * engines, and a proof with the GPU's parameters must verify. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "circuits/random_circuit.h"
#include "gpu/gpu_setup.h"
#include "groth16/groth16.h"
#include "testutil.h"

static rng_t rng;
static gpu_ctx *ctx;
static gpu_fixed_base *gfb;
static pool_t *pool;

/* Scalars: the edges first, then random ones. */
static void fill_scalars(fr_t *s, size_t n)
{
    uint64_t one_bit[FR_LIMBS];
    size_t k = 0;
    fr_t one;
    fr_from_u64(&one, 1);
    if (k < n) fr_from_u64(&s[k++], 0);
    if (k < n) s[k++] = one;
    if (k < n) fr_from_u64(&s[k++], 2);
    if (k < n) fr_neg(&s[k++], &one); /* r - 1 */
    for (unsigned b = 0; b < 255 && k < n; b += 13) {
        memset(one_bit, 0, sizeof one_bit);
        one_bit[b / 64] = 1ull << (b % 64);
        CHECK(fr_to_mont(&s[k++], one_bit) == 0);
    }
    if (k < n) fr_from_u64(&s[k++], 0xffffffffffffffffull); /* every digit of the low windows at its maximum */
    while (k < n) fr_random(&s[k++], &rng);
}

static void check_g1(unsigned w, size_t n, size_t stride)
{
    g1_affine_t *table = NULL, *got = malloc(n * sizeof *got);
    fr_t *s = malloc(n * sizeof *s);
    cuzk_error err = {0};
    CHECK(got && s && groth16_generator_table_g1(NULL, w, &table, &err) == CUZK_OK);
    if (!got || !s || !table) goto out;
    fill_scalars(s, n);
    memset(got, 0x5a, n * sizeof *got);
    cuzk_status st = gpu_fixed_base_g1(gfb, pool, table, w, s, n, got, &err);
    CHECK_MSG(st == CUZK_OK, "G1 w=%u n=%zu: %s", w, n, err.msg);
    if (st != CUZK_OK) goto out;
    g1_jac_t gen, p;
    g1_jac_from_affine(&gen, &G1_GENERATOR);
    size_t bad = 0, checked = 0;
    for (size_t i = 0; i < n; i = i < 64 || i + 64 >= n ? i + 1 : i + stride) {
        g1_affine_t want;
        g1_jac_mul_fr(&p, &gen, &s[i]);
        g1_jac_to_affine(&want, &p);
        bad += !g1_affine_eq(&want, &got[i]);
        checked++;
    }
    CHECK_MSG(bad == 0, "G1 w=%u n=%zu: %zu of %zu sampled products differ from the CPU", w, n, bad, checked);
out:
    free(table);
    free(got);
    free(s);
}

static void check_g2(unsigned w, size_t n)
{
    g2_affine_t *table = NULL, *got = malloc(n * sizeof *got);
    fr_t *s = malloc(n * sizeof *s);
    cuzk_error err = {0};
    CHECK(got && s && groth16_generator_table_g2(NULL, w, &table, &err) == CUZK_OK);
    if (!got || !s || !table) goto out;
    fill_scalars(s, n);
    memset(got, 0x5a, n * sizeof *got);
    cuzk_status st = gpu_fixed_base_g2(gfb, pool, table, w, s, n, got, &err);
    CHECK_MSG(st == CUZK_OK, "G2 w=%u n=%zu: %s", w, n, err.msg);
    if (st != CUZK_OK) goto out;
    g2_jac_t gen, p;
    g2_jac_from_affine(&gen, &G2_GENERATOR);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        g2_affine_t want;
        g2_jac_mul_fr(&p, &gen, &s[i]);
        g2_jac_to_affine(&want, &p);
        bad += !g2_affine_eq(&want, &got[i]);
    }
    CHECK_MSG(bad == 0, "G2 w=%u n=%zu: %zu of %zu products differ from the CPU", w, n, bad, n);
out:
    free(table);
    free(got);
    free(s);
}

static int g1_arrays_eq(const g1_affine_t *a, const g1_affine_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!g1_affine_eq(&a[i], &b[i])) return 0;
    return 1;
}

static int g2_arrays_eq(const g2_affine_t *a, const g2_affine_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!g2_affine_eq(&a[i], &b[i])) return 0;
    return 1;
}

static void check_setups(void)
{
    groth16_fixed_base fb;
    gpu_fixed_base_engine(gfb, &fb);
    groth16_setup_options opts = {&fb, NULL, NULL};
    for (unsigned shape = 0; shape < RC_NUM_SHAPES + 2; shape++) {
        random_circuit_params rp;
        random_circuit_shape(&rng, shape, shape < RC_NUM_SHAPES ? 60 : 3000, &rp);
        if (rp.num_constraints == 0) rp.num_constraints = 1; /* an aux needs a constraint to be set up */
        r1cs cs;
        cuzk_error err = {0};
        cuzk_status st = random_circuit_build(&rng, &rp, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "shape %u: %s", shape, err.msg);
        if (st != CUZK_OK) continue;
        groth16_toxic tw;
        fr_random(&tw.alpha, &rng);
        fr_random(&tw.beta, &rng);
        fr_random(&tw.gamma, &rng);
        fr_random(&tw.delta, &rng);
        fr_random(&tw.tau, &rng);
        groth16_params c, g;
        cuzk_status sc = groth16_setup_with_toxic(pool, &cs, &tw, NULL, &c, &err);
        CHECK_MSG(sc == CUZK_OK, "shape %u: CPU setup: %s", shape, err.msg);
        cuzk_status sg = groth16_setup_with_toxic(pool, &cs, &tw, &opts, &g, &err);
        CHECK_MSG(sg == CUZK_OK, "shape %u: GPU setup: %s", shape, err.msg);
        if (sc == CUZK_OK && sg == CUZK_OK) {
            int same = c.h_len == g.h_len && c.l_len == g.l_len && c.a_len == g.a_len && c.b_g1_len == g.b_g1_len &&
                       c.b_g2_len == g.b_g2_len && c.vk.ic_len == g.vk.ic_len && g1_arrays_eq(c.h, g.h, c.h_len) &&
                       g1_arrays_eq(c.l, g.l, c.l_len) && g1_arrays_eq(c.a, g.a, c.a_len) &&
                       g1_arrays_eq(c.b_g1, g.b_g1, c.b_g1_len) && g2_arrays_eq(c.b_g2, g.b_g2, c.b_g2_len) &&
                       g1_arrays_eq(c.vk.ic, g.vk.ic, c.vk.ic_len) && g1_affine_eq(&c.vk.alpha_g1, &g.vk.alpha_g1) &&
                       g1_affine_eq(&c.vk.beta_g1, &g.vk.beta_g1) && g1_affine_eq(&c.vk.delta_g1, &g.vk.delta_g1) &&
                       g2_affine_eq(&c.vk.beta_g2, &g.vk.beta_g2) && g2_affine_eq(&c.vk.gamma_g2, &g.vk.gamma_g2) &&
                       g2_affine_eq(&c.vk.delta_g2, &g.vk.delta_g2);
            CHECK_MSG(same, "shape %u (%zu in, %zu aux, %zu constraints): GPU parameters differ from the CPU's", shape,
                      cs.num_inputs, cs.num_aux, cs.num_constraints);
            fr_t r, s;
            fr_random(&r, &rng);
            fr_random(&s, &rng);
            groth16_proof proof;
            groth16_pvk pvk;
            st = groth16_prove(pool, &g, &cs, NULL, NULL, &r, &s, &proof, NULL, &err);
            if (st == CUZK_OK && (st = groth16_pvk_prepare(&pvk, &g.vk, &err)) == CUZK_OK) {
                st = groth16_verify(pool, &pvk, &proof, cs.inputs + 1, cs.num_inputs - 1, &err);
                groth16_pvk_free(&pvk);
            }
            CHECK_MSG(st == CUZK_OK, "shape %u: a proof with the GPU's parameters: %s", shape, err.msg);
        }
        if (sc == CUZK_OK) groth16_params_free(&c);
        if (sg == CUZK_OK) groth16_params_free(&g);
        r1cs_free(&cs);
    }
}

int main(void)
{
    if (gpu_device_count() == 0) {
        printf("SKIP test_gpu_setup: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_setup");
    cuzk_error err = {0};
    if (gpu_ctx_create(&ctx, 0, &err) != CUZK_OK || gpu_fixed_base_create(ctx, &gfb, &err) != CUZK_OK ||
        pool_create(&pool, 0, &err) != CUZK_OK) {
        fprintf(stderr, "set-up failed: %s\n", err.msg);
        return 1;
    }
    check_g1(16, 3000, 1);
    check_g1(7, 1001, 1);
    check_g1(13, 77, 1);
    check_g1(16, 1, 1);
    check_g1(16, ((size_t)1 << 22) + 333, 9973); /* more than one device chunk, sampled */
    check_g2(16, 300);
    check_g2(7, 101);
    g1_affine_t dummy;
    fr_t zero;
    fr_from_u64(&zero, 0);
    CHECK(gpu_fixed_base_g1(gfb, pool, &dummy, 0, &zero, 1, &dummy, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_fixed_base_g1(gfb, pool, NULL, 16, &zero, 1, &dummy, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_fixed_base_g1(gfb, NULL, NULL, 16, NULL, 0, NULL, &err) == CUZK_OK);
    check_setups();
    pool_destroy(pool);
    gpu_fixed_base_destroy(gfb);
    gpu_ctx_destroy(ctx);
    return test_finish("test_gpu_setup");
}
