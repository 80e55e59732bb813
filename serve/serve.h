/*
 * serve.h — `noisegraph serve`: a local HTTP server (libmicrohttpd, a
 * thread per connection) that shows a script's render on a page and
 * re-runs the script when it, a module it requires or a file it reads
 * changes on disk. What the files share:
 *   serve.c        the command: options, the daemon, routing, Host check;
 *   serve_args.c   reading a request: its target and arguments;
 *   serve_state.c  script runs, reference-counted graphs, the file watcher,
 *                  generations and their events;
 *   serve_api.c    the API answers: state JSON, renders, the graph's SVG;
 *   serve_child.c  child processes: script runs and graph layouts;
 *   serve_wire.c   a script run as bytes (from a child) and back;
 *   serve_args.c   the request target: split, decoded, each endpoint's arguments;
 *   serve_buf.c    a growable text buffer.
 * JSON is io's codec (json.h), PNG io's encoder (ng_png_encode_memory).
 * The HTTP contract is in the README's "Live preview" section.
 */
#ifndef NG_SERVE_H
#define NG_SERVE_H

#include "host.h"
#include "json.h"

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>

/* Largest picture a request may ask for, per side; /api/state says it
 * (max_side) to the page, which sizes its renders to it. */
#define NG_SERVE_MAX_SIDE 2048
/* Connections served at once (each a thread, at most one render). */
#define NG_SERVE_MAX_CONNECTIONS 128

/* What the server runs with (cli/ fills it from the command line). The
 * script's context (ng.size(), ng.u(), ng.v()) is the serve window: h's
 * width, height, origin and pixel_size are r's. */
typedef struct ng_serve_opts {
    const char *script;
    const char *listen; /* IPv4 address; NULL: 127.0.0.1 */
    int port;           /* 0: any free port */
    ng_host_opts h;
    ng_render_opts r;   /* the window: width, height, origin, pixel_size */
    ng_view_opts v;     /* the terrain view's sun, ramp and exaggeration */
    int quiet;          /* no line per script run on stderr */
} ng_serve_opts;

/* Serves until SIGINT or SIGTERM, then stops cleanly. 0; or 1, or 2 for a
 * usage error, with err filled. */
int ng_serve_run(const ng_serve_opts *o, ng_error *err);

/* The files of serve/web/, embedded at build time (serve/embed_web.sh writes
 * them into a generated C file): name without directory, bytes. */
typedef struct ng_web_file {
    const char *name;
    const unsigned char *data;
    size_t len;
} ng_web_file;
extern const ng_web_file ng_web_files[];
extern const int ng_web_nfiles;

/* ---- text buffers (serve_buf.c) ---------------------------------------------- */

/* A growable byte buffer; after a failed allocation it stays failed (oom)
 * and every later append is a no-op, so callers check once at the end. */
typedef struct ng_buf {
    char *data;
    size_t len, cap;
    int oom;
} ng_buf;

void ng_buf_add(ng_buf *b, const void *data, size_t n);
void ng_buf_puts(ng_buf *b, const char *s);
void ng_buf_printf(ng_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ng_buf_free(ng_buf *b);

/* ---- graphs and generations (serve_state.c) ------------------------------------- */

/* One good run of the script with some parameter values: read-only once
 * made, shared by every request that renders it; freed by the last
 * ng_served_put. */
typedef struct ng_served {
    ng_script s;
    long generation; /* of the script files it was run from */
    char *key;       /* the --set values it was run with, canonical ("" for none) */
    atomic_int refs;
} ng_served;

/* An error of the script's last run, split for the page. */
typedef struct ng_script_error {
    char file[256];    /* relative to the script's directory when inside it */
    int line;          /* 0: unknown */
    char message[512]; /* what went wrong, after "FILE:LINE: " (whole when no line) */
    char source[256];  /* the text of that line, or "" */
} ng_script_error;

typedef struct ng_serve_sets {
    int n;
    const char *name[NG_MAX_SETS], *value[NG_MAX_SETS];
} ng_serve_sets;

/* Starts the state: runs the script once (a failure is kept as the error,
 * not fatal) and starts the watcher thread. 0, or -1 with err filled. */
int ng_serve_state_start(const ng_serve_opts *c, ng_error *err);
/* Shutdown, in two steps: stopping (event streams end, waits return)
 * while requests may still run; then stop (joins the watcher, frees the
 * graphs) once none does. */
void ng_serve_state_stopping(void);
void ng_serve_state_stop(void);
/* The current generation; the last good run (NULL when there never was
 * one; a reference the caller puts back); the last run's error (returns
 * whether there is one). */
long ng_serve_generation(void);
ng_served *ng_served_get_base(void);
int ng_serve_error(ng_script_error *e);
/* The good graph run with these parameter values (NULL sets: none),
 * from a cache of recent runs, a run in progress for the same values, or a
 * new run: 0 with *out. On failure *out is NULL and err says why: -1 the
 * script fails with these values, -2 its time limit ended the run, -3 no
 * good graph, or the run was given up (the server stopping, or cancel set
 * while no other request waited for the run). */
int ng_served_get(const ng_serve_sets *sets, const atomic_int *cancel, ng_served **out, ng_error *err);
void ng_served_put(ng_served *s);
/* Waits until the generation differs from `seen` or `seconds` pass or the
 * server stops; returns the generation (< 0: stopping). */
long ng_serve_wait_generation(long seen, double seconds);
/* The options serve was started with. */
const ng_serve_opts *ng_serve_cli(void);
int ng_serve_stopping(void);

/* ---- requests and answers ------------------------------------------------------------ */

/* An answer: status, content type, body (malloc'd, owned by the answer),
 * extra headers. */
typedef struct ng_answer {
    int status;
    const char *type;
    ng_buf body;
    long generation; /* >= 0: X-Noisegraph-Generation */
    double render_ms;   /* >= 0: X-Noisegraph-Render-Ms */
} ng_answer;

/* A query: the request's arguments, in order. */
typedef struct ng_query {
    int n;
    const char *key[64], *value[64];
    int overflow; /* more than 64 */
    int nul;      /* a key or value held a NUL (%00), which C strings would cut */
    /* The request's cancel flag (NULL: none): set when its client hangs
     * up (serve.c watches the socket), by a newer render on its stream, or
     * at shutdown. Waits and renders give up when it is set. */
    atomic_int *cancel;
} ng_query;

/* ---- reading a request (serve_args.c) ------------------------------------------------ */

void ng_answer_text(ng_answer *a, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Splits a request target as the client sent it ("/path?a=1&b=2") in
 * place: path and the query's arguments (pointing into target), each
 * percent-decoded ('+' is a space in the query). An empty argument ("&&")
 * is skipped. 0; -1 when the path holds a NUL (%00). A NUL in the query
 * sets q->nul, more than 64 arguments q->overflow. */
int ng_target_parse(char *target, const char **path, ng_query *q);
/* Whether s is a decimal number (no blanks, hex, inf or nan) within lo to
 * hi: 0 with *out set, or -1. */
int ng_arg_real(const char *s, double lo, double hi, double *out);
/* Every key once, and only the keys this endpoint knows ("set.NAME" for
 * parameters; keys starting with "_" are the page's cache-busters and are
 * ignored). known: NULL-terminated. 0, or -1 with a 400 in a. */
int ng_args_check_keys(const ng_query *q, const char *const *known, ng_answer *a);
/* The parameter the script declares by that name, or NULL. */
const ng_script_param *ng_arg_param(const ng_script *s, const char *name);
/* The set.NAME arguments, checked against base's declarations (name,
 * kind, min, max) before the script is run with them; sets points into q.
 * 0, or -1 with a 400 in a. */
int ng_args_sets(const ng_query *q, const ng_script *base, ng_serve_sets *sets, ng_answer *a);

/* ORDER: ng_serve_view_words, the view words of the contract. */
typedef enum ng_serve_view { NG_SERVE_GREY, NG_SERVE_RAMP, NG_SERVE_HILLSHADE, NG_SERVE_REPEAT, NG_SERVE_VOLUME } ng_serve_view;
extern const char *const ng_serve_view_words[];
/* What /api/render asks for (its parameters aside). */
typedef struct ng_render_request {
    long w, h, node;    /* node -1: the script's first output */
    double ox, oy, ps;
    ng_serve_view view;
    /* hillshade: the terrain view's sea level, height scale and ramp
     * (sea, hs, ramp); -1: serve's own (its command line's) */
    double sea, hs;
    int ramp;
    const char *stream; /* NULL: none */
    long seq;           /* the client's order of its renders on the stream; -1: none */
} ng_render_request;
/* /api/render's arguments, with c's window as the defaults. 0, or -1 with
 * a 400 in a. */
int ng_args_render(const ng_query *q, const ng_serve_opts *c, ng_render_request *r, ng_answer *a);

/* ---- answers (serve_api.c) --------------------------------------------------------- */

void ng_api_state(const ng_query *q, ng_answer *a);
void ng_api_render(const ng_query *q, ng_answer *a);
void ng_api_graph_svg(const ng_query *q, ng_answer *a);
/* The last run's error as JSON ({"file", "line", "message", "source"}), or
 * null; a new reference, NULL without memory. */
json_t *ng_api_error_value(void);
/* Cancels every render in progress (shutdown). */
void ng_api_cancel_all(void);
/* In a layout's child: the SVG of the DOT text into fd. */
void ng_api_layout(const char *dot, int fd);

/* ---- a script run as bytes (serve_wire.c) -------------------------------------------- */

/* What an 'E' record says. */
enum { NG_WIRE_FAILED = 1, NG_WIRE_TIME = 2 /* the script's time limit ended it */ };

/* A writer into a descriptor (fd) or, when mem is set, a buffer. After a
 * failed write it writes nothing more (failed). */
typedef struct ng_wire_out {
    int fd;
    ng_buf *mem;
    int failed;
    size_t len;
    unsigned char buf[16384];
} ng_wire_out;
/* Records: a module the script requires (sent at once), the run's error,
 * its result. */
void ng_wire_path(ng_wire_out *o, const char *path);
void ng_wire_error(ng_wire_out *o, int kind, const char *msg);
void ng_wire_script(ng_wire_out *o, const ng_script *s);
int ng_wire_flush(ng_wire_out *o);

/* How a reader stopped (ng_wire_in.status). */
enum { NG_WIRE_EOF = 1, NG_WIRE_TIMEOUT, NG_WIRE_STOPPED, NG_WIRE_BAD };

/* A reader of records from read(ctx, buf, n): bytes read (> 0), 0 at the
 * end, -1 an error, -2 a deadline passed, -3 given up (ng_child_read is
 * one). What it keeps (the graph, its strings and pixels) is counted in
 * budget, whose limit the caller sets. */
typedef struct ng_wire_in {
    long (*read)(void *ctx, void *buf, size_t n);
    void *ctx;
    ng_budget budget;
    int status; /* 0, or NG_WIRE_EOF... once stopped */
    ng_error err; /* NG_WIRE_BAD: why */
    size_t pos, len;
    unsigned char buf[16384];
} ng_wire_in;

typedef struct ng_wire_record {
    int tag;  /* 'P', 'E' or 'S' */
    int kind; /* 'E': NG_WIRE_FAILED or NG_WIRE_TIME */
    char text[PATH_MAX + 64]; /* 'P': the path; 'E': the message */
    ng_script s; /* 'S': the script, its graph built again (the caller frees it) */
} ng_wire_record;
/* The next record: 0, or -1 with in->status set. */
int ng_wire_next(ng_wire_in *in, ng_wire_record *r);

/* ---- child processes (serve_child.c) --------------------------------------------------- */

/* Starts the process that forks every child, while the server has one
 * thread (before the state and the daemon); stop: after every request and
 * the watcher ended. 0, or -1 with err. */
int ng_spawner_start(const ng_serve_opts *c, ng_error *err);
void ng_spawner_stop(void);

typedef struct ng_child {
    int fd;                   /* the read end of its answer */
    int pidfd;                /* to kill it (-1: it has ended) */
    double deadline;          /* CLOCK_MONOTONIC seconds; 0: none */
    const atomic_int *cancel; /* set: the reader gives up (NULL: none) */
} ng_child;
/* Starts a child of kind 'S' (a script run: input the --set values as
 * "name\0value\0"...) or 'L' (a layout: input the DOT text), its answer
 * awaited for `seconds` (0: no deadline). 0, or -1 with err. */
int ng_child_start(ng_child *c, char kind, const void *input, size_t len, double seconds, const atomic_int *cancel,
                   ng_error *err);
/* Reads its answer (ng_wire_in's read): also -3 when cancel is set or the
 * server is stopping. */
long ng_child_read(void *child, void *buf, size_t n);
/* Kills it if it still runs. */
void ng_child_end(ng_child *c);
/* ng_script_run in a child (0; -1; -2 when the time limit ended it, its
 * process stuck or not), the graph built again here within
 * h->memory_limit; h->on_require is called here for each module. */
int ng_child_script(const char *path, const ng_host_opts *h, const atomic_int *cancel, ng_script *s, ng_error *err);

#endif
