/* snarkjs Groth16 on the GPU: the committed fixture (a circom circuit compiled for bls12381, its zkey and witness
 * made by snarkjs) proved by zkey_prove_with on the device (H in snarkjs' form, every variable dense) must give
 * the CPU's proof bytes for the same r and s — the CPU's proofs are accepted by `snarkjs groth16 verify` in the
 * interop test — and verify with the zkey's key; a tampered proof must not. Skips (77) without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "gpu/gpu_prove.h"
#include "testutil.h"

static cuzk_status gpu_start(void *ctx, pool_t *pool, const groth16_params *params, size_t m, const fr_t *a,
                             const fr_t *b, const fr_t *c, const fr_t *inputs, size_t n_in, const fr_t *aux,
                             size_t n_aux, const r1cs_density *density, groth16_pending *pending, cuzk_error *err)
{
    (void)ctx;
    return gpu_prove_start_once(0, pool, params, m, a, b, c, inputs, n_in, aux, n_aux, density, pending, err);
}

int main(void)
{
    if (gpu_device_count() == 0) {
        printf("SKIP test_gpu_snarkjs: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    rng_t rng;
    test_seed(&rng, "test_gpu_snarkjs");
    const char *data = getenv("CUZK_TEST_DATA");
    char zpath[4096], wpath[4096];
    snprintf(zpath, sizeof zpath, "%s/../snarkjs/fixtures/circuit.zkey", data ? data : "tests/data");
    snprintf(wpath, sizeof wpath, "%s/../snarkjs/fixtures/witness.wtns", data ? data : "tests/data");
    cuzk_error err = {0};
    pool_t *pool = NULL;
    zkey z;
    wtns w;
    groth16_vk vk;
    CHECK(pool_create(&pool, 0, &err) == CUZK_OK);
    cuzk_status st = zkey_read(pool, &z, zpath, 0, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", zpath, err.msg);
    if (st != CUZK_OK) return test_finish("test_gpu_snarkjs");
    st = wtns_read(&w, wpath, &err);
    CHECK_MSG(st == CUZK_OK, "%s: %s", wpath, err.msg);
    if (st != CUZK_OK) return test_finish("test_gpu_snarkjs");
    CHECK(zkey_vk(&z, &vk, &err) == CUZK_OK);
    for (int rep = 0; rep < 5; rep++) {
        fr_t r, s;
        fr_random(&r, &rng);
        fr_random(&s, &rng);
        if (rep == 0) fr_from_u64(&r, 0), fr_from_u64(&s, 0);
        groth16_proof cpu, gpu;
        memset(&gpu, 0x5a, sizeof gpu);
        CHECK(zkey_prove_with(pool, &z, w.values, w.n, &r, &s, NULL, NULL, &cpu, &err) == CUZK_OK);
        st = zkey_prove_with(pool, &z, w.values, w.n, &r, &s, gpu_start, NULL, &gpu, &err);
        CHECK_MSG(st == CUZK_OK, "GPU prove: %s", err.msg);
        if (st != CUZK_OK) continue;
        CHECK_MSG(memcmp(&cpu, &gpu, sizeof cpu) == 0 ||
                      (g1_affine_eq(&cpu.a, &gpu.a) && g2_affine_eq(&cpu.b, &gpu.b) && g1_affine_eq(&cpu.c, &gpu.c)),
                  "rep %d: the GPU's proof differs from the CPU's for the same r, s", rep);
        CHECK_MSG(snarkjs_verify(&vk, &gpu, w.values + 1, z.n_public, &err) == CUZK_OK, "rep %d: GPU proof: %s", rep,
                  err.msg);
        groth16_proof bad = gpu;
        fp_t one;
        fp_set_one(&one);
        fp_add(&bad.c.x, &bad.c.x, &one);
        CHECK_MSG(snarkjs_verify(&vk, &bad, w.values + 1, z.n_public, &err) == CUZK_ERR_INVALID_PROOF,
                  "rep %d: a tampered GPU proof verified", rep);
    }
    groth16_vk_free(&vk);
    wtns_free(&w);
    zkey_free(&z);
    pool_destroy(pool);
    return test_finish("test_gpu_snarkjs");
}
