#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/hash/sha256.h"
#include "circuits/update/update.h"
#include "r1cs/r1cs_blocks.h"
#include "util/hugepage.h"

/* ---- witness ----
 *
 * The partition's aux are laid out as update_synthesize makes them: the top part (its apex tree of apex_leaves - 1
 * SHA-256 hashes inside it, at info.apex_aux), then the challenge blocks, each info.challenge_aux long. Every piece
 * is synthesized in a witness-only system that writes its values straight to their place in the output
 * (r1cs_create_witness_only_at): no growth, no copy, no second page fault per value.
 *
 * Pieces, in two parallel loops: (1) the top part with its apex hashes skipped, and every apex hash alone (its
 * children's values computed natively first, so no hash waits for another: the tree would otherwise be a serial
 * chain of 127 hashes, about 6 M constraints, as long as several whole blocks on 16 threads); (2) per challenge
 * block, its head (everything before the TreeD path) and each TreeD level alone from its node's value, computed
 * natively from the top part's bits between the loops. Pieces read the top part's and each other's variables
 * through their values only. A block is ~940 K constraints at 32 GiB, 86 of them: 16 threads would take 6 rounds
 * of blocks for 5.4 blocks' work each; a TreeD level is ~46 K. Every circuit hash is compared with the native
 * value it stands in for (CUZK_ERR_INTERNAL). */

static void sha_node(const fr_t *l, const fr_t *r, fr_t *out)
{
    uint8_t buf[64];
    fr_to_bytes_le(buf, l);
    fr_to_bytes_le(buf + 32, r);
    sha256_fr(buf, 64, out);
}

typedef struct witness_job {
    const update_circuit *c;
    const update_witness *w;
    const update_info *info;
    const fr_t *kids;  /* per apex hash, its two children's values */
    const fr_t *nodes; /* per apex hash, its output's value */
    fr_t *path;        /* per challenge, its TreeD path's nodes from the leaf (tree_d.levels + 1) */
    update_top_vars *top;
    r1cs *out;
    fr_t *top_inputs; /* the top part's inputs (ONE included) */
    cuzk_status *st;
    cuzk_error *err;
} witness_job;

/* Unit 0: the top part, apex hashes skipped; unit 1 + j: apex hash j. */
static void top_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const witness_job *j = ctx;
    const update_info *in = j->info;
    for (size_t u = begin; u < end; u++) {
        r1cs cs;
        cuzk_error *e = &j->err[u];
        cuzk_status st;
        if (u == 0) {
            st = r1cs_create_witness_only_at(&cs, j->out->aux, in->top_aux, e);
            if (st == CUZK_OK) st = update_synth_top_skip_apex(&cs, j->c, j->w, j->nodes, j->top, e);
            if (st == CUZK_OK &&
                (cs.num_aux != in->top_aux || cs.num_inputs != in->inputs || cs.num_constraints != in->top_constraints))
                st = cuzk_error_set(e, CUZK_ERR_INTERNAL,
                                    "top: %zu aux, %zu inputs, %zu constraints; counted %zu, %zu, %zu", cs.num_aux,
                                    cs.num_inputs, cs.num_constraints, in->top_aux, in->inputs, in->top_constraints);
            if (st == CUZK_OK)
                memcpy(j->top_inputs, cs.inputs, in->inputs * sizeof(fr_t));
            else
                cuzk_error_prefix(e, "top: ");
        } else {
            size_t h = u - 1;
            fr_t *at = j->out->aux + in->apex_aux + h * in->apex_hash_aux;
            st = r1cs_create_witness_only_at(&cs, at, in->apex_hash_aux, e);
            /* The children are read through their values only (a witness-only system builds no combination). */
            gadget_num kids[2] = {{r1cs_one(), j->kids[2 * h]}, {r1cs_one(), j->kids[2 * h + 1]}}, o;
            if (st == CUZK_OK) st = gadget_por_hash(&cs, POR_SHA256, NULL, kids, 2, &o, e);
            if (st == CUZK_OK && (cs.num_aux != in->apex_hash_aux || cs.num_constraints != in->apex_hash_constraints))
                st = cuzk_error_set(e, CUZK_ERR_INTERNAL, "%zu aux, %zu constraints; counted %zu, %zu", cs.num_aux,
                                    cs.num_constraints, in->apex_hash_aux, in->apex_hash_constraints);
            if (st == CUZK_OK && !fr_eq(&o.value, &j->nodes[h]))
                st = cuzk_error_set(e, CUZK_ERR_INTERNAL, "the circuit's hash differs from the native one");
            if (st != CUZK_OK) cuzk_error_prefix(e, "apex hash %zu: ", h);
        }
        j->st[u] = st;
        r1cs_free(&cs);
    }
}

/* Challenge i's TreeD path natively, from the top part's bit values. */
static void path_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const witness_job *j = ctx;
    const update_circuit *c = j->c;
    unsigned L = c->tree_d.levels;
    for (size_t i = begin; i < end; i++) {
        fr_t *n = j->path + i * (L + 1), zero;
        fr_set_zero(&zero);
        const update_challenge *p = j->w ? &j->w->proofs[i] : NULL;
        n[0] = p ? p->leaf_d_new : zero;
        for (unsigned l = 0; l < L; l++) {
            const fr_t *sib = p ? &p->path_d[l] : &zero;
            if (j->top->c_bits[i * c->challenge_bits + l].value)
                sha_node(sib, &n[l], &n[l + 1]);
            else
                sha_node(&n[l], sib, &n[l + 1]);
        }
    }
}

/* Unit u: piece u % (levels + 1) of block u / (levels + 1): 0 the head, 1 + l TreeD level l. */
static void block_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const witness_job *j = ctx;
    const update_info *in = j->info;
    const update_circuit *c = j->c;
    unsigned L = c->tree_d.levels;
    for (size_t u = begin; u < end; u++) {
        unsigned i = (unsigned)(u / (L + 1)), part = (unsigned)(u % (L + 1));
        const update_challenge *p = j->w ? &j->w->proofs[i] : NULL;
        cuzk_error *e = &j->err[u];
        r1cs cs;
        fr_t *at = j->out->aux + in->top_aux + (size_t)i * in->challenge_aux;
        size_t want_aux = in->challenge_head_aux, want_con = in->challenge_head_constraints;
        cuzk_status st;
        if (part == 0) {
            st = r1cs_create_witness_only_at(&cs, at, want_aux, e);
            if (st == CUZK_OK) st = update_synth_challenge_head(&cs, c, j->top, i, p, e);
        } else {
            unsigned l = part - 1;
            const fr_t *n = j->path + (size_t)i * (L + 1) + l;
            fr_t next;
            want_aux = in->treed_level_aux;
            want_con = in->treed_level_constraints + (l + 1 == L);
            st = r1cs_create_witness_only_at(&cs, at + in->challenge_head_aux + (size_t)l * want_aux, want_aux, e);
            if (st == CUZK_OK) st = update_synth_challenge_treed_level(&cs, c, j->top, i, p, l, n, &next, e);
            if (st == CUZK_OK && !fr_eq(&next, &n[1]))
                st =
                    cuzk_error_set(e, CUZK_ERR_INTERNAL, "TreeD level %u: the circuit's hash is not the native one", l);
        }
        if (st == CUZK_OK && (cs.num_aux != want_aux || cs.num_constraints != want_con || cs.num_inputs != 1))
            st = cuzk_error_set(e, CUZK_ERR_INTERNAL, "piece %u: %zu aux, %zu constraints; counted %zu, %zu", part,
                                cs.num_aux, cs.num_constraints, want_aux, want_con);
        if (st != CUZK_OK) cuzk_error_prefix(e, "c_index=%u: ", i);
        j->st[u] = st;
        r1cs_free(&cs);
    }
}

cuzk_status update_synthesize_witness(pool_t *pool, const update_circuit *c, const update_witness *w, r1cs *out,
                                      cuzk_error *err)
{
    const char *who = "update_synthesize_witness";
    memset(out, 0, sizeof *out);
    if (w && w->challenges != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: witness of %u challenges, circuit %u", who, w->challenges,
                              c->challenges);
    update_info info;
    cuzk_status st = update_circuit_info(c, &info, err);
    if (st) return cuzk_error_prefix(err, "%s: ", who);
    update_top_vars top;
    memset(&top, 0, sizeof top);
    unsigned L = c->tree_d.levels;
    size_t hashes = c->apex_leaves - 1, pieces = (size_t)c->challenges * (L + 1);
    size_t units = 1 + hashes > pieces ? 1 + hashes : pieces;
    cuzk_status *sts = calloc(units, sizeof *sts);
    cuzk_error *errs = calloc(units, sizeof *errs);
    fr_t *kids = malloc(sizeof(fr_t) * (3 * hashes + info.inputs + (size_t)c->challenges * (L + 1)));
    fr_t *nodes = kids + 2 * hashes, *top_inputs = nodes + hashes, *path = top_inputs + info.inputs;
    if (!sts || !errs || !kids) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", who);
        goto done;
    }
    /* The apex tree natively, in the order its hashes are synthesized. */
    fr_t row[UPDATE_MAX_APEX];
    for (unsigned i = 0; i < c->apex_leaves; i++) {
        if (w)
            row[i] = w->apex_leaves[i];
        else
            fr_set_zero(&row[i]);
    }
    size_t hj = 0;
    for (unsigned n = c->apex_leaves; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++, hj++) {
            kids[2 * hj] = row[2 * i];
            kids[2 * hj + 1] = row[2 * i + 1];
            sha_node(&row[2 * i], &row[2 * i + 1], &nodes[hj]);
            row[i] = nodes[hj];
        }
    static const size_t no_nnz[3] = {0, 0, 0};
    if ((st = r1cs_create_compiled(out, info.inputs, info.aux, info.synth_constraints, no_nnz, R1CS_WITNESS, err)) !=
        CUZK_OK)
        goto done;
    hugepage_advise(out->aux, info.aux * sizeof(fr_t));
    witness_job j = {c, w, &info, kids, nodes, path, &top, out, top_inputs, sts, errs};
    pool_parallel_for(pool, 1 + hashes, 1, top_task, &j);
    for (size_t u = 0; u < 1 + hashes && st == CUZK_OK; u++)
        if (sts[u] != CUZK_OK) *err = errs[u], st = sts[u];
    if (st != CUZK_OK) goto done;
    memcpy(out->inputs + 1, top_inputs + 1, (info.inputs - 1) * sizeof(fr_t));
    pool_parallel_for(pool, c->challenges, 1, path_task, &j);
    pool_parallel_for(pool, pieces, 1, block_task, &j);
    for (size_t u = 0; u < pieces && st == CUZK_OK; u++)
        if (sts[u] != CUZK_OK) *err = errs[u], st = sts[u];
    if (st == CUZK_OK) st = r1cs_finalize(out, err);
done:
    update_top_vars_free(&top);
    free(sts);
    free(errs);
    free(kids);
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

/* The hook of r1cs_replicate_blocks: the top part computes every challenge's bits, and block i's rows use challenge
 * i's. */
typedef struct cbits_hook {
    const update_circuit *c;
    const update_top_vars *top;
    const int32_t *cpos; /* per top-part aux variable: which bit of challenge 0 it is, or -1 */
} cbits_hook;

static int cbit_slot(void *ctx, size_t a, uint32_t *slot)
{
    const cbits_hook *h = ctx;
    if (h->cpos[a] < 0) return 0;
    *slot = (uint32_t)h->cpos[a];
    return 1;
}

static uint32_t cbit_col(void *ctx, uint32_t b, size_t i, size_t num_inputs)
{
    const cbits_hook *h = ctx;
    return (uint32_t)(num_inputs + h->top->c_bits[i * h->c->challenge_bits + b].var.index);
}

cuzk_status update_compile_shape(pool_t *pool, const update_circuit *c, r1cs *out, cuzk_error *err)
{
    const char *who = "update_compile_shape";
    memset(out, 0, sizeof *out);
    if (c->challenges <= 2) return update_compile_shape_serial(c, out, err);
    update_info info;
    cuzk_status st = update_circuit_info(c, &info, err);
    if (st) return cuzk_error_prefix(err, "%s: ", who);
    /* The top part and two blocks, compiled. */
    r1cs s2;
    update_top_vars top;
    memset(&top, 0, sizeof top);
    int32_t *cpos = NULL;
    if ((st = r1cs_create(&s2, 0, err)) != CUZK_OK) return cuzk_error_prefix(err, "%s: ", who);
    if ((st = update_synth_top(&s2, c, NULL, &top, err)) == CUZK_OK &&
        (st = update_synth_challenge(&s2, c, &top, 0, NULL, err)) == CUZK_OK &&
        (st = update_synth_challenge(&s2, c, &top, 1, NULL, err)) == CUZK_OK)
        st = r1cs_finalize(&s2, err);
    if (st) goto done;
    if (!(cpos = malloc((info.top_aux ? info.top_aux : 1) * sizeof *cpos))) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t a = 0; a < info.top_aux; a++) cpos[a] = -1;
    for (unsigned b = 0; b < c->bits_per_challenge; b++) cpos[top.c_bits[b].var.index] = (int32_t)b;
    cbits_hook h = {c, &top, cpos};
    r1cs_blocks B = {.top_in = info.inputs,
                     .top_aux = info.top_aux,
                     .top_con = info.top_constraints,
                     .blk_aux = info.challenge_aux,
                     .blk_con = info.challenge_constraints,
                     .n = c->challenges,
                     .block_slot = cbit_slot,
                     .block_col = cbit_col,
                     .ctx = &h};
    st = r1cs_replicate_blocks(pool, &s2, &B, out, err);
done:
    free(cpos);
    update_top_vars_free(&top);
    r1cs_free(&s2);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: %s: ", who, c->g->name);
}
