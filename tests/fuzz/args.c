/*
 * args.c — libFuzzer target: arbitrary bytes as the words after
 * `noisegraph render` (split at NUL or newline) through the command-line
 * parser, ng_cli_parse. Besides memory errors it checks the parser's
 * promise: a usage error is exit code 2, and options it accepts are within
 * the ranges the rest of the program relies on.
 */
#include "args.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 256

static int finite_within(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

/* Whether p points at the start of one of the words. */
static int is_word(const char *p, char **argv, int argc)
{
    int i;
    for (i = 0; i < argc; i++)
        if (p == argv[i]) return 1;
    return 0;
}

static void check_accepted(const ng_cli *c, char **argv, int argc)
{
    const ng_render_opts *r = &c->r;
    int k;
    if (c->script && !is_word(c->script, argv, argc)) abort();
    if (c->output && !is_word(c->output, argv, argc)) abort();
    if (c->bits != 0 && c->bits != 8 && c->bits != 16 && c->bits != 32) abort();
    if (r->width < 1 || r->width > NG_MAX_EXTENT || r->height < 1 || r->height > NG_MAX_EXTENT) abort();
    if (r->region[2] || r->region[3]) {
        for (k = 0; k < 4; k++)
            if (r->region[k] < (k >= 2)) abort();
        if ((long)r->region[0] + r->region[2] > r->width || (long)r->region[1] + r->region[3] > r->height) abort();
    }
    if (r->threads < 0 || r->threads > 256 || r->tile < 8 || r->tile > 1024) abort();
    if (!finite_within(r->origin[0], -NG_MAX_COORD, NG_MAX_COORD) ||
        !finite_within(r->origin[1], -NG_MAX_COORD, NG_MAX_COORD) ||
        !finite_within(r->z, -NG_MAX_COORD, NG_MAX_COORD) || !finite_within(r->time, -NG_MAX_COORD, NG_MAX_COORD))
        abort();
    if (!finite_within(r->pixel_size, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE)) abort();
    if (r->dims != (c->time_set || c->frames_set ? 4 : c->z_set || r->depth ? 3 : 2)) abort();
    if (c->frames_set && (c->frame_first < 0 || c->frame_last < c->frame_first)) abort();
    if (c->loop_frames && !(r->time_period > 0 && isfinite(r->time_period))) abort();
    if (!finite_within(r->time_limit, 0, 1e9)) abort();
    if (!(c->h.time_limit > 0) || !isfinite(c->h.time_limit) || !(c->h.memory_limit >= 1024.0 * 1024.0) ||
        !isfinite(c->h.memory_limit))
        abort();
    if (c->h.nsets < 0 || c->h.nsets > NG_MAX_SETS) abort();
    for (k = 0; k < c->h.nsets; k++)
        if (!c->h.set_name[k][0] || strchr(c->h.set_name[k], '=') || !c->h.set_value[k]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *argv[MAX_WORDS + 1];
    int argc = 0, rc;
    size_t i, start = 0;
    ng_cli c;
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = 0;
    for (i = 0; i <= size && argc < MAX_WORDS; i++)
        if (i == size || text[i] == 0 || text[i] == '\n') {
            text[i] = 0;
            argv[argc++] = text + start;
            start = i + 1;
        }
    argv[argc] = NULL;
    rc = ng_cli_parse(NG_CMD_RENDER, argc, argv, &c);
    if (rc != 0 && rc != 2 && rc != NG_CLI_HELP) abort(); /* a usage error exits 2 */
    if (rc == 0) check_accepted(&c, argv, argc);
    ng_cli_free(&c);
    free(text);
    return 0;
}
