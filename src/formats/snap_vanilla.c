#include "formats/snap_vanilla.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/hash/sha256.h"
#include "util/rng.h"

/* ---- shapes ---- */

/* The levels of each sub-path of circuit c's TreeR (base, sub, top; 0 where absent) and the variant tag. */
static unsigned tree_r_variant(const update_circuit *c, unsigned lens[3])
{
    lens[0] = c->r_levels - (c->g->sub_arity ? 1 : 0) - (c->g->top_arity ? 1 : 0);
    lens[1] = c->g->sub_arity ? 1 : 0;
    lens[2] = c->g->top_arity ? 1 : 0;
    return c->g->top_arity ? 2 : c->g->sub_arity ? 1 : 0;
}

/* TreeD is binary over the whole height; c->tree_d holds only the levels below the apex. */
static por_tree tree_d_full(const update_circuit *c)
{
    por_tree t;
    memset(&t, 0, sizeof t);
    t.hasher = POR_SHA256;
    t.levels = c->challenge_bits;
    for (unsigned l = 0; l < t.levels; l++) t.arity[l] = 2;
    return t;
}

cuzk_status snap_partition_proof_alloc(snap_partition_proof *p, const update_circuit *c, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    size_t rs = c->r_sibs, ds = c->challenge_bits;
    size_t bytes =
        32 * (size_t)c->apex_leaves + sizeof(snap_challenge_proof) * c->challenges + 32 * (2 * rs + ds) * c->challenges;
    uint8_t *b = calloc(1, bytes);
    if (!b) return cuzk_error_set(err, CUZK_ERR_NOMEM, "snap vanilla proof: %zu bytes", bytes);
    p->block = b;
    p->apex_count = c->apex_leaves;
    p->apex = (uint8_t(*)[32])b;
    p->challenge_count = c->challenges;
    p->challenges = (snap_challenge_proof *)(b + 32 * (size_t)c->apex_leaves);
    uint8_t(*s)[32] = (uint8_t(*)[32])(b + 32 * (size_t)c->apex_leaves + sizeof(snap_challenge_proof) * c->challenges);
    for (unsigned i = 0; i < c->challenges; i++) {
        snap_challenge_proof *q = &p->challenges[i];
        q->r_old.levels = q->r_new.levels = c->r_levels;
        q->d_new.levels = c->challenge_bits;
        q->r_old.sibs = s;
        s += rs;
        q->d_new.sibs = s;
        s += ds;
        q->r_new.sibs = s;
        s += rs;
    }
    return CUZK_OK;
}

void snap_partition_proof_free(snap_partition_proof *p)
{
    free(p->block);
    memset(p, 0, sizeof *p);
}

/* ---- reading ---- */

typedef struct rd {
    const uint8_t *p;
    size_t n, off;
    cuzk_error *err;
    char where[96];
} rd;

static cuzk_status rd_fail(rd *r, const char *what)
{
    return cuzk_error_set(r->err, CUZK_ERR_FORMAT, "snap vanilla proof: %s: %s (byte %zu of %zu)", r->where, what,
                          r->off, r->n);
}

static cuzk_status rd_bytes(rd *r, void *out, size_t n, const char *what)
{
    if (r->n - r->off < n) {
        char m[160];
        snprintf(m, sizeof m, "%s truncated", what);
        return rd_fail(r, m);
    }
    memcpy(out, r->p + r->off, n);
    r->off += n;
    return CUZK_OK;
}

static cuzk_status rd_u64(rd *r, uint64_t *v, const char *what)
{
    uint8_t b[8];
    cuzk_status st = rd_bytes(r, b, 8, what);
    if (st) return st;
    *v = 0;
    for (int i = 7; i >= 0; i--) *v = *v << 8 | b[i];
    return CUZK_OK;
}

static cuzk_status rd_fr(rd *r, uint8_t out[32], const char *what)
{
    cuzk_status st = rd_bytes(r, out, 32, what);
    if (st) return st;
    fr_t f;
    if (fr_from_bytes_le(&f, out) != 0) {
        char m[160];
        snprintf(m, sizeof m, "%s is not below the field modulus", what);
        r->off -= 32;
        return rd_fail(r, m);
    }
    return CUZK_OK;
}

/* One InclusionPath of levels levels with the arities t->arity[first..]. */
static cuzk_status rd_path(rd *r, const por_tree *t, unsigned first, unsigned levels, snap_merkle *m, size_t *sib,
                           const char *name)
{
    uint64_t n;
    char what[96];
    snprintf(what, sizeof what, "%s length", name);
    cuzk_status st = rd_u64(r, &n, what);
    if (st) return st;
    if (n != levels) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s has %llu levels, the sector size has %u", name, (unsigned long long)n, levels);
        return rd_fail(r, msg);
    }
    for (unsigned l = first; l < first + levels; l++) {
        unsigned a = t->arity[l];
        snprintf(what, sizeof what, "%s level %u hash count", name, l);
        if ((st = rd_u64(r, &n, what))) return st;
        if (n != a - 1) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s level %u has %llu hashes, want %u", name, l, (unsigned long long)n, a - 1);
            return rd_fail(r, msg);
        }
        for (unsigned i = 0; i + 1 < a; i++) {
            snprintf(what, sizeof what, "%s level %u hash %u", name, l, i);
            if ((st = rd_fr(r, m->sibs[(*sib)++], what))) return st;
        }
        snprintf(what, sizeof what, "%s level %u index", name, l);
        if ((st = rd_u64(r, &n, what))) return st;
        if (n >= a) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s level %u index %llu is not below the arity %u", name, l,
                     (unsigned long long)n, a);
            return rd_fail(r, msg);
        }
        m->index[l] = (uint8_t)n;
    }
    return CUZK_OK;
}

static cuzk_status rd_merkle(rd *r, const por_tree *t, unsigned variant, const unsigned lens[3], snap_merkle *m)
{
    uint8_t tb[4] = {0};
    cuzk_status st = rd_bytes(r, tb, 4, "variant tag");
    if (st) return st;
    uint32_t tag = (uint32_t)tb[0] | (uint32_t)tb[1] << 8 | (uint32_t)tb[2] << 16 | (uint32_t)tb[3] << 24;
    if (tag != variant) {
        char msg[96];
        static const char *const names[3] = {"Single", "Sub", "Top"};
        snprintf(msg, sizeof msg, "variant tag %u, the tree needs %u (%s)", tag, variant, names[variant]);
        r->off -= 4;
        return rd_fail(r, msg);
    }
    size_t sib = 0;
    if (variant == 0) {
        if ((st = rd_fr(r, m->root, "root")) || (st = rd_fr(r, m->leaf, "leaf")) ||
            (st = rd_path(r, t, 0, lens[0], m, &sib, "path")))
            return st;
        return CUZK_OK;
    }
    if ((st = rd_path(r, t, 0, lens[0], m, &sib, "base path")) || (st = rd_path(r, t, lens[0], 1, m, &sib, "sub path")))
        return st;
    if (variant == 2 && (st = rd_path(r, t, lens[0] + 1, 1, m, &sib, "top path"))) return st;
    if ((st = rd_fr(r, m->root, "root")) || (st = rd_fr(r, m->leaf, "leaf"))) return st;
    return CUZK_OK;
}

cuzk_status snap_partition_proof_parse(snap_partition_proof *p, const update_circuit *c, unsigned partition,
                                       const uint8_t *data, size_t len, cuzk_error *err)
{
    cuzk_status st = snap_partition_proof_alloc(p, c, err);
    if (st) return st;
    rd r = {data, len, 0, err, ""};
    snprintf(r.where, sizeof r.where, "partition %u: comm_c", partition);
    uint64_t n;
    unsigned lens[3], variant = tree_r_variant(c, lens), dl[3] = {c->challenge_bits, 0, 0};
    por_tree td = tree_d_full(c);
    if ((st = rd_fr(&r, p->comm_c, "comm_c"))) goto fail;
    snprintf(r.where, sizeof r.where, "partition %u: apex_leafs", partition);
    if ((st = rd_u64(&r, &n, "count"))) goto fail;
    if (n != c->apex_leaves) {
        char m[80];
        snprintf(m, sizeof m, "%llu apex leaves, the sector size has %u", (unsigned long long)n, c->apex_leaves);
        st = rd_fail(&r, m);
        goto fail;
    }
    for (unsigned i = 0; i < c->apex_leaves; i++) {
        char w[32];
        snprintf(w, sizeof w, "apex leaf %u", i);
        if ((st = rd_fr(&r, p->apex[i], w))) goto fail;
    }
    snprintf(r.where, sizeof r.where, "partition %u: challenge_proofs", partition);
    if ((st = rd_u64(&r, &n, "count"))) goto fail;
    if (n != c->challenges) {
        char m[80];
        snprintf(m, sizeof m, "%llu challenge proofs, the sector size has %u", (unsigned long long)n, c->challenges);
        st = rd_fail(&r, m);
        goto fail;
    }
    for (unsigned i = 0; i < c->challenges; i++) {
        snap_challenge_proof *q = &p->challenges[i];
        snprintf(r.where, sizeof r.where, "partition %u: challenge %u: proof_r_old", partition, i);
        if ((st = rd_merkle(&r, &c->tree_r, variant, lens, &q->r_old))) goto fail;
        snprintf(r.where, sizeof r.where, "partition %u: challenge %u: proof_d_new", partition, i);
        if ((st = rd_merkle(&r, &td, 0, dl, &q->d_new))) goto fail;
        snprintf(r.where, sizeof r.where, "partition %u: challenge %u: proof_r_new", partition, i);
        if ((st = rd_merkle(&r, &c->tree_r, variant, lens, &q->r_new))) goto fail;
    }
    if (r.off != len) {
        snprintf(r.where, sizeof r.where, "partition %u", partition);
        st = rd_fail(&r, "trailing bytes after the proof");
        goto fail;
    }
    return CUZK_OK;
fail:
    snap_partition_proof_free(p);
    return st;
}

/* ---- writing ---- */

typedef struct wr {
    uint8_t *p;
    size_t off;
} wr;

static void wr_bytes(wr *w, const void *b, size_t n)
{
    if (w->p) memcpy(w->p + w->off, b, n);
    w->off += n;
}

static void wr_u64(wr *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    wr_bytes(w, b, 8);
}

static void wr_path(wr *w, const por_tree *t, unsigned first, unsigned levels, const snap_merkle *m, size_t *sib)
{
    wr_u64(w, levels);
    for (unsigned l = first; l < first + levels; l++) {
        wr_u64(w, t->arity[l] - 1);
        for (unsigned i = 0; i + 1 < t->arity[l]; i++) wr_bytes(w, m->sibs[(*sib)++], 32);
        wr_u64(w, m->index[l]);
    }
}

static void wr_merkle(wr *w, const por_tree *t, unsigned variant, const unsigned lens[3], const snap_merkle *m)
{
    uint8_t tag[4] = {(uint8_t)variant, 0, 0, 0};
    wr_bytes(w, tag, 4);
    size_t sib = 0;
    if (variant == 0) {
        wr_bytes(w, m->root, 32);
        wr_bytes(w, m->leaf, 32);
        wr_path(w, t, 0, lens[0], m, &sib);
        return;
    }
    wr_path(w, t, 0, lens[0], m, &sib);
    wr_path(w, t, lens[0], 1, m, &sib);
    if (variant == 2) wr_path(w, t, lens[0] + 1, 1, m, &sib);
    wr_bytes(w, m->root, 32);
    wr_bytes(w, m->leaf, 32);
}

static void wr_partition(wr *w, const snap_partition_proof *p, const update_circuit *c)
{
    unsigned lens[3], variant = tree_r_variant(c, lens), dl[3] = {c->challenge_bits, 0, 0};
    por_tree td = tree_d_full(c);
    wr_bytes(w, p->comm_c, 32);
    wr_u64(w, p->apex_count);
    for (unsigned i = 0; i < p->apex_count; i++) wr_bytes(w, p->apex[i], 32);
    wr_u64(w, p->challenge_count);
    for (unsigned i = 0; i < p->challenge_count; i++) {
        wr_merkle(w, &c->tree_r, variant, lens, &p->challenges[i].r_old);
        wr_merkle(w, &td, 0, dl, &p->challenges[i].d_new);
        wr_merkle(w, &c->tree_r, variant, lens, &p->challenges[i].r_new);
    }
}

cuzk_status snap_partition_proof_encode(const snap_partition_proof *p, const update_circuit *c, uint8_t **out,
                                        size_t *len, cuzk_error *err)
{
    if (p->apex_count != c->apex_leaves || p->challenge_count != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "snap vanilla proof: not shaped for %s", c->g->name);
    wr w = {NULL, 0};
    wr_partition(&w, p, c);
    *len = w.off;
    w.p = malloc(w.off);
    if (!w.p) return cuzk_error_set(err, CUZK_ERR_NOMEM, "snap vanilla proof: %zu bytes", *len);
    w.off = 0;
    wr_partition(&w, p, c);
    *out = w.p;
    return CUZK_OK;
}

/* ---- from an encoded sector ---- */

static void merkle_from_tree(snap_merkle *m, const update_tree *t, uint64_t i)
{
    fr_t sibs[POR_MAX_LEVELS * (POR_MAX_ARITY - 1)];
    update_tree_path(t, i, m->index, sibs);
    size_t n = 0;
    for (unsigned l = 0; l < t->levels; l++) n += t->arity[l] - 1;
    for (size_t j = 0; j < n; j++) fr_to_bytes_le(m->sibs[j], &sibs[j]);
    fr_to_bytes_le(m->leaf, update_tree_node(t, 0, i));
    fr_to_bytes_le(m->root, update_tree_root(t));
}

cuzk_status snap_partition_proof_from_encoded(snap_partition_proof *p, const update_circuit *c, const update_encoded *e,
                                              unsigned k, cuzk_error *err)
{
    if (k >= c->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "snap vanilla proof: partition %u of %u", k, c->partitions);
    cuzk_status st = snap_partition_proof_alloc(p, c, err);
    if (st) return st;
    fr_to_bytes_le(p->comm_c, &e->comm_c);
    for (unsigned i = 0; i < c->apex_leaves; i++)
        fr_to_bytes_le(p->apex[i], update_tree_node(&e->d, c->tree_d.levels, (uint64_t)k * c->apex_leaves + i));
    uint64_t chs[UPDATE_MAX_CHALLENGES];
    update_challenges(c, &e->comm_r_new, k, chs);
    for (unsigned i = 0; i < c->challenges; i++) {
        merkle_from_tree(&p->challenges[i].r_old, &e->r_old, chs[i]);
        merkle_from_tree(&p->challenges[i].d_new, &e->d, chs[i]);
        merkle_from_tree(&p->challenges[i].r_new, &e->r_new, chs[i]);
    }
    return CUZK_OK;
}

static void synth_fr(rng_t *rng, fr_t *f, uint8_t top_mask)
{
    uint8_t b[32];
    do {
        rng_bytes(rng, b, 32);
        b[31] &= top_mask;
    } while (fr_from_bytes_le(f, b));
}

cuzk_status snap_synth_encoded(update_encoded *e, const update_circuit *c, uint64_t seed, cuzk_error *err)
{
    unsigned bb = c->challenge_bits - update_h_default(c);
    size_t n = (size_t)1 << (c->challenge_bits - bb);
    fr_t *old = malloc(sizeof(fr_t) * n), *data = malloc(sizeof(fr_t) * n), comm_c;
    cuzk_status st;
    if (!old || !data) {
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "snap_synth_encoded: out of memory");
    } else {
        rng_t rng;
        rng_seed(&rng, seed);
        for (size_t i = 0; i < n; i++) {
            synth_fr(&rng, &old[i], 0x7f);
            synth_fr(&rng, &data[i], 0x3f);
        }
        synth_fr(&rng, &comm_c, 0x7f);
        st = update_encode(e, c, bb, old, data, &comm_c, err);
    }
    free(old);
    free(data);
    return st;
}

/* ---- witness ---- */

static void to_fr(fr_t *out, const uint8_t b[32])
{
    (void)fr_from_bytes_le(out, b);
}

static void sha_node(const fr_t *l, const fr_t *r, fr_t *out)
{
    uint8_t buf[64];
    fr_to_bytes_le(buf, l);
    fr_to_bytes_le(buf + 32, r);
    sha256_fr(buf, 64, out);
}

/* Walks m from its leaf; *at (if stop <= levels) receives the running node after stop levels. Returns the root. */
static void merkle_walk(const update_circuit *c, const por_tree *t, const snap_merkle *m, unsigned stop, fr_t *at,
                        fr_t *root)
{
    fr_t cur;
    to_fr(&cur, m->leaf);
    size_t sib = 0;
    for (unsigned l = 0; l < m->levels; l++) {
        if (l == stop) *at = cur;
        unsigned a = t->arity[l];
        fr_t kids[POR_MAX_ARITY];
        for (unsigned i = 0, j = 0; i < a; i++) {
            if (i == m->index[l])
                kids[i] = cur;
            else
                to_fr(&kids[i], m->sibs[sib + j++]);
        }
        sib += a - 1;
        if (t->hasher == POR_SHA256)
            sha_node(&kids[0], &kids[1], &cur);
        else
            poseidon_hash(t->pc[l], kids, &cur);
    }
    if (stop == m->levels) *at = cur;
    (void)c;
    *root = cur;
}

static int index_matches(const por_tree *t, const snap_merkle *m, uint64_t ch)
{
    unsigned bit = 0;
    for (unsigned l = 0; l < m->levels; l++) {
        unsigned ib = 0;
        while ((1u << ib) < t->arity[l]) ib++;
        if (m->index[l] != ((ch >> bit) & ((1u << ib) - 1))) return 0;
        bit += ib;
    }
    return 1;
}

static void copy_sibs(fr_t *out, const snap_merkle *m, size_t n)
{
    for (size_t i = 0; i < n; i++) to_fr(&out[i], m->sibs[i]);
}

cuzk_status snap_witness_from_proof(update_witness *w, const update_circuit *c, const snap_partition_proof *p,
                                    unsigned k, const uint8_t comm_r_old[32], const uint8_t comm_r_new[32],
                                    const uint8_t comm_d_new[32], cuzk_error *err)
{
    const char *who = "snap vanilla proof";
    fr_t cro, crn, cdn;
    if (fr_from_bytes_le(&cro, comm_r_old))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: comm_r_old is not below the field modulus", who);
    if (fr_from_bytes_le(&crn, comm_r_new))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: comm_r_new is not below the field modulus", who);
    if (fr_from_bytes_le(&cdn, comm_d_new))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: comm_d_new is not below the field modulus", who);
    if (k >= c->partitions)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: partition %u of %u", who, k, c->partitions);
    if (p->apex_count != c->apex_leaves || p->challenge_count != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: partition %u: not shaped for %s", who, k, c->g->name);
    cuzk_status st = update_witness_alloc(w, c, err);
    if (st) return st;
    uint64_t khs;
    unsigned h = update_h_default(c);
    if ((st = update_k_and_h_select(c, k, h, &khs, err))) goto fail;
    fr_from_u64(&w->k_and_h_select, khs);
    w->comm_r_old = cro;
    w->comm_r_new = crn;
    w->comm_d_new = cdn;
    to_fr(&w->comm_c, p->comm_c);
    to_fr(&w->root_r_old, p->challenges[0].r_old.root);
    to_fr(&w->root_r_new, p->challenges[0].r_new.root);
    for (unsigned i = 0; i < c->apex_leaves; i++) to_fr(&w->apex_leaves[i], p->apex[i]);

    fr_t t;
    poseidon_hash(&c->p2, (fr_t[2]){w->comm_c, w->root_r_old}, &t);
    if (!fr_eq(&t, &cro)) {
        st = cuzk_error_set(err, CUZK_ERR_FORMAT,
                            "%s: partition %u: comm_r_old is not Poseidon2(comm_c, proof_r_old root)", who, k);
        goto fail;
    }
    poseidon_hash(&c->p2, (fr_t[2]){w->comm_c, w->root_r_new}, &t);
    if (!fr_eq(&t, &crn)) {
        st = cuzk_error_set(err, CUZK_ERR_FORMAT,
                            "%s: partition %u: comm_r_new is not Poseidon2(comm_c, proof_r_new root)", who, k);
        goto fail;
    }
    /* The apex tree's root, against which every TreeD path is checked at the apex-root level. */
    fr_t row[UPDATE_MAX_APEX];
    memcpy(row, w->apex_leaves, sizeof(fr_t) * c->apex_leaves);
    for (unsigned n = c->apex_leaves; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++) sha_node(&row[2 * i], &row[2 * i + 1], &row[i]);

    uint64_t chs[UPDATE_MAX_CHALLENGES];
    update_challenges(c, &crn, k, chs);
    fr_t phi;
    update_phi(c, &cdn, &cro, &phi);
    por_tree td = tree_d_full(c);
    unsigned to_apex = c->tree_d.levels;
    for (unsigned i = 0; i < c->challenges; i++) {
        const snap_challenge_proof *q = &p->challenges[i];
        update_challenge *x = &w->proofs[i];
        const char *bad = NULL;
        fr_t root, at, apex_root;
        if (!index_matches(&c->tree_r, &q->r_old, chs[i]))
            bad = "proof_r_old: the path is not of the challenged node";
        else if (!index_matches(&td, &q->d_new, chs[i]))
            bad = "proof_d_new: the path is not of the challenged node";
        else if (!index_matches(&c->tree_r, &q->r_new, chs[i]))
            bad = "proof_r_new: the path is not of the challenged node";
        if (!bad) {
            to_fr(&t, q->r_old.root);
            merkle_walk(c, &c->tree_r, &q->r_old, c->r_levels, &at, &root);
            if (!fr_eq(&t, &w->root_r_old))
                bad = "proof_r_old: root differs from challenge 0's";
            else if (!fr_eq(&root, &t))
                bad = "proof_r_old: the path does not hash to its root";
        }
        if (!bad) {
            to_fr(&t, q->r_new.root);
            merkle_walk(c, &c->tree_r, &q->r_new, c->r_levels, &at, &root);
            if (!fr_eq(&t, &w->root_r_new))
                bad = "proof_r_new: root differs from challenge 0's";
            else if (!fr_eq(&root, &t))
                bad = "proof_r_new: the path does not hash to its root";
        }
        if (!bad) {
            to_fr(&t, q->d_new.root);
            merkle_walk(c, &td, &q->d_new, to_apex + c->apex_bits, &apex_root, &root);
            fr_t leaf_at;
            merkle_walk(c, &td, &q->d_new, to_apex, &leaf_at, &root);
            uint64_t sel = chs[i] >> to_apex & (c->apex_leaves - 1);
            if (!fr_eq(&t, &cdn))
                bad = "proof_d_new: root is not comm_d_new";
            else if (!fr_eq(&root, &t))
                bad = "proof_d_new: the path does not hash to its root";
            else if (!fr_eq(&leaf_at, &w->apex_leaves[sel]))
                bad = "proof_d_new: the path misses its apex leaf";
            else if (!fr_eq(&apex_root, &row[0]))
                bad = "apex_leafs: the apex tree's root is not on the TreeD path";
        }
        if (!bad) {
            to_fr(&x->leaf_r_old, q->r_old.leaf);
            to_fr(&x->leaf_d_new, q->d_new.leaf);
            to_fr(&x->leaf_r_new, q->r_new.leaf);
            copy_sibs(x->path_r_old, &q->r_old, c->r_sibs);
            copy_sibs(x->path_d, &q->d_new, c->challenge_bits);
            copy_sibs(x->path_r_new, &q->r_new, c->r_sibs);
            fr_t rho;
            update_rho(c, &phi, chs[i], h, &rho);
            fr_mul(&t, &x->leaf_d_new, &rho);
            fr_add(&t, &t, &x->leaf_r_old);
            if (!fr_eq(&t, &x->leaf_r_new)) bad = "proof_r_new: leaf is not leaf_r_old + leaf_d_new * rho";
        }
        if (bad) {
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: partition %u: challenge %u (node %llu): %s", who, k, i,
                                (unsigned long long)chs[i], bad);
            goto fail;
        }
    }
    if ((st = update_witness_check(c, w, err))) {
        st = cuzk_error_prefix(err, "%s: partition %u: ", who, k);
        goto fail;
    }
    return CUZK_OK;
fail:
    update_witness_free(w);
    if (st == CUZK_ERR_INVALID_ARG && err) err->code = st = CUZK_ERR_FORMAT;
    return st;
}
