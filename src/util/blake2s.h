/* BLAKE2s (RFC 7693): 1..32-byte output, optional key of up to 32 bytes (RFC 7693's self-test needs it). bellpepper-core's TestConstraintSystem::hash() fingerprints a
 * constraint system with BLAKE2s-256 (blake2s_simd State::new()), which r1cs_bellperson_hash reproduces. */
#ifndef CUZK_UTIL_BLAKE2S_H
#define CUZK_UTIL_BLAKE2S_H

#include <stddef.h>
#include <stdint.h>

#define BLAKE2S_BLOCK_BYTES 64
#define BLAKE2S_MAX_OUT 32

typedef struct blake2s_state {
    uint32_t h[8];
    uint32_t t[2];
    uint8_t buf[BLAKE2S_BLOCK_BYTES];
    size_t buf_len;
    size_t out_len;
} blake2s_state;

/* out_len 1..32 (other values are taken as 32); key_len 0..32 (longer keys are cut to 32; key may be NULL when
 * key_len is 0). */
void blake2s_init(blake2s_state *s, size_t out_len, const void *key, size_t key_len);
void blake2s_update(blake2s_state *s, const void *data, size_t len);
/* Writes out_len bytes. */
void blake2s_final(blake2s_state *s, uint8_t *out);
void blake2s(uint8_t *out, size_t out_len, const void *key, size_t key_len, const void *data, size_t len);

#endif
