/*
 * cli_support.h — helpers for suites that drive the noisegraph program
 * (NG_BIN) the way a user does: run it, check the one-line error contract,
 * write scripts into a scratch directory, read PNGs back.
 */
#ifndef NG_CLI_SUPPORT_H
#define NG_CLI_SUPPORT_H

#include "harness.h"

#include <png.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PATHLEN 4096
#define DEFAULT_TIMEOUT 120 /* seconds: generous, for the sanitizer build */

extern const char *ng_bin;   /* absolute path of the program under test */
extern const char *ng_root;  /* repository root */
extern char tmpdir[PATHLEN]; /* mkdtemp directory of the running suite */

typedef struct res {
    int code; /* exit status, or -signal if it was killed (-14: timed out) */
    char *out, *err;
    size_t nout, nerr;
} res;

/* Reads NG_BIN and NG_ROOT, makes tmpdir; -1 when the environment is missing. */
int cli_setup(const char *prefix);
/* Removes tmpdir and everything in it. */
void cli_teardown(void);

void res_free(res *r);
void run_argv(res *r, unsigned timeout, const char *const *args);
/* cli(&r, "render", script, "-o", out, NULL) */
void cli(res *r, ...) __attribute__((sentinel));
void cli_t(res *r, unsigned timeout, ...) __attribute__((sentinel));

int count_lines(const char *s);
/* The failure contract: exit code, nothing on stdout, exactly one line on
 * stderr that starts "noisegraph: " and contains every needle. */
void expect_err(const char *file, int line, const res *r, int code, const char *const *needles);
#define EXPECT_ERR(r, code, ...)                                                                               \
    expect_err(__FILE__, __LINE__, (r), (code), (const char *const[]){__VA_ARGS__, NULL})
/* Success: exit 0 and a silent stderr (no progress: stderr is a pipe),
 * but for notes that a format clamped much of an output (scripts render
 * signed noise to PNG on purpose). EXPECT_SILENT: not even those. */
void expect_ok(const char *file, int line, const res *r);
#define EXPECT_OK(r) expect_ok(__FILE__, __LINE__, (r))
void expect_silent(const char *file, int line, const res *r);
#define EXPECT_SILENT(r) expect_silent(__FILE__, __LINE__, (r))

void pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tpath(char *buf, const char *name);
void put_file(const char *path, const char *text);
void mkscript(char *buf, const char *name, const char *text);
void mksub(char *buf, const char *name);
const char *at(const char *path, int line);
/* The whole file, NUL-terminated (not counted in len); NULL if unreadable. */
unsigned char *slurp(const char *path, size_t *len);
int exists(const char *path);
int same_bytes(const char *a, const char *b);
int ihdr(const char *path, unsigned *w, unsigned *h, int *depth, int *ctype);
void *decode(const char *path, png_uint_32 format, int *w, int *h);
/* A 16-bit PNG's samples as stored (no gamma, no premultiplied alpha):
 * w * h * channels values; NULL for anything else. */
uint16_t *read_png16(const char *path, int *w, int *h, int *channels);
int count_entries(const char *dir, const char *part);
/* A PNG through libpng's low-level writer: every sample as given (bytes, or
 * 16-bit values when depth is 16), height rows of width * nch samples. A
 * failure is a test failure; returns whether it worked. */
int write_png(const char *path, int w, int h, int depth, int ctype, int nch, const void *samples);

/* Starts NG_BIN with args (at most 14, NULL-terminated) in a child whose
 * output is thrown away, with SIGINT at its default, nothing blocked and an
 * alarm of twice DEFAULT_TIMEOUT as a hang guard; its pid (the caller
 * waits for it). For tests that signal a running render. */
pid_t cli_spawn(const char *const *args);

/* sh -c cmd; its exit status (stdout and stderr into *out when out,
 * the caller frees it). */
int shell(const char *cmd, char **out);

#endif
