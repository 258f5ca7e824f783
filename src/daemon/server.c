#include "daemon/server.h"

#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon/grpc_args.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "daemon/status_http.h"

#define REQUESTS_POSTED 16    /* calls the server is ready to accept at once */
#define LOOP_TICK_MS 20       /* AwaitProof timeouts are answered within about this */
#define SHUTDOWN_GRACE_S 30.0 /* then calls still open are cancelled */

/* Completion-queue tags: the call's address with the operation in the low bits (calloc'd, so aligned). */
enum { OP_NEW = 0, OP_RECV = 1, OP_CLOSE = 2, OP_SEND = 3 };
#define TAG(c, op) ((void *)((uintptr_t)(c) | (uintptr_t)(op)))

typedef struct call_ctx {
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_byte_buffer *recv;
    grpc_byte_buffer *send;
    grpc_slice status_msg;
    int have_status_msg;
    int client_cancelled;
    int accepted, recv_done, close_done, send_started, send_done, awaiting;
    struct call_ctx *prev, *next;
} call_ctx;

typedef struct server {
    grpc_server *srv;
    grpc_completion_queue *cq;
    daemon_service *svc;
    pthread_mutex_t mu; /* every call_ctx and every grpc_call operation */
    call_ctx *live;
    size_t n_live;
    int shutting_down;
} server;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- call lifetime (under mu) ---- */

static void ctx_free(server *sv, call_ctx *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        sv->live = c->next;
    if (c->next) c->next->prev = c->prev;
    sv->n_live--;
    if (c->recv) grpc_byte_buffer_destroy(c->recv);
    if (c->send) grpc_byte_buffer_destroy(c->send);
    if (c->have_status_msg) grpc_slice_unref(c->status_msg);
    if (c->call) grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    free(c);
}

/* A call is over when the request was read, the client side closed, no reply is owed and the reply sent (if
 * any) has left. */
static void ctx_maybe_free(server *sv, call_ctx *c)
{
    if (c->recv_done && c->close_done && !c->awaiting && (!c->send_started || c->send_done)) ctx_free(sv, c);
}

static void post_request(server *sv)
{
    call_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        LOGE("out of memory accepting a call");
        return;
    }
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    c->next = sv->live;
    if (sv->live) sv->live->prev = c;
    sv->live = c;
    sv->n_live++;
    grpc_call_error e =
        grpc_server_request_call(sv->srv, &c->call, &c->details, &c->md, sv->cq, sv->cq, TAG(c, OP_NEW));
    if (e != GRPC_CALL_OK) {
        LOGE("grpc_server_request_call: error %d", (int)e);
        ctx_free(sv, c);
    }
}

static void send_reply(call_ctx *c, service_reply *r)
{
    grpc_op ops[3];
    memset(ops, 0, sizeof(ops));
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (r->code == RPC_OK) {
        grpc_slice body = grpc_slice_from_copied_buffer((const char *)r->body, r->len);
        c->send = grpc_raw_byte_buffer_create(&body, 1);
        grpc_slice_unref(body);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->send;
    }
    c->status_msg = grpc_slice_from_copied_string(r->code == RPC_OK ? "" : r->msg);
    c->have_status_msg = 1;
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)r->code;
    ops[n].data.send_status_from_server.status_details = &c->status_msg;
    ops[n].data.send_status_from_server.trailing_metadata_count = 0;
    n++;
    free(r->body);
    r->body = NULL;
    c->send_started = 1;
    if (r->code != RPC_OK) LOGD("reply: status %d: %s", r->code, r->msg);
    grpc_call_error e = grpc_call_start_batch(c->call, ops, n, TAG(c, OP_SEND), NULL);
    if (e != GRPC_CALL_OK) {
        LOGW("sending a reply: grpc error %d", (int)e);
        c->send_done = 1; /* no completion will come */
    }
}

/* The service's deferred replies (job threads, helpers, timeouts). */
static void deliver(void *ctx, void *call, service_reply *reply)
{
    server *sv = ctx;
    call_ctx *c = call;
    pthread_mutex_lock(&sv->mu);
    c->awaiting = 0;
    send_reply(c, reply);
    ctx_maybe_free(sv, c);
    pthread_mutex_unlock(&sv->mu);
}

static void on_new(server *sv, call_ctx *c, int ok)
{
    if (!ok) { /* the server is shutting down */
        ctx_free(sv, c);
        return;
    }
    c->accepted = 1;
    if (!sv->shutting_down) post_request(sv);
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->recv;
    if (grpc_call_start_batch(c->call, &op, 1, TAG(c, OP_RECV), NULL) != GRPC_CALL_OK) c->recv_done = 1;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->client_cancelled;
    if (grpc_call_start_batch(c->call, &op, 1, TAG(c, OP_CLOSE), NULL) != GRPC_CALL_OK) c->close_done = 1;
    ctx_maybe_free(sv, c);
}

static void on_recv(server *sv, call_ctx *c, int ok)
{
    c->recv_done = 1;
    service_reply r;
    memset(&r, 0, sizeof(r));
    char method[256];
    size_t ml = GRPC_SLICE_LENGTH(c->details.method);
    if (ml >= sizeof(method)) ml = sizeof(method) - 1;
    memcpy(method, GRPC_SLICE_START_PTR(c->details.method), ml);
    method[ml] = '\0';
    if (!ok || !c->recv) {
        /* The client went away, or sent no message (or one over the size limit, which gRPC already refused). */
        r.code = RPC_INVALID_ARGUMENT;
        snprintf(r.msg, sizeof(r.msg), "%s: no request message", method);
        send_reply(c, &r);
        ctx_maybe_free(sv, c);
        return;
    }
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, c->recv)) {
        r.code = RPC_INVALID_ARGUMENT;
        snprintf(r.msg, sizeof(r.msg), "%s: unreadable request message", method);
        send_reply(c, &r);
        ctx_maybe_free(sv, c);
        return;
    }
    grpc_slice body = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    grpc_byte_buffer_destroy(c->recv);
    c->recv = NULL;
    int now = service_handle(sv->svc, method, GRPC_SLICE_START_PTR(body), GRPC_SLICE_LENGTH(body), c, &r);
    grpc_slice_unref(body);
    if (now)
        send_reply(c, &r);
    else
        c->awaiting = 1;
    ctx_maybe_free(sv, c);
}

static void on_close(server *sv, call_ctx *c)
{
    c->close_done = 1;
    /* A client that cancels (or whose deadline passes) before its answer: drop the waiter if we can; otherwise
     * the delivery under way still comes and frees the call. */
    if (c->awaiting && service_forget(sv->svc, c)) c->awaiting = 0;
    if (c->client_cancelled) LOGD("call cancelled by the client");
    ctx_maybe_free(sv, c);
}

static void on_send(server *sv, call_ctx *c)
{
    c->send_done = 1;
    ctx_maybe_free(sv, c);
}

/* ---- addresses ---- */

/* The socket path of a unix address, or NULL for TCP. */
static const char *unix_path(const char *addr)
{
    if (!strncmp(addr, "unix://", 7)) return addr + 7;
    if (!strncmp(addr, "unix:", 5)) return addr + 5;
    return NULL;
}

/* Creates the directories above a socket path that do not exist yet (mode 0755), as the Rust daemon does
 * for /run/curio. */
static cuzk_status make_parent_dirs(const char *path, cuzk_error *err)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return CUZK_OK; /* in the working directory, or in / */
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        int last = *p == '\0';
        if (*p != '/' && !last) continue;
        *p = '\0';
        struct stat st;
        if (stat(dir, &st) != 0) {
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return cuzk_error_set(err, CUZK_ERR_IO, "cannot create %s, the directory of the socket %s: %s", dir,
                                      path, strerror(errno));
            LOGI("created the directory %s for the socket", dir);
        } else if (!S_ISDIR(st.st_mode)) {
            return cuzk_error_set(err, CUZK_ERR_IO, "%s, on the way to the socket %s, is not a directory", dir, path);
        }
        if (last) return CUZK_OK;
        *p = '/';
    }
}

/* A socket file left by a daemon that was killed is removed; one that a live daemon answers on is not. */
static cuzk_status prepare_unix(const char *path, cuzk_error *err)
{
    struct sockaddr_un sa;
    if (!*path || strlen(path) >= sizeof(sa.sun_path))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "unix socket path '%s' is empty or too long", path);
    cuzk_status made = make_parent_dirs(path, err);
    if (made != CUZK_OK) return made;
    struct stat st;
    if (lstat(path, &st) != 0) return CUZK_OK;
    if (!S_ISSOCK(st.st_mode))
        return cuzk_error_set(err, CUZK_ERR_IO, "%s exists and is not a socket; not replacing it", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return cuzk_error_set(err, CUZK_ERR_IO, "socket: %s", strerror(errno));
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    close(fd);
    if (live) return cuzk_error_set(err, CUZK_ERR_IO, "another process is serving on %s", path);
    if (unlink(path) != 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "cannot remove the stale socket %s: %s", path, strerror(errno));
    LOGI("removed the stale socket %s", path);
    return CUZK_OK;
}

cuzk_status server_run(const daemon_config *cfg, volatile sig_atomic_t *stop, cuzk_error *err)
{
    server sv;
    memset(&sv, 0, sizeof(sv));
    pthread_mutex_init(&sv.mu, NULL);
    cuzk_status st = service_create(&sv.svc, cfg, deliver, &sv, err);
    if (st != CUZK_OK) {
        pthread_mutex_destroy(&sv.mu);
        return st;
    }
    grpc_init();
    grpc_arg args[2];
    grpc_channel_args ch = message_limit_args(args);
    sv.srv = grpc_server_create(&ch, NULL);
    sv.cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(sv.srv, sv.cq, NULL);
    int bound_unix[DAEMON_MAX_LISTEN] = {0};
    for (size_t i = 0; i < cfg->n_listen && st == CUZK_OK; i++) {
        const char *path = unix_path(cfg->listen[i]);
        if (path) st = prepare_unix(path, err);
        if (st != CUZK_OK) break;
        grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
        int port = grpc_server_add_http2_port(sv.srv, cfg->listen[i], creds);
        grpc_server_credentials_release(creds);
        if (!port) {
            st = cuzk_error_set(err, CUZK_ERR_IO, "cannot listen on %s%s", cfg->listen[i],
                                path ? " (does its directory exist and is it writable?)" : "");
            break;
        }
        bound_unix[i] = path != NULL;
    }
    status_http *http = NULL;
    if (st == CUZK_OK && cfg->status_listen[0]) st = status_http_start(&http, cfg->status_listen, cfg, sv.svc, err);
    if (st == CUZK_OK) {
        grpc_server_start(sv.srv);
        for (size_t i = 0; i < cfg->n_listen; i++)
            LOGI("cuzk-daemon serving cuzk.v1.ProvingEngine on %s", cfg->listen[i]);
        pthread_mutex_lock(&sv.mu);
        for (int i = 0; i < REQUESTS_POSTED; i++) post_request(&sv);
        pthread_mutex_unlock(&sv.mu);
    }

    static int shutdown_tag;
    int shutdown_done = st != CUZK_OK, cancelled_all = 0;
    if (st != CUZK_OK) {
        /* Not started: nothing to wait for. */
        sv.shutting_down = 1;
    }
    double grace_end = 0;
    while (st == CUZK_OK) {
        gpr_timespec deadline =
            gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(LOOP_TICK_MS, GPR_TIMESPAN));
        grpc_event ev = grpc_completion_queue_next(sv.cq, deadline, NULL);
        if (ev.type == GRPC_OP_COMPLETE) {
            if (ev.tag == &shutdown_tag) {
                shutdown_done = 1;
            } else {
                call_ctx *c = (call_ctx *)((uintptr_t)ev.tag & ~(uintptr_t)3);
                int op = (int)((uintptr_t)ev.tag & 3);
                pthread_mutex_lock(&sv.mu);
                switch (op) {
                case OP_NEW: on_new(&sv, c, ev.success); break;
                case OP_RECV: on_recv(&sv, c, ev.success); break;
                case OP_CLOSE: on_close(&sv, c); break;
                default: on_send(&sv, c); break;
                }
                pthread_mutex_unlock(&sv.mu);
            }
        }
        service_tick(sv.svc);
        if (*stop && !sv.shutting_down) {
            LOGI("shutting down: no new calls, cancelling jobs");
            pthread_mutex_lock(&sv.mu);
            sv.shutting_down = 1;
            pthread_mutex_unlock(&sv.mu);
            grpc_server_shutdown_and_notify(sv.srv, sv.cq, &shutdown_tag);
            service_begin_shutdown(sv.svc);
            grace_end = now_s() + SHUTDOWN_GRACE_S;
        }
        if (sv.shutting_down) {
            if (!cancelled_all && (service_idle(sv.svc) || now_s() > grace_end)) {
                /* Every owed reply has been handed to gRPC: calls still open are only draining. */
                grpc_server_cancel_all_calls(sv.srv);
                cancelled_all = 1;
            }
            pthread_mutex_lock(&sv.mu);
            size_t live = sv.n_live;
            pthread_mutex_unlock(&sv.mu);
            if (shutdown_done && cancelled_all && live == 0 && service_idle(sv.svc)) break;
        }
    }
    /* A server that never started may be destroyed at once; a started one only after its shutdown. */
    grpc_server_destroy(sv.srv);
    grpc_completion_queue_shutdown(sv.cq);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(sv.cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
    }
    grpc_completion_queue_destroy(sv.cq);
    while (sv.live) ctx_free(&sv, sv.live);
    status_http_stop(http);
    service_destroy(sv.svc);
    grpc_shutdown();
    for (size_t i = 0; i < cfg->n_listen; i++)
        if (bound_unix[i]) unlink(unix_path(cfg->listen[i]));
    pthread_mutex_destroy(&sv.mu);
    if (st == CUZK_OK) LOGI("cuzk-daemon stopped");
    return st;
}
