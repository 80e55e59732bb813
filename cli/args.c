/*
 * args.c — the command line of every command that reads options (render,
 * preview, info, dot, serve, tiles, stitch). One table lists every option
 * once (names, value, accepted range, which commands take it, help, what
 * it sets); the parser, the "takes a value" rule, the "given twice" rule,
 * the "not for this command" rule and the --help text all come from it.
 *
 * Values are read whole and strictly: decimal numbers only (no leading
 * blanks, hex, inf or nan), every field of a list present, each value
 * within its range. Nothing is copied into a fixed buffer, so nothing is
 * ever cut short.
 */
#include "args.h"
#include "types.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ng_cli_fail(int code, const char *fmt, ...)
{
    char msg[1024], *c;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one line that cannot drive the terminal, whatever the script's
     * message held: every control character (newlines, escape sequences) a
     * space; UTF-8 passes */
    for (c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
    fprintf(stderr, "noisegraph: %s\n", msg);
    return code;
}

/* ---- reading values -------------------------------------------------------------- */

/* How a value is read before the option stores it. */
typedef enum kind {
    FLAG,    /* no value */
    INT,     /* a whole number in [lo, hi] */
    REAL,    /* a finite number in [lo, hi] */
    REALS,   /* numbers "a,b", each in [lo, hi], as many as `fields` allows */
    INTS,    /* whole numbers "a,b,c,d", each in [lo, hi], likewise */
    TEXT     /* any text up to NG_CLI_MAX_VALUE bytes */
} kind;

typedef struct value {
    long i[6];
    double d[6];
    int n;            /* fields read (REALS, INTS) */
    const char *text;
} value;

typedef struct option option;
struct option {
    const char *name, *alias; /* "--output", "-o" (or NULL) */
    const char *arg;          /* the value in --help and messages; NULL for a flag */
    kind kind;
    unsigned fields;          /* REALS / INTS: bit n set: n comma-separated fields accepted (FIELDS) */
    double lo, hi;            /* accepted range of each number */
    /* Stores the value read; 0, or an exit code after the message. */
    int (*store)(ng_cli *c, const option *o, const value *v);
    unsigned takes;           /* where it is read: TAKES_* */
    const char *help;         /* lines after the first are indented under it */
};
#define FIELDS(n) (1u << (n))

/* Where an option is read. A view is preview, or render --view; a picture
 * is what render or a view writes. */
enum {
    TAKES_RENDER = 1u,  /* render without --view: the output itself */
    TAKES_VOLUME = 2u,  /* a volume view: preview, render --view volume */
    TAKES_TERRAIN = 4u, /* a terrain view: preview or render --view terrain */
    TAKES_INSPECT = 8u, /* info, dot: the script alone */
    TAKES_SERVE = 16u,  /* serve: the page's first window, its views */
    TAKES_TILES = 32u,  /* tiles: one image rendered as a grid of regions */
    /* Not a context: the option never changes the output's bytes (its
     * name, threads, tile sizes, limits, quiet), so the provenance
     * written into the file leaves it out, and renders that differ only
     * in it stay byte for byte the same files. */
    SAME_BYTES = 1u << 16,
    TAKES_STITCH = 64u, /* stitch: tiles (no script) into one file */
    TAKES_VIEWS = TAKES_VOLUME | TAKES_TERRAIN,
    TAKES_PICTURES = TAKES_RENDER | TAKES_VIEWS,
    /* an image render's own, which tiles reads as render does */
    TAKES_IMAGE = TAKES_PICTURES | TAKES_TILES,
    /* every command that runs a script */
    TAKES_SCRIPT = TAKES_PICTURES | TAKES_INSPECT | TAKES_SERVE | TAKES_TILES
};

/* A whole number from [s, end): optional sign, digits only. Overflow past
 * the range stops early, so any length of digits is safe. */
static int read_int(const char *s, const char *end, double lo, double hi, long *out)
{
    int neg = 0;
    double v = 0;
    if (s < end && (*s == '-' || *s == '+')) neg = *s++ == '-';
    if (s == end) return -1;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
        if (v > 1e15) return -1; /* beyond every range here, and exact so far */
    }
    if (neg) v = -v;
    if (v < lo || v > hi) return -1;
    *out = (long)v;
    return 0;
}

static int read_real(const char *s, const char *end, double lo, double hi, double *out)
{
    char *stop;
    double v;
    if (!ng_decimal_syntax(s, end)) return -1;
    v = strtod(s, &stop); /* stops exactly at end: the syntax was checked */
    if (stop != end || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* A number of comma-separated fields the option accepts, none empty. */
static int read_list(const char *s, const option *o, value *v)
{
    const char *c;
    int k, fields = 1;
    for (c = s; *c; c++) fields += *c == ',';
    if (fields > 6 || !(o->fields & FIELDS(fields))) return -1;
    v->n = fields;
    for (k = 0; k < fields; k++) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        if (o->kind == INTS ? read_int(s, end, o->lo, o->hi, &v->i[k])
                            : read_real(s, end, o->lo, o->hi, &v->d[k]))
            return -1;
        s = end + 1;
    }
    return 0;
}

/* A value for messages: quoted, and only its start when it is long. */
#define SHOWN 128
static const char *shown(const char *v, char buf[SHOWN])
{
    size_t n = strlen(v);
    if (n <= 64) snprintf(buf, SHOWN, "'%s'", v);
    else snprintf(buf, SHOWN, "'%.48s...' (%zu bytes)", v, n);
    return buf;
}

/* The accepted range, as messages say it. */
static int bad_value(const option *o, const char *v)
{
    char q[SHOWN];
    shown(v, q);
    switch (o->kind) {
    case INT: return ng_cli_fail(2, "%s: %s is not a whole number from %.0f to %.0f", o->name, q, o->lo, o->hi);
    case REAL: return ng_cli_fail(2, "%s: %s is not a number from %.10g to %.10g", o->name, q, o->lo, o->hi);
    case REALS:
        return ng_cli_fail(2, "%s: %s is not %s (each a number from %.10g to %.10g)", o->name, q, o->arg, o->lo, o->hi);
    case INTS:
        return ng_cli_fail(2, "%s: %s is not %s (whole numbers from %.0f to %.0f)", o->name, q, o->arg, o->lo,
                           o->hi);
    default: return ng_cli_fail(2, "%s: %s is not %s", o->name, q, o->arg);
    }
}

static int read_value(const option *o, const char *s, value *v)
{
    const char *end = s + strlen(s);
    memset(v, 0, sizeof *v);
    v->text = s;
    switch (o->kind) {
    case FLAG: return 0;
    case INT: return read_int(s, end, o->lo, o->hi, &v->i[0]) ? bad_value(o, s) : 0;
    case REAL: return read_real(s, end, o->lo, o->hi, &v->d[0]) ? bad_value(o, s) : 0;
    case REALS:
    case INTS: return read_list(s, o, v) ? bad_value(o, s) : 0;
    case TEXT: return 0;
    }
    return 0;
}

/* ---- what each option sets ---------------------------------------------------------- */

static int set_output(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->output = v->text;
    return 0;
}

/* Whole numbers split at each x ("WxHxD") into n: how many (1 to max), or
 * -1 when a field is empty, extra, or not a whole number in [lo, hi].
 * Nothing is copied anywhere. */
static int read_extents(const char *s, double lo, double hi, long *n, int max)
{
    const char *end = s + strlen(s), *from = s;
    int k = 0;
    for (;;) {
        const char *x = strchr(from, 'x');
        if (k == max || read_int(from, x ? x : end, lo, hi, &n[k++])) return -1;
        if (!x) return k;
        from = x + 1;
    }
}

/* WxH, WxHxD (a volume) or N. */
/* Terrain sizes the engines import as they are: Unity's heightmaps are
 * 2^n + 1 samples a side (33 to 4097), Unreal's landscapes one of its
 * recommended overall resolutions (sections of quads that tile whole
 * components). ORDER: each engine's sizes, smallest first. */
static const struct size_preset {
    const char *engine;
    int sizes[8];
} size_presets[] = {
    {"unity", {33, 65, 129, 257, 513, 1025, 2049, 4097}},
    {"unreal", {127, 253, 505, 1009, 2017, 4033, 8129}},
};

/* --size ENGINE:N: 0 and N in *n when ENGINE names a preset (1 when the
 * text is no preset at all); an exit code after the message listing the
 * sizes when N is not one of them. */
static int size_preset(const option *o, const char *text, long *n)
{
    const char *colon = strchr(text, ':');
    char list[128], q[SHOWN];
    size_t e, k, used = 0;
    if (!colon) return 1;
    for (e = 0; e < sizeof size_presets / sizeof size_presets[0]; e++) {
        const struct size_preset *p = &size_presets[e];
        long want;
        if (strncmp(text, p->engine, (size_t)(colon - text)) || p->engine[colon - text]) continue;
        if (read_int(colon + 1, colon + 1 + strlen(colon + 1), 1, NG_MAX_EXTENT, &want) == 0)
            for (k = 0; k < 8 && p->sizes[k]; k++)
                if (p->sizes[k] == want) {
                    *n = want;
                    return 0;
                }
        for (k = 0; k < 8 && p->sizes[k]; k++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", k ? ", " : "", p->sizes[k]);
        return ng_cli_fail(2, "%s: %s is not a %s terrain size (%s)", o->name, shown(text, q), p->engine, list);
    }
    return ng_cli_fail(2, "%s: %s: no terrain preset '%.*s' (unity:N or unreal:N)", o->name, shown(text, q),
                       (int)(colon - text), text);
}

static int set_size(ng_cli *c, const option *o, const value *v)
{
    long n[3] = {0, 0, 0};
    int k, rc;
    if ((rc = size_preset(o, v->text, &n[0])) != 1) {
        if (rc) return rc;
        c->r.width = c->r.height = (int)n[0];
        c->r.depth = 0;
        return 0;
    }
    k = read_extents(v->text, o->lo, o->hi, n, 3);
    if (k < 0) {
        char q[SHOWN];
        return ng_cli_fail(2, "%s: %s is not WxH, WxHxD (a volume) or N, each 1 to %.0f", o->name, shown(v->text, q),
                           o->hi);
    }
    c->r.width = (int)n[0];
    c->r.height = (int)(k > 1 ? n[1] : n[0]);
    c->r.depth = k == 3 ? (int)n[2] : 0;
    return 0;
}

static int set_bits(ng_cli *c, const option *o, const value *v)
{
    const char *s = v->text;
    long n;
    if (read_int(s, s + strlen(s), o->lo, o->hi, &n) || (n != 8 && n != 16 && n != 32)) {
        char q[SHOWN];
        return ng_cli_fail(2, "%s: %s is not 8, 16 or 32", o->name, shown(s, q));
    }
    c->bits = (int)n;
    return 0;
}

static int set_compression(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->file.level = (int)v->i[0];
    c->file_set = 1;
    return 0;
}

static int set_exr_tiles(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->file.exr_tile = (int)v->i[0];
    c->file_set = 1;
    return 0;
}

static int set_exr_compression(ng_cli *c, const option *o, const value *v)
{
    static const char *const words[] = {"zip", "piz", "none", "zips", "rle", "dwaa", "dwab"}; /* ORDER ng_exr_compression */
    size_t k;
    for (k = 0; k < sizeof words / sizeof words[0]; k++)
        if (!strcmp(v->text, words[k])) {
            c->file.exr_compression = (ng_exr_compression)k;
            c->file_set = 1;
            return 0;
        }
    {
        char q[SHOWN];
        return ng_cli_fail(2, "%s: %s is not zip, zips, piz, rle, none, dwaa or dwab", o->name, shown(v->text, q));
    }
}

static int set_exr_dwa_level(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->file.exr_dwa_level = v->d[0];
    c->file_set = 1;
    return 0;
}

/* X,Y,W,H of an image or X,Y,Z,W,H,D of a volume. */
static int set_region(ng_cli *c, const option *o, const value *v)
{
    const int vol = v->n == 6, w = vol ? 3 : 2;
    char q[SHOWN];
    if (v->i[w] < 1 || v->i[w + 1] < 1 || (vol && v->i[w + 2] < 1))
        return ng_cli_fail(2, "%s: %s: %s must be at least 1", o->name, shown(v->text, q), vol ? "W, H and D" : "W and H");
    c->r.region[0] = (int)v->i[0];
    c->r.region[1] = (int)v->i[1];
    c->r.region[2] = (int)v->i[w];
    c->r.region[3] = (int)v->i[w + 1];
    if (vol) {
        c->r.zregion[0] = (int)v->i[2];
        c->r.zregion[1] = (int)v->i[5];
    }
    c->region_fields = v->n;
    return 0;
}

static int set_threads(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.threads = (int)v->i[0];
    return 0;
}

static int set_tile(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.tile = (int)v->i[0];
    c->tile_set = 1;
    return 0;
}

static int set_origin(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    memcpy(c->origin, v->d, (size_t)v->n * sizeof *v->d);
    c->origin_fields = v->n;
    return 0;
}

static int set_pixel_size(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.pixel_size = v->d[0];
    c->pixel_set = 1;
    return 0;
}

/* S: cubes; X,Y,Z: boxes (their sizes along x, y and z). */
static int set_voxel_size(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    memcpy(c->voxel_size, v->d, (size_t)v->n * sizeof *v->d);
    c->voxel_fields = v->n;
    c->voxel_set = 1;
    return 0;
}

static int set_srs(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->file.srs = v->text;
    c->file_set = 1;
    return 0;
}

static int set_nodata(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->file.nodata = v->d[0];
    c->file.nodata_set = 1;
    c->file_set = 1;
    return 0;
}

static int set_cog(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->file.cog = 1;
    c->file_set = 1;
    return 0;
}

static int set_normalize(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->normalize = 1;
    return 0;
}

static int set_no_provenance(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->no_provenance = 1;
    return 0;
}

static int set_vdb_up(ng_cli *c, const option *o, const value *v)
{
    char q[SHOWN];
    if (strcmp(v->text, "y") && strcmp(v->text, "z"))
        return ng_cli_fail(2, "%s: %s is not y or z", o->name, shown(v->text, q));
    c->file.y_up = !strcmp(v->text, "y");
    c->file_set = 1;
    return 0;
}

static int set_brick(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.brick = (int)v->i[0];
    c->brick_set = 1;
    return 0;
}

static int set_vdb_background(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->vdb_background = v->d[0];
    c->file.grid = 1;
    c->file_set = 1;
    return 0;
}

static int set_z(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.z = v->d[0];
    c->z_set = 1;
    return 0;
}

static int set_time(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.time = v->d[0];
    c->time_set = 1;
    return 0;
}

/* A-B (inclusive, A <= B) or N: non-negative whole numbers. */
static int set_frames(ng_cli *c, const option *o, const value *v)
{
    const char *s = v->text, *dash = *s ? strchr(s + 1, '-') : NULL, *end = s + strlen(s);
    long a, b;
    char q[SHOWN];
    if (read_int(s, dash ? dash : end, o->lo, o->hi, &a) || (dash && read_int(dash + 1, end, o->lo, o->hi, &b)))
        return ng_cli_fail(2, "%s: %s is not A-B or N (whole frame numbers from 0 to %.0f)", o->name,
                           shown(s, q), o->hi);
    if (!dash) b = a;
    if (a > b) return ng_cli_fail(2, "%s: %s: the first frame is after the last (A-B needs A <= B)", o->name, shown(s, q));
    c->frame_first = a;
    c->frame_last = b;
    c->frames_set = 1;
    return 0;
}

static int set_fps(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->h.fps = v->d[0];
    return 0;
}

static int set_loop_frames(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->loop_frames = v->i[0];
    return 0;
}

static int set_param(ng_cli *c, const option *o, const value *v)
{
    const char *eq = strchr(v->text, '=');
    const size_t len = eq ? (size_t)(eq - v->text) : 0;
    char q[SHOWN];
    int k;
    if (!eq || eq == v->text) return ng_cli_fail(2, "%s: %s is not NAME=VALUE", o->name, shown(v->text, q));
    for (k = 0; k < c->h.nsets; k++) /* a parameter set twice, like any option given twice */
        if (strlen(c->h.set_name[k]) == len && !memcmp(c->h.set_name[k], v->text, len))
            return ng_cli_fail(2, "%s: %s is given twice", o->name, shown(c->h.set_name[k], q));
    if (c->h.nsets == NG_MAX_SETS) return ng_cli_fail(2, "%s: more than %d", o->name, NG_MAX_SETS);
    if (!(c->h.set_name[c->h.nsets] = strndup(v->text, len))) return ng_cli_fail(2, "%s: out of memory", o->name);
    c->h.set_value[c->h.nsets++] = eq + 1;
    return 0;
}

static int set_unsafe(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->h.unsafe = 1;
    return 0;
}

static int set_classic(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->h.classic = 1;
    return 0;
}

static int set_time_limit(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->h.time_limit = v->d[0];
    return 0;
}

static int set_memory_limit(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->h.memory_limit = v->d[0] * 1024 * 1024;
    return 0;
}

static int set_render_time_limit(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.time_limit = v->d[0];
    return 0;
}

static int set_tileable(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->r.tileable = 1;
    return 0;
}

static int set_quiet(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->quiet = 1;
    return 0;
}

static int set_only(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->only = v->text;
    return 0;
}

static int set_tile_size(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->tile_size = (int)v->i[0];
    return 0;
}

static int set_index(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->index = v->i[0];
    return 0;
}

static int set_plan(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->plan = 1;
    return 0;
}

static int set_source_script(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->source_script = v->text;
    return 0;
}

static int set_port(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->port = (int)v->i[0];
    return 0;
}

static int set_listen(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->listen = v->text;
    return 0;
}

/* ---- what each view option sets ---------------------------------------------------------- */

/* The position of word s in the option's "a|b|c" (its value as --help
 * shows it), or -1. The words are listed in the order of the enum they
 * name, so the position is the value. */
static int word_index(const option *o, const char *s)
{
    const char *w = o->arg;
    const size_t n = strlen(s);
    int k;
    for (k = 0;; k++) {
        const char *bar = strchr(w, '|');
        const size_t len = bar ? (size_t)(bar - w) : strlen(w);
        if (len == n && !strncmp(w, s, n)) return k;
        if (!bar) return -1;
        w = bar + 1;
    }
}

static int set_view(ng_cli *c, const option *o, const value *v)
{
    const int k = word_index(o, v->text); /* ORDER ng_view_kind */
    if (k < 0) return bad_value(o, v->text);
    c->view = 1;
    c->v.kind = (ng_view_kind)k;
    return 0;
}

static int set_view_preset(ng_cli *c, const option *o, const value *v)
{
    const int k = word_index(o, v->text); /* ORDER ng_view_preset */
    if (k < 0) return bad_value(o, v->text);
    c->v.preset = (ng_view_preset)k;
    return 0;
}

static int set_volume(ng_cli *c, const option *o, const value *v)
{
    long n[3];
    char q[SHOWN];
    if (read_extents(v->text, o->lo, o->hi, n, 3) != 3)
        return ng_cli_fail(2, "%s: %s is not WxHxD, each a whole number from 1 to %.0f", o->name, shown(v->text, q),
                           o->hi);
    c->v.box[0] = (int)n[0], c->v.box[1] = (int)n[1], c->v.box[2] = (int)n[2];
    return 0;
}

static int set_camera(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    memcpy(c->v.camera, v->d, sizeof c->v.camera);
    c->v.has_camera = 1;
    return 0;
}

static int set_look_at(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    memcpy(c->v.look_at, v->d, sizeof c->v.look_at);
    c->v.has_look_at = 1;
    return 0;
}

static int set_fov(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->v.fov = v->d[0];
    return 0;
}

/* AZ,EL in degrees, or X,Y,Z: a direction toward the sun. */
static int set_sun(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    if (v->n == 2) ng_view_sun(&c->v, v->d[0], v->d[1]);
    else memcpy(c->v.sun, v->d, sizeof c->v.sun);
    return 0;
}

static int set_density_scale(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->v.density_scale = v->d[0];
    return 0;
}

static int set_step(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->v.step = v->d[0];
    return 0;
}

static int set_height_scale(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->v.height_scale = v->d[0];
    return 0;
}

static int set_sea_level(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->v.sea_level = v->d[0];
    return 0;
}

static int set_terrain_ramp(ng_cli *c, const option *o, const value *v)
{
    const int k = word_index(o, v->text); /* ORDER ng_view_ramp_kind */
    if (k < 0) return bad_value(o, v->text);
    c->v.ramp = (ng_view_ramp_kind)k;
    c->ramp_set = 1;
    return 0;
}

static int set_exr_layout(ng_cli *c, const option *o, const value *v)
{
    const int k = word_index(o, v->text); /* ORDER ng_exr_layout */
    if (k < 0) return bad_value(o, v->text);
    c->file.exr_layout = (ng_exr_layout)k;
    c->file_set = 1;
    return 0;
}

static int set_exr_mipmap(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->file.exr_mipmap = 1;
    c->file_set = 1;
    return 0;
}

/* ---- the table -------------------------------------------------------------------- */

static const option options[] = {
    {"--output", "-o", "FILE", TEXT, 0, 0, 0, set_output, TAKES_IMAGE | TAKES_STITCH | SAME_BYTES,
     "the image: .png, .exr (OpenEXR), .tif/.tiff (GeoTIFF),\n"
     ".pfm (float), .r16/.raw (16-bit heightmap), .r32 (float heightmap);\n"
     "a volume: .vdb (OpenVDB), .nrrd, or slices 'dir/name_{z}.png';\n"
     "several outputs: FILE with {name}, or FILE-name.png;\n"
     "a view: one picture, .png or .pfm"},
    {"--size", NULL, "WxH | WxHxD | N | unity:N | unreal:N", TEXT, 0, 1, NG_MAX_EXTENT, set_size,
     TAKES_IMAGE | TAKES_SERVE,
     "full image size in pixels (default 512x512); WxHxD: a volume\n"
     "of D slices, sampled in 3D; a view: the picture's size, WxH;\n"
     "unity:N an NxN heightmap, N = 2^n + 1 (33 to 4097);\n"
     "unreal:N one of Unreal's landscape sizes (127, 253, 505, 1009,\n"
     "2017, 4033, 8129)"},
    {"--bits", NULL, "8|16|32", TEXT, 0, 8, 32, set_bits, TAKES_IMAGE | TAKES_STITCH,
     "sample depth: PNG 8 (default) or 16, EXR 32 (float, default)\n"
     "or 16 (half), GeoTIFF 32 (Float32, default) or 16 (UInt16),\n"
     "PFM 32, raw 16, .r32 32"},
    {"--compression", NULL, "L", INT, 0, 0, 9, set_compression, TAKES_IMAGE | TAKES_STITCH,
     "a .png's deflate effort: 0 stored, 1 Huffman only, 2 (default)\n"
     "byte runs (best on noise), 3 to 9 zlib's string matching\n"
     "(flat or terraced images); an .exr's ZIP level (zlib's 0-9);\n"
     "a .nrrd's data gzipped at level 1-9 (0, default: raw);\n"
     "the bytes do not depend on --threads"},
    {"--exr-tiles", NULL, "N", INT, 0, 1, 65536, set_exr_tiles, TAKES_IMAGE | TAKES_STITCH,
     "write the .exr as NxN tiles (default: scanlines); tiles count\n"
     "from the region's corner"},
    {"--exr-compression", NULL, "zip|zips|piz|rle|none|dwaa|dwab", TEXT, 0, 0, 0, set_exr_compression,
     TAKES_IMAGE | TAKES_STITCH,
     "the .exr's compression (default zip; zips: one scanline a\n"
     "chunk; rle: run lengths, for flat masks), lossless; dwaa (32\n"
     "scanlines a chunk), dwab (256): lossy DCT, R, G, B and Y\n"
     "channels stored near half precision (A and others lossless)"},
    {"--exr-dwa-level", NULL, "Q", REAL, 0, 0, 10000, set_exr_dwa_level, TAKES_IMAGE | TAKES_STITCH,
     "dwaa/dwab's dwaCompressionLevel (default 45, OpenEXR's):\n"
     "higher is smaller and coarser"},
    {"--exr-layout", NULL, "layers|parts|files", TEXT, 0, 0, 0, set_exr_layout, TAKES_RENDER,
     "several named outputs to one .exr: layers (default) one file,\n"
     "channels NAME.Y (grey), NAME.R/G/B (colour); parts: one part\n"
     "per output, named after it; files: a file each, FILE-NAME.exr\n"
     "(channels Y or R,G,B: what earlier versions wrote)"},
    {"--exr-mipmap", NULL, NULL, FLAG, 0, 0, 0, set_exr_mipmap, TAKES_RENDER | TAKES_STITCH,
     "write the .exr as mip-mapped tiles (--exr-tiles, default 64),\n"
     "for texture caches: each level the mean of 2x2 pixels of the\n"
     "one above, sizes rounded up"},
    {"--normalize", NULL, NULL, FLAG, 0, 0, 0, set_normalize, TAKES_RENDER | TAKES_TILES,
     "deterministic auto-levels: every 1-channel output through\n"
     "ng.normalize (its range measured at fixed points, the same for\n"
     "every tile and region) onto [0, 1]"},
    {"--no-provenance", NULL, NULL, FLAG, 0, 0, 0, set_no_provenance, TAKES_PICTURES,
     "write no provenance (script SHA-256, --set values, version,\n"
     "command) into the file: the bytes of earlier versions, and the\n"
     "same bytes for the same pixels from any script"},
    {"--srs", NULL, "SRS", TEXT, 0, 0, 0, set_srs, TAKES_IMAGE | TAKES_STITCH,
     "a GeoTIFF's spatial reference: EPSG:n, WKT or PROJ text;\n"
     "easting is world x, northing minus world y (north up)"},
    {"--nodata", NULL, "V", REAL, 0, -3.4e38, 3.4e38, set_nodata, TAKES_IMAGE | TAKES_STITCH,
     "a GeoTIFF's nodata value (16 bits: a whole number 0 to 65535)"},
    {"--cog", NULL, NULL, FLAG, 0, 0, 0, set_cog, TAKES_IMAGE | TAKES_STITCH,
     "write the .tif as a Cloud-Optimized GeoTIFF (tiled, with\n"
     "overviews)"},
    {"--region", NULL, "X,Y,W,H | X,Y,Z,W,H,D", INTS, FIELDS(4) | FIELDS(6), 0, NG_MAX_EXTENT, set_region,
     TAKES_PICTURES,
     "render only this window of the full image or volume\n"
     "(stitches exactly)"},
    {"--threads", NULL, "N", INT, 0, 1, 256, set_threads, TAKES_IMAGE | TAKES_SERVE | SAME_BYTES, "worker threads (default: one per CPU)"},
    {"--tile", NULL, "N", INT, 0, 8, 1024, set_tile, TAKES_IMAGE | TAKES_SERVE | SAME_BYTES, "tile edge in pixels, 8 to 1024 (default 64)"},
    {"--origin", NULL, "X,Y | X,Y,Z", REALS, FIELDS(2) | FIELDS(3), -NG_MAX_COORD, NG_MAX_COORD, set_origin,
     TAKES_IMAGE | TAKES_SERVE,
     "world position of the image's top-left corner (default 0,0);\n"
     "X,Y,Z: a volume's lowest corner, and a volume view's box's"},
    {"--pixel-size", NULL, "S", REAL, 0, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE, set_pixel_size,
     TAKES_RENDER | TAKES_TERRAIN | TAKES_SERVE | TAKES_TILES, "world units per pixel (default 1)"},
    {"--voxel-size", NULL, "S | X,Y,Z", REALS, FIELDS(1) | FIELDS(3), NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE,
     set_voxel_size, TAKES_RENDER | TAKES_VOLUME,
     "a volume's (or a volume view's box's) world units per voxel\n"
     "(default 1); X,Y,Z: box voxels, their size along each axis\n"
     "(4,4,2: finer in z), a render's only"},
    {"--brick", NULL, "N", INT, 0, 8, 64, set_brick, TAKES_RENDER | SAME_BYTES,
     "a volume's brick edge in voxels, 8 to 64 (default 16)"},
    {"--vdb-background", NULL, "B", REAL, 0, -1e30, 1e30, set_vdb_background, TAKES_RENDER,
     "voxels at or below B stay inactive in a .vdb (default 0)"},
    {"--vdb-up", NULL, "y|z", TEXT, 0, 0, 0, set_vdb_up, TAKES_RENDER,
     "a .vdb's up axis: z (default) as rendered, or y (Houdini,\n"
     "Blender's importers): (x, y, z) is stored as (x, z, -y)"},
    {"--z", NULL, "Z", REAL, 0, -NG_MAX_COORD, NG_MAX_COORD, set_z, TAKES_RENDER | TAKES_TERRAIN | TAKES_SERVE | TAKES_TILES,
     "sample the 3D plane z = Z"},
    {"--time", NULL, "T", REAL, 0, -NG_MAX_COORD, NG_MAX_COORD, set_time, TAKES_IMAGE | TAKES_SERVE,
     "sample 4D noise at time T (implies 3D z = 0 unless --z)"},
    {"--frames", NULL, "A-B | N", TEXT, 0, 0, 99999999, set_frames, TAKES_RENDER,
     "render frames A to B (or frame N), frame f at time f / fps, in\n"
     "one process (the script runs once); -o takes {frame}, the\n"
     "number zero-padded to 4 digits or B's; a failure stops the\n"
     "sequence and keeps the frames already written"},
    {"--fps", NULL, "F", REAL, 0, 0.001, 1e6, set_fps, TAKES_RENDER | TAKES_TILES,
     "frames per second: frame f is time f / F (default 24);\n"
     "ng.frame() is time x F"},
    {"--loop-frames", NULL, "N", INT, 0, 1, 99999999, set_loop_frames, TAKES_RENDER | TAKES_TILES,
     "loop time every N frames (N / fps seconds): every noise's\n"
     "lattice wraps in time, so frame f + N is frame f, bit for bit"},
    {"--set", NULL, "NAME=VALUE", TEXT, 0, 0, 0, set_param, TAKES_SCRIPT,
     "set a parameter the script declares with ng.param"},
    {"--unsafe", NULL, NULL, FLAG, 0, 0, 0, set_unsafe, TAKES_SCRIPT, "give the script the full Lua standard library"},
    {"--classic", NULL, NULL, FLAG, 0, 0, 0, set_classic, TAKES_SCRIPT,
     "the defaults of versions before 0.2.0 (gradients = \"classic\",\n"
     "rotate = false, method = \"analytic\" shading and erosion filter):\n"
     "a script's old bits"},
    {"--time-limit", NULL, "S", REAL, 0, 0.001, 1e6, set_time_limit, TAKES_SCRIPT | SAME_BYTES,
     "seconds the script may run (default 10)"},
    {"--memory-limit", NULL, "MIB", REAL, 0, 1, 1048576, set_memory_limit, TAKES_SCRIPT | SAME_BYTES,
     "memory the script may use (default 512)"},
    {"--render-time-limit", NULL, "S", REAL, 0, 0.001, 1e6, set_render_time_limit, TAKES_IMAGE | TAKES_SERVE | SAME_BYTES,
     "seconds the render may take, then it stops and writes nothing\n"
     "(default: no limit)"},
    {"--tileable", NULL, NULL, FLAG, 0, 0, 0, set_tileable, TAKES_RENDER | TAKES_TILES,
     "make the image wrap seamlessly in x and y (element sizes are\n"
     "adjusted to whole cells per image; a note says so)"},
    {"--quiet", NULL, NULL, FLAG, 0, 0, 0, set_quiet, TAKES_IMAGE | TAKES_SERVE | TAKES_STITCH | SAME_BYTES, "no progress or notes on stderr"},
    {"--only", NULL, "NAME", TEXT, 0, 0, 0, set_only, TAKES_PICTURES,
     "of a script returning several named outputs, render (or view)\n"
     "only output NAME; the others are not evaluated"},
    /* tiles' and stitch's own */
    {"--tile-size", NULL, "T", INT, 0, 16, NG_MAX_EXTENT, set_tile_size, TAKES_TILES,
     "tiles: a tile's edge in pixels (default 1024); the last column\n"
     "and row are what is left of the size"},
    {"--index", "--only", "I", INT, 0, 0, INT_MAX, set_index, TAKES_TILES,
     "tiles: render tile I alone (I = row x columns + column, from 0)"},
    {"--plan", NULL, NULL, FLAG, 0, 0, 0, set_plan, TAKES_TILES,
     "tiles: print one shell command per tile (line I + 1 renders\n"
     "tile I) for GNU parallel or a Slurm job array; render nothing"},
    {"--script", NULL, "SCRIPT", TEXT, 0, 0, 0, set_source_script, TAKES_STITCH,
     "stitch: refuse tiles that SCRIPT did not make (its SHA-256 is\n"
     "not the manifest's)"},
    /* serve's own */
    {"--port", NULL, "N", INT, 0, 0, 65535, set_port, TAKES_SERVE, "serve: the port (default 0: a free one, printed)"},
    {"--listen", NULL, "ADDR", TEXT, 0, 0, 0, set_listen, TAKES_SERVE,
     "serve: the IPv4 address to listen on (default 127.0.0.1;\n"
     "another one is reachable from other machines: a warning says so)"},
    /* the view's own */
    {"--view", NULL, "volume|terrain", TEXT, 0, 0, 0, set_view, TAKES_VIEWS,
     "what the output is: a density (a cloud; preview's default) or\n"
     "a height; render --view draws the picture preview draws"},
    {"--volume", NULL, "WxHxD", TEXT, 0, 1, NG_MAX_EXTENT, set_volume, TAKES_VOLUME | TAKES_SERVE,
     "the density's box in voxels (default 128x128x128)"},
    {"--camera", NULL, "X,Y,Z", REALS, FIELDS(3), -NG_MAX_COORD, NG_MAX_COORD, set_camera, TAKES_VOLUME | TAKES_SERVE,
     "where the camera stands (default: the preset's place)"},
    {"--look-at", NULL, "X,Y,Z", REALS, FIELDS(3), -NG_MAX_COORD, NG_MAX_COORD, set_look_at, TAKES_VOLUME | TAKES_SERVE,
     "what it looks at (default: the box's centre)"},
    {"--fov", NULL, "DEG", REAL, 0, 1, 170, set_fov, TAKES_VOLUME | TAKES_SERVE, "vertical field of view, degrees (default 40)"},
    {"--view-preset", NULL, "three-quarter|side|top", TEXT, 0, 0, 0, set_view_preset, TAKES_VOLUME | TAKES_SERVE,
     "the camera around the box when --camera is not given\n"
     "(default three-quarter: from above and aside; z is up)"},
    {"--sun", NULL, "AZ,EL | X,Y,Z", REALS, FIELDS(2) | FIELDS(3), -1e6, 1e6, set_sun, TAKES_VIEWS | TAKES_SERVE,
     "the sun: azimuth (degrees from -y toward +x: on a heightmap,\n"
     "from the top, clockwise) and elevation, or a direction toward it\n"
     "(default 315,40: high in the top left)"},
    {"--density-scale", NULL, "K", REAL, 0, 0, 1e6, set_density_scale, TAKES_VOLUME | TAKES_SERVE,
     "extinction per voxel length per unit of density (default 0.5)"},
    {"--step", NULL, "S", REAL, 0, 0.05, 64, set_step, TAKES_VOLUME | TAKES_SERVE, "ray-march step in voxels (default 1)"},
    {"--height-scale", NULL, "H", REAL, 0, 0, 1e12, set_height_scale, TAKES_TERRAIN | TAKES_SERVE,
     "world units of height per unit of value (default: a fifth of\n"
     "the picture's width)"},
    {"--sea-level", NULL, "L", REAL, 0, 0.01, 0.99, set_sea_level, TAKES_TERRAIN | TAKES_SERVE,
     "the height below which the ground is water, drawn flat\n"
     "(default 0.3); the land colours spread over L to 1"},
    {"--terrain-ramp", NULL, "terrain|grey|height", TEXT, 0, 0, 0, set_terrain_ramp, TAKES_TERRAIN | TAKES_SERVE,
     "the colours: terrain (water, sand, grass, forest, rock,\n"
     "snow by height, bare rock where steep, hollows shaded; the\n"
     "default), grey (the height, lit: a GIS hillshade) or height\n"
     "(the terrain colours by height alone: before 0.2.0, and\n"
     "--classic's)"},
};

#define NOPTIONS (sizeof options / sizeof options[0])
_Static_assert(NOPTIONS <= 64, "ng_cli_parse keeps the options given in 64-bit masks");

/* The commands, in the ORDER of ng_cmd: the word that is not an option,
 * every place their options may be read, and their usage for --help
 * (the synopsis after "noisegraph ", and lines saying what it does). */
static const struct command {
    const char *name, *positional;
    unsigned takes;
    const char *synopsis, *about;
} commands[] = {
    [NG_CMD_RENDER] = {"render", "script", TAKES_PICTURES, /* --view makes it a view */
                       "render SCRIPT -o FILE [options]", "render a graph script to an image or a volume"},
    [NG_CMD_PREVIEW] = {"preview", "script", TAKES_VIEWS, "preview SCRIPT -o FILE [options]",
                        "a picture of the script's 1-channel output\n"
                        "(its `height`, or else its first): a cloud\n"
                        "ray-marched through its\n"
                        "density, or a lit heightmap (--view terrain);\n"
                        "render SCRIPT --view ... draws the same"},
    [NG_CMD_TILES] = {"tiles", "script", TAKES_TILES,
                      "tiles SCRIPT -o 'DIR/t_{x}_{y}.png' --tile-size T [--plan | --index I] [options]",
                      "the render as a grid of tile files, a manifest\n"
                      "and a GDAL VRT; --plan: a command per tile for\n"
                      "GNU parallel or Slurm (docs/farm.md)"},
    [NG_CMD_STITCH] = {"stitch", "manifest", TAKES_STITCH, "stitch DIR/manifest.json -o FILE",
                       "the tiles back into one file"},
    [NG_CMD_NODES] = {"nodes", "type", 0, "nodes [TYPE]", "every node type, its options and docs"},
    [NG_CMD_INFO] = {"info", "script", TAKES_INSPECT, "info SCRIPT [--set k=v]...", "the graph a script builds, as text"},
    [NG_CMD_DOT] = {"dot", "script", TAKES_INSPECT, "dot SCRIPT [--set k=v]...", "the same as a Graphviz graph"},
    [NG_CMD_SERVE] = {"serve", "script", TAKES_SERVE, "serve SCRIPT [options]",
                      "a live preview page on http://127.0.0.1:PORT/,\n"
                      "re-rendered when the script changes"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const char *ng_cli_command_name(ng_cmd cmd) { return commands[cmd].name; }

int ng_cli_is_help(const char *word) { return !strcmp(word, "--help") || !strcmp(word, "-h"); }

/* The row of word (its name or alias). Of two rows of one word, the one
 * the command may read wins (tiles' --only I is its --index, render's
 * --only NAME an output); else any, to say it is not this command's. */
static const option *find_option(const char *word, ng_cmd cmd)
{
    const option *any = NULL;
    size_t i;
    for (i = 0; i < NOPTIONS; i++)
        if (!strcmp(word, options[i].name) || (options[i].alias && !strcmp(word, options[i].alias))) {
            if (options[i].takes & commands[cmd].takes) return &options[i];
            if (!any) any = &options[i];
        }
    return any;
}

/* The names of the rows read in every place of `all` and in none of
 * `none`, ", " between them, into buf; a name that is another row's alias
 * too ("--only") with its value, to tell the two apart. */
static const char *names_of(char *buf, size_t size, unsigned all, unsigned none)
{
    size_t i, k, used = 0;
    buf[0] = '\0';
    for (i = 0; i < NOPTIONS && used < size; i++) {
        const option *o = &options[i];
        int shared = 0;
        if ((o->takes & all) != all || (o->takes & none)) continue;
        for (k = 0; k < NOPTIONS; k++) shared |= options[k].alias && !strcmp(options[k].alias, o->name);
        used += (size_t)snprintf(buf + used, size - used, "%s%s%s%s", used ? ", " : "", o->name,
                                 shared ? " " : "", shared ? o->arg : "");
    }
    return buf;
}

/* ---- --help ---------------------------------------------------------------------- */

/* Where a row is read when that differs from the rest of its section
 * (render and both views for a render option, both views for a view
 * option); NULL when it does not. */
static const char *takes_tag(unsigned takes)
{
    switch (takes & (TAKES_PICTURES | TAKES_INSPECT)) { /* serve's, tiles' and stitch's lists are in their sections */
    case TAKES_RENDER: return "render only";
    case TAKES_RENDER | TAKES_VOLUME: return "not a terrain view";
    case TAKES_RENDER | TAKES_TERRAIN: return "not a volume view";
    case TAKES_VOLUME: return "volume view";
    case TAKES_TERRAIN: return "terrain view";
    case TAKES_PICTURES | TAKES_INSPECT: return "info and dot too";
    default: return NULL;
    }
}

/* One option's row; tagged with where it is read when tags. */
static void print_row(FILE *out, const option *o, int tags)
{
    const char *h = o->help, *tag = tags ? takes_tag(o->takes) : NULL, *arg = o->arg ? o->arg : "", *gap = o->arg ? " " : "";
    /* "-o, --output FILE"; a long alias after the name: "--index I, --only I" */
    int col = o->alias && o->alias[1] == '-'
                  ? fprintf(out, "  %s%s%s, %s%s%s", o->name, gap, arg, o->alias, gap, arg)
                  : fprintf(out, "  %s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name, gap, arg);
    /* the help column starts at 24; a longer name pushes it to the next line */
    while (*h) {
        const char *nl = strchr(h, '\n');
        const int len = nl ? (int)(nl - h) : (int)strlen(h);
        fprintf(out, "%*s%.*s", col < 23 ? 24 - col : 2, "", len, h);
        h += len + (nl != NULL);
        if (!*h && tag) fprintf(out, " [%s]", tag);
        fputc('\n', out);
        col = 0;
    }
}

/* text in lines of at most 92 columns (the sections' width), broken at spaces */
static void put_wrapped(FILE *out, const char *text)
{
    while (*text) {
        size_t cut = strlen(text);
        if (cut > 92) {
            for (cut = 92; cut > 0 && text[cut] != ' '; cut--) {
            }
            if (!cut) cut = strlen(text);
        }
        fprintf(out, "%.*s\n", (int)cut, text);
        for (text += cut; *text == ' '; text++) {
        }
    }
}

/* The rows read in some place of `in` and in none of `out_of`. */
static void print_rows(FILE *out, unsigned in, unsigned out_of, int tags)
{
    size_t i;
    for (i = 0; i < NOPTIONS; i++)
        if ((options[i].takes & in) && !(options[i].takes & out_of)) print_row(out, &options[i], tags);
}

/* "noisegraph SYNOPSIS   ABOUT": ABOUT's lines in a column at 52, below
 * the synopsis when it is too long to share the line. */
static void print_usage_of(FILE *out, const char *lead, ng_cmd cmd)
{
    const char *h = commands[cmd].about;
    int col = fprintf(out, "%snoisegraph %s", lead, commands[cmd].synopsis);
    if (col > 50) fputc('\n', out), col = 0;
    while (*h) {
        const char *nl = strchr(h, '\n');
        const int len = nl ? (int)(nl - h) : (int)strlen(h);
        fprintf(out, "%*s%.*s\n", 52 - col, "", len, h);
        h += len + (nl != NULL);
        col = 0;
    }
}

void ng_cli_usage(FILE *out)
{
    size_t c;
    for (c = 0; c < NCOMMANDS; c++) print_usage_of(out, c ? "       " : "usage: ", (ng_cmd)c);
    fputs("       noisegraph --help | --version\n"
          "       noisegraph COMMAND --help                    the usage and options of one command\n"
          "\n"
          "render options (a view takes them too unless marked):\n",
          out);
    print_rows(out, TAKES_RENDER, 0, 1);
    fputs("\n"
          "view options (preview, and render --view volume|terrain):\n",
          out);
    print_rows(out, TAKES_VIEWS, TAKES_RENDER, 1);
    fputs("\n"
          "serve options (serve also takes --size, --origin, --pixel-size, --z, --time, --threads,\n"
          "--tile, --render-time-limit, --quiet, the view options, and --set, --unsafe and the limits):\n",
          out);
    print_rows(out, TAKES_SERVE, TAKES_PICTURES, 0);
    {
        char heading[1024], image[256], encoding[256];
        snprintf(heading, sizeof heading,
                 "tiles and stitch options (tiles takes the render options too, except %s; stitch also takes %s):",
                 names_of(image, sizeof image, TAKES_RENDER, TAKES_TILES),
                 names_of(encoding, sizeof encoding, TAKES_STITCH | TAKES_RENDER, 0));
        fputc('\n', out);
        put_wrapped(out, heading);
    }
    print_rows(out, TAKES_TILES | TAKES_STITCH, TAKES_PICTURES | TAKES_SERVE, 0);
    fputs("\n"
          "environment: NG_SIMD=avx512|avx2|sse2|scalar forces a SIMD path (all give the same bits)\n",
          out);
}

void ng_cli_help(ng_cmd cmd, FILE *out)
{
    print_usage_of(out, "usage: ", cmd);
    if (!commands[cmd].takes) return;
    if (cmd == NG_CMD_RENDER) { /* its own rows, then the views' (render --view) */
        fputs("\noptions (render --view takes them too unless marked):\n", out);
        print_rows(out, TAKES_RENDER, 0, 1);
        fputs("\nview options (render --view volume|terrain):\n", out);
        print_rows(out, TAKES_VIEWS, TAKES_RENDER, 1);
        return;
    }
    fputs("\noptions:\n", out);
    print_rows(out, commands[cmd].takes, 0, cmd == NG_CMD_PREVIEW);
}

/* ---- parsing -------------------------------------------------------------------- */

/* Where the options of this command line are read: render's, unless
 * --view made it draw a view; every other command's are its own. */
static unsigned context(ng_cmd cmd, const ng_cli *c)
{
    if (cmd != NG_CMD_RENDER && cmd != NG_CMD_PREVIEW) return commands[cmd].takes;
    if (!c->view) return TAKES_RENDER;
    return c->v.kind == NG_VIEW_TERRAIN ? TAKES_TERRAIN : TAKES_VOLUME;
}

/* Where an option is read, as a message says it. */
static const char *takes_text(unsigned takes)
{
    if (!(takes & TAKES_PICTURES)) {
        if (takes & TAKES_SERVE) return "serve";
        if ((takes & TAKES_TILES) && (takes & TAKES_STITCH)) return "tiles and stitch";
        return takes & TAKES_TILES ? "tiles" : "stitch";
    }
    switch (takes & TAKES_PICTURES) {
    case TAKES_RENDER: return "render";
    case TAKES_VIEWS: return "preview (and render --view)";
    case TAKES_VOLUME: return "preview (and render --view volume)";
    case TAKES_TERRAIN: return "preview --view terrain (and render --view terrain)";
    default: return "render and preview";
    }
}

static const char *view_word(unsigned where) { return where == TAKES_VOLUME ? "volume" : "terrain"; }

/* An option given to a command that does not read it. */
static int not_taken(const option *o, ng_cmd cmd, unsigned where)
{
    if (where == TAKES_INSPECT || where == TAKES_STITCH) { /* say what it does take */
        char list[256];
        names_of(list, sizeof list, where, 0);
        if (where == TAKES_STITCH)
            return ng_cli_fail(2, "%s: is for %s; stitch reads tiles and takes %s", o->name, takes_text(o->takes), list);
        return ng_cli_fail(2, "%s: is for %s; %s reads the script alone (%s)", o->name, takes_text(o->takes),
                           commands[cmd].name, list);
    }
    if (where == TAKES_TILES)
        return ng_cli_fail(2, "%s: is for %s, not tiles (it renders one image, each tile a region of it)", o->name,
                           takes_text(o->takes));
    if (where == TAKES_RENDER || where == TAKES_SERVE || !(o->takes & TAKES_PICTURES))
        return ng_cli_fail(2, "%s: is for %s", o->name, takes_text(o->takes));
    if (o->takes & TAKES_VIEWS) /* the other view's */
        return ng_cli_fail(2, "%s: only a %s view takes it (this is a %s view)", o->name,
                           view_word(o->takes & TAKES_VIEWS), view_word(where));
    return ng_cli_fail(2, "%s: is for render, not a view (preview, render --view)", o->name);
}

/* The region fits in the image (or picture). */
static int check_region_fits(const ng_cli *c)
{
    if (c->r.region[2] && ((long)c->r.region[0] + c->r.region[2] > c->r.width ||
                           (long)c->r.region[1] + c->r.region[3] > c->r.height))
        return ng_cli_fail(2, "--region: %d,%d,%d,%d does not fit in the %dx%d image", c->r.region[0],
                           c->r.region[1], c->r.region[2], c->r.region[3], c->r.width, c->r.height);
    return 0;
}

/* The options that belong to volumes, given for an image. */
static int check_image(const ng_cli *c)
{
    if (c->region_fields == 6)
        return ng_cli_fail(2, "--region: X,Y,Z,W,H,D is for volumes (--size WxHxD); an image takes X,Y,W,H");
    if (c->origin_fields == 3)
        return ng_cli_fail(2, "--origin: X,Y,Z is for volumes (--size WxHxD); an image samples the plane --z Z");
    if (c->voxel_set) return ng_cli_fail(2, "--voxel-size: is for volumes (--size WxHxD); an image takes --pixel-size");
    if (c->brick_set) return ng_cli_fail(2, "--brick: is for volumes (--size WxHxD); an image takes --tile");
    return check_region_fits(c);
}

/* A volume's options agree: its z and its voxel size are said one way. */
static int check_volume(const ng_cli *c)
{
    const int *rg = c->r.region, *zr = c->r.zregion;
    if (c->z_set) return ng_cli_fail(2, "--z: a volume's lowest z is the third value of --origin X,Y,Z");
    if (c->pixel_set && c->voxel_set) return ng_cli_fail(2, "--pixel-size and --voxel-size: give one (a volume: --voxel-size)");
    if (c->tile_set) return ng_cli_fail(2, "--tile: a volume is cut into bricks: --brick N");
    if (c->region_fields == 4)
        return ng_cli_fail(2, "--region: a volume takes X,Y,Z,W,H,D, not X,Y,W,H");
    if (c->region_fields == 6 && ((long)rg[0] + rg[2] > c->r.width || (long)rg[1] + rg[3] > c->r.height ||
                                  (long)zr[0] + zr[1] > c->r.depth))
        return ng_cli_fail(2, "--region: %d,%d,%d,%d,%d,%d does not fit in the %dx%dx%d volume", rg[0], rg[1], zr[0],
                           rg[2], rg[3], zr[1], c->r.width, c->r.height, c->r.depth);
    return 0;
}

/* A render option a view reads another way: said before the rule of
 * where options are read, as it names what to give instead. */
static int check_view_words(const ng_cli *c)
{
    const int volume = c->v.kind == NG_VIEW_VOLUME;
    if (volume && c->z_set) return ng_cli_fail(2, "--z: a volume view samples its box (--volume, --origin)");
    if (volume && c->pixel_set) return ng_cli_fail(2, "--pixel-size: a volume's is --voxel-size");
    if (c->r.tileable) return ng_cli_fail(2, "--tileable: a view is a picture; it does not tile");
    return 0;
}

/* --frames, --time and --loop-frames: one way to say the time sampled;
 * and a sequence of frames needs a file name per frame. */
static int check_time(ng_cli *c)
{
    if (c->frames_set && c->time_set)
        return ng_cli_fail(2, "--time: --frames sets the time of each frame (frame / fps); give one of them");
    if (c->loop_frames && !c->frames_set && !c->time_set)
        return ng_cli_fail(2, "--loop-frames: loops time; it needs --frames or --time");
    if (c->loop_frames) c->r.time_period = (double)c->loop_frames / c->h.fps;
    if (!c->output) return 0;
    if (c->frames_set && c->frame_first != c->frame_last && !strstr(c->output, "{frame}"))
        return ng_cli_fail(2, "-o: %s: frames %ld-%ld need {frame} in the file name (like cloud_{frame}.png)",
                           c->output, c->frame_first, c->frame_last);
    if (!c->frames_set && strstr(c->output, "{frame}"))
        return ng_cli_fail(2, "-o: %s: {frame} names the frames of --frames A-B, which was not given", c->output);
    return 0;
}

/* The picture formats of a view, those --output's help names for it (a
 * view's RGB picture in any other format was written without a word). */
static const char *const view_formats[] = {".png", ".pfm"};
#define NVIEW_FORMATS (sizeof view_formats / sizeof view_formats[0])

static int is_view_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    size_t k;
    for (k = 0; dot && !strchr(dot, '/') && k < NVIEW_FORMATS; k++)
        if (!strcasecmp(dot, view_formats[k])) return 1;
    return 0;
}

/* A view draws one picture (WxH) into a picture format; its box is a
 * volume view's own. */
static int check_view(const ng_cli *c)
{
    const int volume = c->v.kind == NG_VIEW_VOLUME;
    if (c->output && !is_view_format(c->output)) {
        char list[64] = "";
        size_t k;
        for (k = 0; k < NVIEW_FORMATS; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? " or " : "", view_formats[k]);
        return ng_cli_fail(2, "-o: %s: a view draws one picture, into %s", c->output, list);
    }
    if (c->r.depth) return ng_cli_fail(2, "--size: a view draws one picture, WxH (a density's box is --volume WxHxD)");
    if (c->voxel_fields == 3) return ng_cli_fail(2, "--voxel-size: a volume view's voxels are cubes: S, not X,Y,Z");
    if (c->region_fields == 6) return ng_cli_fail(2, "--region: a view draws one picture: X,Y,W,H");
    if (c->origin_fields && c->origin_fields != (volume ? 3 : 2))
        return ng_cli_fail(2, "--origin: a %s view takes %s", volume ? "volume" : "terrain",
                           volume ? "X,Y,Z (the box's lowest corner)" : "X,Y (the picture's top-left corner)");
    return check_region_fits(c);
}

/* --compression, the EXR options and --vdb-background suit the output's
 * format (the format's row in io says which it takes). */
static int check_file_options(const ng_cli *c)
{
    ng_error err;
    if (!c->file_set || !c->output || !ng_file_check_options(c->output, &c->file, &err)) return 0;
    return ng_cli_fail(2, "%s", err.msg);
}

/* --origin and --voxel-size go where the command reads them: a volume
 * view's box, or the render's world. */
static void place(ng_cli *c)
{
    if (c->view && c->v.kind == NG_VIEW_VOLUME) {
        if (c->origin_fields) memcpy(c->v.box_origin, c->origin, sizeof c->v.box_origin);
        if (c->voxel_set) c->v.voxel_size = c->voxel_size[0];
        return;
    }
    if (c->origin_fields) c->r.origin[0] = c->origin[0], c->r.origin[1] = c->origin[1];
    if (c->origin_fields == 3) c->r.z = c->origin[2];
    if (c->voxel_set) c->r.pixel_size = c->voxel_size[0];
    if (c->voxel_fields == 3) { /* boxes: the footprint is their finest size */
        int a;
        memcpy(c->r.voxel_size, c->voxel_size, sizeof c->r.voxel_size);
        for (a = 1; a < 3; a++)
            if (c->voxel_size[a] < c->r.pixel_size) c->r.pixel_size = c->voxel_size[a];
    }
}

/* tiles cuts one image; --plan prints the tiles' commands, --index
 * renders one of them. */
static int check_tiles(const ng_cli *c)
{
    if (c->r.depth) return ng_cli_fail(2, "--size: tiles cuts an image (WxH); a volume is not tiled");
    if (c->plan && c->index >= 0) return ng_cli_fail(2, "--plan: prints every tile's command; --index renders one");
    return 0;
}

/* The rules between options, once the whole line is read. seen: the
 * options given, by table index. */
static int check(ng_cmd cmd, ng_cli *c, unsigned long long seen)
{
    const unsigned where = context(cmd, c);
    ng_error err;
    size_t i;
    int rc;
    /* tiles and stitch draw no view: --view is simply not theirs */
    if (c->view && cmd != NG_CMD_TILES && cmd != NG_CMD_STITCH && (rc = check_view_words(c))) return rc;
    for (i = 0; i < NOPTIONS; i++)
        if ((seen >> i & 1) && !(options[i].takes & where)) return not_taken(&options[i], cmd, where);
    if (cmd == NG_CMD_STITCH) return check_file_options(c); /* it renders nothing: its file's encoding alone */
    if (cmd == NG_CMD_TILES && (rc = check_tiles(c))) return rc;
    if (cmd == NG_CMD_SERVE && c->r.depth) return ng_cli_fail(2, "--size: serve shows images, WxH (a density's box is --volume WxHxD)");
    if (cmd == NG_CMD_SERVE && c->origin_fields == 3) return ng_cli_fail(2, "--origin: serve takes X,Y (the window's top-left corner)");
    rc = c->view ? check_view(c) : c->r.depth ? check_volume(c) : check_image(c);
    if (rc || (rc = check_time(c)) || (rc = check_file_options(c))) return rc;
    place(c);
    ng_file_options_place(&c->file, &c->r);
    c->r.dims = c->time_set || c->frames_set ? 4 : c->z_set || c->r.depth ? 3 : 2;
    /* what the view would refuse when it draws (a camera on its target,
     * a zero sun) is the command line's mistake: said now, as usage */
    if (c->view && ng_view_check(&c->v, &c->r, &err)) return ng_cli_fail(2, "%s", err.msg);
    return 0;
}

int ng_cli_parse(ng_cmd cmd, int argc, char **argv, ng_cli *c)
{
    unsigned long long given = 0, seen = 0; /* options with a value given; all given; by table index */
    const char **positional = cmd == NG_CMD_STITCH ? &c->manifest : &c->script;
    int i, rc;
    memset(c, 0, sizeof *c);
    ng_render_defaults(&c->r, 512, 512);
    ng_host_defaults(&c->h);
    ng_view_defaults(&c->v, NG_VIEW_VOLUME);
    ng_file_options_default(&c->file);
    c->view = cmd == NG_CMD_PREVIEW; /* preview is render --view volume */
    c->tile_size = 1024;
    c->index = -1;
    c->argc = argc;
    c->argv = argv;
    if (argc > 0 && !(c->option_of = calloc((size_t)argc, sizeof *c->option_of)))
        return ng_cli_fail(1, "%s: out of memory", commands[cmd].name);
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        const option *o;
        unsigned long long bit;
        value v;
        if (a[0] != '-' || !a[1]) {
            if (*positional)
                return ng_cli_fail(2, "%s: unexpected argument (the %s is %s)", a, commands[cmd].positional, *positional);
            *positional = a;
            continue;
        }
        if (ng_cli_is_help(a)) return NG_CLI_HELP; /* nothing else is read */
        if (!(o = find_option(a, cmd)))
            return ng_cli_fail(2, "%s: unknown option (see noisegraph %s --help)", a, commands[cmd].name);
        c->option_of[i] = o->name;
        bit = 1ull << (o - options);
        seen |= bit;
        if (o->kind != FLAG && o->store != set_param) { /* one value each: a second is a mistake, not an override */
            if (given & bit) return ng_cli_fail(2, "%s: given twice", o->name);
            given |= bit;
        }
        if (o->kind != FLAG) {
            if (i + 1 >= argc)
                return ng_cli_fail(2, "%s: needs a value (see noisegraph %s --help)", a, commands[cmd].name);
            a = argv[++i];
            c->option_of[i] = o->name;
            if (strnlen(a, NG_CLI_MAX_VALUE + 1) > NG_CLI_MAX_VALUE)
                return ng_cli_fail(2, "%s: the value is longer than %d bytes", o->name, NG_CLI_MAX_VALUE);
        }
        if ((rc = read_value(o, a, &v)) || (rc = o->store(c, o, &v))) return rc;
    }
    if (c->h.classic && !c->ramp_set) c->v.ramp = NG_RAMP_HEIGHT; /* the terrain view before 0.2.0 */
    return check(cmd, c, seen);
}

int ng_cli_recorded(const char *name)
{
    size_t i;
    for (i = 0; i < NOPTIONS; i++)
        if (!strcmp(options[i].name, name)) return !(options[i].takes & SAME_BYTES);
    return 1;
}

void ng_cli_free(ng_cli *c)
{
    int i;
    for (i = 0; i < c->h.nsets; i++) free((char *)c->h.set_name[i]);
    c->h.nsets = 0;
    free(c->option_of);
    c->option_of = NULL;
}

/* --normalize: each 1-channel output replaced by ng.normalize of it
 * (vector outputs stay as they are). 0, or the exit code after the
 * one-line error. */
int ng_cli_normalize(const ng_cli *c, ng_script *s)
{
    const ng_node_type *t = ng_type_find("normalize");
    ng_error err;
    int i;
    if (!c->normalize) return 0;
    for (i = 0; i < s->noutputs; i++) {
        ng_node *n;
        int id;
        if (ng_node_channels(ng_graph_node(s->graph, s->output[i])) != 1) continue;
        if (!t) return ng_cli_fail(1, "--normalize: no normalize node type");
        if (!(n = ng_node_begin(s->graph, t, "--normalize", NULL, &err))) return ng_cli_fail(1, "--normalize: %s", err.msg);
        if (ng_set_input(s->graph, n, 0, s->output[i], &err)) {
            ng_node_discard(n);
            return ng_cli_fail(1, "--normalize: %s", err.msg);
        }
        if ((id = ng_node_finish(s->graph, n, &err)) < 0) return ng_cli_fail(1, "--normalize: %s", err.msg);
        s->output[i] = id;
    }
    return 0;
}
