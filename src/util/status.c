#include "cuzk/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *cuzk_status_name(cuzk_status s)
{
    switch (s) {
    case CUZK_OK: return "ok";
    case CUZK_ERR_INVALID_ARG: return "invalid-argument";
    case CUZK_ERR_NOT_CANONICAL: return "not-canonical";
    case CUZK_ERR_BAD_FLAGS: return "bad-flags";
    case CUZK_ERR_NOT_ON_CURVE: return "not-on-curve";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "not-in-subgroup";
    case CUZK_ERR_NO_SQUARE_ROOT: return "no-square-root";
    case CUZK_ERR_TRUNCATED: return "truncated";
    case CUZK_ERR_FORMAT: return "bad-format";
    case CUZK_ERR_IO: return "io-error";
    case CUZK_ERR_NOMEM: return "out-of-memory";
    case CUZK_ERR_INVALID_PROOF: return "invalid-proof";
    case CUZK_ERR_UNSUPPORTED: return "unsupported";
    case CUZK_ERR_GPU: return "gpu-error";
    case CUZK_ERR_CANCELLED: return "cancelled";
    case CUZK_ERR_INTERNAL: return "internal-error";
    }
    return "unknown-status";
}

cuzk_status cuzk_error_set(cuzk_error *err, cuzk_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

cuzk_status cuzk_error_prefix(cuzk_error *err, const char *fmt, ...)
{
    if (!err) return CUZK_ERR_INTERNAL;
    char prefix[256], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t n = strlen(prefix);
    if (n >= sizeof err->msg) n = sizeof err->msg - 1;
    memcpy(err->msg, prefix, n);
    size_t rest = strnlen(old, sizeof old - 1);
    if (rest > sizeof err->msg - 1 - n) rest = sizeof err->msg - 1 - n;
    memcpy(err->msg + n, old, rest);
    err->msg[n + rest] = 0;
    return err->code;
}
