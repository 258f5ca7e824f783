/* The GPU partition's witness split (src/gpu/classify.c, host code): every query's ones mask, tail and whole
 * scalar vector against a direct reference, for each split mode, with and without a thread pool, at sizes that
 * cross the classification's blocks (65536 aux) and 64-bit words; a bad density is refused. Needs no GPU. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "gpu/classify.h"

static int fr_kind(const fr_t *v)
{
    fr_t one;
    fr_set_one(&one);
    if (fr_is_zero(v)) return 0;
    return fr_eq(v, &one) ? 1 : 2;
}

static int bit(const uint64_t *m, size_t i)
{
    return (int)((m[i / 64] >> (i % 64)) & 1);
}

/* The reference: a query's scalars per base (the CPU prover's selection), then the split checked against them. */
static void check_query(const gpu_cls_query *q, const fr_t *scalars, size_t nbases, size_t forced_tail,
                        gpu_prove_split mode, const char *what)
{
    size_t ones = 0, tail = forced_tail;
    for (size_t i = forced_tail; i < nbases; i++) {
        int k = fr_kind(&scalars[i]);
        ones += k == 1;
        tail += k == 2;
    }
    CHECK_MSG(q->nbases == nbases, "%s: nbases %zu, want %zu", what, q->nbases, nbases);
    CHECK_MSG(q->ones_n == ones, "%s: ones %zu, want %zu", what, q->ones_n, ones);
    CHECK_MSG(q->tail_n == tail, "%s: tail %zu, want %zu", what, q->tail_n, tail);
    int split = mode == GPU_SPLIT_ALWAYS ? 1 : mode == GPU_SPLIT_NEVER ? 0 : 2 * tail <= nbases;
    CHECK_MSG(q->split == split, "%s: split %d, want %d", what, q->split, split);
    if (q->nbases != nbases || q->tail_n != tail || q->split != split) return;
    if (!split) {
        if (q->full == NULL) return; /* L: the caller uses aux itself */
        size_t bad = 0;
        for (size_t i = 0; i < nbases; i++) bad += !fr_eq(&q->full[i], &scalars[i]);
        CHECK_MSG(bad == 0, "%s: %zu whole scalars differ", what, bad);
        return;
    }
    size_t bad_mask = 0, bad_tail = 0, t = 0;
    for (size_t i = 0; i < nbases; i++) {
        int k = i < forced_tail ? 2 : fr_kind(&scalars[i]);
        bad_mask += bit(q->ones, i) != (k == 1);
        if (k == 2) {
            if (t >= tail || q->tail_i[t] != i || !fr_eq(&q->tail_s[t], &scalars[i])) bad_tail++;
            t++;
        }
    }
    for (size_t i = nbases; i < (nbases + 63) / 64 * 64; i++) bad_mask += bit(q->ones, i);
    CHECK_MSG(bad_mask == 0, "%s: %zu mask bits wrong", what, bad_mask);
    CHECK_MSG(bad_tail == 0, "%s: %zu tail entries wrong", what, bad_tail);
}

static uint64_t *random_mask(rng_t *rng, size_t n, unsigned pct, size_t *count)
{
    uint64_t *m = calloc((n + 63) / 64 + 1, sizeof *m);
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (rng_next(rng) % 100 < pct) {
            m[i / 64] |= 1ull << (i % 64);
            (*count)++;
        }
    return m;
}

/* One random witness: pz % zeros, po % ones, the rest random; density of A and B pa % and pb %. */
static void run_case(rng_t *rng, pool_t *pool, size_t num_inputs, size_t num_aux, unsigned pz, unsigned po, unsigned pa,
                     unsigned pb)
{
    fr_t *inputs = malloc((num_inputs + 1) * sizeof *inputs), *aux = malloc((num_aux + 1) * sizeof *aux);
    for (size_t i = 0; i < num_inputs; i++) fr_random(&inputs[i], rng);
    if (num_inputs) fr_set_one(&inputs[0]);
    for (size_t i = 0; i < num_aux; i++) {
        unsigned r = (unsigned)(rng_next(rng) % 100);
        if (r < pz)
            fr_set_zero(&aux[i]);
        else if (r < pz + po)
            fr_set_one(&aux[i]);
        else
            fr_random(&aux[i], rng);
    }
    r1cs_density dn;
    dn.a_aux = random_mask(rng, num_aux, pa, &dn.a_aux_count);
    dn.b_aux = random_mask(rng, num_aux, pb, &dn.b_aux_count);
    dn.b_input = random_mask(rng, num_inputs, 50, &dn.b_input_count);

    /* The CPU prover's scalars per base of each query. */
    size_t na = num_inputs + dn.a_aux_count, nb = dn.b_input_count + dn.b_aux_count;
    fr_t *sa = malloc((na + 1) * sizeof *sa), *sb = malloc((nb + 1) * sizeof *sb);
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < num_inputs; i++) sa[ia++] = inputs[i];
    for (size_t i = 0; i < num_inputs; i++)
        if (bit(dn.b_input, i)) sb[ib++] = inputs[i];
    for (size_t i = 0; i < num_aux; i++) {
        if (bit(dn.a_aux, i)) sa[ia++] = aux[i];
        if (bit(dn.b_aux, i)) sb[ib++] = aux[i];
    }

    static const gpu_prove_split modes[3] = {GPU_SPLIT_AUTO, GPU_SPLIT_ALWAYS, GPU_SPLIT_NEVER};
    for (int m = 0; m < 3; m++) {
        gpu_classify cl;
        memset(&cl, 0, sizeof cl);
        cl.inputs = inputs;
        cl.aux = aux;
        cl.num_inputs = num_inputs;
        cl.num_aux = num_aux;
        cl.dn = &dn;
        cl.mode = modes[m];
        cl.pool = pool;
        gpu_classify_run(&cl);
        CHECK_MSG(cl.st == CUZK_OK, "classify: %s", cl.err.msg);
        if (cl.st == CUZK_OK) {
            char what[96];
            snprintf(what, sizeof what, "L (aux %zu, mode %d)", num_aux, m);
            check_query(&cl.q[GPU_Q_L], aux, num_aux, 0, modes[m], what);
            CHECK(cl.q[GPU_Q_L].full == NULL);
            snprintf(what, sizeof what, "A (aux %zu, mode %d)", num_aux, m);
            check_query(&cl.q[GPU_Q_A], sa, na, num_inputs, modes[m], what);
            snprintf(what, sizeof what, "B (aux %zu, mode %d)", num_aux, m);
            check_query(&cl.q[GPU_Q_B], sb, nb, dn.b_input_count, modes[m], what);
        }
        gpu_classify_free(&cl);
    }

    /* A density whose popcount disagrees with its mask is refused, naming both. */
    if (num_aux > 0) {
        gpu_classify cl;
        memset(&cl, 0, sizeof cl);
        r1cs_density bad = dn;
        bad.a_aux_count++;
        cl.inputs = inputs;
        cl.aux = aux;
        cl.num_inputs = num_inputs;
        cl.num_aux = num_aux;
        cl.dn = &bad;
        cl.pool = pool;
        gpu_classify_run(&cl);
        CHECK(cl.st == CUZK_ERR_INVALID_ARG);
        CHECK(strstr(cl.err.msg, "density") != NULL);
        gpu_classify_free(&cl);
    }
    free(sa);
    free(sb);
    free(dn.a_aux);
    free(dn.b_aux);
    free(dn.b_input);
    free(inputs);
    free(aux);
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_gpu_classify");
    pool_t *pool = NULL;
    cuzk_error err;
    if (pool_create(&pool, 3, &err) != CUZK_OK) {
        fprintf(stderr, "pool_create: %s\n", err.msg);
        return 1;
    }
    pool_t *pools[2] = {NULL, pool};
    for (int p = 0; p < 2; p++) {
        run_case(&rng, pools[p], 1, 1, 30, 30, 50, 50);
        run_case(&rng, pools[p], 3, 63, 30, 30, 50, 50);
        run_case(&rng, pools[p], 2, 64, 0, 100, 100, 100);
        run_case(&rng, pools[p], 5, 1000, 10, 80, 60, 40);           /* mostly ones: split */
        run_case(&rng, pools[p], 5, 1000, 5, 5, 60, 40);             /* mostly others: whole */
        run_case(&rng, pools[p], 7, 65536 * 2 + 77, 40, 40, 50, 30); /* three blocks, shared mask words */
    }
    pool_destroy(pool);
    return test_finish("test_gpu_classify");
}
