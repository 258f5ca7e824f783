/* VerifySeal from public values (see the header). */
#include "formats/filecoin_seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/porep/challenges.h"
#include "circuits/porep/graph.h"

const char *const FILECOIN_SEAL_API_NAMES[3] = {"1.0.0", "1.1.0", "1.2.0"};
const char *const FILECOIN_SEAL_KIND_NAMES[3] = {"interactive", "synthetic", "non-interactive"};

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* 32 bytes: a hex string (64 digits, optional 0x) or an array of 32 integers 0..255 (the regression records). */
static cuzk_status get_bytes32(const json_value *obj, const char *key, uint8_t out[32], cuzk_error *err)
{
    const json_value *v = json_get(obj, key);
    if (!v) return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"%s\" is missing", key);
    if (v->type == JSON_STRING) {
        const char *t = v->text;
        size_t len = v->len;
        if (len >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t += 2, len -= 2;
        if (len != 64) return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"%s\": %zu hex digits, 64 expected", key, len);
        for (int i = 0; i < 32; i++) {
            int hi = hex_digit(t[2 * i]), lo = hex_digit(t[2 * i + 1]);
            if (hi < 0 || lo < 0)
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"%s\": not a hex digit at %d", key, 2 * i + (hi >= 0));
            out[i] = (uint8_t)(hi << 4 | lo);
        }
        return CUZK_OK;
    }
    if (v->type == JSON_ARRAY) {
        if (v->len != 32) return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"%s\": %zu bytes, 32 expected", key, v->len);
        for (int i = 0; i < 32; i++) {
            uint64_t b;
            cuzk_status st = json_u64(v->items[i], &b, key, err);
            if (st) return st;
            if (b > 255)
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"%s\"[%d] = %llu is not a byte", key, i,
                                      (unsigned long long)b);
            out[i] = (uint8_t)b;
        }
        return CUZK_OK;
    }
    return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"%s\" must be a hex string or an array of 32 bytes", key);
}

cuzk_status filecoin_seal_parse(const json_value *root, filecoin_seal *sp, cuzk_error *err)
{
    memset(sp, 0, sizeof *sp);
    if (!root || root->type != JSON_OBJECT) return cuzk_error_set(err, CUZK_ERR_FORMAT, "not a JSON object");
    const json_value *cfg = json_get(root, "porep_config");
    if (!cfg) cfg = root;
    cuzk_status st;
    const json_value *rp = json_get(cfg, "registered_proof");
    if (rp) {
        uint64_t id;
        if ((st = json_u64(rp, &id, "registered_proof", err))) return st;
        size_t n;
        const porep_proof_type *types = porep_proof_types(&n), *t = NULL;
        for (size_t i = 0; i < n; i++)
            if (types[i].id == id) t = &types[i];
        if (!t)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "registered_proof %llu is not a PoRep proof type",
                                  (unsigned long long)id);
        sp->g = porep_geometry_for_size(t->sector_size);
        sp->api = t->api;
        sp->kind = t->kind;
        porep_proof_type_porep_id(t, sp->porep_id);
    } else {
        uint64_t size;
        if ((st = json_u64(json_get(cfg, "sector_size"), &size, "sector_size", err))) return st;
        if (!(sp->g = porep_geometry_for_size(size)) || !sp->g->published)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "sector_size %llu is not a published PoRep size",
                                  (unsigned long long)size);
        if ((st = get_bytes32(cfg, "porep_id", sp->porep_id, err))) return st;
        const json_value *av = json_get(cfg, "api_version");
        if (!av || av->type != JSON_STRING)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "\"api_version\" (\"1.0.0\", \"1.1.0\" or \"1.2.0\") is missing");
        const char *a = av->text[0] == 'V' ? av->text + 1 : av->text;
        int api = -1;
        static const char *const rust_names[3] = {"1_0_0", "1_1_0", "1_2_0"}; /* ApiVersion's serde names, V cut */
        for (int i = 0; i < 3; i++)
            if (strcmp(a, FILECOIN_SEAL_API_NAMES[i]) == 0 || strcmp(a, rust_names[i]) == 0) api = i;
        if (api < 0)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "api_version \"%s\" is not 1.0.0, 1.1.0 or 1.2.0", av->text);
        sp->api = (porep_api)api;
        sp->kind = POREP_INTERACTIVE;
        const json_value *f = json_get(cfg, "api_features");
        if (f && f->type != JSON_ARRAY)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "\"api_features\" must be an array");
        for (size_t i = 0; f && i < f->len; i++) {
            const char *t = f->items[i]->type == JSON_STRING ? f->items[i]->text : "";
            if (strcmp(t, "SyntheticPoRep") == 0)
                sp->kind = POREP_SYNTHETIC;
            else if (strcmp(t, "NonInteractivePoRep") == 0)
                sp->kind = POREP_NON_INTERACTIVE;
            else
                return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                      "api_features[%zu] is not SyntheticPoRep or NonInteractivePoRep", i);
        }
        if (sp->kind == POREP_SYNTHETIC && sp->api < POREP_API_1_2)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "SyntheticPoRep needs api_version 1.2.0");
    }
    sp->partitions = porep_partitions(sp->g, sp->kind);
    const json_value *pv = json_get(cfg, "partitions");
    if (pv) {
        uint64_t p;
        if ((st = json_u64(pv, &p, "partitions", err))) return st;
        if (p != sp->partitions)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "partitions %llu, but %s %s PoRep has %u",
                                  (unsigned long long)p, sp->g->name, FILECOIN_SEAL_KIND_NAMES[sp->kind],
                                  sp->partitions);
    }
    static const char *const keys[5] = {"comm_r", "comm_d", "prover_id", "ticket", "seed"};
    uint8_t *dst[5] = {sp->comm_r, sp->comm_d, sp->prover_id, sp->ticket, sp->seed};
    for (int i = 0; i < 5; i++)
        if ((st = get_bytes32(root, keys[i], dst[i], err))) return st;
    return json_u64(json_get(root, "sector_id"), &sp->sector_id, "sector_id", err);
}

cuzk_status filecoin_seal_verify(const filecoin_seal *sp, const groth16_pvk *pvk, const uint8_t *proof, size_t len,
                                 cuzk_error *err)
{
    if (sp->kind == POREP_NON_INTERACTIVE)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "non-interactive PoRep proofs are SnarkPack aggregates (not verified here)");
    unsigned count = porep_challenges(sp->g, sp->kind);
    size_t ni = 3 + (size_t)POREP_INPUTS_PER_CHALLENGE * count;
    if (pvk->ic_len != ni + 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "the verifying key has %zu public inputs, a %s PoRep partition %zu: the key of another "
                              "circuit",
                              pvk->ic_len - 1, sp->g->name, ni);
    if (len != (size_t)sp->partitions * GROTH16_PROOF_BYTES)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "the proof is %zu bytes; %s has %u partitions, so %zu are expected",
                              len, sp->g->name, sp->partitions, (size_t)sp->partitions * GROTH16_PROOF_BYTES);
    uint8_t replica_id[32];
    porep_replica_id(replica_id, sp->prover_id, sp->sector_id, sp->ticket, sp->comm_d, sp->porep_id);
    porep_graph graph;
    cuzk_status st = porep_graph_init(&graph, sp->g->nodes, sp->api, sp->porep_id, err);
    if (st) return st;
    fr_t *inputs = malloc(ni * sizeof *inputs);
    if (!inputs) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory for %zu public inputs", ni);
    for (unsigned k = 0; st == CUZK_OK && k < sp->partitions; k++) {
        uint64_t ch[POREP_MAX_CHALLENGES];
        porep_challenges_derive(ch, sp->g, sp->kind, replica_id, sp->seed, sp->comm_r, k);
        st = porep_public_inputs(inputs, &graph, ch, count, replica_id, sp->comm_d, sp->comm_r, err);
        groth16_proof pr;
        if (st == CUZK_OK && groth16_proof_read(&pr, proof + (size_t)k * GROTH16_PROOF_BYTES, err) != CUZK_OK)
            st = cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "partition %u: the proof does not decode", k);
        if (st == CUZK_OK && (st = groth16_verify(NULL, pvk, &pr, inputs, ni, err)) == CUZK_ERR_INVALID_PROOF)
            cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "partition %u of %u does not verify", k, sp->partitions);
    }
    free(inputs);
    return st;
}
