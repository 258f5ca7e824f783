/* Transparent huge pages for a large buffer about to be written for the first time: one page fault per 2 MiB
 * instead of per 4 KiB (a fresh witness costs a fault per 128 values otherwise, as much as writing them). Only
 * advice: nothing changes where the system refuses it or has no such thing. */
#ifndef CUZK_UTIL_HUGEPAGE_H
#define CUZK_UTIL_HUGEPAGE_H

#include <stddef.h>

/* Advises the whole 2 MiB pages inside [p, p + bytes). Never fails (a refusal is ignored). */
void hugepage_advise(void *p, size_t bytes);

#endif
