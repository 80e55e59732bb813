/*
 * neighbourhood.c — nodes that read their source around each point, on
 * the world-aligned lattice the engine keeps for them (core/hood.c): the
 * result at a world point is the same in every region, tile and thread
 * count of a render.
 *
 * cavity (below): a height field less its blur, the occlusion mask.
 *
 * blur: a gaussian of the source. The kernel reaches `radius` world units
 * (sigma = radius / 3, weights past 3 sigma dropped), on a lattice of
 * `spacing` world units, by default radius / 4: 4 cells of halo, so the
 * kernel spans 9 taps per axis, applied as two separable passes. The
 * lattice is read through a cubic B-spline, smooth enough to shade; its
 * own spread (a variance of 1/3 cell^2) is taken off the gaussian's, so
 * the two together spread as sigma says. The
 * lattice spacing never comes from the render's pixel size, or a blur
 * would change with --size; sources below the lattice's detail are cut
 * off as fractals cut octaves below a pixel (the lattice's footprint is
 * its spacing), which keeps them from aliasing into the blur.
 */
#include "ng_node.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <stddef.h>

enum { I_SOURCE, NINPUTS };

static const ng_input_desc blur_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, NG_MAX_CHANNELS, 0, "the field blurred (each channel alike)"},
};

enum { P_RADIUS, P_SPACING, NPARAMS };

static const ng_param_desc blur_params[NPARAMS] = {
    [P_RADIUS] = {"radius", NG_PARAM_NUMBER, {8}, 1e-9, 1e12, NULL,
                  "world units the gaussian reaches (sigma = radius / 3); the same in every render, not pixels"},
    [P_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                   "lattice spacing in world units the blur is computed on, then sampled by a smooth cubic; 0: "
                   "radius / 4. Smaller keeps finer detail of the source and is slower; at most 1024 cells per radius"},
};

typedef struct blur_state {
    int radius;  /* cells */
    float w[];   /* 2 radius + 1 weights summing to 1, w[radius] the centre */
} blur_state;

/* The gaussian of `radius` world units on a lattice of `spacing` (0:
 * radius / 4), declared and its weights in the node's state. */
static int gaussian_setup(ng_node *n, double radius, double spacing, ng_error *err)
{
    const double cells = ceil(radius / (spacing = spacing > 0 ? spacing : radius / 4));
    const int r = cells > NG_HOOD_MAX_RADIUS ? NG_HOOD_MAX_RADIUS + 1 : (int)cells;
    double sigma, var, sum = 0, wk[2 * NG_HOOD_MAX_RADIUS + 1];
    blur_state *st;
    int k;
    if (ng_hood_declare(n, spacing, radius, r, err)) return -1;
    if (!(st = ng_node_state_alloc(n, sizeof *st + (size_t)(2 * r + 1) * sizeof(float), err))) return -1;
    st->radius = r;
    sigma = radius / (3 * spacing);
    var = sigma * sigma - 1.0 / 3; /* the B-spline sampling adds 1/3 */
    if (var < 1e-4) var = 1e-4;    /* a radius within a cell or two: the lattice's own samples */
    for (k = -r; k <= r; k++) sum += wk[k + r] = ng_exp(-0.5 * k * k / var);
    for (k = 0; k <= 2 * r; k++) st->w[k] = (float)(wk[k] / sum);
    return 0;
}

static int blur_setup(ng_node *n, const int *ch, ng_error *err)
{
    n->channels = ch[I_SOURCE];
    return gaussian_setup(n, ng_num(n, P_RADIUS), ng_num(n, P_SPACING), err);
}

/* One pass: rows x cols outputs, out[j][i] = c + sum over k != 0 (in
 * ascending k) of w_k (in at offset k d - c), c the centre sample at
 * in + j * row_stride + centre + i and d the step between taps (1 along a
 * row, the row stride down a column): the gaussian-weighted mean (the
 * weights sum to 1), a constant coming out exactly itself. The loop over i
 * runs innermost so it vectorises; each output's sum is in the same order
 * either way. */
static void pass(const blur_state *st, const float *in, size_t row_stride, size_t centre, ptrdiff_t d, float *out,
                 int rows, int cols)
{
    const int r = st->radius;
    int i, j, k;
    for (j = 0; j < rows; j++) {
        const float *restrict c = in + (size_t)j * row_stride + centre;
        float *restrict o = out + (size_t)j * (size_t)cols;
        for (i = 0; i < cols; i++) o[i] = 0.0f;
        for (k = -r; k <= r; k++) {
            const float wk = st->w[k + r];
            const float *restrict t = c + k * d;
            if (!k) continue;
            for (i = 0; i < cols; i++) o[i] += wk * (t[i] - c[i]);
        }
        for (i = 0; i < cols; i++) o[i] = c[i] + o[i];
    }
}

/* Rows first (w rows of side outputs into tmp), then columns of tmp. */
static void blur_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius, int channels)
{
    const blur_state *st = n->state;
    const int w = side + 2 * radius;
    int c;
    for (c = 0; c < channels; c++) {
        const float *src = in + (size_t)c * (size_t)w * (size_t)w;
        pass(st, src, (size_t)w, (size_t)radius, 1, tmp, w, side);
        pass(st, tmp, (size_t)side, (size_t)radius * (size_t)side, side, out + (size_t)c * (size_t)side * (size_t)side,
             side, side);
    }
}


static const ng_hood_type blur_hood = {.input = I_SOURCE, .smooth = 1, .filter = blur_filter};

const ng_node_type ng_type_blur = {
    .name = "blur", .family = "neighbourhood",
    .doc = "gaussian blur of the source over `radius` world units, computed on a world-aligned lattice of "
           "`spacing` in fixed patches (the engine's neighbourhood lattice), so every region, tile and thread "
           "count gives the same bits; sampled by a smooth cubic, under warps and fractals too. 2D renders only",
    .params = blur_params, .nparams = NPARAMS, .inputs = blur_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .method = "blur", .positional = "source", .setup = blur_setup,
    .tile_check = ng_hood_tile_check, .eval = ng_hood_eval,
    .hood = &blur_hood,
};

/* ---- cavity ------------------------------------------------------------------------------ */

static const char *const cavity_choices[] = {"cavity", "exposure", "signed", NULL};
enum { CV_CAVITY, CV_EXPOSURE, CV_SIGNED };
enum { CP_RADIUS, CP_SPACING, CP_HEIGHT, CP_DEPTH, CP_OUTPUT, CP_NPARAMS };

static const ng_param_desc cavity_params[CP_NPARAMS] = {
    [CP_RADIUS] = {"radius", NG_PARAM_NUMBER, {16}, 1e-9, 1e12, NULL,
                   "world units around a point it is compared with (a gaussian, sigma = radius / 3)"},
    [CP_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                    "lattice spacing in world units; 0: radius / 4. At most 1024 cells per radius"},
    [CP_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, -1e12, 1e12, NULL,
                   "world units of height per unit of the source's value"},
    [CP_DEPTH] = {"depth", NG_PARAM_NUMBER, {4}, 1e-9, 1e12, NULL,
                  "world units below its surroundings at which a point reads tanh(1) = 0.76"},
    [CP_OUTPUT] = {"output", NG_PARAM_ENUM, {0}, 0, 0, cavity_choices,
                   "cavity: how far a point lies below its blurred surroundings, [0, 1] (crevices, gullies, "
                   "valley floors: where dirt, moss and occlusion gather); exposure: above them, [0, 1] "
                   "(ridges, crests, edges: wear); signed: the two as [-1, 1], cavity positive"},
};

/* The source's gaussian over its lattice (the blur), less the source at
 * each cell, in world units over depth, through tanh. */
static void cavity_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius, int channels)
{
    const int w = side + 2 * radius, output = ng_int(n, CP_OUTPUT);
    const double k = ng_num(n, CP_HEIGHT) / ng_num(n, CP_DEPTH);
    int i, j;
    blur_filter(n, in, out, tmp, side, radius, channels);
    for (j = 0; j < side; j++)
        for (i = 0; i < side; i++) {
            float *o = out + (size_t)j * (size_t)side + (size_t)i;
            const double v = ng_tanh(((double)*o - (double)in[(size_t)(j + radius) * (size_t)w + (size_t)(i + radius)]) * k);
            *o = (float)(output == CV_SIGNED ? v : output == CV_CAVITY ? (v > 0 ? v : 0) : (v < 0 ? -v : 0));
        }
}

static int cavity_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch;
    n->channels = 1;
    return gaussian_setup(n, ng_num(n, CP_RADIUS), ng_num(n, CP_SPACING), err);
}

static const ng_input_desc cavity_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field"},
};

static const ng_hood_type cavity_hood = {.input = I_SOURCE, .smooth = 1, .filter = cavity_filter};

const ng_node_type ng_type_cavity = {
    .name = "cavity", .family = "neighbourhood",
    .doc = "cavity (occlusion) and exposure masks of a height field by difference from a gaussian blur of "
           "`radius`: tanh((blur - height) * height scale / depth), its positive half (cavity: crevices and "
           "valley floors), negative half (exposure: ridges and edges), or both as [-1, 1]; on a lattice of "
           "`spacing` (radius / 4) sampled by a smooth cubic. 2D renders only; the same bits in every cut",
    .params = cavity_params, .nparams = CP_NPARAMS, .inputs = cavity_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .positional = "source", .setup = cavity_setup,
    .tile_check = ng_hood_tile_check, .eval = ng_hood_eval,
    .hood = &cavity_hood,
};
