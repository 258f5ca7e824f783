/* bellperson .params / .vk files: parse (from memory or an mmap), write. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/groth16.h"

void groth16_vk_free(groth16_vk *vk)
{
    if (!vk) return;
    free(vk->ic);
    memset(vk, 0, sizeof(*vk));
}

void groth16_params_free(groth16_params *p)
{
    if (!p) return;
    groth16_vk_free(&p->vk);
    if (p->map) {
        munmap(p->map, p->map_len);
    } else {
        free(p->h);
        free(p->l);
        free(p->a);
        free(p->b_g1);
        free(p->b_g2);
    }
    memset(p, 0, sizeof(*p));
}

static uint32_t read_u32_be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void write_u32_be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* ---- parsing ---- */

typedef struct reader {
    const uint8_t *buf;
    size_t len, off;
    const char *file; /* "params" or "vk", for messages */
} reader;

static cuzk_status need(reader *r, size_t n, const char *what, cuzk_error *err)
{
    if (r->len - r->off < n)
        return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: %s at offset %zu: needs %zu bytes, data ends at %zu",
                              r->file, what, r->off, n, r->len);
    return CUZK_OK;
}

static cuzk_status read_g1_point(reader *r, g1_affine_t *p, const char *name, cuzk_error *err)
{
    cuzk_status st = need(r, G1_UNCOMPRESSED_BYTES, name, err);
    if (st != CUZK_OK) return st;
    cuzk_error e;
    if (g1_from_uncompressed(p, r->buf + r->off, 1, &e) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %s at offset %zu: %s", r->file, name, r->off, e.msg);
    r->off += G1_UNCOMPRESSED_BYTES;
    return CUZK_OK;
}

static cuzk_status read_g2_point(reader *r, g2_affine_t *p, const char *name, cuzk_error *err)
{
    cuzk_status st = need(r, G2_UNCOMPRESSED_BYTES, name, err);
    if (st != CUZK_OK) return st;
    cuzk_error e;
    if (g2_from_uncompressed(p, r->buf + r->off, 1, &e) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %s at offset %zu: %s", r->file, name, r->off, e.msg);
    r->off += G2_UNCOMPRESSED_BYTES;
    return CUZK_OK;
}

/* A section: u32 length, then len points of point_bytes each. Checks that the whole section lies within
 * the data (naming the first missing element) and returns its length and the offset of element 0. */
static cuzk_status read_section_header(reader *r, const char *name, size_t point_bytes, size_t *count, size_t *start,
                                       cuzk_error *err)
{
    char what[64];
    snprintf(what, sizeof(what), "%s length", name);
    cuzk_status st = need(r, 4, what, err);
    if (st != CUZK_OK) return st;
    size_t n = read_u32_be(r->buf + r->off);
    r->off += 4;
    size_t avail = (r->len - r->off) / point_bytes;
    if (n > avail)
        return cuzk_error_set(err, CUZK_ERR_TRUNCATED,
                              "%s: %s[%zu] at offset %zu: section has %zu points, data ends at %zu", r->file, name,
                              avail, r->off + avail * point_bytes, n, r->len);
    *count = n;
    *start = r->off;
    r->off += n * point_bytes;
    return CUZK_OK;
}

/* Parallel decoding of one section; the failure with the lowest index is the one reported. */
typedef struct decode_ctx {
    const uint8_t *base; /* element 0 */
    size_t base_off;
    int is_g2;
    void *out;
    int check_subgroup, reject_inf;
    const char *file, *name;
    pthread_mutex_t mu;
    size_t bad; /* lowest failing index, SIZE_MAX if none */
    cuzk_error err;
} decode_ctx;

static void decode_fail(decode_ctx *c, size_t i, size_t point_bytes, const char *why)
{
    pthread_mutex_lock(&c->mu);
    if (i < c->bad) {
        __atomic_store_n(&c->bad, i, __ATOMIC_RELAXED);
        cuzk_error_set(&c->err, CUZK_ERR_FORMAT, "%s: %s[%zu] at offset %zu: %s", c->file, c->name, i,
                       c->base_off + i * point_bytes, why);
    }
    pthread_mutex_unlock(&c->mu);
}

static void decode_chunk(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    decode_ctx *c = ctx;
    size_t pb = c->is_g2 ? G2_UNCOMPRESSED_BYTES : G1_UNCOMPRESSED_BYTES;
    for (size_t i = begin; i < end; i++) {
        if (__atomic_load_n(&c->bad, __ATOMIC_RELAXED) < i) return;
        cuzk_error e;
        cuzk_status st;
        int inf;
        if (c->is_g2) {
            g2_affine_t *p = (g2_affine_t *)c->out + i;
            st = g2_from_uncompressed(p, c->base + i * pb, c->check_subgroup, &e);
            inf = st == CUZK_OK && g2_affine_is_inf(p);
        } else {
            g1_affine_t *p = (g1_affine_t *)c->out + i;
            st = g1_from_uncompressed(p, c->base + i * pb, c->check_subgroup, &e);
            inf = st == CUZK_OK && g1_affine_is_inf(p);
        }
        if (st != CUZK_OK) {
            decode_fail(c, i, pb, e.msg);
            return;
        }
        if (inf && c->reject_inf) {
            decode_fail(c, i, pb, "point at infinity");
            return;
        }
    }
}

static cuzk_status decode_section(pool_t *pool, const uint8_t *buf, size_t start, size_t n, int is_g2, void *out,
                                  int check_subgroup, const char *file, const char *name, cuzk_error *err)
{
    decode_ctx c = {.base = buf + start,
                    .base_off = start,
                    .is_g2 = is_g2,
                    .out = out,
                    .check_subgroup = check_subgroup,
                    .reject_inf = 1,
                    .file = file,
                    .name = name,
                    .bad = SIZE_MAX};
    pthread_mutex_init(&c.mu, NULL);
    /* Subgroup checks cost far more than decoding alone; smaller chunks balance them better. */
    pool_parallel_for(pool, n, check_subgroup ? 64 : 1024, decode_chunk, &c);
    pthread_mutex_destroy(&c.mu);
    if (c.bad != SIZE_MAX) {
        if (err) *err = c.err;
        return c.err.code;
    }
    return CUZK_OK;
}

/* The vk prefix, shared by both files. ic decoded (with subgroup checks) into a fresh array. */
static cuzk_status parse_vk(pool_t *pool, reader *r, groth16_vk *vk, cuzk_error *err)
{
    cuzk_status st;
    if ((st = read_g1_point(r, &vk->alpha_g1, "alpha_g1", err)) != CUZK_OK) return st;
    if ((st = read_g1_point(r, &vk->beta_g1, "beta_g1", err)) != CUZK_OK) return st;
    if ((st = read_g2_point(r, &vk->beta_g2, "beta_g2", err)) != CUZK_OK) return st;
    if ((st = read_g2_point(r, &vk->gamma_g2, "gamma_g2", err)) != CUZK_OK) return st;
    if ((st = read_g1_point(r, &vk->delta_g1, "delta_g1", err)) != CUZK_OK) return st;
    if ((st = read_g2_point(r, &vk->delta_g2, "delta_g2", err)) != CUZK_OK) return st;
    size_t n = 0, start = 0;
    if ((st = read_section_header(r, "ic", G1_UNCOMPRESSED_BYTES, &n, &start, err)) != CUZK_OK) return st;
    vk->ic = malloc((n ? n : 1) * sizeof(g1_affine_t));
    if (!vk->ic) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: ic: cannot allocate %zu points", r->file, n);
    vk->ic_len = n;
    return decode_section(pool, r->buf, start, n, 0, vk->ic, 1, r->file, "ic", err);
}

cuzk_status groth16_vk_parse(groth16_vk *out, const uint8_t *buf, size_t len, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    reader r = {.buf = buf, .len = len, .off = 0, .file = "vk"};
    cuzk_status st = parse_vk(NULL, &r, out, err);
    if (st == CUZK_OK && r.off != len)
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "vk: %zu trailing bytes at offset %zu", len - r.off, r.off);
    if (st != CUZK_OK) groth16_vk_free(out);
    return st;
}

cuzk_status groth16_params_parse(pool_t *pool, groth16_params *out, const uint8_t *buf, size_t len, unsigned flags,
                                 cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    reader r = {.buf = buf, .len = len, .off = 0, .file = "params"};
    cuzk_status st = parse_vk(pool, &r, &out->vk, err);
    if (st != CUZK_OK) goto fail;

    static const char *const names[5] = {"h", "l", "a", "b_g1", "b_g2"};
    size_t count[5] = {0}, start[5] = {0};
    /* All lengths first, so a truncated file fails before any large allocation. */
    for (int s = 0; s < 5; s++) {
        size_t pb = s == 4 ? G2_UNCOMPRESSED_BYTES : G1_UNCOMPRESSED_BYTES;
        st = read_section_header(&r, names[s], pb, &count[s], &start[s], err);
        if (st != CUZK_OK) goto fail;
    }
    if (r.off != len) {
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "params: %zu trailing bytes at offset %zu", len - r.off, r.off);
        goto fail;
    }
    out->h_len = count[0];
    out->l_len = count[1];
    out->a_len = count[2];
    out->b_g1_len = count[3];
    out->b_g2_len = count[4];
    out->h = malloc((count[0] ? count[0] : 1) * sizeof(g1_affine_t));
    out->l = malloc((count[1] ? count[1] : 1) * sizeof(g1_affine_t));
    out->a = malloc((count[2] ? count[2] : 1) * sizeof(g1_affine_t));
    out->b_g1 = malloc((count[3] ? count[3] : 1) * sizeof(g1_affine_t));
    out->b_g2 = malloc((count[4] ? count[4] : 1) * sizeof(g2_affine_t));
    if (!out->h || !out->l || !out->a || !out->b_g1 || !out->b_g2) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "params: cannot allocate the bases (%zu bytes of file)", len);
        goto fail;
    }
    void *dst[5] = {out->h, out->l, out->a, out->b_g1, out->b_g2};
    int check = !(flags & GROTH16_LOAD_SKIP_SUBGROUP_CHECK);
    for (int s = 0; s < 5; s++) {
        st = decode_section(pool, buf, start[s], count[s], s == 4, dst[s], check, "params", names[s], err);
        if (st != CUZK_OK) goto fail;
    }
    return CUZK_OK;
fail:
    groth16_params_free(out);
    return st;
}

/* Maps path read-only and calls parse(buf, len). */
typedef cuzk_status (*parse_fn)(void *ctx, const uint8_t *buf, size_t len, cuzk_error *err);

static cuzk_status with_mapped_file(const char *path, parse_fn parse, void *ctx, cuzk_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    size_t len = (size_t)sb.st_size;
    const uint8_t *buf = NULL;
    void *map = NULL;
    if (len > 0) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot map %zu bytes: %s", path, len, strerror(e));
        }
        madvise(map, len, MADV_SEQUENTIAL);
        buf = map;
    }
    close(fd);
    static const uint8_t empty[1] = {0};
    cuzk_status st = parse(ctx, buf ? buf : empty, len, err);
    if (map) munmap(map, len);
    if (st != CUZK_OK) cuzk_error_prefix(err, "%s: ", path);
    return st;
}

typedef struct params_read_ctx {
    pool_t *pool;
    groth16_params *out;
    unsigned flags;
} params_read_ctx;

static cuzk_status params_parse_cb(void *ctx, const uint8_t *buf, size_t len, cuzk_error *err)
{
    params_read_ctx *c = ctx;
    return groth16_params_parse(c->pool, c->out, buf, len, c->flags, err);
}

static cuzk_status vk_parse_cb(void *ctx, const uint8_t *buf, size_t len, cuzk_error *err)
{
    return groth16_vk_parse(ctx, buf, len, err);
}

cuzk_status groth16_params_read(pool_t *pool, groth16_params *out, const char *path, unsigned flags, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    params_read_ctx c = {pool, out, flags};
    return with_mapped_file(path, params_parse_cb, &c, err);
}

cuzk_status groth16_vk_read(groth16_vk *out, const char *path, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    return with_mapped_file(path, vk_parse_cb, out, err);
}

/* ---- writing ---- */

size_t groth16_vk_file_size(const groth16_vk *vk)
{
    return GROTH16_VK_FIXED_BYTES + vk->ic_len * G1_UNCOMPRESSED_BYTES;
}

size_t groth16_params_file_size(const groth16_params *p)
{
    return groth16_vk_file_size(&p->vk) + 5 * 4 +
           (p->h_len + p->l_len + p->a_len + p->b_g1_len) * G1_UNCOMPRESSED_BYTES + p->b_g2_len * G2_UNCOMPRESSED_BYTES;
}

typedef struct writer {
    FILE *f;
    const char *path;
    pool_t *pool;
    uint8_t *chunk; /* WRITE_CHUNK G2 points worth of bytes */
} writer;

#define WRITE_CHUNK 4096

static cuzk_status put(writer *w, const void *data, size_t n, cuzk_error *err)
{
    if (fwrite(data, 1, n, w->f) != n)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
    return CUZK_OK;
}

typedef struct encode_ctx {
    const void *points;
    int is_g2;
    uint8_t *out;
} encode_ctx;

static void encode_chunk(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    encode_ctx *c = ctx;
    for (size_t i = begin; i < end; i++) {
        if (c->is_g2)
            g2_to_uncompressed(c->out + i * G2_UNCOMPRESSED_BYTES, (const g2_affine_t *)c->points + i);
        else
            g1_to_uncompressed(c->out + i * G1_UNCOMPRESSED_BYTES, (const g1_affine_t *)c->points + i);
    }
}

static cuzk_status put_section(writer *w, const char *name, const void *points, size_t n, int is_g2, cuzk_error *err)
{
    if (n > UINT32_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: section %s has %zu points, more than a u32 holds",
                              w->path, name, n);
    uint8_t len[4];
    write_u32_be(len, (uint32_t)n);
    cuzk_status st = put(w, len, 4, err);
    size_t pb = is_g2 ? G2_UNCOMPRESSED_BYTES : G1_UNCOMPRESSED_BYTES;
    size_t esz = is_g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
    for (size_t i = 0; st == CUZK_OK && i < n; i += WRITE_CHUNK) {
        size_t k = n - i < WRITE_CHUNK ? n - i : WRITE_CHUNK;
        encode_ctx c = {(const uint8_t *)points + i * esz, is_g2, w->chunk};
        pool_parallel_for(w->pool, k, 256, encode_chunk, &c);
        st = put(w, w->chunk, k * pb, err);
    }
    return st;
}

static cuzk_status put_vk(writer *w, const groth16_vk *vk, cuzk_error *err)
{
    uint8_t b[G2_UNCOMPRESSED_BYTES];
    cuzk_status st;
    g1_to_uncompressed(b, &vk->alpha_g1);
    if ((st = put(w, b, G1_UNCOMPRESSED_BYTES, err)) != CUZK_OK) return st;
    g1_to_uncompressed(b, &vk->beta_g1);
    if ((st = put(w, b, G1_UNCOMPRESSED_BYTES, err)) != CUZK_OK) return st;
    g2_to_uncompressed(b, &vk->beta_g2);
    if ((st = put(w, b, G2_UNCOMPRESSED_BYTES, err)) != CUZK_OK) return st;
    g2_to_uncompressed(b, &vk->gamma_g2);
    if ((st = put(w, b, G2_UNCOMPRESSED_BYTES, err)) != CUZK_OK) return st;
    g1_to_uncompressed(b, &vk->delta_g1);
    if ((st = put(w, b, G1_UNCOMPRESSED_BYTES, err)) != CUZK_OK) return st;
    g2_to_uncompressed(b, &vk->delta_g2);
    if ((st = put(w, b, G2_UNCOMPRESSED_BYTES, err)) != CUZK_OK) return st;
    return put_section(w, "ic", vk->ic, vk->ic_len, 0, err);
}

static cuzk_status open_writer(writer *w, pool_t *pool, const char *path, cuzk_error *err)
{
    w->path = path;
    w->pool = pool;
    w->chunk = malloc((size_t)WRITE_CHUNK * G2_UNCOMPRESSED_BYTES);
    if (!w->chunk) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the write buffer", path);
    w->f = fopen(path, "wb");
    if (!w->f) {
        free(w->chunk);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    return CUZK_OK;
}

/* Closes the file; on failure (st or a failing close) removes the partial file. */
static cuzk_status close_writer(writer *w, cuzk_status st, cuzk_error *err)
{
    free(w->chunk);
    if (fclose(w->f) != 0 && st == CUZK_OK)
        st = cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed on close: %s", w->path, strerror(errno));
    if (st != CUZK_OK) remove(w->path);
    return st;
}

cuzk_status groth16_vk_write(const groth16_vk *vk, const char *path, cuzk_error *err)
{
    writer w;
    cuzk_status st = open_writer(&w, NULL, path, err);
    if (st != CUZK_OK) return st;
    st = put_vk(&w, vk, err);
    return close_writer(&w, st, err);
}

cuzk_status groth16_params_write(pool_t *pool, const groth16_params *p, const char *path, cuzk_error *err)
{
    writer w;
    cuzk_status st = open_writer(&w, pool, path, err);
    if (st != CUZK_OK) return st;
    st = put_vk(&w, &p->vk, err);
    if (st == CUZK_OK) st = put_section(&w, "h", p->h, p->h_len, 0, err);
    if (st == CUZK_OK) st = put_section(&w, "l", p->l, p->l_len, 0, err);
    if (st == CUZK_OK) st = put_section(&w, "a", p->a, p->a_len, 0, err);
    if (st == CUZK_OK) st = put_section(&w, "b_g1", p->b_g1, p->b_g1_len, 0, err);
    if (st == CUZK_OK) st = put_section(&w, "b_g2", p->b_g2, p->b_g2_len, 1, err);
    return close_writer(&w, st, err);
}
