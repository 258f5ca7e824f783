/* The hashes of StackedDRG on 32-byte little-endian values (filecoin-hashers, storage-proofs-porep):
 * - TreeD nodes: SHA-256(left || right) with byte 31 &= 0x3f (Sha256Function::node, trim_to_fr32);
 * - TreeR/TreeC nodes and column hashes: neptune Poseidon, MerkleTree domain tag, of the children / the column's
 *   rows (arity = layers: 2 or 11); comm_r = Poseidon2(comm_c, comm_r_last);
 * - labels: SHA-256(replica_id || layer u32 BE || node u64 BE || 20 zero bytes || 37 parent labels), trimmed;
 *   node 0 hashes only the 64-byte prefix (create_label: parents are hashed "for all non 0 nodes"). */
#ifndef CUZK_CIRCUITS_POREP_HASHING_H
#define CUZK_CIRCUITS_POREP_HASHING_H

#include <stdint.h>

#include "circuits/hash/poseidon.h"
#include "circuits/porep/c1.h"
#include "cuzk/status.h"

/* Poseidon constants for the arities PoRep uses (2, 8, 11), made once. */
typedef struct porep_hashers {
    poseidon_constants p2, p8, p11;
} porep_hashers;

cuzk_status porep_hashers_init(porep_hashers *h, cuzk_error *err);
void porep_hashers_free(porep_hashers *h);

/* Poseidon of arity values (2, 8 or 11). Returns -1 (out untouched) when an input is not below r. */
int porep_poseidon(const porep_hashers *h, unsigned arity, const porep_dom *in, porep_dom out);
void porep_sha256_node(const porep_dom left, const porep_dom right, porep_dom out);
/* parents: 37 labels, or NULL for node 0. */
void porep_label(porep_dom out, const porep_dom replica_id, uint32_t layer, uint64_t node, const porep_dom *parents);
/* a + b in Fr (the replica node = key + data). Returns -1 when an input is not below r. */
int porep_fr_add(porep_dom out, const porep_dom a, const porep_dom b);

#endif
