/*
 * json.h — a small strict JSON reader for the files `noisegraph tiles`
 * writes itself (the manifest, the per-tile records): a tree of values,
 * nesting at most JSON_MAX_DEPTH deep, strings without NUL.
 */
#ifndef NG_JSON_H
#define NG_JSON_H

#include <stddef.h>

#define JSON_MAX_DEPTH 16

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json {
    json_kind kind;
    double number;       /* NUMBER; BOOL: 0 or 1 */
    char *string;        /* STRING */
    int n;               /* ARRAY, OBJECT: items */
    struct json *items;  /* ARRAY, OBJECT */
    char **keys;         /* OBJECT: keys[i] names items[i] */
} json;

/* Parses text[0..len) (the whole of it: one value and white space). 0, or
 * -1 with why[] saying where it failed (byte offset). Free the tree with
 * json_free either way. */
int json_parse(const char *text, size_t len, json *out, char why[128]);
void json_free(json *v);
/* The member key of an object, or NULL (also when v is no object). */
const json *json_get(const json *v, const char *key);
/* Member key as a number that is a whole number in [lo, hi], or a string:
 * 0, or -1 when missing or of another kind. */
int json_int(const json *v, const char *key, long lo, long hi, long *out);
const char *json_str(const json *v, const char *key);

#endif
