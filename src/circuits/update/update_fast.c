#include <stdlib.h>
#include <string.h>

#include "circuits/update/update.h"

typedef struct witness_job {
    const update_circuit *c;
    const update_witness *w;
    const update_top_vars *top;
    size_t top_aux, blk_aux, blk_con;
    r1cs *out;
    cuzk_status *st;
    cuzk_error *err;
} witness_job;

static void block_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const witness_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        r1cs cs;
        cuzk_status st = r1cs_create_witness_only(&cs, &j->err[i]);
        if (st == CUZK_OK)
            st = update_synth_challenge(&cs, j->c, j->top, (unsigned)i, j->w ? &j->w->proofs[i] : NULL, &j->err[i]);
        if (st == CUZK_OK && (cs.num_aux != j->blk_aux || cs.num_constraints != j->blk_con || cs.num_inputs != 1))
            st = cuzk_error_set(&j->err[i], CUZK_ERR_INTERNAL, "block %zu: %zu aux, %zu constraints; counted %zu, %zu",
                                i, cs.num_aux, cs.num_constraints, j->blk_aux, j->blk_con);
        if (st == CUZK_OK) memcpy(j->out->aux + j->top_aux + i * j->blk_aux, cs.aux, j->blk_aux * sizeof(fr_t));
        else cuzk_error_prefix(&j->err[i], "c_index=%zu: ", i);
        j->st[i] = st;
        r1cs_free(&cs);
    }
}

cuzk_status update_synthesize_witness(pool_t *pool, const update_circuit *c, const update_witness *w, r1cs *out,
                                      cuzk_error *err)
{
    const char *who = "update_synthesize_witness";
    memset(out, 0, sizeof *out);
    update_info info;
    cuzk_status st = update_circuit_info(c, &info, err);
    if (st) return cuzk_error_prefix(err, "%s: ", who);
    r1cs top_cs;
    update_top_vars top;
    memset(&top, 0, sizeof top);
    if ((st = r1cs_create_witness_only(&top_cs, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    cuzk_status *sts = calloc(c->challenges, sizeof *sts);
    cuzk_error *errs = calloc(c->challenges, sizeof *errs);
    if (!sts || !errs) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", who);
        goto done;
    }
    if ((st = update_synth_top(&top_cs, c, w, &top, err)) != CUZK_OK) goto done;
    if (top_cs.num_aux != info.top_aux || top_cs.num_inputs != info.inputs) {
        st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "top: %zu aux with values, %zu counted", top_cs.num_aux,
                            info.top_aux);
        goto done;
    }
    static const size_t no_nnz[3] = {0, 0, 0};
    if ((st = r1cs_create_compiled(out, info.inputs, info.aux, info.synth_constraints, no_nnz, R1CS_WITNESS, err)) !=
        CUZK_OK)
        goto done;
    memcpy(out->inputs + 1, top_cs.inputs + 1, (info.inputs - 1) * sizeof(fr_t));
    memcpy(out->aux, top_cs.aux, info.top_aux * sizeof(fr_t));
    witness_job j = {c, w, &top, info.top_aux, info.challenge_aux, info.challenge_constraints, out, sts, errs};
    pool_parallel_for(pool, c->challenges, 1, block_task, &j);
    for (unsigned i = 0; i < c->challenges && st == CUZK_OK; i++)
        if (sts[i] != CUZK_OK) *err = errs[i], st = sts[i];
    if (st == CUZK_OK) st = r1cs_finalize(out, err);
done:
    update_top_vars_free(&top);
    r1cs_free(&top_cs);
    free(sts);
    free(errs);
    if (st != CUZK_OK) {
        r1cs_free(out);
        cuzk_error_prefix(err, "%s: ", who);
    }
    return st;
}

cuzk_status update_compile_shape_serial(const update_circuit *c, r1cs *out, cuzk_error *err)
{
    cuzk_status st = r1cs_create(out, 0, err);
    if (st == CUZK_OK) st = update_synthesize(out, c, NULL, err);
    if (st == CUZK_OK) st = r1cs_finalize(out, err);
    if (st != CUZK_OK) {
        r1cs_free(out);
        cuzk_error_prefix(err, "update_compile_shape: %s: ", c->g->name);
    }
    return st;
}

/* An entry of a block-0 row, to be placed in block i: a fixed column (ONE, inputs, top-level variables every block
 * shares), a variable of the block itself (base + i blocks), or bit b of the block's own challenge. */
enum { ENT_FIXED = 0, ENT_LOCAL = 1, ENT_CBIT = 2 };

typedef struct shape_tpl {
    const update_circuit *c;
    const update_info *info;
    const update_top_vars *top;
    const r1cs *s2;
    size_t ni;
    uint8_t *kind[3];
    uint32_t *val[3]; /* FIXED: the column; LOCAL: the offset in the block; CBIT: b */
    r1cs *out;
} shape_tpl;

static uint32_t tpl_col(const shape_tpl *t, int m, uint64_t k, size_t i)
{
    uint32_t v = t->val[m][k];
    switch (t->kind[m][k]) {
    case ENT_LOCAL: return (uint32_t)(t->ni + t->info->top_aux + i * t->info->challenge_aux + v);
    case ENT_CBIT: return (uint32_t)(t->ni + t->top->c_bits[i * t->c->challenge_bits + v].var.index);
    default: return v;
    }
}

static void shape_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const shape_tpl *t = ctx;
    const r1cs_matrix *sm[3] = {&t->s2->A, &t->s2->B, &t->s2->C};
    r1cs_matrix *om[3] = {&t->out->A, &t->out->B, &t->out->C};
    size_t top_con = t->info->top_constraints, blk_con = t->info->challenge_constraints;
    for (int m = 0; m < 3; m++) {
        const uint64_t *rs = sm[m]->row_start;
        uint64_t top_nnz = rs[top_con], blk_nnz = rs[top_con + blk_con] - top_nnz;
        for (size_t r = begin; r < end; r++) {
            size_t i = 0, r0 = r;
            uint64_t shift = 0;
            if (r >= top_con) {
                i = (r - top_con) / blk_con;
                r0 = top_con + (r - top_con) % blk_con;
                shift = i * blk_nnz;
            }
            for (uint64_t k = rs[r0]; k < rs[r0 + 1]; k++) {
                om[m]->col[k + shift] = r0 < top_con ? sm[m]->col[k] : tpl_col(t, m, k, i);
                om[m]->coeff[k + shift] = sm[m]->coeff[k];
            }
            om[m]->row_start[r + 1] = rs[r0 + 1] + shift;
        }
    }
}

cuzk_status update_compile_shape(pool_t *pool, const update_circuit *c, r1cs *out, cuzk_error *err)
{
    const char *who = "update_compile_shape";
    memset(out, 0, sizeof *out);
    if (c->challenges <= 2) return update_compile_shape_serial(c, out, err);
    update_info info;
    cuzk_status st = update_circuit_info(c, &info, err);
    if (st) return cuzk_error_prefix(err, "%s: ", who);
    /* The top level and two blocks, compiled; block 1 must be block 0 placed one block on. */
    r1cs s2;
    update_top_vars top;
    memset(&top, 0, sizeof top);
    shape_tpl t;
    memset(&t, 0, sizeof t);
    int32_t *cpos = NULL;
    if ((st = r1cs_create(&s2, 0, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    if ((st = update_synth_top(&s2, c, NULL, &top, err)) == CUZK_OK &&
        (st = update_synth_challenge(&s2, c, &top, 0, NULL, err)) == CUZK_OK &&
        (st = update_synth_challenge(&s2, c, &top, 1, NULL, err)) == CUZK_OK)
        st = r1cs_finalize(&s2, err);
    if (st) goto done;
    size_t ni = s2.num_inputs, top_con = info.top_constraints, blk_con = info.challenge_constraints;
    if (ni != info.inputs || s2.num_aux != info.top_aux + 2 * info.challenge_aux ||
        s2.num_constraints != top_con + 2 * blk_con + ni) {
        st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "two blocks compile to %zu inputs, %zu aux, %zu rows", ni,
                            s2.num_aux, s2.num_constraints);
        goto done;
    }
    /* Which top-level variable is bit b of challenge 0 (the bits that differ between challenges). */
    if (!(cpos = malloc(info.top_aux * sizeof *cpos))) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t a = 0; a < info.top_aux; a++) cpos[a] = -1;
    for (unsigned b = 0; b < c->bits_per_challenge; b++) cpos[top.c_bits[b].var.index] = (int32_t)b;
    t = (shape_tpl){c, &info, &top, &s2, ni, {NULL}, {NULL}, out};
    const r1cs_matrix *sm[3] = {&s2.A, &s2.B, &s2.C};
    size_t nnz[3];
    for (int m = 0; m < 3 && st == CUZK_OK; m++) {
        const uint64_t *rs = sm[m]->row_start;
        uint64_t n0 = rs[top_con + blk_con], blk_nnz = n0 - rs[top_con];
        nnz[m] = rs[top_con] + c->challenges * blk_nnz;
        t.kind[m] = r1cs_xcalloc(n0 ? n0 : 1, 1);
        t.val[m] = r1cs_xcalloc(n0 ? n0 : 1, sizeof(uint32_t));
        if (!t.kind[m] || !t.val[m]) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate the %c template", "ABC"[m]);
            break;
        }
        for (uint64_t k = rs[top_con]; k < n0 && st == CUZK_OK; k++) {
            uint32_t col = sm[m]->col[k];
            if (col < ni) {
                t.val[m][k] = col;
            } else if (col - ni < info.top_aux) {
                int32_t b = cpos[col - ni];
                t.kind[m][k] = b >= 0 ? ENT_CBIT : ENT_FIXED;
                t.val[m][k] = b >= 0 ? (uint32_t)b : col;
            } else if (col - ni < info.top_aux + info.challenge_aux) {
                t.kind[m][k] = ENT_LOCAL;
                t.val[m][k] = (uint32_t)(col - ni - info.top_aux);
            } else {
                st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%c: block 0 uses column %u of block 1", "ABC"[m], col);
            }
        }
        /* Block 1 of s2 is the template placed as block 1, entry for entry. */
        for (size_t r = top_con; r < top_con + blk_con && st == CUZK_OK; r++) {
            size_t r1 = r + blk_con;
            if (rs[r1 + 1] - rs[r1] != rs[r + 1] - rs[r]) {
                st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%c rows %zu and %zu differ in length", "ABC"[m], r,
                                    r1);
                break;
            }
            for (uint64_t k = rs[r], k1 = rs[r1]; k < rs[r + 1]; k++, k1++)
                if (sm[m]->col[k1] != tpl_col(&t, m, k, 1) || sm[m]->coeff[k1] != sm[m]->coeff[k]) {
                    st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%c rows %zu and %zu are not one block apart",
                                        "ABC"[m], r, r1);
                    break;
                }
        }
    }
    if (st) goto done;
    size_t na = info.aux, nc = info.synth_constraints;
    if ((st = r1cs_create_compiled(out, ni, na, nc, nnz, R1CS_MATRICES, err)) != CUZK_OK) goto done;
    /* The coefficient table in s2's order, the serial order: later blocks intern nothing new. */
    for (size_t k = 1; k < s2.num_coeffs && st == CUZK_OK; k++) {
        uint32_t idx;
        if ((st = r1cs_coeff_intern(out, &s2.coeffs[k], &idx, err)) == CUZK_OK && idx != k)
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "coefficient %zu interned at %u", k, idx);
    }
    if (st == CUZK_OK) {
        pool_parallel_for(pool, nc, 4096, shape_task, &t);
        st = r1cs_finalize(out, err);
    }
    if (st) r1cs_free(out);
done:
    for (int m = 0; m < 3; m++) {
        free(t.kind[m]);
        free(t.val[m]);
    }
    free(cpos);
    update_top_vars_free(&top);
    r1cs_free(&s2);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: %s: ", who, c->g->name);
}
