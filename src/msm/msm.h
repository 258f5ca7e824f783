/* Multi-scalar multiplication on CPU threads: sum_i s_i * P_i for G1 and G2
 * (Pippenger with signed window digits), and batch addition (the plain sum of
 * selected bases). Scalars are Fr in Montgomery form as the prover holds them.
 *
 * Density: bellperson's DensityTracker bit vectors (bit i = word i/64, bit
 * i%64). With a density mask, scalar i is used iff bit i is set, and the bases
 * are consumed in order, one per set bit (the compacted base vector of .params).
 * Without a mask (NULL), scalar i pairs with base i. */
#ifndef CUZK_MSM_MSM_H
#define CUZK_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "util/pool.h"

/* r = sum over i < n with density bit set (or all i when density is NULL) of scalars[i] * bases[k(i)],
 * k(i) = number of set bits before i. bases must hold at least that many points. Infinity among the
 * bases is allowed. Scalars equal to 1 are summed separately (no bucket work). */
void msm_g1(pool_t *pool, g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, const uint64_t *density,
            size_t n);
void msm_g2(pool_t *pool, g2_jac_t *r, const g2_affine_t *bases, const fr_t *scalars, const uint64_t *density,
            size_t n);

/* msm_g1/msm_g2 with the window size forced to c bits (1..16; 0 chooses as msm_g1 does). For tests that must
 * reach every window size with few points, and for benchmarks that sweep it. */
void msm_g1_window(pool_t *pool, g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, const uint64_t *density,
                   size_t n, unsigned c);
void msm_g2_window(pool_t *pool, g2_jac_t *r, const g2_affine_t *bases, const fr_t *scalars, const uint64_t *density,
                   size_t n, unsigned c);

/* r = sum of bases[i] over i < n with bit i of mask set. */
void batch_add_g1(pool_t *pool, g1_jac_t *r, const g1_affine_t *bases, const uint64_t *mask, size_t n);

/* Window size (bits) the MSM uses for n points on nthreads threads; exposed for benchmarks. */
unsigned msm_window_bits(size_t n, unsigned nthreads);

/* Number of set bits in the first n bits of a density vector. */
size_t density_popcount(const uint64_t *density, size_t n);

#endif
