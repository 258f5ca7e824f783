#include "circuits/hash/poseidon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- round numbers (neptune round_numbers.rs, itself a port of the Poseidon authors' calc_round_numbers.py) ----
 * The arithmetic is single precision on purpose: that is what neptune evaluates, and the chosen R_P sits on
 * ceilings of these expressions. */

static size_t ceil_to_size(float x)
{
    float c = ceilf(x);
    return c > 0.0f ? (size_t)c : 0; /* Rust's `as usize` saturates negatives (and NaN) to 0 */
}

static int rounds_secure(size_t t, size_t rf, size_t rp)
{
    const float n = 256.0f, m = 128.0f;
    float frp = (float)rp, ft = (float)t;
    float rf_stat = m <= (n - 3.0f) * (ft + 1.0f) ? 6.0f : 10.0f;
    float rf_interp = 0.43f * m + log2f(ft) - frp;
    float rf_grob_1 = 0.21f * n - frp;
    float rf_grob_2 = (0.14f * n - 1.0f - frp) / (ft - 1.0f);
    size_t mx = ceil_to_size(rf_stat);
    size_t v[3] = {ceil_to_size(rf_interp), ceil_to_size(rf_grob_1), ceil_to_size(rf_grob_2)};
    for (int i = 0; i < 3; i++)
        if (v[i] > mx) mx = v[i];
    return rf >= mx;
}

void poseidon_round_numbers(unsigned arity, poseidon_strength strength, unsigned *full, unsigned *partial)
{
    size_t t = (size_t)arity + 1, rf = 0, rp = 0, best = SIZE_MAX;
    for (size_t rf_test = 2; rf_test <= 1000; rf_test += 2) {
        for (size_t rp_test = 4; rp_test < 200; rp_test++) {
            if (!rounds_secure(t, rf_test, rp_test)) continue;
            size_t f = rf_test + 2, p = (size_t)ceilf(1.075f * (float)rp_test);
            size_t cost = t * f + p;
            if (cost < best || (cost == best && f < rf)) {
                rf = f;
                rp = p;
                best = cost;
            }
        }
    }
    if (strength == POSEIDON_STRENGTHENED) rp = (size_t)ceil((double)rp * 1.25);
    *full = (unsigned)rf;
    *partial = (unsigned)rp;
}

void poseidon_merkle_tag(unsigned arity, fr_t *tag)
{
    fr_from_u64(tag, (arity < 64 ? 1ULL << arity : 0) - 1);
}

/* ---- Grain LFSR (neptune round_constants.rs) ---- */

typedef struct grain {
    uint8_t s[80];
    unsigned pos; /* s[pos] is the oldest bit, b_i of the paper is s[(pos + i) % 80] */
} grain;

static int grain_step(grain *g)
{
    unsigned p = g->pos;
    int nb = g->s[(p + 62) % 80] ^ g->s[(p + 51) % 80] ^ g->s[(p + 38) % 80] ^ g->s[(p + 23) % 80] ^
             g->s[(p + 13) % 80] ^ g->s[p];
    g->s[p] = (uint8_t)nb;
    g->pos = (p + 1) % 80;
    return nb;
}

/* Self-shrinking: bits in pairs; a pair (1, x) outputs x, a pair (0, x) nothing. */
static int grain_next(grain *g)
{
    while (!grain_step(g)) grain_step(g);
    return grain_step(g);
}

static void grain_init(grain *g, unsigned t, unsigned rf, unsigned rp)
{
    const struct {
        unsigned bits;
        uint32_t value;
    } fields[] = {{2, 1}, {4, 1}, {12, 255}, {12, t}, {10, rf}, {10, rp}, {30, 0x3fffffffu}};
    unsigned k = 0;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (unsigned i = fields[f].bits; i-- > 0;) g->s[k++] = (uint8_t)(fields[f].value >> i & 1);
    g->pos = 0;
    for (int i = 0; i < 160; i++) grain_step(g);
}

/* 255 output bits, most significant first, as a big-endian integer; retried until below r. */
static void grain_field(grain *g, fr_t *out)
{
    for (;;) {
        uint8_t be[32] = {0};
        for (int bit = 0; bit < 255; bit++) {
            int b = grain_next(g);
            int pos = bit + 1; /* the top bit of the 256-bit big-endian buffer stays zero */
            be[pos / 8] |= (uint8_t)(b << (7 - pos % 8));
        }
        if (fr_from_bytes_be(out, be) == 0) return;
    }
}

/* ---- small dense matrices, row-major n x n ---- */

static void mat_mul(size_t n, const fr_t *a, const fr_t *b, fr_t *out)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            fr_t acc, t;
            fr_set_zero(&acc);
            for (size_t k = 0; k < n; k++) {
                fr_mul(&t, &a[i * n + k], &b[k * n + j]);
                fr_add(&acc, &acc, &t);
            }
            out[i * n + j] = acc;
        }
}

/* out = m v (neptune left_apply_matrix). out must not alias v. */
static void mat_apply(size_t n, const fr_t *m, const fr_t *v, fr_t *out)
{
    for (size_t i = 0; i < n; i++) {
        fr_t acc, t;
        fr_set_zero(&acc);
        for (size_t j = 0; j < n; j++) {
            fr_mul(&t, &m[i * n + j], &v[j]);
            fr_add(&acc, &acc, &t);
        }
        out[i] = acc;
    }
}

/* Gauss-Jordan; the inverse is unique, so the elimination order does not matter. -1 if singular. */
static int mat_inv(size_t n, const fr_t *m, fr_t *out, fr_t *work)
{
    memcpy(work, m, n * n * sizeof *work);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i == j)
                fr_set_one(&out[i * n + j]);
            else
                fr_set_zero(&out[i * n + j]);
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        while (p < n && fr_is_zero(&work[p * n + c])) p++;
        if (p == n) return -1;
        if (p != c)
            for (size_t j = 0; j < n; j++) {
                fr_t t = work[c * n + j];
                work[c * n + j] = work[p * n + j];
                work[p * n + j] = t;
                t = out[c * n + j];
                out[c * n + j] = out[p * n + j];
                out[p * n + j] = t;
            }
        fr_t inv;
        fr_inv(&inv, &work[c * n + c]);
        for (size_t j = 0; j < n; j++) {
            fr_mul(&work[c * n + j], &work[c * n + j], &inv);
            fr_mul(&out[c * n + j], &out[c * n + j], &inv);
        }
        for (size_t r = 0; r < n; r++) {
            if (r == c || fr_is_zero(&work[r * n + c])) continue;
            fr_t f = work[r * n + c], t;
            for (size_t j = 0; j < n; j++) {
                fr_mul(&t, &f, &work[c * n + j]);
                fr_sub(&work[r * n + j], &work[r * n + j], &t);
                fr_mul(&t, &f, &out[c * n + j]);
                fr_sub(&out[r * n + j], &out[r * n + j], &t);
            }
        }
    }
    return 0;
}

void poseidon_constants_free(poseidon_constants *pc)
{
    free(pc->round_constants);
    free(pc->compressed);
    free(pc->mds);
    free(pc->pre_sparse);
    free(pc->w_hat);
    free(pc->v_rest);
    memset(pc, 0, sizeof *pc);
}

/* compress_round_constants with every partial round preprocessed: the constants are pushed back through the
 * linear layers so that each round adds them after its S-boxes, and each partial round adds only one. */
static void compress_constants(poseidon_constants *pc, const fr_t *m_inv, fr_t *tmp, fr_t *acc, fr_t *pkeys)
{
    size_t t = pc->width, half = pc->half_full_rounds, rp = pc->partial_rounds;
    const fr_t *rc = pc->round_constants;
    fr_t *res = pc->compressed;
    size_t k = 0;
    memcpy(res, rc, t * sizeof *res);
    k += t;
    for (size_t i = 0; i + 1 < half; i++, k += t) mat_apply(t, m_inv, rc + (i + 1) * t, res + k);
    size_t final_round = half + rp;
    memcpy(acc, rc + final_round * t, t * sizeof *acc);
    for (size_t i = 0; i < rp; i++) {
        const fr_t *prev = rc + (final_round - i - 1) * t;
        mat_apply(t, m_inv, acc, tmp);
        pkeys[i] = tmp[0];
        fr_set_zero(&tmp[0]);
        for (size_t j = 0; j < t; j++) fr_add(&acc[j], &prev[j], &tmp[j]);
    }
    mat_apply(t, m_inv, acc, res + k);
    k += t;
    for (size_t i = rp; i-- > 0;) res[k++] = pkeys[i];
    for (size_t i = 1; i < half; i++, k += t) mat_apply(t, m_inv, rc + (i + final_round) * t, res + k);
}

/* factor_to_sparse_matrixes(M^T = M, R_P): repeatedly split the current matrix C into C' (first row and column
 * of the identity, C's lower-right block) and the sparse C'' with C = C' C''; the sparse factors are used in
 * reverse order and what remains multiplies the last full round before the partial ones. */
static int factor_sparse(poseidon_constants *pc, fr_t *curr, fr_t *prime, fr_t *next, fr_t *hat, fr_t *hat_inv,
                         fr_t *work, fr_t *w)
{
    size_t t = pc->width, h = t - 1, rp = pc->partial_rounds;
    memcpy(curr, pc->mds, t * t * sizeof *curr);
    for (size_t k = 0; k < rp; k++) {
        for (size_t i = 0; i < h; i++)
            for (size_t j = 0; j < h; j++) hat[i * h + j] = curr[(i + 1) * t + j + 1];
        if (mat_inv(h, hat, hat_inv, work)) return -1;
        for (size_t i = 0; i < h; i++) w[i] = curr[(i + 1) * t];
        size_t idx = rp - 1 - k; /* the list is reversed at the end */
        fr_t *wh = pc->w_hat + idx * t, *vr = pc->v_rest + idx * h;
        wh[0] = curr[0];
        mat_apply(h, hat_inv, w, wh + 1);
        memcpy(vr, curr + 1, h * sizeof *vr);
        for (size_t i = 0; i < t; i++)
            for (size_t j = 0; j < t; j++) {
                if (i == 0 || j == 0)
                    if (i == j)
                        fr_set_one(&prime[i * t + j]);
                    else
                        fr_set_zero(&prime[i * t + j]);
                else
                    prime[i * t + j] = curr[i * t + j];
            }
        mat_mul(t, pc->mds, prime, next);
        memcpy(curr, next, t * t * sizeof *curr);
    }
    memcpy(pc->pre_sparse, curr, t * t * sizeof *curr);
    return 0;
}

cuzk_status poseidon_constants_create(poseidon_constants *pc, unsigned arity, poseidon_strength strength,
                                      const fr_t *domain_tag, cuzk_error *err)
{
    memset(pc, 0, sizeof *pc);
    if (arity < 1 || arity > POSEIDON_MAX_ARITY)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "poseidon_constants_create: arity %u not in 1..%d", arity,
                              POSEIDON_MAX_ARITY);
    size_t t = (size_t)arity + 1;
    pc->arity = arity;
    pc->width = (unsigned)t;
    poseidon_round_numbers(arity, strength, &pc->full_rounds, &pc->partial_rounds);
    pc->half_full_rounds = pc->full_rounds / 2;
    if (domain_tag)
        pc->domain_tag = *domain_tag;
    else
        poseidon_merkle_tag(arity, &pc->domain_tag);
    size_t rounds = (size_t)pc->full_rounds + pc->partial_rounds, rp = pc->partial_rounds;
    pc->round_constants = malloc(rounds * t * sizeof(fr_t));
    pc->compressed = malloc((t * pc->full_rounds + rp) * sizeof(fr_t));
    pc->mds = malloc(t * t * sizeof(fr_t));
    pc->pre_sparse = malloc(t * t * sizeof(fr_t));
    pc->w_hat = malloc(rp * t * sizeof(fr_t));
    pc->v_rest = malloc(rp * (t - 1) * sizeof(fr_t) + 1);
    fr_t *scratch = malloc((7 * t * t + 4 * t + rp) * sizeof(fr_t));
    if (!pc->round_constants || !pc->compressed || !pc->mds || !pc->pre_sparse || !pc->w_hat || !pc->v_rest ||
        !scratch) {
        free(scratch);
        poseidon_constants_free(pc);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "poseidon_constants_create: arity %u", arity);
    }
    grain g;
    grain_init(&g, (unsigned)t, pc->full_rounds, pc->partial_rounds);
    for (size_t i = 0; i < rounds * t; i++) grain_field(&g, &pc->round_constants[i]);

    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            fr_t x;
            fr_from_u64(&x, (uint64_t)(i + t + j));
            fr_inv(&pc->mds[i * t + j], &x);
        }
    fr_t *m_inv = scratch, *work = m_inv + t * t, *a = work + t * t, *b = a + t * t, *c = b + t * t;
    fr_t *d = c + t * t, *e = d + t * t, *v1 = e + t * t, *v2 = v1 + t, *v3 = v2 + t, *pk = v3 + 2 * t;
    int bad = mat_inv(t, pc->mds, m_inv, work);
    if (!bad) {
        compress_constants(pc, m_inv, v1, v2, pk);
        bad = factor_sparse(pc, a, b, c, d, e, work, v3);
    }
    free(scratch);
    if (bad) {
        poseidon_constants_free(pc);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "poseidon_constants_create: singular matrix (arity %u)", arity);
    }
    return CUZK_OK;
}

/* ---- hashing ---- */

static void sbox(fr_t *x)
{
    fr_t t;
    fr_sqr(&t, x);
    fr_sqr(&t, &t);
    fr_mul(x, x, &t);
}

/* neptune round_product_mds: the pre-sparse matrix after the first half of the full rounds, the sparse ones in the
 * partial rounds, the MDS matrix otherwise. */
static void product_mds(const poseidon_constants *pc, size_t round, fr_t *s)
{
    size_t t = pc->width, half = pc->half_full_rounds;
    fr_t r[POSEIDON_MAX_ARITY + 1], tmp;
    if (round == half - 1) {
        for (size_t j = 0; j < t; j++) {
            fr_set_zero(&r[j]);
            for (size_t i = 0; i < t; i++) {
                fr_mul(&tmp, &pc->pre_sparse[i * t + j], &s[i]);
                fr_add(&r[j], &r[j], &tmp);
            }
        }
    } else if (round >= half && round < half + pc->partial_rounds) {
        const fr_t *wh = pc->w_hat + (round - half) * t, *vr = pc->v_rest + (round - half) * (t - 1);
        fr_set_zero(&r[0]);
        for (size_t i = 0; i < t; i++) {
            fr_mul(&tmp, &wh[i], &s[i]);
            fr_add(&r[0], &r[0], &tmp);
        }
        for (size_t j = 1; j < t; j++) {
            fr_mul(&tmp, &vr[j - 1], &s[0]);
            fr_add(&r[j], &s[j], &tmp);
        }
    } else {
        mat_apply(t, pc->mds, s, r);
    }
    memcpy(s, r, t * sizeof *s);
}

void poseidon_hash(const poseidon_constants *pc, const fr_t *preimage, fr_t *out)
{
    size_t t = pc->width, half = pc->half_full_rounds, off = 0, round = 0;
    fr_t s[POSEIDON_MAX_ARITY + 1];
    s[0] = pc->domain_tag;
    memcpy(s + 1, preimage, pc->arity * sizeof *s);
    for (size_t i = 0; i < t; i++) fr_add(&s[i], &s[i], &pc->compressed[off++]);
    for (size_t r = 0; r < pc->full_rounds + pc->partial_rounds; r++, round++) {
        int full = r < half || r >= half + pc->partial_rounds;
        int last = r + 1 == pc->full_rounds + pc->partial_rounds;
        if (full) {
            for (size_t i = 0; i < t; i++) {
                sbox(&s[i]);
                if (!last) fr_add(&s[i], &s[i], &pc->compressed[off++]);
            }
        } else {
            sbox(&s[0]);
            fr_add(&s[0], &s[0], &pc->compressed[off++]);
        }
        product_mds(pc, round, s);
    }
    *out = s[1];
}

void poseidon_hash_correct(const poseidon_constants *pc, const fr_t *preimage, fr_t *out)
{
    size_t t = pc->width, half = pc->half_full_rounds;
    fr_t s[POSEIDON_MAX_ARITY + 1], r[POSEIDON_MAX_ARITY + 1];
    s[0] = pc->domain_tag;
    memcpy(s + 1, preimage, pc->arity * sizeof *s);
    for (size_t rd = 0; rd < pc->full_rounds + pc->partial_rounds; rd++) {
        for (size_t i = 0; i < t; i++) fr_add(&s[i], &s[i], &pc->round_constants[rd * t + i]);
        if (rd < half || rd >= half + pc->partial_rounds)
            for (size_t i = 0; i < t; i++) sbox(&s[i]);
        else
            sbox(&s[0]);
        mat_apply(t, pc->mds, s, r);
        memcpy(s, r, t * sizeof *s);
    }
    *out = s[1];
}
