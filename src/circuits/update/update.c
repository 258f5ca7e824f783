#include "circuits/update/update.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/gadgets/constraint.h"
#include "circuits/gadgets/gadget_impl.h"
#include "circuits/gadgets/insertion.h"
#include "circuits/gadgets/multipack.h"
#include "circuits/gadgets/poseidon.h"

/* constants.rs: SECTOR_SIZE_* in nodes and validate_tree_r_shape. */
static const update_geometry GEOMETRIES[] = {
    {"1KiB", 1ull << 5, 8, 4, 0},   {"2KiB", 1ull << 6, 8, 0, 0},   {"4KiB", 1ull << 7, 8, 2, 0},
    {"8KiB", 1ull << 8, 8, 4, 0},   {"16KiB", 1ull << 9, 8, 8, 0},  {"32KiB", 1ull << 10, 8, 8, 2},
    {"8MiB", 1ull << 18, 8, 0, 0},  {"16MiB", 1ull << 19, 8, 2, 0}, {"512MiB", 1ull << 24, 8, 0, 0},
    {"32GiB", 1ull << 30, 8, 8, 0}, {"64GiB", 1ull << 31, 8, 8, 2},
};
#define NGEOM (sizeof GEOMETRIES / sizeof GEOMETRIES[0])

const update_geometry *update_geometries(size_t *n)
{
    *n = NGEOM;
    return GEOMETRIES;
}

const update_geometry *update_geometry_for_size(uint64_t sector_bytes)
{
    for (size_t i = 0; i < NGEOM; i++)
        if (GEOMETRIES[i].nodes << 5 == sector_bytes) return &GEOMETRIES[i];
    return NULL;
}

cuzk_status update_geometry_parse(const char *text, const update_geometry **out, cuzk_error *err)
{
    for (size_t i = 0; i < NGEOM; i++)
        if (strcmp(text, GEOMETRIES[i].name) == 0) {
            *out = &GEOMETRIES[i];
            return CUZK_OK;
        }
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text && !*end && (*out = update_geometry_for_size(v)) != NULL) return CUZK_OK;
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                          "sector size '%s' has no SnapDeals circuit (1KiB, 2KiB, 4KiB, 8KiB, 16KiB, 32KiB, 8MiB, "
                          "16MiB, 512MiB, 32GiB, 64GiB)",
                          text);
}

static unsigned log2u(uint64_t v)
{
    unsigned b = 0;
    while ((1ull << b) < v) b++;
    return b;
}

cuzk_status update_circuit_init(update_circuit *c, const update_geometry *g, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    uint64_t n = g->nodes;
    c->g = g;
    c->challenge_bits = log2u(n);
    c->partitions = n <= (1u << 8) ? 1 : n <= (1u << 10) ? 2 : n <= (1u << 19) ? 4 : 16;
    c->challenges = n <= (1u << 19) ? 10 : 86;
    c->apex_leaves = n <= (1u << 8) ? 8 : 128;
    c->partition_bits = log2u(c->partitions);
    c->apex_bits = log2u(c->apex_leaves);
    for (unsigned i = 0; i < UPDATE_HS; i++) c->hs[i] = n <= (1u << 10) ? 1 : 7 + i;
    c->bits_per_challenge = c->challenge_bits - c->partition_bits;
    c->challenges_per_digest = GADGET_FR_CAPACITY / c->bits_per_challenge;
    c->digests = (c->challenges + c->challenges_per_digest - 1) / c->challenges_per_digest;

    fr_t tag;
    fr_from_u64(&tag, 1ull << 40); /* Custom(Arbitrary(1)): 1 * 2^40 */
    cuzk_status st;
    unsigned rest =
        c->challenge_bits - (g->sub_arity ? log2u(g->sub_arity) : 0) - (g->top_arity ? log2u(g->top_arity) : 0);
    unsigned base_levels = rest / log2u(g->base_arity);
    if ((st = poseidon_constants_create(&c->p2, 2, POSEIDON_STANDARD, NULL, err)) != CUZK_OK ||
        (st = poseidon_constants_create(&c->p_gen, 2, POSEIDON_STANDARD, &tag, err)) != CUZK_OK ||
        (st = por_tree_poseidon(&c->tree_r, &c->tree_r_k, g->base_arity, base_levels, g->sub_arity, g->top_arity,
                                err)) != CUZK_OK) {
        update_circuit_free(c);
        return cuzk_error_prefix(err, "update_circuit_init: %s: ", g->name);
    }
    unsigned l = c->tree_r.levels;
    c->r_levels = l;
    c->r_sibs = 0;
    for (unsigned i = 0; i < l; i++) c->r_sibs += c->tree_r.arity[i] - 1;
    c->tree_d.hasher = POR_SHA256;
    c->tree_d.levels = c->challenge_bits - c->partition_bits - c->apex_bits;
    for (unsigned i = 0; i < c->tree_d.levels; i++) c->tree_d.arity[i] = 2;
    return CUZK_OK;
}

void update_circuit_free(update_circuit *c)
{
    poseidon_constants_free(&c->p2);
    poseidon_constants_free(&c->p_gen);
    por_tree_constants_free(&c->tree_r_k);
    memset(c, 0, sizeof *c);
}

unsigned update_h_default(const update_circuit *c)
{
    return c->hs[3];
}

cuzk_status update_k_and_h_select(const update_circuit *c, unsigned k, unsigned h, uint64_t *out, cuzk_error *err)
{
    if (k >= c->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "partition %u: %s has %u partitions", k, c->g->name,
                              c->partitions);
    for (unsigned i = 0; i < UPDATE_HS; i++)
        if (c->hs[i] == h) {
            *out = (uint64_t)k | (1ull << i) << c->partition_bits;
            return CUZK_OK;
        }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "h = %u is not an allowed h for %s", h, c->g->name);
}

cuzk_status update_witness_alloc(update_witness *w, const update_circuit *c, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    size_t per = (size_t)2 * c->r_sibs + c->challenge_bits;
    size_t bytes =
        sizeof(fr_t) * c->apex_leaves + sizeof(update_challenge) * c->challenges + sizeof(fr_t) * per * c->challenges;
    uint8_t *b = calloc(1, bytes);
    if (!b) return cuzk_error_set(err, CUZK_ERR_NOMEM, "update_witness_alloc: %zu bytes", bytes);
    w->block = b;
    w->apex_leaves = (fr_t *)b;
    w->proofs = (update_challenge *)(b + sizeof(fr_t) * c->apex_leaves);
    fr_t *f = (fr_t *)(b + sizeof(fr_t) * c->apex_leaves + sizeof(update_challenge) * c->challenges);
    w->challenges = c->challenges;
    for (unsigned i = 0; i < c->challenges; i++) {
        w->proofs[i].path_r_old = f;
        f += c->r_sibs;
        w->proofs[i].path_d = f;
        f += c->challenge_bits;
        w->proofs[i].path_r_new = f;
        f += c->r_sibs;
    }
    return CUZK_OK;
}

void update_witness_free(update_witness *w)
{
    free(w->block);
    memset(w, 0, sizeof *w);
}

/* ---- native randomness ---- */

static void poseidon2(const poseidon_constants *pc, const fr_t *a, const fr_t *b, fr_t *out)
{
    fr_t pre[2] = {*a, *b};
    poseidon_hash(pc, pre, out);
}

void update_phi(const update_circuit *c, const fr_t *comm_d_new, const fr_t *comm_r_old, fr_t *phi)
{
    poseidon2(&c->p_gen, comm_d_new, comm_r_old, phi);
}

void update_rho(const update_circuit *c, const fr_t *phi, uint64_t challenge, unsigned h, fr_t *rho)
{
    fr_t high;
    fr_from_u64(&high, challenge >> (c->challenge_bits - h));
    poseidon2(&c->p_gen, phi, &high, rho);
}

void update_challenges(const update_circuit *c, const fr_t *comm_r_new, unsigned k, uint64_t *out)
{
    unsigned done = 0;
    for (unsigned j = 0; j < c->digests; j++) {
        fr_t idx, digest;
        fr_from_u64(&idx, (uint64_t)k * c->digests + j);
        poseidon2(&c->p_gen, comm_r_new, &idx, &digest);
        uint64_t v[FR_LIMBS];
        fr_from_mont(v, &digest);
        for (unsigned i = 0; i < c->challenges_per_digest && done < c->challenges; i++, done++) {
            uint64_t ch = 0;
            for (unsigned b = 0; b < c->bits_per_challenge; b++) {
                unsigned bit = i * c->bits_per_challenge + b;
                ch |= (v[bit / 64] >> (bit % 64) & 1) << b;
            }
            out[done] = ch | (uint64_t)k << c->bits_per_challenge;
        }
    }
}

cuzk_status update_witness_check(const update_circuit *c, const update_witness *w, cuzk_error *err)
{
    uint64_t v[FR_LIMBS];
    fr_from_mont(v, &w->k_and_h_select);
    if (v[1] || v[2] || v[3] || (v[0] >> (c->partition_bits + UPDATE_HS)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "k_and_h_select: bits above k and h_select are set");
    unsigned k = (unsigned)(v[0] & ((1u << c->partition_bits) - 1));
    unsigned hsel = (unsigned)(v[0] >> c->partition_bits);
    if (k >= c->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "k_and_h_select: partition %u of %u", k, c->partitions);
    if (hsel == 0 || (hsel & (hsel - 1)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "k_and_h_select: h_select 0x%x has not exactly one bit", hsel);
    if (w->challenges != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "witness of %u challenges, circuit %u", w->challenges,
                              c->challenges);
    unsigned h = c->hs[log2u(hsel)];
    unsigned below = c->challenge_bits - c->partition_bits;
    uint64_t ch[UPDATE_MAX_CHALLENGES];
    update_challenges(c, &w->comm_r_new, k, ch);
    fr_t phi;
    update_phi(c, &w->comm_d_new, &w->comm_r_old, &phi);
    for (unsigned i = 0; i < c->challenges; i++) {
        const update_challenge *p = &w->proofs[i];
        for (unsigned l = 0; l < c->partition_bits; l++)
            if (!fr_eq(&p->path_d[below + l], &w->proofs[0].path_d[below + l]))
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                      "challenge %u: TreeD partition path level %u differs from challenge 0's", i,
                                      below + l);
        fr_t rho, t;
        update_rho(c, &phi, ch[i], h, &rho);
        fr_mul(&t, &p->leaf_d_new, &rho);
        fr_add(&t, &t, &p->leaf_r_old);
        if (!fr_eq(&t, &p->leaf_r_new))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                  "challenge %u (node %llu): leaf_r_new is not leaf_r_old + leaf_d_new * rho", i,
                                  (unsigned long long)ch[i]);
    }
    return CUZK_OK;
}

/* ---- circuit ---- */

/* por_no_challenge_input: leaf, siblings and root already allocated; per level insert then hash; then
 * computed * ONE = root. */
static cuzk_status por_no_challenge_input(r1cs *cs, const por_tree *t, const gadget_bit *bits, const gadget_num *leaf,
                                          const gadget_num *sibs, const gadget_num *root, cuzk_error *err)
{
    gadget_num cur = *leaf;
    unsigned nb = 0;
    size_t off = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l], ib = log2u(a);
        gadget_bool idx[4];
        for (unsigned i = 0; i < ib; i++) idx[i] = gadget_bool_from_bit(&bits[nb++]);
        gadget_num pre[POR_MAX_ARITY];
        cuzk_status st = gadget_insert(cs, &cur, idx, ib, sibs + off, pre, err);
        if (st == CUZK_OK) st = gadget_por_hash(cs, t->hasher, t->pc[l], pre, a, &cur, err);
        if (st != CUZK_OK) return cuzk_error_prefix(err, "level %u: ", l);
        off += a - 1;
    }
    return gadget_enforce_equal(cs, &cur, root, err);
}

static cuzk_status alloc_num(r1cs *cs, const fr_t *v, gadget_num *out, cuzk_error *err)
{
    fr_t zero;
    fr_set_zero(&zero);
    return gadget_num_alloc(cs, v ? v : &zero, out, err);
}

/* lc = sum 2^i bits[i]; enforce lc * ONE = num (k_and_h_select binary decomp, allocated_num_to_allocated_bits). */
static cuzk_status enforce_decomp(r1cs *cs, const gadget_bit *bits, unsigned n, const gadget_num *num, cuzk_error *err)
{
    if (cs->witness_only) return r1cs_enforce(cs, NULL, NULL, NULL, err);
    r1cs_lc a;
    r1cs_lc_init(&a);
    fr_t coeff;
    fr_set_one(&coeff);
    cuzk_status st = CUZK_OK;
    for (unsigned i = 0; i < n && st == CUZK_OK; i++) {
        st = r1cs_lc_add(&a, bits[i].var, &coeff, err);
        fr_dbl(&coeff, &coeff);
    }
    gadget_slc b, c;
    gadget_slc_init(&b);
    gadget_slc_init(&c);
    gadget_slc_add(&b, r1cs_one(), NULL);
    gadget_slc_add(&c, num->var, NULL);
    if (st == CUZK_OK) st = r1cs_enforce(cs, &a, &b.lc, &c.lc, err);
    r1cs_lc_free(&a);
    return st;
}

static void fr_bits(const fr_t *v, unsigned n, uint8_t *out)
{
    uint64_t l[FR_LIMBS];
    fr_from_mont(l, v);
    for (unsigned i = 0; i < n; i++) out[i] = (uint8_t)(l[i / 64] >> (i % 64) & 1);
}

static cuzk_status poseidon2_gadget(r1cs *cs, const poseidon_constants *pc, const gadget_num *a, const gadget_num *b,
                                    gadget_num *out, cuzk_error *err)
{
    gadget_num pre[2] = {*a, *b};
    return gadget_poseidon_hash(cs, pre, pc, out, err);
}

void update_top_vars_free(update_top_vars *top)
{
    free(top->c_bits);
    top->c_bits = NULL;
}

/* The body of update_synth_top; nodes non-NULL: the apex hashes skipped (update_synth_top_skip_apex). *apex_at
 * (may be NULL) receives cs->num_aux where the apex tree starts. */
static cuzk_status synth_top(r1cs *cs, const update_circuit *c, const update_witness *w, const fr_t *nodes,
                             size_t *apex_at, update_top_vars *top, cuzk_error *err)
{
    memset(top, 0, sizeof *top);
    size_t hash_aux = 0, hash_con = 0;
    if (nodes) {
        update_info info;
        cuzk_status st = update_circuit_info(c, &info, err);
        if (st != CUZK_OK) return st;
        hash_aux = info.apex_hash_aux;
        hash_con = info.apex_hash_constraints;
    }
    cuzk_status st;
    gadget_num khs, comm_r_old, comm_d_new, comm_r_new, comm_c, partition;
    unsigned kb = c->partition_bits + UPDATE_HS;
    gadget_bit kbits[4 + UPDATE_HS];
    uint8_t kv[4 + UPDATE_HS];
    fr_t zero;
    fr_set_zero(&zero);
    fr_bits(w ? &w->k_and_h_select : &zero, kb, kv);
    if ((st = alloc_num(cs, w ? &w->k_and_h_select : NULL, &khs, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &khs, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "k_and_h_select: ");
    for (unsigned i = 0; i < kb; i++)
        if ((st = gadget_bit_alloc(cs, kv[i], &kbits[i], err)) != CUZK_OK)
            return cuzk_error_prefix(err, "k_and_h_select_bit_%u: ", i);
    if ((st = enforce_decomp(cs, kbits, kb, &khs, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "k_and_h_select binary decomp: ");
    gadget_bool pbools[4];
    for (unsigned i = 0; i < c->partition_bits; i++) pbools[i] = gadget_bool_from_bit(&kbits[i]);
    for (unsigned i = 0; i < UPDATE_HS; i++) top->h_select[i] = kbits[c->partition_bits + i];
    if ((st = gadget_pack_bits(cs, pbools, c->partition_bits, &partition, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "pack partition bits: ");
    if ((st = alloc_num(cs, w ? &w->comm_r_old : NULL, &comm_r_old, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &comm_r_old, err)) != CUZK_OK ||
        (st = alloc_num(cs, w ? &w->comm_d_new : NULL, &comm_d_new, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &comm_d_new, err)) != CUZK_OK ||
        (st = alloc_num(cs, w ? &w->comm_r_new : NULL, &comm_r_new, err)) != CUZK_OK ||
        (st = gadget_num_inputize(cs, &comm_r_new, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "commitments: ");
    if ((st = poseidon2_gadget(cs, &c->p_gen, &comm_d_new, &comm_r_old, &top->phi, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "phi: ");
    if ((st = alloc_num(cs, w ? &w->comm_c : NULL, &comm_c, err)) != CUZK_OK ||
        (st = alloc_num(cs, w ? &w->root_r_old : NULL, &top->root_r_old, err)) != CUZK_OK ||
        (st = alloc_num(cs, w ? &w->root_r_new : NULL, &top->root_r_new, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "comm_c, roots: ");
    for (unsigned i = 0; i < c->apex_leaves; i++)
        if ((st = alloc_num(cs, w ? &w->apex_leaves[i] : NULL, &top->apex[i], err)) != CUZK_OK)
            return cuzk_error_prefix(err, "apex_leaf_%u: ", i);
    gadget_num ppath[4];
    unsigned below = c->challenge_bits - c->partition_bits;
    for (unsigned i = 0; i < c->partition_bits; i++)
        if ((st = alloc_num(cs, w ? &w->proofs[0].path_d[below + i] : NULL, &ppath[i], err)) != CUZK_OK)
            return cuzk_error_prefix(err, "partition_path_sibling_%u: ", i);
    gadget_num calc;
    if ((st = poseidon2_gadget(cs, &c->p2, &comm_c, &top->root_r_old, &calc, err)) != CUZK_OK ||
        (st = gadget_enforce_equal(cs, &calc, &comm_r_old, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "comm_r_old_calc: ");
    if ((st = poseidon2_gadget(cs, &c->p2, &comm_c, &top->root_r_new, &calc, err)) != CUZK_OK ||
        (st = gadget_enforce_equal(cs, &calc, &comm_r_new, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "comm_r_new_calc: ");

    /* apex_por: the apex tree row by row, then its root up the partition path. */
    gadget_num row[UPDATE_MAX_APEX];
    memcpy(row, top->apex, sizeof(gadget_num) * c->apex_leaves);
    if (apex_at) *apex_at = cs->num_aux;
    unsigned hj = 0;
    for (unsigned n = c->apex_leaves; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++, hj++) {
            if (nodes) {
                /* The hash's output is its last variable (gadget_sha256_fr packs last). */
                st = r1cs_witness_skip(cs, hash_aux, hash_con, err);
                row[i].var = (r1cs_var){R1CS_AUX, (uint32_t)(cs->num_aux - 1)};
                row[i].value = nodes[hj];
            } else {
                st = gadget_por_hash(cs, POR_SHA256, NULL, &row[2 * i], 2, &row[i], err);
            }
            if (st != CUZK_OK) return cuzk_error_prefix(err, "apex_tree: ");
        }
    por_tree pt;
    memset(&pt, 0, sizeof pt);
    pt.hasher = POR_SHA256;
    pt.levels = c->partition_bits;
    for (unsigned i = 0; i < pt.levels; i++) pt.arity[i] = 2;
    if ((st = por_no_challenge_input(cs, &pt, kbits, &row[0], ppath, &comm_d_new, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "apex_gadget: partition-tree por: ");

    /* gen_challenge_bits, with the partition bits appended to each challenge's bits. */
    top->c_bits = malloc(sizeof(gadget_bit) * c->challenges * c->challenge_bits);
    if (!top->c_bits) return cuzk_error_set(err, CUZK_ERR_NOMEM, "challenge bits");
    unsigned done = 0;
    uint64_t k = 0;
    for (unsigned i = 0; i < c->partition_bits; i++) k |= (uint64_t)kv[i] << i;
    for (unsigned j = 0; j < c->digests; j++) {
        gadget_num di, digest;
        fr_t dv, dpp, jf;
        fr_from_u64(&dv, k * c->digests + j);
        fr_from_u64(&dpp, c->digests);
        fr_from_u64(&jf, j);
        if ((st = gadget_num_alloc(cs, &dv, &di, err)) != CUZK_OK) goto fail;
        if (cs->witness_only) {
            st = r1cs_enforce(cs, NULL, NULL, NULL, err);
        } else {
            gadget_slc a, b, cc;
            gadget_slc_init(&a);
            gadget_slc_init(&b);
            gadget_slc_init(&cc);
            gadget_slc_add(&a, partition.var, &dpp);
            gadget_slc_add(&a, r1cs_one(), &jf);
            gadget_slc_add(&b, r1cs_one(), NULL);
            gadget_slc_add(&cc, di.var, NULL);
            st = r1cs_enforce(cs, &a.lc, &b.lc, &cc.lc, err);
        }
        if (st != CUZK_OK) goto fail;
        if ((st = poseidon2_gadget(cs, &c->p_gen, &comm_r_new, &di, &digest, err)) != CUZK_OK) goto fail;
        gadget_bit dbits[GADGET_FR_NUM_BITS];
        uint8_t dvals[GADGET_FR_NUM_BITS];
        fr_bits(&digest.value, GADGET_FR_NUM_BITS, dvals);
        for (unsigned i = 0; i < GADGET_FR_NUM_BITS; i++)
            if ((st = gadget_bit_alloc(cs, dvals[i], &dbits[i], err)) != CUZK_OK) goto fail;
        if ((st = enforce_decomp(cs, dbits, GADGET_FR_NUM_BITS, &digest, err)) != CUZK_OK) goto fail;
        for (unsigned i = 0; i < c->challenges_per_digest && done < c->challenges; i++, done++) {
            gadget_bit *cb = top->c_bits + (size_t)done * c->challenge_bits;
            memcpy(cb, dbits + i * c->bits_per_challenge, sizeof(gadget_bit) * c->bits_per_challenge);
            memcpy(cb + c->bits_per_challenge, kbits, sizeof(gadget_bit) * c->partition_bits);
        }
        continue;
    fail:
        update_top_vars_free(top);
        return cuzk_error_prefix(err, "gen_challenge_bits: digest_%u: ", j);
    }
    return CUZK_OK;
}

cuzk_status update_synth_top(r1cs *cs, const update_circuit *c, const update_witness *w, update_top_vars *top,
                             cuzk_error *err)
{
    return synth_top(cs, c, w, NULL, NULL, top, err);
}

cuzk_status update_synth_top_skip_apex(r1cs *cs, const update_circuit *c, const update_witness *w, const fr_t *nodes,
                                       update_top_vars *top, cuzk_error *err)
{
    if (!cs->witness_only || !nodes)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "update_synth_top_skip_apex: needs a witness-only system "
                              "and the apex nodes");
    return synth_top(cs, c, w, nodes, NULL, top, err);
}

/* Challenge ci's block up to its TreeD path's first level: *leaf_d_new, *apex_leaf and sibs[0 .. tree_d.levels)
 * receive the variables the path reads. */
static cuzk_status challenge_head(r1cs *cs, const update_circuit *c, const update_top_vars *top, unsigned ci,
                                  const update_challenge *p, gadget_num *leaf_d_new_out, gadget_num *apex_leaf_out,
                                  gadget_num *sibs_d, cuzk_error *err)
{
    const gadget_bit *cb = top->c_bits + (size_t)ci * c->challenge_bits;
    cuzk_status st;
    fr_t zero;
    fr_set_zero(&zero);
    /* get_challenge_high_bits */
    gadget_bool cbool[64];
    for (unsigned i = 0; i < c->challenge_bits; i++) cbool[i] = gadget_bool_from_bit(&cb[i]);
    gadget_num orzero[UPDATE_HS], c_high;
    fr_t sum;
    fr_set_zero(&sum);
    for (unsigned k = 0; k < UPDATE_HS; k++) {
        unsigned h = c->hs[k];
        gadget_num ch;
        if ((st = gadget_pack_bits(cs, cbool + c->challenge_bits - h, h, &ch, err)) != CUZK_OK ||
            (st = gadget_num_alloc(cs, top->h_select[k].value ? &ch.value : &zero, &orzero[k], err)) != CUZK_OK)
            return cuzk_error_prefix(err, "c_high (k=%u): ", k);
        fr_add(&sum, &sum, &orzero[k].value);
        if (cs->witness_only) {
            st = r1cs_enforce(cs, NULL, NULL, NULL, err);
        } else {
            gadget_slc a, b, cc;
            gadget_slc_init(&a);
            gadget_slc_init(&b);
            gadget_slc_init(&cc);
            gadget_slc_add(&a, ch.var, NULL);
            gadget_slc_add(&b, top->h_select[k].var, NULL);
            gadget_slc_add(&cc, orzero[k].var, NULL);
            st = r1cs_enforce(cs, &a.lc, &b.lc, &cc.lc, err);
        }
        if (st != CUZK_OK) return cuzk_error_prefix(err, "c_high_or_zero (k=%u): ", k);
    }
    if ((st = gadget_num_alloc(cs, &sum, &c_high, err)) != CUZK_OK) return st;
    if (cs->witness_only) {
        st = r1cs_enforce(cs, NULL, NULL, NULL, err);
    } else {
        gadget_slc a, b, cc;
        gadget_slc_init(&a);
        gadget_slc_init(&b);
        gadget_slc_init(&cc);
        for (unsigned k = 0; k < UPDATE_HS; k++) gadget_slc_add(&a, orzero[k].var, NULL);
        gadget_slc_add(&b, r1cs_one(), NULL);
        gadget_slc_add(&cc, c_high.var, NULL);
        st = r1cs_enforce(cs, &a.lc, &b.lc, &cc.lc, err);
    }
    if (st != CUZK_OK) return cuzk_error_prefix(err, "c_high_selected: ");
    gadget_num rho, leaf_r_old, leaf_d_new, prod, leaf_r_new;
    if ((st = poseidon2_gadget(cs, &c->p_gen, &top->phi, &c_high, &rho, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "rho: ");
    if ((st = alloc_num(cs, p ? &p->leaf_r_old : NULL, &leaf_r_old, err)) != CUZK_OK ||
        (st = alloc_num(cs, p ? &p->leaf_d_new : NULL, &leaf_d_new, err)) != CUZK_OK ||
        (st = gadget_num_mul(cs, &leaf_d_new, &rho, &prod, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "leaves: ");
    fr_t nv;
    fr_add(&nv, &leaf_r_old.value, &prod.value);
    if ((st = gadget_num_alloc(cs, &nv, &leaf_r_new, err)) != CUZK_OK) return st;
    if (cs->witness_only) {
        st = r1cs_enforce(cs, NULL, NULL, NULL, err);
    } else {
        gadget_slc a, b, cc;
        gadget_slc_init(&a);
        gadget_slc_init(&b);
        gadget_slc_init(&cc);
        gadget_slc_add(&a, leaf_r_old.var, NULL);
        gadget_slc_add(&a, prod.var, NULL);
        gadget_slc_add(&b, r1cs_one(), NULL);
        gadget_slc_add(&cc, leaf_r_new.var, NULL);
        st = r1cs_enforce(cs, &a.lc, &b.lc, &cc.lc, err);
    }
    if (st != CUZK_OK) return cuzk_error_prefix(err, "label_r_new: ");

    gadget_num sibs[64 * 7];
    for (unsigned i = 0; i < c->r_sibs; i++)
        if ((st = alloc_num(cs, p ? &p->path_r_old[i] : NULL, &sibs[i], err)) != CUZK_OK) return st;
    if ((st = por_no_challenge_input(cs, &c->tree_r, cb, &leaf_r_old, sibs, &top->root_r_old, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "por tree_r_old: ");
    for (unsigned i = 0; i < c->r_sibs; i++)
        if ((st = alloc_num(cs, p ? &p->path_r_new[i] : NULL, &sibs[i], err)) != CUZK_OK) return st;
    if ((st = por_no_challenge_input(cs, &c->tree_r, cb, &leaf_r_new, sibs, &top->root_r_new, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "por tree_r_new: ");
    unsigned to_apex = c->tree_d.levels;
    gadget_num apex_leaf;
    if ((st = gadget_select(cs, top->apex, cbool + to_apex, c->apex_bits, &apex_leaf, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "select_apex_leaf: ");
    for (unsigned i = 0; i < to_apex; i++)
        if ((st = alloc_num(cs, p ? &p->path_d[i] : NULL, &sibs_d[i], err)) != CUZK_OK) return st;
    *leaf_d_new_out = leaf_d_new;
    *apex_leaf_out = apex_leaf;
    return CUZK_OK;
}

cuzk_status update_synth_challenge(r1cs *cs, const update_circuit *c, const update_top_vars *top, unsigned ci,
                                   const update_challenge *p, cuzk_error *err)
{
    gadget_num leaf_d_new, apex_leaf, sibs[POR_MAX_LEVELS];
    cuzk_status st = challenge_head(cs, c, top, ci, p, &leaf_d_new, &apex_leaf, sibs, err);
    if (st != CUZK_OK) return st;
    const gadget_bit *cb = top->c_bits + (size_t)ci * c->challenge_bits;
    if ((st = por_no_challenge_input(cs, &c->tree_d, cb, &leaf_d_new, sibs, &apex_leaf, err)) != CUZK_OK)
        return cuzk_error_prefix(err, "por to_apex_leaf: ");
    return CUZK_OK;
}

cuzk_status update_synth_challenge_head(r1cs *cs, const update_circuit *c, const update_top_vars *top, unsigned ci,
                                        const update_challenge *p, cuzk_error *err)
{
    gadget_num leaf_d_new, apex_leaf, sibs[POR_MAX_LEVELS];
    return challenge_head(cs, c, top, ci, p, &leaf_d_new, &apex_leaf, sibs, err);
}

cuzk_status update_synth_challenge_treed_level(r1cs *cs, const update_circuit *c, const update_top_vars *top,
                                               unsigned ci, const update_challenge *p, unsigned l, const fr_t *cur,
                                               fr_t *next, cuzk_error *err)
{
    if (!cs->witness_only || l >= c->tree_d.levels)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "update_synth_challenge_treed_level: level %u of %u in a "
                              "%switness-only system",
                              l, c->tree_d.levels, cs->witness_only ? "" : "non-");
    /* The node, the sibling and the index bit are read through their values (r1cs_one() stands for their
     * variables: a witness-only system builds no combination). */
    fr_t zero;
    fr_set_zero(&zero);
    gadget_num node = {r1cs_one(), *cur}, sib = {r1cs_one(), p ? p->path_d[l] : zero}, pre[2];
    gadget_bool idx = gadget_bool_from_bit(&top->c_bits[(size_t)ci * c->challenge_bits + l]);
    cuzk_status st = gadget_insert(cs, &node, &idx, 1, &sib, pre, err);
    if (st == CUZK_OK) st = gadget_por_hash(cs, POR_SHA256, NULL, pre, 2, &node, err);
    if (st == CUZK_OK && l + 1 == c->tree_d.levels) st = gadget_enforce_equal(cs, &node, &node, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "por to_apex_leaf: level %u: ", l);
    *next = node.value;
    return CUZK_OK;
}

cuzk_status update_synthesize(r1cs *cs, const update_circuit *c, const update_witness *w, cuzk_error *err)
{
    if (w && w->challenges != c->challenges)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "update_synthesize: witness of %u challenges, circuit %u",
                              w->challenges, c->challenges);
    update_top_vars top;
    cuzk_status st = update_synth_top(cs, c, w, &top, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "update_synthesize: ");
    for (unsigned i = 0; i < c->challenges && st == CUZK_OK; i++)
        if ((st = update_synth_challenge(cs, c, &top, i, w ? &w->proofs[i] : NULL, err)) != CUZK_OK)
            cuzk_error_prefix(err, "update_synthesize: c_index=%u: ", i);
    update_top_vars_free(&top);
    return st;
}

static void info_fill(const r1cs *cs, update_info *out)
{
    out->synth_constraints = cs->num_constraints;
    out->inputs = cs->num_inputs;
    out->aux = cs->num_aux;
    out->constraints = cs->num_constraints + cs->num_inputs;
}

cuzk_status update_circuit_count_full(const update_circuit *c, update_info *out, cuzk_error *err)
{
    r1cs cs;
    memset(out, 0, sizeof *out);
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st == CUZK_OK) st = update_synthesize(&cs, c, NULL, err);
    if (st == CUZK_OK) info_fill(&cs, out);
    r1cs_free(&cs);
    return st;
}

/* The counts of one geometry: a pure function of it (update_circuit_init derives everything from it), so made
 * once per process. */
static pthread_mutex_t info_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int used;
    update_geometry g; /* by value: a caller's geometry need not be one of the table's */
    update_info info;
} info_cache[16];

static int same_geometry(const update_geometry *a, const update_geometry *b)
{
    return a->nodes == b->nodes && a->base_arity == b->base_arity && a->sub_arity == b->sub_arity &&
           a->top_arity == b->top_arity;
}

static cuzk_status count_parts(const update_circuit *c, update_info *out, cuzk_error *err)
{
    r1cs cs;
    memset(out, 0, sizeof *out);
    cuzk_status st = r1cs_create_counter(&cs, err);
    if (st != CUZK_OK) return st;
    update_top_vars top;
    if ((st = synth_top(&cs, c, NULL, NULL, &out->apex_aux, &top, err)) == CUZK_OK) {
        out->top_constraints = cs.num_constraints;
        out->top_aux = cs.num_aux;
        out->inputs = cs.num_inputs;
        st = update_synth_challenge(&cs, c, &top, 0, NULL, err);
        out->challenge_constraints = cs.num_constraints - out->top_constraints;
        out->challenge_aux = cs.num_aux - out->top_aux;
        /* The pieces of a block, each in a counter of its own (the top's variables are read through values). */
        r1cs part;
        fr_t z, nx;
        fr_set_zero(&z);
        if (st == CUZK_OK && (st = r1cs_create_counter(&part, err)) == CUZK_OK) {
            st = update_synth_challenge_head(&part, c, &top, 0, NULL, err);
            out->challenge_head_aux = part.num_aux;
            out->challenge_head_constraints = part.num_constraints;
            r1cs_free(&part);
        }
        /* A block is its head, then TreeD levels of one shape each, the last of which also checks the root (one
         * constraint more); level 0 counted alone must agree where it is not the last. */
        unsigned L = c->tree_d.levels;
        size_t la = L ? (out->challenge_aux - out->challenge_head_aux) / L : 0;
        size_t lc = L ? (out->challenge_constraints - out->challenge_head_constraints - 1) / L : 0;
        if (st == CUZK_OK && (L == 0 || out->challenge_aux != out->challenge_head_aux + L * la ||
                              out->challenge_constraints != out->challenge_head_constraints + L * lc + 1))
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "a block is not its head and %u TreeD levels", L);
        out->treed_level_aux = la;
        out->treed_level_constraints = lc;
        if (st == CUZK_OK && L > 1 && (st = r1cs_create_counter(&part, err)) == CUZK_OK) {
            st = update_synth_challenge_treed_level(&part, c, &top, 0, NULL, 0, &z, &nx, err);
            if (st == CUZK_OK && (part.num_aux != la || part.num_constraints != lc))
                st = cuzk_error_set(err, CUZK_ERR_INTERNAL,
                                    "TreeD level 0: %zu aux, %zu constraints; %zu, %zu by "
                                    "difference",
                                    part.num_aux, part.num_constraints, la, lc);
            r1cs_free(&part);
        }
        update_top_vars_free(&top);
    }
    if (st == CUZK_OK) {
        /* One apex hash alone: what synth_top's skip stands for. */
        size_t a0 = cs.num_aux, c0 = cs.num_constraints;
        gadget_num kids[2], o;
        st = alloc_num(&cs, NULL, &kids[0], err);
        if (st == CUZK_OK) st = alloc_num(&cs, NULL, &kids[1], err);
        a0 += 2;
        if (st == CUZK_OK) st = gadget_por_hash(&cs, POR_SHA256, NULL, kids, 2, &o, err);
        out->apex_hash_aux = cs.num_aux - a0;
        out->apex_hash_constraints = cs.num_constraints - c0;
        if (st == CUZK_OK && o.var.index != cs.num_aux - 1)
            st = cuzk_error_set(err, CUZK_ERR_INTERNAL, "the apex hash's output is not its last variable");
    }
    r1cs_free(&cs);
    return st;
}

cuzk_status update_circuit_info(const update_circuit *c, update_info *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    cuzk_status st = CUZK_OK;
    size_t n = sizeof info_cache / sizeof info_cache[0];
    pthread_mutex_lock(&info_lock);
    size_t i = 0;
    while (i < n && info_cache[i].used && !same_geometry(&info_cache[i].g, c->g)) i++;
    if (i < n && info_cache[i].used) {
        *out = info_cache[i].info;
    } else {
        st = count_parts(c, out, err);
        if (st == CUZK_OK && i < n) {
            info_cache[i].info = *out;
            info_cache[i].g = *c->g;
            info_cache[i].used = 1;
        }
    }
    pthread_mutex_unlock(&info_lock);
    if (st == CUZK_OK) {
        out->synth_constraints = out->top_constraints + (size_t)c->challenges * out->challenge_constraints;
        out->aux = out->top_aux + (size_t)c->challenges * out->challenge_aux;
        out->constraints = out->synth_constraints + out->inputs;
    }
    return st == CUZK_OK ? st : cuzk_error_prefix(err, "update_circuit_info: %s: ", c->g->name);
}
