#include "daemon/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int log_level = LOG_INFO;
static atomic_int log_json = 0;

void daemon_log_setup(daemon_log_level level, int json)
{
    atomic_store(&log_level, (int)level);
    atomic_store(&log_json, json);
}

int daemon_log_enabled(daemon_log_level level)
{
    return (int)level <= atomic_load(&log_level);
}

void daemon_log(daemon_log_level level, const char *fmt, ...)
{
    if (!daemon_log_enabled(level)) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    size_t w = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + w, sizeof(when) - w, ".%03ldZ", ts.tv_nsec / 1000000);
    static const char *const upper[] = {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
    char line[4500];
    int n;
    if (atomic_load(&log_json)) {
        char esc[4200];
        size_t e = 0;
        for (const char *p = msg; *p && e + 7 < sizeof(esc); p++) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\') {
                esc[e++] = '\\';
                esc[e++] = (char)c;
            } else if (c < 0x20) {
                e += (size_t)snprintf(esc + e, sizeof(esc) - e, "\\u%04x", c);
            } else {
                esc[e++] = (char)c;
            }
        }
        esc[e] = '\0';
        n = snprintf(line, sizeof(line), "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"}\n", when,
                     daemon_log_level_name(level), esc);
    } else {
        n = snprintf(line, sizeof(line), "%s %-5s %s\n", when, upper[level], msg);
    }
    if (n < 0) return;
    size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    ssize_t r = write(STDERR_FILENO, line, len);
    (void)r;
}
