/* Fuzzes the bellperson-format readers: .vk and .params images (first input byte selects which) and
 * 192-byte proofs. Properties: no crash or leak on any input; an accepted proof re-encodes to the same
 * bytes; an accepted vk has ic_len inputs whose encoding fills the image exactly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned mode = data[0] % 3;
    data++;
    size--;
    /* an exact-size heap copy, so that AddressSanitizer sees any read past the end */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    cuzk_error err;
    if (mode == 0) {
        groth16_vk vk;
        if (groth16_vk_parse(&vk, buf, size, &err) == CUZK_OK) {
            FUZZ_CHECK(groth16_vk_file_size(&vk) == size);
            groth16_vk_free(&vk);
        } else {
            FUZZ_CHECK(err.msg[0] != 0);
        }
    } else if (mode == 1) {
        groth16_params p;
        if (groth16_params_parse(NULL, &p, buf, size, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, &err) == CUZK_OK) {
            FUZZ_CHECK(groth16_params_file_size(&p) == size);
            groth16_params_free(&p);
        } else {
            FUZZ_CHECK(err.msg[0] != 0);
        }
    } else if (size > 0 && size % GROTH16_PROOF_BYTES == 0 && size <= 16 * GROTH16_PROOF_BYTES) {
        size_t n = size / GROTH16_PROOF_BYTES;
        groth16_proof proofs[16];
        if (groth16_proofs_read(proofs, n, buf, size, &err) == CUZK_OK) {
            uint8_t again[16 * GROTH16_PROOF_BYTES];
            groth16_proofs_write(again, proofs, n);
            FUZZ_CHECK(memcmp(again, buf, size) == 0);
        }
    }
    free(buf);
    return 0;
}
