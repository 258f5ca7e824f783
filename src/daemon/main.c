/* cuzk-daemon: serves cuzk.v1.ProvingEngine (docs/DAEMON.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"

#define DEFAULT_CONFIG "/data/zk/cuzk.toml"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    /* A second signal means "now": the graceful path may be waiting for a long parameter load. */
    if (stop_requested) _exit(1);
    stop_requested = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-daemon [--config FILE] [--listen ADDR]... [--log-level LEVEL]\n"
               "Serves the cuzk.v1.ProvingEngine gRPC service (the protocol of the Rust cuzk daemon that Curio uses).\n"
               "\n"
               "  -c, --config FILE     TOML configuration (layout of cuzk.toml; see docs/cuzk.example.toml).\n"
               "                        Without it, " DEFAULT_CONFIG " is read if it exists, else defaults apply.\n"
               "  -l, --listen ADDR     address to serve on, replacing daemon.listen; may be given several times:\n"
               "                        unix:///run/curio/cuzk.sock (the default), unix:relative/path, 0.0.0.0:9820\n"
               "      --log-level L     error, warn, info (default), debug or trace; replaces logging.level\n"
               "  -h, --help            this text\n"
               "\n"
               "SIGTERM or SIGINT stops it gracefully (jobs are cancelled and every caller answered); a second one\n"
               "exits at once.\n");
}

static void config_warning(void *ctx, int line, const char *msg)
{
    const char *path = ctx;
    if (line > 0)
        LOGW("%s: line %d: %s", path, line, msg);
    else
        LOGW("%s: %s", path, msg);
}

/* glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB) and its trim threshold
 * to twice that, so after one WinningPoSt partition (a 12.6 MB a, b, c set, a 3 MB witness) blocks of that size
 * come from the arenas and stay there when freed: each of the 8 x cores arenas keeps the largest such peak it
 * saw, and the daemon's RSS grew by tens of MB (10 WinningPoSt 2 KiB proofs in a row: 84 -> 148 MB; the soak
 * with PoSt: 119 -> 398 MiB). A fixed threshold (which also turns the adjustment off) sends every block of
 * 1 MiB or more to mmap and back to the system when freed: the same 10 proofs 78.2 -> 79.0 MB. The engine's
 * big buffers are reused from its own cache, so the extra mmap calls are few. MALLOC_MMAP_THRESHOLD_ in the
 * environment still decides when set. */
static void malloc_tune(void)
{
#ifdef __GLIBC__
    if (!getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

int main(int argc, char **argv)
{
    malloc_tune();
    const char *config_path = NULL, *log_level = NULL;
    const char *listen[DAEMON_MAX_LISTEN];
    size_t n_listen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        const char *v = NULL;
        int known = !strcmp(a, "-c") || !strcmp(a, "--config") || !strcmp(a, "-l") || !strcmp(a, "--listen") ||
                    !strcmp(a, "--log-level");
        if (!known) {
            fprintf(stderr, "cuzk-daemon: unknown option '%s' (try --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "cuzk-daemon: %s needs a value\n", a);
            return 2;
        }
        v = argv[++i];
        if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            config_path = v;
        } else if (!strcmp(a, "--log-level")) {
            log_level = v;
        } else {
            if (n_listen == DAEMON_MAX_LISTEN || !*v || strlen(v) >= sizeof(((daemon_config *)0)->listen[0])) {
                fprintf(stderr, "cuzk-daemon: at most %d --listen addresses, each non-empty and shorter than 256\n",
                        DAEMON_MAX_LISTEN);
                return 2;
            }
            listen[n_listen++] = v;
        }
    }

    daemon_config cfg;
    daemon_config_defaults(&cfg);
    cuzk_error err;
    daemon_log_level lvl;
    if (log_level && daemon_log_level_parse(log_level, &lvl, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk-daemon: --log-level: %s\n", err.msg);
        return 2;
    }
    daemon_log_setup(log_level ? lvl : LOG_INFO, 0);
    const char *path = config_path;
    if (!path && access(DEFAULT_CONFIG, F_OK) == 0) path = DEFAULT_CONFIG;
    if (path) {
        if (daemon_config_load(&cfg, path, config_warning, (void *)path, &err) != CUZK_OK) {
            fprintf(stderr, "cuzk-daemon: %s\n", err.msg);
            return 2;
        }
    }
    if (log_level) cfg.log_level = lvl;
    daemon_log_setup(cfg.log_level, !strcmp(cfg.log_format, "json"));
    if (n_listen) {
        for (size_t i = 0; i < n_listen; i++) snprintf(cfg.listen[i], sizeof(cfg.listen[i]), "%s", listen[i]);
        cfg.n_listen = n_listen;
    }
    LOGI("configuration: %s, log level %s", path ? path : "defaults (no config file)",
         daemon_log_level_name(cfg.log_level));

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (server_run(&cfg, &stop_requested, &err) != CUZK_OK) {
        LOGE("%s", err.msg);
        return 1;
    }
    return 0;
}
