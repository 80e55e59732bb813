/*
 * json.c — the strict JSON reader of json.h. Recursive descent over the
 * text with a depth bound; every failure says at which byte.
 */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *s, *end, *start;
    char *why;
} cursor;

static int bad(cursor *c, const char *what)
{
    snprintf(c->why, 128, "%s at byte %ld", what, (long)(c->s - c->start));
    return -1;
}

static void skip_space(cursor *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r')) c->s++;
}

static int hex4(cursor *c, unsigned *out)
{
    int k;
    *out = 0;
    if (c->end - c->s < 4) return bad(c, "a short \\u escape");
    for (k = 0; k < 4; k++) {
        const char h = *c->s++;
        const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return bad(c, "a bad \\u escape");
        *out = *out * 16 + (unsigned)d;
    }
    return 0;
}

/* A \u escape's code point as UTF-8 (no surrogates: our files never
 * write them). */
static int put_utf8(cursor *c, unsigned cp, char **o)
{
    if (cp == 0 || (cp >= 0xd800 && cp < 0xe000)) return bad(c, "an escape noisegraph does not write");
    if (cp < 0x80) {
        *(*o)++ = (char)cp;
    } else if (cp < 0x800) {
        *(*o)++ = (char)(0xc0 | cp >> 6);
        *(*o)++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *(*o)++ = (char)(0xe0 | cp >> 12);
        *(*o)++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *(*o)++ = (char)(0x80 | (cp & 0x3f));
    }
    return 0;
}

/* A string after its opening quote, malloc'd into *out. */
static int parse_string(cursor *c, char **out)
{
    const char *p = c->s;
    char *o;
    while (p < c->end && *p != '"') p += *p == '\\' ? 2 : 1;
    if (p >= c->end) return bad(c, "an unterminated string");
    if (!(*out = o = malloc((size_t)(p - c->s) + 1))) return bad(c, "out of memory");
    while (c->s < p && *c->s != '"') {
        unsigned char ch = (unsigned char)*c->s++;
        if (ch < 0x20) return bad(c, "a control character in a string");
        if (ch != '\\') {
            *o++ = (char)ch;
            continue;
        }
        switch (*c->s++) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp;
            if (hex4(c, &cp) || put_utf8(c, cp, &o)) return -1;
            break;
        }
        default: return bad(c, "a bad escape");
        }
    }
    *o = '\0';
    if (c->s != p) return bad(c, "a bad escape"); /* an escape ran past the string's end */
    c->s++;
    return 0;
}

static int parse_number(cursor *c, json *v)
{
    char buf[64], *stop;
    size_t n = 0;
    while (c->s + n < c->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", c->s[n])) n++;
    memcpy(buf, c->s, n);
    buf[n] = '\0';
    v->number = strtod(buf, &stop);
    if (n == 0 || stop != buf + n || !isfinite(v->number)) return bad(c, "a bad number");
    v->kind = JSON_NUMBER;
    c->s += n;
    return 0;
}

static int parse_value(cursor *c, json *v, int depth);

/* An array or object after its opening bracket: items until close. */
static int parse_items(cursor *c, json *v, int depth, char close)
{
    int cap = 0;
    skip_space(c);
    if (c->s < c->end && *c->s == close) {
        c->s++;
        return 0;
    }
    for (;;) {
        if (v->n == cap) {
            json *items;
            char **keys;
            cap = cap ? cap * 2 : 8;
            if (!(items = realloc(v->items, (size_t)cap * sizeof *items))) return bad(c, "out of memory");
            v->items = items;
            if (close == '}') {
                if (!(keys = realloc(v->keys, (size_t)cap * sizeof *keys))) return bad(c, "out of memory");
                v->keys = keys;
            }
        }
        memset(&v->items[v->n], 0, sizeof v->items[v->n]);
        if (close == '}') {
            v->keys[v->n] = NULL;
            skip_space(c);
            if (c->s >= c->end || *c->s != '"') return bad(c, "a member without a quoted name");
            c->s++;
            if (parse_string(c, &v->keys[v->n])) {
                v->n++; /* so json_free sees the key */
                return -1;
            }
            skip_space(c);
            if (c->s >= c->end || *c->s++ != ':') {
                v->n++;
                return bad(c, "a member without ':'");
            }
        }
        v->n++;
        if (parse_value(c, &v->items[v->n - 1], depth + 1)) return -1;
        skip_space(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if (c->s < c->end && *c->s == close) {
            c->s++;
            return 0;
        }
        return bad(c, close == '}' ? "an object without '}'" : "an array without ']'");
    }
}

static int word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->s) < n || memcmp(c->s, w, n)) return 0;
    c->s += n;
    return 1;
}

static int parse_value(cursor *c, json *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > JSON_MAX_DEPTH) return bad(c, "nesting too deep");
    skip_space(c);
    if (c->s >= c->end) return bad(c, "a missing value");
    switch (*c->s) {
    case '{': c->s++; v->kind = JSON_OBJECT; return parse_items(c, v, depth, '}');
    case '[': c->s++; v->kind = JSON_ARRAY; return parse_items(c, v, depth, ']');
    case '"': c->s++; v->kind = JSON_STRING; return parse_string(c, &v->string);
    default: break;
    }
    if (word(c, "true") || word(c, "false")) {
        v->kind = JSON_BOOL;
        v->number = c->s[-1] == 'e' && c->s[-2] == 'u';
        return 0;
    }
    if (word(c, "null")) return 0;
    return parse_number(c, v);
}

int json_parse(const char *text, size_t len, json *out, char why[128])
{
    cursor c = {text, text + len, text, why};
    why[0] = '\0';
    if (parse_value(&c, out, 0)) return -1;
    skip_space(&c);
    return c.s == c.end ? 0 : bad(&c, "text after the value");
}

void json_free(json *v)
{
    int i;
    if (!v) return;
    for (i = 0; i < v->n; i++) {
        json_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof *v);
}

const json *json_get(const json *v, const char *key)
{
    int i;
    if (!v || v->kind != JSON_OBJECT) return NULL;
    for (i = 0; i < v->n; i++)
        if (!strcmp(v->keys[i], key)) return &v->items[i];
    return NULL;
}

int json_int(const json *v, const char *key, long lo, long hi, long *out)
{
    const json *m = json_get(v, key);
    if (!m || m->kind != JSON_NUMBER || m->number != floor(m->number) || m->number < (double)lo ||
        m->number > (double)hi)
        return -1;
    *out = (long)m->number;
    return 0;
}

const char *json_str(const json *v, const char *key)
{
    const json *m = json_get(v, key);
    return m && m->kind == JSON_STRING ? m->string : NULL;
}
