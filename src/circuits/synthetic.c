#include "circuits/synthetic.h"

#include <string.h>

#define SHA_ROUNDS 16
#define POS_ROUNDS 7
#define POS_WIDTH 3
#define NUM_PUBLIC 8
#define MAX_ADD_BITS 35

/* Coefficient indices and the field constants behind them, shared read-only by all units. */
typedef struct consts {
    uint32_t one, neg1, pow2[MAX_ADD_BITS];
    uint32_t mds[POS_WIDTH][POS_WIDTH], rc[POS_ROUNDS][POS_WIDTH];
    fr_t f_zero, f_one, f_mds[POS_WIDTH][POS_WIDTH], f_rc[POS_ROUNDS][POS_WIDTH];
} consts;

/* One writer over a contiguous range of rows, non-zeros and aux. With cs NULL it only counts. */
typedef struct emit {
    r1cs *cs;
    int mat, wit;
    const consts *k;
    uint32_t ni;
    size_t row, nnz[3], aux;
    size_t bool_aux, unit_nnz;
    size_t rows_left;
    int stop;
    rng_t rng;
} emit;

typedef struct word {
    uint32_t col[32];
    uint32_t val;
} word;

static int room(emit *e, size_t rows)
{
    if (e->stop || e->rows_left < rows) {
        e->stop = 1;
        return 0;
    }
    e->rows_left -= rows;
    return 1;
}

static inline void put(emit *e, int m, uint32_t col, uint32_t cidx)
{
    if (e->mat) {
        r1cs_matrix *mx = m == 0 ? &e->cs->A : m == 1 ? &e->cs->B : &e->cs->C;
        mx->col[e->nnz[m]] = col;
        mx->coeff[e->nnz[m]] = cidx;
    }
    e->nnz[m]++;
    e->unit_nnz += cidx == 0;
}

static inline void end_row(emit *e)
{
    e->row++;
    if (e->mat) {
        e->cs->A.row_start[e->row] = e->nnz[0];
        e->cs->B.row_start[e->row] = e->nnz[1];
        e->cs->C.row_start[e->row] = e->nnz[2];
    }
}

static inline uint32_t new_aux(emit *e, const fr_t *v)
{
    if (e->wit) e->cs->aux[e->aux] = *v;
    return e->ni + (uint32_t)e->aux++;
}

/* A fresh bit with its boolean constraint (1 - b) * b = 0; the caller has taken the row. */
static uint32_t bool_row(emit *e, unsigned bit)
{
    uint32_t b = new_aux(e, bit ? &e->k->f_one : &e->k->f_zero);
    e->bool_aux++;
    put(e, 0, 0, e->k->one);
    put(e, 0, b, e->k->neg1);
    put(e, 1, b, e->k->one);
    end_row(e);
    return b;
}

/* (a + a) * b = a + b - c. */
static uint32_t xor_bit(emit *e, uint32_t a, unsigned va, uint32_t b, unsigned vb, unsigned *vc)
{
    *vc = va ^ vb;
    uint32_t c = new_aux(e, *vc ? &e->k->f_one : &e->k->f_zero);
    e->bool_aux++;
    put(e, 0, a, e->k->pow2[1]);
    put(e, 1, b, e->k->one);
    put(e, 2, a, e->k->one);
    put(e, 2, b, e->k->one);
    put(e, 2, c, e->k->neg1);
    end_row(e);
    return c;
}

static void alloc_word(emit *e, word *w)
{
    memset(w, 0, sizeof *w);
    if (!room(e, 32)) return;
    w->val = (uint32_t)rng_next(&e->rng);
    for (int i = 0; i < 32; i++) w->col[i] = bool_row(e, (w->val >> i) & 1);
}

/* out = rotr(x, r0) ^ rotr(x, r1) ^ rotr(x, r2), two XOR rows per bit. */
static void sigma(emit *e, const word *x, int r0, int r1, int r2, word *out)
{
    if (!room(e, 64)) return;
    out->val = 0;
    for (int i = 0; i < 32; i++) {
        int i0 = (i + r0) & 31, i1 = (i + r1) & 31, i2 = (i + r2) & 31;
        unsigned t, s;
        uint32_t tc = xor_bit(e, x->col[i0], (x->val >> i0) & 1, x->col[i1], (x->val >> i1) & 1, &t);
        out->col[i] = xor_bit(e, tc, t, x->col[i2], (x->val >> i2) & 1, &s);
        out->val |= (uint32_t)s << i;
    }
}

/* ch = a ? b : c as a * (b - c) = ch - c. */
static void ch_word(emit *e, const word *a, const word *b, const word *c, word *out)
{
    if (!room(e, 32)) return;
    out->val = (a->val & b->val) ^ (~a->val & c->val);
    for (int i = 0; i < 32; i++) {
        unsigned v = (out->val >> i) & 1;
        out->col[i] = new_aux(e, v ? &e->k->f_one : &e->k->f_zero);
        e->bool_aux++;
        put(e, 0, a->col[i], e->k->one);
        put(e, 1, b->col[i], e->k->one);
        put(e, 1, c->col[i], e->k->neg1);
        put(e, 2, out->col[i], e->k->one);
        put(e, 2, c->col[i], e->k->neg1);
        end_row(e);
    }
}

/* maj(a, b, c): bc = b AND c, then (2bc - b - c) * a = bc - maj. */
static void maj_word(emit *e, const word *a, const word *b, const word *c, word *out)
{
    if (!room(e, 64)) return;
    out->val = (a->val & b->val) ^ (a->val & c->val) ^ (b->val & c->val);
    uint32_t bcv = b->val & c->val;
    for (int i = 0; i < 32; i++) {
        uint32_t bc = new_aux(e, (bcv >> i) & 1 ? &e->k->f_one : &e->k->f_zero);
        e->bool_aux++;
        put(e, 0, b->col[i], e->k->one);
        put(e, 1, c->col[i], e->k->one);
        put(e, 2, bc, e->k->one);
        end_row(e);
        out->col[i] = new_aux(e, (out->val >> i) & 1 ? &e->k->f_one : &e->k->f_zero);
        e->bool_aux++;
        put(e, 0, bc, e->k->pow2[1]);
        put(e, 0, b->col[i], e->k->neg1);
        put(e, 0, c->col[i], e->k->neg1);
        put(e, 1, a->col[i], e->k->one);
        put(e, 2, bc, e->k->one);
        put(e, 2, out->col[i], e->k->neg1);
        end_row(e);
    }
}

/* out = sum of the operands mod 2^32, as uint32 addmany: result bits (boolean rows), then one multieq row. */
static void add_words(emit *e, const word *const *ops, int nops, word *out)
{
    int nbits = nops <= 4 ? 34 : 35;
    if (!room(e, (size_t)nbits + 1)) return;
    uint64_t sum = 0;
    for (int j = 0; j < nops; j++) sum += ops[j]->val;
    uint32_t r[MAX_ADD_BITS];
    for (int i = 0; i < nbits; i++) r[i] = bool_row(e, (unsigned)(sum >> i) & 1);
    for (int j = 0; j < nops; j++)
        for (int i = 0; i < 32; i++) put(e, 0, ops[j]->col[i], e->k->pow2[i]);
    put(e, 1, 0, e->k->one);
    for (int i = 0; i < nbits; i++) put(e, 2, r[i], e->k->pow2[i]);
    end_row(e);
    memcpy(out->col, r, sizeof out->col);
    out->val = (uint32_t)sum;
}

/* A word packed into one variable: (sum 2^i b_i) * ONE = num. */
static uint32_t pack_word(emit *e, const word *w, fr_t *val)
{
    fr_from_u64(val, w->val);
    uint32_t n = new_aux(e, val);
    for (int i = 0; i < 32; i++) put(e, 0, w->col[i], e->k->pow2[i]);
    put(e, 1, 0, e->k->one);
    put(e, 2, n, e->k->one);
    end_row(e);
    return n;
}

static void poseidon(emit *e, const word *w0, const word *w1, const word *w2)
{
    if (!room(e, POS_WIDTH)) return;
    uint32_t s[POS_WIDTH];
    fr_t sv[POS_WIDTH];
    s[0] = pack_word(e, w0, &sv[0]);
    s[1] = pack_word(e, w1, &sv[1]);
    s[2] = pack_word(e, w2, &sv[2]);
    for (int r = 0; r < POS_ROUNDS; r++) {
        uint32_t ns[POS_WIDTH];
        fr_t nsv[POS_WIDTH];
        for (int i = 0; i < POS_WIDTH; i++) {
            if (!room(e, 3)) return;
            fr_t x = e->k->f_rc[r][i], t, x2, x4, x5;
            fr_set_zero(&x2);
            fr_set_zero(&x4);
            fr_set_zero(&x5);
            if (e->wit) {
                for (int j = 0; j < POS_WIDTH; j++) {
                    fr_mul(&t, &e->k->f_mds[i][j], &sv[j]);
                    fr_add(&x, &x, &t);
                }
                fr_sqr(&x2, &x);
                fr_sqr(&x4, &x2);
                fr_mul(&x5, &x4, &x);
            }
            uint32_t c2 = new_aux(e, &x2);
            for (int m = 0; m < 2; m++) {
                for (int j = 0; j < POS_WIDTH; j++) put(e, m, s[j], e->k->mds[i][j]);
                put(e, m, 0, e->k->rc[r][i]);
            }
            put(e, 2, c2, e->k->one);
            end_row(e);
            uint32_t c4 = new_aux(e, &x4);
            put(e, 0, c2, e->k->one);
            put(e, 1, c2, e->k->one);
            put(e, 2, c4, e->k->one);
            end_row(e);
            ns[i] = new_aux(e, &x5);
            nsv[i] = x5;
            put(e, 0, c4, e->k->one);
            for (int j = 0; j < POS_WIDTH; j++) put(e, 1, s[j], e->k->mds[i][j]);
            put(e, 1, 0, e->k->rc[r][i]);
            put(e, 2, ns[i], e->k->one);
            end_row(e);
        }
        memcpy(s, ns, sizeof s);
        memcpy(sv, nsv, sizeof sv);
    }
}

static void unit(emit *e)
{
    word w[7]; /* a, b, c, e, f, g, w */
    for (int i = 0; i < 7; i++) alloc_word(e, &w[i]);
    poseidon(e, &w[0], &w[1], &w[2]);
    poseidon(e, &w[3], &w[4], &w[5]);
    word *A = &w[0], *B = &w[1], *C = &w[2], *E = &w[3], *F = &w[4], *G = &w[5], *W = &w[6];
    word s1, ch, s0, mj, ne, na;
    for (int r = 0; r < SHA_ROUNDS && !e->stop; r++) {
        sigma(e, E, 6, 11, 25, &s1);
        ch_word(e, E, F, G, &ch);
        sigma(e, A, 2, 13, 22, &s0);
        maj_word(e, A, B, C, &mj);
        const word *ops_e[4] = {&s1, &ch, W, G};
        add_words(e, ops_e, 4, &ne);
        const word *ops_a[6] = {&s0, &mj, &s1, &ch, W, G};
        add_words(e, ops_a, 6, &na);
        if (e->stop) break;
        *C = *B;
        *B = *A;
        *A = na;
        *G = *F;
        *F = *E;
        *E = ne;
        *W = s0;
    }
}

/* Every size follows from k. Rows, non-zeros and aux of the synthesized part (input constraints excluded). */
typedef struct plan {
    size_t num_constraints, num_inputs, synth_rows;
    size_t header_rows, header_nnz[3], header_aux;
    size_t unit_rows, unit_nnz[3], unit_aux;
    size_t num_units;
    size_t tail_budget; /* rows after the full units: a cut unit, then filler */
    size_t num_aux, nnz[3], num_bool, num_unit_nnz;
} plan;

static void header(emit *e, size_t npub)
{
    for (size_t j = 0; j < npub; j++) {
        word w;
        alloc_word(e, &w);
        if (e->wit) fr_from_u64(&e->cs->inputs[1 + j], w.val);
        put(e, 0, (uint32_t)(1 + j), e->k->one);
        put(e, 1, 0, e->k->one);
        for (int i = 0; i < 32; i++) put(e, 2, w.col[i], e->k->pow2[i]);
        end_row(e);
    }
}

/* Indices that tell unit coefficients (index 0) from the others when only counting. */
static consts count_consts(void)
{
    consts k;
    memset(&k, 0, sizeof k);
    k.neg1 = 1;
    for (int i = 1; i < MAX_ADD_BITS; i++) k.pow2[i] = 1;
    for (int i = 0; i < POS_WIDTH; i++) {
        for (int j = 0; j < POS_WIDTH; j++) k.mds[i][j] = 1;
        for (int r = 0; r < POS_ROUNDS; r++) k.rc[r][i] = 1;
    }
    return k;
}

static cuzk_status make_plan(unsigned k, plan *p, cuzk_error *err)
{
    if (k < SYNTHETIC_MIN_K || k > SYNTHETIC_MAX_K)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "synthetic: k = %u outside %d..%d", k, SYNTHETIC_MIN_K,
                              SYNTHETIC_MAX_K);
    memset(p, 0, sizeof *p);
    size_t n = (size_t)1 << k;
    if (k >= 5) n -= n >> 5;
    p->num_constraints = n;
    size_t npub = k >= 12 ? NUM_PUBLIC : k >= 6 ? 1 : 0;
    p->num_inputs = 1 + npub;
    p->synth_rows = n - p->num_inputs;
    /* Structure never depends on values, so a counting pass gives every size. */
    consts kc = count_consts();
    emit e = {.k = &kc, .rows_left = SIZE_MAX};
    header(&e, npub);
    p->header_rows = e.row;
    memcpy(p->header_nnz, e.nnz, sizeof e.nnz);
    p->header_aux = e.aux;
    size_t header_bool = e.bool_aux, header_unit = e.unit_nnz;

    emit u = {.k = &kc, .rows_left = SIZE_MAX};
    unit(&u);
    p->unit_rows = u.row;
    memcpy(p->unit_nnz, u.nnz, sizeof u.nnz);
    p->unit_aux = u.aux;
    size_t left = p->synth_rows - p->header_rows;
    p->num_units = left / p->unit_rows;
    p->tail_budget = left - p->num_units * p->unit_rows;

    emit t = {.k = &kc, .rows_left = p->tail_budget};
    unit(&t);
    size_t filler = p->tail_budget - t.row; /* boolean rows: 2 non-zeros in A (ONE and -b), 1 in B */
    p->num_aux = p->header_aux + p->num_units * u.aux + t.aux + filler;
    p->num_bool = header_bool + p->num_units * u.bool_aux + t.bool_aux + filler;
    for (int m = 0; m < 3; m++) p->nnz[m] = p->header_nnz[m] + p->num_units * u.nnz[m] + t.nnz[m];
    p->nnz[0] += 2 * filler;
    p->nnz[1] += filler;
    p->num_unit_nnz = header_unit + p->num_units * u.unit_nnz + t.unit_nnz + 2 * filler;
    return CUZK_OK;
}

cuzk_status synthetic_info_get(unsigned k, synthetic_info *info, cuzk_error *err)
{
    plan p;
    cuzk_status st = make_plan(k, &p, err);
    if (st != CUZK_OK) return st;
    memset(info, 0, sizeof *info);
    info->num_constraints = p.num_constraints;
    info->num_inputs = p.num_inputs;
    info->num_aux = p.num_aux;
    info->num_bool_aux = p.num_bool;
    for (int m = 0; m < 3; m++) info->nnz[m] = p.nnz[m] + (m == 0 ? p.num_inputs : 0);
    info->nnz_unit_coeff = p.num_unit_nnz + p.num_inputs;
    info->num_units = p.num_units;
    return CUZK_OK;
}

typedef struct build_ctx {
    r1cs *cs;
    const consts *k;
    const plan *p;
    uint64_t seed;
    int mat, wit;
} build_ctx;

static void unit_rng(rng_t *rng, uint64_t seed, size_t u)
{
    rng_seed(rng, seed ^ (0x9e3779b97f4a7c15ULL * (u + 1)));
}

static void unit_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const build_ctx *b = ctx;
    const plan *p = b->p;
    for (size_t u = begin; u < end; u++) {
        emit e = {
            .cs = b->cs, .mat = b->mat, .wit = b->wit, .k = b->k, .ni = (uint32_t)p->num_inputs, .rows_left = SIZE_MAX};
        e.row = p->header_rows + u * p->unit_rows;
        for (int m = 0; m < 3; m++) e.nnz[m] = p->header_nnz[m] + u * p->unit_nnz[m];
        e.aux = p->header_aux + u * p->unit_aux;
        unit_rng(&e.rng, b->seed, u);
        unit(&e);
    }
}

static cuzk_status make_consts(r1cs *cs, uint64_t seed, consts *k, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    fr_set_zero(&k->f_zero);
    fr_set_one(&k->f_one);
    fr_t v;
    k->one = 0;
    fr_neg(&v, &k->f_one);
    st = r1cs_coeff_intern(cs, &v, &k->neg1, err);
    fr_set_one(&v);
    for (int i = 0; i < MAX_ADD_BITS && st == CUZK_OK; i++) {
        st = r1cs_coeff_intern(cs, &v, &k->pow2[i], err);
        fr_dbl(&v, &v);
    }
    rng_t rng;
    rng_seed(&rng, seed ^ 0x706f736569646f6eULL);
    for (int i = 0; i < POS_WIDTH; i++)
        for (int j = 0; j < POS_WIDTH && st == CUZK_OK; j++) {
            do fr_random(&k->f_mds[i][j], &rng);
            while (fr_is_zero(&k->f_mds[i][j]));
            st = r1cs_coeff_intern(cs, &k->f_mds[i][j], &k->mds[i][j], err);
        }
    for (int r = 0; r < POS_ROUNDS; r++)
        for (int i = 0; i < POS_WIDTH && st == CUZK_OK; i++) {
            do fr_random(&k->f_rc[r][i], &rng);
            while (fr_is_zero(&k->f_rc[r][i]));
            st = r1cs_coeff_intern(cs, &k->f_rc[r][i], &k->rc[r][i], err);
        }
    return st;
}

cuzk_status synthetic_build(pool_t *pool, unsigned k, uint64_t seed, unsigned what, r1cs *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    plan p;
    cuzk_status st = make_plan(k, &p, err);
    if (st != CUZK_OK) return st;
    if (!(what & (R1CS_MATRICES | R1CS_WITNESS)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "synthetic_build: nothing to build");
    st = r1cs_create_compiled(out, p.num_inputs, p.num_aux, p.synth_rows, p.nnz, what, err);
    if (st != CUZK_OK) return cuzk_error_prefix(err, "synthetic_build: ");
    consts kc;
    /* Constants in the witness and coefficient table are the same in every mode, so intern them always. */
    st = make_consts(out, seed, &kc, err);
    if (st != CUZK_OK) {
        r1cs_free(out);
        return cuzk_error_prefix(err, "synthetic_build: ");
    }
    int mat = (what & R1CS_MATRICES) != 0, wit = (what & R1CS_WITNESS) != 0;
    emit e = {.cs = out, .mat = mat, .wit = wit, .k = &kc, .ni = (uint32_t)p.num_inputs, .rows_left = SIZE_MAX};
    rng_seed(&e.rng, seed);
    header(&e, p.num_inputs - 1);

    build_ctx b = {.cs = out, .k = &kc, .p = &p, .seed = seed, .mat = mat, .wit = wit};
    pool_parallel_for(pool, p.num_units, 1, unit_task, &b);

    e.row = p.header_rows + p.num_units * p.unit_rows;
    for (int m = 0; m < 3; m++) e.nnz[m] = p.header_nnz[m] + p.num_units * p.unit_nnz[m];
    e.aux = p.header_aux + p.num_units * p.unit_aux;
    e.rows_left = p.tail_budget;
    unit_rng(&e.rng, seed, p.num_units);
    unit(&e);
    e.stop = 0;
    while (e.rows_left > 0) {
        e.rows_left--;
        bool_row(&e, (unsigned)rng_next(&e.rng) & 1);
    }
    if (e.row != p.synth_rows || e.aux != p.num_aux ||
        (mat && (e.nnz[0] != p.nnz[0] || e.nnz[1] != p.nnz[1] || e.nnz[2] != p.nnz[2]))) {
        r1cs_free(out);
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "synthetic_build: wrote %zu rows, %zu aux; planned %zu, %zu",
                              e.row, e.aux, p.synth_rows, p.num_aux);
    }
    st = r1cs_finalize(out, err);
    if (st != CUZK_OK) {
        r1cs_free(out);
        return cuzk_error_prefix(err, "synthetic_build: ");
    }
    return CUZK_OK;
}
