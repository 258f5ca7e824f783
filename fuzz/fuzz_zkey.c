/* Fuzzes the snarkjs .zkey reader: any input must parse or fail with a documented status, never crash, hang or
 * leak. Inputs of up to 64 KiB are also parsed with the subgroup check (the expensive path). A key that parses
 * is proved with a fixed witness (1, 2, 3, ...) and fixed r, s: the prover must cope with whatever a parsable
 * file holds (identity points, empty sections, repeated coefficients). The seed corpus is the committed fixture. */
#include <stdlib.h>
#include <string.h>

#include "formats/zkey.h"

static int documented(cuzk_status st)
{
    return st == CUZK_OK || st == CUZK_ERR_TRUNCATED || st == CUZK_ERR_FORMAT || st == CUZK_ERR_UNSUPPORTED ||
           st == CUZK_ERR_NOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_error err;
    zkey z;
    unsigned flags = size <= 65536 ? 0 : ZKEY_SKIP_SUBGROUP_CHECK;
    cuzk_status st = zkey_parse(NULL, &z, data, size, flags, &err);
    if (!documented(st)) abort();
    if (st != CUZK_OK) return 0;
    if (z.n_vars <= 4096) {
        fr_t *w = malloc(z.n_vars * sizeof *w);
        if (w) {
            for (uint32_t i = 0; i < z.n_vars; i++) fr_from_u64(&w[i], (uint64_t)i + 1);
            fr_t r, s;
            fr_from_u64(&r, 12345);
            fr_from_u64(&s, 67890);
            groth16_proof proof;
            st = zkey_prove(NULL, &z, w, z.n_vars, &r, &s, &proof, &err);
            if (st != CUZK_OK && st != CUZK_ERR_INVALID_ARG && st != CUZK_ERR_NOMEM) abort();
            free(w);
        }
    }
    zkey_free(&z);
    return 0;
}
