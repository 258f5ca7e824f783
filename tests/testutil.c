#include "testutil.h"

#include <stdlib.h>
#include <string.h>

int test_failures = 0;
int test_checks = 0;

uint64_t test_seed(rng_t *rng, const char *test_name)
{
    uint64_t seed = rng_fresh_seed();
    printf("%s: seed %llu (replay with CUZK_SEED=%llu)\n", test_name, (unsigned long long)seed,
           (unsigned long long)seed);
    rng_seed(rng, seed);
    return seed;
}

int test_finish(const char *test_name)
{
    int checks = __atomic_load_n(&test_checks, __ATOMIC_RELAXED);
    int failures = __atomic_load_n(&test_failures, __ATOMIC_RELAXED);
    printf("%s: %d checks, %d failed\n", test_name, checks, failures);
    return failures == 0 ? 0 : 1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int hex_decode(uint8_t *out, size_t n, const char *hex)
{
    if (strlen(hex) < 2 * n) return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = 0;
}

void test_r1cs_row(const r1cs *cs, const r1cs_matrix *mx, size_t i, const fr_t *in, const fr_t *aux, fr_t *out)
{
    fr_t t;
    fr_set_zero(out);
    for (uint64_t k = mx->row_start[i]; k < mx->row_start[i + 1]; k++) {
        uint32_t j = mx->col[k];
        const fr_t *x = j < cs->num_inputs ? &in[j] : &aux[j - cs->num_inputs];
        fr_mul(&t, &cs->coeffs[mx->coeff[k]], x);
        fr_add(out, out, &t);
    }
}

size_t test_r1cs_first_bad(const r1cs *cs, const fr_t *in, const fr_t *aux)
{
    for (size_t i = 0; i < cs->num_constraints; i++) {
        fr_t a, b, c;
        test_r1cs_row(cs, &cs->A, i, in, aux, &a);
        test_r1cs_row(cs, &cs->B, i, in, aux, &b);
        test_r1cs_row(cs, &cs->C, i, in, aux, &c);
        fr_mul(&a, &a, &b);
        if (!fr_eq(&a, &c)) return i;
    }
    return SIZE_MAX;
}

uint8_t *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    uint8_t *b = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (!b) {
        fprintf(stderr, "cannot read %s\n", path);
        return NULL;
    }
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

int test_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

void test_fp_edges(fp_t e[TEST_FP_EDGES])
{
    memset(e, 0, TEST_FP_EDGES * sizeof(fp_t));
    e[1].l[0] = 1;
    memcpy(e[2].l, FP_MODULUS, sizeof(e[2].l));
    e[2].l[0] -= 1;
    fp_set_one(&e[3]);
}
