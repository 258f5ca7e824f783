/* The GPU backend's tuning (src/gpu/tune.c): defaults, the environment read on first use and on reload (each
 * variable, bad values clamped to the documented ranges), gpu_tune_set, and settings applied as the environment's
 * (gpu_tune_apply_settings: cuzk-bench batch --rounds). Needs no GPU. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "gpu/tune.h"

static void check_defaults(const gpu_tune *t)
{
    CHECK(t->profile == 0 && t->msm == GPU_TUNE_AUTO && t->msm_forced == 0);
    CHECK(t->msm_tail == 2 && t->msm_inv_by == 1 && t->msm_early == 1 && t->msm_share == 4);
    CHECK(t->batch == GPU_TUNE_AUTO && t->g2 == GPU_TUNE_AUTO && t->g2_tail == 2);
    CHECK(t->ntt_variant[0] == 0 && t->abc_variant[0] == 0 && t->host_alloc_cuda == 0);
    CHECK(t->bases_stream == 0 && t->pin_streamed == 1 && t->stream_chunk == ((size_t)1 << 24));
    CHECK(t->overlap == 1 && t->turns == 1 && t->memory_limit == 0);
    CHECK(t->turn_split == 1 && t->glv == 1 && t->trace[0] == 0);
    CHECK(t->queries_above == 1 && t->h_first == 1 && t->witness_pack == 2 && t->b_g2_overlap == 1);
    CHECK(t->copy_slice == ((size_t)64 << 20));
}

int main(void)
{
    static const char *const vars[] = {
        "CUZK_GPU_PROFILE",    "CUZK_GPU_MSM",           "CUZK_GPU_MSM_TAIL",     "CUZK_GPU_MSM_INV",
        "CUZK_GPU_MSM_EARLY",  "CUZK_GPU_MSM_SHARE",     "CUZK_GPU_BATCH",        "CUZK_GPU_G2",
        "CUZK_GPU_G2_TAIL",    "CUZK_NTT_VARIANT",       "CUZK_GPU_ABC",          "CUZK_HOST_ALLOC",
        "CUZK_GPU_BASES",      "CUZK_GPU_PIN_STREAMED",  "CUZK_GPU_STREAM_CHUNK", "CUZK_GPU_OVERLAP",
        "CUZK_GPU_TURN",       "CUZK_GPU_MEMORY_LIMIT",  "CUZK_GPU_TURN_SPLIT",   "CUZK_GPU_GLV",
        "CUZK_GPU_TRACE",      "CUZK_GPU_QUERIES_ABOVE", "CUZK_GPU_H_FIRST",      "CUZK_GPU_WITNESS_PACK",
        "CUZK_GPU_B2_OVERLAP", "CUZK_GPU_COPY_SLICE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    gpu_tune d;
    gpu_tune_defaults(&d);
    check_defaults(&d);

    /* Read once: the first get sees the environment, a later change is ignored until a reload. */
    setenv("CUZK_GPU_MSM", "affine-warp", 1);
    gpu_tune t = gpu_tune_get();
    CHECK(t.msm == GPU_TUNE_AFFINE_WARP && t.msm_forced == 1);
    setenv("CUZK_GPU_MSM", "xyzz", 1);
    t = gpu_tune_get();
    CHECK(t.msm == GPU_TUNE_AFFINE_WARP);

    setenv("CUZK_GPU_PROFILE", "", 1);
    setenv("CUZK_GPU_MSM_TAIL", "99", 1);
    setenv("CUZK_GPU_MSM_INV", "fermat", 1);
    setenv("CUZK_GPU_MSM_EARLY", "0", 1);
    setenv("CUZK_GPU_MSM_SHARE", "17", 1);
    setenv("CUZK_GPU_GLV", "0", 1);
    setenv("CUZK_GPU_BATCH", "affine", 1);
    setenv("CUZK_GPU_G2", "xyzz", 1);
    setenv("CUZK_GPU_G2_TAIL", "-3", 1);
    setenv("CUZK_NTT_VARIANT", "r4x256b2cf", 1);
    setenv("CUZK_GPU_ABC", "hybrid", 1);
    setenv("CUZK_HOST_ALLOC", "cuda", 1);
    setenv("CUZK_GPU_BASES", "stream", 1);
    setenv("CUZK_GPU_PIN_STREAMED", "0", 1);
    setenv("CUZK_GPU_STREAM_CHUNK", "200", 1);
    setenv("CUZK_GPU_OVERLAP", "0", 1);
    setenv("CUZK_GPU_TURN", "0", 1);
    setenv("CUZK_GPU_MEMORY_LIMIT", "16G", 1);
    setenv("CUZK_GPU_TURN_SPLIT", "0", 1);
    setenv("CUZK_GPU_TRACE", "/tmp/cuzk.trace", 1);
    setenv("CUZK_GPU_QUERIES_ABOVE", "0", 1);
    setenv("CUZK_GPU_H_FIRST", "0", 1);
    setenv("CUZK_GPU_WITNESS_PACK", "1", 1);
    setenv("CUZK_GPU_B2_OVERLAP", "0", 1);
    setenv("CUZK_GPU_COPY_SLICE", "0", 1);
    gpu_tune_reload_env();
    t = gpu_tune_get();
    CHECK(t.profile == 1 && t.msm == GPU_TUNE_XYZZ && t.msm_forced == 1);
    CHECK(t.msm_tail == 8 && t.msm_inv_by == 0 && t.msm_early == 0 && t.msm_share == 4);
    CHECK(t.batch == GPU_TUNE_AFFINE && t.g2 == GPU_TUNE_XYZZ && t.g2_tail == 0);
    CHECK(strcmp(t.ntt_variant, "r4x256b2cf") == 0 && strcmp(t.abc_variant, "hybrid") == 0);
    CHECK(t.host_alloc_cuda == 1 && t.bases_stream == 1 && t.pin_streamed == 0 && t.stream_chunk == 192);
    CHECK(t.overlap == 0 && t.turns == 0 && t.memory_limit == (size_t)16 << 30);
    CHECK(t.turn_split == 0 && t.glv == 0 && strcmp(t.trace, "/tmp/cuzk.trace") == 0);
    CHECK(t.queries_above == 0 && t.h_first == 0 && t.witness_pack == 1 && t.b_g2_overlap == 0);
    CHECK(t.copy_slice == 0);

    /* Values that are not the forcing ones leave the default in place; a chunk under 64 points becomes 64. */
    setenv("CUZK_GPU_MSM", "bogus", 1);
    setenv("CUZK_GPU_MSM_SHARE", "2", 1);
    setenv("CUZK_GPU_GLV", "yes", 1); /* only "0" turns it off */
    setenv("CUZK_GPU_MSM_EARLY", "yes", 1);
    setenv("CUZK_GPU_STREAM_CHUNK", "5", 1);
    setenv("CUZK_GPU_OVERLAP", "1", 1);
    setenv("CUZK_GPU_MEMORY_LIMIT", "lots", 1); /* does not parse: the limit stays (here the default, none) */
    setenv("CUZK_GPU_TURN_SPLIT", "on", 1);
    setenv("CUZK_GPU_WITNESS_PACK", "3", 1);    /* out of range: stays (here the default, 2) */
    setenv("CUZK_GPU_QUERIES_ABOVE", "yes", 1); /* only "0" turns it off */
    setenv("CUZK_GPU_COPY_SLICE", "8M", 1);
    gpu_tune_reload_env();
    t = gpu_tune_get();
    CHECK(t.witness_pack == 2 && t.queries_above == 1 && t.h_first == 0 && t.b_g2_overlap == 0);
    CHECK(t.memory_limit == 0 && t.turn_split == 1 && t.copy_slice == ((size_t)8 << 20));
    setenv("CUZK_GPU_COPY_SLICE", "some", 1); /* does not parse: the default */
    gpu_tune_reload_env();
    CHECK(gpu_tune_get().copy_slice == ((size_t)64 << 20));
    CHECK(t.msm == GPU_TUNE_AUTO && t.msm_forced == 1 && t.msm_share == 2 && t.msm_early == 0);
    CHECK(t.stream_chunk == 64 && t.overlap == 1 && t.glv == 1);
    /* A trace path too long for the field leaves it as it was. */
    static char long_path[400];
    memset(long_path, 'x', sizeof long_path - 1);
    setenv("CUZK_GPU_TRACE", long_path, 1);
    gpu_tune_reload_env();
    t = gpu_tune_get();
    CHECK(t.trace[0] == 0);

    /* Sizes as CUZK_GPU_MEMORY_LIMIT and --gpu-memory-limit take them. */
    static const struct {
        const char *text;
        size_t want;
    } sizes[] = {{"0", 0},
                 {"1536M", (size_t)1536 << 20},
                 {"24GiB", (size_t)24 << 30},
                 {"16 G", (size_t)16 << 30},
                 {"512K", 512 << 10},
                 {"2T", (size_t)2 << 40},
                 {"24GB", 24000000000ull},
                 {"4096B", 4096},
                 {"123", 123}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t v = 1;
        CHECK_MSG(gpu_tune_parse_size(sizes[i].text, &v) == 0 && v == sizes[i].want, "'%s' -> %zu", sizes[i].text, v);
    }
    static const char *const bad_sizes[] = {
        "", "G", "-1G", "16g", "16GiBs", "1.5G", "99999999999999999999", "99999999999T"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        size_t v = 7;
        CHECK_MSG(gpu_tune_parse_size(bad_sizes[i], &v) == -1 && v == 7, "'%s' accepted", bad_sizes[i]);
    }
    CHECK(gpu_tune_parse_size(NULL, NULL) == -1);

    /* gpu_tune_set replaces everything; unset variables and a reload give the defaults back. */
    gpu_tune s = d;
    s.stream_chunk = 1000; /* rounded down to a multiple of 64 */
    snprintf(s.ntt_variant, sizeof s.ntt_variant, "%s", "r8x256b1");
    gpu_tune_set(&s);
    t = gpu_tune_get();
    CHECK(t.stream_chunk == 960 && strcmp(t.ntt_variant, "r8x256b1") == 0 && t.msm_tail == 2 && t.profile == 0);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    gpu_tune_reload_env();
    t = gpu_tune_get();
    check_defaults(&t);

    /* Settings (cuzk-bench batch --rounds): every variable the tuning reads is taken, or refused as read only at
     * setup; never unknown. */
    cuzk_error err;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        char one[64];
        snprintf(one, sizeof one, "%s=1", vars[i]);
        gpu_tune u = d;
        cuzk_status st = gpu_tune_apply_settings(&u, one, &err);
        CHECK_MSG((st == CUZK_OK) == !gpu_tune_var_at_setup(vars[i]), "%s: %s", one, st ? err.msg : "taken");
        if (st != CUZK_OK) CHECK_MSG(strstr(err.msg, "set up") != NULL, "%s: %s", one, err.msg);
    }
    CHECK(gpu_tune_var_at_setup("CUZK_GPU_MEMORY_LIMIT") && gpu_tune_var_at_setup("CUZK_GPU_GLV"));
    CHECK(!gpu_tune_var_at_setup("CUZK_GPU_BATCH") && !gpu_tune_var_at_setup("NOPE") && !gpu_tune_var_at_setup(NULL));
    /* They act as the same variables in the environment do. */
    gpu_tune by_set = d, by_env = d;
    CHECK(gpu_tune_apply_settings(&by_set,
                                  " CUZK_GPU_MSM=xyzz,CUZK_GPU_MSM_TAIL=5\tCUZK_GPU_COPY_SLICE=8M "
                                  "CUZK_GPU_TRACE=/tmp/a.trace,CUZK_GPU_WITNESS_PACK=0 CUZK_GPU_PROFILE=",
                                  &err) == CUZK_OK);
    setenv("CUZK_GPU_MSM", "xyzz", 1);
    setenv("CUZK_GPU_MSM_TAIL", "5", 1);
    setenv("CUZK_GPU_COPY_SLICE", "8M", 1);
    setenv("CUZK_GPU_TRACE", "/tmp/a.trace", 1);
    setenv("CUZK_GPU_WITNESS_PACK", "0", 1);
    setenv("CUZK_GPU_PROFILE", "", 1);
    gpu_tune_from_env(&by_env);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    CHECK(memcmp(&by_set, &by_env, sizeof by_set) == 0);
    CHECK(by_set.msm == GPU_TUNE_XYZZ && by_set.msm_tail == 5 && by_set.copy_slice == ((size_t)8 << 20));
    CHECK(by_set.witness_pack == 0 && by_set.profile == 1 && strcmp(by_set.trace, "/tmp/a.trace") == 0);
    /* On top of what t held: unnamed fields keep their values. */
    gpu_tune base = d;
    base.memory_limit = (size_t)24 << 30;
    base.batch = GPU_TUNE_AFFINE;
    CHECK(gpu_tune_apply_settings(&base, "CUZK_GPU_G2=xyzz", &err) == CUZK_OK);
    CHECK(base.memory_limit == (size_t)24 << 30 && base.batch == GPU_TUNE_AFFINE && base.g2 == GPU_TUNE_XYZZ);
    gpu_tune same = d;
    CHECK(gpu_tune_apply_settings(&same, "-", &err) == CUZK_OK && memcmp(&same, &d, sizeof d) == 0);
    CHECK(gpu_tune_apply_settings(&same, " ,\t", &err) == CUZK_OK && memcmp(&same, &d, sizeof d) == 0);
    /* Refusals leave t as it was, even when an earlier setting of the list was good. */
    static const char *const bad_settings[] = {"CUZK_GPU_MSM=xyzz NOT_A_VARIABLE=1",
                                               "CUZK_GPU_MSM=xyzz CUZK_GPU_GLV=0",
                                               "CUZK_GPU_MSM",
                                               "=1",
                                               "CUZK_GPU_MSM=xyzz CUZK_GPU_MSM=affine",
                                               "cuzk_gpu_msm=xyzz",
                                               "CUZK_GPU_TRACE=a\"b",
                                               "CUZK_GPU_MSM=x;y",
                                               "CUZK_GPU_MSM_TAIL=1 -"};
    for (size_t i = 0; i < sizeof bad_settings / sizeof bad_settings[0]; i++) {
        gpu_tune u = d;
        err.msg[0] = 0;
        CHECK_MSG(gpu_tune_apply_settings(&u, bad_settings[i], &err) == CUZK_ERR_INVALID_ARG && err.msg[0] &&
                      memcmp(&u, &d, sizeof d) == 0,
                  "'%s' taken", bad_settings[i]);
    }
    static char many[GPU_TUNE_SETTINGS_MAX + 8];
    many[0] = 0;
    for (int i = 0; i <= GPU_TUNE_MAX_SETTINGS; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "X%d=1 ", i);
    gpu_tune u = d;
    CHECK(gpu_tune_apply_settings(&u, many, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "more than"));
    memset(many, 'A', sizeof many - 1);
    many[sizeof many - 1] = 0;
    CHECK(gpu_tune_apply_settings(&u, many, &err) == CUZK_ERR_INVALID_ARG && strstr(err.msg, "longer"));
    CHECK(gpu_tune_apply_settings(NULL, "-", &err) == CUZK_ERR_INVALID_ARG);
    CHECK(gpu_tune_apply_settings(&u, NULL, &err) == CUZK_ERR_INVALID_ARG);
    return test_finish("test_gpu_tune");
}
