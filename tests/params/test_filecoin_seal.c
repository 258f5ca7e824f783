/* filecoin_seal_parse and filecoin_seal_verify's input checks: a seal regression record (rust-fil-proofs
 * filecoin-proofs/tests/seal_regression_records-v16.json, line 2: 2 KiB, V1_1_0) and the same values as a hex
 * INFO object give the same public values; each malformed field is refused with its name. (Proofs are verified
 * end to end by test_params_cli: against cuzk's own 2 KiB key with CUZK_SLOW_TESTS=1, against the published keys
 * when they are in FIL_PROOFS_PARAMETER_CACHE.) */
#include <stdlib.h>
#include <string.h>

#include "formats/filecoin_seal.h"
#include "testutil.h"

static cuzk_error err;

static cuzk_status parse_text(const char *text, filecoin_seal *sp)
{
    json_doc *doc;
    cuzk_status st = json_parse(&doc, text, strlen(text), &err);
    if (st) return st;
    st = filecoin_seal_parse(json_root(doc), sp, &err);
    json_free(doc);
    return st;
}

static char *record_line(int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/filecoin/seal_regression_records-v16.json",
             getenv("CUZK_TEST_DATA") ? getenv("CUZK_TEST_DATA") : "tests/data");
    size_t len;
    char *text = (char *)test_read_file(path, &len), *p = text;
    if (!text) return NULL;
    for (int i = 1; i < n && p; i++) p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    char *line = NULL;
    if (p) {
        size_t l = strchr(p, '\n') ? (size_t)(strchr(p, '\n') - p) : strlen(p);
        line = malloc(l + 1);
        memcpy(line, p, l);
        line[l] = 0;
    }
    free(text);
    return line;
}

static const char *INFO_FMT =
    "{\"sector_size\": 2048, \"porep_id\": \"0500000000000000000000000000000000000000000000000000000000000000\", "
    "\"api_version\": \"%s\", \"api_features\": [%s], \"comm_r\": \"%s\", "
    "\"comm_d\": \"7e45f0925dc72593d6b296100e6ca63e3341c92a50c0e7a9461883a3c959ea28\", "
    "\"prover_id\": \"101cbe4b9c42604f04c703c396f788c6cb2d6d7d58f45430b12eb2edd640076c\", "
    "\"ticket\": \"e8867f2000d5597a0a5f4382c52b8b89890019df5320d486a067f38e6c68624b\", "
    "\"seed\": \"56964257e0d6c11e074117b36172fff3ebd1a6ec18fa79555e58df5a9d889dcb\", \"sector_id\": %s}";
static const char *COMM_R = "d67d57ea6808fd67bdedb331388b5005d3f837b6153c37ff90e720f10f34fc29";

static void test_parse(void)
{
    char *line = record_line(2);
    CHECK(line != NULL);
    if (!line) return;
    filecoin_seal rec, info;
    CHECK(parse_text(line, &rec) == CUZK_OK);
    CHECK(rec.g && rec.g->sector_size == 2048 && rec.api == POREP_API_1_1 && rec.kind == POREP_INTERACTIVE &&
          rec.partitions == 1 && rec.sector_id == 9259733836259213201ull);
    char text[2048];
    snprintf(text, sizeof text, INFO_FMT, "1.1.0", "", COMM_R, "9259733836259213201");
    CHECK(parse_text(text, &info) == CUZK_OK);
    CHECK(memcmp(&rec, &info, sizeof rec) == 0);
    /* The registered-proof form: StackedDrg2KiBV1_1 is id 5, porep_id 05 00.. */
    snprintf(
        text, sizeof text,
        "{\"registered_proof\": 5, \"comm_r\": \"%s\", \"comm_d\": "
        "\"7e45f0925dc72593d6b296100e6ca63e3341c92a50c0e7a9461883a3c959ea28\", \"prover_id\": "
        "\"101cbe4b9c42604f04c703c396f788c6cb2d6d7d58f45430b12eb2edd640076c\", \"ticket\": "
        "\"e8867f2000d5597a0a5f4382c52b8b89890019df5320d486a067f38e6c68624b\", \"seed\": "
        "\"56964257e0d6c11e074117b36172fff3ebd1a6ec18fa79555e58df5a9d889dcb\", \"sector_id\": 9259733836259213201}",
        COMM_R);
    CHECK(parse_text(text, &info) == CUZK_OK);
    CHECK(memcmp(&rec, &info, sizeof rec) == 0);
    snprintf(text, sizeof text, INFO_FMT, "V1_2_0", "\"SyntheticPoRep\"", COMM_R, "1");
    CHECK(parse_text(text, &info) == CUZK_OK && info.kind == POREP_SYNTHETIC && info.api == POREP_API_1_2);
    free(line);

    /* Each defect named. */
    static const struct {
        const char *api, *features, *comm_r, *sector_id, *named;
    } bad[] = {
        {"1.3.0", "", NULL, "1", "api_version"},
        {"1.1.0", "\"SyntheticPoRep\"", NULL, "1", "SyntheticPoRep needs"},
        {"1.2.0", "\"Fast\"", NULL, "1", "api_features[0]"},
        {"1.1.0", "", "d67d", "1", "comm_r"},
        {"1.1.0", "", "g67d57ea6808fd67bdedb331388b5005d3f837b6153c37ff90e720f10f34fc29", "1", "not a hex digit at 0"},
        {"1.1.0", "", NULL, "-1", "sector_id"},
        {"1.1.0", "", NULL, "\"x\"", "sector_id"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, INFO_FMT, bad[i].api, bad[i].features, bad[i].comm_r ? bad[i].comm_r : COMM_R,
                 bad[i].sector_id);
        err.msg[0] = 0;
        CHECK_MSG(parse_text(text, &info) == CUZK_ERR_FORMAT && strstr(err.msg, bad[i].named), "case %zu: %s", i,
                  err.msg);
    }
    CHECK(parse_text("[1, 2]", &info) == CUZK_ERR_FORMAT);
    CHECK(parse_text("{\"registered_proof\": 99}", &info) == CUZK_ERR_FORMAT && strstr(err.msg, "99"));
    CHECK(parse_text("{\"sector_size\": 4096}", &info) == CUZK_ERR_FORMAT && strstr(err.msg, "4096"));
    /* A record with a byte out of range, and one with 31 bytes. */
    char *l2 = record_line(2), *p = strstr(l2, "\"comm_r\":[") + 10;
    memcpy(p, "256", 3);
    CHECK(parse_text(l2, &info) == CUZK_ERR_FORMAT && strstr(err.msg, "comm_r"));
    free(l2);
    l2 = record_line(2);
    p = strstr(l2, "\"comm_r\":[") + 10;
    memmove(p, strchr(p, ',') + 1, strlen(strchr(p, ',') + 1) + 1);
    CHECK(parse_text(l2, &info) == CUZK_ERR_FORMAT && strstr(err.msg, "31 bytes"));
    free(l2);
    /* A 32 GiB record claims 10 partitions, as 32 GiB interactive has; 9 would be refused. */
    char *l443 = record_line(443);
    CHECK(parse_text(l443, &info) == CUZK_OK && info.partitions == 10 && info.g->sector_size == 32ull << 30);
    p = strstr(l443, "\"partitions\":10");
    p[14] = ' ', p[13] = '9';
    CHECK(parse_text(l443, &info) == CUZK_ERR_FORMAT && strstr(err.msg, "partitions 9"));
    free(l443);
}

static void test_verify_refusals(void)
{
    filecoin_seal sp;
    char text[2048];
    snprintf(text, sizeof text, INFO_FMT, "1.1.0", "", COMM_R, "1");
    CHECK(parse_text(text, &sp) == CUZK_OK);
    groth16_pvk pvk;
    memset(&pvk, 0, sizeof pvk);
    uint8_t proof[192];
    memset(proof, 0, sizeof proof);
    pvk.ic_len = 3; /* not a 2 KiB PoRep key */
    CHECK(filecoin_seal_verify(&sp, &pvk, proof, 192, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "another"));
    pvk.ic_len = 40;
    CHECK(filecoin_seal_verify(&sp, &pvk, proof, 191, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "191"));
    sp.kind = POREP_NON_INTERACTIVE;
    CHECK(filecoin_seal_verify(&sp, &pvk, proof, 192, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.msg, "SnarkPack"));
}

int main(void)
{
    test_parse();
    test_verify_refusals();
    return test_finish("filecoin_seal");
}
