/* cuzk-bench synth --circuit wpost:SIZE|winning:SIZE: the synthesis half of a PoSt proof on CPU threads. One
 * request of synthetic vanilla proofs (postdata's generator) is checked as the daemon does (timed), then per
 * thread count the witness (post_synthesize_witness, every sector in parallel) is timed, median of the runs, with
 * the process's CPU time. --sectors N synthesizes the first N sectors only (a 32 GiB partition's witness is
 * 4 GB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "circuits/spec.h"
#include "engine/post.h"
#include "formats/post_vanilla_gen.h"

static double synth_post_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int synth_post_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int bench_synth_post(const char *spec_text, const unsigned *threads, unsigned n_threads, unsigned reps,
                     unsigned sectors)
{
    cuzk_error err;
    circuit_spec spec;
    if (circuit_spec_parse(spec_text, &spec, &err) != CUZK_OK || spec.kind != CIRCUIT_POST) {
        fprintf(stderr, "cuzk-bench synth: %s\n", spec.kind != CIRCUIT_POST ? "not a PoSt spec" : err.msg);
        return 2;
    }
    const post_proof_type *t = spec.post;
    unsigned S, C;
    post_circuit_dims(t, &S, &C);
    if (!sectors || sectors > S) sectors = S;
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(3 * i + 1);
    rnd[31] &= 0x3f;
    post_vanilla v;
    engine_post_job *job = NULL;
    pool_t *pool = NULL;
    post_circuit c;
    double *times = calloc(2 * (size_t)reps, sizeof(double));
    int rc = 1;
    if (!times || pool_create(&pool, 0, &err) != CUZK_OK) goto fail;
    /* Window: the request's own count of sectors, padded by the job to S (the daemon's case for a full
     * partition is sectors = S). */
    size_t nv = t->kind == POST_WINDOW ? sectors : 1;
    uint64_t t0 = bench_now_ns();
    if (post_vanilla_synth(&v, t, nv, 1, rnd, 1, pool, &err) != CUZK_OK) goto fail;
    double gen_s = (double)(bench_now_ns() - t0) * 1e-9;
    t0 = bench_now_ns();
    cuzk_status st = engine_post_job_create(&job, &v, rnd, NULL, &err);
    double check_s = (double)(bench_now_ns() - t0) * 1e-9;
    post_vanilla_free(&v);
    if (st != CUZK_OK) goto fail;
    /* The job's own circuit (its constants borrowed), restricted to the first sectors: the sector blocks are
     * independent. */
    c = job->circuit;
    c.sectors = sectors;
    post_witness w = job->witness;
    w.sectors = sectors;
    printf("synth %s: %u of %u sectors x %u challenges; vanilla generated in %.2f s, the request checked in %.3f s "
           "(one thread)\n",
           t->name, sectors, S, C, gen_s, check_s);
    pool_destroy(pool);
    pool = NULL;
    for (unsigned ti = 0; ti < n_threads; ti++) {
        if (pool_create(&pool, threads[ti], &err) != CUZK_OK) goto fail;
        size_t aux = 0;
        for (unsigned r = 0; r < reps; r++) {
            r1cs wit;
            double c0 = synth_post_cpu();
            t0 = bench_now_ns();
            if (post_synthesize_witness(pool, &c, &w, &wit, &err) != CUZK_OK) goto fail;
            times[r] = (double)(bench_now_ns() - t0) * 1e-9;
            times[reps + r] = synth_post_cpu() - c0;
            aux = wit.num_aux;
            r1cs_free(&wit);
        }
        qsort(times, reps, sizeof(double), synth_post_cmp);
        qsort(times + reps, reps, sizeof(double), synth_post_cmp);
        double wall = times[reps / 2], cpu = times[reps + reps / 2];
        printf("threads %2u: witness %.3f s (%zu aux), CPU %.3f s = %.2f ms a sector\n", threads[ti], wall, aux, cpu,
               cpu * 1e3 / sectors);
        pool_destroy(pool);
        pool = NULL;
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "cuzk-bench synth: %s\n", err.msg);
done:
    pool_destroy(pool);
    engine_post_job_free(job);
    free(times);
    return rc;
}
