/* Fuzzes the JSON reader and the snarkjs JSON readers built on it (proof.json, public.json,
 * verification_key.json). Properties: no crash, hang or leak; every rejection carries a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "formats/snarkjs_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    memcpy(text, data, size);
    cuzk_error err;
    json_doc *doc;
    if (json_parse(&doc, text, size, &err) == CUZK_OK)
        json_free(doc);
    else if (err.msg[0] == 0)
        abort();
    groth16_proof proof;
    (void)snarkjs_proof_parse(&proof, text, size, &err);
    fr_t *values = NULL;
    size_t n;
    if (snarkjs_public_parse(&values, &n, text, size, &err) == CUZK_OK) free(values);
    groth16_vk vk;
    if (snarkjs_vk_parse(&vk, text, size, &err) == CUZK_OK) groth16_vk_free(&vk);
    free(text);
    return 0;
}
