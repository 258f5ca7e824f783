/* Fuzzes the sealed-sector directory's sector.json reader (sector_dir_parse_info: `cuzk post vanilla` and `cuzk
 * snap encode` read it). Properties: no crash, hang or leak; every rejection carries a message and leaves the
 * result zeroed; an accepted one names a known geometry of at most SECTOR_DIR_MAX_SIZE and no replica. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/sector_dir.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_error err;
    err.msg[0] = 0;
    sector_dir d;
    if (sector_dir_parse_info(&d, (const char *)data, size, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
        FUZZ_CHECK(d.geometry == NULL && d.sector_id == 0 && d.registered_seal_proof == 0);
    } else {
        FUZZ_CHECK(d.geometry != NULL && d.geometry->sector_size <= SECTOR_DIR_MAX_SIZE);
        FUZZ_CHECK(d.registered_seal_proof <= 1000 && d.sealed == NULL && d.unsealed == NULL);
    }
    return 0;
}
