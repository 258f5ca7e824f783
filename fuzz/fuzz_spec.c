/* Fuzzes the circuit specification parser (circuit_spec_parse: the command line's --circuit and the daemon's
 * SubmitProof circuit field, which arrives from the network). Properties: no crash, hang or leak; every
 * rejection carries a message; an accepted spec's canonical text (circuit_spec_format) parses again to the same
 * circuit and formats to the same text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/spec.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    cuzk_error err;
    err.msg[0] = 0;
    circuit_spec spec, again;
    if (circuit_spec_parse(text, &spec, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
    } else {
        char canon[256], canon2[256];
        circuit_spec_format(&spec, canon, sizeof canon);
        FUZZ_CHECK(circuit_spec_parse(canon, &again, &err) == CUZK_OK);
        circuit_spec_format(&again, canon2, sizeof canon2);
        FUZZ_CHECK(strcmp(canon, canon2) == 0 && again.kind == spec.kind);
        if (spec.kind == CIRCUIT_SYNTHETIC) FUZZ_CHECK(again.k == spec.k && again.seed == spec.seed);
        if (spec.kind == CIRCUIT_POREP) FUZZ_CHECK(again.porep == spec.porep);
        if (spec.kind == CIRCUIT_POST) FUZZ_CHECK(again.post == spec.post);
    }
    free(text);
    return 0;
}
