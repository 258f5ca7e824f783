#include "formats/wtns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

cuzk_status snarkjs_binfile_open(snarkjs_binfile *bf, const uint8_t *buf, size_t len, const char magic[4],
                                 uint32_t max_version, const char *what, cuzk_error *err)
{
    memset(bf, 0, sizeof *bf);
    bf->buf = buf;
    bf->len = len;
    if (len < 12)
        return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: file header: %zu bytes, need 12 at offset 0", what, len);
    if (memcmp(buf, magic, 4) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: offset 0: magic is not \"%.4s\"", what, magic);
    bf->version = rd32(buf + 4);
    if (bf->version == 0 || bf->version > max_version)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: offset 4: version %u not supported (1..%u)", what, bf->version,
                              max_version);
    uint32_t n = rd32(buf + 8);
    size_t pos = 12;
    /* Each section consumes at least its 12-byte header, so this loop ends within len / 12 steps. */
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 12)
            return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: section %u of %u: header at offset %zu cut short", what,
                                  i, n, pos);
        uint32_t type = rd32(buf + pos);
        uint64_t size = rd64(buf + pos + 4);
        pos += 12;
        if (size > len - pos)
            return cuzk_error_set(err, CUZK_ERR_TRUNCATED,
                                  "%s: section %u (type %u) at offset %zu: size %llu exceeds the %zu bytes left", what,
                                  i, type, pos, (unsigned long long)size, len - pos);
        if (type < SNARKJS_MAX_SECTION_TYPE) {
            if (bf->count[type] == 0) {
                bf->offset[type] = pos;
                bf->size[type] = size;
            }
            bf->count[type]++;
        }
        pos += (size_t)size;
    }
    if (pos != len)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu trailing bytes after the last section at offset %zu", what,
                              len - pos, pos);
    return CUZK_OK;
}

cuzk_status snarkjs_binfile_section(const snarkjs_binfile *bf, uint32_t type, const uint8_t **payload, size_t *size,
                                    const char *what, cuzk_error *err)
{
    if (type >= SNARKJS_MAX_SECTION_TYPE || bf->count[type] == 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section %u is missing", what, type);
    if (bf->count[type] > 1)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section %u appears %u times", what, type, bf->count[type]);
    *payload = bf->buf + bf->offset[type];
    *size = (size_t)bf->size[type];
    return CUZK_OK;
}

cuzk_status snarkjs_map_file(const char *path, const uint8_t **buf, size_t *len, cuzk_error *err)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    if (st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot map: %s", path, strerror(e));
        }
        *buf = m;
        *len = (size_t)st.st_size;
    }
    close(fd);
    return CUZK_OK;
}

void snarkjs_unmap_file(const uint8_t *buf, size_t len)
{
    if (buf && len) munmap((void *)buf, len);
}

void wtns_free(wtns *w)
{
    if (!w) return;
    free(w->values);
    w->values = NULL;
    w->n = 0;
}

/* The field of a section-1 header must be BLS12-381's r: a witness for another curve is a user error that would
 * otherwise produce a proof that silently fails to verify. */
static int is_fr_modulus(const uint8_t *p)
{
    for (int i = 0; i < FR_LIMBS; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) v = v << 8 | p[8 * i + j];
        if (v != FR_MODULUS[i]) return 0;
    }
    return 1;
}

cuzk_status wtns_parse(wtns *out, const uint8_t *buf, size_t len, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    snarkjs_binfile bf;
    cuzk_status st = snarkjs_binfile_open(&bf, buf, len, "wtns", 2, "wtns", err);
    if (st != CUZK_OK) return st;
    const uint8_t *h = NULL, *v = NULL;
    size_t hsize = 0, vsize = 0;
    if ((st = snarkjs_binfile_section(&bf, 1, &h, &hsize, "wtns", err)) != CUZK_OK) return st;
    size_t hoff = (size_t)(h - buf);
    if (hsize < 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "wtns: section 1 at offset %zu: %zu bytes, too short for n8", hoff,
                              hsize);
    uint32_t n8 = rd32(h);
    if (n8 != FR_BYTES)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "wtns: section 1 at offset %zu: n8 = %u, BLS12-381 needs %d", hoff,
                              n8, FR_BYTES);
    if (hsize != 4 + FR_BYTES + 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "wtns: section 1 at offset %zu: %zu bytes, expected %d", hoff,
                              hsize, 4 + FR_BYTES + 4);
    if (!is_fr_modulus(h + 4))
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "wtns: section 1 at offset %zu: the prime is not the BLS12-381 scalar field", hoff + 4);
    uint32_t n = rd32(h + 4 + FR_BYTES);
    if ((st = snarkjs_binfile_section(&bf, 2, &v, &vsize, "wtns", err)) != CUZK_OK) return st;
    size_t voff = (size_t)(v - buf);
    if (vsize != (uint64_t)n * FR_BYTES)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "wtns: section 2 at offset %zu: %zu bytes for %u values (need %llu)", voff, vsize, n,
                              (unsigned long long)n * FR_BYTES);
    fr_t *vals = malloc((n ? n : 1) * sizeof *vals);
    if (!vals) return cuzk_error_set(err, CUZK_ERR_NOMEM, "wtns: %u values", n);
    for (uint32_t i = 0; i < n; i++) {
        if (fr_from_bytes_le(&vals[i], v + (size_t)i * FR_BYTES) != 0) {
            free(vals);
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "wtns: value %u at offset %zu is not below r", i,
                                  voff + (size_t)i * FR_BYTES);
        }
    }
    out->n = n;
    out->values = vals;
    return CUZK_OK;
}

cuzk_status wtns_read(wtns *out, const char *path, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *buf;
    size_t len;
    cuzk_status st = snarkjs_map_file(path, &buf, &len, err);
    if (st != CUZK_OK) return st;
    st = wtns_parse(out, buf, len, err);
    snarkjs_unmap_file(buf, len);
    if (st != CUZK_OK) cuzk_error_prefix(err, "%s: ", path);
    return st;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

cuzk_status wtns_write(const char *path, const fr_t *values, size_t n, cuzk_error *err)
{
    if (n > UINT32_MAX) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "wtns: %zu values exceed the format", n);
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    uint8_t hdr[12 + 12 + 40 + 12];
    memcpy(hdr, "wtns", 4);
    wr32(hdr + 4, 2);
    wr32(hdr + 8, 2);
    wr32(hdr + 12, 1);
    wr64(hdr + 16, 40);
    wr32(hdr + 24, FR_BYTES);
    for (int i = 0; i < FR_LIMBS; i++) wr64(hdr + 28 + 8 * i, FR_MODULUS[i]);
    wr32(hdr + 60, (uint32_t)n);
    wr32(hdr + 64, 2);
    wr64(hdr + 68, (uint64_t)n * FR_BYTES);
    int ok = fwrite(hdr, sizeof hdr, 1, f) == 1;
    for (size_t i = 0; ok && i < n; i++) {
        uint8_t b[FR_BYTES];
        fr_to_bytes_le(b, &values[i]);
        ok = fwrite(b, sizeof b, 1, f) == 1;
    }
    if (fclose(f) != 0) ok = 0;
    if (!ok) return cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed", path);
    return CUZK_OK;
}
