#include "engine/post.h"

#include <stdlib.h>
#include <string.h>

/* ---- jobs ---- */

typedef struct post_check_job {
    const post_vanilla *v;
    const engine_post_job *job;
    cuzk_status *st;
    cuzk_error *err;
} post_check_job;

static cuzk_status post_fr(fr_t *out, const porep_dom in, size_t s, uint64_t id, const char *field, unsigned i,
                           cuzk_error *err)
{
    if (fr_from_bytes_le(out, in) == 0) return CUZK_OK;
    if (i == (unsigned)-1)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "sector %zu (id %llu): %s is not a field element (>= r)", s,
                              (unsigned long long)id, field);
    return cuzk_error_set(err, CUZK_ERR_FORMAT, "sector %zu (id %llu): challenge %u: %s is not a field element (>= r)",
                          s, (unsigned long long)id, i, field);
}

/* Checks request sector s and writes its circuit sectors (Window: sector s; Winning: all 66). */
static cuzk_status post_check_sector(const post_check_job *cj, size_t s, cuzk_error *err)
{
    const post_vanilla *v = cj->v;
    const engine_post_job *j = cj->job;
    const post_proof_type *t = j->type;
    const post_circuit *c = &j->circuit;
    const post_vanilla_sector *vs = &v->sectors[s];
    const post_vanilla_shape *sh = &v->shape;
    uint64_t id = vs->sector_id;
    cuzk_status st;
    if (vs->proofs != t->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "sector %zu (id %llu): %u inclusion proofs, %s has %u", s,
                              (unsigned long long)id, vs->proofs, t->name, t->challenges);
    fr_t comm_r, comm_c, comm_r_last, h;
    if ((st = post_fr(&comm_r, vs->comm_r, s, id, "comm_r", (unsigned)-1, err)) ||
        (st = post_fr(&comm_c, vs->comm_c, s, id, "comm_c", (unsigned)-1, err)) ||
        (st = post_fr(&comm_r_last, vs->comm_r_last, s, id, "comm_r_last", (unsigned)-1, err)))
        return st;
    fr_t pre[2] = {comm_c, comm_r_last};
    poseidon_hash(&c->p2, pre, &h);
    if (!fr_eq(&h, &comm_r))
        return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                              "sector %zu (id %llu): comm_r is not Poseidon(comm_c, comm_r_last)", s,
                              (unsigned long long)id);
    uint64_t ch[POST_MAX_CHALLENGES];
    post_challenge_leaves(t, j->randomness, id, s, ch);
    size_t nsib = sh->sib_offset[sh->levels];
    for (unsigned i = 0; i < vs->proofs; i++) {
        /* Window: challenge i of circuit sector s; Winning: the one challenge of circuit sector i. */
        post_sector *cs = &j->witness.sector[t->kind == POST_WINNING ? i : s];
        post_path *p = &cs->paths[t->kind == POST_WINNING ? 0 : i];
        cs->comm_r = comm_r, cs->comm_c = comm_c, cs->comm_r_last = comm_r_last;
        if (memcmp(vs->roots[i], vs->comm_r_last, 32) != 0)
            return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                  "sector %zu (id %llu): challenge %u: root is not "
                                  "comm_r_last",
                                  s, (unsigned long long)id, i);
        if ((st = post_fr(&p->leaf, vs->leaves[i], s, id, "leaf", i, err))) return st;
        for (size_t k = 0; k < nsib; k++)
            if ((st = post_fr(&p->sibs[k], vs->sibs[i * nsib + k], s, id, "path sibling", i, err))) return st;
        for (unsigned l = 0; l < c->tree.levels; l++) {
            p->index[l] = *post_vanilla_index(vs, sh, i, l);
            if (p->index[l] >= c->tree.arity[l])
                return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                      "sector %zu (id %llu): challenge %u: level %u index %u >= "
                                      "arity %u",
                                      s, (unsigned long long)id, i, l, p->index[l], c->tree.arity[l]);
        }
        uint64_t leaf = post_path_leaf_index(c, p);
        if (leaf != ch[i])
            return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                                  "sector %zu (id %llu): challenge %u: the path is of "
                                  "leaf %llu, the challenge is leaf %llu",
                                  s, (unsigned long long)id, i, (unsigned long long)leaf, (unsigned long long)ch[i]);
    }
    return CUZK_OK;
}

static void post_check_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const post_check_job *cj = ctx;
    for (size_t s = begin; s < end; s++) cj->st[s] = post_check_sector(cj, s, &cj->err[s]);
}

void engine_post_job_free(engine_post_job *j)
{
    if (!j) return;
    free(j->sectors);
    post_witness_free(&j->witness);
    post_circuit_free(&j->circuit);
    free(j);
}

cuzk_status engine_post_job_create(engine_post_job **out, const post_vanilla *v, const uint8_t randomness[32],
                                   pool_t *pool, cuzk_error *err)
{
    *out = NULL;
    const post_proof_type *t = v->type;
    if (!t) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "PoSt vanilla proofs without a proof type");
    unsigned S, C;
    post_circuit_dims(t, &S, &C);
    if (t->kind == POST_WINNING ? v->count != 1 : (v->count == 0 || v->count > S))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %zu vanilla proofs (%s %u)", t->name, v->count,
                              t->kind == POST_WINNING ? "WinningPoSt takes exactly" : "WindowPoSt takes 1 to",
                              t->kind == POST_WINNING ? 1 : S);
    engine_post_job *j = calloc(1, sizeof *j);
    if (!j) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", t->name);
    j->type = t;
    memcpy(j->randomness, randomness, 32);
    j->n = v->count;
    cuzk_status st = post_circuit_init_type(&j->circuit, t, err);
    if (st == CUZK_OK) {
        const post_circuit *c = &j->circuit;
        const post_vanilla_shape *sh = &v->shape;
        int same = sh->levels == c->tree.levels;
        for (unsigned l = 0; same && l < sh->levels; l++)
            same = sh->arity[l] == c->tree.arity[l] && sh->sib_offset[l + 1] - sh->sib_offset[l] == sh->arity[l] - 1;
        if (!same)
            st = cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                "%s: the vanilla proofs' paths (%u levels) are not of the "
                                "sector's TreeR (%u levels of arity %u..)",
                                t->name, sh->levels, c->tree.levels, c->tree.arity[0]);
    }
    if (st == CUZK_OK) st = post_witness_alloc(&j->witness, &j->circuit, err);
    if (st == CUZK_OK && !(j->sectors = calloc(v->count, sizeof *j->sectors)))
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", t->name);
    cuzk_status *sts = NULL;
    cuzk_error *errs = NULL;
    if (st == CUZK_OK && (!(sts = calloc(v->count, sizeof *sts)) || !(errs = calloc(v->count, sizeof *errs))))
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", t->name);
    if (st == CUZK_OK) {
        post_check_job cj = {v, j, sts, errs};
        pool_parallel_for(pool, v->count, 1, post_check_task, &cj);
        for (size_t s = 0; s < v->count && st == CUZK_OK; s++)
            if (sts[s] != CUZK_OK) *err = errs[s], st = sts[s];
    }
    free(sts);
    free(errs);
    if (st != CUZK_OK) {
        engine_post_job_free(j);
        return cuzk_error_prefix(err, "%s vanilla proofs: ", t->name);
    }
    for (size_t s = 0; s < v->count; s++) {
        j->sectors[s].sector_id = v->sectors[s].sector_id;
        memcpy(j->sectors[s].comm_r, v->sectors[s].comm_r, 32);
    }
    /* filecoin-proofs pads a partition with copies of its last sector's proof. */
    const post_circuit *c = &j->circuit;
    size_t nsib = v->shape.sib_offset[v->shape.levels];
    for (size_t s = v->count; t->kind == POST_WINDOW && s < S; s++) {
        post_sector *d = &j->witness.sector[s], *from = &j->witness.sector[v->count - 1];
        d->comm_r = from->comm_r, d->comm_c = from->comm_c, d->comm_r_last = from->comm_r_last;
        for (unsigned i = 0; i < C; i++) {
            d->paths[i].leaf = from->paths[i].leaf;
            memcpy(d->paths[i].index, from->paths[i].index, c->tree.levels);
            memcpy(d->paths[i].sibs, from->paths[i].sibs, nsib * sizeof(fr_t));
        }
    }
    *out = j;
    return CUZK_OK;
}

cuzk_status engine_post_job_public_inputs(const engine_post_job *j, fr_t **out, size_t *n, cuzk_error *err)
{
    return post_public_inputs(j->type, j->randomness, j->sectors, j->n, out, n, err);
}

/* ---- the circuit ---- */

struct engine_post_circuit {
    const post_proof_type *type;
    pool_t *pool;
    post_circuit pc;
    r1cs shape;
    engine_circuit ec;
};

static cuzk_status post_synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    const engine_post_circuit *pc = ctx;
    const engine_post_job *j = payload;
    memset(wit, 0, sizeof *wit);
    if (partition != 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: partition %u of 1", pc->type->name, partition);
    /* WinningPoSt is CRITICAL and small (66 one-challenge sectors: ~0.1 s on one thread): synthesized on the
     * synthesis worker's own thread, because in the shared pool its tasks queue behind a running PoRep
     * partition's (1.3 s measured under a 32 GiB batch on 16 cores, against 8 ms idle). */
    pool_t *pool = pc->type->kind == POST_WINNING ? NULL : pc->pool;
    cuzk_status st = post_synthesize_witness(pool, &pc->pc, &j->witness, wit, err);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", j->type->name);
}

cuzk_status engine_post_circuit_create(const post_proof_type *t, const groth16_params *params, pool_t *pool,
                                       engine_post_circuit **out, cuzk_error *err)
{
    *out = NULL;
    if (!t || !params) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "engine_post_circuit_create: NULL argument");
    engine_post_circuit *pc = calloc(1, sizeof *pc);
    if (!pc) return cuzk_error_set(err, CUZK_ERR_NOMEM, "engine_post_circuit_create: out of memory");
    pc->type = t;
    pc->pool = pool;
    cuzk_status st = post_circuit_init_type(&pc->pc, t, err);
    if (st == CUZK_OK) st = post_compile_shape(pool, &pc->pc, &pc->shape, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "%s: compiling the circuit: ", t->name);
        engine_post_circuit_free(pc);
        return st;
    }
    /* Parameters of another circuit would only fail at the first proof, deep in the prover: say so now. */
    st = engine_params_fit(params, &pc->shape, err);
    if (st == CUZK_OK) st = engine_circuit_init(&pc->ec, t->name, params, &pc->shape, post_synth, pc, err);
    if (st != CUZK_OK) {
        cuzk_error_prefix(err, "%s: parameters do not fit the circuit (%zu constraints, %zu inputs): ", t->name,
                          pc->shape.num_constraints, pc->shape.num_inputs);
        engine_post_circuit_free(pc);
        return st;
    }
    *out = pc;
    return CUZK_OK;
}

const engine_circuit *engine_post_circuit_get(const engine_post_circuit *pc)
{
    return &pc->ec;
}

const post_proof_type *engine_post_circuit_type(const engine_post_circuit *pc)
{
    return pc->type;
}

void engine_post_circuit_free(engine_post_circuit *pc)
{
    if (!pc) return;
    engine_circuit_free(&pc->ec);
    r1cs_free(&pc->shape);
    post_circuit_free(&pc->pc);
    free(pc);
}

cuzk_status engine_post_request(const engine_post_circuit *pc, const engine_post_job *job, engine_priority prio,
                                engine_request *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (job->type->kind != pc->type->kind || job->type->sector_size != pc->type->sector_size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "PoSt request: %s vanilla proofs for a %s circuit",
                              job->type->name, pc->type->name);
    out->circuit = &pc->ec;
    out->payload = job;
    out->partitions = 1;
    out->priority = prio;
    return CUZK_OK;
}
