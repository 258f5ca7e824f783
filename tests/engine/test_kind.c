/* The proof-kind table (engine/kind.h): every entry complete (or, for a kind not proved yet, naming only what the
 * daemon reports), ids/labels/metrics unique, engine_kind_find and engine_kind_of_set (canonical set ids), the
 * PoRep entry on the committed 2 KiB C1 (plan, public inputs) and on bad C1s (truncated, corrupted, the wrong
 * sector_size: refused with a message), the CIRCUIT_SPEC entry end to end up to the engine request (check, parse,
 * set set up in memory, circuit, request, a request that does not fit refused), and engine_kind_input_copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/kind.h"
#include "testutil.h"

static void check_table(void)
{
    size_t n;
    const engine_kind *const *ks = engine_kinds(&n);
    CHECK(n >= 5);
    int implemented = 0;
    for (size_t i = 0; i < n; i++) {
        const engine_kind *k = ks[i];
        CHECK_MSG(k->label && k->metric && k->what && k->label[0] && k->metric[0] && k->what[0], "entry %zu", i);
        CHECK_MSG(k->default_priority >= ENGINE_PRIO_LOW && k->default_priority <= ENGINE_PRIO_CRITICAL, "%s",
                  k->label);
        CHECK_MSG(k->set_known != NULL, "%s: set_known", k->label);
        CHECK(engine_kind_find(k->id) == k);
        if (engine_kind_implemented(k)) {
            implemented++;
            CHECK_MSG(k->job_free && k->set_load && k->circuit_create && k->circuit_engine && k->circuit_free &&
                          k->request && k->public_inputs,
                      "%s: an implemented entry without every member", k->label);
        } else {
            CHECK_MSG(!k->check && !k->job_free && !k->set_load && !k->circuit_create && !k->circuit_engine &&
                          !k->circuit_free && !k->request && !k->public_inputs,
                      "%s: a not-implemented entry with proving members", k->label);
        }
        for (size_t j = 0; j < i; j++) {
            CHECK_MSG(ks[j]->id != k->id, "duplicate id %d", k->id);
            CHECK_MSG(strcmp(ks[j]->label, k->label) && strcmp(ks[j]->metric, k->metric), "duplicate %s", k->label);
        }
    }
    CHECK(implemented >= 2);
    /* The GetStatus queue names and metric labels of the Rust daemon, in cuzk.v1.ProofKind order. */
    static const struct {
        int id;
        const char *label, *metric;
    } want[] = {{1, "porep-c2", "porep_c2"},
                {2, "snap-update", "snap_update"},
                {3, "window-post", "window_post"},
                {4, "winning-post", "winning_post"},
                {100, "circuit", "circuit"}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const engine_kind *k = engine_kind_find(want[i].id);
        CHECK_MSG(k && !strcmp(k->label, want[i].label) && !strcmp(k->metric, want[i].metric), "kind %d", want[i].id);
    }
    CHECK(engine_kind_find(0) == NULL && engine_kind_find(7) == NULL);
    CHECK(engine_kind_find(1) == &engine_kind_porep_c2 && engine_kind_find(100) == &engine_kind_circuit_spec);
    CHECK(engine_kind_find(4)->default_priority == ENGINE_PRIO_CRITICAL);
    CHECK(engine_kind_find(3)->default_priority == ENGINE_PRIO_HIGH);

    char id[ENGINE_KIND_SET_MAX];
    CHECK(engine_kind_of_set("porep-32g", id, sizeof(id)) == &engine_kind_porep_c2 && !strcmp(id, "porep-32g"));
    CHECK(engine_kind_of_set("porep-2k-ni", id, sizeof(id)) == &engine_kind_porep_c2 && !strcmp(id, "porep-2k-ni"));
    CHECK(engine_kind_of_set("porep-64g", NULL, 0) == &engine_kind_porep_c2);
    CHECK(engine_kind_of_set("porep-3g", id, sizeof(id)) == NULL);
    CHECK(engine_kind_of_set("synthetic:k=9", id, sizeof(id)) == &engine_kind_circuit_spec &&
          !strcmp(id, "synthetic:k=9,seed=1"));
    CHECK(engine_kind_of_set("synthetic:k=99", id, sizeof(id)) == NULL);
    CHECK(engine_kind_of_set("porep:2KiB", id, sizeof(id)) == NULL); /* a circuit spec, but not CIRCUIT_SPEC's */
    const engine_kind *w = engine_kind_of_set("wpost-32g", id, sizeof(id));
    CHECK(w && w->id == 3 && !strcmp(id, "wpost-32g"));
    CHECK(engine_kind_of_set("winning-32g", NULL, 0) == engine_kind_find(4));
    CHECK(engine_kind_of_set("snap-64g", NULL, 0) == engine_kind_find(2));
    CHECK(engine_kind_of_set("bogus", id, sizeof(id)) == NULL && engine_kind_of_set("", NULL, 0) == NULL);
}

static void check_porep(void)
{
    const engine_kind *k = &engine_kind_porep_c2;
    const char *dir = getenv("CUZK_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof(path), "%s/porep/c1-2kib.json", dir ? dir : "tests/data");
    size_t len;
    uint8_t *c1 = test_read_file(path, &len);
    CHECK_MSG(c1 != NULL, "cannot read %s", path);
    if (!c1) return;

    engine_kind_input in = {.vanilla_proof = {c1, len}};
    void *job = NULL;
    engine_kind_plan plan;
    cuzk_error err;
    cuzk_status st = k->parse(&in, &job, &plan, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) {
        CHECK_MSG(!strcmp(plan.set, "porep-2k"), "set %s", plan.set);
        CHECK_MSG(strstr(plan.variant, "2KiB") != NULL, "variant %s", plan.variant);
        CHECK(plan.partitions == 1);
        CHECK(plan.summary[0] != 0);
        fr_t *pub = NULL;
        size_t n = 0;
        st = k->public_inputs(job, 0, &pub, &n, &err);
        CHECK_MSG(st == CUZK_OK && n > 3, "%s", err.msg);
        free(pub);
        st = k->public_inputs(job, plan.partitions, &pub, &n, &err);
        CHECK(st == CUZK_ERR_INVALID_ARG && pub == NULL && strstr(err.msg, "partition"));
        k->job_free(job);
    }

    /* The request's sector_size must be the C1's. */
    in.sector_size = 34359738368ull;
    job = NULL;
    st = k->parse(&in, &job, &plan, &err);
    CHECK(st == CUZK_ERR_INVALID_ARG && job == NULL && strstr(err.msg, "sector_size 34359738368"));
    in.sector_size = 2048;
    st = k->parse(&in, &job, &plan, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) k->job_free(job);
    in.sector_size = 0;

    /* Truncated, empty, and a corrupted value: refused, naming the C1. */
    size_t cuts[] = {0, 1, len / 3, len - 2};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        in.vanilla_proof.len = cuts[i];
        in.vanilla_proof.data = cuts[i] ? c1 : NULL;
        job = NULL;
        memset(&err, 0, sizeof(err));
        st = k->parse(&in, &job, &plan, &err);
        CHECK_MSG(st != CUZK_OK && job == NULL && strstr(err.msg, "invalid C1 (vanilla_proof)"), "cut at %zu: %d %s",
                  cuts[i], (int)st, err.msg);
    }
    char *bad = malloc(len);
    if (bad) {
        memcpy(bad, c1, len);
        char *r = strstr(bad, "\"comm_r\"");
        if (r) {
            char *digit = r + strcspn(r, "0123456789");
            *digit = 'x';
        }
        in.vanilla_proof = (engine_bytes){(const uint8_t *)bad, len};
        job = NULL;
        st = k->parse(&in, &job, &plan, &err);
        CHECK_MSG(r && st != CUZK_OK && job == NULL && strstr(err.msg, "invalid C1"), "%s", err.msg);
        free(bad);
    }

    /* A set's file that is not there: an I/O error naming it. */
    groth16_params p;
    memset(&p, 0, sizeof(p));
    st = k->set_load("porep-2k", "/nonexistent-cuzk-dir", 0, NULL, &p, &err);
    CHECK_MSG(st == CUZK_ERR_IO && strstr(err.msg, "porep-2k.params"), "%d %s", (int)st, err.msg);
    st = k->set_load("synthetic:k=4", "/nonexistent-cuzk-dir", 0, NULL, &p, &err);
    CHECK(st == CUZK_ERR_INVALID_ARG);
    free(c1);
}

static void check_circuit_spec(void)
{
    const engine_kind *k = &engine_kind_circuit_spec;
    cuzk_error err;
    engine_kind_input in = {0};
    CHECK(k->check(&in, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "needs the circuit field"));
    in.circuit = "synthetic:k=99";
    CHECK(k->check(&in, &err) == CUZK_ERR_INVALID_ARG && !strncmp(err.msg, "circuit: ", 9));
    in.circuit = "porep:2KiB";
    CHECK(k->check(&in, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "POREP_SEAL_COMMIT"));
    in.circuit = "synthetic:k=4";
    in.partitions = 257;
    CHECK(k->check(&in, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "partitions: 257"));
    in.partitions = 0;
    in.circuit = "synthetic:k=4,partitions=3";
    CHECK(k->check(&in, &err) == CUZK_OK);

    void *job = NULL;
    engine_kind_plan plan;
    cuzk_status st = k->parse(&in, &job, &plan, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st != CUZK_OK) return;
    CHECK_MSG(!strcmp(plan.set, "synthetic:k=4,seed=1") && plan.variant[0] == 0 && plan.partitions == 3, "%s %u",
              plan.set, plan.partitions);

    groth16_params p;
    memset(&p, 0, sizeof(p));
    st = k->set_load(plan.set, "", 0, NULL, &p, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    if (st == CUZK_OK) {
        void *c = NULL;
        st = k->circuit_create(job, &plan, &p, NULL, &c, &err);
        CHECK_MSG(st == CUZK_OK, "%s", err.msg);
        if (st == CUZK_OK) {
            engine_request rq;
            st = k->request(c, job, ENGINE_PRIO_HIGH, &rq, &err);
            CHECK_MSG(st == CUZK_OK && rq.circuit == k->circuit_engine(c) && rq.partitions == 3 &&
                          rq.priority == ENGINE_PRIO_HIGH,
                      "%s", err.msg);
            /* A job of another circuit does not fit. */
            engine_kind_input other = {.circuit = "synthetic:k=5"};
            void *job5 = NULL;
            engine_kind_plan plan5;
            CHECK(k->parse(&other, &job5, &plan5, &err) == CUZK_OK);
            CHECK(k->request(c, job5, ENGINE_PRIO_NORMAL, &rq, &err) == CUZK_ERR_INVALID_ARG);
            k->job_free(job5);
            fr_t *pub = NULL;
            size_t n = 0;
            CHECK(k->public_inputs(job, 2, &pub, &n, &err) == CUZK_OK && n == p.vk.ic_len - 1);
            free(pub);
            CHECK(k->public_inputs(job, 3, &pub, &n, &err) == CUZK_ERR_INVALID_ARG);
            k->circuit_free(c);
        }
        groth16_params_free(&p);
    }
    k->job_free(job);
}

static void check_input_copy(void)
{
    uint8_t a[3] = {1, 2, 3}, b[2] = {4, 5}, r[32] = {9};
    engine_bytes v[2] = {{a, 3}, {b, 2}};
    engine_kind_input in = {.sector_size = 2048,
                            .vanilla_proof = {a, 3},
                            .vanilla_proofs = v,
                            .n_vanilla_proofs = 2,
                            .randomness = {r, 32},
                            .circuit = "synthetic:k=4",
                            .partitions = 2};
    engine_kind_input out;
    cuzk_error err;
    CHECK(engine_kind_input_copy(&in, &out, &err) == CUZK_OK);
    CHECK(out.sector_size == 2048 && out.partitions == 2 && out.n_vanilla_proofs == 2);
    CHECK(out.vanilla_proof.data != a && out.vanilla_proof.len == 3 && !memcmp(out.vanilla_proof.data, a, 3));
    CHECK(out.vanilla_proofs != v && out.vanilla_proofs[1].len == 2 && !memcmp(out.vanilla_proofs[1].data, b, 2));
    CHECK(out.randomness.len == 32 && !memcmp(out.randomness.data, r, 32) && out.comm_r_old.data == NULL);
    CHECK(out.circuit != in.circuit && !strcmp(out.circuit, in.circuit));
    engine_kind_input_free(&out);
    CHECK(out.vanilla_proofs == NULL && out.circuit == NULL);
}

int main(void)
{
    check_table();
    check_porep();
    check_circuit_spec();
    check_input_copy();
    return test_finish("test_kind");
}
