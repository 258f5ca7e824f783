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

cuzk_status update_compile_shape(const update_circuit *c, r1cs *out, cuzk_error *err)
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
