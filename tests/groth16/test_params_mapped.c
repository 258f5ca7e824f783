/* Parameters through the memory-mapped cache (groth16_params_load_mapped): the mapping holds exactly what
 * groth16_params_read gives, a proof made with it is byte for byte the one made with the read parameters and
 * verifies, the cache is reused while its source is unchanged and remade when the source changes or the cache is
 * damaged, and damaged caches are refused by groth16_params_map with a clear error, never a crash. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuits/spec.h"
#include "engine/residency.h"
#include "groth16/groth16.h"
#include "testutil.h"

static char dir[512], source[600], cache[600];

static int params_equal(const groth16_params *x, const groth16_params *y)
{
    return x->h_form == y->h_form && x->vk.ic_len == y->vk.ic_len && x->h_len == y->h_len && x->l_len == y->l_len &&
           x->a_len == y->a_len && x->b_g1_len == y->b_g1_len && x->b_g2_len == y->b_g2_len &&
           !memcmp(x->vk.ic, y->vk.ic, x->vk.ic_len * sizeof(g1_affine_t)) &&
           !memcmp(&x->vk.alpha_g1, &y->vk.alpha_g1, sizeof(g1_affine_t)) &&
           !memcmp(&x->vk.delta_g2, &y->vk.delta_g2, sizeof(g2_affine_t)) &&
           !memcmp(x->h, y->h, x->h_len * sizeof(g1_affine_t)) && !memcmp(x->l, y->l, x->l_len * sizeof(g1_affine_t)) &&
           !memcmp(x->a, y->a, x->a_len * sizeof(g1_affine_t)) &&
           !memcmp(x->b_g1, y->b_g1, x->b_g1_len * sizeof(g1_affine_t)) &&
           !memcmp(x->b_g2, y->b_g2, x->b_g2_len * sizeof(g2_affine_t));
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* A negative length (a cut before the start) writes an empty file. */
static void spit(const char *path, const uint8_t *b, long len)
{
    CHECK(test_write_file(path, b, len > 0 ? (size_t)len : 0) == 0);
}

/* Damaged copies of the cache: truncations, and single-byte changes in the header. Each is refused or, when the
 * change is harmless to the checks (padding, the stamp), mapped; never a crash. */
static void damaged(rng_t *rng)
{
    size_t n = 0;
    uint8_t *good = test_read_file(cache, &n);
    long len = (long)n;
    CHECK(good != NULL);
    if (!good) return;
    char bad[700];
    snprintf(bad, sizeof bad, "%s/bad.cache", dir);
    cuzk_error err;
    groth16_params p;
    const long cuts[] = {0, 1, 100, 4095, 4096, 4097, len / 2, len - 4096, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        spit(bad, good, cuts[i]);
        cuzk_status st = groth16_params_map(&p, bad, &err);
        CHECK_MSG(st == CUZK_ERR_TRUNCATED || st == CUZK_ERR_FORMAT, "truncated to %ld: status %d", cuts[i], st);
        if (st == CUZK_OK) groth16_params_free(&p);
    }
    uint8_t *b = malloc((size_t)len);
    unsigned refused = 0, mapped = 0;
    for (int t = 0; t < 300 && b; t++) {
        memcpy(b, good, (size_t)len);
        size_t at = (size_t)(rng_next(rng) % 1024);
        b[at] ^= (uint8_t)(1 + rng_next(rng) % 255);
        spit(bad, b, len);
        cuzk_status st = groth16_params_map(&p, bad, &err);
        if (st == CUZK_OK) {
            mapped++;
            groth16_params_free(&p);
        } else {
            refused++;
            CHECK_MSG(err.msg[0] != 0, "byte %zu changed: status %d without a message", at, st);
        }
    }
    memcpy(b, good, 8);
    b[0] ^= 1;
    spit(bad, b, len);
    CHECK(groth16_params_map(&p, bad, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "magic"));
    printf("damaged caches: %u refused, %u mapped (changes outside what is checked)\n", refused, mapped);
    CHECK(refused > 0);
    unlink(bad);
    free(b);
    free(good);
}

/* The residency with a mapping load hook: a hot set is the mapping and is not pinned (the pin hook is never
 * called); evicted and acquired again, it is mapped from the same cache without remaking it. */
static int g_pins, g_remade;

static cuzk_status load_mapped(void *ctx, groth16_params *out, cuzk_error *err)
{
    (void)ctx;
    int remade = 0;
    cuzk_status st = groth16_params_load_mapped(NULL, out, source, cache, 0, &remade, err);
    g_remade += remade;
    return st;
}

static cuzk_status count_pin(engine_backend *be, const groth16_params *p, cuzk_error *err)
{
    (void)be;
    (void)p;
    (void)err;
    g_pins++;
    return CUZK_OK;
}

static void no_unpin(engine_backend *be, const groth16_params *p)
{
    (void)be;
    (void)p;
}

static void residency_mapped(const groth16_params *read)
{
    cuzk_error err;
    engine_mem mem;
    engine_residency *r = NULL;
    CHECK(engine_mem_init(&mem, 0, 0, &err) == CUZK_OK);
    CHECK(engine_residency_create(&r, &mem, &err) == CUZK_OK);
    if (!r) return;
    engine_backend counter = {.name = "counter", .params_pin = count_pin, .params_unpin = no_unpin};
    engine_residency_options o = {.pinned_budget = (uint64_t)1 << 40, .backend = &counter};
    CHECK(engine_residency_configure(r, &o, &err) == CUZK_OK);
    CHECK(engine_residency_add(r, "m", load_mapped, NULL, &err) == CUZK_OK);
    for (int round = 0; round < 2; round++) {
        engine_params *set = NULL;
        cuzk_status st = engine_residency_acquire(r, "m", &set, &err);
        CHECK_MSG(st == CUZK_OK, "acquire: %s", err.msg);
        if (st != CUZK_OK) break;
        const groth16_params *p = engine_params_get(set);
        CHECK(p->map != NULL && params_equal(p, read));
        CHECK(engine_residency_state_of(r, "m") == ENGINE_PARAMS_HOT && !engine_residency_pinned(r, "m"));
        engine_residency_release(r, set);
        CHECK(engine_residency_state_of(r, "m") == ENGINE_PARAMS_WARM);
        CHECK(engine_residency_evict(r, "m", NULL) == 1 && engine_residency_state_of(r, "m") == ENGINE_PARAMS_COLD);
    }
    CHECK_MSG(g_pins == 0 && g_remade == 0, "pin hook called %d times, cache remade %d times", g_pins, g_remade);
    engine_residency_destroy(r);
    engine_mem_destroy(&mem);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_params_mapped");
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cuzk-map-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        CHECK(0);
        return test_finish("test_params_mapped");
    }
    snprintf(source, sizeof source, "%s/p.params", dir);
    snprintf(cache, sizeof cache, "%s/p.cache", dir);
    cuzk_error err;
    circuit_spec spec;
    r1cs cs;
    groth16_params made, read, mapped;
    memset(&mapped, 0, sizeof mapped);
    CHECK(circuit_spec_parse("synthetic:k=7,seed=5", &spec, &err) == CUZK_OK);
    CHECK(circuit_spec_build(NULL, &spec, R1CS_MATRICES | R1CS_WITNESS, &cs, &err) == CUZK_OK);
    CHECK(groth16_setup(NULL, &cs, &made, &err) == CUZK_OK);
    CHECK(groth16_params_write(NULL, &made, source, &err) == CUZK_OK);
    CHECK(groth16_params_read(NULL, &read, source, 0, &err) == CUZK_OK);

    int remade = -1;
    cuzk_status st = groth16_params_load_mapped(NULL, &mapped, source, cache, 0, &remade, &err);
    CHECK_MSG(st == CUZK_OK && remade == 1, "first load: %s (remade %d)", err.msg, remade);
    CHECK(mapped.map != NULL && params_equal(&mapped, &read));
    CHECK(file_size(cache) > 0 && file_size(cache) % 4096 == 0);

    /* The same proof bytes from the mapping as from the read parameters, and it verifies. */
    fr_t r, s;
    fr_random(&r, &rng);
    fr_random(&s, &rng);
    groth16_proof p1, p2;
    CHECK(groth16_prove(NULL, &read, &cs, NULL, NULL, &r, &s, &p1, NULL, &err) == CUZK_OK);
    st = groth16_prove(NULL, &mapped, &cs, NULL, NULL, &r, &s, &p2, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "prove from the mapping: %s", err.msg);
    uint8_t e1[GROTH16_PROOF_BYTES], e2[GROTH16_PROOF_BYTES];
    groth16_proof_write(e1, &p1);
    groth16_proof_write(e2, &p2);
    CHECK(memcmp(e1, e2, sizeof e1) == 0);
    groth16_pvk pvk;
    CHECK(groth16_pvk_prepare(&pvk, &mapped.vk, &err) == CUZK_OK);
    CHECK(groth16_verify(NULL, &pvk, &p2, cs.inputs + 1, cs.num_inputs - 1, &err) == CUZK_OK);
    groth16_pvk_free(&pvk);
    groth16_params_free(&mapped);
    CHECK(mapped.map == NULL);

    /* Reused while the source is unchanged. */
    st = groth16_params_load_mapped(NULL, &mapped, source, cache, 0, &remade, &err);
    CHECK_MSG(st == CUZK_OK && remade == 0, "second load: %s (remade %d)", err.msg, remade);
    CHECK(params_equal(&mapped, &read));
    groth16_params_free(&mapped);

    damaged(&rng);
    residency_mapped(&read);

    /* Remade after the source changes (another modification time), and after the cache is damaged. */
    struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
    CHECK(utimensat(AT_FDCWD, source, times, 0) == 0);
    st = groth16_params_load_mapped(NULL, &mapped, source, cache, 0, &remade, &err);
    CHECK_MSG(st == CUZK_OK && remade == 1, "after touching the source: %s (remade %d)", err.msg, remade);
    groth16_params_free(&mapped);
    CHECK(truncate(cache, 5000) == 0);
    st = groth16_params_load_mapped(NULL, &mapped, source, cache, 0, &remade, &err);
    CHECK_MSG(st == CUZK_OK && remade == 1 && params_equal(&mapped, &read), "after truncating the cache: %s", err.msg);
    groth16_params_free(&mapped);

    /* A missing source is an I/O error naming it; the cache is not consulted. */
    char nope[700];
    snprintf(nope, sizeof nope, "%s/missing.params", dir);
    CHECK(groth16_params_load_mapped(NULL, &mapped, nope, cache, 0, NULL, &err) == CUZK_ERR_IO &&
          strstr(err.msg, "missing.params"));

    unlink(cache);
    unlink(source);
    rmdir(dir);
    groth16_params_free(&made);
    groth16_params_free(&read);
    r1cs_free(&cs);
    return test_finish("test_params_mapped");
}
