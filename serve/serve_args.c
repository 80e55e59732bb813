/*
 * serve_args.c — reading a request: its target split into a path and
 * arguments (percent-decoded here, from the bytes the client sent, so a
 * NUL is seen rather than cutting a string short), and the arguments read
 * whole and strictly (decimal numbers only, within the bounds a render
 * accepts, each key once, parameters against what the script declares).
 * Anything else is a 400 that names the argument. Nothing here needs the
 * daemon or the served state: the server and its fuzz target
 * (tests/fuzz/serve.c) run the same code.
 */
#include "serve.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ng_answer_text(ng_answer *a, int status, const char *fmt, ...)
{
    char msg[1024], *c;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (c = msg; *c; c++) /* one line, like the CLI's */
        if (*c == '\n' || *c == '\r') *c = ' ';
    a->status = status;
    a->type = "text/plain; charset=utf-8";
    ng_buf_free(&a->body);
    ng_buf_printf(&a->body, "%s\n", msg);
}

/* ---- the target -------------------------------------------------------------------- */

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes %XX in s in place ('+' as a space when plus; a '%' not
 * followed by two hex digits stays as it is, as libmicrohttpd leaves it);
 * whether a NUL came out. */
static int unescape(char *s, int plus)
{
    char *out = s;
    int nul = 0;
    for (; *s; s++) {
        int hi, lo;
        if (*s == '%' && (hi = hex_digit(s[1])) >= 0 && (lo = hex_digit(s[2])) >= 0) {
            *out = (char)(hi * 16 + lo);
            nul |= *out == '\0';
            out++, s += 2;
        } else {
            *out++ = plus && *s == '+' ? ' ' : *s;
        }
    }
    *out = '\0';
    return nul;
}

int ng_target_parse(char *target, const char **path, ng_query *q)
{
    char *query = strchr(target, '?'), *piece, *next;
    memset(q, 0, sizeof *q);
    if (query) *query++ = '\0';
    *path = target;
    for (piece = query; piece && *piece; piece = next) {
        char *eq;
        if ((next = strchr(piece, '&'))) *next++ = '\0';
        if (!*piece) continue; /* "a=1&&b=2", a trailing '&' */
        if ((eq = strchr(piece, '='))) *eq++ = '\0';
        if (q->n == (int)(sizeof q->key / sizeof q->key[0])) {
            q->overflow = 1;
            break;
        }
        q->nul |= unescape(piece, 1);
        if (eq) q->nul |= unescape(eq, 1);
        q->key[q->n] = piece;
        q->value[q->n++] = eq ? eq : "";
    }
    return unescape(target, 0) ? -1 : 0;
}

/* ---- arguments ------------------------------------------------------------------- */

static const char *arg(const ng_query *q, const char *key)
{
    int i;
    for (i = 0; i < q->n; i++)
        if (!strcmp(q->key[i], key)) return q->value[i];
    return NULL;
}

int ng_arg_real(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;
    if (!ng_decimal_syntax(s, s + strlen(s))) return -1;
    v = strtod(s, &end);
    if (!isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int read_int(const char *s, long lo, long hi, long *out)
{
    const char *p = s;
    long v = 0;
    if (*p == '+') p++;
    if (!*p || strlen(p) > 9) return -1;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int ng_args_check_keys(const ng_query *q, const char *const *known, ng_answer *a)
{
    int i, k;
    if (q->overflow) return ng_answer_text(a, 400, "too many arguments"), -1;
    for (i = 0; i < q->n; i++) {
        const char *key = q->key[i];
        int ok = !strncmp(key, "set.", 4) && key[4];
        for (k = 0; known[k] && !ok; k++) ok = !strcmp(key, known[k]);
        if (!ok && key[0] != '_') return ng_answer_text(a, 400, "unknown argument '%.64s'", key), -1;
        for (k = 0; k < i; k++)
            if (!strcmp(q->key[k], key)) return ng_answer_text(a, 400, "'%.64s' given twice", key), -1;
    }
    return 0;
}

const ng_script_param *ng_arg_param(const ng_script *s, const char *name)
{
    int i;
    for (i = 0; i < s->nparams; i++)
        if (!strcmp(s->params[i].name, name)) return &s->params[i];
    return NULL;
}

/* One set.NAME=V against the declaration of NAME. */
static int check_set(const ng_script_param *p, const char *name, const char *v, ng_answer *a)
{
    double x;
    if (p->kind == NG_SCRIPT_BOOLEAN) {
        if (strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "1") && strcmp(v, "0"))
            return ng_answer_text(a, 400, "set.%s: '%.64s' is not true or false", name, v), -1;
        return 0;
    }
    if (p->kind == NG_SCRIPT_STRING) {
        if (strlen(v) > 1024) return ng_answer_text(a, 400, "set.%s: longer than 1024 bytes", name), -1;
        return 0;
    }
    if (ng_arg_real(v, -HUGE_VAL, HUGE_VAL, &x))
        return ng_answer_text(a, 400, "set.%s: '%.64s' is not a finite decimal number", name, v), -1;
    if (p->kind == NG_SCRIPT_INTEGER && x != floor(x))
        return ng_answer_text(a, 400, "set.%s: '%.64s' is not a whole number", name, v), -1;
    if (p->has_min && p->has_max && (x < p->min || x > p->max))
        return ng_answer_text(a, 400, "set.%s: %.64s is outside %g to %g", name, v, p->min, p->max), -1;
    if (p->has_min && x < p->min) return ng_answer_text(a, 400, "set.%s: %.64s is below its min %g", name, v, p->min), -1;
    if (p->has_max && x > p->max) return ng_answer_text(a, 400, "set.%s: %.64s is above its max %g", name, v, p->max), -1;
    return 0;
}

int ng_args_sets(const ng_query *q, const ng_script *base, ng_serve_sets *sets, ng_answer *a)
{
    int i;
    sets->n = 0;
    for (i = 0; i < q->n; i++) {
        const char *name = q->key[i] + 4;
        const ng_script_param *p;
        if (strncmp(q->key[i], "set.", 4)) continue;
        if (!(p = ng_arg_param(base, name)))
            return ng_answer_text(a, 400, "set.%.64s: the script declares no parameter '%.64s'", name, name), -1;
        if (check_set(p, name, q->value[i], a)) return -1;
        if (sets->n == NG_MAX_SETS) return ng_answer_text(a, 400, "more than %d parameters", NG_MAX_SETS), -1;
        sets->name[sets->n] = name;
        sets->value[sets->n++] = q->value[i];
    }
    return 0;
}

/* ---- /api/render's arguments ------------------------------------------------------- */

const char *const ng_serve_view_words[] = {"grey", "ramp", "hillshade", "repeat", "volume", NULL};

static int valid_stream(const char *s)
{
    size_t n = strlen(s), i;
    if (n < 1 || n > 64) return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              strchr("_-.", s[i])))
            return 0;
    return 1;
}

int ng_args_render(const ng_query *q, const ng_serve_opts *c, ng_render_request *r, ng_answer *a)
{
    static const char *const known[] = {"w", "h", "ox", "oy", "ps", "node", "view", "stream", "seq", "sea", "hs", "ramp", NULL};
    static const char *const ramps[] = {"terrain", "grey", "height", NULL}; /* ORDER ng_view_ramp_kind */
    const char *v;
    int k;
    if (ng_args_check_keys(q, known, a)) return -1;
    r->w = c->r.width, r->h = c->r.height, r->node = -1;
    r->ox = c->r.origin[0], r->oy = c->r.origin[1], r->ps = c->r.pixel_size;
    r->view = NG_SERVE_GREY;
    r->stream = NULL;
    r->seq = -1;
    r->sea = r->hs = -1, r->ramp = -1;
    if ((v = arg(q, "w")) && read_int(v, 1, NG_SERVE_MAX_SIDE, &r->w))
        return ng_answer_text(a, 400, "w: '%.64s' is not a whole number from 1 to %d", v, NG_SERVE_MAX_SIDE), -1;
    if ((v = arg(q, "h")) && read_int(v, 1, NG_SERVE_MAX_SIDE, &r->h))
        return ng_answer_text(a, 400, "h: '%.64s' is not a whole number from 1 to %d", v, NG_SERVE_MAX_SIDE), -1;
    if (r->w > NG_SERVE_MAX_SIDE || r->h > NG_SERVE_MAX_SIDE) /* serve's own --size as the default */
        return ng_answer_text(a, 400, "w, h: %ldx%ld is larger than %d per side", r->w, r->h, NG_SERVE_MAX_SIDE), -1;
    if ((v = arg(q, "ox")) && ng_arg_real(v, -NG_MAX_COORD, NG_MAX_COORD, &r->ox))
        return ng_answer_text(a, 400, "ox: '%.64s' is not a number from %g to %g", v, -NG_MAX_COORD, NG_MAX_COORD), -1;
    if ((v = arg(q, "oy")) && ng_arg_real(v, -NG_MAX_COORD, NG_MAX_COORD, &r->oy))
        return ng_answer_text(a, 400, "oy: '%.64s' is not a number from %g to %g", v, -NG_MAX_COORD, NG_MAX_COORD), -1;
    if ((v = arg(q, "ps")) && ng_arg_real(v, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE, &r->ps))
        return ng_answer_text(a, 400, "ps: '%.64s' is not a number from %g to %g", v, NG_MIN_PIXEL_SIZE,
                              NG_MAX_PIXEL_SIZE),
               -1;
    if ((v = arg(q, "node")) && read_int(v, 0, NG_MAX_NODES, &r->node))
        return ng_answer_text(a, 400, "node: '%.64s' is not a node id", v), -1;
    if ((v = arg(q, "view"))) {
        for (k = 0; ng_serve_view_words[k] && strcmp(ng_serve_view_words[k], v); k++) continue;
        if (!ng_serve_view_words[k])
            return ng_answer_text(a, 400, "view: '%.64s' is not grey, ramp, hillshade, repeat or volume", v), -1;
        r->view = (ng_serve_view)k;
    }
    if ((v = arg(q, "sea")) && ng_arg_real(v, 0.01, 0.99, &r->sea))
        return ng_answer_text(a, 400, "sea: '%.64s' is not a sea level from 0.01 to 0.99", v), -1;
    if ((v = arg(q, "hs")) && ng_arg_real(v, 0, 1e12, &r->hs))
        return ng_answer_text(a, 400, "hs: '%.64s' is not a height scale from 0 (a fifth of the width) to 1e12", v), -1;
    if ((v = arg(q, "ramp"))) {
        for (k = 0; ramps[k] && strcmp(ramps[k], v); k++) continue;
        if (!ramps[k]) return ng_answer_text(a, 400, "ramp: '%.64s' is not terrain, grey or height", v), -1;
        r->ramp = k;
    }
    if ((v = arg(q, "stream")) && !valid_stream(v))
        return ng_answer_text(a, 400, "stream: '%.64s' is not 1 to 64 letters, digits, '_', '-' or '.'", v), -1;
    r->stream = v;
    if ((v = arg(q, "seq")) && read_int(v, 0, 999999999, &r->seq))
        return ng_answer_text(a, 400, "seq: '%.64s' is not a whole number from 0 to 999999999", v), -1;
    return 0;
}
