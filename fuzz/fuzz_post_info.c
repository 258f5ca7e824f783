/* Fuzzes the PoSt public-values reader (post_info_parse: `cuzk verify-post --info` and `cuzk prove --post --info`).
 * Properties: no crash, hang or leak; every rejection carries a message; an accepted file has a registered proof
 * type and every comm_r below r. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/post_info.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_error err;
    err.msg[0] = 0;
    post_info_file info;
    if (post_info_parse(&info, (const char *)data, size, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
        FUZZ_CHECK(info.sectors == NULL && info.n == 0);
        return 0;
    }
    FUZZ_CHECK(info.type != NULL && post_proof_type_by_id(info.type->id) == info.type);
    FUZZ_CHECK(info.n == 0 || info.sectors != NULL);
    for (size_t i = 0; i < info.n; i++) {
        fr_t x;
        FUZZ_CHECK(fr_from_bytes_le(&x, info.sectors[i].comm_r) == 0);
    }
    post_info_free(&info);
    return 0;
}
