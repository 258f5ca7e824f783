#include "formats/json.h"

#include <stdlib.h>
#include <string.h>

/* Arena: large blocks, bump allocation, freed all at once. */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} arena_block;

struct json_doc {
    arena_block *blocks;
    size_t next_cap; /* blocks double from 4 KiB to 1 MiB: small documents stay small */
    json_value *root;
};

static void *arena_alloc(json_doc *doc, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    arena_block *b = doc->blocks;
    if (!b || b->cap - b->used < n) {
        if (doc->next_cap == 0) doc->next_cap = 4096;
        size_t cap = n > doc->next_cap ? n : doc->next_cap;
        if (doc->next_cap < (1u << 20)) doc->next_cap *= 2;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = doc->blocks;
        b->used = 0;
        b->cap = cap;
        doc->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

typedef struct parser {
    json_doc *doc;
    const char *s;
    size_t len, pos;
    cuzk_error *err;
    /* scratch stack for array/object members, shared by all levels */
    json_value **stack;
    const char **kstack;
    size_t top, cap;
} parser;

static cuzk_status fail(parser *p, size_t at, const char *what)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < p->len; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    return cuzk_error_set(p->err, CUZK_ERR_FORMAT, "JSON line %zu, column %zu: %s", line, col, what);
}

static cuzk_status nomem(parser *p)
{
    return cuzk_error_set(p->err, CUZK_ERR_NOMEM, "JSON: out of memory");
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static int push(parser *p, json_value *v, const char *key)
{
    if (p->top == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        json_value **s = realloc(p->stack, cap * sizeof *s);
        if (!s) return -1;
        p->stack = s;
        const char **k = realloc(p->kstack, cap * sizeof *k);
        if (!k) return -1;
        p->kstack = k;
        p->cap = cap;
    }
    p->stack[p->top] = v;
    p->kstack[p->top] = key;
    p->top++;
    return 0;
}

static int hexdig(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static cuzk_status parse_hex4(parser *p, unsigned *out)
{
    if (p->len - p->pos < 4) return fail(p, p->pos, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hexdig(p->s[p->pos + i]);
        if (d < 0) return fail(p, p->pos + i, "bad hex digit in \\u escape");
        v = v << 4 | (unsigned)d;
    }
    p->pos += 4;
    *out = v;
    return CUZK_OK;
}

/* Parses a string starting after the opening quote; result in the arena. */
static cuzk_status parse_string(parser *p, const char **out, size_t *outlen)
{
    size_t start = p->pos, end = start;
    int escapes = 0;
    while (end < p->len && p->s[end] != '"') {
        unsigned char c = (unsigned char)p->s[end];
        if (c < 0x20) return fail(p, end, "control character in string");
        if (c == '\\') {
            escapes = 1;
            end++;
        }
        end++;
    }
    if (end >= p->len) return fail(p, start - 1, "unterminated string");
    /* unescaped text is never longer than the source */
    char *dst = arena_alloc(p->doc, end - start + 1);
    if (!dst) return nomem(p);
    size_t n = 0;
    if (!escapes) {
        memcpy(dst, p->s + start, end - start);
        n = end - start;
        p->pos = end + 1;
    } else {
        while (p->s[p->pos] != '"') {
            char c = p->s[p->pos++];
            if (c != '\\') {
                dst[n++] = c;
                continue;
            }
            char e = p->s[p->pos++];
            switch (e) {
            case '"': dst[n++] = '"'; break;
            case '\\': dst[n++] = '\\'; break;
            case '/': dst[n++] = '/'; break;
            case 'b': dst[n++] = '\b'; break;
            case 'f': dst[n++] = '\f'; break;
            case 'n': dst[n++] = '\n'; break;
            case 'r': dst[n++] = '\r'; break;
            case 't': dst[n++] = '\t'; break;
            case 'u': {
                unsigned cp;
                cuzk_status st = parse_hex4(p, &cp);
                if (st) return st;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    unsigned lo;
                    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                        return fail(p, p->pos, "unpaired surrogate in \\u escape");
                    p->pos += 2;
                    st = parse_hex4(p, &lo);
                    if (st) return st;
                    if (lo < 0xdc00 || lo >= 0xe000) return fail(p, p->pos, "bad low surrogate in \\u escape");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000) {
                    return fail(p, p->pos, "unpaired surrogate in \\u escape");
                }
                /* UTF-8 of a code point is at most as long as its escape */
                if (cp < 0x80) {
                    dst[n++] = (char)cp;
                } else if (cp < 0x800) {
                    dst[n++] = (char)(0xc0 | cp >> 6);
                    dst[n++] = (char)(0x80 | (cp & 0x3f));
                } else if (cp < 0x10000) {
                    dst[n++] = (char)(0xe0 | cp >> 12);
                    dst[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
                    dst[n++] = (char)(0x80 | (cp & 0x3f));
                } else {
                    dst[n++] = (char)(0xf0 | cp >> 18);
                    dst[n++] = (char)(0x80 | (cp >> 12 & 0x3f));
                    dst[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
                    dst[n++] = (char)(0x80 | (cp & 0x3f));
                }
                break;
            }
            default: return fail(p, p->pos - 1, "unknown escape in string");
            }
        }
        p->pos++;
    }
    dst[n] = 0;
    *out = dst;
    *outlen = n;
    return CUZK_OK;
}

static cuzk_status parse_number(parser *p, json_value *v)
{
    size_t i = p->pos;
    const char *s = p->s;
    if (i < p->len && s[i] == '-') i++;
    if (i >= p->len) return fail(p, i, "truncated number");
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < p->len && s[i] >= '0' && s[i] <= '9') i++;
    } else {
        return fail(p, i, "bad number");
    }
    if (i < p->len && s[i] == '.') {
        i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9') return fail(p, i, "bad fraction in number");
        while (i < p->len && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9') return fail(p, i, "bad exponent in number");
        while (i < p->len && s[i] >= '0' && s[i] <= '9') i++;
    }
    v->type = JSON_NUMBER;
    v->text = s + p->pos;
    v->len = i - p->pos;
    p->pos = i;
    return CUZK_OK;
}

static int match(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return 0;
    p->pos += n;
    return 1;
}

static cuzk_status parse_value(parser *p, json_value **out, int depth);

static cuzk_status finish_members(parser *p, json_value *v, size_t base, int with_keys)
{
    size_t n = p->top - base;
    v->len = n;
    v->items = arena_alloc(p->doc, (n ? n : 1) * sizeof *v->items);
    if (!v->items) return nomem(p);
    if (n) memcpy(v->items, p->stack + base, n * sizeof *v->items);
    if (with_keys) {
        v->keys = arena_alloc(p->doc, (n ? n : 1) * sizeof *v->keys);
        if (!v->keys) return nomem(p);
        if (n) memcpy(v->keys, p->kstack + base, n * sizeof *v->keys);
    }
    p->top = base;
    return CUZK_OK;
}

static cuzk_status parse_value(parser *p, json_value **out, int depth)
{
    if (depth > JSON_MAX_DEPTH) return fail(p, p->pos, "nesting deeper than the limit");
    skip_ws(p);
    if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of input");
    json_value *v = arena_alloc(p->doc, sizeof *v);
    if (!v) return nomem(p);
    memset(v, 0, sizeof *v);
    v->offset = p->pos;
    cuzk_status st;
    char c = p->s[p->pos];
    if (c == '{' || c == '[') {
        int obj = c == '{';
        char close = obj ? '}' : ']';
        size_t base = p->top;
        p->pos++;
        v->type = obj ? JSON_OBJECT : JSON_ARRAY;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
        } else {
            for (;;) {
                const char *key = NULL;
                if (obj) {
                    skip_ws(p);
                    if (p->pos >= p->len || p->s[p->pos] != '"') return fail(p, p->pos, "expected a string key");
                    p->pos++;
                    size_t klen;
                    if ((st = parse_string(p, &key, &klen))) return st;
                    skip_ws(p);
                    if (p->pos >= p->len || p->s[p->pos] != ':') return fail(p, p->pos, "expected ':'");
                    p->pos++;
                }
                json_value *m;
                if ((st = parse_value(p, &m, depth + 1))) return st;
                if (push(p, m, key)) return nomem(p);
                skip_ws(p);
                if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of input");
                if (p->s[p->pos] == ',') {
                    p->pos++;
                    continue;
                }
                if (p->s[p->pos] == close) {
                    p->pos++;
                    break;
                }
                return fail(p, p->pos, obj ? "expected ',' or '}'" : "expected ',' or ']'");
            }
        }
        if ((st = finish_members(p, v, base, obj))) return st;
    } else if (c == '"') {
        p->pos++;
        v->type = JSON_STRING;
        if ((st = parse_string(p, &v->text, &v->len))) return st;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if ((st = parse_number(p, v))) return st;
    } else if (match(p, "true")) {
        v->type = JSON_TRUE;
    } else if (match(p, "false")) {
        v->type = JSON_FALSE;
    } else if (match(p, "null")) {
        v->type = JSON_NULL;
    } else {
        return fail(p, p->pos, "unexpected character");
    }
    *out = v;
    return CUZK_OK;
}

cuzk_status json_parse(json_doc **out, const char *text, size_t len, cuzk_error *err)
{
    *out = NULL;
    json_doc *doc = calloc(1, sizeof *doc);
    if (!doc) return cuzk_error_set(err, CUZK_ERR_NOMEM, "JSON: out of memory");
    parser p = {.doc = doc, .s = text, .len = len, .err = err};
    cuzk_status st = parse_value(&p, &doc->root, 0);
    if (st == CUZK_OK) {
        skip_ws(&p);
        if (p.pos != len) st = fail(&p, p.pos, "trailing characters after the document");
    }
    free(p.stack);
    free(p.kstack);
    if (st != CUZK_OK) {
        json_free(doc);
        return st;
    }
    *out = doc;
    return CUZK_OK;
}

const json_value *json_root(const json_doc *doc)
{
    return doc ? doc->root : NULL;
}

void json_free(json_doc *doc)
{
    if (!doc) return;
    arena_block *b = doc->blocks;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(doc);
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->len; i++)
        if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
    return NULL;
}

const json_value *json_at(const json_value *arr, size_t i)
{
    if (!arr || arr->type != JSON_ARRAY || i >= arr->len) return NULL;
    return arr->items[i];
}

static const char *type_name(json_type t)
{
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_FALSE:
    case JSON_TRUE: return "a boolean";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "?";
}

cuzk_status json_expect(const json_value *v, json_type type, const char *what, cuzk_error *err)
{
    if (!v) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: missing", what);
    if (v->type != type && !(type == JSON_TRUE && v->type == JSON_FALSE))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: expected %s, found %s", what, type_name(type),
                              type_name(v->type));
    return CUZK_OK;
}

cuzk_status json_decimal_limbs(const json_value *v, uint64_t *limbs, size_t nlimbs, const char *what, cuzk_error *err)
{
    if (!v) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: missing", what);
    if (v->type != JSON_STRING && v->type != JSON_NUMBER)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: expected a decimal number, found %s", what,
                              type_name(v->type));
    if (v->len == 0) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: empty number", what);
    memset(limbs, 0, nlimbs * sizeof *limbs);
    for (size_t i = 0; i < v->len; i++) {
        char c = v->text[i];
        if (c < '0' || c > '9') return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: '%c' is not a decimal digit", what, c);
        unsigned __int128 carry = (unsigned)(c - '0');
        for (size_t k = 0; k < nlimbs; k++) {
            unsigned __int128 x = (unsigned __int128)limbs[k] * 10 + carry;
            limbs[k] = (uint64_t)x;
            carry = x >> 64;
        }
        if (carry) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: number too large", what);
    }
    return CUZK_OK;
}

cuzk_status json_u64(const json_value *v, uint64_t *out, const char *what, cuzk_error *err)
{
    return json_decimal_limbs(v, out, 1, what, err);
}
