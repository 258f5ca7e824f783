/* Fuzzes the .params section-length reader (filecoin_params_read_layout: `cuzk params check` and the kinds' load
 * of published parameter files read it before anything else). The input is written to a file of this process
 * and read back. Properties: no crash, hang or leak; a refusal is TRUNCATED or FORMAT with a message; an accepted
 * file's size is the layout's (filecoin_params_file_bytes), and a file one byte shorter is refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/filecoin_params.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[64];

static void remove_file(void)
{
    unlink(g_path);
}

static int write_file(const uint8_t *data, size_t size)
{
    FILE *f = fopen(g_path, "wb");
    if (!f) return -1;
    int ok = (size == 0 || fwrite(data, 1, size, f) == size);
    return fclose(f) == 0 && ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_path[0]) {
        snprintf(g_path, sizeof g_path, "/tmp/fuzz_params_layout.%ld", (long)getpid());
        atexit(remove_file);
    }
    if (write_file(data, size) != 0) return 0;
    filecoin_params_layout lo;
    uint64_t bytes = 0;
    cuzk_error err;
    err.msg[0] = 0;
    cuzk_status st = filecoin_params_read_layout(g_path, &lo, &bytes, &err);
    FUZZ_CHECK(bytes == size);
    if (st != CUZK_OK) {
        FUZZ_CHECK((st == CUZK_ERR_TRUNCATED || st == CUZK_ERR_FORMAT) && err.msg[0] != 0);
    } else {
        FUZZ_CHECK(filecoin_params_file_bytes(&lo) == size);
        FUZZ_CHECK(size > 0 && write_file(data, size - 1) == 0);
        FUZZ_CHECK(filecoin_params_read_layout(g_path, &lo, &bytes, &err) == CUZK_ERR_TRUNCATED);
    }
    return 0;
}
