/* G2 MSM against naive sums. G2 shares its code with G1 (src/msm/msm_impl.h), so this covers the G2
 * instantiation on fewer and smaller cases than test_msm_g1. */
#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
#include "testutil.h"

static rng_t rng;
static pool_t *pools[3]; /* NULL, 1 thread, 2 threads */
static const char *pool_names[3] = {"NULL", "1 thread", "2 threads"};

static void make_bases(g2_affine_t *out, size_t n)
{
    g2_jac_t step[4], cur;
    for (int i = 0; i < 4; i++) g2_random(&step[i], &rng);
    g2_random(&cur, &rng);
    g2_jac_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    CHECK(tmp != NULL);
    if (tmp == NULL) return;
    for (size_t i = 0; i < n; i++) {
        g2_jac_add(&cur, &cur, &step[rng_next(&rng) % 4]);
        tmp[i] = cur;
    }
    g2_batch_to_affine(out, tmp, n);
    free(tmp);
}

static void mixed_scalar(fr_t *s)
{
    switch (rng_next(&rng) % 6) {
    case 0: fr_set_zero(s); break;
    case 1: fr_set_one(s); break;
    case 2:
        fr_set_one(s);
        fr_neg(s, s);
        break;
    default: fr_random(s, &rng);
    }
}

static void naive(g2_jac_t *r, const g2_affine_t *bases, const fr_t *scalars, const uint64_t *density, size_t n)
{
    g2_jac_set_inf(r);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (density && !((density[i / 64] >> (i % 64)) & 1)) continue;
        g2_jac_t p;
        g2_jac_from_affine(&p, &bases[k++]);
        g2_jac_mul_fr(&p, &p, &scalars[i]);
        g2_jac_add(r, r, &p);
    }
}

static void check_all_pools(const char *what, const g2_jac_t *want, const g2_affine_t *bases, const fr_t *scalars,
                            const uint64_t *density, size_t n)
{
    for (int p = 0; p < 3; p++) {
        g2_jac_t got;
        msm_g2(pools[p], &got, bases, scalars, density, n);
        CHECK_MSG(g2_jac_eq(&got, want), "%s: n=%zu pool %s", what, n, pool_names[p]);
        CHECK_MSG(g2_jac_is_on_curve(&got), "%s: n=%zu result off the curve", what, n);
    }
}

int main(void)
{
    test_seed(&rng, "test_msm_g2");
    cuzk_error err;
    if (pool_create(&pools[1], 1, &err) != CUZK_OK || pool_create(&pools[2], 2, &err) != CUZK_OK) {
        fprintf(stderr, "pool_create: %s\n", err.msg);
        return 1;
    }

    enum { N = 400, WORDS = (N + 63) / 64 };
    g2_affine_t *bases = malloc(N * sizeof *bases);
    fr_t *scalars = malloc(N * sizeof *scalars);
    if (bases == NULL || scalars == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    make_bases(bases, N);
    g2_jac_t want;

    static const size_t sizes[] = {0, 1, 2, 3, 10, 65, 199, N};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        size_t n = sizes[t];
        for (size_t i = 0; i < n; i++) mixed_scalar(&scalars[i]);
        naive(&want, bases, scalars, NULL, n);
        check_all_pools("sizes", &want, bases, scalars, NULL, n);
    }

    for (size_t i = 0; i < N; i++) fr_set_one(&scalars[i]);
    g2_jac_set_inf(&want);
    for (size_t i = 0; i < N; i++) g2_jac_add_affine(&want, &want, &bases[i]);
    check_all_pools("all one", &want, bases, scalars, NULL, N);
    for (size_t i = 0; i < N; i++) fr_neg(&scalars[i], &scalars[i]);
    g2_jac_neg(&want, &want);
    check_all_pools("all r-1", &want, bases, scalars, NULL, N);
    for (size_t i = 0; i < N; i++) fr_set_zero(&scalars[i]);
    g2_jac_set_inf(&want);
    check_all_pools("all zero", &want, bases, scalars, NULL, N);

    /* Density with repeated bases, infinity among them, and the bits past n set. */
    uint64_t density[WORDS];
    for (size_t j = 0; j < WORDS; j++) density[j] = rng_next(&rng);
    density[WORDS - 1] |= ~0ULL << (N % 64);
    for (size_t i = 0; i < N; i++) mixed_scalar(&scalars[i]);
    for (size_t i = 0; i < N; i += 7) bases[i] = bases[1];
    g2_affine_set_inf(&bases[3]);
    naive(&want, bases, scalars, density, N);
    check_all_pools("density", &want, bases, scalars, density, N);

    for (unsigned c = 1; c <= 16; c += 5) {
        g2_jac_t got;
        msm_g2_window(pools[2], &got, bases, scalars, density, N, c);
        CHECK_MSG(g2_jac_eq(&got, &want), "density, window c=%u", c);
    }

    /* The affine buckets of 11-bit windows over Fp2: one base with one scalar puts every point into the same
     * bucket (a doubling, then collisions past the retry queue into the overflow), and P, -P, -P, P, ... sends
     * each bucket through infinity. */
    fr_t s0;
    fr_random(&s0, &rng);
    for (int kind = 0; kind < 2; kind++) {
        for (size_t i = 0; i < N; i++) {
            scalars[i] = s0;
            if (kind == 0 || (i + i / 2) % 2 == 0)
                bases[i] = bases[0];
            else
                g2_affine_neg(&bases[i], &bases[0]);
        }
        naive(&want, bases, scalars, NULL, N);
        g2_jac_t got;
        msm_g2_window(pools[kind + 1], &got, bases, scalars, NULL, N, 11);
        CHECK_MSG(g2_jac_eq(&got, &want), "%s, window c=11", kind ? "P and -P" : "one base, one scalar");
    }

    free(bases);
    free(scalars);
    pool_destroy(pools[1]);
    pool_destroy(pools[2]);
    return test_finish("test_msm_g2");
}
