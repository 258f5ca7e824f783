/* The gRPC transport of the daemon, on gRPC core's C API: one completion-queue loop that accepts calls,
 * reads each request, hands it to the service (service.h) and sends the reply, now or when the service
 * delivers it later. The loop never waits for proving: it only ever waits on the completion queue, with a
 * short deadline so it can expire AwaitProof timeouts and notice a stop request. */
#ifndef CUZK_DAEMON_SERVER_H
#define CUZK_DAEMON_SERVER_H

#include <signal.h>

#include "cuzk/status.h"
#include "daemon/config.h"

/* Serves on every address of cfg->listen until *stop becomes non-zero, then shuts down gracefully: no new
 * calls, every job cancelled, pending replies answered, then everything freed. Returns an error if the
 * engine cannot start or an address cannot be bound. */
cuzk_status server_run(const daemon_config *cfg, volatile sig_atomic_t *stop, cuzk_error *err);

#endif
