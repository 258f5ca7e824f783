#include "engine/kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table, in cuzk.v1.ProofKind order (GetStatus lists the queues in this order). */
static const engine_kind *const KINDS[] = {
    &engine_kind_porep_c2,     &engine_kind_snap_update,  &engine_kind_window_post,
    &engine_kind_winning_post, &engine_kind_circuit_spec,
};

const engine_kind *const *engine_kinds(size_t *count)
{
    *count = sizeof(KINDS) / sizeof(KINDS[0]);
    return KINDS;
}

const engine_kind *engine_kind_find(int id)
{
    for (size_t i = 0; i < sizeof(KINDS) / sizeof(KINDS[0]); i++)
        if (KINDS[i]->id == id) return KINDS[i];
    return NULL;
}

const engine_kind *engine_kind_of_set(const char *name, char *id, size_t idlen)
{
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof(KINDS) / sizeof(KINDS[0]); i++)
        if (KINDS[i]->set_known && KINDS[i]->set_known(name, id, idlen)) return KINDS[i];
    return NULL;
}

int engine_kind_implemented(const engine_kind *k)
{
    return k && k->parse != NULL;
}

static cuzk_status bytes_copy(const engine_bytes *in, engine_bytes *out, cuzk_error *err)
{
    out->data = NULL;
    out->len = 0;
    if (!in->len) return CUZK_OK;
    uint8_t *p = malloc(in->len);
    if (!p) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory copying %zu bytes of the request", in->len);
    memcpy(p, in->data, in->len);
    out->data = p;
    out->len = in->len;
    return CUZK_OK;
}

cuzk_status engine_kind_input_copy(const engine_kind_input *in, engine_kind_input *out, cuzk_error *err)
{
    *out = *in;
    out->vanilla_proof = (engine_bytes){0};
    out->vanilla_proofs = NULL;
    out->n_vanilla_proofs = 0;
    out->randomness = out->comm_r_old = out->comm_r_new = out->comm_d_new = (engine_bytes){0};
    out->circuit = NULL;
    cuzk_status st = bytes_copy(&in->vanilla_proof, &out->vanilla_proof, err);
    if (st == CUZK_OK && in->n_vanilla_proofs) {
        engine_bytes *v = calloc(in->n_vanilla_proofs, sizeof(*v));
        if (!v) {
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory copying the request");
        } else {
            out->vanilla_proofs = v;
            out->n_vanilla_proofs = in->n_vanilla_proofs;
            for (size_t i = 0; i < in->n_vanilla_proofs && st == CUZK_OK; i++)
                st = bytes_copy(&in->vanilla_proofs[i], &v[i], err);
        }
    }
    if (st == CUZK_OK) st = bytes_copy(&in->randomness, &out->randomness, err);
    if (st == CUZK_OK) st = bytes_copy(&in->comm_r_old, &out->comm_r_old, err);
    if (st == CUZK_OK) st = bytes_copy(&in->comm_r_new, &out->comm_r_new, err);
    if (st == CUZK_OK) st = bytes_copy(&in->comm_d_new, &out->comm_d_new, err);
    if (st == CUZK_OK && in->circuit) {
        size_t n = strlen(in->circuit) + 1;
        char *c = malloc(n);
        if (!c)
            st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory copying the request");
        else
            out->circuit = memcpy(c, in->circuit, n);
    }
    if (st != CUZK_OK) engine_kind_input_free(out);
    return st;
}

void engine_kind_input_free(engine_kind_input *in)
{
    if (!in) return;
    free((void *)in->vanilla_proof.data);
    for (size_t i = 0; i < in->n_vanilla_proofs; i++) free((void *)in->vanilla_proofs[i].data);
    free((void *)in->vanilla_proofs);
    free((void *)in->randomness.data);
    free((void *)in->comm_r_old.data);
    free((void *)in->comm_r_new.data);
    free((void *)in->comm_d_new.data);
    free((void *)in->circuit);
    memset(in, 0, sizeof(*in));
}

cuzk_status engine_kind_load_filecoin(filecoin_params_kind kind, uint64_t sector_size, const char *set,
                                      const char *param_cache, int mapped, pool_t *pool, groth16_params *out,
                                      cuzk_error *err)
{
    char dir[2048];
    cuzk_status st = filecoin_params_dir(param_cache, dir, sizeof dir, err);
    if (st != CUZK_OK) return st;
    filecoin_params_files *f = malloc(sizeof *f);
    if (!f) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    char name[FILECOIN_PARAMS_NAME_MAX];
    if (filecoin_params_name(kind, sector_size, name, sizeof name, err) == CUZK_OK) {
        st = filecoin_params_find(dir, kind, sector_size, f, err);
    } else {
        /* A test size Filecoin publishes nothing for: cuzk's own <set>.params only. */
        int w = snprintf(f->params, sizeof f->params, "%s/%s.params", dir, set);
        st = w > 0 && (size_t)w < sizeof f->params
                 ? CUZK_OK
                 : cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "the parameter path of %s is too long", set);
    }
    if (st == CUZK_OK) {
        char cache[sizeof f->params + 16];
        snprintf(cache, sizeof cache, "%s.cuzk-map", f->params);
        st = mapped
                 ? groth16_params_load_mapped(pool, out, f->params, cache, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, NULL, err)
                 : groth16_params_read(pool, out, f->params, GROTH16_LOAD_SKIP_SUBGROUP_CHECK, err);
        if (st != CUZK_OK) cuzk_error_prefix(err, "%s: ", f->params);
    }
    free(f);
    return st;
}
