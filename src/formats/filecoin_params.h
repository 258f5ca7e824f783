/* Filecoin's published Groth16 parameter files: their names, computed from the circuit geometry as rust-fil-proofs
 * does, and where a node finds them.
 *
 * Name (storage-proofs-core parameter_cache.rs cache_identifier, VERSION 28):
 *   v28-<cache_prefix>-<hex SHA-256 of the public params' identifier()> + ".params" | ".vk" | ".meta"
 * cache_prefix (each compound's CacheableParameters::cache_prefix): "stacked-proof-of-replication-<tree>-
 * sha256_hasher" (PoRep), "proof-of-spacetime-fallback-<tree>" (Window and Winning PoSt), "empty-sector-update-
 * <tree>" and "empty-sector-update-poseidon-<tree>" (SnapDeals, SHA-256 and Poseidon TreeD), with <tree> =
 * "merkletree-poseidon_hasher-<base>-<sub>-<top>" of TreeR. identifier():
 *   PoRep  layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph:
 *          drgraph::BucketGraph{size: N; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges
 *          { layers: L, max_count: C }, tree: <tree> }
 *   PoSt   FallbackPoSt::PublicParams{sector_size: S, challenge_count: c, sector_count: n}
 *   Snap   empty_sector_update::PublicParams{ sector_nodes: N }
 * The PoRep identifier holds neither porep_id nor API version: every registered PoRep of a size (V1, V1_1,
 * synthetic, non-interactive) uses one file pair. WinningPoSt is challenge_count 1 x sector_count 66
 * (winning_post_setup_params), WindowPoSt 10 x WINDOW_POST_SECTOR_COUNT[size] (filecoin-proofs constants.rs).
 *
 * Lookup: the directory is srs.param_cache when set, else $FIL_PROOFS_PARAMETER_CACHE, else
 * /var/tmp/filecoin-proof-parameters; in it the published name first, then cuzk's own name (filecoin_params_own_
 * name: "porep-32g.params", the circuit ids of Rust cuzk's PreloadSRS). */
#ifndef CUZK_FORMATS_FILECOIN_PARAMS_H
#define CUZK_FORMATS_FILECOIN_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef enum filecoin_params_kind {
    FILECOIN_PARAMS_POREP = 0,
    FILECOIN_PARAMS_POREP_NI, /* non-interactive PoRep: the same circuit per partition, so the same name */
    FILECOIN_PARAMS_WINDOW_POST,
    FILECOIN_PARAMS_WINNING_POST,
    FILECOIN_PARAMS_SNAP,         /* EmptySectorUpdate, SHA-256 TreeD (what Curio uses) */
    FILECOIN_PARAMS_SNAP_POSEIDON /* EmptySectorUpdate-Poseidon */
} filecoin_params_kind;
#define FILECOIN_PARAMS_KINDS 6

#define FILECOIN_PARAMS_VERSION 28
/* Longest name stem (v28-...-<64 hex>) plus extension and NUL. */
#define FILECOIN_PARAMS_NAME_MAX 160
#define FILECOIN_PARAMS_DEFAULT_DIR "/var/tmp/filecoin-proof-parameters"

/* "porep", "porep-ni", "wpost", "winning", "snap", "snap-poseidon". */
const char *filecoin_params_kind_name(filecoin_params_kind kind);
cuzk_status filecoin_params_kind_parse(const char *text, filecoin_params_kind *out, cuzk_error *err);

/* The public params' identifier() string for a published sector size (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB;
 * snap-poseidon: 32 and 64 GiB only);
 * CUZK_ERR_INVALID_ARG for another size or kind, CUZK_ERR_INVALID_ARG if n is too small. */
cuzk_status filecoin_params_identifier(filecoin_params_kind kind, uint64_t sector_size, char *out, size_t n,
                                       cuzk_error *err);
/* The published file name without extension: "v28-<cache_prefix>-<sha256 hex>". */
cuzk_status filecoin_params_name(filecoin_params_kind kind, uint64_t sector_size, char *out, size_t n, cuzk_error *err);
/* cuzk's own name without extension: "<kind>-<size>", e.g. "porep-2k", "wpost-32g", "snap-64g" ("porep-2k-ni" for
 * non-interactive PoRep): the daemon's parameter-set id. */
cuzk_status filecoin_params_own_name(filecoin_params_kind kind, uint64_t sector_size, char *out, size_t n,
                                     cuzk_error *err);
/* WindowPoSt sectors per partition (WINDOW_POST_SECTOR_COUNT) and challenges per sector of a published size; 0 if
 * the size is not published. */
unsigned filecoin_window_post_sector_count(uint64_t sector_size);
#define FILECOIN_WINDOW_POST_CHALLENGES 10
#define FILECOIN_WINNING_POST_CHALLENGES 66

/* The parameter directory: param_cache when non-empty, else $FIL_PROOFS_PARAMETER_CACHE when non-empty, else
 * FILECOIN_PARAMS_DEFAULT_DIR. CUZK_ERR_INVALID_ARG if it does not fit in n. */
cuzk_status filecoin_params_dir(const char *param_cache, char *out, size_t n, cuzk_error *err);

typedef struct filecoin_params_files {
    char params[4096]; /* path of the .params found */
    char vk[4096];     /* path of its .vk, "" when absent */
    int published;     /* 1: the published name, 0: cuzk's own */
} filecoin_params_files;

/* Finds the parameter files of a circuit in dir (filecoin_params_dir's result): <published>.params, else
 * <own>.params; the .vk of the same stem when present, checked to be the .params' own verifying key
 * (filecoin_params_check_vk). CUZK_ERR_IO naming both names tried when neither .params exists, CUZK_ERR_FORMAT
 * when the .vk disagrees. */
cuzk_status filecoin_params_find(const char *dir, filecoin_params_kind kind, uint64_t sector_size,
                                 filecoin_params_files *out, cuzk_error *err);
/* The verifying key alone (all a verifier needs): <published>.vk, else <own>.vk in dir, its path in out.
 * CUZK_ERR_IO naming both names when neither exists. The key is not read. */
cuzk_status filecoin_params_find_vk(const char *dir, filecoin_params_kind kind, uint64_t sector_size, char *out,
                                    size_t n, int *published, cuzk_error *err);
/* Checks that the .vk file is a valid verifying key and byte for byte the key the .params begins with (bellperson
 * writes the vk first). Reads only the key's bytes of the .params. CUZK_ERR_FORMAT / CUZK_ERR_TRUNCATED /
 * CUZK_ERR_IO naming the file. */
cuzk_status filecoin_params_check_vk(const char *params_path, const char *vk_path, cuzk_error *err);

/* The sections of a bellperson .params file (groth16 Parameters::write: the vk with ic, then h, l, a, b_g1, b_g2,
 * each a u32 BE length and uncompressed points of 96 bytes, b_g2 192). */
typedef struct filecoin_params_layout {
    uint64_t ic, h, l, a, b_g1, b_g2;
} filecoin_params_layout;
/* Bytes of the .vk and of the whole .params of a layout. */
uint64_t filecoin_params_vk_bytes(uint64_t ic);
uint64_t filecoin_params_file_bytes(const filecoin_params_layout *lo);
/* The section lengths of a .params file, read by seeking past the points (a 47 GB file costs six small reads);
 * *file_bytes the file's size. CUZK_ERR_TRUNCATED when a section runs past the end, CUZK_ERR_FORMAT for trailing
 * bytes, CUZK_ERR_IO naming the file. */
cuzk_status filecoin_params_read_layout(const char *path, filecoin_params_layout *out, uint64_t *file_bytes,
                                        cuzk_error *err);
/* What bellperson's generator writes for the PoRep partition circuit of a published size: ic = inputs, h = domain
 * - 1 (domain: the power of two >= constraints with the input constraints), l = aux, a = inputs + A's aux density,
 * b_g1 = b_g2 = B's input density + B's aux density. The densities are those of shapes of 1 and 2 challenges,
 * extrapolated (every challenge's block has the same shape): ~1 GB and ~15 s for 32 GiB, a second for 2 KiB. */
cuzk_status filecoin_params_porep_layout(uint64_t sector_size, filecoin_params_layout *out, cuzk_error *err);

/* paramfetch's digest of a file: the first 32 hex digits of BLAKE2b-512 over the whole file (streamed).
 * out gets 33 bytes. CUZK_ERR_IO naming the file. */
cuzk_status filecoin_params_digest(const char *path, char out[33], cuzk_error *err);

#endif
