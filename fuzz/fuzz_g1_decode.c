/* Fuzzes the G1 point decoders (compressed and uncompressed, with and without the subgroup check);
 * the input layout and the properties are described in curve_decode_impl.c. */
#include "ec/g1.h"

#define C(x) g1_##x
#define C_AFF g1_affine_t
#define C_JAC g1_jac_t
#define C_BYTES G1_COMPRESSED_BYTES

#include "curve_decode_impl.c"
