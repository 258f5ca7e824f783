/* The C1 JSON reader and writer (formats/porep_c1.h). */
#include "formats/porep_c1.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/challenges.h"
#include "circuits/porep/graph.h"
#include "circuits/porep/hashing.h"
#include "ff/fr.h"

/* ---------------------------------------------------------------- reader */

typedef struct reader {
    const char *s;
    size_t len, pos;
    size_t base; /* offset of s in the outer text (envelope) for messages */
    cuzk_error *err;
    int part, chal;
    long elem; /* index inside the innermost array of 32-byte values, or -1 (kept out of path: it is hot) */
    char path[256];
    size_t plen;
} reader;

static cuzk_status rfail(reader *r, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char where[64] = "";
    if (r->part >= 0 && r->chal >= 0)
        snprintf(where, sizeof where, ", partition %d, challenge %d", r->part, r->chal);
    else if (r->part >= 0)
        snprintf(where, sizeof where, ", partition %d", r->part);
    char elem[24] = "";
    if (r->elem >= 0) snprintf(elem, sizeof elem, "[%ld]", r->elem);
    return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "C1 JSON offset %zu%s, %s%s: %s", r->base + r->pos, where,
                          r->plen ? r->path : "document", elem, what);
}

static size_t path_push(reader *r, const char *fmt, ...)
{
    size_t saved = r->plen;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->path + r->plen, sizeof r->path - r->plen, fmt, ap);
    va_end(ap);
    if (n > 0) r->plen = r->plen + (size_t)n < sizeof r->path ? r->plen + (size_t)n : sizeof r->path - 1;
    return saved;
}

static void path_pop(reader *r, size_t saved)
{
    r->plen = saved;
    r->path[saved] = 0;
}

static void ws(reader *r)
{
    while (r->pos < r->len) {
        char c = r->s[r->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        r->pos++;
    }
}

static int peek(reader *r)
{
    ws(r);
    return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static cuzk_status expect(reader *r, char c)
{
    if (peek(r) != (unsigned char)c) {
        if (r->pos >= r->len) return rfail(r, "unexpected end of input, expected '%c'", c);
        return rfail(r, "expected '%c'", c);
    }
    r->pos++;
    return CUZK_OK;
}

/* A string without escapes (keys and names never need any) into buf. */
static cuzk_status read_plain_string(reader *r, char *buf, size_t cap)
{
    cuzk_status st = expect(r, '"');
    if (st) return st;
    size_t n = 0;
    while (r->pos < r->len && r->s[r->pos] != '"') {
        char c = r->s[r->pos];
        if (c == '\\' || (unsigned char)c < 0x20) return rfail(r, "escape or control character in a name");
        if (n + 1 >= cap) return rfail(r, "name longer than %zu bytes", cap - 1);
        buf[n++] = c;
        r->pos++;
    }
    if (r->pos >= r->len) return rfail(r, "unterminated string");
    r->pos++;
    buf[n] = 0;
    return CUZK_OK;
}

/* Iterates the members of an object: call with *state = 0 after nothing was read; returns *key = NULL at '}'. */
static cuzk_status obj_next(reader *r, int *state, char *key, size_t cap, int *done)
{
    cuzk_status st;
    *done = 0;
    if (*state == 0) {
        if ((st = expect(r, '{'))) return st;
        *state = 1;
        if (peek(r) == '}') {
            r->pos++;
            *done = 1;
            return CUZK_OK;
        }
    } else {
        int c = peek(r);
        if (c == '}') {
            r->pos++;
            *done = 1;
            return CUZK_OK;
        }
        if (c != ',') return rfail(r, c < 0 ? "unexpected end of input in an object" : "expected ',' or '}'");
        r->pos++;
    }
    if (peek(r) != '"') return rfail(r, "expected a member name");
    if ((st = read_plain_string(r, key, cap))) return st;
    return expect(r, ':');
}

static cuzk_status arr_next(reader *r, int *state, int *done)
{
    cuzk_status st;
    *done = 0;
    if (*state == 0) {
        if ((st = expect(r, '['))) return st;
        *state = 1;
        if (peek(r) == ']') {
            r->pos++;
            *done = 1;
        }
        return CUZK_OK;
    }
    int c = peek(r);
    if (c == ']') {
        r->pos++;
        *done = 1;
        return CUZK_OK;
    }
    if (c != ',') return rfail(r, c < 0 ? "unexpected end of input in an array" : "expected ',' or ']'");
    r->pos++;
    return CUZK_OK;
}

static cuzk_status read_u64(reader *r, uint64_t *out, uint64_t max)
{
    ws(r);
    size_t start = r->pos;
    uint64_t v = 0;
    while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') {
        unsigned d = (unsigned)(r->s[r->pos] - '0');
        if (v > (UINT64_MAX - d) / 10) return rfail(r, "integer too large");
        v = v * 10 + d;
        r->pos++;
    }
    if (r->pos == start) return rfail(r, "expected a non-negative integer");
    if (r->pos < r->len && (r->s[r->pos] == '.' || r->s[r->pos] == 'e' || r->s[r->pos] == 'E'))
        return rfail(r, "expected an integer");
    if (v > max) return rfail(r, "%llu is larger than %llu", (unsigned long long)v, (unsigned long long)max);
    *out = v;
    return CUZK_OK;
}

static cuzk_status read_dom(reader *r, porep_dom out)
{
    cuzk_status st = expect(r, '[');
    if (st) return st;
    for (int i = 0; i < 32; i++) {
        if (i && (st = expect(r, ','))) return rfail(r, "a 32-byte value has %d elements, expected 32", i);
        uint64_t v;
        if ((st = read_u64(r, &v, 255))) return st;
        out[i] = (uint8_t)v;
    }
    if (peek(r) != ']') return rfail(r, "a 32-byte value has more than 32 elements");
    r->pos++;
    return CUZK_OK;
}

/* An array of exactly n 32-byte values. */
static cuzk_status read_doms(reader *r, porep_dom *out, size_t n)
{
    int state = 0, done;
    size_t i = 0;
    cuzk_status st;
    for (;;) {
        if ((st = arr_next(r, &state, &done))) return st;
        if (done) break;
        if (i == n) return rfail(r, "more than %zu elements", n);
        r->elem = (long)i;
        st = read_dom(r, out[i]);
        r->elem = -1;
        if (st) return st;
        i++;
    }
    if (i != n) return rfail(r, "%zu elements, expected %zu", i, n);
    return CUZK_OK;
}

static cuzk_status read_null(reader *r)
{
    ws(r);
    if (r->len - r->pos < 4 || memcmp(r->s + r->pos, "null", 4) != 0) return rfail(r, "expected null");
    r->pos += 4;
    return CUZK_OK;
}

#define DUP_CHECK(bit)                                                                                                 \
    do {                                                                                                               \
        if (seen & (bit)) return rfail(r, "member \"%s\" repeated", key);                                              \
        seen |= (bit);                                                                                                 \
    } while (0)

/* InclusionPath {"path": [{"hashes": [...], "index": n}, ...]} for levels [first, first + n). */
static cuzk_status read_inclusion(reader *r, porep_merkle_proof *p, const unsigned *arity, const unsigned *sib_off,
                                  unsigned first, unsigned n)
{
    int state = 0, done;
    char key[32];
    unsigned seen = 0;
    cuzk_status st;
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        if (strcmp(key, "path") != 0) return rfail(r, "unknown member \"%s\"", key);
        DUP_CHECK(1);
        size_t saved = path_push(r, ".path");
        int as = 0, adone;
        unsigned i = 0;
        for (;;) {
            if ((st = arr_next(r, &as, &adone))) return st;
            if (adone) break;
            if (i == n) return rfail(r, "more than %u levels", n);
            unsigned l = first + i, a = arity[l];
            size_t s2 = path_push(r, "[%u]", i);
            int es = 0, edone;
            unsigned eseen = 0;
            for (;;) {
                if ((st = obj_next(r, &es, key, sizeof key, &edone))) return st;
                if (edone) break;
                if (strcmp(key, "hashes") == 0) {
                    if (eseen & 1) return rfail(r, "member \"hashes\" repeated");
                    eseen |= 1;
                    size_t s3 = path_push(r, ".hashes");
                    st = read_doms(r, p->sibs + sib_off[l], a - 1);
                    path_pop(r, s3);
                    if (st) return st;
                } else if (strcmp(key, "index") == 0) {
                    if (eseen & 2) return rfail(r, "member \"index\" repeated");
                    eseen |= 2;
                    uint64_t v;
                    size_t s3 = path_push(r, ".index");
                    st = read_u64(r, &v, a - 1);
                    path_pop(r, s3);
                    if (st) return st;
                    p->index[l] = (uint8_t)v;
                } else {
                    return rfail(r, "unknown member \"%s\"", key);
                }
            }
            if (eseen != 3) return rfail(r, "missing \"%s\"", eseen & 1 ? "index" : "hashes");
            path_pop(r, s2);
            i++;
        }
        if (i != n) return rfail(r, "%u levels, expected %u", i, n);
        path_pop(r, saved);
    }
    if (!seen) return rfail(r, "missing \"path\"");
    return CUZK_OK;
}

/* MerkleProof {"data": {"Single"|"Sub"|"Top": {...}}}. For TreeD pass d_levels binary levels and shape 0. */
static cuzk_status read_merkle(reader *r, porep_merkle_proof *p, const unsigned *arity, const unsigned *sib_off,
                               unsigned levels, int shape /* 0 single, 1 sub, 2 top */)
{
    static const char *const VARIANTS[3] = {"Single", "Sub", "Top"};
    int state = 0, done;
    char key[32];
    cuzk_status st;
    unsigned seen_data = 0;
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        if (strcmp(key, "data") != 0) return rfail(r, "unknown member \"%s\"", key);
        if (seen_data) return rfail(r, "member \"data\" repeated");
        seen_data = 1;
        size_t s1 = path_push(r, ".data");
        int vs = 0, vdone;
        unsigned variants = 0;
        for (;;) {
            if ((st = obj_next(r, &vs, key, sizeof key, &vdone))) return st;
            if (vdone) break;
            if (variants++) return rfail(r, "more than one proof variant");
            if (strcmp(key, VARIANTS[shape]) != 0)
                return rfail(r, "proof variant \"%s\", the tree shape of this sector size needs \"%s\"", key,
                             VARIANTS[shape]);
            size_t s2 = path_push(r, ".%s", key);
            unsigned base = levels - (unsigned)shape, seen = 0;
            int fs = 0, fdone;
            for (;;) {
                if ((st = obj_next(r, &fs, key, sizeof key, &fdone))) return st;
                if (fdone) break;
                size_t s3 = path_push(r, ".%s", key);
                if (strcmp(key, "root") == 0) {
                    DUP_CHECK(1);
                    st = read_dom(r, p->root);
                } else if (strcmp(key, "leaf") == 0) {
                    DUP_CHECK(2);
                    st = read_dom(r, p->leaf);
                } else if (shape == 0 && strcmp(key, "path") == 0) {
                    DUP_CHECK(4);
                    st = read_inclusion(r, p, arity, sib_off, 0, levels);
                } else if (shape > 0 && strcmp(key, "base_proof") == 0) {
                    DUP_CHECK(4);
                    st = read_inclusion(r, p, arity, sib_off, 0, base);
                } else if (shape > 0 && strcmp(key, "sub_proof") == 0) {
                    DUP_CHECK(8);
                    st = read_inclusion(r, p, arity, sib_off, base, 1);
                } else if (shape > 1 && strcmp(key, "top_proof") == 0) {
                    DUP_CHECK(16);
                    st = read_inclusion(r, p, arity, sib_off, base + 1, 1);
                } else {
                    return rfail(r, "unknown member");
                }
                path_pop(r, s3);
                if (st) return st;
            }
            unsigned need = shape == 0 ? 7 : shape == 1 ? 15 : 31;
            if (seen != need) return rfail(r, "missing members (root, leaf and the paths are required)");
            path_pop(r, s2);
        }
        if (!variants) return rfail(r, "no proof variant");
        path_pop(r, s1);
    }
    if (!seen_data) return rfail(r, "missing \"data\"");
    return CUZK_OK;
}

typedef struct proof_ctx {
    const porep_c1_layout *lo;
    int shape;
    unsigned d_arity[POREP_MAX_TREE_LEVELS], d_sib_off[POREP_MAX_TREE_LEVELS + 1];
} proof_ctx;

static cuzk_status read_column(reader *r, const proof_ctx *pc, porep_column_proof *c)
{
    int state = 0, done;
    char key[32];
    unsigned seen = 0;
    cuzk_status st;
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        size_t s1 = path_push(r, ".%s", key);
        if (strcmp(key, "column") == 0) {
            DUP_CHECK(1);
            int cs = 0, cdone;
            unsigned cseen = 0;
            for (;;) {
                if ((st = obj_next(r, &cs, key, sizeof key, &cdone))) return st;
                if (cdone) break;
                size_t s2 = path_push(r, ".%s", key);
                if (strcmp(key, "index") == 0 && !(cseen & 1)) {
                    cseen |= 1;
                    uint64_t v;
                    st = read_u64(r, &v, UINT32_MAX);
                    c->node = (uint32_t)v;
                } else if (strcmp(key, "rows") == 0 && !(cseen & 2)) {
                    cseen |= 2;
                    st = read_doms(r, c->rows, pc->lo->layers);
                } else if (strcmp(key, "_h") == 0 && !(cseen & 4)) {
                    cseen |= 4;
                    st = read_null(r);
                } else {
                    return rfail(r, "unknown or repeated member");
                }
                path_pop(r, s2);
                if (st) return st;
            }
            if ((cseen & 3) != 3) return rfail(r, "missing \"index\" or \"rows\"");
        } else if (strcmp(key, "inclusion_proof") == 0) {
            DUP_CHECK(2);
            st = read_merkle(r, &c->path, pc->lo->t_arity, pc->lo->t_sib_off, pc->lo->t_levels, pc->shape);
            if (st) return st;
        } else {
            return rfail(r, "unknown member");
        }
        path_pop(r, s1);
    }
    if (seen != 3) return rfail(r, "missing \"column\" or \"inclusion_proof\"");
    return CUZK_OK;
}

static cuzk_status read_columns(reader *r, const proof_ctx *pc, porep_column_proof *cols, unsigned n)
{
    int state = 0, done;
    unsigned i = 0;
    cuzk_status st;
    for (;;) {
        if ((st = arr_next(r, &state, &done))) return st;
        if (done) break;
        if (i == n) return rfail(r, "more than %u column proofs", n);
        size_t s = path_push(r, "[%u]", i);
        if ((st = read_column(r, pc, &cols[i]))) return st;
        path_pop(r, s);
        i++;
    }
    if (i != n) return rfail(r, "%u column proofs, expected %u", i, n);
    return CUZK_OK;
}

/* LabelingProof / EncodingProof {"parents": [37], "layer_index": u32, "node": u64}. */
static cuzk_status read_labeling(reader *r, porep_dom *parents, uint32_t want_layer, uint64_t *node)
{
    int state = 0, done;
    char key[32];
    unsigned seen = 0;
    cuzk_status st;
    uint64_t layer = 0;
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        size_t s = path_push(r, ".%s", key);
        if (strcmp(key, "parents") == 0) {
            DUP_CHECK(1);
            st = read_doms(r, parents, POREP_LABEL_PARENTS);
        } else if (strcmp(key, "layer_index") == 0) {
            DUP_CHECK(2);
            st = read_u64(r, &layer, UINT32_MAX);
            if (!st && layer != want_layer)
                st = rfail(r, "layer %llu, expected %u", (unsigned long long)layer, want_layer);
        } else if (strcmp(key, "node") == 0) {
            DUP_CHECK(4);
            st = read_u64(r, node, UINT64_MAX);
        } else {
            return rfail(r, "unknown member");
        }
        path_pop(r, s);
        if (st) return st;
    }
    if (seen != 7) return rfail(r, "missing \"parents\", \"layer_index\" or \"node\"");
    return CUZK_OK;
}

static cuzk_status read_proof(reader *r, const proof_ctx *pc, porep_challenge_proof *p)
{
    int state = 0, done;
    char key[48];
    unsigned seen = 0;
    cuzk_status st;
    uint64_t nodes[POREP_MAX_LAYERS + 1];
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        size_t s1 = path_push(r, "%s", key);
        if (strcmp(key, "comm_d_proofs") == 0) {
            DUP_CHECK(1);
            st = read_merkle(r, &p->comm_d, pc->d_arity, pc->d_sib_off, pc->lo->d_levels, 0);
        } else if (strcmp(key, "comm_r_last_proof") == 0) {
            DUP_CHECK(2);
            st = read_merkle(r, &p->comm_r_last, pc->lo->t_arity, pc->lo->t_sib_off, pc->lo->t_levels, pc->shape);
        } else if (strcmp(key, "replica_column_proofs") == 0) {
            DUP_CHECK(4);
            int cs = 0, cdone;
            unsigned cseen = 0;
            for (;;) {
                if ((st = obj_next(r, &cs, key, sizeof key, &cdone))) return st;
                if (cdone) break;
                size_t s2 = path_push(r, ".%s", key);
                if (strcmp(key, "c_x") == 0 && !(cseen & 1)) {
                    cseen |= 1;
                    st = read_column(r, pc, &p->c_x);
                } else if (strcmp(key, "drg_parents") == 0 && !(cseen & 2)) {
                    cseen |= 2;
                    st = read_columns(r, pc, p->drg, POREP_DRG_DEGREE);
                } else if (strcmp(key, "exp_parents") == 0 && !(cseen & 4)) {
                    cseen |= 4;
                    st = read_columns(r, pc, p->exp, POREP_EXP_DEGREE);
                } else {
                    return rfail(r, "unknown or repeated member");
                }
                path_pop(r, s2);
                if (st) return st;
            }
            if (cseen != 7) return rfail(r, "missing \"c_x\", \"drg_parents\" or \"exp_parents\"");
        } else if (strcmp(key, "labeling_proofs") == 0) {
            DUP_CHECK(8);
            int as = 0, adone;
            unsigned i = 0;
            for (;;) {
                if ((st = arr_next(r, &as, &adone))) return st;
                if (adone) break;
                if (i == pc->lo->layers) return rfail(r, "more than %u labeling proofs", pc->lo->layers);
                size_t s2 = path_push(r, "[%u]", i);
                st = read_labeling(r, p->labeling + (size_t)POREP_LABEL_PARENTS * i, i + 1, &nodes[i]);
                if (st) return st;
                path_pop(r, s2);
                i++;
            }
            if (i != pc->lo->layers) return rfail(r, "%u labeling proofs, expected %u", i, pc->lo->layers);
        } else if (strcmp(key, "encoding_proof") == 0) {
            DUP_CHECK(16);
            st = read_labeling(r, p->encoding, pc->lo->layers, &nodes[POREP_MAX_LAYERS]);
        } else {
            return rfail(r, "unknown member");
        }
        path_pop(r, s1);
        if (st) return st;
    }
    if (seen != 31)
        return rfail(r, "a proof needs comm_d_proofs, comm_r_last_proof, replica_column_proofs, "
                        "labeling_proofs and encoding_proof");
    /* the proven node: the challenged column's index; everything else is compared with it in validate */
    p->challenge = p->c_x.node;
    for (unsigned i = 0; i < pc->lo->layers; i++)
        if (nodes[i] != p->challenge)
            return rfail(r, "labeling_proofs[%u].node = %llu, the column is %llu", i, (unsigned long long)nodes[i],
                         (unsigned long long)p->challenge);
    if (nodes[POREP_MAX_LAYERS] != p->challenge)
        return rfail(r, "encoding_proof.node = %llu, the column is %llu", (unsigned long long)nodes[POREP_MAX_LAYERS],
                     (unsigned long long)p->challenge);
    return CUZK_OK;
}

static const porep_geometry *variant_geometry(const char *name)
{
    size_t n;
    const porep_geometry *gs = porep_geometries(&n);
    for (size_t i = 0; i < n; i++) {
        const char *v = porep_vanilla_variant(&gs[i]);
        if (v && strcmp(v, name) == 0) return &gs[i];
    }
    return NULL;
}

static cuzk_status read_vanilla(reader *r, porep_c1 *c1, size_t *nalloc)
{
    int state = 0, done;
    char key[48];
    cuzk_status st;
    unsigned variants = 0;
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        if (variants++) return rfail(r, "more than one VanillaSealProof variant");
        const porep_geometry *g = variant_geometry(key);
        if (!g) return rfail(r, "unknown VanillaSealProof variant \"%s\"", key);
        c1->geometry = g;
        porep_c1_layout lo;
        porep_c1_layout_init(&lo, g);
        proof_ctx pc = {.lo = &lo, .shape = g->top_arity ? 2 : g->sub_arity ? 1 : 0};
        for (unsigned l = 0; l < lo.d_levels; l++) {
            pc.d_arity[l] = 2;
            pc.d_sib_off[l] = l;
        }
        pc.d_sib_off[lo.d_levels] = lo.d_levels;
        size_t cap = 0;
        int ps = 0, pdone;
        for (;;) {
            if ((st = arr_next(r, &ps, &pdone))) return st;
            if (pdone) break;
            if (c1->partitions == POREP_MAX_PARTITIONS)
                return rfail(r, "more than %d partitions", POREP_MAX_PARTITIONS);
            r->part = (int)c1->partitions;
            int cs = 0, cdone;
            unsigned n = 0;
            for (;;) {
                if ((st = arr_next(r, &cs, &cdone))) return st;
                if (cdone) break;
                if (n == POREP_MAX_CHALLENGES) return rfail(r, "more than %d challenges", POREP_MAX_CHALLENGES);
                if (c1->partitions > 0 && n == c1->challenges)
                    return rfail(r, "more challenges than partition 0's %u", c1->challenges);
                r->chal = (int)n;
                size_t count = (size_t)c1->partitions * (c1->partitions ? c1->challenges : 0) + n;
                if (count == cap) {
                    size_t ncap = cap ? cap * 2 : 32;
                    porep_challenge_proof *np = realloc(c1->proofs, ncap * sizeof *np);
                    if (!np) return cuzk_error_set(r->err, CUZK_ERR_NOMEM, "C1: out of memory");
                    c1->proofs = np;
                    cap = ncap;
                }
                porep_challenge_proof *p = &c1->proofs[count];
                if (porep_c1_proof_alloc(p, &lo) != 0)
                    return cuzk_error_set(r->err, CUZK_ERR_NOMEM, "C1: out of memory");
                *nalloc = count + 1;
                if (c1->partitions == 0) c1->challenges = n + 1;
                if ((st = read_proof(r, &pc, p))) return st;
                n++;
            }
            r->chal = -1;
            if (c1->partitions == 0 && n == 0) return rfail(r, "a partition without proofs");
            if (n != c1->challenges) return rfail(r, "%u challenges, partition 0 has %u", n, c1->challenges);
            c1->partitions++;
        }
        r->part = -1;
        if (c1->partitions == 0) return rfail(r, "no partitions");
    }
    if (!variants) return rfail(r, "no VanillaSealProof variant");
    return CUZK_OK;
}

static cuzk_status read_c1(reader *r, porep_c1 *c1, size_t *nalloc)
{
    int state = 0, done;
    char key[48];
    unsigned seen = 0;
    cuzk_status st;
    for (;;) {
        if ((st = obj_next(r, &state, key, sizeof key, &done))) return st;
        if (done) break;
        size_t s = strcmp(key, "vanilla_proofs") == 0 ? r->plen : path_push(r, "%s", key);
        if (strcmp(key, "registered_proof") == 0) {
            DUP_CHECK(1);
            char name[64];
            if (peek(r) != '"') return rfail(r, "expected a string");
            if ((st = read_plain_string(r, name, sizeof name))) return st;
            c1->type = porep_proof_type_by_name(name);
            if (!c1->type) return rfail(r, "unknown registered proof \"%s\"", name);
        } else if (strcmp(key, "vanilla_proofs") == 0) {
            DUP_CHECK(2);
            st = read_vanilla(r, c1, nalloc);
        } else if (strcmp(key, "comm_r") == 0) {
            DUP_CHECK(4);
            st = read_dom(r, c1->comm_r);
        } else if (strcmp(key, "comm_d") == 0) {
            DUP_CHECK(8);
            st = read_dom(r, c1->comm_d);
        } else if (strcmp(key, "replica_id") == 0) {
            DUP_CHECK(16);
            st = read_dom(r, c1->replica_id);
        } else if (strcmp(key, "seed") == 0) {
            DUP_CHECK(32);
            st = read_dom(r, c1->seed);
        } else if (strcmp(key, "ticket") == 0) {
            DUP_CHECK(64);
            st = read_dom(r, c1->ticket);
        } else {
            return rfail(r, "unknown member \"%s\"", key);
        }
        if (st) return st;
        path_pop(r, s);
    }
    if (seen != 127)
        return rfail(r, "missing members: registered_proof, vanilla_proofs, comm_r, comm_d, replica_id, seed and "
                        "ticket are required");
    ws(r);
    if (r->pos != r->len) return rfail(r, "trailing characters after the document");
    return CUZK_OK;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Go's base64.StdEncoding (padded) of a JSON string's contents, which never needs escapes. */
static cuzk_status read_base64(reader *r, uint8_t **out, size_t *outlen)
{
    cuzk_status st = expect(r, '"');
    if (st) return st;
    size_t start = r->pos, end = start;
    while (end < r->len && r->s[end] != '"') end++;
    if (end >= r->len) return rfail(r, "unterminated string");
    size_t n = end - start;
    if (n % 4) return rfail(r, "base64 length %zu is not a multiple of 4", n);
    uint8_t *buf = malloc(n / 4 * 3 + 1);
    if (!buf) return cuzk_error_set(r->err, CUZK_ERR_NOMEM, "C1: out of memory for %zu bytes", n / 4 * 3);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        const char *q = r->s + start + i;
        int pad = (q[3] == '=') + (q[2] == '=' && q[3] == '=');
        if (pad && i + 4 != n) {
            free(buf);
            r->pos = start + i;
            return rfail(r, "base64 padding before the end");
        }
        int v[4];
        for (int k = 0; k < 4 - pad; k++) {
            v[k] = b64_value(q[k]);
            if (v[k] < 0) {
                free(buf);
                r->pos = start + i + (size_t)k;
                return rfail(r, "character 0x%02x is not base64", (unsigned char)q[k]);
            }
        }
        for (int k = 4 - pad; k < 4; k++) v[k] = 0;
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        buf[o++] = (uint8_t)(w >> 16);
        if (pad < 2) buf[o++] = (uint8_t)(w >> 8);
        if (pad < 1) buf[o++] = (uint8_t)w;
    }
    r->pos = end + 1;
    *out = buf;
    *outlen = o;
    return CUZK_OK;
}

static void free_partial(porep_c1 *c1, size_t nalloc)
{
    for (size_t i = 0; i < nalloc; i++) free(c1->proofs[i].block);
    free(c1->proofs);
    memset(c1, 0, sizeof *c1);
}

static cuzk_status parse_c1_text(porep_c1 *c1, const char *text, size_t len, size_t base, cuzk_error *err)
{
    reader r = {.s = text, .len = len, .base = base, .err = err, .part = -1, .chal = -1, .elem = -1};
    size_t nalloc = 0;
    cuzk_status st = read_c1(&r, c1, &nalloc);
    if (st == CUZK_OK && nalloc != (size_t)c1->partitions * c1->challenges)
        st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "C1: %zu proofs allocated for %u x %u", nalloc, c1->partitions,
                            c1->challenges);
    if (st != CUZK_OK) free_partial(c1, nalloc);
    return st;
}

cuzk_status porep_c1_parse(porep_c1 *c1, const char *text, size_t len, int64_t *sector_num, cuzk_error *err)
{
    memset(c1, 0, sizeof *c1);
    if (sector_num) *sector_num = 0;
    /* the envelope is recognised by its member names; a C1 document never has them */
    reader r = {.s = text, .len = len, .err = err, .part = -1, .chal = -1, .elem = -1};
    int state = 0, done;
    char key[48];
    cuzk_status st = obj_next(&r, &state, key, sizeof key, &done);
    if (st) return st;
    if (done || (strcmp(key, "SectorNum") && strcmp(key, "Phase1Out") && strcmp(key, "SectorSize"))) {
        if ((st = parse_c1_text(c1, text, len, 0, err))) return st;
        if ((st = porep_c1_validate(c1, err))) porep_c1_free(c1);
        return st;
    }
    unsigned seen = 0;
    uint8_t *inner = NULL;
    size_t inner_len = 0, inner_off = 0;
    uint64_t size = 0;
    int64_t num = 0;
    for (;;) {
        size_t s = path_push(&r, "%s", key);
        if (strcmp(key, "SectorNum") == 0 && !(seen & 1)) {
            seen |= 1;
            int neg = peek(&r) == '-';
            if (neg) r.pos++;
            uint64_t v;
            st = read_u64(&r, &v, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX);
            num = neg ? (int64_t)(0 - v) : (int64_t)v;
        } else if (strcmp(key, "Phase1Out") == 0 && !(seen & 2)) {
            seen |= 2;
            inner_off = r.pos;
            st = read_base64(&r, &inner, &inner_len);
        } else if (strcmp(key, "SectorSize") == 0 && !(seen & 4)) {
            seen |= 4;
            st = read_u64(&r, &size, UINT64_MAX);
        } else {
            st = rfail(&r, "unknown or repeated envelope member");
        }
        if (st) break;
        path_pop(&r, s);
        if ((st = obj_next(&r, &state, key, sizeof key, &done)) || done) break;
    }
    if (st == CUZK_OK) {
        ws(&r);
        if (seen != 7)
            st = rfail(&r, "the envelope needs SectorNum, Phase1Out and SectorSize");
        else if (r.pos != r.len)
            st = rfail(&r, "trailing characters after the document");
    }
    if (st == CUZK_OK) {
        st = parse_c1_text(c1, (const char *)inner, inner_len, 0, err);
        if (st != CUZK_OK)
            cuzk_error_prefix(err,
                              "Phase1Out (base64 at offset %zu, offsets below are in the decoded text): ", inner_off);
    }
    free(inner);
    if (st != CUZK_OK) return st;
    if (c1->geometry->sector_size != size) {
        unsigned long long gs = (unsigned long long)c1->geometry->sector_size;
        porep_c1_free(c1);
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "C1 envelope: SectorSize %llu but the proofs are for %llu bytes",
                              (unsigned long long)size, gs);
    }
    if (sector_num) *sector_num = num;
    if ((st = porep_c1_validate(c1, err))) porep_c1_free(c1);
    return st;
}

cuzk_status porep_c1_read_file(porep_c1 *c1, const char *path, int64_t *sector_num, cuzk_error *err)
{
    memset(c1, 0, sizeof *c1);
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "C1: cannot open %s", path);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    cuzk_status st = CUZK_OK;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 1 << 20;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                st = cuzk_error_set(err, CUZK_ERR_NOMEM, "C1: out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) st = cuzk_error_set(err, CUZK_ERR_IO, "C1: read error on %s", path);
            break;
        }
    }
    fclose(f);
    if (st == CUZK_OK) {
        st = porep_c1_parse(c1, buf, len, sector_num, err);
        if (st != CUZK_OK) cuzk_error_prefix(err, "%s: ", path);
    }
    free(buf);
    return st;
}

/* ---------------------------------------------------------------- writer */

typedef struct wbuf {
    char *p;
    size_t len, cap;
    int failed;
} wbuf;

static void wreserve(wbuf *b, size_t n)
{
    if (b->failed || b->len + n <= b->cap) return;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->len + n) cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) {
        b->failed = 1;
        return;
    }
    b->p = np;
    b->cap = cap;
}

static void wstr(wbuf *b, const char *s)
{
    size_t n = strlen(s);
    wreserve(b, n);
    if (b->failed) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void wu64(wbuf *b, uint64_t v)
{
    char t[24];
    snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    wstr(b, t);
}

static void wdom(wbuf *b, const porep_dom d)
{
    wreserve(b, 32 * 4 + 2);
    if (b->failed) return;
    char *o = b->p + b->len;
    *o++ = '[';
    for (int i = 0; i < 32; i++) {
        unsigned v = d[i];
        if (i) *o++ = ',';
        if (v >= 100) *o++ = (char)('0' + v / 100);
        if (v >= 10) *o++ = (char)('0' + v / 10 % 10);
        *o++ = (char)('0' + v % 10);
    }
    *o++ = ']';
    b->len = (size_t)(o - b->p);
}

static void wdoms(wbuf *b, const porep_dom *d, size_t n)
{
    wstr(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) wstr(b, ",");
        wdom(b, d[i]);
    }
    wstr(b, "]");
}

static void winclusion(wbuf *b, const porep_merkle_proof *p, const unsigned *arity, const unsigned *sib_off,
                       unsigned first, unsigned n)
{
    wstr(b, "{\"path\":[");
    for (unsigned i = 0; i < n; i++) {
        unsigned l = first + i;
        wstr(b, i ? ",{\"hashes\":" : "{\"hashes\":");
        wdoms(b, p->sibs + sib_off[l], arity[l] - 1);
        wstr(b, ",\"index\":");
        wu64(b, p->index[l]);
        wstr(b, "}");
    }
    wstr(b, "]}");
}

static void wmerkle(wbuf *b, const porep_merkle_proof *p, const unsigned *arity, const unsigned *sib_off,
                    unsigned levels, int shape)
{
    if (shape == 0) {
        wstr(b, "{\"data\":{\"Single\":{\"root\":");
        wdom(b, p->root);
        wstr(b, ",\"leaf\":");
        wdom(b, p->leaf);
        wstr(b, ",\"path\":");
        winclusion(b, p, arity, sib_off, 0, levels);
        wstr(b, "}}}");
        return;
    }
    unsigned base = levels - (unsigned)shape;
    wstr(b, shape == 1 ? "{\"data\":{\"Sub\":{\"base_proof\":" : "{\"data\":{\"Top\":{\"base_proof\":");
    winclusion(b, p, arity, sib_off, 0, base);
    wstr(b, ",\"sub_proof\":");
    winclusion(b, p, arity, sib_off, base, 1);
    if (shape == 2) {
        wstr(b, ",\"top_proof\":");
        winclusion(b, p, arity, sib_off, base + 1, 1);
    }
    wstr(b, ",\"root\":");
    wdom(b, p->root);
    wstr(b, ",\"leaf\":");
    wdom(b, p->leaf);
    wstr(b, "}}}");
}

static void wcolumn(wbuf *b, const porep_column_proof *c, const porep_c1_layout *lo, int shape)
{
    wstr(b, "{\"column\":{\"index\":");
    wu64(b, c->node);
    wstr(b, ",\"rows\":");
    wdoms(b, c->rows, lo->layers);
    wstr(b, ",\"_h\":null},\"inclusion_proof\":");
    wmerkle(b, &c->path, lo->t_arity, lo->t_sib_off, lo->t_levels, shape);
    wstr(b, "}");
}

static void wlabeling(wbuf *b, const porep_dom *parents, unsigned layer, uint64_t node)
{
    wstr(b, "{\"parents\":");
    wdoms(b, parents, POREP_LABEL_PARENTS);
    wstr(b, ",\"layer_index\":");
    wu64(b, layer);
    wstr(b, ",\"node\":");
    wu64(b, node);
    wstr(b, "}");
}

cuzk_status porep_c1_to_json(const porep_c1 *c1, char **out, size_t *len, cuzk_error *err)
{
    *out = NULL;
    *len = 0;
    const porep_geometry *g = c1->geometry;
    const char *variant = g ? porep_vanilla_variant(g) : NULL;
    if (!c1->type || !variant)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "C1 JSON: %s sectors have no VanillaSealProof variant",
                              g ? g->name : "unknown");
    porep_c1_layout lo;
    porep_c1_layout_init(&lo, g);
    unsigned d_arity[POREP_MAX_TREE_LEVELS], d_off[POREP_MAX_TREE_LEVELS + 1];
    for (unsigned l = 0; l <= lo.d_levels; l++) {
        d_arity[l] = 2;
        d_off[l] = l;
    }
    int shape = g->top_arity ? 2 : g->sub_arity ? 1 : 0;
    wbuf b = {0};
    wstr(&b, "{\"registered_proof\":\"");
    wstr(&b, c1->type->name);
    wstr(&b, "\",\"vanilla_proofs\":{\"");
    wstr(&b, variant);
    wstr(&b, "\":[");
    for (unsigned k = 0; k < c1->partitions; k++) {
        wstr(&b, k ? ",[" : "[");
        for (unsigned i = 0; i < c1->challenges; i++) {
            const porep_challenge_proof *p = porep_c1_proof(c1, k, i);
            wstr(&b, i ? ",{\"comm_d_proofs\":" : "{\"comm_d_proofs\":");
            wmerkle(&b, &p->comm_d, d_arity, d_off, lo.d_levels, 0);
            wstr(&b, ",\"comm_r_last_proof\":");
            wmerkle(&b, &p->comm_r_last, lo.t_arity, lo.t_sib_off, lo.t_levels, shape);
            wstr(&b, ",\"replica_column_proofs\":{\"c_x\":");
            wcolumn(&b, &p->c_x, &lo, shape);
            wstr(&b, ",\"drg_parents\":[");
            for (int j = 0; j < POREP_DRG_DEGREE; j++) {
                if (j) wstr(&b, ",");
                wcolumn(&b, &p->drg[j], &lo, shape);
            }
            wstr(&b, "],\"exp_parents\":[");
            for (int j = 0; j < POREP_EXP_DEGREE; j++) {
                if (j) wstr(&b, ",");
                wcolumn(&b, &p->exp[j], &lo, shape);
            }
            wstr(&b, "]},\"labeling_proofs\":[");
            for (unsigned l = 0; l < lo.layers; l++) {
                if (l) wstr(&b, ",");
                wlabeling(&b, p->labeling + (size_t)POREP_LABEL_PARENTS * l, l + 1, p->challenge);
            }
            wstr(&b, "],\"encoding_proof\":");
            wlabeling(&b, p->encoding, lo.layers, p->challenge);
            wstr(&b, "}");
        }
        wstr(&b, "]");
    }
    wstr(&b, "]},\"comm_r\":");
    wdom(&b, c1->comm_r);
    wstr(&b, ",\"comm_d\":");
    wdom(&b, c1->comm_d);
    wstr(&b, ",\"replica_id\":");
    wdom(&b, c1->replica_id);
    wstr(&b, ",\"seed\":");
    wdom(&b, c1->seed);
    wstr(&b, ",\"ticket\":");
    wdom(&b, c1->ticket);
    wstr(&b, "}");
    if (b.failed) {
        free(b.p);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "C1 JSON: out of memory");
    }
    *out = b.p;
    *len = b.len;
    return CUZK_OK;
}

cuzk_status porep_c1_to_envelope(const porep_c1 *c1, int64_t sector_num, char **out, size_t *len, cuzk_error *err)
{
    static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *json;
    size_t jlen;
    cuzk_status st = porep_c1_to_json(c1, &json, &jlen, err);
    if (st) return st;
    wbuf b = {0};
    char head[48];
    snprintf(head, sizeof head, "{\"SectorNum\":%lld,\"Phase1Out\":\"", (long long)sector_num);
    wstr(&b, head);
    wreserve(&b, (jlen + 2) / 3 * 4);
    if (!b.failed) {
        char *o = b.p + b.len;
        const uint8_t *s = (const uint8_t *)json;
        size_t i = 0;
        for (; i + 3 <= jlen; i += 3) {
            uint32_t w = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
            *o++ = B64[w >> 18];
            *o++ = B64[w >> 12 & 63];
            *o++ = B64[w >> 6 & 63];
            *o++ = B64[w & 63];
        }
        if (i < jlen) {
            uint32_t w = (uint32_t)s[i] << 16 | (i + 1 < jlen ? (uint32_t)s[i + 1] << 8 : 0);
            *o++ = B64[w >> 18];
            *o++ = B64[w >> 12 & 63];
            *o++ = i + 1 < jlen ? B64[w >> 6 & 63] : '=';
            *o++ = '=';
        }
        b.len = (size_t)(o - b.p);
    }
    free(json);
    wstr(&b, "\",\"SectorSize\":");
    wu64(&b, c1->geometry->sector_size);
    wstr(&b, "}");
    if (b.failed) {
        free(b.p);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "C1 envelope: out of memory");
    }
    *out = b.p;
    *len = b.len;
    return CUZK_OK;
}
