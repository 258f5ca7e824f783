/* The r1cs builder against a dense reference, merging of repeated variables, densities, a/b/c evaluation
 * (threaded vs not, fast paths vs plain multiplication), satisfaction, witness-only mode, error paths. */
#include <stdlib.h>
#include <string.h>

#include "circuits/random_circuit.h"
#include "r1cs/r1cs.h"
#include "testutil.h"
#include "util/pool.h"

static rng_t rng;

/* ---- independent helpers (and testutil's test_r1cs_row: a plain multiplication per term, none of the fast
 * paths) ---- */

static void random_value(fr_t *v)
{
    uint64_t r = rng_next(&rng) % 6;
    if (r == 0)
        fr_set_zero(v);
    else if (r == 1)
        fr_set_one(v);
    else if (r == 2)
        fr_from_u64(v, rng_next(&rng) % 5);
    else
        fr_random(v, &rng);
}

/* ---- builder vs a dense reference ---- */

#define MAXV 24
#define MAXR 24

typedef struct dense {
    size_t ni, na, n;      /* n synthesized rows */
    fr_t m[3][MAXR][MAXV]; /* column: input j at j, aux j at ni + j (final layout) */
} dense;

static void test_dense_reference(int trials)
{
    static dense d;
    for (int t = 0; t < trials; t++) {
        r1cs cs;
        cuzk_error err;
        CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
        size_t ni_final = 1 + rng_next(&rng) % 5, na = rng_next(&rng) % 12, n = rng_next(&rng) % 14;
        size_t ni_early = 1 + rng_next(&rng) % ni_final;
        fr_t in[8], aux[16];
        fr_set_one(&in[0]);
        r1cs_var v;
        for (size_t j = 0; j < na; j++) {
            random_value(&aux[j]);
            CHECK(r1cs_alloc_aux(&cs, &aux[j], &v, &err) == CUZK_OK && v.kind == R1CS_AUX && v.index == j);
        }
        for (size_t j = 1; j < ni_early; j++) {
            random_value(&in[j]);
            CHECK(r1cs_alloc_input(&cs, &in[j], &v, &err) == CUZK_OK && v.index == j);
        }
        /* Terms are recorded by (kind, index) because the final column of an aux depends on ni_final. */
        typedef struct {
            int kind;
            uint32_t idx;
            fr_t c;
        } rec;
        static rec recs[MAXR][3][32];
        size_t nrec[MAXR][3];
        size_t ni_now = ni_early;
        r1cs_lc lc[3];
        for (int m = 0; m < 3; m++) r1cs_lc_init(&lc[m]);
        for (size_t i = 0; i < n; i++) {
            if (i == n / 2) {
                for (; ni_now < ni_final; ni_now++) {
                    random_value(&in[ni_now]);
                    CHECK(r1cs_alloc_input(&cs, &in[ni_now], &v, &err) == CUZK_OK);
                }
            }
            for (int m = 0; m < 3; m++) {
                r1cs_lc_clear(&lc[m]);
                size_t len = rng_next(&rng) % 9;
                nrec[i][m] = 0;
                for (size_t k = 0; k < len; k++) {
                    r1cs_var x;
                    if (na > 0 && rng_next(&rng) % 2) {
                        x.kind = R1CS_AUX;
                        x.index = (uint32_t)(rng_next(&rng) % na);
                    } else {
                        x.kind = R1CS_INPUT;
                        x.index = (uint32_t)(rng_next(&rng) % ni_now);
                    }
                    fr_t c;
                    uint64_t r = rng_next(&rng) % 5;
                    if (r == 0)
                        fr_set_one(&c);
                    else if (r == 1)
                        fr_set_zero(&c);
                    else if (r == 2)
                        fr_from_u64(&c, 2);
                    else
                        fr_random(&c, &rng);
                    int use_null = fr_is_one(&c) && (rng_next(&rng) & 1);
                    CHECK(r1cs_lc_add(&lc[m], x, use_null ? NULL : &c, &err) == CUZK_OK);
                    recs[i][m][nrec[i][m]++] = (rec){x.kind, x.index, c};
                    if (rng_next(&rng) % 4 == 0 && k + 1 < len) { /* a cancelling repeat */
                        fr_neg(&c, &c);
                        CHECK(r1cs_lc_add(&lc[m], x, &c, &err) == CUZK_OK);
                        recs[i][m][nrec[i][m]++] = (rec){x.kind, x.index, c};
                        k++;
                    }
                }
            }
            /* NULL stands for an empty LC. */
            const r1cs_lc *b = lc[1].len == 0 && (rng_next(&rng) & 1) ? NULL : &lc[1];
            CHECK(r1cs_enforce(&cs, &lc[0], b, &lc[2], &err) == CUZK_OK);
        }
        for (; ni_now < ni_final; ni_now++) {
            random_value(&in[ni_now]);
            CHECK(r1cs_alloc_input(&cs, &in[ni_now], &v, &err) == CUZK_OK);
        }
        for (int m = 0; m < 3; m++) r1cs_lc_free(&lc[m]);
        CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
        CHECK(r1cs_finalize(&cs, &err) == CUZK_ERR_INVALID_ARG);

        /* The dense reference, with bellperson's input constraints. */
        memset(&d, 0, sizeof d);
        d.ni = ni_final;
        d.na = na;
        d.n = n;
        for (size_t i = 0; i < n; i++)
            for (int m = 0; m < 3; m++)
                for (size_t k = 0; k < nrec[i][m]; k++) {
                    size_t col = recs[i][m][k].kind == R1CS_INPUT ? recs[i][m][k].idx : ni_final + recs[i][m][k].idx;
                    fr_add(&d.m[m][i][col], &d.m[m][i][col], &recs[i][m][k].c);
                }
        for (size_t j = 0; j < ni_final; j++) fr_set_one(&d.m[0][n + j][j]);
        size_t rows = n + ni_final, nv = ni_final + na;

        CHECK(cs.num_inputs == ni_final && cs.num_aux == na && cs.num_constraints == rows);
        CHECK(cs.A.rows == rows && cs.B.rows == rows && cs.C.rows == rows);
        CHECK(cs.num_coeffs >= 1 && fr_is_one(&cs.coeffs[0]));
        for (size_t x = 0; x < cs.num_coeffs; x++) {
            CHECK(!fr_is_zero(&cs.coeffs[x]));
            for (size_t y = x + 1; y < cs.num_coeffs; y++) CHECK(!fr_eq(&cs.coeffs[x], &cs.coeffs[y]));
        }
        const r1cs_matrix *mx[3] = {&cs.A, &cs.B, &cs.C};
        for (int m = 0; m < 3; m++) {
            for (size_t i = 0; i < rows; i++) {
                fr_t row[MAXV];
                memset(row, 0, sizeof row);
                int ok = 1;
                for (uint64_t k = mx[m]->row_start[i]; k < mx[m]->row_start[i + 1]; k++) {
                    uint32_t col = mx[m]->col[k];
                    if (col >= nv || mx[m]->coeff[k] >= cs.num_coeffs || !fr_is_zero(&row[col])) {
                        ok = 0; /* out of range, or a column twice in one row (not merged) */
                        break;
                    }
                    row[col] = cs.coeffs[mx[m]->coeff[k]];
                    if (k > mx[m]->row_start[i] && mx[m]->col[k - 1] >= col) ok = 0; /* bellpepper's sorted order */
                }
                for (size_t col = 0; ok && col < nv; col++) ok = fr_eq(&row[col], &d.m[m][i][col]);
                CHECK_MSG(ok, "trial %d matrix %c row %zu differs from the dense reference", t, "ABC"[m], i);
            }
        }
        /* a/b/c against the dense product. */
        fr_t a[MAXR + 8], b[MAXR + 8], c[MAXR + 8];
        CHECK(r1cs_eval_abc(NULL, &cs, cs.inputs, cs.aux, a, b, c, &err) == CUZK_OK);
        fr_t *out[3] = {a, b, c};
        for (int m = 0; m < 3; m++)
            for (size_t i = 0; i < rows; i++) {
                fr_t acc, tt;
                fr_set_zero(&acc);
                for (size_t col = 0; col < nv; col++) {
                    fr_mul(&tt, &d.m[m][i][col], col < ni_final ? &in[col] : &aux[col - ni_final]);
                    fr_add(&acc, &acc, &tt);
                }
                CHECK_MSG(fr_eq(&acc, &out[m][i]), "trial %d %c[%zu]", t, "abc"[m], i);
            }
        /* Densities: a column with a non-zero entry anywhere in A (aux) / B. */
        r1cs_density den;
        CHECK(r1cs_compute_density(&cs, &den, &err) == CUZK_OK);
        size_t ca = 0, cbi = 0, cba = 0;
        for (size_t col = 0; col < nv; col++) {
            int inA = 0, inB = 0;
            for (size_t i = 0; i < rows; i++) {
                inA |= !fr_is_zero(&d.m[0][i][col]);
                inB |= !fr_is_zero(&d.m[1][i][col]);
            }
            if (col < ni_final) {
                CHECK(((den.b_input[col / 64] >> (col % 64)) & 1) == (uint64_t)inB);
                cbi += inB;
            } else {
                size_t j = col - ni_final;
                CHECK(((den.a_aux[j / 64] >> (j % 64)) & 1) == (uint64_t)inA);
                CHECK(((den.b_aux[j / 64] >> (j % 64)) & 1) == (uint64_t)inB);
                ca += inA;
                cba += inB;
            }
        }
        CHECK(den.a_aux_count == ca && den.b_input_count == cbi && den.b_aux_count == cba);
        r1cs_density_free(&den);
        r1cs_free(&cs);
    }
}

/* ---- the exact bellperson cases ---- */

static void test_merging(void)
{
    r1cs cs;
    cuzk_error err;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    fr_t va, vb, vc, zero, two, m1;
    fr_from_u64(&va, 5);
    fr_from_u64(&vb, 6);
    fr_from_u64(&vc, 30);
    fr_set_zero(&zero);
    fr_from_u64(&two, 2);
    fr_set_one(&m1);
    fr_neg(&m1, &m1);
    r1cs_var a, b, c, u;
    CHECK(r1cs_alloc_aux(&cs, &va, &a, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, &vb, &b, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, &vc, &c, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, &vc, &u, &err) == CUZK_OK); /* used only with cancelling coefficients */
    r1cs_lc A, B, C;
    r1cs_lc_init(&A);
    r1cs_lc_init(&B);
    r1cs_lc_init(&C);
    /* bellperson's MultWithZeroCoeffs: a * (0*ONE + b) = c, and a * (0*a + b) = c. */
    r1cs_lc_add(&A, a, NULL, &err);
    r1cs_lc_add(&B, r1cs_one(), &zero, &err);
    r1cs_lc_add(&B, b, NULL, &err);
    r1cs_lc_add(&C, c, NULL, &err);
    CHECK(r1cs_enforce(&cs, &A, &B, &C, &err) == CUZK_OK);
    r1cs_lc_clear(&B);
    r1cs_lc_add(&B, a, &zero, &err);
    r1cs_lc_add(&B, b, NULL, &err);
    CHECK(r1cs_enforce(&cs, &A, &B, &C, &err) == CUZK_OK);
    /* (u - u + a + a) * (b) = (2c + u - u) ... as xor's (a + a): 2a * b = 2c. */
    r1cs_lc_clear(&A);
    r1cs_lc_clear(&C);
    r1cs_lc_add(&A, u, NULL, &err);
    r1cs_lc_add(&A, a, NULL, &err);
    r1cs_lc_add(&A, u, &m1, &err);
    r1cs_lc_add(&A, a, NULL, &err);
    r1cs_lc_clear(&B);
    r1cs_lc_add(&B, b, NULL, &err);
    r1cs_lc_add(&C, c, NULL, &err);
    r1cs_lc_add(&C, u, NULL, &err);
    r1cs_lc_add(&C, c, NULL, &err);
    r1cs_lc_add(&C, u, &m1, &err);
    CHECK(r1cs_enforce(&cs, &A, &B, &C, &err) == CUZK_OK);
    r1cs_lc_free(&A);
    r1cs_lc_free(&B);
    r1cs_lc_free(&C);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    CHECK(cs.num_constraints == 4);
    /* Row 0: B holds only b (ONE with 0 dropped); row 1 likewise; row 2: A = 2a, C = 2c, u gone. */
    CHECK(cs.B.row_start[1] - cs.B.row_start[0] == 1 && cs.B.col[cs.B.row_start[0]] == 1 + b.index);
    CHECK(cs.B.row_start[2] - cs.B.row_start[1] == 1);
    CHECK(cs.A.row_start[3] - cs.A.row_start[2] == 1 && cs.A.col[cs.A.row_start[2]] == 1 + a.index);
    CHECK(fr_eq(&cs.coeffs[cs.A.coeff[cs.A.row_start[2]]], &two));
    CHECK(cs.C.row_start[3] - cs.C.row_start[2] == 1 && fr_eq(&cs.coeffs[cs.C.coeff[cs.C.row_start[2]]], &two));
    /* Input constraint: ONE in A with coefficient 1, empty B and C. */
    CHECK(cs.A.row_start[4] - cs.A.row_start[3] == 1 && cs.A.col[cs.A.row_start[3]] == 0 &&
          cs.A.coeff[cs.A.row_start[3]] == 0);
    CHECK(cs.B.row_start[4] == cs.B.row_start[3] && cs.C.row_start[4] == cs.C.row_start[3]);
    r1cs_density den;
    CHECK(r1cs_compute_density(&cs, &den, &err) == CUZK_OK);
    CHECK(den.b_input_count == 0 && den.b_input[0] == 0); /* ONE only had a zero coefficient in B */
    CHECK(den.a_aux_count == 1 && den.a_aux[0] == 1);     /* a; u cancelled */
    CHECK(den.b_aux_count == 1 && den.b_aux[0] == 2);     /* b; a had coefficient 0 */
    r1cs_density_free(&den);
    size_t bad = 7;
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad) == 1);
    fr_t wrong_aux[4];
    memcpy(wrong_aux, cs.aux, sizeof wrong_aux);
    fr_from_u64(&wrong_aux[3], 99); /* u never matters */
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, wrong_aux, &bad) == 1);
    fr_from_u64(&wrong_aux[2], 31);
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, wrong_aux, &bad) == 0 && bad == 0);
    r1cs_free(&cs);
}

/* ---- evaluation and satisfaction on larger random circuits ---- */

static void test_eval_threads(pool_t *pool)
{
    for (unsigned s = 0; s < RC_NUM_SHAPES; s++) {
        random_circuit_params p;
        random_circuit_shape(&rng, s, 30000, &p);
        r1cs cs;
        cuzk_error err;
        cuzk_status st = random_circuit_build(&rng, &p, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        if (st != CUZK_OK) continue;
        size_t n = cs.num_constraints;
        fr_t *v = malloc(6 * n * sizeof *v);
        CHECK(v != NULL);
        if (!v) {
            r1cs_free(&cs);
            continue;
        }
        CHECK(r1cs_eval_abc(NULL, &cs, cs.inputs, cs.aux, v, v + n, v + 2 * n, &err) == CUZK_OK);
        CHECK(r1cs_eval_abc(pool, &cs, cs.inputs, cs.aux, v + 3 * n, v + 4 * n, v + 5 * n, &err) == CUZK_OK);
        CHECK_MSG(memcmp(v, v + 3 * n, 3 * n * sizeof *v) == 0, "shape %u: threaded a/b/c differ", s);
        int ok = 1;
        for (size_t i = 0; i < n && ok; i++) {
            fr_t x[3];
            test_r1cs_row(&cs, &cs.A, i, cs.inputs, cs.aux, &x[0]);
            test_r1cs_row(&cs, &cs.B, i, cs.inputs, cs.aux, &x[1]);
            test_r1cs_row(&cs, &cs.C, i, cs.inputs, cs.aux, &x[2]);
            ok = fr_eq(&x[0], &v[i]) && fr_eq(&x[1], &v[n + i]) && fr_eq(&x[2], &v[2 * n + i]);
        }
        CHECK_MSG(ok, "shape %u: fast-path a/b/c differ from plain multiplication", s);
        size_t bad = 0;
        CHECK_MSG(r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, &bad) == 1, "shape %u row %zu", s, bad);
        CHECK(test_r1cs_first_bad(&cs, cs.inputs, cs.aux) == SIZE_MAX);
        /* Flip one value (an aux when there are some) to something else: the threaded check and the naive
         * one agree on whether and where it fails. */
        for (int rep = 0; rep < 3; rep++) {
            fr_t *w =
                cs.num_aux > 0 ? &cs.aux[rng_next(&rng) % cs.num_aux] : &cs.inputs[rng_next(&rng) % cs.num_inputs];
            fr_t saved = *w, one;
            fr_set_one(&one);
            fr_add(w, w, &one);
            size_t expect = test_r1cs_first_bad(&cs, cs.inputs, cs.aux);
            size_t got = 12345;
            int sat = r1cs_is_satisfied(pool, &cs, cs.inputs, cs.aux, &got);
            CHECK_MSG(sat == (expect == SIZE_MAX) && (sat || got == expect), "shape %u: bad row %zu vs %zu", s, got,
                      expect);
            sat = r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &got);
            CHECK(sat == (expect == SIZE_MAX) && (sat || got == expect));
            *w = saved;
        }
        free(v);
        r1cs_free(&cs);
    }
}

/* ---- witness-only mode: the same synthesis code in three modes ---- */

/* A small gadget-style circuit: bits, xor, a product chain, an input packing. Deterministic from seed. */
static cuzk_status synth(r1cs *cs, uint64_t seed, size_t nbits, cuzk_error *err)
{
    rng_t r;
    rng_seed(&r, seed);
    r1cs_lc A, B, C;
    r1cs_lc_init(&A);
    r1cs_lc_init(&B);
    r1cs_lc_init(&C);
    cuzk_status st = CUZK_OK;
    r1cs_var *bits = malloc(nbits * sizeof *bits);
    unsigned *vals = malloc(nbits * sizeof *vals);
    if (!bits || !vals) st = CUZK_ERR_NOMEM;
    fr_t m1, two, v;
    fr_set_one(&m1);
    fr_neg(&m1, &m1);
    fr_from_u64(&two, 2);
    for (size_t i = 0; i < nbits && st == CUZK_OK; i++) {
        vals[i] = rng_next(&r) & 1;
        fr_from_u64(&v, vals[i]);
        st = r1cs_alloc_aux(cs, &v, &bits[i], err);
        r1cs_lc_clear(&A);
        r1cs_lc_clear(&B);
        if (st == CUZK_OK) st = r1cs_lc_add(&A, r1cs_one(), NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&A, bits[i], &m1, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&B, bits[i], NULL, err);
        if (st == CUZK_OK) st = r1cs_enforce(cs, &A, &B, NULL, err);
    }
    for (size_t i = 0; i + 1 < nbits && st == CUZK_OK; i++) { /* xor of neighbours: (a + a) * b = a + b - c */
        unsigned x = vals[i] ^ vals[i + 1];
        r1cs_var c;
        fr_from_u64(&v, x);
        st = r1cs_alloc_aux(cs, &v, &c, err);
        r1cs_lc_clear(&A);
        r1cs_lc_clear(&B);
        r1cs_lc_clear(&C);
        if (st == CUZK_OK) st = r1cs_lc_add(&A, bits[i], NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&A, bits[i], NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&B, bits[i + 1], NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&C, bits[i], NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&C, bits[i + 1], NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&C, c, &m1, err);
        if (st == CUZK_OK) st = r1cs_enforce(cs, &A, &B, &C, err);
    }
    /* A product chain over full-width values, then packing the first 16 bits into a public input. */
    fr_t acc;
    fr_random(&acc, &r);
    r1cs_var prev;
    if (st == CUZK_OK) st = r1cs_alloc_aux(cs, &acc, &prev, err);
    for (int i = 0; i < 8 && st == CUZK_OK; i++) {
        fr_t k, nv;
        fr_random(&k, &r);
        fr_add(&nv, &acc, &k);
        fr_mul(&nv, &nv, &acc);
        r1cs_var next;
        st = r1cs_alloc_aux(cs, &nv, &next, err);
        r1cs_lc_clear(&A);
        r1cs_lc_clear(&B);
        r1cs_lc_clear(&C);
        if (st == CUZK_OK) st = r1cs_lc_add(&A, prev, NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&A, r1cs_one(), &k, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&B, prev, NULL, err);
        if (st == CUZK_OK) st = r1cs_lc_add(&C, next, NULL, err);
        if (st == CUZK_OK) st = r1cs_enforce(cs, &A, &B, &C, err);
        acc = nv;
        prev = next;
    }
    uint64_t packed = 0;
    for (size_t i = 0; i < nbits && i < 16; i++) packed |= (uint64_t)vals[i] << i;
    fr_from_u64(&v, packed);
    r1cs_var inp;
    if (st == CUZK_OK) st = r1cs_alloc_input(cs, &v, &inp, err);
    r1cs_lc_clear(&A);
    r1cs_lc_clear(&B);
    r1cs_lc_clear(&C);
    fr_t pw;
    fr_set_one(&pw);
    for (size_t i = 0; i < nbits && i < 16 && st == CUZK_OK; i++) {
        st = r1cs_lc_add(&A, bits[i], &pw, err);
        fr_dbl(&pw, &pw);
    }
    if (st == CUZK_OK) st = r1cs_lc_add(&B, r1cs_one(), NULL, err);
    if (st == CUZK_OK) st = r1cs_lc_add(&C, inp, NULL, err);
    if (st == CUZK_OK) st = r1cs_enforce(cs, &A, &B, &C, err);
    if (st == CUZK_OK) st = r1cs_finalize(cs, err);
    if (st == CUZK_ERR_NOMEM && (!bits || !vals)) cuzk_error_set(err, st, "synth: out of memory");
    free(bits);
    free(vals);
    r1cs_lc_free(&A);
    r1cs_lc_free(&B);
    r1cs_lc_free(&C);
    return st;
}

static void test_witness_only(pool_t *pool)
{
    uint64_t seed = rng_next(&rng);
    size_t nbits = 100 + rng_next(&rng) % 200;
    r1cs full, shape, wit;
    cuzk_error err;
    CHECK(r1cs_create(&full, 1, &err) == CUZK_OK && synth(&full, seed, nbits, &err) == CUZK_OK);
    CHECK(r1cs_create(&shape, 0, &err) == CUZK_OK && synth(&shape, seed, nbits, &err) == CUZK_OK);
    CHECK(r1cs_create_witness_only(&wit, &err) == CUZK_OK && synth(&wit, seed, nbits, &err) == CUZK_OK);
    CHECK(shape.inputs == NULL && shape.aux == NULL && !shape.has_witness);
    CHECK(wit.A.rows == 0 && wit.witness_only && wit.num_constraints == full.num_constraints);
    CHECK(r1cs_check_witness(&shape, &wit, &err) == CUZK_OK);
    CHECK(r1cs_check_witness(&full, &wit, &err) == CUZK_OK);
    CHECK(r1cs_check_witness(&wit, &full, &err) == CUZK_ERR_INVALID_ARG);
    size_t n = full.num_constraints;
    fr_t *v = malloc(6 * n * sizeof *v);
    CHECK(v != NULL);
    if (v) {
        CHECK(r1cs_eval_abc(NULL, &full, full.inputs, full.aux, v, v + n, v + 2 * n, &err) == CUZK_OK);
        CHECK(r1cs_eval_abc(pool, &shape, wit.inputs, wit.aux, v + 3 * n, v + 4 * n, v + 5 * n, &err) == CUZK_OK);
        CHECK(memcmp(v, v + 3 * n, 3 * n * sizeof *v) == 0);
        CHECK(r1cs_eval_abc(pool, &wit, wit.inputs, wit.aux, v, v + n, v + 2 * n, &err) == CUZK_ERR_INVALID_ARG);
        free(v);
    }
    CHECK(r1cs_is_satisfied(pool, &shape, wit.inputs, wit.aux, NULL) == 1);
    CHECK(memcmp(full.aux, wit.aux, full.num_aux * sizeof *full.aux) == 0);
    CHECK(memcmp(full.inputs, wit.inputs, full.num_inputs * sizeof *full.inputs) == 0);
    /* The shape is the same matrices. */
    CHECK(full.A.row_start[full.A.rows] == shape.A.row_start[shape.A.rows]);
    CHECK(memcmp(full.C.col, shape.C.col, full.C.row_start[full.C.rows] * sizeof *full.C.col) == 0);
    /* A witness of another size is refused. */
    r1cs other;
    CHECK(r1cs_create_witness_only(&other, &err) == CUZK_OK && synth(&other, seed, nbits + 1, &err) == CUZK_OK);
    CHECK(r1cs_check_witness(&shape, &other, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_free(&other);
    r1cs_free(&full);
    r1cs_free(&shape);
    r1cs_free(&wit);
}

/* ---- argument errors ---- */

static void test_errors(void)
{
    r1cs cs;
    cuzk_error err;
    CHECK(r1cs_create(&cs, 1, &err) == CUZK_OK);
    r1cs_var x;
    fr_t one;
    fr_set_one(&one);
    CHECK(r1cs_alloc_aux(&cs, NULL, &x, &err) == CUZK_ERR_INVALID_ARG); /* values are kept: one is needed */
    CHECK(r1cs_alloc_aux(&cs, &one, &x, &err) == CUZK_OK);
    r1cs_lc lc;
    r1cs_lc_init(&lc);
    r1cs_var ghost = {R1CS_AUX, 1};
    r1cs_lc_add(&lc, ghost, NULL, &err);
    CHECK(r1cs_enforce(&cs, &lc, NULL, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cs.num_constraints == 0 && cs.A.rows == 0 && cs.B.rows == 0);
    r1cs_lc_clear(&lc);
    r1cs_var bad_kind = {(r1cs_var_kind)7, 0};
    r1cs_lc_add(&lc, bad_kind, NULL, &err);
    CHECK(r1cs_enforce(&cs, NULL, NULL, &lc, &err) == CUZK_ERR_INVALID_ARG);
    r1cs_lc_clear(&lc);
    r1cs_lc_add(&lc, x, NULL, &err);
    CHECK(r1cs_enforce(&cs, &lc, &lc, &lc, &err) == CUZK_OK);
    fr_t a[2], b[2], c[2];
    CHECK(r1cs_eval_abc(NULL, &cs, cs.inputs, cs.aux, a, b, c, &err) == CUZK_ERR_INVALID_ARG); /* not finalized */
    size_t bad = 0;
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad) == 0 && bad == SIZE_MAX);
    fr_t zero;
    fr_set_zero(&zero);
    uint32_t idx;
    CHECK(r1cs_coeff_intern(&cs, &zero, &idx, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    CHECK(r1cs_enforce(&cs, &lc, &lc, &lc, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(r1cs_alloc_aux(&cs, &one, &x, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(r1cs_eval_abc(NULL, &cs, cs.inputs, cs.aux, a, b, c, &err) == CUZK_OK);
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad) == 1);
    r1cs_lc_free(&lc);
    r1cs_free(&cs);

    /* A compiled system with a defect is refused at finalize. */
    size_t nnz[3] = {2, 1, 1};
    for (int defect = 0; defect < 4; defect++) {
        CHECK(r1cs_create_compiled(&cs, 2, 1, 1, nnz, R1CS_MATRICES | R1CS_WITNESS, &err) == CUZK_OK);
        cs.inputs[1] = one;
        cs.aux[0] = one;
        cs.A.row_start[1] = 2;
        cs.A.col[0] = 1;
        cs.A.col[1] = 2;
        cs.A.coeff[0] = cs.A.coeff[1] = 0;
        cs.B.row_start[1] = 1;
        cs.B.col[0] = 0;
        cs.B.coeff[0] = 0;
        cs.C.row_start[1] = 1;
        cs.C.col[0] = 2;
        cs.C.coeff[0] = 0;
        if (defect == 1) cs.A.col[1] = 3;   /* column past the variables */
        if (defect == 2) cs.B.coeff[0] = 5; /* coefficient past the table */
        if (defect == 3) cs.C.row_start[1] = 0;
        cuzk_status st = r1cs_finalize(&cs, &err);
        CHECK_MSG(st == (defect ? CUZK_ERR_INVALID_ARG : CUZK_OK), "defect %d: %s", defect, err.msg);
        if (st == CUZK_OK) {
            CHECK(cs.num_constraints == 3);
            size_t bad_row = 0;
            /* (in1 + aux0) * ONE = aux0 with in1 = aux0 = 1: 2 != 1, row 0 fails. */
            CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad_row) == 0 && bad_row == 0);
        }
        r1cs_free(&cs);
    }
}

/* ---- allocation failures ---- */

static void test_nomem(void)
{
    uint64_t seed = rng_next(&rng);
    int completed = 0;
    long n;
    for (n = 0; n < 100000 && !completed; n++) {
        r1cs cs;
        cuzk_error err;
        r1cs_test_fail_alloc_after(n);
        cuzk_status st = r1cs_create(&cs, 1, &err);
        if (st == CUZK_OK) st = synth(&cs, seed, 70, &err);
        r1cs_density den = {0};
        if (st == CUZK_OK) st = r1cs_compute_density(&cs, &den, &err);
        r1cs_test_fail_alloc_after(-1);
        CHECK_MSG(st == CUZK_OK || st == CUZK_ERR_NOMEM, "failure after %ld allocations: %s", n, err.msg);
        if (st == CUZK_OK) {
            completed = 1;
            CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, NULL) == 1);
        }
        r1cs_density_free(&den);
        r1cs_free(&cs);
    }
    CHECK(completed);
    printf("nomem: builder succeeded once %ld allocations were allowed\n", n - 1);
    /* random_circuit on the builder */
    completed = 0;
    for (n = 0; n < 100000 && !completed; n++) {
        random_circuit_params p = {.num_inputs = 3, .num_aux = 40, .num_constraints = 50, .flags = RC_REPEATED_VARS};
        r1cs cs;
        cuzk_error err;
        rng_t r2;
        rng_seed(&r2, seed);
        r1cs_test_fail_alloc_after(n);
        cuzk_status st = random_circuit_build(&r2, &p, &cs, &err);
        r1cs_test_fail_alloc_after(-1);
        CHECK_MSG(st == CUZK_OK || st == CUZK_ERR_NOMEM, "random_circuit: %s", err.msg);
        if (st == CUZK_OK)
            completed = 1;
        else
            CHECK(cs.builder == NULL && cs.coeffs == NULL); /* left empty */
        r1cs_free(&cs);
    }
    CHECK(completed);
}

int main(void)
{
    test_seed(&rng, "test_r1cs");
    pool_t *pool = NULL;
    cuzk_error err;
    CHECK(pool_create(&pool, 4, &err) == CUZK_OK);
    test_dense_reference(300);
    test_merging();
    test_eval_threads(pool);
    test_witness_only(pool);
    test_errors();
    test_nomem();
    pool_destroy(pool);
    return test_finish("test_r1cs");
}
