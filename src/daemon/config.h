/* The daemon's configuration: the layout of the Rust cuzk daemon's cuzk.toml (sections daemon, memory,
 * gpus, scheduler, synthesis, pipeline, srs, logging; same keys and defaults), read with the TOML subset
 * reader, then the command line on top. docs/cuzk.example.toml documents every key.
 *
 * Keys that the Rust daemon accepts but this engine has no use for yet are parsed and checked, and a
 * non-default value is reported as a warning; deprecated keys are warned about as the Rust daemon does;
 * unknown keys and sections are warned about (never fatal, so a Rust config file keeps working). */
#ifndef CUZK_DAEMON_CONFIG_H
#define CUZK_DAEMON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define DAEMON_MAX_LISTEN 8
#define DAEMON_MAX_DEVICES 64
#define DAEMON_DEFAULT_LISTEN "unix:///run/curio/cuzk.sock"

typedef enum daemon_log_level {
    LOG_ERROR = 0,
    LOG_WARN = 1,
    LOG_INFO = 2,
    LOG_DEBUG = 3,
    LOG_TRACE = 4
} daemon_log_level;

typedef struct daemon_config {
    /* [daemon] */
    char listen[DAEMON_MAX_LISTEN][256]; /* "unix:///path", "unix:path" or "host:port" */
    size_t n_listen;
    char status_listen[256]; /* "host:port" of the HTTP GET /status page; "": none */
    /* [memory] */
    int budget_auto;        /* total_budget = "auto": MemTotal - safety_margin */
    uint64_t total_budget;  /* bytes, when not auto */
    uint64_t safety_margin; /* bytes */
    uint64_t eviction_min_idle_s;
    /* [gpus] */
    int devices[DAEMON_MAX_DEVICES];
    size_t n_devices;     /* 0: one device, 0 */
    unsigned gpu_threads; /* the prover's CPU thread pool; 0: all CPUs */
    unsigned gpu_workers_per_device;
    uint64_t gpu_memory_limit; /* cuzk: bytes of device memory the GPU backend may hold on each device; 0: all */
    /* [scheduler] */
    unsigned max_batch_size;
    uint64_t max_batch_wait_ms;
    int sort_by_type;
    /* [synthesis] */
    unsigned synthesis_threads; /* the a/b/c evaluation pool; 0: all CPUs */
    /* [pipeline] */
    int pipeline_enabled;
    unsigned synthesis_lookahead;
    int pinned_abc;    /* a, b, c of each partition in page-locked memory when the backend offers it (the GPU) */
    int abc_on_device; /* GPU backend: a, b, c evaluated on the device from the circuit's matrices: 1, 0, -1 "auto" */
    unsigned synthesis_concurrency;
    unsigned max_parallel_synthesis; /* the engine's synthesis workers; 0: 18 */
    unsigned slot_size;
    unsigned max_gpu_queue_depth;
    /* [srs] */
    char param_cache[1024];
    uint64_t idle_evict_s;  /* cuzk: free a parameter set unused this long; 0: keep it while the budget allows */
    uint64_t pinned_budget; /* cuzk: bytes of parameters in use kept page-locked (GPU backend); 0: none */
    int srs_mapped;         /* cuzk: parameters through a memory-mapped cache file beside each .params */
    /* [logging] */
    daemon_log_level log_level;
    char log_format[16]; /* "" (text) or "json" */
} daemon_config;

/* Warnings go through this (line 0: not tied to a line). */
typedef void (*daemon_config_warn_fn)(void *ctx, int line, const char *msg);

void daemon_config_defaults(daemon_config *cfg);
/* Applies a TOML document's text over cfg. A syntax error, a wrong type or an invalid value is an error
 * ("line N: section.key: ..."); unknown and deprecated keys are warnings. */
cuzk_status daemon_config_apply_toml(daemon_config *cfg, const char *text, size_t len, daemon_config_warn_fn warn,
                                     void *warn_ctx, cuzk_error *err);
/* Reads the file and applies it. CUZK_ERR_IO if it cannot be read. */
cuzk_status daemon_config_load(daemon_config *cfg, const char *path, daemon_config_warn_fn warn, void *warn_ctx,
                               cuzk_error *err);

/* "error" .. "trace" (also "warning"). */
cuzk_status daemon_log_level_parse(const char *text, daemon_log_level *out, cuzk_error *err);
const char *daemon_log_level_name(daemon_log_level l);
/* Sizes: an integer number of bytes, or a number with KiB/MiB/GiB/TiB (powers of 1024) or KB/MB/GB/TB
 * (powers of 1000), e.g. "5GiB", "512 MiB". */
cuzk_status daemon_parse_size(const char *text, uint64_t *out, cuzk_error *err);
/* Durations: "300s", "5m", "2h", or a number of seconds. */
cuzk_status daemon_parse_duration(const char *text, uint64_t *seconds, cuzk_error *err);
/* The budget in bytes the engine gets (0: unlimited): total_budget, or MemTotal - safety_margin for auto
 * (256 GiB - safety_margin when /proc/meminfo cannot be read, as the Rust daemon). */
uint64_t daemon_config_budget(const daemon_config *cfg);

#endif
