/*
 * serve_wire.c — a script run as bytes, and back: what the child process
 * that ran a script (serve_child.c) tells the server over a pipe. A stream
 * of records, each a tag byte and its fields:
 *   'P' path                 a module the script requires (to watch)
 *   'E' kind message         the run failed (NG_WIRE_FAILED, NG_WIRE_TIME)
 *   'S' script               the run's result
 * Numbers are little-endian-free: the same machine writes and reads them,
 * so they go as they are in memory. Strings are a u32 length (0xffffffff:
 * NULL) and their bytes.
 *
 * A graph goes as the calls that built it, node by node in id order: its
 * type, label and script position, the options that were set, its inputs,
 * the nodes driving options, and the pixels an image node decoded; the
 * reader makes each call again through the public graph API (so the copy
 * renders the same bits) and hands the pixels to the image node's loader
 * instead of reading the file again.
 *
 * The reader trusts nothing: the child ran someone else's script. Every
 * count, index, kind and size is checked, and every byte it keeps is
 * counted against a budget.
 */
#include "serve.h"
#include "types.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NO_STRING 0xffffffffu

/* ---- writing ------------------------------------------------------------------------ */

static void out_add(ng_wire_out *o, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n && !o->failed) {
        size_t k = sizeof o->buf - o->len < n ? sizeof o->buf - o->len : n;
        memcpy(o->buf + o->len, p, k);
        o->len += k, p += k, n -= k;
        if (o->len == sizeof o->buf) ng_wire_flush(o);
    }
}

int ng_wire_flush(ng_wire_out *o)
{
    size_t off = 0;
    if (o->failed) return -1;
    if (o->mem) {
        ng_buf_add(o->mem, o->buf, o->len);
        o->failed = o->mem->oom;
    }
    while (!o->mem && off < o->len) {
        ssize_t w = write(o->fd, o->buf + off, o->len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            o->failed = 1;
            break;
        }
        off += (size_t)w;
    }
    o->len = 0;
    return o->failed ? -1 : 0;
}

static void out_u8(ng_wire_out *o, unsigned v)
{
    unsigned char b = (unsigned char)v;
    out_add(o, &b, 1);
}

static void out_u32(ng_wire_out *o, uint32_t v) { out_add(o, &v, sizeof v); }
static void out_f64(ng_wire_out *o, double v) { out_add(o, &v, sizeof v); }

static void out_str(ng_wire_out *o, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n >= NO_STRING) n = NO_STRING - 1;
    out_u32(o, s ? (uint32_t)n : NO_STRING);
    out_add(o, s, n);
}

void ng_wire_path(ng_wire_out *o, const char *path)
{
    out_u8(o, 'P');
    out_str(o, path);
    ng_wire_flush(o); /* at once: the run may never end */
}

void ng_wire_error(ng_wire_out *o, int kind, const char *msg)
{
    out_u8(o, 'E');
    out_u8(o, (unsigned)kind);
    out_str(o, msg);
    ng_wire_flush(o);
}

static void out_value(ng_wire_out *o, const ng_param_desc *p, const ng_value *v)
{
    switch (p->kind) {
    case NG_PARAM_NUMBER:
    case NG_PARAM_INT: out_f64(o, v->v[0]); break;
    case NG_PARAM_BOOL: out_u8(o, (unsigned)v->i); break;
    case NG_PARAM_ENUM: out_u32(o, (uint32_t)v->i); break;
    case NG_PARAM_VEC3: out_add(o, v->v, 3 * sizeof v->v[0]); break;
    case NG_PARAM_RANGE:
        out_u8(o, (unsigned)v->i);
        out_add(o, v->v, 2 * sizeof v->v[0]);
        break;
    case NG_PARAM_STRING:
    case NG_PARAM_PATH: out_str(o, v->s); break;
    case NG_PARAM_LIST:
        out_u32(o, (uint32_t)v->count);
        out_add(o, v->list, (size_t)v->count * sizeof *v->list);
        break;
    }
}

static void out_node(ng_wire_out *o, const ng_node *n)
{
    const ng_node_type *t = ng_node_type_of(n);
    ng_image img;
    int k, count;
    out_str(o, t->name);
    out_str(o, ng_node_label(n));
    out_str(o, ng_node_where(n));
    for (k = 0, count = 0; k < t->nparams; k++) count += ng_node_param_set(n, k);
    out_u32(o, (uint32_t)count);
    for (k = 0; k < t->nparams; k++)
        if (ng_node_param_set(n, k)) {
            out_u32(o, (uint32_t)k);
            out_value(o, &t->params[k], ng_node_param(n, k));
        }
    for (k = 0, count = 0; k < t->ninputs; k++) count += ng_node_input(n, k) >= 0;
    out_u32(o, (uint32_t)count);
    for (k = 0; k < t->ninputs; k++)
        if (ng_node_input(n, k) >= 0) out_u32(o, (uint32_t)k), out_u32(o, (uint32_t)ng_node_input(n, k));
    for (k = 0, count = 0; k < t->nparams; k++) count += ng_node_param_source(n, k) >= 0;
    out_u32(o, (uint32_t)count);
    for (k = 0; k < t->nparams; k++)
        if (ng_node_param_source(n, k) >= 0) out_u32(o, (uint32_t)k), out_u32(o, (uint32_t)ng_node_param_source(n, k));
    if (ng_node_image(n, &img)) {
        out_u8(o, 0);
        return;
    }
    out_u8(o, 1);
    out_u32(o, (uint32_t)img.width);
    out_u32(o, (uint32_t)img.height);
    out_u32(o, (uint32_t)img.channels);
    out_add(o, img.px, (size_t)img.width * (size_t)img.height * (size_t)img.channels * sizeof *img.px);
}

void ng_wire_script(ng_wire_out *o, const ng_script *s)
{
    int i;
    out_u8(o, 'S');
    out_u32(o, (uint32_t)s->nparams);
    for (i = 0; i < s->nparams; i++) {
        const ng_script_param *p = &s->params[i];
        out_str(o, p->name);
        out_str(o, p->doc);
        out_str(o, p->value);
        out_f64(o, p->min);
        out_f64(o, p->max);
        out_u8(o, (unsigned)((p->has_min ? 1 : 0) | (p->has_max ? 2 : 0) | (p->was_set ? 4 : 0)));
        out_u8(o, (unsigned)p->kind);
    }
    out_u32(o, (uint32_t)ng_graph_count(s->graph));
    for (i = 0; i < ng_graph_count(s->graph); i++) out_node(o, ng_graph_node(s->graph, i));
    out_u32(o, (uint32_t)s->noutputs);
    for (i = 0; i < s->noutputs; i++) {
        out_str(o, s->output_name[i]);
        out_u32(o, (uint32_t)s->output[i]);
    }
    ng_wire_flush(o);
}

/* ---- reading ----------------------------------------------------------------------- */

/* Fails the stream (the first reason stays). */
static int bad(ng_wire_in *in, const char *why)
{
    if (!in->status) {
        in->status = NG_WIRE_BAD;
        ng_errorf(&in->err, "%s", why);
    }
    return -1;
}

static int in_get(ng_wire_in *in, void *dst, size_t n)
{
    unsigned char *d = dst;
    while (n && !in->status) {
        size_t k;
        if (in->pos == in->len) {
            long got = in->read(in->ctx, in->buf, sizeof in->buf);
            if (got <= 0) {
                in->status = got == 0 ? NG_WIRE_EOF : got == -2 ? NG_WIRE_TIMEOUT : got == -3 ? NG_WIRE_STOPPED
                                                                                                : NG_WIRE_BAD;
                if (in->status == NG_WIRE_BAD) ng_errorf(&in->err, "cannot read the run's result");
                break;
            }
            in->pos = 0, in->len = (size_t)got;
        }
        k = in->len - in->pos < n ? in->len - in->pos : n;
        memcpy(d, in->buf + in->pos, k);
        in->pos += k, d += k, n -= k;
    }
    return in->status ? -1 : 0;
}

static unsigned in_u8(ng_wire_in *in)
{
    unsigned char b = 0;
    in_get(in, &b, 1);
    return b;
}

static uint32_t in_u32(ng_wire_in *in)
{
    uint32_t v = 0;
    in_get(in, &v, sizeof v);
    return v;
}

static double in_f64(ng_wire_in *in)
{
    double v = 0;
    in_get(in, &v, sizeof v);
    return v;
}

/* Takes bytes from the budget; -1 (the stream failed) when they do not fit. */
static int charge(ng_wire_in *in, size_t bytes)
{
    if (ng_budget_take(&in->budget, bytes)) return bad(in, "the run's result is larger than the memory limit");
    return 0;
}

/* A string: malloc'd, charged (*null set for NULL); NULL with the stream
 * failed. */
static char *in_str(ng_wire_in *in, int *null)
{
    uint32_t n = in_u32(in);
    char *s;
    *null = n == NO_STRING;
    if (in->status || *null) return NULL;
    if (charge(in, (size_t)n + 1) || !(s = malloc((size_t)n + 1))) {
        bad(in, "the run's result is larger than the memory limit");
        return NULL;
    }
    if (in_get(in, s, n) || memchr(s, 0, n)) {
        free(s);
        bad(in, "a string of the run's result holds a NUL");
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* A string that is only looked at: into a scratch buffer of the reader. */
static const char *in_scratch(ng_wire_in *in, char *buf, size_t cap, int *null)
{
    uint32_t n = in_u32(in);
    *null = n == NO_STRING;
    if (in->status) return NULL;
    if (*null) return NULL;
    if (n >= cap) return bad(in, "a name of the run's result is too long"), NULL;
    if (in_get(in, buf, n) || memchr(buf, 0, n)) return bad(in, "a string of the run's result holds a NUL"), NULL;
    buf[n] = '\0';
    return buf;
}

/* The pixels the node being rebuilt decoded: handed to its loader. One
 * graph is rebuilt per thread at a time. */
static _Thread_local ng_image *pending_image;

static int replay_loader(const char *path, ng_image *img, size_t max_bytes, ng_error *err)
{
    size_t bytes;
    if (!pending_image || !pending_image->px) return ng_errorf(err, "%s: no pixels came with the image", path);
    bytes = (size_t)pending_image->width * (size_t)pending_image->height * (size_t)pending_image->channels * sizeof(float);
    if (bytes > max_bytes) return ng_errorf(err, "%s: larger than the memory limit", path);
    *img = *pending_image;
    pending_image->px = NULL;
    return 0;
}

/* One option's value, set on n as the script's call set it. */
static int in_value(ng_wire_in *in, ng_node *n, int k, ng_error *err)
{
    const ng_param_desc *p = &ng_node_type_of(n)->params[k];
    double v[3];
    char *s;
    int null, rc = -1;
    uint32_t u;
    switch (p->kind) {
    case NG_PARAM_NUMBER:
    case NG_PARAM_INT:
        v[0] = in_f64(in);
        return in->status ? -1 : ng_set_number(n, k, v[0], err);
    case NG_PARAM_BOOL:
        u = in_u8(in);
        return in->status ? -1 : ng_set_bool(n, k, (int)u, err);
    case NG_PARAM_ENUM:
        u = in_u32(in);
        for (null = 0; p->choices[null] && (uint32_t)null < u; null++) continue;
        if (in->status || !p->choices[null]) return bad(in, "an option's choice is not one of its type's");
        return ng_set_choice(n, k, p->choices[null], err);
    case NG_PARAM_VEC3:
        in_get(in, v, sizeof v);
        return in->status ? -1 : ng_set_vec3(n, k, v, err);
    case NG_PARAM_RANGE:
        u = in_u8(in);
        in_get(in, v, 2 * sizeof v[0]);
        return in->status ? -1 : ng_set_range(n, k, (int)u, v[0], v[1], err);
    case NG_PARAM_STRING:
    case NG_PARAM_PATH:
        s = in_str(in, &null);
        if (s) {
            ng_budget_give(&in->budget, strlen(s) + 1); /* the node charges its own copy */
            rc = ng_set_string(n, k, s, err);
        } else if (null && !in->status) {
            rc = 0; /* set to nothing: as it was */
        }
        free(s);
        return rc;
    case NG_PARAM_LIST: {
        double *list;
        u = in_u32(in);
        if (in->status) return -1;
        if (u > (1u << 24) || charge(in, (size_t)u * sizeof *list + 1)) return bad(in, "a list option is too long");
        if (!(list = malloc((size_t)u * sizeof *list + 1))) return bad(in, "out of memory");
        if (!in_get(in, list, (size_t)u * sizeof *list)) rc = ng_set_list(n, k, list, (int)u, err);
        ng_budget_give(&in->budget, (size_t)u * sizeof *list + 1);
        free(list);
        return rc;
    }
    }
    return bad(in, "an option of an unknown kind");
}

/* The pixels of an image node: into *img (malloc'd, charged). */
static int in_image(ng_wire_in *in, ng_image *img)
{
    uint32_t w = in_u32(in), h = in_u32(in), c = in_u32(in);
    size_t bytes;
    if (in->status) return -1;
    if (w < 1 || h < 1 || c < 1 || c > 4 || w > NG_MAX_EXTENT || h > NG_MAX_EXTENT)
        return bad(in, "an image of the run's result has a size no image has");
    bytes = (size_t)w * (size_t)h * (size_t)c * sizeof(float);
    if (bytes > in->budget.limit - in->budget.used) return bad(in, "the run's result is larger than the memory limit");
    if (!(img->px = malloc(bytes))) return bad(in, "out of memory");
    img->width = (int)w, img->height = (int)h, img->channels = (int)c;
    if (in_get(in, img->px, bytes)) {
        ng_image_free(img);
        return -1;
    }
    return 0;
}

/* Node `id` of the graph, made again. */
static int in_node(ng_wire_in *in, ng_graph *g, int id)
{
    char name[64], label[256], where[512];
    const char *tn, *lb, *wh;
    const ng_node_type *t;
    ng_image img = {0};
    ng_node *n;
    ng_error err;
    uint32_t count, i, k, src;
    int null, got;
    tn = in_scratch(in, name, sizeof name, &null);
    if (!tn) return bad(in, "a node without a type");
    if (!(t = ng_type_find(tn))) return bad(in, "a node of no known type");
    lb = in_scratch(in, label, sizeof label, &null);
    wh = in_scratch(in, where, sizeof where, &null);
    if (in->status || !lb) return bad(in, "a node without a label");
    if (!(n = ng_node_begin(g, t, lb, wh, &err))) return bad(in, err.msg);
    count = in_u32(in);
    for (i = 0; i < count && !in->status; i++) {
        k = in_u32(in);
        if (!in->status && k >= (uint32_t)t->nparams) bad(in, "an option its type does not have");
        else if (!in->status && in_value(in, n, (int)k, &err) && !in->status) bad(in, err.msg);
    }
    count = !in->status ? in_u32(in) : 0;
    for (i = 0; i < count && !in->status; i++) {
        k = in_u32(in), src = in_u32(in);
        if (!in->status && (k >= (uint32_t)t->ninputs || src >= (uint32_t)id)) bad(in, "an input that is not there");
        else if (!in->status && ng_set_input(g, n, (int)k, (int)src, &err)) bad(in, err.msg);
    }
    count = !in->status ? in_u32(in) : 0;
    for (i = 0; i < count && !in->status; i++) {
        k = in_u32(in), src = in_u32(in);
        if (!in->status && (k >= (uint32_t)t->nparams || src >= (uint32_t)id)) bad(in, "a driven option that is not there");
        else if (!in->status && ng_set_param_node(g, n, (int)k, (int)src, &err)) bad(in, err.msg);
    }
    if (!in->status && in_u8(in) == 1 && !in->status) in_image(in, &img);
    if (in->status) {
        ng_node_discard(n);
        ng_image_free(&img);
        return -1;
    }
    pending_image = &img;
    got = ng_node_finish(g, n, &err);
    pending_image = NULL;
    ng_image_free(&img); /* when the loader did not take it */
    if (got < 0) return bad(in, err.msg);
    if (got != id) return bad(in, "a node that made others as it was finished (an input was missing)");
    return 0;
}

static int in_script(ng_wire_in *in, ng_script *s)
{
    uint32_t n, i;
    int null;
    memset(s, 0, sizeof *s);
    n = in_u32(in);
    if (!in->status && n > (1u << 20)) return bad(in, "too many parameters");
    if (!in->status && (charge(in, (size_t)n * sizeof *s->params + 1) ||
                        !(s->params = calloc((size_t)n + 1, sizeof *s->params))))
        return bad(in, "out of memory");
    for (i = 0; i < n && !in->status; i++) {
        ng_script_param *p = &s->params[i];
        unsigned flags, kind;
        s->nparams = (int)i + 1;
        p->name = in_str(in, &null);
        if (!p->name && !in->status) bad(in, "a parameter without a name");
        p->doc = in_str(in, &null);
        p->value = in_str(in, &null);
        if (!p->value && !in->status) bad(in, "a parameter without a value");
        p->min = in_f64(in), p->max = in_f64(in);
        flags = in_u8(in), kind = in_u8(in);
        p->has_min = flags & 1, p->has_max = (flags >> 1) & 1, p->was_set = (flags >> 2) & 1;
        if (!in->status && (kind > NG_SCRIPT_STRING || flags > 7)) bad(in, "a parameter of an unknown kind");
        p->kind = (ng_script_param_kind)kind;
    }
    n = !in->status ? in_u32(in) : 0;
    if (!in->status && (n < 1 || n > NG_MAX_NODES)) bad(in, "a graph of no node or too many");
    if (!in->status && !(s->graph = ng_graph_new())) bad(in, "out of memory");
    if (s->graph) {
        ng_graph_set_budget(s->graph, &in->budget);
        ng_graph_set_image_loader(s->graph, replay_loader);
    }
    for (i = 0; i < n && !in->status; i++) in_node(in, s->graph, (int)i);
    n = !in->status ? in_u32(in) : 0;
    if (!in->status && (n < 1 || n > NG_MAX_OUTPUTS)) bad(in, "no output or too many");
    for (i = 0; i < n && !in->status; i++) {
        uint32_t id;
        s->noutputs = (int)i + 1;
        s->output_name[i] = in_str(in, &null);
        id = in_u32(in);
        if (!in->status && ((!s->output_name[i] && (n > 1 || !null)) || id >= (uint32_t)ng_graph_count(s->graph)))
            bad(in, "an output that is not a node of the graph");
        s->output[i] = (int)id;
    }
    if (s->graph) ng_graph_set_budget(s->graph, NULL); /* what was counted stays in the budget */
    s->memory_held = in->budget.used;
    if (in->status) {
        ng_script_free(s);
        memset(s, 0, sizeof *s);
        return -1;
    }
    return 0;
}

int ng_wire_next(ng_wire_in *in, ng_wire_record *r)
{
    unsigned tag;
    int null;
    memset(r, 0, sizeof *r);
    tag = in_u8(in);
    if (in->status) return -1;
    r->tag = (int)tag;
    switch (tag) {
    case 'P':
        if (!in_scratch(in, r->text, sizeof r->text, &null) && !in->status) bad(in, "a path that is not one");
        break;
    case 'E':
        r->kind = (int)in_u8(in);
        if (!in_scratch(in, r->text, sizeof r->text, &null) && !in->status) bad(in, "an error without a message");
        if (!in->status && r->kind != NG_WIRE_FAILED && r->kind != NG_WIRE_TIME) bad(in, "an error of an unknown kind");
        break;
    case 'S': in_script(in, &r->s); break;
    default: bad(in, "a record of an unknown kind");
    }
    return in->status ? -1 : 0;
}
