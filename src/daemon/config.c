#include "daemon/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/toml.h"
#include "engine/engine.h"

#define GIB (1024ull * 1024 * 1024)

void daemon_config_defaults(daemon_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    snprintf(cfg->listen[0], sizeof(cfg->listen[0]), "%s", DAEMON_DEFAULT_LISTEN);
    cfg->n_listen = 1;
    cfg->budget_auto = 1;
    cfg->safety_margin = 5 * GIB;
    cfg->eviction_min_idle_s = 300;
    cfg->gpu_workers_per_device = 2;
    cfg->max_batch_size = 1;
    cfg->max_batch_wait_ms = 10000;
    cfg->sort_by_type = 1;
    cfg->pipeline_enabled = 1;
    cfg->synthesis_lookahead = 1;
    cfg->pinned_abc = 1;
    cfg->abc_on_device = -1; /* "auto" */
    cfg->synthesis_concurrency = 1;
    cfg->max_parallel_synthesis = 18;
    snprintf(cfg->param_cache, sizeof(cfg->param_cache), "/data/zk/params");
    cfg->log_level = LOG_INFO;
}

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

cuzk_status daemon_log_level_parse(const char *text, daemon_log_level *out, cuzk_error *err)
{
    for (int i = 0; i <= LOG_TRACE; i++) {
        if (!strcmp(text, level_names[i])) {
            *out = (daemon_log_level)i;
            return CUZK_OK;
        }
    }
    if (!strcmp(text, "warning")) {
        *out = LOG_WARN;
        return CUZK_OK;
    }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "unknown log level '%s' (error, warn, info, debug or trace)",
                          text);
}

const char *daemon_log_level_name(daemon_log_level l)
{
    return (unsigned)l <= LOG_TRACE ? level_names[l] : "?";
}

/* Leading decimal integer of s (after blanks), its end in *rest. */
static int parse_u64_prefix(const char *s, uint64_t *out, const char **rest)
{
    while (*s == ' ' || *s == '\t') s++;
    if (!isdigit((unsigned char)*s)) return -1;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    while (*s == ' ' || *s == '\t') s++;
    *out = v;
    *rest = s;
    return 0;
}

cuzk_status daemon_parse_size(const char *text, uint64_t *out, cuzk_error *err)
{
    static const struct {
        const char *suffix;
        uint64_t mul;
    } units[] = {{"", 1},
                 {"B", 1},
                 {"KiB", 1ull << 10},
                 {"MiB", 1ull << 20},
                 {"GiB", 1ull << 30},
                 {"TiB", 1ull << 40},
                 {"KB", 1000ull},
                 {"MB", 1000000ull},
                 {"GB", 1000000000ull},
                 {"TB", 1000000000000ull}};
    uint64_t v;
    const char *rest;
    if (parse_u64_prefix(text, &v, &rest) == 0) {
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            if (!strcmp(rest, units[i].suffix)) {
                if (v && units[i].mul > UINT64_MAX / v) break;
                *out = v * units[i].mul;
                return CUZK_OK;
            }
        }
    }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                          "bad size '%s' (bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB)", text);
}

cuzk_status daemon_parse_duration(const char *text, uint64_t *seconds, cuzk_error *err)
{
    uint64_t v;
    const char *rest;
    if (parse_u64_prefix(text, &v, &rest) == 0) {
        uint64_t mul = !strcmp(rest, "") || !strcmp(rest, "s") ? 1
                       : !strcmp(rest, "m")                    ? 60
                       : !strcmp(rest, "h")                    ? 3600
                                                               : 0;
        if (mul && v <= UINT64_MAX / mul) {
            *seconds = v * mul;
            return CUZK_OK;
        }
    }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "bad duration '%s' (e.g. 300s, 5m, 2h, or seconds)", text);
}

uint64_t daemon_config_budget(const daemon_config *cfg)
{
    if (!cfg->budget_auto) return cfg->total_budget;
    uint64_t total = 256 * GIB;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof(line), f)) {
            unsigned long long kib;
            if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
                total = (uint64_t)kib * 1024;
                break;
            }
        }
        fclose(f);
    }
    /* Never 0 here: 0 means unlimited to the engine. */
    return total > cfg->safety_margin ? total - cfg->safety_margin : 1;
}

/* ---- typed access to the document ---- */

typedef struct reader {
    toml_doc *doc;
    cuzk_error *err;
    daemon_config_warn_fn warn;
    void *warn_ctx;
} reader;

static void warnf(reader *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warnf(reader *r, int line, const char *fmt, ...)
{
    if (!r->warn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->warn(r->warn_ctx, line, msg);
}

static cuzk_status type_error(reader *r, const toml_entry *e, const char *sec, const char *key, const char *want)
{
    return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: %s.%s: expected %s, got %s", e->line, sec, key, want,
                          toml_type_name(e->value.type));
}

static cuzk_status get_string(reader *r, const char *sec, const char *key, char *buf, size_t len)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (!e) return CUZK_OK;
    if (e->value.type != TOML_STRING) return type_error(r, e, sec, key, "a string");
    if (strlen(e->value.u.s) >= len)
        return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: %s.%s: longer than %zu bytes", e->line, sec, key,
                              len - 1);
    memcpy(buf, e->value.u.s, strlen(e->value.u.s) + 1);
    return CUZK_OK;
}

static cuzk_status get_uint(reader *r, const char *sec, const char *key, uint64_t max, uint64_t *out)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (!e) return CUZK_OK;
    if (e->value.type != TOML_INT) return type_error(r, e, sec, key, "an integer");
    if (e->value.u.i < 0 || (uint64_t)e->value.u.i > max)
        return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: %s.%s: %lld is outside 0..%llu", e->line, sec,
                              key, (long long)e->value.u.i, (unsigned long long)max);
    *out = (uint64_t)e->value.u.i;
    return CUZK_OK;
}

static cuzk_status get_unsigned(reader *r, const char *sec, const char *key, uint64_t max, unsigned *out)
{
    uint64_t v = *out;
    cuzk_status st = get_uint(r, sec, key, max, &v);
    *out = (unsigned)v;
    return st;
}

static cuzk_status get_bool(reader *r, const char *sec, const char *key, int *out)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (!e) return CUZK_OK;
    if (e->value.type != TOML_BOOL) return type_error(r, e, sec, key, "a boolean");
    *out = e->value.u.b;
    return CUZK_OK;
}

/* A boolean, or the string "auto" (*out = -1). */
static cuzk_status get_bool_or_auto(reader *r, const char *sec, const char *key, int *out)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (e && e->value.type == TOML_STRING && !strcmp(e->value.u.s, "auto")) {
        *out = -1;
        return CUZK_OK;
    }
    if (e && e->value.type != TOML_BOOL) return type_error(r, e, sec, key, "true, false or \"auto\"");
    return get_bool(r, sec, key, out);
}

/* A size as a string ("5GiB") or an integer of bytes; "auto" sets *is_auto when allowed. */
static cuzk_status get_size(reader *r, const char *sec, const char *key, uint64_t *out, int *is_auto)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (!e) return CUZK_OK;
    if (e->value.type == TOML_INT && e->value.u.i >= 0) {
        *out = (uint64_t)e->value.u.i;
        if (is_auto) *is_auto = 0;
        return CUZK_OK;
    }
    if (e->value.type != TOML_STRING) return type_error(r, e, sec, key, "a size string such as \"5GiB\"");
    if (is_auto && !strcmp(e->value.u.s, "auto")) {
        *is_auto = 1;
        return CUZK_OK;
    }
    cuzk_status st = daemon_parse_size(e->value.u.s, out, r->err);
    if (st != CUZK_OK) return cuzk_error_prefix(r->err, "line %d: %s.%s: ", e->line, sec, key);
    if (is_auto) *is_auto = 0;
    return CUZK_OK;
}

static cuzk_status get_duration(reader *r, const char *sec, const char *key, uint64_t *out)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (!e) return CUZK_OK;
    if (e->value.type == TOML_INT && e->value.u.i >= 0) {
        *out = (uint64_t)e->value.u.i;
        return CUZK_OK;
    }
    if (e->value.type != TOML_STRING) return type_error(r, e, sec, key, "a duration string such as \"5m\"");
    cuzk_status st = daemon_parse_duration(e->value.u.s, out, r->err);
    if (st != CUZK_OK) return cuzk_error_prefix(r->err, "line %d: %s.%s: ", e->line, sec, key);
    return CUZK_OK;
}

/* Keys the Rust daemon still accepts and ignores. */
static void deprecated(reader *r, const char *sec, const char *key, const char *why)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (e) warnf(r, e->line, "%s.%s is deprecated and ignored: %s", sec, key, why);
}

/* A key this engine parses but does not act on yet: warn when set to something else than its default. */
static void not_used_yet(reader *r, const char *sec, const char *key, int is_default, const char *why)
{
    toml_entry *e = toml_get(r->doc, sec, key);
    if (e && !is_default) warnf(r, e->line, "%s.%s: %s", sec, key, why);
}

static cuzk_status apply(reader *r, daemon_config *cfg)
{
    cuzk_status st = CUZK_OK;
    toml_doc *doc = r->doc;
#define TRY(x)                                                                                                         \
    do {                                                                                                               \
        if ((st = (x)) != CUZK_OK) return st;                                                                          \
    } while (0)

    /* [daemon] listen: one address (as the Rust daemon) or, as a cuzk extension, an array of them. */
    toml_entry *e = toml_get(doc, "daemon", "listen");
    if (e) {
        if (e->value.type == TOML_STRING) {
            if (strlen(e->value.u.s) >= sizeof(cfg->listen[0]) || !e->value.u.s[0])
                return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: daemon.listen: empty or too long",
                                      e->line);
            snprintf(cfg->listen[0], sizeof(cfg->listen[0]), "%s", e->value.u.s);
            cfg->n_listen = 1;
        } else if (e->value.type == TOML_ARRAY) {
            if (e->value.u.arr.n == 0 || e->value.u.arr.n > DAEMON_MAX_LISTEN)
                return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: daemon.listen: 1 to %d addresses",
                                      e->line, DAEMON_MAX_LISTEN);
            for (size_t i = 0; i < e->value.u.arr.n; i++) {
                const toml_value *v = &e->value.u.arr.items[i];
                if (v->type != TOML_STRING || !v->u.s[0] || strlen(v->u.s) >= sizeof(cfg->listen[0]))
                    return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG,
                                          "line %d: daemon.listen: entry %zu is not a non-empty address string",
                                          e->line, i);
                snprintf(cfg->listen[i], sizeof(cfg->listen[i]), "%s", v->u.s);
            }
            cfg->n_listen = e->value.u.arr.n;
        } else {
            return type_error(r, e, "daemon", "listen", "an address string");
        }
    }
    TRY(get_string(r, "daemon", "status_listen", cfg->status_listen, sizeof(cfg->status_listen)));

    /* [memory] */
    TRY(get_size(r, "memory", "total_budget", &cfg->total_budget, &cfg->budget_auto));
    TRY(get_size(r, "memory", "safety_margin", &cfg->safety_margin, NULL));
    TRY(get_duration(r, "memory", "eviction_min_idle", &cfg->eviction_min_idle_s));
    not_used_yet(r, "memory", "eviction_min_idle", cfg->eviction_min_idle_s == 300,
                 "parsed, but idle parameter sets are evicted under pressure regardless of idle time (srs.idle_evict "
                 "frees sets idle that long)");
    deprecated(r, "memory", "pinned_budget", "memory is one budget, memory.total_budget");
    deprecated(r, "memory", "working_memory_budget", "memory is one budget, memory.total_budget");

    /* [gpus] */
    e = toml_get(doc, "gpus", "devices");
    if (e) {
        if (e->value.type != TOML_ARRAY) return type_error(r, e, "gpus", "devices", "an array of integers");
        if (e->value.u.arr.n > DAEMON_MAX_DEVICES)
            return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: gpus.devices: more than %d devices", e->line,
                                  DAEMON_MAX_DEVICES);
        for (size_t i = 0; i < e->value.u.arr.n; i++) {
            const toml_value *v = &e->value.u.arr.items[i];
            if (v->type != TOML_INT || v->u.i < 0 || v->u.i > 1023)
                return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG,
                                      "line %d: gpus.devices: entry %zu is not a device ordinal 0..1023", e->line, i);
            cfg->devices[i] = (int)v->u.i;
        }
        cfg->n_devices = e->value.u.arr.n;
    }
    TRY(get_unsigned(r, "gpus", "gpu_threads", 4096, &cfg->gpu_threads));
    TRY(get_unsigned(r, "gpus", "gpu_workers_per_device", 64, &cfg->gpu_workers_per_device));
    TRY(get_size(r, "gpus", "memory_limit", &cfg->gpu_memory_limit, NULL));
    if (cfg->gpu_memory_limit && cfg->gpu_memory_limit < (64ull << 20)) {
        e = toml_get(doc, "gpus", "memory_limit");
        return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG,
                              "line %d: gpus.memory_limit: %" PRIu64 " bytes is below 64 MiB (0 or absent: no cap)",
                              e->line, cfg->gpu_memory_limit);
    }
    if (!cfg->gpu_workers_per_device)
        return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "gpus.gpu_workers_per_device must be at least 1");

    /* [scheduler] */
    TRY(get_unsigned(r, "scheduler", "max_batch_size", 1024, &cfg->max_batch_size));
    TRY(get_uint(r, "scheduler", "max_batch_wait_ms", 86400000ull, &cfg->max_batch_wait_ms));
    TRY(get_bool(r, "scheduler", "sort_by_type", &cfg->sort_by_type));
    not_used_yet(r, "scheduler", "max_batch_size", cfg->max_batch_size <= 1,
                 "cross-request batching is not implemented yet; each request is proved on its own");

    /* [synthesis] */
    TRY(get_unsigned(r, "synthesis", "threads", 4096, &cfg->synthesis_threads));
    deprecated(r, "synthesis", "partition_workers", "use pipeline.max_parallel_synthesis");

    /* [pipeline] */
    TRY(get_bool(r, "pipeline", "enabled", &cfg->pipeline_enabled));
    TRY(get_unsigned(r, "pipeline", "synthesis_lookahead", 1024, &cfg->synthesis_lookahead));
    TRY(get_bool(r, "pipeline", "pinned_abc", &cfg->pinned_abc));
    TRY(get_bool_or_auto(r, "pipeline", "abc_on_device", &cfg->abc_on_device));
    TRY(get_unsigned(r, "pipeline", "synthesis_concurrency", 1024, &cfg->synthesis_concurrency));
    TRY(get_unsigned(r, "pipeline", "max_parallel_synthesis", 1024, &cfg->max_parallel_synthesis));
    TRY(get_unsigned(r, "pipeline", "slot_size", 1024, &cfg->slot_size));
    TRY(get_unsigned(r, "pipeline", "max_gpu_queue_depth", 1024, &cfg->max_gpu_queue_depth));
    if (!cfg->max_parallel_synthesis) cfg->max_parallel_synthesis = 18;
    not_used_yet(r, "pipeline", "enabled", cfg->pipeline_enabled, "the engine is always pipelined");
    not_used_yet(r, "pipeline", "synthesis_concurrency", cfg->synthesis_concurrency <= 1,
                 "not used: pipeline.max_parallel_synthesis sets the synthesis workers");
    not_used_yet(r, "pipeline", "slot_size", cfg->slot_size == 0, "slotted proving is not implemented");
    not_used_yet(r, "pipeline", "max_gpu_queue_depth", cfg->max_gpu_queue_depth == 0,
                 "the dispatch pacer is not implemented; the hand-off channel bounds the queue");

    /* [srs] */
    TRY(get_string(r, "srs", "param_cache", cfg->param_cache, sizeof(cfg->param_cache)));
    TRY(get_duration(r, "srs", "idle_evict", &cfg->idle_evict_s));
    TRY(get_size(r, "srs", "pinned_budget", &cfg->pinned_budget, NULL));
    TRY(get_bool(r, "srs", "mapped", &cfg->srs_mapped));
    deprecated(r, "srs", "preload", "parameters load on first use, or through PreloadSRS");

    /* [logging] */
    char level[32] = "";
    TRY(get_string(r, "logging", "level", level, sizeof(level)));
    if (level[0]) {
        e = toml_get(doc, "logging", "level");
        if (daemon_log_level_parse(level, &cfg->log_level, r->err) != CUZK_OK)
            return cuzk_error_prefix(r->err, "line %d: logging.level: ", e->line);
    }
    TRY(get_string(r, "logging", "format", cfg->log_format, sizeof(cfg->log_format)));
    if (cfg->log_format[0] && strcmp(cfg->log_format, "json") && strcmp(cfg->log_format, "text")) {
        e = toml_get(doc, "logging", "format");
        return cuzk_error_set(r->err, CUZK_ERR_INVALID_ARG, "line %d: logging.format: '%s' is not \"json\" or \"text\"",
                              e->line, cfg->log_format);
    }
#undef TRY

    static const char *const known_sections[] = {"daemon",    "memory",   "gpus", "scheduler",
                                                 "synthesis", "pipeline", "srs",  "logging"};
    for (size_t i = 1; i < doc->n_sections; i++) {
        int known = 0;
        for (size_t k = 0; k < sizeof(known_sections) / sizeof(known_sections[0]); k++)
            known |= !strcmp(doc->sections[i], known_sections[k]);
        if (!known) warnf(r, doc->section_lines[i], "unknown section [%s] ignored", doc->sections[i]);
    }
    for (size_t i = 0; i < doc->n; i++) {
        const toml_entry *en = &doc->entries[i];
        if (en->used) continue;
        int section_known = 0;
        for (size_t k = 0; k < sizeof(known_sections) / sizeof(known_sections[0]); k++)
            section_known |= !strcmp(en->section, known_sections[k]);
        if (!en->section[0])
            warnf(r, en->line, "key '%s' outside any section ignored", en->key);
        else if (section_known)
            warnf(r, en->line, "unknown key %s.%s ignored", en->section, en->key);
    }
    return CUZK_OK;
}

cuzk_status daemon_config_apply_toml(daemon_config *cfg, const char *text, size_t len, daemon_config_warn_fn warn,
                                     void *warn_ctx, cuzk_error *err)
{
    toml_doc doc;
    cuzk_status st = toml_parse(text, len, &doc, err);
    if (st != CUZK_OK) return st;
    /* Work on a copy so a failed apply leaves cfg as it was. */
    daemon_config next = *cfg;
    reader r = {&doc, err, warn, warn_ctx};
    st = apply(&r, &next);
    if (st == CUZK_OK) *cfg = next;
    toml_free(&doc);
    return st;
}

cuzk_status daemon_config_load(daemon_config *cfg, const char *path, daemon_config_warn_fn warn, void *warn_ctx,
                               cuzk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    cuzk_status st = CUZK_OK;
    for (;;) {
        if (n == cap) {
            if (cap >= (16u << 20)) {
                st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: larger than 16 MiB", path);
                break;
            }
            size_t nc = cap ? 2 * cap : 4096;
            char *nb = realloc(buf, nc);
            if (!nb) {
                st = cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) st = cuzk_error_set(err, CUZK_ERR_IO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (st == CUZK_OK) {
        st = daemon_config_apply_toml(cfg, buf, n, warn, warn_ctx, err);
        if (st != CUZK_OK) cuzk_error_prefix(err, "%s: ", path);
    }
    free(buf);
    return st;
}
