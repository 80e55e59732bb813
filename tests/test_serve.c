/*
 * test_serve.c — `noisegraph serve` from the outside, as a browser sees
 * it: the program runs as a child on a free port and a small HTTP client
 * here talks to it over a socket. The answers of every endpoint and of
 * each class of bad request (wrong Host, wrong method, bad numbers, unknown
 * views, nodes and parameters, sizes past the bound); a served render has
 * the pixels of `noisegraph render` of the same window (8-bit grey PNG);
 * a script edited on disk makes a new generation and a new picture, a
 * broken one an error with its line while the last good picture is still
 * served; a new render on a stream cancels the one in progress there
 * while other requests answer; SIGTERM ends it with status 0 (under SAN,
 * no leak either). And what it must survive: scripts stuck in C code (a
 * parameter value, a saved file, an image swapped for a JPEG that takes
 * seconds to decode), Graphviz layouts that take minutes, clients that
 * hang up, floods of event streams and half-sent requests, and a dozen
 * runs at once (its memory, read from /proc).
 */
#include "cli_support.h"
#include "serve.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the server ---------------------------------------------------------------- */

typedef struct server {
    pid_t pid;
    int port;
    char err[PATHLEN]; /* its stderr */
} server;

/* Starts `noisegraph serve script --port 0 extra...` and reads the port
 * from the line it prints. 0, or -1 (a test failure) when it did not. */
static int server_start(server *s, const char *script, const char *const *extra)
{
    const char *argv[32];
    char line[512];
    int out[2], i = 0, k, n = 0;
    static int count;
    memset(s, 0, sizeof *s);
    pathf(s->err, "%s/serve-err-%d.txt", tmpdir, count++);
    argv[i++] = ng_bin, argv[i++] = "serve", argv[i++] = script, argv[i++] = "--port", argv[i++] = "0";
    for (k = 0; extra && extra[k] && i < 30; k++) argv[i++] = extra[k];
    argv[i] = NULL;
    if (pipe(out)) return -1;
    fflush(stdout), fflush(stderr);
    if ((s->pid = fork()) == 0) {
        int e = open(s->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        sigset_t none;
        if (e < 0 || dup2(out[1], 1) < 0 || dup2(e, 2) < 0) _exit(126);
        close(out[0]);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        alarm(DEFAULT_TIMEOUT * 2); /* a hang guard */
        execv(ng_bin, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    while (n < (int)sizeof line - 1) { /* the first line, with a hang guard */
        struct pollfd p = {out[0], POLLIN, 0};
        ssize_t r;
        if (poll(&p, 1, DEFAULT_TIMEOUT * 1000) <= 0 || (r = read(out[0], line + n, 1)) <= 0) break;
        if (line[n++] == '\n') break;
    }
    line[n] = '\0';
    close(out[0]); /* the server prints nothing more on stdout */
    {
        const char *at = strstr(line, "http://"), *colon = at ? strchr(at + 7, ':') : NULL;
        s->port = colon ? atoi(colon + 1) : 0;
    }
    CHECKF(s->port > 0, "serve did not print its address: '%s'", line);
    CHECK_CONTAINS(line, "noisegraph: serving ");
    return s->port > 0 ? 0 : -1;
}

/* SIGTERM; the exit status (-signal if it was killed). */
static int server_stop(server *s)
{
    int status = 0;
    if (s->pid <= 0) return -1000;
    kill(s->pid, SIGTERM);
    if (waitpid(s->pid, &status, 0) != s->pid) return -1000;
    s->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/* ---- a tiny HTTP client -------------------------------------------------------------- */

typedef struct http {
    int status;
    char *head;  /* status line and headers */
    char *body;
    size_t nbody;
} http;

static void http_free(http *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* Sends a raw request; the socket to read the answer from, or -1. */
static int http_send_raw(int port, const char *request)
{
    struct sockaddr_in a;
    struct timeval tv = {DEFAULT_TIMEOUT, 0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    size_t off = 0, len = strlen(request);
    if (fd < 0) return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv); /* a hang guard */
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        close(fd);
        return -1;
    }
    while (off < len) {
        ssize_t w = write(fd, request + off, len - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    return fd;
}

/* GET path with Host 127.0.0.1:PORT. */
static int http_send(int port, const char *path)
{
    char req[8192];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", path, port);
    return http_send_raw(port, req);
}

/* Reads the whole answer (the server closes the connection). */
static void http_read(int fd, http *r)
{
    char *all = NULL, *sep;
    size_t len = 0, cap = 0;
    memset(r, 0, sizeof *r);
    r->status = -1;
    for (;;) {
        ssize_t n;
        if (len + 65536 > cap) {
            char *b = realloc(all, cap = len + 65536 + cap);
            if (!b) break;
            all = b;
        }
        if ((n = read(fd, all + len, cap - len - 1)) <= 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (!all) return;
    all[len] = '\0';
    if (!(sep = strstr(all, "\r\n\r\n"))) {
        r->head = all;
        return;
    }
    r->nbody = len - (size_t)(sep + 4 - all);
    r->body = malloc(r->nbody + 1);
    memcpy(r->body, sep + 4, r->nbody);
    r->body[r->nbody] = '\0';
    sep[2] = '\0';
    r->head = all;
    sscanf(all, "HTTP/1.%*d %d", &r->status);
}

static void get(http *r, int port, const char *path)
{
    int fd = http_send(port, path);
    CHECKF(fd >= 0, "cannot connect to port %d", port);
    http_read(fd, r);
}

/* A header's value (case as the server writes it), or NULL. */
static const char *header(const http *r, const char *name, char *buf, size_t len)
{
    char key[128];
    const char *at;
    snprintf(key, sizeof key, "\r\n%s: ", name);
    if (!r->head || !(at = strstr(r->head, key))) return NULL;
    at += strlen(key);
    snprintf(buf, len, "%.*s", (int)strcspn(at, "\r\n"), at);
    return buf;
}

static long json_long(const char *json, const char *key)
{
    char k[128];
    const char *at;
    snprintf(k, sizeof k, "\"%s\": ", key);
    at = json ? strstr(json, k) : NULL;
    return at ? strtol(at + strlen(k), NULL, 10) : -1;
}

static long generation(int port)
{
    http r;
    long g;
    get(&r, port, "/api/state");
    g = r.status == 200 ? json_long(r.body, "generation") : -1;
    http_free(&r);
    return g;
}

/* Waits (a hang guard, not a timing check) until the generation passes
 * `after`; the new one. */
static long wait_generation(int port, long after)
{
    int i;
    long g = -1;
    for (i = 0; i < DEFAULT_TIMEOUT * 20; i++) {
        struct timespec t = {0, 50000000};
        if ((g = generation(port)) > after) return g;
        nanosleep(&t, NULL);
    }
    return g;
}

/* The PNG of an answer, decoded as 8-bit grey or RGB (w, h set); NULL if
 * it is not one. */
static unsigned char *answer_png(const http *r, png_uint_32 format, int *w, int *h)
{
    char path[PATHLEN];
    FILE *f;
    tpath(path, "answer.png");
    if (!r->body || !(f = fopen(path, "wb"))) return NULL;
    fwrite(r->body, 1, r->nbody, f);
    fclose(f);
    return decode(path, format, w, h);
}

static int status_of(int port, const char *path)
{
    http r;
    int s;
    get(&r, port, path);
    s = r.status;
    http_free(&r);
    return s;
}

/* The server's state answers 200 with no error: its last run was good. */
static void state_is_good(int port)
{
    http r;
    get(&r, port, "/api/state");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"error\": null");
    http_free(&r);
}

/* ---- scripts ---------------------------------------------------------------- */

static const char *const SCRIPT =
    "-- a test script\n"
    "local seed = ng.param(\"seed\", 5, {min = 0, max = 100, integer = true, doc = \"pattern seed\"})\n"
    "local gain = ng.param(\"gain\", 0.5, {min = 0, max = 1})\n"
    "local flat = ng.param(\"flat\", false)\n"
    "local n = ng.fbm{source = ng.simplex{element_size = 40, seed = seed}, octaves = 4}\n"
    "return (n * gain + 0.5)\n";

/* A directory of its own for each server: the watcher sees only its files. */
static void script_in(char *path, const char *dir, const char *text)
{
    char d[PATHLEN], name[PATHLEN];
    mksub(d, dir);
    snprintf(name, sizeof name, "%s/s.lua", dir);
    mkscript(path, name, text);
}

/* ---- tests ------------------------------------------------------------------- */

static void test_state_page_and_status_codes(void)
{
    char script[PATHLEN], path[PATHLEN], buf[256], side[64];
    const char *const *bad;
    server s;
    http r;
    unsigned char *page;
    size_t npage;
    static const char *const bad_renders[] = {
        "/api/render?w=abc",         "/api/render?w=0",          "/api/render?w=2049",
        "/api/render?h=NaN",         "/api/render?w=1e3",        "/api/render?w=99999999999999999999",
        "/api/render?ox=nan",        "/api/render?ox=inf",       "/api/render?oy=1e400",
        "/api/render?ox=2e15",       "/api/render?ps=0",         "/api/render?ps=-1",
        "/api/render?ps=0x10",       "/api/render?node=99999",   "/api/render?node=-1",
        "/api/render?node=abc",      "/api/render?view=sepia",   "/api/render?stream=a/b",
        "/api/render?seq=-1",        "/api/render?seq=1.5",      "/api/render?seq=x",
        "/api/render?w=8&w=9",       "/api/render?zoom=2",       "/api/render?set.nope=1",
        "/api/render?set.seed=101",  "/api/render?set.seed=-1",  "/api/render?set.seed=1.5",
        "/api/render?set.gain=nan",  "/api/render?set.gain=",    "/api/render?set.flat=maybe",
        "/api/state?set.nope=1",     "/api/state?set.gain=2",    "/api/graph.svg?set.seed=x",
        "/api/state?x=1",            NULL};
    script_in(script, "state", SCRIPT);
    if (server_start(&s, script, NULL)) return;

    get(&r, s.port, "/api/state");
    CHECK_INT(r.status, 200);
    CHECK_STR(header(&r, "Content-Type", buf, sizeof buf), "application/json");
    CHECK_STR(header(&r, "Cache-Control", buf, sizeof buf), "no-store");
    CHECK_CONTAINS(r.body, "\"script\": \"s.lua\"");
    CHECK_CONTAINS(r.body, "\"generation\": 1,");
    /* the page sizes its renders to the server's bound, which says it here */
    snprintf(side, sizeof side, "\"max_side\": %d,", NG_SERVE_MAX_SIDE);
    CHECK_CONTAINS(r.body, side);
    CHECK_CONTAINS(r.body, "{\"name\": \"seed\", \"kind\": \"int\", \"min\": 0, \"max\": 100, \"default\": 5, "
                           "\"value\": 5, \"doc\": \"pattern seed\"}");
    CHECK_CONTAINS(r.body, "{\"name\": \"gain\", \"kind\": \"number\", \"min\": 0, \"max\": 1, \"default\": 0.5");
    CHECK_CONTAINS(r.body, "{\"name\": \"flat\", \"kind\": \"bool\", \"min\": null, \"max\": null, \"default\": false");
    CHECK_CONTAINS(r.body, "\"type\": \"fractal\"");
    CHECK_CONTAINS(r.body, "\"error\": null");
    CHECK_CONTAINS(r.body, "\"command\": \"noisegraph render ");
    http_free(&r);
    /* values applied: the command line says them */
    get(&r, s.port, "/api/state?set.seed=9&set.gain=0.25");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"default\": 5, \"value\": 9");
    CHECK_CONTAINS(r.body, "\"default\": 0.5, \"value\": 0.25");
    CHECK_CONTAINS(r.body, "--set seed=9 --set gain=0.25\"");
    http_free(&r);

    /* the page: the files of web/, as they are */
    get(&r, s.port, "/");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(header(&r, "Content-Type", buf, sizeof buf), "text/html");
    pathf(path, "%s/serve/web/index.html", ng_root);
    page = slurp(path, &npage);
    CHECK(page && r.nbody == npage && memcmp(r.body, page, npage) == 0);
    free(page);
    http_free(&r);
    get(&r, s.port, "/app.js");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(header(&r, "Content-Type", buf, sizeof buf), "javascript");
    http_free(&r);
    CHECK_INT(status_of(s.port, "/nope.html"), 404);
    CHECK_INT(status_of(s.port, "/api/nope"), 404);
    CHECK_INT(status_of(s.port, "/../../etc/passwd"), 404);

    /* the graph: Graphviz's SVG, each node's group carrying its id */
    get(&r, s.port, "/api/graph.svg");
    CHECK_INT(r.status, 200);
    CHECK_STR(header(&r, "Content-Type", buf, sizeof buf), "image/svg+xml");
    CHECK_CONTAINS(r.body, "<svg");
    CHECK_CONTAINS(r.body, "<g id=\"node&#45;"); /* id="node-ID", the dash as XML writes it */
    http_free(&r);

    /* Host: only this server's own names (no DNS rebinding) */
    {
        char req[512];
        snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: evil.example:%d\r\nConnection: close\r\n\r\n", s.port);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 403);
        http_free(&r);
        snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n",
                 s.port + 1 == 65536 ? 1 : s.port + 1);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 403);
        http_free(&r);
        http_read(http_send_raw(s.port, "GET / HTTP/1.0\r\n\r\n"), &r); /* no Host at all */
        CHECK_INT(r.status, 403);
        http_free(&r);
        /* two Hosts, our own first: which one is meant? (HTTP: 400) */
        snprintf(req, sizeof req,
                 "GET /api/state HTTP/1.1\r\nHost: localhost:%d\r\nHost: evil.example:%d\r\nConnection: close\r\n\r\n",
                 s.port, s.port);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 400);
        http_free(&r);
        snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: localhost:%d\r\nConnection: close\r\n\r\n", s.port);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 200);
        http_free(&r);
        {
            /* names that only start or end like ours, no port, another
             * spelling of the port: refused; an address: accepted */
            static const char *const refused[] = {"127.0.0.1:%d.evil.example", "evil.127.0.0.1:%d",
                                                  "localhost.evil.example:%d", "127.0.0.1", "127.0.0.1:0%d",
                                                  "127.0.0.1.:%d", "[::1]:%d", "127.1:%d"};
            static const char *const accepted[] = {"LocalHost:%d", "127.0.0.2:%d", "192.0.2.7:%d"};
            char host[128];
            size_t k;
            for (k = 0; k < sizeof refused / sizeof refused[0]; k++) {
                snprintf(host, sizeof host, refused[k], s.port);
                snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
                http_read(http_send_raw(s.port, req), &r);
                CHECKF(r.status == 403, "Host %s: status %d", host, r.status);
                http_free(&r);
            }
            for (k = 0; k < sizeof accepted / sizeof accepted[0]; k++) {
                snprintf(host, sizeof host, accepted[k], s.port);
                snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
                http_read(http_send_raw(s.port, req), &r);
                CHECKF(r.status == 200, "Host %s: status %d", host, r.status);
                http_free(&r);
            }
        }
        /* methods: GET and HEAD only */
        snprintf(req, sizeof req, "POST /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 2\r\n"
                 "Connection: close\r\n\r\n{}", s.port);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 405);
        CHECK_STR(header(&r, "Allow", buf, sizeof buf), "GET, HEAD");
        http_free(&r);
        snprintf(req, sizeof req, "DELETE / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", s.port);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 405);
        http_free(&r);
        snprintf(req, sizeof req, "HEAD /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", s.port);
        http_read(http_send_raw(s.port, req), &r);
        CHECK_INT(r.status, 200);
        CHECK_INT(r.nbody, 0);
        http_free(&r);
    }

    /* every malformed request: a 400 with a one-line reason naming what */
    for (bad = bad_renders; *bad; bad++) {
        get(&r, s.port, *bad);
        CHECKF(r.status == 400, "%s: status %d, expected 400", *bad, r.status);
        CHECKF(r.body && strchr(r.body, '\n') == r.body + r.nbody - 1, "%s: not one line: %s", *bad,
               r.body ? r.body : "(none)");
        http_free(&r);
    }
    get(&r, s.port, "/api/render?set.seed=101");
    CHECK_CONTAINS(r.body, "set.seed: 101 is outside 0 to 100");
    http_free(&r);
    get(&r, s.port, "/api/render?set.nope=1");
    CHECK_CONTAINS(r.body, "no parameter 'nope'");
    http_free(&r);
    get(&r, s.port, "/api/render?w=2049");
    CHECK_CONTAINS(r.body, "w: '2049' is not a whole number from 1 to 2048");
    http_free(&r);
    CHECK_INT(status_of(s.port, "/api/render?w=16&h=16&_=123"), 200); /* a cache-buster is ignored */
    CHECK_INT(server_stop(&s), 0);
}

/* A served grey render is the PNG `noisegraph render` writes of the same
 * window, parameters and all; the views have their shapes. */
static void test_render_matches_the_cli(void)
{
    char script[PATHLEN], out[PATHLEN], answer[PATHLEN], buf[64];
    server s;
    http r;
    res c;
    int w, h, w2, h2, i, differ = 0;
    unsigned char *served, *cli_px, *node0;
    unsigned dw, dh;
    int depth, ctype;
    script_in(script, "match", SCRIPT);
    if (server_start(&s, script, NULL)) return;
    tpath(out, "match/cli.png");

    get(&r, s.port, "/api/render?w=96&h=64&ox=10.5&oy=-20&ps=0.75&set.seed=3&stream=t");
    CHECK_INT(r.status, 200);
    CHECK_STR(header(&r, "Content-Type", buf, sizeof buf), "image/png");
    CHECK_STR(header(&r, "X-Noisegraph-Generation", buf, sizeof buf), "1");
    CHECK(header(&r, "X-Noisegraph-Render-Ms", buf, sizeof buf) != NULL);
    served = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    tpath(answer, "answer.png");
    CHECK(ihdr(answer, &dw, &dh, &depth, &ctype) && depth == 8 && ctype == PNG_COLOR_TYPE_GRAY);
    http_free(&r);
    cli(&c, "render", script, "-o", out, "--size", "96x64", "--origin", "10.5,-20", "--pixel-size", "0.75", "--set",
        "seed=3", "--no-provenance", NULL);
    EXPECT_OK(&c);
    res_free(&c);
    /* one PNG encoder: the served picture is the file's bytes, not only its
     * pixels (a preview carries no provenance, so the file leaves it out) */
    CHECK(same_bytes(answer, out));
    cli_px = decode(out, PNG_FORMAT_GRAY, &w2, &h2);
    CHECK(served && cli_px);
    CHECK_INT(w, 96);
    CHECK_INT(h, 64);
    CHECK_INT(w2, 96);
    CHECK_INT(h2, 64);
    if (served && cli_px) CHECK(memcmp(served, cli_px, 96 * 64) == 0);

    /* another node: its own picture */
    get(&r, s.port, "/api/render?w=96&h=64&ox=10.5&oy=-20&ps=0.75&set.seed=3&node=0");
    CHECK_INT(r.status, 200);
    node0 = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    for (i = 0; node0 && served && i < 96 * 64; i++) differ += node0[i] != served[i];
    CHECK(differ > 0);
    http_free(&r);
    free(node0), free(served), free(cli_px);

    /* views: ramp and hillshade are RGB; repeat is four equal quadrants */
    get(&r, s.port, "/api/render?w=40&h=30&view=ramp");
    CHECK_INT(r.status, 200);
    tpath(buf, "answer.png");
    free(answer_png(&r, PNG_FORMAT_RGB, &w, &h));
    CHECK(ihdr(buf, &dw, &dh, &depth, &ctype) && dw == 40 && dh == 30 && ctype == PNG_COLOR_TYPE_RGB);
    http_free(&r);
    get(&r, s.port, "/api/render?w=40&h=30&view=hillshade");
    CHECK_INT(r.status, 200);
    node0 = answer_png(&r, PNG_FORMAT_RGB, &w, &h);
    CHECK(ihdr(buf, &dw, &dh, &depth, &ctype) && dw == 40 && dh == 30 && ctype == PNG_COLOR_TYPE_RGB);
    http_free(&r);
    /* the terrain view's controls: the defaults given are the same picture,
     * a sea level, height scale or grey ramp another; out of range, a 400 */
    {
        static const char *const same = "/api/render?w=40&h=30&view=hillshade&sea=0.3&ramp=terrain";
        static const char *const other[] = {"/api/render?w=40&h=30&view=hillshade&sea=0.7",
                                            "/api/render?w=40&h=30&view=hillshade&hs=200",
                                            "/api/render?w=40&h=30&view=hillshade&ramp=grey"};
        unsigned char *px;
        size_t k;
        get(&r, s.port, same);
        px = answer_png(&r, PNG_FORMAT_RGB, &w, &h);
        CHECK(node0 && px && !memcmp(node0, px, 40 * 30 * 3));
        free(px);
        http_free(&r);
        for (k = 0; k < sizeof other / sizeof other[0]; k++) {
            get(&r, s.port, other[k]);
            px = answer_png(&r, PNG_FORMAT_RGB, &w, &h);
            CHECKF(node0 && px && memcmp(node0, px, 40 * 30 * 3), "%s: the same picture", other[k]);
            free(px);
            http_free(&r);
        }
        get(&r, s.port, "/api/render?w=40&h=30&view=hillshade&sea=1.5");
        CHECK_INT(r.status, 400);
        CHECK_CONTAINS(r.body, "sea: '1.5' is not a sea level from 0.01 to 0.99");
        http_free(&r);
        get(&r, s.port, "/api/render?w=40&h=30&view=hillshade&ramp=heat");
        CHECK_INT(r.status, 400);
        http_free(&r);
    }
    free(node0);
    get(&r, s.port, "/api/render?w=40&h=30&view=repeat");
    CHECK_INT(r.status, 200);
    served = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    CHECK(served && w == 40 && h == 30);
    for (i = 0, differ = 0; served && i < 40 * 30; i++) {
        int x = i % 40, y = i / 40;
        differ += served[i] != served[(y % 15) * 40 + x % 20];
    }
    CHECK_INT(differ, 0);
    free(served);
    http_free(&r);
    get(&r, s.port, "/api/render?w=24&h=24&view=volume");
    CHECK_INT(r.status, 200); /* simplex and fbm take 3D: a cloud */
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

/* Edits on disk: a new generation and picture; a broken script keeps the
 * last good picture and says its line; a required module is watched; the
 * event stream tells each generation. */
static void test_edits_make_generations(void)
{
    char script[PATHLEN], mod[PATHLEN], line[4096];
    server s;
    http r;
    unsigned char *first, *second, *third;
    int w, h, ev, n = 0;
    long g;
    script_in(script, "edit", "local m = require \"mod\"\nreturn ng.simplex{element_size = 30, seed = m.seed}\n");
    mkscript(mod, "edit/mod.lua", "return {seed = 1}\n");
    if (server_start(&s, script, NULL)) return;
    CHECK_INT(generation(s.port), 1);
    ev = http_send(s.port, "/api/events");
    get(&r, s.port, "/api/render?w=32&h=32");
    first = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    http_free(&r);

    /* the module changes: generation 2, another picture */
    put_file(mod, "return {seed = 2}\n");
    g = wait_generation(s.port, 1);
    CHECK(g >= 2);
    get(&r, s.port, "/api/render?w=32&h=32");
    CHECK_INT(r.status, 200);
    second = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    CHECK(first && second && memcmp(first, second, 32 * 32) != 0);
    http_free(&r);

    /* broken: the error with file, line and source; the last good picture stays */
    put_file(script, "local m = require \"mod\"\n-- fine so far\nreturn ng.simplex{element_size = = 30}\n");
    g = wait_generation(s.port, g);
    get(&r, s.port, "/api/state");
    CHECK_CONTAINS(r.body, "\"error\": {\"file\": \"s.lua\", \"line\": 3,");
    CHECK_CONTAINS(r.body, "\"source\": \"return ng.simplex{element_size = = 30}\"}");
    CHECK_INT(json_long(r.body, "generation"), g);
    http_free(&r);
    get(&r, s.port, "/api/render?w=32&h=32");
    CHECK_INT(r.status, 200);
    third = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    CHECK(second && third && memcmp(second, third, 32 * 32) == 0);
    http_free(&r);

    /* the events said generations 1, then the later ones, errors included */
    {
        char *all = calloc(1, 65536);
        size_t len = 0;
        while (all && len < 65535 && !strstr(all, "\"line\": 3")) {
            struct pollfd p = {ev, POLLIN, 0};
            ssize_t k;
            if (poll(&p, 1, DEFAULT_TIMEOUT * 1000) <= 0 || (k = read(ev, all + len, 65535 - len)) <= 0) break;
            len += (size_t)k;
        }
        CHECK_CONTAINS(all, "Content-Type: text/event-stream");
        CHECK_CONTAINS(all, "event: generation\ndata: {\"generation\": 1, \"error\": null}\n\n");
        CHECK_CONTAINS(all, "event: generation\ndata: {\"generation\": 2, \"error\": null}\n\n");
        snprintf(line, sizeof line, "event: generation\ndata: {\"generation\": %ld, \"error\": {\"file\": \"s.lua\", "
                 "\"line\": 3,", g);
        CHECK_CONTAINS(all, line);
        free(all);
    }
    close(ev);
    n = server_stop(&s);
    CHECK_INT(n, 0); /* with an event stream open */
    free(first), free(second), free(third);
}

/* An error in a required module names the module, its line and that
 * line's text (the host puts "SCRIPT: " before such a message). A path
 * the script writes into its own error is not read outside its tree: not
 * a file beside it, nor one through a symlink, nor a FIFO (which would
 * hang the server). */
static void test_error_in_module_and_foreign_paths(void)
{
    char script[PATHLEN], mod[PATHLEN], secret[PATHLEN], link[PATHLEN], fifo[PATHLEN], text[3 * PATHLEN];
    server s;
    http r;
    long g;
    script_in(script, "moderr", "local m = require \"mod\"\nreturn ng.simplex{element_size = 30, seed = m.seed}\n");
    mkscript(mod, "moderr/mod.lua", "local t = {seed = 1}\nlocal y = nil + 1\nreturn t\n");
    mkscript(secret, "secret.txt", "TOPSECRET line one\n");
    tpath(link, "moderr/link.txt");
    tpath(fifo, "moderr/pipe");
    CHECK(symlink(secret, link) == 0);
    CHECK(mkfifo(fifo, 0600) == 0);
    if (server_start(&s, script, NULL)) return;
    get(&r, s.port, "/api/state");
    CHECK_CONTAINS(r.body, "\"error\": {\"file\": \"mod.lua\", \"line\": 2,");
    CHECK_CONTAINS(r.body, "\"source\": \"local y = nil + 1\"}");
    /* the location is given once, apart: the message does not repeat it */
    CHECK_CONTAINS(r.body, "\"message\": \"attempt to perform arithmetic on a nil value\"");
    CHECKF(!r.body || !strstr(r.body, "mod.lua:2:"), "the location repeated in the message: %s", r.body);
    http_free(&r);
    /* a syntax error, as Lua words it: "FILE:LINE: '}' expected ..." */
    put_file(script, "local t = {seed = 1\n\nreturn t\n");
    g = wait_generation(s.port, 1);
    get(&r, s.port, "/api/state");
    CHECK_CONTAINS(r.body, "\"error\": {\"file\": \"s.lua\", \"line\": 3,");
    CHECK_CONTAINS(r.body, "\"message\": \"'}' expected");
    CHECKF(!r.body || !strstr(r.body, "s.lua:3:"), "the location repeated in the message: %s", r.body);
    http_free(&r);
    {
        const char *const foreign[] = {secret, link, fifo, "/dev/zero"};
        size_t k;
        for (k = 0; k < sizeof foreign / sizeof foreign[0]; k++) {
            snprintf(text, sizeof text, "error(\"%s:1: look\", 0)\n", foreign[k]);
            put_file(script, text);
            g = wait_generation(s.port, g);
            get(&r, s.port, "/api/state");
            CHECKF(r.status == 200 && json_long(r.body, "generation") == g, "%s: status %d", foreign[k], r.status);
            CHECK_CONTAINS(r.body, "\"line\": 1,");
            CHECK_CONTAINS(r.body, "\"source\": \"\"}");
            CHECKF(!r.body || !strstr(r.body, "TOPSECRET"), "%s: a line outside the tree shown: %s", foreign[k], r.body);
            http_free(&r);
        }
    }
    CHECK_INT(server_stop(&s), 0);
}

#define FFFD "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

/* Runs with other parameter values are cached by their values: a string
 * value holding "\n" and "=" is its own run, not the run of two values. */
static void test_cached_runs_by_value(void)
{
    char script[PATHLEN];
    server s;
    http r;
    script_in(script, "cachekey",
              "local a = ng.param(\"a\", \"x\")\n"
              "local b = ng.param(\"b\", 0.5, {min = 0, max = 1})\n"
              "return ng.simplex{element_size = 30} * b\n");
    if (server_start(&s, script, NULL)) return;
    get(&r, s.port, "/api/state?set.a=x%0Ab%3D0.25");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"default\": \"x\", \"value\": \"x\\nb=0.25\"");
    CHECK_CONTAINS(r.body, "\"default\": 0.5, \"value\": 0.5");
    http_free(&r);
    get(&r, s.port, "/api/state?set.a=x&set.b=0.25");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"default\": \"x\", \"value\": \"x\"");
    CHECK_CONTAINS(r.body, "\"default\": 0.5, \"value\": 0.25");
    http_free(&r);
    /* JSON is UTF-8: bytes of no character come out as U+FFFD, characters
     * as they are; a NUL, which would cut the value, is refused */
    get(&r, s.port, "/api/state?set.a=%FF%FEx%C3%A9%ED%A0%80");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"value\": \"" FFFD FFFD "x\xc3\xa9" FFFD FFFD FFFD "\"");
    CHECK(r.body && !strchr(r.body, 0xff) && !strchr(r.body, 0xed));
    http_free(&r);
    get(&r, s.port, "/api/state?set.a=a.png%00x");
    CHECK_INT(r.status, 400);
    CHECK_CONTAINS(r.body, "NUL");
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

/* serve's own --set values are the runs' (the base's and under the
 * query's), and the command shows them; a query's value of that name
 * replaces it. They were ignored: the picture had the default. */
static void test_command_line_sets(void)
{
    static const char *const extra[] = {"--set", "b=0.75", NULL};
    char script[PATHLEN];
    server s;
    http r;
    script_in(script, "clisets",
              "local a = ng.param(\"a\", 1, {min = 0, max = 4})\n"
              "local b = ng.param(\"b\", 0.5, {min = 0, max = 1})\n"
              "return ng.simplex{element_size = 30} * a * b\n");
    if (server_start(&s, script, extra)) return;
    get(&r, s.port, "/api/state");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"value\": 0.75");
    CHECK_CONTAINS(r.body, "--set b=0.75");
    http_free(&r);
    get(&r, s.port, "/api/state?set.a=2");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"value\": 0.75");
    CHECK_CONTAINS(r.body, "--set b=0.75 --set a=2");
    http_free(&r);
    get(&r, s.port, "/api/state?set.b=0.25");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"value\": 0.25");
    CHECK(r.body && !strstr(r.body, "b=0.75"));
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

/* A render the graph refuses (a neighbourhood whose patches do not fit
 * serve's --memory-limit) is a 400 in every view, with the graph's line:
 * grey, ramp and repeat answered 500, as if the server had failed. */
static void test_refused_window_is_400(void)
{
    static const char *const views[] = {"grey", "ramp", "repeat", "hillshade"};
    static const char *const extra[] = {"--memory-limit", "64", NULL};
    char script[PATHLEN], path[128];
    server s;
    http r;
    size_t v;
    script_in(script, "refused", "return ng.mask_distance{ng.perlin{}, radius = 1000, spacing = 1}\n");
    if (server_start(&s, script, extra)) return;
    for (v = 0; v < sizeof views / sizeof views[0]; v++) {
        snprintf(path, sizeof path, "/api/render?w=16&h=16&view=%s", views[v]);
        get(&r, s.port, path);
        CHECKF(r.status == 400, "view %s: %d", views[v], r.status);
        CHECK_CONTAINS(r.body, "mask_distance: radius 1000");
        http_free(&r);
    }
    CHECK_INT(server_stop(&s), 0);
}

/* A NUL (%00) in the path is a 400, as in the query: it used to cut the
 * path short, so /api/state%00x answered as /api/state. */
static void test_nul_in_the_path(void)
{
    char script[PATHLEN];
    server s;
    http r;
    static const char *const bad[] = {"/api/state%00x", "/api/state%00", "/index.html%00.png", "/%00", NULL};
    const char *const *p;
    script_in(script, "nulpath", SCRIPT);
    if (server_start(&s, script, NULL)) return;
    for (p = bad; *p; p++) {
        get(&r, s.port, *p);
        CHECKF(r.status == 400, "%s: status %d, expected 400", *p, r.status);
        CHECK_CONTAINS(r.body, "NUL");
        http_free(&r);
    }
    CHECK_INT(status_of(s.port, "/api/state?_=%41"), 200); /* other escapes are still decoded */
    CHECK_INT(status_of(s.port, "/api/st%61te"), 200);
    CHECK_INT(server_stop(&s), 0);
}

/* A pattern match that backtracks for hours in C, where no hook runs:
 * the host's watchdog used to end the whole server (_exit(1)). */
#define STUCK_LINE "string.find(string.rep(\"a\", n), string.rep(\"a?\", n) .. string.rep(\"a\", n))\n"

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* A parameter value that gets the script stuck in C code: that run ends
 * at the time limit with a 503 saying so, and the server goes on serving
 * (the run was a child process, killed; the base is untouched). */
static void test_stuck_script_via_parameter(void)
{
    char script[PATHLEN];
    static const char *const limit[] = {"--time-limit", "1", NULL};
    server s;
    http r;
    struct timespec t0;
    script_in(script, "stuckparam",
              "local n = ng.param(\"n\", 1, {min = 1, max = 60})\n" STUCK_LINE "return ng.perlin{element_size = 8}\n");
    if (server_start(&s, script, limit)) return;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    get(&r, s.port, "/api/render?w=8&h=8&set.n=60");
    CHECK_INT(r.status, 503);
    CHECK_CONTAINS(r.body, "time limit of 1 s");
    CHECKF(seconds_since(&t0) < 15, "the stuck run took %.1f s to end", seconds_since(&t0));
    http_free(&r);
    get(&r, s.port, "/api/state?set.n=60"); /* the state of those values: the same */
    CHECK_INT(r.status, 503);
    CHECK_CONTAINS(r.body, "time limit");
    http_free(&r);
    state_is_good(s.port);
    CHECK_INT(status_of(s.port, "/api/render?w=8&h=8&set.n=2"), 200);
    CHECK_INT(server_stop(&s), 0);
}

/* A script saved stuck in C code: that generation's error says so on the
 * page, the last good picture is still served, and the next save works. */
static void test_stuck_script_saved(void)
{
    char script[PATHLEN];
    static const char *const limit[] = {"--time-limit", "1", NULL};
    server s;
    http r;
    long g;
    script_in(script, "stucksaved", "return ng.perlin{element_size = 8}\n");
    if (server_start(&s, script, limit)) return;
    put_file(script, "local n = 60\n" STUCK_LINE "return ng.perlin{element_size = 8}\n");
    g = wait_generation(s.port, 1);
    CHECK(g >= 2);
    get(&r, s.port, "/api/state");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "\"error\": {\"file\": \"s.lua\"");
    CHECK_CONTAINS(r.body, "time limit of 1 s");
    http_free(&r);
    CHECK_INT(status_of(s.port, "/api/render?w=8&h=8"), 200); /* the last good graph */
    put_file(script, "return ng.simplex{element_size = 8}\n");
    g = wait_generation(s.port, g);
    get(&r, s.port, "/api/state");
    CHECK_CONTAINS(r.body, "\"error\": null");
    CHECK_CONTAINS(r.body, "\"type\": \"noise\"");
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

/* The page's drawing of the graph lays out at most 500 boxes: a sum of
 * 3000 noises (6001 nodes) took 80 s in Graphviz. Past the cap the answer
 * is a reason, at once; below it, the drawing. */
static void test_graph_too_large_to_draw(void)
{
    char script[PATHLEN];
    server s;
    http r;
    script_in(script, "biggraph",
              "local n = ng.param(\"n\", 10, {min = 1, max = 100000})\n"
              "local x = ng.perlin{}\n"
              "for i = 1, n do x = x + ng.perlin{seed = i} end\n"
              "return x\n");
    if (server_start(&s, script, NULL)) return;
    get(&r, s.port, "/api/graph.svg?set.n=249"); /* 499 nodes and the output: 500 boxes */
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "<svg");
    http_free(&r);
    get(&r, s.port, "/api/graph.svg?set.n=3000");
    CHECK_INT(r.status, 422);
    CHECK_CONTAINS(r.body, "the graph has 6002 nodes, too many to draw (at most 500)");
    CHECK_CONTAINS(r.body, "noisegraph dot");
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

static int count_of(const char *s, const char *part)
{
    int n = 0;
    for (; s && (s = strstr(s, part)); s += strlen(part)) n++;
    return n;
}

/* Nodes carry the script's variable names (state and drawing); fold=ID
 * draws a branch as the one node it feeds, saying how many it stands for;
 * a node the graph lacks is a 400. */
static void test_graph_labels_and_folds(void)
{
    char script[PATHLEN];
    server s;
    http r;
    script_in(script, "foldgraph",
              "local hills = ng.fbm{ng.perlin{element_size = 30}, octaves = 3}\n"
              "local x = ng.perlin{}\n"
              "for i = 1, 6 do x = x + ng.perlin{seed = i} end\n"
              "return x + hills * 0.5\n");
    if (server_start(&s, script, NULL)) return;
    get(&r, s.port, "/api/state");
    CHECK_CONTAINS(r.body, "\"label\": \"hills\"");
    CHECK_CONTAINS(r.body, "\"id\": 14, \"label\": \"x\"");
    http_free(&r);
    get(&r, s.port, "/api/graph.svg");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "hills (fractal)");
    CHECK_INT(count_of(r.body, "<g id=\"node&#45;"), 17); /* the 0.5 is shown inside its consumer */
    http_free(&r);
    get(&r, s.port, "/api/graph.svg?fold=14");
    CHECK_INT(r.status, 200);
    CHECK_INT(count_of(r.body, "<g id=\"node&#45;"), 5); /* perlin, hills, x, hills * 0.5, the sum */
    CHECK_CONTAINS(r.body, "[+12 nodes folded]");
    http_free(&r);
    get(&r, s.port, "/api/graph.svg?fold=14,16");
    CHECK_INT(count_of(r.body, "<g id=\"node&#45;"), 3);
    CHECK_CONTAINS(r.body, "[+2 nodes folded]"); /* hills and its perlin; the constant is no box */
    http_free(&r);
    CHECK_INT(status_of(s.port, "/api/graph.svg?fold=18"), 400);
    CHECK_INT(status_of(s.port, "/api/graph.svg?fold=1,x"), 400);
    CHECK_INT(status_of(s.port, "/api/graph.svg?fold=-1"), 400);
    CHECK_INT(server_stop(&s), 0);
}

/* A graph far under the drawing cap can take Graphviz minutes (mix nodes
 * whose inputs reach back across the graph: 71 boxes took 36 s, 91 some
 * minutes). Its layout ends at the time limit with a 503, and SIGTERM
 * during a layout stops the server at once (it waited for the layout). */
static void test_graph_layout_time_limit(void)
{
    char script[PATHLEN];
    static const char *const limit[] = {"--time-limit", "2", NULL};
    server s;
    http r;
    struct timespec t0, pause = {0, 500000000};
    int fd;
    script_in(script, "slowlayout",
              "local n = ng.param(\"n\", 10, {min = 3, max = 1000})\n"
              "local nodes = {ng.perlin{seed = 1}, ng.simplex{seed = 2}}\n"
              "for i = 3, n do\n"
              "  nodes[i] = ng.mix{a = nodes[i - 1], b = nodes[(i * 7) % (i - 1) + 1], t = nodes[(i * 13) % (i - 1) + 1]}\n"
              "end\n"
              "return nodes[n]\n");
    if (server_start(&s, script, limit)) return;
    CHECK_INT(status_of(s.port, "/api/graph.svg?set.n=10"), 200);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    get(&r, s.port, "/api/graph.svg?set.n=90");
    CHECK_INT(r.status, 503);
    CHECK_CONTAINS(r.body, "time limit of 2 s");
    CHECKF(seconds_since(&t0) < 20, "the layout took %.1f s to end", seconds_since(&t0));
    http_free(&r);
    CHECK_INT(status_of(s.port, "/api/graph.svg"), 200); /* the next drawing is not held up */
    fd = http_send(s.port, "/api/graph.svg?set.n=90");
    nanosleep(&pause, NULL); /* the layout runs */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(server_stop(&s), 0);
    CHECKF(seconds_since(&t0) < 10, "SIGTERM during a layout took %.1f s", seconds_since(&t0));
    http_read(fd, &r);
    CHECK(r.status == 503 || r.status == -1); /* given up, or the connection closed */
    http_free(&r);
}

/* A file the script reads (an image) replaced the way editors save, by a
 * rename over it: a new generation with the new picture. */
static void test_image_read_is_watched(void)
{
    char script[PATHLEN], img[PATHLEN], tmp[PATHLEN];
    unsigned char black[16], white[16], *first, *second;
    server s;
    http r;
    int w, h;
    memset(black, 0, sizeof black);
    memset(white, 255, sizeof white);
    script_in(script, "img", "return ng.image{path = \"img.png\"}\n");
    tpath(img, "img/img.png");
    tpath(tmp, "img/img.png.new");
    write_png(img, 4, 4, 8, PNG_COLOR_TYPE_GRAY, 1, black);
    if (server_start(&s, script, NULL)) return;
    get(&r, s.port, "/api/render?w=4&h=4");
    first = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    http_free(&r);
    write_png(tmp, 4, 4, 8, PNG_COLOR_TYPE_GRAY, 1, white);
    CHECK(rename(tmp, img) == 0);
    CHECK(wait_generation(s.port, 1) >= 2);
    get(&r, s.port, "/api/render?w=4&h=4");
    second = answer_png(&r, PNG_FORMAT_GRAY, &w, &h);
    http_free(&r);
    CHECK(first && second && first[5] == 0 && second[5] == 255);
    free(first), free(second);
    CHECK_INT(server_stop(&s), 0);
}

static void put16(FILE *f, int v)
{
    putc(v >> 8, f), putc(v & 255, f);
}

/* A grey progressive JPEG of side x side pixels whose entropy data is
 * end-of-band runs alone, its one AC refinement scan repeated `scans`
 * times (a repeat is a warning to libjpeg-turbo, which the reader lets
 * pass). At 4096^2 a scan takes libjpeg-turbo about 12 ms, in C code that
 * no Lua hook reaches: 1000 of them, seconds, from 37 kB. */
static void write_slow_jpeg(const char *path, int side, int scans)
{
    static const unsigned char start[] = {0xFF, 0xD8, 0xFF, 0xDB, 0, 67, 0}; /* SOI, DQT of table 0 */
    static const unsigned char huff[] = {0xFF, 0xC4, 0, 21, 0x10, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0, 0xE0, 0x30}; /* AC table 0: 2 codes of 2 bits */
    static const unsigned char scan[] = {0xFF, 0xDA, 0, 8, 1, 1, 0x00, 1, 63, 0x10}; /* AC 1-63, Ah 1, Al 0 */
    static const unsigned char run[] = {0x3F, 0xFF, 0x00}; /* code 00 (0xE0) and 14 one bits: 32767 blocks */
    long blocks = (long)(side / 8) * (side / 8), left;
    int k;
    FILE *f = fopen(path, "wb");
    CHECKF(f != NULL, "cannot write %s", path);
    if (!f) return;
    fwrite(start, 1, sizeof start, f);
    for (k = 0; k < 64; k++) putc(1, f);
    putc(0xFF, f), putc(0xC2, f), put16(f, 11), putc(8, f), put16(f, side), put16(f, side); /* SOF2, grey */
    putc(1, f), putc(1, f), putc(0x11, f), putc(0, f);
    fwrite(huff, 1, sizeof huff, f);
    for (k = 0; k < scans; k++) {
        fwrite(scan, 1, sizeof scan, f);
        for (left = blocks; left > 0; left -= 32767) fwrite(run, 1, sizeof run, f);
    }
    putc(0xFF, f), putc(0xD9, f);
    CHECK_INT(fclose(f), 0);
}

/* The image a running script reads swapped (by a rename, as editors save)
 * for a JPEG that takes seconds to decode: that generation ends at the
 * time limit with the error on the page, the last good picture is still
 * served, and a good image swapped back is read again. The watchdog's
 * _exit(1) used to end the whole server. */
static void test_slow_image_swapped_in(void)
{
    char script[PATHLEN], img[PATHLEN], tmp[PATHLEN];
    static const char *const limit[] = {"--time-limit", "1", NULL};
    server s;
    http r;
    long g;
    struct timespec t0;
    script_in(script, "slowjpeg", "return ng.image{path = \"img.jpg\"}\n");
    tpath(img, "slowjpeg/img.jpg");
    tpath(tmp, "slowjpeg/img.jpg.new");
    write_slow_jpeg(img, 64, 1);
    if (server_start(&s, script, limit)) return;
    CHECK_INT(status_of(s.port, "/api/render?w=8&h=8"), 200);
    write_slow_jpeg(tmp, 4096, 1000);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(rename(tmp, img) == 0);
    g = wait_generation(s.port, 1);
    CHECK(g >= 2);
    CHECKF(seconds_since(&t0) < 15, "the slow decode took %.1f s to end", seconds_since(&t0));
    get(&r, s.port, "/api/state");
    CHECK_INT(r.status, 200);
    CHECK_CONTAINS(r.body, "time limit of 1 s");
    http_free(&r);
    CHECK_INT(status_of(s.port, "/api/render?w=8&h=8"), 200); /* the last good graph */
    write_slow_jpeg(tmp, 64, 1);
    CHECK(rename(tmp, img) == 0);
    g = wait_generation(s.port, g);
    state_is_good(s.port);
    CHECK_INT(server_stop(&s), 0);
}

/* An image the script reads that is missing at the first run is watched
 * all the same: when it appears (written beside and renamed, as editors
 * and exporters do), the script runs again and renders, where the server
 * knew the files of a good run only and kept the error. */
static void test_missing_image_appears(void)
{
    char script[PATHLEN], img[PATHLEN], tmp[PATHLEN];
    server s;
    http r;
    long g;
    script_in(script, "lateimg", "return ng.image{path = \"img.jpg\"}\n");
    tpath(img, "lateimg/img.jpg");
    tpath(tmp, "lateimg/img.jpg.new");
    remove(img);
    if (server_start(&s, script, NULL)) return;
    CHECK_INT(status_of(s.port, "/api/render?w=8&h=8"), 503);
    get(&r, s.port, "/api/state");
    CHECK_CONTAINS(r.body, "No such file");
    http_free(&r);
    write_slow_jpeg(tmp, 64, 1);
    CHECK(rename(tmp, img) == 0);
    g = wait_generation(s.port, 1);
    CHECKF(g >= 2, "no run after the image appeared (generation %ld)", g);
    state_is_good(s.port);
    CHECK_INT(status_of(s.port, "/api/render?w=8&h=8"), 200);
    CHECK_INT(server_stop(&s), 0);
}

/* A new render on a stream cancels the one in progress there (409),
 * while other requests answer; SIGTERM during a render exits 0. */
static void test_stream_cancels_stale_render(void)
{
    char script[PATHLEN];
    server s;
    http r, slow;
    int fd, other;
    struct timespec t = {0, 500000000};
    struct pollfd p;
    /* slow: a cloud of fBm ray-marched through a 512^3 box, 2048^2 rays
     * (minutes, where the 0.5 s below lets it begin) */
    static const char *const big_box[] = {"--volume", "512x512x512", NULL};
    static const char *const SLOW = "/api/render?w=2048&h=2048&view=volume&stream=A";
    script_in(script, "cancel", "return ng.fbm{source = ng.simplex{element_size = 64}, octaves = 8}:fit(-1, 1, 0, 1)\n");
    if (server_start(&s, script, big_box)) return;
    fd = http_send(s.port, SLOW);
    nanosleep(&t, NULL); /* let it begin: it takes far longer than this */
    get(&r, s.port, "/api/state");
    CHECK_INT(r.status, 200); /* not blocked by the render */
    http_free(&r);
    p.fd = fd, p.events = POLLIN, p.revents = 0;
    CHECKF(poll(&p, 1, 0) == 0, "the slow render already answered");
    other = http_send(s.port, "/api/render?w=8&h=8&stream=B"); /* another stream: not cancelled by A's */
    get(&r, s.port, "/api/render?w=8&h=8&stream=A");
    CHECK_INT(r.status, 200);
    http_free(&r);
    http_read(fd, &slow);
    CHECK_INT(slow.status, 409);
    CHECK_CONTAINS(slow.body, "cancelled");
    http_free(&slow);
    http_read(other, &r);
    CHECK_INT(r.status, 200);
    http_free(&r);
    /* numbered renders: one read after its successor is the stale one
     * (the page aborts a request and sends the next; under load the server
     * read the aborted one second, and it cancelled the page's newest) */
    fd = http_send(s.port, "/api/render?w=2048&h=2048&view=volume&stream=C&seq=5");
    nanosleep(&t, NULL);
    get(&r, s.port, "/api/render?w=8&h=8&stream=C&seq=4");
    CHECK_INT(r.status, 409);
    http_free(&r);
    p.fd = fd, p.events = POLLIN, p.revents = 0;
    CHECKF(poll(&p, 1, 0) == 0, "a stale render (seq 4) cancelled the newer one (seq 5)");
    get(&r, s.port, "/api/render?w=8&h=8&stream=C&seq=5"); /* the same sequence's next image */
    CHECK_INT(r.status, 200);
    http_free(&r);
    http_read(fd, &slow);
    CHECK_INT(slow.status, 409);
    http_free(&slow);
    /* a render in progress when SIGTERM comes: cancelled, exit 0 */
    fd = http_send(s.port, SLOW);
    nanosleep(&t, NULL);
    CHECK_INT(server_stop(&s), 0);
    http_read(fd, &slow);
    CHECK(slow.status == 409 || slow.status == -1); /* cancelled, or the connection closed */
    http_free(&slow);
}

/* At most 4 renders draw at once: while 4 slow ones run, a fifth (tiny)
 * waits its turn, without a picture in memory; a newer render on the
 * stream of a slow one cancels it, and its turn goes to one that waited.
 * (Without the turns 40 requests at 2048^2 held 2.4 GB at once.) */
static void test_renders_take_turns(void)
{
    char script[PATHLEN];
    server s;
    http r;
    int slow[4], waiting, k;
    struct timespec t = {0, 500000000};
    struct pollfd p;
    static const char *const big_box[] = {"--volume", "512x512x512", NULL};
    script_in(script, "turns", "return ng.fbm{source = ng.simplex{element_size = 64}, octaves = 8}:fit(-1, 1, 0, 1)\n");
    if (server_start(&s, script, big_box)) return;
    for (k = 0; k < 4; k++) { /* minutes each */
        char path[128];
        snprintf(path, sizeof path, "/api/render?w=2048&h=2048&view=volume&stream=S%d", k);
        slow[k] = http_send(s.port, path);
    }
    nanosleep(&t, NULL); /* let them begin */
    waiting = http_send(s.port, "/api/render?w=8&h=8&stream=B");
    p.fd = waiting, p.events = POLLIN, p.revents = 0;
    CHECKF(poll(&p, 1, 1000) == 0, "a fifth render ran beside four");
    get(&r, s.port, "/api/state"); /* other answers do not wait */
    CHECK_INT(r.status, 200);
    http_free(&r);
    for (k = 0; k < 4; k++) { /* each slow one cancelled by a tiny one on its stream */
        char path[64];
        http slow_r;
        snprintf(path, sizeof path, "/api/render?w=8&h=8&stream=S%d", k);
        get(&r, s.port, path);
        CHECK_INT(r.status, 200);
        http_free(&r);
        http_read(slow[k], &slow_r);
        CHECK_INT(slow_r.status, 409);
        http_free(&slow_r);
    }
    http_read(waiting, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.head ? (strstr(r.head, "image/png") ? "png" : "other") : "none", "png");
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

/* SIGTERM cancels a render that names no stream too: the server does not
 * wait for it (this one takes hours; the old server waited until the hang
 * guard's alarm killed it). */
static void test_shutdown_cancels_unstreamed_render(void)
{
    char script[PATHLEN];
    server s;
    http slow;
    int fd;
    struct timespec t = {0, 500000000};
    static const char *const endless[] = {"--volume", "2048x2048x2048", "--step", "0.05", "--density-scale", "0.00001",
                                          NULL};
    script_in(script, "stopall", "return ng.fbm{source = ng.simplex{element_size = 64}, octaves = 8}:fit(-1, 1, 0, 1)\n");
    if (server_start(&s, script, endless)) return;
    fd = http_send(s.port, "/api/render?w=2048&h=2048&view=volume");
    nanosleep(&t, NULL); /* let it begin */
    CHECK_INT(server_stop(&s), 0);
    http_read(fd, &slow);
    CHECK(slow.status == 409 || slow.status == -1); /* cancelled, or the connection closed */
    http_free(&slow);
}

/* Waits at most `seconds` for an answer on fd (a test of a bound, with
 * its own hang guard shorter than the client's). */
static void read_within(int fd, http *r, int seconds)
{
    struct timeval tv = {seconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    http_read(fd, r);
}

/* Renders whose clients hung up give up their turns: four endless ones
 * whose pages closed do not keep a fifth waiting (they kept their turns
 * until they finished, minutes later). */
static void test_hung_up_renders_give_up_turns(void)
{
    char script[PATHLEN];
    server s;
    http r;
    int slow[4], k;
    struct timespec t = {0, 500000000};
    static const char *const big_box[] = {"--volume", "512x512x512", NULL};
    script_in(script, "hangup", "return ng.fbm{source = ng.simplex{element_size = 64}, octaves = 8}:fit(-1, 1, 0, 1)\n");
    if (server_start(&s, script, big_box)) return;
    for (k = 0; k < 4; k++) slow[k] = http_send(s.port, "/api/render?w=2048&h=2048&view=volume");
    nanosleep(&t, NULL); /* they take the four turns */
    for (k = 0; k < 4; k++) close(slow[k]);
    read_within(http_send(s.port, "/api/render?w=8&h=8"), &r, 10);
    CHECK_INT(r.status, 200);
    http_free(&r);
    CHECK_INT(server_stop(&s), 0);
}

/* Every time limit is a 503, whatever the view (a render's answered 500
 * in grey and 400 in the volume and terrain views). */
static void test_time_limits_answer_503(void)
{
    char script[PATHLEN];
    server s;
    http r;
    static const char *const *view, *const views[] = {"grey", "ramp", "hillshade", "volume", NULL};
    static const char *const limit[] = {"--render-time-limit", "0.2", "--volume", "512x512x512", NULL};
    script_in(script, "limit503", /* seconds a picture */
              "local x = ng.constant(0)\n"
              "for i = 1, 16 do x = x + ng.fbm{source = ng.simplex{element_size = 4096, seed = i}, octaves = 12} end\n"
              "return x:fit(-16, 16, 0, 1)\n");
    if (server_start(&s, script, limit)) return;
    for (view = views; *view; view++) {
        char path[128];
        snprintf(path, sizeof path, "/api/render?w=2048&h=2048&view=%s", *view);
        get(&r, s.port, path);
        CHECKF(r.status == 503, "view %s: status %d", *view, r.status);
        CHECK_CONTAINS(r.body, "time limit");
        http_free(&r);
    }
    CHECK_INT(server_stop(&s), 0);
}

/* Kilobytes of memory a process holds (its proportional share of pages
 * it shares, so a forked child is not counted twice), or 0. */
static long pss_kb(int pid)
{
    char path[64], line[256];
    long kb = 0;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    if (!(f = fopen(path, "r"))) return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Pss:", 4)) kb = atol(line + 4);
    fclose(f);
    return kb;
}

/* The memory of the server and its descendants (the process that forks
 * script runs, and the runs) now, KiB. */
static long server_kb(int pid)
{
    enum { MOST = 4096 };
    static int who[MOST], parent[MOST];
    char path[64], text[512];
    int n = 0, i, depth, in[MOST] = {0};
    long kb = pss_kb(pid);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < MOST) {
        FILE *f;
        if ((who[n] = atoi(e->d_name)) <= 0) continue;
        snprintf(path, sizeof path, "/proc/%d/stat", who[n]);
        if (!(f = fopen(path, "r"))) continue;
        parent[n] = 0;
        if (fgets(text, sizeof text, f) && strrchr(text, ')')) sscanf(strrchr(text, ')') + 2, "%*c %d", &parent[n]);
        fclose(f);
        n++;
    }
    if (d) closedir(d);
    for (depth = 0; depth < 3; depth++) /* children, grandchildren, ... */
        for (i = 0; i < n; i++) {
            int k, up = parent[i] == pid;
            for (k = 0; k < n && !up; k++) up = in[k] && who[k] == parent[i];
            if (up && !in[i]) in[i] = 1, kb += pss_kb(who[i]);
        }
    return kb;
}

/* Sends /api/state?set.k=K for K = first .. first + n - 1 at once and
 * samples the memory of the server and its children until every answer
 * came: the peak, KiB; *ok counts the 200s. */
static long peak_during(const server *s, int first, int n, int *ok)
{
    int fd[16], k, left = n;
    long peak = 0;
    for (k = 0; k < n; k++) {
        char path[64];
        snprintf(path, sizeof path, "/api/state?set.k=%d", first + k);
        fd[k] = http_send(s->port, path);
    }
    while (left > 0) { /* a hang guard: each read has its own */
        struct pollfd p[16];
        long now = server_kb(s->pid);
        if (now > peak) peak = now;
        for (k = 0; k < n; k++) p[k].fd = fd[k], p[k].events = POLLIN, p[k].revents = 0;
        if (poll(p, (nfds_t)n, 20) < 0) break;
        for (k = 0; k < n; k++)
            if (p[k].revents) {
                http r;
                http_read(fd[k], &r);
                *ok += r.status == 200;
                http_free(&r);
                fd[k] = -1, left--;
            }
    }
    return peak;
}

/* A dozen requests at once with new parameter values, each run holding
 * 48 MiB for a while under --memory-limit 64: the server's memory grows
 * by what the runs it allows at once hold (2), not by what every request
 * would (each ran at once in the server: 12 x 48 MiB here, 3 GB with the
 * limit at 256). Measured against one run alone, so that a sanitizer's
 * own memory counts on both sides. */
static void test_parameter_runs_bound_memory(void)
{
    char script[PATHLEN];
    static const char *const limit[] = {"--memory-limit", "64", NULL};
    server s;
    int ok = 0;
    long base, one, dozen;
    script_in(script, "runsmem",
              "local k = ng.param(\"k\", 0, {min = 0, max = 100})\n"
              "local held = {}\n"
              "for i = 1, 48 do held[i] = string.rep(string.char(65 + (i + k) % 26), 1 << 20) end\n"
              "local x = 0\n"
              "for i = 1, 2e7 do x = x + i end\n"
              "return ng.perlin{seed = k}\n");
    if (server_start(&s, script, limit)) return;
    base = server_kb(s.pid);
    one = peak_during(&s, 1, 1, &ok) - base;
    dozen = peak_during(&s, 2, 12, &ok) - base;
    CHECK_INT(ok, 13);
    CHECKF(one > 40 * 1024, "one run grew the server by %ld MiB only", one / 1024);
    CHECKF(dozen < 3 * one, "12 runs at once grew the server by %ld MiB, one alone by %ld MiB (from %ld MiB)",
           dozen / 1024, one / 1024, base / 1024);
    CHECK_INT(server_stop(&s), 0);
}

/* 128 event streams (a page each, or a flood) and 128 half-sent requests
 * do not lock other clients out: streams past 32 get a 503 at once, and a
 * new connection closes the one that waited longest for its request once
 * the slots run short. Before, each held one of the 128 slots, and a
 * further client waited (for the 120 s timeout of the half-sent ones). */
static void test_connection_floods(void)
{
    char script[PATHLEN], req[256];
    server s;
    http r;
    int fd[128], k, streams = 0;
    script_in(script, "floods", SCRIPT);
    if (server_start(&s, script, NULL)) return;
    for (k = 0; k < 128; k++) fd[k] = http_send(s.port, "/api/events");
    for (k = 0; k < 128; k++) { /* the streams that opened (others: a 503, or closed to make room) */
        struct pollfd p = {fd[k], POLLIN, 0};
        char head[16] = "";
        if (fd[k] >= 0 && poll(&p, 1, 200) > 0 && read(fd[k], head, sizeof head - 1) > 0)
            streams += !strncmp(head, "HTTP/1.1 200", 12);
    }
    CHECKF(streams <= 32, "%d event streams open", streams);
    read_within(http_send(s.port, "/api/state"), &r, 10);
    CHECK_INT(r.status, 200);
    http_free(&r);
    for (k = 0; k < 128; k++) close(fd[k]);
    snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n", s.port); /* no end */
    for (k = 0; k < 128; k++) fd[k] = http_send_raw(s.port, req);
    read_within(http_send(s.port, "/api/state"), &r, 5);
    CHECK_INT(r.status, 200);
    http_free(&r);
    for (k = 0; k < 128; k++)
        if (fd[k] >= 0) close(fd[k]);
    CHECK_INT(server_stop(&s), 0);
}

static void test_command_line(void)
{
    char script[PATHLEN], text[4096];
    static const char *const wide[] = {"--listen", "0.0.0.0", NULL};
    server s;
    res r;
    unsigned char *err;
    size_t n;
    script_in(script, "cmd", SCRIPT);
    cli(&r, "serve", NULL);
    EXPECT_ERR(&r, 2, "serve: no SCRIPT given");
    res_free(&r);
    cli(&r, "serve", script, "--listen", "example.com", NULL);
    EXPECT_ERR(&r, 2, "--listen", "not an IPv4 address");
    res_free(&r);
    cli(&r, "serve", script, "--port", "70000", NULL);
    EXPECT_ERR(&r, 2, "--port");
    res_free(&r);
    cli(&r, "serve", script, "-o", "x.png", NULL);
    EXPECT_ERR(&r, 2, "-o");
    res_free(&r);
    cli(&r, "serve", script, "--size", "8x8x8", NULL);
    EXPECT_ERR(&r, 2, "--size", "serve shows images");
    res_free(&r);
    pathf(text, "%s/cmd/missing.lua", tmpdir);
    cli(&r, "serve", text, NULL);
    EXPECT_ERR(&r, 1, "missing.lua", "cannot read the script");
    res_free(&r);
    /* another address than loopback: served, with a warning */
    if (server_start(&s, script, wide)) return;
    CHECK_INT(status_of(s.port, "/api/state"), 200); /* reached through loopback, named so */
    {
        /* a browser on another machine names this one's address (it was
         * refused: only the --listen address 0.0.0.0 itself was taken) */
        char req[512];
        http hr;
        snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: 192.0.2.7:%d\r\nConnection: close\r\n\r\n",
                 s.port);
        http_read(http_send_raw(s.port, req), &hr);
        CHECK_INT(hr.status, 200);
        http_free(&hr);
        snprintf(req, sizeof req, "GET /api/state HTTP/1.1\r\nHost: evil.example:%d\r\nConnection: close\r\n\r\n",
                 s.port);
        http_read(http_send_raw(s.port, req), &hr);
        CHECK_INT(hr.status, 403);
        http_free(&hr);
    }
    CHECK_INT(server_stop(&s), 0);
    err = slurp(s.err, &n);
    CHECK_CONTAINS((const char *)err, "noisegraph: serve: warning: listening on 0.0.0.0");
    free(err);
}

NG_SUITE(serve, full)
{
    if (cli_setup("serve")) return;
    RUN(test_state_page_and_status_codes);
    RUN(test_render_matches_the_cli);
    RUN(test_edits_make_generations);
    RUN(test_image_read_is_watched);
    RUN(test_error_in_module_and_foreign_paths);
    RUN(test_cached_runs_by_value);
    RUN(test_command_line_sets);
    RUN(test_refused_window_is_400);
    RUN(test_nul_in_the_path);
    RUN(test_stuck_script_via_parameter);
    RUN(test_stuck_script_saved);
    RUN(test_graph_too_large_to_draw);
    RUN(test_graph_labels_and_folds);
    RUN(test_graph_layout_time_limit);
    RUN(test_slow_image_swapped_in);
    RUN(test_missing_image_appears);
    RUN(test_stream_cancels_stale_render);
    RUN(test_renders_take_turns);
    RUN(test_shutdown_cancels_unstreamed_render);
    RUN(test_hung_up_renders_give_up_turns);
    RUN(test_time_limits_answer_503);
    RUN(test_connection_floods);
    RUN(test_parameter_runs_bound_memory);
    RUN(test_command_line);
    cli_teardown();
}
