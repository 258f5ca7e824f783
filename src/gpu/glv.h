/* GLV for the G1 MSM (msm.cu's gpu_msm_g1_glv), the integer part, shared by the device and the tests.
 *
 * On G1, phi(x, y) = (beta x, y) for a cube root of unity beta is multiplication by lambda = x^2 - 1 (x the BLS
 * parameter -0xd201000000010000; r = lambda^2 + lambda + 1 exactly). So k P = k1 P + k2 phi(P) for
 * k = k1 + k2 lambda, and glv_split takes k1 = k mod lambda, k2 = k div lambda. lambda is ~sqrt(r), so both halves
 * are below 2^128 (k2 below 2^127 for the MSM's folded scalars, k <= (r - 1) / 2) with no lattice reduction: an MSM
 * over n scalars of 254 bits becomes one over 2n scalars of 128 bits, half the windows over twice the points. */
#ifndef CUZK_GPU_GLV_H
#define CUZK_GPU_GLV_H

#include <stdint.h>

#ifdef __CUDACC__
#define GLV_FN static __host__ __device__ __forceinline__
#else
#define GLV_FN static inline
#endif

/* Bits of the split's halves as the signed-digit windows need them: k1 < lambda < 2^128, plus the top window's carry. */
#define GLV_BITS 129

/* lambda and floor(2^256 / lambda), 32-bit limbs, least significant first. */
#define GLV_LAMBDA                                                                                                     \
    {                                                                                                                  \
        0xffffffffu, 0x00000000u, 0x0001a402u, 0xac45a401u                                                             \
    }
#define GLV_LAMBDA_INV                                                                                                 \
    {                                                                                                                  \
        0xf6cfee30u, 0x63f6e522u, 0xe01faaddu, 0x7c6becf1u, 0x00000001u                                                \
    }

/* k (8 limbs, any value below 2^256) = k1 + k2 * lambda with k1 < lambda; k1 and k2 get 4 limbs each (k2 < 2^128
 * for k < lambda * 2^128, which every k below r is). Barrett: q = floor(k * floor(2^256 / lambda) / 2^256) is at
 * most 2 below k div lambda, and the remainder is corrected by at most that many subtractions. */
GLV_FN void glv_split(const uint32_t k[8], uint32_t k1[4], uint32_t k2[4])
{
    const uint32_t lam[4] = GLV_LAMBDA, inv[5] = GLV_LAMBDA_INV;
    uint32_t t[13] = {0};
    for (int i = 0; i < 8; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 5; j++) {
            uint64_t v = (uint64_t)k[i] * inv[j] + t[i + j] + carry;
            t[i + j] = (uint32_t)v;
            carry = v >> 32;
        }
        t[i + 5] = (uint32_t)carry;
    }
    uint32_t q[4] = {t[8], t[9], t[10], t[11]};
    /* rem = k - q * lambda, kept mod 2^160: the true value is below 3 lambda < 2^130. */
    uint32_t ql[5] = {0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 4 && i + j < 5; j++) {
            uint64_t v = (uint64_t)q[i] * lam[j] + ql[i + j] + carry;
            ql[i + j] = (uint32_t)v;
            carry = v >> 32;
        }
        if (i + 4 < 5) ql[i + 4] = (uint32_t)carry;
    }
    uint32_t rem[5];
    uint64_t borrow = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t v = (uint64_t)k[i] - ql[i] - borrow;
        rem[i] = (uint32_t)v;
        borrow = (v >> 32) & 1;
    }
    for (int round = 0; round < 3; round++) {
        /* rem >= lambda? */
        int ge = rem[4] != 0;
        if (!ge) {
            ge = 1;
            for (int i = 3; i >= 0; i--)
                if (rem[i] != lam[i]) {
                    ge = rem[i] > lam[i];
                    break;
                }
        }
        if (!ge) break;
        borrow = 0;
        for (int i = 0; i < 5; i++) {
            uint64_t v = (uint64_t)rem[i] - (i < 4 ? lam[i] : 0) - borrow;
            rem[i] = (uint32_t)v;
            borrow = (v >> 32) & 1;
        }
        for (int i = 0; i < 4 && ++q[i] == 0; i++) {
        }
    }
    for (int i = 0; i < 4; i++) {
        k1[i] = rem[i];
        k2[i] = q[i];
    }
}

#endif
