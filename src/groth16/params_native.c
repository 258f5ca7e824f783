/* Parameters in cuzk's own layout on disk, memory-mapped (groth16.h: the warm tier of parameter residency).
 *
 * File: a 4096-byte header, then ic, h, l, a, b_g1 (G1 affine, 96 bytes each) and b_g2 (G2 affine, 192 bytes),
 * each array starting on a 4096-byte boundary, exactly as they sit in memory (Montgomery limbs, host byte order),
 * so that a mapping is the parameters without any decoding. The header records the size and modification time
 * of the bellperson file the cache was made from; a cache that does not match them is remade. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/groth16.h"

#define NATIVE_MAGIC "CUZKPAR1"
#define NATIVE_VERSION 1u
#define NATIVE_BYTE_ORDER 0x01020304u
#define NATIVE_ALIGN 4096u

enum { ARR_IC, ARR_H, ARR_L, ARR_A, ARR_B_G1, ARR_B_G2, ARR_N };
static const char *const ARR_NAME[ARR_N] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

typedef struct native_header {
    char magic[8];
    uint32_t version, byte_order, h_form, reserved;
    uint64_t source_size;
    int64_t source_mtime_ns;
    uint64_t len[ARR_N], off[ARR_N];
    uint64_t file_len;
    g1_affine_t alpha_g1, beta_g1, delta_g1;
    g2_affine_t beta_g2, gamma_g2, delta_g2;
} native_header;

_Static_assert(sizeof(native_header) <= NATIVE_ALIGN, "the header fits its page");

static size_t elem_size(int k)
{
    return k == ARR_B_G2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
}

static const void *arr_ptr(const groth16_params *p, int k)
{
    const void *v[ARR_N] = {p->vk.ic, p->h, p->l, p->a, p->b_g1, p->b_g2};
    return v[k];
}

static uint64_t align_up(uint64_t x)
{
    return (x + NATIVE_ALIGN - 1) / NATIVE_ALIGN * NATIVE_ALIGN;
}

static cuzk_status source_stamp(const char *source, uint64_t *size, int64_t *mtime_ns, cuzk_error *err)
{
    struct stat sb;
    if (stat(source, &sb) != 0) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot stat: %s", source, strerror(errno));
    *size = (uint64_t)sb.st_size;
    *mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    return CUZK_OK;
}

static cuzk_status write_all(int fd, const void *buf, uint64_t len, const char *path, cuzk_error *err)
{
    const char *b = buf;
    while (len > 0) {
        ssize_t w = write(fd, b, len > ((uint64_t)1 << 30) ? ((size_t)1 << 30) : (size_t)len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        b += w;
        len -= (uint64_t)w;
    }
    return CUZK_OK;
}

cuzk_status groth16_params_native_write(const groth16_params *p, const char *source, const char *path, cuzk_error *err)
{
    native_header hd;
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, NATIVE_MAGIC, 8);
    hd.version = NATIVE_VERSION;
    hd.byte_order = NATIVE_BYTE_ORDER;
    hd.h_form = (uint32_t)p->h_form;
    cuzk_status st = source ? source_stamp(source, &hd.source_size, &hd.source_mtime_ns, err) : CUZK_OK;
    if (st != CUZK_OK) return st;
    const uint64_t lens[ARR_N] = {p->vk.ic_len, p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    uint64_t off = NATIVE_ALIGN;
    for (int k = 0; k < ARR_N; k++) {
        hd.len[k] = lens[k];
        hd.off[k] = off;
        off = align_up(off + lens[k] * elem_size(k));
    }
    hd.file_len = off;
    hd.alpha_g1 = p->vk.alpha_g1;
    hd.beta_g1 = p->vk.beta_g1;
    hd.delta_g1 = p->vk.delta_g1;
    hd.beta_g2 = p->vk.beta_g2;
    hd.gamma_g2 = p->vk.gamma_g2;
    hd.delta_g2 = p->vk.delta_g2;

    /* Written beside the target and renamed over it: a reader never maps a half-written file. */
    size_t tl = strlen(path) + 16;
    char *tmp = malloc(tl);
    if (!tmp) return cuzk_error_set(err, CUZK_ERR_NOMEM, "groth16_params_native_write: out of memory");
    snprintf(tmp, tl, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        st = cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return st;
    }
    static const uint8_t zeros[NATIVE_ALIGN];
    uint8_t page[NATIVE_ALIGN];
    memset(page, 0, sizeof page);
    memcpy(page, &hd, sizeof hd);
    st = write_all(fd, page, sizeof page, tmp, err);
    for (int k = 0; k < ARR_N && st == CUZK_OK; k++) {
        uint64_t bytes = hd.len[k] * elem_size(k);
        if (bytes) st = write_all(fd, arr_ptr(p, k), bytes, tmp, err);
        uint64_t pad = align_up(hd.off[k] + bytes) - (hd.off[k] + bytes);
        if (st == CUZK_OK && pad) st = write_all(fd, zeros, pad, tmp, err);
    }
    if (close(fd) != 0 && st == CUZK_OK) st = cuzk_error_set(err, CUZK_ERR_IO, "%s: close: %s", tmp, strerror(errno));
    if (st == CUZK_OK && rename(tmp, path) != 0)
        st = cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
    if (st != CUZK_OK) unlink(tmp);
    free(tmp);
    return st;
}

/* The header's promises against the file's length: CUZK_ERR_FORMAT (or _TRUNCATED) naming what is wrong. */
static cuzk_status header_check(const native_header *hd, uint64_t file_len, cuzk_error *err)
{
    if (memcmp(hd->magic, NATIVE_MAGIC, 8) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "parameter cache: not a cuzk parameter cache (magic)");
    if (hd->version != NATIVE_VERSION || hd->byte_order != NATIVE_BYTE_ORDER)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "parameter cache: version %u / byte order %08x, expected %u / %08x",
                              hd->version, hd->byte_order, NATIVE_VERSION, NATIVE_BYTE_ORDER);
    if (hd->h_form != H_FORM_BELLPERSON && hd->h_form != H_FORM_SNARKJS)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "parameter cache: unknown H form %u", hd->h_form);
    if (hd->file_len != file_len)
        return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "parameter cache: %llu bytes, the header says %llu",
                              (unsigned long long)file_len, (unsigned long long)hd->file_len);
    uint64_t end = NATIVE_ALIGN;
    for (int k = 0; k < ARR_N; k++) {
        if (hd->off[k] != end || hd->len[k] > (file_len - end) / elem_size(k))
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "parameter cache: array %s (offset %llu, %llu entries) does not fit", ARR_NAME[k],
                                  (unsigned long long)hd->off[k], (unsigned long long)hd->len[k]);
        end = align_up(end + hd->len[k] * elem_size(k));
    }
    if (end != file_len || hd->len[ARR_IC] == 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "parameter cache: arrays end at %llu of %llu bytes%s",
                              (unsigned long long)end, (unsigned long long)file_len, hd->len[ARR_IC] ? "" : " (no ic)");
    const g1_affine_t *g1[3] = {&hd->alpha_g1, &hd->beta_g1, &hd->delta_g1};
    const g2_affine_t *g2[3] = {&hd->beta_g2, &hd->gamma_g2, &hd->delta_g2};
    for (int i = 0; i < 3; i++)
        if (!g1_affine_is_on_curve(g1[i]) || !g1_affine_in_subgroup(g1[i]) || !g2_affine_is_on_curve(g2[i]) ||
            !g2_affine_in_subgroup(g2[i]))
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "parameter cache: a verifying-key point is not in its group");
    return CUZK_OK;
}

cuzk_status groth16_params_native_view(const uint8_t *buf, size_t len, groth16_params *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (len < NATIVE_ALIGN)
        return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "parameter cache: %zu bytes, shorter than the header", len);
    native_header hd;
    memcpy(&hd, buf, sizeof hd);
    cuzk_status st = header_check(&hd, len, err);
    if (st != CUZK_OK) return st;
    out->vk.ic = malloc(hd.len[ARR_IC] * sizeof(g1_affine_t));
    if (!out->vk.ic)
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "parameter cache: ic of %llu points",
                              (unsigned long long)hd.len[ARR_IC]);
    memcpy(out->vk.ic, buf + hd.off[ARR_IC], hd.len[ARR_IC] * sizeof(g1_affine_t));
    out->vk.ic_len = hd.len[ARR_IC];
    out->vk.alpha_g1 = hd.alpha_g1;
    out->vk.beta_g1 = hd.beta_g1;
    out->vk.delta_g1 = hd.delta_g1;
    out->vk.beta_g2 = hd.beta_g2;
    out->vk.gamma_g2 = hd.gamma_g2;
    out->vk.delta_g2 = hd.delta_g2;
    out->h_form = (h_form)hd.h_form;
    out->h_len = hd.len[ARR_H];
    out->l_len = hd.len[ARR_L];
    out->a_len = hd.len[ARR_A];
    out->b_g1_len = hd.len[ARR_B_G1];
    out->b_g2_len = hd.len[ARR_B_G2];
    out->h = (g1_affine_t *)(buf + hd.off[ARR_H]);
    out->l = (g1_affine_t *)(buf + hd.off[ARR_L]);
    out->a = (g1_affine_t *)(buf + hd.off[ARR_A]);
    out->b_g1 = (g1_affine_t *)(buf + hd.off[ARR_B_G1]);
    out->b_g2 = (g2_affine_t *)(buf + hd.off[ARR_B_G2]);
    return CUZK_OK;
}

cuzk_status groth16_params_map(groth16_params *out, const char *path, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    }
    size_t len = (size_t)sb.st_size;
    if (len < NATIVE_ALIGN) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: %zu bytes, shorter than the header", path, len);
    }
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
    cuzk_status st = groth16_params_native_view(m, len, out, err);
    if (st != CUZK_OK) {
        munmap(m, len);
        return cuzk_error_prefix(err, "%s: ", path);
    }
    out->map = m;
    out->map_len = len;
    return CUZK_OK;
}

cuzk_status groth16_params_load_mapped(pool_t *pool, groth16_params *out, const char *source, const char *cache,
                                       unsigned flags, int *remade, cuzk_error *err)
{
    if (remade) *remade = 0;
    uint64_t size = 0;
    int64_t mtime = 0;
    cuzk_status st = source_stamp(source, &size, &mtime, err);
    if (st != CUZK_OK) return st;
    cuzk_error ignored;
    if (groth16_params_map(out, cache, &ignored) == CUZK_OK) {
        const native_header *hd = out->map;
        if (hd->source_size == size && hd->source_mtime_ns == mtime) return CUZK_OK;
        groth16_params_free(out);
    }
    /* No cache, a damaged one or one of another file: made again from the source. */
    groth16_params p;
    if ((st = groth16_params_read(pool, &p, source, flags, err)) != CUZK_OK) return st;
    st = groth16_params_native_write(&p, source, cache, err);
    groth16_params_free(&p);
    if (st == CUZK_OK) st = groth16_params_map(out, cache, err);
    if (st == CUZK_OK && remade) *remade = 1;
    return st;
}
