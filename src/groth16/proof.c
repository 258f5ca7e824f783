/* The 192-byte proof encoding: A (G1) ‖ B (G2) ‖ C (G1), compressed with the zcash flags. */
#include <string.h>

#include "groth16/groth16.h"

void groth16_proof_write(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof *proof)
{
    g1_to_compressed(out, &proof->a);
    g2_to_compressed(out + G1_COMPRESSED_BYTES, &proof->b);
    g1_to_compressed(out + G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES, &proof->c);
}

cuzk_status groth16_proof_read(groth16_proof *proof, const uint8_t in[GROTH16_PROOF_BYTES], cuzk_error *err)
{
    cuzk_error e;
    cuzk_status st;
    const uint8_t *pb = in + G1_COMPRESSED_BYTES, *pc = pb + G2_COMPRESSED_BYTES;
    if ((st = g1_from_compressed(&proof->a, in, 1, &e)) != CUZK_OK)
        return cuzk_error_set(err, st, "proof: A at offset 0: %s", e.msg);
    if ((st = g2_from_compressed(&proof->b, pb, 1, &e)) != CUZK_OK)
        return cuzk_error_set(err, st, "proof: B at offset %d: %s", G1_COMPRESSED_BYTES, e.msg);
    if ((st = g1_from_compressed(&proof->c, pc, 1, &e)) != CUZK_OK)
        return cuzk_error_set(err, st, "proof: C at offset %d: %s", G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES, e.msg);
    /* bellperson's Proof::read refuses the identity in any of the three points. */
    if (g1_affine_is_inf(&proof->a)) return cuzk_error_set(err, CUZK_ERR_FORMAT, "proof: A is the point at infinity");
    if (g2_affine_is_inf(&proof->b)) return cuzk_error_set(err, CUZK_ERR_FORMAT, "proof: B is the point at infinity");
    if (g1_affine_is_inf(&proof->c)) return cuzk_error_set(err, CUZK_ERR_FORMAT, "proof: C is the point at infinity");
    return CUZK_OK;
}

void groth16_proofs_write(uint8_t *out, const groth16_proof *proofs, size_t n)
{
    for (size_t i = 0; i < n; i++) groth16_proof_write(out + i * GROTH16_PROOF_BYTES, &proofs[i]);
}

cuzk_status groth16_proofs_read(groth16_proof *proofs, size_t n, const uint8_t *in, size_t len, cuzk_error *err)
{
    if (n > SIZE_MAX / GROTH16_PROOF_BYTES || len != n * GROTH16_PROOF_BYTES)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "proofs: expected exactly %zu bytes for %zu proofs, got %zu",
                              n <= SIZE_MAX / GROTH16_PROOF_BYTES ? n * GROTH16_PROOF_BYTES : SIZE_MAX, n, len);
    for (size_t i = 0; i < n; i++) {
        cuzk_status st = groth16_proof_read(&proofs[i], in + i * GROTH16_PROOF_BYTES, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "partition %zu (offset %zu): ", i, i * GROTH16_PROOF_BYTES);
    }
    return CUZK_OK;
}
