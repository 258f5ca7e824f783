/* Fuzzes the .wtns reader: any input must parse or fail with a documented status, never crash or leak; a
 * witness that parses holds exactly the values of its section 2, each below r. The seed corpus is the
 * committed fixture. */
#include <stdlib.h>
#include <string.h>

#include "formats/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_error err;
    wtns w;
    cuzk_status st = wtns_parse(&w, data, size, &err);
    if (st != CUZK_OK && st != CUZK_ERR_TRUNCATED && st != CUZK_ERR_FORMAT && st != CUZK_ERR_NOMEM) abort();
    if (st != CUZK_OK) return 0;
    /* Re-encode each value and find it at its place in section 2. */
    snarkjs_binfile bf;
    const uint8_t *v;
    size_t vsize;
    if (snarkjs_binfile_open(&bf, data, size, "wtns", 2, "wtns", &err) != CUZK_OK ||
        snarkjs_binfile_section(&bf, 2, &v, &vsize, "wtns", &err) != CUZK_OK || vsize != w.n * FR_BYTES)
        abort();
    for (size_t i = 0; i < w.n; i++) {
        uint8_t b[FR_BYTES];
        fr_to_bytes_le(b, &w.values[i]);
        if (memcmp(b, v + i * FR_BYTES, FR_BYTES) != 0) abort();
    }
    wtns_free(&w);
    return 0;
}
