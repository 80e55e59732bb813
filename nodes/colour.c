/*
 * colour.c — colour from a value: a ramp of colour stops by position
 * (Houdini's colour ramp parameter), with named presets, and the parsing
 * of colours written as "#rrggbb" or names.
 */
#include "colour.h"
#include "ng_node.h"
#include "segment.h"
#include "types.h"

#include <stdio.h>
#include <string.h>

/* ---- colours as written --------------------------------------------------- */

/* ORDER: the names ng_colour_parse knows, with their sRGB hex (CSS's). */
#define NG_COLOUR_NAMES(X)  \
    X("black", "#000000")   \
    X("white", "#ffffff")   \
    X("grey", "#808080")    \
    X("gray", "#808080")    \
    X("red", "#ff0000")     \
    X("green", "#008000")   \
    X("blue", "#0000ff")    \
    X("yellow", "#ffff00")  \
    X("cyan", "#00ffff")    \
    X("magenta", "#ff00ff") \
    X("orange", "#ffa500")

static const struct named {
    const char *name, *hex;
} named_colours[] = {
#define NG_COLOUR_ROW(name, hex) {name, hex},
    NG_COLOUR_NAMES(NG_COLOUR_ROW)
#undef NG_COLOUR_ROW
};

const char *ng_colour_names(void)
{
#define NG_COLOUR_WORD(name, hex) ", " name
    static const char all[] = NG_COLOUR_NAMES(NG_COLOUR_WORD);
#undef NG_COLOUR_WORD
    return all + 2;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "#rrggbb" or "#rgb" (each digit doubled); 0 or -1. */
static int parse_hex(const char *s, double rgb[3])
{
    const size_t len = strlen(s);
    const int per = len == 7 ? 2 : len == 4 ? 1 : 0;
    int c;
    if (s[0] != '#' || !per) return -1;
    for (c = 0; c < 3; c++) {
        int hi = hex_digit(s[1 + c * per]), lo = hex_digit(s[1 + c * per + per - 1]);
        if (hi < 0 || lo < 0) return -1;
        rgb[c] = (hi * 16 + lo) / 255.0;
    }
    return 0;
}

int ng_colour_parse(const char *s, double rgb[3], ng_error *err)
{
    size_t k;
    if (parse_hex(s, rgb) == 0) return 0;
    for (k = 0; k < sizeof named_colours / sizeof named_colours[0]; k++)
        if (strcmp(s, named_colours[k].name) == 0) return parse_hex(named_colours[k].hex, rgb);
    return ng_errorf(err, "\"%s\" is not a colour: write \"#rrggbb\", \"#rgb\" or one of %s", s, ng_colour_names());
}

/* ---- presets ------------------------------------------------------------------ */

typedef struct preset_stop {
    double at;
    const char *colour;
} preset_stop;

/* Heights in [0, 1]: sea below 0.3 with a hard coast, beach, grass,
 * forest, rock, snow. */
static const preset_stop preset_terrain[] = {
    {0.00, "#0b2545"}, {0.28, "#2a6f97"}, {0.30, "#3d85a8"}, {0.30, "#d8c99b"}, {0.34, "#c2b280"},
    {0.40, "#5a8f3c"}, {0.55, "#2f5d2a"}, {0.70, "#7a6a58"}, {0.85, "#9c948a"}, {0.92, "#eef2f6"},
    {1.00, "#ffffff"},
};
/* Black body: black, red, orange, yellow, white. */
static const preset_stop preset_heat[] = {
    {0.0, "#000000"}, {0.3, "#8b0000"}, {0.55, "#e8400c"}, {0.8, "#ffc21a"}, {1.0, "#ffffff"},
};
static const preset_stop preset_greyscale[] = {{0, "#000000"}, {1, "#ffffff"}};
/* Perceptually even, readable in grey and by the colour-blind: nine
 * samples of matplotlib's viridis. */
static const preset_stop preset_viridis[] = {
    {0.000, "#440154"}, {0.125, "#472c7a"}, {0.250, "#3b518b"}, {0.375, "#2c718e"}, {0.500, "#21908d"},
    {0.625, "#27ad81"}, {0.750, "#5cc863"}, {0.875, "#aadc32"}, {1.000, "#fde725"},
};

/* ORDER: the preset option's choices; the first is the default. */
#define RAMP_PRESETS(X) X(greyscale) X(terrain) X(heat) X(viridis)

static const struct preset {
    const preset_stop *stops;
    int count;
} presets[] = {
#define RAMP_PRESET_ROW(name) {preset_##name, (int)(sizeof preset_##name / sizeof preset_##name[0])},
    RAMP_PRESETS(RAMP_PRESET_ROW)
#undef RAMP_PRESET_ROW
};

static const char *const preset_choices[] = {
#define RAMP_PRESET_NAME(name) #name,
    RAMP_PRESETS(RAMP_PRESET_NAME)
#undef RAMP_PRESET_NAME
    NULL};

/* ---- ramp -------------------------------------------------------------------------- */

enum { I_SOURCE, NINPUTS };

static const ng_input_desc ramp_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", 0, 1, 1, 0, "the value looked up (a height, a mask)"},
};

static const char *const interpolation_choices[] = {"linear", "smooth", "constant", NULL};
enum { LINEAR, SMOOTH, CONSTANT };

enum { P_STOPS, P_PRESET, P_INTERPOLATION, NPARAMS };

#define MAX_STOPS 256

static const ng_param_desc ramp_params[NPARAMS] = {
    [P_STOPS] = {"stops", NG_PARAM_LIST, {1, 4, 4 * MAX_STOPS}, -1e30, 1e30, NULL,
                 "colour stops {{position, r, g, b}, ...}, r, g, b in [0, 1], in any order (sorted by position; "
                 "two at one position make a hard edge); instead of preset"},
    [P_PRESET] = {"preset", NG_PARAM_ENUM, {0}, 0, 0, preset_choices,
                  "named stops over [0, 1]: greyscale, terrain (sea below 0.3, beach, grass, forest, rock, "
                  "snow), heat (black body), viridis"},
    [P_INTERPOLATION] = {"interpolation", NG_PARAM_ENUM, {0}, 0, 0, interpolation_choices,
                         "between stops: linear; smooth (an ease, flat at every stop); constant (each stop's "
                         "colour up to the next)"},
};

typedef struct ramp_state {
    int count;    /* stops, at least 1 */
    float data[]; /* at[count] (sorted), then r, g and b [count] each */
} ramp_state;

static const char *const channel_names[3] = {"red", "green", "blue"};

/* The stops from the option, flat {at, r, g, b} quadruples, checked. */
static int stops_from_list(const ng_node *n, const ng_value *v, float *at, float *rgb[3], ng_error *err)
{
    const int count = v->count / 4;
    int i, c;
    if (v->count % 4)
        return ng_errorf(err, "%s: stops hold %d numbers; each stop is 4, {position, r, g, b}", n->label, v->count);
    for (i = 0; i < count; i++) {
        const double *q = v->list + 4 * i;
        at[i] = (float)q[0];
        for (c = 0; c < 3; c++) {
            if (!(q[1 + c] >= 0 && q[1 + c] <= 1))
                return ng_errorf(err, "%s: stop %d (at %g): %s = %g is outside 0 to 1", n->label, i + 1, q[0],
                                 channel_names[c], q[1 + c]);
            rgb[c][i] = (float)q[1 + c];
        }
    }
    return 0;
}

static int stops_from_preset(const ng_node *n, const struct preset *p, float *at, float *rgb[3], ng_error *err)
{
    int i, c;
    for (i = 0; i < p->count; i++) {
        double v[3];
        ng_error why;
        if (ng_colour_parse(p->stops[i].colour, v, &why)) return ng_errorf(err, "%s: preset: %s", n->label, why.msg);
        at[i] = (float)p->stops[i].at;
        for (c = 0; c < 3; c++) rgb[c][i] = (float)v[c];
    }
    return 0;
}

/* Stable insertion sort by position: stops at one position keep the order
 * given, so the later one is the colour from there on (a hard edge). */
static void sort_stops(int count, float *at, float *rgb[3])
{
    int i, j, c;
    for (i = 1; i < count; i++) {
        float key = at[i], col[3];
        for (c = 0; c < 3; c++) col[c] = rgb[c][i];
        for (j = i; j > 0 && at[j - 1] > key; j--) {
            at[j] = at[j - 1];
            for (c = 0; c < 3; c++) rgb[c][j] = rgb[c][j - 1];
        }
        at[j] = key;
        for (c = 0; c < 3; c++) rgb[c][j] = col[c];
    }
}

static int ramp_setup(ng_node *n, const int *ch, ng_error *err)
{
    const ng_value *list = &n->param[P_STOPS];
    const struct preset *p = &presets[ng_int(n, P_PRESET)];
    const int count = list->count ? list->count / 4 : p->count;
    ramp_state *s;
    float *rgb[3];
    (void)ch;
    if (list->count && ng_node_param_set(n, P_PRESET))
        return ng_errorf(err, "%s: give stops or preset, not both", n->label);
    if (!(s = ng_node_state_alloc(n, sizeof *s + (size_t)(count ? count : 1) * 4 * sizeof s->data[0], err)))
        return -1;
    s->count = count;
    rgb[0] = s->data + count, rgb[1] = rgb[0] + count, rgb[2] = rgb[1] + count;
    if (list->count ? stops_from_list(n, list, s->data, rgb, err) : stops_from_preset(n, p, s->data, rgb, err))
        return -1;
    sort_stops(count, s->data, rgb);
    n->channels = 3;
    return 0;
}

static int ramp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const ramp_state *s = n->state;
    const int count = s->count, mode = ng_int(n, P_INTERPOLATION), len = b->n;
    const float *at = s->data, *rgb = s->data + count;
    int i, c;
    (void)ctx;
    for (i = 0; i < len; i++) {
        const float v = in[I_SOURCE][i];
        int k;
        float t;
        if (!(v > at[0]) || v >= at[count - 1]) { /* the end colours beyond the stops; NaN: the first */
            k = v >= at[count - 1] ? count - 1 : 0;
            for (c = 0; c < 3; c++) out[(size_t)c * (size_t)len + (size_t)i] = rgb[c * count + k];
            continue;
        }
        k = ng__segment(at, count, v);
        t = mode == CONSTANT ? 0.0f : (v - at[k]) / (at[k + 1] - at[k]);
        if (mode == SMOOTH) t = t * t * (3.0f - 2.0f * t);
        for (c = 0; c < 3; c++) {
            const float a = rgb[c * count + k], z = rgb[c * count + k + 1];
            out[(size_t)c * (size_t)len + (size_t)i] = a + (z - a) * t;
        }
    }
    return 0;
}

const ng_node_type ng_type_ramp = {
    .name = "ramp", .family = "colour",
    .doc = "colour (3 channels, RGB in [0, 1]) from a value through colour stops or a preset; a value beyond "
           "the first or last stop takes its colour",
    .params = ramp_params, .nparams = NPARAMS, .inputs = ramp_inputs, .ninputs = NINPUTS, .dims = NG_DIMS_ALL,
    .method = "ramp", .positional = "source,preset", .setup = ramp_setup, .eval = ramp_eval,
};
