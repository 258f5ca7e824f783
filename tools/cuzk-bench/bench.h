/* cuzk-bench: one program, one subcommand per benchmark area.
 *
 * Adding a subcommand `foo`: write tools/cuzk-bench/foo.c defining bench_foo, declare it below, and add one
 * line to the command table in main.c. A subcommand receives argv with argv[0] = its own name, handles its own
 * `--help` (exit code 0), and returns 0 on success, 1 if the benchmark itself failed, and 2 for a usage error
 * (unknown flag, bad value) after printing what was wrong to stderr. */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/spec.h"
#include "cuzk/status.h"
#include "engine/engine.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

int bench_micro(int argc, char **argv);
int bench_ntt(int argc, char **argv);
int bench_msm(int argc, char **argv);
int bench_prove(int argc, char **argv);
int bench_batch(int argc, char **argv);
int bench_timeline(int argc, char **argv);
int bench_gpu_ntt(int argc, char **argv);
int bench_gpu_msm(int argc, char **argv);
int bench_gpu_g2(int argc, char **argv);
int bench_gpu_abc(int argc, char **argv);
int bench_gpu_fp(int argc, char **argv);
int bench_synth(int argc, char **argv);
/* synth of a wpost:/winning: spec (synth_post.c): sectors 0 means all. */
int bench_synth_post(const char *spec, const unsigned *threads, unsigned n_threads, unsigned reps, unsigned sectors);
/* Against a daemon (remote.c; `batch --addr` dispatches to bench_remote_batch). */
int bench_single(int argc, char **argv);
int bench_status(int argc, char **argv);
int bench_preload(int argc, char **argv);
int bench_metrics(int argc, char **argv);
int bench_remote_batch(int argc, char **argv);

/* Helpers shared by the subcommands (defined in main.c). */

/* Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);
/* Sorts v in place and returns its median (the mean of the two middle values when n is even); n > 0. */
double bench_median(double *v, size_t n);
/* Parses a whole decimal (or 0x-prefixed hex) unsigned number; returns 0 on success, -1 on anything else. */
int bench_parse_u64(const char *s, uint64_t *out);
/* Device 0 for the GPU benchmark `name`: 1 with *info and *ctx set; 0 after printing "SKIP name: ..." when there is
 * no CUDA device (or no CUDA build); -1 after printing the error when the device cannot be opened. */
int bench_gpu_open(const char *name, gpu_device_info *info, gpu_ctx **ctx);
/* Parameters of the lengths cs needs (domain m, densities dn), every base tiled from 4096 random points and a
 * random vk (fake_params.c): proving costs what it costs with real parameters, without the setup, and the
 * proofs do not verify. */
cuzk_status bench_fake_params(pool_t *pool, const r1cs *cs, const r1cs_density *dn, size_t m, groth16_params *p,
                              cuzk_error *err);

/* Parameters for cs from fresh toxic waste, in memory (batch.c): the fixed-base multiplications on GPU `device` when
 * want_gpu and a device is visible, else on the pool's threads; a line on stderr per step. */
cuzk_status bench_setup(pool_t *pool, const r1cs *cs, int want_gpu, int device, groth16_params *out, cuzk_error *err);

/* The CRITICAL stream of `batch --critical SPEC` (critical.c). */
typedef struct bench_critical bench_critical;
/* Parses a --critical spec (winning:, wpost: or synthetic:, one partition); 2 after a message when it is not one. */
int bench_critical_spec(const char *text, circuit_spec *spec);
/* Its parameters set up in memory (bench_setup), its circuit (synthesis on synth_pool, borrowed) and, for PoSt, one
 * request of synthetic vanilla proofs in bincode. quiet: no line on stderr. */
cuzk_status bench_critical_create(bench_critical **out, const circuit_spec *spec, pool_t *pool, pool_t *synth_pool,
                                  int want_gpu, int device, int quiet, cuzk_error *err);
const char *bench_critical_name(const bench_critical *c);
/* Host bytes one of its partitions holds in the engine at most (for engine_config.critical_reserve). */
uint64_t bench_critical_working_set(const bench_critical *c);
/* The engine's event ev: 1 when it is a CRITICAL job's (recorded here), 0 otherwise (the first other GPU_START
 * starts the stream). For the engine's event callback; thread-safe. */
int bench_critical_event(bench_critical *c, const engine_event *ev);
/* Starts the stream on engine e: one proof at a time every every_s seconds, count of them (0: no limit), while
 * more(more_ctx) (NULL: an idle engine, from now on; else from the first other partition's prove_start). */
cuzk_status bench_critical_start(bench_critical *c, engine *e, double every_s, uint64_t count, int (*more)(void *),
                                 void *more_ctx, cuzk_error *err);
/* Waits for the stream's thread (stop: no further proof starts). */
void bench_critical_join(bench_critical *c, int stop);
/* Proofs over so far. */
unsigned bench_critical_done(const bench_critical *c);
/* Per proof and the summary on stdout; json: the "critical":{...} member only. */
void bench_critical_report(bench_critical *c, int json);
/* At least one proof, none failed and (need_verified) every one verified. */
int bench_critical_ok(bench_critical *c, int need_verified);
void bench_critical_free(bench_critical *c); /* NULL is allowed; joins the thread */

#endif
