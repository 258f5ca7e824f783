/* Block-replicated shapes (r1cs_blocks.h). */
#include "r1cs/r1cs_blocks.h"

#include <stdlib.h>
#include <string.h>

/* delta of an entry whose column the hook gives (base is then its slot). */
#define BY_HOOK UINT32_MAX

/* One matrix of the top part and block 0: the entries of block i have column base[k] + i * delta[k] (delta 0 for a
 * top-part column), or the hook's column of slot base[k] where delta[k] is BY_HOOK. */
typedef struct template_matrix {
    const uint64_t *row_start; /* s2's, rows 0 .. top_con + blk_con */
    const uint32_t *coeff;
    uint32_t *base, *delta;
    uint64_t top_nnz, blk_nnz;
} template_matrix;

typedef struct replicate_job {
    const r1cs_blocks *L;
    const template_matrix *tm;
    size_t ni; /* out's inputs */
    r1cs *out;
} replicate_job;

static uint32_t place(const r1cs_blocks *L, const template_matrix *t, uint64_t k, size_t i, size_t ni)
{
    uint32_t d = t->delta[k];
    return d != BY_HOOK ? t->base[k] + (uint32_t)i * d : L->block_col(L->ctx, t->base[k], i, ni);
}

/* Column col of s2 (ni2 inputs) as an entry of the template for a system of ni inputs; -1 for a column of block 1.
 * in_block: the entry is in a row of block 0, where the hook names a top-part variable block 0's own. */
static int map_column(const r1cs_blocks *L, size_t ni2, size_t ni, int in_block, uint32_t col, uint32_t *base,
                      uint32_t *delta)
{
    uint32_t slot;
    if (col < L->top_in) {
        *base = col, *delta = 0;
    } else if (col < L->top_in + L->blk_in) {
        *base = col, *delta = (uint32_t)L->blk_in;
    } else if (col < ni2) {
        return -1;
    } else if (col - ni2 < L->top_aux) {
        if (in_block && L->block_slot && L->block_slot(L->ctx, col - ni2, &slot))
            *base = slot, *delta = BY_HOOK;
        else
            *base = (uint32_t)(col - ni2 + ni), *delta = 0;
    } else if (col - ni2 < L->top_aux + L->blk_aux) {
        *base = (uint32_t)(col - ni2 + ni), *delta = (uint32_t)L->blk_aux;
    } else {
        return -1;
    }
    return 0;
}

/* Builds the templates from s2 and checks that block 1 is block 0 moved one block on and that neither the top part
 * nor block 0 uses a variable of block 1 (nor the top part a block's own variable). */
static cuzk_status make_templates(const r1cs *s2, const r1cs_blocks *L, size_t ni, template_matrix tm[3],
                                  cuzk_error *err)
{
    const r1cs_matrix *mx[3] = {&s2->A, &s2->B, &s2->C};
    size_t ni2 = s2->num_inputs, b0 = L->top_con, b1 = L->top_con + L->blk_con;
    for (int m = 0; m < 3; m++) {
        const uint64_t *rs = mx[m]->row_start;
        uint64_t n0 = rs[b1];
        tm[m].row_start = rs;
        tm[m].coeff = mx[m]->coeff;
        tm[m].top_nnz = rs[b0];
        tm[m].blk_nnz = rs[b1] - rs[b0];
        tm[m].base = r1cs_xmalloc((n0 + 1) * sizeof(uint32_t));
        tm[m].delta = r1cs_xmalloc((n0 + 1) * sizeof(uint32_t));
        if (!tm[m].base || !tm[m].delta)
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate the %c template (%llu entries)", "ABC"[m],
                                  (unsigned long long)n0);
        for (size_t r = 0; r < b1; r++) {
            for (uint64_t k = rs[r]; k < rs[r + 1]; k++)
                if (map_column(L, ni2, ni, r >= b0, mx[m]->col[k], &tm[m].base[k], &tm[m].delta[k]) ||
                    (r < b0 && tm[m].delta[k]))
                    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%c row %zu uses column %u of a later block",
                                          "ABC"[m], r, mx[m] -> col[k]);
            if (r < b0) continue;
            /* The same row of block 1, its columns as s2 numbers them. */
            size_t r1 = r + L->blk_con;
            uint64_t k1 = rs[r1];
            if (rs[r1 + 1] - k1 != rs[r + 1] - rs[r])
                return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                      "%c rows %zu and %zu (blocks 0 and 1) differ in length", "ABC"[m], r, r1);
            for (uint64_t k = rs[r]; k < rs[r + 1]; k++, k1++) {
                uint32_t want =
                    tm[m].delta[k] == BY_HOOK ? place(L, &tm[m], k, 1, ni2) : mx[m]->col[k] + tm[m].delta[k];
                if (mx[m]->col[k1] != want || mx[m]->coeff[k1] != mx[m]->coeff[k])
                    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                          "%c rows %zu and %zu (blocks 0 and 1) are not one block apart", "ABC"[m], r,
                                          r1);
            }
        }
    }
    return CUZK_OK;
}

static void replicate_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const replicate_job *j = ctx;
    const r1cs_blocks *L = j->L;
    r1cs_matrix *mx[3] = {&j->out->A, &j->out->B, &j->out->C};
    for (int m = 0; m < 3; m++) {
        const template_matrix *t = &j->tm[m];
        r1cs_matrix *o = mx[m];
        size_t r = begin;
        for (; r < end && r < L->top_con; r++) { /* the top part's rows, their columns moved past the inputs */
            for (uint64_t k = t->row_start[r]; k < t->row_start[r + 1]; k++) {
                o->col[k] = t->base[k];
                o->coeff[k] = t->coeff[k];
            }
            o->row_start[r + 1] = t->row_start[r + 1];
        }
        if (r >= end) continue;
        size_t i = (r - L->top_con) / L->blk_con, r0 = L->top_con + (r - L->top_con) % L->blk_con;
        for (; r < end; r++, r0++) {
            if (r0 == L->top_con + L->blk_con) {
                i++;
                r0 = L->top_con;
            }
            uint64_t shift = i * t->blk_nnz; /* entry k of block 0 is entry k + shift of block i */
            uint64_t s = t->row_start[r0], e = t->row_start[r0 + 1];
            uint32_t *col = o->col + shift, *coeff = o->coeff + shift;
            for (uint64_t k = s; k < e; k++) {
                col[k] = place(L, t, k, i, j->ni);
                coeff[k] = t->coeff[k];
            }
            o->row_start[r + 1] = e + shift;
        }
    }
}

cuzk_status r1cs_replicate_blocks(pool_t *pool, const r1cs *s2, const r1cs_blocks *L, r1cs *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (L->n < 2 || !L->blk_con)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_replicate_blocks: %zu blocks of %zu rows", L->n,
                              L->blk_con);
    if (!s2->finalized || s2->witness_only || s2->num_inputs != L->top_in + 2 * L->blk_in ||
        s2->num_aux != L->top_aux + 2 * L->blk_aux ||
        s2->num_constraints != L->top_con + 2 * L->blk_con + s2->num_inputs)
        return cuzk_error_set(err, CUZK_ERR_INTERNAL,
                              "two blocks compile to %zu inputs, %zu aux, %zu rows; the layout says %zu, %zu, %zu",
                              s2->num_inputs, s2->num_aux, s2->num_constraints, L->top_in + 2 * L->blk_in,
                              L->top_aux + 2 * L->blk_aux, L->top_con + 2 * L->blk_con + s2->num_inputs);
    size_t ni = L->top_in + L->n * L->blk_in, na = L->top_aux + L->n * L->blk_aux, nc = L->top_con + L->n * L->blk_con;
    if (ni + na > UINT32_MAX)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%zu variables do not fit 32-bit columns", ni + na);
    template_matrix tm[3];
    memset(tm, 0, sizeof tm);
    cuzk_status st = make_templates(s2, L, ni, tm, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "the blocks are not copies of one another: ");
        goto done;
    }
    size_t nnz[3];
    for (int m = 0; m < 3; m++) nnz[m] = tm[m].top_nnz + L->n * tm[m].blk_nnz;
    if ((st = r1cs_create_compiled(out, ni, na, nc, nnz, R1CS_MATRICES, err)) != CUZK_OK) goto done;
    /* The coefficient table in s2's order, which is the serial order: later blocks intern nothing new. */
    for (size_t k = 1; k < s2->num_coeffs && st == CUZK_OK; k++) {
        uint32_t idx;
        if ((st = r1cs_coeff_intern(out, &s2->coeffs[k], &idx, err)) == CUZK_OK && idx != k)
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "coefficient %zu interned at %u", k, idx);
    }
    if (st == CUZK_OK) {
        replicate_job j = {L, tm, ni, out};
        pool_parallel_for(pool, nc, 4096, replicate_task, &j);
        st = r1cs_finalize(out, err);
    }
    if (st != CUZK_OK) r1cs_free(out);
done:
    for (int m = 0; m < 3; m++) {
        free(tm[m].base);
        free(tm[m].delta);
    }
    return st;
}
