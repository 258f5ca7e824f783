/* daemon.status_listen: the Rust daemon's HTTP `GET /status` JSON (docs/DAEMON.md, "HTTP status"), served by
 * libmicrohttpd on its own thread from the service's GetStatus figures and service_snapshot_get. Built only
 * when libmicrohttpd is found; otherwise status_http_start fails with a message saying so. */
#ifndef CUZK_DAEMON_STATUS_HTTP_H
#define CUZK_DAEMON_STATUS_HTTP_H

#include "cuzk/status.h"
#include "daemon/config.h"
#include "daemon/service.h"

typedef struct status_http status_http;

/* listen: "host:port" ("127.0.0.1:9821", "[::1]:9821", "0.0.0.0:9821"); port 0 picks a free one (logged). */
cuzk_status status_http_start(status_http **out, const char *listen, const daemon_config *cfg, daemon_service *svc,
                              cuzk_error *err);
/* Stops serving (waits for a request in progress) and frees h; NULL is fine. */
void status_http_stop(status_http *h);

#endif
