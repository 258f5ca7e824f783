/* Sealing a (small) sector the way rust-fil-proofs does, to make PoRep test data: SDR labelling of every layer,
 * encoding (replica = last label + data in Fr), TreeD (binary SHA-256 over the data), TreeC (Poseidon over the
 * column hashes), TreeR (Poseidon over the replica), comm_r = Poseidon2(comm_c, comm_r_last), and the vanilla
 * proofs of any challenge, assembled into a C1 that porep_c1_parse accepts. Everything is held in memory
 * (about (layers + 4) x the sector size), so this is for test sizes (2 KiB .. 8 MiB), not production sectors. */
#ifndef CUZK_CIRCUITS_POREP_SEAL_H
#define CUZK_CIRCUITS_POREP_SEAL_H

#include <stdint.h>

#include "circuits/porep/c1.h"
#include "circuits/porep/graph.h"
#include "circuits/porep/hashing.h"
#include "cuzk/status.h"

typedef struct porep_seal_params {
    const porep_geometry *geometry; /* any size in the table, including the unpublished test shapes */
    porep_api api;
    uint8_t porep_id[32];
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
    const porep_dom *data; /* geometry->nodes unsealed nodes (Fr32-padded: each below 2^254), or NULL for zeros */
} porep_seal_params;

typedef struct porep_sealed {
    const porep_geometry *geometry;
    porep_graph graph;
    porep_hashers hashers;
    uint8_t porep_id[32];
    porep_dom replica_id, comm_d, comm_c, comm_r_last, comm_r;
    porep_dom *data;            /* nodes */
    porep_dom *labels;          /* layers x nodes, layer 1 first */
    porep_dom *replica;         /* nodes */
    porep_dom *tree_d;          /* binary, all levels leaves first (2 nodes - 1) */
    porep_dom *tree_c, *tree_r; /* the base trees one after another (all levels each), then the sub-tree roots,
                                   then the top root */
} porep_sealed;

cuzk_status porep_seal(porep_sealed *s, const porep_seal_params *p, cuzk_error *err);
void porep_sealed_free(porep_sealed *s);

/* The vanilla proof of one challenge (1 <= challenge < nodes) into p, allocated for s's geometry (porep_c1_alloc). */
void porep_sealed_prove(const porep_sealed *s, uint64_t challenge, porep_challenge_proof *p);

/* A whole C1 for proof type t (its size and porep_id must be the sealed sector's): challenges derived from the
 * seed (interactive, synthetic) or comm_r (non-interactive) for every partition. */
cuzk_status porep_sealed_c1(porep_c1 *c1, const porep_sealed *s, const porep_proof_type *t, const uint8_t seed[32],
                            const uint8_t ticket[32], cuzk_error *err);

/* A TreeR (Poseidon, the geometry's base-sub-top shape) over the nodes leaves (a replica), in the layout of
 * porep_sealed's tree_r (free() it), and its root. CUZK_ERR_FORMAT when a leaf is not below r. */
cuzk_status porep_tree_r_build(porep_dom **tree, porep_dom root, const porep_geometry *g, const porep_hashers *h,
                               const porep_dom *leaves, cuzk_error *err);
/* The inclusion path of node in such a tree into p (index and sibs sized for g, as porep_c1_alloc makes them). */
void porep_tree_r_path(const porep_geometry *g, const porep_dom *tree, uint64_t node, porep_merkle_proof *p);

/* Test data (what `cuzk porep seal` needs): seals a sector of t's size with data, prover_id, sector_id, ticket and
 * seed drawn from a xoshiro generator seeded with seed_value (data nodes below 2^254). *p receives the parameters
 * used (p->data NULL: s->data holds the data); free s with porep_sealed_free. */
cuzk_status porep_seal_test(porep_sealed *s, porep_seal_params *p, uint8_t seed[32], const porep_proof_type *t,
                            uint64_t seed_value, cuzk_error *err);
/* porep_seal_test and the sector's C1 (interactive or not per t), the sector freed. */
cuzk_status porep_seal_test_c1(porep_c1 *c1, const porep_proof_type *t, uint64_t seed_value, cuzk_error *err);
/* The same, also giving the drawn prover_id and sector_id (the C1 holds only the replica_id made from them), so
 * that the sector's public values alone (filecoin-ffi VerifySeal's arguments) can be written out. */
cuzk_status porep_seal_test_c1_ids(porep_c1 *c1, const porep_proof_type *t, uint64_t seed_value, uint8_t prover_id[32],
                                   uint64_t *sector_id, cuzk_error *err);

#endif
