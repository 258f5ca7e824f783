/* Fuzzes the PoSt vanilla proof reader (bincode FallbackPoStSectorProof, and the JSON array of base64 strings).
 * The first byte selects the registered PoSt proof (low 7 bits, mod 15) and the form (bit 7: JSON); the rest is
 * the input. Properties: no crash or leak; every rejection has a documented status and a message; an accepted
 * bincode input encodes back to exactly its bytes, and an accepted JSON one re-encodes to sectors that decode to
 * the same encoding. Seeds: fuzz/gen_corpus (synthetic proofs of 2 KiB, 32 GiB, 64 GiB, Winning, one JSON). */
#include <stdlib.h>
#include <string.h>

#include "formats/post_vanilla.h"
#include "fuzz_check.h"

static void fuzz_post_round_trip(const post_vanilla *v, size_t k, const uint8_t *want, size_t want_len)
{
    size_t n = post_vanilla_sector_encoded_size(v, &v->sectors[k]);
    uint8_t *b = malloc(n);
    FUZZ_CHECK(b != NULL);
    post_vanilla_encode_sector(v, k, b);
    if (want) {
        FUZZ_CHECK(n == want_len && memcmp(b, want, n) == 0);
    } else {
        post_vanilla w;
        cuzk_error err;
        const uint8_t *bp = b;
        FUZZ_CHECK(post_vanilla_decode(&w, v->type, &bp, &n, 1, &err) == CUZK_OK);
        size_t m = post_vanilla_sector_encoded_size(&w, &w.sectors[0]);
        uint8_t *c = malloc(m);
        FUZZ_CHECK(c != NULL);
        post_vanilla_encode_sector(&w, 0, c);
        FUZZ_CHECK(m == n && memcmp(b, c, n) == 0);
        free(c);
        post_vanilla_free(&w);
    }
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const post_proof_type *t = post_proof_type_by_id((data[0] & 0x7fu) % 15u);
    FUZZ_CHECK(t != NULL);
    int json = data[0] >> 7;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    post_vanilla v;
    cuzk_error err;
    err.msg[0] = 0;
    cuzk_status st = json ? post_vanilla_parse_json(&v, t, (const char *)in, len, &err)
                          : post_vanilla_decode(&v, t, &in, &len, 1, &err);
    if (st != CUZK_OK) {
        FUZZ_CHECK(st == CUZK_ERR_TRUNCATED || st == CUZK_ERR_FORMAT || st == CUZK_ERR_NOT_CANONICAL ||
                   st == CUZK_ERR_NOMEM);
        FUZZ_CHECK(err.msg[0] != 0);
        return 0;
    }
    FUZZ_CHECK(v.count >= 1 && v.type == t);
    for (size_t k = 0; k < v.count; k++) fuzz_post_round_trip(&v, k, json ? NULL : in, len);
    post_vanilla_free(&v);
    return 0;
}
