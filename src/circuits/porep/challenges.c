#include "circuits/porep/challenges.h"

#include <string.h>

#include "circuits/hash/sha256.h"
#include "circuits/porep/prf.h"

uint64_t porep_challenge_from_bytes(const uint8_t x[32], uint64_t nodes)
{
    uint64_t m = nodes - 1;
    unsigned __int128 r = 0;
    for (int i = 31; i >= 0; i--) r = ((r << 8) | x[i]) % m;
    return (uint64_t)r + 1;
}

static void u32le(uint8_t out[4], uint32_t v)
{
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(v >> (8 * i));
}

void porep_challenges_interactive(uint64_t *out, unsigned count, uint64_t nodes, const uint8_t replica_id[32],
                                  const uint8_t seed[32], unsigned k)
{
    for (unsigned i = 0; i < count; i++) {
        uint8_t j[4], h[32];
        u32le(j, (uint32_t)(count * k + i));
        sha256_ctx c;
        sha256_init(&c);
        sha256_update(&c, replica_id, 32);
        sha256_update(&c, seed, 32);
        sha256_update(&c, j, 4);
        sha256_final(&c, h);
        out[i] = porep_challenge_from_bytes(h, nodes);
    }
}

void porep_challenges_ni(uint64_t *out, unsigned count, uint64_t nodes, const uint8_t replica_id[32],
                         const uint8_t comm_r[32], unsigned k)
{
    static const char TAG[] = "filecoin.io|PoRep|1|NonInteractive|1";
    for (unsigned i = 0; i < count; i++) {
        uint8_t j[4], h[32];
        u32le(j, (uint32_t)(count * k + i));
        sha256_ctx c;
        sha256_init(&c);
        sha256_update(&c, TAG, sizeof TAG - 1);
        sha256_update(&c, replica_id, 32);
        sha256_update(&c, comm_r, 32);
        sha256_update(&c, j, 4);
        sha256_final(&c, h);
        out[i] = porep_challenge_from_bytes(h, nodes);
    }
}

static const uint8_t SYNTH_NONCE[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

static void synth_key(uint8_t key[32], const char *tag, const uint8_t a[32], const uint8_t b[32])
{
    porep_blake2b_state s;
    porep_blake2b_init(&s, 32, tag, strlen(tag));
    porep_blake2b_update(&s, a, 32);
    porep_blake2b_update(&s, b, 32);
    porep_blake2b_final(&s, key);
}

uint64_t porep_synth_challenge_count(uint64_t nodes)
{
    uint64_t d = UINT64_C(1) << 18; /* DEFAULT_SYNTH_CHALLENGE_COUNT */
    return nodes < d ? nodes : d;
}

uint64_t porep_synth_challenge(uint64_t nodes, const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t i)
{
    uint8_t key[32], x[32];
    synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
    porep_chacha20_keystream(x, 32, key, SYNTH_NONCE, i * 32);
    return porep_challenge_from_bytes(x, nodes);
}

void porep_synth_indexes(uint64_t *out, unsigned count, uint64_t num_synth, const uint8_t replica_id[32],
                         const uint8_t seed[32], unsigned k)
{
    uint8_t key[32], b[4];
    synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
    for (unsigned i = 0; i < count; i++) {
        porep_chacha20_keystream(b, 4, key, SYNTH_NONCE, ((uint64_t)k * count + i) * 4);
        uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        out[i] = v % num_synth;
    }
}

void porep_challenges_synth(uint64_t *out, unsigned count, uint64_t nodes, uint64_t num_synth,
                            const uint8_t replica_id[32], const uint8_t comm_r[32], const uint8_t seed[32], unsigned k)
{
    if (num_synth == 0) num_synth = porep_synth_challenge_count(nodes);
    porep_synth_indexes(out, count, num_synth, replica_id, seed, k);
    for (unsigned i = 0; i < count; i++) out[i] = porep_synth_challenge(nodes, replica_id, comm_r, out[i]);
}

void porep_challenges_derive(uint64_t *out, const porep_geometry *g, porep_kind kind, const uint8_t replica_id[32],
                             const uint8_t seed[32], const uint8_t comm_r[32], unsigned k)
{
    unsigned count = porep_challenges(g, kind);
    switch (kind) {
    case POREP_INTERACTIVE: porep_challenges_interactive(out, count, g->nodes, replica_id, seed, k); break;
    case POREP_SYNTHETIC: porep_challenges_synth(out, count, g->nodes, 0, replica_id, comm_r, seed, k); break;
    case POREP_NON_INTERACTIVE: porep_challenges_ni(out, count, g->nodes, replica_id, comm_r, k); break;
    }
}

void porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                      const uint8_t comm_d[32], const uint8_t porep_id[32])
{
    uint8_t sid[8];
    for (int i = 0; i < 8; i++) sid[i] = (uint8_t)(sector_id >> (56 - 8 * i));
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, prover_id, 32);
    sha256_update(&c, sid, 8);
    sha256_update(&c, ticket, 32);
    sha256_update(&c, comm_d, 32);
    sha256_update(&c, porep_id, 32);
    sha256_final(&c, out);
    sha256_trim_fr32(out);
}

cuzk_status porep_public_inputs(fr_t *out, const porep_graph *graph, const uint64_t *challenges, unsigned count,
                                const uint8_t replica_id[32], const uint8_t comm_d[32], const uint8_t comm_r[32],
                                cuzk_error *err)
{
    if (fr_from_bytes_le(&out[0], replica_id) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "porep public inputs: replica_id is not below r");
    if (fr_from_bytes_le(&out[1], comm_d) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "porep public inputs: comm_d is not below r");
    if (fr_from_bytes_le(&out[2], comm_r) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "porep public inputs: comm_r is not below r");
    fr_t *o = out + 3;
    for (unsigned i = 0; i < count; i++) {
        uint64_t c = challenges[i];
        if (c >= graph->nodes)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep public inputs: challenge %u = %llu >= %llu nodes",
                                  i, (unsigned long long)c, (unsigned long long)graph->nodes);
        uint32_t p[POREP_DEGREE];
        porep_graph_parents(graph, (uint32_t)c, p);
        fr_from_u64(o++, c);
        for (int j = 0; j < POREP_DEGREE; j++) fr_from_u64(o++, p[j]);
        fr_from_u64(o++, c);
        fr_from_u64(o++, c);
        fr_from_u64(o++, c);
    }
    return CUZK_OK;
}
