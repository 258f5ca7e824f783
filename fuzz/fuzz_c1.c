/* Fuzzes the PoRep C1 reader (JSON and the base64 envelope): any input must parse or fail with a documented
 * status, never crash or leak; a C1 that parses has passed validation, and writing it back and parsing that gives
 * the same JSON again. Seed corpus: tests/data/porep/c1-2kib.json (and its envelope from porep_c1_to_envelope). */
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/c1.h"
#include "formats/porep_c1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    porep_c1 c1;
    cuzk_error err;
    int64_t num;
    cuzk_status st = porep_c1_parse(&c1, (const char *)data, size, &num, &err);
    if (st != CUZK_OK && st != CUZK_ERR_FORMAT && st != CUZK_ERR_NOMEM) abort();
    if (st != CUZK_OK) return 0;
    char *a, *b;
    size_t alen, blen;
    if (porep_c1_to_json(&c1, &a, &alen, &err) != CUZK_OK) abort();
    porep_c1_free(&c1);
    if (porep_c1_parse(&c1, a, alen, NULL, &err) != CUZK_OK) abort();
    if (porep_c1_to_json(&c1, &b, &blen, &err) != CUZK_OK || alen != blen || memcmp(a, b, alen) != 0) abort();
    porep_c1_free(&c1);
    free(a);
    free(b);
    return 0;
}
