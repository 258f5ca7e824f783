#include "circuits/spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/synthetic.h"

static cuzk_status parse_u64(const char *s, size_t n, uint64_t *out, const char *key, cuzk_error *err)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec: bad value for %s", key);
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

cuzk_status circuit_spec_parse(const char *text, circuit_spec *out, cuzk_error *err)
{
    const char *colon = strchr(text, ':');
    size_t kind_len = colon ? (size_t)(colon - text) : strlen(text);
    if (kind_len != strlen("synthetic") || strncmp(text, "synthetic", kind_len) != 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': unknown kind (known: synthetic:k=K[,seed=S])",
                              text);
    circuit_spec s = {.kind = CIRCUIT_SYNTHETIC, .k = 0, .seed = 1};
    const char *p = colon ? colon + 1 : text + kind_len;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': expected key=value", text);
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        uint64_t v;
        cuzk_status st;
        if (klen == 1 && p[0] == 'k') {
            if ((st = parse_u64(eq + 1, vlen, &v, "k", err))) return st;
            if (v < SYNTHETIC_MIN_K || v > SYNTHETIC_MAX_K)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec: k must be in %d..%d", SYNTHETIC_MIN_K,
                                      SYNTHETIC_MAX_K);
            s.k = (unsigned)v;
        } else if (klen == 4 && strncmp(p, "seed", 4) == 0) {
            if ((st = parse_u64(eq + 1, vlen, &v, "seed", err))) return st;
            s.seed = v;
        } else {
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': unknown key '%.*s'", text, (int)klen,
                                  p);
        }
        p += len;
        if (*p == ',') p++;
    }
    if (s.k == 0) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "circuit spec '%s': k=K is required", text);
    *out = s;
    return CUZK_OK;
}

void circuit_spec_format(const circuit_spec *spec, char *buf, size_t len)
{
    snprintf(buf, len, "synthetic:k=%u,seed=%llu", spec->k, (unsigned long long)spec->seed);
}

cuzk_status circuit_spec_build(pool_t *pool, const circuit_spec *spec, unsigned what, r1cs *out, cuzk_error *err)
{
    return synthetic_build(pool, spec->k, spec->seed, what, out, err);
}
