/* Parallel synthesis of the PoSt circuit. Sector blocks share nothing but ONE (post.h), so block s's inputs,
 * aux and constraints sit right after block s - 1's and every block has the shape of the first: the witness
 * synthesizes each sector in a witness-only system of its own and copies its values to the sector's place, and
 * the shape is compiled from two sectors, the second checked to be the first shifted, and replicated. */
#include <stdlib.h>
#include <string.h>

#include "circuits/post/post.h"

typedef struct post_layout {
    size_t blk_in, blk_aux, blk_con; /* one sector's block (inputs without ONE) */
} post_layout;

static cuzk_status post_layout_of(const post_circuit *c, post_layout *L, cuzk_error *err)
{
    r1cs cs;
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st != CUZK_OK) return st;
    st = post_synth_sector(&cs, c, NULL, err);
    L->blk_in = cs.num_inputs - 1;
    L->blk_aux = cs.num_aux;
    L->blk_con = cs.num_constraints;
    r1cs_free(&cs);
    return st;
}

/* ---- witness ---- */

typedef struct post_witness_job {
    const post_circuit *c;
    const post_witness *w;
    const post_layout *L;
    r1cs *out;
    cuzk_status *st;
    cuzk_error *err;
} post_witness_job;

static cuzk_status post_witness_sector(const post_witness_job *j, unsigned s, cuzk_error *err)
{
    r1cs cs;
    cuzk_status st = r1cs_create_witness_only(&cs, err);
    if (st != CUZK_OK) return st;
    if ((st = post_synth_sector(&cs, j->c, &j->w->sector[s], err)) == CUZK_OK) {
        if (cs.num_inputs - 1 != j->L->blk_in || cs.num_aux != j->L->blk_aux) {
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "%zu inputs, %zu aux with values; %zu, %zu without",
                                cs.num_inputs - 1, cs.num_aux, j->L->blk_in, j->L->blk_aux);
        } else {
            memcpy(j->out->inputs + 1 + s * j->L->blk_in, cs.inputs + 1, j->L->blk_in * sizeof(fr_t));
            memcpy(j->out->aux + s * j->L->blk_aux, cs.aux, j->L->blk_aux * sizeof(fr_t));
        }
    }
    r1cs_free(&cs);
    return st;
}

static void post_witness_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const post_witness_job *j = ctx;
    for (size_t s = begin; s < end; s++) j->st[s] = post_witness_sector(j, (unsigned)s, &j->err[s]);
}

cuzk_status post_synthesize_witness(pool_t *pool, const post_circuit *c, const post_witness *w, r1cs *out,
                                    cuzk_error *err)
{
    const char *who = "post_synthesize_witness";
    memset(out, 0, sizeof *out);
    if (!w || w->sectors != c->sectors || w->challenges != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: the witness does not fit the circuit (%u x %u)", who,
                              c->sectors, c->challenges);
    post_layout L;
    cuzk_status st = post_layout_of(c, &L, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    static const size_t no_nnz[3] = {0, 0, 0};
    size_t S = c->sectors;
    if ((st = r1cs_create_compiled(out, 1 + S * L.blk_in, S * L.blk_aux, S * L.blk_con, no_nnz, R1CS_WITNESS, err)) !=
        CUZK_OK)
        return cuzk_error_prefix(err, "%s: ", who);
    cuzk_status *sts = r1cs_xcalloc(S, sizeof *sts);
    cuzk_error *errs = r1cs_xcalloc(S, sizeof *errs);
    if (!sts || !errs) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the state of %zu sectors", who, S);
        goto done;
    }
    post_witness_job j = {c, w, &L, out, sts, errs};
    pool_parallel_for(pool, S, 1, post_witness_task, &j);
    for (size_t s = 0; s < S && st == CUZK_OK; s++)
        if (sts[s] != CUZK_OK) {
            *err = errs[s];
            st = cuzk_error_prefix(err, "%s: sector_%zu: ", who, s);
        }
    if (st == CUZK_OK && (st = r1cs_finalize(out, err)) != CUZK_OK) cuzk_error_prefix(err, "%s: ", who);
done:
    free(sts);
    free(errs);
    if (st != CUZK_OK) r1cs_free(out);
    return st;
}

/* ---- shape ---- */

static cuzk_status post_compile_serial(const post_circuit *c, r1cs *out, cuzk_error *err)
{
    cuzk_status st = r1cs_create(out, 0, err);
    if (st != CUZK_OK) return st;
    if ((st = post_synthesize(out, c, NULL, err)) != CUZK_OK || (st = r1cs_finalize(out, err)) != CUZK_OK)
        r1cs_free(out);
    return st;
}

/* Block 0 of the two-sector system s2 as a template: entry k of block b has column base[k] + b * delta[k]. */
typedef struct post_template {
    const uint64_t *row_start;
    const uint32_t *coeff;
    uint32_t *base, *delta;
    uint64_t nnz;
} post_template;

/* Column col of s2 (inputs ni2 = 1 + 2 blk_in) in the S-sector system (ni inputs); -1 for a column of block 1. */
static int post_map_column(const post_layout *L, size_t ni2, size_t ni, uint32_t col, uint32_t *base, uint32_t *delta)
{
    if (col == 0) {
        *base = 0, *delta = 0;
    } else if (col < 1 + L->blk_in) {
        *base = col, *delta = (uint32_t)L->blk_in;
    } else if (col < ni2) {
        return -1;
    } else if (col - ni2 < L->blk_aux) {
        *base = (uint32_t)(col - ni2 + ni), *delta = (uint32_t)L->blk_aux;
    } else {
        return -1;
    }
    return 0;
}

static cuzk_status post_make_templates(const r1cs *s2, const post_layout *L, size_t ni, post_template tm[3],
                                       cuzk_error *err)
{
    const r1cs_matrix *mx[3] = {&s2->A, &s2->B, &s2->C};
    size_t b1 = L->blk_con;
    for (int m = 0; m < 3; m++) {
        const uint64_t *rs = mx[m]->row_start;
        tm[m].row_start = rs;
        tm[m].coeff = mx[m]->coeff;
        tm[m].nnz = rs[b1];
        tm[m].base = r1cs_xmalloc((rs[b1] + 1) * sizeof(uint32_t));
        tm[m].delta = r1cs_xmalloc((rs[b1] + 1) * sizeof(uint32_t));
        if (!tm[m].base || !tm[m].delta)
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate the %c template", "ABC"[m]);
        for (size_t r = 0; r < b1; r++) {
            uint64_t k1 = rs[r + b1];
            if (rs[r + b1 + 1] - k1 != rs[r + 1] - rs[r])
                return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                      "%c rows %zu and %zu (sectors 0 and 1) differ in length", "ABC"[m], r, r + b1);
            for (uint64_t k = rs[r]; k < rs[r + 1]; k++, k1++) {
                if (post_map_column(L, s2->num_inputs, ni, mx[m]->col[k], &tm[m].base[k], &tm[m].delta[k]))
                    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%c row %zu uses column %u of sector 1", "ABC"[m],
                                          r, mx[m] -> col[k]);
                if (mx[m]->col[k1] != mx[m]->col[k] + tm[m].delta[k] || mx[m]->coeff[k1] != mx[m]->coeff[k])
                    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                          "%c rows %zu and %zu (sectors 0 and 1) are not one block apart", "ABC"[m], r,
                                          r + b1);
            }
        }
    }
    return CUZK_OK;
}

typedef struct post_shape_job {
    const post_layout *L;
    const post_template *tm;
    r1cs *out;
} post_shape_job;

static void post_shape_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const post_shape_job *j = ctx;
    r1cs_matrix *mx[3] = {&j->out->A, &j->out->B, &j->out->C};
    size_t bc = j->L->blk_con;
    for (int m = 0; m < 3; m++) {
        const post_template *t = &j->tm[m];
        for (size_t r = begin; r < end; r++) {
            size_t b = r / bc, r0 = r % bc;
            uint64_t shift = b * t->nnz, s = t->row_start[r0], e = t->row_start[r0 + 1];
            uint32_t *col = mx[m]->col + shift, *coeff = mx[m]->coeff + shift, bb = (uint32_t)b;
            for (uint64_t k = s; k < e; k++) {
                col[k] = t->base[k] + bb * t->delta[k];
                coeff[k] = t->coeff[k];
            }
            mx[m]->row_start[r + 1] = e + shift;
        }
    }
}

cuzk_status post_compile_shape(pool_t *pool, const post_circuit *c, r1cs *out, cuzk_error *err)
{
    const char *who = "post_compile_shape";
    memset(out, 0, sizeof *out);
    cuzk_status st;
    if (c->sectors <= 2) {
        st = post_compile_serial(c, out, err);
        return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", who);
    }
    post_layout L;
    if ((st = post_layout_of(c, &L, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    post_circuit c2 = *c; /* borrows c's constants */
    c2.sectors = 2;
    r1cs s2;
    if ((st = post_compile_serial(&c2, &s2, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: two sectors: ", who);
    size_t S = c->sectors, ni = 1 + S * L.blk_in, na = S * L.blk_aux, nc = S * L.blk_con;
    post_template tm[3];
    memset(tm, 0, sizeof tm);
    if (s2.num_inputs != 1 + 2 * L.blk_in || s2.num_aux != 2 * L.blk_aux ||
        s2.num_constraints != 2 * L.blk_con + s2.num_inputs) {
        st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "%s: two sectors compile to %zu inputs, %zu aux, %zu rows", who,
                            s2.num_inputs, s2.num_aux, s2.num_constraints);
        goto done;
    }
    if ((st = post_make_templates(&s2, &L, ni, tm, err)) != CUZK_OK) {
        cuzk_error_prefix(err, "%s: the sector blocks are not copies of one another: ", who);
        goto done;
    }
    if (ni + na > UINT32_MAX) {
        st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: %zu variables do not fit 32-bit columns", who, ni + na);
        goto done;
    }
    size_t nnz[3];
    for (int m = 0; m < 3; m++) nnz[m] = S * tm[m].nnz;
    if ((st = r1cs_create_compiled(out, ni, na, nc, nnz, R1CS_MATRICES, err)) != CUZK_OK) {
        cuzk_error_prefix(err, "%s: ", who);
        goto done;
    }
    /* The coefficient table in the serial order: later sectors intern nothing new. */
    for (size_t k = 1; k < s2.num_coeffs && st == CUZK_OK; k++) {
        uint32_t idx;
        if ((st = r1cs_coeff_intern(out, &s2.coeffs[k], &idx, err)) == CUZK_OK && idx != k)
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "coefficient %zu interned at %u", k, idx);
    }
    if (st == CUZK_OK) {
        post_shape_job j = {&L, tm, out};
        pool_parallel_for(pool, nc, 4096, post_shape_task, &j);
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
