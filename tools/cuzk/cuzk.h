/* Pieces of the cuzk command shared by its source files. */
#ifndef CUZK_TOOL_H
#define CUZK_TOOL_H

#include <stddef.h>

#include "circuits/spec.h"
#include "cuzk/status.h"
#include "formats/filecoin_params.h"
#include "engine/open.h"
#include "util/pool.h"

enum { EXIT_VALID = 0, EXIT_INVALID = 1, EXIT_BAD_INPUT = 2, EXIT_INTERNAL = 3 };

/* Prints "cuzk CMD: status: message" for a failure and returns the exit code of st. */
int cli_report(const char *cmd, cuzk_status st, const cuzk_error *err);
cuzk_status cli_write_file(const char *path, const void *data, size_t len, cuzk_error *err);
/* A whole regular file (free()). */
cuzk_status cli_read_file(const char *path, uint8_t **out, size_t *len, cuzk_error *err);
/* The backend --backend names (cpu, gpu), or AUTO when none is named. */
cuzk_status cli_backend_choice(const char *want, engine_backend_choice *out, cuzk_error *err);

/* cuzk porep ...; argv[0] is "porep". */
int cmd_porep(int argc, char **argv);
/* cuzk snap ...; argv[0] is "snap". */
int cmd_snap(int argc, char **argv);
/* cuzk circuit-info --circuit snap:SIZE (spec is the whole "snap:SIZE"). */
int cmd_snap_circuit_info(const char *spec, int want_hash);
/* cuzk prove --snap ...; argv[0] is "prove". */
int cmd_snap_prove(int argc, char **argv, unsigned threads);
/* cuzk verify-snap ...; argv[0] is "verify-snap". */
int cmd_verify_snap(int argc, char **argv);
/* cuzk post vanilla | synth-vanilla | check-vanilla; argv[0] is "post". */
int cmd_post_data(int argc, char **argv);
/* cuzk circuit-info --circuit porep:SIZE; argv[0] is "circuit-info". */
int cmd_circuit_info(int argc, char **argv);

/* circuit-info's common tail: the published parameter and key names of the circuit and, with want_hash, its
 * shape built and bellperson's TestConstraintSystem::hash() printed. Returns the exit status. */
int cli_circuit_files_and_hash(const circuit_spec *spec, filecoin_params_kind kind, uint64_t sector_size,
                               int want_hash);
/* cuzk verify-seal ...; argv[0] is "verify-seal". */
int cmd_verify_seal(int argc, char **argv);
/* cuzk params check [DIR]; argv[0] is "params". */
int cmd_params(int argc, char **argv);
/* cuzk selftest [--params-dir DIR]; argv[0] is "selftest". */
int cmd_selftest(int argc, char **argv);
/* PoSt (post.c). */
int cli_is_post_spec(const char *spec); /* wpost:... or winning:... */
/* cuzk circuit-info --circuit wpost:SIZE|winning:SIZE; argv[0] is "circuit-info". */
int cmd_post_circuit_info(int argc, char **argv);
/* cuzk verify-post --info INFO.json --proof FILE --vk FILE; argv[0] is "verify-post". */
int cmd_verify_post(int argc, char **argv);
typedef struct cli_post_prove {
    const char *vanilla, *info, *params, *vk, *out, *backend;
    unsigned threads;
    int trusted;
} cli_post_prove;
/* cuzk prove --post ... */
int cmd_prove_post(pool_t *pool, const cli_post_prove *a);

#endif
