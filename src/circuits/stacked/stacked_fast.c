#include "circuits/stacked/stacked_fast.h"

#include <string.h>

cuzk_status stacked_synthesize_witness(pool_t *pool, const stacked_circuit *c, const stacked_witness *w, r1cs *out,
                                       cuzk_error *err)
{
    (void)pool;
    cuzk_status st = r1cs_create_witness_only(out, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "stacked_synthesize_witness: ");
    if ((st = stacked_synthesize(out, c, w, err)) != CUZK_OK || (st = r1cs_finalize(out, err)) != CUZK_OK) {
        r1cs_free(out);
        return cuzk_error_prefix(err, "stacked_synthesize_witness: ");
    }
    return CUZK_OK;
}

cuzk_status stacked_compile_shape(pool_t *pool, const stacked_circuit *c, r1cs *out, cuzk_error *err)
{
    (void)pool;
    cuzk_status st = r1cs_create(out, 0, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "stacked_compile_shape: ");
    if ((st = stacked_synthesize(out, c, NULL, err)) != CUZK_OK || (st = r1cs_finalize(out, err)) != CUZK_OK) {
        r1cs_free(out);
        return cuzk_error_prefix(err, "stacked_compile_shape: ");
    }
    return CUZK_OK;
}
