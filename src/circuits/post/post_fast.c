/* Parallel synthesis of the PoSt circuit. Sector blocks share nothing but ONE (post.h), so block s's inputs,
 * aux and constraints sit right after block s - 1's and every block has the shape of the first: the witness
 * synthesizes each sector in a witness-only system of its own and copies its values to the sector's place, and
 * the shape is compiled from two sectors, the second checked to be the first shifted, and replicated. */
#include <stdlib.h>
#include <string.h>

#include "circuits/post/post.h"
#include "r1cs/r1cs_blocks.h"

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
    r1cs_blocks B = {.top_in = 1, .blk_in = L.blk_in, .blk_aux = L.blk_aux, .blk_con = L.blk_con, .n = c->sectors};
    st = r1cs_replicate_blocks(pool, &s2, &B, out, err);
    r1cs_free(&s2);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", who);
}
