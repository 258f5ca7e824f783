/* Sealing small sectors and their C1: the all-zero 2 KiB comm_d of rust-fil-proofs, labels / encoding / trees
 * against direct recomputations, the C1 validated and verified for every challenge kind, API version and tree
 * shape, JSON and envelope round trips, the committed 2 KiB fixture, and rejections that name the field. */
#include <stdlib.h>
#include <string.h>

#include "circuits/hash/poseidon.h"
#include "circuits/hash/sha256.h"
#include "circuits/porep/challenges.h"
#include "circuits/porep/seal.h"
#include "testutil.h"
#include "formats/porep_c1.h"

static porep_dom *random_data(rng_t *rng, uint64_t n)
{
    porep_dom *d = malloc(n * sizeof *d);
    if (!d) return NULL;
    rng_bytes(rng, d, n * sizeof *d);
    for (uint64_t v = 0; v < n; v++) d[v][31] &= 0x3f;
    return d;
}

static void test_zero_comm_d(void)
{
    /* filecoin-proofs tests: compute_comm_d(SectorSize(2048), &[]) */
    static const uint8_t want[32] = {252, 126, 146, 130, 150, 229, 22, 250, 173, 233, 134, 178, 143, 146, 212, 74,
                                     79,  36,  185, 53,  72,  82,  35, 55,  106, 121, 144, 39,  188, 24,  248, 51};
    porep_seal_params p = {.geometry = porep_geometry_for_size(2048), .api = POREP_API_1_1};
    porep_sealed s;
    cuzk_error err;
    CHECK(porep_seal(&s, &p, &err) == CUZK_OK);
    CHECK(memcmp(s.comm_d, want, 32) == 0);
    porep_sealed_free(&s);
}

/* Label of node v in layer l from its explicit 1248-byte preimage. */
static void direct_label(const porep_sealed *s, unsigned layer, uint32_t v, porep_dom out)
{
    uint64_t n = s->geometry->nodes;
    uint8_t buf[64 + 37 * 32] = {0};
    memcpy(buf, s->replica_id, 32);
    buf[35] = (uint8_t)layer;
    for (int i = 0; i < 4; i++) buf[40 + i] = (uint8_t)(v >> (24 - 8 * i));
    uint32_t p[POREP_DEGREE];
    porep_graph_parents(&s->graph, v, p);
    for (int q = 0; q < 37; q++) {
        int j = layer == 1 ? q % 6 : q % 14;
        unsigned from = j < 6 ? layer : layer - 1;
        memcpy(buf + 64 + 32 * q, s->labels[(size_t)(from - 1) * n + p[j]], 32);
    }
    sha256_digest(buf, v ? sizeof buf : 64, out);
    out[31] &= 0x3f;
}

static void test_seal_internals(rng_t *rng)
{
    const porep_geometry *g = porep_geometry_for_size(2048);
    porep_dom *data = random_data(rng, g->nodes);
    CHECK(data != NULL);
    if (!data) return;
    porep_seal_params p = {.geometry = g, .api = POREP_API_1_1, .data = data, .sector_id = 7};
    rng_bytes(rng, p.porep_id, 32);
    rng_bytes(rng, p.prover_id, 32);
    porep_sealed s;
    cuzk_error err;
    CHECK(porep_seal(&s, &p, &err) == CUZK_OK);
    for (unsigned layer = 1; layer <= g->layers; layer++) {
        for (uint32_t v = 0; v < g->nodes; v++) {
            porep_dom want;
            direct_label(&s, layer, v, want);
            CHECK_MSG(memcmp(want, s.labels[(size_t)(layer - 1) * g->nodes + v], 32) == 0, "layer %u node %u", layer,
                      v);
        }
    }
    /* replica = last label + data; TreeR and TreeC roots by plain recursion over Fr */
    poseidon_constants p2, p8;
    CHECK(poseidon_constants_create(&p2, 2, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    CHECK(poseidon_constants_create(&p8, 8, POSEIDON_STANDARD, NULL, &err) == CUZK_OK);
    fr_t rep[64], col[64], a, b;
    for (unsigned v = 0; v < 64; v++) {
        CHECK(fr_from_bytes_le(&a, s.labels[64 + v]) == 0 && fr_from_bytes_le(&b, data[v]) == 0);
        fr_add(&rep[v], &a, &b);
        fr_t c2[2];
        fr_from_bytes_le(&c2[0], s.labels[v]);
        fr_from_bytes_le(&c2[1], s.labels[64 + v]);
        poseidon_hash(&p2, c2, &col[v]);
    }
    for (unsigned n = 64; n > 1; n /= 8)
        for (unsigned i = 0; i < n / 8; i++) {
            poseidon_hash(&p8, rep + 8 * i, &rep[i]);
            poseidon_hash(&p8, col + 8 * i, &col[i]);
        }
    fr_t cr[2] = {col[0], rep[0]}, r;
    poseidon_hash(&p2, cr, &r);
    uint8_t bytes[32];
    fr_to_bytes_le(bytes, &rep[0]);
    CHECK(memcmp(bytes, s.comm_r_last, 32) == 0);
    fr_to_bytes_le(bytes, &col[0]);
    CHECK(memcmp(bytes, s.comm_c, 32) == 0);
    fr_to_bytes_le(bytes, &r);
    CHECK(memcmp(bytes, s.comm_r, 32) == 0);
    uint8_t rid[32];
    porep_replica_id(rid, p.prover_id, 7, p.ticket, s.comm_d, p.porep_id);
    CHECK(memcmp(rid, s.replica_id, 32) == 0);
    poseidon_constants_free(&p2);
    poseidon_constants_free(&p8);
    porep_sealed_free(&s);
    /* data must be Fr32-padded */
    data[5][31] |= 0x40;
    CHECK(porep_seal(&s, &p, &err) == CUZK_ERR_INVALID_ARG);
    free(data);
}

/* Seal, build the C1 of type t, validate and verify it. */
static int sealed_c1(rng_t *rng, const porep_proof_type *t, porep_c1 *c1)
{
    const porep_geometry *g = porep_geometry_for_size(t->sector_size);
    porep_dom *data = random_data(rng, g->nodes);
    if (!data) return -1;
    porep_seal_params p = {.geometry = g, .api = t->api, .data = data, .sector_id = rng_next(rng)};
    porep_proof_type_porep_id(t, p.porep_id);
    rng_bytes(rng, p.prover_id, 32);
    rng_bytes(rng, p.ticket, 32);
    uint8_t seed[32];
    rng_bytes(rng, seed, 32);
    porep_sealed s;
    cuzk_error err;
    int ok = porep_seal(&s, &p, &err) == CUZK_OK;
    free(data);
    CHECK_MSG(ok, "%s: %s", t->name, err.msg);
    if (!ok) return -1;
    ok = porep_sealed_c1(c1, &s, t, seed, p.ticket, &err) == CUZK_OK;
    porep_sealed_free(&s);
    CHECK_MSG(ok, "%s: %s", t->name, err.msg);
    if (!ok) return -1;
    CHECK_MSG(porep_c1_validate(c1, &err) == CUZK_OK, "%s: %s", t->name, err.msg);
    CHECK_MSG(porep_c1_verify(c1, &err) == CUZK_OK, "%s: %s", t->name, err.msg);
    CHECK(c1->partitions == porep_partitions(g, t->kind) && c1->challenges == porep_challenges(g, t->kind));
    return 0;
}

static void test_kinds_and_shapes(rng_t *rng)
{
    static const char *const TYPES[] = {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1",
                                        "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                                        "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) {
        porep_c1 c1;
        if (sealed_c1(rng, porep_proof_type_by_name(TYPES[i]), &c1) == 0) porep_c1_free(&c1);
    }
    /* the unpublished shapes (8-2-0, 8-8-0, 8-8-2) have no registered proof: a local type with a made-up id */
    static const uint64_t SIZES[] = {4096, 16384, 32768};
    for (size_t i = 0; i < 3; i++) {
        porep_proof_type t = {"test", 100 + (unsigned)i, SIZES[i], POREP_API_1_1, POREP_INTERACTIVE};
        porep_c1 c1;
        if (sealed_c1(rng, &t, &c1) != 0) continue;
        char *json;
        size_t len;
        cuzk_error err;
        CHECK(porep_c1_to_json(&c1, &json, &len, &err) == CUZK_ERR_UNSUPPORTED);
        /* a sibling changed anywhere in a TreeC path breaks verification, not validation */
        porep_challenge_proof *p = porep_c1_proof(&c1, 0, 1);
        unsigned last = porep_tree_levels(c1.geometry) - 1, off = 0;
        for (unsigned l = 0; l < last; l++) off += porep_tree_level_arity(c1.geometry, l) - 1;
        p->exp[3].path.sibs[off][0] ^= 1;
        CHECK(porep_c1_validate(&c1, &err) == CUZK_OK);
        CHECK(porep_c1_verify(&c1, &err) == CUZK_ERR_INVALID_PROOF);
        porep_c1_free(&c1);
    }
}

/* Parse text expecting failure with status want and a message containing needle. */
static void expect_reject(const char *text, size_t len, cuzk_status want, const char *needle)
{
    porep_c1 c1;
    cuzk_error err = {0};
    cuzk_status st = porep_c1_parse(&c1, text, len, NULL, &err);
    CHECK_MSG(st == want, "got %s (%s), wanted %s", cuzk_status_name(st), err.msg, cuzk_status_name(want));
    if (st == CUZK_OK)
        porep_c1_free(&c1);
    else if (needle)
        CHECK_MSG(strstr(err.msg, needle) != NULL, "'%s' not in: %s", needle, err.msg);
}

/* Replaces the first occurrence of from (after offset at) with to. */
static char *edit(const char *text, size_t len, size_t at, const char *from, const char *to, size_t *outlen)
{
    const char *hit = NULL;
    size_t fl = strlen(from), tl = strlen(to);
    for (size_t i = at; i + fl <= len; i++)
        if (memcmp(text + i, from, fl) == 0) {
            hit = text + i;
            break;
        }
    if (!hit) return NULL;
    char *out = malloc(len - fl + tl + 1);
    if (!out) return NULL;
    size_t pre = (size_t)(hit - text);
    memcpy(out, text, pre);
    memcpy(out + pre, to, tl);
    memcpy(out + pre + tl, hit + fl, len - pre - fl);
    *outlen = len - fl + tl;
    out[*outlen] = 0;
    return out;
}

static size_t find(const char *text, size_t len, const char *what, unsigned nth)
{
    size_t wl = strlen(what);
    for (size_t i = 0; i + wl <= len; i++)
        if (memcmp(text + i, what, wl) == 0 && nth-- == 0) return i;
    return len;
}

static void test_json(rng_t *rng)
{
    porep_c1 c1;
    if (sealed_c1(rng, porep_proof_type_by_name("StackedDrg2KiBV1_1"), &c1) != 0) return;
    cuzk_error err;
    char *json = NULL, *env = NULL, *again = NULL;
    size_t len = 0, elen = 0, alen = 0;
    CHECK(porep_c1_to_json(&c1, &json, &len, &err) == CUZK_OK);
    CHECK(porep_c1_to_envelope(&c1, -42, &env, &elen, &err) == CUZK_OK);
    porep_c1_free(&c1);
    if (!json || !env) return;
    /* round trips: parse, write again, same bytes */
    int64_t num = 1;
    CHECK(porep_c1_parse(&c1, json, len, &num, &err) == CUZK_OK && num == 0);
    CHECK(porep_c1_verify(&c1, &err) == CUZK_OK);
    CHECK(porep_c1_to_json(&c1, &again, &alen, &err) == CUZK_OK && alen == len && memcmp(again, json, len) == 0);
    free(again);
    porep_c1_free(&c1);
    CHECK(porep_c1_parse(&c1, env, elen, &num, &err) == CUZK_OK && num == -42);
    CHECK(porep_c1_to_json(&c1, &again, &alen, &err) == CUZK_OK && alen == len && memcmp(again, json, len) == 0);
    free(again);
    porep_c1_free(&c1);
    /* whitespace and member order do not matter */
    char *spaced = malloc(len * 2 + 1);
    if (spaced) {
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
            spaced[o++] = json[i];
            if (json[i] == ',' || json[i] == ':') spaced[o++] = i % 3 ? ' ' : '\n';
        }
        CHECK(porep_c1_parse(&c1, spaced, o, NULL, &err) == CUZK_OK);
        porep_c1_free(&c1);
        free(spaced);
    }
    size_t tl, n2;
    size_t ticket = find(json, len, ",\"ticket\":", 0);
    char *moved = NULL;
    if (ticket < len) {
        /* move "ticket" to the front */
        moved = malloc(len + 2);
        if (moved) {
            tl = len - 1 - ticket - 1; /* "ticket":[...] without the comma and the final brace */
            moved[0] = '{';
            memcpy(moved + 1, json + ticket + 1, tl);
            moved[1 + tl] = ',';
            memcpy(moved + 2 + tl, json + 1, ticket - 1);
            n2 = 2 + tl + ticket - 1;
            moved[n2++] = '}';
            CHECK_MSG(porep_c1_parse(&c1, moved, n2, NULL, &err) == CUZK_OK, "%s", err.msg);
            porep_c1_free(&c1);
            free(moved);
        }
    }

    /* rejections, each naming where */
    size_t el;
    char *e;
    e = edit(json, len, find(json, len, "\"comm_r_last_proof\"", 1), "\"hashes\":[[", "\"hashes\":[[256,", &el);
    if (e)
        expect_reject(e, el, CUZK_ERR_FORMAT, "partition 0, challenge 1, comm_r_last_proof.data.Single.path.path[0]");
    free(e);
    e = edit(json, len, find(json, len, "\"drg_parents\"", 0), "\"index\":", "\"index\":1", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "drg_parents[0].column.index");
    free(e);
    e = edit(json, len, 0, "\"encoding_proof\":{", "\"encoding_proof\":{\"extra\":1,", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "encoding_proof");
    free(e);
    e = edit(json, len, 0, "\"layer_index\":1", "\"layer_index\":2", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "labeling_proofs[0].layer_index");
    free(e);
    e = edit(json, len, 0, "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "registered_proof");
    free(e);
    e = edit(json, len, 0, "\"Single\"", "\"Sub\"", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "needs \"Single\"");
    free(e);
    /* a different seed (written without validation): every challenge is now wrong */
    CHECK(porep_c1_parse(&c1, json, len, NULL, &err) == CUZK_OK);
    uint64_t before[POREP_MAX_CHALLENGES], after[POREP_MAX_CHALLENGES];
    porep_challenges_derive(before, c1.geometry, POREP_INTERACTIVE, c1.replica_id, c1.seed, c1.comm_r, 0);
    do {
        c1.seed[0]++;
        porep_challenges_derive(after, c1.geometry, POREP_INTERACTIVE, c1.replica_id, c1.seed, c1.comm_r, 0);
    } while (after[0] == before[0]);
    CHECK(porep_c1_to_json(&c1, &again, &alen, &err) == CUZK_OK);
    porep_c1_free(&c1);
    if (again) expect_reject(again, alen, CUZK_ERR_FORMAT, "partition 0, challenge 0: proves node");
    free(again);
    /* a label changed in the challenged column: only the hashing checks can see it */
    CHECK(porep_c1_parse(&c1, json, len, NULL, &err) == CUZK_OK);
    porep_c1_proof(&c1, 0, 0)->c_x.rows[1][3] ^= 4;
    CHECK(porep_c1_verify(&c1, &err) == CUZK_ERR_INVALID_PROOF && strstr(err.msg, "partition 0, challenge 0"));
    porep_c1_free(&c1);
    /* envelope problems */
    e = edit(env, elen, 0, "\"SectorSize\":2048", "\"SectorSize\":4096", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "SectorSize");
    free(e);
    e = edit(env, elen, 0, "\"Phase1Out\":\"ey", "\"Phase1Out\":\"e!", &el);
    if (e) expect_reject(e, el, CUZK_ERR_FORMAT, "base64");
    free(e);
    /* every truncation fails cleanly */
    for (size_t cut = 0; cut < len; cut += 1 + (size_t)(rng_next(rng) % 997)) {
        porep_c1 t;
        cuzk_status st = porep_c1_parse(&t, json, cut, NULL, &err);
        CHECK_MSG(st == CUZK_ERR_FORMAT, "cut at %zu: %s", cut, cuzk_status_name(st));
        if (st == CUZK_OK) porep_c1_free(&t);
    }
    free(json);
    free(env);
}

#include <time.h>

static void random_dom(rng_t *rng, porep_dom d)
{
    rng_bytes(rng, d, 32);
    d[31] &= 0x3f;
}

static void fake_path(rng_t *rng, porep_merkle_proof *p, const porep_geometry *g, uint64_t node, int tree_d,
                      const porep_dom root)
{
    unsigned levels = tree_d ? g->tree_d_levels : porep_tree_levels(g), off = 0;
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = tree_d ? 2 : porep_tree_level_arity(g, l);
        p->index[l] = (uint8_t)(node % a);
        node /= a;
        for (unsigned q = 0; q + 1 < a; q++) random_dom(rng, p->sibs[off++]);
    }
    random_dom(rng, p->leaf);
    memcpy(p->root, root, 32);
}

/* A 32 GiB C1 that passes validation (not verification): the size and shape of a production file, to check the
 * reader at scale and measure it. */
static void test_large(rng_t *rng)
{
    const porep_proof_type *t = porep_proof_type_by_name("StackedDrg32GiBV1_1");
    porep_c1 c1;
    cuzk_error err;
    CHECK(porep_c1_alloc(&c1, t, &err) == CUZK_OK);
    const porep_geometry *g = c1.geometry;
    random_dom(rng, c1.replica_id);
    random_dom(rng, c1.comm_d);
    random_dom(rng, c1.comm_r);
    rng_bytes(rng, c1.seed, 32);
    rng_bytes(rng, c1.ticket, 32);
    porep_dom comm_c, comm_r_last;
    random_dom(rng, comm_c);
    random_dom(rng, comm_r_last);
    uint8_t porep_id[32];
    porep_proof_type_porep_id(t, porep_id);
    porep_graph graph;
    CHECK(porep_graph_init(&graph, g->nodes, t->api, porep_id, &err) == CUZK_OK);
    for (unsigned k = 0; k < c1.partitions; k++) {
        uint64_t ch[POREP_MAX_CHALLENGES];
        porep_challenges_derive(ch, g, t->kind, c1.replica_id, c1.seed, c1.comm_r, k);
        for (unsigned i = 0; i < c1.challenges; i++) {
            porep_challenge_proof *p = porep_c1_proof(&c1, k, i);
            uint32_t par[POREP_DEGREE];
            porep_graph_parents(&graph, (uint32_t)ch[i], par);
            p->challenge = ch[i];
            fake_path(rng, &p->comm_d, g, ch[i], 1, c1.comm_d);
            fake_path(rng, &p->comm_r_last, g, ch[i], 0, comm_r_last);
            for (unsigned j = 0; j < 15; j++) {
                porep_column_proof *col = j == 0 ? &p->c_x : j < 7 ? &p->drg[j - 1] : &p->exp[j - 7];
                col->node = j == 0 ? (uint32_t)ch[i] : par[j - 1];
                for (unsigned l = 0; l < g->layers; l++) random_dom(rng, col->rows[l]);
                fake_path(rng, &col->path, g, col->node, 0, comm_c);
            }
            for (unsigned l = 1; l <= g->layers; l++)
                for (unsigned q = 0; q < 37; q++) {
                    unsigned j = l == 1 ? q % 6 : q % 14;
                    memcpy(p->labeling[37 * (l - 1) + q], j < 6 ? p->drg[j].rows[l - 1] : p->exp[j - 6].rows[l - 2],
                           32);
                }
            memcpy(p->encoding, p->labeling + 37 * (g->layers - 1), 37 * 32);
        }
    }
    CHECK_MSG(porep_c1_validate(&c1, &err) == CUZK_OK, "%s", err.msg);
    CHECK(porep_c1_verify(&c1, &err) == CUZK_ERR_INVALID_PROOF);
    char *env;
    size_t len;
    CHECK(porep_c1_to_envelope(&c1, 1, &env, &len, &err) == CUZK_OK);
    porep_c1_free(&c1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    int64_t num;
    CHECK_MSG(porep_c1_parse(&c1, env, len, &num, &err) == CUZK_OK, "%s", err.msg);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("32 GiB C1 envelope: %.1f MB parsed and validated in %.2f s CPU (%.0f MB/s)\n", (double)len / 1e6, s,
           (double)len / 1e6 / s);
    CHECK(num == 1 && c1.partitions == 10 && c1.challenges == 18);
    porep_c1_free(&c1);
    free(env);
}

static void test_fixture(void)
{
    /* tests/data/porep/c1-2kib.json: porep_seal_test_c1(StackedDrg2KiBV1_1, 1), as committed */
    const char *dir = getenv("CUZK_TEST_DATA");
    char path[512];
    snprintf(path, sizeof path, "%s/porep/c1-2kib.json", dir ? dir : "tests/data");
    size_t len;
    char *text = (char *)test_read_file(path, &len);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text) return;
    porep_c1 a, b;
    cuzk_error err;
    CHECK_MSG(porep_c1_read_file(&a, path, NULL, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(porep_c1_verify(&a, &err) == CUZK_OK, "%s", err.msg);
    fr_t in[3 + 2 * POREP_INPUTS_PER_CHALLENGE], v;
    CHECK(porep_c1_public_inputs(&a, 0, in, &err) == CUZK_OK);
    CHECK(porep_c1_public_inputs(&a, 1, in, &err) == CUZK_ERR_INVALID_ARG);
    for (unsigned i = 0; i < 2; i++) {
        fr_from_u64(&v, porep_c1_proof(&a, 0, i)->challenge);
        const fr_t *o = in + 3 + POREP_INPUTS_PER_CHALLENGE * i;
        CHECK(fr_eq(&o[0], &v) && fr_eq(&o[17], &v));
        fr_from_u64(&v, porep_c1_proof(&a, 0, i)->exp[7].node);
        CHECK(fr_eq(&in[3 + POREP_INPUTS_PER_CHALLENGE * i + 14], &v));
    }
    CHECK(porep_c1_read_file(&b, "/nonexistent/c1.json", NULL, &err) == CUZK_ERR_IO);
    CHECK(porep_seal_test_c1(&b, porep_proof_type_by_name("StackedDrg2KiBV1_1"), 1, &err) == CUZK_OK);
    char *json;
    size_t jl;
    CHECK(porep_c1_to_json(&b, &json, &jl, &err) == CUZK_OK);
    CHECK_MSG(jl == len && memcmp(json, text, len) == 0, "the fixture no longer matches porep_seal_test_c1");
    free(json);
    porep_c1_free(&a);
    porep_c1_free(&b);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-fixture") == 0) {
        /* regenerates the fixture: test_porep_seal --write-fixture tests/data/porep/c1-2kib.json */
        porep_c1 c1;
        cuzk_error err;
        char *json;
        size_t len;
        if (porep_seal_test_c1(&c1, porep_proof_type_by_name("StackedDrg2KiBV1_1"), 1, &err) != CUZK_OK ||
            porep_c1_to_json(&c1, &json, &len, &err) != CUZK_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        FILE *f = fopen(argv[2], "wb");
        if (!f || fwrite(json, 1, len, f) != len) return 1;
        fclose(f);
        free(json);
        porep_c1_free(&c1);
        return 0;
    }
    rng_t rng;
    test_seed(&rng, "test_porep_seal");
    test_zero_comm_d();
    test_seal_internals(&rng);
    test_kinds_and_shapes(&rng);
    test_json(&rng);
    test_fixture();
    test_large(&rng);
    return test_finish("test_porep_seal");
}
