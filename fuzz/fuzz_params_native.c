/* Fuzzes the parameter cache's checks (groth16_params_native_view, what groth16_params_map runs on a mapping):
 * any image is accepted or refused with a documented status, never a crash or a read outside it; an accepted
 * one has every array inside the image (each array's first and last point are read here, so ASan sees a read
 * past the end). The seed is a small valid cache from gen_corpus. */
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"

static volatile uint8_t sink;

static void touch(const void *p, size_t n, size_t size)
{
    if (n == 0) return;
    const uint8_t *b = p;
    sink ^= b[0];
    sink ^= b[n * size - 1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy aligned like a mapping (the arrays are read as 8-byte limbs). */
    uint8_t *buf = aligned_alloc(4096, (size + 4095) / 4096 * 4096 + 4096);
    if (!buf) return 0;
    if (size) memcpy(buf, data, size);
    cuzk_error err;
    groth16_params p;
    cuzk_status st = groth16_params_native_view(buf, size, &p, &err);
    if (st != CUZK_OK && st != CUZK_ERR_TRUNCATED && st != CUZK_ERR_FORMAT && st != CUZK_ERR_NOMEM) abort();
    if (st == CUZK_OK) {
        const uint8_t *end = buf + size;
        const void *arr[5] = {p.h, p.l, p.a, p.b_g1, p.b_g2};
        size_t n[5] = {p.h_len, p.l_len, p.a_len, p.b_g1_len, p.b_g2_len};
        for (int k = 0; k < 5; k++) {
            size_t es = k == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
            if ((const uint8_t *)arr[k] < buf || (const uint8_t *)arr[k] + n[k] * es > end) abort();
            touch(arr[k], n[k], es);
        }
        if (p.vk.ic_len == 0) abort();
        groth16_vk_free(&p.vk);
    }
    free(buf);
    return 0;
}
