/*
 * view_args.c — the view options of `noisegraph preview`, from one table
 * (name, value, accepted range, which view reads it, help) that drives the
 * parser and the help text. Values are read whole and strictly, like the
 * render's (args.c): decimal numbers only, every field present, each in
 * its range; a usage error is one line and exit 2.
 *
 * TO FOLD: these rows belong in args.c's table once it has a place for
 * view options; until then preview takes them out of argv before
 * ng_cli_parse reads the rest, which is why it must know the render's
 * options that take no value (RENDER_FLAGS below).
 */
#include "view_args.h"
#include "args.h"

#include <stdlib.h>
#include <string.h>

/* The render options (args.c) that are flags: the word after any other
 * option is its value and is passed along unread. */
static const char *const RENDER_FLAGS[] = {"--unsafe", "--tileable", "--quiet", NULL};

enum { BOTH, VOLUME, TERRAIN }; /* which view reads an option */

typedef struct vopt vopt;
struct vopt {
    const char *name, *arg;
    int fields_min, fields_max; /* numbers in the value (0: a word) */
    char sep;                   /* between them */
    double lo, hi;              /* each number's range */
    int view;
    void (*store)(ng_view_cli *vc, const double *x, int n, const char *text);
    const char *help;
};

static void set_volume(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)n, (void)t;
    vc->v.box[0] = (int)x[0], vc->v.box[1] = (int)x[1], vc->v.box[2] = (int)x[2];
}
static void set_voxel(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)n, (void)t, vc->v.voxel_size = x[0];
}
static void set_origin(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)t;
    memcpy(vc->origin, x, (size_t)n * sizeof *x);
    vc->norigin = n;
}
static void set_camera(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)n, (void)t;
    memcpy(vc->v.camera, x, sizeof vc->v.camera);
    vc->v.has_camera = 1;
}
static void set_look_at(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)n, (void)t;
    memcpy(vc->v.look_at, x, sizeof vc->v.look_at);
    vc->v.has_look_at = 1;
}
static void set_fov(ng_view_cli *vc, const double *x, int n, const char *t) { (void)n, (void)t, vc->v.fov = x[0]; }
static void set_sun(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)t;
    if (n == 2) ng_view_sun(&vc->v, x[0], x[1]);
    else memcpy(vc->v.sun, x, sizeof vc->v.sun);
}
static void set_density(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)n, (void)t, vc->v.density_scale = x[0];
}
static void set_step(ng_view_cli *vc, const double *x, int n, const char *t) { (void)n, (void)t, vc->v.step = x[0]; }
static void set_height(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)n, (void)t, vc->v.height_scale = x[0];
}

/* ORDER: each word's value, as the parser checks it (`words` below). */
static const char *const VIEWS[] = {"volume", "terrain", NULL};
static const char *const PRESETS[] = {"three-quarter", "side", "top", NULL};
static void set_view(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)x, (void)n;
    vc->v.kind = strcmp(t, "terrain") ? NG_VIEW_VOLUME : NG_VIEW_TERRAIN;
}
static void set_preset(ng_view_cli *vc, const double *x, int n, const char *t)
{
    (void)x, (void)n;
    vc->v.preset = !strcmp(t, "side") ? NG_VIEW_SIDE : !strcmp(t, "top") ? NG_VIEW_TOP : NG_VIEW_THREE_QUARTER;
}

static const vopt OPTIONS[] = {
    {"--view", "volume|terrain", 0, 0, 0, 0, 0, BOTH, set_view,
     "what the output is: a density (a cloud; default) or a height"},
    {"--volume", "WxHxD", 3, 3, 'x', 1, NG_MAX_EXTENT, VOLUME, set_volume,
     "the density's box in voxels (default 128x128x128)"},
    {"--voxel-size", "S", 1, 1, 0, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE, VOLUME, set_voxel,
     "world units per voxel (default 1)"},
    {"--origin", "X,Y,Z | X,Y", 2, 3, ',', -NG_MAX_COORD, NG_MAX_COORD, BOTH, set_origin,
     "volume: the box's lowest corner (default 0,0,0);\n"
     "terrain: the picture's top-left corner, as for render"},
    {"--camera", "X,Y,Z", 3, 3, ',', -NG_MAX_COORD, NG_MAX_COORD, VOLUME, set_camera,
     "where the camera stands (default: the preset's place)"},
    {"--look-at", "X,Y,Z", 3, 3, ',', -NG_MAX_COORD, NG_MAX_COORD, VOLUME, set_look_at,
     "what it looks at (default: the box's centre)"},
    {"--fov", "DEG", 1, 1, 0, 1, 170, VOLUME, set_fov, "vertical field of view, degrees (default 40)"},
    {"--view-preset", "three-quarter|side|top", 0, 0, 0, 0, 0, VOLUME, set_preset,
     "the camera around the box when --camera is not given\n"
     "(default three-quarter: from above and aside; z is up)"},
    {"--sun", "AZ,EL | X,Y,Z", 2, 3, ',', -1e6, 1e6, BOTH, set_sun,
     "the sun: azimuth (degrees from -y toward +x: on a heightmap,\n"
     "from the top, clockwise) and elevation, or a direction toward it\n"
     "(default 315,40: high in the top left)"},
    {"--density-scale", "K", 1, 1, 0, 0, 1e6, VOLUME, set_density,
     "extinction per voxel length per unit of density (default 0.5)"},
    {"--step", "S", 1, 1, 0, 0.05, 64, VOLUME, set_step, "ray-march step in voxels (default 1)"},
    {"--height-scale", "H", 1, 1, 0, 0, 1e12, TERRAIN, set_height,
     "world units of height per unit of value (default: a fifth of\n"
     "the picture's width)"},
};
enum { NOPTIONS = sizeof OPTIONS / sizeof OPTIONS[0] };

static const char *const *words(const vopt *o)
{
    return o->store == set_view ? VIEWS : o->store == set_preset ? PRESETS : NULL;
}

static const vopt *find(const char *word)
{
    int i;
    for (i = 0; i < NOPTIONS; i++)
        if (!strcmp(word, OPTIONS[i].name)) return &OPTIONS[i];
    return NULL;
}

static int is_flag(const char *word)
{
    int i;
    for (i = 0; RENDER_FLAGS[i]; i++)
        if (!strcmp(word, RENDER_FLAGS[i])) return 1;
    return 0;
}

/* The value's numbers into x; how many, or -1 when it is not fields_min to
 * fields_max numbers split by sep, each in range. */
static int read_numbers(const vopt *o, const char *s, double *x)
{
    int n = 0;
    for (;;) {
        const char *end = o->sep ? strchr(s, o->sep) : NULL;
        char *stop;
        if (!end) end = s + strlen(s);
        if (n == o->fields_max || !ng_decimal_syntax(s, end)) return -1;
        x[n] = strtod(s, &stop);
        if (stop != end || !(x[n] >= o->lo && x[n] <= o->hi)) return -1;
        if (o->sep == 'x' && x[n] != (double)(long)x[n]) return -1; /* voxel counts are whole */
        n++;
        if (!*end) break;
        s = end + 1;
    }
    return n >= o->fields_min ? n : -1;
}

static int read_option(const vopt *o, const char *s, ng_view_cli *vc)
{
    double x[3];
    int n = 0, i;
    if (o->fields_max == 0) {
        const char *const *w = words(o);
        for (i = 0; w[i] && strcmp(w[i], s); i++) continue;
        if (!w[i]) return ng_cli_fail(2, "%s: '%.64s' is not %s", o->name, s, o->arg);
    } else if ((n = read_numbers(o, s, x)) < 0) {
        return ng_cli_fail(2, "%s: '%.64s' is not %s (each a number from %.10g to %.10g)", o->name, s, o->arg, o->lo,
                           o->hi);
    }
    o->store(vc, x, n, s);
    return 0;
}

/* Options one view reads, given to the other: a mistake worth a word. */
static int check_kind(const ng_view_cli *vc, const int *given)
{
    int i;
    const int kind = vc->v.kind == NG_VIEW_TERRAIN ? TERRAIN : VOLUME;
    for (i = 0; i < NOPTIONS; i++)
        if (given[i] && OPTIONS[i].view != BOTH && OPTIONS[i].view != kind)
            return ng_cli_fail(2, "%s: only a %s view takes it (this is a %s view)", OPTIONS[i].name,
                               OPTIONS[i].view == VOLUME ? "volume" : "terrain",
                               kind == VOLUME ? "volume" : "terrain");
    if (vc->norigin && vc->norigin != (kind == VOLUME ? 3 : 2))
        return ng_cli_fail(2, "--origin: a %s view takes %s", kind == VOLUME ? "volume" : "terrain",
                           kind == VOLUME ? "X,Y,Z (the box's lowest corner)" : "X,Y (the picture's top-left corner)");
    return 0;
}

int ng_view_cli_parse(int *argc, char **argv, ng_view_cli *vc)
{
    int given[NOPTIONS] = {0};
    int i, kept = 0, rc;
    memset(vc, 0, sizeof *vc);
    ng_view_defaults(&vc->v, NG_VIEW_VOLUME);
    for (i = 0; i < *argc; i++) {
        const vopt *o = find(argv[i]);
        if (!o) {
            /* another option's value goes along with it, unread */
            int value = argv[i][0] == '-' && argv[i][1] && !is_flag(argv[i]) && i + 1 < *argc;
            argv[kept++] = argv[i];
            if (value) argv[kept++] = argv[++i];
            continue;
        }
        if (given[o - OPTIONS]++) return ng_cli_fail(2, "%s: given twice", o->name);
        if (i + 1 >= *argc) return ng_cli_fail(2, "%s: needs a value (see preview --help)", o->name);
        if ((rc = read_option(o, argv[++i], vc))) return rc;
    }
    *argc = kept;
    return check_kind(vc, given);
}

void ng_view_cli_usage(FILE *out)
{
    int i;
    fputs("usage: noisegraph preview SCRIPT -o FILE [options]   a picture of the script's first 1-channel output:\n"
          "       a cloud ray-marched through its density, or a lit heightmap (--view terrain);\n"
          "       the render's options apply too (--size is the picture's, --threads, --set ...)\n"
          "\n"
          "view options:\n",
          out);
    for (i = 0; i < NOPTIONS; i++) {
        const vopt *o = &OPTIONS[i];
        const char *h = o->help;
        int col = fprintf(out, "  %s %s", o->name, o->arg);
        while (*h) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int)(nl - h) : (int)strlen(h);
            fprintf(out, "%*s%.*s\n", col < 31 ? 32 - col : 2, "", len, h);
            col = 0;
            h += len + (nl != NULL);
        }
    }
}
