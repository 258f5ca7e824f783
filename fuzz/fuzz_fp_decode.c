/* Fuzzes the byte decoders of Fp, Fr and Fp2.
 *
 * Input: one selector byte (mod 5: Fp big-endian, Fp little-endian, Fr big-endian, Fr little-endian, Fp2) and then
 * the encoding; inputs shorter than that are skipped, trailing bytes ignored.
 * Properties: a decoder accepts exactly the encodings whose value is below the modulus (decided here by a separate
 * byte-wise comparison); on accept, re-encoding reproduces the input bytes and the element's canonical limbs are the
 * encoded integer. A broken property aborts, which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff/fp.h"
#include "ff/fp2.h"
#include "ff/fr.h"

#include "fuzz_check.h"

enum { MODE_FP_BE, MODE_FP_LE, MODE_FR_BE, MODE_FR_LE, MODE_FP2, N_MODES };

/* Little-endian 64-bit limbs of an n-limb integer encoded in 8n bytes. */
static void bytes_to_limbs(uint64_t *limbs, const uint8_t *in, int n, int big_endian)
{
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) {
            /* byte k (from the most significant) of limb i */
            int pos = big_endian ? 8 * (n - 1 - i) + k : 8 * i + 7 - k;
            w = (w << 8) | in[pos];
        }
        limbs[i] = w;
    }
}

static int limbs_below(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != m[i]) return a[i] < m[i];
    return 0;
}

static void check_fp(const uint8_t *in, int big_endian)
{
    uint64_t want[FP_LIMBS], got[FP_LIMBS];
    bytes_to_limbs(want, in, FP_LIMBS, big_endian);
    fp_t x;
    int rc = big_endian ? fp_from_bytes_be(&x, in) : fp_from_bytes_le(&x, in);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK((rc == 0) == limbs_below(want, FP_MODULUS, FP_LIMBS));
    if (rc != 0) return;
    uint8_t out[FP_BYTES];
    if (big_endian)
        fp_to_bytes_be(out, &x);
    else
        fp_to_bytes_le(out, &x);
    FUZZ_CHECK(memcmp(out, in, FP_BYTES) == 0);
    fp_from_mont(got, &x);
    FUZZ_CHECK(memcmp(got, want, sizeof got) == 0);
}

static void check_fr(const uint8_t *in, int big_endian)
{
    uint64_t want[FR_LIMBS], got[FR_LIMBS];
    bytes_to_limbs(want, in, FR_LIMBS, big_endian);
    fr_t x;
    int rc = big_endian ? fr_from_bytes_be(&x, in) : fr_from_bytes_le(&x, in);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK((rc == 0) == limbs_below(want, FR_MODULUS, FR_LIMBS));
    if (rc != 0) return;
    uint8_t out[FR_BYTES];
    if (big_endian)
        fr_to_bytes_be(out, &x);
    else
        fr_to_bytes_le(out, &x);
    FUZZ_CHECK(memcmp(out, in, FR_BYTES) == 0);
    fr_from_mont(got, &x);
    FUZZ_CHECK(memcmp(got, want, sizeof got) == 0);
}

static void check_fp2(const uint8_t *in)
{
    /* c1 comes first, then c0. */
    uint64_t c1[FP_LIMBS], c0[FP_LIMBS], got[FP_LIMBS];
    bytes_to_limbs(c1, in, FP_LIMBS, 1);
    bytes_to_limbs(c0, in + FP_BYTES, FP_LIMBS, 1);
    fp2_t x;
    int rc = fp2_from_bytes_be(&x, in);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK((rc == 0) == (limbs_below(c0, FP_MODULUS, FP_LIMBS) && limbs_below(c1, FP_MODULUS, FP_LIMBS)));
    if (rc != 0) return;
    uint8_t out[FP2_BYTES];
    fp2_to_bytes_be(out, &x);
    FUZZ_CHECK(memcmp(out, in, FP2_BYTES) == 0);
    fp_from_mont(got, &x.c0);
    FUZZ_CHECK(memcmp(got, c0, sizeof got) == 0);
    fp_from_mont(got, &x.c1);
    FUZZ_CHECK(memcmp(got, c1, sizeof got) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t need[N_MODES] = {FP_BYTES, FP_BYTES, FR_BYTES, FR_BYTES, FP2_BYTES};
    if (size < 1) return 0;
    int mode = data[0] % N_MODES;
    if (size - 1 < need[mode]) return 0;
    /* An exact-size heap copy, so that AddressSanitizer sees any read past the encoding. */
    uint8_t *in = malloc(need[mode]);
    if (in == NULL) return 0;
    memcpy(in, data + 1, need[mode]);
    switch (mode) {
    case MODE_FP_BE: check_fp(in, 1); break;
    case MODE_FP_LE: check_fp(in, 0); break;
    case MODE_FR_BE: check_fr(in, 1); break;
    case MODE_FR_LE: check_fr(in, 0); break;
    default: check_fp2(in); break;
    }
    free(in);
    return 0;
}
