/* BLAKE2s per RFC 7693 section 3 (32-bit words, 10 rounds, rotations 16, 12, 8, 7). */
#include "util/blake2s.h"

#include <string.h>

static const uint32_t IV[8] = {0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u, 0xA54FF53Au,
                               0x510E527Fu, 0x9B05688Cu, 0x1F83D9ABu, 0x5BE0CD19u};

static const uint8_t SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void mix(uint32_t v[16], int a, int b, int c, int d, uint32_t x, uint32_t y)
{
    v[a] = v[a] + v[b] + x;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 12);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr(v[d] ^ v[a], 8);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 7);
}

static void compress(blake2s_state *s, const uint8_t block[BLAKE2S_BLOCK_BYTES], int last)
{
    uint32_t v[16], m[16];
    for (int i = 0; i < 16; i++) m[i] = load32(block + 4 * i);
    for (int i = 0; i < 8; i++) v[i] = s->h[i], v[i + 8] = IV[i];
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 10; r++) {
        const uint8_t *z = SIGMA[r];
        mix(v, 0, 4, 8, 12, m[z[0]], m[z[1]]);
        mix(v, 1, 5, 9, 13, m[z[2]], m[z[3]]);
        mix(v, 2, 6, 10, 14, m[z[4]], m[z[5]]);
        mix(v, 3, 7, 11, 15, m[z[6]], m[z[7]]);
        mix(v, 0, 5, 10, 15, m[z[8]], m[z[9]]);
        mix(v, 1, 6, 11, 12, m[z[10]], m[z[11]]);
        mix(v, 2, 7, 8, 13, m[z[12]], m[z[13]]);
        mix(v, 3, 4, 9, 14, m[z[14]], m[z[15]]);
    }
    for (int i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
}

static void count(blake2s_state *s, size_t n)
{
    s->t[0] += (uint32_t)n;
    if (s->t[0] < (uint32_t)n) s->t[1]++;
}

void blake2s_init(blake2s_state *s, size_t out_len, const void *key, size_t key_len)
{
    if (out_len < 1 || out_len > BLAKE2S_MAX_OUT) out_len = BLAKE2S_MAX_OUT;
    if (!key || key_len > BLAKE2S_MAX_OUT) key_len = key ? BLAKE2S_MAX_OUT : 0;
    memset(s, 0, sizeof *s);
    memcpy(s->h, IV, sizeof IV);
    s->h[0] ^= 0x01010000u ^ (uint32_t)key_len << 8 ^ (uint32_t)out_len; /* depth 1, fanout 1 */
    s->out_len = out_len;
    if (key_len) {
        /* The key is the first block, zero-padded. */
        memcpy(s->buf, key, key_len);
        s->buf_len = BLAKE2S_BLOCK_BYTES;
    }
}

void blake2s_update(blake2s_state *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        /* The last block is compressed in final, so a full buffer waits until more input arrives. */
        if (s->buf_len == BLAKE2S_BLOCK_BYTES) {
            count(s, BLAKE2S_BLOCK_BYTES);
            compress(s, s->buf, 0);
            s->buf_len = 0;
        }
        size_t take = BLAKE2S_BLOCK_BYTES - s->buf_len;
        if (take > len) take = len;
        memcpy(s->buf + s->buf_len, p, take);
        s->buf_len += take;
        p += take;
        len -= take;
    }
}

void blake2s_final(blake2s_state *s, uint8_t *out)
{
    count(s, s->buf_len);
    memset(s->buf + s->buf_len, 0, BLAKE2S_BLOCK_BYTES - s->buf_len);
    compress(s, s->buf, 1);
    for (size_t i = 0; i < s->out_len; i++) out[i] = (uint8_t)(s->h[i / 4] >> (8 * (i % 4)));
}

void blake2s(uint8_t *out, size_t out_len, const void *key, size_t key_len, const void *data, size_t len)
{
    blake2s_state s;
    blake2s_init(&s, out_len, key, key_len);
    blake2s_update(&s, data, len);
    blake2s_final(&s, out);
}
