/* r1cs_replicate_blocks against serial synthesis: random circuits of a top part and n blocks of one random shape
 * (inputs and aux in the top part and in each block, rows of the top part over top-part variables, block rows over
 * the top part's, their own and a top-part variable that belongs to the block, reached through the hook), the
 * system replicated from two blocks compared entry for entry with all n synthesized; then the errors: a second
 * block that differs in a coefficient, a column or a row's length, sizes that are not the layout's, too few blocks,
 * a system that is not finalized. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/r1cs.h"
#include "r1cs/r1cs_blocks.h"
#include "testutil.h"
#include "util/pool.h"

static rng_t rng;

#define MAX_TERMS 4
#define MAX_ROWS 8
#define MAX_BLOCKS 9

/* A term of a template row: which variable (by its role) and the coefficient's index in coeffs[]. */
enum { REF_ONE, REF_TOP_IN, REF_TOP_AUX, REF_OWN_BIT, REF_BLK_IN, REF_BLK_AUX, REF_KINDS };

typedef struct term {
    int ref, idx, coeff;
} term;

typedef struct row {
    int len[3];
    term t[3][MAX_TERMS];
} row;

typedef struct shape {
    int top_in, top_aux, blk_in, blk_aux, top_rows, blk_rows, n;
    int bit_at; /* the blocks' bits sit in the top part's aux from here, one per block */
    row top[MAX_ROWS], blk[MAX_ROWS];
    fr_t coeffs[5];
} shape;

/* How block 1 of a system may differ from block 0 (for the error cases). */
enum { SAME, OTHER_COEFF, OTHER_COLUMN, LONGER_ROW };

static int pick(int n)
{
    return (int)(rng_next(&rng) % (uint64_t)n);
}

static void random_row(const shape *s, row *r, int in_block)
{
    for (int m = 0; m < 3; m++) {
        r->len[m] = pick(MAX_TERMS - 1) + (m == 0); /* A never empty; room for LONGER_ROW's extra term */
        for (int k = 0; k < r->len[m]; k++) {
            term *t = &r->t[m][k];
            do t->ref = pick(in_block ? REF_KINDS : REF_OWN_BIT + 1);
            while ((t->ref == REF_TOP_IN && !s->top_in) || (t->ref == REF_BLK_IN && !s->blk_in));
            /* The top part's rows may use any of its aux variables, the blocks' bits too; a block's rows its own
             * bit only (REF_OWN_BIT), since a bit of another block used as a plain variable would not be block 0's
             * shape moved on. */
            int range = t->ref == REF_TOP_IN    ? s->top_in
                        : t->ref == REF_TOP_AUX ? s->top_aux + (in_block ? 0 : s->n)
                        : t->ref == REF_BLK_IN  ? s->blk_in
                        : t->ref == REF_BLK_AUX ? s->blk_aux
                                                : 1;
            t->idx = pick(range);
            if (in_block && t->ref == REF_TOP_AUX && t->idx >= s->bit_at) t->idx += s->n;
            t->coeff = pick(5);
        }
    }
}

static void random_shape(shape *s)
{
    memset(s, 0, sizeof *s);
    s->top_in = pick(3);
    s->top_aux = 1 + pick(4);
    s->blk_in = pick(3);
    s->blk_aux = 1 + pick(5);
    s->top_rows = pick(4);
    s->blk_rows = 1 + pick(MAX_ROWS - 1);
    s->n = 3 + pick(MAX_BLOCKS - 2);
    s->bit_at = pick(s->top_aux + 1);
    for (int k = 0; k < 5; k++) fr_random(&s->coeffs[k], &rng);
    fr_set_one(&s->coeffs[0]);
    for (int r = 0; r < s->top_rows; r++) random_row(s, &s->top[r], 0);
    for (int r = 0; r < s->blk_rows; r++) random_row(s, &s->blk[r], 1);
}

typedef struct vars {
    r1cs_var top_in[2], top_aux[4 + MAX_BLOCKS], blk_in[2], blk_aux[5];
} vars;

static r1cs_var var_of(const shape *s, const vars *v, const term *t, int block)
{
    switch (t->ref) {
    case REF_TOP_IN: return v->top_in[t->idx];
    case REF_TOP_AUX: return v->top_aux[t->idx];
    case REF_OWN_BIT: return v->top_aux[s->bit_at + block];
    case REF_BLK_IN: return v->blk_in[t->idx];
    case REF_BLK_AUX: return v->blk_aux[t->idx];
    default: return r1cs_one();
    }
}

static cuzk_status enforce_row(r1cs *cs, const shape *s, const vars *v, const row *r, int block, int change,
                               cuzk_error *err)
{
    r1cs_lc lc[3];
    cuzk_status st = CUZK_OK;
    for (int m = 0; m < 3; m++) {
        r1cs_lc_init(&lc[m]);
        for (int k = 0; k < r->len[m] && st == CUZK_OK; k++) {
            term t = r->t[m][k];
            if (m == 0 && k == 0 && change == OTHER_COEFF) t.coeff = (t.coeff + 1) % 5;
            /* Another top-part variable than block 0 used (ONE, which no other term of A's first is). */
            if (m == 0 && k == 0 && change == OTHER_COLUMN) t.ref = t.ref == REF_ONE ? REF_OWN_BIT : REF_ONE;
            st = r1cs_lc_add(&lc[m], var_of(s, v, &t, block), &s->coeffs[t.coeff], err);
        }
    }
    if (st == CUZK_OK && change == LONGER_ROW) st = r1cs_lc_add(&lc[2], var_of(s, v, &r->t[0][0], block), NULL, err);
    if (st == CUZK_OK) st = r1cs_enforce(cs, &lc[0], &lc[1], &lc[2], err);
    for (int m = 0; m < 3; m++) r1cs_lc_free(&lc[m]);
    return st;
}

/* The top part and blocks 0 .. blocks - 1 into cs (finalized); block 1's first row changed by change. */
static cuzk_status synth(r1cs *cs, const shape *s, int blocks, int change, cuzk_error *err)
{
    vars v;
    cuzk_status st = r1cs_create(cs, 0, err);
    for (int k = 0; k < s->top_in && st == CUZK_OK; k++) st = r1cs_alloc_input(cs, NULL, &v.top_in[k], err);
    for (int k = 0; k < s->top_aux + s->n && st == CUZK_OK; k++) st = r1cs_alloc_aux(cs, NULL, &v.top_aux[k], err);
    for (int r = 0; r < s->top_rows && st == CUZK_OK; r++) st = enforce_row(cs, s, &v, &s->top[r], 0, SAME, err);
    for (int b = 0; b < blocks && st == CUZK_OK; b++) {
        for (int k = 0; k < s->blk_in && st == CUZK_OK; k++) st = r1cs_alloc_input(cs, NULL, &v.blk_in[k], err);
        for (int k = 0; k < s->blk_aux && st == CUZK_OK; k++) st = r1cs_alloc_aux(cs, NULL, &v.blk_aux[k], err);
        for (int r = 0; r < s->blk_rows && st == CUZK_OK; r++)
            st = enforce_row(cs, s, &v, &s->blk[r], b, b == 1 && r == 0 ? change : SAME, err);
    }
    if (st == CUZK_OK) st = r1cs_finalize(cs, err);
    return st;
}

/* The hook: block 0's bit is the top part's aux variable bit_at; block i's, bit_at + i. */
static int bit_slot(void *ctx, size_t a, uint32_t *slot)
{
    const shape *s = ctx;
    if (a != (size_t)s->bit_at) return 0;
    *slot = 0;
    return 1;
}

static uint32_t bit_col(void *ctx, uint32_t slot, size_t i, size_t num_inputs)
{
    const shape *s = ctx;
    return (uint32_t)(num_inputs + (size_t)s->bit_at + slot + i);
}

static r1cs_blocks layout_of(shape *s)
{
    r1cs_blocks L = {.top_in = 1 + (size_t)s->top_in,
                     .top_aux = (size_t)(s->top_aux + s->n),
                     .top_con = (size_t)s->top_rows,
                     .blk_in = (size_t)s->blk_in,
                     .blk_aux = (size_t)s->blk_aux,
                     .blk_con = (size_t)s->blk_rows,
                     .n = (size_t)s->n,
                     .block_slot = bit_slot,
                     .block_col = bit_col,
                     .ctx = s};
    return L;
}

static int same_system(const r1cs *a, const r1cs *b)
{
    if (a->num_inputs != b->num_inputs || a->num_aux != b->num_aux || a->num_constraints != b->num_constraints ||
        a->num_coeffs != b->num_coeffs || memcmp(a->coeffs, b->coeffs, a->num_coeffs * sizeof(fr_t)))
        return 0;
    const r1cs_matrix *ma[3] = {&a->A, &a->B, &a->C}, *mb[3] = {&b->A, &b->B, &b->C};
    for (int m = 0; m < 3; m++) {
        size_t nnz = ma[m]->row_start[ma[m]->rows];
        if (ma[m]->rows != mb[m]->rows || memcmp(ma[m]->row_start, mb[m]->row_start, (ma[m]->rows + 1) * 8) ||
            memcmp(ma[m]->col, mb[m]->col, nnz * 4) || memcmp(ma[m]->coeff, mb[m]->coeff, nnz * 4))
            return 0;
    }
    return 1;
}

static void test_random(pool_t *pool, int trials)
{
    cuzk_error err;
    for (int trial = 0; trial < trials; trial++) {
        shape s;
        random_shape(&s);
        r1cs s2, full, rep;
        CHECK_MSG(synth(&s2, &s, 2, SAME, &err) == CUZK_OK, "%s", err.msg);
        CHECK_MSG(synth(&full, &s, s.n, SAME, &err) == CUZK_OK, "%s", err.msg);
        r1cs_blocks L = layout_of(&s);
        CHECK_MSG(r1cs_replicate_blocks(pool, &s2, &L, &rep, &err) == CUZK_OK, "trial %d: %s", trial, err.msg);
        CHECK_MSG(same_system(&rep, &full),
                  "trial %d (%d blocks of %d rows, top %d rows): the replicated system differs", trial, s.n, s.blk_rows,
                  s.top_rows);
        /* Without the hook the bit of block 0 would be copied into every block: the check against block 1 says so
         * whenever a block row uses it. */
        int uses_bit = 0;
        for (int r = 0; r < s.blk_rows; r++)
            for (int m = 0; m < 3; m++)
                for (int k = 0; k < s.blk[r].len[m]; k++) uses_bit |= s.blk[r].t[m][k].ref == REF_OWN_BIT;
        r1cs_free(&rep);
        L.block_slot = NULL;
        cuzk_status st = r1cs_replicate_blocks(pool, &s2, &L, &rep, &err);
        CHECK_MSG(uses_bit ? st == CUZK_ERR_UNSUPPORTED : st == CUZK_OK && same_system(&rep, &full),
                  "trial %d: without the hook: status %d (a block row uses its bit: %d)", trial, (int)st, uses_bit);
        r1cs_free(&rep);
        r1cs_free(&s2);
        r1cs_free(&full);
    }
}

static void test_errors(pool_t *pool)
{
    cuzk_error err;
    shape s;
    random_shape(&s);
    r1cs_blocks L = layout_of(&s);
    r1cs s2, rep;
    static const int changes[] = {OTHER_COEFF, OTHER_COLUMN, LONGER_ROW};
    for (size_t c = 0; c < sizeof changes / sizeof changes[0]; c++) {
        CHECK_MSG(synth(&s2, &s, 2, changes[c], &err) == CUZK_OK, "%s", err.msg);
        memset(&rep, 0xff, sizeof rep);
        CHECK_MSG(r1cs_replicate_blocks(pool, &s2, &L, &rep, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.msg, "row"),
                  "change %d: %s", changes[c], err.msg);
        CHECK(rep.A.col == NULL && rep.num_constraints == 0); /* zeroed */
        r1cs_free(&s2);
    }
    CHECK(synth(&s2, &s, 2, SAME, &err) == CUZK_OK);
    r1cs_blocks bad = L;
    bad.blk_aux++;
    CHECK(r1cs_replicate_blocks(pool, &s2, &bad, &rep, &err) == CUZK_ERR_INTERNAL && strstr(err.msg, "layout says"));
    bad = L;
    bad.n = 1;
    CHECK(r1cs_replicate_blocks(pool, &s2, &bad, &rep, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&s2);
    /* Not finalized: no compiled matrices to read. */
    CHECK(r1cs_create(&s2, 0, &err) == CUZK_OK);
    CHECK(r1cs_replicate_blocks(pool, &s2, &L, &rep, &err) == CUZK_ERR_INTERNAL);
    r1cs_free(&s2);
}

int main(void)
{
    test_seed(&rng, "test_r1cs_blocks");
    pool_t *pool = NULL;
    cuzk_error err;
    CHECK(pool_create(&pool, 3, &err) == CUZK_OK);
    test_random(pool, 300);
    test_random(NULL, 20);
    test_errors(pool);
    pool_destroy(pool);
    return test_finish("test_r1cs_blocks");
}
