/* PoRep geometry, the PRFs (BLAKE2b, ChaCha8/20) against published vectors, the parent graph against the
 * parent-cache digests rust-fil-proofs publishes (storage-proofs-porep/parent_cache.json: 2 KiB and 8 MiB always,
 * 512 MiB with CUZK_SLOW_TESTS=1), and the labels against storage-proofs-porep tests/stacked_vanilla.rs
 * test_stacked_porep_generate_labels (11 layers). */
#include <stdlib.h>
#include <string.h>

#include "circuits/hash/sha256.h"
#include "circuits/porep/geometry.h"
#include "circuits/porep/graph.h"
#include "circuits/porep/hashing.h"
#include "circuits/porep/prf.h"
#include "testutil.h"

static int hex_eq(const uint8_t *b, size_t n, const char *hex)
{
    uint8_t want[128];
    if (n > sizeof want || hex_decode(want, n, hex) != 0) return 0;
    return memcmp(b, want, n) == 0;
}

static void test_geometry(void)
{
    size_t n;
    const porep_geometry *gs = porep_geometries(&n);
    CHECK(n == 10);
    unsigned published = 0;
    for (size_t i = 0; i < n; i++) {
        const porep_geometry *g = &gs[i];
        published += g->published != 0;
        CHECK(g->nodes * POREP_NODE_BYTES == g->sector_size);
        unsigned log2n = 0;
        while ((UINT64_C(1) << log2n) < g->nodes) log2n++;
        CHECK((UINT64_C(1) << log2n) == g->nodes);
        CHECK(g->tree_d_levels == log2n);
        /* the TreeR/TreeC levels must cover exactly the nodes: 8^base * sub * top */
        uint64_t covered = 1;
        for (unsigned l = 0; l < porep_tree_levels(g); l++) covered *= porep_tree_level_arity(g, l);
        CHECK_MSG(covered == g->nodes, "%s", g->name);
        CHECK(porep_tree_level_arity(g, porep_tree_levels(g)) == 0);
        /* canonical_shape: base trees of at most 2^27 leaves */
        CHECK(g->nodes / porep_base_tree_count(g) <= (UINT64_C(1) << 27));
        /* challenges = ceil(min_challenges / partitions) */
        unsigned min = g->layers == 11 ? 176 : 2, ni_min = g->layers == 11 ? 2253 : 26;
        CHECK(g->challenges == (min + g->partitions - 1) / g->partitions);
        CHECK(g->ni_challenges == (ni_min + g->ni_partitions - 1) / g->ni_partitions);
        CHECK(g->challenges <= POREP_MAX_CHALLENGES && g->ni_partitions <= POREP_MAX_PARTITIONS);
        CHECK((porep_vanilla_variant(g) != NULL) == (g->published != 0));
        const porep_geometry *back = NULL;
        cuzk_error err;
        CHECK(porep_geometry_parse(g->name, &back, &err) == CUZK_OK && back == g);
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)g->sector_size);
        CHECK(porep_geometry_parse(num, &back, &err) == CUZK_OK && back == g);
    }
    CHECK(published == 5);
    const porep_geometry *g = NULL;
    cuzk_error err;
    CHECK(porep_geometry_parse("32gib", &g, &err) == CUZK_OK && g->layers == 11 && g->partitions == 10);
    CHECK(porep_tree_levels(g) == 10 && porep_tree_level_arity(g, 9) == 8);
    CHECK(porep_geometry_parse("64GiB", &g, &err) == CUZK_OK && porep_tree_levels(g) == 11);
    CHECK(porep_tree_level_arity(g, 10) == 2 && porep_base_tree_count(g) == 16);
    CHECK(porep_geometry_parse("3KiB", &g, &err) == CUZK_ERR_INVALID_ARG && g == NULL);
    CHECK(porep_geometry_parse("", &g, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(porep_geometry_parse("99999999999999999999999", &g, &err) == CUZK_ERR_INVALID_ARG);

    size_t np;
    const porep_proof_type *pts = porep_proof_types(&np);
    CHECK(np == 20);
    for (size_t i = 0; i < np; i++) {
        CHECK(pts[i].id < 20);
        CHECK(porep_proof_type_by_name(pts[i].name) == &pts[i]);
        CHECK(porep_proof_type_find(pts[i].sector_size, pts[i].api, pts[i].kind) == &pts[i]);
        CHECK(porep_geometry_for_size(pts[i].sector_size)->published);
        for (size_t j = 0; j < i; j++) CHECK(pts[i].id != pts[j].id);
    }
    const porep_proof_type *t = porep_proof_type_by_name("StackedDrg32GiBV1_1");
    uint8_t id[32];
    porep_proof_type_porep_id(t, id);
    CHECK(id[0] == 8 && id[1] == 0 && t->api == POREP_API_1_1 && t->kind == POREP_INTERACTIVE);
    t = porep_proof_type_by_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
    CHECK(t && t->id == 15 && t->api == POREP_API_1_2 && t->kind == POREP_NON_INTERACTIVE);
    CHECK(porep_proof_type_by_name("StackedDrg4KiBV1") == NULL);
}

static void test_prf(rng_t *rng)
{
    uint8_t out[64];
    porep_blake2b(out, 64, "abc", 3); /* RFC 7693 appendix A */
    CHECK(hex_eq(out, 64,
                 "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc95"
                 "18d38aa8dbf1925ab92386edd4009923"));
    uint8_t key[64];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)i;
    porep_blake2b_state s;
    porep_blake2b_init(&s, 64, key, 64); /* BLAKE2 blake2b-kat.txt, keyed, empty input */
    porep_blake2b_final(&s, out);
    CHECK(hex_eq(out, 64,
                 "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2f"
                 "f4233499391653df7aefcbc13fc51568"));
    /* incremental updates in random pieces give the one-shot digest, across block boundaries */
    uint8_t msg[700], whole[32], pieces[32];
    rng_bytes(rng, msg, sizeof msg);
    porep_blake2b(whole, 32, msg, sizeof msg);
    porep_blake2b_init(&s, 32, NULL, 0);
    for (size_t off = 0; off < sizeof msg;) {
        size_t take = (size_t)(rng_next(rng) % 200);
        if (take > sizeof msg - off) take = sizeof msg - off;
        porep_blake2b_update(&s, msg + off, take);
        off += take;
    }
    porep_blake2b_final(&s, pieces);
    CHECK(memcmp(whole, pieces, 32) == 0);

    /* ChaCha8 and ChaCha20, all-zero key and IV (draft-strombergson-chacha-test-vectors TC1): the RNG's u64s are
     * keystream words paired low first */
    static const uint8_t zero[32];
    porep_chacha8_rng r;
    porep_chacha8_rng_seed(&r, zero);
    uint8_t ks[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = porep_chacha8_rng_u64(&r);
        for (int j = 0; j < 8; j++) ks[8 * i + j] = (uint8_t)(v >> (8 * j));
    }
    CHECK(hex_eq(ks, 64,
                 "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619"
                 "314a42a3da86b001387bfdb80e0cfe42"));
    /* the next block continues the stream (counter 1) */
    uint64_t v9 = porep_chacha8_rng_u64(&r);
    CHECK((uint8_t)v9 == 0xd2 && (uint8_t)(v9 >> 8) == 0xae);
    uint8_t nonce0[12] = {0};
    porep_chacha20_keystream(ks, 64, zero, nonce0, 0);
    CHECK(hex_eq(ks, 64,
                 "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a37"
                 "6a43b8f41518a11cc387b669b2ee6586"));
    /* RFC 7539 2.3.2: key 00..1f, nonce 000000090000004a00000000, block counter 1 */
    uint8_t k2[32], n2[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
    for (int i = 0; i < 32; i++) k2[i] = (uint8_t)i;
    uint8_t b2[80];
    porep_chacha20_keystream(b2, 80, k2, n2, 64 - 16);
    CHECK(hex_eq(b2 + 16, 64,
                 "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2"
                 "b5129cd1de164eb9cbd083e8a2503c4e"));
    uint8_t b3[64];
    porep_chacha20_keystream(b3, 64, k2, n2, 64);
    CHECK(memcmp(b3, b2 + 16, 64) == 0);
}

static void identifier_digest(const porep_graph *g, uint8_t out[32])
{
    /* cache.rs cache_path: SHA256(H::name() || graph.identifier() || feistel keys LE || cache_entries u32 LE) */
    char id[256];
    snprintf(id, sizeof id,
             "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %llu; degree: "
             "6; hasher: poseidon_hasher} }",
             (unsigned long long)g->nodes);
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, "poseidon_hasher", 15);
    sha256_update(&c, id, strlen(id));
    for (int k = 0; k < 4; k++) {
        uint8_t b[8];
        for (int j = 0; j < 8; j++) b[j] = (uint8_t)(g->feistel_keys[k] >> (8 * j));
        sha256_update(&c, b, 8);
    }
    uint8_t e[4] = {(uint8_t)g->nodes, (uint8_t)(g->nodes >> 8), (uint8_t)(g->nodes >> 16), (uint8_t)(g->nodes >> 24)};
    sha256_update(&c, e, 4);
    sha256_final(&c, out);
}

/* storage-proofs-porep/parent_cache.json (rust-fil-proofs 87348a7): cache file name digest -> content digest. */
static const struct {
    const char *name, *digest;
} PARENT_CACHES[] = {
    {"21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117",
     "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
    {"2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
     "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"},
    {"3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
     "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
    {"4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b",
     "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
    {"494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
     "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    {"5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    {"7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
     "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
    {"8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6",
     "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"},
    {"dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
    {"e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13",
     "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"},
};

/* The manifest entry whose file name this graph produces must exist (this checks porep_id, the Feistel keys and
 * the identifier strings) and the whole parent cache must hash to its digest (this checks every parent). */
static void test_parent_cache(const char *proof, const char *expect_name)
{
    const porep_proof_type *t = porep_proof_type_by_name(proof);
    CHECK(t != NULL);
    if (!t) return;
    uint8_t id[32], d[32];
    porep_proof_type_porep_id(t, id);
    porep_graph g;
    cuzk_error err;
    CHECK(porep_graph_init(&g, t->sector_size / 32, t->api, id, &err) == CUZK_OK);
    identifier_digest(&g, d);
    const char *digest = NULL;
    for (size_t i = 0; i < sizeof PARENT_CACHES / sizeof PARENT_CACHES[0]; i++)
        if (hex_eq(d, 32, PARENT_CACHES[i].name)) digest = PARENT_CACHES[i].digest;
    CHECK_MSG(digest != NULL && hex_eq(d, 32, expect_name), "%s: cache file name", proof);
    if (!digest) return;
    porep_graph_cache_digest(&g, d);
    char got[65];
    hex_encode(got, d, 32);
    CHECK_MSG(hex_eq(d, 32, digest), "%s: parent cache digest %s", proof, got);
}

static void test_graph_structure(rng_t *rng)
{
    cuzk_error err;
    for (int api = 0; api <= 2; api++) {
        uint8_t porep_id[32];
        rng_bytes(rng, porep_id, 32);
        porep_graph g;
        uint64_t nodes = 1 << 10;
        CHECK(porep_graph_init(&g, nodes, (porep_api)api, porep_id, &err) == CUZK_OK);
        uint32_t p[POREP_DEGREE];
        porep_graph_parents(&g, 0, p);
        for (int i = 0; i < POREP_DRG_DEGREE; i++) CHECK(p[i] == 0);
        porep_graph_parents(&g, 1, p);
        for (int i = 0; i < POREP_DRG_DEGREE; i++) CHECK(p[i] == 0);
        unsigned char *hit = calloc(nodes * 8, 1);
        CHECK(hit != NULL);
        if (!hit) return;
        uint64_t late = 0;
        for (uint32_t v = 0; v < nodes; v++) {
            porep_graph_parents(&g, v, p);
            if (v >= 2) {
                CHECK(p[api == 0 ? 5 : 0] == v - 1);
                for (int i = 0; i < POREP_DRG_DEGREE; i++) CHECK(p[i] < v);
            }
            for (int i = 0; i < POREP_EXP_DEGREE; i++) {
                CHECK(p[POREP_DRG_DEGREE + i] < nodes);
                late += p[POREP_DRG_DEGREE + i] >= nodes / 2;
            }
            /* the expander edges come from a permutation of [0, 8n) */
            for (unsigned i = 0; i < 8; i++) {
                uint64_t t = porep_feistel_permute(&g, nodes * 8, (uint64_t)v * 8 + i);
                CHECK(t < nodes * 8);
                if (t < nodes * 8) {
                    CHECK(!hit[t]);
                    hit[t] = 1;
                }
                CHECK(porep_feistel_invert(&g, nodes * 8, t) == (uint64_t)v * 8 + i);
            }
        }
        free(hit);
        CHECK(late > nodes * 8 / 4); /* parents reach the second half of the previous layer */
    }
    porep_graph g;
    uint8_t seed[28] = {0};
    uint64_t keys[4] = {1, 2, 3, 4};
    CHECK(porep_graph_init_seeds(&g, 1, POREP_API_1_1, seed, keys, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(porep_graph_init_seeds(&g, UINT64_C(1) << 32, POREP_API_1_1, seed, keys, &err) == CUZK_ERR_INVALID_ARG);
}

static __attribute__((unused)) void test_parent_cache_8m(void)
{
    test_parent_cache("StackedDrg8MiBV1", "dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc");
    test_parent_cache("StackedDrg8MiBV1_1", "5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5");
}

/* tests/stacked_vanilla.rs test_stacked_porep_generate_labels: replica_id [9; 32], 11 layers, the label of node
 * nodes - 1 in the last layer, as Fr::from_u64s_le limbs. The 37 parents of a label are rust-fil-proofs'
 * create_label rule: the 6 DRG parents (this layer) and, from layer 2, the 8 expander parents (previous layer), cycled
 * to 37. This checks porep_label and porep_graph_parents over many layers (the sealing code uses 2 or 11). */
static void test_labels_kat(void)
{
    static const struct {
        uint64_t nodes;
        unsigned porep_byte;
        porep_api api;
        uint64_t want[4];
    } cases[] = {
        {64,
         0,
         POREP_API_1_0,
         {0xd3faa96b9a0fba04ull, 0xea81a283d106485eull, 0xe3d51b9afa5ac2b3ull, 0x0462f4f4f1a68d37ull}},
        {128,
         0,
         POREP_API_1_0,
         {0x7e191e52c4a8da86ull, 0x5ae8a1c9e6fac148ull, 0xce239f3b88a894b8ull, 0x234c00d1dc1d53beull}},
        {64,
         123,
         POREP_API_1_1,
         {0xabb3f38bb70defcfull, 0x777a2e4d7769119full, 0x3448959d495490bcull, 0x06021188c7a71cb5ull}},
        {128,
         123,
         POREP_API_1_1,
         {0x22ab81cf68c4676dull, 0x7a77a82fc7c9c189ull, 0xc6c03d32c1e42d23ull, 0x0f777c18cc2c55bdull}},
        {64,
         123,
         POREP_API_1_2,
         {0xabb3f38bb70defcfull, 0x777a2e4d7769119full, 0x3448959d495490bcull, 0x06021188c7a71cb5ull}},
        {128,
         123,
         POREP_API_1_2,
         {0x22ab81cf68c4676dull, 0x7a77a82fc7c9c189ull, 0xc6c03d32c1e42d23ull, 0x0f777c18cc2c55bdull}},
    };
    enum { LAYERS = 11 };
    cuzk_error err;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint64_t n = cases[k].nodes;
        uint8_t porep_id[32];
        memset(porep_id, (int)cases[k].porep_byte, 32);
        porep_graph g;
        CHECK(porep_graph_init(&g, n, cases[k].api, porep_id, &err) == CUZK_OK);
        porep_dom replica_id, *labels = malloc((size_t)LAYERS * n * sizeof(porep_dom)), par[POREP_LABEL_PARENTS];
        memset(replica_id, 9, 32);
        for (unsigned layer = 1; layer <= LAYERS; layer++) {
            porep_dom *cur = labels + (size_t)(layer - 1) * n, *prev = cur - n;
            for (uint64_t v = 0; v < n; v++) {
                if (v == 0) {
                    porep_label(cur[0], replica_id, layer, 0, NULL);
                    continue;
                }
                uint32_t pa[POREP_DEGREE];
                porep_graph_parents(&g, (uint32_t)v, pa);
                unsigned deg = layer == 1 ? POREP_DRG_DEGREE : POREP_DEGREE;
                for (unsigned q = 0; q < POREP_LABEL_PARENTS; q++) {
                    unsigned j = q % deg;
                    memcpy(par[q], j < POREP_DRG_DEGREE ? cur[pa[j]] : prev[pa[j]], 32);
                }
                porep_label(cur[v], replica_id, layer, v, par);
            }
        }
        uint8_t want[32];
        for (int i = 0; i < 32; i++) want[i] = (uint8_t)(cases[k].want[i / 8] >> (8 * (i % 8)));
        CHECK_MSG(memcmp(labels[(size_t)LAYERS * n - 1], want, 32) == 0,
                  "labels KAT %llu nodes, porep_id [%u; 32], api %d: last label differs", (unsigned long long)n,
                  cases[k].porep_byte, (int)cases[k].api);
        free(labels);
    }
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_porep_graph");
    test_geometry();
    test_prf(&rng);
    test_graph_structure(&rng);
    test_labels_kat();
    /* 2 KiB, API 1.0 and 1.1 (porep_id 0 and 5) */
    test_parent_cache("StackedDrg2KiBV1", "3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899");
    test_parent_cache("StackedDrg2KiBV1_1", "494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b");
    /* 8 MiB (2^18 nodes: seconds, minutes under the sanitizers), both API versions. */
#if defined(__SANITIZE_ADDRESS__)
    printf("test_porep_graph: 8 MiB parent cache skipped under AddressSanitizer\n");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    printf("test_porep_graph: 8 MiB parent cache skipped under AddressSanitizer\n");
#else
    test_parent_cache_8m();
#endif
#else
    test_parent_cache_8m();
#endif
    /* 512 MiB: 2^24 nodes, about 7 minutes of CPU for the two. */
    if (getenv("CUZK_SLOW_TESTS") && strcmp(getenv("CUZK_SLOW_TESTS"), "1") == 0) {
        test_parent_cache("StackedDrg512MiBV1", "2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42");
        test_parent_cache("StackedDrg512MiBV1_1", "7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34");
    } else
        printf("test_porep_graph: 512 MiB parent caches skipped (minutes; CUZK_SLOW_TESTS=1 runs them)\n");
    return test_finish("test_porep_graph");
}
