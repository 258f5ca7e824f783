/* FUZZ_CHECK(cond): a property of a fuzz target; when it does not hold, the target says which and aborts, which
 * libFuzzer reports as a crash with the input that caused it. */
#ifndef CUZK_FUZZ_CHECK_H
#define CUZK_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);                                \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

#endif
