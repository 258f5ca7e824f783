#include "ec/g1.h"

#define F_T fp_t
#define F(x) fp_##x
#define F_BYTES FP_BYTES
#define C(x) g1_##x
#define C_AFF g1_affine_t
#define C_JAC g1_jac_t
#define C_XYZZ g1_xyzz_t
#define C_GENERATOR G1_GENERATOR
#define CURVE_NAME "G1"

const g1_affine_t G1_GENERATOR = {{{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
                                    0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
                                  {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
                                    0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}}};

/* b = 4, Montgomery form */
static const fp_t curve_b = {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                              0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}};
/* h1 = (x - 1)^2 / 3 */
#define CURVE_COFACTOR_LIMBS 2
static const uint64_t curve_cofactor[CURVE_COFACTOR_LIMBS] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};

#include "ec/curve_impl.h"

/* |x| for the BLS parameter x = -0xd201000000010000 */
static const uint64_t BLS_X_ABS = 0xd201000000010000ULL;

/* sigma(x, y) = (beta x, y) acts on G1 as multiplication by -x^2 (for this cube root of unity beta),
 * and P is in G1 iff sigma(P) = -x^2 P (Scott, "A note on group membership tests for G1, G2 and GT
 * on BLS pairing-friendly curves", 2021). Checked against r*P = 0 in the tests. */
static const fp_t G1_BETA = {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
                              0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}};

void g1_glv_beta(fp_t *beta)
{
    fp_sqr(beta, &G1_BETA);
}

int g1_affine_in_subgroup(const g1_affine_t *p)
{
    if (g1_affine_is_inf(p)) return 1;
    g1_jac_t q, s;
    g1_jac_from_affine(&q, p);
    g1_jac_mul(&q, &q, &BLS_X_ABS, 1);
    g1_jac_mul(&q, &q, &BLS_X_ABS, 1); /* x^2 P */
    g1_affine_t sig = *p;
    fp_mul(&sig.x, &sig.x, &G1_BETA);
    g1_jac_from_affine(&s, &sig);
    g1_jac_add(&s, &s, &q); /* sigma(P) + x^2 P */
    return g1_jac_is_inf(&s);
}
