/* Fuzzes the proof-kind table's request validation as the daemon runs it (kind.h): check() of the small fields,
 * then parse() of the whole request, for every kind (PoRep C2's C1, the PoSt and SnapDeals vanilla proofs and their
 * commitments, CIRCUIT_SPEC's text). Input: kind_request.h. Properties: no crash, hang or leak; a refusal carries a
 * message; an accepted request has 1..ENGINE_KIND_MAX_PARTITIONS partitions, names a set its kind knows, and gives
 * the public inputs of its first partition but not of one past its last (CIRCUIT_SPEC's public inputs synthesize
 * the circuit, up to 2^k constraints: only refused past the last partition here; fuzz_spec covers its text). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "kind_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t count = 0;
    const engine_kind *const *kinds = engine_kinds(&count);
    if (count == 0 || size == 0) return 0;
    kind_request r;
    kind_request_decode(data, size, &r);
    const engine_kind *k = kinds[r.kind_index % count];
    cuzk_error err;
    err.msg[0] = 0;
    if (!engine_kind_implemented(k) || (k->check && k->check(&r.in, &err) != CUZK_OK)) {
        FUZZ_CHECK(!engine_kind_implemented(k) || err.msg[0] != 0);
        kind_request_free(&r);
        return 0;
    }
    void *job = NULL;
    engine_kind_plan plan;
    if (k->parse(&r.in, &job, &plan, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
        kind_request_free(&r);
        return 0;
    }
    FUZZ_CHECK(plan.partitions >= 1 && plan.partitions <= ENGINE_KIND_MAX_PARTITIONS);
    FUZZ_CHECK(plan.set[0] != 0 && k->set_known(plan.set, NULL, 0));
    fr_t *pub = NULL;
    size_t n = 0;
    if (k != &engine_kind_circuit_spec) {
        FUZZ_CHECK(k->public_inputs(job, 0, &pub, &n, &err) == CUZK_OK && pub != NULL && n > 0);
        free(pub);
        pub = NULL;
    }
    FUZZ_CHECK(k->public_inputs(job, plan.partitions, &pub, &n, &err) != CUZK_OK && err.msg[0] != 0);
    free(pub);
    if (k->job_free) k->job_free(job);
    kind_request_free(&r);
    return 0;
}
