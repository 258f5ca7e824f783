#include "daemon/client.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/grpc_args.h"

struct rpc_client {
    grpc_channel *ch;
};

static const char *code_name(int code)
{
    static const char *const names[] = {
        "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
        "DATA_LOSS", "UNAUTHENTICATED"};
    return code >= 0 && code < (int)(sizeof(names) / sizeof(names[0])) ? names[code] : "?";
}

cuzk_status rpc_client_create(const char *addr, rpc_client **out, cuzk_error *err)
{
    *out = NULL;
    if (!strncmp(addr, "http://", 7)) addr += 7;
    if (!addr[0]) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "empty daemon address");
    rpc_client *c = calloc(1, sizeof(*c));
    if (!c) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    grpc_init();
    grpc_arg args[2];
    grpc_channel_args ca = message_limit_args(args);
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    c->ch = grpc_channel_create(addr, creds, &ca);
    grpc_channel_credentials_release(creds);
    if (!c->ch) {
        free(c);
        grpc_shutdown();
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "cannot create a channel to %s", addr);
    }
    *out = c;
    return CUZK_OK;
}

void rpc_client_destroy(rpc_client *c)
{
    if (!c) return;
    grpc_channel_destroy(c->ch);
    free(c);
    grpc_shutdown();
}

cuzk_status rpc_call(rpc_client *c, const char *method, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, double timeout_s,
                     int *grpc_code, cuzk_error *err)
{
    *resp = NULL;
    if (grpc_code) *grpc_code = -1;
    char path[128];
    snprintf(path, sizeof(path), "/cuzk.v1.ProvingEngine/%s", method);
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: out of memory packing %zu bytes", method, n);
    protobuf_c_message_pack(req, buf);
    grpc_slice body = grpc_slice_from_copied_buffer((const char *)buf, n);
    free(buf);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&body, 1);
    grpc_slice_unref(body);

    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    gpr_timespec deadline = timeout_s > 0 ? gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                                         gpr_time_from_millis((int64_t)(timeout_s * 1e3), GPR_TIMESPAN))
                                          : gpr_inf_future(GPR_CLOCK_MONOTONIC);
    grpc_slice mslice = grpc_slice_from_static_string(path);
    grpc_call *call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL, deadline, NULL);
    grpc_metadata_array init_md, trail_md;
    grpc_metadata_array_init(&init_md);
    grpc_metadata_array_init(&trail_md);
    grpc_byte_buffer *recv = NULL;
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    cuzk_status st = CUZK_OK;
    grpc_call_error ce = call ? grpc_call_start_batch(call, ops, 6, (void *)1, NULL) : GRPC_CALL_ERROR;
    if (ce != GRPC_CALL_OK) {
        st = cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot start the call (error %d)", method, (int)ce);
    } else {
        grpc_event ev = grpc_completion_queue_pluck(cq, (void *)1, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type != GRPC_OP_COMPLETE || !ev.success) {
            st = cuzk_error_set(err, CUZK_ERR_IO, "%s: the call failed", method);
        } else if (status != GRPC_STATUS_OK) {
            if (grpc_code) *grpc_code = (int)status;
            char *msg = grpc_slice_to_c_string(details);
            st = cuzk_error_set(err, CUZK_ERR_IO, "%s: %s (%d): %s", method, code_name((int)status), (int)status,
                                msg ? msg : "");
            gpr_free(msg);
        } else if (!recv) {
            st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: OK without a response message", method);
        } else {
            if (grpc_code) *grpc_code = 0;
            grpc_byte_buffer_reader reader;
            if (!grpc_byte_buffer_reader_init(&reader, recv)) {
                st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: cannot read the response", method);
            } else {
                grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
                grpc_byte_buffer_reader_destroy(&reader);
                *resp = protobuf_c_message_unpack(resp_desc, NULL, GRPC_SLICE_LENGTH(all), GRPC_SLICE_START_PTR(all));
                if (!*resp)
                    st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: malformed response (%zu bytes)", method,
                                        (size_t)GRPC_SLICE_LENGTH(all));
                grpc_slice_unref(all);
            }
        }
    }
    if (recv) grpc_byte_buffer_destroy(recv);
    grpc_byte_buffer_destroy(send);
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&init_md);
    grpc_metadata_array_destroy(&trail_md);
    if (call) grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    return st;
}
