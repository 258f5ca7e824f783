#include "circuits/porep/prf.h"

#include <string.h>

static uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rotr64(uint64_t x, unsigned n)
{
    return x >> n | x << (64 - n);
}
static uint32_t rotl32(uint32_t x, unsigned n)
{
    return x << n | x >> (32 - n);
}

/* ---- BLAKE2b (RFC 7693 section 3) ---- */

static const uint64_t BLAKE2B_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t BLAKE2B_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

#define B2B_G(a, b, c, d, x, y)                                                                                        \
    do {                                                                                                               \
        v[a] = v[a] + v[b] + (x);                                                                                      \
        v[d] = rotr64(v[d] ^ v[a], 32);                                                                                \
        v[c] = v[c] + v[d];                                                                                            \
        v[b] = rotr64(v[b] ^ v[c], 24);                                                                                \
        v[a] = v[a] + v[b] + (y);                                                                                      \
        v[d] = rotr64(v[d] ^ v[a], 16);                                                                                \
        v[c] = v[c] + v[d];                                                                                            \
        v[b] = rotr64(v[b] ^ v[c], 63);                                                                                \
    } while (0)

static void blake2b_compress(porep_blake2b_state *s, const uint8_t block[128], int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = BLAKE2B_IV[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *sg = BLAKE2B_SIGMA[r];
        B2B_G(0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        B2B_G(1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        B2B_G(2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        B2B_G(3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        B2B_G(0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        B2B_G(1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        B2B_G(2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        B2B_G(3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
    for (int i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
}

static void blake2b_count(porep_blake2b_state *s, size_t n)
{
    s->t[0] += n;
    if (s->t[0] < n) s->t[1]++;
}

void porep_blake2b_init(porep_blake2b_state *s, size_t out_len, const void *key, size_t key_len)
{
    memset(s, 0, sizeof *s);
    memcpy(s->h, BLAKE2B_IV, sizeof s->h);
    s->h[0] ^= 0x01010000ULL ^ ((uint64_t)key_len << 8) ^ (uint64_t)out_len;
    s->out_len = out_len;
    if (key_len) {
        /* the key fills a whole zero-padded first block */
        memcpy(s->buf, key, key_len);
        s->buf_len = 128;
    }
}

void porep_blake2b_update(porep_blake2b_state *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        /* the final block must be compressed with the last flag, so a full buffer waits for more input */
        if (s->buf_len == 128) {
            blake2b_count(s, 128);
            blake2b_compress(s, s->buf, 0);
            s->buf_len = 0;
        }
        size_t take = 128 - s->buf_len;
        if (take > len) take = len;
        memcpy(s->buf + s->buf_len, p, take);
        s->buf_len += take;
        p += take;
        len -= take;
    }
}

void porep_blake2b_final(porep_blake2b_state *s, uint8_t *out)
{
    blake2b_count(s, s->buf_len);
    memset(s->buf + s->buf_len, 0, 128 - s->buf_len);
    blake2b_compress(s, s->buf, 1);
    for (size_t i = 0; i < s->out_len; i++) out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}

void porep_blake2b(uint8_t *out, size_t out_len, const void *data, size_t len)
{
    porep_blake2b_state s;
    porep_blake2b_init(&s, out_len, NULL, 0);
    porep_blake2b_update(&s, data, len);
    porep_blake2b_final(&s, out);
}

/* ---- ChaCha ---- */

#define QR(a, b, c, d)                                                                                                 \
    do {                                                                                                               \
        x[a] += x[b];                                                                                                  \
        x[d] = rotl32(x[d] ^ x[a], 16);                                                                                \
        x[c] += x[d];                                                                                                  \
        x[b] = rotl32(x[b] ^ x[c], 12);                                                                                \
        x[a] += x[b];                                                                                                  \
        x[d] = rotl32(x[d] ^ x[a], 8);                                                                                 \
        x[c] += x[d];                                                                                                  \
        x[b] = rotl32(x[b] ^ x[c], 7);                                                                                 \
    } while (0)

void porep_chacha_block(uint32_t out[16], const uint32_t key[8], const uint32_t iv[4], unsigned rounds)
{
    uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++) in[4 + i] = key[i];
    for (int i = 0; i < 4; i++) in[12 + i] = iv[i];
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) {
        QR(0, 4, 8, 12);
        QR(1, 5, 9, 13);
        QR(2, 6, 10, 14);
        QR(3, 7, 11, 15);
        QR(0, 5, 10, 15);
        QR(1, 6, 11, 12);
        QR(2, 7, 8, 13);
        QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + in[i];
}

void porep_chacha8_rng_seed(porep_chacha8_rng *r, const uint8_t seed[32])
{
    for (int i = 0; i < 8; i++) r->key[i] = load32(seed + 4 * i);
    r->block = 0;
    r->pos = 16;
}

static uint32_t chacha8_word(porep_chacha8_rng *r)
{
    if (r->pos == 16) {
        /* rand_chacha: words 12-13 are the 64-bit block counter, 14-15 the stream id (0) */
        uint32_t iv[4] = {(uint32_t)r->block, (uint32_t)(r->block >> 32), 0, 0};
        porep_chacha_block(r->words, r->key, iv, 8);
        r->block++;
        r->pos = 0;
    }
    return r->words[r->pos++];
}

uint64_t porep_chacha8_rng_u64(porep_chacha8_rng *r)
{
    /* BlockRng::next_u64 pairs consecutive words (low first), also across a block boundary */
    uint64_t lo = chacha8_word(r);
    uint64_t hi = chacha8_word(r);
    return hi << 32 | lo;
}

void porep_chacha20_keystream(uint8_t *out, size_t len, const uint8_t key[32], const uint8_t nonce[12], uint64_t offset)
{
    uint32_t k[8], words[16];
    for (int i = 0; i < 8; i++) k[i] = load32(key + 4 * i);
    uint64_t block = offset / 64;
    size_t skip = (size_t)(offset % 64);
    while (len) {
        uint32_t iv[4] = {(uint32_t)block, load32(nonce), load32(nonce + 4), load32(nonce + 8)};
        porep_chacha_block(words, k, iv, 20);
        uint8_t bytes[64];
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 4; j++) bytes[4 * i + j] = (uint8_t)(words[i] >> (8 * j));
        size_t take = 64 - skip;
        if (take > len) take = len;
        memcpy(out, bytes + skip, take);
        out += take;
        len -= take;
        skip = 0;
        block++;
    }
}
