/* Host registration (gpu_host.h) and the GPU backend's parameter pinning (engine.h): bad arguments, overlap
 * refusal, disjoint ranges on one page, an MSM read from registered memory against the CPU, all-or-nothing
 * pinning, per-device memory figures, the residency's pinned tier through the backend's hooks proving on the
 * device (as the daemon wires it; a, b, c page-locked by the engine's cache), and the upload speed from
 * pageable and registered memory (printed). gpu_host_alloc: bad arguments, an impossible size, H on the device
 * from page-locked a, b, c (stale data past n) against the CPU, the backend's host hooks.
 * Without a GPU it checks that everything refuses cleanly and skips (77). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/synthetic.h"
#include "engine/engine.h"
#include "engine/residency.h"
#include "gpu/gpu.h"
#include "gpu/gpu_host.h"
#include "gpu/gpu_ntt.h"
#include "gpu/gpu_prove.h"
#include "gpu/tune.h"
#include "msm/msm.h"
#include "poly/poly.h"
#include "testutil.h"

static rng_t rng;
static pool_t *pool;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_without_gpu(void)
{
    char buf[64];
    cuzk_error err = {0};
    CHECK(gpu_host_register(buf, sizeof(buf), &err) != CUZK_OK);
    CHECK(gpu_host_unregister(buf, &err) != CUZK_OK);
    CHECK(!gpu_host_is_registered(buf));
    void *mem = buf;
    CHECK(gpu_host_alloc(64, &mem, &err) != CUZK_OK && mem == NULL); /* UNSUPPORTED, or GPU: no device */
    gpu_host_free(NULL);
    engine_backend *be = NULL;
    CHECK(gpu_params_bytes(NULL) == 0 && gpu_params_device(NULL) == -1);
    CHECK(engine_backend_gpu_create(NULL, NULL, &be, &err) == CUZK_ERR_UNSUPPORTED && be == NULL);
}

static void test_args(void)
{
    cuzk_error err = {0};
    char *buf = malloc(4096);
    CHECK(buf != NULL);
    if (!buf) return;
    CHECK(gpu_host_register(NULL, 16, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_host_register(buf, 0, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_host_unregister(NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(!gpu_host_is_registered(buf) && !gpu_host_is_registered(NULL));
    CHECK_MSG(gpu_host_unregister(buf, &err) == CUZK_ERR_INVALID_ARG, "unregistered: %s", err.msg);
    /* err may be NULL */
    CHECK(gpu_host_register(NULL, 16, NULL) == CUZK_ERR_INVALID_ARG);
    free(buf);
}

/* Registration, overlap refusal, and a device computation reading the registered memory. */
static void test_register_msm(void)
{
    const size_t n = 3000;
    size_t bytes = n * (sizeof(g1_affine_t) + sizeof(fr_t));
    uint8_t *mem = malloc(bytes);
    g1_jac_t *tmp = malloc(n * sizeof(*tmp));
    CHECK(mem && tmp);
    if (!mem || !tmp) {
        free(mem);
        free(tmp);
        return;
    }
    g1_affine_t *bases = (g1_affine_t *)mem;
    fr_t *scalars = (fr_t *)(mem + n * sizeof(g1_affine_t));
    g1_jac_t cur, step;
    g1_random(&cur, &rng);
    g1_random(&step, &rng);
    for (size_t i = 0; i < n; i++) {
        g1_jac_add(&cur, &cur, &step);
        if (i % 7 == 0) g1_random(&step, &rng);
        tmp[i] = cur;
    }
    g1_batch_to_affine(bases, tmp, n);
    for (size_t i = 0; i < n; i++) fr_random(&scalars[i], &rng);

    cuzk_error err = {0};
    cuzk_status st = gpu_host_register(mem, bytes, &err);
    CHECK_MSG(st == CUZK_OK, "register: %s", err.msg);
    if (st == CUZK_OK) {
        CHECK(gpu_host_is_registered(mem) && gpu_host_is_registered(scalars) &&
              gpu_host_is_registered(mem + bytes - 1));
        CHECK_MSG(gpu_host_register(mem, bytes, &err) == CUZK_ERR_INVALID_ARG, "twice: %s", err.msg);
        CHECK_MSG(gpu_host_register(mem + 64, 100, &err) == CUZK_ERR_INVALID_ARG, "inside: %s", err.msg);
        /* Not the start of the registration: refused, and the registration stays. */
        CHECK(gpu_host_unregister(mem + 64, &err) == CUZK_ERR_INVALID_ARG && gpu_host_is_registered(mem));

        gpu_ctx *ctx = NULL;
        st = gpu_ctx_create(&ctx, 0, &err);
        CHECK_MSG(st == CUZK_OK, "ctx: %s", err.msg);
        if (st == CUZK_OK) {
            g1_jac_t got, want;
            memset(&got, 0x5a, sizeof(got));
            st = gpu_msm_g1(ctx, &got, bases, scalars, n, &err);
            CHECK_MSG(st == CUZK_OK, "msm from registered memory: %s", err.msg);
            msm_g1(pool, &want, bases, scalars, NULL, n);
            CHECK_MSG(st != CUZK_OK || g1_jac_eq(&got, &want), "MSM from registered memory differs from the CPU");
            gpu_buf *b = NULL;
            st = gpu_buf_upload(ctx, &b, mem, bytes, &err);
            CHECK_MSG(st == CUZK_OK && gpu_buf_size(b) == bytes, "upload from registered memory: %s", err.msg);
            gpu_buf_free(b);
            gpu_ctx_destroy(ctx);
        }
        CHECK_MSG(gpu_host_unregister(mem, &err) == CUZK_OK, "unregister: %s", err.msg);
        CHECK(!gpu_host_is_registered(mem) && !gpu_host_is_registered(scalars));
        CHECK(gpu_host_unregister(mem, &err) == CUZK_ERR_INVALID_ARG);
    }
    free(mem);
    free(tmp);
}

/* gpu_host_alloc: arguments, an impossible size refused as NOMEM, and the NTT's H from page-locked a, b, c whose
 * elements past n are garbage (as in a reused engine buffer) against the CPU's poly_compute_h. */
static void test_host_alloc(void)
{
    cuzk_error err = {0};
    void *p = (void *)&err;
    CHECK(gpu_host_alloc(0, &p, &err) == CUZK_ERR_INVALID_ARG && p == NULL);
    CHECK(gpu_host_alloc(16, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_host_alloc(0, NULL, NULL) == CUZK_ERR_INVALID_ARG);
    cuzk_status st;
    for (int way = 0; way < 2; way++) { /* registered malloc (default), cudaHostAlloc */
        gpu_tune saved = gpu_tune_get(), t = saved;
        t.host_alloc_cuda = way;
        gpu_tune_set(&t);
        st = gpu_host_alloc((size_t)1 << 52, &p, &err); /* 4 PiB */
        CHECK_MSG(st == CUZK_ERR_NOMEM && p == NULL, "way %d, 4 PiB: %s: %s", way, cuzk_status_name(st), err.msg);
        st = gpu_host_alloc(3 << 20, &p, &err);
        CHECK_MSG(st == CUZK_OK && p && gpu_host_is_registered(p) && gpu_host_is_registered((char *)p + (3 << 20) - 1),
                  "way %d: %s", way, err.msg);
        if (st == CUZK_OK) memset(p, 1, 3 << 20);
        gpu_tune_set(&saved);
        gpu_host_free(p); /* either way, whatever the tuning says now */
    }
    gpu_host_free(NULL);

    const unsigned log_m = 16;
    const size_t m = (size_t)1 << log_m, n = m - 37;
    fr_t *abc = NULL;
    st = gpu_host_alloc(3 * m * sizeof(fr_t), (void **)&abc, &err);
    CHECK_MSG(st == CUZK_OK && abc, "alloc: %s", err.msg);
    if (st != CUZK_OK) return;
    CHECK(gpu_host_is_registered(abc) && gpu_host_is_registered(abc + 3 * m - 1));
    memset(abc, 0xA5, 3 * m * sizeof(fr_t)); /* past n: no field element */
    fr_t *cpu = calloc(3 * m, sizeof(fr_t));
    fr_t *h = malloc(m * sizeof(fr_t));
    CHECK(cpu && h);
    gpu_ctx *ctx = NULL;
    gpu_ntt_plan *plan = NULL;
    if (cpu && h) {
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < n; i++) {
                fr_random(&abc[k * m + i], &rng);
                cpu[k * m + i] = abc[k * m + i];
            }
        domain_t d;
        st = domain_for_size(&d, n, &err);
        if (st == CUZK_OK) st = poly_compute_h(pool, &d, H_FORM_BELLPERSON, cpu, cpu + m, cpu + 2 * m, n, &err);
        if (st == CUZK_OK) st = gpu_ctx_create(&ctx, 0, &err);
        if (st == CUZK_OK) st = gpu_ntt_plan_create(ctx, log_m, POLY_ROOTS_CUZK, &plan, &err);
        if (st == CUZK_OK) st = gpu_ntt_h(plan, H_FORM_BELLPERSON, abc, abc + m, abc + 2 * m, n, h, &err);
        CHECK_MSG(st == CUZK_OK, "H from page-locked a, b, c: %s", err.msg);
        if (st == CUZK_OK) CHECK_MSG(memcmp(h, cpu, (m - 1) * sizeof(fr_t)) == 0, "device H differs from the CPU's");
    }
    gpu_ntt_plan_destroy(plan);
    gpu_ctx_destroy(ctx);
    gpu_host_free(abc);
    free(cpu);
    free(h);
}

/* The GPU backend's host hooks hand out page-locked memory. */
static void test_backend_hooks(void)
{
    cuzk_error err = {0};
    engine_backend *be = NULL;
    cuzk_status st = engine_backend_gpu_create(NULL, NULL, &be, &err);
    CHECK_MSG(st == CUZK_OK, "gpu backend: %s", err.msg);
    if (st != CUZK_OK) return;
    CHECK(be->host_alloc && be->host_free);
    void *p = NULL;
    if (be->host_alloc && be->host_free) {
        st = be->host_alloc(be, 1 << 20, &p, &err);
        CHECK_MSG(st == CUZK_OK && p && gpu_host_is_registered(p), "host_alloc: %s", err.msg);
        if (st == CUZK_OK) be->host_free(be, p, 1 << 20);
    }
    engine_backend_destroy(be);
}

/* Separate small allocations (a small parameter set's arrays) may share a page: each registers on its own. */
static void test_same_page(void)
{
    uint8_t *page = aligned_alloc(4096, 4096);
    CHECK(page != NULL);
    if (!page) return;
    cuzk_error err = {0};
    cuzk_status a = gpu_host_register(page + 16, 80, &err);
    CHECK_MSG(a == CUZK_OK, "first range: %s", err.msg);
    cuzk_status b = gpu_host_register(page + 96, 200, &err);
    CHECK_MSG(b == CUZK_OK, "second range on the same page: %s", err.msg);
    if (a == CUZK_OK) CHECK(gpu_host_unregister(page + 16, &err) == CUZK_OK);
    if (b == CUZK_OK) {
        CHECK_MSG(gpu_host_is_registered(page + 100), "the second range went with the first");
        CHECK(gpu_host_unregister(page + 96, &err) == CUZK_OK);
    }
    CHECK(!gpu_host_is_registered(page + 16) && !gpu_host_is_registered(page + 100));
    free(page);
}

static int arrays_registered(const groth16_params *p)
{
    return gpu_host_is_registered(p->h) + gpu_host_is_registered(p->a) + gpu_host_is_registered(p->b_g1) +
           gpu_host_is_registered(p->b_g2);
}

static void test_pin_params(void)
{
    cuzk_error err = {0};
    engine_backend *be = NULL, *cpu = NULL;
    /* Also what links the GPU prover's object ahead of libcuzk's backend_gpu.o, which needs it (tests link
     * cuzk_gpu before cuzk). */
    CHECK(gpu_params_bytes(NULL) == 0 && gpu_params_device(NULL) == -1);
    cuzk_status st = engine_backend_gpu_create(NULL, NULL, &be, &err);
    CHECK_MSG(st == CUZK_OK, "gpu backend: %s", err.msg);
    CHECK(engine_backend_cpu_create(NULL, NULL, &cpu, &err) == CUZK_OK);
    if (st != CUZK_OK || !cpu) {
        engine_backend_destroy(be);
        engine_backend_destroy(cpu);
        return;
    }
    groth16_params p;
    memset(&p, 0, sizeof(p));
    p.h_len = 100, p.a_len = 33, p.b_g1_len = 7, p.b_g2_len = 5; /* l empty: NULL, skipped */
    p.h = calloc(p.h_len, sizeof(g1_affine_t));
    p.a = calloc(p.a_len, sizeof(g1_affine_t));
    p.b_g1 = calloc(p.b_g1_len, sizeof(g1_affine_t));
    p.b_g2 = calloc(p.b_g2_len, sizeof(g2_affine_t));
    CHECK(p.h && p.a && p.b_g1 && p.b_g2);
    if (p.h && p.a && p.b_g1 && p.b_g2) {
        CHECK(!cpu->params_pin && !cpu->params_unpin && !cpu->params_evict && !cpu->device_memory);
        CHECK(be->params_pin && be->params_unpin && be->params_evict && be->pin_probe && be->device_memory);
        CHECK_MSG(be->pin_probe(be, &err) == CUZK_OK, "pin probe: %s", err.msg);
        CHECK(be->params_pin(be, NULL, &err) == CUZK_ERR_INVALID_ARG);
        st = be->params_pin(be, &p, &err);
        CHECK_MSG(st == CUZK_OK, "pin: %s", err.msg);
        CHECK_MSG(arrays_registered(&p) == 4, "%d of 4 arrays registered", arrays_registered(&p));
        /* Pinned twice: refused, the first pinning intact. */
        CHECK(be->params_pin(be, &p, &err) == CUZK_ERR_INVALID_ARG && arrays_registered(&p) == 4);
        be->params_unpin(be, &p);
        CHECK_MSG(arrays_registered(&p) == 0, "%d arrays left registered", arrays_registered(&p));

        /* All or nothing: b_g1 taken by someone else, so h and a (registered before it) are rolled back. */
        CHECK(gpu_host_register(p.b_g1, p.b_g1_len * sizeof(g1_affine_t), &err) == CUZK_OK);
        st = be->params_pin(be, &p, &err);
        CHECK_MSG(st == CUZK_ERR_INVALID_ARG && strstr(err.msg, "array 3 of 4"), "%s: %s", cuzk_status_name(st),
                  err.msg);
        CHECK(!gpu_host_is_registered(p.h) && !gpu_host_is_registered(p.a) && gpu_host_is_registered(p.b_g1) &&
              !gpu_host_is_registered(p.b_g2));
        CHECK(gpu_host_unregister(p.b_g1, &err) == CUZK_OK);
    }
    groth16_params_free(&p);

    engine_device_memory m;
    st = be->device_memory(be, 0, &m, &err);
    CHECK_MSG(st == CUZK_OK, "device memory: %s", err.msg);
    CHECK(st != CUZK_OK || (m.device == 0 && m.total_bytes > 0 && m.free_bytes <= m.total_bytes && m.name[0] &&
                            m.resident_bytes == 0 && m.resident_sets == 0));
    CHECK(be->device_memory(be, gpu_device_count(), &m, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(be->device_memory(be, -1, &m, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(engine_backend_gpu_resident_bytes(be) == 0);
    engine_backend_destroy(be);
    engine_backend_destroy(cpu);
}

/* ---- the residency's pinned tier on the GPU backend: the residency calls the backend's hooks itself ---- */

typedef struct fixture {
    unsigned k;
    uint64_t seed;
    r1cs shape;
    engine_backend *be;
    int loads, evictions;
} fixture;

static cuzk_status fx_load(void *ctx, groth16_params *out, cuzk_error *err)
{
    fixture *fx = ctx;
    fx->loads++;
    return groth16_setup(pool, &fx->shape, out, err);
}

static cuzk_status fx_synth(void *ctx, const void *payload, unsigned partition, r1cs *wit, cuzk_error *err)
{
    (void)payload, (void)partition;
    const fixture *fx = ctx;
    return synthetic_build(NULL, fx->k, fx->seed, R1CS_WITNESS, wit, err);
}

static void fx_notify(void *ctx, engine_residency_event ev, const char *name, uint64_t bytes, double ms,
                      const char *error)
{
    (void)name, (void)bytes, (void)ms, (void)error;
    fixture *fx = ctx;
    if (ev == ENGINE_RESIDENCY_FREED) fx->evictions++;
}

/* abc_on_device: the backend evaluates a, b, c on the device, and the engine's page-locked sets hold witnesses. */
static void test_pinned_tier(int abc_on_device)
{
    cuzk_error err = {0};
    fixture fx = {.k = 10, .seed = rng_next(&rng)};
    engine *e = NULL;
    engine_residency *res = NULL;
    engine_circuit circuit;
    memset(&circuit, 0, sizeof(circuit));
    uint64_t set_bytes = 0;
    cuzk_status st = synthetic_build(pool, fx.k, fx.seed, R1CS_MATRICES, &fx.shape, &err);
    if (st == CUZK_OK) st = engine_backend_gpu_create(pool, pool, &fx.be, &err);
    if (st == CUZK_OK) st = engine_backend_gpu_set_abc_on_device(fx.be, abc_on_device, &err);
    engine_config cfg = {.backend = fx.be, .gpu_workers = 2, .partition_workers = 2, .abc_pinned = 1};
    if (st == CUZK_OK) st = engine_create(&e, &cfg, &err);
    if (st == CUZK_OK) st = engine_residency_create(&res, engine_memory(e), &err);
    int devices[1] = {0};
    engine_residency_options ro = {.pinned_budget = 1ull << 40,
                                   .backend = fx.be,
                                   .notify = fx_notify,
                                   .notify_ctx = &fx,
                                   .devices = devices,
                                   .num_devices = 1};
    if (st == CUZK_OK) st = engine_residency_configure(res, &ro, &err);
    if (st == CUZK_OK) st = engine_residency_add(res, "synthetic", fx_load, &fx, &err);
    /* A preload puts the bases on the device before any partition asks for them (params_upload). */
    if (st == CUZK_OK) st = engine_residency_preload(res, "synthetic", &err);
    if (st == CUZK_OK) {
        engine_residency_stats ps;
        engine_residency_get_stats(res, &ps);
        CHECK_MSG(ps.uploads == 1 && ps.upload_failures == 0 && engine_backend_gpu_resident_bytes(fx.be) > 0,
                  "preload: %llu uploads, %llu failed, %zu bytes resident", (unsigned long long)ps.uploads,
                  (unsigned long long)ps.upload_failures, engine_backend_gpu_resident_bytes(fx.be));
    }
    engine_params *set = NULL;
    if (st == CUZK_OK) st = engine_residency_acquire(res, "synthetic", &set, &err);
    CHECK_MSG(st == CUZK_OK, "fixture: %s", err.msg);
    if (st != CUZK_OK) goto out;
    const groth16_params *params = engine_params_get(set);

    uint64_t bytes = engine_params_bytes(params);
    engine_residency_stats rs;
    engine_residency_get_stats(res, &rs);
    CHECK_MSG(rs.pins == 1 && rs.pin_failures == 0 && engine_residency_pinned(res, "synthetic"),
              "pins %llu, failures %llu", (unsigned long long)rs.pins, (unsigned long long)rs.pin_failures);
    CHECK(arrays_registered(params) == 4 && gpu_host_is_registered(params->l));
    engine_stats es;
    engine_get_stats(e, &es);
    CHECK(es.mem.in_use[ENGINE_MEM_PINNED] == bytes && es.mem.in_use[ENGINE_MEM_HOST] == 0);

    /* Proofs from the pinned set: uploaded from registered memory, verified against the set's vk. */
    st = engine_circuit_init(&circuit, "synthetic", params, &fx.shape, fx_synth, &fx, &err);
    CHECK_MSG(st == CUZK_OK, "circuit: %s", err.msg);
    if (st == CUZK_OK) {
        engine_request rq = {.circuit = &circuit, .partitions = 3, .priority = ENGINE_PRIO_NORMAL};
        uint64_t id;
        st = engine_submit(e, &rq, &id, &err);
        engine_result r;
        if (st == CUZK_OK) st = engine_wait(e, id, &r, &err);
        CHECK_MSG(st == CUZK_OK, "job: %s", err.msg);
        if (st == CUZK_OK) {
            CHECK_MSG(r.verified, "a proof from pinned parameters failed self-verification");
            engine_result_free(&r);
        }
        engine_device_memory m;
        CHECK(fx.be->device_memory(fx.be, 0, &m, &err) == CUZK_OK);
        CHECK_MSG(m.resident_sets == 1 && m.resident_bytes >= bytes - params->vk.ic_len * sizeof(g1_affine_t) -
                                                                  params->b_g2_len * sizeof(g2_affine_t),
                  "%u sets, %llu bytes resident of %llu", m.resident_sets, (unsigned long long)m.resident_bytes,
                  (unsigned long long)bytes);
        CHECK(engine_backend_gpu_resident_bytes(fx.be) == m.resident_bytes);
        engine_get_stats(e, &es);
        set_bytes = abc_on_device ? circuit.witness_bytes : circuit.abc_bytes;
        CHECK_MSG(es.abc_allocated >= 1 && es.abc_pinned == es.abc_allocated && !es.abc_fallback &&
                      es.mem.in_use[ENGINE_MEM_PINNED] == bytes + es.abc_idle * set_bytes,
                  "a, b, c sets: %llu allocated, %llu pinned, %u idle", (unsigned long long)es.abc_allocated,
                  (unsigned long long)es.abc_pinned, es.abc_idle);
    }
    engine_residency_release(res, set);
    /* Evicted: device copies dropped first, then unpinned, then freed (the hooks' order in residency.c). */
    CHECK(engine_residency_evict(res, "synthetic", NULL) == 1);
    engine_residency_get_stats(res, &rs);
    CHECK(rs.unpins == 1 && rs.pinned_bytes == 0 && fx.evictions == 1);
    CHECK(engine_backend_gpu_resident_bytes(fx.be) == 0);
    engine_get_stats(e, &es);
    CHECK(es.mem.in_use[ENGINE_MEM_PINNED] == es.abc_idle * set_bytes && es.mem.in_use[ENGINE_MEM_HOST] == 0);
out:
    engine_circuit_free(&circuit);
    engine_residency_destroy(res);
    engine_destroy(e);
    engine_backend_destroy(fx.be);
    r1cs_free(&fx.shape);
}

/* The point of pinning: bandwidth of one upload from pageable and from registered memory (best of 3 each),
 * and the cost of registering. CUZK_HOST_MIB sets the size (default 256). */
static void bench_upload(void)
{
    const char *env = getenv("CUZK_HOST_MIB");
    size_t mib = env ? strtoull(env, NULL, 10) : 256;
    if (mib == 0) return;
    size_t bytes = mib << 20;
    uint8_t *mem = malloc(bytes);
    CHECK(mem != NULL);
    if (!mem) return;
    for (size_t i = 0; i < bytes; i += 4096) mem[i] = (uint8_t)i; /* fault the pages in first */
    cuzk_error err = {0};
    gpu_ctx *ctx = NULL;
    cuzk_status st = gpu_ctx_create(&ctx, 0, &err);
    CHECK_MSG(st == CUZK_OK, "ctx: %s", err.msg);
    double best[2] = {1e30, 1e30}, reg_ms = 0, unreg_ms = 0;
    for (int pinned = 0; pinned < 2 && st == CUZK_OK; pinned++) {
        if (pinned) {
            double t0 = now_ms();
            st = gpu_host_register(mem, bytes, &err);
            reg_ms = now_ms() - t0;
            CHECK_MSG(st == CUZK_OK, "register %zu MiB: %s", mib, err.msg);
            if (st != CUZK_OK) break;
        }
        for (int rep = 0; rep < 3; rep++) {
            gpu_buf *b = NULL;
            double t0 = now_ms();
            cuzk_status su = gpu_buf_upload(ctx, &b, mem, bytes, &err);
            double ms = now_ms() - t0;
            CHECK_MSG(su == CUZK_OK, "upload: %s", err.msg);
            gpu_buf_free(b);
            if (ms < best[pinned]) best[pinned] = ms;
        }
        if (pinned) {
            double t0 = now_ms();
            CHECK(gpu_host_unregister(mem, &err) == CUZK_OK);
            unreg_ms = now_ms() - t0;
        }
    }
    if (st == CUZK_OK)
        printf("upload %zu MiB (gpu_buf_upload, allocation included): pageable %.2f ms (%.1f GB/s), registered "
               "%.2f ms (%.1f GB/s); register %.1f ms (%.1f GB/s), unregister %.1f ms\n",
               mib, best[0], bytes / best[0] / 1e6, best[1], bytes / best[1] / 1e6, reg_ms, bytes / reg_ms / 1e6,
               unreg_ms);
    gpu_ctx_destroy(ctx);
    free(mem);
}

/* The cost of gpu_host_alloc both ways for CUZK_HOST_MIB (default 256): allocation, first write (4 threads),
 * upload (best of 2), free. */
static void bench_host_alloc(void)
{
    const char *env = getenv("CUZK_HOST_MIB");
    size_t mib = env ? strtoull(env, NULL, 10) : 256;
    if (mib == 0) return;
    size_t bytes = mib << 20;
    cuzk_error err = {0};
    gpu_ctx *ctx = NULL;
    if (gpu_ctx_create(&ctx, 0, &err) != CUZK_OK) {
        CHECK_MSG(0, "ctx: %s", err.msg);
        return;
    }
    for (int way = 0; way < 2; way++) {
        gpu_tune saved = gpu_tune_get(), t = saved;
        t.host_alloc_cuda = way;
        gpu_tune_set(&t);
        void *p = NULL;
        double t0 = now_ms();
        cuzk_status st = gpu_host_alloc(bytes, &p, &err);
        double alloc_ms = now_ms() - t0;
        gpu_tune_set(&saved);
        CHECK_MSG(st == CUZK_OK, "gpu_host_alloc %zu MiB: %s", mib, err.msg);
        if (st != CUZK_OK) continue;
        t0 = now_ms();
        memset(p, 7, bytes);
        double touch_ms = now_ms() - t0, up = 1e30;
        for (int rep = 0; rep < 2; rep++) {
            gpu_buf *b = NULL;
            t0 = now_ms();
            st = gpu_buf_upload(ctx, &b, p, bytes, &err);
            double ms = now_ms() - t0;
            CHECK_MSG(st == CUZK_OK, "upload: %s", err.msg);
            gpu_buf_free(b);
            if (ms < up) up = ms;
        }
        t0 = now_ms();
        gpu_host_free(p);
        double free_ms = now_ms() - t0;
        printf("gpu_host_alloc %zu MiB (%s): alloc %.1f ms (%.1f GB/s), first write %.1f ms, upload %.1f ms "
               "(%.1f GB/s), free %.1f ms\n",
               mib, way ? "cudaHostAlloc" : "malloc + cudaHostRegister", alloc_ms, bytes / alloc_ms / 1e6, touch_ms, up,
               bytes / up / 1e6, free_ms);
    }
    gpu_ctx_destroy(ctx);
}

/* What the backend does with a parameter set: gpu_params_upload (h, l, a, b_g1, b_g2 one buffer each) from a
 * pageable set and from the same set pinned by the backend's params_pin (best of 2 each), CUZK_HOST_MIB
 * bytes in the proportions of a PoRep set. The bases are arbitrary bytes: the upload does not look at them. */
static void bench_params_upload(engine_backend *be)
{
    const char *env = getenv("CUZK_HOST_MIB");
    size_t mib = env ? strtoull(env, NULL, 10) : 256;
    if (mib == 0) return;
    size_t total = mib << 20, g1 = sizeof(g1_affine_t), g2 = sizeof(g2_affine_t);
    groth16_params p;
    memset(&p, 0, sizeof(p));
    p.h_len = total / 4 / g1, p.l_len = total / 4 / g1, p.a_len = total * 3 / 20 / g1;
    p.b_g1_len = total * 3 / 20 / g1, p.b_g2_len = total / 5 / g2;
    p.h = malloc(p.h_len * g1), p.l = malloc(p.l_len * g1), p.a = malloc(p.a_len * g1);
    p.b_g1 = malloc(p.b_g1_len * g1), p.b_g2 = malloc(p.b_g2_len * g2);
    CHECK(p.h && p.l && p.a && p.b_g1 && p.b_g2);
    if (p.h && p.l && p.a && p.b_g1 && p.b_g2) {
        memset(p.h, 1, p.h_len * g1), memset(p.l, 2, p.l_len * g1), memset(p.a, 3, p.a_len * g1);
        memset(p.b_g1, 4, p.b_g1_len * g1), memset(p.b_g2, 5, p.b_g2_len * g2);
        double best[2] = {1e30, 1e30}, pin_ms = 0, unpin_ms = 0;
        size_t dev_bytes = 0;
        cuzk_error err = {0};
        cuzk_status st = CUZK_OK;
        for (int pinned = 0; pinned < 2 && st == CUZK_OK; pinned++) {
            if (pinned) {
                double t0 = now_ms();
                st = be->params_pin(be, &p, &err);
                pin_ms = now_ms() - t0;
                CHECK_MSG(st == CUZK_OK, "pin %zu MiB: %s", mib, err.msg);
                if (st != CUZK_OK) break;
            }
            for (int rep = 0; rep < 2; rep++) {
                gpu_params *gp = NULL;
                double t0 = now_ms();
                cuzk_status su = gpu_params_upload(0, &p, &gp, &err);
                double ms = now_ms() - t0;
                CHECK_MSG(su == CUZK_OK, "gpu_params_upload: %s", err.msg);
                dev_bytes = gpu_params_bytes(gp);
                gpu_params_free(gp);
                if (ms < best[pinned]) best[pinned] = ms;
            }
            if (pinned) {
                double t0 = now_ms();
                be->params_unpin(be, &p);
                unpin_ms = now_ms() - t0;
                CHECK(!gpu_host_is_registered(p.h) && !gpu_host_is_registered(p.b_g2));
            }
        }
        if (st == CUZK_OK)
            printf("upload of a %zu MiB parameter set (gpu_params_upload, %zu bytes to the device): pageable %.1f ms "
                   "(%.1f GB/s), pinned %.1f ms (%.1f GB/s); pin %.1f ms, unpin %.1f ms\n",
                   mib, dev_bytes, best[0], dev_bytes / best[0] / 1e6, best[1], dev_bytes / best[1] / 1e6, pin_ms,
                   unpin_ms);
    }
    groth16_params_free(&p);
}

int main(void)
{
    if (gpu_device_count() == 0) {
        test_without_gpu();
        int rc = test_finish("test_gpu_host");
        if (rc) return rc;
        printf("SKIP test_gpu_host: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    test_seed(&rng, "test_gpu_host");
    cuzk_error err = {0};
    if (pool_create(&pool, 2, &err) != CUZK_OK) {
        fprintf(stderr, "set-up failed: %s\n", err.msg);
        return 1;
    }
    test_args();
    test_register_msm();
    test_same_page();
    test_host_alloc();
    test_backend_hooks();
    test_pin_params();
    test_pinned_tier(0);
    test_pinned_tier(1);
    bench_upload();
    bench_host_alloc();
    engine_backend *be = NULL;
    if (engine_backend_gpu_create(NULL, NULL, &be, &err) == CUZK_OK) bench_params_upload(be);
    engine_backend_destroy(be);
    pool_destroy(pool);
    return test_finish("test_gpu_host");
}
