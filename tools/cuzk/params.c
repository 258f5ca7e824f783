/* cuzk verify-seal, params check and selftest: Filecoin's published parameter files and verification from a
 * sector's public values alone, as filecoin-ffi's VerifySeal does it (filecoin-proofs api/seal.rs verify_seal:
 * replica_id from prover_id, sector_id, ticket, comm_d and porep_id; the partitions' challenges from replica_id and
 * seed (interactive) or comm_r and seed (synthetic); the public inputs of each partition; one Groth16 check each). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "circuits/porep/challenges.h"
#include "circuits/porep/geometry.h"
#include "circuits/porep/seal.h"
#include "circuits/spec.h"
#include "circuits/stacked/stacked.h"
#include "cuzk.h"
#include "formats/filecoin_params.h"
#include "formats/filecoin_seal.h"
#include "formats/json.h"
#include "groth16/groth16.h"

static cuzk_status load_pvk(const char *path, groth16_pvk *pvk, cuzk_error *err)
{
    groth16_vk vk;
    cuzk_status st = groth16_vk_read(&vk, path, err);
    if (st) return st;
    st = groth16_pvk_prepare(pvk, &vk, err);
    groth16_vk_free(&vk);
    return st;
}

static cuzk_status read_whole(const char *path, uint8_t **out, size_t *len, cuzk_error *err)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = cap < (1u << 30) ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
            } else
                buf = nb, cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: too large to read", path);
    if (bad) {
        free(buf);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: read error", path);
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return CUZK_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- verify-seal */

static const char *VUSAGE =
    "usage: cuzk verify-seal --info INFO.json --proof PROOF [--vk VK | --params-dir DIR]\n"
    "       cuzk verify-seal --records FILE [--params-dir DIR]\n"
    "  filecoin-ffi's VerifySeal from the sector's public values alone. INFO.json: {\"registered_proof\": ID} or\n"
    "  {\"sector_size\": N, \"porep_id\": HEX, \"api_version\": \"1.1.0\"[, \"api_features\": [\"SyntheticPoRep\"]]},\n"
    "  and \"comm_r\", \"comm_d\", \"prover_id\", \"ticket\", \"seed\" (hex, 32 bytes) and \"sector_id\".\n"
    "  PROOF: partitions x 192 bytes. Without --vk the key is looked up in DIR (default\n"
    "  $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters): the published name, then cuzk's own\n"
    "  (porep-2k.vk).\n"
    "  --records: every line of a rust-fil-proofs seal_regression_records file whose size's published .vk is in\n"
    "  DIR (cuzk's own keys cannot verify them: other toxic waste).\n"
    "  Exit 0 valid, 1 invalid, 2 bad input.\n";

/* Verifies every record of a regression file; prints one line per size/variant group and a summary. */
static int verify_records(const char *path, const char *dir_arg, int verbose)
{
    cuzk_error err;
    char dir[4096];
    if (filecoin_params_dir(dir_arg, dir, sizeof dir, &err)) return cli_report("verify-seal", err.code, &err);
    uint8_t *text;
    size_t len;
    cuzk_status st = read_whole(path, &text, &len, &err);
    if (st) return cli_report("verify-seal", st, &err);
    size_t valid = 0, invalid = 0, skipped_vk = 0, skipped_ni = 0, bad = 0, line = 0;
    char pvk_path[4096] = "";
    groth16_pvk pvk;
    int have_pvk = 0;
    double t0 = now_s();
    for (char *p = (char *)text, *next; p && *p; p = next) {
        next = strchr(p, '\n');
        size_t l = next ? (size_t)(next - p) : strlen(p);
        if (next) next++;
        line++;
        if (l == 0) continue;
        json_doc *doc = NULL;
        filecoin_seal sp;
        if ((st = json_parse(&doc, p, l, &err)) == CUZK_OK) {
            st = filecoin_seal_parse(json_root(doc), &sp, &err);
            if (st == CUZK_OK && sp.kind == POREP_NON_INTERACTIVE) {
                skipped_ni++;
                json_free(doc);
                continue;
            }
        }
        if (st) {
            if (++bad <= 10) printf("%s:%zu: bad record: %s\n", path, line, err.msg);
            if (doc) json_free(doc);
            continue;
        }
        /* Only the published key: the records were proved with Filecoin's parameters, not with cuzk's own. */
        char vk[4096];
        int published = 0;
        if (filecoin_params_find_vk(dir, FILECOIN_PARAMS_POREP, sp.g->sector_size, vk, sizeof vk, &published, &err) ||
            !published) {
            skipped_vk++;
            json_free(doc);
            continue;
        }
        if (!have_pvk || strcmp(vk, pvk_path) != 0) {
            if (have_pvk) groth16_pvk_free(&pvk);
            have_pvk = 0;
            if ((st = load_pvk(vk, &pvk, &err))) {
                printf("%s:%zu: %s\n", path, line, err.msg);
                bad++;
                json_free(doc);
                continue;
            }
            have_pvk = 1;
            snprintf(pvk_path, sizeof pvk_path, "%s", vk);
        }
        /* The proof is an array of bytes. */
        const json_value *pj = json_get(json_root(doc), "proof");
        uint8_t *proof = pj && pj->type == JSON_ARRAY ? malloc(pj->len ? pj->len : 1) : NULL;
        st = proof ? CUZK_OK : cuzk_error_set(&err, CUZK_ERR_FORMAT, "\"proof\" is not an array of bytes");
        for (size_t i = 0; st == CUZK_OK && i < pj->len; i++) {
            uint64_t b;
            st = json_u64(pj->items[i], &b, "proof", &err);
            if (st == CUZK_OK && b > 255) st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "proof[%zu] is not a byte", i);
            proof[i] = (uint8_t)b;
        }
        if (st == CUZK_OK) st = filecoin_seal_verify(&sp, &pvk, proof, pj->len, &err);
        free(proof);
        json_free(doc);
        if (st == CUZK_OK)
            valid++;
        else if (st == CUZK_ERR_INVALID_PROOF)
            invalid++;
        else
            bad++;
        if ((st && invalid + bad <= 10) || verbose)
            printf("%s:%zu: %s %s api %s: %s%s\n", path, line, sp.g->name, FILECOIN_SEAL_KIND_NAMES[sp.kind],
                   FILECOIN_SEAL_API_NAMES[sp.api],
                   st == CUZK_OK                  ? "valid"
                   : st == CUZK_ERR_INVALID_PROOF ? "INVALID: "
                                                  : "error: ",
                   st == CUZK_OK ? "" : err.msg);
    }
    if (have_pvk) groth16_pvk_free(&pvk);
    free(text);
    if (invalid + bad > 10) printf("%s: (%zu more failures not shown)\n", path, invalid + bad - 10);
    printf("%s: %zu valid, %zu invalid, %zu bad; skipped %zu without the published .vk in %s and %zu non-interactive "
           "(SnarkPack aggregates) (%.1f s)\n",
           path, valid, invalid, bad, skipped_vk, dir, skipped_ni, now_s() - t0);
    return bad ? EXIT_BAD_INPUT : invalid ? EXIT_INVALID : EXIT_VALID;
}

int cmd_verify_seal(int argc, char **argv)
{
    const char *info = NULL, *proof_path = NULL, *vk_arg = NULL, *dir_arg = NULL, *records = NULL;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--info") == 0 && i + 1 < argc)
            info = argv[++i];
        else if (strcmp(a, "--proof") == 0 && i + 1 < argc)
            proof_path = argv[++i];
        else if (strcmp(a, "--vk") == 0 && i + 1 < argc)
            vk_arg = argv[++i];
        else if (strcmp(a, "--params-dir") == 0 && i + 1 < argc)
            dir_arg = argv[++i];
        else if (strcmp(a, "--records") == 0 && i + 1 < argc)
            records = argv[++i];
        else if (strcmp(a, "--verbose") == 0)
            verbose = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(VUSAGE, stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk verify-seal: unexpected argument '%s'\n%s", a, VUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    if (records) return verify_records(records, dir_arg, verbose);
    if (!info || !proof_path) {
        fprintf(stderr, "cuzk verify-seal: --info and --proof are required\n%s", VUSAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    uint8_t *text = NULL, *proof = NULL;
    size_t tlen, plen;
    json_doc *doc = NULL;
    filecoin_seal sp;
    cuzk_status st = read_whole(info, &text, &tlen, &err);
    if (st == CUZK_OK) st = json_parse(&doc, (const char *)text, tlen, &err);
    if (st == CUZK_OK) st = filecoin_seal_parse(json_root(doc), &sp, &err);
    if (st) cuzk_error_prefix(&err, "%s: ", info);
    if (st == CUZK_OK) st = read_whole(proof_path, &proof, &plen, &err);
    char vk[4096];
    if (st == CUZK_OK && vk_arg)
        snprintf(vk, sizeof vk, "%s", vk_arg);
    else if (st == CUZK_OK) {
        char dir[4096];
        st = filecoin_params_dir(dir_arg, dir, sizeof dir, &err);
        if (st == CUZK_OK)
            st = filecoin_params_find_vk(dir, FILECOIN_PARAMS_POREP, sp.g->sector_size, vk, sizeof vk, NULL, &err);
    }
    groth16_pvk pvk;
    int have_pvk = 0;
    if (st == CUZK_OK && (st = load_pvk(vk, &pvk, &err)) == CUZK_OK) have_pvk = 1;
    if (st == CUZK_OK) st = filecoin_seal_verify(&sp, &pvk, proof, plen, &err);
    if (st == CUZK_OK)
        printf("valid: %s %s PoRep (api %s), %u partition%s, sector %llu\n", sp.g->name,
               FILECOIN_SEAL_KIND_NAMES[sp.kind], FILECOIN_SEAL_API_NAMES[sp.api], sp.partitions,
               sp.partitions == 1 ? "" : "s", (unsigned long long)sp.sector_id);
    if (have_pvk) groth16_pvk_free(&pvk);
    if (doc) json_free(doc);
    free(text);
    free(proof);
    if (st == CUZK_ERR_INVALID_PROOF) {
        printf("INVALID: %s\n", err.msg);
        return EXIT_INVALID;
    }
    return cli_report("verify-seal", st, &err);
}

/* ---------------------------------------------------------------- params check */

static const char *PCUSAGE =
    "usage: cuzk params check [DIR] [--manifest parameters.json] [--no-digest]\n"
    "  every file of Filecoin's parameters.json (default DIR/parameters.json) that is in DIR (default\n"
    "  $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters): its digest (the first 32 hex\n"
    "  digits of BLAKE2b-512, as paramfetch checks; --no-digest skips reading whole files), its sections against\n"
    "  its own size and against the circuit its name belongs to (PoRep: ic, h, l, a, b_g1, b_g2; PoSt and\n"
    "  SnapDeals: ic), and a .vk against its .params. One line per file; exit 1 on any mismatch.\n";

/* The kind and size whose published name is stem, or -1. */
static int params_kind_of(const char *stem, filecoin_params_kind *kind, uint64_t *size)
{
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (int k = 0; k < FILECOIN_PARAMS_KINDS; k++)
        for (int i = 0; i < 5; i++) {
            char name[FILECOIN_PARAMS_NAME_MAX];
            cuzk_error e;
            if (filecoin_params_name((filecoin_params_kind)k, sizes[i], name, sizeof name, &e) == CUZK_OK &&
                strcmp(name, stem) == 0) {
                *kind = (filecoin_params_kind)k;
                *size = sizes[i];
                return 0;
            }
        }
    return -1;
}

/* Public inputs (ONE included) of the circuit behind a published file. */
static uint64_t params_circuit_ic(filecoin_params_kind kind, uint64_t size)
{
    switch (kind) {
    case FILECOIN_PARAMS_POREP:
    case FILECOIN_PARAMS_POREP_NI:
        return 1 + 3 + (uint64_t)POREP_INPUTS_PER_CHALLENGE * porep_geometry_for_size(size)->challenges;
    case FILECOIN_PARAMS_WINDOW_POST: /* per sector comm_r and one leaf index per challenge */
        return 1 + (uint64_t)filecoin_window_post_sector_count(size) * (1 + FILECOIN_WINDOW_POST_CHALLENGES);
    case FILECOIN_PARAMS_WINNING_POST: return 1 + (uint64_t)FILECOIN_WINNING_POST_CHALLENGES * 2;
    default: return 5; /* k_and_h_select, comm_r_old, comm_d_new, comm_r_new */
    }
}

/* One file: appends what is wrong to why (empty: all checks passed). */
static void params_check_file(const char *dir, const char *file, const json_value *entry, int digest,
                              filecoin_params_layout porep_cache[5], int porep_have[5], char *why, size_t n)
{
    char path[4096], stem[FILECOIN_PARAMS_NAME_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
        snprintf(why, n, " the path is too long");
        return;
    }
    size_t fl = strlen(file);
    int is_vk = fl > 3 && strcmp(file + fl - 3, ".vk") == 0;
    size_t sl = fl - (is_vk ? 3 : 7);
    snprintf(stem, sizeof stem, "%.*s", (int)(sl < sizeof stem ? sl : sizeof stem - 1), file);
    size_t w = 0;
#define WHY(...) (w += (size_t)snprintf(why + w, w < n ? n - w : 0, __VA_ARGS__))
    cuzk_error err;
    why[0] = 0;
    if (digest) {
        char d[33];
        const json_value *dj = json_get(entry, "digest");
        if (filecoin_params_digest(path, d, &err))
            WHY(" %s;", err.msg);
        else if (!dj || dj->type != JSON_STRING || strcmp(dj->text, d) != 0)
            WHY(" digest %s, parameters.json says %s;", d, dj && dj->type == JSON_STRING ? dj->text : "nothing");
    }
    filecoin_params_kind kind;
    uint64_t size;
    if (params_kind_of(stem, &kind, &size) != 0) {
        WHY(" the name is no published circuit's;");
        return;
    }
    uint64_t want_ic = params_circuit_ic(kind, size);
    if (is_vk) {
        groth16_vk vk;
        struct stat sb;
        if (groth16_vk_read(&vk, path, &err)) {
            WHY(" %s;", err.msg);
            return;
        }
        if (vk.ic_len != want_ic) WHY(" ic %zu, the circuit has %llu inputs;", vk.ic_len, (unsigned long long)want_ic);
        if (stat(path, &sb) == 0 && (uint64_t)sb.st_size != filecoin_params_vk_bytes(vk.ic_len))
            WHY(" %llu bytes, a key of %zu inputs is %llu;", (unsigned long long)sb.st_size, vk.ic_len,
                (unsigned long long)filecoin_params_vk_bytes(vk.ic_len));
        groth16_vk_free(&vk);
        char params[4096];
        if (snprintf(params, sizeof params, "%s/%s.params", dir, stem) < (int)sizeof params &&
            access(params, R_OK) == 0 && filecoin_params_check_vk(params, path, &err))
            WHY(" %s;", err.msg);
        return;
    }
    filecoin_params_layout lo;
    uint64_t bytes;
    if (filecoin_params_read_layout(path, &lo, &bytes, &err)) {
        WHY(" %s;", err.msg);
        return;
    }
    if (lo.ic != want_ic)
        WHY(" ic %llu, the circuit has %llu inputs;", (unsigned long long)lo.ic, (unsigned long long)want_ic);
    if (kind == FILECOIN_PARAMS_POREP || kind == FILECOIN_PARAMS_POREP_NI) {
        int si = size == 2048 ? 0 : size == 8ull << 20 ? 1 : size == 512ull << 20 ? 2 : size == 32ull << 30 ? 3 : 4;
        if (!porep_have[si]) {
            if (filecoin_params_porep_layout(size, &porep_cache[si], &err)) {
                WHY(" %s;", err.msg);
                return;
            }
            porep_have[si] = 1;
        }
        const filecoin_params_layout *c = &porep_cache[si];
        static const char *const names[5] = {"h", "l", "a", "b_g1", "b_g2"};
        const uint64_t got[5] = {lo.h, lo.l, lo.a, lo.b_g1, lo.b_g2}, want[5] = {c->h, c->l, c->a, c->b_g1, c->b_g2};
        for (int i = 0; i < 5; i++)
            if (got[i] != want[i])
                WHY(" %s %llu, the circuit gives %llu;", names[i], (unsigned long long)got[i],
                    (unsigned long long)want[i]);
    }
#undef WHY
}

/* Checks every manifest file present in dir, one line each. *bad: the number that failed. */
static cuzk_status params_check_dir(const char *dir, const char *manifest, int digest, size_t *checked, size_t *bad,
                                    cuzk_error *err)
{
    *checked = *bad = 0;
    char mpath[4096];
    if (snprintf(mpath, sizeof mpath, manifest ? "%s" : "%s/parameters.json", manifest ? manifest : dir) >=
        (int)sizeof mpath)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "the manifest path is too long");
    uint8_t *text;
    size_t len;
    json_doc *doc = NULL;
    cuzk_status st = read_whole(mpath, &text, &len, err);
    if (st && !manifest) cuzk_error_prefix(err, "no manifest (give --manifest with Filecoin's parameters.json): ");
    if (st == CUZK_OK) {
        st = json_parse(&doc, (const char *)text, len, err);
        if (st == CUZK_OK && json_root(doc)->type != JSON_OBJECT)
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "not a JSON object of files");
        if (st) cuzk_error_prefix(err, "%s: ", mpath);
        free(text);
    }
    if (st) {
        if (doc) json_free(doc);
        return st;
    }
    const json_value *root = json_root(doc);
    size_t absent = 0;
    filecoin_params_layout cache[5];
    int have[5] = {0};
    for (size_t i = 0; i < root->len; i++) {
        const char *file = root->keys[i];
        size_t fl = strlen(file);
        int kind_ok =
            (fl > 7 && strcmp(file + fl - 7, ".params") == 0) || (fl > 3 && strcmp(file + fl - 3, ".vk") == 0);
        char path[4096];
        struct stat sb;
        if (!kind_ok || strchr(file, '/') || snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path ||
            stat(path, &sb) != 0) {
            absent++;
            continue;
        }
        double t0 = now_s();
        char why[2048];
        params_check_file(dir, file, root->items[i], digest, cache, have, why, sizeof why);
        ++*checked;
        *bad += why[0] != 0;
        printf("%s %s: %llu bytes%s%s (%.1f s)\n", why[0] ? "BAD" : "ok ", file, (unsigned long long)sb.st_size,
               why[0] ? ":" : "",
               why[0]   ? why
               : digest ? ", digest and sections match"
                        : ", sections match",
               now_s() - t0);
    }
    printf("params check: %zu files in %s checked, %zu bad; %zu listed files absent\n", *checked, dir, *bad, absent);
    json_free(doc);
    return CUZK_OK;
}

int cmd_params(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "check") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            fputs(PCUSAGE, stdout);
            return 0;
        }
        fprintf(stderr, "cuzk params: expected 'check'\n%s", PCUSAGE);
        return EXIT_BAD_INPUT;
    }
    const char *dir_arg = NULL, *manifest = NULL;
    int digest = 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--manifest") == 0 && i + 1 < argc)
            manifest = argv[++i];
        else if (strcmp(argv[i], "--no-digest") == 0)
            digest = 0;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(PCUSAGE, stdout);
            return 0;
        } else if (!dir_arg && argv[i][0] != '-')
            dir_arg = argv[i];
        else {
            fprintf(stderr, "cuzk params check: unexpected argument '%s'\n%s", argv[i], PCUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    cuzk_error err;
    char dir[4096];
    size_t checked, bad;
    cuzk_status st = filecoin_params_dir(dir_arg, dir, sizeof dir, &err);
    if (st == CUZK_OK) st = params_check_dir(dir, manifest, digest, &checked, &bad, &err);
    if (st) return cli_report("params check", st, &err);
    return bad ? EXIT_INVALID : EXIT_VALID;
}

/* ---------------------------------------------------------------- selftest */

static const char *SUSAGE =
    "usage: cuzk selftest [--params-dir DIR] [--records FILE]... [--manifest parameters.json] [--no-digest]\n"
    "  for operators: seals a 2 KiB sector, proves it with the published 2 KiB parameters in DIR (default\n"
    "  $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters), verifies it from its public values\n"
    "  with the published .vk, verifies the seal regression records (--records, and DIR/seal_regression_records-\n"
    "  v16.json, -v18.json) for every size whose .vk is there, and checks the digests and sections of the files\n"
    "  there (DIR/parameters.json or --manifest). Without the published 2 KiB files it makes cuzk's own in a\n"
    "  temporary directory (about a minute) and says what it skipped. One line per check with its time.\n";

typedef struct selftest {
    double t0;
    int failed;
} selftest;

static void st_line(selftest *t, const char *what, cuzk_status st, const cuzk_error *err, const char *detail)
{
    if (st) t->failed++;
    printf("%-4s %s%s%s (%.1f s)\n", st ? "FAIL" : "ok", what,
           st       ? ": "
           : detail ? ": "
                    : "",
           st       ? err->msg
           : detail ? detail
                    : "",
           now_s() - t->t0);
    fflush(stdout);
    t->t0 = now_s();
}

static void st_skip(selftest *t, const char *what)
{
    printf("skip %s\n", what);
    fflush(stdout);
    t->t0 = now_s();
}

/* cuzk's own 2 KiB parameters in tmp (setup of the circuit's shape from fresh toxic waste). */
static cuzk_status selftest_own_params(pool_t *pool, const char *tmp, char *params, char *vk, size_t n, cuzk_error *err)
{
    if (snprintf(params, n, "%s/porep-2k.params", tmp) >= (int)n || snprintf(vk, n, "%s/porep-2k.vk", tmp) >= (int)n)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "the temporary directory name is too long");
    circuit_spec spec;
    cuzk_status st = circuit_spec_parse("porep:2KiB", &spec, err);
    r1cs cs;
    memset(&cs, 0, sizeof cs);
    if (st == CUZK_OK) st = circuit_spec_build(pool, &spec, R1CS_MATRICES, &cs, err);
    if (st == CUZK_OK) st = groth16_setup_files(pool, &cs, NULL, params, vk, err);
    r1cs_free(&cs);
    return st;
}

/* Proves every partition of c1 with params on the CPU: the witness synthesized in full, groth16_prove. */
static cuzk_status selftest_prove(pool_t *pool, const porep_c1 *c1, const groth16_params *params, uint8_t *out,
                                  cuzk_error *err)
{
    stacked_circuit c;
    cuzk_status st = stacked_circuit_init_geometry(&c, c1->geometry, c1->type->kind, err);
    for (unsigned k = 0; st == CUZK_OK && k < c1->partitions; k++) {
        stacked_witness w;
        r1cs cs;
        memset(&cs, 0, sizeof cs);
        st = stacked_witness_from_c1(&w, &c, c1, k, err);
        if (st) break;
        st = r1cs_create(&cs, 1, err);
        if (st == CUZK_OK) st = stacked_synthesize(&cs, &c, &w, err);
        if (st == CUZK_OK) st = r1cs_finalize(&cs, err);
        stacked_witness_free(&w);
        groth16_proof pr;
        groth16_timings tm;
        if (st == CUZK_OK) st = groth16_prove(pool, params, &cs, NULL, NULL, NULL, NULL, &pr, &tm, err);
        if (st == CUZK_OK) groth16_proof_write(out + (size_t)k * GROTH16_PROOF_BYTES, &pr);
        r1cs_free(&cs);
    }
    stacked_circuit_free(&c);
    return st;
}

static void rm_tree_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char p[4096];
        if (e->d_name[0] == '.' || snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

int cmd_selftest(int argc, char **argv)
{
    const char *dir_arg = NULL, *manifest = NULL, *records[8];
    int nrec = 0, digest = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--params-dir") == 0 && i + 1 < argc)
            dir_arg = argv[++i];
        else if (strcmp(argv[i], "--manifest") == 0 && i + 1 < argc)
            manifest = argv[++i];
        else if (strcmp(argv[i], "--records") == 0 && i + 1 < argc && nrec < 8)
            records[nrec++] = argv[++i];
        else if (strcmp(argv[i], "--no-digest") == 0)
            digest = 0;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(SUSAGE, stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk selftest: unexpected argument '%s'\n%s", argv[i], SUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    selftest t = {now_s(), 0};
    cuzk_error err;
    char dir[4096], params_path[4096], vk_path[4096], tmp[64] = "";
    cuzk_status st = filecoin_params_dir(dir_arg, dir, sizeof dir, &err);
    if (st) return cli_report("selftest", st, &err);
    printf("parameter directory: %s\n", dir);
    pool_t *pool = NULL;
    if ((st = pool_create(&pool, 0, &err))) return cli_report("selftest", st, &err);

    /* The 2 KiB parameters: the published ones, else cuzk's own made here. */
    filecoin_params_files f;
    int published = 0;
    st = filecoin_params_find(dir, FILECOIN_PARAMS_POREP, 2048, &f, &err);
    if (st == CUZK_OK && f.published) {
        published = 1;
        snprintf(params_path, sizeof params_path, "%s", f.params);
        snprintf(vk_path, sizeof vk_path, "%s", f.vk);
        st_line(&t, "published 2 KiB .params found", CUZK_OK, &err,
                f.vk[0] ? "with its .vk, which is its key" : "no .vk");
    } else if (st == CUZK_OK) {
        snprintf(params_path, sizeof params_path, "%s", f.params);
        snprintf(vk_path, sizeof vk_path, "%s", f.vk);
        st_skip(&t, "proving with the published 2 KiB parameters: they are not in the directory; cuzk's own there "
                    "are used");
    } else if (st == CUZK_ERR_FORMAT) {
        st_line(&t, "2 KiB .vk against its .params", st, &err, NULL);
    } else {
        st_skip(&t,
                "proving with the published 2 KiB parameters: they are not in the directory; cuzk's own made instead");
        snprintf(tmp, sizeof tmp, "/tmp/cuzk-selftest-XXXXXX");
        st = mkdtemp(tmp) ? CUZK_OK : cuzk_error_set(&err, CUZK_ERR_IO, "mkdtemp: %s", strerror(errno));
        if (st == CUZK_OK) st = selftest_own_params(pool, tmp, params_path, vk_path, sizeof params_path, &err);
        st_line(&t, "setup of cuzk's own 2 KiB parameters", st, &err, tmp);
    }

    /* Seal, prove, verify from the public values. */
    porep_c1 c1;
    memset(&c1, 0, sizeof c1);
    uint8_t prover_id[32], *proof = NULL;
    uint64_t sector_id = 0;
    int sealed = 0;
    const porep_proof_type *type = porep_proof_type_find(2048, POREP_API_1_1, POREP_INTERACTIVE);
    if (t.failed == 0) {
        st = porep_seal_test_c1_ids(&c1, type, (uint64_t)time(NULL), prover_id, &sector_id, &err);
        sealed = st == CUZK_OK;
        st_line(&t, "seal a 2 KiB sector (StackedDrg2KiBV1_1)", st, &err, NULL);
    }
    groth16_params params;
    int have_params = 0;
    if (sealed) {
        /* On-curve checks only, as filecoin-proofs reads its cached parameters: the digest check below covers the
         * file's integrity, and subgroup checks of 7 M points take minutes. */
        st = groth16_params_read(pool, &params, params_path, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, &err);
        have_params = st == CUZK_OK;
        st_line(&t, published ? "load the published 2 KiB .params" : "load cuzk's own 2 KiB .params", st, &err,
                params_path);
    }
    if (have_params) {
        proof = malloc((size_t)c1.partitions * GROTH16_PROOF_BYTES);
        st = proof ? selftest_prove(pool, &c1, &params, proof, &err)
                   : cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
        st_line(&t, "prove the sector on the CPU", st, &err, NULL);
        if (st) {
            free(proof);
            proof = NULL;
        }
    }
    if (proof) {
        groth16_pvk pvk;
        if (vk_path[0])
            st = load_pvk(vk_path, &pvk, &err);
        else
            st = groth16_pvk_prepare(&pvk, &params.vk, &err);
        if (st == CUZK_OK) {
            filecoin_seal sp;
            memset(&sp, 0, sizeof sp);
            sp.g = c1.geometry;
            sp.api = type->api;
            sp.kind = type->kind;
            sp.partitions = c1.partitions;
            porep_proof_type_porep_id(type, sp.porep_id);
            memcpy(sp.comm_r, c1.comm_r, 32), memcpy(sp.comm_d, c1.comm_d, 32), memcpy(sp.prover_id, prover_id, 32);
            memcpy(sp.ticket, c1.ticket, 32), memcpy(sp.seed, c1.seed, 32);
            sp.sector_id = sector_id;
            st = filecoin_seal_verify(&sp, &pvk, proof, (size_t)c1.partitions * GROTH16_PROOF_BYTES, &err);
            st_line(&t,
                    vk_path[0] ? "verify-seal from the public values with the .vk"
                               : "verify-seal from the public values with the .params' key",
                    st, &err, NULL);
            sp.seed[0] ^= 1;
            cuzk_status bad = filecoin_seal_verify(&sp, &pvk, proof, (size_t)c1.partitions * GROTH16_PROOF_BYTES, &err);
            st_line(&t, "verify-seal rejects another seed",
                    bad == CUZK_ERR_INVALID_PROOF
                        ? CUZK_OK
                        : cuzk_error_set(&err, CUZK_ERR_INTERNAL, "a changed seed %s", bad ? err.msg : "verified"),
                    &err, NULL);
            groth16_pvk_free(&pvk);
        } else
            st_line(&t, "load the 2 KiB .vk", st, &err, NULL);
    }
    free(proof);
    if (have_params) groth16_params_free(&params);
    if (sealed) porep_c1_free(&c1);
    pool_destroy(pool);
    if (tmp[0]) rm_tree_files(tmp);

    /* The regression records. */
    int any = 0;
    for (int v = 0; v < 2 + nrec; v++) {
        char path[4096];
        if (v < nrec)
            snprintf(path, sizeof path, "%s", records[v]);
        else if (snprintf(path, sizeof path, "%s/seal_regression_records-v%d.json", dir, v - nrec == 0 ? 16 : 18) >=
                     (int)sizeof path ||
                 access(path, R_OK) != 0)
            continue;
        any = 1;
        int rc = verify_records(path, dir, 0);
        st_line(&t, "seal regression records",
                rc == 0 ? CUZK_OK : cuzk_error_set(&err, CUZK_ERR_INVALID_PROOF, "%s: see above", path), &err, path);
    }
    if (!any) st_skip(&t, "seal regression records: none given (--records FILE) and none in the directory");

    /* Digests and sections of what is there. */
    size_t checked = 0, bad = 0;
    st = params_check_dir(dir, manifest, digest, &checked, &bad, &err);
    if (st == CUZK_ERR_IO && !manifest)
        st_skip(&t, "params check: no parameters.json in the directory (--manifest)");
    else {
        if (st == CUZK_OK && bad) st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "%zu of %zu files bad", bad, checked);
        st_line(&t, "params check", st, &err, NULL);
    }
    printf("selftest: %s\n", t.failed ? "FAILED" : "passed");
    return t.failed ? EXIT_INVALID : EXIT_VALID;
}
