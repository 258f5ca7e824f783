/* Fuzzes the daemon's configuration reader: the TOML subset (toml_parse) and cuzk.toml's layout over it
 * (daemon_config_apply_toml), and the size and duration parsers on the input as one string. Properties: no crash,
 * hang or leak; every rejection carries a message; a document that parses parses the same way twice (same
 * entries), and a configuration that applies holds values within its documented limits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/toml.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_warnings(void *ctx, int line, const char *msg)
{
    (void)ctx;
    (void)line;
    FUZZ_CHECK(msg != NULL && msg[0] != 0); /* a warning always says something */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    cuzk_error err;
    toml_doc a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    err.msg[0] = 0;
    cuzk_status st = toml_parse(text, size, &a, &err);
    FUZZ_CHECK(st == CUZK_OK || err.msg[0] != 0);
    if (st == CUZK_OK) {
        FUZZ_CHECK(toml_parse(text, size, &b, &err) == CUZK_OK && a.n == b.n && a.n_sections == b.n_sections);
        for (size_t i = 0; i < a.n; i++)
            FUZZ_CHECK(strcmp(a.entries[i].section, b.entries[i].section) == 0 &&
                       strcmp(a.entries[i].key, b.entries[i].key) == 0 &&
                       a.entries[i].value.type == b.entries[i].value.type);
        toml_free(&b);
    }
    toml_free(&a);

    daemon_config cfg;
    daemon_config_defaults(&cfg);
    err.msg[0] = 0;
    st = daemon_config_apply_toml(&cfg, text, size, no_warnings, NULL, &err);
    FUZZ_CHECK(st == CUZK_OK || err.msg[0] != 0);
    if (st == CUZK_OK) {
        FUZZ_CHECK(cfg.n_listen <= DAEMON_MAX_LISTEN && cfg.n_devices <= DAEMON_MAX_DEVICES);
        FUZZ_CHECK(memchr(cfg.param_cache, 0, sizeof cfg.param_cache) != NULL);
        for (size_t i = 0; i < cfg.n_listen; i++) FUZZ_CHECK(memchr(cfg.listen[i], 0, sizeof cfg.listen[i]) != NULL);
        FUZZ_CHECK(cfg.log_level >= LOG_ERROR && cfg.log_level <= LOG_TRACE);
    }

    /* the size and duration parsers take NUL-terminated text */
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    uint64_t v;
    err.msg[0] = 0;
    FUZZ_CHECK(daemon_parse_size(s, &v, &err) == CUZK_OK || err.msg[0] != 0);
    err.msg[0] = 0;
    FUZZ_CHECK(daemon_parse_duration(s, &v, &err) == CUZK_OK || err.msg[0] != 0);
    free(s);
    return 0;
}
