/* The daemon's log: one line per event on stderr, "<UTC time> <LEVEL> <message>", or one JSON object per
 * line with logging.format = "json". Lines below the level cost one comparison. Thread-safe (each line
 * is written with one call). The level and format are process-wide: the daemon is one program. */
#ifndef CUZK_DAEMON_LOG_H
#define CUZK_DAEMON_LOG_H

#include "daemon/config.h"

void daemon_log_setup(daemon_log_level level, int json);
int daemon_log_enabled(daemon_log_level level);
void daemon_log(daemon_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define LOGE(...) daemon_log(LOG_ERROR, __VA_ARGS__)
#define LOGW(...) daemon_log(LOG_WARN, __VA_ARGS__)
#define LOGI(...) daemon_log(LOG_INFO, __VA_ARGS__)
#define LOGD(...)                                                                                                      \
    do {                                                                                                               \
        if (daemon_log_enabled(LOG_DEBUG)) daemon_log(LOG_DEBUG, __VA_ARGS__);                                         \
    } while (0)

#endif
