/* The channel arguments that the daemon's server and its client (cuzk-bench --addr) both set: the largest
 * message either side sends or accepts. Curio's client allows 256 MB too; vanilla proofs reach ~200 MB. */
#ifndef CUZK_DAEMON_GRPC_ARGS_H
#define CUZK_DAEMON_GRPC_ARGS_H

#include <grpc/grpc.h>
#include <string.h>

#define MAX_MESSAGE_BYTES (256 * 1024 * 1024)

/* Fills args (two entries) and returns the channel arguments that point to them. */
static inline grpc_channel_args message_limit_args(grpc_arg args[2])
{
    memset(args, 0, 2 * sizeof(grpc_arg));
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = MAX_MESSAGE_BYTES;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = MAX_MESSAGE_BYTES;
    grpc_channel_args ca = {2, args};
    return ca;
}

#endif
