/* The r1cs builder, the compiled form and its finalization. Evaluation and densities are in r1cs_eval.c. */
#include "r1cs/r1cs.h"

#include <stdlib.h>
#include <string.h>

/* While building, a column is tagged with its kind because inputs may still be allocated; r1cs_finalize
 * rewrites aux columns to num_inputs + index. */
#define COL_AUX_TAG 0x80000000u
#define MAX_VARS_PER_KIND 0x7fffffffu

/* ---- allocation with the test hook ---- */

static long fail_countdown = -1;

void r1cs_test_fail_alloc_after(long n)
{
    fail_countdown = n;
}

static int hook_fires(void)
{
    if (fail_countdown < 0) return 0;
    if (fail_countdown == 0) {
        fail_countdown = -1;
        return 1;
    }
    fail_countdown--;
    return 0;
}

void *r1cs_xmalloc(size_t n)
{
    return hook_fires() ? NULL : malloc(n ? n : 1);
}
void *r1cs_xrealloc(void *p, size_t n)
{
    return hook_fires() ? NULL : realloc(p, n ? n : 1);
}
void *r1cs_xcalloc(size_t count, size_t size)
{
    return hook_fires() ? NULL : calloc(count ? count : 1, size ? size : 1);
}

/* Grows *p (of *cap elements) to hold at least need elements, doubling. 0 or -1 (untouched). */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 4 / elem) return -1;
        nc *= 2;
    }
    void *q = r1cs_xrealloc(*p, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* ---- linear combinations ---- */

void r1cs_lc_init(r1cs_lc *lc)
{
    memset(lc, 0, sizeof *lc);
}

void r1cs_lc_free(r1cs_lc *lc)
{
    free(lc->vars);
    free(lc->coeffs);
    memset(lc, 0, sizeof *lc);
}

void r1cs_lc_clear(r1cs_lc *lc)
{
    lc->len = 0;
}

cuzk_status r1cs_lc_add(r1cs_lc *lc, r1cs_var v, const fr_t *coeff, cuzk_error *err)
{
    if (lc->len == lc->cap) {
        size_t cap_vars = lc->cap, cap_coeffs = lc->cap;
        if (grow((void **)&lc->vars, &cap_vars, lc->len + 1, sizeof *lc->vars) ||
            grow((void **)&lc->coeffs, &cap_coeffs, lc->len + 1, sizeof *lc->coeffs))
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_lc_add: cannot grow to %zu terms", lc->len + 1);
        lc->cap = cap_vars < cap_coeffs ? cap_vars : cap_coeffs;
    }
    lc->vars[lc->len] = v;
    if (coeff)
        lc->coeffs[lc->len] = *coeff;
    else
        fr_set_one(&lc->coeffs[lc->len]);
    lc->len++;
    return CUZK_OK;
}

/* ---- builder state ---- */

typedef struct term {
    uint64_t key; /* kind << 32 | index: sorts inputs before aux, like bellpepper's two maps */
    fr_t coeff;
    uint32_t cidx;
} term;

typedef struct builder {
    size_t cap_row_start[3], cap_nnz[3];
    uint32_t *slots; /* coefficient hash table: index + 1, 0 = empty; open addressing, linear probing */
    size_t slot_mask;
    term *scratch;
    size_t cap_scratch;
    int compiled; /* from r1cs_create_compiled: columns already final, sizes fixed */
    size_t nnz_expected[3];
} builder;

static r1cs_matrix *matrix(r1cs *cs, int m)
{
    return m == 0 ? &cs->A : m == 1 ? &cs->B : &cs->C;
}

static uint64_t coeff_hash(const fr_t *v)
{
    uint64_t h = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ULL) ^ (v->l[2] * 0xc2b2ae3d27d4eb4fULL) ^
                 (v->l[3] * 0x165667b19e3779f9ULL);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return h;
}

static int slots_rehash(r1cs *cs, builder *b, size_t nslots)
{
    uint32_t *s = r1cs_xcalloc(nslots, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < cs->num_coeffs; i++) {
        size_t pos = coeff_hash(&cs->coeffs[i]) & (nslots - 1);
        while (s[pos]) pos = (pos + 1) & (nslots - 1);
        s[pos] = (uint32_t)(i + 1);
    }
    free(b->slots);
    b->slots = s;
    b->slot_mask = nslots - 1;
    return 0;
}

cuzk_status r1cs_coeff_intern(r1cs *cs, const fr_t *value, uint32_t *index, cuzk_error *err)
{
    builder *b = cs->builder;
    if (!b) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_coeff_intern: system is finalized");
    if (fr_is_one(value)) {
        *index = 0;
        return CUZK_OK;
    }
    if (fr_is_zero(value)) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_coeff_intern: zero coefficient");
    size_t pos = coeff_hash(value) & b->slot_mask;
    while (b->slots[pos]) {
        uint32_t i = b->slots[pos] - 1;
        if (fr_eq(&cs->coeffs[i], value)) {
            *index = i;
            return CUZK_OK;
        }
        pos = (pos + 1) & b->slot_mask;
    }
    if (cs->num_coeffs >= UINT32_MAX - 1)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "r1cs_coeff_intern: more than 2^32 - 2 coefficients");
    if (grow((void **)&cs->coeffs, &cs->cap_coeffs, cs->num_coeffs + 1, sizeof *cs->coeffs))
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_coeff_intern: cannot grow the table to %zu coefficients",
                              cs->num_coeffs + 1);
    if (2 * (cs->num_coeffs + 1) > b->slot_mask + 1) {
        if (slots_rehash(cs, b, 2 * (b->slot_mask + 1)))
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_coeff_intern: cannot grow the hash table");
        pos = coeff_hash(value) & b->slot_mask;
        while (b->slots[pos]) pos = (pos + 1) & b->slot_mask;
    }
    cs->coeffs[cs->num_coeffs] = *value;
    b->slots[pos] = (uint32_t)(cs->num_coeffs + 1);
    *index = (uint32_t)cs->num_coeffs++;
    return CUZK_OK;
}

static void builder_free(builder *b)
{
    if (!b) return;
    free(b->slots);
    free(b->scratch);
    free(b);
}

void r1cs_free(r1cs *cs)
{
    for (int m = 0; m < 3; m++) {
        r1cs_matrix *mx = matrix(cs, m);
        free(mx->row_start);
        free(mx->col);
        free(mx->coeff);
    }
    free(cs->coeffs);
    free(cs->inputs);
    if (!cs->aux_borrowed) free(cs->aux);
    builder_free(cs->builder);
    memset(cs, 0, sizeof *cs);
}

/* The parts every mode shares: builder, coefficient table holding 1. */
static cuzk_status create_common(r1cs *cs, const char *who, cuzk_error *err)
{
    memset(cs, 0, sizeof *cs);
    builder *b = r1cs_xcalloc(1, sizeof *b);
    if (!b) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the builder", who);
    cs->builder = b;
    b->slots = r1cs_xcalloc(64, sizeof *b->slots);
    cs->coeffs = r1cs_xmalloc(16 * sizeof *cs->coeffs);
    if (!b->slots || !cs->coeffs) {
        r1cs_free(cs);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the coefficient table", who);
    }
    b->slot_mask = 63;
    cs->cap_coeffs = 16;
    fr_set_one(&cs->coeffs[0]);
    cs->num_coeffs = 1;
    b->slots[coeff_hash(&cs->coeffs[0]) & b->slot_mask] = 1;
    return CUZK_OK;
}

static cuzk_status create_builder(r1cs *cs, int with_witness, int witness_only, int checker, cuzk_error *err)
{
    const char *who = checker         ? "r1cs_create_checker"
                      : !witness_only ? "r1cs_create"
                      : with_witness  ? "r1cs_create_witness_only"
                                      : "r1cs_create_counter";
    cuzk_status st = create_common(cs, who, err);
    if (st != CUZK_OK) return st;
    builder *b = cs->builder;
    cs->has_witness = with_witness;
    cs->witness_only = witness_only;
    cs->checker = checker;
    cs->check_first_bad = SIZE_MAX;
    if (!witness_only && !checker) {
        for (int m = 0; m < 3; m++) {
            r1cs_matrix *mx = matrix(cs, m);
            if (grow((void **)&mx->row_start, &b->cap_row_start[m], 1024, sizeof *mx->row_start)) {
                r1cs_free(cs);
                return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the matrices", who);
            }
            mx->row_start[0] = 0;
        }
    }
    r1cs_var one;
    fr_t v;
    fr_set_one(&v);
    st = r1cs_alloc_input(cs, &v, &one, err);
    if (st != CUZK_OK) {
        r1cs_free(cs);
        return cuzk_error_prefix(err, "%s: ", who);
    }
    return CUZK_OK;
}

cuzk_status r1cs_create(r1cs *cs, int with_witness, cuzk_error *err)
{
    return create_builder(cs, with_witness ? 1 : 0, 0, 0, err);
}

cuzk_status r1cs_create_witness_only(r1cs *cs, cuzk_error *err)
{
    return create_builder(cs, 1, 1, 0, err);
}

cuzk_status r1cs_create_counter(r1cs *cs, cuzk_error *err)
{
    return create_builder(cs, 0, 1, 0, err);
}

cuzk_status r1cs_create_witness_only_at(r1cs *cs, fr_t *aux, size_t cap_aux, cuzk_error *err)
{
    cuzk_status st = create_builder(cs, 1, 1, 0, err);
    if (st != CUZK_OK) return st;
    cs->aux = aux;
    cs->cap_aux = cap_aux;
    cs->aux_borrowed = 1;
    return CUZK_OK;
}

cuzk_status r1cs_witness_skip(r1cs *cs, size_t n_aux, size_t n_constraints, cuzk_error *err)
{
    if (!cs->witness_only || !cs->builder)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_witness_skip: not a witness-only system being built");
    if (cs->aux_borrowed && n_aux > cs->cap_aux - cs->num_aux)
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "r1cs_witness_skip: %zu aux past the %zu borrowed", n_aux,
                              cs->cap_aux);
    if (n_aux > MAX_VARS_PER_KIND - cs->num_aux)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "r1cs_witness_skip: more than 2^31 - 1 variables");
    cs->num_aux += n_aux;
    cs->num_constraints += n_constraints;
    return CUZK_OK;
}

cuzk_status r1cs_create_checker(r1cs *cs, cuzk_error *err)
{
    return create_builder(cs, 1, 0, 1, err);
}

int r1cs_checker_result(const r1cs *cs, size_t *first_bad, size_t *failures)
{
    if (first_bad) *first_bad = cs->checker ? cs->check_first_bad : SIZE_MAX;
    if (failures) *failures = cs->checker ? cs->check_failures : 0;
    return cs->checker && cs->check_failures == 0;
}

__attribute__((noinline)) static cuzk_status alloc_var(r1cs *cs, r1cs_var_kind kind, const fr_t *value, r1cs_var *out,
                                                       cuzk_error *err)
{
    const char *who = kind == R1CS_INPUT ? "r1cs_alloc_input" : "r1cs_alloc_aux";
    builder *b = cs->builder;
    if (!b || b->compiled)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: system is %s", who,
                              b ? "compiled (write the arrays)" : "finalized");
    size_t *count = kind == R1CS_INPUT ? &cs->num_inputs : &cs->num_aux;
    if (*count >= MAX_VARS_PER_KIND)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: more than 2^31 - 1 variables", who);
    if (cs->has_witness) {
        if (!value) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: value required (witness is kept)", who);
        fr_t **arr = kind == R1CS_INPUT ? &cs->inputs : &cs->aux;
        size_t *cap = kind == R1CS_INPUT ? &cs->cap_inputs : &cs->cap_aux;
        if (kind == R1CS_AUX && cs->aux_borrowed && *count >= *cap)
            return cuzk_error_set(err, CUZK_ERR_INTERNAL, "%s: past the %zu borrowed aux values", who, *cap);
        if (grow((void **)arr, cap, *count + 1, sizeof **arr))
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot grow the witness to %zu values", who, *count + 1);
        (*arr)[*count] = *value;
    }
    out->kind = kind;
    out->index = (uint32_t)*count;
    (*count)++;
    return CUZK_OK;
}

cuzk_status r1cs_alloc_input(r1cs *cs, const fr_t *value, r1cs_var *out, cuzk_error *err)
{
    return alloc_var(cs, R1CS_INPUT, value, out, err);
}

cuzk_status r1cs_alloc_aux(r1cs *cs, const fr_t *value, r1cs_var *out, cuzk_error *err)
{
    /* Witness synthesis allocates one aux per constraint or so: the case with room and a value goes straight
     * through (the same checks as alloc_var, which handles every other case). */
    const builder *b = cs->builder;
    if (cs->has_witness && value && cs->num_aux < cs->cap_aux && cs->num_aux < MAX_VARS_PER_KIND && b && !b->compiled) {
        cs->aux[cs->num_aux] = *value;
        out->kind = R1CS_AUX;
        out->index = (uint32_t)cs->num_aux++;
        return CUZK_OK;
    }
    return alloc_var(cs, R1CS_AUX, value, out, err);
}

static void sort_terms(term *t, size_t n)
{
    /* LCs are short and usually nearly sorted: insertion sort; a shell-sort gap sequence keeps the rare long
     * unsorted LC from going quadratic. */
    static const size_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        size_t gap = gaps[g];
        if (gap >= n) continue;
        for (size_t i = gap; i < n; i++) {
            term x = t[i];
            size_t j = i;
            while (j >= gap && t[j - gap].key > x.key) {
                t[j] = t[j - gap];
                j -= gap;
            }
            t[j] = x;
        }
    }
}

/* Copies lc into out (capacity lc->len), sorted by variable, repeated variables merged, zero terms dropped,
 * coefficients interned. Returns the number of terms, or (size_t)-1 with err filled. */
static size_t prepare_lc(r1cs *cs, const r1cs_lc *lc, term *out, char which, cuzk_error *err)
{
    int sorted = 1;
    for (size_t k = 0; k < lc->len; k++) {
        r1cs_var v = lc->vars[k];
        size_t limit = v.kind == R1CS_INPUT ? cs->num_inputs : cs->num_aux;
        if ((v.kind != R1CS_INPUT && v.kind != R1CS_AUX) || v.index >= limit) {
            cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_enforce: %c term %zu: %s %u not allocated (%zu allocated)",
                           which, k,
                           v.kind == R1CS_INPUT ? "input"
                           : v.kind == R1CS_AUX ? "aux"
                                                : "bad-kind",
                           v.index, limit);
            return (size_t)-1;
        }
        out[k].key = (uint64_t)v.kind << 32 | v.index;
        out[k].coeff = lc->coeffs[k];
        if (k > 0 && out[k].key <= out[k - 1].key) sorted = 0;
    }
    if (!sorted) sort_terms(out, lc->len);
    size_t n = 0;
    for (size_t k = 0; k < lc->len; k++) {
        if (n > 0 && out[n - 1].key == out[k].key)
            fr_add(&out[n - 1].coeff, &out[n - 1].coeff, &out[k].coeff);
        else
            out[n++] = out[k];
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (fr_is_zero(&out[k].coeff)) continue;
        out[m] = out[k];
        if (r1cs_coeff_intern(cs, &out[m].coeff, &out[m].cidx, err) != CUZK_OK) return (size_t)-1;
        m++;
    }
    return m;
}

static cuzk_status enforce(r1cs *cs, const r1cs_lc *a, const r1cs_lc *b, const r1cs_lc *c, cuzk_error *err);

cuzk_status r1cs_enforce(r1cs *cs, const r1cs_lc *a, const r1cs_lc *b, const r1cs_lc *c, cuzk_error *err)
{
    /* Witness-only gadgets call this once per constraint with no combination at all: counting it is the whole
     * work, kept apart from the rest so that the call costs a few instructions. */
    const builder *bd = cs->builder;
    if (cs->witness_only && !a && !b && !c && bd && !bd->compiled) {
        cs->num_constraints++;
        return CUZK_OK;
    }
    return enforce(cs, a, b, c, err);
}

__attribute__((noinline)) static cuzk_status enforce(r1cs *cs, const r1cs_lc *a, const r1cs_lc *b, const r1cs_lc *c,
                                                     cuzk_error *err)
{
    builder *bd = cs->builder;
    if (!bd || bd->compiled)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_enforce: system is %s",
                              bd ? "compiled (write the arrays)" : "finalized");
    static const r1cs_lc empty = {0, 0, NULL, NULL};
    const r1cs_lc *lcs[3] = {a ? a : &empty, b ? b : &empty, c ? c : &empty};
    if (cs->witness_only || cs->checker) {
        /* Same argument checks as a full build, without the work of preparing rows nobody keeps. */
        for (int m = 0; m < 3; m++) {
            for (size_t k = 0; k < lcs[m]->len; k++) {
                r1cs_var v = lcs[m]->vars[k];
                size_t limit = v.kind == R1CS_INPUT ? cs->num_inputs : cs->num_aux;
                if ((v.kind != R1CS_INPUT && v.kind != R1CS_AUX) || v.index >= limit)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                          "constraint %zu: r1cs_enforce: %c term %zu: variable %u not allocated",
                                          cs->num_constraints, "ABC"[m], k, v.index);
            }
        }
        if (cs->checker) {
            fr_t va, vb, vc, ab;
            r1cs_lc_eval(cs, lcs[0], &va);
            r1cs_lc_eval(cs, lcs[1], &vb);
            r1cs_lc_eval(cs, lcs[2], &vc);
            fr_mul(&ab, &va, &vb);
            if (!fr_eq(&ab, &vc)) {
                if (cs->check_failures++ == 0) cs->check_first_bad = cs->num_constraints;
            }
        }
        cs->num_constraints++;
        return CUZK_OK;
    }
    size_t total = lcs[0]->len + lcs[1]->len + lcs[2]->len;
    if (grow((void **)&bd->scratch, &bd->cap_scratch, total, sizeof *bd->scratch))
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_enforce: cannot allocate %zu scratch terms", total);
    /* Prepare all three rows before committing any, so that a failure leaves the system unchanged. */
    size_t off[3], len[3];
    size_t o = 0;
    for (int m = 0; m < 3; m++) {
        off[m] = o;
        len[m] = prepare_lc(cs, lcs[m], bd->scratch + o, "ABC"[m], err);
        if (len[m] == (size_t)-1) return cuzk_error_prefix(err, "constraint %zu: ", cs->num_constraints);
        o += lcs[m]->len;
    }
    for (int m = 0; m < 3; m++) {
        r1cs_matrix *mx = matrix(cs, m);
        size_t nnz = mx->row_start[mx->rows];
        size_t cap_col = bd->cap_nnz[m], cap_coeff = bd->cap_nnz[m];
        if (grow((void **)&mx->row_start, &bd->cap_row_start[m], mx->rows + 2, sizeof *mx->row_start) ||
            grow((void **)&mx->col, &cap_col, nnz + len[m], sizeof *mx->col) ||
            grow((void **)&mx->coeff, &cap_coeff, nnz + len[m], sizeof *mx->coeff))
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_enforce: cannot grow matrix %c to %zu entries", "ABC"[m],
                                  nnz + len[m]);
        bd->cap_nnz[m] = cap_col < cap_coeff ? cap_col : cap_coeff;
    }
    for (int m = 0; m < 3; m++) {
        r1cs_matrix *mx = matrix(cs, m);
        size_t nnz = mx->row_start[mx->rows];
        const term *t = bd->scratch + off[m];
        for (size_t k = 0; k < len[m]; k++) {
            uint32_t idx = (uint32_t)t[k].key;
            mx->col[nnz + k] = (t[k].key >> 32) ? (idx | COL_AUX_TAG) : idx;
            mx->coeff[nnz + k] = t[k].cidx;
        }
        mx->rows++;
        mx->row_start[mx->rows] = nnz + len[m];
    }
    cs->num_constraints++;
    return CUZK_OK;
}

cuzk_status r1cs_create_compiled(r1cs *cs, size_t num_inputs, size_t num_aux, size_t num_synth_constraints,
                                 const size_t nnz[3], unsigned what, cuzk_error *err)
{
    const char *who = "r1cs_create_compiled";
    memset(cs, 0, sizeof *cs);
    if (num_inputs < 1 || num_inputs > MAX_VARS_PER_KIND || num_aux > MAX_VARS_PER_KIND)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %zu inputs, %zu aux out of range", who, num_inputs,
                              num_aux);
    if (num_synth_constraints > SIZE_MAX / 64)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: %zu constraints", who, num_synth_constraints);
    cuzk_status st = create_common(cs, who, err);
    if (st != CUZK_OK) return st;
    builder *b = cs->builder;
    b->compiled = 1;
    cs->num_inputs = num_inputs;
    cs->num_aux = num_aux;
    cs->num_constraints = num_synth_constraints;
    cs->has_witness = (what & R1CS_WITNESS) != 0;
    cs->witness_only = (what & R1CS_MATRICES) == 0;
    if (cs->has_witness) {
        cs->inputs = r1cs_xmalloc(num_inputs * sizeof *cs->inputs);
        cs->aux = r1cs_xmalloc(num_aux * sizeof *cs->aux);
        if (!cs->inputs || !cs->aux) {
            r1cs_free(cs);
            return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate the witness (%zu + %zu values)", who,
                                  num_inputs, num_aux);
        }
        cs->cap_inputs = num_inputs;
        cs->cap_aux = num_aux;
        fr_set_one(&cs->inputs[0]);
    }
    if (!cs->witness_only) {
        for (int m = 0; m < 3; m++) {
            r1cs_matrix *mx = matrix(cs, m);
            /* Room for the input constraints, which r1cs_finalize appends (inputs in A only). */
            size_t rows = num_synth_constraints + num_inputs;
            size_t cap = nnz[m] + (m == 0 ? num_inputs : 0);
            if (nnz[m] > UINT64_MAX / 2) {
                r1cs_free(cs);
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: nnz %zu too large", who, nnz[m]);
            }
            mx->row_start = r1cs_xmalloc((rows + 1) * sizeof *mx->row_start);
            mx->col = r1cs_xmalloc(cap * sizeof *mx->col);
            mx->coeff = r1cs_xmalloc(cap * sizeof *mx->coeff);
            if (!mx->row_start || !mx->col || !mx->coeff) {
                r1cs_free(cs);
                return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate matrix %c (%zu rows, %zu entries)", who,
                                      "ABC"[m], rows, cap);
            }
            b->cap_row_start[m] = rows + 1;
            b->cap_nnz[m] = cap;
            b->nnz_expected[m] = nnz[m];
            mx->rows = num_synth_constraints;
            mx->row_start[0] = 0;
        }
    }
    return CUZK_OK;
}

/* Checks what a writer of a compiled system put in the arrays. */
static cuzk_status validate_compiled(const r1cs *cs, const builder *b, cuzk_error *err)
{
    size_t nvars = cs->num_inputs + cs->num_aux;
    for (int m = 0; m < 3; m++) {
        const r1cs_matrix *mx = m == 0 ? &cs->A : m == 1 ? &cs->B : &cs->C;
        if (mx->row_start[0] != 0)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_finalize: matrix %c: row_start[0] = %llu", "ABC"[m],
                                  (unsigned long long)mx -> row_start[0]);
        for (size_t i = 0; i < mx->rows; i++) {
            uint64_t s = mx->row_start[i], e = mx->row_start[i + 1];
            if (e < s || e > b->nnz_expected[m])
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                      "r1cs_finalize: matrix %c row %zu: row_start %llu..%llu outside 0..%zu", "ABC"[m],
                                      i, (unsigned long long)s, (unsigned long long)e, b -> nnz_expected[m]);
            for (uint64_t k = s; k < e; k++) {
                if (mx->col[k] >= nvars || mx->coeff[k] >= cs->num_coeffs)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                          "r1cs_finalize: matrix %c row %zu entry %llu: column %u (of %zu), "
                                          "coefficient %u (of %zu)",
                                          "ABC"[m], i, (unsigned long long)k, mx -> col[k], nvars, mx -> coeff[k],
                                          cs -> num_coeffs);
            }
        }
        if (mx->row_start[mx->rows] != b->nnz_expected[m])
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_finalize: matrix %c: %llu entries, expected %zu",
                                  "ABC"[m], (unsigned long long)mx -> row_start[mx->rows], b -> nnz_expected[m]);
    }
    return CUZK_OK;
}

static void shrink(void **p, size_t n)
{
    void *q = realloc(*p, n ? n : 1);
    if (q) *p = q;
}

cuzk_status r1cs_finalize(r1cs *cs, cuzk_error *err)
{
    builder *b = cs->builder;
    if (!b) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_finalize: already finalized");
    size_t ni = cs->num_inputs;
    if (!cs->witness_only && !cs->checker) {
        if (b->compiled) {
            cuzk_status st = validate_compiled(cs, b, err);
            if (st != CUZK_OK) return st;
        }
        /* Grow first: a failure must leave the system as it was. */
        for (int m = 0; m < 3; m++) {
            r1cs_matrix *mx = matrix(cs, m);
            size_t nnz = mx->row_start[mx->rows];
            size_t add = m == 0 ? ni : 0;
            size_t cap_col = b->cap_nnz[m], cap_coeff = b->cap_nnz[m];
            if (grow((void **)&mx->row_start, &b->cap_row_start[m], mx->rows + ni + 1, sizeof *mx->row_start) ||
                grow((void **)&mx->col, &cap_col, nnz + add, sizeof *mx->col) ||
                grow((void **)&mx->coeff, &cap_coeff, nnz + add, sizeof *mx->coeff))
                return cuzk_error_set(err, CUZK_ERR_NOMEM, "r1cs_finalize: cannot grow matrix %c", "ABC"[m]);
            b->cap_nnz[m] = cap_col < cap_coeff ? cap_col : cap_coeff;
        }
        for (int m = 0; m < 3; m++) {
            r1cs_matrix *mx = matrix(cs, m);
            size_t nnz = mx->row_start[mx->rows];
            if (!b->compiled) {
                for (size_t k = 0; k < nnz; k++) {
                    uint32_t c = mx->col[k];
                    if (c & COL_AUX_TAG) mx->col[k] = (uint32_t)ni + (c & ~COL_AUX_TAG);
                }
            }
            for (size_t i = 0; i < ni; i++) {
                if (m == 0) {
                    mx->col[nnz] = (uint32_t)i;
                    mx->coeff[nnz] = 0;
                    nnz++;
                }
                mx->rows++;
                mx->row_start[mx->rows] = nnz;
            }
            shrink((void **)&mx->row_start, (mx->rows + 1) * sizeof *mx->row_start);
            shrink((void **)&mx->col, nnz * sizeof *mx->col);
            shrink((void **)&mx->coeff, nnz * sizeof *mx->coeff);
        }
    }
    cs->num_constraints += ni;
    builder_free(b);
    cs->builder = NULL;
    cs->finalized = 1;
    return CUZK_OK;
}

cuzk_status r1cs_check_witness(const r1cs *shape, const r1cs *wit, cuzk_error *err)
{
    if (!shape->finalized || shape->witness_only || shape->checker)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_check_witness: the shape is %s",
                              shape->finalized ? "without matrices" : "not finalized");
    if (!wit->finalized || !wit->has_witness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "r1cs_check_witness: the witness is %s",
                              wit->finalized ? "without values" : "not finalized");
    if (shape->num_inputs != wit->num_inputs || shape->num_aux != wit->num_aux ||
        shape->num_constraints != wit->num_constraints)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "r1cs_check_witness: shape has %zu inputs, %zu aux, %zu constraints; witness has %zu, "
                              "%zu, %zu",
                              shape->num_inputs, shape->num_aux, shape->num_constraints, wit->num_inputs, wit->num_aux,
                              wit->num_constraints);
    return CUZK_OK;
}
