/* cuzk post vanilla | synth-vanilla | check-vanilla: PoSt vanilla proofs as Curio sends them, made from sealed
 * test sectors or synthetic full-size sectors, and checked. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/porep/seal.h"
#include "circuits/post/types.h"
#include "cuzk.h"
#include "ff/fr.h"
#include "formats/post_vanilla.h"
#include "formats/post_vanilla_gen.h"
#include "formats/sector_dir.h"
#include "util/hexbytes.h"
#include "util/rng.h"

#define POST_MAX_DIRS 64

static const char *POST_USAGE =
    "usage: cuzk post vanilla --sector-dir DIR [--sector-dir DIR2 ...] --registered-proof ID --randomness HEX\n"
    "                         --out FILE [--info FILE]\n"
    "           the vanilla proofs of sealed test sectors (cuzk porep seal --sector-dir): TreeR rebuilt from each\n"
    "           replica, the challenges of abi.RegisteredPoStProof ID derived from the 32-byte randomness, the\n"
    "           sectors in the order given; FILE is a JSON array of base64 bincode FallbackPoStSectorProofs (what\n"
    "           Curio sends, cuzk-bench --vanilla); INFO.json beside FILE (or --info) holds registered_proof,\n"
    "           randomness, prover_id and each sector's sector_id and comm_r\n"
    "       cuzk post synth-vanilla --sector-size SIZE --sectors N --registered-proof ID --randomness HEX\n"
    "                         --out FILE [--info FILE] [--seed N] [--first-id N] [--threads N]\n"
    "           consistent vanilla proofs of N synthetic sectors of any size (sparse trees, random challenged\n"
    "           leaves), sector ids first-id (default 1) onwards\n"
    "       cuzk post check-vanilla FILE --registered-proof ID [--randomness HEX]\n"
    "           decode a vanilla proof file, hash every path to comm_r_last, check comm_r and, with the\n"
    "           randomness, that every path index is its derived challenge\n";

typedef struct post_opts {
    const char *dirs[POST_MAX_DIRS];
    int ndirs;
    const char *out, *info, *size, *file;
    int have_id, have_randomness;
    unsigned id;
    uint8_t randomness[32];
    unsigned long long sectors, seed, first_id, threads;
} post_opts;

static int post_number(const char *cmd, const char *flag, const char *text, unsigned long long *out)
{
    char *end;
    *out = strtoull(text, &end, 0);
    if (*text == 0 || *end || *text == '-') {
        fprintf(stderr, "cuzk %s: %s needs a number, not '%s'\n", cmd, flag, text);
        return -1;
    }
    return 0;
}

static int post_parse(const char *cmd, int argc, char **argv, post_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->first_id = 1;
    cuzk_error err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
        if (a[0] != '-' && !o->file) {
            o->file = a;
            continue;
        }
        if (!v) {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, a, POST_USAGE);
            return -1;
        }
        i++;
        if (strcmp(a, "--sector-dir") == 0) {
            if (o->ndirs == POST_MAX_DIRS) {
                fprintf(stderr, "cuzk %s: at most %d --sector-dir\n", cmd, POST_MAX_DIRS);
                return -1;
            }
            o->dirs[o->ndirs++] = v;
        } else if (strcmp(a, "--out") == 0)
            o->out = v;
        else if (strcmp(a, "--info") == 0)
            o->info = v;
        else if (strcmp(a, "--sector-size") == 0)
            o->size = v;
        else if (strcmp(a, "--registered-proof") == 0) {
            if (post_number(cmd, a, v, &n) != 0) return -1;
            if (n > 1000) n = 1000; /* reported as unknown below */
            o->id = (unsigned)n;
            o->have_id = 1;
        } else if (strcmp(a, "--randomness") == 0) {
            if (hexbytes_decode(o->randomness, 32, v, "--randomness", &err) != CUZK_OK) {
                fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
                return -1;
            }
            o->have_randomness = 1;
        } else if (strcmp(a, "--sectors") == 0) {
            if (post_number(cmd, a, v, &o->sectors) != 0) return -1;
        } else if (strcmp(a, "--seed") == 0) {
            if (post_number(cmd, a, v, &o->seed) != 0) return -1;
        } else if (strcmp(a, "--first-id") == 0) {
            if (post_number(cmd, a, v, &o->first_id) != 0) return -1;
        } else if (strcmp(a, "--threads") == 0) {
            if (post_number(cmd, a, v, &o->threads) != 0 || o->threads > 4096) return -1;
        } else {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, a, POST_USAGE);
            return -1;
        }
    }
    return 0;
}

/* The randomness must be a field element (filecoin-proofs as_safe_commitment; Curio clears the top two bits). */
static cuzk_status post_check_randomness(const uint8_t r[32], cuzk_error *err)
{
    fr_t x;
    if (fr_from_bytes_le(&x, r) != 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "--randomness is not below r as a little-endian integer (Curio clears the top two bits "
                              "of byte 31)");
    return CUZK_OK;
}

/* INFO.json beside out (or info) for verify-post. */
static cuzk_status post_write_info(const post_vanilla *v, const char *out, const char *info, const uint8_t r[32],
                                   const uint8_t prover_id[32], cuzk_error *err)
{
    char path[4096];
    if (info)
        snprintf(path, sizeof path, "%s", info);
    else {
        const char *slash = strrchr(out, '/');
        int dlen = slash ? (int)(slash - out) : 0;
        snprintf(path, sizeof path, "%.*s%sINFO.json", dlen, out, slash ? "/" : "");
    }
    FILE *f = fopen(path, "w");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "cannot create %s", path);
    char h[65], p[65];
    hexbytes_encode(h, r, 32);
    hexbytes_encode(p, prover_id, 32);
    fprintf(f, "{\"registered_proof\": %u, \"randomness\": \"%s\", \"prover_id\": \"%s\", \"sectors\": [", v->type->id,
            h, p);
    for (size_t k = 0; k < v->count; k++) {
        hexbytes_encode(h, v->sectors[k].comm_r, 32);
        fprintf(f, "%s{\"sector_id\": %" PRIu64 ", \"comm_r\": \"%s\"}", k ? ", " : "", v->sectors[k].sector_id, h);
    }
    fprintf(f, "]}\n");
    int ok = !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok) return cuzk_error_set(err, CUZK_ERR_IO, "write to %s failed", path);
    fprintf(stderr, "cuzk post: wrote %s\n", path);
    return CUZK_OK;
}

static cuzk_status post_type_for(const post_opts *o, const post_proof_type **t, cuzk_error *err)
{
    if (!o->have_id) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "--registered-proof is required");
    return post_proof_type_get(o->id, t, err);
}

static cuzk_status post_vanilla_cmd_run(const post_opts *o, cuzk_error *err)
{
    const post_proof_type *t;
    cuzk_status st = post_type_for(o, &t, err);
    if (st) return st;
    if (o->ndirs == 0 || !o->out || !o->have_randomness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "--sector-dir, --randomness and --out are required");
    if ((st = post_check_randomness(o->randomness, err))) return st;
    if ((unsigned)o->ndirs > t->sector_count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s takes at most %u sectors, %d given", t->name,
                              t->sector_count, o->ndirs);
    porep_hashers h;
    if ((st = porep_hashers_init(&h, err))) return st;
    sector_dir dirs[POST_MAX_DIRS];
    post_sector_tree trees[POST_MAX_DIRS];
    porep_dom *tree_r[POST_MAX_DIRS] = {0};
    int nread = 0;
    for (int k = 0; k < o->ndirs && !st; k++) {
        sector_dir *d = &dirs[k];
        st = sector_dir_read(d, o->dirs[k], 0, err);
        if (st) break;
        nread++;
        porep_dom root, pair[2], comm_r;
        if (d->geometry->sector_size != t->sector_size)
            st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: a %s sector, but %s is for %s sectors", o->dirs[k],
                                d->geometry->name, t->name, post_proof_type_geometry(t)->name);
        else if (k && memcmp(d->prover_id, dirs[0].prover_id, 32) != 0)
            fprintf(stderr, "cuzk post vanilla: note: %s has another prover_id than %s; INFO.json has the first\n",
                    o->dirs[k], o->dirs[0]);
        if (!st) st = porep_tree_r_build(&tree_r[k], root, d->geometry, &h, d->sealed, err);
        if (st) break;
        memcpy(pair[0], d->comm_c, 32);
        memcpy(pair[1], d->comm_r_last, 32);
        if (memcmp(root, d->comm_r_last, 32) != 0)
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: the replica's TreeR root is not sector.json's comm_r_last",
                                o->dirs[k]);
        else if (porep_poseidon(&h, 2, pair, comm_r) != 0 || memcmp(comm_r, d->comm_r, 32) != 0)
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: comm_r is not Poseidon2(comm_c, comm_r_last)", o->dirs[k]);
        trees[k] = (post_sector_tree){.sector_id = d->sector_id, .tree_r = tree_r[k]};
        memcpy(trees[k].comm_c, d->comm_c, 32);
        memcpy(trees[k].comm_r_last, d->comm_r_last, 32);
        memcpy(trees[k].comm_r, d->comm_r, 32);
    }
    post_vanilla v = {0};
    if (!st) st = post_vanilla_from_trees(&v, t, trees, (size_t)o->ndirs, o->randomness, err);
    if (!st) st = post_vanilla_verify(&v, &h, o->randomness, 0, err);
    if (!st) st = post_vanilla_write_json(&v, o->out, err);
    if (!st) {
        fprintf(stderr, "cuzk post vanilla: wrote %s (%s, %zu sectors x %u challenges)\n", o->out, t->name, v.count,
                t->challenges);
        st = post_write_info(&v, o->out, o->info, o->randomness, dirs[0].prover_id, err);
    }
    post_vanilla_free(&v);
    for (int k = 0; k < nread; k++) {
        free(tree_r[k]);
        sector_dir_free(&dirs[k]);
    }
    porep_hashers_free(&h);
    return st;
}

static double post_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static cuzk_status post_synth_cmd_run(const post_opts *o, cuzk_error *err)
{
    const post_proof_type *t;
    cuzk_status st = post_type_for(o, &t, err);
    if (st) return st;
    if (!o->size || !o->sectors || !o->out || !o->have_randomness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "--sector-size, --sectors, --randomness and --out are required");
    const porep_geometry *g;
    if ((st = porep_geometry_parse(o->size, &g, err))) return st;
    if (g->sector_size != t->sector_size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "--sector-size %s, but %s is for %s sectors", g->name, t->name,
                              post_proof_type_geometry(t)->name);
    if ((st = post_check_randomness(o->randomness, err))) return st;
    pool_t *pool = NULL;
    if ((st = pool_create(&pool, (unsigned)o->threads, err))) return st;
    post_vanilla v;
    double t0 = post_now();
    st = post_vanilla_synth(&v, t, (size_t)o->sectors, o->first_id, o->randomness, o->seed, pool, err);
    double dt = post_now() - t0;
    pool_destroy(pool);
    if (st) return st;
    fprintf(stderr, "cuzk post synth-vanilla: %zu %s sectors x %u challenges in %.3f s\n", v.count, g->name,
            t->challenges, dt);
    st = post_vanilla_write_json(&v, o->out, err);
    if (!st) {
        fprintf(stderr, "cuzk post synth-vanilla: wrote %s (%s)\n", o->out, t->name);
        uint8_t prover_id[32];
        rng_t rng;
        rng_seed(&rng, o->seed);
        rng_bytes(&rng, prover_id, 32);
        prover_id[31] &= 0x3f;
        st = post_write_info(&v, o->out, o->info, o->randomness, prover_id, err);
    }
    post_vanilla_free(&v);
    return st;
}

static cuzk_status post_check_cmd_run(const post_opts *o, cuzk_error *err)
{
    const post_proof_type *t;
    cuzk_status st = post_type_for(o, &t, err);
    if (st) return st;
    if (!o->file) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "give the vanilla proof file");
    post_vanilla v;
    double t0 = post_now();
    if ((st = post_vanilla_read_json(&v, t, o->file, err))) return st;
    double t1 = post_now();
    porep_hashers h;
    st = porep_hashers_init(&h, err);
    if (!st) st = post_vanilla_verify(&v, &h, o->have_randomness ? o->randomness : NULL, 0, err);
    if (!st)
        printf("%s: %zu %s vanilla proofs, every path and comm_r verifies%s (read and decode %.3f s, verify %.3f s)\n",
               o->file, v.count, t->name, o->have_randomness ? ", every challenge matches the randomness" : "", t1 - t0,
               post_now() - t1);
    porep_hashers_free(&h);
    post_vanilla_free(&v);
    return st;
}

int cmd_post_data(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(POST_USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    const char *sub = argv[1];
    char cmd[64];
    snprintf(cmd, sizeof cmd, "post %s", sub);
    cuzk_status (*run)(const post_opts *, cuzk_error *) = NULL;
    if (strcmp(sub, "vanilla") == 0)
        run = post_vanilla_cmd_run;
    else if (strcmp(sub, "synth-vanilla") == 0)
        run = post_synth_cmd_run;
    else if (strcmp(sub, "check-vanilla") == 0)
        run = post_check_cmd_run;
    if (!run) {
        fprintf(stderr, "cuzk post: unknown subcommand '%s'\n%s", sub, POST_USAGE);
        return EXIT_BAD_INPUT;
    }
    post_opts o;
    if (post_parse(cmd, argc - 1, argv + 1, &o) != 0) return EXIT_BAD_INPUT;
    if (o.file && run != post_check_cmd_run) {
        fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, o.file, POST_USAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    return cli_report(cmd, run(&o, &err), &err);
}
