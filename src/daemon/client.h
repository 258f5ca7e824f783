/* A blocking unary client of cuzk.v1.ProvingEngine on gRPC core's C API and protobuf-c, for cuzk-bench and
 * tests. One channel per client; calls may run from several threads at once (each has its own completion
 * queue). */
#ifndef CUZK_DAEMON_CLIENT_H
#define CUZK_DAEMON_CLIENT_H

#include <protobuf-c/protobuf-c.h>

#include "cuzk/status.h"

typedef struct rpc_client rpc_client;

/* addr: "unix:///abs/path", "unix:rel/path", "host:port" or "http://host:port" (the Rust tools' form). */
cuzk_status rpc_client_create(const char *addr, rpc_client **out, cuzk_error *err);
void rpc_client_destroy(rpc_client *c);

/* Calls /cuzk.v1.ProvingEngine/<method> with req and unpacks the answer as resp_desc into *resp (free it with
 * protobuf_c_message_free_unpacked). timeout_s <= 0: no deadline. A non-OK gRPC status is CUZK_ERR_IO with
 * "<method>: <code name> (<code>): <message>" and *grpc_code (may be NULL) set; 0 on success. */
cuzk_status rpc_call(rpc_client *c, const char *method, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, double timeout_s,
                     int *grpc_code, cuzk_error *err);

#endif
