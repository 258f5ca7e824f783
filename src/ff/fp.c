#include "ff/fp.h"

const uint64_t FP_MODULUS[FP_LIMBS] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                       0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
#define mont_mod FP_MODULUS
static const uint64_t mont_one[FP_LIMBS] = {0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                            0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL};
static const uint64_t mont_r2[FP_LIMBS] = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                                           0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
static const uint64_t mont_inv = 0x89f3fffcfffcfffdULL;
const uint64_t FP_MONT_PM[FP_LIMBS + 1] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                           0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
                                           0x89f3fffcfffcfffdULL};
const uint64_t FP_MONT_PZ[2 * FP_LIMBS] = {0xb9feffffffffaaabULL,
                                           0x1eabfffeb153ffffULL,
                                           0x6730d2a0f6b0f624ULL,
                                           0x64774b84f38512bfULL,
                                           0x4b1ba7b6434bacd7ULL,
                                           0x1a0111ea397fe69aULL,
                                           0,
                                           0,
                                           0,
                                           0,
                                           0,
                                           0};
#define mont_pm FP_MONT_PM
#define mont_pz FP_MONT_PZ

#define MONT_N FP_LIMBS
#define MONT_T fp_t
#define MONT_FN(x) fp_##x
#define MONT_MUL_ADX mont_mul_adx_6
#define MONT_ADD_ASM mont_add_6
#define MONT_SUB_ASM mont_sub_6
#include "ff/mont_impl.h"

/* p = 3 mod 4, so a square root is a^((p+1)/4). */
int fp_sqrt(fp_t *r, const fp_t *a)
{
    uint64_t e[FP_LIMBS];
    uint64_t carry = 1;
    for (int i = 0; i < FP_LIMBS; i++) { /* e = p + 1 (no overflow: p has spare top bits) */
        e[i] = FP_MODULUS[i] + carry;
        carry = e[i] < carry;
    }
    for (int i = 0; i < FP_LIMBS; i++) e[i] = (e[i] >> 2) | (i + 1 < FP_LIMBS ? e[i + 1] << 62 : 0);
    fp_t s, check;
    fp_pow(&s, a, e, FP_LIMBS);
    fp_sqr(&check, &s);
    if (!fp_eq(&check, a)) return 0;
    *r = s;
    return 1;
}

int fp_is_lexicographically_largest(const fp_t *a)
{
    /* (p-1)/2 */
    static const uint64_t half[FP_LIMBS] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
                                            0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};
    uint64_t c[FP_LIMBS];
    fp_from_mont(c, a);
    for (int i = FP_LIMBS - 1; i >= 0; i--)
        if (c[i] != half[i]) return c[i] > half[i];
    return 0;
}

void fp_random(fp_t *r, rng_t *rng)
{
    uint64_t c[FP_LIMBS];
    do {
        for (int i = 0; i < FP_LIMBS; i++) c[i] = rng_next(rng);
        c[FP_LIMBS - 1] &= (1ULL << (381 - 320)) - 1;
    } while (fp_to_mont(r, c) != 0);
}
