#include "ff/fr.h"

const uint64_t FR_MODULUS[FR_LIMBS] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                       0x73eda753299d7d48ULL};
#define mont_mod FR_MODULUS
static const uint64_t mont_one[FR_LIMBS] = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                                            0x1824b159acc5056fULL};
static const uint64_t mont_r2[FR_LIMBS] = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
                                           0x0748d9d99f59ff11ULL};
static const uint64_t mont_inv = 0xfffffffeffffffffULL;
/* Read only by the assembly: unused where it is compiled out (CUZK_NO_ASM, other processors). */
__attribute__((unused)) static const uint64_t mont_pm[FR_LIMBS + 1] = {
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL, 0xfffffffeffffffffULL};
/* The modulus followed by as many zero limbs, for the assembly addition and subtraction. */
static const uint64_t mont_pz[2 * FR_LIMBS] = {
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL, 0, 0, 0, 0};

#define MONT_N FR_LIMBS
#define MONT_T fr_t
#define MONT_FN(x) fr_##x
#define MONT_MUL_ADX mont_mul_adx_4
#define MONT_ADD_ASM mont_add_4
#define MONT_SUB_ASM mont_sub_4
#include "ff/mont_impl.h"

void fr_root_of_unity(fr_t *r, unsigned log_n)
{
    /* 7^((r-1)/2^32) in Montgomery form: a primitive 2^32-th root of unity. */
    static const fr_t root = {
        {0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL}};
    fr_t w = root;
    for (unsigned i = log_n; i < FR_TWO_ADICITY; i++) fr_sqr(&w, &w);
    *r = w;
}

void fr_random(fr_t *r, rng_t *rng)
{
    uint64_t c[FR_LIMBS];
    do {
        for (int i = 0; i < FR_LIMBS; i++) c[i] = rng_next(rng);
        c[FR_LIMBS - 1] &= (1ULL << (255 - 192)) - 1;
    } while (fr_to_mont(r, c) != 0);
}
