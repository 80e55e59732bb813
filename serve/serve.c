/*
 * serve.c — the preview server of `noisegraph serve SCRIPT`: the daemon (libmicrohttpd, one
 * thread per connection, so a slow render holds only its own connection),
 * the checks every request gets (Host, method, path), the embedded page,
 * and the event stream. It runs until SIGINT or SIGTERM, which the main
 * thread waits for (every other thread blocks them), then stops cleanly:
 * renders are cancelled, event streams end, threads are joined.
 *
 * Connection slots (128, a thread each) are kept for the clients that use
 * them: at most 32 event streams and 64 requests being answered at once
 * (past either, a 503 at once); a request must arrive within 10 s of
 * silence (libmicrohttpd's timeout, lifted while its answer is computed);
 * and once 112 slots are taken, each new connection closes the one that
 * has waited longest for a request (a half-sent request or an idle
 * keep-alive), so stalled clients cannot lock the others out. A request's
 * socket is watched while it is answered: when its client hangs up, its
 * cancel flag is set, and its render or wait gives up its turn.
 */
#include "serve.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

/* The port requests must name in Host; 0 until the daemon is bound (a
 * request before that is refused). Atomic: connection threads read it. */
static atomic_int served_port;

/* ---- connection slots ------------------------------------------------------------ */

#define MAX_STREAMS 32  /* event streams open at once (a page holds one) */
#define MAX_BUSY 64     /* requests being answered at once, streams aside */
#define EVICT_AT (NG_SERVE_MAX_CONNECTIONS - 16)
#define REQUEST_TIMEOUT 10u /* s of silence while a request arrives, or between requests */
#define SEND_TIMEOUT 60u    /* s of silence while an answer is sent */

/* A connection (libmicrohttpd's socket context), from its start to its
 * close; freed at its close, after its thread ended. */
typedef struct slot {
    struct MHD_Connection *c;
    int fd;
    int busy, stream; /* answering a request; that answer is an event stream */
    int evicted;
    double idle_since; /* when it began to wait for a request */
    atomic_int cancel; /* its request's (ng_query.cancel) */
    struct slot *next;
} slot;

static struct {
    pthread_mutex_t mu;
    slot *all;
    int n, busy, streams;
    int stop;
    pthread_t monitor;
    int monitor_running;
} conns = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Closes the connection that has waited longest for a request (conns.mu
 * held): its thread sees the socket end and leaves. Its descriptor is
 * still its own here: libmicrohttpd closes it only after notifying the
 * close, which takes conns.mu. */
static void evict_oldest(const slot *except)
{
    slot *k, *old = NULL;
    for (k = conns.all; k; k = k->next)
        if (k != except && !k->busy && !k->stream && !k->evicted && (!old || k->idle_since < old->idle_since)) old = k;
    if (!old) return;
    old->evicted = 1;
    shutdown(old->fd, SHUT_RDWR);
}

static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    slot *k = *socket_context, **p;
    (void)cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!info || !(k = calloc(1, sizeof *k))) return; /* not counted: handle answers 500 */
        k->c = c, k->fd = info->connect_fd, k->idle_since = now_s();
        atomic_init(&k->cancel, 0);
        pthread_mutex_lock(&conns.mu);
        k->next = conns.all, conns.all = k, conns.n++;
        if (conns.n >= EVICT_AT) evict_oldest(k);
        pthread_mutex_unlock(&conns.mu);
        *socket_context = k;
        return;
    }
    if (!k) return;
    pthread_mutex_lock(&conns.mu);
    for (p = &conns.all; *p && *p != k; p = &(*p)->next) continue;
    if (*p) *p = k->next, conns.n--;
    conns.busy -= k->busy, conns.streams -= k->stream;
    pthread_mutex_unlock(&conns.mu);
    free(k);
    *socket_context = NULL;
}

static slot *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* Takes a slot for answering (an event stream or another request): 0, or
 * -1 when they are all taken. */
static int conn_answer(slot *k, int stream)
{
    int counted, ok;
    pthread_mutex_lock(&conns.mu);
    counted = k->busy || k->stream; /* a second call for the same request */
    ok = counted || (stream ? conns.streams < MAX_STREAMS : conns.busy < MAX_BUSY);
    if (ok && !counted) {
        if (stream) k->stream = 1, conns.streams++;
        else k->busy = 1, conns.busy++;
        atomic_store(&k->cancel, 0);
    }
    pthread_mutex_unlock(&conns.mu);
    return ok ? 0 : -1;
}

/* The request's answer has been sent (or abandoned): the slot waits for
 * the next request on the connection. */
static void conn_done(slot *k)
{
    pthread_mutex_lock(&conns.mu);
    conns.busy -= k->busy, conns.streams -= k->stream;
    k->busy = k->stream = 0;
    k->idle_since = now_s();
    pthread_mutex_unlock(&conns.mu);
}

/* Every 50 ms: the sockets of the requests being answered whose clients
 * hung up (they shut their end: POLLRDHUP; or the connection broke) get
 * their cancel flag set. */
static void *monitor(void *arg)
{
    sigset_t all;
    struct pollfd p[NG_SERVE_MAX_CONNECTIONS + 1];
    slot *who[NG_SERVE_MAX_CONNECTIONS + 1];
    (void)arg;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        struct timespec t = {0, 50000000};
        slot *k;
        int n = 0, i;
        pthread_mutex_lock(&conns.mu);
        if (conns.stop) {
            pthread_mutex_unlock(&conns.mu);
            return NULL;
        }
        for (k = conns.all; k && n < (int)(sizeof p / sizeof p[0]); k = k->next)
            if ((k->busy || k->stream) && !atomic_load(&k->cancel)) {
                p[n].fd = k->fd, p[n].events = POLLRDHUP, p[n].revents = 0;
                who[n++] = k;
            }
        if (n && poll(p, (nfds_t)n, 0) > 0) /* under the lock: no descriptor closes meanwhile */
            for (i = 0; i < n; i++)
                if (p[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) atomic_store(&who[i]->cancel, 1);
        pthread_mutex_unlock(&conns.mu);
        nanosleep(&t, NULL);
    }
}

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
    const char *name = strcmp(url, "/") ? url + (url[0] == '/') : "index.html";
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

/* An event stream's position: the generation last said; and its
 * connection's cancel flag (its client hung up). */
typedef struct events {
    long seen;
    int started;
    const atomic_int *gone;
} events;

/* The next generation after seen, or seen after 15 s; -1 when the server
 * stops or the client hung up (looked at every 250 ms, so a stream whose
 * page was closed frees its slot at once). */
static long next_generation(const events *e)
{
    long g = e->seen;
    int i;
    for (i = 0; i < 60 && g == e->seen; i++) {
        if (e->gone && atomic_load(e->gone)) return -1;
        g = ng_serve_wait_generation(e->seen, 0.25);
    }
    return g;
}

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
        g = next_generation(e);
        if (g < 0) return MHD_CONTENT_READER_END_OF_STREAM;
    }
    if (e->started && g == e->seen) {
        ng_buf_puts(&b, ": keep-alive\n\n");
    } else {
        json_t *v = json_pack("{s:I, s:o}", "generation", (json_int_t)g, "error", ng_api_error_value());
        size_t len;
        char *data = ng_json_text(v, &len);
        json_decref(v);
        ng_buf_puts(&b, "event: generation\ndata: ");
        if (data) ng_buf_add(&b, data, len); /* one line, ended by its "\n" */
        else b.oom = 1;
        ng_buf_puts(&b, "\n");
        free(data);
        e->seen = g;
    }
    /* An event is a few KiB at most (an error's fields are bounded), the
     * block 16 KiB. Out of memory: the stream ends, and the page's
     * EventSource reconnects and hears the generation at once. */
    if (b.oom || b.len > max) {
        ng_buf_free(&b);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    memcpy(buf, b.data, b.len);
    {
        size_t n = b.len;
        ng_buf_free(&b);
        return (ssize_t)n;
    }
}

static enum MHD_Result send_events(struct MHD_Connection *conn, const atomic_int *gone)
{
    events *e = calloc(1, sizeof *e);
    struct MHD_Response *r;
    if (!e) return send_text(conn, 500, "out of memory");
    e->seen = -1;
    e->gone = gone;
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
    slot *k = conn_of(conn);
    (void)cls, (void)toe;
    free(*con_cls);
    *con_cls = NULL;
    if (k) conn_done(k);
    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, REQUEST_TIMEOUT);
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

static enum MHD_Result route(struct MHD_Connection *conn, slot *k, const char *method, char *target);

/* A request, received: its slot answers it, with no timeout while the
 * answer is computed (a render may take minutes), then SEND_TIMEOUT while
 * it is sent (the timeout counts from here). */
static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url_cut, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    slot *k = conn_of(conn);
    enum MHD_Result rc;
    (void)cls, (void)version, (void)upload, (void)url_cut;
    *upload_size = 0; /* a body is never read */
    if (!k) return send_text(conn, 500, "out of memory");
    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
    rc = route(conn, k, method, *con_cls);
    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, SEND_TIMEOUT);
    return rc;
}

static enum MHD_Result route(struct MHD_Connection *conn, slot *k, const char *method, char *target)
{
    ng_answer a = {.generation = -1, .render_ms = -1};
    ng_query q;
    const char *url;
    if (host_headers(conn) > 1) return send_text(conn, 400, "more than one Host header");
    if (!host_allowed(conn)) return send_text(conn, 403, "this server answers only requests for its own address (Host)");
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        ng_answer_text(&a, 405, "only GET and HEAD");
        return send_answer(conn, &a);
    }
    if (!target) return send_text(conn, 500, "out of memory");
    if (ng_target_parse(target, &url, &q)) return send_text(conn, 400, "a NUL (%00) in the path");
    if (strncmp(url, "/api/", 5)) return send_file(conn, url);
    if (!strcmp(url, "/api/events")) {
        if (!conn_answer(k, 1)) return send_events(conn, &k->cancel);
        ng_answer_text(&a, 503, "too many event streams are open (%d): close a page of this server", MAX_STREAMS);
        return send_answer(conn, &a);
    }
    if (conn_answer(k, 0)) return send_text(conn, 503, "the server is busy: too many requests at once");
    q.cancel = &k->cancel;
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
    if (ng_spawner_start(c, err)) return 1; /* one thread yet: it forks from here */
    if (ng_serve_state_start(c, err)) goto stop;
    if (pthread_create(&conns.monitor, NULL, monitor, NULL) == 0) conns.monitor_running = 1;
    d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)c->port, NULL,
                         NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned)NG_SERVE_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
                         REQUEST_TIMEOUT, MHD_OPTION_URI_LOG_CALLBACK, keep_target, NULL, MHD_OPTION_NOTIFY_COMPLETED,
                         request_done, NULL, MHD_OPTION_NOTIFY_CONNECTION, notify_connection, NULL, MHD_OPTION_END);
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
    if (conns.monitor_running) {
        pthread_mutex_lock(&conns.mu);
        conns.stop = 1;
        pthread_mutex_unlock(&conns.mu);
        pthread_join(conns.monitor, NULL);
    }
    ng_serve_state_stop();
    ng_spawner_stop();
    return rc;
}
