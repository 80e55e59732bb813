/*
 * json.c — the JSON codec of json.h. jansson parses and prints; this file
 * adds what the program's files and answers need besides: the nesting
 * bound, one-line errors, UTF-8 made of any C string, numbers that read
 * back exactly, and the line layout of the tiles manifest.
 */
#include "json.h"
#include "ng_io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 17 significant digits: every double reads back as itself. */
#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(17))

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF, as jansson
 * checks), or 0. The checks stop at a NUL, which is no continuation byte. */
static int utf8_len(const unsigned char *p)
{
    unsigned lo = 0x80, hi = 0xbf;
    int n, k;
    if (*p >= 0xc2 && *p <= 0xdf) n = 2;
    else if (*p >= 0xe0 && *p <= 0xef) n = 3, lo = *p == 0xe0 ? 0xa0 : 0x80, hi = *p == 0xed ? 0x9f : 0xbf;
    else if (*p >= 0xf0 && *p <= 0xf4) n = 4, lo = *p == 0xf0 ? 0x90 : 0x80, hi = *p == 0xf4 ? 0x8f : 0xbf;
    else return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (k = 2; k < n; k++)
        if (p[k] < 0x80 || p[k] > 0xbf) return 0;
    return n;
}

/* ---- reading ---------------------------------------------------------------- */

/* Whether v nests containers at most `levels` deep. */
static int shallow(json_t *v, int levels)
{
    const char *key;
    json_t *m;
    size_t i;
    if (!json_is_object(v) && !json_is_array(v)) return 1;
    if (levels == 0) return 0;
    if (json_is_array(v)) {
        json_array_foreach(v, i, m) if (!shallow(m, levels - 1)) return 0;
    } else {
        json_object_foreach(v, key, m) if (!shallow(m, levels - 1)) return 0;
    }
    return 1;
}

json_t *ng_json_parse(const char *text, size_t len, ng_error *err)
{
    json_error_t e;
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
    if (!v) {
        /* jansson quotes the text near the fault: one line of UTF-8, as
         * every message is, whatever bytes the file held */
        unsigned char *c;
        int n;
        for (c = (unsigned char *)e.text; *c; c += n) {
            n = *c < 0x80 ? 1 : utf8_len(c);
            if (n == 0 || *c < 0x20 || *c == 0x7f) *c = '?', n = 1;
        }
        ng_errorf(err, "%s (line %d, column %d)", e.text, e.line, e.column);
        return NULL;
    }
    if (!shallow(v, NG_JSON_MAX_DEPTH)) {
        json_decref(v);
        ng_errorf(err, "nested more than %d deep", NG_JSON_MAX_DEPTH);
        return NULL;
    }
    return v;
}

json_t *ng_json_load(const char *path, size_t max_bytes, const char *what, ng_error *err)
{
    ng_error why;
    json_t *v;
    size_t n;
    /* the one checked open: a FIFO or a device is refused, not waited on */
    char *text = ng_file_read_all(path, what, max_bytes, &n, err);
    if (!text) return NULL;
    if (!(v = ng_json_parse(text, n, &why))) ng_errorf(err, "%s: not %s (%s)", path, what, why.msg);
    free(text);
    return v;
}

int ng_json_int(const json_t *obj, const char *key, long lo, long hi, long *out)
{
    const json_t *m = json_object_get(obj, key);
    double x;
    if (json_is_integer(m)) {
        const json_int_t i = json_integer_value(m);
        if (i < lo || i > hi) return -1;
        *out = (long)i;
        return 0;
    }
    x = json_is_real(m) ? json_real_value(m) : NAN; /* 64.0 is 64 too */
    if (!(x == floor(x) && x >= (double)lo && x <= (double)hi)) return -1;
    *out = (long)x;
    return 0;
}

const char *ng_json_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* ---- writing ---------------------------------------------------------------- */

char *ng_json_utf8(const char *s)
{
    static const char fffd[] = "\xef\xbf\xbd";
    const unsigned char *p;
    char *fixed = malloc(3 * strlen(s) + 1), *o = fixed; /* three bytes at most for one */
    int n;
    if (!fixed) return NULL;
    for (p = (const unsigned char *)s; *p; p += n) {
        if ((n = *p < 0x80 ? 1 : utf8_len(p))) {
            memcpy(o, p, (size_t)n);
            o += n;
        } else {
            memcpy(o, fffd, 3);
            o += 3, n = 1;
        }
    }
    *o = '\0';
    return fixed;
}

json_t *ng_json_string(const char *s)
{
    char *fixed;
    json_t *v;
    if (!s) return json_null();
    if (!(fixed = ng_json_utf8(s))) return NULL;
    v = json_string(fixed);
    free(fixed);
    return v;
}

json_t *ng_json_number(double v)
{
    if (!isfinite(v)) return json_null();
    /* whole numbers that a double holds exactly, as integers; -0 stays a
     * real, keeping its sign */
    if (v == floor(v) && fabs(v) < 9007199254740992.0 && !(v == 0 && signbit(v))) return json_integer((json_int_t)v);
    return json_real(v);
}

/* A growing text; after a failed allocation it stays failed. */
typedef struct text {
    char *s;
    size_t len, cap;
    int bad;
} text;

static int put(const char *p, size_t n, void *ctx)
{
    text *t = ctx;
    if (t->bad) return -1;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        char *s;
        while (cap < t->len + n + 1) cap *= 2;
        if (!(s = realloc(t->s, cap))) return t->bad = 1, -1;
        t->s = s, t->cap = cap;
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = '\0';
    return 0;
}

static void put_str(text *t, const char *s) { put(s, strlen(s), t); }

static void put_value(text *t, const json_t *v)
{
    if (json_dump_callback(v, put, t, DUMP_FLAGS)) t->bad = 1;
}

/* t's text ended by "\n", or NULL (freed) after a failure. */
static char *finish(text *t, size_t *len)
{
    put_str(t, "\n");
    if (t->bad) {
        free(t->s);
        return NULL;
    }
    *len = t->len;
    return t->s;
}

char *ng_json_text(const json_t *v, size_t *len)
{
    text t = {0};
    if (!v) return NULL;
    put_value(&t, v);
    return finish(&t, len);
}

static int objects_only(const json_t *a)
{
    const json_t *item;
    size_t i;
    if (!json_is_array(a) || json_array_size(a) == 0) return 0;
    json_array_foreach(a, i, item) if (!json_is_object(item)) return 0;
    return 1;
}

char *ng_json_text_lines(const json_t *obj, size_t *len)
{
    text t = {0};
    const char *key;
    json_t *m, *item, *name;
    size_t i = 0, k;
    if (!json_is_object(obj)) return NULL;
    put_str(&t, "{");
    json_object_foreach((json_t *)obj, key, m) {
        put_str(&t, i++ ? ",\n  " : "\n  ");
        name = json_string(key); /* keys are UTF-8: jansson checked them when set */
        if (!name) t.bad = 1;
        else put_value(&t, name);
        json_decref(name);
        put_str(&t, ": ");
        if (!objects_only(m)) {
            put_value(&t, m);
            continue;
        }
        put_str(&t, "[");
        json_array_foreach(m, k, item) {
            put_str(&t, k ? ",\n    " : "\n    ");
            put_value(&t, item);
        }
        put_str(&t, "\n  ]");
    }
    put_str(&t, i ? "\n}" : "}");
    return finish(&t, len);
}
