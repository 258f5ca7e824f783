/* cuzk snap, prove --snap, verify-snap, circuit-info --circuit snap:SIZE: SnapDeals (EmptySectorUpdate) test data,
 * proving and verification.
 *
 * Files: a vanilla-proof file is Curio's update-cache/snap-vproof.json, a JSON array of one base64 string per
 * partition (each the bincode PartitionProof); a commitments file is
 *   {"sector_size": N, "comm_r_old": "<hex 32>", "comm_r_new": "<hex 32>", "comm_d_new": "<hex 32>"}
 * (the raw 32-byte commitments Curio sends, little-endian Fr, in hex). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "circuits/update/encode.h"
#include "cuzk.h"
#include "engine/snap.h"
#include "formats/json.h"
#include "formats/snap_vanilla.h"
#include "groth16/groth16.h"
#include "util/rng.h"

static const char *SUSAGE =
    "usage: cuzk snap encode --sector-size SIZE --out DIR [--sector-dir DIR] [--seed N]\n"
    "           put random new data (seeded) into a sector the way rust-fil-proofs' encode does (new replica =\n"
    "           old replica + data * rho per node) and write DIR/snap-vproof.json (every partition's vanilla\n"
    "           proof, as Curio stores them) and DIR/commitments.json; the old sector is the replica and comm_c\n"
    "           of a `cuzk porep seal --sector-dir` directory, or a random replica without --sector-dir\n"
    "           (sizes up to 16MiB: the trees are built in memory)\n"
    "       cuzk snap synth-vanilla --sector-size SIZE --out DIR [--seed N]\n"
    "           the same files for any size (32GiB, 64GiB included) from a sector whose data and old replica\n"
    "           are constant over each rho region: consistent proofs for full-size benchmarks\n"
    "  prove --snap VPROOF.json --commitments FILE --params FILE --out FILE [--backend cpu|gpu]\n"
    "  verify-snap --commitments FILE | (--sector-size SIZE --comm-r-old HEX --comm-r-new HEX --comm-d-new HEX)\n"
    "           --proof FILE --vk FILE   (exit 0 valid, 1 invalid, 2 bad input)\n";

static cuzk_status read_all(const char *path, uint8_t **out, size_t *len, cuzk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap + 1);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        uint8_t *nb = realloc(b, 2 * cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: read error", path);
    }
    b[n] = 0;
    *out = b;
    *len = n;
    return CUZK_OK;
}

/* ---- base64 (Go's StdEncoding, padded) and hex ---- */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const uint8_t *in, size_t n)
{
    char *o = malloc(4 * ((n + 2) / 3) + 1), *p = o;
    if (!o) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        *p++ = B64[v >> 18 & 63];
        *p++ = B64[v >> 12 & 63];
        *p++ = i + 1 < n ? B64[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? B64[v & 63] : '=';
    }
    *p = 0;
    return o;
}

static int b64_val(char c)
{
    const char *q = c ? strchr(B64, c) : NULL;
    return q ? (int)(q - B64) : -1;
}

static cuzk_status b64_decode(const char *s, size_t n, uint8_t **out, size_t *len, const char *what, cuzk_error *err)
{
    if (n % 4) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: base64 length %zu is not a multiple of 4", what, n);
    uint8_t *o = malloc(n / 4 * 3 + 1);
    if (!o) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", what);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int j = 0; j < 4; j++) {
            if (s[i + j] == '=' && i + 4 == n && j >= 2 && (j == 3 || s[i + 3] == '=')) {
                v[j] = 0;
                pad++;
                continue;
            }
            if ((v[j] = b64_val(s[i + j])) < 0 || pad) {
                free(o);
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: byte %zu of the base64 is not base64", what, i + j);
            }
        }
        uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        o[k++] = (uint8_t)(x >> 16);
        if (pad < 2) o[k++] = (uint8_t)(x >> 8);
        if (pad < 1) o[k++] = (uint8_t)x;
    }
    *out = o;
    *len = k;
    return CUZK_OK;
}

static void hex32(char out[65], const uint8_t b[32])
{
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static cuzk_status unhex32(uint8_t out[32], const char *s, size_t n, const char *what, cuzk_error *err)
{
    if (n == 66 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2, n -= 2;
    if (n != 64) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu hex digits, want 64", what, n);
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        for (int j = 0; j < 2; j++) {
            char c = s[2 * i + j];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: '%c' is not a hex digit", what, c);
            v = v * 16 + (unsigned)d;
        }
        out[i] = (uint8_t)v;
    }
    return CUZK_OK;
}

/* ---- the files ---- */

typedef struct snap_comms {
    const update_geometry *g;
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
} snap_comms;

static cuzk_status comms_read(snap_comms *c, const char *path, cuzk_error *err)
{
    uint8_t *text;
    size_t len;
    cuzk_status st = read_all(path, &text, &len, err);
    if (st) return st;
    json_doc *doc = NULL;
    if ((st = json_parse(&doc, (const char *)text, len, err)) == CUZK_OK) {
        const json_value *r = json_root(doc);
        uint64_t size;
        static const char *const keys[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
        uint8_t *dst[3] = {c->comm_r_old, c->comm_r_new, c->comm_d_new};
        if ((st = json_expect(r, JSON_OBJECT, "commitments", err)) == CUZK_OK &&
            (st = json_u64(json_get(r, "sector_size"), &size, "sector_size", err)) == CUZK_OK &&
            !(c->g = update_geometry_for_size(size)))
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "sector_size %llu has no SnapDeals circuit",
                                (unsigned long long)size);
        for (int i = 0; i < 3 && st == CUZK_OK; i++) {
            const json_value *v = json_get(r, keys[i]);
            if ((st = json_expect(v, JSON_STRING, keys[i], err)) == CUZK_OK)
                st = unhex32(dst[i], v->text, v->len, keys[i], err);
        }
    }
    json_free(doc);
    free(text);
    return st ? cuzk_error_prefix(err, "%s: ", path) : st;
}

/* The partitions' bincode from a snap-vproof.json. */
static cuzk_status vproofs_read(const char *path, uint8_t ***bins, size_t **lens, size_t *n, cuzk_error *err)
{
    uint8_t *text;
    size_t len;
    *bins = NULL;
    *lens = NULL;
    *n = 0;
    cuzk_status st = read_all(path, &text, &len, err);
    if (st) return st;
    json_doc *doc = NULL;
    if ((st = json_parse(&doc, (const char *)text, len, err)) == CUZK_OK) {
        const json_value *r = json_root(doc);
        if ((st = json_expect(r, JSON_ARRAY, "vanilla proofs", err)) == CUZK_OK) {
            *bins = calloc(r->len ? r->len : 1, sizeof **bins);
            *lens = calloc(r->len ? r->len : 1, sizeof **lens);
            if (!*bins || !*lens) st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
            for (size_t i = 0; st == CUZK_OK && i < r->len; i++) {
                char what[48];
                snprintf(what, sizeof what, "vanilla proof %zu", i);
                const json_value *v = json_at(r, i);
                if ((st = json_expect(v, JSON_STRING, what, err)) == CUZK_OK &&
                    (st = b64_decode(v->text, v->len, &(*bins)[i], &(*lens)[i], what, err)) == CUZK_OK)
                    (*n)++;
            }
        }
    }
    json_free(doc);
    free(text);
    return st ? cuzk_error_prefix(err, "%s: ", path) : st;
}

static void vproofs_free(uint8_t **bins, size_t *lens, size_t n)
{
    for (size_t i = 0; bins && i < n; i++) free(bins[i]);
    free(bins);
    free(lens);
}

/* snap-vproof.json and commitments.json of an encoded sector into dir. */
static cuzk_status write_outputs(const char *dir, const update_circuit *c, const update_encoded *e, cuzk_error *err)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", dir, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/snap-vproof.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    cuzk_status st = CUZK_OK;
    fputc('[', f);
    for (unsigned k = 0; k < c->partitions && st == CUZK_OK; k++) {
        snap_partition_proof p;
        uint8_t *bin;
        size_t len;
        if ((st = snap_partition_proof_from_encoded(&p, c, e, k, err)) != CUZK_OK) break;
        st = snap_partition_proof_encode(&p, c, &bin, &len, err);
        snap_partition_proof_free(&p);
        if (st) break;
        char *b64 = b64_encode(bin, len);
        free(bin);
        if (!b64) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
            break;
        }
        fprintf(f, "%s\"%s\"", k ? "," : "", b64);
        free(b64);
    }
    fputs("]\n", f);
    if (fclose(f) != 0 && st == CUZK_OK) st = cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed", path);
    if (st) return st;
    uint8_t b[3][32];
    char h[3][65];
    fr_to_bytes_le(b[0], &e->comm_r_old);
    fr_to_bytes_le(b[1], &e->comm_r_new);
    fr_to_bytes_le(b[2], &e->comm_d_new);
    for (int i = 0; i < 3; i++) hex32(h[i], b[i]);
    char json[512];
    int n =
        snprintf(json, sizeof json,
                 "{\"sector_size\": %llu, \"comm_r_old\": \"%s\", \"comm_r_new\": \"%s\", \"comm_d_new\": \"%s\"}\n",
                 (unsigned long long)(c->g->nodes << 5), h[0], h[1], h[2]);
    snprintf(path, sizeof path, "%s/commitments.json", dir);
    return cli_write_file(path, json, (size_t)n, err);
}

static void rand_fr(rng_t *rng, fr_t *f, uint8_t mask)
{
    uint8_t b[32];
    do {
        rng_bytes(rng, b, 32);
        b[31] &= mask;
    } while (fr_from_bytes_le(f, b));
}

/* The old replica and comm_c of a `cuzk porep seal --sector-dir` directory. */
static cuzk_status read_sector_dir(const char *dir, const update_circuit *c, fr_t *old, fr_t *comm_c,
                                   uint8_t comm_r[32], cuzk_error *err)
{
    char path[4096];
    uint8_t *buf;
    size_t len;
    snprintf(path, sizeof path, "%s/sector.json", dir);
    cuzk_status st = read_all(path, &buf, &len, err);
    if (st) return st;
    json_doc *doc = NULL;
    uint64_t size = 0;
    uint8_t cc[32];
    if ((st = json_parse(&doc, (const char *)buf, len, err)) == CUZK_OK) {
        const json_value *r = json_root(doc), *v = json_get(r, "comm_c"), *w = json_get(r, "comm_r");
        if ((st = json_u64(json_get(r, "sector_size"), &size, "sector_size", err)) == CUZK_OK &&
            (st = json_expect(v, JSON_STRING, "comm_c", err)) == CUZK_OK &&
            (st = unhex32(cc, v->text, v->len, "comm_c", err)) == CUZK_OK &&
            (st = json_expect(w, JSON_STRING, "comm_r", err)) == CUZK_OK)
            st = unhex32(comm_r, w->text, w->len, "comm_r", err);
    }
    json_free(doc);
    free(buf);
    if (st == CUZK_OK && size != c->g->nodes << 5)
        st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "the sector is of %llu bytes, --sector-size %s",
                            (unsigned long long)size, c->g->name);
    if (st == CUZK_OK && fr_from_bytes_le(comm_c, cc))
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "comm_c is not below r");
    if (st) return cuzk_error_prefix(err, "%s: ", path);
    snprintf(path, sizeof path, "%s/sealed", dir);
    if ((st = read_all(path, &buf, &len, err))) return st;
    if (len != c->g->nodes << 5)
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu bytes, the sector has %llu", path, len,
                            (unsigned long long)(c->g->nodes << 5));
    for (uint64_t i = 0; st == CUZK_OK && i < c->g->nodes; i++)
        if (fr_from_bytes_le(&old[i], buf + 32 * i))
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: node %llu is not below r", path, (unsigned long long)i);
    free(buf);
    return st;
}

static int snap_write_cmd(int argc, char **argv, int synth)
{
    const char *cmd = synth ? "snap synth-vanilla" : "snap encode";
    const char *size = NULL, *out = NULL, *sector_dir = NULL;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sector-size") == 0 && i + 1 < argc)
            size = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (!synth && strcmp(argv[i], "--sector-dir") == 0 && i + 1 < argc)
            sector_dir = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 0);
            if (*end) {
                fprintf(stderr, "cuzk %s: --seed needs a number\n", cmd);
                return EXIT_BAD_INPUT;
            }
        } else {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, argv[i], SUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    if (!size || !out) {
        fprintf(stderr, "cuzk %s: --sector-size and --out are required\n%s", cmd, SUSAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    const update_geometry *g;
    cuzk_status st = update_geometry_parse(size, &g, &err);
    if (st) return cli_report(cmd, st, &err);
    if (!synth && g->nodes > (1u << 19))
        return cli_report(cmd,
                          cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED,
                                         "encoding %s in memory is not supported (up to 16MiB; synth-vanilla makes "
                                         "proofs of any size)",
                                         g->name),
                          &err);
    update_circuit c;
    if ((st = update_circuit_init(&c, g, &err))) return cli_report(cmd, st, &err);
    update_encoded e;
    memset(&e, 0, sizeof e);
    if (synth) {
        st = snap_synth_encoded(&e, &c, seed, &err);
    } else {
        fr_t *old = malloc(sizeof(fr_t) * g->nodes), *data = malloc(sizeof(fr_t) * g->nodes), comm_c;
        rng_t rng;
        rng_seed(&rng, seed);
        if (!old || !data) st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
        for (uint64_t i = 0; st == CUZK_OK && i < g->nodes; i++) rand_fr(&rng, &data[i], 0x3f);
        uint8_t comm_r[32];
        if (st == CUZK_OK && sector_dir) {
            st = read_sector_dir(sector_dir, &c, old, &comm_c, comm_r, &err);
        } else if (st == CUZK_OK) {
            for (uint64_t i = 0; i < g->nodes; i++) rand_fr(&rng, &old[i], 0x7f);
            rand_fr(&rng, &comm_c, 0x7f);
        }
        if (st == CUZK_OK) st = update_encode(&e, &c, 0, old, data, &comm_c, &err);
        /* TreeR of the replica, rebuilt here, must give the sealed sector's comm_r. */
        uint8_t got[32];
        if (st == CUZK_OK && sector_dir) {
            fr_to_bytes_le(got, &e.comm_r_old);
            if (memcmp(got, comm_r, 32))
                st = cuzk_error_set(&err, CUZK_ERR_FORMAT,
                                    "%s: Poseidon2(comm_c, TreeR root of sealed) is not sector.json's comm_r",
                                    sector_dir);
        }
        free(old);
        free(data);
    }
    if (st == CUZK_OK) st = write_outputs(out, &c, &e, &err);
    if (st == CUZK_OK)
        fprintf(stderr, "cuzk %s: %s, %u partitions x %u challenges: wrote %s/snap-vproof.json and commitments.json\n",
                cmd, g->name, c.partitions, c.challenges, out);
    update_encoded_free(&e);
    update_circuit_free(&c);
    return cli_report(cmd, st, &err);
}

int cmd_snap(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(SUSAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    if (strcmp(argv[1], "encode") == 0) return snap_write_cmd(argc - 1, argv + 1, 0);
    if (strcmp(argv[1], "synth-vanilla") == 0) return snap_write_cmd(argc - 1, argv + 1, 1);
    fprintf(stderr, "cuzk snap: unknown command '%s'\n%s", argv[1], SUSAGE);
    return EXIT_BAD_INPUT;
}

int cmd_snap_circuit_info(const char *spec, int want_hash)
{
    cuzk_error err;
    const update_geometry *g;
    cuzk_status st = update_geometry_parse(spec + 5, &g, &err);
    if (st) return cli_report("circuit-info", st, &err);
    update_circuit c;
    update_info info;
    if ((st = update_circuit_init(&c, g, &err)) == CUZK_OK) st = update_circuit_info(&c, &info, &err);
    if (st == CUZK_OK)
        printf("SnapDeals %s, one partition (of %u, %u challenges): %zu constraints, %zu inputs including ONE (%zu "
               "constraints with the prover's input constraints), %zu aux variables\n",
               g->name, c.partitions, c.challenges, info.synth_constraints, info.inputs, info.constraints, info.aux);
    update_circuit_free(&c);
    if (st) return cli_report("circuit-info", st, &err);
    circuit_spec cs;
    if ((st = circuit_spec_parse(spec, &cs, &err)) != CUZK_OK) return cli_report("circuit-info", st, &err);
    return cli_circuit_files_and_hash(&cs, FILECOIN_PARAMS_SNAP, g->nodes * 32, want_hash);
}

/* ---- prove and verify ---- */

typedef struct snap_opts {
    const char *snap, *commitments, *params, *vk, *out, *proof, *backend, *size, *cro, *crn, *cdn;
} snap_opts;

static int snap_opts_parse(int argc, char **argv, snap_opts *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--snap") == 0)
            slot = &o->snap;
        else if (strcmp(a, "--commitments") == 0)
            slot = &o->commitments;
        else if (strcmp(a, "--params") == 0)
            slot = &o->params;
        else if (strcmp(a, "--vk") == 0)
            slot = &o->vk;
        else if (strcmp(a, "--out") == 0)
            slot = &o->out;
        else if (strcmp(a, "--proof") == 0)
            slot = &o->proof;
        else if (strcmp(a, "--backend") == 0)
            slot = &o->backend;
        else if (strcmp(a, "--sector-size") == 0)
            slot = &o->size;
        else if (strcmp(a, "--comm-r-old") == 0)
            slot = &o->cro;
        else if (strcmp(a, "--comm-r-new") == 0)
            slot = &o->crn;
        else if (strcmp(a, "--comm-d-new") == 0)
            slot = &o->cdn;
        if (!slot || i + 1 >= argc) {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, a, SUSAGE);
            return -1;
        }
        *slot = argv[++i];
    }
    return 0;
}

static cuzk_status comms_from_opts(const snap_opts *o, snap_comms *c, cuzk_error *err)
{
    if (o->commitments) return comms_read(c, o->commitments, err);
    if (!o->size || !o->cro || !o->crn || !o->cdn)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "--commitments FILE or --sector-size, --comm-r-old, --comm-r-new and --comm-d-new");
    cuzk_status st = update_geometry_parse(o->size, &c->g, err);
    if (st == CUZK_OK) st = unhex32(c->comm_r_old, o->cro, strlen(o->cro), "--comm-r-old", err);
    if (st == CUZK_OK) st = unhex32(c->comm_r_new, o->crn, strlen(o->crn), "--comm-r-new", err);
    if (st == CUZK_OK) st = unhex32(c->comm_d_new, o->cdn, strlen(o->cdn), "--comm-d-new", err);
    return st;
}

int cmd_snap_prove(int argc, char **argv, unsigned threads)
{
    snap_opts o;
    if (snap_opts_parse(argc, argv, &o, "prove")) return EXIT_BAD_INPUT;
    cuzk_error err;
    if (!o.snap || !o.params || !o.out)
        return cli_report("prove",
                          cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "--snap, --params and --out are required"), &err);
    snap_comms cm;
    uint8_t **bins = NULL;
    size_t *lens = NULL, n = 0;
    engine_snap_job job;
    memset(&job, 0, sizeof job);
    groth16_params params;
    int have_params = 0;
    engine_snap_circuit *sc = NULL;
    engine_backend *be = NULL;
    engine *e = NULL;
    pool_t *pool = NULL;
    engine_result res;
    memset(&res, 0, sizeof res);
    cuzk_status st = comms_from_opts(&o, &cm, &err);
    if (st == CUZK_OK) st = vproofs_read(o.snap, &bins, &lens, &n, &err);
    if (st == CUZK_OK)
        st = engine_snap_job_parse(&job, cm.g, (const uint8_t *const *)bins, lens, n, cm.comm_r_old, 32, cm.comm_r_new,
                                   32, cm.comm_d_new, 32, &err);
    if (st == CUZK_OK)
        fprintf(stderr, "cuzk prove: %s: SnapDeals %s, %u partitions, all vanilla proofs valid\n", o.snap, cm.g->name,
                job.partitions);
    if (st == CUZK_OK) st = pool_create(&pool, threads, &err);
    if (st == CUZK_OK && (st = groth16_params_read(pool, &params, o.params, 0, &err)) == CUZK_OK) have_params = 1;
    if (st == CUZK_OK) st = engine_snap_circuit_create(cm.g, &params, pool, &sc, &err);
    if (st == CUZK_OK) {
        if (o.backend && strcmp(o.backend, "cpu") != 0 && strcmp(o.backend, "gpu") != 0)
            st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "--backend must be cpu or gpu");
        else if (o.backend && strcmp(o.backend, "gpu") == 0)
            st = engine_backend_gpu_create(pool, NULL, &be, &err);
        else
            st = engine_backend_cpu_create(pool, NULL, &be, &err);
    }
    if (st == CUZK_OK) {
        engine_config cfg = {.backend = be, .synth_pool = pool};
        st = engine_create(&e, &cfg, &err);
    }
    if (st == CUZK_OK) {
        engine_request rq;
        uint64_t id;
        if ((st = engine_snap_request(sc, &job, ENGINE_PRIO_NORMAL, &rq, &err)) == CUZK_OK &&
            (st = engine_submit(e, &rq, &id, &err)) == CUZK_OK)
            st = engine_wait(e, id, &res, &err);
        if (st == CUZK_OK && !res.verified)
            st = cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the engine did not self-verify the proofs");
    }
    uint8_t *bytes = NULL;
    size_t len = (size_t)job.partitions * GROTH16_PROOF_BYTES;
    if (st == CUZK_OK && !(bytes = malloc(len))) st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
    if (st == CUZK_OK) {
        groth16_proofs_write(bytes, res.proofs, job.partitions);
        st = cli_write_file(o.out, bytes, len, &err);
    }
    if (st == CUZK_OK)
        fprintf(stderr, "cuzk prove: wrote %s (%u x %d bytes)\n", o.out, job.partitions, GROTH16_PROOF_BYTES);
    free(bytes);
    engine_result_free(&res);
    engine_destroy(e);
    engine_backend_destroy(be);
    engine_snap_circuit_free(sc);
    if (have_params) groth16_params_free(&params);
    pool_destroy(pool);
    engine_snap_job_free(&job);
    vproofs_free(bins, lens, n);
    return cli_report("prove", st, &err);
}

int cmd_verify_snap(int argc, char **argv)
{
    snap_opts o;
    if (snap_opts_parse(argc, argv, &o, "verify-snap")) return EXIT_BAD_INPUT;
    cuzk_error err;
    if (!o.proof || !o.vk)
        return cli_report("verify-snap", cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "--proof and --vk are required"),
                          &err);
    snap_comms cm;
    cuzk_status st = comms_from_opts(&o, &cm, &err);
    if (st) return cli_report("verify-snap", st, &err);
    update_circuit c;
    if ((st = update_circuit_init(&c, cm.g, &err))) return cli_report("verify-snap", st, &err);
    unsigned parts = c.partitions;
    update_circuit_free(&c);
    groth16_vk vk;
    groth16_pvk pvk;
    int have_vk = 0, have_pvk = 0;
    uint8_t *bytes = NULL;
    size_t len = 0;
    groth16_proof *proofs = NULL;
    unsigned bad = 0;
    if ((st = groth16_vk_read(&vk, o.vk, &err)) == CUZK_OK) have_vk = 1;
    if (st == CUZK_OK && vk.ic_len != UPDATE_NUM_PUBLIC_INPUTS + 1)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                            "%s expects %zu public inputs, SnapDeals has %d: a key of "
                            "another circuit",
                            o.vk, vk.ic_len - 1, UPDATE_NUM_PUBLIC_INPUTS);
    if (st == CUZK_OK) st = read_all(o.proof, &bytes, &len, &err);
    if (st == CUZK_OK && len != (size_t)parts * GROTH16_PROOF_BYTES)
        st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "%s: %zu bytes; SnapDeals %s has %u partitions, so %zu are expected",
                            o.proof, len, cm.g->name, parts, (size_t)parts * GROTH16_PROOF_BYTES);
    if (st == CUZK_OK && !(proofs = malloc(parts * sizeof *proofs)))
        st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
    if (st == CUZK_OK && (st = groth16_pvk_prepare(&pvk, &vk, &err)) == CUZK_OK) have_pvk = 1;
    if (st == CUZK_OK && (st = groth16_proofs_read(proofs, parts, bytes, len, &err)) != CUZK_OK &&
        st != CUZK_ERR_NOMEM) {
        fprintf(stderr, "cuzk verify-snap: %s: %s\n", o.proof, err.msg);
        st = CUZK_ERR_INVALID_PROOF;
        bad = parts;
    }
    for (unsigned k = 0; st == CUZK_OK && k < parts; k++) {
        fr_t pub[UPDATE_NUM_PUBLIC_INPUTS];
        if ((st = engine_snap_public_inputs(cm.g, k, cm.comm_r_old, cm.comm_r_new, cm.comm_d_new, pub, &err))) break;
        cuzk_status v = groth16_verify(NULL, &pvk, &proofs[k], pub, UPDATE_NUM_PUBLIC_INPUTS, &err);
        if (v == CUZK_ERR_INVALID_PROOF) {
            fprintf(stderr, "cuzk verify-snap: partition %u: invalid\n", k);
            bad++;
        } else if (v != CUZK_OK) {
            st = v;
        }
    }
    if (st == CUZK_OK && bad)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_PROOF, "%u of %u partitions invalid", bad, parts);
    if (st == CUZK_OK) printf("valid: SnapDeals %s, %u partitions\n", cm.g->name, parts);
    free(proofs);
    free(bytes);
    if (have_pvk) groth16_pvk_free(&pvk);
    if (have_vk) groth16_vk_free(&vk);
    return cli_report("verify-snap", st, &err);
}
