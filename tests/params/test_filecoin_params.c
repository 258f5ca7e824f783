/* The published parameter file names computed from the geometry (formats/filecoin_params) against rust-fil-proofs'
 * parameters.json: every kind and published size names a .params and a .vk listed there with that sector size, and
 * every listed file is one of them. Then the lookup order (published name, then cuzk's own), the .vk check against
 * the .params' own key, the directory rule, and the paramfetch digest on a known BLAKE2b-512. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/filecoin_params.h"
#include "formats/json.h"
#include "groth16/groth16.h"
#include "testutil.h"

static cuzk_error err;
static const uint64_t SIZES[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

static void test_names(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/filecoin/parameters.json",
             getenv("CUZK_TEST_DATA") ? getenv("CUZK_TEST_DATA") : "tests/data");
    size_t len;
    uint8_t *text = test_read_file(path, &len);
    CHECK(text != NULL);
    if (!text) return;
    json_doc *doc;
    CHECK(json_parse(&doc, (const char *)text, len, &err) == CUZK_OK);
    const json_value *root = json_root(doc);
    CHECK(root->type == JSON_OBJECT && root->len == 44);
    int *seen = calloc(root->len, sizeof *seen);
    size_t matched = 0;
    for (int k = 0; k < FILECOIN_PARAMS_KINDS; k++) {
        if (k == FILECOIN_PARAMS_POREP_NI) continue; /* the same names as porep: checked below */
        for (int s = 0; s < 5; s++) {
            char name[FILECOIN_PARAMS_NAME_MAX];
            if (k == FILECOIN_PARAMS_SNAP_POSEIDON && s < 3) {
                CHECK(filecoin_params_name((filecoin_params_kind)k, SIZES[s], name, sizeof name, &err) ==
                      CUZK_ERR_INVALID_ARG);
                continue;
            }
            CHECK(filecoin_params_name((filecoin_params_kind)k, SIZES[s], name, sizeof name, &err) == CUZK_OK);
            for (int e = 0; e < 2; e++) {
                char file[FILECOIN_PARAMS_NAME_MAX + 8];
                snprintf(file, sizeof file, "%s.%s", name, e ? "vk" : "params");
                size_t i = 0;
                while (i < root->len && strcmp(root->keys[i], file) != 0) i++;
                CHECK_MSG(i < root->len, "%s %llu: %s is not in parameters.json", filecoin_params_kind_name(k),
                          (unsigned long long)SIZES[s], file);
                if (i == root->len) continue;
                uint64_t size = 0;
                CHECK(json_u64(json_get(root->items[i], "sector_size"), &size, "sector_size", &err) == CUZK_OK);
                CHECK_MSG(size == SIZES[s], "%s: sector_size %llu, want %llu", file, (unsigned long long)size,
                          (unsigned long long)SIZES[s]);
                matched += !seen[i];
                seen[i] = 1;
            }
        }
    }
    CHECK_MSG(matched == root->len, "%zu of %zu parameters.json entries computed", matched, root->len);
    free(seen);
    json_free(doc);
    free(text);

    /* Non-interactive PoRep: 18 challenges a partition as interactive, so the identifier and name agree. */
    for (int s = 0; s < 5; s++) {
        char a[FILECOIN_PARAMS_NAME_MAX], b[FILECOIN_PARAMS_NAME_MAX];
        CHECK(filecoin_params_name(FILECOIN_PARAMS_POREP, SIZES[s], a, sizeof a, &err) == CUZK_OK);
        CHECK(filecoin_params_name(FILECOIN_PARAMS_POREP_NI, SIZES[s], b, sizeof b, &err) == CUZK_OK);
        CHECK(strcmp(a, b) == 0);
    }
    char id[512], small[20];
    CHECK(filecoin_params_identifier(FILECOIN_PARAMS_WINDOW_POST, 32ull << 30, id, sizeof id, &err) == CUZK_OK);
    CHECK(strcmp(id, "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 10, sector_count: 2349}") ==
          0);
    CHECK(filecoin_params_name(FILECOIN_PARAMS_POREP, 4096, id, sizeof id, &err) == CUZK_ERR_INVALID_ARG &&
          strstr(err.msg, "4096"));
    CHECK(filecoin_params_name(FILECOIN_PARAMS_POREP, 2048, small, sizeof small, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(filecoin_params_name((filecoin_params_kind)99, 2048, id, sizeof id, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(filecoin_params_own_name(FILECOIN_PARAMS_WINDOW_POST, 32ull << 30, id, sizeof id, &err) == CUZK_OK &&
          strcmp(id, "wpost-32g") == 0);
    CHECK(filecoin_params_own_name(FILECOIN_PARAMS_POREP, 512ull << 20, id, sizeof id, &err) == CUZK_OK &&
          strcmp(id, "porep-512m") == 0);
    filecoin_params_kind kind;
    CHECK(filecoin_params_kind_parse("snap-poseidon", &kind, &err) == CUZK_OK && kind == FILECOIN_PARAMS_SNAP_POSEIDON);
    CHECK(filecoin_params_kind_parse("post", &kind, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "post"));
}

/* A real key pair: the setup of a one-constraint circuit (x * x = y, y public), written as bellperson files. */
static void write_key_pair(const char *params, const char *vk)
{
    r1cs cs;
    CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
    r1cs_var x, y;
    CHECK(r1cs_alloc_input(&cs, NULL, &y, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, NULL, &x, &err) == CUZK_OK);
    r1cs_lc a, c;
    r1cs_lc_init(&a), r1cs_lc_init(&c);
    CHECK(r1cs_lc_add(&a, x, NULL, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&c, y, NULL, &err) == CUZK_OK);
    CHECK(r1cs_enforce(&cs, &a, &a, &c, &err) == CUZK_OK);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    groth16_params p;
    CHECK(groth16_setup(NULL, &cs, &p, &err) == CUZK_OK);
    CHECK(groth16_params_write(NULL, &p, params, &err) == CUZK_OK);
    CHECK(groth16_vk_write(&p.vk, vk, &err) == CUZK_OK);
    groth16_params_free(&p);
    r1cs_lc_free(&a), r1cs_lc_free(&c);
    r1cs_free(&cs);
}

static void test_lookup(void)
{
    char dir[] = "/tmp/cuzk-fparams-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char out[4096];
    CHECK(filecoin_params_dir("/srv/p", out, sizeof out, &err) == CUZK_OK && strcmp(out, "/srv/p") == 0);
    setenv("FIL_PROOFS_PARAMETER_CACHE", dir, 1);
    CHECK(filecoin_params_dir("", out, sizeof out, &err) == CUZK_OK && strcmp(out, dir) == 0);
    CHECK(filecoin_params_dir(NULL, out, sizeof out, &err) == CUZK_OK && strcmp(out, dir) == 0);
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    CHECK(filecoin_params_dir(NULL, out, sizeof out, &err) == CUZK_OK && strcmp(out, FILECOIN_PARAMS_DEFAULT_DIR) == 0);

    filecoin_params_files f;
    CHECK(filecoin_params_find(dir, FILECOIN_PARAMS_POREP, 2048, &f, &err) == CUZK_ERR_IO &&
          strstr(err.msg, "porep-2k.params") && strstr(err.msg, "032d3138"));
    char path[4096], name[FILECOIN_PARAMS_NAME_MAX];
    snprintf(path, sizeof path, "%s/porep-2k.params", dir);
    CHECK(test_write_file(path, "x", 1) == 0);
    CHECK(filecoin_params_find(dir, FILECOIN_PARAMS_POREP, 2048, &f, &err) == CUZK_OK && !f.published &&
          strcmp(f.params, path) == 0 && f.vk[0] == 0);
    CHECK(filecoin_params_name(FILECOIN_PARAMS_POREP, 2048, name, sizeof name, &err) == CUZK_OK);
    char pub[4096];
    snprintf(pub, sizeof pub, "%s/%s.params", dir, name);
    CHECK(test_write_file(pub, "y", 1) == 0);
    CHECK(filecoin_params_find(dir, FILECOIN_PARAMS_POREP, 2048, &f, &err) == CUZK_OK && f.published &&
          strcmp(f.params, pub) == 0);
    /* A .vk that is not a key: refused, naming it. */
    char vk[4096];
    snprintf(vk, sizeof vk, "%s/%s.vk", dir, name);
    CHECK(test_write_file(vk, "not a key", 9) == 0);
    CHECK(filecoin_params_find(dir, FILECOIN_PARAMS_POREP, 2048, &f, &err) != CUZK_OK && strstr(err.msg, ".vk"));
    /* The right key is found with its .params; another setup's key is refused. */
    write_key_pair(pub, vk);
    CHECK(filecoin_params_find(dir, FILECOIN_PARAMS_POREP, 2048, &f, &err) == CUZK_OK && f.published &&
          strcmp(f.vk, vk) == 0);
    char other[4096], other_vk[4096];
    snprintf(other, sizeof other, "%s/other.params", dir);
    snprintf(other_vk, sizeof other_vk, "%s/other.vk", dir);
    write_key_pair(other, other_vk);
    CHECK(filecoin_params_check_vk(other, other_vk, &err) == CUZK_OK);
    CHECK(filecoin_params_check_vk(pub, other_vk, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "differ at byte"));
    CHECK(filecoin_params_check_vk(path, vk, &err) == CUZK_ERR_TRUNCATED && strstr(err.msg, "porep-2k.params"));
    unlink(vk), unlink(pub), unlink(path), unlink(other), unlink(other_vk);
    CHECK(rmdir(dir) == 0);
}

static void test_digest(void)
{
    char path[] = "/tmp/cuzk-fdigest-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(test_write_file(path, "abc", 3) == 0);
    char d[33];
    CHECK(filecoin_params_digest(path, d, &err) == CUZK_OK);
    /* BLAKE2b-512("abc"), RFC 7693 Appendix A: ba80a53f981c4d0d6a2797b69f12f6e9 23... */
    CHECK_MSG(strcmp(d, "ba80a53f981c4d0d6a2797b69f12f6e9") == 0, "digest %s", d);
    unlink(path);
    CHECK(filecoin_params_digest(path, d, &err) == CUZK_ERR_IO && strstr(err.msg, path));
}

int main(void)
{
    test_names();
    test_lookup();
    test_digest();
    return test_finish("filecoin_params");
}
