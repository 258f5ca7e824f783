#include "circuits/stacked/stacked_fast.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/gadgets/num.h"
#include "circuits/gadgets/uint64.h"
#include "r1cs/r1cs_blocks.h"
#include "util/hugepage.h"

/* Where the variables and rows of the partition live: the top level first, then challenge blocks of equal size. A
 * block is made of segments, in order: the columns part, the label of each layer, the finish (stacked.h). */
#define MAX_SEGMENTS (POREP_MAX_LAYERS + 2)

typedef struct layout {
    size_t top_in, top_aux, top_con; /* inputs count ONE */
    size_t blk_in, blk_aux, blk_con;
    size_t seg_in[MAX_SEGMENTS + 1], seg_aux[MAX_SEGMENTS + 1]; /* segment starts within a block, then its end */
    unsigned n, layers;
} layout;

/* A circuit restricted to some challenges: stacked_synthesize reads nothing but the fields copied here, and the
 * Poseidon constants stay owned by the original. */
static stacked_circuit circuit_with(const stacked_circuit *c, unsigned challenges)
{
    stacked_circuit cc = *c;
    cc.challenges = challenges;
    return cc;
}

/* Segment s of challenge i into cs (empty; any mode), in a system of its own: the top level, stand-ins for the
 * variables of earlier segments that s reads (allocated with their values; see stacked.h), then the segment, which
 * starts at *start (inputs, aux, constraints). w NULL: zero values; labels: the label values of the challenge (for
 * the finish; NULL: zero). Redoing the top level and the stand-ins costs a few hundred constraints; a segment has
 * hundreds of thousands. */
static cuzk_status run_segment(r1cs *cs, const stacked_circuit *c, const stacked_witness *w, unsigned i, unsigned s,
                               const fr_t *labels, stacked_challenge_vars *v, size_t start[3], cuzk_error *err)
{
    const stacked_challenge *p = w ? &w->proofs[i] : NULL;
    fr_t zero;
    fr_set_zero(&zero);
    stacked_top_vars top;
    memset(v, 0, sizeof *v);
    cuzk_status st = stacked_synth_top(cs, c, w, &top, err);
    if (st != CUZK_OK) return st;
    if (s >= 1 && s <= c->layers) {
        for (int k = 0; k < POREP_DRG_DEGREE && st == CUZK_OK; k++)
            st = gadget_num_alloc(cs, p ? &p->drg[k].rows[s - 1] : &zero, &v->drg[k][s - 1], err);
        for (int k = 0; k < POREP_EXP_DEGREE && s > 1 && st == CUZK_OK; k++)
            st = gadget_num_alloc(cs, p ? &p->exp[k].rows[s - 2] : &zero, &v->exp[k][s - 2], err);
        if (st == CUZK_OK) st = gadget_u64_alloc(cs, p ? p->challenge : 0, &v->challenge, err);
    } else if (s == c->layers + 1) {
        st = gadget_num_alloc(cs, p ? &p->data_leaf : &zero, &v->data_leaf, err);
        for (unsigned l = 0; l < c->layers && st == CUZK_OK; l++)
            st = gadget_num_alloc(cs, labels ? &labels[l] : &zero, &v->labels[l], err);
    }
    if (st != CUZK_OK) return st;
    start[0] = cs->num_inputs;
    start[1] = cs->num_aux;
    start[2] = cs->num_constraints;
    return s == 0           ? stacked_synth_columns(cs, c, p, &top, v, err)
           : s <= c->layers ? stacked_synth_label(cs, c, &top, v, s, err)
                            : stacked_synth_finish(cs, c, p, &top, v, err);
}

typedef struct count_job {
    const stacked_circuit *c;
    size_t size[MAX_SEGMENTS][3]; /* inputs, aux, constraints of each segment */
    cuzk_status st[MAX_SEGMENTS];
    cuzk_error err[MAX_SEGMENTS];
} count_job;

static void count_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    count_job *j = ctx;
    for (size_t s = begin; s < end; s++) {
        r1cs cs;
        stacked_challenge_vars v;
        size_t start[3];
        if ((j->st[s] = r1cs_create_counter(&cs, &j->err[s])) != CUZK_OK) continue;
        j->st[s] = run_segment(&cs, j->c, NULL, 0, (unsigned)s, NULL, &v, start, &j->err[s]);
        j->size[s][0] = cs.num_inputs - start[0];
        j->size[s][1] = cs.num_aux - start[1];
        j->size[s][2] = cs.num_constraints - start[2];
        r1cs_free(&cs);
    }
}

/* Counts the top level and the segments of one block in counting systems, the segments in parallel: counting a
 * block costs half as much as synthesizing one, too much to do on one thread before the parallel part. */
static cuzk_status layout_of(pool_t *pool, const stacked_circuit *c, layout *L, cuzk_error *err)
{
    memset(L, 0, sizeof *L);
    L->n = c->challenges;
    L->layers = c->layers;
    r1cs cs;
    stacked_top_vars top;
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st != CUZK_OK) return st;
    st = stacked_synth_top(&cs, c, NULL, &top, err);
    L->top_in = cs.num_inputs;
    L->top_aux = cs.num_aux;
    L->top_con = cs.num_constraints;
    r1cs_free(&cs);
    if (st != CUZK_OK) return st;
    count_job *j = r1cs_xcalloc(1, sizeof *j);
    if (!j) return cuzk_error_set(err, CUZK_ERR_NOMEM, "cannot allocate the counting state");
    j->c = c;
    unsigned segs = c->layers + 2;
    pool_parallel_for(pool, segs, 1, count_task, j);
    for (unsigned s = 0; s < segs; s++) {
        if (j->st[s] != CUZK_OK) {
            *err = j->err[s];
            st = j->st[s];
            break;
        }
        L->seg_in[s + 1] = L->seg_in[s] + j->size[s][0];
        L->seg_aux[s + 1] = L->seg_aux[s] + j->size[s][1];
        L->blk_con += j->size[s][2];
    }
    L->blk_in = L->seg_in[segs];
    L->blk_aux = L->seg_aux[segs];
    free(j);
    return st;
}

/* ---- witness ---- */

typedef struct witness_job {
    const stacked_circuit *c;
    const stacked_witness *w;
    const layout *L;
    r1cs *out;
    fr_t *labels;    /* per challenge, per layer: the label values, for the finish segments */
    size_t first;    /* unit index of the first task of the current loop */
    cuzk_status *st; /* per unit */
    cuzk_error *err; /* per unit */
} witness_job;

/* Segment s of challenge i with values, copied to its place in the partition. */
static cuzk_status witness_segment(const witness_job *j, unsigned i, unsigned s, cuzk_error *err)
{
    const layout *L = j->L;
    const stacked_circuit *c = j->c;
    r1cs cs;
    cuzk_status st = r1cs_create_witness_only(&cs, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "challenge_%u: ", i);
    stacked_challenge_vars v;
    size_t start[3];
    fr_t *labels = &j->labels[(size_t)i * c->layers];
    if ((st = run_segment(&cs, c, j->w, i, s, labels, &v, start, err)) != CUZK_OK) goto done;
    size_t n_in = L->seg_in[s + 1] - L->seg_in[s], n_aux = L->seg_aux[s + 1] - L->seg_aux[s];
    if (cs.num_inputs - start[0] != n_in || cs.num_aux - start[1] != n_aux) {
        st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "part %u: %zu inputs, %zu aux with values; %zu, %zu without", s,
                            cs.num_inputs - start[0], cs.num_aux - start[1], n_in, n_aux);
        goto done;
    }
    if (s >= 1 && s <= c->layers) labels[s - 1] = v.labels[s - 1].value;
    r1cs *out = j->out;
    memcpy(out->inputs + L->top_in + i * L->blk_in + L->seg_in[s], cs.inputs + start[0], n_in * sizeof(fr_t));
    memcpy(out->aux + L->top_aux + i * L->blk_aux + L->seg_aux[s], cs.aux + start[1], n_aux * sizeof(fr_t));
    if (i == 0 && s == 0) {
        memcpy(out->inputs + 1, cs.inputs + 1, (L->top_in - 1) * sizeof(fr_t));
        memcpy(out->aux, cs.aux, L->top_aux * sizeof(fr_t));
    }
done:
    r1cs_free(&cs);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "challenge_%u: ", i);
}

/* Unit u of the first loop: the columns segment of challenge u (u < n; the biggest units go first), else label
 * (u - n) % layers + 1 of challenge (u - n) / layers. Unit n * (layers + 1) + i of the second loop: the finish of
 * challenge i, which needs the labels' values. */
static void witness_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const witness_job *j = ctx;
    unsigned n = j->L->n, layers = j->L->layers;
    for (size_t t = begin; t < end; t++) {
        size_t u = j->first + t;
        unsigned i, s;
        if (u < n)
            i = (unsigned)u, s = 0;
        else if (u < (size_t)n * (layers + 1))
            i = (unsigned)((u - n) / layers), s = (unsigned)((u - n) % layers) + 1;
        else
            i = (unsigned)(u - (size_t)n * (layers + 1)), s = layers + 1;
        j->st[u] = witness_segment(j, i, s, &j->err[u]);
    }
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
    cuzk_status st = layout_of(pool, c, &L, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    static const size_t no_nnz[3] = {0, 0, 0};
    st = r1cs_create_compiled(out, L.top_in + L.n * L.blk_in, L.top_aux + L.n * L.blk_aux, L.top_con + L.n * L.blk_con,
                              no_nnz, R1CS_WITNESS, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    hugepage_advise(out->aux, out->num_aux * sizeof(fr_t));
    size_t first_loop = (size_t)L.n * (L.layers + 1), units = first_loop + L.n;
    cuzk_status *sts = r1cs_xcalloc(units, sizeof *sts);
    cuzk_error *errs = r1cs_xcalloc(units, sizeof *errs);
    fr_t *labels = r1cs_xcalloc((size_t)L.n * L.layers, sizeof *labels);
    if (!sts || !errs || !labels) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the state of %zu parts", who, units);
        goto done;
    }
    witness_job j = {c, w, &L, out, labels, 0, sts, errs};
    pool_parallel_for(pool, first_loop, 1, witness_task, &j);
    for (size_t u = 0; u < first_loop && st == CUZK_OK; u++)
        if (sts[u] != CUZK_OK) *err = errs[u], st = sts[u];
    if (st == CUZK_OK) {
        j.first = first_loop;
        pool_parallel_for(pool, L.n, 1, witness_task, &j);
        for (size_t u = first_loop; u < units && st == CUZK_OK; u++)
            if (sts[u] != CUZK_OK) *err = errs[u], st = sts[u];
    }
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "%s: ", who);
        goto done;
    }
    if ((st = r1cs_finalize(out, err)) != CUZK_OK) cuzk_error_prefix(err, "%s: ", who);
done:
    free(sts);
    free(errs);
    free(labels);
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
    if ((st = layout_of(pool, c, &L, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    stacked_circuit c2 = circuit_with(c, 2);
    r1cs s2;
    if ((st = compile_serial(&c2, &s2, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: two challenges: ", who);
    r1cs_blocks B = {.top_in = L.top_in,
                     .top_aux = L.top_aux,
                     .top_con = L.top_con,
                     .blk_in = L.blk_in,
                     .blk_aux = L.blk_aux,
                     .blk_con = L.blk_con,
                     .n = L.n};
    st = r1cs_replicate_blocks(pool, &s2, &B, out, err);
    r1cs_free(&s2);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", who);
}
