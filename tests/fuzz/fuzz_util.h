/*
 * fuzz_util.h — what the libFuzzer targets share: a private scratch
 * directory, made once per process and removed at exit, and writing an
 * input into a file there (the readers under test take paths).
 */
#ifndef NG_FUZZ_UTIL_H
#define NG_FUZZ_UTIL_H

#include <stddef.h>

/* "<scratch dir>/name" into buf; makes the directory on first use. */
void ng_fuzz_path(char *buf, size_t len, const char *name);
/* Replaces the file at path with data; aborts on failure (a full disk is
 * not a finding). */
void ng_fuzz_write(const char *path, const void *data, size_t size);

#endif
