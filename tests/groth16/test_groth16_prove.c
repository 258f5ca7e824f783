/* Groth16 setup, prover and verifier on random circuits of many shapes.
 *
 * The independent oracle: with the toxic waste known, every proof point is a known scalar times the generator.
 * The test evaluates the QAP at tau itself (Lagrange basis by the closed formula, not the NTT), forms the
 * textbook scalars of A, B, C, and compares with the prover's points. The verifier is checked to accept those
 * proofs and to reject altered ones (every bit flip, another input, another circuit's vk). */
#include <stdlib.h>
#include <string.h>

#include "circuits/random_circuit.h"
#include "groth16/groth16.h"
#include "testutil.h"

static pool_t *pool;

/* Lagrange basis of the size-m domain at tau: L_j(tau) = omega^j (tau^m - 1) / (m (tau - omega^j)). */
static void lagrange_at(fr_t *L, size_t m, unsigned log_m, const fr_t *tau)
{
    fr_t omega, w, tm, one, minv, t;
    fr_root_of_unity(&omega, log_m);
    fr_set_one(&one);
    uint64_t e = m;
    fr_pow(&tm, tau, &e, 1);
    fr_sub(&tm, &tm, &one);
    fr_from_u64(&minv, m);
    fr_inv(&minv, &minv);
    fr_set_one(&w);
    for (size_t j = 0; j < m; j++) {
        fr_sub(&t, tau, &w);
        fr_inv(&t, &t);
        fr_mul(&t, &t, &w);
        fr_mul(&t, &t, &tm);
        fr_mul(&L[j], &t, &minv);
        fr_mul(&w, &w, &omega);
    }
}

/* p[v] = sum over rows of coeff * L_row, for one matrix. */
static void qap_column_sums(const r1cs *cs, const r1cs_matrix *mx, const fr_t *L, fr_t *p)
{
    size_t nv = cs->num_inputs + cs->num_aux;
    for (size_t v = 0; v < nv; v++) fr_set_zero(&p[v]);
    for (size_t row = 0; row < mx->rows; row++)
        for (uint64_t e = mx->row_start[row]; e < mx->row_start[row + 1]; e++) {
            fr_t t;
            fr_mul(&t, &cs->coeffs[mx->coeff[e]], &L[row]);
            fr_add(&p[mx->col[e]], &p[mx->col[e]], &t);
        }
}

static const fr_t *zval(const r1cs *cs, size_t v)
{
    return v < cs->num_inputs ? &cs->inputs[v] : &cs->aux[v - cs->num_inputs];
}

/* The expected proof from the toxic waste (textbook Groth16). Returns 0 if the oracle itself failed. */
static int oracle_proof(const r1cs *cs, const groth16_toxic *tw, const fr_t *r, const fr_t *s, groth16_proof *out)
{
    size_t n = cs->num_constraints, m = 1;
    unsigned log_m = 0;
    while (m < n) m <<= 1, log_m++;
    size_t nv = cs->num_inputs + cs->num_aux;
    fr_t *L = malloc(m * sizeof(fr_t)), *u = malloc(nv * sizeof(fr_t)), *v = malloc(nv * sizeof(fr_t)),
         *w = malloc(nv * sizeof(fr_t));
    if (!L || !u || !v || !w) {
        free(L), free(u), free(v), free(w);
        return 0;
    }
    lagrange_at(L, m, log_m, &tw->tau);
    qap_column_sums(cs, &cs->A, L, u);
    qap_column_sums(cs, &cs->B, L, v);
    qap_column_sums(cs, &cs->C, L, w);
    fr_t at, bt, ct, lsum, t;
    fr_set_zero(&at), fr_set_zero(&bt), fr_set_zero(&ct), fr_set_zero(&lsum);
    for (size_t k = 0; k < nv; k++) {
        const fr_t *z = zval(cs, k);
        fr_mul(&t, z, &u[k]), fr_add(&at, &at, &t);
        fr_mul(&t, z, &v[k]), fr_add(&bt, &bt, &t);
        fr_mul(&t, z, &w[k]), fr_add(&ct, &ct, &t);
        if (k >= cs->num_inputs) {
            fr_t e, f;
            fr_mul(&e, &u[k], &tw->beta);
            fr_mul(&f, &v[k], &tw->alpha);
            fr_add(&e, &e, &f);
            fr_add(&e, &e, &w[k]);
            fr_mul(&e, &e, z);
            fr_add(&lsum, &lsum, &e);
        }
    }
    fr_t as, bs, cs_, dinv;
    fr_mul(&t, r, &tw->delta);
    fr_add(&as, &tw->alpha, &at), fr_add(&as, &as, &t);
    fr_mul(&t, s, &tw->delta);
    fr_add(&bs, &tw->beta, &bt), fr_add(&bs, &bs, &t);
    /* C = (lsum + A(tau) B(tau) - C(tau)) / delta + s·A + r·B - r·s·delta */
    fr_mul(&cs_, &at, &bt);
    fr_sub(&cs_, &cs_, &ct);
    fr_add(&cs_, &cs_, &lsum);
    fr_inv(&dinv, &tw->delta);
    fr_mul(&cs_, &cs_, &dinv);
    fr_mul(&t, s, &as), fr_add(&cs_, &cs_, &t);
    fr_mul(&t, r, &bs), fr_add(&cs_, &cs_, &t);
    fr_mul(&t, r, s), fr_mul(&t, &t, &tw->delta), fr_sub(&cs_, &cs_, &t);

    g1_jac_t g1, j1;
    g2_jac_t g2, j2;
    g1_jac_from_affine(&g1, &G1_GENERATOR);
    g2_jac_from_affine(&g2, &G2_GENERATOR);
    g1_jac_mul_fr(&j1, &g1, &as);
    g1_jac_to_affine(&out->a, &j1);
    g2_jac_mul_fr(&j2, &g2, &bs);
    g2_jac_to_affine(&out->b, &j2);
    g1_jac_mul_fr(&j1, &g1, &cs_);
    g1_jac_to_affine(&out->c, &j1);
    free(L), free(u), free(v), free(w);
    return 1;
}

static void random_toxic(rng_t *rng, groth16_toxic *tw)
{
    fr_random(&tw->alpha, rng);
    fr_random(&tw->beta, rng);
    fr_random(&tw->gamma, rng);
    fr_random(&tw->delta, rng);
    fr_random(&tw->tau, rng);
}

static int proof_eq(const groth16_proof *x, const groth16_proof *y)
{
    return g1_affine_eq(&x->a, &y->a) && g2_affine_eq(&x->b, &y->b) && g1_affine_eq(&x->c, &y->c);
}

/* Checks on the parameters against the toxic waste: a few bases are the expected multiples of G. */
static void check_some_bases(const r1cs *cs, const groth16_params *p, const groth16_toxic *tw)
{
    size_t n = cs->num_constraints, m = 1;
    while (m < n) m <<= 1;
    CHECK(p->h_len == m - 1);
    CHECK(p->vk.ic_len == cs->num_inputs);
    CHECK(p->l_len == cs->num_aux);
    r1cs_density dn;
    cuzk_error err;
    CHECK(r1cs_compute_density(cs, &dn, &err) == CUZK_OK);
    CHECK_MSG(p->a_len == cs->num_inputs + dn.a_aux_count, "a_len %zu, inputs %zu + a_aux %zu", p->a_len,
              cs->num_inputs, dn.a_aux_count);
    CHECK(p->b_g1_len == dn.b_input_count + dn.b_aux_count);
    CHECK(p->b_g2_len == p->b_g1_len);
    r1cs_density_free(&dn);
    if (p->h_len > 0) {
        /* h[last] = tau^(m-2) (tau^m - 1) / delta */
        fr_t x, t, one;
        fr_set_one(&one);
        uint64_t e = m;
        fr_pow(&t, &tw->tau, &e, 1);
        fr_sub(&t, &t, &one);
        e = m - 2;
        fr_pow(&x, &tw->tau, &e, 1);
        fr_mul(&x, &x, &t);
        fr_inv(&t, &tw->delta);
        fr_mul(&x, &x, &t);
        g1_jac_t g, j;
        g1_affine_t want;
        g1_jac_from_affine(&g, &G1_GENERATOR);
        g1_jac_mul_fr(&j, &g, &x);
        g1_jac_to_affine(&want, &j);
        CHECK(g1_affine_eq(&want, &p->h[p->h_len - 1]));
    }
    /* no identity in any base vector */
    int inf = 0;
    for (size_t i = 0; i < p->a_len; i++) inf |= g1_affine_is_inf(&p->a[i]);
    for (size_t i = 0; i < p->b_g1_len; i++) inf |= g1_affine_is_inf(&p->b_g1[i]);
    for (size_t i = 0; i < p->b_g2_len; i++) inf |= g2_affine_is_inf(&p->b_g2[i]);
    for (size_t i = 0; i < p->l_len; i++) inf |= g1_affine_is_inf(&p->l[i]);
    CHECK(!inf);
}

/* Public inputs as verify_proof takes them: without ONE. */
static const fr_t *public_inputs(const r1cs *cs)
{
    return cs->inputs + 1;
}

static void test_shapes(rng_t *rng)
{
    groth16_params other_params;
    int have_other = 0;
    size_t other_inputs = 0;
    /* The sweep of edge shapes twice (small, then larger), then circuits without synthesized constraints:
     * ONE alone (a domain of one point, no h bases), public inputs alone, and aux with nothing to hold them. */
    static const random_circuit_params extra[3] = {
        {.num_inputs = 0, .num_aux = 0, .num_constraints = 0},
        {.num_inputs = 3, .num_aux = 0, .num_constraints = 0},
        {.num_inputs = 1, .num_aux = 2, .num_constraints = 0},
    };
    unsigned proven = 0, total = 2 * RC_NUM_SHAPES + 3;
    for (unsigned shape = 0; shape < total; shape++) {
        random_circuit_params rp;
        if (shape < 2 * RC_NUM_SHAPES)
            random_circuit_shape(rng, shape, shape < RC_NUM_SHAPES ? 40 : 300, &rp);
        else
            rp = extra[shape - 2 * RC_NUM_SHAPES];
        r1cs cs;
        cuzk_error err;
        cuzk_status st = random_circuit_build(rng, &rp, &cs, &err);
        CHECK_MSG(st == CUZK_OK, "shape %u: %s", shape, err.msg);
        if (st != CUZK_OK) continue;
        groth16_toxic tw;
        random_toxic(rng, &tw);
        groth16_params p;
        st = groth16_setup_with_toxic(pool, &cs, &tw, NULL, &p, &err);
        if (rp.num_constraints == 0 && cs.num_aux > 0) {
            /* no synthesized constraint to hold the aux: bellperson's UnconstrainedVariable */
            CHECK_MSG(st == CUZK_ERR_INVALID_ARG, "shape %u: unconstrained aux accepted", shape);
            r1cs_free(&cs);
            continue;
        }
        CHECK_MSG(st == CUZK_OK, "shape %u (%zu in, %zu aux, %zu cons, flags %u): %s", shape, rp.num_inputs, rp.num_aux,
                  rp.num_constraints, rp.flags, err.msg);
        if (st != CUZK_OK) {
            r1cs_free(&cs);
            continue;
        }
        check_some_bases(&cs, &p, &tw);

        fr_t r, s;
        fr_random(&r, rng);
        fr_random(&s, rng);
        groth16_proof proof, want, again;
        groth16_timings tm;
        st = groth16_prove(pool, &p, &cs, NULL, NULL, &r, &s, &proof, &tm, &err);
        CHECK_MSG(st == CUZK_OK, "shape %u: prove: %s", shape, err.msg);
        CHECK(oracle_proof(&cs, &tw, &r, &s, &want));
        CHECK_MSG(proof_eq(&proof, &want),
                  "shape %u (%zu in, %zu aux, %zu cons, flags %u): proof differs from the "
                  "textbook formula",
                  shape, rp.num_inputs, rp.num_aux, rp.num_constraints, rp.flags);

        /* deterministic bytes for the same witness, r, s */
        uint8_t b1[GROTH16_PROOF_BYTES], b2[GROTH16_PROOF_BYTES];
        CHECK(groth16_prove(pool, &p, &cs, cs.inputs, cs.aux, &r, &s, &again, NULL, &err) == CUZK_OK);
        groth16_proof_write(b1, &proof);
        groth16_proof_write(b2, &again);
        CHECK(memcmp(b1, b2, sizeof(b1)) == 0);

        groth16_pvk pvk;
        CHECK(groth16_pvk_prepare(&pvk, &p.vk, &err) == CUZK_OK);
        size_t npub = cs.num_inputs - 1;
        st = groth16_verify(pool, &pvk, &proof, public_inputs(&cs), npub, &err);
        CHECK_MSG(st == CUZK_OK, "shape %u: verify: %s", shape, err.msg);

        /* encoding round trip */
        groth16_proof dec;
        CHECK(groth16_proof_read(&dec, b1, &err) == CUZK_OK && proof_eq(&dec, &proof));

        /* wrong input count is an error, not a crash */
        fr_t wrong_pub[64];
        memset(wrong_pub, 0, sizeof(wrong_pub));
        CHECK(groth16_verify(pool, &pvk, &proof, wrong_pub, npub + 1, &err) == CUZK_ERR_INVALID_ARG);
        if (npub > 0) CHECK(groth16_verify(pool, &pvk, &proof, wrong_pub, npub - 1, &err) == CUZK_ERR_INVALID_ARG);

        /* a changed public input */
        if (npub > 0) {
            fr_t *pub = malloc(npub * sizeof(fr_t));
            memcpy(pub, public_inputs(&cs), npub * sizeof(fr_t));
            size_t k = rng_next(rng) % npub;
            fr_t one;
            fr_set_one(&one);
            fr_add(&pub[k], &pub[k], &one);
            CHECK(groth16_verify(pool, &pvk, &proof, pub, npub, &err) == CUZK_ERR_INVALID_PROOF);
            free(pub);
        }

        /* another circuit's vk: rejected, or refused for its input count */
        if (have_other) {
            groth16_pvk opvk;
            CHECK(groth16_pvk_prepare(&opvk, &other_params.vk, &err) == CUZK_OK);
            st = groth16_verify(pool, &opvk, &proof, public_inputs(&cs), npub, &err);
            CHECK(st == (other_inputs == cs.num_inputs ? CUZK_ERR_INVALID_PROOF : CUZK_ERR_INVALID_ARG));
            groth16_pvk_free(&opvk);
        }
        /* the same circuit under another setup */
        {
            groth16_toxic tw2;
            random_toxic(rng, &tw2);
            groth16_params p2;
            groth16_pvk pvk2;
            CHECK(groth16_setup_with_toxic(pool, &cs, &tw2, NULL, &p2, &err) == CUZK_OK);
            CHECK(groth16_pvk_prepare(&pvk2, &p2.vk, &err) == CUZK_OK);
            CHECK(groth16_verify(pool, &pvk2, &proof, public_inputs(&cs), npub, &err) == CUZK_ERR_INVALID_PROOF);
            groth16_pvk_free(&pvk2);
            groth16_params_free(&p2);
        }

        /* random r, s drawn by the prover: still valid, and different */
        groth16_proof rnd;
        CHECK(groth16_prove(pool, &p, &cs, NULL, NULL, NULL, NULL, &rnd, NULL, &err) == CUZK_OK);
        CHECK(groth16_verify(pool, &pvk, &rnd, public_inputs(&cs), npub, &err) == CUZK_OK);
        CHECK(!proof_eq(&rnd, &proof));

        groth16_pvk_free(&pvk);
        proven++;
        if (have_other) groth16_params_free(&other_params);
        other_params = p;
        other_inputs = cs.num_inputs;
        have_other = 1;
        r1cs_free(&cs);
    }
    if (have_other) groth16_params_free(&other_params);
    printf("shapes: %u of %u set up, proven and verified\n", proven, total);
    CHECK(proven + 1 == total);
}

/* Every single-bit flip of the 192 bytes is rejected, by the decoder or by the verifier. */
static void test_bit_flips(rng_t *rng)
{
    random_circuit_params rp = {.num_inputs = 2, .num_aux = 6, .num_constraints = 9, .max_terms = 3};
    r1cs cs;
    cuzk_error err;
    CHECK(random_circuit_build(rng, &rp, &cs, &err) == CUZK_OK);
    groth16_params p;
    CHECK(groth16_setup(pool, &cs, &p, &err) == CUZK_OK);
    groth16_proof proof;
    CHECK(groth16_prove(pool, &p, &cs, NULL, NULL, NULL, NULL, &proof, NULL, &err) == CUZK_OK);
    groth16_pvk pvk;
    CHECK(groth16_pvk_prepare(&pvk, &p.vk, &err) == CUZK_OK);
    uint8_t bytes[GROTH16_PROOF_BYTES];
    groth16_proof_write(bytes, &proof);
    int accepted = 0, decoded = 0;
    for (size_t bit = 0; bit < 8 * GROTH16_PROOF_BYTES; bit++) {
        uint8_t b[GROTH16_PROOF_BYTES];
        memcpy(b, bytes, sizeof(b));
        b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        groth16_proof q;
        if (groth16_proof_read(&q, b, &err) != CUZK_OK) continue;
        decoded++;
        if (groth16_verify(pool, &pvk, &q, cs.inputs + 1, cs.num_inputs - 1, &err) == CUZK_OK) {
            accepted++;
            fprintf(stderr, "bit %zu flipped: still accepted\n", bit);
        }
    }
    CHECK(accepted == 0);
    printf("bit flips: %d of %d decoded, all rejected by the verifier\n", decoded, 8 * GROTH16_PROOF_BYTES);
    groth16_pvk_free(&pvk);
    groth16_params_free(&p);
    r1cs_free(&cs);
}

static void test_batch(rng_t *rng)
{
    random_circuit_params rp = {.num_inputs = 3, .num_aux = 20, .num_constraints = 30, .max_terms = 4};
    r1cs cs;
    cuzk_error err;
    CHECK(random_circuit_build(rng, &rp, &cs, &err) == CUZK_OK);
    groth16_params p;
    CHECK(groth16_setup(pool, &cs, &p, &err) == CUZK_OK);
    groth16_pvk pvk;
    CHECK(groth16_pvk_prepare(&pvk, &p.vk, &err) == CUZK_OK);
    enum { N = 7 };
    groth16_proof proofs[N];
    size_t npub = cs.num_inputs - 1;
    fr_t *inputs = malloc(N * npub * sizeof(fr_t));
    for (int i = 0; i < N; i++) {
        CHECK(groth16_prove(pool, &p, &cs, NULL, NULL, NULL, NULL, &proofs[i], NULL, &err) == CUZK_OK);
        memcpy(inputs + i * npub, cs.inputs + 1, npub * sizeof(fr_t));
    }
    cuzk_status st = groth16_verify_batch(pool, &pvk, proofs, N, inputs, npub, &err);
    CHECK_MSG(st == CUZK_OK, "batch: %s", err.msg);

    /* one bad proof anywhere in the batch: C swapped with A of another proof, or one input changed */
    size_t bad = rng_next(rng) % N;
    groth16_proof saved = proofs[bad];
    proofs[bad].c = proofs[(bad + 1) % N].a;
    CHECK(groth16_verify_batch(pool, &pvk, proofs, N, inputs, npub, &err) == CUZK_ERR_INVALID_PROOF);
    proofs[bad] = saved;
    fr_t one;
    fr_set_one(&one);
    fr_add(&inputs[bad * npub], &inputs[bad * npub], &one);
    CHECK(groth16_verify_batch(pool, &pvk, proofs, N, inputs, npub, &err) == CUZK_ERR_INVALID_PROOF);
    fr_sub(&inputs[bad * npub], &inputs[bad * npub], &one);
    CHECK(groth16_verify_batch(pool, &pvk, proofs, N, inputs, npub, &err) == CUZK_OK);
    /* two proofs whose errors would cancel in an unweighted sum: A_0 + D and A_1 - D */
    {
        g1_jac_t d, x;
        g1_random(&d, rng);
        groth16_proof two[2] = {proofs[0], proofs[1]};
        g1_jac_from_affine(&x, &two[0].c);
        g1_jac_add(&x, &x, &d);
        g1_jac_to_affine(&two[0].c, &x);
        g1_jac_neg(&d, &d);
        g1_jac_from_affine(&x, &two[1].c);
        g1_jac_add(&x, &x, &d);
        g1_jac_to_affine(&two[1].c, &x);
        CHECK(groth16_verify_batch(pool, &pvk, two, 2, inputs, npub, &err) == CUZK_ERR_INVALID_PROOF);
    }
    /* a point outside its subgroup is refused by the verifier itself (no decoder involved) */
    {
        groth16_proof q = proofs[0];
        g1_random_on_curve(&q.a, rng);
        if (!g1_affine_in_subgroup(&q.a)) {
            CHECK(groth16_verify(pool, &pvk, &q, inputs, npub, &err) == CUZK_ERR_INVALID_PROOF);
            groth16_proof b2[2] = {q, proofs[1]};
            CHECK(groth16_verify_batch(pool, &pvk, b2, 2, inputs, npub, &err) == CUZK_ERR_INVALID_PROOF);
        }
    }
    CHECK(groth16_verify_batch(pool, &pvk, proofs, N, inputs, npub + 1, &err) == CUZK_ERR_INVALID_ARG);

    /* multi-partition encoding */
    uint8_t buf[N * GROTH16_PROOF_BYTES];
    groth16_proofs_write(buf, proofs, N);
    groth16_proof back[N];
    CHECK(groth16_proofs_read(back, N, buf, sizeof(buf), &err) == CUZK_OK);
    for (int i = 0; i < N; i++) CHECK(proof_eq(&back[i], &proofs[i]));
    CHECK(groth16_proofs_read(back, N, buf, sizeof(buf) - 1, &err) == CUZK_ERR_FORMAT);
    CHECK(groth16_proofs_read(back, N - 1, buf, sizeof(buf), &err) == CUZK_ERR_FORMAT);
    buf[3 * GROTH16_PROOF_BYTES] = 0x40 | 0x80; /* partition 3's A becomes compressed infinity with junk */
    CHECK(groth16_proofs_read(back, N, buf, sizeof(buf), &err) != CUZK_OK);
    CHECK_MSG(strstr(err.msg, "partition 3") != NULL, "message: %s", err.msg);
    /* infinity proper is refused as bellperson does */
    uint8_t one_proof[GROTH16_PROOF_BYTES];
    groth16_proof_write(one_proof, &proofs[0]);
    memset(one_proof + 144, 0, 48);
    one_proof[144] = 0xc0;
    CHECK(groth16_proof_read(&back[0], one_proof, &err) == CUZK_ERR_FORMAT);

    free(inputs);
    groth16_pvk_free(&pvk);
    groth16_params_free(&p);
    r1cs_free(&cs);
}

/* prove_start / prove_finish as two halves, with the density from the caller, and the size checks. */
static void test_split_and_mismatch(rng_t *rng)
{
    random_circuit_params rp = {.num_inputs = 1, .num_aux = 12, .num_constraints = 17, .max_terms = 3};
    r1cs cs, cs2;
    cuzk_error err;
    CHECK(random_circuit_build(rng, &rp, &cs, &err) == CUZK_OK);
    rp.num_constraints = 40;
    CHECK(random_circuit_build(rng, &rp, &cs2, &err) == CUZK_OK);
    groth16_params p;
    CHECK(groth16_setup(pool, &cs, &p, &err) == CUZK_OK);
    r1cs_density dn;
    CHECK(r1cs_compute_density(&cs, &dn, &err) == CUZK_OK);
    groth16_pending pend;
    groth16_timings tm;
    memset(&tm, 0, sizeof(tm));
    CHECK(groth16_prove_start(pool, &p, &cs, cs.inputs, cs.aux, &dn, &pend, &tm, &err) == CUZK_OK);
    fr_t r, s;
    fr_random(&r, rng);
    fr_random(&s, rng);
    groth16_proof a, b;
    CHECK(groth16_prove_finish(pool, &pend, &r, &s, &a, &tm, &err) == CUZK_OK);
    CHECK(groth16_prove(pool, &p, &cs, NULL, NULL, &r, &s, &b, NULL, &err) == CUZK_OK);
    CHECK(proof_eq(&a, &b));
    CHECK(groth16_prove_finish(pool, &pend, &r, NULL, &a, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(tm.eval_abc_ms >= 0 && tm.h_ms >= 0 && tm.msm_b_g2_ms >= 0 && tm.assembly_ms >= 0);

    /* parameters of another circuit */
    r1cs_density dn2;
    CHECK(r1cs_compute_density(&cs2, &dn2, &err) == CUZK_OK);
    cuzk_status st = groth16_prove_start(pool, &p, &cs2, cs2.inputs, cs2.aux, &dn2, &pend, NULL, &err);
    CHECK(st == CUZK_ERR_INVALID_ARG);
    /* input 0 must be ONE */
    fr_t saved = cs.inputs[0];
    fr_set_zero(&cs.inputs[0]);
    CHECK(groth16_prove_start(pool, &p, &cs, cs.inputs, cs.aux, &dn, &pend, NULL, &err) == CUZK_ERR_INVALID_ARG);
    cs.inputs[0] = saved;
    /* a wrong witness gives a proof that does not verify (the prover does not check satisfaction) */
    fr_t one;
    fr_set_one(&one);
    fr_add(&cs.aux[0], &cs.aux[0], &one);
    groth16_pvk pvk;
    CHECK(groth16_pvk_prepare(&pvk, &p.vk, &err) == CUZK_OK);
    if (groth16_prove(pool, &p, &cs, NULL, NULL, NULL, NULL, &a, NULL, &err) == CUZK_OK)
        CHECK(groth16_verify(pool, &pvk, &a, cs.inputs + 1, cs.num_inputs - 1, &err) == CUZK_ERR_INVALID_PROOF);
    groth16_pvk_free(&pvk);
    r1cs_density_free(&dn);
    r1cs_density_free(&dn2);
    groth16_params_free(&p);
    r1cs_free(&cs);
    r1cs_free(&cs2);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_groth16_prove");
    cuzk_error err;
    if (pool_create(&pool, 2, &err) != CUZK_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    test_shapes(&rng);
    test_split_and_mismatch(&rng);
    test_batch(&rng);
    test_bit_flips(&rng);
    pool_destroy(pool);
    return test_finish("test_groth16_prove");
}
