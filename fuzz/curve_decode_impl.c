/* The body of fuzz_g1_decode and fuzz_g2_decode, included once by each. The including file defines
 *   C(x)          the curve's names (g1_##x)
 *   C_AFF, C_JAC  the point types
 *   C_BYTES       bytes of a compressed encoding (an uncompressed one has twice as many)
 *
 * Input: one selector byte (even: compressed, odd: uncompressed) and then the encoding; shorter inputs are
 * skipped, trailing bytes ignored. Each input is decoded with and without the subgroup check.
 * Properties, each aborting when broken (libFuzzer reports that as a crash):
 * - a rejection names one of the documented errors, with a message, and the checked decode rejects it too;
 * - an accepted point is on the curve, and re-encoding it reproduces the input bytes exactly;
 * - the other encoding of an accepted point decodes to the same point;
 * - the checked decode accepts exactly the accepted points for which r*P = 0 (computed here by a plain scalar
 *   multiplication, independent of the library's subgroup test), returning the same point, and rejects the others
 *   as not in the subgroup. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/status.h"
#include "ff/fr.h"

#include "fuzz_check.h"

static cuzk_status fuzz_decode(C_AFF *r, const uint8_t *in, int compressed, int check_subgroup, cuzk_error *err)
{
    return compressed ? C(from_compressed)(r, in, check_subgroup, err)
                      : C(from_uncompressed)(r, in, check_subgroup, err);
}

static void fuzz_encode(uint8_t *out, const C_AFF *p, int compressed)
{
    if (compressed)
        C(to_compressed)(out, p);
    else
        C(to_uncompressed)(out, p);
}

static int fuzz_order_divides_r(const C_AFF *p)
{
    C_JAC j;
    C(jac_from_affine)(&j, p);
    C(jac_mul)(&j, &j, FR_MODULUS, FR_LIMBS);
    return C(jac_is_inf)(&j);
}

static void fuzz_check(const uint8_t *in, int compressed)
{
    const size_t len = compressed ? C_BYTES : 2 * C_BYTES;
    C_AFF p, q;
    cuzk_error e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    cuzk_status s1 = fuzz_decode(&p, in, compressed, 0, &e1);
    cuzk_status s2 = fuzz_decode(&q, in, compressed, 1, &e2);

    if (s1 != CUZK_OK) {
        FUZZ_CHECK(s1 == CUZK_ERR_BAD_FLAGS || s1 == CUZK_ERR_NOT_CANONICAL || s1 == CUZK_ERR_NO_SQUARE_ROOT ||
                   s1 == CUZK_ERR_NOT_ON_CURVE);
        FUZZ_CHECK(e1.code == s1 && e1.msg[0] != '\0');
        FUZZ_CHECK(s2 == s1);
        return;
    }

    FUZZ_CHECK(C(affine_is_on_curve)(&p));
    uint8_t out[2 * C_BYTES];
    fuzz_encode(out, &p, compressed);
    FUZZ_CHECK(memcmp(out, in, len) == 0);

    /* The other form must describe the same point. */
    C_AFF o;
    cuzk_error e3;
    fuzz_encode(out, &p, !compressed);
    FUZZ_CHECK(fuzz_decode(&o, out, !compressed, 0, &e3) == CUZK_OK);
    FUZZ_CHECK(C(affine_eq)(&o, &p));

    int in_subgroup = fuzz_order_divides_r(&p);
    FUZZ_CHECK(C(affine_in_subgroup)(&p) == in_subgroup);
    if (in_subgroup) {
        FUZZ_CHECK(s2 == CUZK_OK);
        FUZZ_CHECK(C(affine_eq)(&q, &p));
    } else {
        FUZZ_CHECK(s2 == CUZK_ERR_NOT_IN_SUBGROUP);
        FUZZ_CHECK(e2.code == s2 && e2.msg[0] != '\0');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int compressed = !(data[0] & 1);
    size_t len = compressed ? C_BYTES : 2 * C_BYTES;
    if (size - 1 < len) return 0;
    /* An exact-size heap copy, so that AddressSanitizer sees any read past the encoding. */
    uint8_t *in = malloc(len);
    if (in == NULL) return 0;
    memcpy(in, data + 1, len);
    fuzz_check(in, compressed);
    free(in);
    return 0;
}
