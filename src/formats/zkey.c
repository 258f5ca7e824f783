#include "formats/zkey.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "formats/wtns.h"
#include "poly/poly.h"

#define ZKEY_G1_BYTES (2 * FP_BYTES)
#define ZKEY_G2_BYTES (4 * FP_BYTES)
#define ZKEY_COEF_BYTES (12 + FR_BYTES)
#define ZKEY_GROTH_HEADER_BYTES (4 + FP_BYTES + 4 + FR_BYTES + 12 + 3 * ZKEY_G1_BYTES + 3 * ZKEY_G2_BYTES)

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void rd_limbs(uint64_t *l, const uint8_t *p, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) v = v << 8 | p[8 * i + j];
        l[i] = v;
    }
}

/* 1 if the little-endian limbs a are below m. */
static int limbs_below(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != m[i]) return a[i] < m[i];
    return 0;
}

/* A coordinate as wasmcurves stores it is already cuzk's Montgomery representation (see zkey.h). */
static int fp_from_lem(fp_t *r, const uint8_t *p)
{
    uint64_t l[FP_LIMBS];
    rd_limbs(l, p, FP_LIMBS);
    if (!limbs_below(l, FP_MODULUS, FP_LIMBS)) return -1;
    memcpy(r->l, l, sizeof l);
    return 0;
}

static cuzk_status point_checks(int inf, int on_curve, int (*in_sub)(const void *), const void *p, int check_sub,
                                cuzk_error *err)
{
    if (inf) return CUZK_OK;
    if (!on_curve) return cuzk_error_set(err, CUZK_ERR_FORMAT, "not on the curve");
    if (check_sub && !in_sub(p)) return cuzk_error_set(err, CUZK_ERR_FORMAT, "not in the prime-order subgroup");
    return CUZK_OK;
}

static int g1_sub(const void *p)
{
    return g1_affine_in_subgroup(p);
}
static int g2_sub(const void *p)
{
    return g2_affine_in_subgroup(p);
}

static cuzk_status g1_from_lem(g1_affine_t *r, const uint8_t *p, int check_sub, cuzk_error *err)
{
    if (fp_from_lem(&r->x, p) || fp_from_lem(&r->y, p + FP_BYTES))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "coordinate not below p");
    return point_checks(g1_affine_is_inf(r), g1_affine_is_on_curve(r), g1_sub, r, check_sub, err);
}

static cuzk_status g2_from_lem(g2_affine_t *r, const uint8_t *p, int check_sub, cuzk_error *err)
{
    if (fp_from_lem(&r->x.c0, p) || fp_from_lem(&r->x.c1, p + FP_BYTES) || fp_from_lem(&r->y.c0, p + 2 * FP_BYTES) ||
        fp_from_lem(&r->y.c1, p + 3 * FP_BYTES))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "coordinate not below p");
    return point_checks(g2_affine_is_inf(r), g2_affine_is_on_curve(r), g2_sub, r, check_sub, err);
}

/* ---- parallel decoding of a point section ---- */

typedef struct decode_job {
    const uint8_t *src;
    void *dst;
    int g2, check_sub;
    _Atomic size_t first_bad; /* SIZE_MAX while every point decoded */
} decode_job;

static void decode_range(void *ctxp, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    decode_job *job = ctxp;
    for (size_t i = begin; i < end; i++) {
        cuzk_status st;
        if (job->g2)
            st = g2_from_lem((g2_affine_t *)job->dst + i, job->src + i * ZKEY_G2_BYTES, job->check_sub, NULL);
        else
            st = g1_from_lem((g1_affine_t *)job->dst + i, job->src + i * ZKEY_G1_BYTES, job->check_sub, NULL);
        if (st != CUZK_OK) {
            size_t cur = atomic_load(&job->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&job->first_bad, &cur, i)) {
            }
            return;
        }
    }
}

typedef struct zkey_reader {
    pool_t *pool;
    const uint8_t *buf;
    snarkjs_binfile bf;
    cuzk_error *err;
} zkey_reader;

static const char *const SECTION_NAMES[] = {"",  "header", "groth16 header", "IC", "coefficients", "A", "B1", "B2",
                                            "C", "H"};

/* The unique section `type`, which must be exactly `need` bytes. */
static cuzk_status get_section(zkey_reader *rd, uint32_t type, uint64_t need, const uint8_t **p)
{
    size_t size = 0;
    cuzk_status st = snarkjs_binfile_section(&rd->bf, type, p, &size, "zkey", rd->err);
    if (st != CUZK_OK) return st;
    if ((uint64_t)size != need)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: section %u (%s) at offset %zu: %zu bytes, expected %llu",
                              type, SECTION_NAMES[type], (size_t)(*p - rd->buf), size, (unsigned long long)need);
    return CUZK_OK;
}

/* Decodes n points of section `type` into a new array (*out, owned by the caller on success). */
static cuzk_status read_points(zkey_reader *rd, uint32_t type, size_t n, int g2, int check_sub, void **out)
{
    *out = NULL;
    size_t psize = g2 ? ZKEY_G2_BYTES : ZKEY_G1_BYTES;
    const uint8_t *p;
    cuzk_status st = get_section(rd, type, (uint64_t)n * psize, &p);
    if (st != CUZK_OK) return st;
    size_t esize = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
    void *dst = malloc((n ? n : 1) * esize);
    if (!dst)
        return cuzk_error_set(rd->err, CUZK_ERR_NOMEM, "zkey: section %u (%s): %zu points", type, SECTION_NAMES[type],
                              n);
    decode_job job = {.src = p, .dst = dst, .g2 = g2, .check_sub = check_sub};
    atomic_init(&job.first_bad, SIZE_MAX);
    pool_parallel_for(rd->pool, n, 256, decode_range, &job);
    size_t bad = atomic_load(&job.first_bad);
    if (bad != SIZE_MAX) {
        /* Decode the first bad point again, serially, for its message. */
        if (g2)
            g2_from_lem((g2_affine_t *)dst + bad, p + bad * psize, check_sub, rd->err);
        else
            g1_from_lem((g1_affine_t *)dst + bad, p + bad * psize, check_sub, rd->err);
        free(dst);
        return cuzk_error_prefix(rd->err, "zkey: section %u (%s): point %zu at offset %zu: ", type, SECTION_NAMES[type],
                                 bad, (size_t)(p - rd->buf) + bad * psize);
    }
    *out = dst;
    return CUZK_OK;
}

void zkey_free(zkey *z)
{
    if (!z) return;
    free(z->ic);
    free(z->coefs);
    free(z->a);
    free(z->b_g1);
    free(z->b_g2);
    free(z->c);
    free(z->h);
    memset(z, 0, sizeof *z);
}

static cuzk_status read_groth_header(zkey_reader *rd, zkey *z)
{
    const uint8_t *p;
    cuzk_status st = get_section(rd, 2, ZKEY_GROTH_HEADER_BYTES, &p);
    if (st != CUZK_OK) return st;
    size_t off = (size_t)(p - rd->buf);
    uint64_t q[FP_LIMBS], r[FR_LIMBS];
    if (rd32(p) != FP_BYTES)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT,
                              "zkey: groth16 header at offset %zu: n8q = %u, BLS12-381 needs %d", off, rd32(p),
                              FP_BYTES);
    rd_limbs(q, p + 4, FP_LIMBS);
    if (memcmp(q, FP_MODULUS, sizeof q) != 0)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: groth16 header at offset %zu: q is not BLS12-381's p",
                              off + 4);
    p += 4 + FP_BYTES;
    if (rd32(p) != FR_BYTES)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT,
                              "zkey: groth16 header at offset %zu: n8r = %u, BLS12-381 needs %d", off + 4 + FP_BYTES,
                              rd32(p), FR_BYTES);
    rd_limbs(r, p + 4, FR_LIMBS);
    if (memcmp(r, FR_MODULUS, sizeof r) != 0)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: groth16 header at offset %zu: r is not BLS12-381's r",
                              off + 8 + FP_BYTES);
    p += 4 + FR_BYTES;
    z->n_vars = rd32(p);
    z->n_public = rd32(p + 4);
    z->domain_size = rd32(p + 8);
    size_t coff = (size_t)(p - rd->buf);
    if (z->n_public >= z->n_vars)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT,
                              "zkey: groth16 header at offset %zu: nPublic %u needs more than %u variables", coff + 4,
                              z->n_public, z->n_vars);
    uint32_t m = z->domain_size;
    if (m == 0 || (m & (m - 1)) != 0 || m > ((uint32_t)1 << POLY_MAX_LOG))
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT,
                              "zkey: groth16 header at offset %zu: domain size %u is not a power of two up to 2^%d",
                              coff + 8, m, POLY_MAX_LOG);
    z->log_domain = 0;
    while (((uint32_t)1 << z->log_domain) < m) z->log_domain++;
    p += 12;
    /* The verifying-key points are few: always checked fully. */
    struct {
        const char *name;
        int g2;
        void *dst;
    } pts[6] = {{"alpha1", 0, &z->alpha_g1}, {"beta1", 0, &z->beta_g1},   {"beta2", 1, &z->beta_g2},
                {"gamma2", 1, &z->gamma_g2}, {"delta1", 0, &z->delta_g1}, {"delta2", 1, &z->delta_g2}};
    for (int i = 0; i < 6; i++) {
        size_t poff = (size_t)(p - rd->buf);
        st = pts[i].g2 ? g2_from_lem(pts[i].dst, p, 1, rd->err) : g1_from_lem(pts[i].dst, p, 1, rd->err);
        if (st != CUZK_OK)
            return cuzk_error_prefix(rd->err, "zkey: groth16 header: %s at offset %zu: ", pts[i].name, poff);
        p += pts[i].g2 ? ZKEY_G2_BYTES : ZKEY_G1_BYTES;
    }
    return CUZK_OK;
}

static cuzk_status read_coefs(zkey_reader *rd, zkey *z)
{
    size_t size = 0;
    const uint8_t *p;
    cuzk_status st = snarkjs_binfile_section(&rd->bf, 4, &p, &size, "zkey", rd->err);
    if (st != CUZK_OK) return st;
    size_t off = (size_t)(p - rd->buf);
    if (size < 4)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: section 4 (coefficients) at offset %zu: %zu bytes", off,
                              size);
    uint32_t n = rd32(p);
    if ((uint64_t)size != 4 + (uint64_t)n * ZKEY_COEF_BYTES)
        return cuzk_error_set(rd->err, CUZK_ERR_FORMAT,
                              "zkey: section 4 (coefficients) at offset %zu: %zu bytes for %u records (need %llu)", off,
                              size, n, 4 + (unsigned long long)n * ZKEY_COEF_BYTES);
    z->coefs = malloc((n ? n : 1) * sizeof *z->coefs);
    if (!z->coefs) return cuzk_error_set(rd->err, CUZK_ERR_NOMEM, "zkey: %u coefficients", n);
    z->n_coefs = n;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *c = p + 4 + (size_t)i * ZKEY_COEF_BYTES;
        size_t coff = (size_t)(c - rd->buf);
        zkey_coef *k = &z->coefs[i];
        k->matrix = rd32(c);
        k->constraint = rd32(c + 4);
        k->signal = rd32(c + 8);
        if (k->matrix > 1)
            return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: coefficient %u at offset %zu: matrix %u (0 or 1)", i,
                                  coff, k->matrix);
        if (k->constraint >= z->domain_size)
            return cuzk_error_set(rd->err, CUZK_ERR_FORMAT,
                                  "zkey: coefficient %u at offset %zu: constraint %u outside the domain of %u", i, coff,
                                  k->constraint, z->domain_size);
        if (k->signal >= z->n_vars)
            return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: coefficient %u at offset %zu: signal %u of %u", i,
                                  coff, k->signal, z->n_vars);
        uint64_t l[FR_LIMBS];
        rd_limbs(l, c + 12, FR_LIMBS);
        if (!limbs_below(l, FR_MODULUS, FR_LIMBS))
            return cuzk_error_set(rd->err, CUZK_ERR_FORMAT, "zkey: coefficient %u at offset %zu: value not below r", i,
                                  coff + 12);
        /* Stored: c * R^2 (canonical). As Montgomery limbs that is c * R; out of Montgomery form the limbs are
         * c * R, which are the Montgomery limbs of c. */
        fr_t t;
        memcpy(t.l, l, sizeof l);
        fr_from_mont(k->value.l, &t);
    }
    return CUZK_OK;
}

cuzk_status zkey_parse(pool_t *pool, zkey *out, const uint8_t *buf, size_t len, unsigned flags, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    zkey_reader rd = {.pool = pool, .buf = buf, .err = err};
    cuzk_status st = snarkjs_binfile_open(&rd.bf, buf, len, "zkey", 1, "zkey", err);
    if (st != CUZK_OK) return st;
    const uint8_t *p;
    if ((st = get_section(&rd, 1, 4, &p)) != CUZK_OK) return st;
    uint32_t protocol = rd32(p);
    if (protocol != 1)
        return cuzk_error_set(err, protocol == 2 || protocol == 10 ? CUZK_ERR_UNSUPPORTED : CUZK_ERR_FORMAT,
                              "zkey: header at offset %zu: protocol %u (%s); only Groth16 (1) is supported",
                              (size_t)(p - buf), protocol,
                              protocol == 2    ? "PLONK"
                              : protocol == 10 ? "FFLONK"
                                               : "unknown");
    zkey z;
    memset(&z, 0, sizeof z);
    int sub = !(flags & ZKEY_SKIP_SUBGROUP_CHECK);
    void *v;
    if ((st = read_groth_header(&rd, &z)) != CUZK_OK) goto fail;
    if ((st = read_points(&rd, 3, (size_t)z.n_public + 1, 0, sub, &v)) != CUZK_OK) goto fail;
    z.ic = v;
    if ((st = read_coefs(&rd, &z)) != CUZK_OK) goto fail;
    if ((st = read_points(&rd, 5, z.n_vars, 0, sub, &v)) != CUZK_OK) goto fail;
    z.a = v;
    if ((st = read_points(&rd, 6, z.n_vars, 0, sub, &v)) != CUZK_OK) goto fail;
    z.b_g1 = v;
    if ((st = read_points(&rd, 7, z.n_vars, 1, sub, &v)) != CUZK_OK) goto fail;
    z.b_g2 = v;
    if ((st = read_points(&rd, 8, (size_t)z.n_vars - z.n_public - 1, 0, sub, &v)) != CUZK_OK) goto fail;
    z.c = v;
    if ((st = read_points(&rd, 9, z.domain_size, 0, sub, &v)) != CUZK_OK) goto fail;
    z.h = v;
    *out = z;
    return CUZK_OK;
fail:
    zkey_free(&z);
    return st;
}

cuzk_status zkey_read(pool_t *pool, zkey *out, const char *path, unsigned flags, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *buf;
    size_t len;
    cuzk_status st = snarkjs_map_file(path, &buf, &len, err);
    if (st != CUZK_OK) return st;
    st = zkey_parse(pool, out, buf, len, flags, err);
    snarkjs_unmap_file(buf, len);
    if (st != CUZK_OK) cuzk_error_prefix(err, "%s: ", path);
    return st;
}

cuzk_status zkey_vk(const zkey *z, groth16_vk *vk, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    size_t n = (size_t)z->n_public + 1;
    vk->ic = malloc(n * sizeof *vk->ic);
    if (!vk->ic) return cuzk_error_set(err, CUZK_ERR_NOMEM, "zkey: %zu IC points", n);
    memcpy(vk->ic, z->ic, n * sizeof *vk->ic);
    vk->ic_len = n;
    vk->alpha_g1 = z->alpha_g1;
    vk->beta_g1 = z->beta_g1;
    vk->beta_g2 = z->beta_g2;
    vk->gamma_g2 = z->gamma_g2;
    vk->delta_g1 = z->delta_g1;
    vk->delta_g2 = z->delta_g2;
    return CUZK_OK;
}

/* A density vector with the first n bits set: snarkjs keeps a base (possibly infinity) for every variable. */
static uint64_t *full_density(size_t n)
{
    size_t words = n / 64 + 1;
    uint64_t *d = malloc(words * sizeof *d);
    if (d) memset(d, 0xff, words * sizeof *d);
    return d;
}

cuzk_status zkey_prove(pool_t *pool, const zkey *z, const fr_t *w, size_t n_witness, const fr_t *r, const fr_t *s,
                       groth16_proof *proof, cuzk_error *err)
{
    return zkey_prove_with(pool, z, w, n_witness, r, s, NULL, NULL, proof, err);
}

/* A full witness for z: nVars values, value 0 (the constant ONE) equal to 1. what names the caller. */
static cuzk_status witness_check(const zkey *z, const fr_t *w, size_t n_witness, const char *what, cuzk_error *err)
{
    if (n_witness != z->n_vars)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: witness of %zu values, the zkey has %u variables", what,
                              n_witness, z->n_vars);
    if (!fr_is_one(&w[0]))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: witness value 0 (the constant ONE) is not 1", what);
    return CUZK_OK;
}

cuzk_status zkey_prove_with(pool_t *pool, const zkey *z, const fr_t *w, size_t n_witness, const fr_t *r, const fr_t *s,
                            zkey_start_fn start, void *start_ctx, groth16_proof *proof, cuzk_error *err)
{
    if (!z || !w || !proof) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "zkey_prove: NULL argument");
    cuzk_status st = witness_check(z, w, n_witness, "zkey_prove", err);
    if (st != CUZK_OK) return st;
    domain_t d;
    if ((st = domain_for_size(&d, z->domain_size, err)) != CUZK_OK) return st;
    size_t m = d.m;
    size_t n_in = (size_t)z->n_public + 1, n_aux = (size_t)z->n_vars - n_in;
    fr_t *abc = calloc(3 * m, sizeof *abc);
    uint64_t *dens_in = full_density(n_in), *dens_aux = full_density(n_aux);
    if (!abc || !dens_in || !dens_aux) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "zkey_prove: a/b/c for a domain of %zu", m);
        goto out;
    }
    fr_t *a = abc, *b = abc + m, *c = abc + 2 * m;
    for (size_t i = 0; i < z->n_coefs; i++) {
        const zkey_coef *k = &z->coefs[i];
        fr_t t;
        fr_mul(&t, &k->value, &w[k->signal]);
        fr_t *dst = (k->matrix ? b : a) + k->constraint;
        fr_add(dst, dst, &t);
    }

    /* The zkey seen as groth16 parameters (borrowed arrays) with every variable dense: from here on it is the
     * same prover as for bellperson parameters, H in snarkjs' form. */
    groth16_params params;
    memset(&params, 0, sizeof params);
    params.vk.alpha_g1 = z->alpha_g1;
    params.vk.beta_g1 = z->beta_g1;
    params.vk.beta_g2 = z->beta_g2;
    params.vk.gamma_g2 = z->gamma_g2;
    params.vk.delta_g1 = z->delta_g1;
    params.vk.delta_g2 = z->delta_g2;
    params.vk.ic_len = n_in;
    params.vk.ic = z->ic;
    params.h_form = H_FORM_SNARKJS;
    params.h_len = m;
    params.h = z->h;
    params.l_len = n_aux;
    params.l = z->c;
    params.a_len = params.b_g1_len = params.b_g2_len = z->n_vars;
    params.a = z->a;
    params.b_g1 = z->b_g1;
    params.b_g2 = z->b_g2;
    r1cs_density dn = {.a_aux = dens_aux,
                       .b_input = dens_in,
                       .b_aux = dens_aux,
                       .a_aux_count = n_aux,
                       .b_input_count = n_in,
                       .b_aux_count = n_aux};
    groth16_pending pending;
    st = start ? start(start_ctx, pool, &params, m, a, b, c, w, n_in, w + n_in, n_aux, &dn, &pending, err)
               : groth16_prove_start_abc(pool, &params, m, a, b, c, w, n_in, w + n_in, n_aux, &dn, &pending, NULL, err);
    if (st == CUZK_OK) st = groth16_prove_finish(pool, &pending, r, s, proof, NULL, err);
    if (st != CUZK_OK) cuzk_error_prefix(err, "zkey_prove: ");
out:
    free(abc);
    free(dens_in);
    free(dens_aux);
    return st;
}

/* ---- the zkey as a constraint system and bellperson-layout parameters (for the engine) ---- */

/* The circuit's own constraints: those before snarkjs' input rows, which must be the records
 * A[nc + i] = 1 * signal i (i = 0 .. nPublic) and the only records at nc or above. */
static cuzk_status zkey_circuit_constraints(const zkey *z, size_t *nc, cuzk_error *err)
{
    size_t n_in = (size_t)z->n_public + 1, top = 0;
    for (size_t i = 0; i < z->n_coefs; i++)
        if ((size_t)z->coefs[i].constraint + 1 > top) top = (size_t)z->coefs[i].constraint + 1;
    if (top < n_in) return cuzk_error_set(err, CUZK_ERR_FORMAT, "zkey: no room for the %zu input constraints", n_in);
    *nc = top - n_in;
    size_t rows = 0;
    for (size_t i = 0; i < z->n_coefs; i++) {
        const zkey_coef *k = &z->coefs[i];
        if (k->constraint < *nc) continue;
        if (k->matrix != 0 || k->signal != k->constraint - *nc || !fr_is_one(&k->value))
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "zkey: coefficient %zu (matrix %u, constraint %u, signal %u) is not one of "
                                  "snarkjs' input constraints A[%zu + i] = 1 * signal i",
                                  i, k->matrix, k->constraint, k->signal, *nc);
        rows++;
    }
    if (rows != n_in)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "zkey: %zu input constraint records, expected %zu", rows, n_in);
    /* The prover sizes its domain from the constraints: it must be the zkey's (H has one base per point). */
    size_t want = 1;
    while (want < *nc + n_in) want <<= 1;
    if (z->domain_size != want)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "zkey: %zu constraints need a domain of %zu, the zkey has %u",
                              *nc + n_in, want, z->domain_size);
    return CUZK_OK;
}

cuzk_status zkey_shape(const zkey *z, r1cs *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nc;
    cuzk_status st = zkey_circuit_constraints(z, &nc, err);
    if (st != CUZK_OK) return st;
    size_t *start = calloc(nc + 1, sizeof *start);
    size_t *order = malloc((z->n_coefs ? z->n_coefs : 1) * sizeof *order);
    r1cs_var *vars = malloc((size_t)z->n_vars * sizeof *vars);
    r1cs_lc lc[2], none;
    r1cs_lc_init(&lc[0]);
    r1cs_lc_init(&lc[1]);
    r1cs_lc_init(&none);
    if (!start || !order || !vars) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "zkey_shape: %zu constraints, %u variables", nc, z->n_vars);
        goto out;
    }
    /* The records of each constraint together (counting sort, file order kept within a constraint). */
    for (size_t i = 0; i < z->n_coefs; i++)
        if (z->coefs[i].constraint < nc) start[z->coefs[i].constraint + 1]++;
    for (size_t k = 0; k < nc; k++) start[k + 1] += start[k];
    for (size_t i = 0, *fill = start; i < z->n_coefs; i++)
        if (z->coefs[i].constraint < nc) order[fill[z->coefs[i].constraint]++] = i;
    for (size_t k = nc; k > 0; k--) start[k] = start[k - 1];
    start[0] = 0;
    if ((st = r1cs_create(out, 0, err)) != CUZK_OK) goto out;
    vars[0] = r1cs_one();
    for (uint32_t v = 1; v < z->n_vars && st == CUZK_OK; v++)
        st = v <= z->n_public ? r1cs_alloc_input(out, NULL, &vars[v], err) : r1cs_alloc_aux(out, NULL, &vars[v], err);
    for (size_t k = 0; k < nc && st == CUZK_OK; k++) {
        r1cs_lc_clear(&lc[0]);
        r1cs_lc_clear(&lc[1]);
        for (size_t e = start[k]; e < start[k + 1] && st == CUZK_OK; e++) {
            const zkey_coef *c = &z->coefs[order[e]];
            st = r1cs_lc_add(&lc[c->matrix ? 1 : 0], vars[c->signal], &c->value, err);
        }
        if (st == CUZK_OK) st = r1cs_enforce(out, &lc[0], &lc[1], &none, err);
    }
    if (st == CUZK_OK) st = r1cs_finalize(out, err);
out:
    r1cs_lc_free(&lc[0]);
    r1cs_lc_free(&lc[1]);
    r1cs_lc_free(&none);
    free(start);
    free(order);
    free(vars);
    if (st != CUZK_OK) {
        r1cs_free(out);
        cuzk_error_prefix(err, "zkey_shape: ");
    }
    return st;
}

cuzk_status zkey_witness(const zkey *z, const fr_t *w, size_t n_witness, r1cs *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nc;
    cuzk_status st = witness_check(z, w, n_witness, "zkey_witness", err);
    if (st == CUZK_OK) st = zkey_circuit_constraints(z, &nc, err);
    if (st != CUZK_OK) return st;
    r1cs_lc none;
    r1cs_lc_init(&none);
    st = r1cs_create_witness_only(out, err);
    for (uint32_t v = 1; v < z->n_vars && st == CUZK_OK; v++) {
        r1cs_var var;
        st = v <= z->n_public ? r1cs_alloc_input(out, &w[v], &var, err) : r1cs_alloc_aux(out, &w[v], &var, err);
    }
    for (size_t k = 0; k < nc && st == CUZK_OK; k++) st = r1cs_enforce(out, &none, &none, &none, err);
    if (st == CUZK_OK) st = r1cs_finalize(out, err);
    r1cs_lc_free(&none);
    if (st != CUZK_OK) r1cs_free(out);
    return st;
}

/* Copies the points (size bytes each) of src[0 .. n) whose bit is set in mask to dst; returns how many. */
static size_t select_points(void *dst, const void *src, size_t size, const uint64_t *mask, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if ((mask[i / 64] >> (i % 64)) & 1) memcpy((char *)dst + o++ * size, (const char *)src + i * size, size);
    return o;
}

cuzk_status zkey_params(const zkey *z, const r1cs_density *dn, groth16_params *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n_in = (size_t)z->n_public + 1, n_aux = (size_t)z->n_vars - n_in;
    cuzk_status st = zkey_vk(z, &out->vk, err);
    if (st != CUZK_OK) return st;
    out->h_form = H_FORM_SNARKJS;
    out->h_len = z->domain_size;
    out->l_len = n_aux;
    out->a_len = n_in + dn->a_aux_count;
    out->b_g1_len = out->b_g2_len = dn->b_input_count + dn->b_aux_count;
    out->h = malloc(out->h_len * sizeof *out->h + 1);
    out->l = malloc(out->l_len * sizeof *out->l + 1);
    out->a = malloc(out->a_len * sizeof *out->a + 1);
    out->b_g1 = malloc(out->b_g1_len * sizeof *out->b_g1 + 1);
    out->b_g2 = malloc(out->b_g2_len * sizeof *out->b_g2 + 1);
    if (!out->h || !out->l || !out->a || !out->b_g1 || !out->b_g2) {
        groth16_params_free(out);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "zkey_params: bases for %u variables", z->n_vars);
    }
    memcpy(out->h, z->h, out->h_len * sizeof *out->h);
    memcpy(out->l, z->c, out->l_len * sizeof *out->l);
    /* bellperson's layout: A has every input, then the aux of A's density; B the inputs and aux of B's. */
    memcpy(out->a, z->a, n_in * sizeof *out->a);
    size_t na = n_in + select_points(out->a + n_in, z->a + n_in, sizeof *out->a, dn->a_aux, n_aux);
    size_t nb1 = select_points(out->b_g1, z->b_g1, sizeof *out->b_g1, dn->b_input, n_in);
    nb1 += select_points(out->b_g1 + nb1, z->b_g1 + n_in, sizeof *out->b_g1, dn->b_aux, n_aux);
    size_t nb2 = select_points(out->b_g2, z->b_g2, sizeof *out->b_g2, dn->b_input, n_in);
    nb2 += select_points(out->b_g2 + nb2, z->b_g2 + n_in, sizeof *out->b_g2, dn->b_aux, n_aux);
    if (na != out->a_len || nb1 != out->b_g1_len || nb2 != out->b_g2_len) {
        groth16_params_free(out);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "zkey_params: the densities do not match their counts");
    }
    return CUZK_OK;
}
