/* Fuzzes the SnapDeals vanilla-proof reader (bincode PartitionProof) for the 2 KiB shape: any input must parse or
 * fail with CUZK_ERR_FORMAT, never crash or leak; a proof that parses writes back to the same bytes, and turning it
 * into a witness either succeeds or fails with CUZK_ERR_FORMAT. The first byte picks the partition-count shape
 * (2 KiB: one partition; 32 KiB: two). Seeds: fuzz/corpus/fuzz_snap_vanilla (from test data written by
 * `cuzk snap encode`). */
#include <stdlib.h>
#include <string.h>

#include "formats/snap_vanilla.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static update_circuit circuits[2];
    static int ready;
    cuzk_error err;
    if (!ready) {
        const update_geometry *g;
        FUZZ_CHECK(update_geometry_parse("2KiB", &g, &err) == CUZK_OK);
        FUZZ_CHECK(update_circuit_init(&circuits[0], g, &err) == CUZK_OK);
        FUZZ_CHECK(update_geometry_parse("32KiB", &g, &err) == CUZK_OK);
        FUZZ_CHECK(update_circuit_init(&circuits[1], g, &err) == CUZK_OK);
        ready = 1;
    }
    const update_circuit *c = &circuits[data[0] & 1];
    data++, size--;
    snap_partition_proof p;
    cuzk_status st = snap_partition_proof_parse(&p, c, 0, data, size, &err);
    FUZZ_CHECK(st == CUZK_OK || st == CUZK_ERR_FORMAT || st == CUZK_ERR_NOMEM);
    if (st != CUZK_OK) return 0;
    uint8_t *out;
    size_t len;
    FUZZ_CHECK(snap_partition_proof_encode(&p, c, &out, &len, &err) == CUZK_OK);
    FUZZ_CHECK(len == size && memcmp(out, data, len) == 0);
    free(out);
    /* Commitments taken from the proof itself, so the witness checks run deep. */
    uint8_t cro[32] = {0}, cdn[32];
    memcpy(cdn, p.challenges[0].d_new.root, 32);
    update_witness w;
    st = snap_witness_from_proof(&w, c, &p, 0, cro, cro, cdn, &err);
    FUZZ_CHECK(st == CUZK_OK || st == CUZK_ERR_FORMAT || st == CUZK_ERR_NOMEM);
    if (st == CUZK_OK) update_witness_free(&w);
    snap_partition_proof_free(&p);
    return 0;
}
