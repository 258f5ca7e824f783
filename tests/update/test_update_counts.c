/* Constraint counts of the SnapDeals EmptySectorUpdate circuit against rust-fil-proofs storage-proofs-update
 * tests/circuit.rs (1,248,389 for 1 KiB ... 6,760,091 for 32 KiB; 81,049,499 for 32 GiB, its ignored BenchCS test)
 * and the gadget counts of src/gadgets.rs tests (gen_challenge_bits 568 for the sizes up to 32 KiB). The per-block
 * count (top + challenges x one block) must equal a full count on the small sizes, every block alike. */
#include <stdlib.h>
#include <string.h>

#include "circuits/update/update.h"
#include "testutil.h"

static cuzk_error err;

static void test_small_sizes(void)
{
    static const struct {
        const char *name;
        size_t want;
    } cases[] = {{"1KiB", 1248389}, {"2KiB", 1705039},  {"4KiB", 2165109},
                 {"8KiB", 2620359}, {"16KiB", 6300021}, {"32KiB", 6760091}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const update_geometry *g;
        CHECK(update_geometry_parse(cases[i].name, &g, &err) == CUZK_OK);
        update_circuit c;
        CHECK(update_circuit_init(&c, g, &err) == CUZK_OK);
        update_info full, blocks;
        CHECK_MSG(update_circuit_count_full(&c, &full, &err) == CUZK_OK, "%s", err.msg);
        CHECK_MSG(full.synth_constraints == cases[i].want, "%s: %zu constraints, want %zu", cases[i].name,
                  full.synth_constraints, cases[i].want);
        CHECK(full.inputs == 1 + UPDATE_NUM_PUBLIC_INPUTS);
        CHECK(update_circuit_info(&c, &blocks, &err) == CUZK_OK);
        CHECK_MSG(blocks.synth_constraints == full.synth_constraints && blocks.aux == full.aux &&
                      blocks.inputs == full.inputs,
                  "%s: blocks %zu/%zu, full %zu/%zu", cases[i].name, blocks.synth_constraints, blocks.aux,
                  full.synth_constraints, full.aux);
        /* Every block alike: count each challenge's block separately. */
        r1cs cs;
        CHECK(r1cs_create_counter(&cs, &err) == CUZK_OK);
        update_top_vars top;
        CHECK(update_synth_top(&cs, &c, NULL, &top, &err) == CUZK_OK);
        CHECK(cs.num_constraints == blocks.top_constraints);
        for (unsigned k = 0; k < c.challenges; k++) {
            size_t n0 = cs.num_constraints, a0 = cs.num_aux;
            CHECK(update_synth_challenge(&cs, &c, &top, k, NULL, &err) == CUZK_OK);
            CHECK_MSG(cs.num_constraints - n0 == blocks.challenge_constraints &&
                          cs.num_aux - a0 == blocks.challenge_aux,
                      "%s: block %u differs", cases[i].name, k);
        }
        update_top_vars_free(&top);
        r1cs_free(&cs);
        update_circuit_free(&c);
    }
}

static void test_large_sizes(void)
{
    const update_geometry *g;
    CHECK(update_geometry_parse("32GiB", &g, &err) == CUZK_OK);
    update_circuit c;
    CHECK(update_circuit_init(&c, g, &err) == CUZK_OK);
    CHECK(c.partitions == 16 && c.challenges == 86 && c.apex_leaves == 128 && c.hs[3] == 10);
    update_info info;
    CHECK(update_circuit_info(&c, &info, &err) == CUZK_OK);
    CHECK_MSG(info.synth_constraints == 81049499, "32GiB: %zu constraints, want 81049499", info.synth_constraints);
    uint64_t khs;
    CHECK(update_k_and_h_select(&c, 3, 10, &khs, &err) == CUZK_OK && khs == (3 | 8u << 4));
    CHECK(update_k_and_h_select(&c, 16, 10, &khs, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(update_k_and_h_select(&c, 0, 13, &khs, &err) == CUZK_ERR_INVALID_ARG);
    update_circuit_free(&c);
}

int main(void)
{
    test_small_sizes();
    test_large_sizes();
    return test_finish("test_update_counts");
}
