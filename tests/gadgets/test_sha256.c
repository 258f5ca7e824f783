/* Native SHA-256 against FIPS vectors and sha256sum; the SHA-256 gadget against native hashing, bellperson's
 * constraint counts (25,840 per compression, 44,874 for a 512-bit message, 0 for a constant block), satisfaction,
 * and the three r1cs modes (full, shape only, witness only) agreeing. */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "circuits/gadgets/multipack.h"
#include "circuits/gadgets/sha256.h"
#include "circuits/hash/sha256.h"
#include "testutil.h"

static cuzk_error err;

static void check_hex(const uint8_t d[32], const char *hex, const char *what)
{
    uint8_t want[32];
    CHECK(hex_decode(want, 32, hex) == 0);
    CHECK_MSG(memcmp(d, want, 32) == 0, "%s", what);
}

static void test_native_vectors(void)
{
    uint8_t d[32];
    sha256_digest("", 0, d);
    check_hex(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
    sha256_digest("abc", 3, d);
    check_hex(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "abc");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_digest(m448, strlen(m448), d);
    check_hex(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "448 bits");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
                       "lmnopqrsmnopqrstnopqrstu";
    sha256_digest(m896, strlen(m896), d);
    check_hex(d, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1", "896 bits");
    /* one million 'a', fed in uneven pieces through the streaming interface */
    sha256_ctx ctx;
    sha256_init(&ctx);
    uint8_t chunk[997];
    memset(chunk, 'a', sizeof chunk);
    size_t left = 1000000;
    for (size_t step = 1; left; step = step * 7 % 997 + 1) {
        size_t n = step < left ? step : left;
        sha256_update(&ctx, chunk, n);
        left -= n;
    }
    sha256_final(&ctx, d);
    check_hex(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "million a");
}

/* Random messages of many lengths against the system's sha256sum, an independent implementation. */
static void test_native_sha256sum(rng_t *rng)
{
    if (system("command -v sha256sum >/dev/null 2>&1") != 0) {
        printf("sha256sum not found: skipping that comparison\n");
        return;
    }
    char path[] = "/tmp/cuzk_sha256_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    static const size_t lens[] = {1, 31, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4097};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        uint8_t *msg = malloc(lens[k]);
        CHECK(msg != NULL);
        if (!msg) break;
        rng_bytes(rng, msg, lens[k]);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(msg, 1, lens[k], f) == lens[k]);
        if (f) fclose(f);
        char cmd[128], line[128] = {0};
        snprintf(cmd, sizeof cmd, "sha256sum %s", path);
        FILE *p = popen(cmd, "r");
        CHECK(p != NULL);
        if (p) {
            CHECK(fgets(line, sizeof line, p) != NULL);
            pclose(p);
        }
        line[64] = 0;
        uint8_t d[32];
        sha256_digest(msg, lens[k], d);
        char hex[65];
        hex_encode(hex, d, 32);
        CHECK_MSG(strcmp(hex, line) == 0, "length %zu: ours %s, sha256sum %s", lens[k], hex, line);
        free(msg);
    }
    remove(path);
}

static void bytes_to_bits(const uint8_t *msg, size_t len, uint8_t *bits)
{
    for (size_t i = 0; i < len * 8; i++) bits[i] = msg[i / 8] >> (7 - i % 8) & 1;
}

static int alloc_bits(r1cs *cs, const uint8_t *bits, size_t n, gadget_bool *out)
{
    for (size_t i = 0; i < n; i++) {
        gadget_bit b;
        if (gadget_bit_alloc(cs, bits[i], &b, &err) != CUZK_OK) return -1;
        out[i] = gadget_bool_from_bit(&b);
    }
    return 0;
}

static void out_bits_to_bytes(const gadget_bool bits[256], uint8_t d[32])
{
    memset(d, 0, 32);
    for (int i = 0; i < 256; i++) d[i / 8] |= (uint8_t)(bits[i].value << (7 - i % 8));
}

static int satisfied(r1cs *cs)
{
    if (r1cs_finalize(cs, &err) != CUZK_OK) return 0;
    size_t bad;
    return r1cs_is_satisfied(NULL, cs, cs->inputs, cs->aux, &bad);
}

/* One compression of 512 allocated bits from the IV: 25,840 constraints, output = native compression. */
static void test_compression(rng_t *rng)
{
    uint8_t block[64], bits[512];
    rng_bytes(rng, block, sizeof block);
    bytes_to_bits(block, 64, bits);
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    gadget_bool in[512], out[256];
    CHECK(alloc_bits(&cs, bits, 512, in) == 0);
    CHECK(gadget_sha256_block_no_padding(&cs, in, out, &err) == CUZK_OK);
    CHECK_MSG(cs.num_constraints - 512 == 25840, "compression: %zu constraints", cs.num_constraints - 512);
    uint32_t st[8];
    memcpy(st, SHA256_IV, sizeof st);
    sha256_compress(st, block);
    uint8_t want[32], got[32];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) want[4 * i + j] = (uint8_t)(st[i] >> (24 - 8 * j));
    out_bits_to_bytes(out, got);
    CHECK(memcmp(got, want, 32) == 0);
    /* the output bits' variables carry the same values as the Booleans */
    int consistent = 1;
    for (int i = 0; i < 256; i++) {
        if (out[i].kind == GADGET_BOOL_CONST) continue;
        int v = !fr_is_zero(&cs.aux[out[i].var.index]);
        if ((out[i].kind == GADGET_BOOL_IS ? v : !v) != out[i].value) consistent = 0;
    }
    CHECK(consistent);
    CHECK(satisfied(&cs));
    /* flipping any single bit of the witness must break a constraint: try a few, including input bits */
    for (int t = 0; t < 8; t++) {
        size_t idx = t < 2 ? (size_t)t * 300 : (size_t)(rng_next(rng) % cs.num_aux);
        fr_t saved = cs.aux[idx], one;
        fr_set_one(&one);
        fr_add(&cs.aux[idx], &cs.aux[idx], &one);
        size_t bad;
        CHECK_MSG(!r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad), "aux %zu changed, still satisfied", idx);
        cs.aux[idx] = saved;
    }
    r1cs_free(&cs);
}

/* bellperson test_blank_hash: a constant block (the padded empty message) costs nothing. */
static void test_blank(void)
{
    r1cs cs;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    gadget_bool in[512], out[256];
    for (int i = 0; i < 512; i++) in[i] = gadget_bool_const(i == 0);
    CHECK(gadget_sha256_block_no_padding(&cs, in, out, &err) == CUZK_OK);
    CHECK(cs.num_constraints == 0);
    uint8_t d[32];
    out_bits_to_bytes(out, d);
    check_hex(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "blank block");
    r1cs_free(&cs);
}

/* The gadget over allocated message bits of many lengths against native SHA-256; 44,874 for 512 bits. */
static void test_messages(rng_t *rng)
{
    static const size_t lens[] = {0, 1, 3, 31, 32, 55, 56, 64, 100, 119, 120, 156};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t len = lens[k];
        uint8_t msg[160], bits[160 * 8];
        rng_bytes(rng, msg, len);
        bytes_to_bits(msg, len, bits);
        r1cs cs;
        CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
        gadget_bool in[160 * 8], out[256];
        CHECK(alloc_bits(&cs, bits, len * 8, in) == 0);
        CHECK(gadget_sha256(&cs, in, len * 8, out, &err) == CUZK_OK);
        if (len == 64) CHECK_MSG(cs.num_constraints - 512 == 44874, "512-bit message: %zu", cs.num_constraints - 512);
        uint8_t want[32], got[32];
        sha256_digest(msg, len, want);
        out_bits_to_bytes(out, got);
        CHECK_MSG(memcmp(got, want, 32) == 0, "length %zu", len);
        CHECK_MSG(satisfied(&cs), "length %zu not satisfied", len);
        r1cs_free(&cs);
    }
}

/* Builds sha256_fr over 64 bytes in the given mode; returns the packed output. */
static int build_fr(r1cs *cs, const uint8_t *msg, gadget_num *out)
{
    uint8_t bits[512];
    gadget_bool in[512];
    bytes_to_bits(msg, 64, bits);
    if (alloc_bits(cs, bits, 512, in)) return -1;
    return gadget_sha256_fr(cs, in, 512, out, &err) == CUZK_OK ? 0 : -1;
}

/* Filecoin's hash_circuit: value = trimmed digest as a little-endian field element; 45,387 constraints with two
 * 256-bit allocated leaves (rust-fil-proofs hash_leaf_bits_circuit test); shape-only and witness-only builds
 * agree with the full build on every count and value, and the full build's matrices are satisfied. */
static void test_fr_and_modes(rng_t *rng)
{
    uint8_t msg[64];
    rng_bytes(rng, msg, sizeof msg);
    r1cs full, shape, wit;
    gadget_num o_full, o_shape, o_wit;
    CHECK(r1cs_create(&full, 1, &err) == CUZK_OK);
    CHECK(r1cs_create(&shape, 0, &err) == CUZK_OK);
    CHECK(r1cs_create_witness_only(&wit, &err) == CUZK_OK);
    CHECK(build_fr(&full, msg, &o_full) == 0);
    CHECK(build_fr(&shape, msg, &o_shape) == 0);
    CHECK(build_fr(&wit, msg, &o_wit) == 0);
    CHECK_MSG(full.num_constraints == 45387, "hash_circuit over 512 allocated bits: %zu", full.num_constraints);
    fr_t want;
    sha256_fr(msg, 64, &want);
    CHECK(fr_eq(&o_full.value, &want));
    CHECK(fr_eq(&full.aux[o_full.var.index], &want));
    CHECK(shape.num_constraints == full.num_constraints && wit.num_constraints == full.num_constraints);
    CHECK(shape.num_aux == full.num_aux && wit.num_aux == full.num_aux);
    CHECK(memcmp(wit.aux, full.aux, full.num_aux * sizeof(fr_t)) == 0);
    CHECK(r1cs_finalize(&full, &err) == CUZK_OK);
    CHECK(r1cs_finalize(&shape, &err) == CUZK_OK);
    CHECK(r1cs_finalize(&wit, &err) == CUZK_OK);
    CHECK(r1cs_check_witness(&shape, &wit, &err) == CUZK_OK);
    size_t bad;
    CHECK(r1cs_is_satisfied(NULL, &shape, wit.inputs, wit.aux, &bad));
    CHECK(r1cs_is_satisfied(NULL, &full, full.inputs, full.aux, &bad));
    /* identical matrices from the full and shape-only builds */
    int same = full.num_coeffs == shape.num_coeffs;
    for (int m = 0; m < 3 && same; m++) {
        const r1cs_matrix *x = m == 0 ? &full.A : m == 1 ? &full.B : &full.C;
        const r1cs_matrix *y = m == 0 ? &shape.A : m == 1 ? &shape.B : &shape.C;
        size_t nnz = x->row_start[x->rows];
        same = x->rows == y->rows && nnz == y->row_start[y->rows] &&
               !memcmp(x->row_start, y->row_start, (x->rows + 1) * sizeof *x->row_start) &&
               !memcmp(x->col, y->col, nnz * sizeof *x->col) && !memcmp(x->coeff, y->coeff, nnz * sizeof *x->coeff);
    }
    CHECK(same);
    r1cs_free(&full);
    r1cs_free(&shape);
    r1cs_free(&wit);
}

/* Allocation failures anywhere inside the gadget come back as CUZK_ERR_NOMEM, never a crash. */
static void test_nomem(rng_t *rng)
{
    uint8_t msg[64];
    rng_bytes(rng, msg, sizeof msg);
    for (long n = 0; n < 4000; n += 97) {
        r1cs cs;
        if (r1cs_create(&cs, 1, &err) != CUZK_OK) continue;
        gadget_num o;
        r1cs_test_fail_alloc_after(n);
        int rc = build_fr(&cs, msg, &o);
        r1cs_test_fail_alloc_after(-1);
        CHECK(rc == 0 || err.code == CUZK_ERR_NOMEM);
        r1cs_free(&cs);
    }
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_sha256");
    test_native_vectors();
    test_native_sha256sum(&rng);
    test_compression(&rng);
    test_blank();
    test_messages(&rng);
    test_fr_and_modes(&rng);
    test_nomem(&rng);
    return test_finish("test_sha256");
}
