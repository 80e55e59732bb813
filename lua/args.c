/*
 * args.c — the command line of render, info and dot. One table lists every
 * option once (names, value, accepted range, help, what it sets); the
 * parser, the "takes a value" rule and the --help text all come from it.
 *
 * Values are read whole and strictly: decimal numbers only (no leading
 * blanks, hex, inf or nan), every field of a list present, each value
 * within its range. Nothing is copied into a fixed buffer, so nothing is
 * ever cut short.
 */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int ng_cli_fail(int code, const char *fmt, ...)
{
    char msg[1024], *c;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (c = msg; *c; c++) /* one line, whatever the script's message held */
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
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
    const char *help;         /* lines after the first are indented under it */
};
#define FIELDS(n) (1u << (n))

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

/* WxH, WxHxD (a volume) or N: whole numbers split at each x, none copied
 * anywhere. */
static int set_size(ng_cli *c, const option *o, const value *v)
{
    const char *s = v->text, *end = s + strlen(s), *from = s;
    long n[3] = {0, 0, 0};
    int k = 0;
    for (;;) {
        const char *x = strchr(from, 'x');
        const char *stop = x ? x : end;
        if (k == 3 || read_int(from, stop, o->lo, o->hi, &n[k++])) {
            char q[SHOWN];
            return ng_cli_fail(2, "%s: %s is not WxH, WxHxD (a volume) or N, each 1 to %.0f", o->name, shown(s, q),
                               o->hi);
        }
        if (!x) break;
        from = x + 1;
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
    c->r.origin[0] = v->d[0];
    c->r.origin[1] = v->d[1];
    if (v->n == 3) c->r.z = v->d[2];
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

static int set_voxel_size(ng_cli *c, const option *o, const value *v)
{
    (void)o;
    c->r.pixel_size = v->d[0];
    c->voxel_set = 1;
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
    c->vdb_background_set = 1;
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

static int set_param(ng_cli *c, const option *o, const value *v)
{
    const char *eq = strchr(v->text, '=');
    char q[SHOWN];
    if (!eq || eq == v->text) return ng_cli_fail(2, "%s: %s is not NAME=VALUE", o->name, shown(v->text, q));
    if (c->h.nsets == NG_MAX_SETS) return ng_cli_fail(2, "%s: more than %d", o->name, NG_MAX_SETS);
    if (!(c->h.set_name[c->h.nsets] = strndup(v->text, (size_t)(eq - v->text))))
        return ng_cli_fail(2, "%s: out of memory", o->name);
    c->h.set_value[c->h.nsets++] = eq + 1;
    return 0;
}

static int set_unsafe(ng_cli *c, const option *o, const value *v)
{
    (void)o, (void)v;
    c->h.unsafe = 1;
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

/* ---- the table -------------------------------------------------------------------- */

static const option options[] = {
    {"--output", "-o", "FILE", TEXT, 0, 0, 0, set_output,
     "the image: .png, .pfm (float), .r16/.raw (16-bit heightmap);\n"
     "a volume: .vdb (OpenVDB), .nrrd, or slices 'dir/name_{z}.png';\n"
     "several outputs: FILE with {name}, or FILE-name.png"},
    {"--size", NULL, "WxH | WxHxD | N", TEXT, 0, 1, NG_MAX_EXTENT, set_size,
     "full image size in pixels (default 512x512); WxHxD: a volume\n"
     "of D slices, sampled in 3D"},
    {"--bits", NULL, "8|16|32", TEXT, 0, 8, 32, set_bits, "sample depth: PNG 8 (default) or 16, PFM 32, raw 16"},
    {"--region", NULL, "X,Y,W,H | X,Y,Z,W,H,D", INTS, FIELDS(4) | FIELDS(6), 0, NG_MAX_EXTENT, set_region,
     "render only this window of the full image or volume\n"
     "(stitches exactly)"},
    {"--threads", NULL, "N", INT, 0, 1, 256, set_threads, "worker threads (default: one per CPU)"},
    {"--tile", NULL, "N", INT, 0, 8, 1024, set_tile, "tile edge in pixels, 8 to 1024 (default 64)"},
    {"--origin", NULL, "X,Y | X,Y,Z", REALS, FIELDS(2) | FIELDS(3), -NG_MAX_COORD, NG_MAX_COORD, set_origin,
     "world position of the image's top-left corner (default 0,0);\n"
     "X,Y,Z: a volume's lowest corner"},
    {"--pixel-size", NULL, "S", REAL, 0, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE, set_pixel_size,
     "world units per pixel (default 1)"},
    {"--voxel-size", NULL, "S", REAL, 0, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE, set_voxel_size,
     "a volume's world units per voxel (default 1)"},
    {"--brick", NULL, "N", INT, 0, 8, 64, set_brick, "a volume's brick edge in voxels, 8 to 64 (default 16)"},
    {"--vdb-background", NULL, "B", REAL, 0, -1e30, 1e30, set_vdb_background,
     "voxels at or below B stay inactive in a .vdb (default 0)"},
    {"--z", NULL, "Z", REAL, 0, -NG_MAX_COORD, NG_MAX_COORD, set_z, "sample the 3D plane z = Z"},
    {"--time", NULL, "T", REAL, 0, -NG_MAX_COORD, NG_MAX_COORD, set_time,
     "sample 4D noise at time T (implies 3D z = 0 unless --z)"},
    {"--set", NULL, "NAME=VALUE", TEXT, 0, 0, 0, set_param, "set a parameter the script declares with ng.param"},
    {"--unsafe", NULL, NULL, FLAG, 0, 0, 0, set_unsafe, "give the script the full Lua standard library"},
    {"--time-limit", NULL, "S", REAL, 0, 0.001, 1e6, set_time_limit, "seconds the script may run (default 10)"},
    {"--memory-limit", NULL, "MIB", REAL, 0, 1, 1048576, set_memory_limit,
     "memory the script may use (default 512)"},
    {"--render-time-limit", NULL, "S", REAL, 0, 0.001, 1e6, set_render_time_limit,
     "seconds the render may take, then it stops and writes nothing\n"
     "(default: no limit)"},
    {"--tileable", NULL, NULL, FLAG, 0, 0, 0, set_tileable,
     "make the image wrap seamlessly in x and y (element sizes are\n"
     "adjusted to whole cells per image; a note says so)"},
    {"--quiet", NULL, NULL, FLAG, 0, 0, 0, set_quiet, "no progress or notes on stderr"},
};

#define NOPTIONS (sizeof options / sizeof options[0])

static const option *find_option(const char *word)
{
    size_t i;
    for (i = 0; i < NOPTIONS; i++)
        if (!strcmp(word, options[i].name) || (options[i].alias && !strcmp(word, options[i].alias)))
            return &options[i];
    return NULL;
}

void ng_cli_usage(FILE *out)
{
    size_t i;
    fputs("usage: noisegraph render SCRIPT -o FILE [options]   render a graph script to an image\n"
          "       noisegraph nodes [TYPE]                      every node type, its options and docs\n"
          "       noisegraph info SCRIPT [--set k=v]...        the graph a script builds, as text\n"
          "       noisegraph dot SCRIPT [--set k=v]...         the same as a Graphviz graph\n"
          "       noisegraph --help | --version\n"
          "\n"
          "render options:\n",
          out);
    for (i = 0; i < NOPTIONS; i++) {
        const option *o = &options[i];
        const char *h = o->help;
        int col = fprintf(out, "  %s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
                          o->arg ? " " : "", o->arg ? o->arg : "");
        /* the help column starts at 24; a longer name pushes it to the next line */
        while (*h) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int)(nl - h) : (int)strlen(h);
            fprintf(out, "%*s%.*s\n", col < 23 ? 24 - col : 2, "", len, h);
            col = 0;
            h += len + (nl != NULL);
        }
    }
    fputs("\n"
          "environment: NG_SIMD=avx512|avx2|sse2|scalar forces a SIMD path (all give the same bits)\n",
          out);
}

/* ---- parsing -------------------------------------------------------------------- */

/* The options that belong to volumes, given for an image. */
static int check_image(ng_cli *c)
{
    if (c->region_fields == 6)
        return ng_cli_fail(2, "--region: X,Y,Z,W,H,D is for volumes (--size WxHxD); an image takes X,Y,W,H");
    if (c->origin_fields == 3)
        return ng_cli_fail(2, "--origin: X,Y,Z is for volumes (--size WxHxD); an image samples the plane --z Z");
    if (c->voxel_set) return ng_cli_fail(2, "--voxel-size: is for volumes (--size WxHxD); an image takes --pixel-size");
    if (c->brick_set) return ng_cli_fail(2, "--brick: is for volumes (--size WxHxD); an image takes --tile");
    if (c->r.region[2] && ((long)c->r.region[0] + c->r.region[2] > c->r.width ||
                           (long)c->r.region[1] + c->r.region[3] > c->r.height))
        return ng_cli_fail(2, "--region: %d,%d,%d,%d does not fit in the %dx%d image", c->r.region[0],
                           c->r.region[1], c->r.region[2], c->r.region[3], c->r.width, c->r.height);
    return 0;
}

/* A volume's options agree: its z and its voxel size are said one way. */
static int check_volume(ng_cli *c)
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

int ng_cli_parse(int argc, char **argv, ng_cli *c)
{
    unsigned long long given = 0; /* value options seen, by table index */
    int i, rc;
    memset(c, 0, sizeof *c);
    ng_render_defaults(&c->r, 512, 512);
    ng_host_defaults(&c->h);
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        const option *o;
        value v;
        if (a[0] != '-' || !a[1]) {
            if (c->script) return ng_cli_fail(2, "%s: unexpected argument (the script is %s)", a, c->script);
            c->script = a;
            continue;
        }
        if (!(o = find_option(a))) return ng_cli_fail(2, "%s: unknown option (see --help)", a);
        if (o->kind != FLAG && o->store != set_param) { /* one value each: a second is a mistake, not an override */
            unsigned long long bit = 1ull << (o - options);
            if (given & bit) return ng_cli_fail(2, "%s: given twice", o->name);
            given |= bit;
        }
        if (o->kind != FLAG) {
            if (i + 1 >= argc) return ng_cli_fail(2, "%s: needs a value (see --help)", a);
            a = argv[++i];
            if (strnlen(a, NG_CLI_MAX_VALUE + 1) > NG_CLI_MAX_VALUE)
                return ng_cli_fail(2, "%s: the value is longer than %d bytes", o->name, NG_CLI_MAX_VALUE);
        }
        if ((rc = read_value(o, a, &v)) || (rc = o->store(c, o, &v))) return rc;
    }
    if (c->r.depth) {
        if ((rc = check_volume(c))) return rc;
    } else if ((rc = check_image(c))) {
        return rc;
    }
    c->r.dims = c->time_set ? 4 : c->z_set || c->r.depth ? 3 : 2;
    return 0;
}

void ng_cli_free(ng_cli *c)
{
    int i;
    for (i = 0; i < c->h.nsets; i++) free((char *)c->h.set_name[i]);
    c->h.nsets = 0;
}
