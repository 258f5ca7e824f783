/* The GPU backend's tuning (tune.h): one copy behind a mutex, filled from the environment on first use. */
#include "gpu/tune.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t tune_mu = PTHREAD_MUTEX_INITIALIZER;
static int tune_ready;
static gpu_tune tune_cur;

void gpu_tune_defaults(gpu_tune *t)
{
    memset(t, 0, sizeof *t);
    t->msm = GPU_TUNE_AUTO;
    t->msm_tail = 2;
    t->msm_inv_by = 1;
    t->msm_early = 1;
    t->msm_share = 4;
    t->batch = GPU_TUNE_AUTO;
    t->g2 = GPU_TUNE_AUTO;
    t->g2_tail = 2;
    t->pin_streamed = 1;
    t->stream_chunk = (size_t)1 << 24;
    t->copy_slice = (size_t)64 << 20;
    t->overlap = 1;
    t->turns = 1;
    t->turn_split = 1;
    t->glv = 1;
    t->queries_above = 1;
    t->h_first = 1;
    t->witness_pack = 2;
    t->b_g2_overlap = 1;
}

static unsigned tune_bits(const char *e, unsigned def)
{
    if (e == NULL) return def;
    int v = atoi(e);
    return v < 0 ? 0u : v > 8 ? 8u : (unsigned)v;
}

static gpu_tune_path tune_path(const char *e, int with_warp)
{
    if (e == NULL) return GPU_TUNE_AUTO;
    if (strcmp(e, "xyzz") == 0) return GPU_TUNE_XYZZ;
    if (strcmp(e, "affine") == 0) return GPU_TUNE_AFFINE;
    if (with_warp && strcmp(e, "affine-warp") == 0) return GPU_TUNE_AFFINE_WARP;
    return GPU_TUNE_AUTO;
}

/* "0" turns an on-by-default switch off; anything else leaves it on. */
static int tune_off_by_zero(const char *e, int def)
{
    return e == NULL ? def : strcmp(e, "0") != 0;
}

void gpu_tune_from_env(gpu_tune *t)
{
    const char *e;
    if (getenv("CUZK_GPU_PROFILE") != NULL) t->profile = 1;
    /* A path too long for the field leaves it as it was (a cut path would name another file). */
    if ((e = getenv("CUZK_GPU_TRACE")) != NULL && strlen(e) < sizeof t->trace)
        snprintf(t->trace, sizeof t->trace, "%s", e);
    e = getenv("CUZK_GPU_MSM");
    if (e != NULL) {
        t->msm = tune_path(e, 1);
        t->msm_forced = 1;
    }
    t->msm_tail = tune_bits(getenv("CUZK_GPU_MSM_TAIL"), t->msm_tail);
    if ((e = getenv("CUZK_GPU_MSM_INV")) != NULL) t->msm_inv_by = strcmp(e, "fermat") != 0;
    if ((e = getenv("CUZK_GPU_MSM_EARLY")) != NULL) t->msm_early = strcmp(e, "1") == 0;
    if ((e = getenv("CUZK_GPU_MSM_SHARE")) != NULL) {
        int s = atoi(e);
        t->msm_share = s < 1 || s > 16 ? 4u : (unsigned)s;
    }
    t->glv = tune_off_by_zero(getenv("CUZK_GPU_GLV"), t->glv);
    if ((e = getenv("CUZK_GPU_BATCH")) != NULL) t->batch = tune_path(e, 0);
    if ((e = getenv("CUZK_GPU_G2")) != NULL) t->g2 = tune_path(e, 0);
    t->g2_tail = tune_bits(getenv("CUZK_GPU_G2_TAIL"), t->g2_tail);
    if ((e = getenv("CUZK_NTT_VARIANT")) != NULL) snprintf(t->ntt_variant, sizeof t->ntt_variant, "%s", e);
    if ((e = getenv("CUZK_GPU_ABC")) != NULL) snprintf(t->abc_variant, sizeof t->abc_variant, "%s", e);
    if ((e = getenv("CUZK_HOST_ALLOC")) != NULL) t->host_alloc_cuda = strcmp(e, "cuda") == 0;
    if ((e = getenv("CUZK_GPU_BASES")) != NULL) t->bases_stream = strcmp(e, "stream") == 0;
    t->pin_streamed = tune_off_by_zero(getenv("CUZK_GPU_PIN_STREAMED"), t->pin_streamed);
    if ((e = getenv("CUZK_GPU_STREAM_CHUNK")) != NULL) {
        size_t c = (size_t)strtoull(e, NULL, 10) / 64 * 64;
        t->stream_chunk = c < 64 ? 64 : c;
    }
    size_t bytes;
    if ((e = getenv("CUZK_GPU_COPY_SLICE")) != NULL && gpu_tune_parse_size(e, &bytes) == 0) t->copy_slice = bytes;
    t->overlap = tune_off_by_zero(getenv("CUZK_GPU_OVERLAP"), t->overlap);
    t->turns = tune_off_by_zero(getenv("CUZK_GPU_TURN"), t->turns);
    t->turn_split = tune_off_by_zero(getenv("CUZK_GPU_TURN_SPLIT"), t->turn_split);
    t->queries_above = tune_off_by_zero(getenv("CUZK_GPU_QUERIES_ABOVE"), t->queries_above);
    t->h_first = tune_off_by_zero(getenv("CUZK_GPU_H_FIRST"), t->h_first);
    t->b_g2_overlap = tune_off_by_zero(getenv("CUZK_GPU_B2_OVERLAP"), t->b_g2_overlap);
    if ((e = getenv("CUZK_GPU_WITNESS_PACK")) != NULL) {
        int v = atoi(e);
        t->witness_pack = v < 0 || v > 2 ? t->witness_pack : v;
    }
    if ((e = getenv("CUZK_GPU_MEMORY_LIMIT")) != NULL && gpu_tune_parse_size(e, &bytes) == 0) t->memory_limit = bytes;
}

int gpu_tune_parse_size(const char *text, size_t *out)
{
    static const struct {
        const char *suffix;
        unsigned long long mul;
    } units[] = {
        {"", 1ull},        {"B", 1ull},         {"K", 1ull << 10},     {"M", 1ull << 20},       {"G", 1ull << 30},
        {"T", 1ull << 40}, {"KiB", 1ull << 10}, {"MiB", 1ull << 20},   {"GiB", 1ull << 30},     {"TiB", 1ull << 40},
        {"KB", 1000ull},   {"MB", 1000000ull},  {"GB", 1000000000ull}, {"TB", 1000000000000ull}};
    const char *s = text;
    unsigned long long v = 0;
    if (s == NULL || out == NULL) return -1;
    while (*s == ' ' || *s == '\t') s++;
    if (*s < '0' || *s > '9') return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (~0ull - d) / 10) return -1;
        v = v * 10 + d;
    }
    while (*s == ' ' || *s == '\t') s++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(s, units[i].suffix) == 0) {
            if (v && units[i].mul > (unsigned long long)SIZE_MAX / v) return -1;
            *out = (size_t)(v * units[i].mul);
            return 0;
        }
    return -1;
}

gpu_tune gpu_tune_get(void)
{
    pthread_mutex_lock(&tune_mu);
    if (!tune_ready) {
        gpu_tune_defaults(&tune_cur);
        gpu_tune_from_env(&tune_cur);
        tune_ready = 1;
    }
    gpu_tune t = tune_cur;
    pthread_mutex_unlock(&tune_mu);
    return t;
}

void gpu_tune_reload_env(void)
{
    gpu_tune t;
    gpu_tune_defaults(&t);
    gpu_tune_from_env(&t);
    gpu_tune_set(&t);
}

void gpu_tune_set(const gpu_tune *t)
{
    pthread_mutex_lock(&tune_mu);
    tune_cur = *t;
    tune_cur.ntt_variant[sizeof tune_cur.ntt_variant - 1] = '\0';
    tune_cur.trace[sizeof tune_cur.trace - 1] = '\0';
    tune_cur.abc_variant[sizeof tune_cur.abc_variant - 1] = '\0';
    if (tune_cur.stream_chunk < 64) tune_cur.stream_chunk = 64;
    tune_cur.stream_chunk = tune_cur.stream_chunk / 64 * 64;
    tune_ready = 1;
    pthread_mutex_unlock(&tune_mu);
}
