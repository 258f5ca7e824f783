/* SnapDeals vanilla proofs as Curio sends them: one bincode (v1, fixint little-endian)
 * storage_proofs_update::vanilla::PartitionProof<TreeR> per partition (rust-fil-proofs storage-proofs-update
 * vanilla.rs, storage-proofs-core merkle/proof.rs):
 *
 *   PartitionProof = comm_c [32] | apex_leafs: u64 n, [32] x n | challenge_proofs: u64 n, ChallengeProof x n
 *   ChallengeProof = proof_r_old: MerkleProof<TreeR> | proof_d_new: MerkleProof<TreeD> | proof_r_new: MerkleProof<TreeR>
 *   MerkleProof    = u32 variant: 0 Single{root, leaf, path} | 1 Sub{base, sub, root, leaf} |
 *                    2 Top{base, sub, top, root, leaf}      (root and leaf [32] each)
 *   InclusionPath  = u64 n, PathElement x n;  PathElement = hashes: u64 m, [32] x m | index: u64
 *
 * The variant and path lengths are fixed by the sector size (TreeR 8-x-y as constants.rs, TreeD binary Single with
 * log2(nodes) levels), and the reader insists on them, on every hash being below r, on indices below the arity and
 * on the whole buffer being consumed. Errors name the partition, the challenge and the field. */
#ifndef CUZK_FORMATS_SNAP_VANILLA_H
#define CUZK_FORMATS_SNAP_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/update/encode.h"

/* A Merkle proof, the sub-paths concatenated leaf side first. */
typedef struct snap_merkle {
    uint8_t root[32], leaf[32];
    unsigned levels;
    uint8_t index[POR_MAX_LEVELS];
    uint8_t (*sibs)[32]; /* per level arity - 1 hashes */
} snap_merkle;

typedef struct snap_challenge_proof {
    snap_merkle r_old, d_new, r_new;
} snap_challenge_proof;

typedef struct snap_partition_proof {
    uint8_t comm_c[32];
    unsigned apex_count;
    uint8_t (*apex)[32];
    unsigned challenge_count;
    snap_challenge_proof *challenges;
    void *block; /* every array's storage */
} snap_partition_proof;

/* Parses one partition's bincode for circuit c's shape. partition names the proof in errors. CUZK_ERR_FORMAT on
 * any defect. Free with snap_partition_proof_free (safe on a zeroed or failed struct). */
cuzk_status snap_partition_proof_parse(snap_partition_proof *p, const update_circuit *c, unsigned partition,
                                       const uint8_t *data, size_t len, cuzk_error *err);
void snap_partition_proof_free(snap_partition_proof *p);

/* Allocates p zeroed with arrays shaped for c (for writers: snap encode, synth-vanilla). */
cuzk_status snap_partition_proof_alloc(snap_partition_proof *p, const update_circuit *c, cuzk_error *err);

/* The vanilla proof of partition k of an encoded sector (vanilla.rs prove): comm_c, the k-th chunk of TreeD's
 * apex-leaf row, and for each challenge the three paths. Allocates p. */
cuzk_status snap_partition_proof_from_encoded(snap_partition_proof *p, const update_circuit *c, const update_encoded *e,
                                              unsigned k, cuzk_error *err);

/* A consistent encoded sector of any size for benchmarks (what `cuzk snap synth-vanilla` proves): the old replica
 * and the data drawn per rho region (blocks of 2^(log2(nodes) - h) nodes) from a xoshiro generator seeded with
 * seed, comm_c likewise, encoded with update_encode: a few thousand hashes at 32 GiB, and every partition's
 * vanilla proof valid. */
cuzk_status snap_synth_encoded(update_encoded *e, const update_circuit *c, uint64_t seed, cuzk_error *err);

/* The bincode of p (malloc'd; free with free). */
cuzk_status snap_partition_proof_encode(const snap_partition_proof *p, const update_circuit *c, uint8_t **out,
                                        size_t *len, cuzk_error *err);

/* The witness of partition k from its parsed proof and the public commitments (32-byte little-endian Fr each),
 * h = hs[3] as Curio's proofs use. Checks everything the circuit would find unsatisfied, so that no proof is made
 * of a wrong witness: every path's index equals the challenge derived from comm_r_new; the TreeR-old and TreeR-new
 * roots are the same in every challenge and comm_r_old = Poseidon2(comm_c, root_r_old), comm_r_new =
 * Poseidon2(comm_c, root_r_new); each TreeD root is comm_d_new; all three paths hash to their roots; the TreeD path
 * passes through the selected apex leaf and the apex tree's root; partition paths equal; leaf_r_new = leaf_r_old +
 * leaf_d_new * rho. CUZK_ERR_FORMAT naming the partition, challenge and field. Allocates w. */
cuzk_status snap_witness_from_proof(update_witness *w, const update_circuit *c, const snap_partition_proof *p,
                                    unsigned k, const uint8_t comm_r_old[32], const uint8_t comm_r_new[32],
                                    const uint8_t comm_d_new[32], cuzk_error *err);

#endif
