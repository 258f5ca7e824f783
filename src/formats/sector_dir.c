#include "formats/sector_dir.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/json.h"
#include "util/hexbytes.h"

static cuzk_status sector_dir_put(const char *dir, const char *name, const void *data, size_t len, cuzk_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "sector dir: cannot create %s: %s", path, strerror(errno));
    int ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    return ok ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_IO, "sector dir: write to %s failed", path);
}

cuzk_status sector_dir_write(const char *dir, const porep_sealed *s, const porep_seal_params *p,
                             unsigned registered_seal_proof, cuzk_error *err)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "sector dir: cannot create %s: %s", dir, strerror(errno));
    size_t bytes = (size_t)s->geometry->nodes * sizeof(porep_dom);
    cuzk_status st = sector_dir_put(dir, "sealed", s->replica, bytes, err);
    if (!st) st = sector_dir_put(dir, "unsealed", s->data, bytes, err);
    if (st) return st;
    char h[6][65];
    hexbytes_encode(h[0], p->prover_id, 32);
    hexbytes_encode(h[1], p->ticket, 32);
    hexbytes_encode(h[2], s->comm_c, 32);
    hexbytes_encode(h[3], s->comm_r_last, 32);
    hexbytes_encode(h[4], s->comm_r, 32);
    hexbytes_encode(h[5], s->comm_d, 32);
    char json[1024];
    int n = snprintf(json, sizeof json,
                     "{\"sector_size\": %" PRIu64 ", \"registered_seal_proof\": %u, \"sector_id\": %" PRIu64
                     ", \"prover_id\": \"%s\", \"ticket\": \"%s\", \"comm_c\": \"%s\", \"comm_r_last\": \"%s\", "
                     "\"comm_r\": \"%s\", \"comm_d\": \"%s\"}\n",
                     s->geometry->sector_size, registered_seal_proof, p->sector_id, h[0], h[1], h[2], h[3], h[4], h[5]);
    return sector_dir_put(dir, "sector.json", json, (size_t)n, err);
}

/* A whole file of exactly want bytes (want 0: any size up to 64 KiB, NUL-terminated). */
static cuzk_status sector_dir_get(const char *dir, const char *name, size_t want, uint8_t **out, size_t *len,
                                  cuzk_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "sector dir: cannot open %s: %s", path, strerror(errno));
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    cuzk_status st = CUZK_OK;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0)
        st = cuzk_error_set(err, CUZK_ERR_IO, "sector dir: cannot read %s", path);
    else if (want && (size_t)n != want)
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "sector dir: %s has %ld bytes, expected %zu (the sector size)", path,
                            n, want);
    else if (!want && n > 65536)
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "sector dir: %s is too large", path);
    if (!st && !(*out = malloc((size_t)n + 1)))
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "sector dir: out of memory for %s", path);
    if (!st && fread(*out, 1, (size_t)n, f) != (size_t)n)
        st = cuzk_error_set(err, CUZK_ERR_IO, "sector dir: cannot read %s", path);
    fclose(f);
    if (st) {
        free(*out);
        *out = NULL;
        return st;
    }
    (*out)[n] = 0;
    *len = (size_t)n;
    return CUZK_OK;
}

static cuzk_status sector_dir_hex(const json_value *root, const char *key, uint8_t out[32], cuzk_error *err)
{
    const json_value *v = json_get(root, key);
    cuzk_status st = json_expect(v, JSON_STRING, key, err);
    if (!st) st = hexbytes_decode(out, 32, v->text, key, err);
    return st;
}

cuzk_status sector_dir_parse_info(sector_dir *d, const char *text, size_t len, cuzk_error *err)
{
    memset(d, 0, sizeof *d);
    json_doc *doc = NULL;
    cuzk_status st = json_parse(&doc, text, len, err);
    const json_value *root = st ? NULL : json_root(doc);
    if (!st) st = json_expect(root, JSON_OBJECT, "the document", err);
    uint64_t size = 0, id = 0;
    if (!st) st = json_u64(json_get(root, "sector_size"), &size, "sector_size", err);
    if (!st) st = json_u64(json_get(root, "registered_seal_proof"), &id, "registered_seal_proof", err);
    if (!st) st = json_u64(json_get(root, "sector_id"), &d->sector_id, "sector_id", err);
    if (!st) st = sector_dir_hex(root, "prover_id", d->prover_id, err);
    if (!st) st = sector_dir_hex(root, "ticket", d->ticket, err);
    if (!st) st = sector_dir_hex(root, "comm_c", d->comm_c, err);
    if (!st) st = sector_dir_hex(root, "comm_r_last", d->comm_r_last, err);
    if (!st) st = sector_dir_hex(root, "comm_r", d->comm_r, err);
    if (!st) st = sector_dir_hex(root, "comm_d", d->comm_d, err);
    json_free(doc);
    if (!st && (id > 1000 || !(d->geometry = porep_geometry_for_size(size))))
        st = cuzk_error_set(err, CUZK_ERR_FORMAT,
                            "sector_size %" PRIu64 " / registered_seal_proof %" PRIu64 " not known", size, id);
    if (!st && size > SECTOR_DIR_MAX_SIZE)
        st = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                            "sector_size %" PRIu64 ": sector directories of more than "
                            "1 GiB are not read",
                            size);
    if (st) {
        memset(d, 0, sizeof *d);
        return st;
    }
    d->registered_seal_proof = (unsigned)id;
    return CUZK_OK;
}

cuzk_status sector_dir_read(sector_dir *d, const char *dir, int with_unsealed, cuzk_error *err)
{
    memset(d, 0, sizeof *d);
    uint8_t *text;
    size_t len;
    cuzk_status st = sector_dir_get(dir, "sector.json", 0, &text, &len, err);
    if (st) return st;
    st = sector_dir_parse_info(d, (const char *)text, len, err);
    free(text);
    if (st) return cuzk_error_prefix(err, "sector dir: %s/sector.json: ", dir);
    size_t size = (size_t)d->geometry->sector_size;
    uint8_t *b;
    st = sector_dir_get(dir, "sealed", size, &b, &len, err);
    d->sealed = (porep_dom *)b;
    if (!st && with_unsealed) {
        st = sector_dir_get(dir, "unsealed", size, &b, &len, err);
        d->unsealed = (porep_dom *)b;
    }
    if (st) sector_dir_free(d);
    return st;
}

void sector_dir_free(sector_dir *d)
{
    if (!d) return;
    free(d->sealed);
    free(d->unsealed);
    memset(d, 0, sizeof *d);
}
