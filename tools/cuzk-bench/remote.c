/* cuzk-bench against a running cuzk-daemon (being written). */
#include <stdio.h>

#include "bench.h"

static int not_yet(const char *name)
{
    fprintf(stderr, "cuzk-bench %s: talking to a daemon is not implemented yet\n", name);
    return 2;
}

int bench_single(int argc, char **argv) { (void)argc; (void)argv; return not_yet("single"); }
int bench_status(int argc, char **argv) { (void)argc; (void)argv; return not_yet("status"); }
int bench_preload(int argc, char **argv) { (void)argc; (void)argv; return not_yet("preload"); }
int bench_metrics(int argc, char **argv) { (void)argc; (void)argv; return not_yet("metrics"); }
int bench_remote_batch(int argc, char **argv) { (void)argc; (void)argv; return not_yet("batch --addr"); }
