/* Fuzzes the G2 point decoders (compressed and uncompressed, with and without the subgroup check);
 * the input layout and the properties are described in curve_decode_impl.c. */
#include "ec/g2.h"

#define C(x) g2_##x
#define C_AFF g2_affine_t
#define C_JAC g2_jac_t
#define C_BYTES G2_COMPRESSED_BYTES

#include "curve_decode_impl.c"
