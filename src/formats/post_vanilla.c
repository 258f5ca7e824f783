#include "formats/post_vanilla.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/post/challenges.h"
#include "formats/json.h"
#include "util/base64.h"

cuzk_status post_vanilla_shape_init(post_vanilla_shape *s, const porep_geometry *g, cuzk_error *err)
{
    memset(s, 0, sizeof *s);
    if (!g) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "post vanilla: no sector geometry");
    if (g->top_arity && !g->sub_arity)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "post vanilla: %s has a top tree without sub trees", g->name);
    s->geometry = g;
    s->tag = g->top_arity ? POST_VANILLA_TAG_TOP : g->sub_arity ? POST_VANILLA_TAG_SUB : POST_VANILLA_TAG_SINGLE;
    s->levels = porep_tree_levels(g);
    if (s->levels == 0 || s->levels > POREP_MAX_TREE_LEVELS)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "post vanilla: %s has %u tree levels", g->name, s->levels);
    unsigned off = 0;
    for (unsigned l = 0; l < s->levels; l++) {
        s->arity[l] = porep_tree_level_arity(g, l);
        s->sib_offset[l] = off;
        off += s->arity[l] - 1;
    }
    s->sib_offset[s->levels] = off;
    size_t paths = 1 + s->tag; /* Single one path, Sub two, Top three */
    s->proof_bytes = 4 + 2 * 32 + paths * 8 + (size_t)s->levels * 16 + (size_t)off * 32;
    return CUZK_OK;
}

/* The levels of path p (0 base, 1 sub, 2 top) of a proof: [first, first + count). */
static void post_vanilla_path_levels(const post_vanilla_shape *s, unsigned p, unsigned *first, unsigned *count)
{
    unsigned base = s->geometry->base_levels;
    if (s->tag == POST_VANILLA_TAG_SINGLE) {
        *first = 0;
        *count = s->levels;
    } else if (p == 0) {
        *first = 0;
        *count = base;
    } else {
        *first = base + p - 1;
        *count = 1;
    }
}

static cuzk_status post_vanilla_sector_alloc(post_vanilla_sector *s, const post_vanilla_shape *sh, unsigned proofs,
                                             cuzk_error *err)
{
    memset(s, 0, sizeof *s);
    size_t sibs = (size_t)proofs * sh->sib_offset[sh->levels];
    size_t bytes = (2 * (size_t)proofs + sibs) * sizeof(porep_dom) + (size_t)proofs * sh->levels;
    uint8_t *b = calloc(1, bytes ? bytes : 1);
    if (!b) return cuzk_error_set(err, CUZK_ERR_NOMEM, "post vanilla: out of memory for %zu bytes", bytes);
    s->block = b;
    s->proofs = proofs;
    s->roots = (porep_dom *)b;
    s->leaves = s->roots + proofs;
    s->sibs = s->leaves + proofs;
    s->index = (uint8_t *)(s->sibs + sibs);
    return CUZK_OK;
}

cuzk_status post_vanilla_alloc(post_vanilla *v, const post_proof_type *t, size_t count, cuzk_error *err)
{
    memset(v, 0, sizeof *v);
    cuzk_status st = post_vanilla_shape_init(&v->shape, post_proof_type_geometry(t), err);
    if (st) return st;
    v->type = t;
    v->sectors = calloc(count ? count : 1, sizeof *v->sectors);
    if (!v->sectors) return cuzk_error_set(err, CUZK_ERR_NOMEM, "post vanilla: out of memory for %zu sectors", count);
    for (size_t i = 0; i < count; i++) {
        st = post_vanilla_sector_alloc(&v->sectors[i], &v->shape, t->challenges, err);
        if (st) {
            post_vanilla_free(v);
            return st;
        }
        v->count = i + 1;
    }
    v->count = count;
    return CUZK_OK;
}

void post_vanilla_free(post_vanilla *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) free(v->sectors[i].block);
    free(v->sectors);
    memset(v, 0, sizeof *v);
}

/* ---- decoding ---- */

typedef struct post_vanilla_reader {
    const uint8_t *p;
    size_t len, off;
    size_t sector; /* position in the request */
    uint64_t id;
    int have_id;
    /* the field being read, formatted only on failure: proof, path (0 base, 1 sub, 2 top), level, hash or -1 */
    int proof, path, level, arity, hash;
    const char *field;
    cuzk_error *err;
} post_vanilla_reader;

static const char *const POST_VANILLA_PATH_NAMES[3] = {"base_path", "sub_path", "top_path"};

static void post_vanilla_at(post_vanilla_reader *r, int proof, int path, int level, int arity, int hash,
                            const char *field)
{
    r->proof = proof, r->path = path, r->level = level, r->arity = arity, r->hash = hash, r->field = field;
}

static void post_vanilla_where(const post_vanilla_reader *r, char *out, size_t n)
{
    int k = 0;
    if (r->proof >= 0) k = snprintf(out, n, "inclusion proof %d: ", r->proof);
    if (r->path >= 0 && k >= 0 && (size_t)k < n) {
        k += snprintf(out + k, n - (size_t)k, "%s", POST_VANILLA_PATH_NAMES[r->path]);
        if (r->level >= 0 && (size_t)k < n)
            k += snprintf(out + k, n - (size_t)k, " level %d (arity %d)", r->level, r->arity);
        if ((size_t)k < n) k += snprintf(out + k, n - (size_t)k, r->field ? ": " : "");
    }
    if (r->field && k >= 0 && (size_t)k < n) k += snprintf(out + k, n - (size_t)k, "%s", r->field);
    if (r->hash >= 0 && k >= 0 && (size_t)k < n) snprintf(out + k, n - (size_t)k, "[%d]", r->hash);
}

static cuzk_status post_vanilla_fail(post_vanilla_reader *r, cuzk_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static cuzk_status post_vanilla_fail(post_vanilla_reader *r, cuzk_status code, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char id[40] = "", where[160];
    if (r->have_id) snprintf(id, sizeof id, " (id %" PRIu64 ")", r->id);
    post_vanilla_where(r, where, sizeof where);
    return cuzk_error_set(r->err, code, "post vanilla: sector %zu%s: %s: %s (byte %zu of %zu)", r->sector, id, where,
                          what, r->off, r->len);
}

static cuzk_status post_vanilla_need(post_vanilla_reader *r, size_t n)
{
    if (r->len - r->off < n)
        return post_vanilla_fail(r, CUZK_ERR_TRUNCATED, "truncated: %zu bytes needed, %zu left", n, r->len - r->off);
    return CUZK_OK;
}

static cuzk_status post_vanilla_u64(post_vanilla_reader *r, uint64_t *v)
{
    cuzk_status st = post_vanilla_need(r, 8);
    if (st) return st;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | r->p[r->off + (size_t)i];
    r->off += 8;
    *v = x;
    return CUZK_OK;
}

static cuzk_status post_vanilla_u32(post_vanilla_reader *r, uint32_t *v)
{
    cuzk_status st = post_vanilla_need(r, 4);
    if (st) return st;
    const uint8_t *q = r->p + r->off;
    *v = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    r->off += 4;
    return CUZK_OK;
}

/* r, little-endian: a byte comparison from the top is what a 58 MB request's ~1.8 M values need, not a field
 * conversion each. */
static const uint8_t POST_VANILLA_R[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                           0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                           0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

static int post_vanilla_canonical(const porep_dom x)
{
    for (int i = 31; i >= 0; i--)
        if (x[i] != POST_VANILLA_R[i]) return x[i] < POST_VANILLA_R[i];
    return 0;
}

static cuzk_status post_vanilla_fe(post_vanilla_reader *r, porep_dom out)
{
    cuzk_status st = post_vanilla_need(r, 32);
    if (st) return st;
    memcpy(out, r->p + r->off, 32);
    if (!post_vanilla_canonical(out)) return post_vanilla_fail(r, CUZK_ERR_NOT_CANONICAL, "not below r");
    r->off += 32;
    return CUZK_OK;
}

/* A u64 length that must equal want. */
static cuzk_status post_vanilla_len(post_vanilla_reader *r, uint64_t want, const char *what)
{
    uint64_t n;
    cuzk_status st = post_vanilla_u64(r, &n);
    if (st) return st;
    if (n != want) {
        r->off -= 8;
        return post_vanilla_fail(r, CUZK_ERR_FORMAT, "%s %" PRIu64 ", expected %" PRIu64, what, n, want);
    }
    return CUZK_OK;
}

static cuzk_status post_vanilla_read_path(post_vanilla_reader *r, const post_vanilla_shape *sh, post_vanilla_sector *s,
                                          unsigned i, unsigned p)
{
    unsigned first, count;
    post_vanilla_path_levels(sh, p, &first, &count);
    post_vanilla_at(r, (int)i, (int)p, -1, 0, -1, NULL);
    cuzk_status st = post_vanilla_len(r, count, "path length");
    if (st) return st;
    for (unsigned k = 0; k < count; k++) {
        unsigned l = first + k, a = sh->arity[l];
        post_vanilla_at(r, (int)i, (int)p, (int)k, (int)a, -1, "hashes");
        if ((st = post_vanilla_len(r, a - 1, "hash count"))) return st;
        porep_dom *sib = post_vanilla_sibs(s, sh, i, l);
        for (unsigned h = 0; h + 1 < a; h++) {
            r->hash = (int)h;
            if ((st = post_vanilla_fe(r, sib[h]))) return st;
        }
        post_vanilla_at(r, (int)i, (int)p, (int)k, (int)a, -1, "index");
        uint64_t idx;
        if ((st = post_vanilla_u64(r, &idx))) return st;
        if (idx >= a) {
            r->off -= 8;
            return post_vanilla_fail(r, CUZK_ERR_FORMAT, "index %" PRIu64 " is not below the arity", idx);
        }
        *post_vanilla_index(s, sh, i, l) = (uint8_t)idx;
    }
    return CUZK_OK;
}

static const char *post_vanilla_tag_name(uint32_t tag)
{
    return tag == POST_VANILLA_TAG_SINGLE ? "Single" : tag == POST_VANILLA_TAG_SUB ? "Sub" : "Top";
}

static cuzk_status post_vanilla_read_proof(post_vanilla_reader *r, const post_vanilla_shape *sh, post_vanilla_sector *s,
                                           unsigned i)
{
    post_vanilla_at(r, (int)i, -1, -1, 0, -1, "variant tag");
    uint32_t tag;
    cuzk_status st = post_vanilla_u32(r, &tag);
    if (st) return st;
    if (tag != sh->tag) {
        r->off -= 4;
        if (tag > POST_VANILLA_TAG_TOP) return post_vanilla_fail(r, CUZK_ERR_FORMAT, "unknown variant %u", tag);
        return post_vanilla_fail(r, CUZK_ERR_FORMAT, "variant %s, but %s sectors have %s proofs",
                                 post_vanilla_tag_name(tag), sh->geometry->name, post_vanilla_tag_name(sh->tag));
    }
    if (tag == POST_VANILLA_TAG_SINGLE) {
        post_vanilla_at(r, (int)i, -1, -1, 0, -1, "root");
        if ((st = post_vanilla_fe(r, s->roots[i]))) return st;
        post_vanilla_at(r, (int)i, -1, -1, 0, -1, "leaf");
        if ((st = post_vanilla_fe(r, s->leaves[i]))) return st;
        return post_vanilla_read_path(r, sh, s, i, 0);
    }
    for (unsigned p = 0; p <= tag; p++)
        if ((st = post_vanilla_read_path(r, sh, s, i, p))) return st;
    post_vanilla_at(r, (int)i, -1, -1, 0, -1, "root");
    if ((st = post_vanilla_fe(r, s->roots[i]))) return st;
    post_vanilla_at(r, (int)i, -1, -1, 0, -1, "leaf");
    return post_vanilla_fe(r, s->leaves[i]);
}

static cuzk_status post_vanilla_decode_one(post_vanilla *v, size_t k, const uint8_t *bytes, size_t len, cuzk_error *err)
{
    post_vanilla_reader r = {.p = bytes, .len = len, .sector = k, .err = err};
    post_vanilla_sector *s = &v->sectors[k];
    memset(s, 0, sizeof *s);
    const post_vanilla_shape *sh = &v->shape;
    unsigned proofs = v->type->challenges;
    post_vanilla_at(&r, -1, -1, -1, 0, -1, "sector_id");
    cuzk_status st = post_vanilla_u64(&r, &s->sector_id);
    if (st) return st;
    r.id = s->sector_id;
    r.have_id = 1;
    /* Everything after this is bounded by the shape: check the counts before allocating. */
    post_vanilla_at(&r, -1, -1, -1, 0, -1, "comm_r");
    porep_dom comm_r;
    if ((st = post_vanilla_fe(&r, comm_r))) return st;
    post_vanilla_at(&r, -1, -1, -1, 0, -1, "vanilla_proof.sectors");
    if ((st = post_vanilla_len(&r, 1, "sector proof count"))) return st;
    post_vanilla_at(&r, -1, -1, -1, 0, -1, "inclusion_proofs");
    if ((st = post_vanilla_len(&r, proofs, "inclusion proof count"))) return st;
    if ((st = post_vanilla_sector_alloc(s, sh, proofs, err))) return st;
    s->sector_id = r.id;
    memcpy(s->comm_r, comm_r, 32);
    for (unsigned i = 0; i < proofs && !st; i++) st = post_vanilla_read_proof(&r, sh, s, i);
    if (!st) {
        post_vanilla_at(&r, -1, -1, -1, 0, -1, "comm_c");
        st = post_vanilla_fe(&r, s->comm_c);
    }
    if (!st) {
        post_vanilla_at(&r, -1, -1, -1, 0, -1, "comm_r_last");
        st = post_vanilla_fe(&r, s->comm_r_last);
    }
    if (!st && r.off != r.len) {
        post_vanilla_at(&r, -1, -1, -1, 0, -1, "end");
        st = post_vanilla_fail(&r, CUZK_ERR_FORMAT, "%zu trailing bytes", r.len - r.off);
    }
    if (st) {
        free(s->block);
        memset(s, 0, sizeof *s);
    }
    return st;
}

static cuzk_status post_vanilla_begin(post_vanilla *v, const post_proof_type *t, size_t count, cuzk_error *err)
{
    memset(v, 0, sizeof *v);
    if (!t) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "post vanilla: no registered proof");
    cuzk_status st = post_vanilla_shape_init(&v->shape, post_proof_type_geometry(t), err);
    if (st) return st;
    v->type = t;
    if (count == 0) return cuzk_error_set(err, CUZK_ERR_FORMAT, "post vanilla: no vanilla proofs");
    if (t->kind == POST_WINNING && count != 1)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "post vanilla: %s takes 1 vanilla proof, got %zu", t->name, count);
    if (count > t->sector_count)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "post vanilla: %zu vanilla proofs, %s partitions hold %u", count,
                              t->name, t->sector_count);
    v->sectors = calloc(count, sizeof *v->sectors);
    if (!v->sectors) return cuzk_error_set(err, CUZK_ERR_NOMEM, "post vanilla: out of memory for %zu sectors", count);
    return CUZK_OK;
}

cuzk_status post_vanilla_decode(post_vanilla *v, const post_proof_type *t, const uint8_t *const *bytes,
                                const size_t *lens, size_t count, cuzk_error *err)
{
    cuzk_status st = post_vanilla_begin(v, t, count, err);
    for (size_t k = 0; k < count && !st; k++) {
        st = post_vanilla_decode_one(v, k, bytes[k], lens[k], err);
        if (!st) v->count = k + 1;
    }
    if (st) post_vanilla_free(v);
    return st;
}

/* ---- encoding ---- */

size_t post_vanilla_sector_encoded_size(const post_vanilla *v, const post_vanilla_sector *s)
{
    return 8 + 32 + 8 + 8 + (size_t)s->proofs * v->shape.proof_bytes + 64;
}

static uint8_t *post_vanilla_put_u64(uint8_t *o, uint64_t x)
{
    for (int i = 0; i < 8; i++) *o++ = (uint8_t)(x >> (8 * i));
    return o;
}

static uint8_t *post_vanilla_put(uint8_t *o, const porep_dom x)
{
    memcpy(o, x, 32);
    return o + 32;
}

static uint8_t *post_vanilla_put_path(uint8_t *o, const post_vanilla_shape *sh, const post_vanilla_sector *s,
                                      unsigned i, unsigned p)
{
    unsigned first, count;
    post_vanilla_path_levels(sh, p, &first, &count);
    o = post_vanilla_put_u64(o, count);
    for (unsigned l = first; l < first + count; l++) {
        unsigned a = sh->arity[l];
        o = post_vanilla_put_u64(o, a - 1);
        const porep_dom *sib = post_vanilla_sibs(s, sh, i, l);
        for (unsigned h = 0; h + 1 < a; h++) o = post_vanilla_put(o, sib[h]);
        o = post_vanilla_put_u64(o, *post_vanilla_index(s, sh, i, l));
    }
    return o;
}

void post_vanilla_encode_sector(const post_vanilla *v, size_t k, uint8_t *out)
{
    const post_vanilla_sector *s = &v->sectors[k];
    const post_vanilla_shape *sh = &v->shape;
    uint8_t *o = post_vanilla_put_u64(out, s->sector_id);
    o = post_vanilla_put(o, s->comm_r);
    o = post_vanilla_put_u64(o, 1);
    o = post_vanilla_put_u64(o, s->proofs);
    for (unsigned i = 0; i < s->proofs; i++) {
        uint32_t tag = sh->tag;
        for (int b = 0; b < 4; b++) *o++ = (uint8_t)(tag >> (8 * b));
        if (tag == POST_VANILLA_TAG_SINGLE) {
            o = post_vanilla_put(o, s->roots[i]);
            o = post_vanilla_put(o, s->leaves[i]);
            o = post_vanilla_put_path(o, sh, s, i, 0);
        } else {
            for (unsigned p = 0; p <= tag; p++) o = post_vanilla_put_path(o, sh, s, i, p);
            o = post_vanilla_put(o, s->roots[i]);
            o = post_vanilla_put(o, s->leaves[i]);
        }
    }
    o = post_vanilla_put(o, s->comm_c);
    post_vanilla_put(o, s->comm_r_last);
}

/* ---- the JSON file form ---- */

cuzk_status post_vanilla_parse_json(post_vanilla *v, const post_proof_type *t, const char *text, size_t len,
                                    cuzk_error *err)
{
    memset(v, 0, sizeof *v);
    json_doc *doc = NULL;
    cuzk_status st = json_parse(&doc, text, len, err);
    if (st) return cuzk_error_prefix(err, "post vanilla JSON: ");
    const json_value *root = json_root(doc);
    st = json_expect(root, JSON_ARRAY, "post vanilla JSON: the document (an array of base64 strings)", err);
    if (!st) st = post_vanilla_begin(v, t, root->len, err);
    for (size_t k = 0; k < root->len && !st; k++) {
        const json_value *e = json_at(root, k);
        if (e->type != JSON_STRING) {
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "post vanilla JSON: element %zu (byte %zu) is not a string", k,
                                e->offset);
            break;
        }
        uint8_t *bytes;
        size_t n;
        st = base64_decode(&bytes, &n, e->text, e->len, err);
        if (st) {
            cuzk_error_prefix(err, "post vanilla JSON: element %zu (byte %zu): ", k, e->offset);
            break;
        }
        st = post_vanilla_decode_one(v, k, bytes, n, err);
        free(bytes);
        if (!st) v->count = k + 1;
    }
    json_free(doc);
    if (st) post_vanilla_free(v);
    return st;
}

cuzk_status post_vanilla_read_json(post_vanilla *v, const post_proof_type *t, const char *path, cuzk_error *err)
{
    memset(v, 0, sizeof *v);
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "post vanilla: cannot open %s", path);
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) text = malloc((size_t)n + 1);
    int ok = text && fread(text, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok) {
        free(text);
        return cuzk_error_set(err, text ? CUZK_ERR_IO : CUZK_ERR_NOMEM, "post vanilla: cannot read %s", path);
    }
    cuzk_status st = post_vanilla_parse_json(v, t, text, (size_t)n, err);
    free(text);
    if (st) cuzk_error_prefix(err, "%s: ", path);
    return st;
}

cuzk_status post_vanilla_write_json(const post_vanilla *v, const char *path, cuzk_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "post vanilla: cannot create %s", path);
    size_t cap = 0;
    uint8_t *bin = NULL;
    char *b64 = NULL;
    cuzk_status st = CUZK_OK;
    fputc('[', f);
    for (size_t k = 0; k < v->count && !st; k++) {
        size_t n = post_vanilla_sector_encoded_size(v, &v->sectors[k]);
        if (n > cap) {
            free(bin);
            free(b64);
            bin = malloc(n);
            b64 = malloc(base64_encoded_len(n));
            cap = n;
            if (!bin || !b64) {
                st = cuzk_error_set(err, CUZK_ERR_NOMEM, "post vanilla: out of memory for %zu bytes", n);
                break;
            }
        }
        post_vanilla_encode_sector(v, k, bin);
        base64_encode(b64, bin, n);
        if (k) fputc(',', f);
        fputc('"', f);
        fwrite(b64, 1, base64_encoded_len(n), f);
        fputc('"', f);
    }
    free(bin);
    free(b64);
    fputc(']', f);
    if (ferror(f) && !st) st = cuzk_error_set(err, CUZK_ERR_IO, "post vanilla: write to %s failed", path);
    if (fclose(f) != 0 && !st) st = cuzk_error_set(err, CUZK_ERR_IO, "post vanilla: write to %s failed", path);
    return st;
}

/* ---- verification ---- */

cuzk_status post_vanilla_verify(const post_vanilla *v, const porep_hashers *h, const uint8_t *randomness,
                                uint64_t sector_index0, cuzk_error *err)
{
    const post_vanilla_shape *sh = &v->shape;
    for (size_t k = 0; k < v->count; k++) {
        const post_vanilla_sector *s = &v->sectors[k];
        porep_dom pair[2], x;
        memcpy(pair[0], s->comm_c, 32);
        memcpy(pair[1], s->comm_r_last, 32);
        if (porep_poseidon(h, 2, pair, x) != 0 || memcmp(x, s->comm_r, 32) != 0)
            return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                  "post vanilla: sector %zu (id %" PRIu64 "): comm_r != Poseidon2(comm_c, comm_r_last)",
                                  k, s->sector_id);
        for (unsigned i = 0; i < s->proofs; i++) {
            if (memcmp(s->roots[i], s->comm_r_last, 32) != 0)
                return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                      "post vanilla: sector %zu (id %" PRIu64
                                      "): inclusion proof %u: root != comm_r_last",
                                      k, s->sector_id, i);
            porep_dom cur, nodes[16];
            memcpy(cur, s->leaves[i], 32);
            uint64_t path_index = 0, weight = 1;
            for (unsigned l = 0; l < sh->levels; l++) {
                unsigned a = sh->arity[l], at = *post_vanilla_index(s, sh, i, l);
                const porep_dom *sib = post_vanilla_sibs(s, sh, i, l);
                for (unsigned c = 0, j = 0; c < a; c++) memcpy(nodes[c], c == at ? cur : sib[j++], 32);
                if (porep_poseidon(h, a, nodes, cur) != 0)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                          "post vanilla: sector %zu (id %" PRIu64 "): inclusion proof %u: level %u: "
                                          "a value is not below r",
                                          k, s->sector_id, i, l);
                path_index += weight * at;
                weight *= a;
            }
            if (memcmp(cur, s->roots[i], 32) != 0)
                return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                      "post vanilla: sector %zu (id %" PRIu64
                                      "): inclusion proof %u: the path does not "
                                      "hash to the root",
                                      k, s->sector_id, i);
            if (randomness) {
                uint64_t want = post_challenge_leaf(v->type, randomness, s->sector_id, sector_index0 + k, i);
                if (path_index != want)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                          "post vanilla: sector %zu (id %" PRIu64
                                          "): inclusion proof %u: path index %" PRIu64 ", challenge %" PRIu64,
                                          k, s->sector_id, i, path_index, want);
            }
        }
    }
    return CUZK_OK;
}
