/*
 * serve_buf.c — the server's growable text buffer. A buffer that failed
 * to grow stays failed, so an answer is checked once.
 */
#include "serve.h"

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

void ng_buf_free(ng_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
