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

void gpu_tune_from_vars(gpu_tune *t, gpu_tune_lookup get, void *ctx)
{
    const char *e;
    if (get(ctx, "CUZK_GPU_PROFILE") != NULL) t->profile = 1;
    /* A path too long for the field leaves it as it was (a cut path would name another file). */
    if ((e = get(ctx, "CUZK_GPU_TRACE")) != NULL && strlen(e) < sizeof t->trace)
        snprintf(t->trace, sizeof t->trace, "%s", e);
    e = get(ctx, "CUZK_GPU_MSM");
    if (e != NULL) {
        t->msm = tune_path(e, 1);
        t->msm_forced = 1;
    }
    t->msm_tail = tune_bits(get(ctx, "CUZK_GPU_MSM_TAIL"), t->msm_tail);
    if ((e = get(ctx, "CUZK_GPU_MSM_INV")) != NULL) t->msm_inv_by = strcmp(e, "fermat") != 0;
    if ((e = get(ctx, "CUZK_GPU_MSM_EARLY")) != NULL) t->msm_early = strcmp(e, "1") == 0;
    if ((e = get(ctx, "CUZK_GPU_MSM_SHARE")) != NULL) {
        int s = atoi(e);
        t->msm_share = s < 1 || s > 16 ? 4u : (unsigned)s;
    }
    t->glv = tune_off_by_zero(get(ctx, "CUZK_GPU_GLV"), t->glv);
    if ((e = get(ctx, "CUZK_GPU_BATCH")) != NULL) t->batch = tune_path(e, 0);
    if ((e = get(ctx, "CUZK_GPU_G2")) != NULL) t->g2 = tune_path(e, 0);
    t->g2_tail = tune_bits(get(ctx, "CUZK_GPU_G2_TAIL"), t->g2_tail);
    if ((e = get(ctx, "CUZK_NTT_VARIANT")) != NULL) snprintf(t->ntt_variant, sizeof t->ntt_variant, "%s", e);
    if ((e = get(ctx, "CUZK_GPU_ABC")) != NULL) snprintf(t->abc_variant, sizeof t->abc_variant, "%s", e);
    if ((e = get(ctx, "CUZK_HOST_ALLOC")) != NULL) t->host_alloc_cuda = strcmp(e, "cuda") == 0;
    if ((e = get(ctx, "CUZK_GPU_BASES")) != NULL) t->bases_stream = strcmp(e, "stream") == 0;
    t->pin_streamed = tune_off_by_zero(get(ctx, "CUZK_GPU_PIN_STREAMED"), t->pin_streamed);
    if ((e = get(ctx, "CUZK_GPU_STREAM_CHUNK")) != NULL) {
        size_t c = (size_t)strtoull(e, NULL, 10) / 64 * 64;
        t->stream_chunk = c < 64 ? 64 : c;
    }
    size_t bytes;
    if ((e = get(ctx, "CUZK_GPU_COPY_SLICE")) != NULL && gpu_tune_parse_size(e, &bytes) == 0) t->copy_slice = bytes;
    t->overlap = tune_off_by_zero(get(ctx, "CUZK_GPU_OVERLAP"), t->overlap);
    t->turns = tune_off_by_zero(get(ctx, "CUZK_GPU_TURN"), t->turns);
    t->turn_split = tune_off_by_zero(get(ctx, "CUZK_GPU_TURN_SPLIT"), t->turn_split);
    t->queries_above = tune_off_by_zero(get(ctx, "CUZK_GPU_QUERIES_ABOVE"), t->queries_above);
    t->h_first = tune_off_by_zero(get(ctx, "CUZK_GPU_H_FIRST"), t->h_first);
    t->b_g2_overlap = tune_off_by_zero(get(ctx, "CUZK_GPU_B2_OVERLAP"), t->b_g2_overlap);
    if ((e = get(ctx, "CUZK_GPU_WITNESS_PACK")) != NULL) {
        int v = atoi(e);
        t->witness_pack = v < 0 || v > 2 ? t->witness_pack : v;
    }
    if ((e = get(ctx, "CUZK_GPU_MEMORY_LIMIT")) != NULL && gpu_tune_parse_size(e, &bytes) == 0) t->memory_limit = bytes;
}

static const char *env_lookup(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

void gpu_tune_from_env(gpu_tune *t)
{
    gpu_tune_from_vars(t, env_lookup, NULL);
}

/* Read by the GPU backend only when a prover or the parameters' device copy is set up (gpu_prover_create,
 * gpu_params: bases placed, pinned, GLV images made; the NTT plans), or, for the cap, when the engine opens. */
static const char *const setup_vars[] = {"CUZK_GPU_MEMORY_LIMIT",  "CUZK_GPU_GLV",     "CUZK_GPU_BASES",
                                         "CUZK_GPU_PIN_STREAMED",  "CUZK_GPU_OVERLAP", "CUZK_GPU_TURN",
                                         "CUZK_GPU_QUERIES_ABOVE", "CUZK_NTT_VARIANT"};

int gpu_tune_var_at_setup(const char *name)
{
    for (size_t i = 0; name && i < sizeof setup_vars / sizeof setup_vars[0]; i++)
        if (strcmp(name, setup_vars[i]) == 0) return 1;
    return 0;
}

typedef struct settings_ctx {
    const char *name[GPU_TUNE_MAX_SETTINGS], *value[GPU_TUNE_MAX_SETTINGS];
    int asked[GPU_TUNE_MAX_SETTINGS];
    size_t n;
} settings_ctx;

/* A setting's value, and a mark that the tuning reads its name. */
static const char *settings_lookup(void *ctx, const char *name)
{
    settings_ctx *c = ctx;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0) {
            c->asked[i] = 1;
            return c->value[i];
        }
    return NULL;
}

static int name_char(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static int value_char(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("._-+/:", ch);
}

cuzk_status gpu_tune_apply_settings(gpu_tune *t, const char *settings, cuzk_error *err)
{
    if (t == NULL || settings == NULL) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "tuning settings: NULL");
    size_t len = strnlen(settings, GPU_TUNE_SETTINGS_MAX);
    if (len == GPU_TUNE_SETTINGS_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "tuning settings: longer than %d bytes",
                              GPU_TUNE_SETTINGS_MAX - 1);
    char buf[GPU_TUNE_SETTINGS_MAX];
    memcpy(buf, settings, len + 1);
    settings_ctx c;
    memset(&c, 0, sizeof c);
    if (strcmp(buf, "-") != 0)
        for (char *p = buf; *p;) {
            if (*p == ' ' || *p == '\t' || *p == ',') {
                p++;
                continue;
            }
            char *tok = p;
            while (*p && *p != ' ' && *p != '\t' && *p != ',') p++;
            if (*p) *p++ = '\0';
            char *eq = strchr(tok, '=');
            if (eq == NULL || eq == tok)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "tuning setting '%.64s': expected NAME=VALUE", tok);
            *eq = '\0';
            for (const char *q = tok; *q; q++)
                if (!name_char(*q))
                    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                          "tuning setting '%.64s': a name of capitals, digits and _", tok);
            for (const char *q = eq + 1; *q; q++)
                if (!value_char(*q))
                    return cuzk_error_set(
                        err, CUZK_ERR_INVALID_ARG,
                        "tuning setting %.64s: its value may hold letters, digits and . _ - + / :", tok);
            if (gpu_tune_var_at_setup(tok))
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                      "tuning setting %.64s: read only when the provers and parameters are set up; "
                                      "set it in the environment instead",
                                      tok);
            for (size_t i = 0; i < c.n; i++)
                if (strcmp(c.name[i], tok) == 0)
                    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "tuning setting %.64s: given twice", tok);
            if (c.n == GPU_TUNE_MAX_SETTINGS)
                return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "tuning settings: more than %d",
                                      GPU_TUNE_MAX_SETTINGS);
            c.name[c.n] = tok;
            c.value[c.n++] = eq + 1;
        }
    gpu_tune next = *t;
    gpu_tune_from_vars(&next, settings_lookup, &c);
    for (size_t i = 0; i < c.n; i++)
        if (!c.asked[i])
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "tuning setting %.64s: not a variable of the GPU tuning",
                                  c.name[i]);
    *t = next;
    return CUZK_OK;
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
