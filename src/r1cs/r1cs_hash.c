/* bellpepper-core's TestConstraintSystem::hash() (src/util_cs/test_cs.rs) over a finalized system: the fingerprint
 * rust-fil-proofs' circuit tests can print for a circuit, so equal hashes mean the same constraints, variables and
 * coefficients in the same order. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/r1cs.h"
#include "util/blake2s.h"

typedef struct hash_term {
    uint32_t col;
    fr_t coeff;
} hash_term;

static void put_u64_be(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static int hash_term_cmp(const void *a, const void *b)
{
    uint32_t x = ((const hash_term *)a)->col, y = ((const hash_term *)b)->col;
    return x < y ? -1 : x > y;
}

/* proc_lc then hash_lc: the row as an ordered map (inputs by index, then aux by index: in the final column layout
 * that is column order), repeated columns summed, zero sums dropped. */
static void hash_row(blake2s_state *h, const r1cs *cs, const r1cs_matrix *mx, size_t row, hash_term *t)
{
    uint64_t s = mx->row_start[row], e = mx->row_start[row + 1];
    size_t n = 0;
    int sorted = 1;
    for (uint64_t k = s; k < e; k++, n++) {
        t[n].col = mx->col[k];
        t[n].coeff = cs->coeffs[mx->coeff[k]];
        if (n > 0 && t[n].col <= t[n - 1].col) sorted = 0;
    }
    if (!sorted) {
        qsort(t, n, sizeof *t, hash_term_cmp);
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            if (m > 0 && t[m - 1].col == t[k].col)
                fr_add(&t[m - 1].coeff, &t[m - 1].coeff, &t[k].coeff);
            else
                t[m++] = t[k];
        }
        n = m;
    }
    size_t live = 0;
    for (size_t k = 0; k < n; k++) live += !fr_is_zero(&t[k].coeff);
    uint8_t buf[9 + FR_BYTES];
    put_u64_be(buf, live);
    blake2s_update(h, buf, 8);
    for (size_t k = 0; k < n; k++) {
        if (fr_is_zero(&t[k].coeff)) continue;
        int input = t[k].col < cs->num_inputs;
        buf[0] = input ? 'I' : 'A';
        put_u64_be(buf + 1, input ? t[k].col : t[k].col - cs->num_inputs);
        fr_to_bytes_be(buf + 9, &t[k].coeff);
        blake2s_update(h, buf, sizeof buf);
    }
}

cuzk_status r1cs_bellperson_hash(const r1cs *cs, uint8_t out[R1CS_HASH_BYTES], cuzk_error *err)
{
    if (!cs->finalized || cs->witness_only || cs->checker || cs->A.rows != cs->num_constraints)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_bellperson_hash: the system is %s",
                              cs->finalized ? "without matrices" : "not finalized");
    if (cs->num_constraints < cs->num_inputs)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "r1cs_bellperson_hash: %zu constraints cannot hold the %zu input constraints",
                              cs->num_constraints, cs->num_inputs);
    /* The input constraints r1cs_finalize appended are the last num_inputs rows; TestConstraintSystem has none. */
    size_t rows = cs->num_constraints - cs->num_inputs, widest = 1;
    const r1cs_matrix *mx[3] = {&cs->A, &cs->B, &cs->C};
    for (int m = 0; m < 3; m++)
        for (size_t i = 0; i < rows; i++) {
            size_t w = (size_t)(mx[m]->row_start[i + 1] - mx[m]->row_start[i]);
            if (w > widest) widest = w;
        }
    hash_term *t = malloc(widest * sizeof *t);
    if (!t) return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_bellperson_hash: out of memory for a row of %zu", widest);
    blake2s_state h;
    blake2s_init(&h, R1CS_HASH_BYTES, NULL, 0);
    uint8_t head[24];
    put_u64_be(head, cs->num_inputs);
    put_u64_be(head + 8, cs->num_aux);
    put_u64_be(head + 16, rows);
    blake2s_update(&h, head, sizeof head);
    for (size_t i = 0; i < rows; i++)
        for (int m = 0; m < 3; m++) hash_row(&h, cs, mx[m], i, t);
    blake2s_final(&h, out);
    free(t);
    return CUZK_OK;
}

void r1cs_hash_hex(const uint8_t hash[R1CS_HASH_BYTES], char out[2 * R1CS_HASH_BYTES + 1])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < R1CS_HASH_BYTES; i++) {
        out[2 * i] = hex[hash[i] >> 4];
        out[2 * i + 1] = hex[hash[i] & 15];
    }
    out[2 * R1CS_HASH_BYTES] = 0;
}
