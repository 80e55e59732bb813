/*
 * erosion.c — ng.erosion_filter: the look of water erosion (branching
 * gullies down every slope, sharp ridges between them) with no simulation,
 * a function of the world position, so it stitches like any noise and
 * works at any size.
 *
 * The line of Clay John's "eroded terrain noise" (2018), Felix Westin's
 * refinement (2023) and Rune Skovbo Johansen's "advanced terrain erosion
 * filter" (2026), written from their public descriptions: per octave, the
 * points of a jittered cell lattice each carry a stripe (a wave of one
 * cell's wavelength whose crests pass through the cell's pivot and run
 * along the slope direction at the point); smooth weights (a partition of
 * unity) blend the stripes of the 2 x 2 cells around the point as phasors,
 * and the blend's phase,
 * through a rounded triangle profile, is the octave's relief: crests are
 * ridges, troughs gullies. The slope direction is the gradient of the
 * source (below) plus the gradients of the earlier octaves, so finer
 * gullies run down the walls of coarser ones into their floors: they
 * branch. Each octave halves the
 * spacing; its depth is proportional to its spacing and to the source's
 * slope, so flat ground (peaks, valley floors, plains) keeps its shape.
 * Around the source's high and low `levels` the pattern is offset to carve
 * only (ridges at the source's height) or to fill only (gully floors at
 * it), and `keep` fades it there. The per-point work is the path's loop
 * (loops.c: erosion_octave), the same bits on every SIMD path.
 *
 * The source's slope comes from one of the two methods of the shading
 * nodes (grid.h). By default in a 2D render from the grid: the node's
 * value lives on a lattice of the render's pixel size (or of `spacing`)
 * on the engine's neighbourhood patches (core/hood.c), each patch the
 * source evaluated once per cell with a one-cell halo, its central
 * differences, and the gullies computed at the cells (filter_placed: the
 * patch's world place, so a cell's value is a function of the world);
 * a render on its pixel grid reads the cells, a warped point reads them
 * bilinearly. So the source costs one evaluation per pixel, not a value
 * and gradient kernel, whatever its graph, and the cut of a render does
 * not matter. Method analytic (the default of 3D and 4D renders and of
 * points evaluated alone, and the only one before) pulls the value and
 * the analytic gradient at each point (ng_pull_grad; central differences
 * for nodes without one) and computes the gullies there.
 */
#include "ng_node.h"
#include "grid.h"
#include "loops.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
    P_STRENGTH, P_SCALE, P_OCTAVES, P_GAIN, P_GULLY, P_RIDGE, P_KEEP, P_LEVELS, P_MASKS, P_SEED, P_METHOD, P_SPACING, NPARAMS
};

static const ng_param_desc erosion_params[NPARAMS] = {
    [P_STRENGTH] = {"strength", NG_PARAM_NUMBER, {1}, 0, 4, NULL,
                    "depth of the gullies, 0 to 4: at 1 the walls of the widest gullies are as steep across the "
                    "slope as the source is down it; |height - source| <= strength x scale x |source gradient| / "
                    "(2 - gain)"},
    [P_SCALE] = {"scale", NG_PARAM_NUMBER, {64}, 1e-3, 1e9, NULL,
                 "spacing of the widest gullies in world units (ridge to ridge), 0.001 to 1e9; each octave halves it"},
    [P_OCTAVES] = {"octaves", NG_PARAM_INT, {4}, 1, 8, NULL, "octaves of gullies, 1 to 8, each at half the spacing"},
    [P_GAIN] = {"gain", NG_PARAM_NUMBER, {0.5}, 0, 1, NULL,
                "steepness of each octave's walls relative to the previous octave's, 0 to 1 (its depth is then "
                "gain / 2 of the previous octave's)"},
    [P_GULLY] = {"gully_rounding", NG_PARAM_NUMBER, {0.2}, 0, 1, NULL,
                 "0: V-shaped gully floors (sharp creases) to 1: round ones"},
    [P_RIDGE] = {"ridge_rounding", NG_PARAM_NUMBER, {0.05}, 0, 1, NULL,
                 "0: knife-edge ridges between gullies to 1: round ones"},
    [P_KEEP] = {"keep", NG_PARAM_NUMBER, {0.5}, 0, 1, NULL,
                "keeping peaks and valleys, 0 to 1: the effect fades to 1 - keep at the levels' low and high ends "
                "(it fades on flat ground, summits and valley floors, at any keep)"},
    [P_LEVELS] = {"levels", NG_PARAM_RANGE, {NG_RANGE_UNIT, 0, 1}, 0, 0, NULL,
                  "the source's low and high ground, \"unit\" [0, 1], \"signed\" [-1, 1] or {lo, hi}: high ground "
                  "is carved (ridges stay at the source's height), low ground filled (gully floors stay at it)"},
    [P_MASKS] = {"masks", NG_PARAM_BOOL, {0}, 0, 0, NULL,
                 "true: 3 channels, the height, then the ridge mask and the crease (gully floor) mask, both in "
                 "[0, 1] (read them with :channel(2), :channel(3)); false: the height alone"},
    [P_SEED] = {"seed", NG_PARAM_INT, {0}, -2147483648.0, 2147483647.0, NULL, "selects an unrelated gully pattern"},
    [P_METHOD] = {"method", NG_PARAM_ENUM, {0}, 0, 0, ng_grid_method_choices,
                  "where the source's slope comes from, as for ng.light: auto: grid in a 2D render, analytic in "
                  "3D and 4D renders and for points evaluated alone; grid: the source's samples on a lattice of "
                  "the render's pixel size (or `spacing`), their central differences and the gullies at its cells "
                  "(the source evaluated once per pixel, cheaper than its analytic gradient; read "
                  "bilinearly between cells), 2D renders only; analytic: the gradient of the source's graph and the "
                  "gullies at each point (the default of 2D renders before the grid method, with its bits)"},
    [P_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                   "method grid: the lattice spacing in world units; 0: the render's pixel size (a larger "
                   "spacing costs less and rounds the finest gullies off, the same at every --size)"},
};

enum { I_SOURCE, NINPUTS };

static const ng_input_desc erosion_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field eroded (any 2D height graph)"},
};

/* The masks fade in over slopes up to this rise per gully spacing, as a
 * share of the levels' span: on flatter ground there is no relief to mark. */
#define MASK_SLOPE 0.05

typedef struct erosion_state {
    double lo, span; /* levels */
    uint32_t seed;
    float share[8];  /* each octave's share of the masks: gain^k, summing to 1 */
} erosion_state;

static int erosion_setup(ng_node *n, const int *ch, ng_error *err)
{
    const ng_value *lv = &n->param[P_LEVELS];
    erosion_state *s;
    double lo = 0, hi = 1, w = 1, sum = 0;
    int k, oct = ng_int(n, P_OCTAVES);
    (void)ch;
    if (lv->i == NG_RANGE_SIGNED) lo = -1;
    else if (lv->i == NG_RANGE_CUSTOM) lo = lv->v[0], hi = lv->v[1];
    else if (lv->i != NG_RANGE_UNIT)
        return ng_errorf(err, "%s: levels must be \"unit\", \"signed\" or {lo, hi} (the source's own range is "
                              "not known)", n->label);
    if (!(hi > lo) || !isfinite(hi - lo))
        return ng_errorf(err, "%s: levels {%g, %g}: lo must be below hi", n->label, lo, hi);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    s->lo = lo;
    s->span = hi - lo;
    s->seed = (uint32_t)ng_int(n, P_SEED) * 0x9e3779b9u + 0x632be5abu;
    for (k = 0; k < oct; k++, w *= ng_num(n, P_GAIN)) sum += w;
    for (k = 0, w = 1; k < oct; k++, w *= ng_num(n, P_GAIN)) s->share[k] = sum > 0 ? (float)(w / sum) : 0.0f;
    n->channels = ng_int(n, P_MASKS) ? 3 : 1;
    /* the finest gullies are the finest detail: octave k's spacing over 2 */
    if (!(n->detail < ldexp(ng_num(n, P_SCALE), -oct))) n->detail = ldexp(ng_num(n, P_SCALE), -oct);
    return ng_grid_declare(n, ng_int(n, P_METHOD), ng_num(n, P_SPACING), NG_HOOD_ANCHOR_WORLD, err);
}

static int erosion_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len)
{
    (void)period, (void)dims;
    snprintf(buf, len, "%s%s%s: a --tileable render is not supported by the erosion filter yet (its gully "
                       "lattice does not wrap with the image)", n->where ? n->where : "", n->where ? ": " : "",
             n->label);
    return -1;
}

/* Per point, from the source's value v and gradient (gx, gy): the depth
 * factor (strength x slope x the keep fade), the carve/fill offset and the
 * masks' weight (mask NULL: none), by the path's loop. */
static void erosion_prepare(const ng_node *n, const erosion_state *s, int len, const float *v, const float *gx,
                            const float *gy, float *amp, float *off, float *mask)
{
    const ng_erosion_prep q = {(float)s->lo, (float)(1.0 / s->span), (float)ng_num(n, P_KEEP),
                               (float)ng_num(n, P_STRENGTH), (float)(ng_num(n, P_SCALE) / (s->span * MASK_SLOPE))};
    ng__loops()->erosion_prepare(&q, v, gx, gy, amp, off, mask, len);
}

/* Octave k's lattice for points offset from anchor: the anchor split into
 * a cell (mod 2^32) and a fraction, so far from the origin the floats stay
 * small; seed: the rendering block's (a fractal octave's). */
static void erosion_octave_setup(const ng_node *n, const erosion_state *s, const double anchor[2], uint32_t seed,
                                 int k, ng_erosion_octave *o)
{
    const double spacing = ldexp(ng_num(n, P_SCALE), -k), inv = 1.0 / spacing;
    const double gain_k = ng_pow(ng_num(n, P_GAIN), k);
    const double rw = 0.5 * ng_num(n, P_RIDGE), gw = 0.5 * ng_num(n, P_GULLY);
    int d;
    for (d = 0; d < 2; d++) {
        double a = anchor[d] * inv, c = floor(a), m;
        if (!isfinite(a)) a = c = 0;
        m = fmod(c, 4294967296.0);
        if (m < 0) m += 4294967296.0;
        o->cell[d] = (uint32_t)(int64_t)m;
        o->frac[d] = (float)(a - c);
    }
    o->inv = (float)inv;
    o->seed = (s->seed ^ seed * 0x85ebca6bu) + (uint32_t)k * 0xc2b2ae35u;
    o->depth = (float)(gain_k * spacing * 0.25);
    o->share = s->share[k];
    o->ridge_w = (float)rw;
    o->gully_w = (float)gw;
    o->ridge_k = rw > 0 ? (float)(0.5 / rw) : 0.0f;
    o->gully_k = gw > 0 ? (float)(0.5 / gw) : 0.0f;
}

/* The filter at len points, offsets (x, y) from anchor, of both methods:
 * from the source's value val and gradient (gx, gy: accumulated in place)
 * into out's channels, planes `plane` floats apart; tmp: 4 len floats. */
static void erode(const ng_node *n, const double anchor[2], uint32_t seed, int len, const float *x, const float *y,
                  const float *val, float *gx, float *gy, float *tmp, float *out, size_t plane)
{
    const erosion_state *s = n->state;
    const int masks = n->channels == 3, oct = ng_int(n, P_OCTAVES);
    ng_erosion_pts p;
    ng_erosion_octave o;
    int i, k, c;
    p.x = x, p.y = y;
    p.gx = gx, p.gy = gy;
    p.amp = tmp, p.off = tmp + len, p.mask = tmp + 2 * len;
    p.h = tmp + 3 * len;
    p.ridge = masks ? out + plane : NULL;
    p.crease = masks ? out + 2 * plane : NULL;
    erosion_prepare(n, s, len, val, gx, gy, tmp, tmp + len, masks ? tmp + 2 * len : NULL);
    for (i = 0; i < len; i++) p.h[i] = 0.0f;
    for (c = 1; masks && c < 3; c++)
        for (i = 0; i < len; i++) out[c * plane + (size_t)i] = 0.0f;
    for (k = 0; k < oct; k++) {
        erosion_octave_setup(n, s, anchor, seed, k, &o);
        ng__loops()->erosion_octave(&p, &o, len);
    }
    for (i = 0; i < len; i++) out[i] = val[i] + p.h[i];
    for (c = 1; masks && c < 3; c++)
        for (i = 0; i < len; i++) {
            float *m = out + c * plane + (size_t)i;
            *m = *m < 1.0f ? *m : 1.0f;
        }
}

/* Rows of the grid's lattice the filter takes at once: long runs keep the
 * path's loops in their vector body (a 259-cell row alone ends in a
 * scalar tail) and the octaves' setup rare. */
#define GRID_ROWS 16

/* The grid method's lattice, GRID_ROWS rows at a time: the source's
 * value and central differences, then the filter at the cells. tmp holds
 * 9 runs of GRID_ROWS rows (the room of (side + 2)^2 floats is 16 of them). */
static void erosion_grid_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius,
                                int channels, const ng_hood_place *at)
{
    const size_t plane = (size_t)side * (size_t)side, run = (size_t)GRID_ROWS * (size_t)side;
    const int w = side + 2 * radius;
    float *x = tmp, *y = tmp + run, *val = tmp + 2 * run, *gx = tmp + 3 * run, *gy = tmp + 4 * run;
    float *work = tmp + 5 * run;
    int i, j, r;
    (void)channels;
    for (j = 0; j < side; j += GRID_ROWS) {
        const int rows = side - j < GRID_ROWS ? side - j : GRID_ROWS;
        for (r = 0; r < rows; r++) {
            const size_t o = (size_t)r * (size_t)side;
            for (i = 0; i < side; i++) x[o + (size_t)i] = (float)((double)i * at->spacing);
            for (i = 0; i < side; i++) y[o + (size_t)i] = (float)((double)(j + r) * at->spacing);
            memcpy(val + o, in + (size_t)(j + r + radius) * (size_t)w + (size_t)radius, (size_t)side * sizeof(float));
            ng_grid_gradient_row(in, side, j + r, at->spacing, gx + o, gy + o);
        }
        erode(n, at->origin, at->seed, rows * side, x, y, val, gx, gy, work, out + (size_t)j * (size_t)side, plane);
    }
}

static int erosion_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int len = b->n;
    float *val, *grad, *tmp;
    int rc = -1;
    if (ng_grid_here(ng_int(n, P_METHOD), b, ng_num(n, P_SPACING))) return ng_hood_eval(ctx, n, b, in, out);
    val = ng_scratch(ctx, 1), grad = ng_scratch(ctx, b->dims), tmp = ng_scratch(ctx, 4);
    if (val && grad && tmp && ng_pull_grad(ctx, n, I_SOURCE, b, val, grad, 0) == 0) {
        erode(n, b->anchor, b->seed, len, b->p[0], b->p[1], val, grad, grad + len, tmp, out, (size_t)len);
        rc = 0;
    }
    ng_scratch_free(ctx, val, 1);
    ng_scratch_free(ctx, grad, b->dims);
    ng_scratch_free(ctx, tmp, 4);
    return rc;
}

/* the default that changed in 0.2.0 (noisegraph render --classic) */
static const ng_changed_default erosion_changed[] = {{P_METHOD, NG_METHOD_ANALYTIC}};

/* The grid method's lattice: the node's own channels, computed per cell. */
static const ng_hood_type erosion_hood = {
    .input = I_SOURCE, .filter_placed = erosion_grid_filter, .patch = NG_GRID_PATCH};

const ng_node_type ng_type_erosion_filter = {
    .name = "erosion_filter",
    .family = "terrain",
    .doc = "the look of water erosion on any height field, with no simulation: octaves of gullies that run down "
           "its slopes and branch, sharp ridges between them, peaks and valley floors kept; a function of the "
           "world position, so it stitches across regions, tiles and machines and works at any size. "
           "Slopes come, as ng.light's do, in a 2D render (method auto) from central differences of the "
           "source's samples on a world-aligned lattice of the render's pixel size, the gullies computed at its "
           "cells (the source evaluated once per pixel, the same bits in every cut); in 3D/4D renders, or with method analytic, from the "
           "source's analytic gradient (noises, fractals, arithmetic, curves, warps; central differences for "
           "nodes without one)",
    .params = erosion_params,
    .nparams = NPARAMS,
    .changed = erosion_changed,
    .nchanged = 1,
    .inputs = erosion_inputs,
    .ninputs = NINPUTS,
    .dims = 0x1Cu,
    .positional = "source",
    .setup = erosion_setup,
    .tile_check = erosion_tile_check,
    .eval = erosion_eval,
    .hood = &erosion_hood,
};
