#include "ec/g2.h"

#define F_T fp2_t
#define F(x) fp2_##x
#define F_BYTES FP2_BYTES
#define C(x) g2_##x
#define C_AFF g2_affine_t
#define C_JAC g2_jac_t
#define C_XYZZ g2_xyzz_t
#define C_GENERATOR G2_GENERATOR
#define CURVE_NAME "G2"

const g2_affine_t G2_GENERATOR = {{{{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL,
                                     0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
                                   {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL,
                                     0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
                                  {{{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL,
                                     0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
                                   {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL,
                                     0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}}};

/* b = 4(u + 1), Montgomery form */
static const fp2_t curve_b = {{{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                                0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}},
                              {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                                0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}}};
/* h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9 */
#define CURVE_COFACTOR_LIMBS 8
static const uint64_t curve_cofactor[CURVE_COFACTOR_LIMBS] = {
    0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL, 0xa628f1cb4d9e82efULL,
    0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL, 0x091d50792876a202ULL, 0x05d543a95414e7f1ULL};

#include "ec/curve_impl.h"

static const uint64_t BLS_X_ABS = 0xd201000000010000ULL;

/* psi = untwist-Frobenius-twist: psi(x, y) = (conj(x) * PSI_X, conj(y) * PSI_Y) with
 * PSI_X = 1/(u+1)^((p-1)/3), PSI_Y = 1/(u+1)^((p-1)/2). */
static const fp2_t PSI_X = {{{0, 0, 0, 0, 0, 0}},
                            {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
                              0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}}};
static const fp2_t PSI_Y = {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
                              0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
                            {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
                              0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}};

/* P is in G2 iff psi(P) = x P (Scott 2021, as for G1); checked against r*P = 0 in the tests. */
int g2_affine_in_subgroup(const g2_affine_t *p)
{
    if (g2_affine_is_inf(p)) return 1;
    g2_jac_t q, s;
    g2_affine_t ps;
    g2_jac_from_affine(&q, p);
    g2_jac_mul(&q, &q, &BLS_X_ABS, 1); /* |x| P = -x P */
    fp2_conj(&ps.x, &p->x);
    fp2_mul(&ps.x, &ps.x, &PSI_X);
    fp2_conj(&ps.y, &p->y);
    fp2_mul(&ps.y, &ps.y, &PSI_Y);
    g2_jac_from_affine(&s, &ps);
    g2_jac_add(&s, &s, &q); /* psi(P) - x P */
    return g2_jac_is_inf(&s);
}
