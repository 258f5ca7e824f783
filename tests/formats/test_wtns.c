/* The .wtns reader and writer on the committed snarkjs fixture (tests/snarkjs/fixtures/witness.wtns, written by
 * snarkjs wtns calculate for mulchain.circom with x = 3, a = 4, b = 5):
 *  - the values are the circuit's, computed here (ONE, y, x, a, b, t[0..4]);
 *  - wtns_write reproduces snarkjs' file byte for byte;
 *  - random witnesses round-trip;
 *  - every truncation fails as truncated/format and every single-bit flip gives a documented status. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/wtns.h"
#include "testutil.h"

static char fixture_path[1024];

/* Signed small integers into Fr. */
static void fr_from_i64(fr_t *r, int64_t v)
{
    fr_from_u64(r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0) fr_neg(r, r);
}

static void test_fixture(rng_t *rng)
{
    cuzk_error err;
    wtns w;
    cuzk_status st = wtns_read(&w, fixture_path, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st != CUZK_OK) return;
    int64_t x = 3, a = 4, b = 5, t[5];
    t[0] = a * b;
    for (int i = 1; i < 5; i++) t[i] = (t[i - 1] + 3 * x) * (a - 5 * i);
    int64_t y = t[4] * t[4] - 7 * b + 11;
    int64_t expect[10] = {1, y, x, a, b, t[0], t[1], t[2], t[3], t[4]};
    CHECK(w.n == 10);
    for (size_t i = 0; i < w.n && i < 10; i++) {
        fr_t e;
        fr_from_i64(&e, expect[i]);
        CHECK_MSG(fr_eq(&w.values[i], &e), "witness[%zu]", i);
    }

    /* Byte-identical rewrite, and a random round trip. */
    char tmp[] = "/tmp/cuzk-wtns-XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) {
        close(fd);
        size_t l1, l2;
        CHECK(wtns_write(tmp, w.values, w.n, &err) == CUZK_OK);
        uint8_t *orig = test_read_file(fixture_path, &l1), *mine = test_read_file(tmp, &l2);
        CHECK(orig && mine && l1 == l2 && memcmp(orig, mine, l1) == 0);
        free(orig);
        free(mine);
        fr_t vals[37];
        for (int i = 0; i < 37; i++) fr_random(&vals[i], rng);
        CHECK(wtns_write(tmp, vals, 37, &err) == CUZK_OK);
        wtns back;
        CHECK(wtns_read(&back, tmp, &err) == CUZK_OK);
        CHECK(back.n == 37);
        for (size_t i = 0; i < back.n && i < 37; i++) CHECK(fr_eq(&back.values[i], &vals[i]));
        wtns_free(&back);
        unlink(tmp);
    }
    wtns_free(&w);
    CHECK(wtns_read(&w, "/nonexistent/witness.wtns", &err) == CUZK_ERR_IO && w.values == NULL);
}

static void test_corruption(rng_t *rng)
{
    size_t len;
    uint8_t *buf = test_read_file(fixture_path, &len);
    CHECK(buf != NULL);
    if (!buf) return;
    cuzk_error err;
    wtns w;
    size_t bad = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, buf, n);
        cuzk_status st = wtns_parse(&w, cut, n, &err);
        if (st != CUZK_ERR_TRUNCATED && st != CUZK_ERR_FORMAT) bad++;
        if (st == CUZK_OK) wtns_free(&w);
        free(cut);
    }
    CHECK_MSG(bad == 0, "%zu truncations accepted", bad);
    bad = 0;
    for (size_t i = 0; i < len; i++) {
        for (int k = 0; k < 2; k++) {
            uint8_t bit = (uint8_t)(1u << (rng_next(rng) & 7));
            buf[i] ^= bit;
            cuzk_status st = wtns_parse(&w, buf, len, &err);
            buf[i] ^= bit;
            if (st != CUZK_OK && st != CUZK_ERR_TRUNCATED && st != CUZK_ERR_FORMAT) bad++;
            /* The header and the prime leave no freedom: a flip there must be rejected. */
            if (i < 12 + 12 + 40 + 12 && st == CUZK_OK) bad++;
            if (st == CUZK_OK) wtns_free(&w);
        }
    }
    CHECK_MSG(bad == 0, "%zu flips misjudged", bad);

    /* Targeted: a value >= r, a prime of another field, a duplicated section, trailing bytes. */
    uint8_t *b = malloc(len + 1);
    memcpy(b, buf, len);
    memset(b + len - 32, 0xff, 32);
    CHECK(wtns_parse(&w, b, len, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "value 9 at offset"));
    memcpy(b, buf, len);
    b[12 + 12 + 4] ^= 1;
    CHECK(wtns_parse(&w, b, len, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "prime"));
    memcpy(b, buf, len);
    b[12 + 12 + 40] = 1; /* section 2 relabelled 1 */
    CHECK(wtns_parse(&w, b, len, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "appears 2 times"));
    memcpy(b, buf, len);
    b[len] = 0;
    CHECK(wtns_parse(&w, b, len + 1, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "trailing"));
    b[4] = 3;
    CHECK(wtns_parse(&w, b, len, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "version"));
    free(b);
    free(buf);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_wtns");
    const char *src = __FILE__;
    const char *slash = strrchr(src, '/');
    snprintf(fixture_path, sizeof fixture_path, "%.*s/../snarkjs/fixtures/witness.wtns", slash ? (int)(slash - src) : 1,
             slash ? src : ".");
    test_fixture(&rng);
    test_corruption(&rng);
    return test_finish("test_wtns");
}
