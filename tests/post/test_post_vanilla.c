/* PoSt vanilla proofs: the registered proof table, the leaf challenges against a direct SHA-256, a hand-built
 * bincode string decoded field by field, decode/encode round trips of every path shape, every truncation and
 * single-bit flip of an encoding rejected with a message or decoded to what the flipped bytes say, rejections
 * that name the sector, proof, level and field, the JSON file form, vanilla proofs of a sealed 2 KiB sector
 * (paths from the rebuilt TreeR, leaves the replica's nodes at the derived challenges) and synthetic 32 / 64 GiB
 * ones, checked by post_vanilla_verify and by hashing here with poseidon.h. */
#include <stdlib.h>
#include <string.h>

#include "circuits/hash/poseidon.h"
#include "circuits/hash/sha256.h"
#include "circuits/porep/seal.h"
#include "circuits/post/challenges.h"
#include "formats/post_vanilla.h"
#include "formats/post_vanilla_gen.h"
#include "formats/sector_dir.h"
#include "testutil.h"

static void random_fe(rng_t *rng, porep_dom x)
{
    rng_bytes(rng, x, 32);
    x[31] &= 0x3f;
}

/* A decoded-form value with random contents (structurally valid, not a valid proof). */
static int random_vanilla(post_vanilla *v, const post_proof_type *t, size_t count, rng_t *rng)
{
    cuzk_error err;
    if (post_vanilla_alloc(v, t, count, &err) != CUZK_OK) return -1;
    const post_vanilla_shape *sh = &v->shape;
    for (size_t k = 0; k < count; k++) {
        post_vanilla_sector *s = &v->sectors[k];
        s->sector_id = rng_next(rng);
        random_fe(rng, s->comm_r);
        random_fe(rng, s->comm_c);
        random_fe(rng, s->comm_r_last);
        for (unsigned i = 0; i < s->proofs; i++) {
            random_fe(rng, s->roots[i]);
            random_fe(rng, s->leaves[i]);
            for (unsigned l = 0; l < sh->levels; l++) {
                *post_vanilla_index(s, sh, i, l) = (uint8_t)(rng_next(rng) % sh->arity[l]);
                for (unsigned h = 0; h + 1 < sh->arity[l]; h++) random_fe(rng, post_vanilla_sibs(s, sh, i, l)[h]);
            }
        }
    }
    return 0;
}

static uint8_t *encode(const post_vanilla *v, size_t k, size_t *len)
{
    *len = post_vanilla_sector_encoded_size(v, &v->sectors[k]);
    uint8_t *b = malloc(*len);
    if (b) post_vanilla_encode_sector(v, k, b);
    return b;
}

/* Equal when every sector encodes to the same bytes (the encoding carries every field). */
static int same(const post_vanilla *a, const post_vanilla *b)
{
    if (a->type != b->type || a->count != b->count) return 0;
    for (size_t k = 0; k < a->count; k++) {
        size_t la, lb;
        uint8_t *x = encode(a, k, &la), *y = encode(b, k, &lb);
        int eq = x && y && la == lb && memcmp(x, y, la) == 0;
        free(x);
        free(y);
        if (!eq) return 0;
    }
    return 1;
}

static void test_types(void)
{
    size_t n;
    const post_proof_type *all = post_proof_types(&n);
    CHECK(n == 15);
    for (size_t i = 0; i < n; i++) {
        CHECK(all[i].id == i);
        CHECK(post_proof_type_geometry(&all[i]) != NULL);
    }
    const post_proof_type *w = post_proof_type_by_id(13), *win = post_proof_type_by_id(3);
    CHECK(w && w->sector_size == 32ull << 30 && w->kind == POST_WINDOW && w->api == POREP_API_1_2 &&
          w->challenges == 10 && w->sector_count == 2349);
    CHECK(win && win->sector_size == 32ull << 30 && win->kind == POST_WINNING && win->api == POREP_API_1_0 &&
          win->challenges == 66 && win->sector_count == 1);
    CHECK(post_proof_type_by_id(8)->api == POREP_API_1_0 && post_proof_type_by_id(9)->sector_count == 2300);
    CHECK(post_proof_type_by_id(5)->sector_size == 2048 && post_proof_type_by_id(5)->sector_count == 2);
    cuzk_error err;
    const post_proof_type *t;
    CHECK(post_proof_type_get(15, &t, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.msg, "15"));
}

static uint64_t direct_leaf(const uint8_t r[32], uint64_t id, uint64_t index, uint64_t nodes)
{
    uint8_t buf[48], h[32];
    memcpy(buf, r, 32);
    for (int i = 0; i < 8; i++) buf[32 + i] = (uint8_t)(id >> (8 * i)), buf[40 + i] = (uint8_t)(index >> (8 * i));
    sha256_digest(buf, 48, h);
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)h[i] << (8 * i);
    return x % nodes;
}

static void test_challenges(rng_t *rng)
{
    uint8_t r[32];
    rng_bytes(rng, r, 32);
    r[31] &= 0x3f;
    const post_proof_type *v12 = post_proof_type_by_id(13), *v10 = post_proof_type_by_id(8),
                          *win = post_proof_type_by_id(3);
    uint64_t nodes = (32ull << 30) / 32, id = rng_next(rng);
    for (unsigned n = 0; n < 10; n++) {
        /* 1.2: the index is n whatever the sector's position; 1.0: sector_index * 10 + n */
        CHECK(post_challenge_leaf(v12, r, id, 5, n) == direct_leaf(r, id, n, nodes));
        CHECK(post_challenge_leaf(v10, r, id, 5, n) == direct_leaf(r, id, 50 + n, nodes));
        CHECK(post_challenge_leaf(v10, r, id, 0, n) == post_challenge_leaf(v12, r, id, 0, n));
    }
    uint64_t all[66];
    post_challenge_leaves(win, r, id, 0, all);
    for (unsigned n = 0; n < 66; n++) CHECK(all[n] == direct_leaf(r, id, n, nodes) && all[n] < nodes);
    post_challenge_leaves(v12, r, id, 1, all);
    CHECK(all[3] == direct_leaf(r, id, 3, nodes));
    CHECK(post_challenge_leaf(post_proof_type_by_id(10), r, id, 0, 0) == direct_leaf(r, id, 0, 64));
}

/* A 2 KiB WindowPoSt V1_1 proof (Single, 2 levels of arity 8, 10 proofs) written byte by byte. */
static void put_u64(uint8_t **o, uint64_t x)
{
    for (int i = 0; i < 8; i++) *(*o)++ = (uint8_t)(x >> (8 * i));
}
static void put_fe(uint8_t **o, uint8_t tag, uint8_t a, uint8_t b)
{
    memset(*o, 0, 32);
    (*o)[0] = tag, (*o)[1] = a, (*o)[2] = b, (*o)[30] = 0x11;
    *o += 32;
}

static void test_hand_built(void)
{
    uint8_t buf[8192], *o = buf;
    put_u64(&o, 0x0102030405060708ull);
    put_fe(&o, 1, 0, 0); /* comm_r */
    put_u64(&o, 1);      /* Proof.sectors */
    put_u64(&o, 10);     /* inclusion_proofs */
    for (unsigned i = 0; i < 10; i++) {
        *o++ = 0, *o++ = 0, *o++ = 0, *o++ = 0; /* Single */
        put_fe(&o, 2, (uint8_t)i, 0);           /* root */
        put_fe(&o, 3, (uint8_t)i, 0);           /* leaf */
        put_u64(&o, 2);
        for (unsigned l = 0; l < 2; l++) {
            put_u64(&o, 7);
            for (unsigned h = 0; h < 7; h++) put_fe(&o, (uint8_t)(16 + l), (uint8_t)i, (uint8_t)h);
            put_u64(&o, (i + l) % 8);
        }
    }
    put_fe(&o, 4, 0, 0); /* comm_c */
    put_fe(&o, 5, 0, 0); /* comm_r_last */
    size_t len = (size_t)(o - buf);
    CHECK(len == 8 + 32 + 16 + 10 * (4 + 64 + 8 + 2 * (8 + 7 * 32 + 8)) + 64);
    const post_proof_type *t = post_proof_type_by_id(10);
    post_vanilla v;
    cuzk_error err;
    const uint8_t *bp = buf;
    cuzk_status st = post_vanilla_decode(&v, t, &bp, &len, 1, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st) return;
    const post_vanilla_sector *s = &v.sectors[0];
    CHECK(v.count == 1 && v.shape.tag == POST_VANILLA_TAG_SINGLE && v.shape.levels == 2);
    CHECK(s->sector_id == 0x0102030405060708ull && s->proofs == 10);
    CHECK(s->comm_r[0] == 1 && s->comm_c[0] == 4 && s->comm_r_last[0] == 5 && s->comm_r_last[30] == 0x11);
    for (unsigned i = 0; i < 10; i++) {
        CHECK(s->roots[i][0] == 2 && s->roots[i][1] == i && s->leaves[i][0] == 3 && s->leaves[i][1] == i);
        for (unsigned l = 0; l < 2; l++) {
            CHECK(*post_vanilla_index(s, &v.shape, i, l) == (i + l) % 8);
            const porep_dom *sib = post_vanilla_sibs(s, &v.shape, i, l);
            for (unsigned h = 0; h < 7; h++) CHECK(sib[h][0] == 16 + l && sib[h][1] == i && sib[h][2] == h);
        }
    }
    size_t elen;
    uint8_t *e = encode(&v, 0, &elen);
    CHECK(e && elen == len && memcmp(e, buf, len) == 0);
    free(e);
    post_vanilla_free(&v);
}

static void test_round_trips(rng_t *rng)
{
    static const unsigned ids[] = {10, 13, 14, 3, 0, 9};
    for (size_t q = 0; q < sizeof ids / sizeof ids[0]; q++) {
        const post_proof_type *t = post_proof_type_by_id(ids[q]);
        size_t count = t->kind == POST_WINNING ? 1 : 2;
        post_vanilla a, b;
        if (random_vanilla(&a, t, count, rng) != 0) {
            CHECK(0);
            continue;
        }
        uint8_t *bytes[2];
        size_t lens[2];
        for (size_t k = 0; k < count; k++) bytes[k] = encode(&a, k, &lens[k]);
        CHECK(lens[0] == 8 + 32 + 16 + t->challenges * a.shape.proof_bytes + 64);
        if (ids[q] == 13) CHECK(a.shape.proof_bytes == 2484 && lens[0] == 24960); /* the notes' 32 GiB sizes */
        if (ids[q] == 3) CHECK(lens[0] == 164064);
        cuzk_error err;
        cuzk_status st = post_vanilla_decode(&b, t, (const uint8_t *const *)bytes, lens, count, &err);
        CHECK_MSG(st == CUZK_OK, "%s: %s", t->name, err.msg);
        if (st == CUZK_OK) {
            CHECK(same(&a, &b));
            post_vanilla_free(&b);
        }
        for (size_t k = 0; k < count; k++) free(bytes[k]);
        post_vanilla_free(&a);
    }
}

/* Decoding b must fail with a message or succeed with an encoding equal to b. */
static int decodes_faithfully(const post_proof_type *t, const uint8_t *b, size_t len)
{
    post_vanilla v;
    cuzk_error err;
    err.msg[0] = 0;
    cuzk_status st = post_vanilla_decode(&v, t, &b, &len, 1, &err);
    if (st != CUZK_OK) return err.msg[0] != 0 && strstr(err.msg, "sector 0") != NULL;
    size_t elen;
    uint8_t *e = encode(&v, 0, &elen);
    int ok = e && elen == len && memcmp(e, b, len) == 0;
    free(e);
    post_vanilla_free(&v);
    return ok;
}

static int rejects_with(const post_proof_type *t, const uint8_t *b, size_t len, const char *a, const char *c)
{
    post_vanilla v;
    cuzk_error err;
    cuzk_status st = post_vanilla_decode(&v, t, &b, &len, 1, &err);
    if (st == CUZK_OK) {
        post_vanilla_free(&v);
        fprintf(stderr, "accepted, expected '%s'\n", a);
        return 0;
    }
    int ok = strstr(err.msg, a) && (!c || strstr(err.msg, c));
    if (!ok) fprintf(stderr, "message '%s' lacks '%s' / '%s'\n", err.msg, a, c ? c : "");
    return ok;
}

static void test_truncations_and_flips(rng_t *rng)
{
    static const unsigned ids[] = {10, 13, 4};
    for (size_t q = 0; q < 3; q++) {
        const post_proof_type *t = post_proof_type_by_id(ids[q]);
        post_vanilla a;
        if (random_vanilla(&a, t, 1, rng) != 0) {
            CHECK(0);
            continue;
        }
        size_t len;
        uint8_t *b = encode(&a, 0, &len);
        post_vanilla_free(&a);
        /* every truncation of the 2 KiB one, a sample of the larger ones; always the last byte */
        size_t bad_trunc = 0, bad_flip = 0, step = len < 8192 ? 1 : 97;
        for (size_t n = 0; n < len; n += step) {
            post_vanilla v;
            cuzk_error err;
            const uint8_t *bp = b;
            size_t n2 = n;
            if (post_vanilla_decode(&v, t, &bp, &n2, 1, &err) == CUZK_OK) {
                post_vanilla_free(&v);
                bad_trunc++;
            } else if (!strstr(err.msg, "truncated") && !strstr(err.msg, "sector 0")) {
                bad_trunc++;
            }
        }
        CHECK(rejects_with(t, b, len - 1, "truncated", NULL));
        /* bit flips: all of the 2 KiB one, a random sample of the others */
        size_t flips = step == 1 ? len * 8 : 1000;
        for (size_t f = 0; f < flips; f++) {
            size_t bit = step == 1 ? f : (size_t)(rng_next(rng) % (len * 8));
            b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            if (!decodes_faithfully(t, b, len)) bad_flip++;
            b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        CHECK_MSG(bad_trunc == 0 && bad_flip == 0, "%s: %zu truncations, %zu flips misdecoded", t->name, bad_trunc,
                  bad_flip);
        /* trailing bytes */
        uint8_t *longer = malloc(len + 1);
        memcpy(longer, b, len);
        longer[len] = 0;
        CHECK(rejects_with(t, longer, len + 1, "1 trailing bytes", NULL));
        free(longer);
        free(b);
    }
}

static void test_rejections(rng_t *rng)
{
    const post_proof_type *t = post_proof_type_by_id(13); /* 32 GiB: Sub, 9 + 1 levels */
    post_vanilla a;
    if (random_vanilla(&a, t, 1, rng) != 0) return;
    a.sectors[0].sector_id = 4242;
    size_t len;
    uint8_t *b = encode(&a, 0, &len);
    const size_t P = a.shape.proof_bytes, first = 8 + 32 + 16;
    post_vanilla_free(&a);
    cuzk_error err;
    uint8_t *c = malloc(len + 64);
    /* the variant tag of proof 3: unknown, then a known one of the wrong shape */
    memcpy(c, b, len);
    c[first + 3 * P] = 7;
    CHECK(rejects_with(t, c, len, "sector 0 (id 4242): inclusion proof 3: variant tag", "unknown variant 7"));
    c[first + 3 * P] = 0;
    CHECK(rejects_with(t, c, len, "inclusion proof 3: variant tag", "variant Single, but 32GiB sectors have Sub"));
    /* the base path length, an absurd inclusion proof count, an absurd sectors count */
    memcpy(c, b, len);
    c[first + 4] = 200;
    CHECK(rejects_with(t, c, len, "inclusion proof 0: base_path", "path length 200, expected 9"));
    memcpy(c, b, len);
    memset(c + 48, 0xff, 8);
    CHECK(rejects_with(t, c, len, "inclusion_proofs", "18446744073709551615, expected 10"));
    memcpy(c, b, len);
    c[40] = 2;
    CHECK(rejects_with(t, c, len, "vanilla_proof.sectors", "sector proof count 2, expected 1"));
    /* level 4 of proof 1's base path: hash count, a hash >= r, the index */
    size_t lvl = first + P + 4 + 8 + 4 * 240;
    memcpy(c, b, len);
    c[lvl] = 8;
    CHECK(rejects_with(t, c, len, "inclusion proof 1: base_path level 4 (arity 8): hashes", "hash count 8"));
    memcpy(c, b, len);
    memset(c + lvl + 8 + 2 * 32, 0xff, 32);
    CHECK(rejects_with(t, c, len, "inclusion proof 1: base_path level 4 (arity 8): hashes[2]", "not below r"));
    memcpy(c, b, len);
    c[lvl + 8 + 7 * 32] = 8;
    CHECK(rejects_with(t, c, len, "inclusion proof 1: base_path level 4 (arity 8): index", "index 8"));
    /* the sub path's index, the root, comm_r, comm_r_last */
    size_t sub = first + P + 4 + 8 + 9 * 240;
    memcpy(c, b, len);
    c[sub + 8 + 8 + 7 * 32] = 0;
    c[sub + 8 + 8 + 7 * 32 + 1] = 1;
    CHECK(rejects_with(t, c, len, "inclusion proof 1: sub_path level 0 (arity 8): index", "index 256"));
    memcpy(c, b, len);
    c[sub + 248 + 31] = 0xff;
    CHECK(rejects_with(t, c, len, "inclusion proof 1: root", "not below r"));
    memcpy(c, b, len);
    c[8 + 31] = 0x80;
    CHECK(rejects_with(t, c, len, "sector 0 (id 4242): comm_r", "not below r"));
    memcpy(c, b, len);
    c[len - 1] = 0x80;
    CHECK(rejects_with(t, c, len, "comm_r_last", "not below r"));
    /* comm_c = r rejected, r - 1 accepted */
    static const uint8_t r_le[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                     0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                     0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    fr_t rm1;
    fr_set_one(&rm1);
    fr_neg(&rm1, &rm1);
    memcpy(c, b, len);
    memcpy(c + len - 64, r_le, 32);
    CHECK(rejects_with(t, c, len, "comm_c", "not below r"));
    fr_to_bytes_le(c + len - 64, &rm1);
    {
        post_vanilla ok;
        const uint8_t *cp = c;
        CHECK(post_vanilla_decode(&ok, t, &cp, &len, 1, &err) == CUZK_OK);
        if (ok.count) post_vanilla_free(&ok);
    }
    CHECK(memcmp(c + len - 63, r_le + 1, 31) == 0 && c[len - 64] == 0); /* r - 1 is r with byte 0 cleared */
    memcpy(c, b, len);
    CHECK(rejects_with(t, c, len + 5, "end", "5 trailing bytes"));
    CHECK(rejects_with(t, c, len - 40, "comm_c", "truncated"));
    CHECK(rejects_with(t, c, 3, "sector 0: sector_id", "truncated"));
    /* request level: no proofs, too many for a partition, two for Winning */
    post_vanilla v;
    const uint8_t *bs[3] = {b, b, b};
    size_t ls[3] = {len, len, len};
    CHECK(post_vanilla_decode(&v, t, bs, ls, 0, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "no vanilla"));
    CHECK(post_vanilla_decode(&v, post_proof_type_by_id(10), bs, ls, 3, &err) == CUZK_ERR_FORMAT &&
          strstr(err.msg, "partitions hold 2"));
    CHECK(post_vanilla_decode(&v, post_proof_type_by_id(3), bs, ls, 2, &err) == CUZK_ERR_FORMAT &&
          strstr(err.msg, "takes 1"));
    /* the second of three sectors bad: named by its position */
    memcpy(c, b, len);
    c[len - 1] = 0x80;
    bs[1] = c;
    CHECK(post_vanilla_decode(&v, t, bs, ls, 3, &err) == CUZK_ERR_NOT_CANONICAL && strstr(err.msg, "sector 1 (id"));
    /* the wrong size's proofs: a 32 GiB proof decoded as 2 KiB */
    CHECK(rejects_with(post_proof_type_by_id(10), b, len, "variant tag", "variant Sub, but 2KiB sectors have Single"));
    free(c);
    free(b);
}

static void test_json(rng_t *rng)
{
    const post_proof_type *t = post_proof_type_by_id(14);
    post_vanilla a, b;
    if (random_vanilla(&a, t, 2, rng) != 0) return;
    const char *path = "test_post_vanilla.json";
    cuzk_error err;
    CHECK(post_vanilla_write_json(&a, path, &err) == CUZK_OK);
    cuzk_status st = post_vanilla_read_json(&b, t, path, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) {
        CHECK(same(&a, &b));
        post_vanilla_free(&b);
    }
    remove(path);
    post_vanilla_free(&a);
    static const char *bad[] = {"{}", "[1]", "[\"AAA\"]", "[\"AAAA\"]", "[\"!AAA\"]", "[]", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        CHECK(post_vanilla_parse_json(&b, t, bad[i], strlen(bad[i]), &err) != CUZK_OK && err.msg[0]);
    }
}

/* Every path of v hashed here with poseidon.h, and comm_r. Returns the number of failures. */
static size_t hash_check(const post_vanilla *v)
{
    poseidon_constants p2 = {0}, p8 = {0};
    cuzk_error err;
    if (poseidon_constants_create(&p2, 2, POSEIDON_STANDARD, NULL, &err) ||
        poseidon_constants_create(&p8, 8, POSEIDON_STANDARD, NULL, &err))
        return 1;
    size_t bad = 0;
    const post_vanilla_shape *sh = &v->shape;
    for (size_t k = 0; k < v->count; k++) {
        const post_vanilla_sector *s = &v->sectors[k];
        fr_t in[8], out, want;
        fr_from_bytes_le(&in[0], s->comm_c);
        fr_from_bytes_le(&in[1], s->comm_r_last);
        poseidon_hash(&p2, in, &out);
        fr_from_bytes_le(&want, s->comm_r);
        bad += !fr_eq(&out, &want);
        fr_from_bytes_le(&want, s->comm_r_last);
        for (unsigned i = 0; i < s->proofs; i++) {
            fr_t cur;
            fr_from_bytes_le(&cur, s->leaves[i]);
            for (unsigned l = 0; l < sh->levels; l++) {
                unsigned a = sh->arity[l], at = *post_vanilla_index(s, sh, i, l);
                const porep_dom *sib = post_vanilla_sibs(s, sh, i, l);
                for (unsigned q = 0, j = 0; q < a; q++) {
                    if (q == at)
                        in[q] = cur;
                    else
                        fr_from_bytes_le(&in[q], sib[j++]);
                }
                poseidon_hash(a == 2 ? &p2 : &p8, in, &cur);
            }
            bad += !fr_eq(&cur, &want);
            bad += memcmp(s->roots[i], s->comm_r_last, 32) != 0;
        }
    }
    poseidon_constants_free(&p2);
    poseidon_constants_free(&p8);
    return bad;
}

static uint64_t path_index(const post_vanilla *v, const post_vanilla_sector *s, unsigned i)
{
    uint64_t x = 0, w = 1;
    for (unsigned l = 0; l < v->shape.levels; l++) {
        x += w * *post_vanilla_index(s, &v->shape, i, l);
        w *= v->shape.arity[l];
    }
    return x;
}

static void test_sealed(void)
{
    const porep_proof_type *seal_type = porep_proof_type_find(2048, POREP_API_1_1, POREP_INTERACTIVE);
    porep_sealed sealed[2];
    porep_seal_params p[2];
    uint8_t seed[32];
    cuzk_error err;
    post_sector_tree trees[2];
    porep_dom *tree_r[2] = {NULL, NULL};
    porep_hashers h;
    CHECK(porep_hashers_init(&h, &err) == CUZK_OK);
    for (int q = 0; q < 2; q++) {
        CHECK(porep_seal_test(&sealed[q], &p[q], seed, seal_type, 11 + (uint64_t)q, &err) == CUZK_OK);
        porep_dom root;
        CHECK(porep_tree_r_build(&tree_r[q], root, sealed[q].geometry, &h, sealed[q].replica, &err) == CUZK_OK);
        CHECK(memcmp(root, sealed[q].comm_r_last, 32) == 0);
        trees[q] = (post_sector_tree){.sector_id = p[q].sector_id, .tree_r = tree_r[q]};
        memcpy(trees[q].comm_c, sealed[q].comm_c, 32);
        memcpy(trees[q].comm_r_last, sealed[q].comm_r_last, 32);
        memcpy(trees[q].comm_r, sealed[q].comm_r, 32);
    }
    uint8_t r[32] = {1, 2, 3, 4};
    static const unsigned ids[] = {10, 5, 0};
    for (int q = 0; q < 3; q++) {
        const post_proof_type *t = post_proof_type_by_id(ids[q]);
        size_t count = t->kind == POST_WINNING ? 1 : 2;
        post_vanilla v;
        cuzk_status st = post_vanilla_from_trees(&v, t, trees, count, r, &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        if (st) continue;
        st = post_vanilla_verify(&v, &h, r, 0, &err);
        CHECK_MSG(st == CUZK_OK, "%s: %s", t->name, err.msg);
        CHECK(hash_check(&v) == 0);
        for (size_t k = 0; k < count; k++) {
            const post_vanilla_sector *s = &v.sectors[k];
            for (unsigned i = 0; i < s->proofs; i++) {
                uint64_t c = post_challenge_leaf(t, r, s->sector_id, k, i);
                CHECK(path_index(&v, s, i) == c);
                CHECK(memcmp(s->leaves[i], sealed[k].replica[c], 32) == 0);
            }
        }
        /* the checks can fail: another randomness, a sibling changed, the sector order swapped */
        uint8_t r2[32] = {9};
        CHECK(post_vanilla_verify(&v, &h, r2, 0, &err) == CUZK_ERR_INVALID_PROOF && strstr(err.msg, "challenge"));
        if (count == 2 && t->api == POREP_API_1_0)
            CHECK(post_vanilla_verify(&v, &h, r, 1, &err) == CUZK_ERR_INVALID_PROOF);
        post_vanilla_sibs(&v.sectors[0], &v.shape, 4, 1)[3][0] ^= 1;
        CHECK(post_vanilla_verify(&v, &h, NULL, 0, &err) == CUZK_ERR_INVALID_PROOF && strstr(err.msg, "proof 4"));
        CHECK(hash_check(&v) == 1);
        post_vanilla_free(&v);
    }
    for (int q = 0; q < 2; q++) {
        free(tree_r[q]);
        porep_sealed_free(&sealed[q]);
    }
    porep_hashers_free(&h);
}

/* The sealed-sector directory: written, read back field by field, and refused when broken. */
static void test_sector_dir(void)
{
    const porep_proof_type *seal_type = porep_proof_type_find(2048, POREP_API_1_1, POREP_INTERACTIVE);
    porep_sealed s;
    porep_seal_params p;
    uint8_t seed[32];
    cuzk_error err;
    if (porep_seal_test(&s, &p, seed, seal_type, 5, &err) != CUZK_OK) {
        CHECK(0);
        return;
    }
    const char *dir = "test_post_vanilla.sector";
    CHECK(sector_dir_write(dir, &s, &p, seal_type->id, &err) == CUZK_OK);
    sector_dir d;
    cuzk_status st = sector_dir_read(&d, dir, 1, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) {
        CHECK(d.geometry == s.geometry && d.registered_seal_proof == seal_type->id && d.sector_id == p.sector_id);
        CHECK(memcmp(d.prover_id, p.prover_id, 32) == 0 && memcmp(d.ticket, p.ticket, 32) == 0);
        CHECK(memcmp(d.comm_c, s.comm_c, 32) == 0 && memcmp(d.comm_r_last, s.comm_r_last, 32) == 0);
        CHECK(memcmp(d.comm_r, s.comm_r, 32) == 0 && memcmp(d.comm_d, s.comm_d, 32) == 0);
        CHECK(memcmp(d.sealed, s.replica, 2048) == 0 && memcmp(d.unsealed, s.data, 2048) == 0);
        sector_dir_free(&d);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/sector.json", dir);
    static const char *bad[][2] = {
        {"{\"sector_size\": 2048}", "registered_seal_proof"},
        {"{\"sector_size\": 3000, \"registered_seal_proof\": 5, \"sector_id\": 1, \"prover_id\": \"00\"}",
         "prover_id: 2 hex digits, expected 64"},
        {"[1]", "sector.json"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_write_file(path, bad[i][0], strlen(bad[i][0]));
        err.msg[0] = 0;
        CHECK_MSG(sector_dir_read(&d, dir, 0, &err) != CUZK_OK && strstr(err.msg, bad[i][1]), "%s", err.msg);
    }
    snprintf(path, sizeof path, "%s/sealed", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/unsealed", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/sector.json", dir);
    remove(path);
    remove(dir);
    porep_sealed_free(&s);
}

static void test_synth(uint64_t seed)
{
    porep_hashers h;
    cuzk_error err;
    CHECK(porep_hashers_init(&h, &err) == CUZK_OK);
    uint8_t r[32];
    memset(r, 0x5a, 32);
    r[31] &= 0x3f;
    static const unsigned ids[] = {13, 14, 3, 8};
    static const size_t counts[] = {3, 2, 1, 3};
    for (int q = 0; q < 4; q++) {
        const post_proof_type *t = post_proof_type_by_id(ids[q]);
        post_vanilla v, w;
        cuzk_status st = post_vanilla_synth(&v, t, counts[q], 1000, r, seed, NULL, &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        if (st) continue;
        CHECK(v.count == counts[q] && v.sectors[0].sector_id == 1000);
        st = post_vanilla_verify(&v, &h, r, 0, &err);
        CHECK_MSG(st == CUZK_OK, "%s: %s", t->name, err.msg);
        CHECK(hash_check(&v) == 0);
        for (size_t k = 0; k < v.count; k++)
            for (unsigned i = 0; i < v.sectors[k].proofs; i++)
                CHECK(path_index(&v, &v.sectors[k], i) == post_challenge_leaf(t, r, 1000 + k, k, i));
        if (v.count > 1) CHECK(memcmp(v.sectors[0].comm_r_last, v.sectors[1].comm_r_last, 32) != 0);
        /* the same seed gives the same proofs; the encoding decodes back to them */
        CHECK(post_vanilla_synth(&w, t, counts[q], 1000, r, seed, NULL, &err) == CUZK_OK);
        CHECK(same(&v, &w));
        post_vanilla_free(&w);
        size_t len;
        uint8_t *b = encode(&v, 0, &len);
        const uint8_t *bp = b;
        st = post_vanilla_decode(&w, t, &bp, &len, 1, &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        if (st == CUZK_OK) post_vanilla_free(&w);
        free(b);
        post_vanilla_free(&v);
    }
    post_vanilla v;
    CHECK(post_vanilla_synth(&v, post_proof_type_by_id(3), 2, 0, r, seed, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(post_vanilla_synth(&v, post_proof_type_by_id(13), 2350, 0, r, seed, NULL, &err) == CUZK_ERR_INVALID_ARG);
    porep_hashers_free(&h);
}

int main(void)
{
    rng_t rng;
    uint64_t seed = test_seed(&rng, "test_post_vanilla");
    test_types();
    test_challenges(&rng);
    test_hand_built();
    test_round_trips(&rng);
    test_truncations_and_flips(&rng);
    test_rejections(&rng);
    test_json(&rng);
    test_sealed();
    test_sector_dir();
    test_synth(seed);
    return test_finish("test_post_vanilla");
}
