/* .params / .vk files: byte layout, write -> read round trip, truncation and corruption. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/random_circuit.h"
#include "groth16/groth16.h"
#include "testutil.h"

static pool_t *pool;
static char dir[256];

static int vk_eq(const groth16_vk *x, const groth16_vk *y)
{
    if (x->ic_len != y->ic_len) return 0;
    for (size_t i = 0; i < x->ic_len; i++)
        if (!g1_affine_eq(&x->ic[i], &y->ic[i])) return 0;
    return g1_affine_eq(&x->alpha_g1, &y->alpha_g1) && g1_affine_eq(&x->beta_g1, &y->beta_g1) &&
           g2_affine_eq(&x->beta_g2, &y->beta_g2) && g2_affine_eq(&x->gamma_g2, &y->gamma_g2) &&
           g1_affine_eq(&x->delta_g1, &y->delta_g1) && g2_affine_eq(&x->delta_g2, &y->delta_g2);
}

static int g1s_eq(const g1_affine_t *a, const g1_affine_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!g1_affine_eq(&a[i], &b[i])) return 0;
    return 1;
}

static int params_eq(const groth16_params *x, const groth16_params *y)
{
    if (x->h_len != y->h_len || x->l_len != y->l_len || x->a_len != y->a_len || x->b_g1_len != y->b_g1_len ||
        x->b_g2_len != y->b_g2_len)
        return 0;
    for (size_t i = 0; i < x->b_g2_len; i++)
        if (!g2_affine_eq(&x->b_g2[i], &y->b_g2[i])) return 0;
    return vk_eq(&x->vk, &y->vk) && g1s_eq(x->h, y->h, x->h_len) && g1s_eq(x->l, y->l, x->l_len) &&
           g1s_eq(x->a, y->a, x->a_len) && g1s_eq(x->b_g1, y->b_g1, x->b_g1_len);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Independent walk of the layout: 864 bytes of vk points, then six u32-prefixed sections. */
static void check_layout(const uint8_t *b, size_t len, const groth16_params *p)
{
    size_t off = 864;
    size_t want[6] = {p->vk.ic_len, p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    for (int s = 0; s < 6; s++) {
        CHECK(off + 4 <= len);
        if (off + 4 > len) return;
        CHECK(be32(b + off) == want[s]);
        off += 4 + (size_t)be32(b + off) * (s == 5 ? 192 : 96);
    }
    CHECK(off == len);
    /* alpha_g1 is the first 96 bytes, uncompressed: no flag bits */
    uint8_t enc[96];
    g1_to_uncompressed(enc, &p->vk.alpha_g1);
    CHECK(memcmp(enc, b, 96) == 0 && (b[0] & 0xe0) == 0);
    /* beta_g2 at 192, uncompressed G2 */
    uint8_t enc2[192];
    g2_to_uncompressed(enc2, &p->vk.beta_g2);
    CHECK(memcmp(enc2, b + 192, 192) == 0);
}

static void test_round_trip(rng_t *rng, groth16_params *p, uint8_t **params_bytes, size_t *params_len)
{
    char pp[300], vp[300], pp2[300], vp2[300];
    snprintf(pp, sizeof(pp), "%s/a.params", dir);
    snprintf(vp, sizeof(vp), "%s/a.vk", dir);
    snprintf(pp2, sizeof(pp2), "%s/b.params", dir);
    snprintf(vp2, sizeof(vp2), "%s/b.vk", dir);
    cuzk_error err;
    CHECK(groth16_params_write(pool, p, pp, &err) == CUZK_OK);
    CHECK(groth16_vk_write(&p->vk, vp, &err) == CUZK_OK);
    size_t plen, vlen;
    uint8_t *pb = test_read_file(pp, &plen), *vb = test_read_file(vp, &vlen);
    CHECK(pb && vb);
    if (!pb || !vb) return;
    CHECK(plen == groth16_params_file_size(p));
    CHECK(vlen == groth16_vk_file_size(&p->vk));
    /* the .vk file is the prefix of the .params file */
    CHECK(vlen <= plen && memcmp(pb, vb, vlen) == 0);
    check_layout(pb, plen, p);

    for (int skip = 0; skip < 2; skip++) {
        groth16_params q;
        cuzk_status st = groth16_params_read(pool, &q, pp, skip ? GROTH16_LOAD_SKIP_SUBGROUP_CHECK : 0, &err);
        CHECK_MSG(st == CUZK_OK, "read: %s", err.msg);
        if (st != CUZK_OK) continue;
        CHECK(params_eq(p, &q));
        CHECK(groth16_params_write(pool, &q, pp2, &err) == CUZK_OK);
        size_t l2;
        uint8_t *b2 = test_read_file(pp2, &l2);
        CHECK(b2 && l2 == plen && memcmp(b2, pb, plen) == 0);
        free(b2);
        groth16_params_free(&q);
    }
    groth16_vk vk;
    CHECK(groth16_vk_read(&vk, vp, &err) == CUZK_OK);
    CHECK(vk_eq(&vk, &p->vk));
    CHECK(groth16_vk_write(&vk, vp2, &err) == CUZK_OK);
    size_t l2;
    uint8_t *b2 = test_read_file(vp2, &l2);
    CHECK(b2 && l2 == vlen && memcmp(b2, vb, vlen) == 0);
    free(b2);
    groth16_vk_free(&vk);
    /* a .vk file is not a .params file (it ends where h's length should be) and vice versa (trailing bytes) */
    groth16_params q;
    CHECK(groth16_params_read(pool, &q, vp, 0, &err) == CUZK_ERR_TRUNCATED);
    CHECK(groth16_vk_read(&vk, pp, &err) == CUZK_ERR_FORMAT);
    CHECK(groth16_params_read(pool, &q, "/nonexistent/x.params", 0, &err) == CUZK_ERR_IO);
    (void)rng;
    free(vb);
    *params_bytes = pb;
    *params_len = plen;
    remove(pp2);
    remove(vp2);
    remove(vp);
    remove(pp);
}

/* Truncation at every offset of the vk part and around every section boundary, plus random offsets. */
static void test_truncation(rng_t *rng, const uint8_t *b, size_t len, size_t vk_len)
{
    cuzk_error err;
    int bad = 0, missing_name = 0;
    size_t tried = 0;
    for (size_t cut = 0; cut < len; cut++) {
        int near_boundary = cut < vk_len + 200;
        if (!near_boundary && (rng_next(rng) % 16) != 0) continue;
        tried++;
        groth16_params q;
        cuzk_status st = groth16_params_parse(pool, &q, b, cut, 0, &err);
        if (st != CUZK_ERR_TRUNCATED) {
            bad++;
            if (bad < 5) fprintf(stderr, "cut at %zu: %s (%s)\n", cut, cuzk_status_name(st), err.msg);
            if (st == CUZK_OK) groth16_params_free(&q);
        } else if (!strstr(err.msg, "params: ") || !strstr(err.msg, "offset")) {
            missing_name++;
        }
        if (cut < vk_len) {
            groth16_vk vk;
            st = groth16_vk_parse(&vk, b, cut, &err);
            if (st != CUZK_ERR_TRUNCATED) bad++;
            if (st == CUZK_OK) groth16_vk_free(&vk);
        }
    }
    CHECK_MSG(bad == 0, "%d truncations not reported as truncated", bad);
    CHECK_MSG(missing_name == 0, "%d messages without section and offset", missing_name);
    printf("truncation: %zu cuts of %zu bytes\n", tried, len);

    /* through the file path (mmap), including the empty file */
    char path[300];
    snprintf(path, sizeof(path), "%s/trunc.params", dir);
    size_t cuts[4] = {0, 1, vk_len, len - 1};
    for (int i = 0; i < 4; i++) {
        CHECK(test_write_file(path, b, cuts[i]) == 0);
        groth16_params q;
        cuzk_status st = groth16_params_read(pool, &q, path, 0, &err);
        CHECK_MSG(st == CUZK_ERR_TRUNCATED, "file cut at %zu: %s", cuts[i], cuzk_status_name(st));
        CHECK(strstr(err.msg, path) != NULL);
        if (st == CUZK_OK) groth16_params_free(&q);
    }
    remove(path);
}

/* Random byte corruption: never a crash; a changed point byte is caught (format), a changed length gives a
 * truncation or trailing-bytes error. */
static void test_corruption(rng_t *rng, const uint8_t *b, size_t len, const groth16_params *p)
{
    cuzk_error err;
    uint8_t *c = malloc(len);
    if (!c) return;
    int accepted = 0;
    for (int iter = 0; iter < 300; iter++) {
        memcpy(c, b, len);
        size_t pos = rng_next(rng) % len;
        uint8_t x = (uint8_t)(1 + rng_next(rng) % 255);
        c[pos] ^= x;
        groth16_params q;
        cuzk_status st = groth16_params_parse(pool, &q, c, len, 0, &err);
        if (st == CUZK_OK) {
            accepted++;
            groth16_params_free(&q);
        } else {
            CHECK_MSG(st == CUZK_ERR_FORMAT || st == CUZK_ERR_TRUNCATED, "byte %zu ^= %02x: %s", pos, x,
                      cuzk_status_name(st));
        }
    }
    /* A changed coordinate leaves the curve (with overwhelming probability); changed flag bits are invalid
     * in an uncompressed encoding; a changed length breaks the section arithmetic. */
    CHECK_MSG(accepted == 0, "%d corrupted files accepted", accepted);

    /* specific corruptions with the section named in the message */
    size_t h_off = groth16_vk_file_size(&p->vk) + 4;
    if (p->h_len > 3) {
        size_t at = h_off + 3 * 96;
        memcpy(c, b, len);
        memset(c + at, 0, 96);
        c[at] = 0x40; /* infinity, uncompressed */
        groth16_params q;
        CHECK(groth16_params_parse(pool, &q, c, len, 0, &err) == CUZK_ERR_FORMAT);
        CHECK_MSG(strstr(err.msg, "h[3]") && strstr(err.msg, "infinity"), "message: %s", err.msg);
        char off[32];
        snprintf(off, sizeof(off), "offset %zu", at);
        CHECK_MSG(strstr(err.msg, off) != NULL, "message: %s", err.msg);

        /* a point on the curve outside the subgroup: refused when checking, accepted when told to skip */
        g1_affine_t bad;
        do g1_random_on_curve(&bad, rng);
        while (g1_affine_in_subgroup(&bad));
        memcpy(c, b, len);
        g1_to_uncompressed(c + at, &bad);
        CHECK(groth16_params_parse(pool, &q, c, len, 0, &err) == CUZK_ERR_FORMAT);
        CHECK_MSG(strstr(err.msg, "h[3]") != NULL, "message: %s", err.msg);
        cuzk_status st = groth16_params_parse(pool, &q, c, len, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, &err);
        CHECK_MSG(st == CUZK_OK, "skip: %s", err.msg);
        if (st == CUZK_OK) groth16_params_free(&q);
    }
    /* the vk points are always checked, even when the bases are not */
    {
        g1_affine_t bad;
        do g1_random_on_curve(&bad, rng);
        while (g1_affine_in_subgroup(&bad));
        memcpy(c, b, len);
        g1_to_uncompressed(c, &bad);
        groth16_params q;
        CHECK(groth16_params_parse(pool, &q, c, len, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, &err) == CUZK_ERR_FORMAT);
        CHECK_MSG(strstr(err.msg, "alpha_g1") != NULL, "message: %s", err.msg);
    }
    /* a huge length field fails before any allocation */
    {
        memcpy(c, b, len);
        c[h_off - 4] = 0xff;
        groth16_params q;
        CHECK(groth16_params_parse(pool, &q, c, len, 0, &err) == CUZK_ERR_TRUNCATED);
        CHECK_MSG(strstr(err.msg, "h[") != NULL, "message: %s", err.msg);
    }
    /* an extra byte at the end */
    {
        uint8_t *d = malloc(len + 1);
        memcpy(d, b, len);
        d[len] = 0;
        groth16_params q;
        CHECK(groth16_params_parse(pool, &q, d, len + 1, 0, &err) == CUZK_ERR_FORMAT);
        free(d);
    }
    free(c);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_groth16_params");
    cuzk_error err;
    if (pool_create(&pool, 2, &err) != CUZK_OK) return 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/cuzk-g16-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }

    random_circuit_params rp = {.num_inputs = 3, .num_aux = 25, .num_constraints = 37, .max_terms = 4};
    r1cs cs;
    CHECK(random_circuit_build(&rng, &rp, &cs, &err) == CUZK_OK);
    groth16_params p;
    cuzk_status st = groth16_setup(pool, &cs, &p, &err);
    CHECK_MSG(st == CUZK_OK, "setup: %s", err.msg);
    if (st == CUZK_OK) {
        uint8_t *bytes = NULL;
        size_t len = 0;
        test_round_trip(&rng, &p, &bytes, &len);
        if (bytes) {
            test_truncation(&rng, bytes, len, groth16_vk_file_size(&p.vk));
            test_corruption(&rng, bytes, len, &p);
        }
        free(bytes);

        /* setup straight to files */
        char pp[300], vp[300];
        snprintf(pp, sizeof(pp), "%s/s.params", dir);
        snprintf(vp, sizeof(vp), "%s/s.vk", dir);
        CHECK(groth16_setup_files(pool, &cs, NULL, pp, vp, &err) == CUZK_OK);
        groth16_params q;
        CHECK(groth16_params_read(pool, &q, pp, 0, &err) == CUZK_OK);
        CHECK(q.h_len == p.h_len && q.a_len == p.a_len && !params_eq(&p, &q));
        groth16_proof proof;
        groth16_pvk pvk;
        groth16_vk vk;
        CHECK(groth16_vk_read(&vk, vp, &err) == CUZK_OK);
        CHECK(groth16_pvk_prepare(&pvk, &vk, &err) == CUZK_OK);
        CHECK(groth16_prove(pool, &q, &cs, NULL, NULL, NULL, NULL, &proof, NULL, &err) == CUZK_OK);
        CHECK(groth16_verify(pool, &pvk, &proof, cs.inputs + 1, cs.num_inputs - 1, &err) == CUZK_OK);
        groth16_pvk_free(&pvk);
        groth16_vk_free(&vk);
        groth16_params_free(&q);
        remove(pp);
        remove(vp);
        groth16_params_free(&p);
    }
    r1cs_free(&cs);
    rmdir(dir);
    pool_destroy(pool);
    return test_finish("test_groth16_params");
}
