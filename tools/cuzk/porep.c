/* cuzk porep: Filecoin PoRep test data and C1 checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/porep/c1.h"
#include "circuits/porep/geometry.h"
#include "circuits/porep/seal.h"
#include "circuits/porep/synth_c1.h"
#include "circuits/spec.h"
#include "circuits/stacked/stacked.h"
#include "formats/sector_dir.h"
#include "cuzk.h"
#include "formats/filecoin_params.h"
#include "formats/porep_c1.h"
#include "r1cs/r1cs.h"

static const char *PUSAGE =
    "usage: cuzk porep seal --sector-size SIZE --out FILE [--seed N] [--envelope] [--info FILE] [--sector-dir DIR]\n"
    "           seal a random sector of SIZE (2KiB or 8MiB: sealing runs in memory) and write its C1 output\n"
    "           (SealCommitPhase1Output JSON, or the Lotus/Curio envelope with --envelope); --info also writes\n"
    "           the sector's public values (what cuzk verify-seal takes); --sector-dir also writes the\n"
    "           sealed-sector directory (sealed, unsealed, sector.json) that PoSt and SnapDeals test data are\n"
    "           made from\n"
    "       cuzk porep synth-c1 --sector-size SIZE --out FILE [--seed N] [--envelope]\n"
    "           write a valid C1 output for any published size (32GiB, 64GiB included) without sealing: the\n"
    "           sector is sparse (constant data, default leaves), only the challenged columns are computed\n"
    "       cuzk porep check-c1 FILE\n"
    "           parse and validate a C1 file (JSON or envelope) and verify every vanilla proof in it\n"
    "       cuzk porep check-circuit FILE [--partition K | --all]\n"
    "           synthesize partition K (default 0) or every partition of a C1 file's circuit, evaluating each\n"
    "           constraint as it is made (values only, no matrices: 4 GB and ~25 s of CPU per 32GiB partition),\n"
    "           and report whether it is satisfied and exposes the C1's public inputs, or the first failing\n"
    "           constraint\n";

/* porep_seal_test_c1 giving the drawn prover_id and sector_id (for --info) and, with dir, also writing the
 * sealed-sector directory. */
static cuzk_status porep_seal_sector(porep_c1 *c1, const porep_proof_type *t, uint64_t seed_value, const char *dir,
                                     uint8_t prover_id[32], uint64_t *sector_id, cuzk_error *err)
{
    memset(c1, 0, sizeof *c1);
    porep_sealed s;
    porep_seal_params p;
    uint8_t seed[32];
    cuzk_status st = porep_seal_test(&s, &p, seed, t, seed_value, err);
    if (st) return st;
    memcpy(prover_id, p.prover_id, 32);
    *sector_id = p.sector_id;
    st = porep_sealed_c1(c1, &s, t, seed, p.ticket, err);
    if (st == CUZK_OK && dir) st = sector_dir_write(dir, &s, &p, t->id, err);
    if (st) porep_c1_free(c1);
    porep_sealed_free(&s);
    return st;
}

/* seal and synth-c1: the same options, a C1 from a generator either way. */
static int porep_write_cmd(int argc, char **argv, int synth)
{
    const char *cmd = synth ? "porep synth-c1" : "porep seal";
    const char *size = NULL, *out = NULL, *info = NULL, *dir = NULL;
    unsigned long long seed = 1;
    int envelope = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sector-size") == 0 && i + 1 < argc)
            size = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--envelope") == 0)
            envelope = 1;
        else if (!synth && strcmp(argv[i], "--info") == 0 && i + 1 < argc)
            info = argv[++i];
        else if (!synth && strcmp(argv[i], "--sector-dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 0);
            if (*end) {
                fprintf(stderr, "cuzk %s: --seed needs a number\n", cmd);
                return EXIT_BAD_INPUT;
            }
        } else {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, argv[i], PUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    if (!size || !out) {
        fprintf(stderr, "cuzk %s: --sector-size and --out are required\n%s", cmd, PUSAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    const porep_geometry *g;
    cuzk_status st = porep_geometry_parse(size, &g, &err);
    if (st) return cli_report(cmd, st, &err);
    if (!synth && g->sector_size > (8ull << 20))
        return cli_report(cmd,
                          cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED,
                                         "sealing %s in memory is not supported (2KiB and 8MiB are; synth-c1 makes "
                                         "a C1 of any size)",
                                         g->name),
                          &err);
    const porep_proof_type *t = porep_proof_type_find(g->sector_size, POREP_API_1_1, POREP_INTERACTIVE);
    if (!t)
        return cli_report(cmd, cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED, "%s has no registered PoRep proof", g->name),
                          &err);
    fprintf(stderr, "cuzk %s: %s %s (%s)...\n", cmd, synth ? "synthesizing" : "sealing", g->name, t->name);
    porep_c1 c1;
    uint8_t prover_id[32];
    uint64_t sector_id = 0;
    st = synth ? porep_synth_c1(&c1, t, seed, &err) : porep_seal_sector(&c1, t, seed, dir, prover_id, &sector_id, &err);
    if (st) return cli_report(cmd, st, &err);
    if (dir) fprintf(stderr, "cuzk %s: wrote the sector directory %s\n", cmd, dir);
    if (info) {
        /* VerifySeal's arguments: the registered proof and the sector's public values, bytes in hex. */
        char text[1024];
        int w = snprintf(text, sizeof text, "{\"registered_proof\": %u, \"sector_id\": %llu", t->id,
                         (unsigned long long)sector_id);
        const char *keys[5] = {"comm_r", "comm_d", "prover_id", "ticket", "seed"};
        const uint8_t *vals[5] = {c1.comm_r, c1.comm_d, prover_id, c1.ticket, c1.seed};
        for (int k = 0; k < 5; k++) {
            w += snprintf(text + w, sizeof text - (size_t)w, ", \"%s\": \"", keys[k]);
            for (int b = 0; b < 32; b++) w += snprintf(text + w, sizeof text - (size_t)w, "%02x", vals[k][b]);
            w += snprintf(text + w, sizeof text - (size_t)w, "\"");
        }
        w += snprintf(text + w, sizeof text - (size_t)w, "}\n");
        st = cli_write_file(info, text, (size_t)w, &err);
        if (st) {
            porep_c1_free(&c1);
            return cli_report(cmd, st, &err);
        }
    }
    char *buf = NULL;
    size_t len = 0;
    st =
        envelope ? porep_c1_to_envelope(&c1, (int64_t)seed, &buf, &len, &err) : porep_c1_to_json(&c1, &buf, &len, &err);
    if (st == CUZK_OK) st = cli_write_file(out, buf, len, &err);
    if (st == CUZK_OK) fprintf(stderr, "cuzk %s: wrote %s (%zu bytes)\n", cmd, out, len);
    free(buf);
    porep_c1_free(&c1);
    return cli_report(cmd, st, &err);
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Partition k of c1 in a checker system. *ok: 1 satisfied with the C1's public inputs, 0 not (printed). */
static cuzk_status check_partition(const porep_c1 *c1, const stacked_circuit *c, unsigned k, int *ok, cuzk_error *err)
{
    *ok = 0;
    double t0 = now_s();
    stacked_witness w;
    cuzk_status st = stacked_witness_from_c1(&w, c, c1, k, err);
    if (st) return st;
    r1cs cs;
    st = r1cs_create_checker(&cs, err);
    if (st == CUZK_OK) st = stacked_synthesize(&cs, c, &w, err);
    if (st == CUZK_OK) st = r1cs_finalize(&cs, err);
    stacked_witness_free(&w);
    size_t np = stacked_num_public_inputs(c);
    fr_t *want = st == CUZK_OK ? malloc(np * sizeof *want) : NULL;
    if (st == CUZK_OK && !want) st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory for %zu public inputs", np);
    if (st == CUZK_OK) st = porep_c1_public_inputs(c1, k, want, err);
    if (st) {
        free(want);
        r1cs_free(&cs);
        return cuzk_error_prefix(err, "partition %u: ", k);
    }
    size_t first_bad = 0, failures = 0, input_bad = SIZE_MAX;
    int sat = r1cs_checker_result(&cs, &first_bad, &failures);
    if (cs.num_inputs != np + 1) input_bad = 0;
    for (size_t i = 0; input_bad == SIZE_MAX && i < np; i++)
        if (!fr_eq(&want[i], &cs.inputs[i + 1])) input_bad = i;
    double dt = now_s() - t0;
    if (sat && input_bad == SIZE_MAX)
        printf("partition %u: satisfied: %zu constraints, %zu inputs, %zu aux (%.1f s)\n", k, cs.num_constraints,
               cs.num_inputs, cs.num_aux, dt);
    else if (!sat)
        printf("partition %u: NOT satisfied: constraint %zu fails first (%zu of %zu constraints fail) (%.1f s)\n", k,
               first_bad, failures, cs.num_constraints, dt);
    else
        printf("partition %u: constraints hold but public input %zu differs from the C1's (%.1f s)\n", k, input_bad,
               dt);
    *ok = sat && input_bad == SIZE_MAX;
    free(want);
    r1cs_free(&cs);
    return CUZK_OK;
}

static int porep_check_circuit_cmd(int argc, char **argv)
{
    const char *cmd = "porep check-circuit", *file = NULL;
    long part = 0;
    int all = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--all") == 0)
            all = 1;
        else if (strcmp(argv[i], "--partition") == 0 && i + 1 < argc) {
            char *end;
            part = strtol(argv[++i], &end, 10);
            if (*end || part < 0) {
                fprintf(stderr, "cuzk %s: --partition needs a number\n", cmd);
                return EXIT_BAD_INPUT;
            }
        } else if (!file && argv[i][0] != '-')
            file = argv[i];
        else {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, argv[i], PUSAGE);
            return EXIT_BAD_INPUT;
        }
    }
    if (!file) {
        fprintf(stderr, "cuzk %s: a C1 file is required\n%s", cmd, PUSAGE);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    porep_c1 c1;
    cuzk_status st = porep_c1_read_file(&c1, file, NULL, &err);
    if (st) return cli_report(cmd, st, &err);
    if (!all && (unsigned long)part >= c1.partitions) {
        fprintf(stderr, "cuzk %s: partition %ld: the C1 has %u\n", cmd, part, c1.partitions);
        porep_c1_free(&c1);
        return EXIT_BAD_INPUT;
    }
    stacked_circuit c;
    st = stacked_circuit_init_geometry(&c, c1.geometry, c1.type->kind, &err);
    int good = 1;
    for (unsigned k = all ? 0 : (unsigned)part; st == CUZK_OK && k < (all ? c1.partitions : (unsigned)part + 1); k++) {
        int ok = 0;
        st = check_partition(&c1, &c, k, &ok, &err);
        good &= ok;
    }
    stacked_circuit_free(&c);
    porep_c1_free(&c1);
    if (st) return cli_report(cmd, st, &err);
    return good ? EXIT_VALID : EXIT_INVALID;
}

int cmd_circuit_info(int argc, char **argv)
{
    const char *text = NULL;
    int want_hash = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--circuit") == 0 && i + 1 < argc)
            text = argv[++i];
        else if (strcmp(argv[i], "--hash") == 0)
            want_hash = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: cuzk circuit-info --circuit porep:SIZE[,api=..,kind=..] [--hash]\n"
                   "  constraints and public inputs of one PoRep partition circuit, counted without storing it, and\n"
                   "  the published parameter files it needs; --hash builds its shape and prints bellperson's\n"
                   "  TestConstraintSystem::hash() of it (memory: ~100 bytes a constraint)\n");
            return 0;
        } else {
            fprintf(stderr, "cuzk circuit-info: unexpected argument '%s'\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    if (!text || strncmp(text, "porep:", 6) != 0) {
        fprintf(stderr, "cuzk circuit-info: --circuit porep:SIZE is required (e.g. porep:32GiB)\n");
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    circuit_spec spec;
    cuzk_status st = circuit_spec_parse(text, &spec, &err);
    if (st) return cli_report("circuit-info", st, &err);
    const porep_geometry *g = porep_geometry_for_size(spec.porep->sector_size);
    stacked_info info;
    st = stacked_circuit_info(g->sector_size, &info, &err);
    if (st) return cli_report("circuit-info", st, &err);
    printf("PoRep %s, one partition (of %u): %zu constraints, %zu inputs including ONE (%zu constraints with the "
           "prover's input constraints), %zu aux variables\n",
           g->name, porep_partitions(g, spec.porep->kind), info.synth_constraints, info.inputs, info.constraints,
           info.aux);
    filecoin_params_kind pk =
        spec.porep->kind == POREP_NON_INTERACTIVE ? FILECOIN_PARAMS_POREP_NI : FILECOIN_PARAMS_POREP;
    return cli_circuit_files_and_hash(&spec, pk, g->sector_size, want_hash);
}

int cli_circuit_files_and_hash(const circuit_spec *spec, filecoin_params_kind kind, uint64_t sector_size, int want_hash)
{
    cuzk_error err;
    char name[FILECOIN_PARAMS_NAME_MAX];
    if (filecoin_params_name(kind, sector_size, name, sizeof name, &err) == CUZK_OK)
        printf("params: %s.params\nvk: %s.vk\n", name, name);
    else
        printf("params: none published (%s)\n", err.msg);
    if (want_hash) {
        r1cs cs;
        cuzk_status st = circuit_spec_build(NULL, spec, R1CS_MATRICES, &cs, &err);
        uint8_t h[R1CS_HASH_BYTES];
        if (st == CUZK_OK) st = r1cs_bellperson_hash(&cs, h, &err);
        r1cs_free(&cs);
        if (st) return cli_report("circuit-info", st, &err);
        char hex[2 * R1CS_HASH_BYTES + 1];
        r1cs_hash_hex(h, hex);
        printf("hash: %s\n", hex);
    }
    return 0;
}

int cmd_porep(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(PUSAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    if (strcmp(argv[1], "seal") == 0) return porep_write_cmd(argc - 1, argv + 1, 0);
    if (strcmp(argv[1], "synth-c1") == 0) return porep_write_cmd(argc - 1, argv + 1, 1);
    if (strcmp(argv[1], "check-c1") == 0) return porep_check_cmd(argc - 1, argv + 1);
    if (strcmp(argv[1], "check-circuit") == 0) return porep_check_circuit_cmd(argc - 1, argv + 1);
    fprintf(stderr, "cuzk porep: unknown command '%s'\n%s", argv[1], PUSAGE);
    return EXIT_BAD_INPUT;
}
