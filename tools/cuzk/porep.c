/* cuzk porep: Filecoin PoRep test data and C1 checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/c1.h"
#include "circuits/porep/geometry.h"
#include "circuits/porep/seal.h"
#include "circuits/stacked/stacked.h"
#include "cuzk.h"

static const char *PUSAGE =
    "usage: cuzk porep seal --sector-size SIZE --out FILE [--seed N] [--envelope]\n"
    "           seal a random sector of SIZE (2KiB or 8MiB: sealing runs in memory) and write its C1 output\n"
    "           (SealCommitPhase1Output JSON, or the Lotus/Curio envelope with --envelope)\n"
    "       cuzk porep check-c1 FILE\n"
    "           parse and validate a C1 file (JSON or envelope) and verify every vanilla proof in it\n";

static int porep_seal_cmd(int argc, char **argv)
{
    const char *size = NULL, *out = NULL;
    unsigned long long seed = 1;
    int envelope = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sector-size") == 0 && i + 1 < argc) size = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--envelope") == 0) envelope = 1;
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 0);
            if (*end) {
                fprintf(stderr, "cuzk porep seal: --seed needs a number\n");
                return EXIT_BAD_INPUT;
            }
        } else {
            fprintf(stderr, "cuzk porep seal: unexpected argument '%s'\n%s", argv[i], PUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    if (!size || !out) {
        fprintf(stderr, "cuzk porep seal: --sector-size and --out are required\n%s", PUSAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    const porep_geometry *g;
    cuzk_status st = porep_geometry_parse(size, &g, &err);
    if (st) return cli_report("porep seal", st, &err);
    if (g->sector_size > (8ull << 20))
        return cli_report("porep seal",
                          cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED,
                                         "sealing %s in memory is not supported (2KiB and 8MiB are)", g->name),
                          &err);
    const porep_proof_type *t = porep_proof_type_find(g->sector_size, POREP_API_1_1, POREP_INTERACTIVE);
    if (!t)
        return cli_report("porep seal",
                          cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED, "%s has no registered PoRep proof", g->name), &err);
    fprintf(stderr, "cuzk porep seal: sealing %s (%s)...\n", g->name, t->name);
    porep_c1 c1;
    st = porep_seal_test_c1(&c1, t, seed, &err);
    if (st) return cli_report("porep seal", st, &err);
    char *buf = NULL;
    size_t len = 0;
    st = envelope ? porep_c1_to_envelope(&c1, (int64_t)seed, &buf, &len, &err) : porep_c1_to_json(&c1, &buf, &len, &err);
    if (st == CUZK_OK) st = cli_write_file(out, buf, len, &err);
    if (st == CUZK_OK) fprintf(stderr, "cuzk porep seal: wrote %s (%zu bytes)\n", out, len);
    free(buf);
    porep_c1_free(&c1);
    return cli_report("porep seal", st, &err);
}

static int porep_check_cmd(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "%s", PUSAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    porep_c1 c1;
    int64_t sector_num = -1;
    cuzk_status st = porep_c1_read_file(&c1, argv[1], &sector_num, &err);
    if (st) return cli_report("porep check-c1", st, &err);
    st = porep_c1_verify(&c1, &err);
    if (st == CUZK_OK) printf("%s: valid C1 output, every vanilla proof verifies\n", argv[1]);
    porep_c1_free(&c1);
    return cli_report("porep check-c1", st, &err);
}

int cmd_circuit_info(int argc, char **argv)
{
    const char *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--circuit") == 0 && i + 1 < argc) spec = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: cuzk circuit-info --circuit porep:SIZE\n"
                   "  constraints and public inputs of one PoRep partition circuit, counted without storing it\n");
            return 0;
        } else {
            fprintf(stderr, "cuzk circuit-info: unexpected argument '%s'\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    if (!spec || strncmp(spec, "porep:", 6) != 0) {
        fprintf(stderr, "cuzk circuit-info: --circuit porep:SIZE is required (e.g. porep:32GiB)\n");
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    const porep_geometry *g;
    cuzk_status st = porep_geometry_parse(spec + 6, &g, &err);
    if (st) return cli_report("circuit-info", st, &err);
    stacked_info info;
    st = stacked_circuit_info(g->sector_size, &info, &err);
    if (st) return cli_report("circuit-info", st, &err);
    printf("PoRep %s, one partition (of %u): %zu constraints, %zu inputs including ONE (%zu constraints with the "
           "prover's input constraints), %zu aux variables\n",
           g->name, g->partitions, info.synth_constraints, info.inputs, info.constraints, info.aux);
    return 0;
}

int cmd_porep(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(PUSAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    if (strcmp(argv[1], "seal") == 0) return porep_seal_cmd(argc - 1, argv + 1);
    if (strcmp(argv[1], "check-c1") == 0) return porep_check_cmd(argc - 1, argv + 1);
    fprintf(stderr, "cuzk porep: unknown command '%s'\n%s", argv[1], PUSAGE);
    return EXIT_BAD_INPUT;
}
