/*
 * serve.c — libFuzzer target: bytes as the request target a client sends
 * to `noisegraph serve` ("/api/render?w=8&set.scale=3"), through the
 * server's own code (serve/serve_args.c): the target split and
 * percent-decoded, the endpoint's arguments read, the parameter values
 * checked against what a script declares and, when accepted, the script
 * run with them (ng_script_run, as the server's child process runs it),
 * its result written as the child writes it (serve/serve_wire.c) and built
 * again as the server does, which must give the same graph; then the same
 * bytes cut short and with one byte changed, which the reader must refuse
 * or read within its budget. An input that starts with 'W' is a wire
 * stream itself (the child ran someone else's script: its bytes are not
 * to be trusted).
 *
 * Checks besides memory errors: a refused request is a 400 of one line;
 * accepted arguments are within the bounds the server relies on; a graph
 * read back has the nodes, options, inputs, outputs, parameters and
 * pixels of the one written.
 */
#include "fuzz_util.h"
#include "serve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEMORY_LIMIT (16.0 * 1024 * 1024)

/* The served script: a parameter of each kind, each used by the graph,
 * and an image (whose pixels travel with the graph). */
static const char script_text[] =
    "local scale = ng.param(\"scale\", 64, {min = 1, max = 4096, doc = \"feature size\"})\n"
    "local octaves = ng.param(\"octaves\", 3, {min = 1, max = 6})\n"
    "local ridged = ng.param(\"ridged\", false)\n"
    "local name = ng.param(\"name\", \"perlin\", {doc = \"a basis\"})\n"
    "local kind = ({perlin = \"perlin\", simplex = \"simplex\", value = \"value\"})[name] or \"worley\"\n"
    "local n = ng.fbm{source = ng.noise{type = kind, element_size = scale}, octaves = octaves}\n"
    "if ridged then n = n:abs() end\n"
    "local img = ng.image{path = \"img.tga\", wrap = \"mirror\"}\n"
    "local by = ng.simplex{element_size = scale, output = \"vector\"}\n"
    "return {height = n:fit(-1, 1, 0, 1), mask = img * n + ng.warp{source = n, by = by, amount = img * 8}}\n";

static char script_path[4200];
static ng_script base;
static ng_serve_opts opts;

/* A 3 x 2 8-bit grey TGA, top row first. */
static void write_image(const char *path)
{
    static const unsigned char tga[18 + 6] = {0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 2, 0, 8, 0x20,
                                              0, 60, 120, 180, 240, 255};
    ng_fuzz_write(path, tga, sizeof tga);
}

static void host_opts(ng_host_opts *h)
{
    ng_host_defaults(h);
    h->time_limit = 2;
    h->memory_limit = MEMORY_LIMIT;
}

static void setup(void)
{
    char p[4200];
    ng_error err;
    ng_fuzz_path(script_path, sizeof script_path, "s.lua");
    ng_fuzz_write(script_path, script_text, sizeof script_text - 1);
    ng_fuzz_path(p, sizeof p, "img.tga");
    write_image(p);
    host_opts(&opts.h);
    ng_render_defaults(&opts.r, 256, 128);
    opts.script = script_path;
    if (ng_script_run(script_path, &opts.h, &base, &err)) {
        fprintf(stderr, "fuzz: the host failed the served script: %s\n", err.msg);
        abort();
    }
}

/* ---- the wire ------------------------------------------------------------------------- */

typedef struct memory {
    const unsigned char *p;
    size_t left, step; /* step: the most one read gives, so reads split records anywhere */
} memory;

static long mem_read(void *ctx, void *buf, size_t n)
{
    memory *m = ctx;
    if (n > m->left) n = m->left;
    if (n > m->step) n = m->step;
    memcpy(buf, m->p, n);
    m->p += n, m->left -= n;
    return (long)n;
}

/* Reads every record of bytes; the scripts read are freed. 0 when the
 * stream ended at a record's end, -1 when the reader refused it (which
 * it must do without passing its budget). */
static int read_all(const unsigned char *bytes, size_t len, size_t step, ng_script *keep)
{
    ng_wire_in *in = calloc(1, sizeof *in);
    ng_wire_record *r = calloc(1, sizeof *r);
    memory m = {bytes, len, step ? step : 1};
    int rc;
    if (!in || !r) abort();
    in->read = mem_read;
    in->ctx = &m;
    in->budget.limit = (size_t)MEMORY_LIMIT;
    while (ng_wire_next(in, r) == 0) {
        if (r->tag != 'P' && r->tag != 'E' && r->tag != 'S') abort();
        if (r->tag == 'S' && keep && !keep->graph) *keep = r->s;
        else if (r->tag == 'S') ng_script_free(&r->s);
    }
    if (in->budget.used > in->budget.limit || !in->status) abort();
    if (in->status == NG_WIRE_BAD && !in->err.msg[0]) abort(); /* a refusal says why */
    rc = in->status == NG_WIRE_EOF ? 0 : -1;
    free(in), free(r);
    return rc;
}

static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* The graph read back is the one written: node by node, option by option. */
static void check_same(const ng_script *a, const ng_script *b)
{
    int i, k;
    if (a->nparams != b->nparams || a->noutputs != b->noutputs) abort();
    for (i = 0; i < a->nparams; i++) {
        const ng_script_param *p = &a->params[i], *q = &b->params[i];
        if (!same_str(p->name, q->name) || !same_str(p->doc, q->doc) || !same_str(p->value, q->value) ||
            p->kind != q->kind || p->has_min != q->has_min || p->has_max != q->has_max || p->was_set != q->was_set ||
            memcmp(&p->min, &q->min, sizeof p->min) || memcmp(&p->max, &q->max, sizeof p->max))
            abort();
    }
    for (i = 0; i < a->noutputs; i++)
        if (a->output[i] != b->output[i] || !same_str(a->output_name[i], b->output_name[i])) abort();
    if (ng_graph_count(a->graph) != ng_graph_count(b->graph)) abort();
    for (i = 0; i < ng_graph_count(a->graph); i++) {
        const ng_node *x = ng_graph_node(a->graph, i), *y = ng_graph_node(b->graph, i);
        const ng_node_type *t = ng_node_type_of(x);
        ng_image ix, iy;
        if (t != ng_node_type_of(y) || strcmp(ng_node_label(x), ng_node_label(y)) ||
            !same_str(ng_node_where(x), ng_node_where(y)) || ng_node_channels(x) != ng_node_channels(y))
            abort();
        for (k = 0; k < t->nparams; k++) {
            char fx[512], fy[512];
            ng_param_format(x, k, fx, sizeof fx);
            ng_param_format(y, k, fy, sizeof fy);
            if (strcmp(fx, fy) || ng_node_param_set(x, k) != ng_node_param_set(y, k) ||
                ng_node_param_source(x, k) != ng_node_param_source(y, k))
                abort();
        }
        for (k = 0; k < t->ninputs; k++)
            if (ng_node_input(x, k) != ng_node_input(y, k)) abort();
        if (ng_node_image(x, &ix) != ng_node_image(y, &iy)) abort();
        if (ng_node_image(x, &ix) == 0 &&
            (ix.width != iy.width || ix.height != iy.height || ix.channels != iy.channels ||
             memcmp(ix.px, iy.px, (size_t)ix.width * (size_t)ix.height * (size_t)ix.channels * sizeof *ix.px)))
            abort();
    }
    if (b->memory_held > (size_t)MEMORY_LIMIT) abort();
}

/* The script run with sets, written and read back; then cut short and with
 * a byte changed (where the input says). */
static void run_and_send(const ng_serve_sets *sets, const uint8_t *data, size_t size)
{
    ng_host_opts h;
    ng_script s, back = {0};
    ng_error err;
    ng_buf bytes = {0};
    ng_wire_out *o = calloc(1, sizeof *o);
    uint32_t mix = 2166136261u;
    size_t i;
    if (!o) abort();
    host_opts(&h);
    h.nsets = sets->n;
    for (i = 0; i < (size_t)sets->n; i++) h.set_name[i] = sets->name[i], h.set_value[i] = sets->value[i];
    o->mem = &bytes;
    if (ng_script_run(script_path, &h, &s, &err) == 0) {
        ng_wire_path(o, script_path); /* as the child sends a module it requires */
        ng_wire_script(o, &s);
    } else {
        ng_wire_error(o, NG_WIRE_FAILED, err.msg);
    }
    if (o->failed || bytes.oom) abort();
    if (read_all((const unsigned char *)bytes.data, bytes.len, 4096, &back)) abort();
    if (s.graph) {
        if (!back.graph) abort();
        check_same(&s, &back);
        ng_script_free(&back);
        ng_script_free(&s);
    }
    for (i = 0; i < size; i++) mix = (mix ^ data[i]) * 16777619u;
    read_all((const unsigned char *)bytes.data, mix % bytes.len, 1 + mix % 7, NULL);
    bytes.data[(mix >> 8) % bytes.len] ^= (char)(1u << (mix >> 29));
    read_all((const unsigned char *)bytes.data, bytes.len, 1 + (mix >> 4) % 4096, NULL);
    ng_buf_free(&bytes);
    free(o);
}

/* ---- requests --------------------------------------------------------------------------- */

static int finite_within(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

/* A refusal: a 400 and one line. */
static void check_refused(const ng_answer *a)
{
    if (a->status != 400 || !a->body.data || a->body.len < 2 || strchr(a->body.data, '\n') != a->body.data + a->body.len - 1)
        abort();
}

static void check_render(const ng_render_request *r)
{
    if (r->w < 1 || r->w > NG_SERVE_MAX_SIDE || r->h < 1 || r->h > NG_SERVE_MAX_SIDE || r->node < -1 ||
        r->node > NG_MAX_NODES || (unsigned)r->view > NG_SERVE_VOLUME)
        abort();
    if (!finite_within(r->ox, -NG_MAX_COORD, NG_MAX_COORD) || !finite_within(r->oy, -NG_MAX_COORD, NG_MAX_COORD) ||
        !finite_within(r->ps, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE))
        abort();
    if (r->stream && (!*r->stream || strlen(r->stream) > 64 || strspn(r->stream, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                                                                                 "KLMNOPQRSTUVWXYZ0123456789_-.") !=
                                                                      strlen(r->stream)))
        abort();
}

/* Accepted values are the script's: declared, within min and max. */
static void check_sets(const ng_serve_sets *sets)
{
    int i;
    for (i = 0; i < sets->n; i++) {
        const ng_script_param *p = ng_arg_param(&base, sets->name[i]);
        double v;
        if (!p) abort();
        if (p->kind == NG_SCRIPT_NUMBER || p->kind == NG_SCRIPT_INTEGER) {
            if (ng_arg_real(sets->value[i], -HUGE_VAL, HUGE_VAL, &v) || (p->has_min && v < p->min) ||
                (p->has_max && v > p->max) || (p->kind == NG_SCRIPT_INTEGER && v != floor(v)))
                abort();
        }
    }
}

static void request(const uint8_t *data, size_t size)
{
    static const char *const none[] = {NULL};
    char *target = malloc(size + 1);
    const char *path;
    ng_query q;
    ng_answer a = {0};
    ng_render_request r;
    ng_serve_sets sets;
    int i, ok;
    if (!target) abort();
    memcpy(target, data, size);
    target[size] = '\0'; /* the request line is a C string: a NUL byte ends it */
    if (ng_target_parse(target, &path, &q) == 0 && !q.nul) {
        if (q.n < 0 || q.n > 64 || (q.overflow && q.n != 64)) abort();
        for (i = 0; i < q.n; i++)
            if (q.key[i] < target || q.key[i] > target + size || !q.value[i]) abort();
        if (!strcmp(path, "/api/state") || !strcmp(path, "/api/graph.svg")) ok = !ng_args_check_keys(&q, none, &a);
        else if ((ok = !ng_args_render(&q, &opts, &r, &a))) check_render(&r);
        if (ok && (ok = !ng_args_sets(&q, &base, &sets, &a))) check_sets(&sets);
        if (!ok) check_refused(&a);
        if (ok && sets.n) run_and_send(&sets, data, size);
    }
    ng_buf_free(&a.body);
    free(target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!script_path[0]) setup();
    if (size && data[0] == 'W') read_all(data + 1, size - 1, 1 + size % 4096, NULL);
    else request(data, size);
    return 0;
}
