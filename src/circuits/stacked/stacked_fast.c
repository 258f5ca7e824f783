#include "circuits/stacked/stacked_fast.h"

#include <stdlib.h>
#include <string.h>

/* Where the variables and rows of the partition live: the top level first, then challenge blocks of equal size. */
typedef struct layout {
    size_t top_in, top_aux, top_con; /* inputs count ONE */
    size_t blk_in, blk_aux, blk_con;
    unsigned n; /* challenges */
} layout;

/* A circuit or witness restricted to some challenges: stacked_synthesize reads nothing but the fields copied here,
 * and the Poseidon constants stay owned by the original. */
static stacked_circuit circuit_with(const stacked_circuit *c, unsigned challenges)
{
    stacked_circuit cc = *c;
    cc.challenges = challenges;
    return cc;
}

static cuzk_status count_prefix(const stacked_circuit *c, unsigned challenges, size_t out[3], cuzk_error *err)
{
    stacked_circuit cc = circuit_with(c, challenges);
    r1cs cs;
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st != CUZK_OK) return st;
    st = stacked_synthesize(&cs, &cc, NULL, err);
    out[0] = cs.num_inputs;
    out[1] = cs.num_aux;
    out[2] = cs.num_constraints;
    r1cs_free(&cs);
    return st;
}

static cuzk_status layout_of(const stacked_circuit *c, layout *L, cuzk_error *err)
{
    size_t top[3], one[3];
    cuzk_status st = count_prefix(c, 0, top, err);
    if (st == CUZK_OK) st = count_prefix(c, 1, one, err);
    if (st != CUZK_OK) return st;
    L->top_in = top[0];
    L->top_aux = top[1];
    L->top_con = top[2];
    L->blk_in = one[0] - top[0];
    L->blk_aux = one[1] - top[1];
    L->blk_con = one[2] - top[2];
    L->n = c->challenges;
    return CUZK_OK;
}

/* ---- witness ---- */

typedef struct witness_job {
    const stacked_circuit *c;
    const stacked_witness *w;
    const layout *L;
    r1cs *out;
    cuzk_status *st; /* per challenge */
    cuzk_error *err; /* per challenge */
} witness_job;

/* Challenge i in a system of its own that holds the top level and that one challenge; its block's values are then
 * copied to their place in the partition. Redoing the top level per challenge costs a few hundred constraints. */
static cuzk_status witness_challenge(const witness_job *j, unsigned i, cuzk_error *err)
{
    const layout *L = j->L;
    stacked_circuit cc = circuit_with(j->c, 1);
    stacked_witness wi;
    if (j->w) {
        wi = *j->w;
        wi.challenges = 1;
        wi.proofs = &j->w->proofs[i];
    }
    r1cs cs;
    cuzk_status st = r1cs_create_witness_only(&cs, err);
    if (st != CUZK_OK) return st;
    if ((st = stacked_synthesize(&cs, &cc, j->w ? &wi : NULL, err)) != CUZK_OK) {
        r1cs_free(&cs);
        return st;
    }
    if (cs.num_inputs != L->top_in + L->blk_in || cs.num_aux != L->top_aux + L->blk_aux ||
        cs.num_constraints != L->top_con + L->blk_con) {
        r1cs_free(&cs);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL,
                              "%zu inputs, %zu aux, %zu constraints with values; %zu, %zu, %zu without", cs.num_inputs,
                              cs.num_aux, cs.num_constraints, L->top_in + L->blk_in, L->top_aux + L->blk_aux,
                              L->top_con + L->blk_con);
    }
    r1cs *out = j->out;
    memcpy(out->inputs + L->top_in + i * L->blk_in, cs.inputs + L->top_in, L->blk_in * sizeof(fr_t));
    memcpy(out->aux + L->top_aux + i * L->blk_aux, cs.aux + L->top_aux, L->blk_aux * sizeof(fr_t));
    if (i == 0) {
        memcpy(out->inputs + 1, cs.inputs + 1, (L->top_in - 1) * sizeof(fr_t));
        memcpy(out->aux, cs.aux, L->top_aux * sizeof(fr_t));
    }
    r1cs_free(&cs);
    return CUZK_OK;
}

static void witness_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const witness_job *j = ctx;
    for (size_t i = begin; i < end; i++) j->st[i] = witness_challenge(j, (unsigned)i, &j->err[i]);
}

cuzk_status stacked_synthesize_witness(pool_t *pool, const stacked_circuit *c, const stacked_witness *w, r1cs *out,
                                       cuzk_error *err)
{
    const char *who = "stacked_synthesize_witness";
    memset(out, 0, sizeof *out);
    if (w && w->challenges != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: witness for %u challenges, circuit %u", who,
                              w->challenges, c->challenges);
    layout L;
    cuzk_status st = layout_of(c, &L, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    static const size_t no_nnz[3] = {0, 0, 0};
    st = r1cs_create_compiled(out, L.top_in + L.n * L.blk_in, L.top_aux + L.n * L.blk_aux,
                              L.top_con + L.n * L.blk_con, no_nnz, R1CS_WITNESS, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    cuzk_status *sts = r1cs_xcalloc(L.n, sizeof *sts);
    cuzk_error *errs = r1cs_xcalloc(L.n, sizeof *errs);
    if (!sts || !errs) {
        free(sts);
        free(errs);
        r1cs_free(out);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate %u statuses", who, L.n);
    }
    witness_job j = {c, w, &L, out, sts, errs};
    pool_parallel_for(pool, L.n, 1, witness_task, &j);
    for (unsigned i = 0; i < L.n && st == CUZK_OK; i++) {
        if (sts[i] != CUZK_OK) {
            *err = errs[i];
            st = cuzk_error_prefix(err, "%s: challenge_%u: ", who, i);
        }
    }
    free(sts);
    free(errs);
    if (st == CUZK_OK && (st = r1cs_finalize(out, err)) != CUZK_OK) cuzk_error_prefix(err, "%s: ", who);
    if (st != CUZK_OK) r1cs_free(out);
    return st;
}

/* ---- shape ---- */

static cuzk_status compile_serial(const stacked_circuit *c, r1cs *out, cuzk_error *err)
{
    cuzk_status st = r1cs_create(out, 0, err);
    if (st != CUZK_OK) return st;
    if ((st = stacked_synthesize(out, c, NULL, err)) != CUZK_OK || (st = r1cs_finalize(out, err)) != CUZK_OK)
        r1cs_free(out);
    return st;
}

/* The column delta per challenge of a column of a finalized system with two challenges (S2), and its column in a
 * partition with block 0: top-level variables stay put (delta 0), block-0 variables move by a block per challenge.
 * Returns -1 for a column of block 1, which a block-0 or top-level row must not use. */
static int map_column(const layout *L, size_t ni2, size_t ni, uint32_t col, uint32_t *base, uint32_t *delta)
{
    if (col < L->top_in) {
        *base = col, *delta = 0;
    } else if (col < L->top_in + L->blk_in) {
        *base = col, *delta = (uint32_t)L->blk_in;
    } else if (col < ni2) {
        return -1;
    } else if (col - ni2 < L->top_aux) {
        *base = (uint32_t)(col - ni2 + ni), *delta = 0;
    } else if (col - ni2 < L->top_aux + L->blk_aux) {
        *base = (uint32_t)(col - ni2 + ni), *delta = (uint32_t)L->blk_aux;
    } else {
        return -1;
    }
    return 0;
}

/* One matrix of the top level and block 0 in the partition's layout: entries of block b have column
 * base[k] + b * delta[k] (delta 0 for the top level's entries). */
typedef struct template_matrix {
    const uint64_t *row_start; /* S2's, rows 0 .. top_con + blk_con */
    const uint32_t *coeff;
    uint32_t *base, *delta;
    uint64_t top_nnz, blk_nnz;
} template_matrix;

/* Builds the templates from S2 and checks that block 1 of S2 is block 0 shifted by one block and that neither the
 * top level nor block 0 uses a later variable; CUZK_ERR_UNSUPPORTED naming the first row that is not. */
static cuzk_status make_templates(const r1cs *s2, const layout *L, size_t ni, template_matrix tm[3], cuzk_error *err)
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
        tm[m].base = r1cs_xmalloc(n0 * sizeof(uint32_t));
        tm[m].delta = r1cs_xmalloc(n0 * sizeof(uint32_t));
        if (!tm[m].base || !tm[m].delta)
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate the %c template (%llu entries)", "ABC"[m],
                                  (unsigned long long)n0);
        for (size_t r = 0; r < b1; r++) {
            for (uint64_t k = rs[r]; k < rs[r + 1]; k++)
                if (map_column(L, ni2, ni, mx[m]->col[k], &tm[m].base[k], &tm[m].delta[k]) ||
                    (r < b0 && tm[m].delta[k]))
                    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                          "%c row %zu uses column %u of a later challenge", "ABC"[m], r,
                                          mx[m]->col[k]);
            if (r < b0) continue;
            /* The same row of block 1. */
            size_t r1 = r + L->blk_con;
            uint64_t k1 = rs[r1];
            if (rs[r1 + 1] - k1 != rs[r + 1] - rs[r])
                return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                      "%c rows %zu and %zu (challenges 0 and 1) differ in length", "ABC"[m], r, r1);
            for (uint64_t k = rs[r]; k < rs[r + 1]; k++, k1++) {
                /* Block 1's column as S2 numbers it: block-0 variables shifted by one block. */
                uint32_t want = mx[m]->col[k] + tm[m].delta[k];
                if (mx[m]->col[k1] != want || mx[m]->coeff[k1] != mx[m]->coeff[k])
                    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                          "%c rows %zu and %zu (challenges 0 and 1) are not one block apart", "ABC"[m],
                                          r, r1);
            }
        }
    }
    return CUZK_OK;
}

typedef struct shape_job {
    const layout *L;
    const template_matrix *tm;
    r1cs *out;
} shape_job;

static void shape_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const shape_job *j = ctx;
    const layout *L = j->L;
    r1cs_matrix *mx[3] = {&j->out->A, &j->out->B, &j->out->C};
    for (int m = 0; m < 3; m++) {
        const template_matrix *t = &j->tm[m];
        r1cs_matrix *o = mx[m];
        size_t r = begin;
        /* Top-level rows: copied as they are. */
        for (; r < end && r < L->top_con; r++) {
            for (uint64_t k = t->row_start[r]; k < t->row_start[r + 1]; k++) {
                o->col[k] = t->base[k];
                o->coeff[k] = t->coeff[k];
            }
            o->row_start[r + 1] = t->row_start[r + 1];
        }
        if (r >= end) continue;
        size_t b = (r - L->top_con) / L->blk_con, r0 = L->top_con + (r - L->top_con) % L->blk_con;
        for (; r < end; r++, r0++) {
            if (r0 == L->top_con + L->blk_con) {
                b++;
                r0 = L->top_con;
            }
            uint64_t shift = b * t->blk_nnz; /* entry k of block 0 is entry k + shift of block b */
            uint32_t bb = (uint32_t)b;
            uint64_t s = t->row_start[r0], e = t->row_start[r0 + 1];
            uint32_t *col = o->col + shift, *coeff = o->coeff + shift;
            for (uint64_t k = s; k < e; k++) {
                col[k] = t->base[k] + bb * t->delta[k];
                coeff[k] = t->coeff[k];
            }
            o->row_start[r + 1] = e + shift;
        }
    }
}

cuzk_status stacked_compile_shape(pool_t *pool, const stacked_circuit *c, r1cs *out, cuzk_error *err)
{
    const char *who = "stacked_compile_shape";
    memset(out, 0, sizeof *out);
    cuzk_status st;
    if (c->challenges <= 2) {
        st = compile_serial(c, out, err);
        return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", who);
    }
    layout L;
    if ((st = layout_of(c, &L, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    stacked_circuit c2 = circuit_with(c, 2);
    r1cs s2;
    if ((st = compile_serial(&c2, &s2, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: two challenges: ", who);
    size_t ni = L.top_in + L.n * L.blk_in, na = L.top_aux + L.n * L.blk_aux, nc = L.top_con + L.n * L.blk_con;
    template_matrix tm[3];
    memset(tm, 0, sizeof tm);
    if (s2.num_inputs != L.top_in + 2 * L.blk_in || s2.num_aux != L.top_aux + 2 * L.blk_aux ||
        s2.num_constraints != L.top_con + 2 * L.blk_con + s2.num_inputs) {
        st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "%s: two challenges compile to %zu inputs, %zu aux, %zu rows", who,
                            s2.num_inputs, s2.num_aux, s2.num_constraints);
        goto done;
    }
    if ((st = make_templates(&s2, &L, ni, tm, err)) != CUZK_OK) {
        cuzk_error_prefix(err, "%s: the challenge blocks are not copies of one another: ", who);
        goto done;
    }
    size_t nnz[3];
    for (int m = 0; m < 3; m++) nnz[m] = tm[m].top_nnz + L.n * tm[m].blk_nnz;
    if (ni + na > UINT32_MAX) {
        st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: %zu variables do not fit 32-bit columns", who, ni + na);
        goto done;
    }
    if ((st = r1cs_create_compiled(out, ni, na, nc, nnz, R1CS_MATRICES, err)) != CUZK_OK) {
        cuzk_error_prefix(err, "%s: ", who);
        goto done;
    }
    /* The coefficient table in S2's order, which is the serial order: later challenges intern nothing new. */
    for (size_t k = 1; k < s2.num_coeffs && st == CUZK_OK; k++) {
        uint32_t idx;
        if ((st = r1cs_coeff_intern(out, &s2.coeffs[k], &idx, err)) == CUZK_OK && idx != k)
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "coefficient %zu interned at %u", k, idx);
    }
    if (st == CUZK_OK) {
        shape_job j = {&L, tm, out};
        pool_parallel_for(pool, nc, 4096, shape_task, &j);
        st = r1cs_finalize(out, err);
    }
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "%s: ", who);
        r1cs_free(out);
    }
done:
    for (int m = 0; m < 3; m++) {
        free(tm[m].base);
        free(tm[m].delta);
    }
    r1cs_free(&s2);
    return st;
}
