/*
 * serve.c — the preview server of `noisegraph serve SCRIPT`: the daemon (libmicrohttpd, one
 * thread per connection, so a slow render holds only its own connection),
 * the checks every request gets (Host, method, path), the embedded page,
 * and the event stream. It runs until SIGINT or SIGTERM, which the main
 * thread waits for (every other thread blocks them), then stops cleanly:
 * renders are cancelled, event streams end, threads are joined.
 */
#include "serve.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>

/* The port requests must name in Host; 0 until the daemon is bound (a
 * request before that is refused). Atomic: connection threads read it. */
static atomic_int served_port;

/* ---- answers ------------------------------------------------------------------ */

static enum MHD_Result send_response(struct MHD_Connection *conn, struct MHD_Response *resp, int status,
                                     const char *type)
{
    enum MHD_Result rc;
    if (!resp) return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    rc = MHD_queue_response(conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return rc;
}

static enum MHD_Result send_answer(struct MHD_Connection *conn, ng_answer *a)
{
    struct MHD_Response *resp;
    char num[64];
    if (a->body.oom) ng_answer_text(a, 500, "out of memory");
    resp = MHD_create_response_from_buffer(a->body.len, a->body.data ? a->body.data : (void *)"",
                                           a->body.data ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        ng_buf_free(&a->body);
        return MHD_NO;
    }
    a->body.data = NULL; /* the response frees it */
    if (a->generation >= 0) {
        snprintf(num, sizeof num, "%ld", a->generation);
        MHD_add_response_header(resp, "X-Noisegraph-Generation", num);
    }
    if (a->render_ms >= 0) {
        snprintf(num, sizeof num, "%.1f", a->render_ms);
        MHD_add_response_header(resp, "X-Noisegraph-Render-Ms", num);
    }
    if (a->status == 405) MHD_add_response_header(resp, "Allow", "GET, HEAD");
    return send_response(conn, resp, a->status, a->type);
}

static enum MHD_Result send_text(struct MHD_Connection *conn, int status, const char *msg)
{
    ng_answer a = {.generation = -1, .render_ms = -1};
    ng_answer_text(&a, status, "%s", msg);
    return send_answer(conn, &a);
}

/* ---- the page ------------------------------------------------------------------ */

static const char *content_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {{".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
                 {".css", "text/css; charset=utf-8"},   {".svg", "image/svg+xml"},
                 {".png", "image/png"},                 {".json", "application/json"}};
    const char *dot = strrchr(name, '.');
    size_t i;
    for (i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (!strcasecmp(dot, types[i].ext)) return types[i].type;
    return "application/octet-stream";
}

static enum MHD_Result send_file(struct MHD_Connection *conn, const char *url)
{
    const char *name = strcmp(url, "/") ? url + 1 : "index.html";
    int i;
    for (i = 0; i < ng_web_nfiles; i++)
        if (!strcmp(ng_web_files[i].name, name)) {
            struct MHD_Response *r = MHD_create_response_from_buffer(
                ng_web_files[i].len, (void *)ng_web_files[i].data, MHD_RESPMEM_PERSISTENT);
            return send_response(conn, r, 200, content_type(name));
        }
    return send_text(conn, 404, "no such page");
}

/* ---- events ---------------------------------------------------------------------- */

/* An event stream's position: the generation last said. */
typedef struct events {
    long seen;
    int started;
} events;

/* SSE: the current generation at once (so a page that loaded its state
 * just before a change does not miss it), then one event per new
 * generation and a comment every 15 s. Blocks between them: this is the
 * connection's own thread. */
static ssize_t events_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    events *e = cls;
    ng_buf b = {0};
    long g;
    (void)pos;
    if (!e->started) {
        e->started = 1;
        g = ng_serve_generation();
    } else {
        g = ng_serve_wait_generation(e->seen, 15);
        if (g < 0) return MHD_CONTENT_READER_END_OF_STREAM;
    }
    if (e->started && g == e->seen) {
        ng_buf_puts(&b, ": keep-alive\n\n");
    } else {
        ng_buf_printf(&b, "event: generation\ndata: {\"generation\": %ld, \"error\": ", g);
        ng_api_error_json(&b);
        ng_buf_puts(&b, "}\n\n");
        e->seen = g;
    }
    if (b.oom || b.len > max) { /* cannot happen with a 16 KiB block; say the generation at least */
        ng_buf_free(&b);
        ng_buf_printf(&b, "event: generation\ndata: {\"generation\": %ld, \"error\": null}\n\n", g);
    }
    memcpy(buf, b.data, b.len);
    {
        size_t n = b.len;
        ng_buf_free(&b);
        return (ssize_t)n;
    }
}

static enum MHD_Result send_events(struct MHD_Connection *conn)
{
    events *e = calloc(1, sizeof *e);
    struct MHD_Response *r;
    if (!e) return send_text(conn, 500, "out of memory");
    e->seen = -1;
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, events_read, e, free);
    if (!r) {
        free(e);
        return MHD_NO;
    }
    return send_response(conn, r, 200, "text/event-stream");
}

/* ---- requests ------------------------------------------------------------------------ */

/* The request target as the client sent it, kept before libmicrohttpd
 * decodes it in place (where a %00 would cut the path short): the
 * request's context, parsed by handle and freed when the request ends. */
static void *keep_target(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls, (void)conn;
    return strdup(uri ? uri : "");
}

static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)conn, (void)toe;
    free(*con_cls);
    *con_cls = NULL;
}

/* Host: "localhost" or an IPv4 address, with this server's port (or
 * without one on port 80, as browsers write it). A page from elsewhere
 * reaching us through DNS rebinding names its own host name; an address
 * cannot be rebound, and is what a browser on another machine names when
 * --listen 0.0.0.0 lets it in. */
static int host_allowed(struct MHD_Connection *conn)
{
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST), *colon;
    const int port = atomic_load(&served_port);
    char name[16], text[16];
    struct in_addr addr;
    size_t n;
    if (!host || port <= 0) return 0;
    snprintf(text, sizeof text, "%d", port);
    colon = strrchr(host, ':');
    if (colon ? strcmp(colon + 1, text) != 0 : port != 80) return 0;
    n = colon ? (size_t)(colon - host) : strlen(host);
    if (n == 9 && !strncasecmp(host, "localhost", 9)) return 1;
    if (n >= sizeof name) return 0;
    memcpy(name, host, n);
    name[n] = '\0';
    return inet_pton(AF_INET, name, &addr) == 1;
}

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind, (void)value;
    if (!strcasecmp(key, MHD_HTTP_HEADER_HOST)) ++*(int *)cls;
    return MHD_YES;
}

/* How many Host headers came (HTTP allows one: with two, which is meant?). */
static int host_headers(struct MHD_Connection *conn)
{
    int n = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_host, &n);
    return n;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url_cut, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    ng_answer a = {.generation = -1, .render_ms = -1};
    ng_query q;
    const char *url;
    (void)cls, (void)version, (void)upload, (void)url_cut;
    *upload_size = 0; /* a body is never read */
    if (host_headers(conn) > 1) return send_text(conn, 400, "more than one Host header");
    if (!host_allowed(conn)) return send_text(conn, 403, "this server answers only requests for its own address (Host)");
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        ng_answer_text(&a, 405, "only GET and HEAD");
        return send_answer(conn, &a);
    }
    if (!*con_cls) return send_text(conn, 500, "out of memory");
    if (ng_target_parse(*con_cls, &url, &q)) return send_text(conn, 400, "a NUL (%00) in the path");
    if (strncmp(url, "/api/", 5)) return send_file(conn, url);
    if (!strcmp(url, "/api/events")) return send_events(conn);
    if (ng_serve_stopping()) ng_answer_text(&a, 503, "the server is stopping");
    else if (q.nul) ng_answer_text(&a, 400, "a NUL (%%00) in the query");
    else if (!strcmp(url, "/api/state")) ng_api_state(&q, &a);
    else if (!strcmp(url, "/api/render")) ng_api_render(&q, &a);
    else if (!strcmp(url, "/api/graph.svg")) ng_api_graph_svg(&q, &a);
    else ng_answer_text(&a, 404, "no such API");
    return send_answer(conn, &a);
}

/* ---- the command ------------------------------------------------------------------------ */

static int parse_listen(const ng_serve_opts *c, struct sockaddr_in *sa, ng_error *err)
{
    struct stat st;
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((unsigned short)c->port);
    if (inet_pton(AF_INET, c->listen ? c->listen : "127.0.0.1", &sa->sin_addr) != 1) {
        ng_errorf(err, "--listen: '%.64s' is not an IPv4 address (like 127.0.0.1 or 0.0.0.0)", c->listen);
        return 2;
    }
    if (stat(c->script, &st) != 0 || !S_ISREG(st.st_mode)) {
        ng_errorf(err, "%s: cannot read the script (%s)", c->script,
                  stat(c->script, &st) != 0 ? "no such file" : "not a regular file");
        return 1;
    }
    if ((ntohl(sa->sin_addr.s_addr) >> 24) != 127)
        fprintf(stderr, "noisegraph: serve: warning: listening on %s: anyone who can reach it sees the renders and "
                        "can set the script's parameters\n", c->listen);
    return 0;
}

int ng_serve_run(const ng_serve_opts *c, ng_error *err)
{
    struct sockaddr_in sa;
    struct MHD_Daemon *d = NULL;
    const union MHD_DaemonInfo *info;
    sigset_t stop;
    int rc, sig, port;
    if ((rc = parse_listen(c, &sa, err))) return rc;
    rc = 1;
    /* SIGINT and SIGTERM wait for sigwait below: every thread made from
     * here on inherits the mask */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN); /* a page closed mid-answer */
    if (ng_serve_state_start(c, err)) goto stop;
    d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)c->port, NULL,
                         NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned)NG_SERVE_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, 120u,
                         MHD_OPTION_URI_LOG_CALLBACK, keep_target, NULL, MHD_OPTION_NOTIFY_COMPLETED, request_done,
                         NULL, MHD_OPTION_END);
    if (!d || !(info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT))) {
        ng_errorf(err, "serve: cannot listen on %s:%d (is the port in use?)", c->listen ? c->listen : "127.0.0.1",
                  c->port);
        goto stop;
    }
    port = info->port;
    atomic_store(&served_port, port);
    printf("noisegraph: serving %s at http://%s:%d/\n", c->script, c->listen ? c->listen : "127.0.0.1", port);
    fflush(stdout);
    sigwait(&stop, &sig);
    rc = 0;
stop:
    ng_serve_state_stopping(); /* event streams end, new requests get 503 */
    ng_api_cancel_all();
    if (d) MHD_stop_daemon(d); /* joins every connection's thread */
    ng_serve_state_stop();
    ng_api_shutdown();
    return rc;
}
