/* cuzk: status codes and error reports shared by every layer. */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_status {
    CUZK_OK = 0,
    CUZK_ERR_INVALID_ARG,     /* a caller passed an argument outside the contract */
    CUZK_ERR_NOT_CANONICAL,   /* a field element encoding is >= the modulus */
    CUZK_ERR_BAD_FLAGS,       /* point encoding flags are malformed */
    CUZK_ERR_NOT_ON_CURVE,    /* coordinates do not satisfy the curve equation */
    CUZK_ERR_NOT_IN_SUBGROUP, /* point is on the curve but not in the prime-order subgroup */
    CUZK_ERR_NO_SQUARE_ROOT,  /* compressed x has no matching y */
    CUZK_ERR_TRUNCATED,       /* input ended before a structure was complete */
    CUZK_ERR_FORMAT,          /* a file or message is malformed */
    CUZK_ERR_IO,              /* the operating system refused a read, write or map */
    CUZK_ERR_NOMEM,           /* an allocation failed or would exceed a budget */
    CUZK_ERR_INVALID_PROOF,   /* a proof did not verify */
    CUZK_ERR_UNSUPPORTED,     /* the request is valid but not implemented here */
    CUZK_ERR_GPU,             /* the accelerator reported an error */
    CUZK_ERR_CANCELLED,       /* the work was cancelled */
    CUZK_ERR_INTERNAL         /* a bug: an invariant of cuzk itself was broken */
} cuzk_status;

/* A status with a human-readable explanation: what was wrong and where. */
typedef struct cuzk_error {
    cuzk_status code;
    char msg[512];
} cuzk_error;

/* Short stable name of a status ("not-on-curve", ...). Never NULL. */
const char *cuzk_status_name(cuzk_status s);

/* Fills err (when not NULL) and returns code. printf-style message. */
cuzk_status cuzk_error_set(cuzk_error *err, cuzk_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefixes an existing message with context ("params: h[12]: " ...). Returns err->code. */
cuzk_status cuzk_error_prefix(cuzk_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
