/* Circuit specs: accepted forms, canonical text, and clear rejections. */
#include <string.h>

#include "circuits/spec.h"
#include "testutil.h"

int main(void)
{
    circuit_spec s;
    cuzk_error err;
    char buf[64];
    CHECK(circuit_spec_parse("synthetic:k=12", &s, &err) == CUZK_OK && s.k == 12 && s.seed == 1);
    CHECK(circuit_spec_parse("synthetic:seed=0x10,k=3", &s, &err) == CUZK_OK && s.k == 3 && s.seed == 16);
    circuit_spec_format(&s, buf, sizeof buf);
    CHECK(strcmp(buf, "synthetic:k=3,seed=16") == 0);
    CHECK(circuit_spec_parse("synthetic:k=12", &s, &err) == CUZK_OK && s.partitions == 0);
    CHECK(circuit_spec_parse("synthetic:k=24,partitions=10", &s, &err) == CUZK_OK && s.k == 24 && s.partitions == 10);
    circuit_spec_format(&s, buf, sizeof buf);
    CHECK(strcmp(buf, "synthetic:k=24,seed=1") == 0); /* partitions belong to requests, not to the circuit */
    const char *bad[] = {"",
                         "synthetic",
                         "synthetic:",
                         "synthetic:k=0",
                         "synthetic:k=28",
                         "synthetic:k=x",
                         "synthetic:k=5,foo=1",
                         "porepx:k=3",
                         "synthetic:k",
                         "synthetic:k=-1",
                         "synthetic:k=5,partitions=0",
                         "synthetic:k=5,partitions=1025"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.msg[0] = 0;
        CHECK_MSG(circuit_spec_parse(bad[i], &s, &err) == CUZK_ERR_INVALID_ARG && err.msg[0], "accepted '%s'", bad[i]);
    }
    r1cs cs;
    CHECK(circuit_spec_parse("synthetic:k=6,seed=3", &s, &err) == CUZK_OK);
    CHECK(circuit_spec_build(NULL, &s, R1CS_MATRICES | R1CS_WITNESS, &cs, &err) == CUZK_OK);
    size_t bad_row;
    CHECK(r1cs_is_satisfied(NULL, &cs, cs.inputs, cs.aux, &bad_row));
    r1cs_free(&cs);
    return test_finish("test_spec");
}
