/* Byte strings as lowercase hex (the form of 32-byte values in the sector directory's sector.json and the
 * --randomness of the cuzk command). */
#ifndef CUZK_UTIL_HEXBYTES_H
#define CUZK_UTIL_HEXBYTES_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* 2n characters and a NUL into out. */
void hexbytes_encode(char *out, const uint8_t *in, size_t n);
/* Exactly 2n hex digits (either case, an optional "0x" prefix) into out; what names the value in the error. */
cuzk_status hexbytes_decode(uint8_t *out, size_t n, const char *text, const char *what, cuzk_error *err);

#endif
