#include "circuits/porep/graph.h"

#include <string.h>

#include "circuits/hash/sha256.h"
#include "circuits/porep/prf.h"

cuzk_status porep_graph_init_seeds(porep_graph *g, uint64_t nodes, porep_api api, const uint8_t drg_seed[28],
                                   const uint64_t feistel_keys[4], cuzk_error *err)
{
    memset(g, 0, sizeof *g);
    /* StackedGraph::new requires nodes <= u32::MAX; BucketGraph needs node-1 for node >= 2 */
    if (nodes < 2 || nodes > UINT32_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep graph: %llu nodes outside [2, 2^32 - 1]",
                              (unsigned long long)nodes);
    if (api != POREP_API_1_0 && api != POREP_API_1_1 && api != POREP_API_1_2)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "porep graph: unknown API version %d", (int)api);
    g->nodes = nodes;
    g->api = api;
    memcpy(g->drg_seed, drg_seed, 28);
    memcpy(g->feistel_keys, feistel_keys, sizeof g->feistel_keys);
    /* feistel::precompute: the smallest power of 4 >= n elements, split into two halves of equal width */
    uint64_t n = nodes * POREP_EXP_DEGREE, pow4 = 4;
    unsigned log4 = 1;
    while (pow4 < n) {
        pow4 *= 4;
        log4++;
    }
    g->feistel_half_bits = log4;
    g->feistel_right_mask = (UINT64_C(1) << log4) - 1;
    g->feistel_left_mask = g->feistel_right_mask << log4;
    return CUZK_OK;
}

static void domain_seed(uint8_t out[32], const char *tag, const uint8_t porep_id[32])
{
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, tag, strlen(tag));
    sha256_update(&c, porep_id, 32);
    sha256_final(&c, out);
}

cuzk_status porep_graph_init(porep_graph *g, uint64_t nodes, porep_api api, const uint8_t porep_id[32], cuzk_error *err)
{
    uint8_t drg[32], fk[32];
    uint64_t keys[4];
    domain_seed(drg, "Filecoin_DRSample", porep_id);
    domain_seed(fk, "Filecoin_Feistel", porep_id);
    for (int k = 0; k < 4; k++) {
        keys[k] = 0;
        for (int i = 7; i >= 0; i--) keys[k] = keys[k] << 8 | fk[8 * k + i];
    }
    return porep_graph_init_seeds(g, nodes, api, drg, keys, err);
}

static unsigned ceil_log2(uint64_t x)
{
    unsigned k = 0;
    while (k < 64 && (UINT64_C(1) << k) < x) k++;
    return k;
}

void porep_graph_drg_parents(const porep_graph *g, uint32_t node, uint32_t parents[POREP_DRG_DEGREE])
{
    if (node < 2) {
        for (int i = 0; i < POREP_DRG_DEGREE; i++) parents[i] = 0;
        return;
    }
    uint8_t seed[32];
    memcpy(seed, g->drg_seed, 28);
    for (int i = 0; i < 4; i++) seed[28 + i] = (uint8_t)(node >> (8 * i));
    porep_chacha8_rng rng;
    porep_chacha8_rng_seed(&rng, seed);

    const uint64_t m_prime = POREP_DRG_DEGREE - 1;
    uint64_t meta = (uint64_t)node * m_prime;
    /* (meta as f64).log2().ceil(): meta < 2^35 is exact in f64 and never rounds onto an integer */
    uint64_t n_buckets = ceil_log2(meta);
    unsigned pred = g->api == POREP_API_1_0 ? POREP_DRG_DEGREE - 1 : 0;
    unsigned first = g->api == POREP_API_1_0 ? 0 : 1;
    for (unsigned k = 0; k < m_prime; k++) {
        uint64_t bucket = porep_chacha8_rng_u64(&rng) % n_buckets + 1;
        uint64_t largest = (UINT64_C(1) << bucket) < meta ? (UINT64_C(1) << bucket) : meta;
        uint64_t smallest = (largest >> 1) > 2 ? (largest >> 1) : 2;
        uint64_t distances = largest - smallest + 1;
        uint64_t distance = smallest + porep_chacha8_rng_u64(&rng) % distances;
        uint32_t mapped = (uint32_t)((meta - distance) / m_prime);
        parents[first + k] = mapped == node ? node - 1 : mapped;
    }
    parents[pred] = node - 1;
}

static uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t mask)
{
    uint8_t data[16], h[64];
    for (int i = 0; i < 8; i++) {
        data[i] = (uint8_t)(right >> (56 - 8 * i));
        data[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    porep_blake2b(h, 64, data, 16);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) r = r << 8 | h[i];
    return r & mask;
}

static uint64_t feistel_encode(const porep_graph *g, uint64_t index)
{
    uint64_t left = (index & g->feistel_left_mask) >> g->feistel_half_bits;
    uint64_t right = index & g->feistel_right_mask;
    for (int r = 0; r < 3; r++) {
        uint64_t l = right;
        right = left ^ feistel_round(right, g->feistel_keys[r], g->feistel_right_mask);
        left = l;
    }
    return left << g->feistel_half_bits | right;
}

static uint64_t feistel_decode(const porep_graph *g, uint64_t index)
{
    uint64_t left = (index & g->feistel_left_mask) >> g->feistel_half_bits;
    uint64_t right = index & g->feistel_right_mask;
    for (int r = 2; r >= 0; r--) {
        uint64_t l = right ^ feistel_round(left, g->feistel_keys[r], g->feistel_right_mask);
        right = left;
        left = l;
    }
    return left << g->feistel_half_bits | right;
}

uint64_t porep_feistel_permute(const porep_graph *g, uint64_t n, uint64_t index)
{
    /* cycle-walking: the network permutes a power-of-4 domain, so repeat until inside [0, n) */
    uint64_t u = feistel_encode(g, index);
    while (u >= n) u = feistel_encode(g, u);
    return u;
}

uint64_t porep_feistel_invert(const porep_graph *g, uint64_t n, uint64_t index)
{
    uint64_t u = feistel_decode(g, index);
    while (u >= n) u = feistel_decode(g, u);
    return u;
}

void porep_graph_exp_parents(const porep_graph *g, uint32_t node, uint32_t parents[POREP_EXP_DEGREE])
{
    uint64_t n = g->nodes * POREP_EXP_DEGREE;
    for (unsigned i = 0; i < POREP_EXP_DEGREE; i++) {
        uint64_t t = porep_feistel_permute(g, n, (uint64_t)node * POREP_EXP_DEGREE + i);
        /* API 1.0 truncated the permuted index to u32 before dividing (the 64 GiB "pathology") */
        parents[i] = g->api == POREP_API_1_0 ? (uint32_t)t / POREP_EXP_DEGREE : (uint32_t)(t / POREP_EXP_DEGREE);
    }
}

void porep_graph_parents(const porep_graph *g, uint32_t node, uint32_t parents[POREP_DEGREE])
{
    porep_graph_drg_parents(g, node, parents);
    porep_graph_exp_parents(g, node, parents + POREP_DRG_DEGREE);
}

void porep_graph_cache_digest(const porep_graph *g, uint8_t digest[32])
{
    sha256_ctx c;
    sha256_init(&c);
    for (uint64_t v = 0; v < g->nodes; v++) {
        uint32_t p[POREP_DEGREE];
        uint8_t bytes[4 * POREP_DEGREE];
        porep_graph_parents(g, (uint32_t)v, p);
        for (int i = 0; i < POREP_DEGREE; i++)
            for (int j = 0; j < 4; j++) bytes[4 * i + j] = (uint8_t)(p[i] >> (8 * j));
        sha256_update(&c, bytes, sizeof bytes);
    }
    sha256_final(&c, digest);
}
