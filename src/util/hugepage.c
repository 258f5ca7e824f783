#include "util/hugepage.h"

#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

void hugepage_advise(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t b = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (e > b) (void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
