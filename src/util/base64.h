/* Base64 as Go's encoding/base64.StdEncoding writes it (the alphabet A-Z a-z 0-9 + /, '=' padding): the form of
 * []byte in Go's encoding/json, which Curio and cuzk-bench use for vanilla proofs. */
#ifndef CUZK_UTIL_BASE64_H
#define CUZK_UTIL_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* Characters of the encoding of n bytes (no terminator). */
size_t base64_encoded_len(size_t n);
/* Writes base64_encoded_len(n) characters (no terminator). */
void base64_encode(char *out, const uint8_t *in, size_t n);
/* Decodes text[0..n) into a malloc'd buffer (*out, *outlen; free it). Rejects a length that is not a multiple of
 * 4, characters outside the alphabet, padding before the end and non-zero bits under the padding (so the
 * encoding of the result is the text again); errors name the character offset. */
cuzk_status base64_decode(uint8_t **out, size_t *outlen, const char *text, size_t n, cuzk_error *err);

#endif
