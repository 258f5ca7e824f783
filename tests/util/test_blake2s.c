/* BLAKE2s against RFC 7693: the Appendix B example ("abc"), the empty message, and the Appendix E self-test (every
 * output length 16/20/28/32 over inputs of 0..1024 bytes, keyed and unkeyed, folded into one BLAKE2s-256), plus
 * streaming in pieces of every size giving the one-shot digest. */
#include <string.h>

#include "testutil.h"
#include "util/blake2s.h"

/* RFC 7693 Appendix E selftest_seq. */
static void selftest_seq(uint8_t *out, size_t len, uint32_t seed)
{
    uint32_t a = 0xDEAD4BADu * seed, b = 1;
    for (size_t i = 0; i < len; i++) {
        uint32_t t = a + b;
        a = b;
        b = t;
        out[i] = (uint8_t)(t >> 24);
    }
}

static void check_hex(const uint8_t *got, size_t n, const char *want, const char *what)
{
    char hex[65];
    hex_encode(hex, got, n);
    CHECK_MSG(strcmp(hex, want) == 0, "%s: %s, want %s", what, hex, want);
}

int main(void)
{
    uint8_t md[32];
    blake2s(md, 32, NULL, 0, "abc", 3);
    check_hex(md, 32, "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982", "abc");
    blake2s(md, 32, NULL, 0, "", 0);
    check_hex(md, 32, "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9", "empty");

    static const size_t md_len[4] = {16, 20, 28, 32}, in_len[6] = {0, 3, 64, 65, 255, 1024};
    uint8_t in[1024], key[32];
    blake2s_state all;
    blake2s_init(&all, 32, NULL, 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) {
            selftest_seq(in, in_len[j], (uint32_t)in_len[j]);
            blake2s(md, md_len[i], NULL, 0, in, in_len[j]);
            blake2s_update(&all, md, md_len[i]);
            selftest_seq(key, md_len[i], (uint32_t)md_len[i]);
            blake2s(md, md_len[i], key, md_len[i], in, in_len[j]);
            blake2s_update(&all, md, md_len[i]);
        }
    blake2s_final(&all, md);
    check_hex(md, 32, "6a411f08ce25adcdfb02aba641451cec53c598b24f4fc787fbdc88797f4c1dfe", "RFC 7693 self-test");

    /* Any split of the input gives the one-shot digest (block boundaries at 64 and 128 included). */
    selftest_seq(in, 200, 7);
    uint8_t want[32];
    blake2s(want, 32, NULL, 0, in, 200);
    for (size_t piece = 1; piece <= 130; piece++) {
        blake2s_state s;
        blake2s_init(&s, 32, NULL, 0);
        for (size_t off = 0; off < 200; off += piece)
            blake2s_update(&s, in + off, off + piece > 200 ? 200 - off : piece);
        blake2s_final(&s, md);
        CHECK_MSG(memcmp(md, want, 32) == 0, "pieces of %zu", piece);
    }
    return test_finish("blake2s");
}
