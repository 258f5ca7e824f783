/* The StackedDRG parent graph, as rust-fil-proofs builds it (storage-proofs-core drgraph.rs BucketGraph,
 * crypto/feistel.rs, storage-proofs-porep stacked/vanilla/graph.rs):
 * - 6 DRG parents per node by bucket sampling over the metagraph of degree 5, drawn from ChaCha8Rng seeded with
 *   drg_seed[28] || node u32 LE; the immediate predecessor node-1 is parent 0 (API 1.1, 1.2) or parent 5 (1.0);
 *   nodes 0 and 1 have all parents 0;
 * - 8 expander parents: parent i of node v is feistel_permute(nodes*8, 8v+i) / 8, a 3-round Feistel network
 *   whose round function is BLAKE2b-512 of right||key (big-endian u64s) masked to half the bits;
 * - seeds: drg_seed = SHA256("Filecoin_DRSample" || porep_id)[0..28]; the 4 Feistel keys are the u64 LE words
 *   of SHA256("Filecoin_Feistel" || porep_id) (only the first 3 are used).
 * The order of parents[14] is the parent cache's: 6 DRG parents, then 8 expander parents. */
#ifndef CUZK_CIRCUITS_POREP_GRAPH_H
#define CUZK_CIRCUITS_POREP_GRAPH_H

#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "cuzk/status.h"

typedef struct porep_graph {
    uint64_t nodes;
    porep_api api;
    uint8_t drg_seed[28];
    uint64_t feistel_keys[4];
    uint64_t feistel_left_mask, feistel_right_mask;
    unsigned feistel_half_bits;
} porep_graph;

/* From explicit seeds. nodes must be in [2, 2^32 - 1] (StackedGraph::new). */
cuzk_status porep_graph_init_seeds(porep_graph *g, uint64_t nodes, porep_api api, const uint8_t drg_seed[28],
                                   const uint64_t feistel_keys[4], cuzk_error *err);
/* From porep_id (seeds derived with SHA-256 as above). */
cuzk_status porep_graph_init(porep_graph *g, uint64_t nodes, porep_api api, const uint8_t porep_id[32],
                             cuzk_error *err);

/* node < nodes. */
void porep_graph_drg_parents(const porep_graph *g, uint32_t node, uint32_t parents[POREP_DRG_DEGREE]);
void porep_graph_exp_parents(const porep_graph *g, uint32_t node, uint32_t parents[POREP_EXP_DEGREE]);
void porep_graph_parents(const porep_graph *g, uint32_t node, uint32_t parents[POREP_DEGREE]);

/* The Feistel permutation of [0, n) and its inverse with the graph's keys (n = nodes * 8 for the graph). */
uint64_t porep_feistel_permute(const porep_graph *g, uint64_t n, uint64_t index);
uint64_t porep_feistel_invert(const porep_graph *g, uint64_t n, uint64_t index);

/* SHA-256 of the parent cache file rust-fil-proofs writes (cache.rs ParentCache::generate: for every node its 14
 * parents as u32 LE), the "digest" of storage-proofs-porep/parent_cache.json. Takes O(nodes) time. */
void porep_graph_cache_digest(const porep_graph *g, uint8_t digest[32]);

#endif
