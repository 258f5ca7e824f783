/* A small JSON reader: the whole document is parsed into a tree that lives in
 * one arena and is released with json_free. Numbers keep their source text
 * (field elements in JSON are often larger than any C integer). Strings are
 * unescaped to UTF-8 and NUL-terminated. Nesting is limited (JSON_MAX_DEPTH)
 * so hostile input cannot exhaust the stack. */
#ifndef CUZK_FORMATS_JSON_H
#define CUZK_FORMATS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define JSON_MAX_DEPTH 256

typedef enum json_type {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value {
    json_type type;
    size_t len;         /* string/number: bytes; array/object: members */
    const char *text;   /* string (unescaped) or number (as written) */
    json_value **items; /* array elements or object values */
    const char **keys;  /* object keys, parallel to items */
    size_t offset;      /* byte offset in the source, for error messages */
};

typedef struct json_doc json_doc;

/* Parses text[0..len). On error returns CUZK_ERR_FORMAT with "line L, column C: what". */
cuzk_status json_parse(json_doc **out, const char *text, size_t len, cuzk_error *err);
const json_value *json_root(const json_doc *doc);
void json_free(json_doc *doc);

/* Member of an object by key (first match), or NULL. NULL-safe on obj. */
const json_value *json_get(const json_value *obj, const char *key);
/* Element i of an array, or NULL. */
const json_value *json_at(const json_value *arr, size_t i);

/* Typed access with an error naming `what` when the value is missing or of the wrong kind. */
cuzk_status json_expect(const json_value *v, json_type type, const char *what, cuzk_error *err);
/* A non-negative integer that fits in 64 bits, given as a JSON number or a decimal string. */
cuzk_status json_u64(const json_value *v, uint64_t *out, const char *what, cuzk_error *err);

/* Decimal digits (in a string or a number) to a little-endian integer of nlimbs 64-bit limbs.
 * Fails with CUZK_ERR_FORMAT on anything but digits or on overflow. */
cuzk_status json_decimal_limbs(const json_value *v, uint64_t *limbs, size_t nlimbs, const char *what, cuzk_error *err);

/* Writes s as a JSON string literal (quotes and escapes) to f. */
#endif
