/*
 * json.h — the program's one JSON codec, on jansson (json.c): it reads the
 * files `noisegraph tiles` writes (the manifest, the per-tile records)
 * strictly, and writes those files and the server's answers. Values are
 * jansson's json_t, owned by reference count (json_decref).
 *
 * Reading is strict: RFC 8259 numbers only (no "+1", "01", "1." or NaN),
 * UTF-8 text, no NUL in strings, no key twice in an object, containers
 * nested at most NG_JSON_MAX_DEPTH deep, one value and nothing after it.
 * Writing is always UTF-8: a byte of a C string that is no character
 * becomes U+FFFD, and a number that is not finite becomes null.
 */
#ifndef NG_JSON_H
#define NG_JSON_H

#include "noisegraph.h"

#include <jansson.h>

#include <stddef.h>

#define NG_JSON_MAX_DEPTH 16

/* ---- reading ---------------------------------------------------------------- */

/* The object or array that text[0..len) holds. NULL with err saying what
 * is wrong and where ("invalid token near '+' (line 3, column 14)"). */
json_t *ng_json_parse(const char *text, size_t len, ng_error *err);
/* The same of the file at path, read whole through ng_file_read_all (a
 * regular file of at most max_bytes; errno as it sets it). NULL with err
 * "PATH: WHY" when it cannot be read, and "PATH: not WHAT (WHY)" when it
 * is not strict JSON (what: "a tiles manifest"). */
json_t *ng_json_load(const char *path, size_t max_bytes, const char *what, ng_error *err);
/* Member key of an object as a number that is a whole number in [lo, hi]:
 * 0, or -1 when missing, of another kind or out of range (also when obj
 * is no object). */
int ng_json_int(const json_t *obj, const char *key, long lo, long hi, long *out);
/* Member key of an object as a string, or NULL. */
const char *ng_json_str(const json_t *obj, const char *key);

/* ---- writing ---------------------------------------------------------------- */

/* s (any bytes) as UTF-8: each byte of no character (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF) replaced by
 * U+FFFD. malloc'd; NULL without memory. */
char *ng_json_utf8(const char *s);
/* A string of s's characters (ng_json_utf8's), or null for NULL. NULL
 * only without memory; jansson's json_pack and setters take a NULL value
 * as a failure, so a tree built of these fails as a whole. */
json_t *ng_json_string(const char *s);
/* v: a whole number as an integer (no ".0"), another finite one with the
 * 17 digits that read back to it, and null when not finite. */
json_t *ng_json_number(double v);
/* v as one line of text ending in "\n" (members ", " and ": " apart),
 * malloc'd, its length in *len. NULL when v is NULL or without memory. */
char *ng_json_text(const json_t *v, size_t *len);
/* An object as text for people and line tools: one member a line, two
 * spaces in; a member that is an array of objects has one object a line,
 * four spaces in; everything else as ng_json_text writes it. Ends in "\n". */
char *ng_json_text_lines(const json_t *obj, size_t *len);

#endif
