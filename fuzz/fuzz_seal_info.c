/* Fuzzes the VerifySeal public-values reader (filecoin_seal_parse: cuzk verify-seal's INFO.json and the seal
 * regression records). Properties: no crash, hang or leak; every rejection carries a message; an accepted object
 * names a published geometry with its proof type's partition count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/filecoin_seal.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_error err;
    err.msg[0] = 0;
    json_doc *doc = NULL;
    if (json_parse(&doc, (const char *)data, size, &err) != CUZK_OK) return 0;
    filecoin_seal sp;
    if (filecoin_seal_parse(json_root(doc), &sp, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
    } else {
        FUZZ_CHECK(sp.g != NULL && sp.g->published);
        FUZZ_CHECK(sp.partitions == porep_partitions(sp.g, sp.kind) && sp.partitions > 0);
        FUZZ_CHECK((unsigned)sp.api <= POREP_API_1_2 && (unsigned)sp.kind <= POREP_NON_INTERACTIVE);
    }
    json_free(doc);
    return 0;
}
