/*
 * serve_api.c — the answers of /api/state, /api/render and /api/graph.svg,
 * from arguments read strictly by serve_args.c (a 400 names a bad one).
 *
 * Streams: a render names a stream; a new render on the same stream sets
 * the cancel flag of the one in progress there, which then stops within a
 * tile and answers 409. "New" is the client's order when it numbers its
 * renders (seq), else the order they reach the server: a client that
 * aborts a request and sends the next one cannot tell which of the two
 * connections the server reads first (under load the stale one was read
 * second and cancelled the page's newest render).
 */
#include "inspect.h"
#include "ng_io.h"
#include "serve.h"

#ifndef NG_NO_GRAPHVIZ /* a build without Graphviz (make NO_GRAPHVIZ=1; ARM=1) draws no graph */
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>
#endif

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A 200 of v as JSON text (a reference taken over); NULL, or no memory
 * to write it: a 500. */
static void answer_json(ng_answer *a, json_t *v)
{
    size_t len;
    char *text = ng_json_text(v, &len);
    json_decref(v);
    if (!text) {
        ng_answer_text(a, 500, "out of memory");
        return;
    }
    a->status = 200;
    a->type = "application/json";
    ng_buf_free(&a->body);
    ng_buf_add(&a->body, text, len);
    free(text);
}

/* ---- the graph a request names -------------------------------------------------------- */

/* The base, or a 503 saying why there is none. */
static ng_served *need_base(ng_answer *a)
{
    ng_served *base = ng_served_get_base();
    ng_script_error e;
    if (!base) {
        if (ng_serve_error(&e) && e.line > 0)
            ng_answer_text(a, 503, "the script has no good run yet: %s:%d: %s", e.file, e.line, e.message);
        else if (ng_serve_error(&e)) ng_answer_text(a, 503, "the script has no good run yet: %s", e.message);
        else ng_answer_text(a, 503, "the script has no good run yet");
    }
    return base;
}

/* The graph run with the query's parameters: base checks them first. A
 * script that fails with them is a 400 (a value it refuses); a run its
 * time limit ended, or that was given up, a 503 (as every time limit). */
static ng_served *served_for(const ng_query *q, const atomic_int *cancel, ng_answer *a)
{
    ng_served *base = need_base(a), *s;
    ng_serve_sets sets;
    ng_error err;
    int rc;
    if (!base) return NULL;
    if (ng_args_sets(q, &base->s, &sets, a)) {
        ng_served_put(base);
        return NULL;
    }
    ng_served_put(base);
    if ((rc = ng_served_get(&sets, cancel, &s, &err))) ng_answer_text(a, rc == -1 ? 400 : 503, "%s", err.msg);
    return s;
}

/* ---- /api/state ----------------------------------------------------------------------- */

static const char *kind_word(ng_script_param_kind k)
{
    switch (k) {
    case NG_SCRIPT_INTEGER: return "int";
    case NG_SCRIPT_BOOLEAN: return "bool";
    case NG_SCRIPT_STRING: return "string";
    default: return "number";
    }
}

/* A parameter's value as JSON: numbers and booleans bare, strings quoted. */
static json_t *value_json(const ng_script_param *p)
{
    double x;
    if (p->kind == NG_SCRIPT_STRING) return ng_json_string(p->value);
    if (p->kind == NG_SCRIPT_BOOLEAN) return json_boolean(!strcmp(p->value, "true"));
    if (ng_arg_real(p->value, -HUGE_VAL, HUGE_VAL, &x) == 0) return ng_json_number(x);
    return ng_json_number(strtod(p->value, NULL)); /* "inf", "1e+300": null when not finite */
}

/* list with item appended (a reference taken over), or NULL (list freed)
 * when either is NULL: without memory the whole list fails. */
static json_t *append(json_t *list, json_t *item)
{
    if (list && json_array_append_new(list, item) == 0) return list;
    json_decref(list);
    if (!list) json_decref(item);
    return NULL;
}

static json_t *params_json(const ng_served *s, const ng_served *base)
{
    json_t *list = json_array();
    int i;
    for (i = 0; i < s->s.nparams; i++) {
        const ng_script_param *p = &s->s.params[i], *d = ng_arg_param(&base->s, p->name);
        list = append(list, json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "name", ng_json_string(p->name), "kind",
                                      kind_word(p->kind), "min", p->has_min ? ng_json_number(p->min) : json_null(),
                                      "max", p->has_max ? ng_json_number(p->max) : json_null(), "default",
                                      value_json(d ? d : p), "value", value_json(p), "doc",
                                      ng_json_string(p->doc ? p->doc : "")));
    }
    return list;
}

static json_t *nodes_json(const ng_script *s)
{
    json_t *list = json_array();
    int i;
    for (i = 0; i < ng_graph_count(s->graph); i++) {
        const ng_node *n = ng_graph_node(s->graph, i);
        if (!ng_inspect_shown(s, i)) continue;
        list = append(list, json_pack("{s:i, s:o, s:o, s:i}", "id", i, "label", ng_json_string(ng_node_label(n)), "type",
                                      ng_json_string(ng_node_type_of(n)->name), "channels", ng_node_channels(n)));
    }
    return list;
}

static json_t *outputs_json(const ng_script *s)
{
    json_t *list = json_array();
    int i;
    for (i = 0; i < s->noutputs; i++)
        list = append(list, json_pack("{s:i, s:o}", "id", s->output[i], "name", ng_json_string(s->output_name[i])));
    return list;
}

json_t *ng_api_error_value(void)
{
    ng_script_error e;
    if (!ng_serve_error(&e)) return json_null();
    return json_pack("{s:o, s:o, s:o, s:o}", "file", ng_json_string(e.file), "line",
                     e.line > 0 ? json_integer(e.line) : json_null(), "message", ng_json_string(e.message), "source",
                     ng_json_string(e.source));
}

/* A word for a POSIX shell: bare when safe, else in single quotes. */
static void shell_word(ng_buf *b, const char *w)
{
    const char *c;
    int safe = *w != '\0';
    for (c = w; *c && safe; c++)
        safe = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("_-+=.,/:@%", *c);
    if (safe) {
        ng_buf_puts(b, w);
        return;
    }
    ng_buf_puts(b, "'");
    for (c = w; *c; c++) {
        if (*c == '\'') ng_buf_puts(b, "'\\''");
        else ng_buf_add(b, c, 1);
    }
    ng_buf_puts(b, "'");
}

/* " --set NAME=VALUE", the pair one shell word. */
static void set_word(ng_buf *cmd, const char *name, const char *value)
{
    ng_buf kv = {0};
    ng_buf_puts(cmd, " --set ");
    ng_buf_printf(&kv, "%s=%s", name, value);
    shell_word(cmd, kv.oom ? "" : kv.data);
    ng_buf_free(&kv);
}

/* The render command of the serve window with the query's values. */
static json_t *command_json(const ng_query *q)
{
    const ng_serve_opts *c = ng_serve_cli();
    ng_buf cmd = {0};
    json_t *v;
    int i;
    ng_buf_puts(&cmd, "noisegraph render ");
    shell_word(&cmd, c->script);
    ng_buf_printf(&cmd, " -o out.png --size %dx%d", c->r.width, c->r.height);
    if (c->r.origin[0] != 0 || c->r.origin[1] != 0) ng_buf_printf(&cmd, " --origin %.17g,%.17g", c->r.origin[0], c->r.origin[1]);
    if (c->r.pixel_size != 1) ng_buf_printf(&cmd, " --pixel-size %.17g", c->r.pixel_size);
    for (i = 0; i < c->h.nsets; i++) { /* serve's own --set values, unless the query sets that name */
        int k;
        for (k = 0; k < q->n && !(strncmp(q->key[k], "set.", 4) == 0 && strcmp(q->key[k] + 4, c->h.set_name[i]) == 0);
             k++)
            continue;
        if (k == q->n) set_word(&cmd, c->h.set_name[i], c->h.set_value[i]);
    }
    for (i = 0; i < q->n; i++)
        if (!strncmp(q->key[i], "set.", 4)) set_word(&cmd, q->key[i] + 4, q->value[i]);
    v = cmd.oom ? NULL : ng_json_string(cmd.data);
    ng_buf_free(&cmd);
    return v;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void ng_api_state(const ng_query *q, ng_answer *a)
{
    static const char *const known[] = {NULL};
    const ng_serve_opts *c = ng_serve_cli();
    ng_served *base = NULL, *s = NULL;
    json_t *v;
    if (ng_args_check_keys(q, known, a)) return;
    base = ng_served_get_base();
    if (base && !(s = served_for(q, q->cancel, a))) goto out; /* a bad parameter: 400 */
    /* max_side: the page sizes its renders to it (one bound, the server's) */
    v = json_pack("{s:o, s:I, s:[i, i], s:i, s:[o, o], s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "script",
                  ng_json_string(base_name(c->script)), "generation", (json_int_t)ng_serve_generation(), "size",
                  c->r.width, c->r.height, "max_side", NG_SERVE_MAX_SIDE, "origin", ng_json_number(c->r.origin[0]),
                  ng_json_number(c->r.origin[1]), "pixel_size", ng_json_number(c->r.pixel_size), "graph_generation",
                  (json_int_t)(s ? s->generation : 0), "params", s ? params_json(s, base) : json_array(), "nodes",
                  s ? nodes_json(&s->s) : json_array(), "outputs", s ? outputs_json(&s->s) : json_array(), "error",
                  ng_api_error_value(), "command", command_json(q));
    answer_json(a, v);
out:
    ng_served_put(s);
    ng_served_put(base);
}

/* ---- renders in progress, streams ---------------------------------------------------------------------------- */

/* Every render in progress has a slot (one per connection, so there is
 * always one): its stream ("" for none, which no other render names) and
 * its cancel flag, which a newer render on the stream or the shutdown sets. */
static struct {
    pthread_mutex_t mu;
    struct {
        char id[65];
        long seq; /* -1: not numbered */
        atomic_int *cancel;
    } s[NG_SERVE_MAX_CONNECTIONS];
} renders = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Makes flag a render in progress (on stream id, or none: NULL),
 * cancelling the one there was on that stream, or cancelling flag itself
 * when the one there is numbered later (seq) than it. */
static void render_begin(const char *id, long seq, atomic_int *flag)
{
    int i, free_slot = -1;
    if (!id) id = "";
    pthread_mutex_lock(&renders.mu);
    for (i = 0; i < NG_SERVE_MAX_CONNECTIONS; i++) {
        if (*id && renders.s[i].cancel && !strcmp(renders.s[i].id, id)) {
            if (seq >= 0 && renders.s[i].seq > seq) { /* a stale one, read after its successor */
                atomic_store(flag, 1);
            } else {
                atomic_store(renders.s[i].cancel, 1);
                renders.s[i].cancel = flag;
                renders.s[i].seq = seq;
            }
            free_slot = -2;
            break;
        }
        if (!renders.s[i].cancel && free_slot == -1) free_slot = i;
    }
    if (free_slot >= 0) { /* none free cannot happen: a slot per connection */
        snprintf(renders.s[free_slot].id, sizeof renders.s[free_slot].id, "%s", id);
        renders.s[free_slot].seq = seq;
        renders.s[free_slot].cancel = flag;
    }
    pthread_mutex_unlock(&renders.mu);
    /* a request that passed the stopping check before a shutdown's
     * ng_api_cancel_all, and registers after it: stopping is set by then */
    if (ng_serve_stopping()) atomic_store(flag, 1);
}

/* The render of flag ended: its slot is free unless a newer one took it.
 * The flag's memory may go once this returns (nobody else holds it). */
static void render_end(atomic_int *flag)
{
    int i;
    pthread_mutex_lock(&renders.mu);
    for (i = 0; i < NG_SERVE_MAX_CONNECTIONS; i++)
        if (renders.s[i].cancel == flag) renders.s[i].cancel = NULL;
    pthread_mutex_unlock(&renders.mu);
}

void ng_api_cancel_all(void)
{
    int i;
    pthread_mutex_lock(&renders.mu);
    for (i = 0; i < NG_SERVE_MAX_CONNECTIONS; i++)
        if (renders.s[i].cancel) atomic_store(renders.s[i].cancel, 1);
    pthread_mutex_unlock(&renders.mu);
}

/* ---- /api/render --------------------------------------------------------------------------- */

/* Turns: at most `max` of a kind of work at once; the others wait their
 * turn, holding nothing, and give up when cancelled (a newer render on
 * their stream, their client gone) or when the server stops. */
typedef struct turns {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, max;
} turns;

/* At most 4 renders draw and encode at once. Each holds its picture and
 * PNG outside the script's memory limit, and 128 connections are allowed:
 * the cap bounds what many requests at once hold (the README's "A
 * served script" has the measurement; the page itself has one to three
 * renders out). Each render uses every core, so a few at once keep them
 * busy while others encode. */
static turns draws = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 4};

/* 0 with a turn taken, -1 when cancelled while waiting. */
static int turn_take(turns *t, const atomic_int *cancel)
{
    int rc;
    pthread_mutex_lock(&t->mu);
    while (t->running >= t->max && !atomic_load(cancel) && !ng_serve_stopping()) {
        struct timespec at; /* cancel flags are not signalled: look every 20 ms */
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_nsec += 20000000;
        if (at.tv_nsec >= 1000000000) at.tv_sec++, at.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&t->cv, &t->mu, &at);
    }
    rc = t->running < t->max && !atomic_load(cancel) ? 0 : -1;
    if (rc == 0) t->running++;
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static void turn_give(turns *t)
{
    pthread_mutex_lock(&t->mu);
    t->running--;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

/* A sink into one float buffer (a view's picture). */
typedef struct picture {
    float *px;
    int w, h, ch;
} picture;

static int pic_begin(void *user, int w, int h, int ch, ng_error *err)
{
    picture *p = user;
    if (!(p->px = malloc((size_t)w * (size_t)h * (size_t)ch * sizeof *p->px))) return ng_errorf(err, "out of memory");
    p->w = w, p->h = h, p->ch = ch;
    return 0;
}

static int pic_rows(void *user, int y, int n, const float *rows, ng_error *err)
{
    picture *p = user;
    (void)err;
    memcpy(p->px + (size_t)y * (size_t)p->w * (size_t)p->ch, rows, (size_t)n * (size_t)p->w * (size_t)p->ch * sizeof *rows);
    return 0;
}

static int pic_end(void *user, int ok, ng_error *err)
{
    (void)user, (void)ok, (void)err;
    return 0;
}

/* The render options of a w x h picture of the request's window. */
static ng_render_opts render_opts(const ng_render_request *r, const ng_served *s, int w, int h, const atomic_int *cancel)
{
    const ng_serve_opts *c = ng_serve_cli();
    ng_render_opts o = c->r;
    o.width = w, o.height = h;
    memset(o.region, 0, sizeof o.region);
    o.origin[0] = r->ox, o.origin[1] = r->oy;
    o.pixel_size = r->ps;
    o.depth = 0;
    o.progress = 0;
    o.note = NULL;
    o.cancel = cancel;
    o.memory_limit = c->h.memory_limit > (double)s->s.memory_held ? c->h.memory_limit - (double)s->s.memory_held : 1;
    return o;
}

/* Renders the picture; 0, or -1 with err (cancelled or failed). */
static int draw(const ng_render_request *r, const ng_served *s, int root, picture *p, const atomic_int *cancel, ng_error *err)
{
    const ng_graph *g = s->s.graph;
    int w = (int)r->w, h = (int)r->h, ch = ng_node_channels(ng_graph_node(g, root));
    if (r->view == NG_SERVE_HILLSHADE || r->view == NG_SERVE_VOLUME) {
        ng_view_opts v = ng_serve_cli()->v;
        ng_render_opts o = render_opts(r, s, w, h, cancel);
        ng_sink sink = {pic_begin, pic_rows, pic_end, p, NULL, NULL};
        v.kind = r->view == NG_SERVE_VOLUME ? NG_VIEW_VOLUME : NG_VIEW_TERRAIN;
        if (r->sea >= 0) v.sea_level = r->sea;
        if (r->hs >= 0) v.height_scale = r->hs;
        if (r->ramp >= 0) v.ramp = (ng_view_ramp_kind)r->ramp;
        return ng_view_render(g, root, &v, &o, &sink, err);
    }
    if (r->view == NG_SERVE_REPEAT) w = (w + 1) / 2, h = (h + 1) / 2;
    {
        ng_render_opts o = render_opts(r, s, w, h, cancel);
        if (pic_begin(p, w, h, ch, err)) return -1;
        return ng_render_buffer(g, root, &o, p->px, err);
    }
}

/* The picture as PNG channels: 1 (grey) or 3 (RGB: a ramp, a view, or
 * the first channels of a vector node, missing ones 0). */
static int to_png_channels(picture *p, ng_serve_view v, ng_error *err)
{
    const size_t n = (size_t)p->w * (size_t)p->h;
    float *rgb;
    size_t i;
    int c;
    if (p->ch == 1 && v != NG_SERVE_RAMP) return 0;
    if (p->ch == 3) return 0;
    if (!(rgb = malloc(n * 3 * sizeof *rgb))) return ng_errorf(err, "out of memory");
    for (i = 0; i < n; i++) {
        if (v == NG_SERVE_RAMP) ng_view_ramp(p->px[i], rgb + 3 * i);
        else
            for (c = 0; c < 3; c++) rgb[3 * i + c] = c < p->ch ? p->px[i * (size_t)p->ch + (size_t)c] : 0;
    }
    free(p->px);
    p->px = rgb;
    p->ch = 3;
    return 0;
}

/* 2 x 2 copies of the picture, cut to w x h. */
static int tile_2x2(picture *p, int w, int h, ng_error *err)
{
    float *out = malloc((size_t)w * (size_t)h * (size_t)p->ch * sizeof *out);
    int x, y;
    if (!out) return ng_errorf(err, "out of memory");
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            memcpy(out + ((size_t)y * (size_t)w + (size_t)x) * (size_t)p->ch,
                   p->px + ((size_t)(y % p->h) * (size_t)p->w + (size_t)(x % p->w)) * (size_t)p->ch,
                   (size_t)p->ch * sizeof *out);
    free(p->px);
    p->px = out, p->w = w, p->h = h;
    return 0;
}

/* The picture as the 8-bit PNG `noisegraph render` writes of it, as the
 * body. One thread each: up to SERVE_RUNNING renders encode at once. */
static int encode_png(const picture *p, ng_buf *body, ng_error *err)
{
    ng_file_options o;
    unsigned char *png;
    size_t len;
    ng_file_options_default(&o);
    o.threads = 1;
    if (ng_png_encode_memory(p->px, p->w, p->h, p->ch, 8, &o, &png, &len, err)) return -1;
    ng_buf_free(body);
    ng_buf_add(body, png, len);
    free(png);
    return body->oom ? ng_errorf(err, "out of memory") : 0;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The node to draw: the request's, or the script's first output. */
static int pick_node(const ng_render_request *r, const ng_served *s, ng_answer *a)
{
    const ng_graph *g = s->s.graph;
    if (r->node < 0) return s->s.output[0];
    if (r->node >= ng_graph_count(g))
        return ng_answer_text(a, 400, "node: %ld is not a node of the graph (ids 0 to %d)", r->node,
                              ng_graph_count(g) - 1),
               -1;
    return (int)r->node;
}

/* A render takes its turn before it asks for its graph, so graphs held by
 * renders are at most the turns' (a dozen renders of new parameter values
 * do not each hold a graph while they wait). The request's cancel flag is
 * set by a newer render on its stream, by its client hanging up (serve.c
 * watches the socket) and by the shutdown: waiting or drawing, it gives up
 * its turn. */
void ng_api_render(const ng_query *q, ng_answer *a)
{
    const ng_serve_opts *c = ng_serve_cli();
    ng_render_request r;
    ng_served *s = NULL;
    picture p = {0};
    atomic_int own, *cancel = q->cancel ? q->cancel : &own;
    ng_error err;
    double t0 = now_ms(), t1;
    int root, rc = -1, turn;
    atomic_init(&own, 0);
    if (ng_args_render(q, c, &r, a)) return;
    render_begin(r.stream, r.seq, cancel);
    if ((turn = turn_take(&draws, cancel)) || !(s = served_for(q, cancel, a))) goto out;
    if ((root = pick_node(&r, s, a)) < 0) goto out;
    if (r.view == NG_SERVE_RAMP && ng_node_channels(ng_graph_node(s->s.graph, root)) != 1) {
        ng_answer_text(a, 400, "view ramp: node %d has %d channels; a ramp colours one", root,
                       ng_node_channels(ng_graph_node(s->s.graph, root)));
        goto out;
    }
    t1 = now_ms();
    rc = draw(&r, s, root, &p, cancel, &err);
    if (rc && atomic_load(cancel)) {
        goto out;
    } else if (rc && c->r.time_limit > 0 && now_ms() - t1 >= c->r.time_limit * 1e3) {
        ng_answer_text(a, 503, "%s", err.msg); /* every time limit is a 503 */
    } else if (rc) {
        /* the graph refuses this window (its one line says why), whatever the view; the server's own memory, 500 */
        ng_answer_text(a, strstr(err.msg, "out of memory") ? 500 : 400, "%s", err.msg);
    } else if (to_png_channels(&p, r.view, &err) || (r.view == NG_SERVE_REPEAT && tile_2x2(&p, (int)r.w, (int)r.h, &err)) ||
               encode_png(&p, &a->body, &err)) {
        ng_answer_text(a, 500, "cannot encode the picture: %s", err.msg);
    } else {
        a->status = 200;
        a->type = "image/png";
        a->generation = s->generation;
        a->render_ms = now_ms() - t0;
    }
out:
    render_end(cancel);
    if (atomic_load(cancel) && (turn || rc))
        ng_answer_text(a, 409, "cancelled: a newer render on stream %s, the client went away, or the server is stopping",
                       r.stream ? r.stream : "(none)");
    free(p.px);
    if (turn == 0) turn_give(&draws);
    ng_served_put(s);
}

/* ---- /api/graph.svg ------------------------------------------------------------------------- */

/* Graphviz lays out in a child process (serve_child.c): no limit reaches
 * into its layout, whose time grows far faster than the graph (a graph of
 * 71 boxes with many crossing edges took 36 s here; a sum of 3000 noises
 * 80 s), and a thread cannot be stopped inside it. The child is killed at
 * the script's --time-limit, when the server stops or when the client
 * hangs up; at most 2 lay out at once. */
static turns layouts = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 2};
#define SVG_MAX_BYTES (64u << 20)

#ifndef NG_NO_GRAPHVIZ
/* The two plugins a layout to SVG needs, linked in rather than found by
 * Graphviz's plugin search: that search also loads its text layout
 * plugins, whose fontconfig state is never freed (a leak under ASan on
 * every run), while the estimated text widths of the core are enough for
 * boxes of short labels. */
extern gvplugin_library_t gvplugin_core_LTX_library;
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
static const lt_symlist_t gv_builtins[] = {
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {NULL, NULL}};

/* Each node's <g> gets id="node-ID" (the id of /api/state), each output
 * "output-K", so the page can find what was clicked. */
static void set_ids(Agraph_t *g)
{
    Agnode_t *n;
    for (n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const char *name = agnameof(n);
        char id[32];
        if (name[0] == 'n') snprintf(id, sizeof id, "node-%s", name + 1);
        else if (!strncmp(name, "out", 3)) snprintf(id, sizeof id, "output-%s", name + 3);
        else continue;
        agsafeset(n, "id", id, "");
    }
}

#endif

/* The most boxes (graph nodes and outputs) the page's drawing lays out:
 * past it the answer is a reason, at once (a sum of 1000 noises, 2001
 * nodes, took 2 s; such a graph is not read from a drawing anyway). The
 * time limit bounds the rest. */
#define SVG_MAX_NODES 500

/* fold=ID,ID,...: the nodes whose branches the drawing folds, as flags
 * (*out, ng_graph_count of them; NULL without the argument). 0, or -1
 * answered (400: an id the graph does not have; 500: out of memory). */
static int fold_flags(const ng_query *q, const ng_script *s, unsigned char **out, ng_answer *a)
{
    const int n = ng_graph_count(s->graph);
    const char *v = NULL, *p;
    int i;
    *out = NULL;
    for (i = 0; i < q->n; i++)
        if (!strcmp(q->key[i], "fold")) v = q->value[i];
    if (!v || !*v) return 0;
    if (!(*out = calloc((size_t)n + 1, 1))) return ng_answer_text(a, 500, "out of memory"), -1;
    for (p = v; *p;) {
        char *end;
        long id = strtol(p, &end, 10);
        if (end == p || *p < '0' || *p > '9' || id >= n || (*end && *end != ',')) {
            free(*out), *out = NULL;
            return ng_answer_text(a, 400, "fold: '%.64s' is not a list of node ids (0 to %d)", v, n - 1), -1;
        }
        (*out)[id] = 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

#ifndef NG_NO_GRAPHVIZ
void ng_api_layout(const char *dot, int fd)
{
    GVC_t *gvc = gvContextPlugins(gv_builtins, 0);
    Agraph_t *g = gvc ? agmemread(dot) : NULL;
    char *data = NULL;
    unsigned len = 0, off = 0;
    if (!g) return;
    set_ids(g);
    if (gvLayout(gvc, g, "dot") || gvRenderData(gvc, g, "svg", &data, &len) || !data) return;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w <= 0) return;
        off += (unsigned)w;
    }
    /* nothing freed: the process ends */
}
#else
void ng_api_layout(const char *dot, int fd) { (void)dot, (void)fd; }
#endif

/* The SVG of dot into out: 0; -1 Graphviz failed; -2 the time limit
 * passed; -3 given up (cancelled, the server stopping). */
static int layout_svg(const char *dot, const atomic_int *cancel, ng_buf *out, ng_error *err)
{
    ng_child c;
    char buf[16384];
    long n;
#ifdef NG_NO_GRAPHVIZ
    return ng_errorf(err, "this noisegraph was built without Graphviz (NO_GRAPHVIZ=1): it draws no graph");
#endif
    if (turn_take(&layouts, cancel)) return -3;
    if (ng_child_start(&c, 'L', dot, strlen(dot), ng_serve_cli()->h.time_limit, cancel, err)) {
        turn_give(&layouts);
        return -1;
    }
    while ((n = ng_child_read(&c, buf, sizeof buf)) > 0 && out->len <= SVG_MAX_BYTES) ng_buf_add(out, buf, (size_t)n);
    ng_child_end(&c);
    turn_give(&layouts);
    if (n == -2) return -2;
    if (n == -3) return -3;
    /* a child that failed or crashed wrote no SVG, or not all of one */
    if (n < 0 || out->len > SVG_MAX_BYTES || out->oom || !out->data || !strstr(out->data, "</svg>"))
        return ng_errorf(err, "Graphviz could not lay out the graph");
    return 0;
}

void ng_api_graph_svg(const ng_query *q, ng_answer *a)
{
    static const char *const known[] = {"fold", NULL};
    const double limit = ng_serve_cli()->h.time_limit;
    unsigned char *fold = NULL;
    atomic_int own, *cancel = q->cancel ? q->cancel : &own;
    ng_served *s;
    ng_error err;
    char *dot = NULL;
    size_t len = 0;
    long generation;
    FILE *f;
    int nodes, rc;
    atomic_init(&own, 0);
    if (ng_args_check_keys(q, known, a) || !(s = served_for(q, cancel, a))) return;
    if (fold_flags(q, &s->s, &fold, a)) {
        ng_served_put(s);
        return;
    }
    generation = s->generation;
    if ((nodes = ng_inspect_drawn(&s->s, fold)) > SVG_MAX_NODES) {
        ng_answer_text(a, 422,
                       "the graph has %d nodes, too many to draw (at most %d); 'noisegraph info' and "
                       "'noisegraph dot' give all of it",
                       nodes, SVG_MAX_NODES);
    } else if ((f = open_memstream(&dot, &len))) {
        ng_print_dot_folded(&s->s, base_name(ng_serve_cli()->script), fold, f);
        fclose(f);
    }
    free(fold);
    ng_served_put(s); /* the text is all the layout needs */
    if (nodes > SVG_MAX_NODES) return;
    ng_buf_free(&a->body);
    if (!dot) rc = -1, ng_errorf(&err, "out of memory");
    else rc = layout_svg(dot, cancel, &a->body, &err);
    free(dot);
    if (rc == -2)
        ng_answer_text(a, 503, "Graphviz took longer than the time limit of %g s to lay out the graph of %d nodes "
                               "(raise it with --time-limit); 'noisegraph dot' gives it to lay out elsewhere",
                       limit, nodes);
    else if (rc == -3) ng_answer_text(a, 503, "the drawing was given up (the client went away, or the server is stopping)");
    else if (rc) ng_answer_text(a, 500, "%s", err.msg);
    else a->status = 200, a->type = "image/svg+xml", a->generation = generation;
}
