/* Poseidon over the BLS12-381 scalar field exactly as neptune (11.x-14.x) computes it for Filecoin:
 * x^5 S-box, R_F = 8 full rounds around R_P partial rounds, width t = arity + 1, state[0] = domain tag,
 * state[1..] = preimage, output state[1].
 *
 * Constants are derived, not tabulated, the way neptune's PoseidonConstants::new_with_strength_and_type does:
 *  - round numbers: calc_round_numbers(t, security_margin = true) for 128-bit security and n = 256
 *    (round_numbers.rs); Strengthened multiplies R_P by 1.25, rounded up;
 *  - round constants: the Grain LFSR in self-shrinking mode seeded with (field 1, S-box 1, 255 bits, t, R_F, R_P),
 *    255-bit big-endian candidates rejection-sampled below r (round_constants.rs);
 *  - MDS: the Cauchy matrix 1 / (i + (t + j)) (mds.rs generate_mds);
 *  - the "optimized static" form used by both the native hash and the circuit: compressed round constants
 *    (preprocessing.rs compress_round_constants, all partial rounds preprocessed), a pre-sparse matrix and
 *    R_P sparse matrices (mds.rs factor_to_sparse_matrixes). */
#ifndef CUZK_CIRCUITS_HASH_POSEIDON_H
#define CUZK_CIRCUITS_HASH_POSEIDON_H

#include "cuzk/status.h"
#include "ff/fr.h"

#define POSEIDON_MAX_ARITY 36

typedef enum poseidon_strength { POSEIDON_STANDARD = 0, POSEIDON_STRENGTHENED = 1 } poseidon_strength;

typedef struct poseidon_constants {
    unsigned arity, width, full_rounds, half_full_rounds, partial_rounds;
    fr_t domain_tag;
    fr_t *round_constants; /* (full + partial) * width, in generation order */
    fr_t *compressed;      /* width * full + partial: compressed_round_constants */
    fr_t *mds;             /* width x width, row-major (symmetric) */
    fr_t *pre_sparse;      /* width x width, row-major */
    fr_t *w_hat;           /* partial rows of width: the dense first column of each sparse matrix */
    fr_t *v_rest;          /* partial rows of width - 1: the rest of each sparse matrix's first row */
} poseidon_constants;

/* neptune's (R_F, R_P) for a width. */
void poseidon_round_numbers(unsigned arity, poseidon_strength strength, unsigned *full, unsigned *partial);

/* The MerkleTree domain tag 2^arity - 1 (neptune hash_type.rs / Arity::tag), which Filecoin uses for its tree and
 * column hashes. */
void poseidon_merkle_tag(unsigned arity, fr_t *tag);

/* Builds the constants for arity 1..POSEIDON_MAX_ARITY. domain_tag NULL means the MerkleTree tag. Other neptune
 * hash types differ only in the tag (e.g. Custom(Arbitrary(1)) is 2^40) as long as the preimage fills the arity.
 * Free with poseidon_constants_free (safe on a zeroed or failed struct). */
cuzk_status poseidon_constants_create(poseidon_constants *pc, unsigned arity, poseidon_strength strength,
                                      const fr_t *domain_tag, cuzk_error *err);
void poseidon_constants_free(poseidon_constants *pc);

/* Poseidon of arity elements, neptune's default (OptimizedStatic) mode. */
void poseidon_hash(const poseidon_constants *pc, const fr_t *preimage, fr_t *out);
/* The textbook permutation (add all round constants, S-boxes, full MDS every round): neptune's hash_correct.
 * Slower; equal to poseidon_hash, which the tests check. */
void poseidon_hash_correct(const poseidon_constants *pc, const fr_t *preimage, fr_t *out);

#endif
