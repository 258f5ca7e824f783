#include "circuits/post/challenges.h"

#include <string.h>

#include "circuits/hash/sha256.h"

static void post_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t post_challenge_index(const post_proof_type *t, uint64_t sector_index, unsigned n)
{
    if (t->api == POREP_API_1_2) return n;
    return sector_index * t->challenges + n;
}

static uint64_t post_leaf_of(const uint8_t prefix[40], uint64_t index, uint64_t nodes)
{
    uint8_t buf[48], h[SHA256_DIGEST_BYTES];
    memcpy(buf, prefix, 40);
    post_put_u64(buf + 40, index);
    sha256_digest(buf, sizeof buf, h);
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = (x << 8) | h[i];
    return x % nodes;
}

uint64_t post_challenge_leaf(const post_proof_type *t, const uint8_t randomness[32], uint64_t sector_id,
                             uint64_t sector_index, unsigned n)
{
    uint8_t prefix[40];
    memcpy(prefix, randomness, 32);
    post_put_u64(prefix + 32, sector_id);
    return post_leaf_of(prefix, post_challenge_index(t, sector_index, n), t->sector_size / 32);
}

void post_challenge_leaves(const post_proof_type *t, const uint8_t randomness[32], uint64_t sector_id,
                           uint64_t sector_index, uint64_t *out)
{
    uint8_t prefix[40];
    memcpy(prefix, randomness, 32);
    post_put_u64(prefix + 32, sector_id);
    for (unsigned n = 0; n < t->challenges; n++)
        out[n] = post_leaf_of(prefix, post_challenge_index(t, sector_index, n), t->sector_size / 32);
}
