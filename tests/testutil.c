#include "testutil.h"

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
