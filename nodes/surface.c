/*
 * surface.c — reading a scalar node as a height field z = height * h(x, y)
 * and shading it: its normal, its slope (a mask for cliffs or snow), or a
 * Lambert-lit relief. Two methods give the gradient:
 *
 * - grid (the default of a 2D render): central differences of the source's
 *   neighbouring samples on a lattice of the render's pixel size (or of
 *   `spacing`), on the engine's neighbourhood lattice (core/hood.c): the
 *   source is evaluated once per cell, in patches of 256^2 cells with a
 *   one-cell halo, so shading costs about the height's own cost whatever
 *   the height's graph is, and every cut of a render gives the same bits.
 *   A patch keeps the height itself; the shading is computed from its
 *   differences where the lattice is read (grid_run). Sampled at the
 *   pixel centres of a render on the pixel grid, a cell is read exactly;
 *   under a warp or a fractal, bilinearly. Its patches are anchored as the
 *   render's tiles are (`anchor`, NG_HOOD_ANCHOR_RENDER), so their cells
 *   on the pixels are the pixels' heights and a height the render also
 *   shows is read back from them (core/hood.c, kept nodes); `anchor =
 *   "world"` keeps the bits from before.
 * - analytic (the only one before, and the default of 3D and 4D renders,
 *   and of points evaluated alone, where no pixel size is known): exact
 *   gradients where the source's graph provides them (noises, fractals,
 *   arithmetic, curves, warps: ng_pull_grad), central differences of a
 *   thousandth of the detail size elsewhere; an explicit `step` asks for
 *   central differences of that step everywhere (the user's choice of
 *   scale, say to soften a relief).
 *
 * Both shade a gradient with the same arithmetic (shade_row), but for
 * the grid's hillshade, which takes its differences and its light in one
 * pass with arithmetic of its own (loops.c: light_grid; the analytic
 * method, the only one of 0.1.0, keeps its bits). The two methods'
 * option, rule and central differences are grid.h's, defined here and
 * shared with the erosion filter.
 */
#include "grid.h"
#include "ng_node.h"
#include "loops.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <stdio.h>

static const char *const mode_choices[] = {"normal", "slope", "light", NULL};
enum { M_NORMAL, M_SLOPE, M_LIGHT };
const char *const ng_grid_method_choices[] = {"auto", "grid", "analytic", NULL};
static const char *const anchor_choices[] = {"render", "world", NULL};
enum { ANCHOR_RENDER, ANCHOR_WORLD };
enum { P_MODE, P_HEIGHT, P_LIGHT, P_STEP, P_METHOD, P_SPACING, P_ANCHOR, NPARAMS };

static const ng_param_desc surface_params[NPARAMS] = {
    [P_MODE] = {"mode", NG_PARAM_ENUM, {0}, 0, 0, mode_choices,
     "normal: the unit normal (3 channels, [-1, 1]); slope: the angle from horizontal / 90 degrees ([0, 1]); "
     "light: Lambert shading max(0, normal . light) ([0, 1])"},
    [P_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, -1e12, 1e12, NULL, "world units of height per unit of the source's value"},
    [P_LIGHT] = {"light", NG_PARAM_VEC3, {-1, -1, 1}, -1e6, 1e6, NULL, "direction towards the light (normalised), for mode light"},
    [P_STEP] = {"step", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
     "method analytic: 0 for exact (analytic) gradients where the source has them, central differences of a "
     "thousandth of its detail size elsewhere; > 0: central differences of this step in world units everywhere "
     "(a larger step softens the relief). A step > 0 implies method analytic"},
    [P_METHOD] = {"method", NG_PARAM_ENUM, {0}, 0, 0, ng_grid_method_choices,
     "auto: grid in a 2D render, analytic in 3D and 4D renders and for points evaluated alone; grid: central "
     "differences of the neighbouring samples on a lattice of the render's pixel size (or `spacing`), about the "
     "height's own cost for any graph, 2D renders only; analytic: the gradient of the source's graph (the "
     "default of 2D renders before the grid method, with its bits)"},
    [P_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
     "method grid: the lattice spacing in world units; 0: the render's pixel size (a larger spacing softens "
     "the relief, the same at every --size)"},
    [P_ANCHOR] = {"anchor", NG_PARAM_ENUM, {0}, 0, 0, anchor_choices,
     "method grid on the pixel lattice (no spacing): how the lattice's patches anchor the points they "
     "evaluate the source on. render: as the render's tiles do, so a lattice point on a pixel is the "
     "pixel's own sample, bit for bit, and a height the render also outputs is evaluated once for both; "
     "world: at each patch's corner (this node's bits before render anchors, about an ulp apart in half "
     "the samples)"},
};

/* the defaults that changed in 0.2.0 (noisegraph render --classic) */
static const ng_changed_default surface_changed[] = {{P_METHOD, NG_METHOD_ANALYTIC}, {P_ANCHOR, ANCHOR_WORLD}};

enum { I_SOURCE, NINPUTS };

static const ng_input_desc surface_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field"},
};

static const ng_shorthand surface_shorthands[] = {
    {"normal", "mode", "normal"}, {"slope", "mode", "slope"}, {"light", "mode", "light"},
};

typedef struct surface_state {
    float light[3]; /* unit vector towards the light (zero if `light` is) */
} surface_state;

static int method_of(const ng_node *n)
{
    return ng_num(n, P_STEP) > 0 ? NG_METHOD_ANALYTIC : ng_int(n, P_METHOD);
}

int ng_grid_declare(ng_node *n, int method, double spacing, int anchor, ng_error *err)
{
    n->dims &= method == NG_METHOD_GRID ? 1u << 2 : 0x1Cu; /* a height field needs x and y */
    if (method == NG_METHOD_ANALYTIC) return 0;
    return spacing > 0 ? ng_hood_declare(n, spacing, spacing, 1, err) : ng_hood_declare_pixel(n, 1, anchor, err);
}

int ng_grid_here(int method, const ng_block *b, double spacing)
{
    return method == NG_METHOD_GRID || (method == NG_METHOD_AUTO && b->dims == 2 && (spacing > 0 || b->footprint > 0));
}

/* The central differences of len cells from c along a row (rows w apart),
 * k = 1 / (2 spacing): the one formula of both grid readers below. */
static void gradient_run(const float *c, ptrdiff_t w, int len, float k, float *gx, float *gy)
{
    int i;
    for (i = 0; i < len; i++) {
        gx[i] = (c[i + 1] - c[i - 1]) * k;
        gy[i] = (c[i + w] - c[i - w]) * k;
    }
}

void ng_grid_gradient_row(const float *in, int side, int j, double spacing, float *gx, float *gy)
{
    const int w = side + 2;
    gradient_run(in + (size_t)(j + 1) * (size_t)w + 1, w, side, (float)(0.5 / spacing), gx, gy);
}

static int surface_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double *l = n->param[P_LIGHT].v;
    double len = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    const double spacing = ng_num(n, P_SPACING);
    const int method = method_of(n);
    surface_state *s;
    int d;
    (void)ch;
    if (ng_int(n, P_MODE) == M_LIGHT && !(len > 0)) return ng_errorf(err, "%s: the light direction is zero", n->label);
    if (ng_num(n, P_STEP) > 0 && ng_int(n, P_METHOD) == NG_METHOD_GRID)
        return ng_errorf(err, "%s: step is the analytic method's; the grid method takes spacing", n->label);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    for (d = 0; d < 3 && len > 0; d++) s->light[d] = (float)(l[d] / len);
    n->channels = ng_int(n, P_MODE) == M_NORMAL ? 3 : 1;
    return ng_grid_declare(n, method, spacing,
                           ng_int(n, P_ANCHOR) == ANCHOR_WORLD ? NG_HOOD_ANCHOR_WORLD : NG_HOOD_ANCHOR_RENDER, err);
}

/* Shades len points from the source's gradient (gx, gy) into out's
 * first nch channels (planes `plane` floats apart): the one arithmetic
 * of both methods. */
static void shade_row(const ng_node *n, const float *gradx, const float *grady, float *out, int len, size_t plane,
                      int nch)
{
    const surface_state *s = n->state;
    const int mode = ng_int(n, P_MODE);
    const float hs = (float)ng_num(n, P_HEIGHT), lx = s->light[0], ly = s->light[1], lz = s->light[2];
    int i;
    if (mode == M_LIGHT) { /* the hillshade: the path's loop, the same arithmetic as below */
        ng__loops()->light(out, gradx, grady, hs, lx, ly, lz, len);
        return;
    }
    for (i = 0; i < len; i++) {
        /* z = hs * h: the normal is (-hs h_x, -hs h_y, 1) / length */
        float gx = hs * gradx[i], gy = hs * grady[i], slope2 = gx * gx + gy * gy;
        float inv = 1.0f / sqrtf(1.0f + slope2), nx = -gx * inv, ny = -gy * inv, nz = inv;
        if (mode == M_NORMAL) {
            out[i] = nx;
            if (nch > 1) out[plane + i] = ny;
            if (nch > 2) out[2 * plane + i] = nz;
        } else
            out[i] = (float)(ng_atan(sqrt((double)slope2)) * (2.0 / 3.14159265358979323846));
    }
}

/* The grid method: the shading of len cells along a row of the source's
 * lattice (c its first, rows w apart), from central differences over two
 * cells, computed where the lattice is sampled (ng_hood_type.run). */
#define RUN 256
static void grid_run(const ng_node *n, const float *c, ptrdiff_t w, int len, double spacing, float *out, size_t plane,
                     int nch)
{
    const float k = (float)(0.5 / spacing);
    float gx[RUN], gy[RUN];
    int at, m;
    if (ng_int(n, P_MODE) == M_LIGHT) { /* the hillshade: differences and light in one pass */
        const surface_state *st = n->state;
        ng__loops()->light_grid(out, c, w, k, (float)ng_num(n, P_HEIGHT), st->light[0], st->light[1], st->light[2],
                                len);
        return;
    }
    for (at = 0; at < len; at += m, c += m, out += m) {
        m = len - at < RUN ? len - at : RUN;
        gradient_run(c, w, m, k, gx, gy);
        shade_row(n, gx, gy, out, m, plane, nch);
    }
}

static int analytic_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out)
{
    const int len = b->n;
    float *val = ng_scratch(ctx, 1), *grad = ng_scratch(ctx, b->dims);
    int rc = -1;
    if (val && grad && ng_pull_grad(ctx, n, I_SOURCE, b, val, grad, ng_num(n, P_STEP)) == 0) {
        shade_row(n, grad, grad + len, out, len, (size_t)len, b->channels > 0 ? b->channels : n->channels);
        rc = 0;
    }
    ng_scratch_free(ctx, val, 1);
    ng_scratch_free(ctx, grad, b->dims);
    return rc;
}

/* auto takes the grid where it can: a 2D block with a pixel size (or a
 * spacing of its own). */
static int surface_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    return ng_grid_here(method_of(n), b, ng_num(n, P_SPACING)) ? ng_hood_eval(ctx, n, b, in, out)
                                                               : analytic_eval(ctx, n, b, out);
}

static const ng_hood_type surface_hood = {.input = I_SOURCE, .run = grid_run, .patch = NG_GRID_PATCH};

const ng_node_type ng_type_surface = {
    .name = "surface",
    .family = "shading",
    .doc = "reads a scalar as a height field (z = height * source) and gives its normal, slope or Lambert light. "
           "In a 2D render (method auto) from central differences of the source's neighbouring samples on a "
           "world-aligned lattice of the render's pixel size, about the height's own cost for any graph, the "
           "same bits in every cut; in 3D/4D renders, or with method analytic, from analytic gradients through "
           "noises, fractals, arithmetic, curves and warps (central differences for nodes without them, or "
           "everywhere with an explicit step)",
    .params = surface_params,
    .nparams = NPARAMS,
    .changed = surface_changed,
    .nchanged = (int)(sizeof surface_changed / sizeof surface_changed[0]),
    .inputs = surface_inputs,
    .ninputs = NINPUTS,
    .dims = 0x1Cu,
    .positional = "source",
    .shorthands = surface_shorthands,
    .nshorthands = (int)(sizeof surface_shorthands / sizeof surface_shorthands[0]),
    .setup = surface_setup,
    .tile_check = ng_hood_grid_tile_check,
    .eval = surface_eval,
    .hood = &surface_hood,
};
