/* engine_open: the backend chosen (AUTO on the CPU when no GPU is visible, GPU refused then, the CPU when asked),
 * the notes (devices asked for without a GPU, a pinned budget on a backend that cannot pin), the engine and the
 * residency wired to that backend (a set loaded through the residency proves a synthetic job, and its id changes
 * with each load), and engine_close freeing everything (checked under ASan/LSan). */
#include <string.h>

#include "circuits/synthetic.h"
#include "engine/open.h"
#include "gpu/gpu.h"
#include "testutil.h"

#define K 6
#define SEED 3

static cuzk_status load_synthetic(void *ctx, groth16_params *out, cuzk_error *err)
{
    r1cs shape;
    cuzk_status st = synthetic_build(NULL, K, SEED, R1CS_MATRICES, &shape, err);
    if (st != CUZK_OK) return st;
    (*(int *)ctx)++;
    st = groth16_setup(NULL, &shape, out, err);
    r1cs_free(&shape);
    return st;
}

static cuzk_status synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)ctx, (void)payload, (void)partition;
    return synthetic_build(NULL, K, SEED, R1CS_WITNESS, wit, err);
}

/* One job of 2 partitions over the residency's set: proved and self-verified. */
static void prove_once(engine_host *h, const r1cs *shape, uint64_t *id)
{
    cuzk_error err;
    engine_params *set = NULL;
    cuzk_status st = engine_residency_acquire(h->res, "syn", &set, &err);
    CHECK_MSG(st == CUZK_OK, "acquire: %s", err.msg);
    if (st != CUZK_OK) return;
    *id = engine_params_id(set);
    engine_circuit c;
    st = engine_circuit_init(&c, "syn", engine_params_get(set), shape, synth, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "circuit: %s", err.msg);
    if (st == CUZK_OK) {
        engine_request rq = {.circuit = &c, .partitions = 2, .priority = ENGINE_PRIO_NORMAL};
        uint64_t job;
        engine_result r;
        memset(&r, 0, sizeof(r));
        st = engine_submit(h->eng, &rq, &job, &err);
        if (st == CUZK_OK) st = engine_wait(h->eng, job, &r, &err);
        CHECK_MSG(st == CUZK_OK && r.verified && r.partitions == 2, "job: %s", err.msg);
        engine_result_free(&r);
        engine_circuit_free(&c);
    }
    engine_residency_release(h->res, set);
}

int main(void)
{
    cuzk_error err;
    pool_t *pool = NULL;
    CHECK(pool_create(&pool, 2, &err) == CUZK_OK);
    r1cs shape;
    CHECK(synthetic_build(NULL, K, SEED, R1CS_MATRICES, &shape, &err) == CUZK_OK);
    int gpus = gpu_device_count();

    /* The CPU when asked; a pinned budget there is a note, not a tier. */
    engine_open_config oc = {.backend = ENGINE_BACKEND_CPU,
                             .pool = pool,
                             .abc_on_device = -1,
                             .engine = {.synth_pool = pool},
                             .pinned_budget = 1 << 20,
                             .idle_evict_s = 60};
    engine_host *h = NULL;
    cuzk_status st = engine_open(&oc, &h, &err);
    CHECK_MSG(st == CUZK_OK, "open cpu: %s", err.msg);
    if (st == CUZK_OK) {
        CHECK(!strcmp(h->backend->name, "cpu") && !h->on_devices && h->num_devices == 1 && h->devices[0] == 0);
        CHECK(h->pinned_budget == 0 && strstr(h->pinned_note, "cpu backend") && h->backend_note[0] == 0);
        CHECK(h->eng && h->res && engine_residency_state_of(h->res, "syn") == ENGINE_PARAMS_UNKNOWN);
        int loads = 0;
        CHECK(engine_residency_add(h->res, "syn", load_synthetic, &loads, &err) == CUZK_OK);
        uint64_t id1 = 0, id2 = 0, id3 = 0;
        prove_once(h, &shape, &id1);
        prove_once(h, &shape, &id2); /* still warm: the same load */
        CHECK(engine_residency_evict(h->res, "syn", NULL) == 1);
        prove_once(h, &shape, &id3); /* loaded again: a new id */
        CHECK_MSG(loads == 2 && id1 && id1 == id2 && id3 != id1, "loads %d, ids %llu %llu %llu", loads,
                  (unsigned long long)id1, (unsigned long long)id2, (unsigned long long)id3);
        engine_close(h); /* with the set still loaded (warm) */
    }

    if (gpus == 0) {
        /* AUTO without a GPU: the CPU, silently, unless devices were asked for. */
        oc.backend = ENGINE_BACKEND_AUTO;
        oc.pinned_budget = 0;
        st = engine_open(&oc, &h, &err);
        CHECK_MSG(st == CUZK_OK && !strcmp(h->backend->name, "cpu") && h->backend_note[0] == 0 &&
                      h->pinned_note[0] == 0,
                  "auto: %s", err.msg);
        if (st == CUZK_OK) engine_close(h);
        int devs[1] = {0};
        oc.devices = devs;
        oc.num_devices = 1;
        st = engine_open(&oc, &h, &err);
        CHECK_MSG(st == CUZK_OK && !strcmp(h->backend->name, "cpu") && strstr(h->backend_note, "no GPU is visible"),
                  "auto with devices: %s", st == CUZK_OK ? h->backend_note : err.msg);
        if (st == CUZK_OK) engine_close(h);
        /* The GPU when asked: refused, nothing left open. */
        oc.backend = ENGINE_BACKEND_GPU;
        h = (engine_host *)&oc; /* must be reset */
        st = engine_open(&oc, &h, &err);
        CHECK_MSG(st == CUZK_ERR_UNSUPPORTED && h == NULL && strstr(err.msg, "no CUDA device"), "gpu: %s", err.msg);
    } else {
        /* A device that does not exist is an error, also for AUTO. */
        int devs[1] = {gpus};
        oc.backend = ENGINE_BACKEND_AUTO;
        oc.devices = devs;
        oc.num_devices = 1;
        st = engine_open(&oc, &h, &err);
        CHECK_MSG(st == CUZK_ERR_INVALID_ARG && strstr(err.msg, "does not exist"), "missing device: %s", err.msg);
    }
    engine_close(NULL);
    r1cs_free(&shape);
    pool_destroy(pool);
    return test_finish("test_open");
}
