/* A reader for the subset of TOML that configuration files use:
 *
 *   # comment
 *   top = 1
 *   [section]              (also [a.b]: the section is then named "a.b")
 *   key = "basic \"string\" \u00e9"   key2 = 'literal'   n = -1_000   x = 0x1f   f = 2.5e3   b = true
 *   list = [1, 2,          (arrays of strings, integers, floats and booleans, over several lines,
 *           3]              with comments and a trailing comma)
 *
 * Not supported, each rejected with an error naming the line: multi-line strings, dates and times,
 * inline tables, arrays of tables, nested arrays, dotted keys. Duplicate keys and duplicate section
 * headers are errors, as in TOML.
 *
 * The input is a buffer and its length (no terminating NUL needed; a NUL byte inside is an error), so
 * any byte string can be fed to it: every outcome is a document or an error, never a crash. */
#ifndef CUZK_DAEMON_TOML_H
#define CUZK_DAEMON_TOML_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef enum toml_type { TOML_STRING, TOML_INT, TOML_FLOAT, TOML_BOOL, TOML_ARRAY } toml_type;

typedef struct toml_value {
    toml_type type;
    union {
        char *s; /* NUL-terminated UTF-8 (may not contain NUL: \u0000 is rejected) */
        int64_t i;
        double f;
        int b;
        struct {
            struct toml_value *items;
            size_t n;
        } arr;
    } u;
} toml_value;

typedef struct toml_entry {
    char *section; /* "" for keys before the first header */
    char *key;
    toml_value value;
    int line;
    int used; /* set by toml_get: what was never asked for is an unknown key */
} toml_entry;

typedef struct toml_doc {
    toml_entry *entries;
    size_t n, cap;
    char **sections; /* section headers, in order */
    int *section_lines;
    size_t n_sections, cap_sections;
} toml_doc;

/* Parses text[0..len). CUZK_ERR_FORMAT with "line N: what" on a syntax error, CUZK_ERR_NOMEM. On failure
 * *doc is left empty (toml_free-safe). */
cuzk_status toml_parse(const char *text, size_t len, toml_doc *doc, cuzk_error *err);
void toml_free(toml_doc *doc);

/* The entry for section.key, or NULL; marks it used. */
toml_entry *toml_get(toml_doc *doc, const char *section, const char *key);
/* Name of a type ("string", "integer", ...), for error messages. */
const char *toml_type_name(toml_type t);

#endif
