/* cuzk-bench synth: the synthesis half of a PoRep partition proof on CPU threads. The shape is compiled once
 * (stacked_compile_shape); then per thread count the witness (stacked_synthesize_witness) and a/b/c
 * (r1cs_eval_abc) are timed separately, median of the repetitions. snap:SIZE does the same for one SnapDeals
 * partition (update_synthesize_witness) from synthetic vanilla proofs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "circuits/porep/seal.h"
#include "circuits/porep/synth_c1.h"
#include "circuits/hash/sha256.h"
#include "circuits/stacked/stacked_fast.h"
#include "formats/snap_vanilla.h"

#define MAX_THREADS 16

typedef enum witness_source { WIT_SYNTH, WIT_SEAL, WIT_RANDOM, WIT_ZERO } witness_source;

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: cuzk-bench synth --circuit porep:SIZE [--threads N[,N...]]... [--reps R] [--witness KIND]\n"
        "                        [--challenges K] [--serial] [--no-check]\n"
        "  Compiles the interactive PoRep partition circuit of SIZE (2KiB, 8MiB, 512MiB, 32GiB, ...) once, then\n"
        "  for each thread count (default 1) times witness generation and a/b/c evaluation, median of R runs\n"
        "  (default 3). KIND, partition 0 of: synth (default: porep_synth_c1's C1 of a sparse synthetic sector,\n"
        "  any size) or seal (a sector sealed here, 2KiB .. 8MiB); or random (values drawn at random: the same\n"
        "  work, not a satisfying witness) or zero. --serial also times stacked_synthesize into a witness-only\n"
        "  system (the path before). A C1 witness is checked against the compiled shape unless --no-check.\n"
        "  --challenges K: the circuit of SIZE with K challenges instead of the partition's (a smaller run of a\n"
        "  large shape; random witness unless --witness zero).\n"
        "       cuzk-bench synth --circuit wpost:SIZE|winning:SIZE [--threads N[,N...]]... [--reps R]\n"
        "                        [--sectors S]\n"
        "  PoSt: one request of synthetic vanilla proofs checked (timed), then the parallel witness timed per thread\n"
        "  count; --sectors S synthesizes the first S sectors only (a 32 GiB partition's witness is 4 GB).\n"
        "       cuzk-bench synth --circuit snap:SIZE [--threads N[,N...]]... [--reps R] [--partition K]\n"
        "                        [--serial] [--no-check]\n"
        "  SnapDeals: partition K (default 0) of the synthetic sector `cuzk snap synth-vanilla` proves; its\n"
        "  vanilla proof is checked and turned into a witness (timed), then update_synthesize_witness is timed\n"
        "  per thread count, median of R runs, and the witness's SHA-256 printed (the same values give the same\n"
        "  digest on every machine and version). The shape is compiled and the witness checked against it\n"
        "  unless --no-check; --serial also times update_synthesize into one witness-only system.\n");
}

static double seconds_since(uint64_t t0)
{
    return (double)(bench_now_ns() - t0) * 1e-9;
}

/* CPU time of the whole process, all threads: on a shared machine it says what the work costs when wall time
 * cannot. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void random_path(rng_t *rng, const por_tree *t, stacked_path *p)
{
    size_t k = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        p->index[l] = (uint8_t)(rng_next(rng) % t->arity[l]);
        for (unsigned j = 1; j < t->arity[l]; j++) fr_random(&p->sibs[k++], rng);
    }
}

static void random_witness(const stacked_circuit *c, stacked_witness *w)
{
    rng_t rng;
    rng_seed(&rng, 1);
    fr_t *top[5] = {&w->replica_id, &w->comm_d, &w->comm_r, &w->comm_r_last, &w->comm_c};
    for (int i = 0; i < 5; i++) fr_random(top[i], &rng);
    for (unsigned i = 0; i < c->challenges; i++) {
        stacked_challenge *p = &w->proofs[i];
        p->challenge = rng_next(&rng) % c->nodes;
        fr_random(&p->data_leaf, &rng);
        random_path(&rng, &c->tree_d, &p->comm_d);
        random_path(&rng, &c->tree_rc, &p->comm_r_last);
        random_path(&rng, &c->tree_rc, &p->comm_c);
        for (int j = 0; j < POREP_DEGREE; j++) {
            stacked_column *col = j < POREP_DRG_DEGREE ? &p->drg[j] : &p->exp[j - POREP_DRG_DEGREE];
            for (unsigned l = 0; l < c->layers; l++) fr_random(&col->rows[l], &rng);
            random_path(&rng, &c->tree_rc, &col->path);
        }
    }
}

/* The partition's witness from the chosen source; *satisfying says whether it satisfies the circuit. */
static cuzk_status make_witness(const porep_geometry *g, const stacked_circuit *c, witness_source src,
                                stacked_witness *w, int *satisfying, cuzk_error *err)
{
    *satisfying = 0;
    if (src == WIT_SEAL || src == WIT_SYNTH) {
        const porep_proof_type *t = porep_proof_type_find(g->sector_size, POREP_API_1_1, POREP_INTERACTIVE);
        if (!t) return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "no interactive V1_1 proof type for %s", g->name);
        porep_c1 c1;
        cuzk_status st = src == WIT_SEAL ? porep_seal_test_c1(&c1, t, 1, err) : porep_synth_c1(&c1, t, 1, err);
        if (st != CUZK_OK) return st;
        st = stacked_witness_from_c1(w, c, &c1, 0, err);
        porep_c1_free(&c1);
        *satisfying = st == CUZK_OK;
        return st;
    }
    cuzk_status st = stacked_witness_alloc(w, c, err);
    if (st == CUZK_OK && src == WIT_RANDOM) random_witness(c, w);
    return st;
}

static size_t shape_bytes(const r1cs *cs)
{
    const r1cs_matrix *m[3] = {&cs->A, &cs->B, &cs->C};
    size_t b = cs->num_coeffs * sizeof(fr_t);
    for (int i = 0; i < 3; i++)
        b += (m[i]->rows + 1) * sizeof(uint64_t) + m[i]->row_start[m[i]->rows] * 2 * sizeof(uint32_t);
    return b;
}

static int parse_threads(const char *s, unsigned *threads, unsigned *n)
{
    char buf[256];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        uint64_t v;
        if (bench_parse_u64(tok, &v) || v < 1 || v > 4096 || *n >= MAX_THREADS) return -1;
        threads[(*n)++] = (unsigned)v;
    }
    return 0;
}

/* SHA-256 of the witness values (inputs then aux, 32 bytes little-endian each, normal form). */
static void witness_digest(const r1cs *w, char hex[65])
{
    sha256_ctx h;
    sha256_init(&h);
    uint8_t b[32];
    for (size_t i = 0; i < w->num_inputs; i++) {
        fr_to_bytes_le(b, &w->inputs[i]);
        sha256_update(&h, b, 32);
    }
    for (size_t i = 0; i < w->num_aux; i++) {
        fr_to_bytes_le(b, &w->aux[i]);
        sha256_update(&h, b, 32);
    }
    uint8_t d[32];
    sha256_final(&h, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static int bench_synth_snap(const char *spec, const unsigned *threads, unsigned n_threads, unsigned reps,
                            unsigned partition, int serial, int check)
{
    cuzk_error err;
    const update_geometry *g;
    if (update_geometry_parse(spec, &g, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench synth: %s\n", err.msg);
        return 2;
    }
    int rc = 1;
    update_circuit c;
    update_encoded e;
    snap_partition_proof p;
    update_witness w;
    r1cs shape, wit;
    pool_t *pool = NULL;
    memset(&e, 0, sizeof e);
    memset(&p, 0, sizeof p);
    memset(&w, 0, sizeof w);
    memset(&shape, 0, sizeof shape);
    memset(&wit, 0, sizeof wit);
    double *t_wit = calloc(2 * (size_t)reps, sizeof(double)), *c_wit = t_wit ? t_wit + reps : NULL;
    if (!t_wit || update_circuit_init(&c, g, &err) != CUZK_OK) {
        if (!t_wit) cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
        fprintf(stderr, "cuzk-bench synth: %s\n", err.msg);
        free(t_wit);
        return 1;
    }
    if (partition >= c.partitions) {
        fprintf(stderr, "cuzk-bench synth: --partition %u: snap:%s has %u partitions\n", partition, g->name,
                c.partitions);
        rc = 2;
        goto out;
    }
    update_info info;
    if (update_circuit_info(&c, &info, &err) != CUZK_OK) goto fail;
    uint64_t t0 = bench_now_ns();
    if (snap_synth_encoded(&e, &c, 1, &err) != CUZK_OK ||
        snap_partition_proof_from_encoded(&p, &c, &e, partition, &err) != CUZK_OK)
        goto fail;
    double t_vp = seconds_since(t0);
    uint8_t cro[32], crn[32], cdn[32];
    fr_to_bytes_le(cro, &e.comm_r_old);
    fr_to_bytes_le(crn, &e.comm_r_new);
    fr_to_bytes_le(cdn, &e.comm_d_new);
    t0 = bench_now_ns();
    double c0 = cpu_seconds();
    if (snap_witness_from_proof(&w, &c, &p, partition, cro, crn, cdn, &err) != CUZK_OK) goto fail;
    printf("circuit snap:%s: partition %u of %u, %u challenges; %zu constraints (top %zu, %zu per challenge), %zu "
           "aux; synthetic vanilla proof made in %.2f s, checked into a witness in %.3f s (CPU time %.3f s)\n",
           g->name, partition, c.partitions, c.challenges, info.synth_constraints, info.top_constraints,
           info.challenge_constraints, info.aux, t_vp, seconds_since(t0), cpu_seconds() - c0);
    unsigned max_threads = 1;
    for (unsigned i = 0; i < n_threads; i++)
        if (threads[i] > max_threads) max_threads = threads[i];
    if (check) {
        if (pool_create(&pool, max_threads, &err) != CUZK_OK) goto fail;
        t0 = bench_now_ns();
        if (update_compile_shape(pool, &c, &shape, &err) != CUZK_OK) goto fail;
        printf("shape: %zu constraints, %zu inputs, %zu aux; compiled in %.3f s (%u threads)\n", shape.num_constraints,
               shape.num_inputs, shape.num_aux, seconds_since(t0), max_threads);
        pool_destroy(pool);
        pool = NULL;
    }
    if (serial) {
        r1cs ref;
        t0 = bench_now_ns();
        c0 = cpu_seconds();
        if (r1cs_create_witness_only(&ref, &err) != CUZK_OK) goto fail;
        cuzk_status st = update_synthesize(&ref, &c, &w, &err);
        if (st == CUZK_OK) st = r1cs_finalize(&ref, &err);
        char hex[65] = "";
        if (st == CUZK_OK) witness_digest(&ref, hex);
        r1cs_free(&ref);
        if (st != CUZK_OK) goto fail;
        printf("serial update_synthesize (witness-only): %.3f s, CPU time %.3f s; witness sha256 %s\n",
               seconds_since(t0), cpu_seconds() - c0, hex);
    }
    for (unsigned ti = 0; ti < n_threads; ti++) {
        if (pool_create(&pool, threads[ti], &err) != CUZK_OK) goto fail;
        for (unsigned r = 0; r < reps; r++) {
            r1cs_free(&wit);
            t0 = bench_now_ns();
            c0 = cpu_seconds();
            if (update_synthesize_witness(pool, &c, &w, &wit, &err) != CUZK_OK) goto fail;
            t_wit[r] = seconds_since(t0);
            c_wit[r] = cpu_seconds() - c0;
        }
        if (ti == 0) {
            char hex[65];
            witness_digest(&wit, hex);
            printf("witness: %zu inputs + %zu aux, %zu bytes; sha256 %s\n", wit.num_inputs, wit.num_aux,
                   (wit.num_inputs + wit.num_aux) * sizeof(fr_t), hex);
            if (check) {
                size_t bad = 0;
                if (r1cs_check_witness(&shape, &wit, &err) != CUZK_OK) goto fail;
                if (!r1cs_is_satisfied(pool, &shape, wit.inputs, wit.aux, &bad)) {
                    cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the witness fails row %zu", bad);
                    goto fail;
                }
                printf("the witness satisfies the compiled shape\n");
            }
        }
        double mw = bench_median(t_wit, reps), cw = bench_median(c_wit, reps); /* sorts: [0] is the least */
        printf("threads %3u: witness %.3f s (median of %u; least %.3f); CPU time witness %.3f s\n", threads[ti], mw,
               reps, t_wit[0], cw);
        fflush(stdout);
        pool_destroy(pool);
        pool = NULL;
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cuzk-bench synth: %s\n", err.msg);
out:
    pool_destroy(pool);
    r1cs_free(&wit);
    r1cs_free(&shape);
    update_witness_free(&w);
    snap_partition_proof_free(&p);
    update_encoded_free(&e);
    update_circuit_free(&c);
    free(t_wit);
    return rc;
}

int bench_synth(int argc, char **argv)
{
    const char *circuit = NULL;
    unsigned threads[MAX_THREADS], n_threads = 0, reps = 3, challenges = 0, sectors = 0, partition = 0;
    witness_source src = WIT_SYNTH;
    int src_given = 0;
    int serial = 0, check = 1;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (next && strcmp(argv[i], "--circuit") == 0) {
            circuit = next;
            i++;
        } else if (next && strcmp(argv[i], "--threads") == 0 && parse_threads(next, threads, &n_threads) == 0) {
            i++;
        } else if (next && strcmp(argv[i], "--reps") == 0 && bench_parse_u64(next, &v) == 0 && v >= 1 && v <= 1000) {
            reps = (unsigned)v;
            i++;
        } else if (next && strcmp(argv[i], "--witness") == 0 &&
                   (strcmp(next, "synth") == 0 || strcmp(next, "seal") == 0 || strcmp(next, "random") == 0 ||
                    strcmp(next, "zero") == 0)) {
            src = strcmp(next, "synth") == 0  ? WIT_SYNTH
                  : strcmp(next, "seal") == 0 ? WIT_SEAL
                  : next[0] == 'r'            ? WIT_RANDOM
                                              : WIT_ZERO;
            src_given = 1;
            i++;
        } else if (next && strcmp(argv[i], "--challenges") == 0 && bench_parse_u64(next, &v) == 0 && v >= 1 &&
                   v <= POREP_MAX_CHALLENGES) {
            challenges = (unsigned)v;
            i++;
        } else if (next && strcmp(argv[i], "--sectors") == 0 && bench_parse_u64(next, &v) == 0 && v >= 1 &&
                   v <= 100000) {
            sectors = (unsigned)v;
            i++;
        } else if (next && strcmp(argv[i], "--partition") == 0 && bench_parse_u64(next, &v) == 0 && v < 64) {
            partition = (unsigned)v;
            i++;
        } else if (strcmp(argv[i], "--serial") == 0) {
            serial = 1;
        } else if (strcmp(argv[i], "--no-check") == 0) {
            check = 0;
        } else {
            fprintf(stderr, "cuzk-bench synth: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (n_threads == 0) threads[n_threads++] = 1;
    if (circuit && (strncmp(circuit, "wpost:", 6) == 0 || strncmp(circuit, "winning:", 8) == 0))
        return bench_synth_post(circuit, threads, n_threads, reps, sectors);
    if (circuit && strncmp(circuit, "snap:", 5) == 0)
        return bench_synth_snap(circuit + 5, threads, n_threads, reps, partition, serial, check);
    cuzk_error err;
    const porep_geometry *g = NULL;
    if (!circuit || strncmp(circuit, "porep:", 6) != 0 || porep_geometry_parse(circuit + 6, &g, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench synth: --circuit porep:SIZE required (%s)\n", circuit ? err.msg : "missing");
        usage(stderr);
        return 2;
    }
    if (n_threads == 0) threads[n_threads++] = 1;
    if (challenges && !src_given) src = WIT_RANDOM;
    if ((src == WIT_SEAL || src == WIT_SYNTH) && challenges) {
        fprintf(stderr, "cuzk-bench synth: --challenges needs --witness random or zero\n");
        return 2;
    }
    unsigned max_threads = 1;
    for (unsigned i = 0; i < n_threads; i++)
        if (threads[i] > max_threads) max_threads = threads[i];

    int rc = 1;
    stacked_circuit c;
    stacked_witness w;
    r1cs shape, wit;
    memset(&w, 0, sizeof w);
    memset(&shape, 0, sizeof shape);
    memset(&wit, 0, sizeof wit);
    fr_t *abc = NULL;
    pool_t *pool = NULL;
    double *t_wit = calloc(4 * (size_t)reps, sizeof(double)), *t_abc = t_wit + reps, *c_wit = t_abc + reps,
           *c_abc = c_wit + reps;
    if (!t_wit) goto out_nocircuit;
    if ((challenges ? stacked_circuit_init(&c, g->nodes, g->layers, challenges, g->base_arity, g->sub_arity,
                                           g->top_arity, &err)
                    : stacked_circuit_init_geometry(&c, g, POREP_INTERACTIVE, &err)) != CUZK_OK)
        goto fail_nocircuit;

    int satisfying;
    uint64_t t0 = bench_now_ns();
    if (make_witness(g, &c, src, &w, &satisfying, &err) != CUZK_OK) goto fail;
    static const char *src_names[] = {"of a synthetic C1 (porep_synth_c1, partition 0)", "sealed here (C1 partition 0)",
                                      "random values (not satisfying)", "zero values (not satisfying)"};
    printf("circuit porep:%s: %u challenges, witness %s, made in %.2f s\n", g->name, c.challenges, src_names[src],
           seconds_since(t0));

    if (pool_create(&pool, max_threads, &err) != CUZK_OK) goto fail;
    t0 = bench_now_ns();
    double c_shape = cpu_seconds();
    if (stacked_compile_shape(pool, &c, &shape, &err) != CUZK_OK) goto fail;
    double t_shape = seconds_since(t0);
    c_shape = cpu_seconds() - c_shape;
    printf("shape: %zu constraints, %zu inputs, %zu aux; nnz A %llu B %llu C %llu; %zu bytes; compiled in %.3f s "
           "(%u threads, CPU time %.3f s)\n",
           shape.num_constraints, shape.num_inputs, shape.num_aux, (unsigned long long)shape.A.row_start[shape.A.rows],
           (unsigned long long)shape.B.row_start[shape.B.rows], (unsigned long long)shape.C.row_start[shape.C.rows],
           shape_bytes(&shape), t_shape, max_threads, c_shape);
    pool_destroy(pool);
    pool = NULL;

    size_t nc = shape.num_constraints;
    abc = malloc(3 * nc * sizeof(fr_t));
    if (!abc) {
        cuzk_error_set(&err, CUZK_ERR_NOMEM, "cannot allocate a/b/c (%zu bytes)", 3 * nc * sizeof(fr_t));
        goto fail;
    }
    if (serial) {
        r1cs ref;
        t0 = bench_now_ns();
        double c0 = cpu_seconds();
        if (r1cs_create_witness_only(&ref, &err) != CUZK_OK) goto fail;
        cuzk_status st = stacked_synthesize(&ref, &c, src == WIT_ZERO ? NULL : &w, &err);
        if (st == CUZK_OK) st = r1cs_finalize(&ref, &err);
        r1cs_free(&ref);
        if (st != CUZK_OK) goto fail;
        printf("serial stacked_synthesize (witness-only): %.3f s, CPU time %.3f s\n", seconds_since(t0),
               cpu_seconds() - c0);
    }
    for (unsigned ti = 0; ti < n_threads; ti++) {
        if (pool_create(&pool, threads[ti], &err) != CUZK_OK) goto fail;
        for (unsigned r = 0; r < reps; r++) {
            r1cs_free(&wit);
            t0 = bench_now_ns();
            double c0 = cpu_seconds();
            if (stacked_synthesize_witness(pool, &c, src == WIT_ZERO ? NULL : &w, &wit, &err) != CUZK_OK) goto fail;
            t_wit[r] = seconds_since(t0);
            c_wit[r] = cpu_seconds() - c0;
            if (r1cs_check_witness(&shape, &wit, &err) != CUZK_OK) goto fail;
            t0 = bench_now_ns();
            c0 = cpu_seconds();
            if (r1cs_eval_abc(pool, &shape, wit.inputs, wit.aux, abc, abc + nc, abc + 2 * nc, &err) != CUZK_OK)
                goto fail;
            t_abc[r] = seconds_since(t0);
            c_abc[r] = cpu_seconds() - c0;
        }
        if (ti == 0) {
            printf("witness: %zu bytes (%zu inputs + %zu aux); a/b/c: %zu bytes\n",
                   (wit.num_inputs + wit.num_aux) * sizeof(fr_t), wit.num_inputs, wit.num_aux, 3 * nc * sizeof(fr_t));
            if (satisfying && check) {
                size_t bad = 0;
                if (!r1cs_is_satisfied(pool, &shape, wit.inputs, wit.aux, &bad)) {
                    cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the C1's witness fails row %zu", bad);
                    goto fail;
                }
                printf("the C1's witness satisfies the compiled shape\n");
            }
        }
        double mw = bench_median(t_wit, reps), ma = bench_median(t_abc, reps);
        double cw = bench_median(c_wit, reps), ca = bench_median(c_abc, reps);
        printf("threads %3u: witness %.3f s, a/b/c %.3f s, total %.3f s (median of %u); CPU time witness %.3f s, "
               "a/b/c %.3f s\n",
               threads[ti], mw, ma, mw + ma, reps, cw, ca);
        fflush(stdout);
        pool_destroy(pool);
        pool = NULL;
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cuzk-bench synth: %s\n", err.msg);
out:
    pool_destroy(pool);
    free(abc);
    r1cs_free(&wit);
    r1cs_free(&shape);
    stacked_witness_free(&w);
    stacked_circuit_free(&c);
out_nocircuit:
    free(t_wit);
    return rc;
fail_nocircuit:
    fprintf(stderr, "cuzk-bench synth: %s\n", err.msg);
    goto out_nocircuit;
}
