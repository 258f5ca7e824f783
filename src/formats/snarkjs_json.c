#include "formats/snarkjs_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/pairing.h"
#include "formats/json.h"
#include "formats/wtns.h"

void snarkjs_limbs_to_decimal(char *out, const uint64_t *limbs, size_t n)
{
    /* Base-10^19 chunks, least significant first: ceil(512 / 63) = 9 of them at most. */
    const uint64_t base = 10000000000000000000ull;
    uint64_t t[8], chunk[9];
    size_t nchunks = 0;
    if (n > 8) n = 8;
    memcpy(t, limbs, n * sizeof *t);
    int nonzero;
    do {
        unsigned __int128 rem = 0;
        nonzero = 0;
        for (size_t i = n; i-- > 0;) {
            unsigned __int128 cur = rem << 64 | t[i];
            t[i] = (uint64_t)(cur / base);
            rem = cur % base;
            nonzero |= t[i] != 0;
        }
        chunk[nchunks++] = (uint64_t)rem;
    } while (nonzero);
    int len = sprintf(out, "%llu", (unsigned long long)chunk[nchunks - 1]);
    for (size_t i = nchunks - 1; i-- > 0;) len += sprintf(out + len, "%019llu", (unsigned long long)chunk[i]);
}

/* ---- reading ---- */

static cuzk_status fp_from_json(fp_t *r, const json_value *v, const char *what, cuzk_error *err)
{
    uint64_t l[FP_LIMBS];
    cuzk_status st = json_decimal_limbs(v, l, FP_LIMBS, what, err);
    if (st != CUZK_OK) return st;
    if (fp_to_mont(r, l) != 0) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not below p", what);
    return CUZK_OK;
}

static cuzk_status fr_from_json(fr_t *r, const json_value *v, const char *what, cuzk_error *err)
{
    uint64_t l[FP_LIMBS]; /* wider than Fr so that values between r and 2^256 report "not below r" */
    cuzk_status st = json_decimal_limbs(v, l, FP_LIMBS, what, err);
    if (st != CUZK_OK) return st;
    if (l[4] || l[5] || fr_to_mont(r, l) != 0) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not below r", what);
    return CUZK_OK;
}

static cuzk_status fp2_from_json(fp2_t *r, const json_value *v, const char *what, cuzk_error *err)
{
    char w[160];
    cuzk_status st = json_expect(v, JSON_ARRAY, what, err);
    if (st != CUZK_OK) return st;
    if (v->len != 2) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu elements, expected 2", what, v->len);
    snprintf(w, sizeof w, "%s[0]", what);
    if ((st = fp_from_json(&r->c0, json_at(v, 0), w, err)) != CUZK_OK) return st;
    snprintf(w, sizeof w, "%s[1]", what);
    return fp_from_json(&r->c1, json_at(v, 1), w, err);
}

/* A point as [x, y] or [x, y, z]; the coordinates are parsed by fp_from_json / fp2_from_json. */
static cuzk_status coords(const json_value *v, const char *what, size_t *n, cuzk_error *err)
{
    cuzk_status st = json_expect(v, JSON_ARRAY, what, err);
    if (st != CUZK_OK) return st;
    if (v->len != 2 && v->len != 3)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu coordinates, expected 2 or 3", what, v->len);
    *n = v->len;
    return CUZK_OK;
}

static cuzk_status g1_from_json(g1_affine_t *r, const json_value *v, const char *what, cuzk_error *err)
{
    size_t n = 0;
    char w[128];
    cuzk_status st = coords(v, what, &n, err);
    if (st != CUZK_OK) return st;
    g1_jac_t j;
    fp_t *c[3] = {&j.x, &j.y, &j.z};
    fp_set_one(&j.z);
    for (size_t i = 0; i < n; i++) {
        snprintf(w, sizeof w, "%s[%zu]", what, i);
        if ((st = fp_from_json(c[i], json_at(v, i), w, err)) != CUZK_OK) return st;
    }
    /* z = 0 means infinity whatever x and y are (ffjavascript fromObject). */
    g1_jac_to_affine(r, &j);
    if (!g1_affine_is_on_curve(r)) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not on the curve", what);
    if (!g1_affine_in_subgroup(r))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not in the prime-order subgroup", what);
    return CUZK_OK;
}

static cuzk_status g2_from_json(g2_affine_t *r, const json_value *v, const char *what, cuzk_error *err)
{
    size_t n = 0;
    char w[128];
    cuzk_status st = coords(v, what, &n, err);
    if (st != CUZK_OK) return st;
    g2_jac_t j;
    fp2_t *c[3] = {&j.x, &j.y, &j.z};
    fp2_set_one(&j.z);
    for (size_t i = 0; i < n; i++) {
        snprintf(w, sizeof w, "%s[%zu]", what, i);
        if ((st = fp2_from_json(c[i], json_at(v, i), w, err)) != CUZK_OK) return st;
    }
    g2_jac_to_affine(r, &j);
    if (!g2_affine_is_on_curve(r)) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not on the curve", what);
    if (!g2_affine_in_subgroup(r))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not in the prime-order subgroup", what);
    return CUZK_OK;
}

/* "protocol" and "curve", when present, must name what this reader understands. */
static cuzk_status check_kind(const json_value *root, const char *file, cuzk_error *err)
{
    const json_value *p = json_get(root, "protocol"), *c = json_get(root, "curve");
    if (p && (p->type != JSON_STRING || strcmp(p->text, "groth16") != 0))
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: protocol is not \"groth16\"", file);
    if (c && (c->type != JSON_STRING || strcmp(c->text, "bls12381") != 0))
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: curve is not \"bls12381\"", file);
    return CUZK_OK;
}

cuzk_status snarkjs_proof_parse(groth16_proof *out, const char *text, size_t len, cuzk_error *err)
{
    json_doc *doc;
    cuzk_status st = json_parse(&doc, text, len, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "proof: ");
    const json_value *root = json_root(doc);
    if ((st = json_expect(root, JSON_OBJECT, "proof", err)) != CUZK_OK) goto out;
    if ((st = check_kind(root, "proof", err)) != CUZK_OK) goto out;
    if ((st = g1_from_json(&out->a, json_get(root, "pi_a"), "proof: pi_a", err)) != CUZK_OK) goto out;
    if ((st = g2_from_json(&out->b, json_get(root, "pi_b"), "proof: pi_b", err)) != CUZK_OK) goto out;
    st = g1_from_json(&out->c, json_get(root, "pi_c"), "proof: pi_c", err);
out:
    json_free(doc);
    return st;
}

cuzk_status snarkjs_public_parse(fr_t **values, size_t *n, const char *text, size_t len, cuzk_error *err)
{
    *values = NULL;
    *n = 0;
    json_doc *doc;
    cuzk_status st = json_parse(&doc, text, len, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "public: ");
    const json_value *root = json_root(doc);
    fr_t *v = NULL;
    if ((st = json_expect(root, JSON_ARRAY, "public", err)) != CUZK_OK) goto out;
    v = malloc((root->len ? root->len : 1) * sizeof *v);
    if (!v) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "public: %zu values", root->len);
        goto out;
    }
    for (size_t i = 0; i < root->len; i++) {
        char w[48];
        snprintf(w, sizeof w, "public[%zu]", i);
        if ((st = fr_from_json(&v[i], json_at(root, i), w, err)) != CUZK_OK) goto out;
    }
    *values = v;
    *n = root->len;
    v = NULL;
out:
    free(v);
    json_free(doc);
    return st;
}

cuzk_status snarkjs_vk_parse(groth16_vk *out, const char *text, size_t len, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    json_doc *doc;
    cuzk_status st = json_parse(&doc, text, len, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "verification key: ");
    const json_value *root = json_root(doc);
    groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    uint64_t n_public;
    if ((st = json_expect(root, JSON_OBJECT, "verification key", err)) != CUZK_OK) goto out;
    if ((st = check_kind(root, "verification key", err)) != CUZK_OK) goto out;
    if ((st = json_u64(json_get(root, "nPublic"), &n_public, "verification key: nPublic", err)) != CUZK_OK) goto out;
    const json_value *ic = json_get(root, "IC");
    if ((st = json_expect(ic, JSON_ARRAY, "verification key: IC", err)) != CUZK_OK) goto out;
    if (ic->len == 0 || ic->len - 1 != n_public) {
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "verification key: IC has %zu points, nPublic is %llu", ic->len,
                            (unsigned long long)n_public);
        goto out;
    }
    if ((st = g1_from_json(&vk.alpha_g1, json_get(root, "vk_alpha_1"), "verification key: vk_alpha_1", err)) ||
        (st = g2_from_json(&vk.beta_g2, json_get(root, "vk_beta_2"), "verification key: vk_beta_2", err)) ||
        (st = g2_from_json(&vk.gamma_g2, json_get(root, "vk_gamma_2"), "verification key: vk_gamma_2", err)) ||
        (st = g2_from_json(&vk.delta_g2, json_get(root, "vk_delta_2"), "verification key: vk_delta_2", err)))
        goto out;
    g1_affine_set_inf(&vk.beta_g1);
    g1_affine_set_inf(&vk.delta_g1);
    vk.ic = malloc(ic->len * sizeof *vk.ic);
    if (!vk.ic) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "verification key: %zu IC points", ic->len);
        goto out;
    }
    vk.ic_len = ic->len;
    for (size_t i = 0; i < ic->len; i++) {
        char w[64];
        snprintf(w, sizeof w, "verification key: IC[%zu]", i);
        if ((st = g1_from_json(&vk.ic[i], json_at(ic, i), w, err)) != CUZK_OK) goto out;
    }
    *out = vk;
    memset(&vk, 0, sizeof vk);
out:
    groth16_vk_free(&vk);
    json_free(doc);
    return st;
}

/* Maps path and hands its text to parse; the path prefixes any error. */
#define READ_WITH(path, call)                                                                                          \
    do {                                                                                                               \
        const uint8_t *buf_;                                                                                           \
        size_t len_;                                                                                                   \
        cuzk_status st_ = snarkjs_map_file(path, &buf_, &len_, err);                                                   \
        if (st_ != CUZK_OK) return st_;                                                                                \
        const char *text = (const char *)buf_;                                                                         \
        size_t len = len_;                                                                                             \
        st_ = (call);                                                                                                  \
        snarkjs_unmap_file(buf_, len_);                                                                                \
        if (st_ != CUZK_OK) cuzk_error_prefix(err, "%s: ", path);                                                      \
        return st_;                                                                                                    \
    } while (0)

cuzk_status snarkjs_proof_read(groth16_proof *out, const char *path, cuzk_error *err)
{
    READ_WITH(path, snarkjs_proof_parse(out, text, len, err));
}

cuzk_status snarkjs_public_read(fr_t **values, size_t *n, const char *path, cuzk_error *err)
{
    *values = NULL;
    *n = 0;
    READ_WITH(path, snarkjs_public_parse(values, n, text, len, err));
}

cuzk_status snarkjs_vk_read(groth16_vk *out, const char *path, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    READ_WITH(path, snarkjs_vk_parse(out, text, len, err));
}

/* ---- writing ---- */

static void put_fp(FILE *f, const fp_t *a)
{
    uint64_t l[FP_LIMBS];
    char dec[FP_LIMBS * 20 + 1];
    fp_from_mont(l, a);
    snarkjs_limbs_to_decimal(dec, l, FP_LIMBS);
    fprintf(f, "\"%s\"", dec);
}

static void put_g1(FILE *f, const g1_affine_t *p)
{
    if (g1_affine_is_inf(p)) {
        fputs("[\"0\", \"1\", \"0\"]", f);
        return;
    }
    fputs("[", f);
    put_fp(f, &p->x);
    fputs(", ", f);
    put_fp(f, &p->y);
    fputs(", \"1\"]", f);
}

static void put_fp2(FILE *f, const fp2_t *a)
{
    fputs("[", f);
    put_fp(f, &a->c0);
    fputs(", ", f);
    put_fp(f, &a->c1);
    fputs("]", f);
}

static void put_g2(FILE *f, const g2_affine_t *p)
{
    if (g2_affine_is_inf(p)) {
        fputs("[[\"0\", \"0\"], [\"1\", \"0\"], [\"0\", \"0\"]]", f);
        return;
    }
    fputs("[", f);
    put_fp2(f, &p->x);
    fputs(", ", f);
    put_fp2(f, &p->y);
    fputs(", [\"1\", \"0\"]]", f);
}

static cuzk_status close_checked(FILE *f, const char *path, cuzk_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed", path);
    return CUZK_OK;
}

cuzk_status snarkjs_proof_write(const char *path, const groth16_proof *proof, cuzk_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fputs("{\n \"pi_a\": ", f);
    put_g1(f, &proof->a);
    fputs(",\n \"pi_b\": ", f);
    put_g2(f, &proof->b);
    fputs(",\n \"pi_c\": ", f);
    put_g1(f, &proof->c);
    fputs(",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}\n", f);
    return close_checked(f, path, err);
}

cuzk_status snarkjs_public_write(const char *path, const fr_t *values, size_t n, cuzk_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fputs("[", f);
    for (size_t i = 0; i < n; i++) {
        uint64_t l[FR_LIMBS];
        char dec[FR_LIMBS * 20 + 1];
        fr_from_mont(l, &values[i]);
        snarkjs_limbs_to_decimal(dec, l, FR_LIMBS);
        fprintf(f, "%s\n \"%s\"", i ? "," : "", dec);
    }
    fputs(n ? "\n]\n" : "]\n", f);
    return close_checked(f, path, err);
}

/* ---- verification ---- */

cuzk_status snarkjs_verify(const groth16_vk *vk, const groth16_proof *proof, const fr_t *pub, size_t n_pub,
                           cuzk_error *err)
{
    if (!vk || !proof || (n_pub && !pub) || !vk->ic)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "snarkjs_verify: NULL argument");
    if (n_pub + 1 != vk->ic_len)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "snarkjs_verify: %zu public values, the key expects %zu",
                              n_pub, vk->ic_len - 1);
    g1_jac_t acc, t;
    g1_jac_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n_pub; i++) {
        g1_jac_from_affine(&t, &vk->ic[i + 1]);
        g1_jac_mul_fr(&t, &t, &pub[i]);
        g1_jac_add(&acc, &acc, &t);
    }
    g1_affine_t p[4];
    g2_affine_t q[4];
    g1_affine_neg(&p[0], &proof->a);
    q[0] = proof->b;
    g1_jac_to_affine(&p[1], &acc);
    q[1] = vk->gamma_g2;
    p[2] = proof->c;
    q[2] = vk->delta_g2;
    p[3] = vk->alpha_g1;
    q[3] = vk->beta_g2;
    if (!pairing_check(p, q, 4)) return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "snarkjs proof does not verify");
    return CUZK_OK;
}
