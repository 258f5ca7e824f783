/* The replicated SnapDeals shape (update_compile_shape: top level + two blocks compiled, the block placed
 * challenges times with each challenge's own bits) equals the shape of synthesizing every block
 * (update_compile_shape_serial), entry for entry, on sizes of every TreeR variant. */
#include <stdlib.h>
#include <string.h>

#include "circuits/update/update.h"
#include "testutil.h"

static cuzk_error err;

static int same_matrix(const r1cs_matrix *a, const r1cs_matrix *b)
{
    if (a->rows != b->rows || memcmp(a->row_start, b->row_start, (a->rows + 1) * sizeof(uint64_t))) return 0;
    size_t nnz = a->row_start[a->rows];
    return !memcmp(a->col, b->col, nnz * sizeof(uint32_t)) && !memcmp(a->coeff, b->coeff, nnz * sizeof(uint32_t));
}

int main(void)
{
    static const char *const sizes[] = {"1KiB", "32KiB"}; /* TreeR 8-4-0 and 8-8-2, 10 challenges each */
    pool_t *pool;
    CHECK(pool_create(&pool, 3, &err) == CUZK_OK);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const update_geometry *g;
        update_circuit c;
        CHECK(update_geometry_parse(sizes[i], &g, &err) == CUZK_OK && update_circuit_init(&c, g, &err) == CUZK_OK);
        r1cs fast, ser;
        CHECK_MSG(update_compile_shape(pool, &c, &fast, &err) == CUZK_OK, "%s", err.msg);
        CHECK(update_compile_shape_serial(&c, &ser, &err) == CUZK_OK);
        CHECK_MSG(fast.num_inputs == ser.num_inputs && fast.num_aux == ser.num_aux &&
                      fast.num_constraints == ser.num_constraints && fast.num_coeffs == ser.num_coeffs,
                  "%s: sizes differ", sizes[i]);
        CHECK_MSG(same_matrix(&fast.A, &ser.A) && same_matrix(&fast.B, &ser.B) && same_matrix(&fast.C, &ser.C),
                  "%s: matrices differ", sizes[i]);
        CHECK(fast.num_coeffs == ser.num_coeffs && !memcmp(fast.coeffs, ser.coeffs, ser.num_coeffs * sizeof(fr_t)));
        r1cs_free(&fast);
        r1cs_free(&ser);
        update_circuit_free(&c);
    }
    pool_destroy(pool);
    return test_finish("test_update_shape");
}
