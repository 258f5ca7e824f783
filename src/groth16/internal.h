/* Helpers shared by the groth16 sources; not part of the layer's contract. */
#ifndef CUZK_GROTH16_INTERNAL_H
#define CUZK_GROTH16_INTERNAL_H

#include <time.h>

#include "groth16/groth16.h"

/* A uniformly random non-zero Fr from the operating system (secrets: toxic waste, r, s). */
cuzk_status groth16_random_fr(fr_t *r, cuzk_error *err);

static inline double groth16_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#endif
