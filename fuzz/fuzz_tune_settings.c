/* Fuzzes the GPU tuning's settings parser (gpu_tune_apply_settings: cuzk-bench batch --rounds). Properties: no
 * crash, hang or leak; a refusal carries a message and leaves the tuning as it was; accepted settings applied a
 * second time change nothing more (each names a variable once, so the result does not depend on what was there). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "gpu/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    gpu_tune before, t, again;
    gpu_tune_defaults(&before);
    t = before;
    cuzk_error err;
    err.msg[0] = 0;
    if (gpu_tune_apply_settings(&t, text, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
        FUZZ_CHECK(memcmp(&t, &before, sizeof t) == 0);
    } else {
        again = t;
        FUZZ_CHECK(gpu_tune_apply_settings(&again, text, &err) == CUZK_OK);
        FUZZ_CHECK(memcmp(&again, &t, sizeof t) == 0);
    }
    free(text);
    return 0;
}
