/* Minimal test harness: CHECK macros that count failures, and helpers for
 * seeds and hex. Each test program returns non-zero if any check failed. */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ff/fp.h"
#include "r1cs/r1cs.h"
#include "util/rng.h"

extern int test_failures;
extern int test_checks;

/* The counters are updated atomically: backends and hooks under test check from the engine's threads. */
#define TEST_COUNT_CHECK() __atomic_add_fetch(&test_checks, 1, __ATOMIC_RELAXED)
#define TEST_COUNT_FAILURE() __atomic_add_fetch(&test_failures, 1, __ATOMIC_RELAXED)

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        TEST_COUNT_CHECK();                                                                                            \
        if (!(cond)) {                                                                                                 \
            if (TEST_COUNT_FAILURE() <= 20) fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                                                              \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                                           \
    do {                                                                                                               \
        TEST_COUNT_CHECK();                                                                                            \
        if (!(cond)) {                                                                                                 \
            if (TEST_COUNT_FAILURE() <= 20) {                                                                          \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                               \
                fprintf(stderr, __VA_ARGS__);                                                                          \
                fputc('\n', stderr);                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* Seeds rng from CUZK_SEED or the OS and prints the seed so a failure can be replayed. */
uint64_t test_seed(rng_t *rng, const char *test_name);

/* Prints "N passed, M failed" and returns the process exit code. */
int test_finish(const char *test_name);

/* Parses exactly n bytes of hex (no prefix) into out. Returns 0 on success. */
int hex_decode(uint8_t *out, size_t n, const char *hex);
void hex_encode(char *out, const uint8_t *in, size_t n);

/* Fp edge values by their raw limbs: 0, 1, p - 1, and Montgomery one (R mod p). */
#define TEST_FP_EDGES 4
void test_fp_edges(fp_t e[TEST_FP_EDGES]);

/* A whole file, with a NUL byte after its *len bytes (so text can be read as a string), or NULL with the reason
 * on stderr. Free it with free(). */
uint8_t *test_read_file(const char *path, size_t *len);
/* Writes len bytes to path (replacing it); 0 on success, -1 on failure. */
int test_write_file(const char *path, const void *data, size_t len);

/* Row i of matrix mx times the assignment (in: the inputs, aux: the rest), summed naively (a check independent of
 * r1cs_eval). */
void test_r1cs_row(const r1cs *cs, const r1cs_matrix *mx, size_t i, const fr_t *in, const fr_t *aux, fr_t *out);
/* The first row where A * B != C by test_r1cs_row, or SIZE_MAX. */
size_t test_r1cs_first_bad(const r1cs *cs, const fr_t *in, const fr_t *aux);

#endif
