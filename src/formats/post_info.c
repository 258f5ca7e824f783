#include "formats/post_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "formats/wtns.h"
#include "util/hexbytes.h"

static cuzk_status post_info_hex32(const json_value *v, uint8_t out[32], const char *what, cuzk_error *err)
{
    cuzk_status st = json_expect(v, JSON_STRING, what, err);
    if (st) return st;
    if (strlen(v->text) != v->len) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: a NUL inside the string", what);
    return hexbytes_decode(out, 32, v->text, what, err);
}

void post_info_free(post_info_file *info)
{
    free(info->sectors);
    memset(info, 0, sizeof *info);
}

cuzk_status post_info_parse(post_info_file *out, const char *text, size_t len, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    json_doc *doc;
    cuzk_status st = json_parse(&doc, text, len, err);
    if (st) return st;
    const json_value *root = json_root(doc), *sectors;
    uint64_t id;
    if ((st = json_expect(root, JSON_OBJECT, "the PoSt info", err)) ||
        (st = json_u64(json_get(root, "registered_proof"), &id, "registered_proof", err)))
        goto done;
    if (id > UINT32_MAX || !(out->type = post_proof_type_by_id((unsigned)id))) {
        st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "registered_proof %llu is not a registered PoSt proof",
                            (unsigned long long)id);
        goto done;
    }
    if ((st = post_info_hex32(json_get(root, "randomness"), out->randomness, "randomness", err)) ||
        (st = post_info_hex32(json_get(root, "prover_id"), out->prover_id, "prover_id", err)))
        goto done;
    if (!(sectors = json_get(root, "sectors"))) goto done;
    if ((st = json_expect(sectors, JSON_ARRAY, "sectors", err))) goto done;
    if (sectors->len > POST_INFO_MAX_SECTORS) {
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "sectors: %zu entries (at most %d)", sectors->len,
                            POST_INFO_MAX_SECTORS);
        goto done;
    }
    if (sectors->len && !(out->sectors = calloc(sectors->len, sizeof *out->sectors))) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "sectors: out of memory");
        goto done;
    }
    out->n = sectors->len;
    for (size_t i = 0; i < sectors->len && st == CUZK_OK; i++) {
        const json_value *s = json_at(sectors, i);
        char what[48];
        snprintf(what, sizeof what, "sectors[%zu]", i);
        if ((st = json_expect(s, JSON_OBJECT, what, err))) break;
        snprintf(what, sizeof what, "sectors[%zu].sector_id", i);
        if ((st = json_u64(json_get(s, "sector_id"), &out->sectors[i].sector_id, what, err))) break;
        snprintf(what, sizeof what, "sectors[%zu].comm_r", i);
        if ((st = post_info_hex32(json_get(s, "comm_r"), out->sectors[i].comm_r, what, err))) break;
        fr_t x;
        if (fr_from_bytes_le(&x, out->sectors[i].comm_r))
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not a field element (>= r)", what);
    }
done:
    json_free(doc);
    if (st) post_info_free(out);
    return st;
}

cuzk_status post_info_read(post_info_file *out, const char *path, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *buf;
    size_t len;
    cuzk_status st = snarkjs_map_file(path, &buf, &len, err);
    if (st != CUZK_OK) return st;
    st = post_info_parse(out, (const char *)buf, len, err);
    snarkjs_unmap_file(buf, len);
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "%s: ", path);
}
