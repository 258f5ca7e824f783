/* The PoSt vanilla proofs Curio sends in vanilla_proofs (WindowPoSt: one per non-skipped sector of the
 * partition; WinningPoSt: one): each the bincode v1 (fixed-width little-endian integers, u64 lengths, u32 enum
 * tags) of filecoin-proofs' FallbackPoStSectorProof<Tree> from filecoin-ffi GenerateSingleVanillaProof
 * (rust-fil-proofs filecoin-proofs types/mod.rs, storage-proofs-post fallback/vanilla.rs, storage-proofs-core
 * merkle/proof.rs; Curio's Go mirror lib/proof/post_vproof_bin_decode.go):
 *
 *   FallbackPoStSectorProof = sector_id u64 | comm_r [32] | Proof
 *   Proof          = sectors: u64 n, SectorProof x n          (GenerateSingleVanillaProof writes n = 1)
 *   SectorProof    = inclusion_proofs: u64 m, MerkleProof x m | comm_c [32] | comm_r_last [32]
 *   MerkleProof    = u32 tag, then
 *                    0 Single { root [32], leaf [32], path }
 *                    1 Sub    { base_path, sub_path, root [32], leaf [32] }
 *                    2 Top    { base_path, sub_path, top_path, root [32], leaf [32] }
 *   InclusionPath  = u64 levels, PathElement x levels
 *   PathElement    = hashes: u64 (arity - 1), [32] x (arity - 1) | index u64 (0 .. arity - 1)
 *
 * The tag follows the TreeR shape of the sector size: 8-0-0 (2 KiB, 8 MiB, 512 MiB) Single, 8-8-0 (32 GiB) Sub,
 * 8-8-2 (64 GiB) Top; base paths have geometry->base_levels levels, sub and top paths one each.
 * Every [32] is a field element's 32-byte little-endian representation, below r.
 *
 * The decoded form holds each sector once, in one allocation per sector, with the path levels flattened in the
 * order of porep_merkle_proof (leaf side first: base, then sub, then top). A 32 GiB WindowPoSt request of 2349
 * sectors is about 58 MB of bincode and about 55 MB decoded. */
#ifndef CUZK_FORMATS_POST_VANILLA_H
#define CUZK_FORMATS_POST_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "circuits/porep/c1.h" /* porep_dom */
#include "circuits/porep/geometry.h"
#include "circuits/porep/hashing.h"
#include "circuits/post/types.h"
#include "cuzk/status.h"

#define POST_VANILLA_TAG_SINGLE 0u
#define POST_VANILLA_TAG_SUB 1u
#define POST_VANILLA_TAG_TOP 2u

/* The inclusion path shape of one sector size (TreeR). */
typedef struct post_vanilla_shape {
    const porep_geometry *geometry;
    uint32_t tag;                                   /* POST_VANILLA_TAG_* */
    unsigned levels;                                /* base_levels + (sub ? 1 : 0) + (top ? 1 : 0) */
    unsigned arity[POREP_MAX_TREE_LEVELS];          /* per level, leaf side first */
    unsigned sib_offset[POREP_MAX_TREE_LEVELS + 1]; /* first sibling of level l within a proof's siblings;
                                                       sib_offset[levels] = siblings per proof */
    size_t proof_bytes;                             /* encoded size of one MerkleProof */
} post_vanilla_shape;

/* One sector's vanilla proof (one FallbackPoStSectorProof with its single SectorProof). */
typedef struct post_vanilla_sector {
    uint64_t sector_id;
    porep_dom comm_r, comm_c, comm_r_last;
    unsigned proofs;   /* inclusion proofs (the type's challenges) */
    porep_dom *roots;  /* proofs: each MerkleProof's root */
    porep_dom *leaves; /* proofs: each MerkleProof's leaf (the replica node) */
    uint8_t *index;    /* proofs x levels: the position of the running node among its arity siblings */
    porep_dom *sibs;   /* proofs x siblings per proof; level l of proof i starts at
                            sibs[i * shape.sib_offset[levels] + shape.sib_offset[l]] */
    void *block;       /* the one allocation behind the arrays above */
} post_vanilla_sector;

/* The vanilla proofs of one request. */
typedef struct post_vanilla {
    const post_proof_type *type;
    post_vanilla_shape shape;
    size_t count;                 /* sectors */
    post_vanilla_sector *sectors; /* count, in request order */
} post_vanilla;

/* The shape of the TreeR paths of geometry g (CUZK_ERR_UNSUPPORTED for a shape bincode cannot carry). */
cuzk_status post_vanilla_shape_init(post_vanilla_shape *s, const porep_geometry *g, cuzk_error *err);

/* Index of level l of inclusion proof i in s->index, and its first sibling in s->sibs. */
static inline uint8_t *post_vanilla_index(const post_vanilla_sector *s, const post_vanilla_shape *sh, unsigned i,
                                          unsigned l)
{
    return &s->index[(size_t)i * sh->levels + l];
}
static inline porep_dom *post_vanilla_sibs(const post_vanilla_sector *s, const post_vanilla_shape *sh, unsigned i,
                                           unsigned l)
{
    return &s->sibs[(size_t)i * sh->sib_offset[sh->levels] + sh->sib_offset[l]];
}

/* A request of count sectors of type t, every sector allocated with t->challenges inclusion proofs, all values
 * zero (for encoders and generators). */
cuzk_status post_vanilla_alloc(post_vanilla *v, const post_proof_type *t, size_t count, cuzk_error *err);
void post_vanilla_free(post_vanilla *v);

/* Decodes count bincode FallbackPoStSectorProofs (bytes[i], lens[i]) of proof type t into v (post_vanilla_free).
 * Structural validation only: exact lengths (no trailing bytes), one SectorProof per sector, t->challenges
 * inclusion proofs, the tag and path shape of t's sector size, every index below its level's arity, every [32]
 * below r. Lengths are checked against the shape before anything is allocated. Errors (CUZK_ERR_TRUNCATED,
 * CUZK_ERR_FORMAT, CUZK_ERR_NOT_CANONICAL, CUZK_ERR_NOMEM) name the sector (index and id once read), the inclusion
 * proof, the level, the field and the byte offset. What needs hashing (paths to comm_r_last, comm_r =
 * Poseidon2(comm_c, comm_r_last), challenges) is post_vanilla_verify's. */
cuzk_status post_vanilla_decode(post_vanilla *v, const post_proof_type *t, const uint8_t *const *bytes,
                                const size_t *lens, size_t count, cuzk_error *err);

/* Size of one sector's encoding. */
size_t post_vanilla_sector_encoded_size(const post_vanilla *v, const post_vanilla_sector *s);
/* Encodes sector i into out (post_vanilla_sector_encoded_size bytes). decode(encode(x)) == x and
 * encode(decode(b)) == b. */
void post_vanilla_encode_sector(const post_vanilla *v, size_t i, uint8_t *out);

/* The file form of Curio / cuzk-bench --vanilla: a JSON array of base64 strings (Go json.Marshal([][]byte)),
 * one FallbackPoStSectorProof each. */
cuzk_status post_vanilla_parse_json(post_vanilla *v, const post_proof_type *t, const char *text, size_t len,
                                    cuzk_error *err);
cuzk_status post_vanilla_read_json(post_vanilla *v, const post_proof_type *t, const char *path, cuzk_error *err);
cuzk_status post_vanilla_write_json(const post_vanilla *v, const char *path, cuzk_error *err);

/* The checks that hash (what the prover's vanilla verification does, for tests and test data): every root equals
 * comm_r_last and every path hashes (Poseidon, arity per level) from its leaf to it; comm_r =
 * Poseidon2(comm_c, comm_r_last); when randomness is not NULL, each proof's path index equals the leaf challenge
 * post_challenge_leaf(t, randomness, sector_id, sector_index0 + position, n). CUZK_ERR_INVALID_PROOF naming the
 * sector, proof and level. */
cuzk_status post_vanilla_verify(const post_vanilla *v, const porep_hashers *h, const uint8_t *randomness,
                                uint64_t sector_index0, cuzk_error *err);

#endif
