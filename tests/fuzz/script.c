/*
 * script.c — libFuzzer target: arbitrary bytes as a graph script through
 * the sandboxed host (ng_script_run, 1 s and 16 MiB), and, when the script
 * returns a graph, a render of every output at 8x8 (2D, 3D or 4D, plain or
 * tileable; 1 s) into memory, which runs the nodes' setup and eval on what
 * the script built.
 *
 * The script's directory is a private scratch directory holding the input
 * (script.lua), a module (mod.lua, lib/sheet.lua from graphs/ when the
 * source tree is there) for `require`, and a 2x2 PNG (img.png) for ng.image.
 */
#include "fuzz_util.h"
#include "host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SIDE 8
/* Seconds the script, and then its render, may take. A render of nested
 * fractals could take hours even at 8x8; the render's deadline stops it.
 * NG_FUZZ_TIME_LIMIT=S sets another: a short one drives many more inputs
 * into the paths where the limit strikes (hooks failing every
 * instruction, deadlines in renders), as a slow machine would. */
static double time_limit = 1.0;

static char script_path[4200];
static int verbose; /* NG_FUZZ_VERBOSE=1: say what became of each input, on stderr */

/* Names of library functions that can run for minutes in C without
 * returning to the VM, where the host's instruction hook cannot stop them:
 * string patterns that backtrack (find, match, gmatch, gsub), table.move
 * over 2^50 indices, and table.insert/table.remove on a table whose __len
 * says 2^50, and __gc finalizers (Lua runs them with hooks off, so a
 * loop in one is the watchdog's too). The host's wall-clock watchdog ends such a process with
 * _exit(1), which would end the fuzzing run; the host's own tests cover
 * them. math.random is seeded from the clock, so a script using it would
 * not be deterministic. Inputs naming any of these (as a whole identifier,
 * or in a string) are skipped. */
static const char *const skipped[] = {"find", "match", "gmatch", "gsub", "move", "__len", "__gc", "random",
                                      "randomseed", NULL};

static int ident_char(uint8_t c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

static int mentions(const uint8_t *data, size_t size, const char *word)
{
    size_t n = strlen(word), i;
    for (i = 0; i + n <= size; i++)
        if (memcmp(data + i, word, n) == 0 && (i == 0 || !ident_char(data[i - 1])) &&
            (i + n == size || !ident_char(data[i + n])))
            return 1;
    return 0;
}

/* A 2x2 8-bit grey+alpha PNG, for scripts that read an image. */
static const unsigned char tiny_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x04, 0x00, 0x00, 0x00, 0xd8, 0xbf, 0xc5,
    0xaf, 0x00, 0x00, 0x00, 0x12, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0xf8, 0xdf, 0xe0,
    0xc0, 0xf0, 0x5f, 0x41, 0xe0, 0x00, 0x00, 0x12, 0x3e, 0x03, 0xaf, 0xa6, 0x9a, 0xd2, 0x1f, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

static const char mod_lua[] =
    "-- mod.lua: a module for require tests\n"
    "local M = {}\n"
    "function M.bump(n, k) return (n + k):abs() end\n"
    "M.base = ng.perlin{element_size = 4, seed = 2}\n"
    "return M\n";

static void copy_file(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    FILE *f = fopen(from, "rb");
    if (!f) return; /* not beside the source tree: require "lib.sheet" fails, nothing else */
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ng_fuzz_write(to, buf, n);
}

static void setup_dir(void)
{
    char p[4200];
    ng_fuzz_path(script_path, sizeof script_path, "script.lua");
    ng_fuzz_path(p, sizeof p, "img.png");
    ng_fuzz_write(p, tiny_png, sizeof tiny_png);
    ng_fuzz_path(p, sizeof p, "mod.lua");
    ng_fuzz_write(p, mod_lua, sizeof mod_lua - 1);
    ng_fuzz_path(p, sizeof p, "lib");
    mkdir(p, 0700);
    ng_fuzz_path(p, sizeof p, "lib/sheet.lua");
    copy_file(NG_FUZZ_ROOT "/graphs/lib/sheet.lua", p);
}

/* ---- a sink into memory --------------------------------------------------------- */

typedef struct memsink {
    int width, height, channels, next_row, begun;
    float *px;
} memsink;

static int mem_begin(void *user, int width, int height, int channels, ng_error *err)
{
    memsink *m = user;
    (void)err;
    if (m->begun || width != SIDE || height != SIDE || channels < 1 || channels > NG_MAX_CHANNELS) abort();
    m->begun = 1;
    m->width = width, m->height = height, m->channels = channels;
    if (!(m->px = malloc((size_t)width * (size_t)height * (size_t)channels * sizeof *m->px))) abort();
    return 0;
}

/* Rows must come top to bottom, each once, inside the image. */
static int mem_rows(void *user, int y, int nrows, const float *rows, ng_error *err)
{
    memsink *m = user;
    size_t row = (size_t)m->width * (size_t)m->channels;
    (void)err;
    if (!m->begun || y != m->next_row || nrows < 0 || y + nrows > m->height) abort();
    memcpy(m->px + (size_t)y * row, rows, (size_t)nrows * row * sizeof *rows);
    m->next_row = y + nrows;
    return 0;
}

static int mem_end(void *user, int ok, ng_error *err)
{
    memsink *m = user;
    (void)err;
    if (!m->begun) abort();
    if (ok && m->next_row != m->height) abort(); /* a successful render wrote every row */
    free(m->px);
    m->px = NULL;
    return 0;
}

static void render(const ng_script *s, const uint8_t *data, size_t size)
{
    memsink mem[NG_MAX_OUTPUTS];
    ng_sink sinks[NG_MAX_OUTPUTS];
    ng_render_opts o;
    ng_error err;
    uint32_t h = 2166136261u; /* FNV-1a of the input chooses the render's shape */
    size_t i;
    int k;
    for (i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
    ng_render_defaults(&o, SIDE, SIDE);
    o.threads = 1;
    o.tile = SIDE;
    o.dims = 2 + (int)(h % 3);
    o.z = o.dims > 2 ? 0.25 : 0;
    o.time = o.dims > 3 ? 0.5 : 0;
    o.tileable = (h >> 8) % 4 == 0;
    o.time_period = o.dims > 3 && (h >> 10) % 2 ? 2.0 : 0; /* looping time */
    o.time_limit = time_limit;
    if (verbose) fprintf(stderr, "fuzz: %d nodes, %dD%s\n", ng_graph_count(s->graph), o.dims, o.tileable ? ", tileable" : "");
    memset(mem, 0, sizeof mem);
    for (k = 0; k < s->noutputs; k++) {
        sinks[k].begin = mem_begin, sinks[k].rows = mem_rows, sinks[k].end = mem_end;
        sinks[k].user = &mem[k];
    }
    if (ng_render(s->graph, s->output, s->noutputs, &o, sinks, &err) && verbose)
        fprintf(stderr, "fuzz: render: %s\n", err.msg);
    for (k = 0; k < s->noutputs; k++)
        if (mem[k].px) abort(); /* a begun sink was never ended */
}

/* The host's watchdog found the script stuck in C past its time limit: a
 * way to loop in C that the skip list above does not name. The host would
 * end the process (its contract); here the input is kept as a finding. */
static void overrun(const char *msg)
{
    fprintf(stderr, "fuzz: the host's watchdog fired, a C call the target does not skip ran past the limit: %s\n",
            msg);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ng_host_opts o;
    ng_script s;
    ng_error err;
    int i;
    for (i = 0; skipped[i]; i++)
        if (mentions(data, size, skipped[i])) return 0;
    if (!script_path[0]) {
        setup_dir();
        verbose = getenv("NG_FUZZ_VERBOSE") != NULL;
        if (getenv("NG_FUZZ_TIME_LIMIT") && atof(getenv("NG_FUZZ_TIME_LIMIT")) > 0)
            time_limit = atof(getenv("NG_FUZZ_TIME_LIMIT"));
    }
    ng_fuzz_write(script_path, data, size);
    ng_host_defaults(&o);
    o.time_limit = time_limit;
    o.memory_limit = 16.0 * 1024 * 1024;
    o.overrun = overrun;
    if (ng_script_run(script_path, &o, &s, &err) == 0) {
        render(&s, data, size);
        ng_script_free(&s);
    } else if (verbose) {
        fprintf(stderr, "fuzz: %s\n", err.msg);
    }
    return 0;
}
