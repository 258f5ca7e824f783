/* Random numbers: a seeded generator for tests and benchmarks (reproducible
 * from a printed seed), and the operating system's generator for secrets
 * (blinding factors, toxic waste). */
#ifndef CUZK_UTIL_RNG_H
#define CUZK_UTIL_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* xoshiro256** state. Not for secrets. */
typedef struct rng {
    uint64_t s[4];
} rng_t;

void rng_seed(rng_t *rng, uint64_t seed);
uint64_t rng_next(rng_t *rng);
void rng_bytes(rng_t *rng, void *out, size_t n);

/* Fills out with n bytes from the operating system (getrandom). */
cuzk_status os_random(void *out, size_t n, cuzk_error *err);

/* A fresh seed for random tests: from CUZK_SEED if set, else the OS. */
uint64_t rng_fresh_seed(void);

#endif
