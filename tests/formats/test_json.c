/* The JSON reader: valid documents, every class of malformed input, deep nesting. */
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "testutil.h"

static int parses(const char *s)
{
    json_doc *d;
    cuzk_error err;
    cuzk_status st = json_parse(&d, s, strlen(s), &err);
    if (st == CUZK_OK)
        json_free(d);
    else
        CHECK(strlen(err.msg) > 0);
    return st == CUZK_OK;
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_json");
    const char *doc = " {\"a\": [1, -2.5e3, \"x\\u00e9\\ud83d\\ude00\\n\"], \"b\": {\"c\": true, \"d\": null},"
                      " \"big\": \"52435875175126190479447740508185965837690552500527637822603658699938581184513\","
                      " \"e\": [], \"f\": {}} ";
    json_doc *d;
    cuzk_error err;
    CHECK(json_parse(&d, doc, strlen(doc), &err) == CUZK_OK);
    const json_value *root = json_root(d);
    CHECK(root->type == JSON_OBJECT && root->len == 5);
    const json_value *a = json_get(root, "a");
    CHECK(a && a->type == JSON_ARRAY && a->len == 3);
    CHECK(json_at(a, 1)->type == JSON_NUMBER && json_at(a, 1)->len == 6);
    CHECK(strcmp(json_at(a, 2)->text, "x\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    CHECK(json_get(json_get(root, "b"), "c")->type == JSON_TRUE);
    CHECK(json_get(root, "missing") == NULL && json_at(a, 3) == NULL);
    uint64_t limbs[4];
    CHECK(json_decimal_limbs(json_get(root, "big"), limbs, 4, "big", &err) == CUZK_OK);
    CHECK(limbs[0] == 0xffffffff00000001ULL && limbs[3] == 0x73eda753299d7d48ULL);
    CHECK(json_decimal_limbs(json_get(root, "big"), limbs, 3, "big", &err) == CUZK_ERR_FORMAT);
    uint64_t u;
    CHECK(json_u64(json_at(a, 0), &u, "a[0]", &err) == CUZK_OK && u == 1);
    CHECK(json_u64(json_at(a, 1), &u, "a[1]", &err) == CUZK_ERR_FORMAT);
    CHECK(json_expect(json_get(root, "e"), JSON_OBJECT, "e", &err) == CUZK_ERR_FORMAT && strstr(err.msg, "array"));
    json_free(d);

    const char *bad[] = {"",        "{",         "[1,]",        "{\"a\" 1}", "{\"a\":1,}", "[1 2]", "\"abc",
                         "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "01",        "1.",         "-",     "1e",
                         "tru",     "nul",       "[1]]",        "{} x",      "\"a\x01\"",  "{1:2}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK_MSG(!parses(bad[i]), "accepted %s", bad[i]);
    const char *good[] = {"0", "-0", "1e5", "\"\"", "[[],{}]", "null", " true ", "{\"\":\"\"}"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) CHECK_MSG(parses(good[i]), "rejected %s", good[i]);

    /* nesting beyond the limit is an error, not a stack overflow */
    size_t deep = 100000;
    char *s = malloc(2 * deep + 1);
    CHECK(s != NULL);
    memset(s, '[', deep);
    memset(s + deep, ']', deep);
    s[2 * deep] = 0;
    CHECK(!parses(s));
    free(s);

    /* random byte strings never crash; random truncations of a valid document fail cleanly */
    for (int i = 0; i < 2000; i++) {
        char buf[64];
        size_t n = rng_next(&rng) % sizeof buf;
        for (size_t k = 0; k < n; k++) buf[k] = "{}[]\",:01-e.tfnlrsu\\ a"[rng_next(&rng) % 22];
        json_doc *x;
        if (json_parse(&x, buf, n, &err) == CUZK_OK) json_free(x);
    }
    for (size_t cut = 0; cut < strlen(doc) - 1; cut++) {
        json_doc *x;
        cuzk_status st = json_parse(&x, doc, cut, &err);
        if (st == CUZK_OK) json_free(x);
        CHECK_MSG(st != CUZK_OK || cut == 0, "truncation at %zu accepted", cut);
    }
    return test_finish("test_json");
}
