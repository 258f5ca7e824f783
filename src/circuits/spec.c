#include "circuits/spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/post/post_public.h"
#include "circuits/stacked/stacked_fast.h"
#include "circuits/synthetic.h"

#define SPEC_MAX_PARTITIONS 1024

static cuzk_status parse_u64(const char *s, size_t n, uint64_t *out, const char *key, cuzk_error *err)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec: bad value for %s", key);
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (errno || *end || buf[0] == '-')
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec: '%s' is not a number for %s", buf, key);
    *out = v;
    return CUZK_OK;
}

/* Calls fn(ctx, key, value) for each key=value of text from p on, stopping at the first failure. */
typedef cuzk_status (*spec_kv_fn)(void *ctx, const char *key, size_t klen, const char *val, size_t vlen,
                                  const char *text, cuzk_error *err);

static cuzk_status spec_each(const char *text, const char *p, spec_kv_fn fn, void *ctx, cuzk_error *err)
{
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': expected key=value", text);
        size_t klen = (size_t)(eq - p);
        cuzk_status st = fn(ctx, p, klen, eq + 1, len - klen - 1, text, err);
        if (st) return st;
        p += len;
        if (*p == ',') p++;
    }
    return CUZK_OK;
}

static int key_is(const char *key, size_t klen, const char *name)
{
    return klen == strlen(name) && strncmp(key, name, klen) == 0;
}

static cuzk_status synthetic_kv(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, const char *text,
                                cuzk_error *err)
{
    circuit_spec *s = ctx;
    uint64_t v;
    cuzk_status st;
    if (key_is(key, klen, "k")) {
        if ((st = parse_u64(val, vlen, &v, "k", err))) return st;
        if (v < SYNTHETIC_MIN_K || v > SYNTHETIC_MAX_K)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec: k must be in %d..%d", SYNTHETIC_MIN_K,
                                  SYNTHETIC_MAX_K);
        s->k = (unsigned)v;
        return CUZK_OK;
    }
    if (key_is(key, klen, "seed")) {
        if ((st = parse_u64(val, vlen, &v, "seed", err))) return st;
        s->seed = v;
        return CUZK_OK;
    }
    if (key_is(key, klen, "partitions")) {
        if ((st = parse_u64(val, vlen, &v, "partitions", err))) return st;
        if (v < 1 || v > SPEC_MAX_PARTITIONS)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec: partitions must be in 1..%d",
                                  SPEC_MAX_PARTITIONS);
        s->partitions = (unsigned)v;
        return CUZK_OK;
    }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': unknown key '%.*s'", text, (int)klen, key);
}

/* Indexed by porep_api and porep_kind. */
static const char *const API_NAMES[] = {"1.0", "1.1", "1.2"};
static const char *const KIND_NAMES[] = {"interactive", "synthetic", "ni"};

/* While parsing porep: the api and kind given, -1 if not. */
typedef struct porep_choice {
    int api, kind;
} porep_choice;

static cuzk_status porep_kv(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, const char *text,
                            cuzk_error *err)
{
    porep_choice *c = ctx;
    const char *const *names;
    int *slot;
    if (key_is(key, klen, "api"))
        names = API_NAMES, slot = &c->api;
    else if (key_is(key, klen, "kind"))
        names = KIND_NAMES, slot = &c->kind;
    else
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': unknown key '%.*s'", text, (int)klen, key);
    for (int i = 0; i < 3; i++)
        if (vlen == strlen(names[i]) && strncmp(val, names[i], vlen) == 0) {
            *slot = i;
            return CUZK_OK;
        }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': %.*s must be %s, %s or %s", text, (int)klen,
                          key, names[0], names[1], names[2]);
}

static cuzk_status parse_porep(const char *text, const char *p, circuit_spec *out, cuzk_error *err)
{
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    char size[32];
    if (n == 0 || n >= sizeof size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': expected porep:SIZE (e.g. porep:2KiB)",
                              text);
    memcpy(size, p, n);
    size[n] = 0;
    const porep_geometry *g;
    cuzk_status st = porep_geometry_parse(size, &g, err);
    if (st) return cuzk_error_prefix(err, "circuit spec '%s': ", text);
    porep_choice c = {-1, -1};
    if ((st = spec_each(text, p + n + (comma != NULL), porep_kv, &c, err))) return st;
    if (c.api < 0) c.api = POREP_API_1_1;
    /* API 1.2 registers no plain interactive proof: its interactive-challenge form is synthetic PoRep. */
    if (c.kind < 0) c.kind = c.api == POREP_API_1_2 ? POREP_SYNTHETIC : POREP_INTERACTIVE;
    const porep_proof_type *t = porep_proof_type_find(g->sector_size, (porep_api)c.api, (porep_kind)c.kind);
    if (!t)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': %s has no registered %s PoRep of API %s",
                              text, g->name, KIND_NAMES[c.kind], API_NAMES[c.api]);
    memset(out, 0, sizeof *out);
    out->kind = CIRCUIT_POREP;
    out->porep = t;
    return CUZK_OK;
}

/* wpost:SIZE and winning:SIZE: the newest registered proof of the kind (no options). */
static cuzk_status parse_post(const char *text, const char *p, post_kind kind, circuit_spec *out, cuzk_error *err)
{
    const porep_geometry *g;
    cuzk_status st = porep_geometry_parse(p, &g, err);
    if (st) return cuzk_error_prefix(err, "circuit spec '%s': ", text);
    const post_proof_type *t = post_proof_type_find(kind, g->sector_size);
    if (!t)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': %s has no registered %s", text, g->name,
                              post_kind_name(kind));
    memset(out, 0, sizeof *out);
    out->kind = CIRCUIT_POST;
    out->post = t;
    return CUZK_OK;
}

cuzk_status circuit_spec_parse(const char *text, circuit_spec *out, cuzk_error *err)
{
    const char *colon = strchr(text, ':');
    size_t kind_len = colon ? (size_t)(colon - text) : strlen(text);
    if (colon &&
        ((kind_len == 5 && strncmp(text, "wpost", 5) == 0) || (kind_len == 7 && strncmp(text, "winning", 7) == 0)))
        return parse_post(text, colon + 1, kind_len == 5 ? POST_WINDOW : POST_WINNING, out, err);
    if (kind_len == strlen("snap") && strncmp(text, "snap", kind_len) == 0) {
        const update_geometry *g;
        if (!colon || update_geometry_parse(colon + 1, &g, err) != CUZK_OK)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                  "circuit spec '%s': expected snap:SIZE (1KiB, 2KiB, 4KiB, 8KiB, 16KiB, 32KiB, 8MiB, "
                                  "16MiB, 512MiB, 32GiB, 64GiB)",
                                  text);
        memset(out, 0, sizeof *out);
        out->kind = CIRCUIT_SNAP;
        out->snap = g;
        return CUZK_OK;
    }
    if (kind_len == strlen("porep") && strncmp(text, "porep", kind_len) == 0) {
        if (!colon) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': expected porep:SIZE", text);
        return parse_porep(text, colon + 1, out, err);
    }
    if (kind_len != strlen("synthetic") || strncmp(text, "synthetic", kind_len) != 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "circuit spec '%s': unknown kind (known: synthetic:k=K[,seed=S][,partitions=P], "
                              "porep:SIZE[,api=A][,kind=K], wpost:SIZE, winning:SIZE, snap:SIZE)",
                              text);
    circuit_spec s = {.kind = CIRCUIT_SYNTHETIC, .k = 0, .seed = 1};
    cuzk_status st = spec_each(text, colon ? colon + 1 : text + kind_len, synthetic_kv, &s, err);
    if (st) return st;
    if (s.k == 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': k=K is required", text);
    *out = s;
    return CUZK_OK;
}

void circuit_spec_format(const circuit_spec *spec, char *buf, size_t len)
{
    if (spec->kind == CIRCUIT_POST) {
        const porep_geometry *g = post_proof_type_geometry(spec->post);
        snprintf(buf, len, "%s:%s", spec->post->kind == POST_WINDOW ? "wpost" : "winning", g ? g->name : "?");
        return;
    }
    if (spec->kind == CIRCUIT_SNAP) {
        snprintf(buf, len, "snap:%s", spec->snap->name);
        return;
    }
    if (spec->kind == CIRCUIT_POREP) {
        const porep_geometry *g = porep_geometry_for_size(spec->porep->sector_size);
        snprintf(buf, len, "porep:%s,api=%s,kind=%s", g ? g->name : "?", API_NAMES[spec->porep->api],
                 KIND_NAMES[spec->porep->kind]);
        return;
    }
    snprintf(buf, len, "synthetic:k=%u,seed=%llu", spec->k, (unsigned long long)spec->seed);
}

static cuzk_status post_build(pool_t *pool, const circuit_spec *spec, unsigned what, r1cs *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (what & R1CS_WITNESS)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: a PoSt witness comes from vanilla proofs (cuzk prove --post)", spec->post->name);
    post_circuit c;
    cuzk_status st = post_circuit_init_type(&c, spec->post, err);
    if (st == CUZK_OK) st = post_compile_shape(pool, &c, out, err);
    post_circuit_free(&c);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", spec->post->name);
}

cuzk_status circuit_spec_build(pool_t *pool, const circuit_spec *spec, unsigned what, r1cs *out, cuzk_error *err)
{
    if (spec->kind == CIRCUIT_POST) return post_build(pool, spec, what, out, err);
    if (spec->kind == CIRCUIT_SNAP) {
        memset(out, 0, sizeof *out);
        if (what & R1CS_WITNESS)
            return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                  "snap:%s: a SnapDeals witness comes from vanilla proofs (cuzk prove --snap)",
                                  spec->snap->name);
        update_circuit c;
        cuzk_status st = update_circuit_init(&c, spec->snap, err);
        if (st == CUZK_OK) st = update_compile_shape(pool, &c, out, err);
        update_circuit_free(&c);
        return st;
    }
    if (spec->kind != CIRCUIT_POREP) return synthetic_build(pool, spec->k, spec->seed, what, out, err);
    memset(out, 0, sizeof *out);
    if (what & R1CS_WITNESS)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: a PoRep witness comes from a C1 file (cuzk prove --porep)", spec->porep->name);
    const porep_geometry *g = porep_geometry_for_size(spec->porep->sector_size);
    stacked_circuit c;
    cuzk_status st = stacked_circuit_init_geometry(&c, g, spec->porep->kind, err);
    if (st == CUZK_OK) st = stacked_compile_shape(pool, &c, out, err);
    stacked_circuit_free(&c);
    if (st != CUZK_OK) {
        r1cs_free(out);
        cuzk_error_prefix(err, "%s: ", spec->porep->name);
    }
    return st;
}
