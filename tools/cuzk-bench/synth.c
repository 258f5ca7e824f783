/* cuzk-bench synth: PoRep partition synthesis timings (being written). */
#include <stdio.h>

#include "bench.h"

int bench_synth(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cuzk-bench synth: not implemented yet\n");
    return 2;
}
