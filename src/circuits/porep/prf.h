/* The two pseudo-random functions the PoRep graph and challenges are built from, reproduced bit for bit:
 * - BLAKE2b (RFC 7693) with optional key and 1..64-byte output: the Feistel round function (blake2b_simd's
 *   default 64-byte unkeyed hash) and the synthetic-challenge keys (keyed, 32-byte output);
 * - ChaCha (Bernstein) with 8 or 20 rounds: ChaCha8Rng of rand_chacha 0.3 (64-bit block counter, stream 0) for
 *   the DRG parents, and IETF ChaCha20 (32-bit counter, 96-bit nonce, RustCrypto chacha20) for synthetic
 *   challenges. */
#ifndef CUZK_CIRCUITS_POREP_PRF_H
#define CUZK_CIRCUITS_POREP_PRF_H

#include <stddef.h>
#include <stdint.h>

typedef struct porep_blake2b_state {
    uint64_t h[8];
    uint64_t t[2];
    uint8_t buf[128];
    size_t buf_len;
    size_t out_len;
} porep_blake2b_state;

/* out_len 1..64, key_len 0..64 (key may be NULL when key_len is 0). */
void porep_blake2b_init(porep_blake2b_state *s, size_t out_len, const void *key, size_t key_len);
void porep_blake2b_update(porep_blake2b_state *s, const void *data, size_t len);
void porep_blake2b_final(porep_blake2b_state *s, uint8_t *out);
void porep_blake2b(uint8_t *out, size_t out_len, const void *data, size_t len);

/* One ChaCha block: 16 little-endian output words from key (8 words) and state words 12..15 (counter/nonce). */
void porep_chacha_block(uint32_t out[16], const uint32_t key[8], const uint32_t iv[4], unsigned rounds);

/* rand_chacha 0.3 ChaCha8Rng::from_seed(seed) and its next_u64 (two consecutive keystream words, low first). */
typedef struct porep_chacha8_rng {
    uint32_t key[8];
    uint64_t block; /* next block counter */
    uint32_t words[16];
    unsigned pos; /* next word in words; 16 = empty */
} porep_chacha8_rng;

void porep_chacha8_rng_seed(porep_chacha8_rng *r, const uint8_t seed[32]);
uint64_t porep_chacha8_rng_u64(porep_chacha8_rng *r);

/* IETF ChaCha20 keystream bytes starting at byte offset `offset` (the chacha20 crate's try_seek(offset) then
 * apply_keystream on zeros). */
void porep_chacha20_keystream(uint8_t *out, size_t len, const uint8_t key[32], const uint8_t nonce[12],
                              uint64_t offset);

#endif
