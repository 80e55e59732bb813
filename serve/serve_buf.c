/*
 * serve_buf.c — the server's growable text buffer and JSON values. A
 * buffer that failed to grow stays failed, so an answer is checked once.
 */
#include "serve.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(ng_buf *b, size_t more)
{
    size_t cap;
    char *d;
    if (b->oom) return -1;
    if (b->len + more + 1 <= b->cap) return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) {
        if (cap > ((size_t)-1) / 2) return b->oom = 1, -1;
        cap *= 2;
    }
    if (!(d = realloc(b->data, cap))) return b->oom = 1, -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

void ng_buf_add(ng_buf *b, const void *data, size_t n)
{
    if (reserve(b, n)) return;
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void ng_buf_puts(ng_buf *b, const char *s) { ng_buf_add(b, s, strlen(s)); }

void ng_buf_printf(ng_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF), or 0. The
 * checks stop at the string's NUL, which is no continuation byte. */
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

void ng_buf_json_str(ng_buf *b, const char *s)
{
    const unsigned char *p;
    if (!s) {
        ng_buf_puts(b, "null");
        return;
    }
    ng_buf_add(b, "\"", 1);
    for (p = (const unsigned char *)s; *p; p++) {
        int n;
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            ng_buf_add(b, esc, 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            ng_buf_printf(b, "\\u%04x", *p);
        } else if (*p < 0x80) {
            ng_buf_add(b, p, 1);
        } else if ((n = utf8_len(p)) > 0) {
            ng_buf_add(b, p, (size_t)n);
            p += n - 1;
        } else { /* JSON is UTF-8: a byte of no character becomes U+FFFD */
            ng_buf_puts(b, "\\ufffd");
        }
    }
    ng_buf_add(b, "\"", 1);
}

void ng_buf_json_num(ng_buf *b, double v)
{
    char text[32];
    int digits;
    if (!isfinite(v)) {
        ng_buf_puts(b, "null");
        return;
    }
    for (digits = 15; digits < 17; digits++) { /* the shortest that reads back exactly */
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    snprintf(text, sizeof text, "%.*g", digits, v);
    ng_buf_puts(b, text);
}

void ng_buf_free(ng_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
