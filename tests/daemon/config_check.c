/* The daemon's TOML subset reader and configuration: values and errors (with their line numbers) of hand-
 * written documents, the Rust daemon's own test documents, docs/cuzk.example.toml (argv[1]) read without
 * warnings to the defaults, and random mutations of it, which must each end in a document or an error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/toml.h"
#include "testutil.h"

static int parses(const char *text)
{
    toml_doc d;
    cuzk_error err;
    cuzk_status st = toml_parse(text, strlen(text), &d, &err);
    toml_free(&d);
    return st == CUZK_OK;
}

/* The error of a document that must fail, and whether its message starts with "line N:". */
static int fails_on_line(const char *text, int line)
{
    toml_doc d;
    cuzk_error err;
    cuzk_status st = toml_parse(text, strlen(text), &d, &err);
    toml_free(&d);
    if (st == CUZK_OK) return 0;
    char want[32];
    snprintf(want, sizeof(want), "line %d:", line);
    if (strncmp(err.msg, want, strlen(want)) != 0) {
        fprintf(stderr, "  expected '%s', got '%s'\n", want, err.msg);
        return 0;
    }
    return 1;
}

static void test_values(void)
{
    const char *text = "# top\n"
                       "top = 'lit\\eral'\n"
                       "[daemon]\n"
                       "s = \"a\\tb\\\"c\\u00e9\\U0001F600\"  # trailing comment\n"
                       "n = -1_000\n"
                       "h = 0xff\n"
                       "o = 0o17\n"
                       "b2 = 0b101\n"
                       "f = 2.5e3\n"
                       "neg = -0.5\n"
                       "inf = -inf\n"
                       "t = true\n"
                       "\"quoted key\" = false\n"
                       "arr = [ 1, 2,   # comment inside\n"
                       "        3, ]\n"
                       "strs = [\"x\", 'y']\r\n"
                       "empty = []\n"
                       "[a.b]\n"
                       "big = 9223372036854775807\n";
    toml_doc d;
    cuzk_error err;
    CHECK_MSG(toml_parse(text, strlen(text), &d, &err) == CUZK_OK, "%s", err.msg);
    toml_entry *e;
    CHECK((e = toml_get(&d, "", "top")) && e->value.type == TOML_STRING && !strcmp(e->value.u.s, "lit\\eral"));
    CHECK((e = toml_get(&d, "daemon", "s")) && !strcmp(e->value.u.s, "a\tb\"c\xc3\xa9\xf0\x9f\x98\x80") &&
          e->line == 4);
    CHECK((e = toml_get(&d, "daemon", "n")) && e->value.type == TOML_INT && e->value.u.i == -1000);
    CHECK((e = toml_get(&d, "daemon", "h")) && e->value.u.i == 255);
    CHECK((e = toml_get(&d, "daemon", "o")) && e->value.u.i == 15);
    CHECK((e = toml_get(&d, "daemon", "b2")) && e->value.u.i == 5);
    CHECK((e = toml_get(&d, "daemon", "f")) && e->value.type == TOML_FLOAT && e->value.u.f == 2500.0);
    CHECK((e = toml_get(&d, "daemon", "neg")) && e->value.u.f == -0.5);
    CHECK((e = toml_get(&d, "daemon", "inf")) && isinf(e->value.u.f) && e->value.u.f < 0);
    CHECK((e = toml_get(&d, "daemon", "t")) && e->value.type == TOML_BOOL && e->value.u.b == 1);
    CHECK((e = toml_get(&d, "daemon", "quoted key")) && e->value.u.b == 0);
    CHECK((e = toml_get(&d, "daemon", "arr")) && e->value.type == TOML_ARRAY && e->value.u.arr.n == 3 &&
          e->value.u.arr.items[2].u.i == 3 && e->line == 14);
    CHECK((e = toml_get(&d, "daemon", "strs")) && e->value.u.arr.n == 2 && !strcmp(e->value.u.arr.items[1].u.s, "y"));
    CHECK((e = toml_get(&d, "daemon", "empty")) && e->value.u.arr.n == 0);
    CHECK((e = toml_get(&d, "a.b", "big")) && e->value.u.i == INT64_MAX && e->line == 19);
    CHECK(toml_get(&d, "daemon", "missing") == NULL);
    toml_free(&d);

    CHECK(parses(""));
    CHECK(parses("\n\n# only comments\n"));
    CHECK(parses("a = 1")); /* no final newline */
    CHECK(parses("a=1\nb=\"\"\n"));
}

static void test_errors(void)
{
    CHECK(fails_on_line("a = 1\nb = \n", 2));
    CHECK(fails_on_line("a = \"unterminated\n", 1));
    CHECK(fails_on_line("a = 1\na = 2\n", 2));              /* duplicate key */
    CHECK(fails_on_line("[x]\n[y]\n[x]\n", 3));             /* duplicate section */
    CHECK(fails_on_line("a = 1 2\n", 1));                   /* text after the value */
    CHECK(fails_on_line("\n\na = \"\"\"multi\"\"\"\n", 3)); /* multi-line string */
    CHECK(fails_on_line("a = 1979-05-27T07:32:00Z\n", 1));  /* date */
    CHECK(fails_on_line("a = { x = 1 }\n", 1));             /* inline table */
    CHECK(fails_on_line("[[t]]\n", 1));                     /* array of tables */
    CHECK(fails_on_line("a = [[1], [2]]\n", 1));            /* nested array */
    CHECK(fails_on_line("a.b = 1\n", 1));                   /* dotted key */
    CHECK(fails_on_line("a = 99999999999999999999\n", 1));  /* out of range */
    CHECK(fails_on_line("a = 0x8000000000000000\n", 1));
    CHECK(fails_on_line("a = 012\n", 1)); /* leading zero */
    CHECK(fails_on_line("a = 1__0\n", 1));
    CHECK(fails_on_line("a = _1\n", 1));
    CHECK(fails_on_line("a = 1.\n", 1));
    CHECK(fails_on_line("a = .5\n", 1));
    CHECK(fails_on_line("a = 1e\n", 1));
    CHECK(fails_on_line("a = tru\n", 1));
    CHECK(fails_on_line("a = \"\\q\"\n", 1)); /* unknown escape */
    CHECK(fails_on_line("a = \"\\u00\"\n", 1));
    CHECK(fails_on_line("a = \"\\u0000\"\n", 1)); /* NUL */
    CHECK(fails_on_line("a = \"\\ud800\"\n", 1)); /* surrogate */
    CHECK(fails_on_line("a = [1, 2\n\n", 3));     /* unterminated array (at the end) */
    CHECK(fails_on_line("a = [1 2]\n", 1));
    CHECK(fails_on_line("[bad name]\n", 1));
    CHECK(fails_on_line("[]\n", 1));
    CHECK(fails_on_line("= 1\n", 1));
    CHECK(fails_on_line("a\n", 1));
    CHECK(fails_on_line("a = \"x\ty\x01\"\n", 1)); /* control character */
    CHECK(fails_on_line("# bad \x02 comment\n", 1));
    const char nul[] = "a = 1\nb = \0\n";
    toml_doc d;
    cuzk_error err;
    CHECK(toml_parse(nul, sizeof(nul) - 1, &d, &err) == CUZK_ERR_FORMAT && !strncmp(err.msg, "line 2:", 7));
    /* Not NUL-terminated: the reader must stop at len. */
    char buf[5] = {'a', '=', '"', 'x', 'x'};
    CHECK(toml_parse(buf, sizeof(buf), &d, &err) == CUZK_ERR_FORMAT);
    char buf2[3] = {'a', '=', '1'};
    CHECK(toml_parse(buf2, sizeof(buf2), &d, &err) == CUZK_OK);
    toml_free(&d);
}

typedef struct warnings {
    int n;
    char last[512];
    int last_line;
} warnings;

static void collect(void *ctx, int line, const char *msg)
{
    warnings *w = ctx;
    w->n++;
    w->last_line = line;
    snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void test_sizes(void)
{
    uint64_t v;
    cuzk_error err;
    CHECK(daemon_parse_size("5GiB", &v, &err) == CUZK_OK && v == 5ull << 30);
    CHECK(daemon_parse_size("626MiB", &v, &err) == CUZK_OK && v == 626ull << 20);
    CHECK(daemon_parse_size("512 MiB", &v, &err) == CUZK_OK && v == 512ull << 20);
    CHECK(daemon_parse_size("64GB", &v, &err) == CUZK_OK && v == 64000000000ull);
    CHECK(daemon_parse_size("4096", &v, &err) == CUZK_OK && v == 4096);
    CHECK(daemon_parse_size("1TiB", &v, &err) == CUZK_OK && v == 1ull << 40);
    CHECK(daemon_parse_size("5 gib", &v, &err) != CUZK_OK);
    CHECK(daemon_parse_size("", &v, &err) != CUZK_OK);
    CHECK(daemon_parse_size("-1GiB", &v, &err) != CUZK_OK);
    CHECK(daemon_parse_size("99999999999TiB", &v, &err) != CUZK_OK); /* overflows 64 bits */
    CHECK(daemon_parse_duration("5m", &v, &err) == CUZK_OK && v == 300);
    CHECK(daemon_parse_duration("300s", &v, &err) == CUZK_OK && v == 300);
    CHECK(daemon_parse_duration("60", &v, &err) == CUZK_OK && v == 60);
    CHECK(daemon_parse_duration("2h", &v, &err) == CUZK_OK && v == 7200);
    CHECK(daemon_parse_duration("5 minutes", &v, &err) != CUZK_OK);
}

static void test_config(const char *example_path)
{
    daemon_config def, cfg;
    daemon_config_defaults(&def);
    CHECK(def.n_listen == 1 && !strcmp(def.listen[0], "unix:///run/curio/cuzk.sock"));
    CHECK(def.budget_auto && def.safety_margin == 5ull << 30 && def.eviction_min_idle_s == 300);
    CHECK(def.gpu_workers_per_device == 2 && def.max_batch_size == 1 && def.max_batch_wait_ms == 10000);
    CHECK(def.max_parallel_synthesis == 18 && def.synthesis_lookahead == 1 && def.log_level == LOG_INFO);
    CHECK(!strcmp(def.param_cache, "/data/zk/params") && def.idle_evict_s == 0 && def.pinned_budget == 0);
    cuzk_error err;
    warnings w;

    /* The example file documents the defaults: reading it changes nothing and warns about nothing. */
    if (example_path) {
        cfg = def;
        memset(&w, 0, sizeof(w));
        CHECK_MSG(daemon_config_load(&cfg, example_path, collect, &w, &err) == CUZK_OK, "%s", err.msg);
        CHECK_MSG(w.n == 0, "%d warnings, last: %s", w.n, w.last);
        CHECK(memcmp(&cfg, &def, sizeof(cfg)) == 0);
    }

    /* The Rust daemon's own test document (config.rs test_parse_toml). */
    const char *rust = "\n[daemon]\nlisten = \"0.0.0.0:9820\"\n\n[srs]\nparam_cache = \"/data/zk/params\"\n\n"
                       "[memory]\ntotal_budget = \"256GiB\"\nsafety_margin = \"8GiB\"\neviction_min_idle = \"10m\"\n\n"
                       "[scheduler]\nmax_batch_size = 1\nsort_by_type = true\n";
    cfg = def;
    memset(&w, 0, sizeof(w));
    CHECK_MSG(daemon_config_apply_toml(&cfg, rust, strlen(rust), collect, &w, &err) == CUZK_OK, "%s", err.msg);
    CHECK(!strcmp(cfg.listen[0], "0.0.0.0:9820") && cfg.n_listen == 1);
    CHECK(!cfg.budget_auto && cfg.total_budget == 256ull << 30 && daemon_config_budget(&cfg) == 256ull << 30);
    CHECK(cfg.safety_margin == 8ull << 30 && cfg.eviction_min_idle_s == 600);
    CHECK(w.n == 1); /* eviction_min_idle is not used yet */

    /* Deprecated and unknown keys warn, with their lines. */
    const char *old = "[srs]\npreload = [\"porep-32g\"]\n[memory]\npinned_budget = \"50GiB\"\n"
                      "[synthesis]\npartition_workers = 12\nbogus = 1\n[other]\nx = 1\n";
    cfg = def;
    memset(&w, 0, sizeof(w));
    CHECK_MSG(daemon_config_apply_toml(&cfg, old, strlen(old), collect, &w, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(w.n == 5, "%d warnings", w.n); /* 3 deprecated, 1 unknown key, 1 unknown section */

    /* cuzk's own [srs] keys, without warnings (the pinned budget is used by the GPU backend). */
    const char *srs = "[srs]\nidle_evict = \"10m\"\npinned_budget = \"2GiB\"\nmapped = true\n";
    cfg = def;
    memset(&w, 0, sizeof(w));
    CHECK_MSG(daemon_config_apply_toml(&cfg, srs, strlen(srs), collect, &w, &err) == CUZK_OK, "%s", err.msg);
    CHECK(cfg.idle_evict_s == 600 && cfg.pinned_budget == 2ull << 30 && cfg.srs_mapped == 1 && def.srs_mapped == 0);
    CHECK_MSG(w.n == 0, "%d warnings, last: %s", w.n, w.last);

    /* Everything set. */
    const char *all = "[daemon]\nlisten = [\"unix:/tmp/a.sock\", \"127.0.0.1:9999\"]\n"
                      "[memory]\ntotal_budget = 1073741824\n"
                      "[gpus]\ndevices = [0, 3]\ngpu_threads = 4\ngpu_workers_per_device = 1\n"
                      "memory_limit = \"16GiB\"\n"
                      "[synthesis]\nthreads = 2\n[pipeline]\nsynthesis_lookahead = 4\nmax_parallel_synthesis = 0\n"
                      "[logging]\nlevel = \"debug\"\nformat = \"json\"\n";
    cfg = def;
    CHECK_MSG(daemon_config_apply_toml(&cfg, all, strlen(all), NULL, NULL, &err) == CUZK_OK, "%s", err.msg);
    CHECK(cfg.n_listen == 2 && !strcmp(cfg.listen[1], "127.0.0.1:9999"));
    CHECK(!cfg.budget_auto && cfg.total_budget == 1ull << 30);
    CHECK(cfg.n_devices == 2 && cfg.devices[1] == 3 && cfg.gpu_threads == 4 && cfg.gpu_workers_per_device == 1);
    CHECK(cfg.gpu_memory_limit == 16ull << 30 && def.gpu_memory_limit == 0);
    CHECK(cfg.synthesis_threads == 2 && cfg.synthesis_lookahead == 4 && cfg.max_parallel_synthesis == 18);
    CHECK(cfg.log_level == LOG_DEBUG && !strcmp(cfg.log_format, "json"));

    /* gpus.memory_limit as integer bytes, and 0 (no cap), without warnings. */
    const char *lim = "[gpus]\nmemory_limit = 25769803776\n";
    cfg = def;
    memset(&w, 0, sizeof(w));
    CHECK_MSG(daemon_config_apply_toml(&cfg, lim, strlen(lim), collect, &w, &err) == CUZK_OK, "%s", err.msg);
    CHECK(cfg.gpu_memory_limit == 24ull << 30 && w.n == 0);
    const char *none = "[gpus]\nmemory_limit = 0\n";
    CHECK(daemon_config_apply_toml(&cfg, none, strlen(none), collect, &w, &err) == CUZK_OK &&
          cfg.gpu_memory_limit == 0);

    /* pipeline.abc_on_device: "auto" (the default: by the devices' memory), true or false. */
    CHECK(def.abc_on_device == -1);
    static const struct {
        const char *text;
        int want;
    } abc[] = {{"[pipeline]\nabc_on_device = true\n", 1},
               {"[pipeline]\nabc_on_device = false\n", 0},
               {"[pipeline]\nabc_on_device = \"auto\"\n", -1}};
    for (size_t i = 0; i < sizeof(abc) / sizeof(abc[0]); i++) {
        cfg = def;
        cfg.abc_on_device = 7;
        memset(&w, 0, sizeof(w));
        CHECK_MSG(daemon_config_apply_toml(&cfg, abc[i].text, strlen(abc[i].text), collect, &w, &err) == CUZK_OK, "%s",
                  err.msg);
        CHECK(cfg.abc_on_device == abc[i].want && w.n == 0);
    }

    /* Wrong types and values: errors naming the line and key; cfg unchanged. */
    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        {"[gpus]\n\ngpu_workers_per_device = \"2\"\n", "line 3: gpus.gpu_workers_per_device"},
        {"[gpus]\ngpu_workers_per_device = 0\n", "gpus.gpu_workers_per_device"},
        {"[gpus]\ngpu_threads = -1\n", "line 2: gpus.gpu_threads"},
        {"[gpus]\nmemory_limit = \"16 gigs\"\n", "line 2: gpus.memory_limit"},
        {"[gpus]\nmemory_limit = true\n", "line 2: gpus.memory_limit"},
        {"[gpus]\n\nmemory_limit = \"1MiB\"\n", "line 3: gpus.memory_limit"},
        {"[gpus]\ndevices = [0, \"1\"]\n", "line 2: gpus.devices"},
        {"[memory]\ntotal_budget = \"lots\"\n", "line 2: memory.total_budget"},
        {"[memory]\neviction_min_idle = \"5 minutes\"\n", "line 2: memory.eviction_min_idle"},
        {"[srs]\nidle_evict = \"soon\"\n", "line 2: srs.idle_evict"},
        {"[srs]\npinned_budget = \"big\"\n", "line 2: srs.pinned_budget"},
        {"[daemon]\nlisten = 5\n", "line 2: daemon.listen"},
        {"[daemon]\nlisten = []\n", "line 2: daemon.listen"},
        {"[logging]\nlevel = \"loud\"\n", "line 2: logging.level"},
        {"[logging]\nformat = \"xml\"\n", "line 2: logging.format"},
        {"[scheduler]\nsort_by_type = 1\n", "line 2: scheduler.sort_by_type"},
        {"[pipeline]\nabc_on_device = \"device\"\n", "line 2: pipeline.abc_on_device"},
        {"[pipeline]\nabc_on_device = 1\n", "line 2: pipeline.abc_on_device"},
        {"[daemon]\nlisten = \"x\"\nlisten = \"y\"\n", "line 3:"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cfg = def;
        cuzk_status st = daemon_config_apply_toml(&cfg, bad[i].text, strlen(bad[i].text), NULL, NULL, &err);
        CHECK_MSG(st != CUZK_OK && strstr(err.msg, bad[i].want), "case %zu: '%s'", i, st ? err.msg : "accepted");
        CHECK(memcmp(&cfg, &def, sizeof(cfg)) == 0);
    }
    CHECK(daemon_config_load(&cfg, "/nonexistent/cuzk.toml", NULL, NULL, &err) == CUZK_ERR_IO);
}

/* Random byte flips, insertions and truncations of a valid document: each must parse or fail cleanly (the
 * sanitizer build checks the "cleanly"); a parse that succeeds must also survive applying it as a config. */
static void test_mutations(const char *example_path)
{
    rng_t rng;
    test_seed(&rng, "daemon_config");
    char *base = NULL;
    size_t n = 0;
    FILE *f = example_path ? fopen(example_path, "rb") : NULL;
    if (f) {
        base = malloc(1 << 16);
        if (base) n = fread(base, 1, 1 << 16, f);
        fclose(f);
    }
    if (!base || !n) {
        static const char fallback[] = "[daemon]\nlisten = [\"a\", 'b']\n[gpus]\ndevices = [1, 2]\nx = 1.5e3\n";
        free(base);
        base = malloc(sizeof(fallback));
        if (!base) return;
        memcpy(base, fallback, sizeof(fallback) - 1);
        n = sizeof(fallback) - 1;
    }
    static const char alphabet[] = "[]\"'=#,.\\\n\r\t 0123456789abcdefxu_+-{}eE:";
    char *buf = malloc(n + 64);
    int ok = 0, bad = 0;
    for (int iter = 0; buf && iter < 20000; iter++) {
        size_t len = n;
        memcpy(buf, base, n);
        int edits = 1 + (int)(rng_next(&rng) % 4);
        for (int e = 0; e < edits; e++) {
            uint64_t r = rng_next(&rng);
            size_t at = len ? (size_t)(r >> 8) % len : 0;
            switch (r & 3) {
            case 0: buf[at] = (char)(r >> 40); break;
            case 1: buf[at] = alphabet[(r >> 40) % (sizeof(alphabet) - 1)]; break;
            case 2:
                if (len < n + 60) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = alphabet[(r >> 40) % (sizeof(alphabet) - 1)];
                    len++;
                }
                break;
            default: len = at; break;
            }
        }
        toml_doc d;
        cuzk_error err;
        if (toml_parse(buf, len, &d, &err) == CUZK_OK) {
            ok++;
            toml_free(&d);
            daemon_config cfg;
            daemon_config_defaults(&cfg);
            (void)daemon_config_apply_toml(&cfg, buf, len, NULL, NULL, &err);
        } else {
            bad++;
            CHECK_MSG(!strncmp(err.msg, "line ", 5), "error without a line: %s", err.msg);
        }
    }
    printf("mutations: %d parsed, %d rejected\n", ok, bad);
    CHECK(ok > 0 && bad > 0);
    free(buf);
    free(base);
}

int main(int argc, char **argv)
{
    const char *example = argc > 1 ? argv[1] : NULL;
    test_values();
    test_errors();
    test_sizes();
    test_config(example);
    test_mutations(example);
    return test_finish("daemon_config");
}
