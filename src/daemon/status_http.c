#include "daemon/status_http.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"

#ifndef CUZK_HAVE_MICROHTTPD

cuzk_status status_http_start(status_http **out, const char *listen, const daemon_config *cfg, daemon_service *svc,
                              cuzk_error *err)
{
    (void)cfg;
    (void)svc;
    *out = NULL;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                          "daemon.status_listen = \"%s\": this cuzk-daemon was built without libmicrohttpd, so it "
                          "cannot serve HTTP status (install libmicrohttpd-dev and rebuild, or leave status_listen "
                          "empty and use GetStatus)",
                          listen);
}

void status_http_stop(status_http *h)
{
    (void)h;
}

#else

#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>

#include "cuzk/v1/proving.pb-c.h"

struct status_http {
    struct MHD_Daemon *mhd;
    daemon_service *svc;
    unsigned synth_max;
};

/* A growing text buffer; on out of memory it stays failed and the page answers 500. */
typedef struct text {
    char *p;
    size_t n, cap;
    int failed;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->failed = 1;
            return;
        }
        if (t->p && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t nc = t->cap ? t->cap * 2 : 4096;
        while (nc < t->n + (size_t)k + 1) nc *= 2;
        char *np = realloc(t->p, nc);
        if (!np) {
            t->failed = 1;
            return;
        }
        t->p = np;
        t->cap = nc;
    }
}

/* A JSON string of printable ASCII (request ids, circuit ids and GPU names are): quotes and backslashes escaped,
 * anything else outside 0x20-0x7e written as \u00XX. */
static void text_str(text *t, const char *s)
{
    text_add(t, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            text_add(t, "\\%c", *c);
        else if (*c < 0x20 || *c > 0x7e)
            text_add(t, "\\u%04x", *c);
        else
            text_add(t, "%c", *c);
    }
    text_add(t, "\"");
}

/* The JSON of GET /status: the Rust daemon's fields (cuzk-core status.rs), filled from what cuzk tracks. */
static void status_json(status_http *h, const Cuzk__V1__GetStatusResponse *st, const service_snapshot *snap, text *t)
{
    unsigned active = 0, queued = 0;
    for (size_t k = 0; k < snap->n_kinds; k++) {
        active += snap->kinds[k].in_progress;
        queued += snap->kinds[k].pending;
    }
    uint64_t used = st->memory_in_use_bytes, total = st->memory_budget_bytes;
    text_add(t, "{\"uptime_secs\":%" PRIu64 ".0,", st->uptime_seconds);
    text_add(t,
             "\"memory\":{\"total_bytes\":%" PRIu64 ",\"used_bytes\":%" PRIu64 ",\"available_bytes\":%" PRIu64
             ",\"peak_bytes\":%" PRIu64 ",\"pinned_bytes\":%" PRIu64 ",\"pinned_limit_bytes\":%" PRIu64 "},",
             total, used, total > used ? total - used : 0, st->memory_peak_bytes, st->pinned_memory_bytes,
             st->pinned_memory_limit_bytes);
    text_add(t, "\"synthesis\":{\"max_concurrent\":%u,\"active\":%u},", h->synth_max, active);
    text_add(t, "\"pipelines\":[");
    for (size_t i = 0; i < snap->n_jobs; i++) {
        text_add(t, "%s{\"job_id\":", i ? "," : "");
        text_str(t, snap->jobs[i].id);
        text_add(t, ",\"proof_kind\":");
        text_str(t, snap->jobs[i].kind);
        text_add(t,
                 ",\"started_secs_ago\":%.3f,\"total_partitions\":%u,\"partitions_done\":0,\"partitions\":[],"
                 "\"state\":\"%s\"}",
                 snap->jobs[i].age_s, snap->jobs[i].partitions, snap->jobs[i].in_progress ? "running" : "queued");
    }
    text_add(t, "],\"gpu_workers\":[");
    for (size_t i = 0; i < st->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = st->gpus[i];
        int busy = g->current_job_id && g->current_job_id[0];
        text_add(t, "%s{\"worker_id\":%zu,\"gpu_ordinal\":%u,\"name\":", i ? "," : "", i, g->ordinal);
        text_str(t, g->name ? g->name : "");
        text_add(t, ",\"state\":\"%s\",\"current_job\":", busy ? "proving" : "idle");
        if (busy)
            text_str(t, g->current_job_id);
        else
            text_add(t, "null");
        text_add(t,
                 ",\"current_partition\":null,\"busy_secs\":null,\"vram_total_bytes\":%" PRIu64
                 ",\"vram_free_bytes\":%" PRIu64 "}",
                 g->vram_total_bytes, g->vram_free_bytes);
    }
    text_add(t, "],\"allocations\":{\"srs\":[");
    for (size_t i = 0; i < st->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *e = st->loaded_srs[i];
        text_add(t, "%s{\"circuit_id\":", i ? "," : "");
        text_str(t, e->circuit_id);
        text_add(
            t, ",\"bytes\":%" PRIu64 ",\"last_used_secs_ago\":null,\"evictable\":%s,\"tier\":\"%s\",\"ref_count\":%u}",
            e->size_bytes, e->ref_count ? "false" : "true", e->tier == CUZK__V1__SRSSTATUS__TIER__HOT ? "hot" : "warm",
            e->ref_count);
    }
    text_add(t, "],\"pce\":[]},");
    text_add(t,
             "\"counters\":{\"total_completed\":%" PRIu64 ",\"total_failed\":%" PRIu64 ",\"total_cancelled\":%" PRIu64
             ",\"queue_depth\":%u",
             st->total_proofs_completed, st->total_proofs_failed, st->total_proofs_cancelled, queued);
    static const char *const which[] = {"completed_by_kind", "failed_by_kind", "cancelled_by_kind"};
    for (int w = 0; w < 3; w++) {
        text_add(t, ",\"%s\":{", which[w]);
        for (size_t k = 0; k < snap->n_kinds; k++) {
            uint64_t v = w == 0 ? snap->kinds[k].completed : w == 1 ? snap->kinds[k].failed : snap->kinds[k].cancelled;
            text_add(t, "%s", k ? "," : "");
            text_str(t, snap->kinds[k].label);
            text_add(t, ":%" PRIu64, v);
        }
        text_add(t, "}");
    }
    text_add(t,
             "},\"buffers\":{\"synth_in_flight\":%u,\"provers_in_flight\":0,\"aux_in_flight\":0,"
             "\"shells_in_flight\":0,\"pending_handles\":%u}}\n",
             active, queued);
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned code, const char *type, char *body, size_t n)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(n, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *conn, unsigned code, const char *msg)
{
    char *body = strdup(msg);
    return body ? reply_text(conn, code, "text/plain; charset=utf-8", body, strlen(body)) : MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    (void)upload_data;
    status_http *h = cls;
    if (!*con_cls) { /* the headers only; the answer comes on the next call */
        *con_cls = h;
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0; /* a body, which no page here reads */
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return reply_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /status is served here\n");
    if (strcmp(url, "/status") && strcmp(url, "/"))
        return reply_error(conn, MHD_HTTP_NOT_FOUND, "not found: GET /status is served here\n");

    service_reply sr;
    memset(&sr, 0, sizeof(sr));
    static const uint8_t empty[1];
    service_handle(h->svc, "/cuzk.v1.ProvingEngine/GetStatus", empty, 0, NULL, &sr);
    Cuzk__V1__GetStatusResponse *st =
        sr.code == RPC_OK ? cuzk__v1__get_status_response__unpack(NULL, sr.len, sr.body) : NULL;
    free(sr.body);
    if (!st) return reply_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "GetStatus failed\n");
    service_snapshot *snap = malloc(sizeof(*snap));
    text t = {0};
    if (snap) {
        service_snapshot_get(h->svc, snap);
        status_json(h, st, snap, &t);
    }
    free(snap);
    cuzk__v1__get_status_response__free_unpacked(st, NULL);
    if (!snap || t.failed) {
        free(t.p);
        return reply_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    return reply_text(conn, MHD_HTTP_OK, "application/json", t.p, t.n);
}

/* "host:port", "[v6]:port": the address to bind. */
static cuzk_status parse_listen(const char *listen, struct sockaddr_storage *sa, socklen_t *len, cuzk_error *err)
{
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen || !colon[1] || strlen(listen) >= sizeof(host))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "daemon.status_listen = \"%s\": expected host:port", listen);
    size_t hn = (size_t)(colon - listen);
    const char *h = listen;
    if (listen[0] == '[' && hn >= 2 && listen[hn - 1] == ']') {
        h++;
        hn -= 2;
    }
    memcpy(host, h, hn);
    host[hn] = '\0';
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0 || !res)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "daemon.status_listen = \"%s\": %s", listen,
                              rc ? gai_strerror(rc) : "no address");
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return CUZK_OK;
}

cuzk_status status_http_start(status_http **out, const char *listen, const daemon_config *cfg, daemon_service *svc,
                              cuzk_error *err)
{
    *out = NULL;
    struct sockaddr_storage sa;
    socklen_t sa_len = 0;
    cuzk_status st = parse_listen(listen, &sa, &sa_len, err);
    if (st != CUZK_OK) return st;
    status_http *h = calloc(1, sizeof(*h));
    if (!h) return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory");
    h->svc = svc;
    h->synth_max = cfg->max_parallel_synthesis ? cfg->max_parallel_synthesis : 18;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (sa.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                              MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!h->mhd) {
        free(h);
        return cuzk_error_set(err, CUZK_ERR_IO,
                              "daemon.status_listen: cannot serve HTTP on %s (in use, or not an "
                              "address of this host?)",
                              listen);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
    LOGI("cuzk-daemon serving HTTP GET /status on %s (port %u)", listen, info ? (unsigned)info->port : 0u);
    *out = h;
    return CUZK_OK;
}

void status_http_stop(status_http *h)
{
    if (!h) return;
    MHD_stop_daemon(h->mhd);
    free(h);
}

#endif
