/* The TOML subset reader (see toml.h). A hand-written recursive-descent scanner over [p, end): every read
 * is bounds-checked against end, so the input needs no terminator. */
#include "daemon/toml.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct scanner {
    const char *p, *end;
    int line;
    cuzk_error *err;
} scanner;

static cuzk_status fail(scanner *s, const char *what)
{
    return cuzk_error_set(s->err, CUZK_ERR_FORMAT, "line %d: %s", s->line, what);
}

static cuzk_status oom(scanner *s)
{
    return cuzk_error_set(s->err, CUZK_ERR_NOMEM, "line %d: out of memory", s->line);
}

static int at_end(const scanner *s)
{
    return s->p >= s->end;
}

static void skip_blank(scanner *s)
{
    while (!at_end(s) && (*s->p == ' ' || *s->p == '\t')) s->p++;
}

/* Skips blanks and a comment up to (not over) the end of the line. Control characters other than tab are
 * not allowed in comments. */
static cuzk_status skip_blank_comment(scanner *s)
{
    skip_blank(s);
    if (!at_end(s) && *s->p == '#') {
        while (!at_end(s) && *s->p != '\n') {
            unsigned char c = (unsigned char)*s->p;
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return fail(s, "control character in a comment");
            s->p++;
        }
    }
    return CUZK_OK;
}

/* Expects the end of a line (after optional blanks and a comment) and steps over it. */
static cuzk_status end_of_line(scanner *s)
{
    cuzk_status st = skip_blank_comment(s);
    if (st != CUZK_OK) return st;
    if (at_end(s)) return CUZK_OK;
    if (*s->p == '\r' && s->end - s->p >= 2 && s->p[1] == '\n') s->p++;
    if (*s->p != '\n') return fail(s, "unexpected text after the value");
    s->p++;
    s->line++;
    return CUZK_OK;
}

/* Skips blanks, comments and newlines (inside arrays). */
static cuzk_status skip_ws_nl(scanner *s)
{
    for (;;) {
        cuzk_status st = skip_blank_comment(s);
        if (st != CUZK_OK) return st;
        if (at_end(s)) return CUZK_OK;
        if (*s->p == '\r' && s->end - s->p >= 2 && s->p[1] == '\n') s->p++;
        if (*s->p != '\n') return CUZK_OK;
        s->p++;
        s->line++;
    }
}

static int is_bare(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* ---- growable byte buffer for strings ---- */

typedef struct sbuf {
    char *b;
    size_t n, cap;
} sbuf;

static int sbuf_put(sbuf *sb, const char *data, size_t n)
{
    if (sb->n + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 32;
        while (cap < sb->n + n + 1) cap *= 2;
        char *nb = realloc(sb->b, cap);
        if (!nb) return -1;
        sb->b = nb;
        sb->cap = cap;
    }
    memcpy(sb->b + sb->n, data, n);
    sb->n += n;
    sb->b[sb->n] = '\0';
    return 0;
}

static int sbuf_put_utf8(sbuf *sb, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return sbuf_put(sb, u, n);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A basic ("...") or literal ('...') string on one line; *out is malloc'd. */
static cuzk_status parse_string(scanner *s, char **out)
{
    char q = *s->p;
    if (s->end - s->p >= 3 && s->p[1] == q && s->p[2] == q) return fail(s, "multi-line strings are not supported");
    s->p++;
    sbuf sb = {0};
    if (sbuf_put(&sb, "", 0)) return oom(s);
    cuzk_status st = CUZK_OK;
    for (;;) {
        if (at_end(s) || *s->p == '\n' || *s->p == '\r') {
            st = fail(s, "unterminated string");
            break;
        }
        char c = *s->p;
        if (c == q) {
            s->p++;
            break;
        }
        unsigned char uc = (unsigned char)c;
        if ((uc < 0x20 && c != '\t') || uc == 0x7f) {
            st = fail(s, "control character in a string (escape it)");
            break;
        }
        if (q == '"' && c == '\\') {
            s->p++;
            if (at_end(s)) {
                st = fail(s, "unterminated string");
                break;
            }
            char e = *s->p++;
            const char *rep = NULL;
            switch (e) {
            case 'b': rep = "\b"; break;
            case 't': rep = "\t"; break;
            case 'n': rep = "\n"; break;
            case 'f': rep = "\f"; break;
            case 'r': rep = "\r"; break;
            case '"': rep = "\""; break;
            case '\\': rep = "\\"; break;
            case 'u':
            case 'U': {
                int digits = e == 'u' ? 4 : 8;
                if (s->end - s->p < digits) {
                    st = fail(s, "truncated \\u escape");
                    break;
                }
                uint32_t cp = 0;
                for (int i = 0; i < digits; i++) {
                    int h = hexval(s->p[i]);
                    if (h < 0) {
                        st = fail(s, "bad hex digit in a \\u escape");
                        break;
                    }
                    cp = cp << 4 | (uint32_t)h;
                }
                if (st != CUZK_OK) break;
                s->p += digits;
                if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
                    st = fail(s, "\\u escape is not a valid (non-NUL) Unicode scalar value");
                    break;
                }
                if (sbuf_put_utf8(&sb, cp)) st = oom(s);
                break;
            }
            default: st = fail(s, "unknown escape in a string"); break;
            }
            if (st != CUZK_OK) break;
            if (rep && sbuf_put(&sb, rep, 1)) {
                st = oom(s);
                break;
            }
            continue;
        }
        if (sbuf_put(&sb, &c, 1)) {
            st = oom(s);
            break;
        }
        s->p++;
    }
    if (st != CUZK_OK) {
        free(sb.b);
        return st;
    }
    *out = sb.b;
    return CUZK_OK;
}

/* Integers (decimal with '_' between digits, 0x/0o/0b), floats, inf/nan, booleans. */
static cuzk_status parse_scalar_word(scanner *s, toml_value *v)
{
    const char *w = s->p;
    while (!at_end(s) && (is_bare(*s->p) || *s->p == '+' || *s->p == '.' || *s->p == ':')) s->p++;
    size_t n = (size_t)(s->p - w);
    if (n == 0) return fail(s, "expected a value");
    if (n == 4 && !memcmp(w, "true", 4)) {
        v->type = TOML_BOOL;
        v->u.b = 1;
        return CUZK_OK;
    }
    if (n == 5 && !memcmp(w, "false", 5)) {
        v->type = TOML_BOOL;
        v->u.b = 0;
        return CUZK_OK;
    }
    if (memchr(w, ':', n)) return fail(s, "dates and times are not supported");
    if (n > 64) return fail(s, "number too long");
    /* Copy without underscores, each of which must sit between two digits. */
    char buf[72];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i] == '_') {
            int ok = i > 0 && i + 1 < n && hexval(w[i - 1]) >= 0 && hexval(w[i + 1]) >= 0;
            if (!ok) return fail(s, "misplaced '_' in a number");
            continue;
        }
        buf[m++] = w[i];
    }
    buf[m] = '\0';
    const char *d = buf;
    int neg = 0;
    if (*d == '+' || *d == '-') {
        neg = *d == '-';
        d++;
    }
    if (!strcmp(d, "inf") || !strcmp(d, "nan")) {
        v->type = TOML_FLOAT;
        v->u.f = d[0] == 'i' ? (neg ? -INFINITY : INFINITY) : NAN;
        return CUZK_OK;
    }
    if (d[0] == '0' && (d[1] == 'x' || d[1] == 'o' || d[1] == 'b')) {
        if (d != buf) return fail(s, "a sign is not allowed on hex, octal or binary integers");
        int base = d[1] == 'x' ? 16 : d[1] == 'o' ? 8 : 2;
        if (!d[2]) return fail(s, "missing digits in an integer");
        uint64_t x = 0;
        for (const char *c = d + 2; *c; c++) {
            int h = hexval(*c);
            if (h < 0 || h >= base) return fail(s, "bad digit in an integer");
            if (x > (uint64_t)INT64_MAX / (uint64_t)base || x * (uint64_t)base > (uint64_t)INT64_MAX - (uint64_t)h)
                return fail(s, "integer out of range");
            x = x * (uint64_t)base + (uint64_t)h;
        }
        v->type = TOML_INT;
        v->u.i = (int64_t)x;
        return CUZK_OK;
    }
    if (!(d[0] >= '0' && d[0] <= '9')) return fail(s, "expected a value (string, number, boolean or array)");
    int is_float = 0;
    for (const char *c = d; *c; c++) {
        if (*c == '.' || *c == 'e' || *c == 'E') {
            is_float = 1;
        } else if (!(*c >= '0' && *c <= '9') && !((*c == '+' || *c == '-') && (c[-1] == 'e' || c[-1] == 'E'))) {
            return fail(s, "malformed number");
        }
    }
    if (d[0] == '0' && d[1] >= '0' && d[1] <= '9') return fail(s, "leading zeros are not allowed");
    if (is_float) {
        /* TOML wants a digit on both sides of '.', and digits after an exponent. */
        const char *dot = strchr(d, '.');
        if (dot && (dot == d || !(dot[1] >= '0' && dot[1] <= '9'))) return fail(s, "malformed float");
        size_t dl = strlen(d);
        if (d[dl - 1] < '0' || d[dl - 1] > '9') return fail(s, "malformed float");
        char *endp;
        errno = 0;
        double f = strtod(buf, &endp);
        if (*endp || errno == ERANGE) return fail(s, "malformed or out-of-range float");
        v->type = TOML_FLOAT;
        v->u.f = f;
        return CUZK_OK;
    }
    char *endp;
    errno = 0;
    long long x = strtoll(buf, &endp, 10);
    if (*endp) return fail(s, "malformed integer");
    if (errno == ERANGE) return fail(s, "integer out of range");
    v->type = TOML_INT;
    v->u.i = (int64_t)x;
    return CUZK_OK;
}

static void value_free(toml_value *v)
{
    if (v->type == TOML_STRING) {
        free(v->u.s);
    } else if (v->type == TOML_ARRAY) {
        for (size_t i = 0; i < v->u.arr.n; i++) value_free(&v->u.arr.items[i]);
        free(v->u.arr.items);
    }
    memset(v, 0, sizeof(*v));
    v->type = TOML_INT;
}

static cuzk_status parse_value(scanner *s, toml_value *v, int in_array)
{
    memset(v, 0, sizeof(*v));
    v->type = TOML_INT;
    if (at_end(s)) return fail(s, "expected a value");
    char c = *s->p;
    if (c == '"' || c == '\'') {
        char *str;
        cuzk_status st = parse_string(s, &str);
        if (st != CUZK_OK) return st;
        v->type = TOML_STRING;
        v->u.s = str;
        return CUZK_OK;
    }
    if (c == '{') return fail(s, "inline tables are not supported");
    if (c == '[') {
        if (in_array) return fail(s, "nested arrays are not supported");
        s->p++;
        v->type = TOML_ARRAY;
        size_t cap = 0;
        for (;;) {
            cuzk_status st = skip_ws_nl(s);
            if (st != CUZK_OK) goto bad;
            if (at_end(s)) {
                st = fail(s, "unterminated array");
                goto bad;
            }
            if (*s->p == ']') {
                s->p++;
                return CUZK_OK;
            }
            if (v->u.arr.n == cap) {
                size_t nc = cap ? 2 * cap : 4;
                toml_value *ni = realloc(v->u.arr.items, nc * sizeof(*ni));
                if (!ni) {
                    st = oom(s);
                    goto bad;
                }
                v->u.arr.items = ni;
                cap = nc;
            }
            st = parse_value(s, &v->u.arr.items[v->u.arr.n], 1);
            if (st != CUZK_OK) goto bad;
            v->u.arr.n++;
            st = skip_ws_nl(s);
            if (st != CUZK_OK) goto bad;
            if (!at_end(s) && *s->p == ',') {
                s->p++;
                continue;
            }
            if (!at_end(s) && *s->p == ']') {
                s->p++;
                return CUZK_OK;
            }
            st = fail(s, "expected ',' or ']' in an array");
        bad:
            value_free(v);
            return st;
        }
    }
    return parse_scalar_word(s, v);
}

/* A bare or quoted key (one part: dotted keys are rejected). */
static cuzk_status parse_key(scanner *s, char **out)
{
    if (!at_end(s) && (*s->p == '"' || *s->p == '\'')) {
        cuzk_status st = parse_string(s, out);
        if (st != CUZK_OK) return st;
    } else {
        const char *k = s->p;
        while (!at_end(s) && is_bare(*s->p)) s->p++;
        size_t n = (size_t)(s->p - k);
        if (n == 0) return fail(s, "expected a key");
        char *key = malloc(n + 1);
        if (!key) return oom(s);
        memcpy(key, k, n);
        key[n] = '\0';
        *out = key;
    }
    skip_blank(s);
    if (!at_end(s) && *s->p == '.') {
        free(*out);
        *out = NULL;
        return fail(s, "dotted keys are not supported (use a [section])");
    }
    return CUZK_OK;
}

/* [name] or [a.b] (bare parts), stored as the dotted name. */
static cuzk_status parse_header(scanner *s, char **out)
{
    s->p++;
    if (!at_end(s) && *s->p == '[') return fail(s, "arrays of tables ([[...]]) are not supported");
    sbuf sb = {0};
    if (sbuf_put(&sb, "", 0)) return oom(s);
    for (;;) {
        skip_blank(s);
        const char *k = s->p;
        while (!at_end(s) && is_bare(*s->p)) s->p++;
        if (s->p == k) {
            free(sb.b);
            return fail(s, "expected a section name of letters, digits, '_' or '-'");
        }
        if (sbuf_put(&sb, k, (size_t)(s->p - k))) {
            free(sb.b);
            return oom(s);
        }
        skip_blank(s);
        if (!at_end(s) && *s->p == '.') {
            s->p++;
            if (sbuf_put(&sb, ".", 1)) {
                free(sb.b);
                return oom(s);
            }
            continue;
        }
        if (!at_end(s) && *s->p == ']') {
            s->p++;
            *out = sb.b;
            return CUZK_OK;
        }
        free(sb.b);
        return fail(s, "expected ']' after the section name");
    }
}

void toml_free(toml_doc *doc)
{
    if (!doc) return;
    for (size_t i = 0; i < doc->n; i++) {
        free(doc->entries[i].key);
        value_free(&doc->entries[i].value);
    }
    free(doc->entries);
    for (size_t i = 0; i < doc->n_sections; i++) free(doc->sections[i]);
    free(doc->sections);
    free(doc->section_lines);
    memset(doc, 0, sizeof(*doc));
}

cuzk_status toml_parse(const char *text, size_t len, toml_doc *doc, cuzk_error *err)
{
    memset(doc, 0, sizeof(*doc));
    if (!text && len) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "toml: NULL text");
    if (len && memchr(text, '\0', len)) {
        size_t at = (size_t)((const char *)memchr(text, '\0', len) - text);
        int line = 1;
        for (size_t i = 0; i < at; i++) line += text[i] == '\n';
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "line %d: NUL byte in the file", line);
    }
    scanner s = {text, text + len, 1, err};
    /* Entries point at their section by name; the names live in doc->sections (index 0: ""). */
    doc->sections = malloc(sizeof(char *));
    doc->section_lines = malloc(sizeof(int));
    char *root = malloc(1);
    if (!doc->sections || !doc->section_lines || !root) {
        free(root);
        toml_free(doc);
        return oom(&s);
    }
    root[0] = '\0';
    doc->sections[0] = root;
    doc->section_lines[0] = 0;
    doc->n_sections = doc->cap_sections = 1;
    const char *section = root;
    cuzk_status st = CUZK_OK;
    while (st == CUZK_OK) {
        st = skip_ws_nl(&s);
        if (st != CUZK_OK || at_end(&s)) break;
        if (*s.p == '[') {
            char *name = NULL;
            st = parse_header(&s, &name);
            if (st != CUZK_OK) break;
            for (size_t i = 1; i < doc->n_sections; i++) {
                if (!strcmp(doc->sections[i], name)) {
                    free(name);
                    st = cuzk_error_set(err, CUZK_ERR_FORMAT, "line %d: section [%s] already defined on line %d",
                                        s.line, doc->sections[i], doc->section_lines[i]);
                    break;
                }
            }
            if (st != CUZK_OK) break;
            if (doc->n_sections == doc->cap_sections) {
                size_t nc = 2 * doc->cap_sections;
                char **ns = realloc(doc->sections, nc * sizeof(*ns));
                if (ns) doc->sections = ns;
                int *nl = ns ? realloc(doc->section_lines, nc * sizeof(*nl)) : NULL;
                if (nl) doc->section_lines = nl;
                if (!ns || !nl) {
                    free(name);
                    st = oom(&s);
                    break;
                }
                doc->cap_sections = nc;
            }
            doc->sections[doc->n_sections] = name;
            doc->section_lines[doc->n_sections] = s.line;
            doc->n_sections++;
            section = name;
            st = end_of_line(&s);
            continue;
        }
        int line = s.line;
        char *key = NULL;
        st = parse_key(&s, &key);
        if (st != CUZK_OK) break;
        skip_blank(&s);
        if (at_end(&s) || *s.p != '=') {
            free(key);
            st = fail(&s, "expected '=' after the key");
            break;
        }
        s.p++;
        skip_blank(&s);
        for (size_t i = 0; i < doc->n; i++) {
            if (doc->entries[i].section == section && !strcmp(doc->entries[i].key, key)) {
                st = cuzk_error_set(err, CUZK_ERR_FORMAT, "line %d: key '%s' already set on line %d", line, key,
                                    doc->entries[i].line);
                break;
            }
        }
        if (st != CUZK_OK) {
            free(key);
            break;
        }
        toml_value v;
        st = parse_value(&s, &v, 0);
        if (st != CUZK_OK) {
            free(key);
            break;
        }
        if (doc->n == doc->cap) {
            size_t nc = doc->cap ? 2 * doc->cap : 16;
            toml_entry *ne = realloc(doc->entries, nc * sizeof(*ne));
            if (!ne) {
                free(key);
                value_free(&v);
                st = oom(&s);
                break;
            }
            doc->entries = ne;
            doc->cap = nc;
        }
        doc->entries[doc->n++] = (toml_entry){(char *)section, key, v, line, 0};
        st = end_of_line(&s);
    }
    if (st != CUZK_OK) toml_free(doc);
    return st;
}

toml_entry *toml_get(toml_doc *doc, const char *section, const char *key)
{
    for (size_t i = 0; i < doc->n; i++) {
        toml_entry *e = &doc->entries[i];
        if (!strcmp(e->section, section) && !strcmp(e->key, key)) {
            e->used = 1;
            return e;
        }
    }
    return NULL;
}

const char *toml_type_name(toml_type t)
{
    switch (t) {
    case TOML_STRING: return "string";
    case TOML_INT: return "integer";
    case TOML_FLOAT: return "float";
    case TOML_BOOL: return "boolean";
    case TOML_ARRAY: return "array";
    }
    return "?";
}
