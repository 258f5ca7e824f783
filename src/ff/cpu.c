#include "ff/cpu.h"

#include <stdlib.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int cpu_has_adx = 0;

__attribute__((constructor)) static void cpu_detect(void)
{
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (getenv("CUZK_NO_ASM")) return;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) cpu_has_adx = (ebx >> 8 & 1) && (ebx >> 19 & 1);
#endif
}
