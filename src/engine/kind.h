/* Proof kinds described once. Every kind the daemon serves (cuzk.v1.ProofKind: PoRep C2, SnapDeals, WindowPoSt,
 * WinningPoSt, and cuzk's CIRCUIT_SPEC) is one engine_kind entry: how its request is parsed and validated, which
 * parameter set it needs, how that set is loaded, the circuit proved over the set, the engine request of a parsed
 * job, and the public inputs a verifier derives from the request alone. The daemon's handlers, its job table,
 * PreloadSRS/EvictSRS, GetStatus and the metrics only ever go through this table, so that a new kind is an entry
 * and its circuit, not edits across the daemon.
 *
 * Objects:
 *   job      what parse makes of one request (e.g. a parsed C1, the decoded PoSt vanilla proofs); opaque, owned by
 *            the caller, freed with job_free. Large parses (a 58 MB WindowPoSt request, a 50 MB C1) run on a job
 *            thread, never on the server loop.
 *   set      a parameter set, named by a short id that is also the Rust daemon's PreloadSRS id where it has one:
 *            porep-32g, porep-32g-ni, wpost-32g, winning-32g, snap-32g, and the test sizes porep-2k, wpost-2k,
 *            winning-8m, ... The residency keys sets by this id.
 *   circuit  the compiled circuit of a (set, variant) pair over a loaded set's parameters: an engine_circuit plus
 *            whatever the kind's synthesis needs. Several variants may share a set (PoRep's API versions share
 *            the parameters of a size but not the circuit); a circuit is rebuilt when its set is loaded again.
 *
 * Threads: every function may be called from any thread; a circuit is used by many jobs at once (its synthesis
 * must be thread-safe, as engine_synth_fn says). Errors name the request's field, sector, partition or challenge. */
#ifndef CUZK_ENGINE_KIND_H
#define CUZK_ENGINE_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "engine/engine.h"
#include "formats/filecoin_params.h"
#include "groth16/groth16.h"
#include "util/pool.h"

/* A byte string of the request (not owned). */
typedef struct engine_bytes {
    const uint8_t *data;
    size_t len;
} engine_bytes;

/* The fields of a cuzk.v1 SubmitProofRequest that a kind may read (proving.proto); borrowed for the call. */
typedef struct engine_kind_input {
    uint64_t sector_size; /* 0: not given */
    uint64_t registered_proof;
    uint64_t sector_number, miner_id;
    uint32_t partition_index;
    engine_bytes vanilla_proof;         /* PoRep C2: the C1 JSON (raw or the Curio envelope) */
    const engine_bytes *vanilla_proofs; /* PoSt: one per sector; SnapDeals: one per partition */
    size_t n_vanilla_proofs;
    engine_bytes randomness;                         /* PoSt: 32 bytes */
    engine_bytes comm_r_old, comm_r_new, comm_d_new; /* SnapDeals: 32 bytes each */
    const char *circuit;                             /* CIRCUIT_SPEC: the spec text */
    uint32_t partitions;                             /* CIRCUIT_SPEC: 0 means 1 (or the spec's partitions=) */
} engine_kind_input;

/* Sizes of a plan's names (with the NUL). */
#define ENGINE_KIND_SET_MAX 64
#define ENGINE_KIND_VARIANT_MAX 64

/* What parse learned about a request, for the daemon. */
typedef struct engine_kind_plan {
    char set[ENGINE_KIND_SET_MAX];         /* the parameter set the job needs (its canonical id) */
    char variant[ENGINE_KIND_VARIANT_MAX]; /* the circuit over that set ("" when a set has one circuit) */
    unsigned partitions;                   /* 1..ENGINE_KIND_MAX_PARTITIONS */
    char summary[128];                     /* for the log: "WindowPoSt 32GiB, 2349 sectors, partition 0" */
} engine_kind_plan;

/* The most partitions one request may have. */
#define ENGINE_KIND_MAX_PARTITIONS 256

/* One proof kind. An entry whose parse is NULL is a kind cuzk knows by name but does not prove yet (its circuit
 * is still being written): the daemon answers its requests FAILED ("not implemented yet"), lists its queue in
 * GetStatus and its counters in the metrics, and answers PreloadSRS of its sets UNIMPLEMENTED (EvictSRS: not
 * loaded). Such an entry has id, label, metric, what, default_priority and set_known only. Every other entry
 * has every member but check. */
typedef struct engine_kind {
    int id;             /* cuzk.v1.ProofKind */
    const char *label;  /* GetStatus queue name: "porep-c2", "snap-update", "window-post", "winning-post", "circuit" */
    const char *metric; /* Prometheus label: "porep_c2", "snap_update", "window_post", "winning_post", "circuit" */
    const char *what;   /* for messages: "WindowPoSt (WINDOW_POST_PARTITION)" */
    engine_priority default_priority; /* a request's priority 0 (UNSPECIFIED) takes this */

    /* Optional (NULL: none): cheap checks of the request's small fields, on the daemon's server loop at
     * submission, so that a malformed request is refused at once (INVALID_ARGUMENT) instead of becoming a
     * failed job. Must not look at the large payloads (vanilla_proof(s)): parse does, on a job thread. */
    cuzk_status (*check)(const engine_kind_input *in, cuzk_error *err);

    /* Parses and validates the whole request before any synthesis (CUZK_ERR_INVALID_ARG / CUZK_ERR_FORMAT with a
     * message naming what is wrong; nothing is kept on failure). in is borrowed for the call only: the job keeps
     * what it needs in its own memory, so that the daemon frees the request (a 50 MB C1) as soon as it is parsed. */
    cuzk_status (*parse)(const engine_kind_input *in, void **job, engine_kind_plan *plan, cuzk_error *err);
    void (*job_free)(void *job); /* NULL is allowed */

    /* Whether name names a parameter set of this kind (PreloadSRS / EvictSRS take any of them); if so and id is
     * not NULL, writes the set's canonical id (what parse puts in plan->set; e.g. "synthetic:k=9" becomes
     * "synthetic:k=9,seed=1") into id (idlen bytes, at least ENGINE_KIND_SET_MAX). */
    int (*set_known)(const char *name, char *id, size_t idlen);
    /* Loads the set of canonical id `set`: files are looked up under param_cache (PoRep: <param_cache>/<set>.params,
     * e.g. written by `cuzk setup`), CIRCUIT_SPEC sets are set up in memory. pool: for the load's parallel parts.
     * mapped: memory-map the file (srs.mapped) where the kind loads files. CUZK_ERR_IO names the missing file. */
    cuzk_status (*set_load)(const char *set, const char *param_cache, int mapped, pool_t *pool, groth16_params *out,
                            cuzk_error *err);

    /* The circuit of (plan->set, plan->variant) over params (borrowed until circuit_free). It depends on those
     * two names only, never on job (the first job that needs it, for kinds that want its sizes), so that the
     * daemon keeps one circuit per (set, variant) for every job over that loaded set. pool: borrowed until
     * circuit_free, for compiling and the parallel parts of synthesis. */
    cuzk_status (*circuit_create)(const void *job, const engine_kind_plan *plan, const groth16_params *params,
                                  pool_t *pool, void **circuit, cuzk_error *err);
    const engine_circuit *(*circuit_engine)(const void *circuit);
    void (*circuit_free)(void *circuit); /* NULL is allowed */

    /* The engine request of job over circuit (payload borrowed from job until engine_wait returns). Fails when the
     * job does not fit the circuit (CUZK_ERR_INVALID_ARG naming what differs). */
    cuzk_status (*request)(const void *circuit, const void *job, engine_priority prio, engine_request *out,
                           cuzk_error *err);
    /* The public inputs of partition k (without ONE) as a verifier derives them from the request alone (the
     * verify-* commands, and a check of each proof before it leaves): *out malloc'd, *n entries. */
    cuzk_status (*public_inputs)(const void *job, unsigned k, fr_t **out, size_t *n, cuzk_error *err);
} engine_kind;

/* The entries, one per kind file. To add a kind: write engine/kind_<name>.c defining its entry (a const
 * engine_kind with every member, see kind_porep.c), declare it here, and put it in the table of kind.c in place
 * of the kind's not-yet-implemented entry. Nothing else changes: the daemon, PreloadSRS/EvictSRS, GetStatus and
 * the metrics take it from the table. */
extern const engine_kind engine_kind_porep_c2;     /* POREP_SEAL_COMMIT, engine/kind_porep.c */
extern const engine_kind engine_kind_circuit_spec; /* CIRCUIT_SPEC, engine/kind_circuit.c */
extern const engine_kind engine_kind_snap_update;  /* SNAP_DEALS_UPDATE, engine/kind_snap.c */
extern const engine_kind engine_kind_window_post;  /* WINDOW_POST_PARTITION, engine/kind_post.c */
extern const engine_kind engine_kind_winning_post; /* WINNING_POST, engine/kind_post.c */

/* The table: every kind of cuzk.v1.ProofKind cuzk knows, in the order of GetStatus's queues. */
const engine_kind *const *engine_kinds(size_t *count);
/* The entry of a cuzk.v1.ProofKind, or NULL. */
const engine_kind *engine_kind_find(int id);
/* The kind owning parameter set `name`, or NULL; id (may be NULL): the set's canonical id, as set_known. */
const engine_kind *engine_kind_of_set(const char *name, char *id, size_t idlen);
/* Whether the entry proves (has a parse), or is a kind known by name only. */
int engine_kind_implemented(const engine_kind *k);

/* The set_load of the Filecoin kinds: the parameters of a circuit from the parameter directory
 * (filecoin_params_dir of param_cache: srs.param_cache, else $FIL_PROOFS_PARAMETER_CACHE, else
 * /var/tmp/filecoin-proof-parameters), the published file first, then cuzk's own (`cuzk setup`'s <set>.params); a
 * .vk beside it must be the .params' own key; a size Filecoin publishes nothing for (a test size) loads <set>.params. Trusted local files: the subgroup checks of the bases are skipped
 * (they dominate the load time of 32 GiB parameters); the verifying key is checked in full. mapped: through the
 * native cache <file>.cuzk-map beside it. */
cuzk_status engine_kind_load_filecoin(filecoin_params_kind kind, uint64_t sector_size, const char *set,
                                      const char *param_cache, int mapped, pool_t *pool, groth16_params *out,
                                      cuzk_error *err);

/* A deep copy of a request's fields (every byte string and the circuit text), for a job that outlives the
 * request message; engine_kind_input_free releases it. */
cuzk_status engine_kind_input_copy(const engine_kind_input *in, engine_kind_input *out, cuzk_error *err);
void engine_kind_input_free(engine_kind_input *in);

#endif
