/* SHA-256 (FIPS 180-4) and the Filecoin conventions around it (filecoin-hashers sha256.rs):
 * a digest used as a field element is read as a 32-byte little-endian integer with its two most significant
 * bits cleared (Sha256Domain::trim_to_fr32: byte 31 &= 0x3f), so the result is below 2^254 < r. */
#ifndef CUZK_CIRCUITS_HASH_SHA256_H
#define CUZK_CIRCUITS_HASH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

#define SHA256_DIGEST_BYTES 32
#define SHA256_BLOCK_BYTES 64

typedef struct sha256_ctx {
    uint32_t state[8];
    uint64_t total; /* bytes absorbed */
    uint8_t buf[SHA256_BLOCK_BYTES];
    size_t buf_len;
} sha256_ctx;

extern const uint32_t SHA256_IV[8];
/* The 64 round constants. */
extern const uint32_t SHA256_K[64];

void sha256_init(sha256_ctx *ctx);
void sha256_update(sha256_ctx *ctx, const void *data, size_t len);
void sha256_final(sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_BYTES]);
void sha256_digest(const void *data, size_t len, uint8_t out[SHA256_DIGEST_BYTES]);
/* One compression: state = state + F(state, block), block read as 16 big-endian words. */
void sha256_compress(uint32_t state[8], const uint8_t block[SHA256_BLOCK_BYTES]);

/* Sha256Domain::trim_to_fr32 in place: digest[31] &= 0x3f. */
void sha256_trim_fr32(uint8_t digest[SHA256_DIGEST_BYTES]);
/* SHA-256 of data, trimmed, as a field element (the value of Sha256Function::hash and of the hash_circuit
 * gadget's output). */
void sha256_fr(const void *data, size_t len, fr_t *out);

#endif
